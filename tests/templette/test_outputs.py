"""Output conventions: units of every file ``templette`` and ``campaign`` write, F named with its beta in
the text leaderboard, and score pages that never cut a name in one section and not in the next."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest
from iescore.pipeline.campaign.engine import leaderboard_text, output_name
from iescore.pipeline.templette import TEMPLETTE_CAMPAIGN
from iescore.pipeline.templette.report import muc_report, score_table
from iescore.schemas import COUNT_COLUMNS, LEADERBOARD, MEASURE_COLUMNS, TALLIES, table_from_rows
from iescore.tasks.cli.main import main
from significance_file import json_pairs

DATA = Path(__file__).resolve().parents[2] / "data"
SPORTS = DATA / "hub4-sports"
INTERVAL_COLUMNS = tuple(f"{m}_{end}" for m in ("REC", "PRE", "F") for end in ("low", "high"))
PERCENT = {*MEASURE_COLUMNS, *INTERVAL_COLUMNS, "delta"}
PROBABILITY = {"paired_bootstrap_p", "randomization_p", "randomization_p_holm", "t_test_p", "t_test_p_holm"}
# sloppy.tpl against ref.tpl (tests/templette/test_cli.py, EXPECTED): COR 15, INC 4, POS = ACT = 19, so
# REC = PRE = F = 15/19 = 78.947368 %, SUB = ERR = 4/19 = 21.052632 %.
SLOPPY_F = 100 * 15 / 19


def run(*argv: object) -> None:
    assert main([str(a) for a in argv]) == 0


def check_json(value: Any, where: str = "") -> None:
    """Measures and deltas in percent (0-100 or, for deltas, -100-100), p-values 0-1, counts integers."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in PERCENT and item is not None:
                assert isinstance(item, float) and -100 <= item <= 100, (where, key, item)
                assert key == "delta" or item >= 0, (where, key, item)
            elif key in PROBABILITY and item is not None:
                assert 0 <= item <= 1, (where, key, item)
            elif key in COUNT_COLUMNS or key in ("rank", "resamples", "seed"):
                assert isinstance(item, int), (where, key, item)
            else:
                check_json(item, f"{where}.{key}")
    elif isinstance(value, list):
        for item in value:
            check_json(item, where)


def check_csv(path: Path) -> list[dict[str, str]]:
    """As ``check_json``, cell by cell; and no integer written as a float (``3.0``) outside measures."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        for key, cell in row.items():
            if cell == "":
                continue
            if key in PERCENT:
                assert -100 <= float(cell) <= 100, (path.name, key, cell)
            elif key in PROBABILITY:
                assert 0 <= float(cell) <= 1, (path.name, key, cell)
            else:
                assert not re.fullmatch(r"-?\d+\.0", cell), (path.name, key, cell)
    return rows


def test_templette_json_and_csv_are_both_percentages(tmp_path: Path) -> None:
    out_json, csv_dir = tmp_path / "scores.json", tmp_path / "csv"
    run("templette", "--ref", SPORTS / "ref.tpl", "--hyp", SPORTS / "sloppy.tpl",
        "--texts", SPORTS / "texts.sgml", "--store", tmp_path / "store",
        "--json", out_json, "--csv", csv_dir)  # fmt: skip
    scores = json.loads(out_json.read_text(encoding="utf-8"))
    check_json(scores)
    assert scores["totals"]["F"] == pytest.approx(SLOPPY_F, abs=1e-6)
    totals = check_csv(csv_dir / "totals.csv")
    assert float(totals[0]["F"]) == pytest.approx(SLOPPY_F, abs=1e-6)
    assert float(totals[0]["SUB"]) == pytest.approx(100 * 4 / 19, abs=1e-6)
    assert totals[0]["COR"] == "15"
    # Every table of the CSV directory holds what the JSON holds, in the same unit.
    for name, key, entries in (
        ("by_type.csv", ("instance_type",), scores["by_type"]),
        ("by_slot.csv", ("instance_type", "slot"), scores["by_slot"]),
        ("by_document.csv", ("doc_id",), scores["by_document"]),
    ):
        rows = {tuple(row[k] for k in key): row for row in check_csv(csv_dir / name)}
        assert len(rows) == len(entries)
        for entry in entries:
            row = rows[tuple(entry[k] for k in key)]
            for measure in MEASURE_COLUMNS:
                shown = None if row[measure] == "" else float(row[measure])
                assert shown == entry[measure], (name, measure)
    check_csv(csv_dir / "objects.csv")
    # mapping.csv: offsets and lines are integers even in columns that have empty cells.
    mapping = check_csv(csv_dir / "mapping.csv")
    winner = next(row for row in mapping if row["slot"] == "WINNER")
    # ref.tpl: WINNER "Egypt" ##332#337#; sloppy.tpl: "Egypt, which" ##332#344#.
    assert (winner["ref_start"], winner["ref_end"], winner["hyp_start"], winner["hyp_end"]) == (
        "332", "337", "332", "344",
    )  # fmt: skip
    assert any(row["ref_start"] == "" for row in mapping)  # the instance rows: the column has nulls


def test_campaign_outputs_are_all_percentages(tmp_path: Path) -> None:
    out, board_json, board_csv = tmp_path / "out", tmp_path / "board.json", tmp_path / "board.csv"
    run("campaign", DATA / "campaign.toml", "--store", tmp_path / "store", "--out", out, "--json", board_json,
        "--csv", board_csv)  # fmt: skip
    # data/campaign.toml: sloppy is F = 30/38 (tests/templette/test_cli.py), the same 78.947368 %.
    for path in (board_json, out / "leaderboard.json"):
        result = json.loads(path.read_text(encoding="utf-8"))
        check_json(result)
        check_json(json_pairs(path, "templette"))
        rows = {row["system"]: row for row in result["leaderboard"]}
        assert rows["sloppy"]["F"] == pytest.approx(SLOPPY_F, abs=1e-6)
        assert rows["perfect"]["F_low"] == rows["perfect"]["F_high"] == 100.0
        # perfect vs eager: F 100 against 38/52 = 73.1 %: a difference of points, not of fractions.
        pair = next(
            p for p in json_pairs(path, "templette") if {p["system_a"], p["system_b"]} == {"perfect", "eager"}
        )
        assert abs(pair["delta"]) > 1
    for path in (board_csv, out / "leaderboard.csv"):
        rows = {row["system"]: row for row in check_csv(path)}
        assert float(rows["sloppy"]["F"]) == pytest.approx(SLOPPY_F, abs=1e-6)
        assert rows["sloppy"]["rank"] == "2" and rows["sloppy"]["COR"] == "15"
    significance = check_csv(out / "significance.csv")
    pairs = json_pairs(out / "leaderboard.json", "templette")
    by_json = {(p["system_a"], p["system_b"]): p["delta"] for p in pairs}
    assert {(row["system_a"], row["system_b"]): float(row["delta"]) for row in significance} == by_json
    check_csv(out / "systems" / "index.csv")
    folder = out / "systems" / output_name("sloppy")
    scores = json.loads((folder / "scores.json").read_text(encoding="utf-8"))
    check_json(scores)
    assert scores["totals"]["F"] == pytest.approx(SLOPPY_F, abs=1e-6)
    assert float(check_csv(folder / "totals.csv")[0]["F"]) == pytest.approx(SLOPPY_F, abs=1e-6)
    for name in ("by_type.csv", "by_slot.csv", "by_document.csv", "objects.csv", "mapping.csv"):
        check_csv(folder / name)
    # The text leaderboard and report show the same numbers: 78.95 and 79.
    assert " 78.95 " in (out / "leaderboard.txt").read_text(encoding="utf-8")
    assert "ALL SLOTS       19    19|  15   0    4|" in (folder / "report.txt").read_text(encoding="utf-8")


# --- F named with its beta ---------------------------------------------------------------------------


def board() -> Any:
    """A templette leaderboard of two systems: a with F 0.5, b with F 0.25 (every count 0)."""
    rows = [
        {
            "rank": rank,
            "system": name,
            "measure": measure,
            "value": f if measure == "F" else 0.0,
            "low": None,
            "high": None,
            "attributes": "{}",
            "signature": "scorer:templette",
        }
        for rank, name, f in ((1, "a", 0.5), (2, "b", 0.25))
        for measure in (*TEMPLETTE_CAMPAIGN.counts, *TEMPLETTE_CAMPAIGN.board)
    ]
    return table_from_rows(rows, LEADERBOARD)


def test_text_leaderboard_names_f_with_beta() -> None:
    header = leaderboard_text(TEMPLETTE_CAMPAIGN, board()).splitlines()[0]
    assert header.split()[-4:] == ["F", "F", "95%", "CI"]
    for beta, name in ((2.0, "F2"), (0.5, "F0.5")):
        text = leaderboard_text(TEMPLETTE_CAMPAIGN.with_beta(beta), board())
        assert text.splitlines()[0].split()[-4:] == [name, name, "95%", "CI"]
        assert "  50.00" in text  # F of a: 0.5 -> 50.00


# --- names never cut in one section and whole in another ---------------------------------------------

LONG_TYPE = "SPORTS_EVENT_WITH_A_LONG_NAME"
LONG_SLOT = "LOCATION_OF_THE_EVENT"
LONG_DOC = "PRI19980302.2000.2923"


def test_score_page_writes_every_long_name_whole_in_every_section() -> None:
    # One document, one instance of a long-named type with a long-named slot (COR, content and extent)
    # and a short one (MIS): object 1 COR; slot LOCATION_OF_THE_EVENT 2 COR, S 1 MIS.
    points = [
        (None, "object", "COR"),
        (LONG_SLOT, "content", "COR"),
        (LONG_SLOT, "extent", "COR"),
        ("S", "content", "MIS"),
    ]
    rows = [
        {"doc_id": LONG_DOC, "instance_type": LONG_TYPE, "slot": slot, "aspect": aspect, "category": category}
        for slot, aspect, category in points
    ]
    page = muc_report(score_table(table_from_rows(rows, TALLIES)), "sig").splitlines()
    object_name, slot_name = " " + LONG_TYPE.lower(), "  " + LONG_SLOT.lower()
    # OBJ SCORES, the type's heading in SLOT SCORES, the slot and the document: each name whole, on a
    # line of its own, its numbers on the next line; a short name keeps the MUC layout.
    assert page.count(object_name) == 2  # OBJ SCORES line, and the SLOT SCORES heading
    for name in (object_name, slot_name, " " + LONG_DOC):
        at = page.index(name)
        assert page[at + 1].startswith(" " * 12) and page[at + 1][12:].strip()[0].isdigit(), page[at + 1]
    object_numbers = page[page.index(object_name) + 1]
    assert (
        object_numbers
        == f"{'':12}{1:>6}{1:>6}|{1:>4}{0:>4}{0:>5}|{0:>4}{0:>5}{0:>5}| 100 100   0   0   0   0"
    )
    assert page[page.index(slot_name) + 1].startswith(f"{'':12}{2:>6}{2:>6}|{2:>4}")
    # The short slot S: POS 1 (MIS), ACT 0; REC 0, PRE undefined.
    short = f"{'  s':12}{1:>6}{0:>6}|{0:>4}{0:>4}{0:>5}|{1:>4}{0:>5}{0:>5}|   0   -"
    assert any(line.startswith(short) for line in page)
    # Nothing cut: no line holds a strict prefix of a long name without the rest.
    for name in (LONG_TYPE.lower(), LONG_SLOT.lower(), LONG_DOC):
        for line in page:
            if name[:11] in line:
                assert name in line, line
