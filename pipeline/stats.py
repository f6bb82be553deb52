"""Confidence intervals and paired significance tests for a campaign's systems.

Everything here is computed from per-document count tallies (COR INC PAR MIS SPU of each system in each
document), never by rescoring text: the tallies are the sufficient statistics of the corpus measures,
because REC, PRE and F of a set of documents are ratios of the *sums* of its documents' counts
(micro-averaging, as ``pipeline.measures`` scores a corpus). A resampled or shuffled corpus is therefore
scored by summing counts and taking ratios, and all resamples of all systems are summed at once with one
matrix product of a (resamples x documents) weight matrix and the (documents x systems*5) count matrix.

A measure whose denominator is zero is undefined (NaN in arrays, ``None`` in results), never 0; how each
procedure treats undefined values is stated in its docstring.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: The last axis of ``Tallies.counts``; NON enters no measure and is not kept.
COUNTED = ("COR", "INC", "PAR", "MIS", "SPU")
#: The measures these procedures support (fractions of 1, as ``pipeline.measures`` returns them).
STATISTICS = ("REC", "PRE", "F")

_COR, _INC, _PAR, _MIS, _SPU = range(len(COUNTED))
# Two deltas that are equal in exact arithmetic can differ by a few units in the last place once computed
# in floating point (e.g. 2/4 - 1/4 against 3/4 - 2/4); closer than this they count as equal, so an exact
# tie is "at least as extreme" as the test statistic requires. Measures lie in [0, 1], so rounding noise
# is ~1e-16 and genuinely different deltas of realistic campaigns are far further apart.
_TIE = 1e-12


@dataclass(frozen=True, eq=False)
class Tallies:
    """Per-document counts of several systems over one common, ordered list of documents.

    ``counts[s, d]`` holds the COR, INC, PAR, MIS, SPU points of ``systems[s]`` in ``documents[d]``
    (shape ``(S, D, 5)``, int64, read-only). The document order matters only as the order in which
    resampling draws documents, so with a fixed seed it is part of what determines the results.
    Compared by identity (``eq=False``): numpy arrays have no single truth value to compare by.
    """

    systems: tuple[str, ...]
    documents: tuple[str, ...]
    counts: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "systems", tuple(self.systems))
        object.__setattr__(self, "documents", tuple(self.documents))
        _require_unique("system", self.systems)
        _require_unique("document", self.documents)
        counts = np.asarray(self.counts)
        expected = (len(self.systems), len(self.documents), len(COUNTED))
        if counts.shape != expected:
            raise ValueError(f"counts has shape {counts.shape}, expected (systems, documents, 5): {expected}")
        if counts.size and not np.issubdtype(counts.dtype, np.integer):
            raise ValueError(f"counts must be integers, got dtype {counts.dtype}")
        if counts.size and counts.min() < 0:
            raise ValueError("counts must not be negative")
        counts = np.array(counts, dtype=np.int64)  # a private copy, so freezing it freezes nobody else's
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)


@dataclass(frozen=True)
class Interval:
    """A percentile confidence interval, ``(None, None)`` if the measure is undefined in every resample."""

    low: float | None
    high: float | None


@dataclass(frozen=True)
class Comparison:
    """Significance of the difference ``delta = measure(a) - measure(b)`` on the full document set.

    All three values are ``None`` when the measure is undefined for ``a`` or ``b`` on the full set.
    """

    a: str
    b: str
    delta: float | None
    paired_bootstrap_p: float | None
    randomization_p: float | None


def tallies_from_rows(
    rows: Iterable[tuple[str, str, str]], systems: Sequence[str], documents: Sequence[str]
) -> Tallies:
    """Count points given as ``(system, document, category)`` rows, one row a point.

    ``category`` is one of COR INC PAR MIS SPU NON; NON points are ignored (they enter no measure). A
    document with no rows for a system counts zero for it. A system, document or category outside the
    given lists raises ValueError naming it: nothing is dropped silently.
    """
    systems, documents = tuple(systems), tuple(documents)
    _require_unique("system", systems)
    _require_unique("document", documents)
    table = pd.DataFrame(list(rows), columns=["system", "document", "category"], dtype=object)
    system_index = _codes("system", table["system"], systems)
    document_index = _codes("document", table["document"], documents)
    category_index = _codes("category", table["category"], (*COUNTED, "NON"))
    kept = category_index < len(COUNTED)
    cell = (system_index[kept] * len(documents) + document_index[kept]) * len(COUNTED) + category_index[kept]
    size = len(systems) * len(documents) * len(COUNTED)
    counts = np.bincount(cell, minlength=size).astype(np.int64)
    return Tallies(systems, documents, counts.reshape(len(systems), len(documents), len(COUNTED)))


def bootstrap_intervals(
    t: Tallies, resamples: int = 1000, seed: int = 12345, beta: float = 1.0, confidence: float = 0.95
) -> dict[str, dict[str, Interval]]:
    """Percentile bootstrap intervals of REC, PRE and F for every system, keyed system -> measure.

    Each of ``resamples`` resamples draws ``D`` documents uniformly with replacement from the ``D``
    documents (``numpy.random.default_rng(seed).integers(0, D, size=(resamples, D))``, counted into a
    multiplicity matrix); every system is scored on the same resampled document sets. A resample is
    scored by summing its documents' counts (with multiplicity) and taking the ratios.

    Percentile convention: over the ``n`` resamples where the measure is defined (undefined ones are left
    out of that measure only), ``low`` and ``high`` are ``numpy.nanquantile(values, q, method="linear")``
    at ``q = (1 - confidence) / 2`` and ``1 - (1 - confidence) / 2``: the value at position
    ``h = (n - 1) q`` of the sorted values, interpolated linearly between its two neighbours (Hyndman and
    Fan's type 7). When the measure is undefined in every resample the interval is ``(None, None)``.
    """
    _check_resamples(resamples)
    _check_beta(beta)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    rng = np.random.default_rng(seed)
    n_systems = len(t.systems)
    weights = _resample_weights(rng, resamples, len(t.documents))
    sums = (weights @ _document_matrix(t)).reshape(resamples, n_systems, len(COUNTED))
    tail = (1.0 - confidence) / 2.0
    result: dict[str, dict[str, Interval]] = {system: {} for system in t.systems}
    for measure in STATISTICS:
        values = measure_values(sums, measure, beta)  # (resamples, systems)
        low = np.full(n_systems, np.nan)
        high = np.full(n_systems, np.nan)
        defined = ~np.isnan(values).all(axis=0)  # all-NaN columns stay NaN (and spare numpy's warning)
        if defined.any():
            low[defined], high[defined] = np.nanquantile(
                values[:, defined], [tail, 1.0 - tail], axis=0, method="linear"
            )
        for index, system in enumerate(t.systems):
            result[system][measure] = Interval(_optional(low[index]), _optional(high[index]))
    return result


def paired_significance(
    t: Tallies, measure: str = "F", resamples: int = 1000, seed: int = 12345, beta: float = 1.0
) -> list[Comparison]:
    """Two-sided paired significance of ``measure(a) - measure(b)`` for every pair of systems.

    One Comparison per unordered pair, ``a`` before ``b`` in ``t.systems`` order, pairs in the order
    (0, 1), (0, 2), ..., (1, 2), ...; ``delta`` is the difference on the full document set. With
    ``R = resamples``, both p-values count the observed statistic itself, so they lie in [1/(1+R), 1]:

    * Paired bootstrap (Koehn 2004; Berg-Kirkpatrick et al. 2012), in its shifted (centred) two-sided
      form: draw R document resamples with replacement (as ``bootstrap_intervals`` does, the same for
      every pair), let ``delta*_r`` be the difference on resample r, and
      ``p = (1 + #{r : |delta*_r - delta| >= |delta|}) / (1 + R)``. Centring the bootstrap distribution
      on ``delta`` approximates the distribution of the difference under the null hypothesis.
    * Approximate randomization (Noreen 1989; Yeh 2000; Chinchor's MUC significance testing): in each of
      R shuffles, every document independently swaps the two systems' counts with probability 1/2, and
      ``p = (1 + #{r : |delta_r| >= |delta|}) / (1 + R)`` where ``delta_r`` is the shuffled difference.

    Random draws, all from ``numpy.random.default_rng(seed)``: first the bootstrap resamples (the very
    resamples ``bootstrap_intervals`` draws with the same seed and R), then one (R, D) 0/1 swap matrix
    shared by every pair. A resample or shuffle in which the measure is undefined for either side counts
    as not extreme; differences closer than 1e-12 to the threshold count as ties (rounding noise), hence
    extreme. With ``delta`` undefined (the measure undefined for ``a`` or ``b`` on the full set) all three
    values are ``None``.

    Cost: two (R x D) @ (D x 5S) matrix products, then work of order R x 5 per pair; memory of order
    R x 5S, never R x D per pair.
    """
    _check_measure(measure)
    _check_resamples(resamples)
    _check_beta(beta)
    rng = np.random.default_rng(seed)
    n_systems, n_documents = len(t.systems), len(t.documents)
    matrix = _document_matrix(t)
    totals = t.counts.sum(axis=1).astype(np.float64)  # (S, 5)
    observed = measure_values(totals, measure, beta)  # (S,)

    weights = _resample_weights(rng, resamples, n_documents)
    resampled = measure_values(
        (weights @ matrix).reshape(resamples, n_systems, len(COUNTED)), measure, beta
    )  # (R, S)
    del weights
    swaps = rng.integers(0, 2, size=(resamples, n_documents)).astype(np.float64)
    # Swapping documents Z between a and b moves Z @ (x_b - x_a) from b's total to a's: one product of Z
    # with every system's counts serves all pairs.
    swapped_in = (swaps @ matrix).reshape(resamples, n_systems, len(COUNTED))  # (R, S, 5)
    del swaps

    comparisons: list[Comparison] = []
    for a in range(n_systems - 1):
        others = slice(a + 1, n_systems)  # every b after a, handled at once
        delta = observed[a] - observed[others]  # (k,)
        threshold = np.abs(delta) - _TIE
        # NaN compares False, so a resample or shuffle undefined on either side is not extreme.
        bootstrap_delta = resampled[:, a, None] - resampled[:, others]  # (R, k)
        bootstrap_extreme = (np.abs(bootstrap_delta - delta) >= threshold).sum(axis=0)
        moved = swapped_in[:, others, :] - swapped_in[:, a, None, :]  # (R, k, 5)
        shuffled_delta = measure_values(totals[a] + moved, measure, beta) - measure_values(
            totals[others] - moved, measure, beta
        )
        shuffled_extreme = (np.abs(shuffled_delta) >= threshold).sum(axis=0)
        for offset, b in enumerate(range(a + 1, n_systems)):
            if np.isnan(delta[offset]):
                comparisons.append(Comparison(t.systems[a], t.systems[b], None, None, None))
                continue
            comparisons.append(
                Comparison(
                    t.systems[a],
                    t.systems[b],
                    float(delta[offset]),
                    (1 + int(bootstrap_extreme[offset])) / (1 + resamples),
                    (1 + int(shuffled_extreme[offset])) / (1 + resamples),
                )
            )
    return comparisons


def measure_values(sums: np.ndarray, measure: str, beta: float = 1.0) -> np.ndarray:
    """REC, PRE or F of count sums ``[..., 5]`` (COR INC PAR MIS SPU), NaN where undefined.

    The formulas of ``pipeline.measures``: REC = (COR + PAR/2) / POS, PRE = (COR + PAR/2) / ACT,
    F = (beta^2 + 1)(COR + PAR/2) / (beta^2 POS + ACT), with POS = COR + INC + PAR + MIS and
    ACT = COR + INC + PAR + SPU; a zero denominator gives NaN (``None`` there), never 0.
    """
    _check_measure(measure)
    sums = np.asarray(sums, dtype=np.float64)
    if sums.shape[-1:] != (len(COUNTED),):
        raise ValueError(f"sums must have a last axis of 5 counts {COUNTED}, got shape {sums.shape}")
    cor, inc, par, mis, spu = (sums[..., i] for i in range(len(COUNTED)))
    matched = cor + 0.5 * par
    if measure == "REC":
        numerator, denominator = matched, cor + inc + par + mis
    elif measure == "PRE":
        numerator, denominator = matched, cor + inc + par + spu
    else:
        b2 = beta * beta
        numerator, denominator = (b2 + 1.0) * matched, b2 * (cor + inc + par + mis) + (cor + inc + par + spu)
    out = np.full(numerator.shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _document_matrix(t: Tallies) -> np.ndarray:
    """Counts as a (documents, systems * 5) float matrix: column ``5 s + c`` is system s, category c.

    float64 holds integer counts exactly (below 2^53) and lets the products use BLAS.
    """
    n_systems, n_documents, width = t.counts.shape
    return t.counts.transpose(1, 0, 2).reshape(n_documents, n_systems * width).astype(np.float64)


def _resample_weights(rng: np.random.Generator, resamples: int, n_documents: int) -> np.ndarray:
    """(resamples, documents) multiplicities of documents drawn uniformly with replacement."""
    if n_documents == 0:
        return np.zeros((resamples, 0))
    draws = rng.integers(0, n_documents, size=(resamples, n_documents))
    cells = draws + (np.arange(resamples) * n_documents)[:, None]
    counts = np.bincount(cells.ravel(), minlength=resamples * n_documents)
    return counts.reshape(resamples, n_documents).astype(np.float64)


def _codes(kind: str, values: pd.Series, known: Sequence[str]) -> np.ndarray:
    codes = pd.Index(known, dtype=object).get_indexer(values)
    unknown = codes < 0
    if unknown.any():
        first = values[unknown].iloc[0]
        raise ValueError(f"unknown {kind} {first!r} ({int(unknown.sum())} row(s)); known: {list(known)[:10]}")
    return codes.astype(np.int64)


def _require_unique(kind: str, names: Sequence[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"{kind} {name!r} is listed twice")
        seen.add(name)


def _check_measure(measure: str) -> None:
    if measure not in STATISTICS:
        raise ValueError(f"unknown measure {measure!r}; expected one of {STATISTICS}")


def _check_resamples(resamples: int) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, int | np.integer) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")


def _check_beta(beta: float) -> None:
    if not (np.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be a positive finite number, got {beta!r}")


def _optional(value: float) -> float | None:
    return None if np.isnan(value) else float(value)
