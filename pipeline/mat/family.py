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
from iescore.pipeline.core.family import Family, statistics_table
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.mat.measures import MEASURE_COLUMNS, rates
from iescore.pipeline.mat.tally import COUNT_COLUMNS
from iescore.schemas import C


def _mat_measures(sums: np.ndarray, options: Mapping[str, Any]) -> np.ndarray:
    values = rates({name: sums[..., k] for k, name in enumerate(COUNT_COLUMNS)})
    return np.stack([values[name] for name in MEASURE_COLUMNS], axis=-1)


MAT = Family(
    name="mat",
    unit="document",
    statistic_names=COUNT_COLUMNS,
    measure_names=MEASURE_COLUMNS,
    headline="fmeasure",
    categories="tag",
    formula=_mat_measures,
    counts=COUNT_COLUMNS,
)


def mat_statistics(counts: pd.DataFrame) -> pa.Table:
    """The ``STATISTICS`` table of one system from its tag-table ``MAT_COUNTS`` rows: one row per
    (document, tag, count), zeros included so that every document is a unit resampled."""
    rows = counts[counts[C.table] == "tag"]
    n = len(rows)
    units = np.repeat(rows[C.file].to_numpy(object), len(COUNT_COLUMNS))
    categories = np.repeat(rows[C.tag].to_numpy(object), len(COUNT_COLUMNS))
    statistics = np.tile(np.asarray(COUNT_COLUMNS, dtype=object), n)
    values = rows[list(COUNT_COLUMNS)].to_numpy(np.float64).reshape(-1)
    return statistics_table(list(units), list(categories), list(statistics), values)
