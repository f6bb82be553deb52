"""The SENSEVAL family under the contract of ``pipeline.core.family``.

Unit: the instance (``item instance``); statistics per instance: ``credit`` (its score), ``attempted``
(the answer's total weight) and ``total`` (what it counts in the total: 1, or its key tags under the
conjunctive policy); category: the lexical item. Measures: ``precision`` = credit / attempted, ``recall``
= credit / total, ``attempted`` = attempted / total, as scorer2 computes them from its sums. The headline
is recall: SENSEVAL ranked systems by recall, since precision rewards a system for leaving out the
instances it is unsure of (a system attempting one instance, rightly, has precision 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import whole
from iescore.pipeline.core.family import Family
from iescore.schemas import STATISTICS

SENSEVAL_STATISTICS = ("credit", "attempted", "total")
SENSEVAL_MEASURES = ("precision", "recall", "attempted")


def _senseval_measures(sums: np.ndarray, options: Mapping[str, Any]) -> np.ndarray:
    """precision, recall, attempted of summed (credit, attempted, total); NaN over a zero."""
    credit, attempted, total = sums[..., 0], sums[..., 1], sums[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(attempted != 0, credit / attempted, np.nan)
        recall = np.where(total != 0, credit / total, np.nan)
        fraction = np.where(total != 0, attempted / total, np.nan)
    return np.stack([precision, recall, fraction], axis=-1)


SENSEVAL = Family(
    name="senseval",
    unit="instance",
    statistic_names=SENSEVAL_STATISTICS,
    measure_names=SENSEVAL_MEASURES,
    headline="recall",
    categories="lexical item",
    formula=_senseval_measures,
)


def senseval_statistics(instances: pa.Table) -> pa.Table:
    """The ``STATISTICS`` table of one system from its ``SENSE_INSTANCES`` table: per instance (unit
    ``item instance``, category the item) its credit, attempted and total, built column-wise."""
    unit = pc.binary_join_element_wise(
        whole(instances.column("item")), whole(instances.column("instance")), " "
    )
    n = instances.num_rows
    repeat = pa.array(np.tile(np.arange(n), len(SENSEVAL_STATISTICS)))
    values = np.concatenate(
        [instances.column(name).to_numpy().astype(np.float64) for name in SENSEVAL_STATISTICS]
    )
    names = pa.array(SENSEVAL_STATISTICS, pa.string()).take(
        pa.array(np.repeat(np.arange(len(SENSEVAL_STATISTICS)), n))
    )
    return pa.Table.from_arrays(
        [
            unit.take(repeat),
            whole(instances.column("item")).take(repeat),
            names,
            pa.array(values, pa.float64()),
        ],
        schema=STATISTICS,
    )
