"""The templette family under the contract of ``pipeline.core.family`` (seed 000).

Per document, the COR INC PAR MIS SPU NON points ALL SLOTS counts (fill points, selected by
``pipeline.templette.report.slot_points``, on a table ``slot_point_table``: the rule the leaderboard
prints), by slot; measures REC, PRE, F with the run's ``beta``, UND, OVG, SUB and ERR,
``pipeline.core.measures``'s formulas (NON enters none); headline F; categories: slots.
``templette_statistics`` turns a system's ``tallies`` into its ``STATISTICS`` table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.family import Family, MeasureForms, statistics_table
from iescore.pipeline.templette.report import slot_point_table
from iescore.schemas import C

#: The templette statistics: the point categories (NON, unscored points, enters no measure).
POINTS = ("COR", "INC", "PAR", "MIS", "SPU", "NON")
#: The templette measures (``pipeline.core.measures.MEASURES``).
POINT_MEASURES = ("REC", "PRE", "F", "UND", "OVG", "SUB", "ERR")


def point_measures(
    sums: np.ndarray, options: Mapping[str, Any], wanted: Sequence[int] | None = None
) -> np.ndarray:
    """REC, PRE, F, UND, OVG, SUB and ERR of summed points (``pipeline.core.measures``'s formulas), NaN
    where undefined; with ``wanted`` (positions in ``POINT_MEASURES``) those measures alone, in that order.

    REC = (COR + PAR/2) / POS, PRE = (COR + PAR/2) / ACT, F = (beta^2 + 1)(COR + PAR/2) / (beta^2 POS +
    ACT), UND = MIS / POS, OVG = SPU / ACT, SUB = (INC + PAR/2) / (COR + PAR + INC), ERR = (INC + PAR/2
    + MIS + SPU) / (COR + PAR + INC + MIS + SPU), POS = COR + INC + PAR + MIS, ACT = COR + INC + PAR +
    SPU. The operations are those of ``pipeline.core.measures`` in the same order, so the values are the
    same to the last bit.
    """
    b2 = _beta_squared(options)
    cor, inc, par, mis, spu = (sums[..., i] for i in range(5))
    matched, possible, actual = _f_forms(sums)
    # Each measure's (numerator, denominator), made only when the measure is wanted.
    ratios = (
        lambda: (matched, possible),
        lambda: (matched, actual),
        lambda: _f_ratio(matched, possible, actual, b2),
        lambda: (mis, possible),
        lambda: (spu, actual),
        lambda: (inc + 0.5 * par, cor + par + inc),
        lambda: (inc + 0.5 * par + mis + spu, cor + par + inc + mis + spu),
    )
    chosen = range(len(ratios)) if wanted is None else wanted
    out = np.full((*sums.shape[:-1], len(chosen)), np.nan)
    for position, index in enumerate(chosen):
        out[..., position] = _divided(*ratios[index]())
    return out


def point_forms(measure: str, options: Mapping[str, Any]) -> MeasureForms | None:
    """F as a function of three forms of the points, COR + PAR/2, POS and ACT (sums of counts and halves:
    exact), for the pair tests; the other measures have none."""
    if measure != "F":
        return None
    b2 = _beta_squared(options)
    return MeasureForms(
        forms=lambda sums: np.stack(_f_forms(sums), axis=-1),
        measure=lambda planes: _divided(*_f_ratio(planes[0], planes[1], planes[2], b2)),
    )


def _beta_squared(options: Mapping[str, Any]) -> float:
    beta = options["beta"]
    if isinstance(beta, bool) or not isinstance(beta, int | float) or not (math.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be a positive finite number, got {beta!r}")
    return beta * beta


def _f_forms(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """COR + PAR/2, POS and ACT of summed points."""
    cor, inc, par, mis, spu = (sums[..., i] for i in range(5))
    return cor + 0.5 * par, cor + inc + par + mis, cor + inc + par + spu


def _f_ratio(
    matched: np.ndarray, possible: np.ndarray, actual: np.ndarray, b2: float
) -> tuple[np.ndarray, np.ndarray]:
    return (b2 + 1.0) * matched, b2 * possible + actual


def _divided(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, NaN where the denominator is 0."""
    result = np.full(np.shape(numerator), np.nan)
    np.divide(numerator, denominator, out=result, where=denominator != 0)
    return result


TEMPLETTE = Family(
    name="templette",
    unit="document",
    statistic_names=POINTS,
    measure_names=POINT_MEASURES,
    headline="F",
    categories="slot",
    formula=point_measures,
    counts=POINTS,
    options={"beta": 1.0},
    selective=True,
    reduced=point_forms,
)


def templette_statistics(tallies: pa.Table, system: str = "system") -> pa.Table:
    """A system's templette (or MUC) statistics from its ``tallies``: ALL SLOTS points by document and slot.

    One row per (document, slot ``TYPE.SLOT``, category) with a point, its value the number of points;
    a document of the tallies without any fill point (only object or unscored points) gets one row of
    value 0 (COR, no category), so it is still a unit that resampling draws, as it always was. A
    category other than COR INC PAR MIS SPU NON, or a point without a document, is a ValueError naming
    the system.
    """
    missing = tallies.column(C.doc_id).null_count
    if missing:
        raise ValueError(f"system {system!r}: {missing} point(s) of the tallies without a document")
    table = slot_point_table(tallies.select([C.doc_id, C.instance_type, C.slot, C.aspect, C.category]))
    unknown = set(pc.unique(table.column(C.category)).to_pylist()) - set(POINTS)
    if unknown:
        raise ValueError(f"system {system!r}: unknown point categories {sorted(unknown, key=str)}")
    # Counted by (document, TYPE.SLOT, category), sorted; a missing type or slot is written "None".
    slots = pc.binary_join_element_wise(
        *(pc.fill_null(table.column(k), "None") for k in (C.instance_type, C.slot)), "."
    )
    keys = pa.table({"unit": table.column(C.doc_id), "slot": slots, "category": table.column(C.category)})
    counted = keys.group_by(["unit", "slot", "category"]).aggregate([([], "count_all")])
    counted = counted.sort_by([("unit", "ascending"), ("slot", "ascending"), ("category", "ascending")])
    units, categories, statistics = (counted.column(k).to_pylist() for k in ("unit", "slot", "category"))
    values = counted.column("count_all").to_numpy().astype(np.float64).tolist()
    every = pc.unique(tallies.column(C.doc_id)).to_pylist()
    for document in sorted(set(every) - set(units)):
        units.append(document)
        categories.append(None)
        statistics.append(POINTS[0])
        values.append(0.0)
    return statistics_table(units, categories, statistics, values)
