"""The coreference family under the contract of ``pipeline.core.family``.

Per document, the numerators and denominators of recall and precision of MUC, B3, CEAF-e, CEAF-m and
LEA, and BLANC's per link type; measures every metric's R, P, F1 as ``pipeline.coref.rates``
computes them from summed counts (option ``zero_division``), and ``CoNLL_F1``, the mean of the MUC, B3
and CEAF-e F1 (the CoNLL-2011/2012 shared tasks' score), the headline. No categories.
``coref_statistics`` turns a system's scores into its ``STATISTICS`` table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa
from iescore.pipeline.core.family import Family, statistics_table
from iescore.pipeline.coref.metrics import METRICS, BlancCounts, CorefScores

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
