"""Report: a system's score tables from its tallies."""

from __future__ import annotations

import pyarrow as pa

from pipeline.core.signature import SIGNATURE_KEY
from pipeline.templette.report import score_table
from tasks.core.base import Stage


class Report(Stage):
    STAGE = "Report"
    VERSION = 1
    OUTPUTS = ("scores",)

    def produce(self) -> dict[str, pa.Table]:
        scores = score_table(self.input_table("scored", "tallies"), beta=float(self.options["beta"]))
        metadata = dict(scores.schema.metadata or {})
        metadata[SIGNATURE_KEY] = self.options["signature"].encode()
        return {"scores": scores.replace_schema_metadata(metadata)}
