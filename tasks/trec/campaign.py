"""The tasks side of ``scorer = "trec"`` campaigns: each run's TrecStatistics (over its EvaluateRun), and
its files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from iescore.pipeline.campaign.engine import Campaign, System
from iescore.pipeline.trec.report import text_of_table
from iescore.tasks.campaign.task_kind import TaskKind
from iescore.tasks.core import store as artifacts
from iescore.tasks.core.base import Stage
from iescore.tasks.trec.stages import campaign_run_spec

SYSTEM_FILES = ("trec_eval.txt", "trec_eval_q.txt")


def trec_system_spec(campaign: Campaign, system: System) -> dict[str, Any]:
    """The TrecStatistics spec of one run of a TREC campaign (the campaign's trec_eval options)."""
    options = campaign.options
    return campaign_run_spec(
        Path(campaign.reference_values["qrels"]),
        Path(system.values["run"]),
        {key: options[key] for key in ("level", "complete", "max_docs", "judged_only") if key in options},
        statistics={"resamples": options.get("resamples"), "seed": options.get("seed")},
    )


def write_trec_files(folder: Path, task: Stage) -> None:
    """``trec_eval.txt`` (what trec_eval prints for the run) and ``trec_eval_q.txt`` (with ``-q``)."""
    table = artifacts.read_table(task.requires()["evaluation"].output()["evaluation"])
    (folder / "trec_eval.txt").write_text(text_of_table(table), encoding="utf-8")
    (folder / "trec_eval_q.txt").write_text(text_of_table(table, per_query=True), encoding="utf-8")


TREC_TASKS = TaskKind("trec", "TrecStatistics", trec_system_spec, SYSTEM_FILES, write_trec_files)
