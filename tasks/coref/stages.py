"""ScoreCorefResponse: one system of a coreference campaign scored against the key (every metric)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
from iescore.pipeline.core.signature import SIGNATURE_KEY, make_signature
from iescore.pipeline.coref import METRICS, coref_statistics, read_mentions, score_mentions
from iescore.schemas import COREF_MENTIONS
from iescore.tasks.core.base import Stage, file_spec, stage_spec
from iescore.tasks.muc.stages import DUPLICATES_KEY
from iescore.tasks.templette import (
    report,  # noqa: F401 - registers MapAndScore and Report
    score,  # noqa: F401 - registers MapAndScore and Report
)

NOTICES_KEY = b"iescore.coref.notices"  # the pairing's notices (pipeline.coref.pairing), one a line


class ScoreCorefResponse(Stage):
    """One system of a coreference campaign: its response's chains against the key's, as
    ``iescore coref`` scores them (every metric), into the COREF family's per-document ``statistics``
    and the ``mentions`` table (for the campaign's outputs and the page's chains)."""

    STAGE = "ScoreCorefResponse"
    VERSION = 2  # 2: documents and repeats paired as the CoNLL scorer pairs them, notices kept
    OUTPUTS = ("statistics", "mentions")

    def produce(self) -> dict[str, pa.Table]:
        read = read_mentions(
            self.input_file("key"),
            self.input_file("response"),
            self.options["format"],
            self.options["match"],
            self.options["encoding"],
            strict=bool(self.options.get("strict", False)),
        )
        scores, table, duplicates = score_mentions(read, METRICS), read.table, read.duplicates
        statistics = coref_statistics(scores)
        mentions = pa.Table.from_pandas(table, schema=COREF_MENTIONS, preserve_index=False)
        metadata = {
            DUPLICATES_KEY: str(duplicates).encode(),
            SIGNATURE_KEY: self.options["signature"].encode(),
            NOTICES_KEY: "\n".join(read.notices).encode(),
        }
        return {
            "statistics": statistics.replace_schema_metadata(
                {**(statistics.schema.metadata or {}), **metadata}
            ),
            "mentions": mentions.replace_schema_metadata({**(mentions.schema.metadata or {}), **metadata}),
        }


def coref_response_spec(
    key: Path, response: Path, options: Mapping[str, Any], statistics: Mapping[str, Any]
) -> dict[str, Any]:
    """The ScoreCorefResponse spec of one system of a coreference campaign (``options``: format, match,
    encoding, strict; ``statistics``: the campaign's resamples and seed, part of the signature)."""
    key_file, response_file = file_spec(key), file_spec(response)
    strict = bool(options.get("strict", False))
    signature = make_signature(
        "coref",
        {
            "format": options["format"],
            "match": options["match"],
            **({"strict": True} if strict else {}),
            **statistics,
        },
        {"key": key_file["sha256"], "response": response_file["sha256"]},
    )
    return stage_spec(
        "ScoreCorefResponse",
        {
            "format": options["format"],
            "match": options["match"],
            "encoding": options["encoding"],
            "strict": strict,
            "signature": signature,
        },
        {"key": key_file, "response": response_file},
    )
