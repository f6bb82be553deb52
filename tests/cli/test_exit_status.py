"""The ``iescore`` program as a whole process (``tasks.cli.main.run``): its exit status, and every output
written and every message shown when it ends."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from significance_file import json_results

ROOT = Path(__file__).resolve().parents[2]


def iescore(*argv: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "iescore", *map(str, argv)], capture_output=True, text=True, cwd=cwd
    )


def test_a_campaign_leaves_its_outputs_and_its_leaderboard_whole(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "data" / "hub4-sports", tmp_path / "hub4-sports")
    shutil.copy(ROOT / "data" / "campaign.toml", tmp_path / "campaign.toml")
    out = tmp_path / "out"
    done = iescore(
        "campaign", "campaign.toml", "--store", "store", "--out", out, "--json", "board.json", "--workers", 2,
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    board = json.loads((tmp_path / "board.json").read_text())
    # Every system's row printed, in the leaderboard's order, and every output file there.
    printed = [line.split()[1] for line in done.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert printed == [row["system"] for row in board["leaderboard"]] and len(printed) >= 2
    assert (out / "report.html").read_text().rstrip().endswith("</html>")
    assert len(list((out / "systems").glob("*/scores.json"))) == len(printed)
    # The same results (each JSON names its own Parquet file of pairs, beside it).
    assert json_results(out / "leaderboard.json") == json_results(tmp_path / "board.json")


def test_bad_input_is_reported_with_status_2(tmp_path: Path) -> None:
    (tmp_path / "campaign.toml").write_text(
        '[reference]\ntemplates = "absent.tpl"\n\n[systems.one]\ntemplates = "one.tpl"\n'
    )
    done = iescore("campaign", "campaign.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert "not found" in done.stderr and done.stderr.startswith("iescore: campaign.toml:")
