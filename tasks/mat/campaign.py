"""The tasks side of ``scorer = "mat"`` campaigns (``pipeline.mat.campaign``): each system's
TallyMatSpans stage (its ``statistics``), and its files: ``report.txt`` (the By tag table with span
details, as ``iescore mat --tag_span_details`` prints it) and ``scores.json`` (the tag table's rows per
file and for the corpus, as ``iescore mat --json``'s ``tables``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from iescore.pipeline.campaign.engine import Campaign, System
from iescore.pipeline.core.signature import SIGNATURE_KEY
from iescore.pipeline.mat.campaign import equivalence_classes
from iescore.pipeline.mat.files import campaign_pairs
from iescore.pipeline.mat.labels import label_rules
from iescore.pipeline.mat.measures import report_columns, score_table
from iescore.pipeline.mat.report import text_table
from iescore.pipeline.mat.task import read_task_file
from iescore.tasks.campaign.task_kind import TaskKind
from iescore.tasks.core.base import Stage
from iescore.tasks.core.files import write_text
from iescore.tasks.core.store import read_table
from iescore.tasks.mat.stages import TEST_UNITS_KEY, mat_tally_spec


def mat_system_spec(campaign: Campaign, system: System) -> dict[str, Any]:
    """The TallyMatSpans spec of one system of a MAT campaign."""
    reference, options, values = campaign.reference_values, campaign.options, system.values
    rules = label_rules(
        ",".join(options.get("content_annotations", [])) or None,
        ",".join(options.get("token_annotations", [])) or None,
        equivalence_classes(options.get("equivalence_classes", [])),
        ",".join(options.get("ignore", [])) or None,
        read_task_file(options["task"]) if options.get("task") else None,
    )
    pairs = campaign_pairs(
        Path(reference["path"]),
        [Path(p) for p in values["path"]],
        values.get("file_re") or None,
        values.get("ref_fsuff_off") or None,
        values.get("ref_fsuff_on") or None,
        values["file_type"],
    )
    return mat_tally_spec(
        pairs,
        {"ref": reference["file_type"], "hyp": values["file_type"]},
        {"ref": reference.get("encoding"), "hyp": None},
        {"ref": bool(reference.get("xml_input_is_overlay")), "hyp": bool(values.get("xml_input_is_overlay"))},
        rules,
    )


def write_mat_system_files(folder: Path, task: Stage) -> None:
    """``report.txt`` and ``scores.json`` of one system from its TallyMatSpans artifacts."""
    counts = read_table(task.output()["counts"])
    signature = (counts.schema.metadata or {}).get(SIGNATURE_KEY, b"").decode()
    units = json.loads((counts.schema.metadata or {})[TEST_UNITS_KEY])
    scores = score_table(counts, by_file=True, test_units=units).to_pandas()
    write_text(
        folder / "report.txt",
        text_table(scores, "tag", tag_span_details=True) + f"\nsignature: {signature}\n",
    )
    columns = ["file", *report_columns("tag", tag_span_details=True)]
    rows = [
        {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
        for row in scores[columns].to_dict(orient="records")
    ]
    # No NaN occurs: MAT's measures are always defined.
    value = {"signature": signature, "tables": {"tag": rows}}
    write_text(folder / "scores.json", json.dumps(value, indent=2, allow_nan=False) + "\n")


MAT_TASKS = TaskKind(
    "mat", "TallyMatSpans", mat_system_spec, ("report.txt", "scores.json"), write_mat_system_files
)
