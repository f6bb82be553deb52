"""The MAT family under the contract of ``pipeline.core.family`` (issue 12, point 10).

Per document (the unit) and tag (the category): the tag-level counts match, refclash, missing,
hypclash, spurious; measures precision, recall and fmeasure as :func:`pipeline.mat.measures.rates`
computes them (MATScore's conventions, so never undefined); the headline is fmeasure.
``mat_statistics`` turns the tag-level counts of one system into its ``STATISTICS`` table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import filled, scalar, strings, to_arrow
from iescore.pipeline.core.family import Family, MeasureForms
from iescore.pipeline.mat.measures import MEASURE_COLUMNS, count_totals, rates, rates_of_totals
from iescore.pipeline.mat.tally import COUNT_COLUMNS
from iescore.schemas import STATISTICS, C


def _mat_measures(sums: np.ndarray, options: Mapping[str, Any]) -> np.ndarray:
    values = rates({name: sums[..., k] for k, name in enumerate(COUNT_COLUMNS)})
    return np.stack([values[name] for name in MEASURE_COLUMNS], axis=-1)


def _mat_forms(measure: str, options: Mapping[str, Any]) -> MeasureForms:
    """Every MAT measure reads three sums of counts: match, reftotal and hyptotal (``count_totals``)."""

    def forms(sums: np.ndarray) -> np.ndarray:
        return np.stack(count_totals({name: sums[..., k] for k, name in enumerate(COUNT_COLUMNS)}), axis=-1)

    return MeasureForms(forms=forms, measure=lambda planes: rates_of_totals(*planes)[measure])


MAT = Family(
    name="mat",
    unit="document",
    statistic_names=COUNT_COLUMNS,
    measure_names=MEASURE_COLUMNS,
    headline="fmeasure",
    categories="tag",
    formula=_mat_measures,
    counts=COUNT_COLUMNS,
    reduced=_mat_forms,
)


def mat_statistics(counts: pa.Table) -> pa.Table:
    """The ``STATISTICS`` table of one system from its tag-table ``MAT_COUNTS`` rows: one row per
    (document, tag, count), zeros included so that every document is a unit resampled."""
    rows = counts.filter(pc.equal(counts.column(C.table), scalar("tag")))
    n, k = rows.num_rows, len(COUNT_COLUMNS)
    values = np.stack([filled(rows.column(name), 0) for name in COUNT_COLUMNS], axis=1) if n else (
        np.zeros((0, k))
    )
    index = np.repeat(np.arange(n, dtype=np.int32), k)
    return pa.Table.from_arrays(
        [
            rows.column(C.file).combine_chunks().take(to_arrow(index)),
            rows.column(C.tag).combine_chunks().take(to_arrow(index)),
            pa.DictionaryArray.from_arrays(
                to_arrow(np.tile(np.arange(k, dtype=np.int32), n)), strings(list(COUNT_COLUMNS))
            ).cast(pa.string()),
            to_arrow(values.astype(np.float64).reshape(-1)),
        ],
        schema=STATISTICS,
    )
