"""The HTML pages of MUC and coreference campaigns, as headless Chromium draws them (run with
IESCORE_REQUIRE_BROWSER=1 to fail rather than skip without a browser)."""

from __future__ import annotations

import html
import re
import shutil
import urllib.parse
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main
from test_html_report import chromium, console_lines, find_browser

DATA = Path(__file__).resolve().parents[2] / "data"
EVIL = "<script>alert(1)</script>"


def campaign_page(tmp_path: Path, campaign: str, folder: str, rename: str) -> Path:
    """The campaign copied with system ``rename`` called EVIL, run, its page written."""
    shutil.copytree(DATA / folder, tmp_path / folder)
    text = (DATA / campaign).read_text().replace(f"[systems.{rename}]", f'[systems."{EVIL}"]')
    (tmp_path / campaign).write_text(text)
    page = tmp_path / "page.html"
    status = main(["campaign", str(tmp_path / campaign), "--html", str(page), "--progress", "none"])
    assert status == 0
    return page


def dom(browser: str, page: Path, profile: Path, fragment: str = "") -> str:
    result = chromium(browser, page.as_uri() + fragment, profile, "--dump-dom")
    assert console_lines(result.stderr) == []
    return result.stdout


def section(dom_text: str, ident: str) -> str:
    return re.search(rf'<section id="{ident}">(.*?)</section>', dom_text, re.S).group(1)


def test_muc_campaign_page(tmp_path: Path) -> None:
    browser = find_browser()
    page = campaign_page(tmp_path, "muc-campaign.toml", "muc-te", "given")
    source = page.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in source
    shown = dom(browser, page, tmp_path / "profile")
    board = section(shown, "leaderboard")
    # Leaderboard by ALL SLOTS F (test_campaign_kinds: perfect 100, given 80, partial 77.78), escaped.
    names = re.findall(r"<tr[^>]*><td class=\"num\">\d</td><td title=\"[^\"]*\">(.*?)</td>", board)
    assert names == ["perfect", html.escape(EVIL, quote=False), "partial"]
    assert '<td class="num">80.0</td>' in board and '<figure><div class="scroll"><svg' in board
    # The heat map's columns are the MUC slots; the significance matrix is 3 x 3.
    heat = section(shown, "heatmap")
    assert "ORGANIZATION.ORG_TYPE" in heat and "PERSON.PER_TITLE" in heat
    assert section(shown, "significance").count('class="diagonal"') == 3
    # The per-document view of the first document (9303020074) for the best system: the objects (their
    # pointers, slot empty) and the fills.
    rows = re.findall(
        r"<tr[^>]*>(.*?)</tr>", re.search(r'<table id="pairings">(.*?)</table>', shown, re.S).group(1)
    )
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in rows]
    objects = [c for c in cells if c and c[2].startswith("&lt;ORGANIZATION-9303020074-1&gt;")]
    assert objects and objects[0][1] == "\u2014"
    assert any(c[1] == "ORG_TYPE" and c[2] == "COMPANY" and c[3] == "COMPANY" for c in cells if c)


def test_coref_campaign_page(tmp_path: Path) -> None:
    browser = find_browser()
    page = campaign_page(tmp_path, "coref-campaign.toml", "coref-sample", "merged")
    source = page.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in source
    shown = dom(browser, page, tmp_path / "profile")
    board = section(shown, "leaderboard")
    assert "CoNLL F1 %" in board and "CEAF-e F1 %" in board
    # merged by hand (test_campaign_kinds): MUC 90.9, B3 84.6, CEAF-e 78.6, CoNLL 84.7; rank 2.
    merged = re.search(r"<tr[^>]*><td class=\"num\">2</td>(.*?)</tr>", board).group(1)
    assert html.escape(EVIL, quote=False) in merged
    assert re.findall(r'<td class="num">([\d.]+)</td>', merged)[:4] == ["90.9", "84.6", "78.6", "84.7"]
    heat = section(shown, "heatmap")
    assert "F1 by system and metric" in heat and "CoNLL F1" in heat
    assert "Significance of differences in CoNLL F1" in shown
    assert section(shown, "significance").count('class="diagonal"') == 3

    # The split system in d1: key chain {John, him, he} is split ({John, him} and {he}), so highlighted;
    # no response chain merges key chains.
    fragment = "#" + urllib.parse.urlencode({"system": "split"})
    shown = dom(browser, page, tmp_path / "profile", fragment)
    key = re.search(r'<ol id="key-chains">(.*?)</ol>', shown, re.S).group(1)
    response = re.search(r'<ol id="response-chains">(.*?)</ol>', shown, re.S).group(1)
    key_items = re.findall(r"<li( class=\"split\")?>(.*?)</li>", key)
    assert len(key_items) == 2
    assert [bool(flag) for flag, _ in key_items] == [True, False] and "John" in key_items[0][1]
    assert response.count("<li") == 3 and 'class="merged"' not in response

    # The merged system (its name is markup, shown as text): its one chain of d1 merges both key chains.
    fragment = "#" + urllib.parse.urlencode({"system": EVIL})
    shown = dom(browser, page, tmp_path / "profile", fragment)
    response = re.search(r'<ol id="response-chains">(.*?)</ol>', shown, re.S).group(1)
    assert response.count("<li") == 1 and response.startswith('<li class="merged">')
    key = re.search(r'<ol id="key-chains">(.*?)</ol>', shown, re.S).group(1)
    assert 'class="split"' not in key and "<script>alert(1)" not in shown


@pytest.mark.parametrize("campaign", ["muc-campaign.toml", "coref-campaign.toml"])
def test_pages_are_screenshot_without_console_errors(tmp_path: Path, campaign: str) -> None:
    browser = find_browser()
    folder = "muc-te" if campaign.startswith("muc") else "coref-sample"
    page = campaign_page(tmp_path, campaign, folder, "perfect")
    screenshot = tmp_path / "page.png"
    result = chromium(
        browser, page.as_uri(), tmp_path / "profile", f"--screenshot={screenshot}", "--window-size=1280,1600"
    )
    assert console_lines(result.stderr) == [] and screenshot.stat().st_size > 20_000
