"""Report: a system's score tables and statistics from its tallies."""

from __future__ import annotations

import pyarrow as pa
from iescore.pipeline.core.signature import SIGNATURE_KEY
from iescore.pipeline.templette import templette_statistics
from iescore.pipeline.templette.report import score_table
from iescore.tasks.core.base import Stage


class Report(Stage):
    """A system's score tables (``scores``) and its sufficient statistics (``statistics``: the templette
    family's ALL SLOTS points by document and slot, ``pipeline.templette.templette_statistics``, what a
    campaign's summary reads), both signed, from its MapAndScore's tallies."""

    STAGE = "Report"
    VERSION = 2
    OUTPUTS = ("scores", "statistics")

    def produce(self) -> dict[str, pa.Table]:
        tallies = self.input_table("scored", "tallies")
        scores = score_table(tallies, beta=float(self.options["beta"]))
        statistics = templette_statistics(tallies)
        signature = {SIGNATURE_KEY: self.options["signature"].encode()}
        return {
            name: table.replace_schema_metadata({**(table.schema.metadata or {}), **signature})
            for name, table in (("scores", scores), ("statistics", statistics))
        }
