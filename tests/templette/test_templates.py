"""Tests of pipeline.templette.templates: both layouts, the writer, bad input, and a write/parse round
trip."""

from __future__ import annotations

import dataclasses
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.templette.model import (
    Extent,
    Fill,
    Instance,
    Pointer,
    PointerFill,
    SetFill,
    Slot,
    TemplateSet,
    TextFill,
)
from iescore.pipeline.templette.templates import (
    check_pointers,
    parse_template_set,
    read_template_set,
    write_template_set,
)

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "samples" / "hub4-sports"

SEED_001_KEY = (
    '<ORGANIZATION-9303020074-1> := ORG_NAME: "Evergreen Information Technologies Inc." ORG_TYPE: /COMPANY '
    'ORG_ALIAS: "Evergreen Information Technologies" "Evergreen" "Evergreen Information" /"Evergreen" '
    '"Evergreen Information" ORG_LEADER: <PERSON-9303020074-57> OBJ_STATUS: OPTIONAL'
)


def only_fill(slot: Slot | None) -> Fill:
    """The single fill of a one-alternative, one-fill slot."""
    assert slot is not None
    assert len(slot.alternatives) == 1 and len(slot.alternatives[0]) == 1
    return slot.alternatives[0][0]


def normalized(template_set: TemplateSet, keep_quotes: bool = True) -> list[object]:
    """The template set without line numbers (and text-fill quote flags unless ``keep_quotes``)."""

    def fill(single: Fill) -> Fill:
        if isinstance(single, TextFill) and not keep_quotes:
            return dataclasses.replace(single, line=0, quoted=True)
        return dataclasses.replace(single, line=0)

    return [
        (
            instance.pointer,
            [
                (slot.name, slot.optional, [[fill(single) for single in alt] for alt in slot.alternatives])
                for slot in instance.slots
            ],
        )
        for instance in template_set.instances
    ]


# --- the seed samples ----------------------------------------------------------------------------------


def test_reference_sample() -> None:
    template_set = read_template_set(SAMPLE / "ref.tpl")
    assert template_set.source == str(SAMPLE / "ref.tpl")
    assert [instance.pointer.type for instance in template_set.instances] == ["TEMPLATE"] * 3 + [
        "SPORTS_EVENT"
    ]
    assert [instance.line for instance in template_set.instances] == [1, 5, 9, 14]
    first, _, third, event = template_set.instances

    doc_nr = only_fill(first.slot("DOC_NR"))
    assert doc_nr == TextFill("ABC19980307.1830.1415", (Extent(14, 35),), quoted=False, line=2)
    comment = only_fill(first.slot("COMMENT"))
    assert (
        isinstance(comment, TextFill)
        and comment.extents == ()
        and comment.content == "Race hasn't started yet"
    )

    assert only_fill(third.slot("EVENT")) == PointerFill(
        Pointer("SPORTS_EVENT", "PRI19980302.2000.2923", "1"), 11
    )

    s_event = event.slot("S_EVENT")
    assert s_event is not None and s_event.line == 15
    assert [[fill.content for fill in alt] for alt in s_event.alternatives] == [
        ["African cup of nation soccer tournament"],
        ["the African cup"],
        ["the tournament"],
    ]
    assert [alt[0].line for alt in s_event.alternatives] == [15, 16, 17]
    loser = only_fill(event.slot("LOSER"))
    assert isinstance(loser, TextFill)
    assert loser.content == "defending champion south Africa"
    assert loser.minimal_contents == ("south Africa",)
    assert loser.extents == (Extent(295, 326), Extent(314, 326))
    location = event.slot("LOCATION")
    assert location is not None and len(location.alternatives) == 2
    assert not event.optional


def test_hypothesis_sample() -> None:
    template_set = read_template_set(SAMPLE / "hyp.tpl")
    assert len(template_set.instances) == 4
    event = template_set.instances[3]
    assert [slot.name for slot in event.slots] == ["S_EVENT", "WINNER", "LOSER", "SCORE", "LOCATION", "DATE"]
    assert all(len(slot.alternatives) == 1 for slot in event.slots)
    loser = only_fill(event.slot("LOSER"))
    assert (
        isinstance(loser, TextFill) and loser.minimal_contents == () and loser.extents == (Extent(295, 326),)
    )


@pytest.mark.parametrize("name", ["ref.tpl", "hyp.tpl"])
def test_writer_reproduces_the_samples(name: str) -> None:
    text = (SAMPLE / name).read_text(encoding="utf-8")
    assert write_template_set(parse_template_set(text)) == text


def test_seed_001_key_record_on_one_line() -> None:
    (instance,) = parse_template_set(SEED_001_KEY).instances
    assert instance.pointer == Pointer("ORGANIZATION", "9303020074", "1")
    assert only_fill(instance.slot("ORG_TYPE")) == SetFill("COMPANY", line=1)
    alias = instance.slot("ORG_ALIAS")
    assert alias is not None
    assert [[fill.raw for fill in alt] for alt in alias.alternatives] == [
        ["Evergreen Information Technologies", "Evergreen", "Evergreen Information"],
        ["Evergreen", "Evergreen Information"],
    ]
    assert only_fill(instance.slot("ORG_LEADER")) == PointerFill(Pointer("PERSON", "9303020074", "57"), 1)
    assert instance.optional
    assert [slot.name for slot in instance.slots] == [
        "ORG_NAME",
        "ORG_TYPE",
        "ORG_ALIAS",
        "ORG_LEADER",
        "OBJ_STATUS",
    ]


def test_seed_001_record_split_over_lines_reads_the_same() -> None:
    split = SEED_001_KEY.replace(" ORG_", "\n    ORG_").replace(" /", "\n        /").replace(" OBJ", "\n OBJ")
    assert normalized(parse_template_set(split)) == normalized(parse_template_set(SEED_001_KEY))


def test_several_records_on_one_line_and_empty_instances() -> None:
    template_set = parse_template_set('<A-D-1> := X: a <A-D-2> :=\n<B-D-x-1>:= Y: "b"')
    assert [instance.pointer for instance in template_set.instances] == [
        Pointer("A", "D", "1"),
        Pointer("A", "D", "2"),
        Pointer("B", "D-x", "1"),
    ]
    assert template_set.instances[1].slots == ()
    assert template_set.instances[2].line == 2
    assert template_set.instance_sets().keys() == {"D", "D-x"}


def test_largest_offset_and_leading_zeros() -> None:
    fill = parse_template_set('<A-D-1> :=\n X: "a" ##0000000000000000000000001#9007199254740991#\n')
    assert fill.instances[0].slots[0].alternatives[0][0].extents == (Extent(1, 2**53 - 1),)


def test_empty_file_is_an_empty_template_set() -> None:
    assert parse_template_set("", "empty.tpl") == TemplateSet((), "empty.tpl")
    assert parse_template_set("\ufeff\n  \n").instances == ()
    assert write_template_set(TemplateSet(())) == ""


def test_two_pointers_on_two_lines_are_one_alternative() -> None:
    text = (
        "<TEMPLATE-PRI19980302.2000.2923-1> :=\n"
        "    EVENT: <SPORTS_EVENT-PRI19980302.2000.2923-1>\n"
        "           <SPORTS_EVENT-PRI19980302.2000.2923-2>\n"
        '    COMMENT: "1986 tournament optional, since no location given"\n'
    )
    instance = parse_template_set(text).instances[0]
    event = instance.slot("EVENT")
    assert event is not None
    (alternative,) = event.alternatives
    assert [fill.target.one_up for fill in alternative] == ["1", "2"]
    assert [fill.line for fill in alternative] == [2, 3]
    assert write_template_set(parse_template_set(text)) == text


def test_several_fills_on_one_line_and_slash_alternatives() -> None:
    text = '<A-D-1> :=\n    NAME: "a" "b"\n        / "c"\n        /"d" ##1#2# e f\n'
    slot = parse_template_set(text).instances[0].slot("NAME")
    assert slot is not None
    assert [[(type(fill).__name__, fill.line) for fill in alt] for alt in slot.alternatives] == [
        [("TextFill", 2), ("TextFill", 2)],
        [("TextFill", 3)],
        [("TextFill", 4), ("SetFill", 4)],
    ]
    assert slot.alternatives[2][1] == SetFill("e f", line=4)


def test_extent_part_with_texts_file_name() -> None:
    slot = (
        parse_template_set('<A-D-1> := SLOT_NAME: "a slot fill" ##392#404#textsfilename')
        .instances[0]
        .slots[0]
    )
    assert only_fill(slot) == TextFill("a slot fill", (Extent(392, 404),), line=1)


def test_unquoted_text_fill_and_bare_words() -> None:
    text = "<A-D-1> :=\n  DATE: thirsty ##10#20#\n  TYPE:   NEW    YORK \n  NOTE: hasn't  a\"b 03/02/1998\n"
    instance = parse_template_set(text).instances[0]
    assert only_fill(instance.slot("DATE")) == TextFill("thirsty", (Extent(10, 20),), quoted=False, line=2)
    assert only_fill(instance.slot("TYPE")) == SetFill("NEW YORK", line=3)
    assert only_fill(instance.slot("NOTE")) == SetFill("hasn't a\"b 03/02/1998", line=4)


def test_single_quotes_with_apostrophes_inside() -> None:
    slot = parse_template_set("<A-D-1> := C: 'Race hasn't started' ##1#9# 'x'").instances[0].slots[0]
    assert [fill.raw for fill in slot.alternatives[0]] == ["Race hasn't started", "x"]


def test_optional_slot() -> None:
    text = '<A-D-1> :=\n    WINNER: ? "Egypt" ##332#337#\n           / ?\n    LOSER:\n    ?\n    /X\n'
    instance = parse_template_set(text).instances[0]
    winner, loser = instance.slots
    assert winner.optional and loser.optional
    assert winner.alternatives[1] == (SetFill("?", line=3),)
    assert loser.alternatives == ((SetFill("X", line=6),),)
    written = write_template_set(TemplateSet((instance,)))
    assert '    WINNER: ? "Egypt" ##332#337#\n            / ?\n    LOSER: ? X\n' in written
    assert normalized(parse_template_set(written)) == normalized(TemplateSet((instance,)))


def test_question_mark_fill_first_in_a_plain_slot_is_written_after_a_slash() -> None:
    template_set = parse_template_set("<A-D-1> := X: / ? w Y: ? ? ##1#2#")
    x, y = template_set.instances[0].slots
    assert not x.optional and x.alternatives == ((SetFill("? w", line=1),),)
    assert y.optional and y.alternatives == ((TextFill("?", (Extent(1, 2),), quoted=False, line=1),),)
    written = write_template_set(template_set)
    assert written == "<A-D-1> :=\n    X: / ? w\n    Y: ? ? ##1#2#\n"
    assert normalized(parse_template_set(written)) == normalized(template_set)


def test_crlf_line_ends() -> None:
    text = '<A-D-1> :=\r\n    X: "a" ##1#2#\r\n       / b\r\n'
    slot = parse_template_set(text).instances[0].slots[0]
    assert slot.alternatives == ((TextFill("a", (Extent(1, 2),), line=2),), (SetFill("b", line=3),))


# --- writer --------------------------------------------------------------------------------------------


def test_writer_layout() -> None:
    template_set = TemplateSet(
        (
            Instance(
                Pointer("T", "D-1", "1"),
                (
                    Slot(
                        "EVENT",
                        (
                            (PointerFill(Pointer("E", "D-1", "1")), PointerFill(Pointer("E", "D-1", "2"))),
                            (SetFill("NONE"),),
                        ),
                    ),
                    Slot("X", ((TextFill('say "hi"', (Extent(1, 9),)), TextFill("a", quoted=False)),)),
                ),
            ),
            Instance(Pointer("E", "D-1", "1"), ()),
        )
    )
    assert write_template_set(template_set) == (
        "<T-D-1-1> :=\n"
        "    EVENT: <E-D-1-1>\n"
        "           <E-D-1-2>\n"
        "         / NONE\n"
        "    X: 'say \"hi\"' ##1#9#\n"
        '       "a"\n'
        "\n"
        "<E-D-1-1> :=\n"
    )


@pytest.mark.parametrize(
    "fill",
    [
        SetFill("two: words"),
        SetFill(" padded"),
        SetFill(""),
        SetFill("/x"),
        TextFill("""both ' and " """),
        TextFill("new\nline"),
    ],
)
def test_writer_refuses_what_would_not_read_back(fill: SetFill | TextFill) -> None:
    template_set = TemplateSet((Instance(Pointer("A", "D", "1"), (Slot("S", ((fill,),)),)),))
    with pytest.raises(ValueError):
        write_template_set(template_set)


@pytest.mark.parametrize(
    "pointer", [Pointer("A-B", "D", "1"), Pointer("A", "D", "1-2"), Pointer("A", "", "1")]
)
def test_writer_refuses_bad_pointers(pointer: Pointer) -> None:
    with pytest.raises(ValueError):
        write_template_set(TemplateSet((Instance(pointer, ()),)))


# --- pointers and files --------------------------------------------------------------------------------


def test_check_pointers() -> None:
    good = parse_template_set("<A-D-1> := P: <B-D-1>\n<B-D-1> :=\n", "ok.tpl")
    check_pointers(good)
    bad = parse_template_set("<A-D-1> :=\n  P: <B-D-1>\n     <B-D-2>\n<B-D-1> :=\n", "bad.tpl")
    with pytest.raises(InputError) as caught:
        check_pointers(bad)
    assert caught.value.line == 3 and "bad.tpl:3:" in str(caught.value) and "<B-D-2>" in str(caught.value)


def test_read_template_set_encodings(tmp_path: Path) -> None:
    path = tmp_path / "latin.tpl"
    path.write_bytes(b'<A-D-1> :=\n  X: "ok"\n  Y: "caf\xe9"\n')
    with pytest.raises(InputError) as caught:
        read_template_set(path)
    assert f"{path}:3:" in str(caught.value) and "encoding" in str(caught.value)
    slot = read_template_set(path, encoding="latin-1").instances[0].slot("Y")
    assert only_fill(slot).raw == "café"
    with pytest.raises(InputError) as missing:
        read_template_set(tmp_path / "missing.tpl")
    assert "missing.tpl" in str(missing.value)


# --- bad input -----------------------------------------------------------------------------------------

BAD_INPUTS = [
    ("DOC_NR: X ##1#2#\n<A-D-1> :=\n", 1, "instance header '<TYPE-DOCID-ONEUP> :=' expected"),
    ("\n\nstray words\n<A-D-1> :=\n", 3, "instance header"),
    ("<A-D-1>\n  X: y\n", 1, "instance header '<TYPE-DOCID-ONEUP> :=' expected"),
    ("<A-D-1> :=\n    WINNER:\n", 2, "slot body expected after 'WINNER:'"),
    ("<A-D-1> :=\n    WINNER:\n    LOSER: x\n", 2, "slot body expected after 'WINNER:'"),
    ("<A-D-1> :=\n    WINNER: ?\n<A-D-2> :=\n", 2, "slot body expected after 'WINNER:'"),
    ('<A-D-1> :=\n  "x"\n', 2, "slot name 'NAME:' expected"),
    ("<A-D-1> := X: a\n<TEMPLATE-D-1> =\n  Y: b\n", 2, "':=' expected after instance pointer <TEMPLATE-D-1>"),
    ("<A-D-1> := X: a\n<TEMPLATE-D-1 :=\n", 2, "'>' expected"),
    ("<A-D-1> := X: <B-D-1>x\n", 1, "whitespace or ':=' expected after pointer <B-D-1>"),
    ("<A-D-1> :=\n<B-D-1> :=\n<A-D-1> :=\n", 3, "duplicate instance <A-D-1>; first defined on line 1"),
    # A minimal string lies inside its maximal string, and so does its extent: 5#12 is not in 10#20.
    ('<A-D-1> :=\n  X: "a [b]" ##10#20#5#12#\n', 2, "minimal extent 5#12 must lie inside the maximal extent"),
    ("<A-D-1> := X: a <A-D-1> := Y: b\n", 1, "duplicate instance <A-D-1>"),
    ("<A-D-1> :=\n  X: a\n  Y: b\n  X: c\n", 4, "duplicate slot 'X:' in instance <A-D-1>; first on line 2"),
    ("<A-D-1> := X: a X: b\n", 1, "duplicate slot 'X:'"),
    ('<A-D-1> :=\n  X: "abc\n  def"\n', 2, "unterminated quote"),
    ('<A-D-1> :=\n  X: "abc"def\n', 2, "whitespace or an extent part '##...' expected after the closing"),
    ("<AB-1> :=\n", 1, "'<TYPE-DOCID-ONEUP>' expected"),
    ("<A--1> :=\n", 1, "three non-empty parts"),
    ('<A-D-1> :=\n X: "a" ##40#30#\n', 2, "extent start 40 must be less than its end 30"),
    ('<A-D-1> :=\n X: "a" ##5#5#\n', 2, "extent start 5 must be less than its end 5"),
    ('<A-D-1> :=\n X: "a" ##1#2#3#\n', 2, "pairs of start and end expected"),
    ('<A-D-1> :=\n X: "a" ##1#x#\n', 2, "malformed extent part"),
    ('<A-D-1> :=\n X: "a" ##1#2\n', 2, "malformed extent part"),
    ('<A-D-1> :=\n X: "a" ##1#2#3\n', 2, "malformed extent part"),
    ('<A-D-1> :=\n X: "a" ##1#2#f#g\n', 2, "malformed extent part"),
    ("<A-D-1> :=\n X: ##1#2#\n", 2, "extent part '##...' must follow a text fill"),
    ('<A-D-1> :=\n X: "a"\n    ##1#2#\n', 3, "must follow a text fill on the same line"),
    ("<A-D-1> :=\n X: <B-D-1> ##1#2#\n", 2, "must follow a text fill"),
    ('<A-D-1> :=\n X: "a [b" ##1#2#\n', 2, "unbalanced '['"),
    ('<A-D-1> :=\n X: "a] b"\n', 2, "unbalanced ']'"),
    ('<A-D-1> :=\n X: "[a [b]]"\n', 2, "minimal strings cannot nest"),
    ('<A-D-1> :=\n X: "a [b]" ##1#5#\n', 2, "needs 2 extent(s)"),
    ('<A-D-1> :=\n X: "ab" ##1#5#2#3#\n', 2, "needs 1 extent(s)"),
    ("<A-D-1> :=\n X: x [y] ##1#5#\n", 2, "needs 2 extent(s)"),
    ('<A-D-1> :=\n X: "a"\n    /\n Y: b\n', 3, "fill expected after '/' in slot 'X:'"),
    ('<A-D-1> :=\n X: "a"\n    / /"b"\n', 3, "fill expected between two '/'"),
    ("<A-D-1> :=\n X: //a\n", 2, "fill expected between two '/'"),
    # Offsets beyond 2**53 - 1 = 9007199254740991 (they used to overflow Arrow's int64 in a traceback).
    ('<A-D-1> :=\n X: "a" ##99999999999999999999999#3#\n', 2, "offset 99999999999999999999999 in extent"),
    ('<A-D-1> :=\n X: "a" ##1#9007199254740992#\n', 2, "too large: at most 9007199254740991"),
    ('<A-D-1> :=\n X: "a" ##1#' + "9" * 5000 + "#\n", 2, "offset 999999999999999999999999999... in"),
    ('<A-D-1> :=\n X: "a" ##-5#3#\n', 2, "malformed extent part"),
]


@pytest.mark.parametrize(("text", "line", "phrase"), BAD_INPUTS)
def test_bad_input(text: str, line: int, phrase: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_template_set(text, "bad.tpl")
    assert caught.value.file == "bad.tpl" and caught.value.line == line
    assert str(caught.value).startswith(f"bad.tpl:{line}: ")
    assert phrase in str(caught.value)


# --- round trip ----------------------------------------------------------------------------------------

_ALNUM = string.ascii_letters + string.digits
_pointers = st.builds(
    Pointer,
    st.text(string.ascii_uppercase + "_", min_size=1, max_size=8),
    st.text(string.ascii_uppercase + string.digits + ".-", min_size=1, max_size=12),
    st.text(_ALNUM, min_size=1, max_size=3),
)
_bare_words = st.builds(str.__add__, st.sampled_from(_ALNUM), st.text(_ALNUM + "_.'/#-", max_size=6))
_quoted_words = st.text(_ALNUM + " '.,:;/<>?#!-", max_size=8)
_extents = st.builds(
    lambda start, size: Extent(start, start + size), st.integers(0, 10**6), st.integers(1, 999)
)


@st.composite
def _text_fills(draw: st.DrawFn) -> TextFill:
    quoted = draw(st.booleans())
    words = _quoted_words if quoted else _bare_words
    segments = draw(st.lists(st.tuples(words, st.booleans()), min_size=0 if quoted else 1, max_size=4))
    raw = " ".join(f"[{word}]" if bracketed else word for word, bracketed in segments)
    pairs = sum(bracketed for _, bracketed in segments)
    count = pairs + 1 if pairs or not quoted else draw(st.integers(0, 1))
    if count == 0:
        return TextFill(raw, (), quoted=quoted)
    maximal = draw(_extents)
    # Minimal extents lie inside the maximal one (the reader refuses any other).
    inner = st.builds(
        lambda start, size: Extent(start, min(start + size, maximal.end)),
        st.integers(maximal.start, maximal.end - 1),
        st.integers(1, 999),
    )
    minimal = draw(st.lists(inner, min_size=count - 1, max_size=count - 1))
    return TextFill(raw, (maximal, *minimal), quoted=quoted)


_set_fills = st.builds(SetFill, st.lists(_bare_words, min_size=1, max_size=3).map(" ".join))
_fills = st.one_of(st.builds(PointerFill, _pointers), _set_fills, _text_fills())
_slots = st.builds(
    Slot,
    st.text(_ALNUM + "_-", min_size=1, max_size=10),
    st.lists(st.lists(_fills, min_size=1, max_size=3).map(tuple), min_size=1, max_size=3).map(tuple),
    optional=st.booleans(),
)
_instances = st.builds(
    Instance, _pointers, st.lists(_slots, max_size=4, unique_by=lambda slot: slot.name).map(tuple)
)
_template_sets = st.builds(
    TemplateSet, st.lists(_instances, max_size=4, unique_by=lambda instance: instance.pointer).map(tuple)
)


@settings(max_examples=100, deadline=None)
@given(_template_sets)
def test_write_then_parse_round_trips(template_set: TemplateSet) -> None:
    assert normalized(parse_template_set(write_template_set(template_set))) == normalized(template_set)


_PIECES = ["<A-D-1>", ":=", "X:", "Y:", "/", "?", '"a b"', "'", '"', "##1#2#", "w", "[", "]", "\n", "<B-D-1>"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30), st.sampled_from([" ", ""]))
def test_parser_fails_only_with_input_errors(pieces: list[str], glue: str) -> None:
    """Any text parses or raises InputError; what parses and can be written reads back the same.

    The writer may quote an unquoted text fill (e.g. '?' first in a slot), hence ``keep_quotes=False``.
    """
    try:
        template_set = parse_template_set("<A-D-1> := X: " + glue.join(pieces))
    except InputError:
        return
    written = write_template_set(template_set)
    assert normalized(parse_template_set(written), False) == normalized(template_set, False)
