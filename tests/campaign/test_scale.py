"""Campaigns of many systems: rank ranges and rank clusters (hand-worked), the pairwise artifact's rows,
and the page of a 300-system campaign (its size, its structure, its escaping)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from iescore.pipeline.campaign import html_report, stats
from iescore.pipeline.campaign.engine import campaign_summary, leaderboard_text, report_data
from iescore.pipeline.campaign.kinds import KINDS
from iescore.pipeline.core.family import statistics_table
from iescore.schemas import RANKS, SIGNIFICANCE, C
from page_samples import board_data, board_rows
from test_html_report import find_browser, rendered


def test_rank_ranges_hand_worked() -> None:
    nan = float("nan")
    resampled = np.array(
        [
            [0.9, 0.8, 0.7],  # ranks 1 2 3
            [0.8, 0.9, 0.7],  # ranks 2 1 3
            [0.9, 0.9, nan],  # ranks 1 1 3 (a tie shares the best rank; undefined ranks last)
            [0.7, 0.8, 0.9],  # ranks 3 2 1
        ]
    )
    # 95%: quantiles 0.025 and 0.975 of 4 replicates, inverted CDF: the smallest and the largest rank.
    # System 0: ranks 1 2 1 3 -> 1-3; system 1: 2 1 1 2 -> 1-2; system 2: 3 3 3 1 -> 1-3.
    low, high = stats.rank_ranges(resampled)
    assert low.tolist() == [1, 1, 1] and high.tolist() == [3, 2, 3]
    # 50%: quantiles 0.25 and 0.75. System 0, sorted 1 1 2 3: F(1) = 0.5 >= 0.25 -> 1; F(2) = 0.75 -> 2.
    # System 1, 1 1 2 2: 1 and 2. System 2, 1 3 3 3: F(1) = 0.25 -> 1; F(3) = 1 >= 0.75 -> 3.
    low, high = stats.rank_ranges(resampled, confidence=0.5)
    assert low.tolist() == [1, 1, 1] and high.tolist() == [2, 2, 3]


def test_rank_clusters_hand_worked() -> None:
    # Five systems best first; significant pairs: (0, 2), (0, 3), (0, 4), (1, 4), (2, 4).
    # 0 opens cluster 1; 1 is not significantly different from 0: cluster 1; 2 differs from 0 (the
    # leader): it opens cluster 2; 3 does not differ from 2: cluster 2; 4 differs from 2: cluster 3.
    significant_pairs = {(0, 2), (0, 3), (0, 4), (1, 4), (2, 4)}
    pairs = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    significant = np.array([pair in significant_pairs for pair in pairs])
    assert stats.rank_clusters(5, significant).tolist() == [1, 1, 2, 2, 3]
    # Not a chain: 1 ~ 2 and 3 ~ 4 would join everything if any member counted; the leader does.
    chained = np.array([pair in {(0, 2), (0, 3), (0, 4), (2, 4)} for pair in pairs])
    assert stats.rank_clusters(5, chained).tolist() == [1, 1, 2, 2, 3]
    assert stats.rank_clusters(5, np.zeros(10, dtype=bool)).tolist() == [1] * 5
    assert stats.rank_clusters(1, np.zeros(0, dtype=bool)).tolist() == [1]
    with pytest.raises(ValueError, match="9 pairs for 5 systems, 10 expected"):
        stats.rank_clusters(5, np.zeros(9, dtype=bool))


def test_pair_index_follows_the_pair_order() -> None:
    n = 7
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    assert [stats.pair_index(n, a, b) for a, b in pairs] == list(range(len(pairs)))


SYSTEMS = 300
UNITS = 12
RESAMPLES = 20
EVIL = "<script>alert('x')</script> & co"


@pytest.fixture(scope="module")
def summary() -> dict[str, pa.Table]:
    """A MAT campaign of 300 systems over 12 documents and two tags: system s finds a share of each
    document's 20 entities that falls with s (with noise), so neighbours are close and far ones differ."""
    kind = KINDS["mat"]
    rng = np.random.default_rng(7)
    names = [f"team-{s:03d}" for s in range(SYSTEMS - 1)] + [EVIL]
    statistics = {}
    for s, name in enumerate(names):
        units, categories, statistic, values = [], [], [], []
        for u in range(UNITS):
            for tag in ("PER", "ORG"):
                found = int(np.clip(round(18 - 14 * s / SYSTEMS + rng.normal(0, 1)), 0, 20))
                for key, value in (("match", found), ("missing", 20 - found), ("spurious", 20 - found)):
                    units.append(f"doc{u:02d}")
                    categories.append(tag)
                    statistic.append(key)
                    values.append(float(value))
        statistics[name] = statistics_table(units, categories, statistic, values)
    return campaign_summary(kind, names, statistics, dict.fromkeys(names, "sig"), {}, RESAMPLES, 3)


def test_the_pairwise_artifact_holds_every_pair_with_holm_monotone(summary: dict[str, pa.Table]) -> None:
    significance = summary["significance"]
    assert significance.schema.remove_metadata().equals(SIGNIFICANCE.remove_metadata())
    assert significance.num_rows == SYSTEMS * (SYSTEMS - 1) // 2  # 44,850
    order = summary["leaderboard"].column(C.system).unique().to_pylist()
    first = significance.column(C.system_a).to_pylist()
    assert first[: SYSTEMS - 1] == [order[0]] * (SYSTEMS - 1) and first[-1] == order[-2]
    raw = significance.column(C.randomization_p).to_numpy()
    adjusted = significance.column(C.randomization_p_holm).to_numpy()
    by_raw = np.argsort(raw, kind="stable")
    assert np.all(np.diff(adjusted[by_raw]) >= 0)  # Holm keeps the order of the raw p-values
    assert np.all(adjusted >= raw) and np.all(adjusted <= 1)


def test_ranks_table(summary: dict[str, pa.Table]) -> None:
    ranks = summary["ranks"]
    assert ranks.schema.remove_metadata().equals(RANKS.remove_metadata())
    rows = ranks.to_pylist()
    assert [row[C.system] for row in rows] == summary["leaderboard"].column(C.system).unique().to_pylist()
    for row in rows:
        assert row[C.rank_low] <= row[C.rank_high]
        assert row[C.rank_low] >= 1 and row[C.rank_high] <= SYSTEMS
    clusters = [row[C.cluster] for row in rows]
    assert clusters[0] == 1 and all(0 <= b - a <= 1 for a, b in zip(clusters, clusters[1:], strict=False))
    # With R = 20 shuffles no p-value is below 1/21, and Holm multiplies the smallest by the 44,850
    # pairs: nothing is significant, so every system is in cluster 1 (docs/campaigns.md says so).
    assert clusters == [1] * SYSTEMS
    # Every cluster's leader differs significantly from the leader before it (the rule, checked on the
    # artifact): pairs are in board order.
    holm = summary["significance"].column(C.randomization_p_holm).to_numpy()
    leaders = [i for i, c in enumerate(clusters) if i == 0 or c != clusters[i - 1]]
    for before, leader in zip(leaders, leaders[1:], strict=False):
        assert holm[stats.pair_index(SYSTEMS, before, leader)] < stats.ALPHA
        members = range(before + 1, leader)
        assert all(holm[stats.pair_index(SYSTEMS, before, m)] >= stats.ALPHA for m in members)


@pytest.fixture(scope="module")
def page(summary: dict[str, pa.Table]) -> str:
    kind = KINDS["mat"]
    data = report_data(
        kind,
        "t",
        summary["leaderboard"],
        summary["significance"],
        summary["categories"],
        RESAMPLES,
        3,
        UNITS,
        ranks=summary["ranks"],
    )
    return html_report.render_campaign_html(data)


def test_the_page_of_300_systems(page: str) -> None:
    assert len(page.encode("utf-8")) < 1_500_000
    # The board's rows are drawn by the script from the data (test_page_board.py): every system there.
    assert re.search(r'<table class="board"[^>]*><thead><tr>.*?</tr></thead>\n<tbody></tbody>', page)
    assert len(board_rows(page)) == SYSTEMS
    heat = re.search(r'<table class="heat">(.*?)</table>', page, re.S).group(1)
    assert heat.count("<tr>") == html_report.HEAT_SYSTEMS + 1
    # The matrix is drawn by the script: no cell is written into the page; its data is there once.
    assert '<table class="significance" id="matrix"></table>' in page
    embedded = board_data(page)
    assert len(embedded["systems"]) == SYSTEMS and embedded["shown"] == html_report.MATRIX_SHOWN
    bits = len(base64.b64decode(embedded["marks"]))
    assert bits == (SYSTEMS * (SYSTEMS - 1) // 2 + 7) // 8
    detailed = html_report.MATRIX_DETAILED
    assert len(embedded["p"]) == detailed * (detailed - 1) // 2 * len(embedded["labels"])
    assert embedded["labels"] == ["bs", "ar", "ar Holm"]
    # The chooser is filled by the script from the list of systems.
    assert '<select id="matrix-systems" multiple size="6"></select>' in page
    # Text from the input is escaped inside the JSON (the last system is in no plot: only there).
    assert "<script>alert" not in page
    assert (
        json.dumps(EVIL)[1:-1].replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") in page
    )


def test_the_page_of_300_systems_in_chromium(page: str, tmp_path: Path) -> None:
    # Opened without a console error; the matrix drawn for the 20 best (20 x 19 cells, 20 diagonal).
    dom = rendered(find_browser(), page, tmp_path)
    matrix = re.search(r'<table class="significance" id="matrix">(.*?)</table>', dom, re.S).group(1)
    assert matrix.count('<td class="cell') == 20 * 19 and matrix.count('class="diagonal"') == 20
    # The chooser lists every system, the best 20 chosen.
    chooser = re.search(r'<select id="matrix-systems"[^>]*>(.*?)</select>', dom, re.S).group(1)
    assert chooser.count("<option ") == SYSTEMS and chooser.count(" selected") == html_report.MATRIX_SHOWN
    assert chooser.endswith("300. &lt;script&gt;alert('x')&lt;/script&gt; &amp; co</option>")  # as text
    assert "<script>alert" not in dom


def test_holm_needs_resamples_in_proportion_to_the_pairs() -> None:
    # Hand: 3 systems make m = 3 pairs. With R resamples the smallest randomization p-value is 1/(R + 1),
    # and Holm multiplies the smallest by m = 3: 3/(R + 1) < 0.05 needs R + 1 > 60, so R >= 60.
    assert stats.resamples_for_holm(3) == 60
    assert stats.holm([1 / 61, 0.5, 0.5])[0] == pytest.approx(3 / 61) and 3 / 61 < 0.05  # R = 60: marked
    assert stats.holm([1 / 60, 0.5, 0.5])[0] == pytest.approx(0.05)  # R = 59: 3/60 = 0.05, not below
    # 1,000 systems: m = 1000 * 999 / 2 = 499,500 pairs; 499,500 / 0.05 = 9,990,000 resamples.
    assert stats.resamples_for_holm(499_500) == 9_990_000
    assert stats.resamples_for_holm(0) == 0


@pytest.mark.parametrize("resamples, said", [(59, True), (60, False)])
def test_the_board_says_when_holm_cannot_mark_any_pair(resamples: int, said: bool) -> None:
    # Three MAT systems, two documents of 10 entities: found 10, 5 and 0 of each (every pair differs).
    names = ["all", "half", "none"]
    statistics = {
        name: statistics_table(
            [f"d{u}" for u in range(2) for _ in range(3)],
            ["PER"] * 6,
            ["match", "missing", "spurious"] * 2,
            [float(v) for _ in range(2) for v in (found, 10 - found, 0)],
        )
        for name, found in zip(names, (10, 5, 0), strict=True)
    }
    tables = campaign_summary(KINDS["mat"], names, statistics, dict.fromkeys(names, "sig"), {}, resamples, 3)
    text = leaderboard_text(KINDS["mat"], tables["leaderboard"], tables["significance"])
    note = f"with {resamples} resamples no pair can be significant after Holm over 3 pairs (the smallest "
    assert (note in text) is said
    if said:
        assert "p-value is 3/60): every system is in rank cluster 1; 60 resamples would allow it" in text
