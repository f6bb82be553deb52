"""The TREC family under the contract of ``pipeline.core.family``: queries are the units.

A TREC measure over queries is a mean of per-query values (MAP is the mean of each query's average
precision), so a query's statistics are its per-query values of the family's measures plus ``queries``
(1 a query), and a measure of a set of queries is ``sum(values) / sum(queries)``; the geometric means
(``gm_map``, ``gm_bpref``) are carried as the logarithms trec_eval sums (``log(max(AP, 0.00001))``) and
are ``exp(sum / queries)``. So a bootstrap resample of queries, or a shuffle between two runs, is
scored by summing statistics, exactly as every other family. A measure of no query is undefined (NaN).

:data:`TREC` declares the measures a campaign reports (MAP the headline; trec_eval's names);
:func:`trec_family` declares a family over any values of an :class:`~pipeline.trec.evaluate.Evaluation`
(the command line's significance tests on the measure asked for). The categories are the queries
(the campaign page's per-query heat map).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
from iescore.pipeline.core.family import Family, MeasureForms, statistics_table
from iescore.pipeline.trec.evaluate import Evaluation

QUERIES = "queries"
#: The measures of a TREC campaign (trec_eval's value names), the headline first.
CAMPAIGN_MEASURES = (
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "P_5",
    "P_10",
    "P_20",
    "P_100",
    "recall_100",
    "recall_1000",
    "ndcg",
    "ndcg_cut_10",
    "ndcg_cut_20",
    "infAP",
)
#: What ``-m`` gives for the campaign measures (the Evaluation they come from).
CAMPAIGN_REQUEST = (
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "P.5,10,20,100",
    "recall.100,1000",
    "ndcg",
    "ndcg_cut.10,20",
    "infAP",
)
_GEOMETRIC = ("gm_map", "gm_bpref")


def trec_family(measures: Sequence[str], headline: str | None = None) -> Family:
    """A TREC family over the per-query values ``measures`` (value names as an Evaluation prints them)."""
    measures = tuple(measures)
    geometric = np.array([name in _GEOMETRIC for name in measures])

    def formula(
        sums: np.ndarray, options: Mapping[str, Any], wanted: Sequence[int] | None = None
    ) -> np.ndarray:
        chosen = slice(None) if wanted is None else np.asarray(wanted, dtype=np.int64)
        values = sums[..., 1:] if wanted is None else sums[..., 1 + chosen]
        return _means(sums[..., :1], values, geometric[chosen])

    def reduced(measure: str, options: Mapping[str, Any]) -> MeasureForms:
        # A mean reads two statistics: the queries and the sum of its per-query values.
        read = [0, 1 + measures.index(measure)]
        mean_of_logs = bool(geometric[read[1] - 1])
        return MeasureForms(
            forms=lambda sums: sums[..., read],
            measure=lambda planes: _means(planes[0], planes[1], mean_of_logs),
        )

    return Family(
        name="trec",
        unit="query",
        statistic_names=(QUERIES, *measures),
        measure_names=measures,
        headline=headline or measures[0],
        categories="query",
        formula=formula,
        counts=(QUERIES,),
        selective=True,
        reduced=reduced,
    )


def _means(queries: np.ndarray, values: np.ndarray, geometric: np.ndarray | bool) -> np.ndarray:
    """Summed per-query values over summed queries, exponentiated where ``geometric``; NaN of no query."""
    with np.errstate(divide="ignore", invalid="ignore"):
        means = np.where(queries > 0, values / queries, np.nan)
    if isinstance(geometric, bool):  # one measure: exponentiated or not, as a whole
        return np.exp(means) if geometric else means
    return np.where(geometric, np.exp(means), means)


TREC = trec_family(CAMPAIGN_MEASURES)


def trec_statistics(
    evaluation: Evaluation, family: Family = TREC, queries: Sequence[str] | None = None
) -> pa.Table:
    """One run's ``STATISTICS`` table: per evaluated query (of ``queries`` only, when given), ``queries``
    = 1 and its value of each of the family's measures (an undefined per-query value, trec_eval's
    ``-nan``, is bad for sums: ValueError)."""
    if queries is not None:
        wanted = set(queries)
        rows = [q for q, qid in enumerate(evaluation.qids) if qid in wanted]
        evaluation = _select_queries(evaluation, rows)
    measures = family.statistic_names[1:]
    columns = []
    for name in measures:
        try:
            columns.append(evaluation.column(name))
        except KeyError:
            raise ValueError(f"the evaluation has no value {name!r}; measure it (-m) first") from None
    values = (
        np.column_stack([np.ones(len(evaluation.qids)), *columns])
        if columns
        else np.ones((len(evaluation.qids), 1))
    )
    if not np.isfinite(values).all():
        bad = np.argwhere(~np.isfinite(values))[0]
        raise ValueError(
            f"query {evaluation.qids[bad[0]]!r}: {family.statistic_names[bad[1]]} is not a number "
            "(no relevant document?); it cannot be averaged"
        )
    width = len(family.statistic_names)
    units = np.repeat(np.array(evaluation.qids, dtype=object), width)
    statistics = np.tile(np.array(family.statistic_names, dtype=object), len(evaluation.qids))
    # Each query is its own category too: the campaign page's heat map shows the headline by query.
    return statistics_table(units.tolist(), units.tolist(), statistics.tolist(), values.ravel())


def _select_queries(evaluation: Evaluation, rows: list[int]) -> Evaluation:
    from dataclasses import replace

    return replace(
        evaluation, qids=tuple(evaluation.qids[q] for q in rows), per_query=evaluation.per_query[rows]
    )
