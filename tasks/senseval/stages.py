"""The SENSEVAL stages: IngestSenseKey, IngestSenseAnswers, ScoreSenses, ReportSenses.

``IngestSenseKey`` reads the key and the sense map (``key``, ``sense_map``; without a map, an empty one
marked as absent), ``IngestSenseAnswers`` one system's answer file (``answers``, every line with its
warning; ``strict``: a warning is bad input), ``ScoreSenses`` applies scorer2's rules and the filters
(``instances``: one row per instance, the auditable artifact and the family's sufficient statistics;
``unscored``: the answer lines it could not score), ``ReportSenses`` sums them (``totals``: all
instances and each lexical item, the signature in its metadata), what the command line prints from. (It
is not named ``Report``: that stage name is the templette family's.) A campaign asks for
``SenseStatistics`` instead: the instances as the family's long ``statistics`` table.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
from iescore.pipeline.core.signature import SIGNATURE_KEY
from iescore.pipeline.senseval import senseval_statistics
from iescore.pipeline.senseval.formats import (
    answer_warnings,
    read_answers,
    read_instance_list,
    read_key,
    read_sense_list,
    read_sense_map,
)
from iescore.pipeline.senseval.report import senseval_signature, totals_table
from iescore.pipeline.senseval.scoring import SenseOptions, score_senses
from iescore.schemas import SENSE_MAP
from iescore.tasks.core.base import Stage, file_spec, stage_spec

HAS_MAP_KEY = b"iescore.senseval.has_map"
WARNINGS_KEY = b"iescore.senseval.warnings"


class IngestSenseKey(Stage):
    """The answer key and the sense map (seed 003's formats), checked."""

    STAGE = "IngestSenseKey"
    VERSION = 1
    OUTPUTS = ("key", "sense_map")

    def produce(self) -> dict[str, pa.Table]:
        encoding = self.options["encoding"]
        key = read_key(self.input_file("key"), encoding)
        path = self.input_file("sense_map")
        sense_map = read_sense_map(path, encoding) if path else pa.Table.from_batches([], schema=SENSE_MAP)
        flag = {HAS_MAP_KEY: b"yes" if path else b"no"}
        return {"key": key, "sense_map": sense_map.replace_schema_metadata({**SENSE_MAP.metadata, **flag})}


class IngestSenseAnswers(Stage):
    """One system's answer file, every line split as scorer2 splits it, with its warning."""

    STAGE = "IngestSenseAnswers"
    VERSION = 1
    OUTPUTS = ("answers", "warnings")

    def produce(self) -> dict[str, pa.Table]:
        path = self.input_file("answers")
        answers = read_answers(path, self.options["encoding"])
        warnings = answer_warnings(answers, path, bool(self.options.get("strict")))
        return {"answers": answers, "warnings": warnings}


class ScoreSenses(Stage):
    """scorer2's rules and the filters: one row per instance, and the answer lines not scored."""

    STAGE = "ScoreSenses"
    VERSION = 1
    OUTPUTS = ("instances", "unscored")

    def produce(self) -> dict[str, pa.Table]:
        sense_map = self.input_table("key", "sense_map")
        has_map = (sense_map.schema.metadata or {}).get(HAS_MAP_KEY) == b"yes"
        encoding = self.options["encoding"]
        instances_file, senses_file = self.input_file("instances"), self.input_file("senses")
        scored = score_senses(
            self.input_table("key", "key"),
            self.input_table("answers", "answers"),
            sense_map if has_map else None,
            SenseOptions(
                granularity=self.options["granularity"],
                minimal=bool(self.options["minimal"]),
                policy=self.options["policy"],
                unknown_senses=self.options["unknown_senses"],
            ),
            read_instance_list(instances_file, encoding) if instances_file else None,
            read_sense_list(senses_file, encoding) if senses_file else None,
        )
        return {"instances": scored.instances, "unscored": scored.unscored}


class ReportSenses(Stage):
    """The sums a report prints: all instances, and each lexical item (the signature in the metadata)."""

    STAGE = "ReportSenses"
    VERSION = 1
    OUTPUTS = ("totals",)

    def produce(self) -> dict[str, pa.Table]:
        sums = totals_table(self.input_table("scored", "instances"))
        metadata = {**(sums.schema.metadata or {}), SIGNATURE_KEY: self.options["signature"].encode()}
        return {"totals": sums.replace_schema_metadata(metadata)}


class SenseStatistics(Stage):
    """A campaign's view of one system: the SENSEVAL family's statistics (per instance: credit,
    attempted, total; category the lexical item), the signature in the metadata."""

    STAGE = "SenseStatistics"
    VERSION = 1
    OUTPUTS = ("statistics",)

    def produce(self) -> dict[str, pa.Table]:
        statistics = senseval_statistics(self.input_table("scored", "instances"))
        metadata = {**(statistics.schema.metadata or {}), SIGNATURE_KEY: self.options["signature"].encode()}
        return {"statistics": statistics.replace_schema_metadata(metadata)}


def senseval_spec(
    answers: Path,
    key: Path,
    sense_map: Path | None,
    options: Mapping[str, Any],
    instances: Path | None = None,
    senses: Path | None = None,
    extra_signature: Mapping[str, Any] | None = None,
    stage: str = "ReportSenses",
) -> dict[str, Any]:
    """The spec of ``stage`` (ReportSenses, or SenseStatistics for a campaign) scoring ``answers``
    against ``key`` (and ``sense_map``). ``options``: granularity (already the effective one), minimal,
    policy, unknown_senses, encoding, strict; ``extra_signature``: more settings for the signature (a
    campaign's resamples and seed)."""
    encoding = options.get("encoding", "utf-8")
    key_file, answers_file = file_spec(key), file_spec(answers)
    map_file = file_spec(sense_map) if sense_map else None
    filters = {
        "instances": file_spec(instances) if instances else None,
        "senses": file_spec(senses) if senses else None,
    }
    ingest_key = stage_spec(
        "IngestSenseKey", {"encoding": encoding}, {"key": key_file, "sense_map": map_file}
    )
    ingest_answers = stage_spec(
        "IngestSenseAnswers",
        {"encoding": encoding, "strict": bool(options.get("strict", False))},
        {"answers": answers_file},
    )
    rules = {
        "granularity": options["granularity"],
        "minimal": bool(options["minimal"]),
        "policy": options["policy"],
        "unknown_senses": options["unknown_senses"],
    }
    scored = stage_spec(
        "ScoreSenses",
        {**rules, "encoding": encoding},
        {"key": ingest_key, "answers": ingest_answers, **filters},
    )
    signature = senseval_signature(
        rules,
        {
            "key": key_file["sha256"],
            "answers": answers_file["sha256"],
            "sense_map": map_file["sha256"] if map_file else None,
            "instances": filters["instances"]["sha256"] if filters["instances"] else None,
            "senses": filters["senses"]["sha256"] if filters["senses"] else None,
        },
        extra_signature,
    )
    return stage_spec(stage, {"signature": signature}, {"scored": scored})
