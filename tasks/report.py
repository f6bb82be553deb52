"""Report and CampaignSummary: score tables from tallies, and a campaign's leaderboard."""

from __future__ import annotations

import pyarrow as pa

from pipeline.campaign import leaderboard
from pipeline.report import score_table
from tasks.base import Stage

SIGNATURE_KEY = b"iescore.signature"


class Report(Stage):
    STAGE = "Report"
    VERSION = 1
    OUTPUTS = ("scores",)

    def produce(self) -> dict[str, pa.Table]:
        scores = score_table(self.input_table("scored", "tallies"), beta=float(self.options["beta"]))
        metadata = dict(scores.schema.metadata or {})
        metadata[SIGNATURE_KEY] = self.options["signature"].encode()
        return {"scores": scores.replace_schema_metadata(metadata)}


class CampaignSummary(Stage):
    STAGE = "CampaignSummary"
    VERSION = 1
    OUTPUTS = ("leaderboard",)

    def produce(self) -> dict[str, pa.Table]:
        systems = {name: self.input_table(name) for name in self.spec["inputs"]}
        signatures = {name: table.schema.metadata[SIGNATURE_KEY].decode() for name, table in systems.items()}
        return {"leaderboard": leaderboard(systems, signatures)}
