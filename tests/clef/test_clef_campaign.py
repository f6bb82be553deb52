"""CLEF eHealth campaigns (``scorer = "clef"``, ``"clef-2"``) and the family's statistics.

Expected numbers by hand: tests/clef/test_clef_eval.py's module doc (run1 strict F 8/11 = 0.7273,
run2 0.3333; relaxed F 0.8696 and 0.5882; one-to-one F 0.8182 and 0.5556; Task 1b strict 7/11 and
3/11, relaxed 7/8 and 3/3) and the Task 2 test (strict 2/4, relaxed 3/4).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from iescore.pipeline.clef import (
    CLEF_1A,
    CLEF_1B,
    CLEF_2,
    CLEF_STATISTICS,
    match_columns,
    matches_table,
    read_mentions,
    tally_mentions,
)
from iescore.pipeline.core.family import UnitStatistics, category_measures
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"


def test_campaign_ranks_runs_shows_the_add_flag_and_writes_eval_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(DATA / "clef-sample", tmp_path / "clef-sample")
    campaign = tmp_path / "clef-campaign.toml"
    campaign.write_text(
        (DATA / "clef-campaign.toml").read_text().replace("resamples = 1000", "resamples = 200")
    )
    out_dir, page = tmp_path / "out", tmp_path / "page.html"
    assert (
        main(["campaign", str(campaign), "--out", str(out_dir), "--html", str(page), "--progress", "none"])
        == 0
    )
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split()[:5] == ["rank", "system", "run", "additional_annotations", "strict_P"]
    assert lines[2].split()[:11] == ["1", "run1", "1", "no", "0.7273", "0.7273", "0.7273", "0.8696", "0.8182",
                                     "0.6364", "0.8750"]  # fmt: skip
    assert lines[3].split()[:11] == ["2", "run2", "2", "yes", "0.4286", "0.2727", "0.3333", "0.5882",
                                     "0.5556", "0.2727", "1.0000"]  # fmt: skip
    assert "ranked by Task 1a strict F" in out and "bootstrap over reports" in out
    board = {
        row["system"]: row for row in json.loads((out_dir / "leaderboard.json").read_text())["leaderboard"]
    }
    assert (
        board["run2"]["additional_annotations"] is True and board["run1"]["additional_annotations"] is False
    )
    for row in board.values():
        assert row["strict_F_low"] <= row["strict_F"] <= row["strict_F_high"]
    # Each run's folder holds eval.pl's output file (as iescore clef writes it) and its statistics.
    run2 = next((out_dir / "systems").glob("run2-*"))
    text = (run2 / "eval.txt").read_text()
    assert text.startswith(
        (ROOT / "tests/data/clef/evalpl-output/sample.2.A.add").read_text().replace("Task A", "Task 1a")
    )
    assert (
        "Overlap one-to-one (iescore, not eval.pl):\nPrecision: \t0.714\nRecall: \t0.455\nF-score: \t0.556\n"
        in text
    )
    source = page.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in source and "Task 1a strict F" in source


def test_task_2_campaign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(DATA / "clef-sample" / "task2", tmp_path / "task2")
    campaign = tmp_path / "t2.toml"
    campaign.write_text(
        'scorer = "clef-2"\nstore = "store"\n\n[reference]\ngold = "task2/gold"\n\n'
        "[options]\nresamples = 50\n\n"
        '[systems.one]\ninput = "task2/run1"\n\n[systems.gold]\ninput = "task2/gold"\n'
    )
    # The gold answering itself is refused: its lines have several codes, a system's must have one.
    assert main(["campaign", str(campaign), "--progress", "none"]) == 2
    assert "expected one code in the CUI field" in capsys.readouterr().err
    campaign.write_text(campaign.read_text().replace('[systems.gold]\ninput = "task2/gold"\n', ""))
    assert main(["campaign", str(campaign), "--progress", "none"]) == 0
    line = capsys.readouterr().out.splitlines()[2].split()
    assert line[:6] == ["1", "one", "1", "no", "0.5000", "0.7500"]


def test_campaign_file_values_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(DATA / "clef-sample", tmp_path / "clef-sample")
    campaign = tmp_path / "c.toml"
    text = (DATA / "clef-campaign.toml").read_text()
    campaign.write_text(text.replace("run = 2", "run = 3"))
    assert main(["campaign", str(campaign), "--progress", "none"]) == 2
    assert "c.toml:" in capsys.readouterr().err
    campaign.write_text(text.replace('input = "clef-sample/run2"', 'input = "clef-sample/nowhere"'))
    assert main(["campaign", str(campaign), "--progress", "none"]) == 2
    assert "nowhere" in capsys.readouterr().err


def test_statistics_partition_by_cui_and_feed_the_families() -> None:
    gold = read_mentions(DATA / "clef-sample" / "gold", "gold")
    system = read_mentions(DATA / "clef-sample" / "run1", "system")
    table = tally_mentions(matches_table(gold, system, match_columns(gold, system)))
    statistics = UnitStatistics.from_table(CLEF_1A, {"run1": table})
    assert statistics.units == ("report-01", "report-02", "report-03")
    totals = dict(zip(CLEF_STATISTICS, statistics.totals()[0], strict=True))
    # By hand (module doc of test_clef_eval): strict 8/3/3, relaxed 10/1/2, one-to-one 9/2/2, 7 correct.
    assert [totals[n] for n in CLEF_STATISTICS] == [8, 3, 3, 10, 1, 2, 9, 2, 2, 7, 7]
    # Per report: report-02 has 4 predictions (3 exact) and 4 gold mentions (CHF missed).
    r2 = statistics.values[0, 1]
    assert list(r2[:3]) == [3, 1, 1]
    # The categories are CUIs; TP and FP go to the prediction's, FN to the gold's: the acute renal
    # failure pair is c0035078's TP (the prediction's CUI), the gold's c0022660 has no count at all.
    by_cui = category_measures(CLEF_1A, table)
    assert "c0022660" not in by_cui and by_cui["c0035078"]["strict_P"] == 0.5  # 1 TP, 1 FP
    assert by_cui["c0015967"]["strict_R"] == 0.0  # fever: FN only
    # Without categories (what iescore clef tallies): one row per report and nonzero statistic, the
    # same sums.
    plain = tally_mentions(matches_table(gold, system, match_columns(gold, system)), by_cui=False)
    assert plain.column("category").null_count == plain.num_rows
    assert plain.num_rows < table.num_rows
    again = UnitStatistics.from_table(CLEF_1A, {"run1": plain})
    assert (again.values == statistics.values).all()


def test_measures_are_vectorised_and_zero_without_a_true_positive() -> None:
    # Two resamples x two systems of summed statistics (CLEF_STATISTICS order).
    sums = np.zeros((2, 2, len(CLEF_STATISTICS)))
    sums[0, 0] = [8, 3, 3, 10, 1, 2, 9, 2, 2, 7, 7]
    sums[1, 1, 1] = 5  # false positives only
    values = CLEF_1A.measures(sums)
    assert values.shape == (2, 2, 11)
    names = CLEF_1A.measure_names
    assert values[0, 0, names.index("relaxed_R")] == pytest.approx(10 / 12)
    assert values[0, 0, names.index("strict_accuracy")] == pytest.approx(7 / 11)
    assert values[0, 0, names.index("relaxed_accuracy")] == pytest.approx(7 / 8)
    assert (values[1, 1] == 0).all() and (values[0, 1] == 0).all()
    assert CLEF_1B.measures(sums[0, 0]).tolist() == pytest.approx([7 / 11, 7 / 8])
    # Task 2: correct 2, nbest_correct 3 of 4 gold (strict_tp + strict_fn).
    task2 = np.array([3, 0, 1, 3, 0, 1, 3, 0, 1, 2, 3], dtype=float)
    assert CLEF_2.measures(task2).tolist() == pytest.approx([0.5, 0.75])
