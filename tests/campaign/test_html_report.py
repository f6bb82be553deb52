"""The campaign page: escaping, self-containment, static sections, and the page as headless Chromium draws it.

The fixture is a small campaign (four systems, two documents) whose names, texts and fills carry markup,
ampersands and quotes on purpose: one system is called ``<script>alert(1)</script>`` and one document's
text closes a script element and opens another.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import html
import io
import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from iescore.pipeline.campaign.html_report import (
    CampaignReport,
    DocumentView,
    Pairing,
    SystemRow,
    _zoomed_axes,
    is_disagreement,
    render_campaign_html,
)
from iescore.tasks.cli.main import main
from page_samples import board_data, board_headings, board_rows, marked_pairs
from significance_file import json_pairs

EVIL_SYSTEM = "<script>alert(1)</script>"
QUOTED_SYSTEM = 'sri "fastus" & co'
EVIL_TEXT = "<DOC><TEXT>a <b>bold</b> & </script><script>alert(2)</script></TEXT></DOC>"
SPORTS_TEXT = (
    "<DOC>\n<DOCNO> HUB4-SPORTS-0002 </DOCNO>\n<TEXT>\n"
    "In Cairo, Egypt beat Cameroon two to one to win the African Cup of Nations on Sunday.\n"
    "General Motors Corp. will sponsor the tournament again next year, its spokesman said.\n"
    "</TEXT>\n</DOC>\n"
)
SYSTEMS = ["bbn-1", QUOTED_SYSTEM, EVIL_SYSTEM, "nyu-proteus"]
BY_RANK = ["bbn-1", QUOTED_SYSTEM, "nyu-proteus", EVIL_SYSTEM]


def fill(text: str, phrase: str) -> tuple[str, tuple[int, int]]:
    """A text fill as the summary writes it, and its half-open span, for the first ``phrase`` in ``text``."""
    start = text.index(phrase)
    return f'"{phrase}" ##{start}#{start + len(phrase)}#', (start, start + len(phrase))


def pairing(
    text: str, instance_type: str, slot: str | None, ref: str | None, hyp: str | None, categories: str
) -> Pairing:
    ref_fill, ref_span = fill(text, ref) if ref is not None else (None, None)
    hyp_fill, hyp_span = fill(text, hyp) if hyp is not None else (None, None)
    return Pairing(instance_type, slot, ref_fill, hyp_fill, ref_span, hyp_span, categories)


def sports_pairings(system: str) -> list[Pairing]:
    t = SPORTS_TEXT
    correct = "content:COR extent:COR"
    common = [
        pairing(t, "GAME", "WINNER", "Egypt", "Egypt", correct),
        pairing(t, "GAME", "SCORE", "two to one", "two to one", correct),
    ]
    by_system = {
        "bbn-1": [
            pairing(t, "GAME", "LOSER", "Cameroon", "Cameroon", correct),
            pairing(t, "GAME", "EVENT", "the African Cup of Nations", "African Cup of Nations", correct),
            pairing(
                t, "ORGANIZATION", "NAME", "General Motors", "General Motors Corp.", "content:COR extent:INC"
            ),
        ],
        QUOTED_SYSTEM: [
            pairing(t, "GAME", "LOSER", "Cameroon", "Cairo", "content:INC extent:INC"),
            pairing(t, "GAME", "EVENT", "the African Cup of Nations", None, "content:MIS extent:MIS"),
            pairing(t, "GAME", "DATE", None, "Sunday", "content:SPU extent:SPU"),
            pairing(t, "ORGANIZATION", "NAME", "General Motors", "General Motors", correct),
        ],
        EVIL_SYSTEM: [
            pairing(t, "GAME", "LOSER", "Cameroon", None, "content:MIS extent:MIS"),
            pairing(t, "ORGANIZATION", None, "General Motors", "General Motors", "COR"),
        ],
        "nyu-proteus": [
            pairing(t, "GAME", "LOSER", "Cameroon", "Cameroon", correct),
            pairing(t, "ORGANIZATION", "NAME", "General Motors", "Motors Corp.", "content:INC extent:INC"),
        ],
    }
    return common + by_system[system]


def evil_pairings(system: str) -> list[Pairing]:
    t = EVIL_TEXT
    ref = "a <b>bold</b> &"
    if system == EVIL_SYSTEM:
        return [
            pairing(
                t, "NOTE", "<i>", ref, "<b>bold</b> & </script><script>alert(2)", "content:INC extent:INC"
            ),
            pairing(t, "NOTE", "QUOTE", None, "</script>", "content:SPU extent:SPU"),
        ]
    return [pairing(t, "NOTE", "<i>", ref, ref, "content:COR extent:COR")]


def row(rank: int, system: str, cor: int, inc: int, mis: int, spu: int, f: float | None) -> SystemRow:
    pos, act = cor + inc + mis, cor + inc + spu
    recall = cor / pos if pos else None
    precision = cor / act if act else None
    return SystemRow(
        rank=rank,
        system=system,
        counts={"COR": cor, "INC": inc, "PAR": 0, "MIS": mis, "SPU": spu, "NON": 0, "POS": pos, "ACT": act},
        measures={
            "REC": recall,
            "PRE": precision,
            "F": f,
            "UND": None,
            "OVG": None,
            "SUB": None,
            "ERR": None,
        },
        intervals={
            "REC": (None, None),
            "PRE": (None, None),
            "F": (None, None) if f is None else (f - 0.1, f + 0.05),
        },
        signature=f"scorer:templette|compare:both|case:insensitive|bs:1000|seed:12345|sys:{system}|version:0.1.0",
    )


def campaign_report() -> CampaignReport:
    leaderboard = [
        row(1, "bbn-1", 12, 1, 0, 0, 0.9231),
        row(2, QUOTED_SYSTEM, 8, 2, 2, 1, 0.6957),
        row(3, "nyu-proteus", 7, 2, 3, 0, 0.6364),
        row(4, EVIL_SYSTEM, 3, 1, 8, 1, None),
    ]
    slots = ["GAME.WINNER", "GAME.LOSER", "GAME.SCORE", "GAME.EVENT", "ORGANIZATION.NAME", "NOTE.<i>"]
    slot_f = {
        system: {
            slot: (None if (system == EVIL_SYSTEM and slot == "GAME.EVENT") else (i * 7 + j) % 11 / 10)
            for j, slot in enumerate(slots)
        }
        for i, system in enumerate(SYSTEMS)
    }
    significance = {
        ("bbn-1", QUOTED_SYSTEM): (0.2274, 0.004, 0.012),
        ("bbn-1", "nyu-proteus"): (0.2867, 0.002, 0.03),
        # Bootstrap below alpha, randomization above: the cell must not be marked.
        (QUOTED_SYSTEM, "nyu-proteus"): (0.0593, 0.04, 0.21),
        # Given one way only: the page reads the other way with the difference negated.
        (EVIL_SYSTEM, "bbn-1"): (-0.61, 0.0004, 0.0009),
    }
    documents = [
        DocumentView("EVIL-<b>&amp;1", EVIL_TEXT, {system: evil_pairings(system) for system in SYSTEMS}),
        DocumentView(
            "HUB4-SPORTS-0002", SPORTS_TEXT, {system: sports_pairings(system) for system in SYSTEMS}
        ),
    ]
    return CampaignReport(
        title="HUB-4 sports <dry run> & friends",
        signature_note='scorer:templette|compare:both|bs:1000|seed:12345|version:0.1.0\n<note> & "quotes"',
        leaderboard=leaderboard,
        slot_f=slot_f,
        significance=significance,
        documents=documents,
        documents_total=5,
        resamples=1000,
        seed=12345,
    )


@pytest.fixture(scope="module")
def report() -> CampaignReport:
    return campaign_report()


@pytest.fixture(scope="module")
def page(report: CampaignReport) -> str:
    return render_campaign_html(report)


def embedded(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
    assert match is not None
    return json.loads(match.group(1))


# ------------------------------------------------------------------------------------------- escaping


def test_markup_in_names_texts_and_fills_never_becomes_markup(page: str, report: CampaignReport) -> None:
    assert "<script>alert" not in page.lower()
    assert "<b>bold" not in page and "<i>" not in page
    # Server-side: the system name, slot name, title and note are escaped everywhere, attributes included.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "sri &quot;fastus&quot; &amp; co" in page
    assert "NOTE.&lt;i&gt;" in page
    assert "<title>HUB-4 sports &lt;dry run&gt; &amp; friends</title>" in page
    assert "&lt;note&gt; &amp; &quot;quotes&quot;" in page
    assert "EVIL-&lt;b&gt;&amp;amp;1" in page
    # Client-side data: only inside the JSON, with < > & as \u escapes.
    assert "\\u003cscript\\u003ealert(2)\\u003c/script\\u003e" in page
    assert "\\u0026" in page
    # The only script elements are the page's own two: the data and the program.
    opening = re.findall(r"<script\b[^>]*>", page, re.I)
    assert opening == [
        '<script type="application/json" id="board-data">',
        '<script type="application/json" id="data">',
        "<script>",
    ]
    assert len(re.findall(r"</script", page, re.I)) == 3
    # The escaping changes nothing in the data: JSON.parse (here json.loads) reads the texts back as given.
    data = embedded(page)
    assert [document["text"] for document in data["documents"]] == [EVIL_TEXT, SPORTS_TEXT]
    assert board_data(page)["systems"] == BY_RANK
    assert '"a <b>bold</b> &" ##11#26#' in data["strings"]


def test_no_external_resources(page: str) -> None:
    assert not re.search(r"https?://", page, re.I)
    assert not re.search(r"(?<![\w-])//[\w.-]+\.[a-z]{2,}", page, re.I)  # protocol-relative URLs
    assert not re.search(r"@import", page, re.I)
    assert not re.search(r"url\(", page, re.I)
    assert not re.search(r"<(link|img|iframe|object|embed|audio|video|source|base)\b", page, re.I)
    sources = re.findall(r"""\b(?:src|href|xlink:href|action)\s*=\s*["']?([^"'\s>]*)""", page, re.I)
    assert sources and all(source.startswith("#") for source in sources), sources
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert policy is not None and "default-src &#x27;none&#x27;" in policy.group(1)


# --------------------------------------------------------------------------------------- static parts


def test_leaderboard_prints_percentages_with_one_decimal(page: str) -> None:
    # bbn-1: 12 COR of POS 13 -> REC 92.3, of ACT 13 -> PRE 92.3, F 0.9231 -> 92.3, and the fixture's
    # interval (F - 10, F + 5) -> [82.3, 97.3]; p(next) is the randomization p against the next system
    # down, sri "fastus" & co: 0.012. The page's script draws the rows from its data (test_page_board.py).
    rows = board_rows(page)
    assert rows[0] == ["1", "bbn-1", "12", "1", "0", "0", "92.3", "92.3", "92.3", "[82.3, 97.3]", "0.012"]
    assert board_data(page)["rows"]["signatures"][0] == (
        "scorer:templette|compare:both|case:insensitive|bs:1000|seed:12345|sys:bbn-1|version:0.1.0"
    )
    # The last system's F is undefined: '-' for F and its interval; it has no next system: blank p(next).
    assert rows[3][0] == "4" and rows[3][-3:] == ["-", "-", ""]


def test_leaderboard_p_next_reads_the_pair_with_the_next_system(page: str) -> None:
    cells = [row[-1] for row in board_rows(page)]
    # bbn-1 vs sri: 0.012; sri vs nyu-proteus: 0.21; nyu-proteus vs the evil system: not tested; last: none.
    assert cells == ["0.012", "0.210", "-", ""]
    assert board_headings(page)[-1] == "p(next)"


def test_zero_differences_print_as_unsigned_zero(
    browser: str, report: CampaignReport, tmp_path: Path
) -> None:
    # The matrix's differences are the leaderboard's F values subtracted: F 0.5, 0.5 and 0.500004 differ by
    # 0.0 and 0.0004 points, which print 0.0 whatever their sign; not -0.0, +0.0 or blank.
    values = {"bbn-1": 0.5, QUOTED_SYSTEM: 0.5, "nyu-proteus": 0.500004, EVIL_SYSTEM: None}
    leaderboard = [
        dataclasses.replace(row, measures={**row.measures, "F": values[row.system]})
        for row in report.leaderboard
    ]
    dom = rendered(
        browser, render_campaign_html(dataclasses.replace(report, leaderboard=leaderboard)), tmp_path
    )
    # (a marked cell's difference ends in " *")
    deltas = [d.removesuffix(" *") for d in re.findall(r'<span class="delta">([^<]*)</span>', matrix_of(dom))]
    assert deltas.count("0.0") == 6  # three pairs, each shown both ways
    assert deltas.count("-") == 6  # EVIL's F is undefined: no difference with any of the three
    assert "-0.0" not in deltas and "+0.0" not in deltas


def matrix_of(dom: str) -> str:
    return re.search(r'<table class="significance" id="matrix">(.*?)</table>', dom, re.S).group(1)


def test_beta_other_than_one_names_f(report: CampaignReport) -> None:
    beta1 = render_campaign_html(report)
    assert '<th class="num">F %</th>' in beta1 and "F2" not in beta1
    page = render_campaign_html(dataclasses.replace(report, beta=2.0))
    assert '<th class="num">F2 %</th><th class="num">F2 confidence interval</th>' in page
    assert "<h2>3. F2 by system and slot</h2>" in page
    assert "Significance of differences in F2</h2>" in page
    assert "F2 (%), zoomed to " in page  # the interval plot's axis, which says it zooms
    assert ">F2=" in page  # the curves of equal F are labelled F2=...
    assert '<th class="num">F %</th>' not in page
    half = render_campaign_html(dataclasses.replace(report, beta=0.5))
    assert '<th class="num">F0.5 %</th>' in half


def test_curves_of_equal_f_follow_beta(report: CampaignReport) -> None:
    # At beta 2, F2 = 5 P R / (4 P + R): on the curve F2 = 0.6 at R = 0.6, P = 0.6 R / (5 R - 2.4) = 0.6.
    # Every point of every F2 curve must give back its level.
    page = render_campaign_html(dataclasses.replace(report, beta=2.0))
    scatter = re.search(r'aria-label="Precision against recall">(.*?)</svg>', page, re.S).group(1)
    # The axes run 20-100 on both sides (see test_plots_have_one_mark_per_system), drawn over the 420
    # pixels inside the frame's 10-pixel inset: pixel -> fraction.
    curves = re.findall(r'<polyline class="iso" points="([^"]*)"/>', scatter)
    levels = [float(level) / 100 for level in re.findall(r">F2=([0-9.]+)</text>", scatter)]
    assert curves and len(levels) == len(curves)
    for points, level in zip(curves, levels, strict=True):
        for point in points.split():
            px, py = (float(v) for v in point.split(","))
            recall, precision = 0.2 + 0.8 * (px - 66) / 420, 0.2 + 0.8 * (454 - py) / 420
            assert 5 * precision * recall / (4 * precision + recall) == pytest.approx(level, abs=0.005)


def test_axes_zoom_to_the_values_with_padding() -> None:
    # Values 75-100: padding max(1 point, 25/20 = 1.25 points) -> 73.75-100 (capped at 100). Steps of 1
    # and 2 points need 27 and 14 intervals (more than 10); 5 points: 70 to 100, 6 intervals.
    (axis,) = _zoomed_axes([(0.75, 1.0)])
    assert (axis.low, axis.high, axis.step) == (0.7, 1.0, 0.05)
    assert axis.ticks() == [0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0]
    # One point only (all systems tied): 1 point of padding each side -> 4 intervals of 1 point at least.
    (axis,) = _zoomed_axes([(0.5, 0.5)])
    assert (axis.low, axis.high, axis.step) == (0.48, 0.52, 0.01)
    # Two axes share step and width: recall 75-100 (as above, 6 intervals of 5 points); precision
    # 90-95 (padded 89-96 -> 85-100 in steps of 5: 3 intervals), widened to 6 around it: 80-110, which
    # is moved back inside [0, 1]: 70-100.
    recall, precision = _zoomed_axes([(0.75, 1.0), (0.9, 0.95)])
    assert (recall.low, recall.high) == (0.7, 1.0)
    assert (precision.low, precision.high, precision.step) == (0.7, 1.0, 0.05)
    # Values 10-20 (padded 9-21) and 12-14 (padded 11-15): steps of 1 point need 12 intervals; of 2, the
    # first axis needs 8-22 (7) and the second 10-16 (3), widened by 2 below and 2 above: 6-20.
    first, second = _zoomed_axes([(0.1, 0.2), (0.12, 0.14)])
    assert (first.low, first.high, second.low, second.high, second.step) == (0.08, 0.22, 0.06, 0.2, 0.02)


def test_plots_have_one_mark_per_system(page: str) -> None:
    f_plot = re.search(r'aria-label="F with confidence interval per system">(.*?)</svg>', page, re.S).group(1)
    assert f_plot.count('class="dot"') == 3  # the fourth system's F is undefined
    assert f_plot.count('class="ci"') == 3
    names = re.findall(r'text-anchor="end">([^<]*)</text>', f_plot)
    assert names == [
        "bbn-1",
        "sri &quot;fastus&quot; &amp; co",
        "nyu-proteus",
        "&lt;script&gt;alert(1)&lt;/script&gt;",
    ]
    scatter = re.search(r'aria-label="Precision against recall">(.*?)</svg>', page, re.S).group(1)
    assert scatter.count('class="dot"') == 4
    # Recall 25-92.3 padded by 67.3/20 = 3.4 points -> 21.6-95.7; precision 60-92.3 padded by 1.6 ->
    # 58.4-93.9. Steps of 1, 2, 5 points need 75, 38, 16 intervals; 10 points: 2-10 and 5-10, so 8
    # intervals for both, precision's 5 widened to 8 (4-12, moved inside: 2-10): both axes 20-100.
    assert re.findall(r'class="tick-x"[^>]*>([^<]*)<', scatter) == [str(t) for t in range(20, 101, 10)]
    assert re.findall(r'class="tick-y"[^>]*>([^<]*)<', scatter) == [str(t) for t in range(20, 101, 10)]
    # F from F(20, 20) = 20 to 100: steps of 1, 2, 5, 10 points give 79, 39, 15, 7 curves; 20 points
    # give 3 (40, 60, 80).
    assert scatter.count('class="iso"') == 3
    # bbn-1: REC = PRE = 12/13 = 0.923077 -> (0.923077 - 0.2) / 0.8 = 0.903846 of the 420 pixels inside
    # the frame (440 pixels from x = 56 and y = 24, less 10 each side) = 379.6: x = 66 + 379.6 = 445.6,
    # y = 24 + 440 - 10 - 379.6 = 74.4.
    assert '<circle class="dot" data-system="bbn-1" data-rank="1" cx="445.6" cy="74.4" r="4">' in scatter
    # Each system is named once, with its rank, in the label column.
    labels = re.findall(r'<text class="label"[^>]*><title>[^<]*</title>([^<]*)</text>', scatter)
    assert labels == [
        "1. bbn-1",
        "3. nyu-proteus",
        "2. sri &quot;fastus&quot; &amp; co",
        "4. " + html.escape(EVIL_SYSTEM),
    ]


def test_heat_map_colours_defined_cells_and_dashes_undefined(page: str) -> None:
    heat = re.search(r'<table class="heat">(.*?)</table>', page, re.S).group(1)
    columns = re.findall(r'<span class="vertical">([^<]*)</span>', heat)
    assert columns == sorted(
        ["GAME.WINNER", "GAME.LOSER", "GAME.SCORE", "GAME.EVENT", "ORGANIZATION.NAME", "NOTE.&lt;i&gt;"]
    )
    body = heat.split("<tbody>")[1]
    rows = re.findall(r'<tr><th class="row">(.*?)</th>(.*?)</tr>', body)
    assert [name for name, _ in rows] == [html.escape(s) for s in BY_RANK]
    # bbn-1 is system 0: GAME.WINNER (slot 0) has F 0.0 -> lightest; ORGANIZATION.NAME (slot 4) 0.4.
    bbn = rows[0][1]
    assert (
        'style="background:hsl(212,72%,97%);color:#111" title="bbn-1, GAME.WINNER: F 0.0 %">0.0</td>' in bbn
    )
    assert 'title="bbn-1, ORGANIZATION.NAME: F 40.0 %">40.0</td>' in bbn
    evil = rows[3][1]
    assert evil.count('class="undefined"') == 1 and ">-</td>" in evil
    # F = 1.0 is the darkest shade, with white text: system 3 (evil), slot 3 GAME.EVENT is undefined, but
    # system 1 (quoted), slot 3: (7 + 3) % 11 = 10 -> 1.0.
    assert (
        'style="background:hsl(212,72%,42%);color:#fff" title="sri &quot;fastus&quot; &amp; co, GAME.EVENT'
        in page
    )


def test_significance_marks_by_approximate_randomization(browser: str, page: str, tmp_path: Path) -> None:
    assert marked_pairs(page) == {("bbn-1", QUOTED_SYSTEM), ("bbn-1", EVIL_SYSTEM), ("bbn-1", "nyu-proteus")}
    table = matrix_of(rendered(browser, page, tmp_path))
    cells = re.findall(
        r'<td class="cell( marked)?" title="([^"]*)"><span class="delta">([^<]*)</span>', table
    )
    by_pair = {html.unescape(title).split(": ")[0]: (bool(marked), delta) for marked, title, delta in cells}
    assert by_pair["bbn-1 vs " + QUOTED_SYSTEM] == (True, "+22.7 *")
    assert by_pair[QUOTED_SYSTEM + " vs bbn-1"] == (True, "-22.7 *")  # mirrored, negated
    assert by_pair[QUOTED_SYSTEM + " vs nyu-proteus"] == (False, "+5.9")  # bootstrap 0.04, randomization 0.21
    # A cell's difference is the leaderboard's values subtracted; EVIL's F is undefined here: "-".
    assert by_pair["bbn-1 vs " + EVIL_SYSTEM] == (True, "- *")
    assert "<span>bs &lt;0.001</span><span>ar &lt;0.001</span>" in table
    # nyu vs evil, evil vs quoted: not tested, so no p-value and no mark (each both ways).
    assert table.count("<span>bs -</span><span>ar -</span>") == 4
    assert table.count('class="diagonal"') == 4
    assert "<b>approximate randomization</b> p-value is below &alpha; = 0.05" in page


def test_page_counts_documents_embedded_of_total(page: str) -> None:
    assert "2 of the campaign&#8217;s 5 documents are embedded" in page
    assert "2 of 5 documents" in page


# ----------------------------------------------------------------------------------- embedded data


def test_reference_fills_and_strings_are_stored_once(page: str) -> None:
    data = embedded(page)
    assert len(data["strings"]) == len(set(data["strings"]))
    sports = data["documents"][1]
    # Five distinct reference fills (WINNER, SCORE, LOSER, EVENT, NAME; the NAME fill under a slotless
    # instance pairing is a sixth key), each listed once for the four systems.
    assert len(sports["refs"]) == 6 * 5
    assert [len(rows) // 7 for rows in sports["pairings"]] == [5, 6, 4, 4]
    categories = {data["strings"][i] for i in data["disagreeing"]}
    assert categories == {
        "content:COR extent:INC",
        "content:INC extent:INC",
        "content:MIS extent:MIS",
        "content:SPU extent:SPU",
    }


def test_offsets_count_utf16_units_beyond_the_basic_plane() -> None:
    text = "Go \U0001f3c6 Egypt! \u00e9"
    ref, span = fill(text, "Egypt")
    report = CampaignReport(
        "t",
        "",
        [row(1, "s", 1, 0, 0, 0, 1.0)],
        {},
        {},
        [DocumentView("d", text, {"s": [Pairing("GAME", "WINNER", ref, ref, span, span, "COR")]})],
        1,
        10,
        1,
    )
    data = embedded(render_campaign_html(report))
    start, length = data["documents"][0]["refs"][3:5]
    units = text.encode("utf-16-le")
    assert (start, length) == (6, 5)  # the trophy is two UTF-16 units
    assert units[2 * start : 2 * (start + length)].decode("utf-16-le") == "Egypt"


def test_disagreement_is_anything_not_all_cor() -> None:
    assert not is_disagreement("content:COR extent:COR")
    assert not is_disagreement("COR")
    assert not is_disagreement("content:cor")
    assert is_disagreement("content:COR extent:INC")
    assert is_disagreement("content:PAR")
    assert is_disagreement("")


def test_spans_outside_the_text_are_rejected(report: CampaignReport) -> None:
    bad = DocumentView("x", "short", {"bbn-1": [Pairing("T", "S", '"s"', None, (2, 9), None, "MIS")]})
    with pytest.raises(ValueError, match=r"document 'x', system 'bbn-1': ref_span \(2, 9\) is outside"):
        render_campaign_html(
            CampaignReport("t", "", report.leaderboard, {}, {}, [bad], 1, report.resamples, report.seed)
        )


# --------------------------------------------------------------------------------- headless Chromium

# Chromium writes every console message (console.log, console.error and uncaught exceptions alike, all at
# INFO level) to stderr as e.g.
#   [29151:29151:1121/062845.243593:INFO:CONSOLE:2] "Uncaught Error: xboom", source: file:///p.html (2)
# and older releases as "...:INFO:CONSOLE(2)] ...". The page logs nothing, so any such line is an error.
CONSOLE_LINE = re.compile(r"^\[[^\]]*:CONSOLE(?::\d+|\(\d+\))\].*$", re.M)


BROWSERS = ("/usr/bin/chromium", "chromium", "chromium-browser")


def find_browser(candidates: tuple[str, ...] = BROWSERS) -> str:
    """The first candidate that is an executable; skip without one, fail if IESCORE_REQUIRE_BROWSER=1."""
    for candidate in candidates:
        found = shutil.which(candidate)
        if found:
            return found
    if os.environ.get("IESCORE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"IESCORE_REQUIRE_BROWSER=1 but none of {candidates} is installed")
    pytest.skip(f"none of {candidates} is installed")


@pytest.fixture(scope="module")
def browser() -> str:
    return find_browser()


def test_missing_browser_skips_unless_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IESCORE_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception):
        find_browser(("/nonexistent/chromium",))
    monkeypatch.setenv("IESCORE_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="IESCORE_REQUIRE_BROWSER=1"):
        find_browser(("/nonexistent/chromium",))


def chromium(browser: str, url: str, profile: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        # Containers often have a 64 MB /dev/shm, too small for the renderer.
        "--disable-dev-shm-usage",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=2000",
        "--no-first-run",
        f"--user-data-dir={profile}",
        *options,
        url,
    ]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    except subprocess.TimeoutExpired as hung:
        # Seen once on a loaded machine: a page that starts a download (the workbench's save) dumped its
        # whole document, then chromium did not exit. The document is what the test reads; anything
        # short of a whole one is still a failure.
        out = (hung.stdout or b"").decode() if isinstance(hung.stdout, bytes) else hung.stdout or ""
        err = (hung.stderr or b"").decode() if isinstance(hung.stderr, bytes) else hung.stderr or ""
        if "--dump-dom" not in options or not out.rstrip().endswith("</html>"):
            raise
        return subprocess.CompletedProcess(command, 0, out, err)
    assert result.returncode == 0, f"chromium exited with {result.returncode}:\n{result.stderr[-3000:]}"
    return result


def console_lines(stderr: str) -> list[str]:
    return CONSOLE_LINE.findall(stderr)


def test_console_detection_catches_a_thrown_error(browser: str, tmp_path: Path) -> None:
    broken = tmp_path / "broken.html"
    broken.write_text(
        "<!DOCTYPE html><p>x</p><script>throw new Error('x-deliberate')</script>", encoding="utf-8"
    )
    result = chromium(browser, broken.as_uri(), tmp_path / "profile", "--dump-dom")
    lines = console_lines(result.stderr)
    assert len(lines) == 1 and "Uncaught Error: x-deliberate" in lines[0], result.stderr[-3000:]


def test_chromium_screenshot_without_console_errors(browser: str, page: str, tmp_path: Path) -> None:
    path = tmp_path / "campaign.html"
    path.write_text(page, encoding="utf-8")
    screenshot = tmp_path / "campaign.png"
    result = chromium(
        browser, path.as_uri(), tmp_path / "profile", f"--screenshot={screenshot}", "--window-size=1280,2000"
    )
    assert console_lines(result.stderr) == []
    png = screenshot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1280, 2000)  # IHDR width and height
    assert len(png) > 50_000, f"screenshot of {len(png)} bytes is suspiciously plain"


def rendered(browser: str, page: str, tmp_path: Path, fragment: str = "") -> str:
    path = tmp_path / "campaign.html"
    path.write_text(page, encoding="utf-8")
    result = chromium(browser, path.as_uri() + fragment, tmp_path / "profile", "--dump-dom")
    assert console_lines(result.stderr) == []
    return result.stdout


def shown_text(dom: str) -> tuple[str, list[str]]:
    """The per-document view's text as the reader sees it, and the tags inside it."""
    inner = re.search(r'<pre id="doc-text">(.*?)</pre>', dom, re.S).group(1)
    return html.unescape(re.sub(r"<[^>]*>", "", inner)), re.findall(r"<[^>]*>", inner)


def pairing_rows(dom: str) -> list[tuple[bool, list[str]]]:
    body = re.search(r'<table id="pairings">.*?<tbody>(.*?)</tbody>', dom, re.S).group(1)
    return [
        (
            marked == ' class="dis"',
            [html.unescape(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", cells)],
        )
        for marked, cells in re.findall(r"<tr( class=\"dis\")?>(.*?)</tr>", body, re.S)
    ]


def test_chromium_renders_the_malicious_document_as_text(browser: str, page: str, tmp_path: Path) -> None:
    # Default selection: the first document and the first system by rank (bbn-1); then the evil system.
    dom = rendered(
        browser, page, tmp_path, "#doc=EVIL-%3Cb%3E%26amp%3B1&system=%3Cscript%3Ealert(1)%3C%2Fscript%3E"
    )
    assert "<script>alert" not in dom.lower()
    assert len(re.findall(r"<script\b", dom, re.I)) == 3
    assert "<b>bold" not in dom
    text, tags = shown_text(dom)
    assert text == EVIL_TEXT
    assert set(tags) <= {'<span class="ref">', '<span class="hyp">', '<span class="ref hyp">', "</span>"}
    # The spurious "</script>" [27, 36) sits inside the other hypothesis extent, which ends after "alert(2)".
    assert (
        '<span class="hyp"> </span><span class="hyp">&lt;/script&gt;</span>'
        '<span class="hyp">&lt;script&gt;alert(2)</span>&lt;/script&gt;&lt;/TEXT&gt;'
    ) in dom
    # Reference "a <b>bold</b> &" = [11, 26); hypothesis "<b>bold</b> & </script><script>alert(2)" = [13, 52).
    assert '<span class="ref">a </span><span class="ref hyp">&lt;b&gt;bold&lt;/b&gt; &amp;</span>' in dom
    assert pairing_rows(dom) == [
        (
            True,
            [
                "NOTE",
                "<i>",
                '"a <b>bold</b> &" ##11#26#',
                '"<b>bold</b> & </script><script>alert(2)" ##13#52#',
                "content:INC extent:INC",
            ],
        ),
        (True, ["NOTE", "QUOTE", "\u2014", '"</script>" ##27#36#', "content:SPU extent:SPU"]),
    ]
    assert '<span id="doc-status" class="legend">2 pairings, 2 disagreements</span>' in dom


def test_chromium_renders_the_chosen_document_and_system(browser: str, page: str, tmp_path: Path) -> None:
    dom = rendered(browser, page, tmp_path, "#doc=HUB4-SPORTS-0002&system=bbn-1")
    text, _ = shown_text(dom)
    assert text == SPORTS_TEXT
    # The reference extent "General Motors" lies inside bbn-1's "General Motors Corp.": the sweep cuts it in
    # two pieces; "the African Cup of Nations" contains the hypothesis' shorter extent.
    assert '<span class="ref hyp">General Motors</span><span class="hyp"> Corp.</span>' in dom
    assert '<span class="ref">the </span><span class="ref hyp">African Cup of Nations</span>' in dom
    rows = pairing_rows(dom)
    assert [marked for marked, _ in rows] == [False, False, False, False, True]
    assert rows[4][1] == [
        "ORGANIZATION",
        "NAME",
        fill(SPORTS_TEXT, "General Motors")[0],
        fill(SPORTS_TEXT, "General Motors Corp.")[0],
        "content:COR extent:INC",
    ]
    assert "5 pairings, 1 disagreements" in dom


def test_chromium_defaults_to_first_document_and_best_system(browser: str, page: str, tmp_path: Path) -> None:
    dom = rendered(browser, page, tmp_path)
    text, _ = shown_text(dom)
    assert text == EVIL_TEXT
    assert pairing_rows(dom) == [
        (
            False,
            [
                "NOTE",
                "<i>",
                '"a <b>bold</b> &" ##11#26#',
                '"a <b>bold</b> &" ##11#26#',
                "content:COR extent:COR",
            ],
        ),
    ]


# ------------------------------------------------------------------------ a campaign of ten systems

# A corpus of four copies of data/hub4-sports (12 documents: copy k renames ``.1830.`` and ``.2000.`` in
# the document ids to ``.183k.`` and ``.200k.``, same length, so every extent still points at its string),
# and ten systems made from perfect.tpl. Each copy of perfect.tpl scores 19 points against ref.tpl (DOC_NR
# x 3 and the six SPORTS_EVENT text fills, content and extent each = 18, and the EVENT pointer = 1), 76 in
# all. Changes, per copy where made:
#   D, L, S  drop DATE, LOCATION or SCORE          2 MIS (content and extent)
#   W, O     sloppy.tpl's WINNER or LOSER fill     2 INC (content and extent both wrong)
#   P1, P2   a spurious ABC event with 1 or 2 text fills: 1 SPU for the EVENT pointer, 2 per fill
# so recall COR/76 and precision COR/ACT in percent, by hand:
#   perfect                        none                76/76 = 100    76/76 = 100
#   no-date                        D in copies 0-1     72/76 = 94.7   72/72 = 100  } same REC and PRE:
#   no-location                    L in copies 2-3     72/76 = 94.7   72/72 = 100  } tied
#   one-spurious-fill              P1 in copies 0-2    76/76 = 100    76/85 = 89.4
#   sloppy-winner                  W in every copy     68/76 = 89.5   68/76 = 89.5
#   no-date-no-score               D, S in every copy  60/76 = 78.9   60/60 = 100
#   sloppy-winner-and-loser        W, O in every copy  60/76 = 78.9   60/76 = 78.9
#   no-date-plus-spurious          D in 0-1, P1 in 2-3 72/76 = 94.7   72/78 = 92.3
#   two-spurious-fills             P2 in every copy    76/76 = 100    76/96 = 79.2
#   LONG_NAME                      W in 0-1, D in 2-3  68/76 = 89.5   68/72 = 94.4
# Every system lies between 78.9 and 100 on both axes.
SPORTS = Path(__file__).resolve().parents[2] / "data" / "hub4-sports"
COPIES = 4
LONG_NAME = "northern-language-laboratory-extraction-system-run-7"
ABC = "    DOC_NR: ABC19980307.1830.1415 ##14#35#\n"
EDITS = {
    "D": ('    DATE: "03/02/1998" ##89#99#\n', ""),
    "L": ('    LOCATION: "south Africa" ##314#326#\n', ""),
    "S": ('    SCORE: "2-0" ##327#330#\n', ""),
    "W": ('    WINNER: "Egypt" ##332#337#\n', '    WINNER: "Egypt, which" ##332#344#\n'),
    "O": (
        '    LOSER: "defending champion south Africa" ##295#326#\n',
        '    LOSER: "defending champion" ##295#313#\n',
    ),
    **{
        f"P{fills}": (
            ABC,
            ABC
            + "    EVENT: <SPORTS_EVENT-ABC19980307.1830.1415-1>\n\n"
            + "<SPORTS_EVENT-ABC19980307.1830.1415-1> :=\n"
            + "".join(
                [
                    '    S_EVENT: "Iditarod dog sled race" ##277#299#\n',
                    '    LOCATION: "Anchorage" ##177#186#\n',
                ][:fills]
            ),
        )
        for fills in (1, 2)
    },
}
# System -> the changes made in each of the four copies.
TEN_SYSTEMS = {
    "perfect": ["", "", "", ""],
    "no-date": ["D", "D", "", ""],
    "no-location": ["", "", "L", "L"],
    "one-spurious-fill": ["P1", "P1", "P1", ""],
    "sloppy-winner": ["W"] * 4,
    "no-date-no-score": ["D S"] * 4,
    "sloppy-winner-and-loser": ["W O"] * 4,
    "no-date-plus-spurious": ["D", "D", "P1", "P1"],
    "two-spurious-fills": ["P2"] * 4,
    LONG_NAME: ["W", "W", "D", "D"],
}


def copied(text: str, copy: int) -> str:
    """``text`` (a corpus or a template set of data/hub4-sports) with the document ids of copy ``copy``."""
    return text.replace(".1830.", f".183{copy}.").replace(".2000.", f".200{copy}.")


def changed(text: str, changes: str) -> str:
    for change in changes.split():
        old, new = EDITS[change]
        assert text.count(old) == 1, (change, old)
        text = text.replace(old, new)
    return text


@pytest.fixture(scope="module")
def ten(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ten systems' campaign at beta 2, run by ``iescore campaign --out``: its output directory."""
    work = tmp_path_factory.mktemp("ten")
    perfect = (SPORTS / "perfect.tpl").read_text(encoding="utf-8")
    for name, source in (("ref.tpl", "ref.tpl"), ("texts.sgml", "texts.sgml")):
        text = (SPORTS / source).read_text(encoding="utf-8")
        (work / name).write_text("".join(copied(text, k) for k in range(COPIES)), encoding="utf-8")
    toml = [
        'store = "store"',
        "[reference]",
        'templates = "ref.tpl"',
        'texts = "texts.sgml"',
        "[options]",
        "beta = 2.0",
        "resamples = 200",
    ]
    for number, (name, changes) in enumerate(TEN_SYSTEMS.items()):
        text = "".join(copied(changed(perfect, change), k) for k, change in enumerate(changes))
        (work / f"system{number}.tpl").write_text(text, encoding="utf-8")
        toml += [f"[systems.{json.dumps(name)}]", f'templates = "system{number}.tpl"']
    (work / "campaign.toml").write_text("\n".join(toml) + "\n", encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        status = main(["campaign", str(work / "campaign.toml"), "--out", str(work / "out")])
    assert status == 0
    return work / "out"


# A script added to a copy of the page (its hash added to the page's Content Security Policy) that
# measures the drawn page and writes what it found as JSON into <pre id="probe">.
PROBE = """
(() => {
  const plot = document.querySelector('svg[aria-label="Precision against recall"]');
  plot.scrollIntoView();
  const box = (node) => {
    const r = node.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const found = {
    xTicks: [...plot.querySelectorAll("text.tick-x")].map((node) => [node.textContent, box(node)]),
    yTicks: [...plot.querySelectorAll("text.tick-y")].map((node) => [node.textContent, box(node)]),
    dots: [...plot.querySelectorAll("circle.dot")].map((node) => {
      const [left, top, right, bottom] = box(node);
      const onTop = document.elementFromPoint((left + right) / 2, (top + bottom) / 2);
      return {system: node.dataset.system, rank: node.dataset.rank, box: [left, top, right, bottom],
              onTop: onTop === node};
    }),
    labels: [...plot.querySelectorAll("text.label")].map(
      (node) => ({system: node.dataset.system, ranks: node.dataset.ranks, box: box(node)})),
    head: [...document.querySelectorAll("table.board thead th")].map((node) => node.textContent),
    board: [...document.querySelectorAll("table.board tbody tr")].map(
      (row) => [...row.cells].map((cell) => cell.textContent)),
  };
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(found);
  document.body.appendChild(pre);
})();
"""


def probed(browser: str, page: str, tmp_path: Path) -> dict:
    digest = base64.b64encode(hashlib.sha256(PROBE.encode("utf-8")).digest()).decode("ascii")
    # The policy is in an attribute: its quotes are written &#x27;.
    page, count = re.subn(
        r"script-src (&#x27;sha256-[^&]*&#x27;)", rf"script-src \1 &#x27;sha256-{digest}&#x27;", page
    )
    assert count == 1
    page = page.replace("</body>", f"<script>{PROBE}</script>\n</body>")
    path = tmp_path / "probed.html"
    path.write_text(page, encoding="utf-8")
    result = chromium(browser, path.as_uri(), tmp_path / "profile", "--dump-dom", "--window-size=1400,1200")
    assert console_lines(result.stderr) == []
    found = re.search(r'<pre id="probe">(.*?)</pre>', result.stdout, re.S)
    assert found is not None, result.stdout[-2000:]
    return json.loads(html.unescape(found.group(1)))


def overlaps(a: list[float], b: list[float]) -> bool:
    """Boxes [left, top, right, bottom] share some area (touching edges do not count)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.fixture(scope="module")
def ten_probe(browser: str, ten: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return probed(
        browser, (ten / "report.html").read_text(encoding="utf-8"), tmp_path_factory.mktemp("probe")
    )


def test_ten_systems_plot_zooms_to_their_range(ten: Path, ten_probe: dict) -> None:
    board = json.loads((ten / "leaderboard.json").read_text(encoding="utf-8"))["leaderboard"]
    recalls = [row["REC"] for row in board]
    precisions = [row["PRE"] for row in board]
    # By hand (fixture comment): recall and precision 78.9-100 -> padded by 21/20 = 1.05 points: 77.9-100;
    # steps of 1 and 2 points need 23 and 12 intervals, 5 points 5 (75-100) on both axes.
    assert (min(recalls), max(recalls)) == (pytest.approx(100 * 60 / 76, abs=1e-4), 100.0)
    assert (min(precisions), max(precisions)) == (pytest.approx(100 * 60 / 76, abs=1e-4), 100.0)
    for ticks in (ten_probe["xTicks"], ten_probe["yTicks"]):
        assert [text for text, _ in ticks] == ["75", "80", "85", "90", "95", "100"]
    # Every point lies within the drawn axes: between the first and last tick's centres (give or take the
    # side-by-side offset of tied points, 5 px, and the radius).
    x_from = (ten_probe["xTicks"][0][1][0] + ten_probe["xTicks"][0][1][2]) / 2
    x_to = (ten_probe["xTicks"][-1][1][0] + ten_probe["xTicks"][-1][1][2]) / 2
    y_from = (ten_probe["yTicks"][-1][1][1] + ten_probe["yTicks"][-1][1][3]) / 2
    y_to = (ten_probe["yTicks"][0][1][1] + ten_probe["yTicks"][0][1][3]) / 2
    assert len(ten_probe["dots"]) == 10
    for dot in ten_probe["dots"]:
        left, top, right, bottom = dot["box"]
        assert x_from - 10 <= left and right <= x_to + 10, dot
        assert y_from - 10 <= top and bottom <= y_to + 10, dot
    # The axis spans 25 points for a 21-point range: the points use most of its width.
    xs = [(dot["box"][0] + dot["box"][2]) / 2 for dot in ten_probe["dots"]]
    assert (max(xs) - min(xs)) / (x_to - x_from) > 0.8


def test_ten_systems_labels_do_not_overlap(ten_probe: dict) -> None:
    labels = ten_probe["labels"]
    assert sorted(label["system"] for label in labels) == sorted(TEN_SYSTEMS)
    for index, first in enumerate(labels):
        assert first["box"][2] > first["box"][0] and first["box"][3] > first["box"][1]
        for second in labels[index + 1 :]:
            assert not overlaps(first["box"], second["box"]), (first, second)
    # Nor does a label cover a point.
    for label in labels:
        for dot in ten_probe["dots"]:
            assert not overlaps(label["box"], dot["box"]), (label, dot)


def test_tied_systems_drawn_as_one_point(ten_probe: dict) -> None:
    # no-date and no-location: REC 94.7, PRE 100 both (fixture comment): identical systems look identical,
    # one point at one place, each named in the column.
    dots = {dot["system"]: dot for dot in ten_probe["dots"]}
    assert dots["no-date"]["box"] == dots["no-location"]["box"]
    assert dots["no-date"]["onTop"] != dots["no-location"]["onTop"]  # the one drawn last is seen
    labelled = {label["system"] for label in ten_probe["labels"]}
    assert {"no-date", "no-location"} <= labelled
    # Every other point is the topmost element at its own centre: drawn, and not hidden under a line.
    others = [dot for dot in ten_probe["dots"] if dot["system"] not in ("no-date", "no-location")]
    assert all(dot["onTop"] for dot in others), [d["system"] for d in others if not d["onTop"]]


def test_ten_systems_p_next_is_the_randomization_p_of_the_next_system(ten: Path, ten_probe: dict) -> None:
    result = json.loads((ten / "leaderboard.json").read_text(encoding="utf-8"))
    tests = json_pairs(ten / "leaderboard.json")
    pairs = {(p["system_a"], p["system_b"]): p["randomization_p"] for p in tests}
    head = ten_probe["head"]
    assert head[-3:] == ["p(next)", "Rank range", "Cluster"]
    rows = ten_probe["board"]
    names = [row[head.index("System")] for row in rows]
    assert names == [row["system"] for row in result["leaderboard"]]
    shown = [row[head.index("p(next)")] for row in rows]
    expected = []
    for upper, lower in zip(names, names[1:], strict=False):
        p = pairs[(upper, lower)] if (upper, lower) in pairs else pairs[(lower, upper)]
        expected.append("<0.001" if p < 0.001 else f"{p:.3f}")
    assert shown == [*expected, ""]
    assert len(set(expected)) > 3  # the fixture's p-values differ: a shifted column would show


def test_ten_systems_at_beta_2_name_f2(ten: Path, ten_probe: dict) -> None:
    assert "F2 %" in ten_probe["head"] and "F2 confidence interval" in ten_probe["head"]
    assert "F %" not in ten_probe["head"]
    text = (ten / "leaderboard.txt").read_text(encoding="utf-8")
    header = text.splitlines()[0].split()
    assert "F2" in header and "F" not in header
    assert "F2 95% CI" in text.splitlines()[0]


def crowded_report(count: int) -> CampaignReport:
    """``count`` systems on a grid of few values: many points close together and several tied."""
    rows = []
    for i in range(count):
        cor, inc, spu = 70 + (i * 7) % 20, i % 3, (i * 5) % 11
        rows.append(
            (
                2 * cor / (100 + cor + inc + spu),
                f"system-{i:02d}-{'x' * (i % 9)}",
                cor,
                inc,
                100 - cor - inc,
                spu,
            )
        )
    rows.sort(key=lambda r: -r[0])
    board = [
        row(rank + 1, name, cor, inc, mis, spu, f) for rank, (f, name, cor, inc, mis, spu) in enumerate(rows)
    ]
    return dataclasses.replace(
        campaign_report(), leaderboard=board, slot_f={}, significance={}, documents=[], documents_total=0
    )


def test_many_systems_labelled_by_rank_without_overlap(browser: str, tmp_path: Path) -> None:
    report = crowded_report(40)
    page = render_campaign_html(report)
    found = probed(browser, page, tmp_path)
    names = sorted(r.system for r in report.leaderboard)
    ranks = sorted(str(r.rank) for r in report.leaderboard)
    # Each system labelled once: by name in the column, or by rank beside its point (with its ties).
    assert sorted(rank for label in found["labels"] for rank in label["ranks"].split()) == ranks
    assert sorted(dot["system"] for dot in found["dots"]) == names
    scatter = re.search(r'aria-label="Precision against recall">(.*?)</svg>', page, re.S).group(1)
    beside = re.findall(r"</title>([0-9, ]+)</text>", scatter)
    assert len(beside) > 20  # most points carry their rank beside them
    labels = found["labels"]
    for index, first in enumerate(labels):
        for second in labels[index + 1 :]:
            assert not overlaps(first["box"], second["box"]), (first, second)
        for dot in found["dots"]:
            assert not overlaps(first["box"], dot["box"]), (first, dot)
    # At each place, a point is seen (systems at one place are drawn there one over the other).
    seen = {tuple(dot["box"]) for dot in found["dots"] if dot["onTop"]}
    assert seen == {tuple(dot["box"]) for dot in found["dots"]}


def test_ten_systems_screenshot(browser: str, ten: Path, tmp_path: Path) -> None:
    screenshot = tmp_path / "ten.png"
    result = chromium(
        browser,
        (ten / "report.html").as_uri(),
        tmp_path / "profile",
        f"--screenshot={screenshot}",
        "--window-size=1280,1500",
    )
    assert console_lines(result.stderr) == []
    png = screenshot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (1280, 1500)
    keep = os.environ.get("IESCORE_SCREENSHOT_DIR")
    if keep:  # to look at it: IESCORE_SCREENSHOT_DIR=/tmp pytest -k screenshot
        shutil.copy(screenshot, Path(keep) / "ten-systems.png")
