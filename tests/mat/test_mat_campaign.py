"""``scorer = "mat"`` campaigns (issue 12, point 10): data/mat-campaign.toml scores data/mat-sample's two
systems; the leaderboard's numbers are the sample's hand-worked <all> rows (data/mat-sample/README.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from iescore.pipeline.campaign.engine import read_campaign
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def _campaign(tmp_path: Path, text: str | None = None) -> Path:
    shutil.copytree(ROOT / "data" / "mat-sample", tmp_path / "mat-sample")
    path = tmp_path / "mat-campaign.toml"
    path.write_text(text or (ROOT / "data" / "mat-campaign.toml").read_text(), encoding="utf-8")
    return path


def test_mat_campaign_leaderboard(tmp_path, capsys):
    campaign = _campaign(tmp_path)
    out_dir = tmp_path / "out"
    page = tmp_path / "page.html"
    status = main(
        [
            "campaign",
            str(campaign),
            "--out",
            str(out_dir),
            "--store",
            str(tmp_path / "store"),
            "--html",
            str(page),
        ]
    )
    out, err = capsys.readouterr()
    assert status == 0, err
    board = {
        row["system"]: row for row in json.loads((out_dir / "leaderboard.json").read_text())["leaderboard"]
    }
    # good: P 4/6, R 4/7, F 8/13; rough: P 2/8, R 2/7, F 4/15 (the sample's README, <all> rows).
    assert (board["good"]["precision"], board["good"]["recall"], board["good"]["fmeasure"]) == pytest.approx(
        (4 / 6, 4 / 7, 8 / 13)
    )
    assert (
        board["rough"]["precision"],
        board["rough"]["recall"],
        board["rough"]["fmeasure"],
    ) == pytest.approx((2 / 8, 2 / 7, 4 / 15))
    assert board["good"]["rank"] == 1 and board["rough"]["rank"] == 2
    lines = out.splitlines()
    assert lines[2].split()[:5] == ["1", "good", "0.6667", "0.5714", "0.6154"]
    index = (out_dir / "systems" / "index.csv").read_text().splitlines()
    folders = {line.split(",")[0]: out_dir / line.split(",")[-1] for line in index[1:]}
    report = (folders["rough"] / "report.txt").read_text()
    assert report.startswith("By tag\n") and "signature: scorer:mat|" in report
    scores = json.loads((folders["rough"] / "scores.json").read_text())
    person = next(r for r in scores["tables"]["tag"] if r["file"] == "<all>" and r["tag"] == "PERSON")
    assert (person["match"], person["refclash"], person["hypclash"]) == (1, 2, 3)
    # The page's heat map is F-measure by tag (the family's categories).
    assert "F-measure by tag" in page.read_text()


def test_mat_campaign_keys_are_typed(tmp_path):
    text = (
        (ROOT / "data" / "mat-campaign.toml")
        .read_text()
        .replace('file_type = "xml-inline"', 'file_type = "tei"')
    )
    with pytest.raises(InputError, match="systems.rough.file_type"):
        read_campaign(_campaign(tmp_path, text))
