"""The campaign page: escaping, self-containment, static sections, and the page as headless Chromium draws it.

The fixture is a small campaign (four systems, two documents) whose names, texts and fills carry markup,
ampersands and quotes on purpose: one system is called ``<script>alert(1)</script>`` and one document's
text closes a script element and opens another.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from pipeline.html_report import (
    CampaignReport,
    DocumentView,
    Pairing,
    SystemRow,
    is_disagreement,
    render_campaign_html,
)

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
    assert opening == ['<script type="application/json" id="data">', "<script>"]
    assert len(re.findall(r"</script", page, re.I)) == 2
    # The escaping changes nothing in the data: JSON.parse (here json.loads) reads the texts back as given.
    data = embedded(page)
    assert [document["text"] for document in data["documents"]] == [EVIL_TEXT, SPORTS_TEXT]
    assert data["systems"] == BY_RANK
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
    # interval (F - 10, F + 5) -> [82.3, 97.3].
    assert (
        '<tr><td class="num">1</td><td title="scorer:templette|compare:both|case:insensitive|bs:1000|'
        'seed:12345|sys:bbn-1|version:0.1.0">bbn-1</td><td class="num">12</td><td class="num">1</td>'
        '<td class="num">0</td><td class="num">0</td><td class="num">92.3</td><td class="num">92.3</td>'
        '<td class="num">92.3</td><td class="num">[82.3, 97.3]</td></tr>'
    ) in page
    # The last system's F is undefined: '-' for F and its interval.
    evil_row = re.search(r"<tr><td class=\"num\">4</td>.*?</tr>", page).group(0)
    assert evil_row.endswith('<td class="num">-</td><td class="num">-</td></tr>')


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
    assert scatter.count('class="iso"') == 4
    # bbn-1: REC = PRE = 12/13 -> x = 52 + 440 * 0.923 = 458.2, y = 14 + 440 * (1 - 0.923) = 47.8.
    assert '<circle class="dot" cx="458.2" cy="47.8" r="4"/>' in scatter


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


def test_significance_marks_by_approximate_randomization(page: str) -> None:
    table = re.search(r'<table class="significance">(.*?)</table>', page, re.S).group(1)
    cells = re.findall(
        r'<td class="cell( marked)?" title="([^"]*)"><span class="delta">([^<]*)</span>', table
    )
    by_pair = {html.unescape(title).split(": ")[0]: (bool(marked), delta) for marked, title, delta in cells}
    assert by_pair["bbn-1 vs " + QUOTED_SYSTEM] == (True, "+22.7 *")
    assert by_pair[QUOTED_SYSTEM + " vs bbn-1"] == (True, "-22.7 *")  # mirrored, negated
    assert by_pair[QUOTED_SYSTEM + " vs nyu-proteus"] == (False, "+5.9")  # bootstrap 0.04, randomization 0.21
    assert by_pair["bbn-1 vs " + EVIL_SYSTEM] == (True, "+61.0 *")
    assert "<span>bs &lt;0.001</span><span>ar &lt;0.001</span>" in table
    assert table.count('<td class="cell missing">-</td>') == 4  # nyu vs evil, both ways; evil vs quoted, both
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
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
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
    assert len(re.findall(r"<script\b", dom, re.I)) == 2
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
