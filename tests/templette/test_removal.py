"""Tests of pipeline.templette.removal and the RemoveNonEvaluated stage (seed 000, "Removal of
Non-evaluated Text").

Offsets are half-open ``[start, end)`` from the ``<`` of the document tag; every expected value below is
worked out by hand in the comment beside it.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from iescore.pipeline.core.corpus import parse_corpus, read_corpus
from iescore.pipeline.core.documents import Corpus
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
from iescore.pipeline.templette.removal import DEFAULT_PUNCTUATION, RemovalOptions, remove_non_evaluated
from iescore.pipeline.templette.scoring import fold
from iescore.pipeline.templette.tables import template_set_from_table, template_set_to_table
from iescore.schemas import C
from iescore.tasks.core import runner  # noqa: F401 - importing tasks.templette.ingest registers its stages
from iescore.tasks.core.base import file_spec, stage_spec, task_for
from iescore.tasks.templette import ingest  # noqa: F401 - importing tasks.templette.ingest registers its stages
from iescore.tasks.templette.remove import RemoveNonEvaluated

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "samples" / "hub4-sports"
ABC = "ABC19980307.1830.1415"
DEFAULTS = RemovalOptions()

# "<DOC>\n" is [0, 6); "<DOCNO> D1 </DOCNO>\n" is 7 + 4 + 8 + 1 = 20 characters, [6, 26); "<TEXT>\n" is
# [26, 33); so the first text line starts at 33.
GM_TEXT = "<DOC>\n<DOCNO> D1 </DOCNO>\n<TEXT>\nthe  General Motors plant\n</TEXT>\n</DOC>\n"
GM_START = 33


def one_fill_set(fill: Fill, doc_id: str = "D1") -> TemplateSet:
    return TemplateSet((Instance(Pointer("ORG", doc_id, "1"), (Slot("NAME", ((fill,),)),)),))


def only_fill(template_set: TemplateSet) -> Fill:
    return template_set.instances[0].slots[0].alternatives[0][0]


def removed(fill: Fill, corpus: Corpus | None = None, options: RemovalOptions = DEFAULTS, doc_id: str = "D1"):
    return only_fill(remove_non_evaluated(one_fill_set(fill, doc_id), corpus, options))


# --- the seed's examples -------------------------------------------------------------------------------


def test_seed_annotation_in_document_is_whited_out() -> None:
    corpus = read_corpus(SAMPLE / "texts.sgml")
    text = corpus.by_id()[ABC].text
    start, end = text.index("Anchorage"), text.index("Alaska") + len("Alaska")
    fill = TextFill(text[start:end], (Extent(start, end),))
    # The document slice: "Anchorage,...\n<ANNOTATION>  (voice-over)  </ANNOTATION>\n...Alaska".
    # "Anchorage" stays; ",..." (4) becomes spaces; the newline stays; the 41-character element
    # (12 + 2 + 12 + 2 + 13) becomes spaces by the document's section; the newline stays; "..." (3)
    # becomes spaces; "Alaska" stays.
    expected = "Anchorage" + " " * 4 + "\n" + " " * 41 + "\n" + " " * 3 + "Alaska"
    result = removed(fill, corpus, doc_id=ABC)
    assert result.content == expected
    assert fold(result.content) == "anchorage alaska"
    assert result.extents == (Extent(start, end),)  # whiting out never moves extents


def test_seed_annotation_written_in_the_fill_is_whited_out() -> None:
    # The seed's fill as written, on one line, so it is not a copy of the document: the element is found
    # in the string. "Anchorage" + ",... " (5) + element (41) + " ..." (4) + "Alaska": 50 spaces between.
    content = "Anchorage,... <ANNOTATION>  (voice-over)  </ANNOTATION> ...Alaska"
    corpus = read_corpus(SAMPLE / "texts.sgml")
    fill = TextFill(content, (Extent(177, 242),))
    for result in (removed(fill, corpus, doc_id=ABC), removed(fill)):
        assert result.content == "Anchorage" + " " * 50 + "Alaska"
        assert result.extents == (Extent(177, 242),)


def test_seed_general_motors_start_moves_past_the_in_the_document() -> None:
    corpus = parse_corpus(GM_TEXT)
    text = corpus.documents[0].text
    # The document writes "the" and two spaces: "the  General Motors" is 3 + 2 + 14 = 19 characters.
    assert text[GM_START : GM_START + 19] == "the  General Motors"
    written = TextFill("the General Motors", (Extent(GM_START, GM_START + 19),))
    result = removed(written, corpus)
    assert result.content == "General Motors"
    # Measured in the document: "the" and its two spaces, 5 characters (the content string alone would
    # say 4, and point at a space).
    assert result.extents == (Extent(GM_START + 5, GM_START + 19),)
    assert text[GM_START + 5 : GM_START + 19] == "General Motors"


def test_general_motors_without_corpus_moves_start_by_four() -> None:
    # "the " is 4 characters of the content string: [10, 28) becomes [14, 28).
    result = removed(TextFill("the General Motors", (Extent(10, 28),)))
    assert result.content == "General Motors"
    assert result.extents == (Extent(14, 28),)


def test_hub4_sample_reference_alternatives() -> None:
    # ref.tpl's S_EVENT "the African cup" ##401#416# and LOCATION "The host of the tournament" ##449#475#:
    # "the " and "The " are 4 characters each, so 401 -> 405 and 449 -> 453; only the leading one goes.
    corpus = read_corpus(SAMPLE / "texts.sgml")
    text = corpus.by_id()["PRI19980302.2000.2923"].text
    doc = "PRI19980302.2000.2923"
    cup = removed(TextFill("the African cup", (Extent(401, 416),)), corpus, doc_id=doc)
    host = removed(TextFill("The host of the tournament", (Extent(449, 475),)), corpus, doc_id=doc)
    assert (cup.content, cup.extents) == ("African cup", (Extent(405, 416),))
    assert (host.content, host.extents) == ("host of the tournament", (Extent(453, 475),))
    assert text[405:416] == "African cup" and text[453:475] == "host of the\ntournament"


# --- premodifiers --------------------------------------------------------------------------------------


def test_premodifier_chain_is_removed_repeatedly() -> None:
    # "and " (4) then "the " (4): [10, 25) becomes [18, 25).
    result = removed(TextFill("and the Yankees", (Extent(10, 25),)))
    assert result.content == "Yankees"
    assert result.extents == (Extent(18, 25),)


@pytest.mark.parametrize("content", ["THE Times", "The Times", "tHe Times"])
def test_premodifiers_are_case_insensitive(content: str) -> None:
    # "THE " and its variants are 4 characters: [0, 9) becomes [4, 9).
    result = removed(TextFill(content, (Extent(0, 9),)))
    assert (result.content, result.extents) == ("Times", (Extent(4, 9),))


@pytest.mark.parametrize("content", ["Theater district", "Andover Academy", "A-Team", "An. Smith"])
def test_only_whole_words_followed_by_whitespace_are_premodifiers(content: str) -> None:
    result = removed(TextFill(content, (Extent(0, len(content)),)), options=RemovalOptions(punctuation=""))
    assert (result.content, result.extents) == (content, (Extent(0, len(content)),))


def test_a_fill_of_only_premodifiers_keeps_its_last_word() -> None:
    assert removed(TextFill("the", (Extent(5, 8),))).content == "the"
    assert removed(TextFill("the", (Extent(5, 8),))).extents == (Extent(5, 8),)
    # "and " goes (4 characters, [5, 12) -> [9, 12)), "the" stays: nothing would be left after it.
    only = removed(TextFill("and the", (Extent(5, 12),)))
    assert (only.content, only.extents) == ("the", (Extent(9, 12),))


def test_punctuation_before_a_premodifier_goes_with_it() -> None:
    # "...and Alaska": "...and " is 7 characters, [20, 33) becomes [27, 33).
    result = removed(TextFill("...and Alaska", (Extent(20, 33),)))
    assert (result.content, result.extents) == ("Alaska", (Extent(27, 33),))


def test_minimal_strings_and_extents_are_adjusted() -> None:
    # Maximal "the Yankees of New York" (3+1+7+1+2+1+3+1+4 = 23) at [50, 73), minimal "the Yankees" (11) at
    # [50, 61); each loses "the " (4): [54, 73) and [54, 61).
    fill = TextFill("[the Yankees] of New York", (Extent(50, 73), Extent(50, 61)))
    assert fill.content == "the Yankees of New York" and fill.minimal_contents == ("the Yankees",)
    result = removed(fill)
    assert result.content == "Yankees of New York"
    assert result.minimal_contents == ("Yankees",)
    assert result.extents == (Extent(54, 73), Extent(54, 61))
    assert result.raw == fill.raw  # the content as written is kept for reports


def test_minimal_extents_in_a_document() -> None:
    # Minimal "the  General Motors" at [33, 52) in GM_TEXT, maximal "the  General Motors plant" (19 + 6 = 25)
    # at [33, 58): both starts move past "the  " (5) to 38.
    corpus = parse_corpus(GM_TEXT)
    fill = TextFill("[the  General Motors] plant", (Extent(33, 58), Extent(33, 52)))
    result = removed(fill, corpus)
    assert result.content == "General Motors plant"
    assert result.minimal_contents == ("General Motors",)
    assert result.extents == (Extent(38, 58), Extent(38, 52))


def test_custom_premodifiers() -> None:
    # Only "of" is a premodifier: "the" stays, "of " (3) goes from "of Boston": [0, 9) -> [3, 9).
    options = RemovalOptions(premodifiers=("of",), punctuation="")
    assert removed(TextFill("the Times", (Extent(0, 9),)), options=options).content == "the Times"
    result = removed(TextFill("of Boston", (Extent(0, 9),)), options=options)
    assert (result.content, result.extents) == ("Boston", (Extent(3, 9),))


# --- punctuation ---------------------------------------------------------------------------------------


def test_punctuation_is_whited_out_without_moving_extents() -> None:
    # "Egypt, Inc." (11): the comma and the period become spaces, the extent stays [100, 111).
    result = removed(TextFill("Egypt, Inc.", (Extent(100, 111),)))
    assert result.content == "Egypt  Inc "
    assert result.extents == (Extent(100, 111),)


def test_word_internal_marks_are_kept() -> None:
    content = "O'Brien's 'voice-over' -- 1,100 miles, 2-0. Buni-"
    # Kept: the apostrophes of O'Brien's, the hyphens of voice-over, 2-0 and Buni-, the comma of 1,100.
    # Whited: the quotes around voice-over, the dash "--", the comma after miles and the period after 2-0.
    expected = "O'Brien's  voice-over     1,100 miles  2-0  Buni-"
    assert removed(TextFill(content)).content == expected


def test_no_punctuation_option_whites_out_nothing() -> None:
    result = removed(TextFill("Egypt, Inc."), options=RemovalOptions(punctuation=""))
    assert result.content == "Egypt, Inc."


def test_glm_alternative_groups_survive() -> None:
    # The default set has none of { / }; a set that has them still leaves the group's syntax alone.
    content = "the { colour / color } flag, {x}/y"
    assert not set("{}/") & set(DEFAULT_PUNCTUATION)
    # "the " is removed; the comma is whited; outside a group the slash is whited, "{x}" is a group.
    options = RemovalOptions(punctuation=DEFAULT_PUNCTUATION + "{}/")
    assert removed(TextFill(content), options=options).content == "{ colour / color } flag  {x} y"
    assert removed(TextFill(content)).content == "{ colour / color } flag  {x}/y"


# --- non-extractable sections --------------------------------------------------------------------------

NESTED_TEXT = (
    "<DOC>\n<DOCNO> D2 </DOCNO>\n<TEXT>\n"  # [0, 33), as in GM_TEXT
    "Boston <NOTE>rain <TEXT>Lowell</TEXT></NOTE> Maine\n"
    "<NOTE>on camera</NOTE>\n</TEXT>\n</DOC>\n"
)


def test_innermost_section_decides_and_enclosing_sections_stay() -> None:
    corpus = parse_corpus(NESTED_TEXT, extractable=("TEXT",))
    text = corpus.documents[0].text
    start, end = 33, text.index(" Maine") + len(" Maine")
    content = text[start:end]
    assert content == "Boston <NOTE>rain <TEXT>Lowell</TEXT></NOTE> Maine"
    # Whited: "<NOTE>rain " (11) belongs to NOTE; the tags "<TEXT>" (6) and "</TEXT>" (7) of the nested
    # extractable TEXT are markup, its "Lowell" stays; "</NOTE>" (7) is NOTE's again.
    expected = "Boston " + " " * (11 + 6) + "Lowell" + " " * (7 + 7) + " Maine"
    result = removed(TextFill(content, (Extent(start, end),)), corpus, doc_id="D2")
    assert result.content == expected
    # A fill lying wholly inside a non-extractable section is not emptied: the section encloses it.
    inside = text.index("on camera")
    alone = removed(TextFill("on camera", (Extent(inside, inside + 9),)), corpus, doc_id="D2")
    assert alone.content == "on camera"


# --- what passes unchanged -----------------------------------------------------------------------------


def test_pointer_and_set_fills_pass_unchanged() -> None:
    pointer = PointerFill(Pointer("PERSON", "D1", "2"), line=4)
    chosen = SetFill("the, COMPANY.", line=5)
    text = TextFill("the Times", (Extent(0, 9),))
    template_set = TemplateSet(
        (Instance(Pointer("ORG", "D1", "1"), (Slot("A", ((pointer,),)), Slot("B", ((chosen, text),)))),),
        source="x.tpl",
    )
    result = remove_non_evaluated(template_set, None, DEFAULTS)
    assert result.source == "x.tpl"
    slot_a, slot_b = result.instances[0].slots
    assert slot_a.alternatives == ((pointer,),)
    assert slot_b.alternatives[0][0] == chosen
    assert slot_b.alternatives[0][1].content == "Times"  # the text fill beside them does change


def test_fill_without_extents_and_unknown_document() -> None:
    # No extents: only the strings change. A document the corpus lacks: measured in the string.
    assert removed(TextFill("the Times")).extents == ()
    result = removed(TextFill("the Times", (Extent(0, 9),)), parse_corpus(GM_TEXT), doc_id="D9")
    assert (result.content, result.extents) == ("Times", (Extent(4, 9),))


@pytest.mark.parametrize("premodifiers", [("",), ("two words",), "the"])
def test_bad_premodifiers_are_refused(premodifiers: object) -> None:
    with pytest.raises(ValueError, match="premodifiers"):
        RemovalOptions(premodifiers=premodifiers)  # type: ignore[arg-type]


# --- the stage -----------------------------------------------------------------------------------------


def test_stage_on_the_hub4_sample(tmp_path: Path) -> None:
    corpus = stage_spec(
        "IngestCorpus", {"extractable": ["TEXT"]}, {"texts": file_spec(SAMPLE / "texts.sgml")}
    )
    ingested = stage_spec(
        "IngestTemplates",
        {"role": "reference"},
        {"templates": file_spec(SAMPLE / "ref.tpl"), "corpus": corpus},
    )
    removal = stage_spec("RemoveNonEvaluated", {}, {"fills": ingested, "corpus": corpus})
    task = task_for(removal, str(tmp_path))
    assert runner.run([task]).ok
    table = pq.read_table(task.output()["fills"].path)
    rows = {(row[C.slot], row[C.content]): row for row in table.to_pylist()}
    cup = rows[("S_EVENT", "the African cup")]
    assert (cup[C.norm_content], cup[C.max_start], cup[C.max_end]) == ("African cup", 405, 416)
    assert rows[("COMMENT", "Challenges only, no event")][C.norm_content] == "Challenges only  no event"
    assert len(table) == len(pq.read_table(task.requires()["fills"].output()["fills"].path))


def test_stage_options_and_metadata() -> None:
    # premodifiers [] and punctuation "" make the stage the identity; the input's metadata is kept.
    fills = template_set_to_table(one_fill_set(TextFill("the Times, London", (Extent(0, 17),))))
    fills = fills.replace_schema_metadata({**fills.schema.metadata, b"extent_unit": b"character"})
    spec = stage_spec("RemoveNonEvaluated", {"premodifiers": [], "punctuation": ""}, {})

    def inputs(role: str, name: str | None, columns: list[str] | None) -> pa.Table | None:
        return fills if role == "fills" else None

    task = RemoveNonEvaluated("0" * 64, spec, "", inputs)
    table = task.produce()["fills"]
    assert table.schema.metadata[b"extent_unit"] == b"character"
    assert only_fill(template_set_from_table(table)).content == "the Times, London"

    default = RemoveNonEvaluated("1" * 64, stage_spec("RemoveNonEvaluated", {}, {}), "", inputs)
    result = only_fill(template_set_from_table(default.produce()["fills"]))
    # "the " (4) removed, comma whited: [0, 17) -> [4, 17).
    assert (result.content, result.extents) == ("Times  London", (Extent(4, 17),))
