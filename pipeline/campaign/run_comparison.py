"""Runs of a TREC evaluation compared on one measure over the same queries (``iescore trec RUN1 RUN2 ...``).

The queries compared are those every run was evaluated on (with ``-c``, every qrels query). Per-query
values are the TREC family's statistics (``pipeline.trec``), so the bootstrap intervals and the paired
bootstrap and approximate randomization tests are this engine's (``pipeline.campaign.stats``, every
family's), as are the paired t-test and Holm's correction of each test's p-values over all pairs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from iescore.pipeline.campaign.stats import (
    CORRECTION,
    bootstrap_intervals,
    holm,
    paired_significance,
    paired_t_test,
)
from iescore.pipeline.core.family import UnitStatistics
from iescore.pipeline.trec import Evaluation, trec_family, trec_statistics


@dataclass(frozen=True)
class RunSummary:
    """One run's mean of the measure over the compared queries, with its bootstrap interval."""

    run: str
    mean: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class PairTest:
    """Run ``a`` against run ``b``: the difference of means and each test's p-value, raw and Holm-adjusted."""

    a: str
    b: str
    delta: float | None
    t_p: float | None
    randomization_p: float | None
    bootstrap_p: float | None
    t_p_holm: float | None = None
    randomization_p_holm: float | None = None
    bootstrap_p_holm: float | None = None


@dataclass(frozen=True)
class Comparison:
    """Every run's summary and every pair's tests on ``measure`` over ``queries``."""

    measure: str
    queries: tuple[str, ...]
    runs: tuple[RunSummary, ...]
    pairs: tuple[PairTest, ...]
    resamples: int
    seed: int
    confidence: float
    correction: str = CORRECTION


def compare_runs(
    evaluations: Mapping[str, Evaluation],
    measure: str,
    resamples: int = 10000,
    seed: int = 12345,
    confidence: float = 0.95,
) -> Comparison:
    """Compare runs (name -> evaluation; at least two, in the order given) on the value ``measure``."""
    if len(evaluations) < 2:
        raise ValueError("two runs or more are compared")
    family = trec_family([measure])
    queries = _common_queries(evaluations.values())
    tables = {name: trec_statistics(evaluation, family, queries) for name, evaluation in evaluations.items()}
    statistics = UnitStatistics.from_table(family, tables, units=queries) if queries else None
    if statistics is None:
        raise ValueError("the runs have no evaluated query in common")
    # A query of `queries` that a run was not evaluated on cannot occur: queries are common to all.
    intervals = bootstrap_intervals(statistics, resamples=resamples, seed=seed, confidence=confidence)
    tests = paired_significance(statistics, measure=measure, resamples=resamples, seed=seed)
    means = family.measures(statistics.totals())[:, 0]
    summaries = tuple(
        RunSummary(name, _optional(means[s]), intervals[name][measure].low, intervals[name][measure].high)
        for s, name in enumerate(statistics.systems)
    )
    per_query = statistics.values[:, :, 1]  # (runs, queries)
    pairs = []
    for test in tests:
        a, b = statistics.systems.index(test.a), statistics.systems.index(test.b)
        pairs.append(
            PairTest(
                test.a,
                test.b,
                test.delta,
                paired_t_test(per_query[a], per_query[b]),
                test.randomization_p,
                test.paired_bootstrap_p,
            )
        )
    pairs = _with_holm(pairs)
    return Comparison(measure, tuple(queries), summaries, tuple(pairs), resamples, seed, confidence)


def _with_holm(pairs: list[PairTest]) -> list[PairTest]:
    t = holm([pair.t_p for pair in pairs])
    randomization = holm([pair.randomization_p for pair in pairs])
    bootstrap = holm([pair.bootstrap_p for pair in pairs])
    return [
        PairTest(
            pair.a,
            pair.b,
            pair.delta,
            pair.t_p,
            pair.randomization_p,
            pair.bootstrap_p,
            t[i],
            randomization[i],
            bootstrap[i],
        )
        for i, pair in enumerate(pairs)
    ]


def _common_queries(evaluations) -> list[str]:
    common: set[str] | None = None
    for evaluation in evaluations:
        common = set(evaluation.qids) if common is None else common & set(evaluation.qids)
    return sorted(common or (), key=lambda qid: qid.encode("utf-8", "surrogateescape"))


def _optional(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def comparison_text(comparison: Comparison) -> str:
    """The comparison as text: each run's mean and interval, then each pair's tests."""
    percent = round(comparison.confidence * 100)
    lines = [
        f"# significance on {comparison.measure} over {len(comparison.queries)} queries "
        f"(paired t-test, approximate randomization and paired bootstrap with {comparison.resamples} "
        f"resamples, seed {comparison.seed}; p-values adjusted by {comparison.correction}'s correction "
        f"over {len(comparison.pairs)} comparisons)\n",
        f"{'run':<22s}\t{comparison.measure:>8s}\t{percent}% interval\n",
    ]
    for run in comparison.runs:
        lines.append(f"{run.run:<22s}\t{_show(run.mean):>8s}\t[{_show(run.low)}, {_show(run.high)}]\n")
    lines.append(
        f"{'run a':<22s}\t{'run b':<22s}\t{'delta':>8s}\t{'t p':>8s}\t{'t Holm':>8s}\t{'rand p':>8s}\t"
        f"{'rand Holm':>9s}\t{'boot p':>8s}\t{'boot Holm':>9s}\n"
    )
    for pair in comparison.pairs:
        lines.append(
            f"{pair.a:<22s}\t{pair.b:<22s}\t{_show(pair.delta):>8s}\t{_show(pair.t_p):>8s}\t"
            f"{_show(pair.t_p_holm):>8s}\t{_show(pair.randomization_p):>8s}\t{_show(pair.randomization_p_holm):>9s}\t"
            f"{_show(pair.bootstrap_p):>8s}\t{_show(pair.bootstrap_p_holm):>9s}\n"
        )
    return "".join(lines)


def _show(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def comparison_json(comparison: Comparison) -> dict:
    return {
        "measure": comparison.measure,
        "queries": list(comparison.queries),
        "resamples": comparison.resamples,
        "seed": comparison.seed,
        "confidence": comparison.confidence,
        "correction": comparison.correction,
        "runs": [run.__dict__ for run in comparison.runs],
        "pairs": [pair.__dict__ for pair in comparison.pairs],
    }
