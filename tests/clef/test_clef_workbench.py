"""The Evaluation Workbench page: self-contained, escaped, and as headless Chromium draws and drives it
(run with IESCORE_REQUIRE_BROWSER=1 to fail rather than skip without a browser).

The expected counts are the sample's, by hand (tests/clef/test_clef_eval.py's module doc): run1 has 11
predictions and the gold 11 mentions; 8 predictions have a gold mention's exact offsets, 7 of those its
CUI (acute renal failure: C0035078 for C0022660); 10 predictions overlap a gold mention; fever and CHF
are overlapped by none, "diabetes mellitus" only by "diabetes".
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
import shutil
import sys
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "campaign"))
from test_html_report import chromium, console_lines, find_browser  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "clef-sample"
EVIL_REPORT = "<b>evil&\"report'"
EVIL_TEXT = "x </script><script>alert(2)</script> fever <!-- y\n"
EVIL_CUI = "<img src=x onerror=alert(3)>"


def workbench(tmp_path: Path, system: Path = SAMPLE / "run1", gold: Path = SAMPLE / "gold",
              texts: Path = SAMPLE / "texts") -> Path:  # fmt: skip
    page = tmp_path / "workbench.html"
    argv = ["clef", "-input", str(system), "-gold", str(gold), "-n", "w", "-r", "1", "-t", "1a",
            "--out", str(tmp_path), "--workbench", str(page), "--texts", str(texts)]  # fmt: skip
    assert main(argv) == 0
    return page


@pytest.fixture(scope="module")
def sample_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return workbench(tmp_path_factory.mktemp("workbench"))


def shown(browser: str, page: Path, profile: Path, fragment: str = "") -> str:
    result = chromium(browser, page.as_uri() + fragment, profile, "--dump-dom")
    assert console_lines(result.stderr) == [], result.stderr[-2000:]
    return result.stdout


def stats_rows(dom: str) -> dict[str, list[str]]:
    table = re.search(r'<table id="stats">(.*?)</table>', dom, re.S).group(1)
    rows = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)[1:]:
        cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        if cells:  # not the heading of the rows with nothing counted
            rows[cells[0]] = cells[1:]
    return rows


def test_page_is_self_contained_with_a_policy(sample_page: Path) -> None:
    source = sample_page.read_text(encoding="utf-8")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', source).group(1)
    script = re.search(r"<script>(.*)</script>", source, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    policy = html.unescape(policy)
    assert policy.startswith("default-src 'none';") and f"'sha256-{digest}'" in policy
    assert not re.search(r"(src|href)=\"https?:", source) and "<link" not in source
    # Pink wins over the gold-and-system colour: the rule names all three classes (a screenshot showed
    # a false positive inside a gold span green while the miss rule was less specific).
    assert ".ann.gold.system.miss{background:#ffc0d0}" in source


def test_inputs_are_escaped_everywhere(tmp_path: Path) -> None:
    gold, system, texts = tmp_path / "gold", tmp_path / "system", tmp_path / "texts"
    for folder in (gold, system, texts):
        folder.mkdir()
    start = EVIL_TEXT.index("fever")
    (gold / "g").write_text(f"{EVIL_REPORT}||Disease_Disorder||{EVIL_CUI}||{start}||{start + 5}\n")
    (system / "s").write_text(f"{EVIL_REPORT}||<i>type</i>||C1||{start}||{start + 5}\n")
    (texts / (EVIL_REPORT + ".txt")).write_text(EVIL_TEXT)
    page = workbench(tmp_path, system, gold, texts)
    source = page.read_text(encoding="utf-8")
    for raw in ("<script>alert", "<img src=x", "<b>evil", "<i>type", "<!-- y"):
        assert raw not in source
    browser = find_browser()
    dom = shown(browser, page, tmp_path / "profile", "#cell=all:tp&report=" + EVIL_REPORT.replace("&", "%26"))
    assert "<script>alert" not in dom and "<img src" not in dom and "<b>evil" not in dom
    assert html.escape(EVIL_REPORT, quote=False) + " (1)" in dom  # the report list, as text
    text = re.search(r'<pre id="doc-text">(.*?)</pre>', dom, re.S).group(1)
    assert html.unescape(re.sub(r"<[^>]*>", "", text)) == EVIL_TEXT
    assert EVIL_CUI in stats_rows(dom)  # shown as text: the cell holds &lt;img ...&gt;


def test_missing_text_and_offsets_beyond_it_are_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = tmp_path / "texts"
    shutil.copytree(SAMPLE / "texts", texts)
    (texts / "report-03.txt").unlink()
    argv = ["clef", "-input", str(SAMPLE / "run1"), "-gold", str(SAMPLE / "gold"), "-n", "w", "-r", "1",
            "-t", "1a", "--out", str(tmp_path), "--workbench", str(tmp_path / "w.html"),
            "--texts", str(texts)]  # fmt: skip
    assert main(argv) == 2
    assert "report-03: no text for this report" in capsys.readouterr().err
    (texts / "report-03.txt").write_text("No acute")  # 8 characters: "acute distress" ends at 17
    assert main(argv) == 2
    assert "report-03.pipe.txt:1: offset 17 is beyond the text of report 'report-03' (8 characters)" in (
        capsys.readouterr().err
    )
    assert main([*argv[:-4], "--workbench", str(tmp_path / "w.html")]) == 2
    assert "needs the reports' texts: give --texts DIR" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        # Span + exact = Task 1a strict: TP 8, FP 3, FN 3.
        ("", ["8", "3", "3", "0.727", "0.727", "0.727"]),
        # Span + overlap = eval.pl's relaxed: TP 10 predictions, FP 1 (patient), FN 2 (fever, CHF).
        ("#match=overlap", ["10", "1", "2", "0.909", "0.833", "0.870"]),
        # Span&Class + exact: TP 7, FP 11 - 7 = 4, FN 11 - 7 = 4: recall = Task 1b strict 7/11.
        ("#outcome=spanclass", ["7", "4", "4", "0.636", "0.636", "0.636"]),
        # Class + exact: only the 8 exact pairs count: TP 7, FP 1, FN 1: precision = 1b relaxed 7/8.
        ("#outcome=class", ["7", "1", "1", "0.875", "0.875", "0.875"]),
        # Class + overlap: 10 predictions overlap, 8 of them some gold mention of their CUI ("diabetes"
        # C0011849 and "renal failure" C0035078 on gold C0022660 are the misses... "diabetes" has
        # "diabetes mellitus"'s CUI, so only "renal failure" and the acute renal failure pair miss):
        # TP 8, FP 2; gold overlapped 9, with a same-CUI overlap 8 (acute renal failure not): FN 1.
        ("#outcome=class&match=overlap", ["8", "2", "1", "0.800", "0.889", "0.842"]),
    ],
)
def test_modes_switch_the_statistics(
    sample_page: Path, tmp_path: Path, fragment: str, expected: list[str]
) -> None:
    rows = stats_rows(shown(find_browser(), sample_page, tmp_path / "profile", fragment))
    assert rows["All disorders"] == expected
    # CUI rows: TP and FP go to the prediction's CUI, FN to the gold's.
    if fragment == "":
        assert rows["c0035078"][:3] == ["1", "1", "0"]  # acute renal failure (TP), renal failure (FP)
        # Fever, missed: no prediction of its CUI, so its precision is undefined (0 / 0), not 0.
        assert rows["c0015967"] == ["0", "0", "1", "undefined", "0.000", "0.000"]
    if fragment == "#outcome=class":
        assert rows["c0035078"][:3] == ["0", "1", "0"] and rows["c0022660"][:3] == ["0", "0", "1"]


def test_undefined_measures_read_undefined_and_uncounted_rows_are_listed_apart(
    sample_page: Path, tmp_path: Path
) -> None:
    dom = shown(find_browser(), sample_page, tmp_path / "profile")
    table = re.search(r'<table id="stats">(.*?)</table>', dom, re.S).group(1)
    # Span + exact: c0022660 (acute renal failure in the gold, predicted with C0035078) gets no TP, FP or
    # FN (its FN goes nowhere: the prediction matched its span) -> nothing counted, every measure 0 / 0.
    rows = stats_rows(dom)
    assert rows["c0022660"] == ["0", "0", "0", "undefined", "undefined", "undefined"]
    assert "0.000" not in "".join(rows["c0022660"])
    # Listed after a heading, below every row with something counted.
    heading = table.index("Nothing counted under these modes")
    assert table.index(">c0022660<") > heading
    assert table.index(">c0015967<") < heading and table.index(">All disorders<") < heading
    assert '<tr class="nothing"><td>c0022660</td>' in table
    assert re.search(r'<td class="cell undefined" id="cell-c0022660-p"', table)


def test_a_cell_lists_its_reports_and_a_report_shows_its_annotations(
    sample_page: Path, tmp_path: Path
) -> None:
    dom = shown(find_browser(), sample_page, tmp_path / "profile", "#cell=all:fn&report=report-02")
    # FN of all disorders: report-01 (diabetes mellitus, fever), report-02 (CHF).
    assert re.search(r'<td class="cell selected" id="cell-all-fn"', dom)
    reports = re.findall(r'<button type="button" id="report-\d"[^>]*>(.*?)</button>', dom)
    assert reports == ["report-01 (2)", "report-02 (1)"]
    assert "all disorders, FN: 2 report(s)".lower() in dom.lower()
    text = re.search(r'<pre id="doc-text">(.*?)</pre>', dom, re.S).group(1)
    spans = re.findall(r'<span class="([^"]*)" data-mentions="[^"]*" title="([^"]*)">(.*?)</span>', text)
    by_text = {content: (classes, html.unescape(title)) for classes, title, content in spans}
    assert by_text["CHF"][0] == "ann gold miss"  # found in the gold only: a false negative, pink
    assert "Annotator: gold; CUI: C0018802" in by_text["CHF"][1] and "Outcome: FN" in by_text["CHF"][1]
    assert "Source: report-02.pipe.txt:4" in by_text["CHF"][1]
    assert by_text["HTN"][0] == "ann gold system"  # both, exact: no highlight
    # "renal failure" is inside "acute renal failure": the segment "renal failure" carries both the
    # gold mention and two predictions, one of them a false positive (exact mode).
    assert by_text["renal failure"][0] == "ann gold system miss"
    assert by_text["acute "][0] == "ann gold system"


def test_display_gold_only_and_save_csv(sample_page: Path, tmp_path: Path) -> None:
    browser = find_browser()
    dom = shown(browser, sample_page, tmp_path / "profile", "#display=gold&cell=all:tp&report=report-01")
    text = re.search(r'<pre id="doc-text">(.*?)</pre>', dom, re.S).group(1)
    assert 'class="ann gold' in text and "system" not in text
    assert "patient" in text and 'title="Annotator: system' not in text
    dom = shown(browser, sample_page, tmp_path / "profile2", "#match=overlap&save=1")
    csv = html.unescape(re.search(r'<pre id="csv-preview">(.*?)</pre>', dom, re.S).group(1))
    lines = csv.splitlines()
    assert lines[0] == "outcome,match,classification,TP,FP,FN,precision,recall,F"
    assert lines[1] == "span,overlap,All disorders,10,1,2,0.909,0.833,0.870"
    # All, then every CUI of either side, lower-cased: the gold's 9 (c0008031 c0013404 c0011849 c0015967
    # cui-less c0022660 c0020461 c0020538 c0018802) and run1's c0030705 and c0035078.
    assert len(lines) == 1 + 1 + 11
    # An undefined measure is an empty field: fever is missed even with overlap, no prediction has its CUI.
    assert "span,overlap,c0015967,0,0,1,,0.000,0.000" in lines


def test_screenshots_without_console_errors(sample_page: Path, tmp_path: Path) -> None:
    browser = find_browser()
    for name, fragment in (("start", ""), ("report", "#outcome=class&cell=all:fp&report=report-02")):
        screenshot = tmp_path / f"{name}.png"
        result = chromium(browser, sample_page.as_uri() + fragment, tmp_path / f"profile-{name}",
                          f"--screenshot={screenshot}", "--window-size=1280,1000")  # fmt: skip
        assert console_lines(result.stderr) == []
        png = screenshot.read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
