"""sc_stats' matched-pair significance tests, as pure functions (each rule once).

The rules follow NIST sc_stats 1.3 exactly, quirks included, since its reports are reproduced line for
line: the normal probabilities come from its table (:mod:`.normtable`, the lower tabulated value), its
accumulated binomial switches to a normal approximation when ``n p (1-p) > 5`` (with sc_stats'
continuity term ``R * 0.5``), ties are ranked by their mean rank, and a difference within a threshold
counts as no difference. They are public so that a WER campaign can run MAPSSWE and the sign test
beside its bootstrap (``from iescore.pipeline.speech.sc_stats import sign_test, mapsswe_test``).

Results are ``+1`` (the second system is better), ``-1`` (the first is better) or ``0`` (no
significant difference), as sc_stats' comparison matrices print them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from iescore.pipeline.speech.sc_stats.normtable import FNORM, X2_LEVELS

TEST_DIFF, NO_DIFF = 1, 0
Z95 = 1.960  # two-tailed 95 % critical value of sc_stats' Z table
X2_GENERAL = 10  # the 5 % column of sc_stats' chi-squared table
SIGN_EQUAL = 0.005
WILCOXON_EQUAL = 0.005


def normprob(z: float) -> float:
    """P(Z <= |z|) from sc_stats' table: the value at the largest tabulated z at or below |z|."""
    zx = abs(z)
    for i in range(1, len(FNORM)):
        if zx < i / 100:
            return FNORM[i - 1]
        if zx == i / 100:
            return FNORM[i]
    return FNORM[-1]


def n_choose_r(n: int, r: int) -> float:
    """sc_stats' n choose r: (r+1)...(n) / 1...(n-r), in floating point."""
    return math.prod(range(r + 1, n + 1)) / math.prod(range(1, n - r + 1))


def acc_binomial(r: int, n: int, p: float = 0.5) -> float:
    """P(R <= r) for R binomial(n, p); for ``n p (1-p) > 5`` sc_stats' normal approximation with the
    statistic ``(r * 0.5 - n p) / sqrt(n p (1-p))``."""
    if n * p * (1.0 - p) <= 5.0:
        return sum(n_choose_r(n, k) * p**k * (1.0 - p) ** (n - k) for k in range(r + 1))
    mean = n * p
    z = (r * 0.5 - mean) / math.sqrt(n * p * (1.0 - p))
    value = normprob(abs(z))
    return 1.0 - value if z < 0.0 else value


def mean_ranks(values: Sequence[float], decreasing: bool = False) -> np.ndarray:
    """Ranks 1..n of ``values`` (ascending, or descending), ties sharing their mean rank."""
    array = np.asarray(values, dtype=float)
    key = -array if decreasing else array
    order = np.argsort(key, kind="stable")
    ranks = np.empty(len(array))
    sorted_values = key[order]
    start = 0
    while start < len(array):
        stop = start
        while stop + 1 < len(array) and sorted_values[stop + 1] == sorted_values[start]:
            stop += 1
        ranks[order[start : stop + 1]] = (start + stop) / 2 + 1
        start = stop + 1
    return ranks


def percentages(counts: np.ndarray, formula: str) -> np.ndarray:
    """Per-speaker percentages from counts ``[..., (C, S, D, I)]``: ``E`` word error rate, ``R`` word
    accuracy (correct over reference words), ``W`` 100 minus the word error rate."""
    c, s, d, i = (counts[..., k].astype(float) for k in range(4))
    ref = c + s + d
    with np.errstate(invalid="ignore", divide="ignore"):
        if formula == "R":
            return np.where(ref == 0, 0.0, c / ref * 100.0)
        error = np.where(ref == 0, 0.0, (i + s + d) / ref * 100.0)
    return error if formula == "E" else 100.0 - error


@dataclass(frozen=True)
class SignResult:
    """The sign test of two systems' per-speaker percentages."""

    plus: int
    minus: int
    equal: int
    p_value: float
    first_higher: bool  # the first system's percentages sum higher (it is "tptr[0]")
    result: int


def sign_test(
    a: Sequence[float], b: Sequence[float], zero_is_best: bool = True, alpha: float = 0.05
) -> SignResult:
    """Sign test on paired percentages: differences within 0.005 are ties, half of them (the odd one
    to the minus side) added to each side; two-sided binomial p of the smaller count."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    first_higher = a.sum() > b.sum()
    hi, lo = (a, b) if first_higher else (b, a)
    equal = int(np.sum(np.abs(hi - lo) <= SIGN_EQUAL))
    minus = int(np.sum((np.abs(hi - lo) > SIGN_EQUAL) & (hi < lo)))
    plus = len(a) - equal - minus
    num_b = minus + equal // 2 + equal % 2
    num_a = plus + equal // 2
    p = 2.0 * acc_binomial(min(num_a, num_b), num_a + num_b) if num_a != num_b else 1.0
    result = (TEST_DIFF * (1 if zero_is_best else -1)) if p < alpha else NO_DIFF
    return SignResult(plus, minus, equal, p, first_higher, result * (1 if first_higher else -1))


@dataclass(frozen=True)
class WilcoxonResult:
    """The Wilcoxon signed-rank test of two systems' per-speaker percentages."""

    ranks: np.ndarray
    differences: np.ndarray
    plus: int
    minus: int
    plus_rank: float
    minus_rank: float
    z: float
    confidence: float
    first_higher: bool
    result: int


def wilcoxon_test(a: Sequence[float], b: Sequence[float], zero_is_best: bool = True) -> WilcoxonResult:
    """Wilcoxon signed-rank test, normal approximation: |differences| ranked with ties averaged, a
    difference within 0.005 alternately counted positive and negative; W is the rank sum of the
    smaller side, Z = (W - n(n+1)/4) / sqrt(n(n+1)(2n+1)/24), significant beyond 1.960."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    first_higher = a.sum() > b.sum()
    hi, lo = (a, b) if first_higher else (b, a)
    ranks = mean_ranks(np.abs(hi - lo))
    diff = hi - lo
    plus = minus = 0
    plus_rank = minus_rank = 0.0
    alternate = 0
    for d, r in zip(diff, ranks, strict=True):
        if d < 0.0 and abs(d) > WILCOXON_EQUAL:
            minus, minus_rank = minus + 1, minus_rank + r
        elif d > 0.0 and abs(d) > WILCOXON_EQUAL:
            plus, plus_rank = plus + 1, plus_rank + r
        else:
            if alternate % 2 == 0:
                plus, plus_rank = plus + 1, plus_rank + r
            else:
                minus, minus_rank = minus + 1, minus_rank + r
            alternate += 1
    w = plus_rank if plus < minus else minus_rank
    n = plus + minus
    better = "b" if plus < minus else "a"
    if zero_is_best:
        better = "b" if better == "a" else "a"
    z = (w - n * (n + 1) / 4.0) / math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)
    confidence = 1.0 - 2.0 * (normprob(abs(z)) - 0.5)
    result = (TEST_DIFF * (-1 if better == "a" else 1)) if abs(z) > Z95 else NO_DIFF
    return WilcoxonResult(
        ranks,
        diff,
        plus,
        minus,
        plus_rank,
        minus_rank,
        z,
        confidence,
        first_higher,
        result * (1 if first_higher else -1),
    )


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's test on a 2x2 table ``[[both right, only second wrong], [only first wrong, both wrong]]``."""

    table: tuple[tuple[int, int], tuple[int, int]]
    p_value: float
    result: int


def mcnemar_test(table: Sequence[Sequence[int]], alpha: float = 0.05) -> McNemarResult:
    """Exact (binomial) McNemar test on the discordant cells, two-sided; equal discordant counts are
    no difference with p = 1."""
    t = ((int(table[0][0]), int(table[0][1])), (int(table[1][0]), int(table[1][1])))
    num_a, num_b = t[1][0], t[0][1]
    if num_a == num_b:
        return McNemarResult(t, 1.0, NO_DIFF)
    p = 2.0 * acc_binomial(min(num_a, num_b), num_a + num_b)
    result = (TEST_DIFF * (1 if num_a > num_b else -1)) if p < alpha else NO_DIFF
    return McNemarResult(t, p, result)


def sentence_table(first_wrong: Sequence[bool], second_wrong: Sequence[bool]) -> list[list[int]]:
    """The 2x2 table of paired utterances: rows first system right/wrong, columns second."""
    first = np.asarray(first_wrong, bool)
    second = np.asarray(second_wrong, bool)
    if first.shape != second.shape:
        raise ValueError("sentence_table: the two systems' utterances must pair up")
    cells = np.bincount(first.astype(np.int64) * 2 + second, minlength=4)
    return [[int(cells[0]), int(cells[1])], [int(cells[2]), int(cells[3])]]


def segment_pairs(evals1: str, evals2: str, min_good: int = 2) -> tuple[list[tuple[int, int, int]], int]:
    """MAPSSWE segments of one utterance aligned by two systems (evaluation letters of each):
    ``(reference words, errors of the first, errors of the second)`` per segment, and how many
    error-free segments were dropped (see :func:`mapsswe_segments`)."""
    segments, dropped = mapsswe_segments(Utterances.of([evals1]), Utterances.of([evals2]), min_good)
    return [tuple(int(v) for v in row) for row in segments], dropped


@dataclass(frozen=True)
class Utterances:
    """A system's evaluation letters of some utterances, one byte each: utterance ``u`` is
    ``letters[bounds[u]:bounds[u+1]]``. What MAPSSWE needs of them is computed once, on first use."""

    letters: np.ndarray
    bounds: np.ndarray

    @staticmethod
    def of(evals: Sequence[str]) -> Utterances:
        letters = np.frombuffer("".join(evals).encode("latin-1"), np.uint8)
        return Utterances(letters, np.concatenate(([0], np.cumsum([len(e) for e in evals]))).astype(np.int64))

    @functools.cached_property
    def words(self) -> tuple[np.ndarray, ...]:
        """The letter index of each reference word (every letter but ``I``; one unused entry at
        the end, so that positions an utterance lacks may be indexed and masked), the first
        reference word of each utterance, how many each has, whether each is ``C`` (same extra
        entry), how many insertions come right before it (same), and how many end each utterance."""
        letters, bounds = self.letters, self.bounds
        utterances = len(bounds) - 1
        where = np.flatnonzero(letters != ord("I"))
        owner = np.repeat(np.arange(utterances), np.diff(bounds))[where]
        words = np.bincount(owner, minlength=utterances)
        first = np.concatenate(([0], np.cumsum(words))).astype(np.int64)
        previous = np.concatenate(([-1], where[:-1]))
        opens = np.arange(len(where)) == first[owner]
        previous[opens] = bounds[owner[opens]] - 1
        inserted_before = where - previous - 1
        where = np.append(where, 0)
        last = np.where(words > 0, where[np.maximum(first[1:] - 1, 0)], bounds[:-1] - 1)
        trailing = bounds[1:] - 1 - last
        right = np.append(letters[where[:-1]] == ord("C"), False)
        return where, first, words, right, np.append(inserted_before, 0), trailing

    @functools.cached_property
    def walk(self) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The positions MAPSSWE walks when these utterances come first: each reference word, then
        one past each utterance's end. Their number, and for each its utterance, its rank in the
        utterance, whether it is a word, whether that word is ``C`` and has insertions before it."""
        _, first, words, right, before, _ = self.words
        size = words + 1
        start = np.concatenate(([0], np.cumsum(size))).astype(np.int64)
        total = int(start[-1])
        utt = np.repeat(np.arange(len(size)), size)
        r = np.arange(total) - start[utt]
        real = r < words[utt]
        k = np.where(real, first[utt] + r, -1)  # -1: the unused entry (not right, no insertion)
        return total, utt, r, real, right[k], before[k] > 0

    @functools.cached_property
    def running(self) -> tuple[np.ndarray, np.ndarray]:
        """Running counts of ``C`` and of ``I`` letters (length + 1)."""
        correct = np.concatenate(([0], np.cumsum(self.letters == ord("C"))))
        inserted = np.concatenate(([0], np.cumsum(self.letters == ord("I"))))
        return correct, inserted


def mapsswe_segments(first: Utterances, second: Utterances, min_good: int = 2) -> tuple[np.ndarray, int]:
    """MAPSSWE segments of utterances aligned by two systems (utterance ``u`` of ``first`` against
    utterance ``u`` of ``second``): the ``(n, 3)`` segments ``(reference words, errors of the
    first, errors of the second)`` in utterance order, and how many error-free segments were dropped.

    As sc_stats cuts them: the walk follows the first system's reference words, paired with the
    second's in order; an insertion before a word or a word not right in both opens an error
    region, which closes at the first word ending ``min_good`` words right in both with no
    insertion among them (one before the first of them is allowed). A segment runs from the
    ``min_good``-th word before the region's first (or the utterance's start) to the closing word,
    insertions between included, in each system; one still open at the end of the utterance (or
    opened there by trailing insertions, or by words of the second system left over) runs to the
    end. sc_stats' re-synchronisation of the two reference strings compares word records, not
    words, and so only ever re-marks the error state the differing evaluations already set: it is
    left out. Segments without any error are dropped (sc_stats warns of each on stderr)."""
    m = min_good
    if m < 2:
        raise ValueError(f"min_good must be at least 2 (sc_stats uses 2), got {m}")
    where1, first1, words1, _, _, trailing1 = first.words
    where2, first2, words2, right2, before2, trailing2 = second.words
    total, utt, r, real, right1, inserted1 = first.walk
    in2 = real & (r < words2[utt])
    k2 = np.where(in2, first2[utt] + r, -1)  # -1: the unused entry (not right, no insertion)
    both = right1 & right2[k2]
    inserted = inserted1 | (before2[k2] > 0)
    leftover2 = np.where(words2 > words1, 1, np.where(words2 == words1, trailing2, 0))
    end_open = (trailing1 > 0) | (leftover2 > 0)
    bad = np.where(real, ~both | inserted, end_open[utt])
    # a position closes a region when it ends min_good words right in both, no insertion after the first
    cb = np.concatenate(([0], np.cumsum(both)))
    ci = np.concatenate(([0], np.cumsum(inserted)))
    index = np.arange(total)
    low = np.maximum(index - m + 1, 0)
    closes = (
        real
        & (r >= m - 1)
        & (cb[index + 1] - cb[low] == m)
        & (ci[index + 1] - ci[np.minimum(low + 1, index + 1)] == 0)
    )
    entries = np.flatnonzero(bad)
    close_at = np.flatnonzero(closes)
    found = np.searchsorted(close_at, entries, side="right")
    candidate = (
        close_at[np.minimum(found, max(len(close_at) - 1, 0))]
        if len(close_at)
        else np.zeros(len(entries), np.int64)
    )
    same = (
        (found < len(close_at)) & (utt[candidate] == utt[entries])
        if len(close_at)
        else np.zeros(len(entries), bool)
    )
    key = np.where(same, candidate, total + utt[entries])
    new = np.ones(len(entries), bool)
    new[1:] = key[1:] != key[:-1]
    entry, close = entries[new], key[new]
    u = utt[entry]
    rp = r[entry]
    closed = close < total
    rc = np.where(closed, r[np.where(closed, close, 0)], 0)
    columns = []
    for side, where, start_of in ((first, where1, first1), (second, where2, first2)):
        bounds = side.bounds
        back = np.where(rp - m >= 0, start_of[u] + rp - m, -1)  # -1: the unused last entry
        begin = np.where(rp - m >= 0, where[back], bounds[u])
        stop = np.where(closed, where[np.where(closed, start_of[u] + rc, -1)], bounds[u + 1] - 1)
        length = np.maximum(stop - begin + 1, 0)
        correct, insertions = side.running
        end = begin + length
        errors = length - (correct[end] - correct[begin])
        reference = length - (insertions[end] - insertions[begin])
        columns.append((reference, errors))
    (ref1, err1), (ref2, err2) = columns
    keep = (err1 > 0) | (err2 > 0)
    segments = np.stack([(ref1 + ref2) // 2, err1, err2], axis=1)[keep].astype(np.int64)
    return segments, int((~keep).sum())


@dataclass(frozen=True)
class MapsswResult:
    """The MAPSSWE test of two systems: kept segments, dropped error-free segments, Z."""

    segments: np.ndarray  # (n, 3): reference words, errors of the first, errors of the second
    dropped: int
    sentences: int
    mean: float
    variance: float
    std_dev: float
    z: float
    result: int

    @property
    def first_pct(self) -> float:
        ref = int(self.segments[:, 0].sum())
        return 0.0 if ref == 0 else self.segments[:, 1].sum() / ref * 100.0

    @property
    def second_pct(self) -> float:
        ref = int(self.segments[:, 0].sum())
        return 0.0 if ref == 0 else self.segments[:, 2].sum() / ref * 100.0

    @property
    def confidence(self) -> float:
        return 1.0 - 2.0 * (normprob(abs(self.z)) - 0.5)


def mapsswe_test(segments: Sequence[tuple[int, int, int]], dropped: int, sentences: int) -> MapsswResult:
    """Matched-pairs sentence-segment word error test: Z = mean / (sd / sqrt(n)) of the per-segment
    error differences (first minus second; sample variance), significant beyond 1.960; a negative
    mean makes the first system the better one."""
    array = np.asarray(segments, dtype=np.int64).reshape(-1, 3)
    diff = (array[:, 1] - array[:, 2]).astype(float)
    n = len(diff)
    mean = float(diff.sum() / n) if n else math.nan
    spread = float(((diff - mean) ** 2).sum()) if n else 0.0
    if spread != 0.0:
        variance = spread / (n - 1)
        std_dev = math.sqrt(variance)
        z = mean / (math.sqrt(variance) / math.sqrt(n))
    else:
        variance = std_dev = z = 0.0
    result = TEST_DIFF if abs(z) > Z95 else NO_DIFF
    if mean < 0.0:
        result = -result
    return MapsswResult(array, dropped, sentences, mean, variance, std_dev, z, result)


Z1TAIL = (
    (2.330, 0.99),
    (2.055, 0.98),
    (1.881, 0.97),
    (1.751, 0.96),
    (1.645, 0.95),
    (1.555, 0.94),
    (1.474, 0.93),
    (1.405, 0.92),
    (1.340, 0.91),
    (1.381, 0.90),
)


def rank_sum_comparisons(sums: np.ndarray, blocks: int) -> dict[tuple[int, int], int]:
    """sc_stats' multiple comparison after the Friedman test: treatments ``i``, ``j`` differ when their
    rank sums (over ``blocks``) differ by at least z * sqrt(b t (t-1) / 6), z the one-tailed value for
    0.05 / (t (t-1)) from sc_stats' table; ``+1`` when ``i``'s sum is the higher (``j`` ranks better
    when low ranks are good). sc_stats reports this comparison whether or not the Friedman statistic
    itself is significant; so does the command."""
    systems = len(sums)
    area = 0.05 / (systems * (systems - 1))
    z = Z1TAIL[-1][0]
    if area < 1.0 - Z1TAIL[0][1]:
        z = Z1TAIL[0][0]
    else:
        for value, interior in Z1TAIL[1:-1]:
            if area < 1.0 - interior:
                z = value
                break
    compare = z * math.sqrt(blocks * systems * (systems - 1) / 6.0)
    result = {}
    for i in range(systems):
        for j in range(systems):
            if i != j:
                differs = abs(sums[i] - sums[j]) >= compare
                result[i, j] = (1 if sums[i] > sums[j] else -1) if differs else 0
    return result


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman's two-way analysis of variance by ranks of one side (treatments within blocks)."""

    sums: np.ndarray
    x2: float
    adjust: float
    df: int  # index into sc_stats' table: t - 2, within 0..29 (so "df{t-1}")
    significant: bool


def friedman_test(ranks: np.ndarray, tie_groups: int | None = None) -> FriedmanResult:
    """X2_r = 12 / (b t (t+1)) * sum(R_j^2) - 3 b (t+1), divided by the ties adjustment
    1 - sum(c^3 - c) / (b t (t^2 - 1)) (c: sizes of tied groups within a block, in order of first
    appearance, at most ``tie_groups`` of them, as sc_stats counts them); ``ranks[block, treatment]``.
    Significant beyond the 5 % chi-squared value of t - 1 degrees of freedom."""
    blocks, treatments = ranks.shape
    sums = ranks.sum(axis=0)
    df = min(max(treatments - 2, 0), 29)
    x2 = 12.0 / (blocks * treatments * (treatments + 1)) * float((sums * sums).sum()) - 3.0 * blocks * (
        treatments + 1
    )
    limit = treatments if tie_groups is None else tie_groups
    total = 0
    for row in ranks:
        groups: dict[float, int] = {}
        for value in row:
            groups[value] = groups.get(value, 0) + 1
        total += sum(c * c * c - c for c in list(groups.values())[:limit])
    adjust = 1.0 - total / (blocks * treatments * (treatments * treatments - 1))
    x2 = 0.0 if adjust == 0.0 else x2 / adjust
    return FriedmanResult(sums, x2, adjust, df, x2 > X2_LEVELS[df][X2_GENERAL])
