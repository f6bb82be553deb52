"""The template reader's one-match path for common lines agrees with its tokenizer (issue 16, point 5).

``_common_line`` reads a header, a pointer, or a quoted string or bare word with one extent (after
an optional slot name) by one regular expression; ``_scan_line`` reads any line. On random lines
made of the pieces of both kinds of line, whenever the one-match path answers, its tokens are the
tokenizer's; and it answers for the lines of the benchmark's layout.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.templette.templates import _common_line, _scan_line

PIECES = [
    "<EVENT-D1-1>", "<EVENT-D-1-2>", "<BAD>", "<A--1>", "<X-Y-Z", ":=", " := ", "WINNER:", "WIN NER:", "a:",
    '"goal"', '"a [b] c"', "\"it's\"", "'x'", '"q"x', "##1#5#", "##5#1#", "##12#", "##1#2#f.sgml", "##1#2#3#",
    "##0012#0013#", "##1234567890123456#1234567890123457#", "DOC0001", "?", "/", "#x", "x#", "12:30", " ",
    "  ", "\t", "\r", "ÉTÉ", "é:",
]  # fmt: skip


def scanned(line: str) -> list | str:
    try:
        return list(_scan_line(line, 3, "t.tpl", after_slot=False))
    except InputError as error:
        return f"error: {error}"


@settings(max_examples=3000, deadline=None)
@example(["a:", "##1#5#"], [" "])  # a slot name, then an extent part without a fill: refused
@example(["WINNER:", "a:", "##1#5#"], [" ", " "])
@example(["WINNER:", '"goal"', "##5#1#"], [" ", " "])  # start after end: refused
@given(st.lists(st.sampled_from(PIECES), max_size=6), st.lists(st.sampled_from(["", " ", "  "]), max_size=6))
def test_common_lines_read_as_the_tokenizer_reads_them(pieces: list[str], gaps: list[str]) -> None:
    line = "".join(piece + (gaps[i] if i < len(gaps) else " ") for i, piece in enumerate(pieces))
    tokens = _common_line(line, 3)
    if tokens is not None:
        assert tokens == scanned(line)


@pytest.mark.parametrize(
    "line",
    [
        "<TEMPLATE-DOC000000-1> :=",
        "    DOC_NR: DOC000000 ##14#23#",
        "    EVENT: <EVENT-DOC000000-1>",
        "           <EVENT-DOC000000-2>",
        '    WINNER: "goal" ##222#226#',
    ],
)
def test_the_benchmark_layout_takes_the_one_match_path(line: str) -> None:
    tokens = _common_line(line, 3)
    assert tokens is not None and tokens == scanned(line)
