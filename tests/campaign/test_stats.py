"""Bootstrap intervals and paired significance from per-document tallies (pipeline.campaign.stats).

Expected values come from hand calculations (written out beside each test), from pipeline.core.measures, or
from brute-force enumeration in exact rational arithmetic of every resample or every swap, which the
randomized, vectorised procedures must approach as the number of resamples grows.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from iescore.pipeline.campaign.stats import (
    Comparison,
    Interval,
    bootstrap_intervals,
    paired_significance,
)
from iescore.pipeline.core.family import UnitStatistics
from iescore.pipeline.core.measures import Counts, f_measure, precision, recall
from iescore.pipeline.templette import TEMPLETTE

# ---------------------------------------------------------------------------------------------- helpers


def tallies(per_system: dict[str, list[tuple[int, int, int, int, int]]]) -> UnitStatistics:
    """The templette family's statistics from {system: [(COR, INC, PAR, MIS, SPU) of each document]}
    (NON 0), documents d0, d1, ..."""
    systems = tuple(per_system)
    n_documents = len(next(iter(per_system.values())))
    counts = np.array([[(*row, 0) for row in per_system[s]] for s in systems], dtype=np.int64)
    return UnitStatistics(TEMPLETTE, systems, tuple(f"d{i}" for i in range(n_documents)), counts)


def measure_values(sums: np.ndarray, measure: str, beta: float) -> np.ndarray:
    """The templette family's ``measure`` of COR INC PAR MIS SPU sums ``[..., 5]`` (NON 0)."""
    sums = np.asarray(sums)
    padded = np.concatenate([sums, np.zeros((*sums.shape[:-1], 1))], axis=-1)
    return TEMPLETTE.measures(padded, {"beta": beta})[..., TEMPLETTE.measure_index(measure)]


def exact(measure: str, cor: int, inc: int, par: int, mis: int, spu: int) -> Fraction | None:
    """REC, PRE or F (beta 1) as an exact fraction, None where the denominator is zero.

    Seed 000's definitions with PAR worth half: REC = (COR + PAR/2)/POS, PRE = (COR + PAR/2)/ACT, and
    F at beta 1 = 2(COR + PAR/2)/(POS + ACT) = (2 COR + PAR)/(POS + ACT).
    """
    pos, act = cor + inc + par + mis, cor + inc + par + spu
    numerator, denominator = {
        "REC": (Fraction(2 * cor + par, 2), pos),
        "PRE": (Fraction(2 * cor + par, 2), act),
        "F": (Fraction(2 * cor + par), pos + act),
    }[measure]
    return numerator / denominator if denominator else None


def population_quantile(distribution: Counter, q: float) -> float:
    """The least value whose cumulative probability reaches q, in a distribution given as value counts."""
    total = sum(distribution.values())
    cumulative = 0
    for value in sorted(distribution):
        cumulative += distribution[value]
        if Fraction(cumulative, total) >= Fraction(q):
            return float(value)
    raise AssertionError(f"no value reaches cumulative probability {q}")


def summed(rows: list[tuple[int, int, int, int, int]]) -> tuple[int, int, int, int, int]:
    return tuple(sum(column) for column in zip(*rows, strict=True))  # type: ignore[return-value]


# Three systems over six documents, (COR, INC, PAR, MIS, SPU) per document, chosen by hand so that the
# pairs' exact p-values spread from about 0.1 (A against C) to about 0.9, with PAR points and one
# document (d5) where system C produced nothing and has no reference points either.
SIX_DOCUMENTS = {
    "A": [(3, 1, 0, 1, 0), (2, 0, 1, 0, 1), (0, 1, 0, 2, 1),
          (4, 0, 0, 0, 2), (1, 1, 1, 1, 0), (2, 0, 0, 1, 0)],
    "B": [(2, 1, 1, 1, 1), (3, 0, 0, 0, 0), (1, 0, 0, 2, 0),
          (2, 1, 0, 1, 1), (2, 0, 1, 1, 1), (1, 1, 0, 1, 2)],
    "C": [(2, 0, 0, 3, 3), (1, 1, 0, 1, 2), (0, 0, 2, 1, 0),
          (3, 0, 1, 0, 0), (0, 2, 0, 2, 1), (0, 0, 0, 0, 0)],
}  # fmt: skip


# ------------------------------------------------------------------------------------- measure_values


def test_measure_values_agree_with_pipeline_measures() -> None:
    rng = np.random.default_rng(7)
    rows = rng.integers(0, 4, size=(400, 5))
    rows[rng.random(400) < 0.3] *= rng.integers(0, 2, size=5)  # knock out categories: zero POS or ACT
    special = [(0, 0, 0, 0, 0), (0, 0, 0, 3, 0), (0, 0, 0, 0, 2), (0, 0, 1, 0, 0), (0, 1, 0, 0, 0)]
    rows = np.vstack([rows, special])
    for beta in (1.0, 0.5, 2.0):
        got = {m: measure_values(rows, m, beta) for m in ("REC", "PRE", "F")}
        for i, (cor, inc, par, mis, spu) in enumerate(rows.tolist()):
            c = Counts(COR=cor, INC=inc, PAR=par, MIS=mis, SPU=spu)
            for name, expected in (("REC", recall(c)), ("PRE", precision(c)), ("F", f_measure(c, beta))):
                value = got[name][i]
                if expected is None:
                    assert math.isnan(value), (name, c)
                else:
                    assert value == pytest.approx(expected, rel=1e-12, abs=0), (name, c, beta)
    # The special rows cover every kind of undefined value: nothing at all; only MIS (ACT = 0 so PRE is
    # undefined, REC = F = 0); only SPU (POS = 0, REC undefined).
    assert np.isnan(measure_values(np.array(special[0]), "F", 1.0))
    assert np.isnan(measure_values(np.array(special[1]), "PRE", 1.0))
    assert np.isnan(measure_values(np.array(special[2]), "REC", 1.0))


def test_measure_values_keeps_leading_axes_and_rejects_unknown_measures() -> None:
    assert measure_values(np.zeros((3, 4, 5)), "F", 1.0).shape == (3, 4)
    with pytest.raises(ValueError, match="XYZ"):
        measure_values(np.zeros(5), "XYZ", 1.0)
    with pytest.raises(ValueError, match="last axis"):
        measure_values(np.zeros(6), "F", 1.0)


# ------------------------------------------------------------------------------------------ intervals


def test_one_document_every_interval_is_the_point_value() -> None:
    # With one document every resample is that document, so every resampled score is the full score.
    # S: COR 2, INC 1, PAR 1, MIS 1, SPU 2 -> POS 5, ACT 6, COR + PAR/2 = 2.5:
    #    REC = 2.5/5 = 0.5, PRE = 2.5/6 = 5/12, F = 2 * 2.5 / (5 + 6) = 5/11.
    # M: MIS 3 only -> POS 3, ACT 0: REC = 0, PRE undefined in every resample, F = 0 / 3 = 0.
    t = tallies({"S": [(2, 1, 1, 1, 2)], "M": [(0, 0, 0, 3, 0)]})
    got = bootstrap_intervals(t, resamples=50)
    assert got["S"]["REC"] == Interval(pytest.approx(0.5), pytest.approx(0.5))
    assert got["S"]["PRE"] == Interval(pytest.approx(5 / 12), pytest.approx(5 / 12))
    assert got["S"]["F"] == Interval(pytest.approx(5 / 11), pytest.approx(5 / 11))
    assert {m: got["M"][m] for m in ("REC", "PRE", "F")} == {
        "REC": Interval(0.0, 0.0),
        "PRE": Interval(None, None),
        "F": Interval(0.0, 0.0),
    }


def test_two_documents_interval_reaches_both_extremes() -> None:
    # d0: COR 1 (POS = ACT = 1, F = 1); d1: MIS 1, SPU 1 (POS = ACT = 1, F = 0). A resample of two
    # documents is {d0, d0} with probability 1/4 (COR 2, POS = ACT = 2: F = 4/4 = 1), {d0, d1} with 1/2
    # (COR 1, MIS 1, SPU 1, POS = ACT = 2: F = 2/4 = 0.5) or {d1, d1} with 1/4 (F = 0). Each end value
    # holds ~1/4 of 4000 resamples, far more than the 2.5% (100) below the low percentile and above the
    # high one, so the 95% interval is exactly [0, 1]; REC and PRE equal F here.
    t = tallies({"X": [(1, 0, 0, 0, 0), (0, 0, 0, 1, 1)]})
    got = bootstrap_intervals(t, resamples=4000, seed=3)
    for measure in ("REC", "PRE", "F"):
        assert got["X"][measure] == Interval(0.0, 1.0)
    # A 20% interval sits between the 40th and 60th percentiles; 0.5 covers cumulative 25% to 75%.
    narrow = bootstrap_intervals(t, resamples=4000, seed=3, confidence=0.2)
    assert narrow["X"]["F"] == Interval(0.5, 0.5)
    # Even with few resamples the interval stays within the possible values [0, 1].
    few = bootstrap_intervals(t, resamples=5, seed=11)["X"]["F"]
    assert few.low is not None and few.high is not None and 0.0 <= few.low <= few.high <= 1.0


def test_undefined_resamples_are_left_out_of_the_percentiles() -> None:
    # d0: COR 1; d1: MIS 1 only (ACT 0). PRE on {d0, d0} = 2/2, on {d0, d1} = 1/1, and on {d1, d1}
    # undefined (ACT 0): over the defined resamples PRE is always 1. REC is 1, 1/2 or 0 as above.
    t = tallies({"X": [(1, 0, 0, 0, 0), (0, 0, 0, 1, 0)]})
    got = bootstrap_intervals(t, resamples=4000, seed=5)
    assert got["X"]["PRE"] == Interval(1.0, 1.0)
    assert got["X"]["REC"] == Interval(0.0, 1.0)


def test_intervals_match_exhaustive_resampling() -> None:
    # All 4^4 = 256 equally likely ordered resamples of four documents, scored exactly, give the
    # bootstrap distribution itself. With 20000 resamples the empirical 2.5% point must lie between its
    # 1.5% and 3.5% quantiles (Q(q) = the least value whose cumulative probability reaches q), and the
    # 97.5% point between its 96.5% and 98.5% quantiles: a margin of 0.01 is ~9 standard errors of an
    # empirical CDF at 20000 resamples.
    documents = {
        "A": [(3, 0, 1, 1, 0), (0, 1, 0, 2, 1), (2, 0, 0, 0, 3), (1, 1, 1, 0, 0)],
        "B": [(1, 0, 0, 3, 0), (2, 0, 2, 0, 0), (0, 0, 0, 1, 2), (4, 1, 0, 0, 1)],
    }
    got = bootstrap_intervals(tallies(documents), resamples=20000, seed=99)
    for system, rows in documents.items():
        for measure in ("REC", "PRE", "F"):
            distribution = Counter(
                exact(measure, *summed([rows[i] for i in pick]))
                for pick in itertools.product(range(len(rows)), repeat=len(rows))
            )
            assert None not in distribution  # every resample defined in this example

            def quantile(q: float, distribution: Counter = distribution) -> float:
                return population_quantile(distribution, q)

            interval = got[system][measure]
            assert interval.low is not None and interval.high is not None
            assert quantile(0.015) - 1e-12 <= interval.low <= quantile(0.035) + 1e-12, (system, measure)
            assert quantile(0.965) - 1e-12 <= interval.high <= quantile(0.985) + 1e-12, (system, measure)
            assert quantile(0.015) < quantile(0.965)  # the example is not degenerate


def test_every_system_is_resampled_with_the_same_documents() -> None:
    # The resamples depend on the seed and the documents only: a system's interval is the same alone or
    # beside others, and two systems with the same counts get the same intervals.
    rows = SIX_DOCUMENTS["A"]
    alone = bootstrap_intervals(tallies({"A": rows}), resamples=300, seed=8)
    together = bootstrap_intervals(tallies({**SIX_DOCUMENTS, "A2": rows}), resamples=300, seed=8)
    assert together["A"] == alone["A"] == together["A2"]
    assert together["B"] != together["A"]


def test_intervals_reject_bad_parameters() -> None:
    t = tallies({"X": [(1, 0, 0, 0, 0)]})
    for kwargs in ({"confidence": 1.0}, {"confidence": 0.0}, {"resamples": 0}, {"beta": -1.0}):
        with pytest.raises(ValueError):
            bootstrap_intervals(t, **kwargs)


# ---------------------------------------------------------------------------------------- significance


def test_pairs_in_system_order() -> None:
    five = {name: SIX_DOCUMENTS["ABC"[i % 3]] for i, name in enumerate(["v", "w", "x", "y", "z"])}
    got = paired_significance(tallies(five), resamples=20)
    assert len(got) == 5 * 4 // 2
    assert [(c.a, c.b) for c in got] == list(itertools.combinations(["v", "w", "x", "y", "z"], 2))


def test_identical_systems_have_p_one() -> None:
    # delta = 0, and so is every shuffled delta (a swap exchanges equal counts) and every bootstrap
    # delta: |delta*_r - 0| >= 0 and |delta_r| >= 0 hold in all R, so p = (1 + R)/(1 + R) = 1.
    t = tallies({"A": SIX_DOCUMENTS["A"], "A2": SIX_DOCUMENTS["A"]})
    assert paired_significance(t, resamples=200) == [Comparison("A", "A2", 0.0, 1.0, 1.0)]


def test_a_system_better_in_every_document() -> None:
    # P: COR 1 in each of 10 documents (F = 1); Q: MIS 1 and SPU 1 in each (F = 0); delta = 1.
    # Bootstrap: every resample keeps F(P) = 1 and F(Q) = 0, so |delta*_r - 1| = 0 < 1 is never extreme
    # and p = 1/(1 + R) exactly. Randomization: with k documents swapped P has COR 10 - k over
    # POS = ACT = 10, F(P) = (10 - k)/10 and F(Q) = k/10, so |delta_r| = |10 - 2k|/10 reaches 1 only for
    # k = 0 or 10: exact p = 2/2^10 ~ 0.002, and with R = 1000 the count of such shuffles is ~2.
    t = tallies({"P": [(1, 0, 0, 0, 0)] * 10, "Q": [(0, 0, 0, 1, 1)] * 10})
    [got] = paired_significance(t, resamples=1000)
    assert got.delta == 1.0
    assert got.paired_bootstrap_p == 1 / 1001
    assert got.randomization_p is not None and got.randomization_p < 0.015
    # p counts the observed statistic itself: a whole multiple of 1/(1 + R), never below it.
    assert got.randomization_p >= 1 / 1001
    assert got.randomization_p * 1001 == pytest.approx(round(got.randomization_p * 1001), abs=1e-9)


def test_exact_ties_count_as_extreme() -> None:
    # A: (1,2,0,0,1) (0,3,0,3,0) (1,2,0,2,1) -> COR 2 INC 7 MIS 5 SPU 2, POS 14 ACT 11, F = 4/25.
    # B: (2,3,0,2,0) (2,0,0,1,0) (3,1,0,0,0) -> COR 7 INC 4 MIS 3 SPU 0, POS 14 ACT 11, F = 14/25.
    # delta = -2/5. Swapping d1 and d2: A gets COR 6 INC 3 MIS 1 SPU 1 (POS = ACT = 10, F = 12/20 = 3/5)
    # and B gets COR 3 INC 8 MIS 7 SPU 1 (POS 18, ACT 12, F = 6/30 = 1/5): delta = 2/5, a tie in exact
    # arithmetic that floating point computes as 0.39999999999999997. All eight patterns by hand:
    # none -2/5, d2 -2/39, d1 22/609, d1+d2 2/5, d0 -2/5, d0+d2 -22/609, d0+d1 2/39, all 2/5, so the
    # exact p is 4/8; a test that lost the rounded ties would find 2/8.
    a = [(1, 2, 0, 0, 1), (0, 3, 0, 3, 0), (1, 2, 0, 2, 1)]
    b = [(2, 3, 0, 2, 0), (2, 0, 0, 1, 0), (3, 1, 0, 0, 0)]
    [got] = paired_significance(tallies({"A": a, "B": b}), resamples=4000, seed=6)
    assert got.delta == pytest.approx(-0.4)
    assert got.randomization_p == pytest.approx(0.5, abs=0.03)


def test_randomization_matches_exact_permutation_test() -> None:
    # Exact permutation test: all 2^6 swap patterns are equally likely under the null hypothesis, and
    # p = #{patterns z : |delta_z| >= |delta|} / 64 (the identity pattern counts itself). Approximate
    # randomization with 20000 shuffles estimates it with a standard error below 0.0036.
    resamples = 20000
    got = paired_significance(tallies(SIX_DOCUMENTS), resamples=resamples, seed=2024)
    assert [(c.a, c.b) for c in got] == [("A", "B"), ("A", "C"), ("B", "C")]
    for comparison in got:
        rows_a, rows_b = SIX_DOCUMENTS[comparison.a], SIX_DOCUMENTS[comparison.b]
        observed = exact("F", *summed(rows_a)) - exact("F", *summed(rows_b))
        extreme = 0
        for pattern in itertools.product((False, True), repeat=6):
            shuffled_a = [rb if swap else ra for ra, rb, swap in zip(rows_a, rows_b, pattern, strict=True)]
            shuffled_b = [ra if swap else rb for ra, rb, swap in zip(rows_a, rows_b, pattern, strict=True)]
            delta = exact("F", *summed(shuffled_a)) - exact("F", *summed(shuffled_b))
            extreme += abs(delta) >= abs(observed)
        exact_p = extreme / 64
        assert comparison.delta == pytest.approx(float(observed))
        assert comparison.randomization_p == pytest.approx(exact_p, abs=0.02), (comparison, exact_p)


def test_paired_bootstrap_matches_exhaustive_resampling() -> None:
    # All 5^5 = 3125 ordered resamples of five documents are equally likely; the shifted two-sided test's
    # p tends to P(|delta* - delta| >= |delta|) over them. 20000 resamples: standard error below 0.0036.
    five = {name: rows[:5] for name, rows in SIX_DOCUMENTS.items()}
    got = paired_significance(tallies(five), resamples=20000, seed=77)
    for comparison in got:
        rows_a, rows_b = five[comparison.a], five[comparison.b]
        observed = exact("F", *summed(rows_a)) - exact("F", *summed(rows_b))
        extreme = 0
        for pick in itertools.product(range(5), repeat=5):
            f_a = exact("F", *summed([rows_a[i] for i in pick]))
            f_b = exact("F", *summed([rows_b[i] for i in pick]))
            extreme += f_a is not None and f_b is not None and abs(f_a - f_b - observed) >= abs(observed)
        exact_p = extreme / 5**5
        assert comparison.delta == pytest.approx(float(observed))
        assert comparison.paired_bootstrap_p == pytest.approx(exact_p, abs=0.02), (comparison, exact_p)


def test_undefined_resamples_are_not_extreme() -> None:
    # U and V both have COR 1 in d0 and nothing at all in d1 (POS = ACT = 0): identical, delta = 0.
    # Randomization swaps equal counts, so every shuffle is defined with delta 0: p = 1. The bootstrap
    # resample {d1, d1} (probability 1/4) leaves F undefined for both and is not counted as extreme, so
    # p -> 3/4 instead of 1.
    t = tallies({"U": [(1, 0, 0, 0, 0), (0, 0, 0, 0, 0)], "V": [(1, 0, 0, 0, 0), (0, 0, 0, 0, 0)]})
    [got] = paired_significance(t, resamples=4000, seed=1)
    assert got.delta == 0.0
    assert got.randomization_p == 1.0
    assert got.paired_bootstrap_p == pytest.approx(0.75, abs=0.03)


def test_undefined_delta_gives_no_p_values() -> None:
    # E has no points at all: F(E) undefined, so every comparison with E is undefined.
    t = tallies({"A": SIX_DOCUMENTS["A"], "E": [(0, 0, 0, 0, 0)] * 6, "B": SIX_DOCUMENTS["B"]})
    got = paired_significance(t, resamples=100)
    assert got[0] == Comparison("A", "E", None, None, None)
    assert got[2] == Comparison("E", "B", None, None, None)
    assert got[1].delta is not None and got[1].randomization_p is not None


def test_other_measures_use_their_own_deltas() -> None:
    t = tallies(SIX_DOCUMENTS)
    totals = {name: Counts(*summed(rows)) for name, rows in SIX_DOCUMENTS.items()}
    for measure, function in (("REC", recall), ("PRE", precision)):
        got = paired_significance(t, measure=measure, resamples=50)
        pairs = (("A", "B"), ("A", "C"), ("B", "C"))
        expected = [function(totals[a]) - function(totals[b]) for a, b in pairs]
        assert [c.delta for c in got] == pytest.approx(expected)
    got = paired_significance(t, beta=2.0, resamples=50)
    assert got[0].delta == pytest.approx(f_measure(totals["A"], 2.0) - f_measure(totals["B"], 2.0))
    with pytest.raises(ValueError, match="XYZ"):
        paired_significance(t, measure="XYZ")


def test_seed_makes_results_reproducible() -> None:
    t = tallies(SIX_DOCUMENTS)
    assert paired_significance(t, resamples=300, seed=4) == paired_significance(t, resamples=300, seed=4)
    assert bootstrap_intervals(t, resamples=300, seed=4) == bootstrap_intervals(t, resamples=300, seed=4)
    assert paired_significance(t, resamples=300, seed=4) != paired_significance(t, resamples=300, seed=5)
    assert bootstrap_intervals(t, resamples=300, seed=4) != bootstrap_intervals(t, resamples=300, seed=5)


def test_a_kept_draw_gives_the_values_of_a_fresh_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """A summary's intervals and pair tests draw the same resamples: the draw is kept for the second
    (``stats._drawn_resamples``), with the generator's state after it, and changes nothing."""
    from iescore.pipeline.campaign import stats

    counts = np.random.default_rng(3).integers(0, 5, size=(3, 40, 6))
    t = UnitStatistics(TEMPLETTE, ("a", "b", "c"), tuple(f"d{i}" for i in range(40)), counts)

    def both() -> tuple[object, object]:
        return bootstrap_intervals(t, resamples=200, seed=9), paired_significance(t, resamples=200, seed=9)

    monkeypatch.setattr(stats, "KEPT_CELLS", 0)  # every draw made afresh
    fresh = both()
    assert stats._LAST_DRAWN == {}
    monkeypatch.setattr(stats, "KEPT_CELLS", 10**9)
    assert both() == fresh
    assert stats._LAST_DRAWN["key"] == (9, 200, 40)
    # The other way round, and after another seed's draw.
    assert paired_significance(t, resamples=200, seed=9) == fresh[1]
    assert bootstrap_intervals(t, resamples=200, seed=8) != fresh[0]
    assert paired_significance(t, resamples=200, seed=9) == fresh[1]
    assert bootstrap_intervals(t, resamples=200, seed=9) == fresh[0]
