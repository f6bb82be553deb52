"""One unit per campaign, the same on the text board, CSV, JSON and page (its kind's ``unit``, its
reference program's: percent for templette, MUC and coreference, fractions of 1 for MAT, SENSEVAL, CLEF
and TREC); every significance mark of a page on the Holm-adjusted p-value, and the page says so; a
campaign of fewer than 10 units says that its intervals and p-values mean little; optional (NON)
pairings are not disagreements."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from iescore.pipeline.campaign import html_report
from iescore.pipeline.campaign.engine import FEW_UNITS, campaign_summary, report_data
from iescore.pipeline.campaign.kinds import KINDS
from iescore.pipeline.core.family import statistics_table
from iescore.schemas import LEADERBOARD, SIGNIFICANCE, table_from_rows
from iescore.tasks.cli.main import main
from page_samples import board_headings, board_rows, marked_pairs

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"

#: The unit of each kind (the docs' table): its reference program's.
UNITS = {
    "templette": "percent",
    "muc": "percent",
    "coref": "percent",
    "mat": "fraction",
    "senseval": "fraction",
    "clef": "fraction",
    "clef-2": "fraction",
    "trec": "fraction",
    "wer": "percent",
}


def test_every_kind_declares_its_reference_programs_unit() -> None:
    assert {name: kind.unit for name, kind in KINDS.items()} == UNITS


def run(tmp_path: Path, campaign: str, folder: str) -> tuple[str, dict, list[dict], str]:
    """A sample campaign run: its text board, JSON, CSV rows and page."""
    shutil.copytree(DATA / folder, tmp_path / folder)
    shutil.copy(DATA / campaign, tmp_path / campaign)
    out = tmp_path / "out"
    argv = ["campaign", str(tmp_path / campaign), "--store", str(tmp_path / "store"), "--out", str(out)]
    assert main([*argv, "--progress", "none"]) == 0
    text = (out / "leaderboard.txt").read_text(encoding="utf-8")
    board = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    rows = list(csv.DictReader(io.StringIO((out / "leaderboard.csv").read_text(encoding="utf-8"))))
    return text, board, rows, (out / "report.html").read_text(encoding="utf-8")


def test_mat_precision_is_a_fraction_with_the_same_digits_everywhere(tmp_path: Path) -> None:
    text, board, rows, page = run(tmp_path, "mat-campaign.toml", "mat-sample")
    for row, line in zip(board["leaderboard"], rows, strict=True):
        precision = row["precision"]
        assert 0 <= precision <= 1
        assert float(line["precision"]) == precision  # the CSV holds the JSON's value
        shown = f"{precision:.4f}"  # the text board's four decimals, and the page's
        assert shown in text.splitlines()[2 + row["rank"] - 1]
        assert shown in board_rows(page)[row["rank"] - 1]
    assert "precision %" not in page and "in percent" not in page


def test_templette_is_in_percent_everywhere(tmp_path: Path) -> None:
    # sloppy: COR 15 of POS 19 and ACT 19 (the README's sample): F = 100 * 15/19 = 78.947368 percent.
    text, board, rows, page = run(tmp_path, "campaign.toml", "hub4-sports")
    sloppy = next(row for row in board["leaderboard"] if row["system"] == "sloppy")
    assert sloppy["F"] == pytest.approx(100 * 15 / 19, abs=1e-6)
    assert float(next(row for row in rows if row["system"] == "sloppy")["F"]) == sloppy["F"]
    assert " 78.95 " in next(line for line in text.splitlines() if "sloppy" in line)
    cells = next(cells for cells in board_rows(page) if cells[1] == "sloppy")
    assert cells[board_headings(page).index("F %")] == "78.9"


def test_few_units_are_said_on_the_board_and_the_page(tmp_path: Path) -> None:
    # The sample has 3 documents: fewer than 10.
    text, _, _, page = run(tmp_path, "campaign.toml", "hub4-sports")
    assert FEW_UNITS == 10
    note = "only 3 documents: with fewer than 10, the intervals and p-values mean little"
    assert text.splitlines()[-1] == note
    assert f'<p class="note">{note}.</p>' in page


def _significance_page(name: str, p_values: list[float]) -> str:
    """The page of a campaign of kind ``name`` of three systems whose three pairs have these
    randomization p-values."""
    kind = KINDS[name]
    names = ["a", "b", "c"]
    board = table_from_rows(
        [
            {
                "rank": rank,
                "system": name,
                "measure": measure,
                "value": 0.9 - 0.1 * rank,
                "low": 0.1,
                "high": 0.9,
                "attributes": "{}",
                "signature": "s",
            }
            for rank, name in enumerate(names, start=1)
            for measure in (*kind.counts, *kind.board)
        ],
        LEADERBOARD,
    )
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    # Holm over three p-values p1 <= p2 <= p3: 3 p1, max(3 p1, 2 p2), max(3 p1, 2 p2, p3) (capped at 1).
    ordered = sorted(p_values)
    holm = [min(1.0, 3 * ordered[0]), min(1.0, max(3 * ordered[0], 2 * ordered[1]))]
    holm.append(min(1.0, max(holm[1], ordered[2])))
    adjusted = {p: holm[ordered.index(p)] for p in p_values}
    significance = table_from_rows(
        [
            {
                "system_a": a,
                "system_b": b,
                "measure": kind.family.headline,
                "delta": 0.1,
                "paired_bootstrap_p": p,
                "randomization_p": p,
                "resamples": 100,
                "seed": 1,
                "t_test_p": None,
                "randomization_p_holm": adjusted[p],
                "t_test_p_holm": None,
            }
            for (a, b), p in zip(pairs, p_values, strict=True)
        ],
        SIGNIFICANCE,
    )
    statistic = kind.family.statistic_names[0]
    statistics = {n: statistics_table(["d1"], [None], [statistic], [0.0]) for n in names}
    categories = campaign_summary(kind, names, statistics, dict.fromkeys(names, ""), {}, 100, 1)["categories"]
    data = report_data(kind, "t", board, significance, categories, 100, 1, units=1)
    return html_report.render_campaign_html(data)


@pytest.mark.parametrize("name", ["templette", "muc", "coref", "mat", "trec"])
def test_marks_use_the_holm_adjusted_p_and_the_page_says_so(name: str) -> None:
    # Raw p 0.02, 0.03, 0.04, all below 0.05; Holm: 3 * 0.02 = 0.06, max(0.06, 2 * 0.03) = 0.06,
    # max(0.06, 0.04) = 0.06: none below 0.05, so no cell is marked.
    page = _significance_page(name, [0.02, 0.03, 0.04])
    assert "Holm-adjusted approximate randomization</b> p-value is below" in page
    assert marked_pairs(page) == set()
    # Raw 0.01, 0.2, 0.3: Holm 0.03 for the first pair (a, b) only: it alone is marked.
    page = _significance_page(name, [0.01, 0.2, 0.3])
    assert marked_pairs(page) == {("a", "b")}


def test_optional_pairings_are_not_disagreements() -> None:
    # A MUC system with F = 100 still has optional (NON) fills: they are no disagreement.
    assert not html_report.is_disagreement("content:NON")
    assert not html_report.is_disagreement("object:COR content:NON")
    assert html_report.is_disagreement("content:INC")
    assert html_report.is_disagreement("")
