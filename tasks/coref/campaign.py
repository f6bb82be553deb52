"""The tasks side of ``scorer = "coref"`` campaigns (``pipeline.coref.campaign``): each system one
ScoreCorefResponse against the key, and its files: ``report.txt`` (as ``iescore coref``), ``scores.json``
(as ``iescore coref --json``) and ``mentions.csv`` (every mention of key and response with its chains,
``COREF_MENTIONS``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from iescore.pipeline import coref
from iescore.pipeline.campaign.engine import Campaign, System
from iescore.pipeline.core.signature import SIGNATURE_KEY
from iescore.tasks.campaign.csvfile import csv_text
from iescore.tasks.campaign.task_kind import TaskKind
from iescore.tasks.core.base import Stage
from iescore.tasks.core.files import write_text
from iescore.tasks.core.jsontext import json_text
from iescore.tasks.core.store import read_table
from iescore.tasks.coref.stages import NOTICES_KEY, coref_response_spec
from iescore.tasks.muc.stages import DUPLICATES_KEY

SYSTEM_FILES = ("report.txt", "scores.json", "mentions.csv")


def coref_system_spec(campaign: Campaign, system: System) -> dict[str, Any]:
    """One system's ScoreCorefResponse (the campaign's resamples and seed join its signature)."""
    statistics = {"resamples": int(campaign.options["resamples"]), "seed": int(campaign.options["seed"])}
    return coref_response_spec(campaign.reference_templates, system.templates, campaign.options, statistics)


def write_coref_tables(folder: Path, scored: Stage) -> None:
    """One system's report, JSON and mentions, from its ScoreCorefResponse's ``mentions`` (every score of
    ``iescore coref`` follows from that table: ``pipeline.coref.scores_from_table``)."""
    mentions = read_table(scored.output()["mentions"])
    duplicates = int(mentions.schema.metadata.get(DUPLICATES_KEY, b"0"))
    scores = coref.scores_from_table(mentions.to_pandas(), duplicates, metrics=coref.METRICS)
    signature = mentions.schema.metadata[SIGNATURE_KEY].decode()
    report = coref.score_report(scores, title=f"iescore campaign\n{signature}")
    notices = mentions.schema.metadata.get(NOTICES_KEY, b"").decode()
    write_text(folder / "report.txt", report + "".join(f"{line}\n" for line in notices.splitlines()))
    write_text(folder / "scores.json", json_text({**coref.scores_json(scores), "signature": signature}))
    write_text(folder / "mentions.csv", csv_text(mentions))


COREF_TASKS = TaskKind(
    "coref", "ScoreCorefResponse", coref_system_spec, SYSTEM_FILES, write_coref_tables, statistics_file=False
)
