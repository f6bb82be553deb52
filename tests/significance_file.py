"""The pairwise tests a campaign's leaderboard JSON names (its ``significance``: a Parquet file), as rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from iescore.pipeline.campaign.engine import significance_rows
from iescore.pipeline.campaign.kinds import KINDS


def json_pairs(json_path: Path, kind: str | None = None) -> list[dict[str, Any]]:
    """Every pair of the Parquet file the JSON at ``json_path`` names (relative to its folder), checked
    against the count the JSON gives; in ``kind``'s unit when given (the CSV's), else fractions of 1."""
    named = json.loads(Path(json_path).read_text(encoding="utf-8"))["significance"]
    assert named["format"] == "parquet" and named["schema"] == "iescore.schemas.SIGNIFICANCE"
    table = pq.read_table(Path(json_path).parent / named["file"])
    assert table.num_rows == named["pairs"]
    return (significance_rows(KINDS[kind], table) if kind else table).to_pylist()


def json_results(json_path: Path) -> dict[str, Any]:
    """The JSON at ``json_path`` with its ``significance`` the pairs themselves (``json_pairs``): what two
    runs writing their JSON under different names are compared on."""
    board = json.loads(Path(json_path).read_text(encoding="utf-8"))
    return {**board, "significance": json_pairs(json_path)}
