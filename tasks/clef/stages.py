"""The CLEF eHealth stages: IngestMentions (per side) -> MatchMentions -> TallyMentions -> Report.

Thin: each reads its inputs, calls ``pipeline.clef`` and writes its artifact. An annotation directory
enters the graph as one raw input whose digest covers every annotation file's name and bytes, so editing,
adding or removing a file reruns its side's chain and nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from iescore.pipeline.clef import (
    CLEF_STATISTICS,
    clef_family,
    match_columns,
    matches_table,
    mentions_from_table,
    mentions_table,
    read_mentions,
    tally_mentions,
    totals,
)
from iescore.pipeline.clef.reader import directory_digest
from iescore.pipeline.core.arrays import strings, to_arrow
from iescore.pipeline.core.signature import SIGNATURE_KEY, make_signature
from iescore.schemas import CLEF_SCORES, C
from iescore.tasks.core.base import Stage, stage_spec

WARNINGS_KEY = b"iescore.clef.warnings"


class IngestMentions(Stage):
    """One side's annotation directory read into its ``mentions`` table (warnings in the metadata)."""

    STAGE = "IngestMentions"
    VERSION = 1
    OUTPUTS = ("mentions",)

    def produce(self) -> dict[str, pa.Table]:
        mentions = read_mentions(
            self.input_file("directory"),
            self.options["side"],
            nbest=self.options["nbest"],
            one_code=self.options["one_code"],
        )
        table = mentions_table(mentions)
        metadata = {**(table.schema.metadata or {}), WARNINGS_KEY: json.dumps(mentions.warnings).encode()}
        return {"mentions": table.replace_schema_metadata(metadata)}


class MatchMentions(Stage):
    """Every gold mention and prediction with its status in each mode: the ``matches`` table."""

    STAGE = "MatchMentions"
    VERSION = 1
    OUTPUTS = ("matches",)

    def produce(self) -> dict[str, pa.Table]:
        gold = mentions_from_table(self.input_table("gold"), "gold")
        system = mentions_from_table(self.input_table("system"), "system")
        return {"matches": matches_table(gold, system, match_columns(gold, system))}


class TallyMentions(Stage):
    """Per-report counts by CUI, the family's sufficient statistics (``statistics``, signed)."""

    STAGE = "TallyMentions"
    VERSION = 1
    OUTPUTS = ("statistics",)

    def produce(self) -> dict[str, pa.Table]:
        table = tally_mentions(self.input_table("matches"), by_cui=self.options["by_cui"])
        metadata = {**(table.schema.metadata or {}), SIGNATURE_KEY: self.options["signature"].encode()}
        return {"statistics": table.replace_schema_metadata(metadata)}


class ClefReport(Stage):
    """The run's summed statistics and the task's measures over all reports (``scores``), signed."""

    STAGE = "ClefReport"
    VERSION = 1
    OUTPUTS = ("scores",)

    def produce(self) -> dict[str, pa.Table]:
        family = clef_family(self.options["task"])
        sums = totals(self.input_table("statistics"))
        values = family.measures(sums)
        table = pa.Table.from_arrays(
            [
                strings([*CLEF_STATISTICS, *family.measure_names]),
                strings(["statistic"] * len(CLEF_STATISTICS) + ["measure"] * len(family.measure_names)),
                to_arrow(np.array([*(float(v) for v in sums), *(float(v) for v in values)])),
            ],
            schema=CLEF_SCORES,
        )
        metadata = {**(table.schema.metadata or {}), SIGNATURE_KEY: self.options["signature"].encode()}
        return {"scores": table.replace_schema_metadata(metadata)}


def score_sums(scores: pa.Table) -> np.ndarray:
    """The summed statistics of a ``scores`` artifact, in ``CLEF_STATISTICS`` order."""
    found = {
        name: value
        for name, kind, value in zip(
            scores.column(C.name).to_pylist(),
            scores.column(C.kind).to_pylist(),
            scores.column(C.value).to_pylist(),
            strict=True,
        )
        if kind == "statistic"
    }
    return np.array([found.get(name, np.nan) for name in CLEF_STATISTICS], dtype=np.float64)


def directory_spec(path: str | Path) -> dict[str, str]:
    """The spec of an annotation directory: its path and a digest of its annotation files' names and bytes.

    Raises InputError for a directory without annotation files (before any task is built).
    """
    resolved = Path(path).resolve()
    return {"file": str(resolved), "sha256": directory_digest(resolved, keep=True)}


def tally_spec(
    gold: str | Path,
    system: str | Path,
    task: str,
    extra: Mapping[str, Any] | None = None,
    by_cui: bool = True,
) -> dict[str, Any]:
    """The TallyMentions spec of one run (ingest both sides, match, tally): ``task`` as ``-t`` names
    it; ``extra`` options join the signature (a campaign's resamples and seed); ``by_cui``: the
    statistics by CUI (the campaign page's heat map), or by report only."""
    task_2 = clef_family(task).name == "clef-2"
    gold_dir, system_dir = directory_spec(gold), directory_spec(system)
    signature = make_signature(
        "clef", {"task": task, **(extra or {})}, {"gold": gold_dir["sha256"], "system": system_dir["sha256"]}
    )
    ingest = {
        side: stage_spec(
            "IngestMentions",
            {"side": side, "nbest": task_2 and side == "gold", "one_code": task_2 and side == "system"},
            {"directory": spec},
        )
        for side, spec in (("gold", gold_dir), ("system", system_dir))
    }
    matches = stage_spec("MatchMentions", {}, ingest)
    return stage_spec(
        "TallyMentions", {"task": task, "by_cui": by_cui, "signature": signature}, {"matches": matches}
    )


def clef_spec(gold: str | Path, system: str | Path, task: str) -> dict[str, Any]:
    """The ClefReport spec of one run (the whole chain, ``iescore clef``)."""
    tally = tally_spec(gold, system, task, by_cui=False)
    signature = tally["options"]["signature"]
    return stage_spec("ClefReport", {"task": task, "signature": signature}, {"statistics": tally})
