"""The tasks side of CLEF eHealth campaigns (``pipeline.clef.campaign``): each run's TallyMentions chain,
and its eval.pl output file in the campaign's output directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from iescore.pipeline.campaign.engine import Campaign, System
from iescore.pipeline.clef import TASKS, by_report, eval_text, one_to_one_text
from iescore.tasks.campaign.task_kind import TaskKind
from iescore.tasks.clef.stages import tally_spec
from iescore.tasks.core.base import Stage
from iescore.tasks.core.store import read_table

#: The task each kind scores, as ``-t`` names it.
KIND_TASKS = {"clef": "1a", "clef-2": "2"}
EVAL_FILE = "eval.txt"


def clef_system_spec(campaign: Campaign, system: System) -> dict[str, Any]:
    """One run's TallyMentions spec (the gold's ingest is the same spec for every run: built once)."""
    statistics = {"resamples": int(campaign.options["resamples"]), "seed": int(campaign.options["seed"])}
    return tally_spec(
        campaign.reference_values["gold"], system.values["input"], KIND_TASKS[campaign.scorer], statistics
    )


def write_eval_file(folder: Path, task: Stage) -> None:
    """A TaskKind's ``write_system_files``: the run's eval.pl output file (and for Task 1a our one-to-one
    measure after it), as ``iescore clef`` prints it, for the task the TallyMentions task was built for
    (both kinds run that stage, so the file follows the task's own options, not the kind found)."""
    task_name = task.options["task"]
    sums = by_report(read_table(task.output()["statistics"])).sums()
    extra = one_to_one_text(task_name, sums) if TASKS[task_name] == "1a" else ""
    (folder / EVAL_FILE).write_text(eval_text(task_name, sums) + extra, encoding="utf-8")


CLEF_TASK_KIND = TaskKind("clef", "TallyMentions", clef_system_spec, (EVAL_FILE,), write_eval_file)
CLEF_2_TASK_KIND = TaskKind("clef-2", "TallyMentions", clef_system_spec, (EVAL_FILE,), write_eval_file)
