"""The families declared so far under the contract of ``pipeline.core.family``: templette, MUC, coreference.

Each declaration says what its statistics are and how its measures follow from their sums, and comes
with the function that turns the family's own per-unit output into a ``STATISTICS`` table. (When the
package is split by family, each section moves into its family's directory.)

- **templette** (seed 000): per document, the COR INC PAR MIS SPU points ALL SLOTS counts (fill points,
  selected by ``pipeline.report.slot_points``, the rule the leaderboard prints), by slot; measures REC,
  PRE, F with the run's ``beta``, ``pipeline.measures``'s formulas; headline F; categories: slots.
- **muc** (seed 001): the same statistics and measures, since the MUC scorer's ALL SLOTS is made of the
  same counts.
- **coref**: per document, the numerators and denominators of recall and precision of MUC, B3, CEAF-e,
  CEAF-m and LEA, and BLANC's per link type; measures every metric's R, P, F1 as
  ``pipeline.coref.rates`` computes them from summed counts (option ``zero_division``), and
  ``CoNLL_F1``, the mean of the MUC, B3 and CEAF-e F1 (the CoNLL-2011/2012 shared tasks' score), the
  headline. No categories.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa

from pipeline.core.family import Family, statistics_table
from pipeline.coref import METRICS, BlancCounts, CorefScores
from pipeline.report import slot_points
from schemas import C

# --- templette and MUC ---------------------------------------------------------------------------------

#: The templette statistics: the five categories that enter a measure (NON enters none).
POINTS = ("COR", "INC", "PAR", "MIS", "SPU")


def _point_measures(sums: np.ndarray, options: Mapping[str, Any]) -> np.ndarray:
    """REC, PRE and F of summed points (``pipeline.measures``'s formulas), NaN where undefined.

    REC = (COR + PAR/2) / POS, PRE = (COR + PAR/2) / ACT, F = (beta^2 + 1)(COR + PAR/2) / (beta^2 POS +
    ACT), POS = COR + INC + PAR + MIS, ACT = COR + INC + PAR + SPU. The operations are those of
    ``pipeline.measures`` in the same order, so the values are the same to the last bit.
    """
    beta = options["beta"]
    if isinstance(beta, bool) or not isinstance(beta, int | float) or not (math.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be a positive finite number, got {beta!r}")
    cor, inc, par, mis, spu = (sums[..., i] for i in range(len(POINTS)))
    matched = cor + 0.5 * par
    possible = cor + inc + par + mis
    actual = cor + inc + par + spu
    b2 = beta * beta
    out = np.full((*sums.shape[:-1], 3), np.nan)
    for index, (numerator, denominator) in enumerate(
        ((matched, possible), (matched, actual), ((b2 + 1.0) * matched, b2 * possible + actual))
    ):
        result = np.full(numerator.shape, np.nan)
        np.divide(numerator, denominator, out=result, where=denominator != 0)
        out[..., index] = result
    return out


TEMPLETTE = Family(
    name="templette",
    unit="document",
    statistic_names=POINTS,
    measure_names=("REC", "PRE", "F"),
    headline="F",
    categories="slot",
    formula=_point_measures,
    counts=POINTS,
    options={"beta": 1.0},
)

MUC = Family(
    name="muc",
    unit="document",
    statistic_names=POINTS,
    measure_names=("REC", "PRE", "F"),
    headline="F",
    categories="slot",
    formula=_point_measures,
    counts=POINTS,
    options={"beta": 1.0},
)


def templette_statistics(tallies: pa.Table, system: str = "system") -> pa.Table:
    """A system's templette (or MUC) statistics from its ``tallies``: ALL SLOTS points by document and slot.

    One row per (document, slot ``TYPE.SLOT``, category) with a point, its value the number of points;
    a document of the tallies without any fill point (only object or unscored points) gets one row of
    value 0 (COR, no category), so it is still a unit that resampling draws, as it always was. A
    category other than COR INC PAR MIS SPU NON is a ValueError naming the system.
    """
    frame = slot_points(tallies.select([C.doc_id, C.instance_type, C.slot, C.aspect, C.category]).to_pandas())
    frame = frame[frame[C.category] != "NON"]
    unknown = sorted(set(frame[C.category]) - set(POINTS))
    if unknown:
        raise ValueError(f"system {system!r}: unknown point categories {unknown}")
    slots = frame[C.instance_type].astype(str) + "." + frame[C.slot].astype(str)
    grouped = frame.assign(_slot=slots).groupby([C.doc_id, "_slot", C.category], sort=True).size()
    units = [key[0] for key in grouped.index]
    categories: list[str | None] = [key[1] for key in grouped.index]
    statistics = [key[2] for key in grouped.index]
    values = grouped.to_numpy(dtype=np.float64).tolist()
    for document in sorted(set(tallies.column(C.doc_id).to_pylist()) - set(units)):
        units.append(document)
        categories.append(None)
        statistics.append(POINTS[0])
        values.append(0.0)
    return statistics_table(units, categories, statistics, values)


# --- coreference ---------------------------------------------------------------------------------------

_PARTS = ("recall_num", "recall_den", "precision_num", "precision_den")
_LINK_TYPES = ("coreference", "non_coreference")
#: Measure prefixes of the coreference metrics (``pipeline.coref.METRICS`` order).
COREF_MEASURES = {
    "muc": "MUC",
    "b3": "B3",
    "ceafe": "CEAFe",
    "ceafm": "CEAFm",
    "blanc": "BLANC",
    "lea": "LEA",
}


def _coref_statistic_names() -> tuple[str, ...]:
    names: list[str] = []
    for metric in METRICS:
        if metric == "blanc":
            names += [f"blanc_{link}_{part}" for link in _LINK_TYPES for part in _PARTS]
        else:
            names += [f"{metric}_{part}" for part in _PARTS]
    return tuple(names)


COREF_STATISTICS = _coref_statistic_names()


def _coref_measures(sums: np.ndarray, options: Mapping[str, Any]) -> np.ndarray:
    """Every metric's R, P, F1 of summed counts, as ``pipeline.coref.rates``, then ``CoNLL_F1``.

    ``zero_division`` "undefined": a ratio over 0 is NaN, and so is F1 when R or P is; 0 (or "0"): such
    a ratio is 0 and F1 is 0 when R + P is 0. BLANC averages R, P, F1 over the link types the key has
    links of (recall denominator > 0); with none, it is undefined (or 0).
    """
    zero_division = options["zero_division"]
    if str(zero_division) not in ("undefined", "0"):
        raise ValueError(f"zero_division must be 'undefined' or 0, not {zero_division!r}")
    zero = np.nan if str(zero_division) == "undefined" else 0.0
    column = {name: sums[..., i] for i, name in enumerate(COREF_STATISTICS)}
    results: list[np.ndarray] = []
    for metric in METRICS:
        if metric == "blanc":
            link = [_rates(*(column[f"blanc_{t}_{p}"] for p in _PARTS), zero) for t in _LINK_TYPES]
            has = [column[f"blanc_{t}_recall_den"] > 0 for t in _LINK_TYPES]
            for coreference, non_coreference in zip(link[0], link[1], strict=True):
                both = (coreference + non_coreference) / 2
                results.append(
                    np.where(
                        has[0] & has[1],
                        both,
                        np.where(has[0], coreference, np.where(has[1], non_coreference, zero)),
                    )
                )
        else:
            results.extend(_rates(*(column[f"{metric}_{p}"] for p in _PARTS), zero))
    f1 = {metric: results[3 * METRICS.index(metric) + 2] for metric in ("muc", "b3", "ceafe")}
    results.append((f1["muc"] + f1["b3"] + f1["ceafe"]) / 3)
    return np.stack(results, axis=-1)


def _rates(
    recall_num: np.ndarray,
    recall_den: np.ndarray,
    precision_num: np.ndarray,
    precision_den: np.ndarray,
    zero: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    recall = np.full(recall_num.shape, zero)
    np.divide(recall_num, recall_den, out=recall, where=recall_den != 0)
    precision = np.full(precision_num.shape, zero)
    np.divide(precision_num, precision_den, out=precision, where=precision_den != 0)
    total = recall + precision
    f1 = np.full(total.shape, np.nan)
    defined = ~np.isnan(total)
    np.divide(2 * recall * precision, total, out=f1, where=defined & (total != 0))
    f1[defined & (total == 0)] = 0.0
    return recall, precision, f1


COREF = Family(
    name="coref",
    unit="document",
    statistic_names=COREF_STATISTICS,
    measure_names=(*(f"{COREF_MEASURES[m]}_{x}" for m in METRICS for x in ("R", "P", "F1")), "CoNLL_F1"),
    headline="CoNLL_F1",
    categories=None,
    formula=_coref_measures,
    counts=tuple(
        name
        for name in COREF_STATISTICS
        if name.endswith("_den") or name.startswith(("muc_", "ceafm_", "blanc_"))
    ),
    options={"zero_division": "undefined"},
)


def coref_statistics(scores: CorefScores) -> pa.Table:
    """The coreference statistics of one system from its per-document counts (every metric scored).

    One row per (document, statistic), no category; ``scores`` must hold every metric of
    ``pipeline.coref.METRICS`` (``score_documents(..., metrics=METRICS)``), else ValueError.
    """
    units: list[str] = []
    statistics: list[str] = []
    values: list[float] = []
    for document in scores.documents:
        missing = [metric for metric in METRICS if metric not in document.scores]
        if missing:
            raise ValueError(f"document {document.doc_id!r}: no counts of {missing}; score every metric")
        for metric in METRICS:
            counts = document.scores[metric]
            if isinstance(counts, BlancCounts):
                parts = {"coreference": counts.coreference, "non_coreference": counts.non_coreference}
                named = {f"blanc_{t}_{p}": getattr(parts[t], p) for t in _LINK_TYPES for p in _PARTS}
            else:
                named = {f"{metric}_{p}": getattr(counts, p) for p in _PARTS}
            for name, value in named.items():
                units.append(document.doc_id)
                statistics.append(name)
                values.append(float(value))
    return statistics_table(units, [None] * len(units), statistics, values)
