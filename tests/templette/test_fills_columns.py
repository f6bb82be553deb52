"""Template files read into the ``fills`` columns agree with the parser, and so do the checks on them
(issue 16, point 5).

:func:`_fills_table_of_text` reads the lines of common kinds with Arrow's string kernels and parses
the instance blocks holding any other line with the parser; the parser (:func:`parse_template_set`,
then :func:`template_set_to_table`) is the specification. On random files made of common lines and of
every other kind of line (alternatives, optional marks, set fills, minimal strings, bad pointers,
reversed extents, duplicate instances and slots, fills before any slot, whitespace Arrow's regular
expressions do not know), whenever the column reader answers, its table is the parser's, metadata
included; where the parser raises, it does not answer. It answers for the benchmark's layout and for
every sample file. :func:`_checks_hold` says the checks pass exactly where IngestTemplates' checks on
the template set pass.
"""

from __future__ import annotations

import glob
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from iescore.pipeline.core.corpus import parse_corpus, read_corpus
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.templette.checks import (
    check_against_corpus,
    check_reference_not_empty,
    check_single_alternatives,
)
from iescore.pipeline.templette.columns import (
    ODD_SPACES,
    _checks_hold,
    _fills_by_parser,
    _fills_table_of_text,
    read_fills,
)
from iescore.pipeline.templette.tables import corpus_to_table, template_set_to_table
from iescore.pipeline.templette.templates import check_pointers, parse_template_set

ROOT = Path(__file__).resolve().parents[2]

HEADERS = [
    "<EVENT-D1-1> :=",
    "<EVENT-D1-2> :=",
    "  <TEMPLATE-D-2-1>   :=  ",
    "<EVENT-D2-1>:=",
    "<BAD> :=",
    "<A--1> :=",
    '<EVENT-D1-3> := WINNER: "x" ##1#2#',
    "<EVENT-D1-1> =",
    "<EVENT-D9-1> :=",
]
SLOT_LINES = [
    '    WINNER: "goal" ##1#5#',
    "    LOSER: goal ##2#6#",
    "    EVENT: <EVENT-D1-1>",
    "    EVENT: <EVENT-D1-2>",
    "    EVENT: <EVENT-D1-9>",
    '    PLACE: "a [b] c" ##1#5#',
    '    PLACE: "a [b] c" ##1#5#3#4#',
    '    DATE: "q" ##5#1#',
    '    DATE: "é"##1#2#',
    "    DATE: 'single' ##1#2#",
    '    WINNER: ? "x" ##1#2#',
    "    TYPE: COMPANY",
    '    LOSER: "x" ##1#2#  / "y" ##3#4#',
    '    OBJ_STATUS: "OPTIONAL" ##1#2#',
    '    OBJ_STATUS: " optional " ##3#9#',
    "    obj_status: OPTIONAL ##1#9#",
    "    WINNER:",
    'WINNER: "x"',
    '    SCORE: "2-0" ##0001#0009#',
    "    SCORE: 12:30 ##1#4#",
    "    SCORE: a: ##1#4#",
    '\tSCORE:\t"x"\t##1#3#\r',
    '    WINNER: "goal" ##1#55#',
    '    WINNER: "g" ##1234567890123456#1234567890123457#',
    '    WINNER:\xa0"goal" ##1#5#',
    "    EVENT: <EVENT-D1-1> <EVENT-D1-2>",
    "    PLACE: <EVENT-D1-1",
    'LOSER: "" ##1#2#',
]
CONTINUATIONS = [
    "           <EVENT-D1-2>",
    '           "more" ##2#3#',
    '         / "alt" ##1#2#',
    "         / <EVENT-D1-2>",
    "         / WIN",
    '         / "alt"',
    "         / alt ##1#2#",
    '         /"alt" ##1#2#',
    '         / / "alt" ##1#2#',
    "   bare ##1#2#",
    "   a: ##1#2#",
    "   ##1#2#",
    "   ?",
    "   <EVENT-D2-1>",
]
BLANKS = ["", "   ", "\t", "\r", "\x0b", "\u3000", "\f"]
LINES = HEADERS + SLOT_LINES + CONTINUATIONS + BLANKS
# Files mostly of common lines (the reader answers for about a third of them), now and then another.
COMMON = [
    line for line in LINES if _fills_table_of_text("<E-D-1> :=\n X: <E-D-1>\n" + line, "r.tpl") is not None
]
WEIGHTED = COMMON * 12 + LINES


def expected_table(text: str):
    """The parser's table, or None where it raises."""
    try:
        return template_set_to_table(parse_template_set(text, "r.tpl"))
    except InputError:
        return None


def assert_agrees(text: str) -> bool:
    """The column reader's table is the parser's whenever it answers; whether it answered."""
    got = _fills_table_of_text(text, "r.tpl")
    if got is None:
        return False
    expected = expected_table(text)
    assert expected is not None, "the column reader read a file the parser refuses"
    assert got.schema.equals(expected.schema, check_metadata=True)
    assert got.equals(expected)
    return True


# A good file: every kind of common line, a slotless instance, an optional instance, blank lines.
GOOD = "\n".join(
    [
        "\ufeff<TEMPLATE-D1-1> :=",
        "    DOC_NR: D1 ##14#16#",
        "    EVENT: <EVENT-D1-1>",
        "           <EVENT-D1-2>",
        "",
        "<EVENT-D1-1> :=",
        '    WINNER: "Egypt" ##20#25#',
        "    LOSER:\tghana ##26#31#\r",
        '    OBJ_STATUS: " optional " ##30#40#',
        "<EVENT-D1-2> :=",
        "   <EVENT-D-2-1>  :=  ",
        '    PLACE: "é" ##1#2#',
        '           "cup" ##5#8#',
        "",
    ]
)


def test_a_file_of_common_lines_is_read_into_columns_as_the_parser_reads_it() -> None:
    assert assert_agrees(GOOD)
    table = _fills_table_of_text(GOOD, "r.tpl")
    assert table is not None
    # By hand: 3 fills, 3 fills, one row for the slotless <EVENT-D1-2> (row 6), 2 fills; <EVENT-D1-1>
    # is optional (its OBJ_STATUS reads " optional ").
    assert table.num_rows == 9
    assert table.column("slot").to_pylist()[6] is None
    assert table.column("instance_optional").to_pylist() == [False] * 3 + [True] * 3 + [False] * 3


@settings(max_examples=2500, deadline=None)
@example(["<EVENT-D1-1> :=", '    WINNER: "goal" ##1#5#', "<EVENT-D1-1> :="], False)  # duplicate instance
@example(
    ["<EVENT-D1-1> :=", '    WINNER: "goal" ##1#5#', '    WINNER: "goal" ##1#5#'], False
)  # duplicate slot
@example(["<EVENT-D1-1> :=", '           "more" ##2#3#'], False)  # a fill before the first slot name
@example(['    WINNER: "goal" ##1#5#', "<EVENT-D1-1> :="], False)  # a fill before the first header
@example(["<EVENT-D1-1> :=", '    PLACE: "a [b] c" ##1#5#'], False)  # a minimal string without its extent
@example(["<EVENT-D1-1> :=", '    DATE: "q" ##5#1#'], False)  # start after end
@example(["<EVENT-D1-1> :=", '    WINNER:\xa0"goal" ##1#5#'], False)  # Python's whitespace, not RE2's
@example(["<EVENT-D1-1> :=", "\x0b"], False)
@example([], False)
@given(st.lists(st.sampled_from(WEIGHTED), max_size=12), st.booleans())
def test_random_files_read_into_columns_as_the_parser_reads_them(lines: list[str], header: bool) -> None:
    assert_agrees("\n".join(["<EVENT-D1-1> :=", *lines] if header else lines))


PIECES = [
    "<EVENT-D1-1>",
    "<E-D-1-2>",
    "<BAD>",
    ":=",
    " := ",
    "WINNER:",
    "a:",
    '"goal"',
    '"a [b]"',
    "'x'",
    "##1#5#",
    "##5#1#",
    "##1#2#3#4#",
    "DOC1",
    "?",
    "/",
    "#",
    "12:30",
    " ",
    "\t",
    "é",
    "\u2003",
    "\x1c",
]


@settings(max_examples=2500, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=5).map(" ".join), max_size=8))
def test_random_lines_of_pieces_read_as_the_parser_reads_them(lines: list[str]) -> None:
    assert_agrees("\n".join(["<EVENT-D1-1> :=", *lines]))


def test_every_odd_space_is_one_python_reads_as_whitespace_and_arrow_does_not() -> None:
    python = {chr(c) for c in range(0x110000) if chr(c).isspace()}
    assert set(ODD_SPACES) == python - set(" \t\n\r\f")


def test_the_benchmark_layout_is_read_into_columns(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_templette import generate

    texts, ref, hyp = generate(tmp_path, 20, 3, 0.3, 7)
    for path in (ref, hyp):
        assert assert_agrees(path.read_text())


@pytest.mark.parametrize(
    "path",
    sorted(
        set(glob.glob(str(ROOT / "data" / "**" / "*.tpl"), recursive=True))
        | set(glob.glob(str(ROOT / "tests" / "data" / "**" / "*.tpl"), recursive=True))
        | set(glob.glob(str(ROOT.parent / "shared" / "**" / "*.tpl"), recursive=True))
    ),
)
def test_sample_files_read_into_columns_as_the_parser_reads_them(path: str) -> None:
    assert assert_agrees(Path(path).read_text(encoding="utf-8"))


BLOCKS = [
    "<EVENT-D1-1> :=",
    '    WINNER: "goal" ##1#5#',
    "<EVENT-D1-2> :=",
    '    LOSER: "x" ##1#2#',
    '         / "y" ##3#4#',
    "    TYPE: TWO WORDS",
    "<EVENT-D1-3> :=",
    "    EVENT: <EVENT-D1-2>",
]


def test_a_block_with_another_line_is_parsed_and_kept_in_file_order() -> None:
    assert assert_agrees("\n".join(BLOCKS))
    table = _fills_table_of_text("\n".join(BLOCKS), "r.tpl")
    assert table is not None
    # By hand: WINNER; LOSER's two alternatives and TYPE (parsed); the pointer fill.
    assert table.column("line").to_pylist() == [2, 4, 5, 6, 8]
    assert table.column("alternative").to_pylist() == [0, 0, 1, 0, 0]
    assert table.column("content").to_pylist() == ["goal", "x", "y", "TWO WORDS", "<EVENT-D1-2>"]


def test_the_seeds_alternative_lines_are_read_into_columns() -> None:
    # Seed 000 writes a reference's further alternatives one per line, each after a '/'. By hand:
    # "a" is alternative 0; '/' starts alternative 1 ("b", then "c" on a line of its own); '/' again
    # starts alternative 2 ("d").
    text = "\n".join(
        [
            "<EVENT-D1-1> :=",
            '    WINNER: "a" ##1#2#',
            '           / "b" ##3#4#',
            '             "c" ##5#6#',
            '           / "d" ##7#8#',
            "    TYPE: WIN",
            "           / LOSS",
        ]
    )
    assert assert_agrees(text)
    table = _fills_table_of_text(text, "r.tpl")
    assert table.column("alternative").to_pylist() == [0, 1, 1, 2, 0, 1]
    assert table.column("fill_index").to_pylist() == [0, 0, 1, 0, 0, 0]


@pytest.mark.parametrize(
    "change",
    [
        ("<EVENT-D1-3> :=", "<EVENT-D1-2> :="),  # a common block repeats a parsed block's instance
        ("<EVENT-D1-1> :=", "<EVENT-D1-2> :="),  # and the other way round
        ('         / "y" ##3#4#', '         / / "y" ##3#4#'),  # the parsed block is refused
    ],
)
def test_a_file_with_a_bad_block_is_left_to_the_parser(change: tuple[str, str]) -> None:
    text = "\n".join(BLOCKS).replace(*change)
    assert _fills_table_of_text(text, "r.tpl") is None
    assert expected_table(text) is None


# --- the checks ---------------------------------------------------------------------------------------

CORPUS = parse_corpus(
    "<DOC><DOCNO> D1 </DOCNO><TEXT>" + "x" * 40 + "</TEXT></DOC>\n"
    "<DOC><DOCNO> D2 </DOCNO><TEXT>" + "é" * 10 + "</TEXT></DOC>\n"
)
DOCUMENTS = corpus_to_table(CORPUS)


def old_checks_pass(text: str, role: str, with_corpus: bool, unsegmented: bool) -> bool:
    template_set = parse_template_set(text, "r.tpl")
    try:
        check_pointers(template_set)
        if role == "hypothesis":
            check_single_alternatives(template_set)
        else:
            check_reference_not_empty(template_set)
        if with_corpus:
            check_against_corpus(template_set, CORPUS, unsegmented)
    except InputError:
        return False
    return True


CHECK_LINES = [
    "<EVENT-D1-1> :=",
    "<EVENT-D1-2> :=",
    "<EVENT-D2-1> :=",
    "<EVENT-D3-1> :=",
    "    EVENT: <EVENT-D1-1>",
    "    EVENT: <EVENT-D2-1>",
    "    EVENT: <EVENT-D1-7>",
    '    WINNER: "x" ##0#5#',
    '    LOSER: "x" ##30#60#',
    '    PLACE: "é" ##45#53#',
    '    PLACE: "é" ##45#54#',
    '    PLACE: "a [b]" ##0#50#1#40#',
    '    PLACE: "a [b]" ##0#90#1#84#',
    '    PLACE: "a [b]" ##0#84#1#84#',
    '    PLACE: "x" ##0#5#  / "y" ##1#2#',
    '    COMMENT: "none"',
    "    TYPE: COMPANY",
    '    DATE: "x" ##61#70#',
    "    SCORE: x ##0#1#",
]


@settings(max_examples=1500, deadline=None)
@example(["<EVENT-D1-1> :=", '    LOSER: "x" ##30#60#'], "reference", True, False)
@example(["<EVENT-D2-1> :=", '    PLACE: "é" ##45#53#'], "reference", True, False)  # D2 is 53 long
@example(["<EVENT-D2-1> :=", '    PLACE: "é" ##45#54#'], "reference", True, False)
@example(["<EVENT-D1-2> :=", '    PLACE: "a [b]" ##0#50#1#84#'], "reference", True, False)  # D1: 83
@example(["<EVENT-D3-1> :=", "    SCORE: x ##0#1#"], "hypothesis", True, True)  # unsegmented: D1 for all
@given(
    st.lists(st.sampled_from(CHECK_LINES), min_size=1, max_size=8).map(
        lambda lines: ["<EVENT-D1-1> :=", *lines]
    ),
    st.sampled_from(["reference", "hypothesis"]),
    st.booleans(),
    st.booleans(),
)
def test_the_column_checks_pass_only_where_the_template_set_checks_do(
    lines: list[str], role: str, with_corpus: bool, unsegmented: bool
) -> None:
    text = "\n".join(lines)
    table = _fills_table_of_text(text, "r.tpl")
    if table is None:
        return
    holds = _checks_hold(table, role, DOCUMENTS if with_corpus else None, unsegmented)
    passes = old_checks_pass(text, role, with_corpus, unsegmented)
    assert not holds or passes
    # The column checks are exact on these files: they say "pass" wherever the checks pass.
    assert holds == passes


def test_the_checks_hold_on_a_good_file() -> None:
    text = "\n".join(
        ["<EVENT-D1-1> :=", "    EVENT: <EVENT-D2-1>", '    WINNER: "x" ##0#5#', "<EVENT-D2-1> :="]
    )
    table = _fills_table_of_text(text, "r.tpl")
    assert table is not None
    assert _checks_hold(table, "reference", DOCUMENTS, False)
    assert _checks_hold(table, "hypothesis", None, False)
    # A pointer to no instance of the set: check_pointers raises, so the columns do not say "pass".
    dangling = _fills_table_of_text(text.replace("EVENT: <EVENT-D2-1>", "EVENT: <EVENT-D2-2>"), "r.tpl")
    assert dangling is not None and not _checks_hold(dangling, "reference", None, False)


# --- IngestTemplates' outcome on mutated sample files --------------------------------------------------


def ingest_by_parser(text: str, role: str, documents, unsegmented: bool):
    """What IngestTemplates did before the column path: parse, check, convert."""
    return _fills_by_parser(text, "m.tpl", role, documents, unsegmented)


def outcome(function, *args) -> object:
    try:
        table = function(*args)
    except InputError as error:
        return str(error)
    return table


def test_mutated_sample_files_give_the_parsers_table_or_its_error() -> None:
    """The fuzzer's mutations (truncation, lines deleted, duplicated, swapped or spliced, bad bytes,
    structural characters, huge, negative and odd numbers, CRLF and BOM) of the sample template files:
    ``read_fills`` gives the same table, or raises the same error (file, line, message), as the
    parser and the template-set checks, as reference and as hypothesis, with and without the corpus."""
    import random
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from fuzz_readers import MUTATIONS

    sports = ROOT / "data" / "hub4-sports"
    documents = corpus_to_table(read_corpus(sports / "texts.sgml"))
    files = [sports / name for name in ("ref.tpl", "hyp.tpl", "eager.tpl", "sloppy.tpl")]
    rng = random.Random(16)
    mutations = sorted(set(MUTATIONS) - {"bad_bytes", "long_line"})  # bytes: the decoder's; time
    tables = 0
    for round_ in range(400):
        data = files[round_ % len(files)].read_bytes()
        mutated = MUTATIONS[mutations[round_ % len(mutations)]](data, rng)
        text = mutated.decode("utf-8", errors="replace")
        role = rng.choice(["reference", "hypothesis"])
        corpus = documents if rng.random() < 0.7 else None
        unsegmented = rng.random() < 0.2
        expected = outcome(ingest_by_parser, text, role, corpus, unsegmented)
        got = outcome(read_fills, text, "m.tpl", role, corpus, unsegmented)
        if isinstance(expected, str):
            assert got == expected
        else:
            assert not isinstance(got, str), got
            assert got.schema.equals(expected.schema, check_metadata=True) and got.equals(expected)
            tables += 1
    assert tables > 50  # both outcomes occur
