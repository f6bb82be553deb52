"""The tasks side of ``scorer = "templette"`` campaigns (``pipeline.templette.campaign``): each system's
chain to its Report (``tasks.templette.graph.templette_spec``), whose ``statistics`` the summary reads,
and its files: ``report.txt`` (the MUC-layout score report), ``scores.json`` (as ``iescore templette
--json``) and ``{totals,by_type,by_slot,by_document,objects,mapping}.csv``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.campaign.engine import Campaign, System, point_categories
from iescore.pipeline.core.signature import SIGNATURE_KEY
from iescore.pipeline.templette.report import muc_report, scores_json
from iescore.schemas import COUNT_COLUMNS, MEASURE_COLUMNS, C
from iescore.tasks.campaign.csvfile import csv_text
from iescore.tasks.campaign.task_kind import TaskKind
from iescore.tasks.core.base import Stage
from iescore.tasks.core.files import write_text
from iescore.tasks.core.jsontext import json_text
from iescore.tasks.core.store import read_table
from iescore.tasks.templette.graph import templette_spec

SCORE_FILES = {
    "total": ("totals", []),
    "type": ("by_type", [C.instance_type]),
    "slot": ("by_slot", [C.instance_type, C.slot]),
    "document": ("by_document", [C.doc_id]),
    "object": ("objects", [C.instance_type]),
}
SYSTEM_FILES = (
    "report.txt",
    "scores.json",
    *(f"{name}.csv" for name, _ in SCORE_FILES.values()),
    "mapping.csv",
)


def templette_system_spec(campaign: Campaign, system: System) -> dict[str, Any]:
    """One system's Report (``templette_spec``): its ``statistics`` are what the summary reads."""
    return templette_spec(
        campaign.reference_templates,
        system.templates,
        campaign.reference_texts,
        system.texts,
        {**campaign.options, "unsegmented": system.unsegmented, "statistics": True},
    )


def write_system_tables(folder: Path, report: Stage) -> None:
    """One system's score report, JSON and CSV tables, from its Report and MapAndScore artifacts."""
    scores = read_table(report.output()["scores"])
    signature = scores.schema.metadata[SIGNATURE_KEY].decode()
    write_text(folder / "report.txt", muc_report(scores, signature, title="iescore campaign"))
    write_text(folder / "scores.json", json_text(scores_json(scores, signature)))
    write_score_csv(folder, scores, read_table(report.requires()["scored"].output()["mapping"]))


def score_csv_paths(folder: str | Path | None) -> list[Path]:
    """The files ``write_score_csv`` writes into ``folder`` (none when there is no folder)."""
    if folder is None:
        return []
    return [Path(folder) / f"{name}.csv" for name, _ in SCORE_FILES.values()] + [Path(folder) / "mapping.csv"]


def write_score_csv(folder: Path, scores: pa.Table, mapping: pa.Table) -> None:
    """``totals by_type by_slot by_document objects mapping`` as CSV files in ``folder``.

    Measures are percentages (0-100, rounded to 6 decimals), as in ``--json``; counts and offsets are
    integers.
    """
    table = in_percent(scores)
    for scope, (name, keys) in SCORE_FILES.items():
        part = table.filter(pc.equal(table.column(C.scope), scope))
        part = part.select(keys + list(COUNT_COLUMNS) + list(MEASURE_COLUMNS))
        write_text(folder / f"{name}.csv", csv_text(part))
    # The points as their categories' text (``"content:COR extent:INC"``).
    points = pa.array(point_categories(mapping.column(C.points)), pa.string())
    index = mapping.schema.get_field_index(C.points)
    write_text(folder / "mapping.csv", csv_text(mapping.set_column(index, C.points, points)))


def in_percent(table: pa.Table) -> pa.Table:
    """``table`` with its measure columns times 100, rounded to 6 decimals as ``scores_json`` does; nulls
    stay null."""
    for index, name in enumerate(table.column_names):
        if name in MEASURE_COLUMNS:
            values = [None if v is None else round(v * 100.0, 6) for v in table.column(index).to_pylist()]
            table = table.set_column(index, name, pa.array(values, pa.float64()))
    return table


TEMPLETTE_TASKS = TaskKind(
    "templette", "Report", templette_system_spec, SYSTEM_FILES, write_system_tables, statistics_file=False
)
