"""ScoreCorefResponse: one system of a coreference campaign scored against the key (every metric)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from pipeline.core.signature import SIGNATURE_KEY, make_signature
from pipeline.coref import (
    METRICS,
    align_documents,
    conll_mention_table,
    coref_statistics,
    mention_table,
    read_pair,
    score_documents,
    scores_from_columns,
)
from schemas import COREF_MENTIONS
from tasks.core.base import Stage, file_spec, stage_spec
from tasks.muc.stages import DUPLICATES_KEY
from tasks.templette import (
    report,  # noqa: F401 - registers MapAndScore and Report
    score,  # noqa: F401 - registers MapAndScore and Report
)


class ScoreCorefResponse(Stage):
    """One system of a coreference campaign: its response's chains against the key's, as
    ``iescore coref`` scores them (every metric), into the COREF family's per-document ``statistics``
    and the ``mentions`` table (for the campaign's outputs and the page's chains)."""

    STAGE = "ScoreCorefResponse"
    VERSION = 1
    OUTPUTS = ("statistics", "mentions")

    def produce(self) -> dict[str, pa.Table]:
        response_path = self.input_file("response")
        columns = None
        if self.options["format"] == "conll" and self.options["match"] == "exact":
            columns = conll_mention_table(self.input_file("key"), response_path, self.options["encoding"])
        if columns is not None:  # well-formed CoNLL, read as columns (pipeline.coref.columns)
            scores, table = scores_from_columns(columns, METRICS), columns.table
            duplicates = columns.duplicates
        else:
            key, response = read_pair(
                self.input_file("key"), response_path, self.options["format"], self.options["encoding"]
            )
            aligned = align_documents(
                key, response, match=self.options["match"], response_source=response_path
            )
            scores, table = score_documents(aligned, metrics=METRICS), mention_table(aligned)
            duplicates = sum(doc.response.duplicates for doc in aligned)
        statistics = coref_statistics(scores)
        mentions = pa.Table.from_pandas(table, schema=COREF_MENTIONS, preserve_index=False)
        metadata = {
            DUPLICATES_KEY: str(duplicates).encode(),
            SIGNATURE_KEY: self.options["signature"].encode(),
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
    encoding; ``statistics``: the campaign's resamples and seed, part of the signature)."""
    key_file, response_file = file_spec(key), file_spec(response)
    signature = make_signature(
        "coref",
        {"format": options["format"], "match": options["match"], **statistics},
        {"key": key_file["sha256"], "response": response_file["sha256"]},
    )
    return stage_spec(
        "ScoreCorefResponse",
        {
            "format": options["format"],
            "match": options["match"],
            "encoding": options["encoding"],
            "signature": signature,
        },
        {"key": key_file, "response": response_file},
    )
