"""The MUC scorer's stages and graph (seed 001): ``iescore muc CONFIG``.

Template tasks (TE, TR, ST) and named entity run ingest -> normalize strings -> map and score ->
report, the same MapAndScore and Report stages as the templette chain, with the configuration's
options. The configuration file is an input of every ingest task, so editing it reruns what it
changes. Coreference is scored by ``pipeline.coref`` in one stage.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
from iescore.pipeline.core.corpus import read_corpus
from iescore.pipeline.core.signature import make_signature
from iescore.pipeline.coref import CorefScores, read_mentions, scores_from_table
from iescore.pipeline.muc.config import MucConfig, read_config
from iescore.pipeline.muc.named_entity import read_ne_file
from iescore.pipeline.muc.rules import (
    NAMED_ENTITY,
    TEMPLATE_TASKS,
    element_regions,
    normalize_strings,
    scoring_options,
    task_of,
)
from iescore.pipeline.templette.checks import check_reference_not_empty
from iescore.pipeline.templette.tables import template_set_from_table, template_set_to_table
from iescore.pipeline.templette.templates import check_pointers, read_template_set
from iescore.schemas import COREF_MENTIONS, NAMED_ENTITIES, C, table_from_rows
from iescore.tasks.core.base import Stage, file_spec, stage_spec
from iescore.tasks.templette import (
    report,  # noqa: F401 - registers MapAndScore and Report
    score,  # noqa: F401 - registers MapAndScore and Report
)


class IngestMucTemplates(Stage):
    """A key or response template file, checked against the configuration, into ``fills``."""

    STAGE = "IngestMucTemplates"
    VERSION = 2  # 2: an empty key is bad input
    OUTPUTS = ("fills",)

    def produce(self) -> dict[str, pa.Table]:
        config = read_config(self.input_file("config"))
        template_set = read_template_set(self.input_file("templates"), encoding=self.options["encoding"])
        if self.options["role"] == "ref":
            check_reference_not_empty(template_set, "key")
        config.check_template_set(template_set)
        check_pointers(template_set)
        config.pointer_order(template_set)  # a pointer cycle between classes is bad input
        return {"fills": template_set_to_table(template_set)}


class NormalizeMucStrings(Stage):
    """String fills without the configuration's premodifiers, postmodifiers and corporate designators."""

    STAGE = "NormalizeMucStrings"
    VERSION = 1
    OUTPUTS = ("fills",)

    def produce(self) -> dict[str, pa.Table]:
        template_set = template_set_from_table(self.input_table("fills"))
        normalized = normalize_strings(
            template_set,
            self.options["premodifiers"],
            self.options["postmodifiers"],
            self.options["corporate_designators"],
        )
        return {"fills": template_set_to_table(normalized)}


class IngestNamedEntities(Stage):
    """A named entity key or response (the texts file with ENAMEX/TIMEX/NUMEX tags) into ``fills`` and
    ``objects`` (each object's section and position), checked against the texts file when given."""

    STAGE = "IngestNamedEntities"
    VERSION = 2  # 2: a key without entities is bad input
    OUTPUTS = ("fills", "objects")

    def produce(self) -> dict[str, pa.Table]:
        config = read_config(self.input_file("config"))
        encoding = self.options["encoding"]
        texts_path = self.input_file("texts")
        texts = read_corpus(texts_path, encoding=encoding) if texts_path else None
        entities = read_ne_file(
            self.input_file("sgml"), encoding, texts, is_key=self.options["role"] == "ref"
        )
        if self.options["role"] == "ref":
            check_reference_not_empty(
                entities.template_set, "named entity key", "ENAMEX, TIMEX or NUMEX element"
            )
        config.check_template_set(entities.template_set)
        regions = element_regions(entities)
        rows = [
            {
                C.doc_id: pointer.doc_id,
                C.pointer: pointer.render(),
                C.section: entities.sections.get(pointer, ""),
                C.start: start,
                C.end: end,
                C.region_start: regions[pointer][0],
                C.region_end: regions[pointer][1],
            }
            for pointer, (start, end) in entities.positions.items()
        ]
        return {
            "fills": template_set_to_table(entities.template_set),
            "objects": table_from_rows(rows, NAMED_ENTITIES),
        }


class ScoreCoreference(Stage):
    """Key and response COREF files (SGML) into the ``mentions`` table: every mention with its chains,
    matched by extent. Every coreference score is computed from it (``pipeline.coref``)."""

    STAGE = "ScoreCoreference"
    VERSION = 2  # 2: a key without mentions is bad input
    OUTPUTS = ("mentions",)

    def produce(self) -> dict[str, pa.Table]:
        encoding = self.options["encoding"]
        response_path = self.input_file("response")
        # strict: the MUC scorer removes every repeated response extent (the CoNLL scorer's rule is
        # for CoNLL files; pipeline.coref.pairing)
        read = read_mentions(
            self.input_file("key"), response_path, "sgml", self.options["match"], encoding, strict=True
        )
        table = pa.Table.from_pandas(read.table, schema=COREF_MENTIONS, preserve_index=False)
        duplicates = read.duplicates
        metadata = dict(table.schema.metadata or {})
        metadata[DUPLICATES_KEY] = str(duplicates).encode()
        return {"mentions": table.replace_schema_metadata(metadata)}


DUPLICATES_KEY = b"iescore.duplicates"


def muc_task_spec(config: MucConfig, config_path: Path, encoding: str = "utf-8") -> dict[str, Any]:
    """The spec ``iescore muc`` runs for a configuration: :func:`coreference_spec` for the coreference
    task, :func:`muc_spec` for the others."""
    if task_of(config) == "coreference":
        return coreference_spec(config, config_path, encoding)
    return muc_spec(config, config_path, encoding)


def coreference_scores(mentions: pa.Table) -> CorefScores:
    """Every coreference metric of a ScoreCoreference ``mentions`` artifact, per document and in total
    (the duplicates its reader removed are in its metadata)."""
    duplicates = int((mentions.schema.metadata or {}).get(DUPLICATES_KEY, b"0"))
    return scores_from_table(mentions.to_pandas(), duplicates)


def coreference_spec(config: MucConfig, config_path: Path, encoding: str = "utf-8") -> dict[str, Any]:
    """The ScoreCoreference spec of a coreference MUC task (exact extent matching)."""
    return stage_spec(
        "ScoreCoreference",
        {"encoding": encoding, "match": "exact"},
        {"key": file_spec(config.key_file), "response": file_spec(config.response_file)},
    )


def muc_spec(
    config: MucConfig, config_path: Path, encoding: str = "utf-8", statistics: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The Report spec of a template or named entity MUC task.

    ``statistics`` (a campaign's resamples and seed) join the signature: a campaign prints intervals and
    significance beside each score, as templette campaigns do.
    """
    task = task_of(config)
    config_file = file_spec(config_path)
    strings = {
        "premodifiers": list(config.premodifiers),
        "postmodifiers": list(config.postmodifiers),
        "corporate_designators": list(config.corporate_designators),
    }
    sides = {}
    for role, path in (("ref", config.key_file), ("hyp", config.response_file)):
        if task in TEMPLATE_TASKS:
            ingested = stage_spec(
                "IngestMucTemplates",
                {"encoding": encoding, "role": role},
                {"templates": file_spec(path), "config": config_file},
            )
        else:
            ingested = stage_spec(
                "IngestNamedEntities",
                {"encoding": encoding, "role": role},
                {
                    "sgml": file_spec(path),
                    "config": config_file,
                    "texts": file_spec(config.text_file) if config.text_file else None,
                },
            )
        sides[role] = stage_spec("NormalizeMucStrings", strings, {"fills": ingested})
        if task == NAMED_ENTITY:
            sides[f"{role}_regions"] = ingested  # its ``objects``: where each object comes from
    options = scoring_options(config)
    scored = stage_spec("MapAndScore", options, sides)
    signature = make_signature(
        "muc",
        {"task": task, "unscored": options["unscored"], "beta": float(config.beta), **(statistics or {})},
        {
            "config": config_file["sha256"],
            "key": file_spec(config.key_file)["sha256"],
            "response": file_spec(config.response_file)["sha256"],
        },
    )
    return stage_spec("Report", {"beta": float(config.beta), "signature": signature}, {"scored": scored})


def is_named_entity(config: MucConfig) -> bool:
    return task_of(config) == NAMED_ENTITY
