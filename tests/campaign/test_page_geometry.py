"""The campaign page at 2, 30 and 100 systems, measured as headless Chromium draws it.

The pages are ``page_samples``' campaigns: long names that differ only at their end, attributes written
after the name, two identical systems, one system whose precision and F are undefined. A probe script
added to each page (its hash added to the page's policy) writes the boxes of the drawn elements into the
DOM; the tests read them and check the page's rules:

- every system is named whole wherever it is named (interval plot, heat map, significance matrix,
  precision-recall plot), its name inside its cell or its plot, so no two names read alike;
- every label of the precision-recall plot is nearer its own point than any other, or sits in the column
  joined to its point by a line that crosses no label; no label overlaps another or a point; lines run
  from inside the frame out through its right edge, never along it;
- a zoomed axis says so; identical systems are drawn identically; undefined values read as undefined.

Run with IESCORE_REQUIRE_BROWSER=1 to fail rather than skip without a browser.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import re
from pathlib import Path

import pytest
from iescore.pipeline.campaign.html_report import MATRIX_SHOWN, render_campaign_html
from page_samples import board_rows, sample_report
from test_html_report import chromium, console_lines, find_browser, overlaps

# Boxes are [left, top, right, bottom]: client rectangles for HTML, SVG user units (getBBox) in plots,
# which are drawn unscaled (width = viewBox width).
PROBE = """
(() => {
  const corners = (r) => [r.left, r.top, r.right, r.bottom];
  const client = (node) => corners(node.getBoundingClientRect());
  const bbox = (node) => { const b = node.getBBox(); return [b.x, b.y, b.x + b.width, b.y + b.height]; };
  const textBox = (node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const found = {names: {}, pr: null, interval: null};
  for (const [place, selector] of [["heat", "table.heat tbody th.row"],
                                   ["matrixRows", "table.significance tbody th.row"],
                                   ["matrixColumns", "table.significance thead th.col"]]) {
    found.names[place] = [...document.querySelectorAll(selector)].map(
      (cell) => ({text: cell.textContent, cell: client(cell), text_box: textBox(cell)}));
  }
  const interval = document.querySelector('svg[aria-label$="with confidence interval per system"]');
  found.interval = {
    svg: [0, 0, interval.width.baseVal.value, interval.height.baseVal.value],
    names: [...interval.querySelectorAll('text[text-anchor="end"]')].map(
      (node) => ({text: node.textContent, box: bbox(node)})),
    grid: [...interval.querySelectorAll("path.grid")].map(bbox),
    rows: [...interval.querySelectorAll("g")].map((group) => ({
      name: group.querySelector('text[text-anchor="end"]').textContent,
      dot: [...group.querySelectorAll("circle.dot")].map(
        (c) => [c.getAttribute("cx"), c.getAttribute("cy")]),
      // The bar's path without its heights (rows differ in y only).
      ci: [...group.querySelectorAll("path.ci")].map(
        (p) => p.getAttribute("d").replace(/ [0-9.]+(?=[HMv])/g, "")),
      value: group.querySelector("text:last-of-type").textContent,
    })),
    titles: [...interval.querySelectorAll("text.axis-title")].map((node) => node.textContent),
  };
  const plot = document.querySelector('svg[aria-label="Precision against recall"]');
  if (plot) {
    const frame = plot.querySelector("rect.frame");
    const leader = plot.querySelector("path.leader");
    found.pr = {
      svg: [0, 0, plot.width.baseVal.value, plot.height.baseVal.value],
      frame: frame ? bbox(frame) : null,
      dots: [...plot.querySelectorAll("circle.dot")].map((node) => ({
        system: node.dataset.system, rank: Number(node.dataset.rank),
        x: Number(node.getAttribute("cx")), y: Number(node.getAttribute("cy")), box: bbox(node)})),
      labels: [...plot.querySelectorAll("text.label")].map((node) => ({
        system: node.dataset.system === undefined ? null : node.dataset.system,
        ranks: (node.dataset.ranks || "").split(" ").filter(Boolean).map(Number),
        text: [...node.childNodes].filter((n) => n.nodeType === 3).map((n) => n.data).join(""),
        box: bbox(node)})),
      leaders: leader ? leader.getAttribute("d") : "",
      titles: [...plot.querySelectorAll("text.axis-title")].map((node) => node.textContent),
    };
  }
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(found);
  document.body.appendChild(pre);
})();
"""

SIZES = (2, 30, 100)
CASES = [(count, kind) for count in SIZES for kind in ("pairings", "measures", "scattered")]


def measured(browser: str, page: str, directory: Path) -> dict:
    """The probe's findings on ``page`` as Chromium draws it in a 1400-pixel-wide window."""
    digest = base64.b64encode(hashlib.sha256(PROBE.encode("utf-8")).digest()).decode("ascii")
    # The policy is in an attribute (quotes written &#x27;): the probe's hash replaces 'none' or joins
    # the page's own script's.
    probe = f"&#x27;sha256-{digest}&#x27;"
    page, count = re.subn(
        r"script-src &#x27;none&#x27;|script-src (?=&#x27;sha256-)", f"script-src {probe} ", page
    )
    assert count == 1
    page = page.replace("</body>", f"<script>{PROBE}</script>\n</body>")
    path = directory / "page.html"
    path.write_text(page, encoding="utf-8")
    result = chromium(browser, path.as_uri(), directory / "profile", "--dump-dom", "--window-size=1400,1200")
    assert console_lines(result.stderr) == [], result.stderr[-2000:]
    found = re.search(r'<pre id="probe">(.*?)</pre>', result.stdout, re.S)
    assert found is not None, result.stdout[-2000:]
    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module", params=CASES, ids=[f"{count}-{kind}" for count, kind in CASES])
def case(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple:
    count, kind = request.param
    report = sample_report(count, pairings=kind != "measures", scattered=kind == "scattered")
    page = render_campaign_html(report)
    return report, page, measured(find_browser(), page, tmp_path_factory.mktemp(f"page{count}{kind}"))


def inside(inner: list[float], outer: list[float], slack: float = 0.5) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


def test_every_name_is_shown_whole_inside_its_place(case: tuple) -> None:
    report, _, found = case
    names = [row.system for row in sorted(report.leaderboard, key=lambda row: row.rank)]
    assert len({name[:30] for name in names}) < len(names)  # names alike but for their end
    for place, cells in found["names"].items():
        # The matrix shows the best systems at first (the reader chooses others).
        shown = names[:MATRIX_SHOWN] if place.startswith("matrix") else names
        assert [cell["text"] for cell in cells] == shown, place
        for cell in cells:
            assert inside(cell["text_box"], cell["cell"]), (place, cell)
    interval = found["interval"]
    assert [name["text"] for name in interval["names"]] == names
    plot_left = min(box[0] for box in interval["grid"])
    for name in interval["names"]:
        assert inside(name["box"], interval["svg"]) and name["box"][2] < plot_left, name
    pr = found["pr"]
    if pr is not None:
        for label in pr["labels"]:
            assert inside(label["box"], pr["svg"]), label
            if label["system"] is not None:  # named in the column: rank and whole name
                (rank,) = label["ranks"]
                assert label["text"] == f"{rank}. {names[rank - 1]}"
                assert label["system"] == names[rank - 1]


def leader_segments(path: str) -> list[tuple[float, float, float, float]]:
    numbers = [float(v) for v in re.findall(r"-?[0-9.]+", path)]
    assert len(numbers) % 4 == 0 and path.count("M") == len(numbers) // 4
    return [tuple(numbers[i : i + 4]) for i in range(0, len(numbers), 4)]


def distance_to_segment(point: tuple[float, float], segment: tuple[float, float, float, float]) -> float:
    x1, y1, x2, y2 = segment
    dx, dy = x2 - x1, y2 - y1
    t = min(1.0, max(0.0, ((point[0] - x1) * dx + (point[1] - y1) * dy) / (dx * dx + dy * dy)))
    return math.dist(point, (x1 + t * dx, y1 + t * dy))


def crosses(segment: tuple[float, float, float, float], box: list[float]) -> bool:
    """The segment passes through the box's inside (sampled every half pixel)."""
    x1, y1, x2, y2 = segment
    steps = max(2, int(2 * math.dist((x1, y1), (x2, y2))))
    return any(
        box[0] < x1 + (x2 - x1) * k / steps < box[2] and box[1] < y1 + (y2 - y1) * k / steps < box[3]
        for k in range(steps + 1)
    )


def test_precision_recall_labels_are_near_their_point_or_joined_to_it(case: tuple) -> None:
    report, _, found = case
    pr = found["pr"]
    if pr is None:
        pytest.skip("a page without the precision-recall plot")
    dots = {dot["rank"]: dot for dot in pr["dots"]}
    plotted = [row.rank for row in report.leaderboard if row.measures["F"] is not None]
    assert sorted(dots) == sorted(plotted)
    assert sorted(rank for label in pr["labels"] for rank in label["ranks"]) == sorted(plotted)
    places = {(dot["x"], dot["y"]) for dot in dots.values()}
    segments = leader_segments(pr["leaders"])
    column = [label for label in pr["labels"] if label["system"] is not None]
    assert len(segments) == len(column)
    for label in pr["labels"]:
        own = dots[label["ranks"][0]]
        assert all((dots[rank]["x"], dots[rank]["y"]) == (own["x"], own["y"]) for rank in label["ranks"])
        box = label["box"]
        if label["system"] is None:  # beside its point: nearer it than any other point
            centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            distance = math.dist(centre, (own["x"], own["y"]))
            others = [math.dist(centre, place) for place in places if place != (own["x"], own["y"])]
            assert all(distance < other for other in others), (label, distance, min(others, default=None))
        for dot in pr["dots"]:
            assert not overlaps(box, dot["box"]), (label, dot)
    for index, first in enumerate(pr["labels"]):
        for second in pr["labels"][index + 1 :]:
            assert not overlaps(first["box"], second["box"]), (first, second)
    # Each column label has its line, from its point to just before the label; no line crosses a label.
    for label in column:
        dot = dots[label["ranks"][0]]
        middle = (label["box"][1] + label["box"][3]) / 2
        assert any(
            (x1, y1) == (dot["x"] + 4, dot["y"])
            and label["box"][0] - 8 <= x2 < label["box"][0]
            and abs(y2 - middle) < 4
            for x1, y1, x2, y2 in segments
        ), label
    for segment in segments:
        for label in pr["labels"]:
            assert not crosses(segment, label["box"]), (segment, label)
        # Nor runs through another point (it would read as that point's line): up to 30 systems. At 100
        # scattered ones, a point left without a place beside it is in a cluster, and a straight line out
        # of it may graze a neighbour (the page moves its label up to 8 rows to avoid that, no further).
        start = (segment[0] - 4, segment[1])
        if len(report.leaderboard) <= 30:
            for place in places - {start}:
                assert distance_to_segment(place, segment) > 5, (segment, place)
    # Never along the frame: each line starts well inside it and leaves through its right edge.
    assert pr["frame"] is not None, "the plot draws its frame"
    left, top, right, bottom = pr["frame"]
    for x1, y1, x2, _ in segments:
        assert left + 5 <= x1 <= right - 5 and top + 5 <= y1 <= bottom - 5, (x1, y1)
        assert x2 > right + 5
    # No point sits on the frame.
    for dot in pr["dots"]:
        assert left + 5 <= dot["x"] <= right - 5 and top + 5 <= dot["y"] <= bottom - 5, dot


def test_zoomed_axes_say_so(case: tuple) -> None:
    _, page, found = case
    titles = found["interval"]["titles"] + (found["pr"]["titles"] if found["pr"] else [])
    # Every sample's values lie in a band far from 0: every axis is zoomed, and its title says to what.
    assert titles and all(re.search(r", zoomed to [0-9.]+\u2013[0-9.]+$", title) for title in titles), titles
    assert page.count("(zoomed: not the whole") == (2 if found["pr"] else 1)


def test_identical_systems_look_identical(case: tuple) -> None:
    report, page, found = case
    board = sorted(report.leaderboard, key=lambda row: row.rank)
    if len(board) < 3:
        pytest.skip("two systems: none identical")
    alike: dict[tuple, list[str]] = {}
    for row in board:
        alike.setdefault((tuple(row.counts.items()), tuple(row.measures.items())), []).append(row.system)
    first, second = next(names for names in alike.values() if len(names) == 2)
    rows = {row["name"]: row for row in found["interval"]["rows"]}
    assert rows[first]["dot"][0][0] == rows[second]["dot"][0][0]
    assert rows[first]["ci"] == rows[second]["ci"] and rows[first]["value"] == rows[second]["value"]
    if found["pr"]:
        dots = {dot["system"]: dot for dot in found["pr"]["dots"]}
        assert (dots[first]["x"], dots[first]["y"]) == (dots[second]["x"], dots[second]["y"])
        assert dots[first]["box"] == dots[second]["box"]
    heat = re.search(r'<table class="heat">(.*?)</table>', page, re.S).group(1)
    cells = {
        html.unescape(name): re.sub(r' title="[^"]*"', "", cells)
        for name, cells in re.findall(r'<tr><th class="row">([^<]*)</th>(.*?)</tr>', heat)
    }
    # Same F in every slot: same colours and numbers (the sample gives slots by rank, so compare shapes).
    assert cells[first].count("<td") == cells[second].count("<td")


def test_undefined_values_read_undefined(case: tuple) -> None:
    report, page, found = case
    last = max(report.leaderboard, key=lambda row: row.rank)
    assert last.measures["F"] is None
    rows = {row["name"]: row for row in found["interval"]["rows"]}
    assert rows[last.system]["dot"] == [] and rows[last.system]["value"] == "undefined"
    cells = next(row for row in board_rows(page) if row[1] == last.system)
    assert cells[-3:] == ["-", "-", ""]  # F, its interval, p(next) (the last system has no next)
    legend = re.search(r'</table></div>\n<p class="legend">(.*?)</p>', page, re.S).group(1)
    assert "&#8220;-&#8221;: undefined (a ratio whose denominator is 0), not 0." in legend
    assert "is undefined ranks after all whose" in legend
    heat = re.search(r'<table class="heat">(.*?)</table>', page, re.S).group(1)
    undefined = re.search(
        rf'<th class="row">{re.escape(html.escape(last.system))}</th>(.*?)</tr>', heat
    ).group(1)
    assert re.findall(r"<td[^>]*>([^<]*)</td>", undefined) == ["-"] * len(re.findall(r"<td", undefined))
    assert "undefined" in undefined
