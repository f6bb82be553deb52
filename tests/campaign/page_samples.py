"""Campaign pages of any number of systems for the page's geometry tests (and to look at).

The systems are made to be hard to show: long names that differ only at their end
(``university-of-somewhere-nlp-run-1`` and ``-run-2``), attributes that tell runs apart written after the
name as a campaign writes them (``(run: 2, additional: yes)``), two systems identical in every number,
one system without any hypothesis (precision and F undefined), and scores crowded into a narrow band so
that the precision-recall plot's points sit close together.
"""

from __future__ import annotations

import base64
import html
import json
import re

from iescore.pipeline.campaign.html_report import CampaignReport, SystemRow

PREFIX = "university-of-somewhere-nlp-run-"
SLOTS = ("GAME.WINNER", "GAME.LOSER", "GAME.SCORE", "ORGANIZATION.NAME")


def system_name(index: int) -> str:
    """The name of system ``index`` (0-based): every fifth carries its attributes, the others not."""
    name = f"{PREFIX}{index + 1}"
    if index % 5 == 4:
        name += f" (run: {index % 3 + 1}, additional: {'yes' if index % 2 else 'no'})"
    return name


def _row(rank: int, system: str, cor: int, inc: int, mis: int, spu: int) -> SystemRow:
    pos, act = cor + inc + mis, cor + inc + spu
    recall = cor / pos if pos else None
    precision = cor / act if act else None
    f = None if recall is None or precision is None else 2 * cor / (pos + act)
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
            "F": (None, None) if f is None else (max(0.0, f - 0.04), min(1.0, f + 0.03)),
        },
        signature=f"scorer:templette|sys:{system}|version:0.1.0",
    )


def sample_report(count: int, pairings: bool = True, scattered: bool = False) -> CampaignReport:
    """A campaign of ``count`` systems (at least 2): the last has no hypothesis at all (precision and F
    undefined); with 3 or more, the second and third are identical in every number.

    The counts lie on a coarse grid (many systems share a point) or, ``scattered``, spread
    pseudo-randomly (few ties, points at any distance from each other)."""
    counts = []
    state = 12345
    for index in range(count - 1):
        if scattered:
            # COR in 600-899, INC 0-49, SPU 0-199 over 1000 reference fills (a linear congruential draw).
            draws = []
            for _ in range(3):
                state = (1103515245 * state + 12345) % 2**31
                draws.append(state >> 8)
            cor, inc, spu = 600 + draws[0] % 300, draws[1] % 50, draws[2] % 200
            counts.append((cor, inc, 1000 - cor - inc, spu))
            continue
        # COR in 70-89, INC 0-2, SPU 0-10 over 100 reference fills: a band of about 15 points.
        cor, inc, spu = 70 + (index * 7) % 20, index % 3, (index * 5) % 11
        counts.append((cor, inc, 100 - cor - inc, spu))
    if count >= 3:
        counts[2] = counts[1]
    counts.sort(key=lambda c: -2 * c[0] / (c[0] + c[1] + c[2] + c[0] + c[1] + c[3]))  # F, best first
    board = [_row(rank + 1, system_name(rank), *numbers) for rank, numbers in enumerate(counts)]
    board.append(_row(count, system_name(count - 1), 0, 0, 100, 0))
    names = [row.system for row in board]
    slot_f = {
        name: {
            slot: None if row.measures["F"] is None else (rank * 3 + j) % 10 / 10
            for j, slot in enumerate(SLOTS)
        }
        for rank, (name, row) in enumerate(zip(names, board, strict=True))
    }
    significance = {}
    for a in range(count):
        for b in range(a + 1, count):
            fa, fb = board[a].measures["F"], board[b].measures["F"]
            delta = None if fa is None or fb is None else fa - fb
            significance[(names[a], names[b])] = (delta, (a + b) % 7 / 10, (a * b) % 9 / 10)
    common = dict(
        title=f"{count} systems",
        signature_note="scorer:templette|version:0.1.0",
        leaderboard=board,
        slot_f=slot_f,
        significance=significance,
        documents=[],
        documents_total=0,
        resamples=200,
        seed=12345,
    )
    if pairings:
        return CampaignReport(**common)
    return CampaignReport(
        **common,
        headline="F",
        headline_label="strict F",
        columns={"PRE": "strict P", "REC": "strict R", "F": "strict F"},
        unit="reports",
        categories="CUI",
        percent=False,
        sections=(),
    )


def board_data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="board-data">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


def marked_pairs(page: str) -> set[tuple[str, str]]:
    """The pairs (better, worse) the page marks, decoded from its embedded bits."""
    data = board_data(page)
    names = data["systems"]
    bits = base64.b64decode(data["marks"])
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    return {pair for k, pair in enumerate(pairs) if bits[k >> 3] >> (k & 7) & 1}


def board_rows(page: str) -> list[list[str]]:
    """The leaderboard's rows as the page's script draws them: each row's cell texts, from the page's data
    (each column once, the system's name by its place in the list of systems)."""
    data = board_data(page)
    names, cells = data["systems"], data["rows"]["cells"]
    count = len(data["rows"]["signatures"])
    return [[names[i] if column is None else column[i] for column in cells] for i in range(count)]


def board_headings(page: str) -> list[str]:
    """The leaderboard's column headings, as the page writes them (unescaped)."""
    head = re.search(r'<table class="board"[^>]*><thead><tr>(.*?)</tr></thead>', page, re.S).group(1)
    return [html.unescape(text) for text in re.findall(r"<th[^>]*>(.*?)</th>", head)]
