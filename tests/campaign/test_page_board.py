"""The leaderboard of a campaign page at any size: data embedded once, a window of rows drawn by the page's
script (headless Chromium), filtering and sorting, the rank ranges and clusters the pipeline computed, the
note on Holm's floor, and names with markup kept as text.

Run with IESCORE_REQUIRE_BROWSER=1 to fail rather than skip without a browser.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import html
import json
import re
from pathlib import Path

import pytest
from iescore.pipeline.campaign import html_report
from iescore.pipeline.campaign.engine import campaign_summary, report_data
from iescore.pipeline.campaign.kinds import KINDS
from iescore.pipeline.core.family import statistics_table
from page_samples import board_data, board_headings, board_rows, sample_report
from test_html_report import chromium, console_lines, find_browser

EVIL = "<b>bold</b> & \"quoted\" 'run'"
SYSTEMS = 300


@pytest.fixture(scope="module")
def big() -> tuple[html_report.CampaignReport, str]:
    """300 systems (the measures page), the 150th named with markup, each with a rank range and a
    cluster (clusters of ten)."""
    report = sample_report(SYSTEMS, pairings=False)
    old = next(row.system for row in report.leaderboard if row.rank == 150)

    def renamed(name: str) -> str:
        return EVIL if name == old else name

    board = [dataclasses.replace(row, system=renamed(row.system)) for row in report.leaderboard]
    report = dataclasses.replace(
        report,
        leaderboard=board,
        slot_f={renamed(name): value for name, value in report.slot_f.items()},
        significance={(renamed(a), renamed(b)): value for (a, b), value in report.significance.items()},
        ranks={row.system: (max(1, row.rank - 3), row.rank + 3, 1 + (row.rank - 1) // 10) for row in board},
    )
    return report, html_report.render_campaign_html(report)


def test_the_embedded_data_holds_each_system_once(big: tuple) -> None:
    report, page = big
    data = board_data(page)
    names = [row.system for row in sorted(report.leaderboard, key=lambda row: row.rank)]
    assert data["systems"] == names and len(set(names)) == SYSTEMS
    # The rows refer to their system by its place: the system's column holds no text, the others one
    # text per system.
    cells = data["rows"]["cells"]
    assert cells.count(None) == 1
    assert all(len(column) == SYSTEMS for column in cells if column is not None)
    assert len(data["rows"]["signatures"]) == SYSTEMS
    # A system beyond the plots' and the heat map's best (100) is named once in the whole page: in the
    # list of systems (the matrix's chooser and the per-document view's are made from it).
    for name in names[html_report.PLOT_SYSTEMS :]:
        quoted = json.dumps(name, ensure_ascii=False)
        quoted = quoted.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        assert page.count(quoted) == 1, name
        assert html.escape(name) + "<" not in page, name  # nor as an element's text
    # The rows are not in the HTML: the table has its headings and an empty body.
    assert re.search(r'<table class="board"[^>]*><thead><tr>.*?</tr></thead>\n<tbody></tbody></table>', page)


def test_the_board_shows_rank_ranges_clusters_and_says_what_marks_pairs(big: tuple) -> None:
    report, page = big
    headings = board_headings(page)
    assert headings[:2] == ["Rank", "System"] and headings[-3:] == ["p(next)", "Rank range", "Cluster"]
    rows = board_rows(page)
    # The fixture's ranges: rank - 3 (at least 1) to rank + 3; clusters of ten.
    assert rows[0][-2:] == ["1\u20134", "1"] and rows[199][-2:] == ["197\u2013203", "20"]
    assert "The significance matrix marks a pair where its" not in page  # no correction: raw p-values
    holm = dataclasses.replace(report, correction="Holm")
    legend = html_report.render_campaign_html(holm)
    assert (
        "The significance matrix marks a pair where its Holm-adjusted approximate randomization p-value is "
        "below &alpha; = 0.05." in legend
    )


# A probe added to a copy of the page (its hash added to the policy): it waits for the board to be drawn,
# reads the rows in the document, scrolls the board to its end, filters and sorts it, and writes what it
# saw as JSON into <pre id="probe">.
PROBE = """
(async () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  const rows = () => [...document.querySelectorAll("table.board tbody tr")]
    .sort((a, b) => a.offsetTop - b.offsetTop)
    .map((tr) => [...tr.cells].map((td) => td.textContent));
  const view = document.querySelector("#leaderboard .rows");
  const filter = document.getElementById("board-filter");
  const cluster = document.getElementById("board-cluster");
  const heads = [...document.querySelectorAll("table.board thead th")];
  const type = async (input, value) => {
    input.value = value;
    input.dispatchEvent(new Event("input"));
    await settle();
  };
  const found = {};
  try {
  await settle();
  found.first = rows();
  found.title = document.querySelector("table.board tbody td:nth-child(2)").title;
  found.topName = document.elementFromPoint(
    view.querySelector("tbody td:nth-child(2)").getBoundingClientRect().left + 5,
    view.getBoundingClientRect().top + view.querySelector("thead").offsetHeight + 5).textContent;
  view.scrollTop = view.scrollHeight;
  view.dispatchEvent(new Event("scroll"));  // headless Chromium draws no frames here: the event by hand
  await settle();
  found.end = rows();
  view.scrollTop = 0;
  view.dispatchEvent(new Event("scroll"));
  await settle();
  await type(filter, "RUN-1");
  found.filtered = rows();
  found.status = document.getElementById("board-status").textContent;
  await type(filter, "");
  await type(cluster, "3");
  found.cluster = rows();
  await type(cluster, "");
  const column = heads.findIndex((th) => th.textContent === "strict F");
  heads[column].click();
  await settle();
  found.ascending = rows();
  heads[column].click();
  await settle();
  found.descending = rows();
  await type(filter, "bold");
  found.evil = rows();
  } catch (error) {
    found.error = String(error);
  }
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(found);
  document.body.appendChild(pre);
})();
"""


def probed(page: str, directory: Path) -> tuple[dict, str]:
    """What the probe saw of ``page`` in headless Chromium (1400 x 1200), and the document it left."""
    browser = find_browser()
    digest = base64.b64encode(hashlib.sha256(PROBE.encode("utf-8")).digest()).decode("ascii")
    page, count = re.subn(
        r"script-src (&#x27;sha256-[^&]*&#x27;)", rf"script-src \1 &#x27;sha256-{digest}&#x27;", page
    )
    assert count == 1
    page = page.replace("</body>", f"<script>{PROBE}</script>\n</body>")
    path = directory / "board.html"
    path.write_text(page, encoding="utf-8")
    result = chromium(browser, path.as_uri(), directory / "profile", "--dump-dom", "--window-size=1400,1200")
    assert console_lines(result.stderr) == [], result.stderr[-2000:]
    found = re.search(r'<pre id="probe">(.*?)</pre>', result.stdout, re.S)
    assert found is not None, result.stdout[-2000:]
    return json.loads(html.unescape(found.group(1))), result.stdout


@pytest.fixture(scope="module")
def seen(big: tuple, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str]:
    return probed(big[1], tmp_path_factory.mktemp("board"))


def _sort_key(text: str) -> tuple[int, float | str]:
    """The script's order of a column's texts: numbers (parseFloat after a leading < or [) first, by
    value, then other texts."""
    number = re.match(r"[-+]?(\d+\.?\d*|\.\d+)", text.lstrip("<["))
    return (0, float(number.group(0))) if number else (1, text)


def test_the_script_draws_only_the_rows_in_view(big: tuple, seen: tuple) -> None:
    found, dom = seen
    rows = board_rows(big[1])
    # The board's box is 70% of the 1200-pixel window (840 px) with rows of 24 px: 35 rows in view, and as
    # many again beyond (at the top of the board, below): 70 rows; the other 230 are not in the document.
    first = found["first"]
    assert 60 <= len(first) <= 80 and first == rows[: len(first)]
    assert found["topName"] == rows[0][1]
    assert found["title"] == board_data(big[1])["rows"]["signatures"][0]
    # At the end of the board: its last rows, in order.
    assert 60 <= len(found["end"]) <= 80 and found["end"] == rows[-len(found["end"]) :]
    assert dom.count('<td class="num p-next">') == 1  # left at the end filtered to one row


def test_the_board_filters_by_name_and_cluster(big: tuple, seen: tuple) -> None:
    found, dom = seen
    rows = board_rows(big[1])
    # Case does not matter: "RUN-1" finds run-1, run-10 ... run-19, run-100 ... run-199 (111 names) but
    # run-150, renamed.
    matching = [row for row in rows if "run-1" in row[1].lower()]
    assert len(matching) == 110
    assert found["filtered"] == matching[: len(found["filtered"])] and len(found["filtered"]) >= 30
    assert found["status"] == f"110 of {SYSTEMS} systems shown."
    # Cluster 3: ranks 21-30 (the fixture's clusters of ten).
    assert [row[0] for row in found["cluster"]] == [str(rank) for rank in range(21, 31)]
    # The name with markup is found by its text, and shown as text.
    assert [row[1] for row in found["evil"]] == [EVIL]
    assert f">{html.escape(EVIL, quote=False)}</td>" in dom  # the cell's text, its markup escaped
    assert "<b>bold</b></td>" not in dom


def test_the_board_sorts_by_a_column_both_ways(big: tuple, seen: tuple) -> None:
    found, _ = seen
    rows = board_rows(big[1])
    column = board_headings(big[1]).index("strict F")
    # Ascending: numbers by value (ties keep the board's order), the undefined "-" after them.
    ascending = sorted(rows, key=lambda row: _sort_key(row[column]))
    assert found["ascending"] == ascending[: len(found["ascending"])]
    assert [row[column] for row in ascending[-1:]] == ["-"]
    # Again: the other way; ties keep the order they had (ascending's), the text first.
    keyed = list(enumerate(ascending))
    descending = [
        row for _, row in sorted(keyed, key=lambda item: (_flip(_sort_key(item[1][column])), item[0]))
    ]
    assert found["descending"] == descending[: len(found["descending"])]
    assert found["descending"][0][column] == "-"


def _flip(key: tuple[int, float | str]) -> tuple[int, float | str]:
    kind, value = key
    return (-kind, -value) if isinstance(value, float) else (-kind, value)


def _mat_statistics(matched: set[int]) -> object:
    """A MAT system over 12 documents of one PER entity each: in each document of ``matched`` it finds
    the entity; in the others it misses it and labels a spurious one."""
    units, categories, keys, values = [], [], [], []
    for document in range(12):
        found = document in matched
        for key, value in (("match", found), ("missing", not found), ("spurious", not found)):
            units.append(f"doc{document:02d}")
            categories.append("PER")
            keys.append(key)
            values.append(float(value))
    return statistics_table(units, categories, keys, values)


def _mat_page(resamples: int) -> str:
    systems = {
        "all": set(range(12)),
        "mid": set(range(8)),
        "mid2": set(range(4, 12)),
        "none <&>": set(),
    }
    names = list(systems)
    statistics = {name: _mat_statistics(found) for name, found in systems.items()}
    kind = KINDS["mat"]
    tables = campaign_summary(kind, names, statistics, dict.fromkeys(names, "sig"), {}, resamples, 3)
    data = report_data(
        kind, "t", tables["leaderboard"], tables["significance"], tables["categories"], resamples, 3, 12,
        ranks=tables["ranks"],
    )  # fmt: skip
    return html_report.render_campaign_html(data)


def test_rank_ranges_and_clusters_are_the_pipelines() -> None:
    # By hand. F = 2 match / (2 match + missing + spurious): all 1, mid and mid2 8/12, none 0; mid and mid2
    # tie (rank 2, by name). Rank ranges over 1,000 bootstrap resamples of the 12 documents: all has F = 1
    # in every resample (rank 1); none has F = 0 (rank 4) unless a resample holds no document that mid or
    # mid2 finds, which cannot happen (mid finds 0-7, mid2 4-11); mid is ahead of mid2 when the resample
    # draws more of documents 0-3 than of 8-11, behind when fewer, tied at 2 when as many: each way about
    # 40% of resamples, so both range over 2-3. Clusters (Holm over 6 pairs, alpha 0.05): all and mid
    # differ in documents 8-11 only; approximate randomization swaps each document's pair, and only
    # swapping all four or none is as far apart as observed: p ~ 2/16, not significant however adjusted;
    # the same for mid2 (0-3). all and none differ in all 12: p ~ 2/4096, times 6 far below 0.05. The
    # leader, all, opens cluster 1; mid and mid2 join it; none differs from the leader: cluster 2.
    rows = board_rows(_mat_page(1000))
    assert [row[1] for row in rows] == ["all", "mid", "mid2", "none <&>"]
    assert [row[0] for row in rows] == ["1", "2", "2", "4"]
    assert [row[-2:] for row in rows] == [["1", "1"], ["2\u20133", "1"], ["2\u20133", "1"], ["4", "2"]]


def test_the_page_says_when_holm_can_mark_no_pair() -> None:
    # 4 systems, 6 pairs: the smallest Holm-adjusted p-value is 6/(R + 1), below 0.05 only from R = 120.
    note = (
        '<p class="note">with 119 resamples no pair can be significant after Holm over 6 pairs (the smallest '
        "adjusted p-value is 6/120): every system is in rank cluster 1; 120 resamples would allow it.</p>"
    )
    page = _mat_page(119)
    # Under the leaderboard's legend, as the text board prints it under its own.
    assert re.search(r'</table></div>\n<p class="legend">.*?</p>\n' + re.escape(note), page, re.S)
    assert [row[-1] for row in board_rows(page)] == ["1"] * 4
    assert '<p class="note">with ' not in _mat_page(120)
