"""The tasks side of ``scorer = "senseval"`` campaigns (``tasks.campaign.kinds``): each system is the
chain ``iescore senseval`` runs, ending in SenseStatistics (the family's ``statistics``), and gets
``senseval.txt`` (scorer2's report and the block per lexical item, as the command prints them) and
``senseval.json`` in its output folder. The key's stage is shared by every system (one spec)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from iescore.pipeline.campaign.engine import Campaign, System
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.signature import SIGNATURE_KEY
from iescore.pipeline.senseval.report import by_item_report, score_report, scores_json, totals_table
from iescore.tasks.campaign.task_kind import TaskKind
from iescore.tasks.core.base import Stage
from iescore.tasks.core.store import read_table
from iescore.tasks.senseval.stages import senseval_spec


def senseval_system_spec(campaign: Campaign, system: System) -> dict[str, Any]:
    """The SenseStatistics spec of one system (coarse or mixed without a sense map is bad input here:
    a campaign does not fall back to fine as the command does)."""
    reference, options = campaign.reference_values, campaign.options
    if options["granularity"] != "fine" and reference.get("sense_map") is None:
        raise InputError(
            str(campaign.source),
            0,
            f"granularity {options['granularity']!r} needs [reference] sense_map = FILE",
        )
    rules = {name: options[name] for name in ("granularity", "minimal", "policy", "unknown_senses", "strict")}
    return senseval_spec(
        Path(system.values["answers"]),
        Path(reference["key"]),
        Path(reference["sense_map"]) if reference.get("sense_map") else None,
        {**rules, "encoding": options["encoding"]},
        Path(reference["instances"]) if reference.get("instances") else None,
        Path(reference["senses"]) if reference.get("senses") else None,
        {"resamples": int(options["resamples"]), "seed": int(options["seed"])},
        stage="SenseStatistics",
    )


def write_senseval_files(folder: Path, task: Stage) -> None:
    """``senseval.txt`` and ``senseval.json`` of one system, from its finished SenseStatistics task."""
    score = task.requires()["scored"]
    options = score.options
    sums = totals_table(read_table(score.output()["instances"]))
    unscored = read_table(score.output()["unscored"])
    warnings = read_table(score.requires()["answers"].output()["warnings"])
    signature = read_table(task.output()["statistics"]).schema.metadata[SIGNATURE_KEY].decode()
    answers = score.requires()["answers"].input_file("answers")
    key = score.requires()["key"].input_file("key")
    granularity, minimal, policy = options["granularity"], bool(options["minimal"]), options["policy"]
    text = score_report(sums, answers, key, granularity, minimal, policy)
    text += by_item_report(sums, granularity, minimal, policy)
    (folder / "senseval.txt").write_text(text, encoding="utf-8")
    shown = {k: options[k] for k in ("granularity", "minimal", "policy", "unknown_senses")}
    document = scores_json(sums, unscored, warnings.num_rows, signature, shown)
    # Undefined ratios are already None; json_text would import tasks.campaign.outputs (a cycle).
    (folder / "senseval.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


SENSEVAL_TASKS = TaskKind(
    name="senseval",
    stage="SenseStatistics",
    system_spec=senseval_system_spec,
    system_files=("senseval.txt", "senseval.json"),
    write_system_files=write_senseval_files,
)
