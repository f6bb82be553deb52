"""Tests for pipeline.muc.named_entity: NE keys and responses as objects (seed 001, "SGML", Named Entity
task).

Offsets are half-open ``[start, end)`` from the ``<`` of the document tag, in the text with the NE tags
removed; every expected number below is counted by hand in the comment beside it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from iescore.pipeline.core.corpus import parse_corpus, read_corpus
from iescore.pipeline.core.documents import Corpus
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.muc.config import read_config
from iescore.pipeline.muc.named_entity import NamedEntities, parse_ne, read_ne_file
from iescore.pipeline.templette.model import Extent, Instance, Pointer, SetFill, TextFill

DATA = Path(__file__).resolve().parents[1] / "data" / "muc"


def ne(text: str, texts: Corpus | None = None, is_key: bool = True) -> NamedEntities:
    return parse_ne(text, "k.sgml", texts, is_key=is_key)


def ne_error(text: str, texts: Corpus | None = None, is_key: bool = True) -> InputError:
    """Parse ``text`` as file ``k.sgml`` and return the InputError it must raise."""
    with pytest.raises(InputError) as caught:
        parse_ne(text, "k.sgml", texts, is_key=is_key)
    assert caught.value.file == "k.sgml"
    return caught.value


def document(body: str, doc_id: str = "D1") -> str:
    """A document whose ``body`` starts on line 3, at offset 26 for a two-character id.

    "<DOC>\\n" is 6 characters and "<DOCNO> D1 </DOCNO>\\n" 20.
    """
    return f"<DOC>\n<DOCNO> {doc_id} </DOCNO>\n{body}\n</DOC>\n"


def slot_values(instance: Instance) -> dict[str, list[list[str]]]:
    """Each slot's alternatives as lists of contents (text fills) or values (set fills)."""
    values: dict[str, list[list[str]]] = {}
    for slot in instance.slots:
        values[slot.name] = [
            [fill.content if isinstance(fill, TextFill) else fill.value for fill in alternative]  # type: ignore[union-attr,misc]
            for alternative in slot.alternatives
        ]
    return values


# --- the seed's examples --------------------------------------------------------------------------------

SEED_TIMEX = (
    "<DOC>\n"  # 0-5, newline at 5
    "<DOCNO> DOCNUM1 </DOCNO>\n"  # 6-30: 24 characters and a newline
    "<TXT>\n"  # 31-36
    '<TIMEX TYPE="DATE" ALT="fiscal 1994">the first six months of fiscal 1994</TIMEX>\n'  # text from 37
    "</TXT>\n"
    "</DOC>\n"
)


def test_the_seeds_timex_example_becomes_its_object() -> None:
    parsed = ne(SEED_TIMEX)
    (instance,) = parsed.template_set.instances
    # Seed 001: <TIMEX-DOCNUM1-1> := TEXT: "the first six months of fiscal 1994" /"fiscal 1994" TYPE: DATE
    assert instance.pointer == Pointer("TIMEX", "DOCNUM1", "1")
    assert slot_values(instance) == {
        "TEXT": [["the first six months of fiscal 1994"], ["fiscal 1994"]],
        "TYPE": [["DATE"]],
    }
    assert not instance.optional
    text, alt = (alternative[0] for alternative in instance.slot("TEXT").alternatives)  # type: ignore[union-attr]
    # The element's text starts at 37 and is 35 characters long ("the first six months of " is 24, then
    # "fiscal 1994" is 11): [37, 72). ALT is its last 11 characters: [37 + 24, 72) = [61, 72).
    assert isinstance(text, TextFill) and text.extents == (Extent(37, 72),)
    assert isinstance(alt, TextFill) and alt.extents == (Extent(61, 72),)
    assert parsed.positions == {instance.pointer: (37, 72)}
    assert parsed.sections == {instance.pointer: "TXT"}
    assert parsed.untagged["DOCNUM1"][37:72] == "the first six months of fiscal 1994"
    assert instance.line == 4 and text.line == 4


ADVICE = (
    "<DOC>\n"  # 0-5
    "<DOCNO> ADV1 </DOCNO>\n"  # 6-27: 7 + 6 + 8 characters and a newline; line 3 starts at 28
    "<ADVICE> Be glad you don't work On the <STRUCTURE>"
    '<ENAMEX TYPE="FACILITY">Bungle-bung bridge</ENAMEX></STRUCTURE>, '
    "That they're building Across "
    '<ENAMEX TYPE="LOCATION"><BODY TYPE="WATER">Boober Bay</BODY> at <LOC>Bum Ridge</LOC></ENAMEX>. '
    "</ADVICE>\n"
    "</DOC>\n"
)


def test_the_seeds_advice_example_with_ne_tags_around_its_own_tags() -> None:
    parsed = ne(ADVICE)
    bridge, bay = parsed.template_set.instances
    # Line 3 from 28: "<ADVICE> " 9 -> 37, "Be glad you don't work On the " 30 -> 67, "<STRUCTURE>" 11 -> 78;
    # "Bungle-bung bridge" is 18: [78, 96).
    assert parsed.positions[bridge.pointer] == (78, 96)
    assert parsed.sections[bridge.pointer] == "STRUCTURE"
    # "</STRUCTURE>" 12 -> 108, ", That they're building Across " 31 -> 139: the LOCATION starts at 139;
    # '<BODY TYPE="WATER">' 19 -> 158, "Boober Bay" 10 -> 168, "</BODY>" 7 -> 175, " at " 4 -> 179,
    # "<LOC>" 5 -> 184, "Bum Ridge" 9 -> 193, "</LOC>" 6 -> 199: [139, 199), inside <ADVICE>.
    assert parsed.positions[bay.pointer] == (139, 199)
    assert parsed.sections[bay.pointer] == "ADVICE"
    # The content drops the non-NE tags inside the element; the extent keeps them.
    assert slot_values(bay) == {"TEXT": [["Boober Bay at Bum Ridge"]], "TYPE": [["LOCATION"]]}
    assert bay.pointer == Pointer("ENAMEX", "ADV1", "2")
    # The untagged text is the seed's own SGML example: NE tags gone, its tags kept.
    assert (
        '<BODY TYPE="WATER">Boober Bay</BODY> at <LOC>Bum Ridge</LOC>. </ADVICE>' in parsed.untagged["ADV1"]
    )
    assert "ENAMEX" not in parsed.untagged["ADV1"]


# --- the fixture files ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def texts() -> Corpus:
    return read_corpus(DATA / "texts.sgml")


@pytest.fixture(scope="module")
def key(texts: Corpus) -> NamedEntities:
    return read_ne_file(DATA / "key.sgml", texts=texts)


@pytest.fixture(scope="module")
def response(texts: Corpus) -> NamedEntities:
    return read_ne_file(DATA / "response.sgml", "utf-8", texts, is_key=False)


def test_key_extents_are_positions_in_the_texts_file(key: NamedEntities, texts: Corpus) -> None:
    # DOCNUM1: "<DOC>\n" 6, "<DOCNO> DOCNUM1 </DOCNO>\n" 25 -> 31, "<HL> " 5 -> Acme at [36, 40);
    # the HL line is 27 with its newline -> 58, "<TXT>\n" 6 -> 64, "<p>Sales for " 13 -> 77, and the
    # 35-character date: [77, 112).
    # DOCNUM2: 6 + 25 -> 31, "<TXT>\n" -> 37, "Be glad you don't work On the " 30, "Bungle-bung bridge, " 20,
    # "That they're building Across " 29: 37 + 79 = 116, "Boober Bay" [116, 126), " at " -> [130, 139).
    assert key.positions == {
        Pointer("ENAMEX", "DOCNUM1", "1"): (36, 40),
        Pointer("TIMEX", "DOCNUM1", "2"): (77, 112),
        Pointer("ENAMEX", "DOCNUM2", "1"): (116, 126),
        Pointer("ENAMEX", "DOCNUM2", "2"): (130, 139),
    }
    documents = texts.by_id()
    for instance in key.template_set.instances:
        start, end = key.positions[instance.pointer]
        fill = instance.slot("TEXT").alternatives[0][0]  # type: ignore[union-attr]
        assert isinstance(fill, TextFill)
        assert documents[instance.pointer.doc_id].text[start:end] == fill.content
        assert fill.extents == (Extent(start, end),)
    assert key.untagged == {doc.doc_id: doc.text for doc in texts.documents}


def test_key_sections_types_and_optional_objects(key: NamedEntities) -> None:
    acme, date, bay, ridge = key.template_set.instances
    assert [key.sections[i.pointer] for i in key.template_set.instances] == ["HL", "p", "TXT", "TXT"]
    assert slot_values(acme) == {"TEXT": [["Acme"]], "TYPE": [["ORGANIZATION"]]}
    assert slot_values(date)["TEXT"] == [["the first six months of fiscal 1994"], ["fiscal 1994"]]
    # STATUS="OPT" in a key: the STATUS fill is kept and the object is optional (OBJ_STATUS: OPTIONAL).
    assert slot_values(ridge) == {
        "TEXT": [["Bum Ridge"]],
        "TYPE": [["LOCATION"]],
        "STATUS": [["OPT"]],
        "OBJ_STATUS": [["OPTIONAL"]],
    }
    assert ridge.optional and not bay.optional
    assert [i.line for i in key.template_set.instances] == [3, 5, 11, 11]
    assert key.template_set.source == str(DATA / "key.sgml")


def test_response_positions(response: NamedEntities) -> None:
    # "fiscal 1994" is the last 11 characters of the key's [77, 112): [101, 112).
    assert response.positions == {
        Pointer("ENAMEX", "DOCNUM1", "1"): (36, 40),
        Pointer("TIMEX", "DOCNUM1", "2"): (101, 112),
        Pointer("ENAMEX", "DOCNUM2", "1"): (116, 126),
    }


def test_the_fixtures_pass_the_seeds_named_entity_configuration(
    key: NamedEntities, response: NamedEntities
) -> None:
    config = read_config(DATA / "ne.config")
    config.check_template_set(key.template_set)
    config.check_template_set(response.template_set)
    assert config.key_file == DATA / "key.sgml"


def test_one_up_numbers_count_all_types_of_a_document_in_order() -> None:
    parsed = ne(
        document(
            '<ENAMEX TYPE="PERSON">Roth</ENAMEX> paid <NUMEX TYPE="MONEY">$5</NUMEX> on '
            '<TIMEX TYPE="DATE">Monday</TIMEX> to <ENAMEX TYPE="PERSON">Smith</ENAMEX>'
        )
        + document('<enamex type="organization">Acme</enamex>', "D2")
    )
    assert [i.pointer.render() for i in parsed.template_set.instances] == [
        "<ENAMEX-D1-1>",
        "<NUMEX-D1-2>",
        "<TIMEX-D1-3>",
        "<ENAMEX-D1-4>",
        "<ENAMEX-D2-1>",
    ]
    # Lower-case tags and attribute names; the type value is kept as written.
    assert slot_values(parsed.template_set.instances[-1])["TYPE"] == [["organization"]]
    # Body at 26 (see document()): "Roth" [26, 30), " paid " -> "$5" [36, 38).
    assert parsed.positions[Pointer("NUMEX", "D1", "2")] == (36, 38)
    # Directly in the document: the section is the document tag's name.
    assert set(parsed.sections.values()) == {"DOC"}


def test_single_quoted_attributes_and_brackets_in_the_text() -> None:
    parsed = ne(document("<ENAMEX TYPE='ORGANIZATION' STATUS = 'OPT'>Acme [Corp]</ENAMEX>"))
    (instance,) = parsed.template_set.instances
    fill = instance.slot("TEXT").alternatives[0][0]  # type: ignore[union-attr]
    # Brackets are text here, not the template files' minimal strings.
    assert isinstance(fill, TextFill) and fill.content == "Acme [Corp]" and fill.minimal_contents == ()
    assert instance.optional


def test_a_response_keeps_status_but_is_never_optional() -> None:
    parsed = ne(document('<ENAMEX TYPE="PERSON" STATUS="OPT">Roth</ENAMEX>'), is_key=False)
    (instance,) = parsed.template_set.instances
    assert slot_values(instance) == {"TEXT": [["Roth"]], "TYPE": [["PERSON"]], "STATUS": [["OPT"]]}
    assert not instance.optional


def test_alt_in_a_response_is_an_error() -> None:
    error = ne_error(document('<TIMEX TYPE="DATE" ALT="1994">fiscal 1994</TIMEX>'), is_key=False)
    assert error.line == 3 and "ALT in a response" in error.message


def test_an_alt_not_in_the_element_has_no_extent_but_is_kept() -> None:
    parsed = ne(
        document(
            '<TIMEX TYPE="DATE" ALT="FY94">fiscal\n1994</TIMEX> <TIMEX TYPE="DATE" ALT="fiscal 1994">'
            "all fiscal\n1994</TIMEX>"
        )
    )
    first, second = parsed.template_set.instances
    missing = first.slot("TEXT").alternatives[1][0]  # type: ignore[union-attr]
    assert isinstance(missing, TextFill) and missing.content == "FY94" and missing.extents == ()
    # The second element starts at 26 + len("fiscal\n1994") + 1 = 38; "all " -> 42; the ALT's space matches
    # the newline: [42, 53).
    found = second.slot("TEXT").alternatives[1][0]  # type: ignore[union-attr]
    assert isinstance(found, TextFill) and found.extents == (Extent(42, 53),)


def test_ne_tags_in_a_comment_are_not_objects() -> None:
    parsed = ne(document('<!-- <ENAMEX TYPE="PERSON">Roth</ENAMEX> --> <ENAMEX TYPE="PERSON">Smith</ENAMEX>'))
    (instance,) = parsed.template_set.instances
    assert slot_values(instance)["TEXT"] == [["Smith"]]


# --- the texts file -------------------------------------------------------------------------------------


def test_a_response_that_inserts_a_character_fails_at_its_line_and_column(texts: Corpus) -> None:
    text = (DATA / "response.sgml").read_text().replace("<p>Sales for", "<p>SalesX for")
    error = ne_error(text, texts, is_key=False)
    # Line 5 of response.sgml; "<p>Sales" is 8 characters, the X is column 9. In the texts file the
    # document's line 5 is line 5.
    assert error.line == 5
    assert error.message.startswith("column 9: the text outside the NE tags differs from the texts file")
    assert "(document DOCNUM1, its line 5)" in error.message
    assert "expected ' for the first six m', found 'X for the first six '" in error.message


def test_a_deleted_character_after_tags_counts_the_tags_in_the_column(texts: Corpus) -> None:
    text = (DATA / "key.sgml").read_text().replace("Bum Ridge</ENAMEX>.", "Bum Ridge</ENAMEX>")
    error = ne_error(text, texts)
    # Line 11: "Be glad ... Across " 79, '<ENAMEX TYPE="LOCATION">' 24, "Boober Bay" 10, "</ENAMEX>" 9,
    # " at " 4, '<ENAMEX TYPE="LOCATION" STATUS="OPT">' 37, "Bum Ridge" 9, "</ENAMEX>" 9: 181 characters,
    # so the missing "." was column 182.
    assert error.line == 11
    assert error.message.startswith("column 182:")
    assert "expected '.\\n</TXT>\\n</DOC>', found '\\n</TXT>\\n</DOC>'" in error.message


def test_a_document_missing_from_the_texts_file(texts: Corpus) -> None:
    text = (DATA / "key.sgml").read_text() + document("more", "DOCNUM3")
    error = ne_error(text, texts)
    # key.sgml has 13 lines; the extra document starts on line 14.
    assert error.line == 14 and "document DOCNUM3 is not in the texts file" in error.message


def test_a_document_of_the_texts_file_missing_from_the_key(texts: Corpus) -> None:
    text = (DATA / "key.sgml").read_text().split("<DOC>\n<DOCNO> DOCNUM2")[0]
    error = ne_error(text, texts)
    assert error.line == 0 and "document DOCNUM2 of the texts file" in error.message


def test_without_a_texts_file_a_changed_text_is_read_as_it_is() -> None:
    parsed = ne((DATA / "response.sgml").read_text().replace("<p>Sales for", "<p>SalesX for"))
    assert "SalesX" in parsed.untagged["DOCNUM1"]


def test_lines_after_a_tag_spanning_lines() -> None:
    tagged = (
        "<DOC>\n"  # 1
        "<DOCNO> D1 </DOCNO>\n"  # 2
        "<TXT><ENAMEX\n"  # 3
        'TYPE="PERSON">Roth</ENAMEX> said X\n'  # 4
        "</TXT>\n"  # 5
        "</DOC>\n"  # 6
    )
    texts = parse_corpus(
        tagged.replace('<ENAMEX\nTYPE="PERSON">', "").replace("</ENAMEX>", "").replace(" X", "")
    )
    error = ne_error(tagged, texts)
    # Line 4: 'TYPE="PERSON">' 14, "Roth" 4, "</ENAMEX>" 9, " said" 5: the X's space is column 33.
    assert (error.line, error.message.split(":")[0]) == (4, "column 33")
    # An error of the document structure after the tag also names the file's line, not the untagged one.
    error = ne_error(tagged + "stray\n")
    assert error.line == 7 and "text outside any <DOC> document" in error.message


def test_a_tag_spanning_lines_at_the_start_of_a_line() -> None:
    tagged = (
        "<DOC>\n"  # 1
        "<DOCNO> D1 </DOCNO>\n"  # 2
        "<TXT>\n"  # 3
        "<ENAMEX\n"  # 4
        'TYPE="PERSON">Roth</ENAMEX></B>\n'  # 5
        "</TXT>\n"  # 6
        "</DOC>\n"  # 7
    )
    # Without the tag the </B> is on the untagged text's line 4; in the file it is on line 5.
    error = ne_error(tagged)
    assert error.line == 5 and "</B>" in error.message


# --- bad tags -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        # Unbalanced.
        ('<ENAMEX TYPE="PERSON">Roth\nsaid', 3, "missing </ENAMEX> for this <ENAMEX>"),
        ("Roth</ENAMEX> said", 3, "end tag </ENAMEX> without a start tag"),
        ('<ENAMEX TYPE="PERSON">Roth</TIMEX>', 3, "expected </ENAMEX> (opened at line 3) before </TIMEX>"),
        # Overlapping or nested.
        (
            '<ENAMEX TYPE="ORGANIZATION">Bank of\n<TIMEX TYPE="DATE">1994</ENAMEX></TIMEX>',
            4,
            "<TIMEX> inside <ENAMEX> (opened at line 3)",
        ),
        (
            '<ENAMEX TYPE="ORGANIZATION">Bank of <ENAMEX TYPE="LOCATION">Boston</ENAMEX></ENAMEX>',
            3,
            "do not nest",
        ),
        # Attributes.
        ("<ENAMEX>Roth</ENAMEX>", 3, "<ENAMEX> without a TYPE attribute"),
        ('<ENAMEX STATUS="OPT">Roth</ENAMEX>', 3, "without a TYPE attribute"),
        ("<ENAMEX TYPE=PERSON>Roth</ENAMEX>", 3, "expected NAME=\"value\" or NAME='value'"),
        ("<ENAMEX TYPE=\"PERSON'>Roth</ENAMEX>", 3, "is not closed"),
        ('<ENAMEX TYPE="PERSON" MIN="Roth">Roth</ENAMEX>', 3, "unknown attribute MIN"),
        ('<ENAMEX TYPE="PERSON" type="LOCATION">Roth</ENAMEX>', 3, "attribute TYPE given twice"),
        ('<ENAMEX TYPE="">Roth</ENAMEX>', 3, "empty TYPE attribute"),
        ('<ENAMEX TYPE="PERSON">Roth</ENAMEX TYPE="PERSON">', 3, "malformed end tag"),
        ('<ENAMEX TYPE="PERSON" Roth </ENAMEX>', 3, "is not closed"),
        # Empty elements.
        ('<ENAMEX TYPE="PERSON"></ENAMEX>', 3, "empty <ENAMEX> element"),
        ('<ENAMEX TYPE="PERSON"> \n </ENAMEX>', 3, "empty <ENAMEX> element"),
        ('<ENAMEX TYPE="PERSON"><B></B></ENAMEX>', 3, "empty <ENAMEX> element"),
        ('<ENAMEX TYPE="PERSON"/>', 3, "empty element <ENAMEX/>"),
        # Across other elements.
        ('<p>a <ENAMEX TYPE="PERSON">Roth</p>\n<p>Smith</ENAMEX></p>', 3, "crosses the end of <p> (line 3)"),
        ('<ENAMEX TYPE="PERSON">Roth <p>Smith</ENAMEX> said</p>', 3, "crosses the start of <p> (line 3)"),
    ],
)
def test_bad_tags_name_their_line(body: str, line: int, words: str) -> None:
    error = ne_error(document(body))
    assert error.line == line
    assert words in error.message


def test_an_element_across_two_documents() -> None:
    error = ne_error(document('<ENAMEX TYPE="PERSON">Roth') + document("Smith</ENAMEX>", "D2"))
    # The NE tags balance; the element runs from line 3 across </DOC> and the next <DOC>.
    assert error.line == 3 and "across the boundary" in error.message


def test_an_element_around_the_document_tag() -> None:
    error = ne_error('<ENAMEX TYPE="X"><DOC>\n<DOCNO> D1 </DOCNO>\n</DOC></ENAMEX>\n')
    assert error.line == 1


def test_structure_errors_come_from_the_corpus_reader() -> None:
    error = ne_error('<DOC>\n<DOCNO> D1 </DOCNO>\n<TXT><ENAMEX TYPE="PERSON">Roth</ENAMEX>\n</DOC>\n')
    # The corpus reader's own rule: the error is at the </DOC> that came too early.
    assert error.line == 4 and "expected </TXT> before </DOC> (<TXT> opened at line 3)" in error.message


def test_read_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_ne_file(tmp_path / "absent.sgml")
    assert caught.value.line == 0 and "cannot read the named entity key" in caught.value.message
    latin = tmp_path / "latin.sgml"
    latin.write_bytes(document('<ENAMEX TYPE="PERSON">Jos\xe9</ENAMEX>').encode("latin-1"))
    with pytest.raises(InputError) as caught:
        read_ne_file(latin, is_key=False)
    assert caught.value.line == 3
    assert slot_values(read_ne_file(latin, "latin-1").template_set.instances[0])["TEXT"] == [["Jos\xe9"]]


def test_set_fills_are_bare() -> None:
    (instance,) = ne(document('<NUMEX TYPE="PERCENT">5%</NUMEX>')).template_set.instances
    assert instance.slot("TYPE").alternatives == ((SetFill("PERCENT", False, 3),),)  # type: ignore[union-attr]
