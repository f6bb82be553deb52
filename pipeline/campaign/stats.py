"""Confidence intervals, paired significance tests and rankings for a campaign's systems, any family.

Everything here is computed from per-unit sufficient statistics (``pipeline.core.family``: a family's
named statistics of each system in each unit, documents for the templette family), never by rescoring
text: a family's measures of a set of units are computed from the *sums* of its units' statistics (for
the templette family REC, PRE and F are ratios of summed COR INC PAR MIS SPU counts, micro-averaging as
``pipeline.core.measures`` scores a corpus). A resampled or shuffled corpus is therefore scored by summing
statistics and applying the family's vectorised measures, and all resamples of all systems are summed
at once with one matrix product of a (resamples x units) weight matrix and the (units x systems*K)
statistics matrix.

A measure whose value is undefined is NaN in arrays and ``None`` in results, never 0; how each
procedure treats undefined values is stated in its docstring.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from iescore.pipeline.core.family import Family, UnitStatistics

# Two deltas that are equal in exact arithmetic can differ by a few units in the last place once computed
# in floating point (e.g. 2/4 - 1/4 against 3/4 - 2/4); closer than this they count as equal, so an exact
# tie is "at least as extreme" as the test statistic requires. Measures lie in [0, 1], so rounding noise
# is ~1e-16 and genuinely different deltas of realistic campaigns are far further apart.
_TIE = 1e-12


@dataclass(frozen=True)
class Interval:
    """A percentile confidence interval, ``(None, None)`` if the measure is undefined in every resample."""

    low: float | None
    high: float | None


@dataclass(frozen=True)
class Comparison:
    """Significance of the difference ``delta = measure(a) - measure(b)`` on the full unit set.

    All three values are ``None`` when the measure is undefined for ``a`` or ``b`` on the full set.
    """

    a: str
    b: str
    delta: float | None
    paired_bootstrap_p: float | None
    randomization_p: float | None


def bootstrap_intervals(
    statistics: UnitStatistics,
    resamples: int = 1000,
    seed: int = 12345,
    beta: float | None = None,
    confidence: float = 0.95,
    options: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, Interval]]:
    """Percentile bootstrap intervals of every measure of the family, keyed system -> measure.

    Each of ``resamples`` resamples draws ``U`` units uniformly with replacement from the ``U`` units
    (``numpy.random.default_rng(seed).integers(0, U, size=(resamples, U))``, counted into a
    multiplicity matrix); every system is scored on the same resampled unit sets. A resample is scored
    by summing its units' statistics (with multiplicity) and applying the family's measures with
    ``options`` (``beta`` is short for ``options={"beta": beta}``, for families with that option).

    Percentile convention: over the ``n`` resamples where the measure is defined (undefined ones are left
    out of that measure only), ``low`` and ``high`` are ``numpy.nanquantile(values, q, method="linear")``
    at ``q = (1 - confidence) / 2`` and ``1 - (1 - confidence) / 2``: the value at position
    ``h = (n - 1) q`` of the sorted values, interpolated linearly between its two neighbours (Hyndman and
    Fan's type 7). When the measure is undefined in every resample the interval is ``(None, None)``.
    """
    family = statistics.family
    options = _options(family, beta, options)
    _check_resamples(resamples)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    n_systems, n_units, _ = statistics.values.shape
    weights, _ = _drawn_resamples(seed, resamples, n_units)
    sums = resampled_sums(weights, statistics.values, _exact(family))
    every = family.measures(sums, options)  # (resamples, systems, measures)
    tail = (1.0 - confidence) / 2.0
    result: dict[str, dict[str, Interval]] = {system: {} for system in statistics.systems}
    for index, measure in enumerate(family.measure_names):
        values = every[..., index]  # (resamples, systems)
        low = np.full(n_systems, np.nan)
        high = np.full(n_systems, np.nan)
        defined = ~np.isnan(values).all(axis=0)  # all-NaN columns stay NaN (and spare numpy's warning)
        if defined.any():
            low[defined], high[defined] = np.nanquantile(
                values[:, defined], [tail, 1.0 - tail], axis=0, method="linear"
            )
        for position, system in enumerate(statistics.systems):
            result[system][measure] = Interval(_optional(low[position]), _optional(high[position]))
    return result


def paired_significance(
    statistics: UnitStatistics,
    measure: str | None = None,
    resamples: int = 1000,
    seed: int = 12345,
    beta: float | None = None,
    options: Mapping[str, Any] | None = None,
    pairs: Sequence[tuple[int, int]] | None = None,
) -> list[Comparison]:
    """Two-sided paired significance of ``measure(a) - measure(b)`` for every pair of systems, as
    Comparisons: ``pair_tests``'s results (see there) with the systems' names, ``None`` where undefined.
    One Comparison per unordered pair, ``a`` before ``b`` in ``systems`` order, pairs in the order (0, 1),
    (0, 2), ..., (1, 2), ... (or ``pairs``' order)."""
    tests = pair_tests(
        statistics,
        measure,
        resamples,
        seed,
        options=_options(statistics.family, beta, options),
        pairs=None if pairs is None else np.asarray(list(pairs), dtype=np.int64).reshape(-1, 2),
    )
    systems = statistics.systems
    return [
        Comparison(systems[a], systems[b], None, None, None)
        if np.isnan(delta)
        else Comparison(systems[a], systems[b], float(delta), float(bootstrap), float(shuffled))
        for a, b, delta, bootstrap, shuffled in zip(
            tests.a.tolist(),
            tests.b.tolist(),
            tests.delta.tolist(),
            tests.paired_bootstrap_p.tolist(),
            tests.randomization_p.tolist(),
            strict=True,
        )
    ]


@dataclass(frozen=True, eq=False)
class PairTests:
    """The tests of pairs of systems as arrays, one element per pair: ``a`` and ``b`` (positions among the
    statistics' systems, ``a < b``), ``delta = measure(a) - measure(b)`` on the full unit set and both
    p-values, NaN where ``delta`` is undefined."""

    a: np.ndarray
    b: np.ndarray
    delta: np.ndarray
    paired_bootstrap_p: np.ndarray
    randomization_p: np.ndarray

    def take(self, rows: np.ndarray) -> PairTests:
        """These pairs' ``rows``, in that order."""
        return PairTests(*(getattr(self, name)[rows] for name in PAIR_TEST_FIELDS))


#: The arrays of ``PairTests``, in order.
PAIR_TEST_FIELDS = ("a", "b", "delta", "paired_bootstrap_p", "randomization_p")


def every_pair(n_systems: int) -> np.ndarray:
    """Every pair ``(a, b)``, ``a < b``, of ``n_systems`` in the order (0, 1), (0, 2), ..., (1, 2), ...,
    as an (n(n-1)/2, 2) int64 array (row ``pair_index(n, a, b)`` is ``(a, b)``)."""
    a, b = np.triu_indices(n_systems, k=1)
    return np.stack([a, b], axis=1).astype(np.int64)


def pair_tests(
    statistics: UnitStatistics,
    measure: str | None = None,
    resamples: int = 1000,
    seed: int = 12345,
    options: Mapping[str, Any] | None = None,
    pairs: np.ndarray | None = None,
    resampled: np.ndarray | None = None,
) -> PairTests:
    """Two-sided paired significance of ``measure(a) - measure(b)`` for every pair of systems (or for
    ``pairs``, an (n, 2) array of positions ``a < b``, in that order).

    ``measure`` defaults to the family's headline (templette: F); ``delta`` is the difference on the full
    unit set. With ``R = resamples``, both p-values count the observed statistic itself, so they lie in
    [1/(1+R), 1]:

    * Paired bootstrap (Koehn 2004; Berg-Kirkpatrick et al. 2012), in its shifted (centred) two-sided
      form: draw R unit resamples with replacement (as ``bootstrap_intervals`` does, the same for
      every pair), let ``delta*_r`` be the difference on resample r, and
      ``p = (1 + #{r : |delta*_r - delta| >= |delta|}) / (1 + R)``. Centring the bootstrap distribution
      on ``delta`` approximates the distribution of the difference under the null hypothesis.
    * Approximate randomization (Noreen 1989; Yeh 2000; Chinchor's MUC significance testing): in each of
      R shuffles, every unit independently swaps the two systems' statistics with probability 1/2, and
      ``p = (1 + #{r : |delta_r| >= |delta|}) / (1 + R)`` where ``delta_r`` is the shuffled difference.

    Random draws, all from ``numpy.random.default_rng(seed)``: first the bootstrap resamples (the very
    resamples ``bootstrap_intervals`` draws with the same seed and R), then one (R, U) 0/1 swap matrix
    shared by every pair. A resample or shuffle in which the measure is undefined for either side counts
    as not extreme; differences closer than 1e-12 to the threshold count as ties (rounding noise), hence
    extreme. With ``delta`` undefined (the measure undefined for ``a`` or ``b`` on the full set) all three
    values are NaN.

    A pair gets exactly the values it gets in the full list whatever ``pairs`` holds (the same draws and
    the same products of them with every system's statistics; a pair's arithmetic after that is its own,
    element by element), which is what lets a campaign's rerun test only the pairs of the systems that
    changed (``pipeline.campaign.reuse``).

    ``resampled``: ``measure`` of every system on each bootstrap resample as ``bootstrap_measure`` gives
    it with the same seed and R, when the caller has it already (a campaign's summary ranks with it too);
    else computed here.

    Cost: two products of the (R x U) draws with every system's L forms of its statistics
    (``resampled_sums``; one with ``resampled`` given), then, per pair, the measure alone on R bootstrap
    and 2R shuffled sums of its L forms (``Family.measure_forms``); memory of order R x LS, never R x U
    per pair.
    """
    family = statistics.family
    options = family.resolve(options)
    name = family.headline if measure is None else measure
    family.measure_index(name)  # an unknown measure is an error
    _check_resamples(resamples)
    n_systems, n_units, _ = statistics.values.shape
    if pairs is None:
        pairs = every_pair(n_systems)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    bad = (pairs[:, 0] < 0) | (pairs[:, 0] >= pairs[:, 1]) | (pairs[:, 1] >= n_systems)
    if bad.any():
        a, b = pairs[int(np.flatnonzero(bad)[0])]
        raise ValueError(f"pair {(int(a), int(b))}: positions a < b among {n_systems} systems expected")

    totals = statistics.totals()  # (S, K)
    observed = family.measure(totals, name, options)  # (S,)
    # Only the measure's forms of the statistics are summed (``Family.measure_forms``: L <= K of them;
    # the headline F reads three sums of templette's six statistics, a TREC mean two of sixteen).
    forms = family.measure_forms(name, options)
    form_values = forms.forms(statistics.values)  # (S, U, L)
    exact = _exact(family)

    weights, rng = _drawn_resamples(seed, resamples, n_units)
    if resampled is None:
        resampled = forms.measure(resampled_sums(weights, form_values, exact).transpose(2, 0, 1))
    elif resampled.shape != (resamples, n_systems):
        raise ValueError(f"resampled: shape {(resamples, n_systems)} expected, found {resampled.shape}")
    del weights
    swaps = rng.integers(0, 2, size=(resamples, n_units)).astype(np.float64)
    # Swapping units Z between a and b moves Z @ (x_b - x_a) from b's total to a's: one product of Z
    # with every system's forms serves all pairs, kept as (L, S, R): each system's resamples of a form
    # are contiguous, so the systems paired with one ``a`` are one block of each form.
    swapped_in = np.ascontiguousarray(resampled_sums(swaps, form_values, exact).transpose(2, 1, 0))
    form_totals = forms.forms(totals)  # (S, L)
    n_forms = len(swapped_in)
    del swaps
    by_system = np.ascontiguousarray(resampled.T)  # (S, R)

    n_pairs = len(pairs)
    bootstrap_extreme = np.zeros(n_pairs, dtype=np.int64)
    shuffled_extreme = np.zeros(n_pairs, dtype=np.int64)
    delta = observed[pairs[:, 0]] - observed[pairs[:, 1]]
    threshold = np.abs(delta) - _TIE
    # Pairs in runs of one ``a`` (the usual order), a run cut so that its (L, pairs, R) sums stay small.
    starts = np.flatnonzero(np.diff(pairs[:, 0], prepend=-1) != 0)
    ends = np.append(starts[1:], n_pairs) if n_pairs else starts
    per_run = max(1, _PAIR_CELLS // max(1, resamples * n_forms))
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        a = int(pairs[start, 0])
        for low in range(start, end, per_run):
            high = min(end, low + per_run)
            others = pairs[low:high, 1]
            chosen = slice(int(others[0]), int(others[-1]) + 1) if _consecutive(others) else others
            limit = threshold[low:high, None]
            # NaN compares False, so a resample or shuffle undefined on either side is not extreme.
            bootstrap_delta = by_system[a] - by_system[chosen]  # (k, R)
            bootstrap_delta -= delta[low:high, None]
            np.abs(bootstrap_delta, out=bootstrap_delta)
            bootstrap_extreme[low:high] = (bootstrap_delta >= limit).sum(axis=1)
            side_a = swapped_in[:, chosen] - swapped_in[:, a, None]  # moved to a's side: (L, k, R)
            side_b = form_totals[chosen].T[:, :, None] - side_a
            side_a += form_totals[a][:, None, None]
            shuffled = forms.measure(side_a)
            shuffled -= forms.measure(side_b)
            np.abs(shuffled, out=shuffled)
            shuffled_extreme[low:high] = (shuffled >= limit).sum(axis=1)
    undefined = np.isnan(delta)
    bootstrap_p = np.where(undefined, np.nan, (1 + bootstrap_extreme) / (1 + resamples))
    randomization_p = np.where(undefined, np.nan, (1 + shuffled_extreme) / (1 + resamples))
    return PairTests(pairs[:, 0].copy(), pairs[:, 1].copy(), delta, bootstrap_p, randomization_p)


#: The most cells of one run of pairs' (forms x resamples x pairs) sums ``pair_tests`` holds at once.
_PAIR_CELLS = 2_000_000


def _consecutive(positions: np.ndarray) -> bool:
    return bool(len(positions)) and int(positions[-1]) - int(positions[0]) == len(positions) - 1


@dataclass(frozen=True)
class Standing:
    """A system's line of a family's leaderboard: its rank by the headline, its full-sample measures
    (``None`` where undefined) and, when computed, their bootstrap intervals."""

    rank: int
    system: str
    measures: dict[str, float | None]
    intervals: dict[str, Interval]


def standings(
    statistics: UnitStatistics,
    intervals: Mapping[str, Mapping[str, Interval]] | None = None,
    beta: float | None = None,
    options: Mapping[str, Any] | None = None,
) -> list[Standing]:
    """The leaderboard of any family from its statistics: every system's full-sample measures, ranked.

    Measures of the statistics summed over every unit; order and ranks by the family's headline
    (``ranking``; the lowest first where the family says lower is better, ``Family.lower_better``).
    ``intervals`` (system -> measure -> Interval, as ``bootstrap_intervals`` gives them) are attached as
    given.
    """
    family = statistics.family
    values = family.measures(statistics.totals(), _options(family, beta, options))  # (S, M)
    measures = {
        system: {name: _optional(values[s, m]) for m, name in enumerate(family.measure_names)}
        for s, system in enumerate(statistics.systems)
    }
    # A measure where lower is better (an error rate) ranks by its negation.
    sign = family.sign()
    order = ranking(
        {
            system: None
            if measures[system][family.headline] is None
            else sign * measures[system][family.headline]
            for system in statistics.systems
        }
    )
    return [
        Standing(rank, system, measures[system], dict((intervals or {}).get(system, {})))
        for system, rank in order
    ]


def ranking(headline: Mapping[str, float | None]) -> list[tuple[str, int]]:
    """Systems best first, with their ranks, from their headline values (higher is better).

    Equal values share a rank and the next value takes its position (1, 1, 3); equal values are listed
    by name; an undefined value (``None`` or NaN) ranks after every defined one.
    """

    def key(system: str) -> tuple[bool, float, str]:
        value = headline[system]
        undefined = value is None or bool(np.isnan(value))
        return (undefined, 0.0 if undefined else -float(value), system)  # type: ignore[arg-type]

    order = sorted(headline, key=key)
    ranked: list[tuple[str, int]] = []
    rank, previous = 0, None
    for position, system in enumerate(order, start=1):
        value = key(system)[:2]
        if value != previous:
            rank, previous = position, value
        ranked.append((system, rank))
    return ranked


#: The correction for many comparisons applied to a campaign's p-values (``holm``), as reports name it.
CORRECTION = "Holm"

#: The level below which a (Holm-adjusted) p-value counts as significant: the page's marks and the rank
#: clusters.
ALPHA = 0.05


def resamples_for_holm(pairs: int, alpha: float = ALPHA) -> int:
    """The fewest resamples R with which Holm's correction over ``pairs`` randomization p-values can put
    a pair below ``alpha``. A p-value counts the observed statistic itself, so the smallest is 1/(R+1), and
    Holm multiplies the smallest p-value by the number of pairs m: a pair can be marked only when
    m/(R+1) < alpha, that is R >= floor(m/alpha) (exact: ``alpha`` is read as the decimal it prints as).
    1,000 systems make 499,500 pairs, which need 9,990,000 resamples; with 1,000 no pair is marked, and
    every system is in one rank cluster."""
    if pairs <= 0:
        return 0
    return math.floor(Fraction(pairs) / Fraction(str(alpha)))


def paired_t_test(a: np.ndarray, b: np.ndarray) -> float | None:
    """Two-sided p-value of Student's paired t-test of ``a - b`` (the test TREC papers report): with the
    differences ``d`` over ``n`` pairs, ``t = mean(d) / (sd(d) / sqrt(n))`` (``sd`` with ``n - 1``) and
    ``p = 2 P(T_{n-1} >= |t|)``. None (undefined) with fewer than two pairs or constant differences."""
    from scipy.special import stdtr  # Student's t distribution function

    differences = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = len(differences)
    if n < 2 or np.ptp(differences) == 0:
        return None
    t = differences.mean() / (differences.std(ddof=1) / np.sqrt(n))
    return float(min(1.0, 2.0 * stdtr(n - 1, -abs(t))))


def paired_t_tests(
    statistics: UnitStatistics, measure: str | None = None, options: Mapping[str, Any] | None = None
) -> np.ndarray:
    """The paired t-test's p-value of every pair of systems on ``measure`` (default: the headline), in
    ``pair_tests``' pair order, NaN where ``paired_t_test`` is undefined, for a measure that is a mean of
    per-unit values (TREC's MAP, P_10...): each unit's value is the family's measure of that unit's
    statistics alone, and the test pairs the units where both systems' values are defined (a TREC query
    a run did not answer is not paired)."""
    family = statistics.family
    name = family.headline if measure is None else measure
    from scipy.special import stdtr  # Student's t distribution function

    per_unit = family.measure(statistics.values, name, family.resolve(options))  # (S, U)
    n_systems = len(statistics.systems)
    p_values = []
    # Each system a against every b after it at once: the same sums as ``paired_t_test`` of each pair,
    # over the units both define.
    for a in range(n_systems - 1):
        differences = per_unit[a] - per_unit[a + 1 :]  # (k, U), NaN where either is undefined
        both = ~np.isnan(differences)
        n = both.sum(axis=1)
        filled = np.where(both, differences, 0.0)
        mean = filled.sum(axis=1) / np.maximum(n, 1)
        centred = np.where(both, differences - mean[:, None], 0.0)
        sd = np.sqrt((centred**2).sum(axis=1) / np.maximum(n - 1, 1))
        highest = np.where(both, differences, -np.inf).max(axis=1)
        lowest = np.where(both, differences, np.inf).min(axis=1)
        defined = (n >= 2) & (highest != lowest)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = mean / (sd / np.sqrt(n))
            p = np.minimum(1.0, 2.0 * stdtr(np.maximum(n - 1, 1), -np.abs(t)))
        p_values.append(np.where(defined, p, np.nan))
    return np.concatenate(p_values) if p_values else np.zeros(0)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (``holm_adjusted``) as a list, None where undefined."""
    adjusted = holm_adjusted(np.array([np.nan if p is None else p for p in p_values], dtype=np.float64))
    return [None if np.isnan(value) else value for value in adjusted.tolist()]


def holm_adjusted(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979) over the m p-values given (NaN, undefined, stays NaN
    and is not counted in m): the i-th smallest becomes ``max_{j <= i} min(1, (m - j + 1) p_(j))`` (equal
    p-values in the order given), so "adjusted p < alpha" controls the family-wise error rate of the m
    comparisons at alpha."""
    values = np.asarray(p_values, dtype=np.float64)
    adjusted = np.full(len(values), np.nan)
    present = np.flatnonzero(~np.isnan(values))
    order = present[np.argsort(values[present], kind="stable")]
    m = len(order)
    scaled = np.minimum(1.0, (m - np.arange(m)).astype(np.float64) * values[order])
    adjusted[order] = np.maximum.accumulate(scaled) if m else scaled
    return adjusted


def _options(family: Family, beta: float | None, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The family's options, ``beta`` (when given) being short for ``options={"beta": beta}``."""
    given = dict(options or {})
    if beta is not None:
        given["beta"] = beta
    return family.resolve(given)


def resampled_sums(draws: np.ndarray, values: np.ndarray, exact: bool) -> np.ndarray:
    """Every system's ``values`` (S, U, K: statistics, or a measure's forms of them) summed over each of
    the (R, U) ``draws`` (multiplicities of the units, or 0/1 swaps): (R, S, K).

    A system's sums are the same bits whichever systems are beside it, which is what lets a rerun keep
    the results of the systems that did not change (``pipeline.campaign.reuse``). ``exact`` (every
    statistic a count, so every value a whole number or a half): one product of the draws with every
    system's values, whose sums are exact in float64 whatever the order of its additions. Else one
    product per system (``numpy.matmul`` over the stacked systems), each of the same shape and made
    alone: its additions are in an order that depends on its shape, never on the other systems."""
    n_systems, n_units, width = values.shape
    if exact:
        matrix = values.transpose(1, 0, 2).reshape(n_units, n_systems * width)
        return (draws @ matrix).reshape(len(draws), n_systems, width)
    return np.matmul(draws, values).transpose(1, 0, 2)


def _exact(family: Family) -> bool:
    """Whether every statistic of ``family`` is a count (see ``resampled_sums``)."""
    return set(family.counts) == set(family.statistic_names)


def _drawn_resamples(seed: int, resamples: int, n_units: int) -> tuple[np.ndarray, np.random.Generator]:
    """The resamples' multiplicities drawn first from ``default_rng(seed)`` (``_resample_weights``), and
    the generator as it is after them. A campaign's summary draws the same resamples for its intervals
    and for its pair tests: the last draw is kept (read-only), and the generator's state with it, when
    it is small (``KEPT_CELLS``; a larger one is drawn again rather than held while the tests run)."""
    key = (seed, resamples, n_units)
    if _LAST_DRAWN.get("key") == key:
        rng = np.random.default_rng(seed)
        rng.bit_generator.state = _LAST_DRAWN["state"]
        return _LAST_DRAWN["weights"], rng
    rng = np.random.default_rng(seed)
    weights = _resample_weights(rng, resamples, n_units)
    weights.setflags(write=False)
    _LAST_DRAWN.clear()
    if weights.size <= KEPT_CELLS:
        _LAST_DRAWN.update(key=key, weights=weights, state=rng.bit_generator.state)
    return weights, rng


#: The largest draw ``_drawn_resamples`` keeps (cells of resamples x units: 32 MB of float64).
KEPT_CELLS = 4_000_000
_LAST_DRAWN: dict[str, Any] = {}


def _resample_weights(rng: np.random.Generator, resamples: int, n_documents: int) -> np.ndarray:
    """(resamples, documents) multiplicities of documents drawn uniformly with replacement."""
    if n_documents == 0:
        return np.zeros((resamples, 0))
    draws = rng.integers(0, n_documents, size=(resamples, n_documents))
    cells = draws + (np.arange(resamples) * n_documents)[:, None]
    counts = np.bincount(cells.ravel(), minlength=resamples * n_documents)
    return counts.reshape(resamples, n_documents).astype(np.float64)


def _require_unique(kind: str, names: Sequence[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"{kind} {name!r} is listed twice")
        seen.add(name)


def _check_resamples(resamples: int) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, int | np.integer) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")


def _optional(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def bootstrap_measure(
    statistics: UnitStatistics,
    measure: str | None = None,
    resamples: int = 1000,
    seed: int = 12345,
    options: Mapping[str, Any] | None = None,
) -> np.ndarray:
    """``measure`` (default: the headline) of every system on each bootstrap resample, (resamples,
    systems), NaN where undefined: the very resamples ``bootstrap_intervals`` and ``paired_significance``
    draw with the same seed and R."""
    family = statistics.family
    options = _options(family, None, options)
    column = family.measure_index(family.headline if measure is None else measure)
    _check_resamples(resamples)
    weights, _ = _drawn_resamples(seed, resamples, statistics.values.shape[1])
    forms = family.measure_forms(family.measure_names[column], options)
    sums = resampled_sums(weights, forms.forms(statistics.values), _exact(family))  # (R, S, L)
    return forms.measure(sums.transpose(2, 0, 1))


def rank_ranges(resampled: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Each system's rank range over bootstrap replicates: ``resampled`` is (replicates, systems) of
    headline values (higher is better, NaN undefined). In each replicate a system's rank is 1 + the
    number of systems with a strictly higher value (ties share the best rank, as ``ranking``; an
    undefined value ranks after every defined one, tied with the other undefined ones). Its range is
    ``(low, high)``: the ranks at quantiles ``(1 - confidence) / 2`` and ``1 - (1 - confidence) / 2``
    of its replicates' ranks, ``numpy.quantile(..., method="inverted_cdf")`` (the smallest rank whose
    empirical distribution function reaches q: always a rank some replicate gave). Integer arrays."""
    values = np.where(np.isnan(resampled), -np.inf, resampled)
    n_replicates, n_systems = values.shape
    if n_replicates == 0 or n_systems == 0:
        empty = np.zeros(n_systems, dtype=np.int64)
        return empty, empty
    descending = -np.sort(values, axis=1)[:, ::-1]  # each replicate's values, best first, negated
    ranks = np.empty((n_replicates, n_systems), dtype=np.int64)
    for r in range(n_replicates):
        ranks[r] = np.searchsorted(descending[r], -values[r], side="left") + 1
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(ranks, [tail, 1.0 - tail], axis=0, method="inverted_cdf")
    return low.astype(np.int64), high.astype(np.int64)


def rank_clusters(n_systems: int, significant: np.ndarray) -> np.ndarray:
    """Rank clusters of ``n_systems`` systems in board order (best first): cluster numbers from 1.

    ``significant`` holds, for every pair ``(i, j)`` with ``i < j`` in the order (0, 1), (0, 2), ...,
    (1, 2), ... (``paired_significance``'s order), whether the two differ significantly (after Holm).
    Rule: the first system opens cluster 1; each next system joins the current cluster unless it differs
    significantly from the cluster's first (best) system, and then opens the next cluster. Every member
    of a cluster is thus not significantly different from its leader; the leader of the next cluster is
    significantly worse than the leader of the one before."""
    expected = n_systems * (n_systems - 1) // 2
    if len(significant) != expected:
        raise ValueError(f"{len(significant)} pairs for {n_systems} systems, {expected} expected")
    clusters = np.zeros(n_systems, dtype=np.int64)
    leader, number = 0, 1
    for position in range(n_systems):
        if position > leader and significant[pair_index(n_systems, leader, position)]:
            leader, number = position, number + 1
        clusters[position] = number
    return clusters


def pair_index(n_systems: int, a: int, b: int) -> int:
    """The position of pair ``(a, b)``, ``a < b``, in the order (0, 1), (0, 2), ..., (1, 2), ...."""
    return a * (2 * n_systems - a - 1) // 2 + (b - a - 1)
