"""``scorer = "senseval"`` campaigns (issue 13, point 7): many systems' answers against one key and
sense map, ranked by recall, with intervals, paired significance, per-system files and the page.

Hand calculation, mixed-grained, data/senseval-sample (bank.1 has 2 subsenses, plant.1 has 3):
  system-a: b01 1, b02 0 (a sibling), b03 1, b04 1 (bank.3 is one of the key's), b05 0, p01 1, p02 1,
            p03 1/3 + 1/3 (plant.1 is above both key tags), p04 1 (plant.1.2 is below plant.1), p05 1
            -> 7.667 correct of 10 attempted of 10: precision = recall = 0.7667, attempted 1.
  system-b: b01 0.6, b02 0.7 x 1/2 = 0.35, b04 0.5 + 0.5, b05 0.9, p01 0.8 x 1/3 = 0.2667, p02 0.5,
            p03 0.5 + 0.5, p05 0.2 -> 4.8167 correct of 6.9 attempted (b03 and p04 unanswered):
            precision 0.6981, recall 0.4817, attempted 0.69.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from iescore.pipeline.campaign.engine import read_campaign
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import main
from significance_file import json_pairs

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    shutil.copytree(DATA / "senseval-sample", tmp_path / "senseval-sample")
    path = tmp_path / "senseval-campaign.toml"
    shutil.copy(DATA / "senseval-campaign.toml", path)
    return path


def test_campaign_ranks_by_recall(campaign: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir, page = tmp_path / "out", tmp_path / "page.html"
    status = main(["campaign", str(campaign), "--out", str(out_dir), "--html", str(page)])
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:5] == ["rank", "system", "precision", "recall", "attempted"]
    assert lines[2].split()[:5] == ["1", "system-a", "0.7667", "0.7667", "1.0000"]
    assert lines[3].split()[:5] == ["2", "system-b", "0.6981", "0.4817", "0.6900"]
    assert "ranked by recall, the SENSEVAL ranking measure" in out
    board = json.loads((out_dir / "leaderboard.json").read_text())
    rows = {row["system"]: row for row in board["leaderboard"]}
    assert rows["system-b"]["recall"] == pytest.approx(4.81667 / 10, abs=1e-4)
    assert rows["system-b"]["precision"] == pytest.approx(4.81667 / 6.9, abs=1e-4)
    for row in rows.values():
        assert row["recall_low"] <= row["recall"] <= row["recall_high"]
    (pair,) = json_pairs(out_dir / "leaderboard.json")
    assert pair["system_a"] == "system-a"
    assert pair["delta"] == pytest.approx(7.66667 / 10 - 4.81667 / 10, abs=1e-4)
    index = (out_dir / "systems" / "index.csv").read_text().splitlines()
    folders = {line.split(",")[0]: out_dir / line.split(",")[-1] for line in index[1:]}
    report = (folders["system-b"] / "senseval.txt").read_text()
    assert " recall: 0.482 (4.82 correct of 10.00 in total)\n" in report  # scorer2's block
    assert 'Mixed-grained score for item "plant":' in report
    document = json.loads((folders["system-b"] / "senseval.json").read_text())
    assert document["totals"]["attempted"] == pytest.approx(6.9)
    statistics = (folders["system-a"] / "statistics.csv").read_text().splitlines()
    assert statistics[0] == "unit,category,statistic,value" and len(statistics) == 1 + 3 * 10
    html = page.read_text()
    assert "system-a" in html and "Recall" in html
    # The page's one script (leaderboard sort and filter, the matrix) and its data; nothing else.
    assert html.count("<script") == 2 and '<script type="application/json" id="board-data">' in html


def test_coarse_without_a_sense_map_is_bad_input(campaign: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = campaign.read_text().replace('sense_map = "senseval-sample/senses.map"\n', "")
    campaign.write_text(text.replace('granularity = "mixed"', 'granularity = "coarse"'))
    assert main(["campaign", str(campaign)]) == 2
    assert "granularity 'coarse' needs [reference] sense_map = FILE" in capsys.readouterr().err


def test_campaign_keys_are_typed(campaign: Path) -> None:
    campaign.write_text(campaign.read_text().replace('granularity = "mixed"', 'granularity = "medium"'))
    with pytest.raises(InputError) as error:
        read_campaign(campaign)
    assert "options.granularity" in str(error.value) and error.value.line == 13


@pytest.mark.parametrize(
    ("weight", "expected"),
    [
        ("1e400", "weight '1e400' of tag 'bank.1.1' is too large"),
        ("-1", "weight '-1' of tag 'bank.1.1' is negative"),
    ],
    ids=["overflows", "negative"],
)
def test_a_weight_no_answer_can_mean_is_bad_input_in_a_campaign(
    campaign: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], weight: str, expected: str
) -> None:
    # Once NaN totals for system-a (numpy's RuntimeWarning only) and then a traceback in the summary.
    answers = campaign.parent / "senseval-sample" / "system-a.answers"
    lines = answers.read_text().splitlines(keepends=True)
    assert lines[1] == "bank b02 bank.1.1\n"
    lines[1] = f"bank b02 bank.1.1/{weight}\n"
    answers.write_text("".join(lines))
    out_dir = tmp_path / "out"
    assert main(["campaign", str(campaign), "--out", str(out_dir)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "RuntimeWarning" not in err
    assert f"{answers}:2: {expected}" in err
    assert not out_dir.exists()
