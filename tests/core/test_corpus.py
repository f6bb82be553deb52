"""Tests for pipeline.core.corpus: reading text corpora (seed 000, "Text Corpus Format", "Extent Part")."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from iescore.pipeline.core.corpus import (
    DEFAULT_EXTRACTABLE,
    decode_text,
    parse_corpus,
    read_corpus,
    read_stream,
)
from iescore.pipeline.core.documents import Corpus, Document
from iescore.pipeline.core.errors import InputError

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "samples" / "hub4-sports" / "texts.sgml"
SAMPLE_IDS = ("ABC19980307.1830.1415", "PRI19980302.2000.2923", "PRI19980317.2000.2025")


def parse_error(text: str, **options: object) -> InputError:
    """Parse ``text`` as file ``t.sgml`` and return the InputError it must raise."""
    with pytest.raises(InputError) as caught:
        parse_corpus(text, "t.sgml", **options)  # type: ignore[arg-type]
    assert caught.value.file == "t.sgml"
    return caught.value


def section_texts(document: Document, name: str) -> list[str]:
    return [
        document.text[s.content_start : s.content_end] for s in document.sections if s.name.upper() == name
    ]


# --- the sample corpus -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample() -> Corpus:
    return read_corpus(SAMPLE)


def test_sample_documents_and_tags(sample: Corpus) -> None:
    assert tuple(d.doc_id for d in sample.documents) == SAMPLE_IDS
    assert sample.doc_tag == "DOC"
    assert sample.docid_tag == "DOCNO"
    assert sample.source == str(SAMPLE)
    assert [d.line for d in sample.documents] == [1, 24, 43]


def test_sample_reference_extents(sample: Corpus) -> None:
    # The extents of ../shared/samples/hub4-sports/ref.tpl.
    text = sample.by_id()["PRI19980302.2000.2923"].text
    assert text[216:255] == "African cup of\nnation soccer tournament"
    assert text[332:337] == "Egypt"
    assert text[295:326] == "defending champion south Africa"
    assert text[314:326] == "south Africa"
    assert text[327:330] == "2-0"
    assert text[401:416] == "the African cup"
    # The template strings have the file's newlines as spaces.
    assert text[461:475] == "the\ntournament"
    assert text[449:475] == "The host of the\ntournament"
    assert text[89:99] == "03/02/1998"
    assert text[14:35] == "PRI19980302.2000.2923"
    for document in sample.documents:
        assert document.text[14:35] == document.doc_id


def test_sample_document_text_is_the_file_slice(sample: Corpus) -> None:
    whole = SAMPLE.read_text(encoding="utf-8")
    for document in sample.documents:
        assert document.text.startswith("<DOC>")
        assert document.text.endswith("</DOC>")
        assert whole[document.offset : document.offset + len(document.text)] == document.text
    assert sample.documents[0].offset == 0


def test_sample_annotations_are_not_extractable(sample: Corpus) -> None:
    first = sample.documents[0]
    annotations = [s for s in first.sections if s.name == "ANNOTATION"]
    (text_section,) = [s for s in first.sections if s.name == "TEXT"]
    assert len(annotations) == 2
    assert text_section.extractable
    assert not any(s.extractable for s in annotations)
    for annotation in annotations:
        assert text_section.content_start <= annotation.start < annotation.end <= text_section.content_end
    contents = section_texts(first, "ANNOTATION")
    assert "(voice-over)" in contents[0]
    assert "(on camera)" in contents[1]
    assert (
        first.text[annotations[0].start : annotations[0].end] == "<ANNOTATION>  (voice-over)  </ANNOTATION>"
    )
    assert [s.line for s in annotations] == [9, 15]


def test_sample_sections_in_order_with_tags_at_their_offsets(sample: Corpus) -> None:
    for document in sample.documents:
        names = [s.name for s in document.sections]
        assert names[:5] == ["DOCNO", "DOCTYPE", "DATE_TIME", "BODY", "TEXT"]
        assert "DOC" not in names
        starts = [s.start for s in document.sections]
        assert starts == sorted(starts)
        for s in document.sections:
            assert document.text[s.start : s.content_start] == f"<{s.name}>"
            assert document.text[s.content_end : s.end] == f"</{s.name}>"
            assert s.extractable == (s.name == "TEXT")
    assert section_texts(sample.documents[1], "DOCTYPE") == [" NEWS STORY "]


# --- other tags, attributes, newlines and encodings ----------------------------------------------------


STORIES = (
    '<STORY id="s1" lang=en>\n'
    "<DOCID>story-1</DOCID>\n"
    '<Body type="x>y">\n'
    "<TEXT>First story.</TEXT>\n"
    "</body>\n"
    "</story>\n"
    "<story id='s2'>\n"
    "<DOCID>\n  story-2\n</DOCID>\n"
    "<TEXT>Second story.</TEXT>\n"
    "</STORY>\n"
)


def test_other_document_and_id_tags_with_attributes() -> None:
    corpus = parse_corpus(STORIES)
    assert corpus.doc_tag == "STORY"
    assert corpus.docid_tag == "DOCID"
    assert corpus.source == "<string>"
    first, second = corpus.documents
    assert (first.doc_id, second.doc_id) == ("story-1", "story-2")
    assert first.text.startswith('<STORY id="s1" lang=en>')
    assert first.text.endswith("</story>")
    assert second.text.startswith("<story id='s2'>")
    assert second.line == 7
    assert STORIES[second.offset :].startswith("<story id='s2'>")
    # The start tag's spelling names the section; the '>' inside the quoted value ends nothing.
    body = first.sections[1]
    assert body.name == "Body"
    assert first.text[body.start : body.content_start] == '<Body type="x>y">'
    assert first.text[body.content_end : body.end] == "</body>"
    assert not body.extractable
    assert [s.name for s in first.sections] == ["DOCID", "Body", "TEXT"]
    assert section_texts(first, "TEXT") == ["First story."]


def test_end_tags_match_case_insensitively() -> None:
    corpus = parse_corpus("<doc><docno>A</DOCNO><Text>x</TEXT></Doc>")
    assert corpus.doc_tag == "doc"
    assert corpus.docid_tag == "docno"
    (document,) = corpus.documents
    assert document.doc_id == "A"
    assert [s.name for s in document.sections] == ["docno", "Text"]
    assert document.sections[1].extractable  # the default TEXT matches Text


def test_crlf_offsets_count_carriage_returns(tmp_path: Path) -> None:
    path = tmp_path / "crlf.sgml"
    path.write_bytes(
        b"<DOC>\r\n<DOCNO> X1 </DOCNO>\r\n<TEXT>\r\nHello Egypt\r\n</TEXT>\r\n</DOC>\r\n"
        b"<DOC>\r\n<DOCNO> X2 </DOCNO>\r\n</DOC>\r\n"
    )
    corpus = read_corpus(path)
    first, second = corpus.documents
    # <DOC>\r\n = 7, <DOCNO> X1 </DOCNO>\r\n = 21, <TEXT>\r\n = 8, "Hello " = 6: Egypt at 42 (39 with LF).
    assert first.text[42:47] == "Egypt"
    assert first.text[15:17] == "X1"  # 14 with LF
    (text_section,) = [s for s in first.sections if s.name == "TEXT"]
    assert first.text[text_section.content_start : text_section.content_end] == "\r\nHello Egypt\r\n"
    assert text_section.line == 3
    assert second.line == 7
    assert second.offset == len(
        "<DOC>\r\n<DOCNO> X1 </DOCNO>\r\n<TEXT>\r\nHello Egypt\r\n</TEXT>\r\n</DOC>\r\n"
    )


def test_non_ascii_offsets_are_characters(tmp_path: Path) -> None:
    path = tmp_path / "utf8.sgml"
    path.write_bytes("<DOC><DOCNO>é-1</DOCNO><TEXT>Café in Zürich</TEXT></DOC>\n".encode())
    (document,) = read_corpus(path).documents
    assert document.doc_id == "é-1"
    start = len("<DOC><DOCNO>é-1</DOCNO><TEXT>Café in ")
    assert start == 37  # characters; the bytes before Zürich number 39
    assert document.text[start : start + 6] == "Zürich"


LATIN1 = "<DOC>\n<DOCNO>L1</DOCNO>\n<TEXT>\nZürich\n</TEXT>\n</DOC>\n".encode("latin-1")


def test_latin1_read_with_latin1(tmp_path: Path) -> None:
    path = tmp_path / "latin1.sgml"
    path.write_bytes(LATIN1)
    (document,) = read_corpus(path, encoding="latin-1").documents
    start = len("<DOC>\n<DOCNO>L1</DOCNO>\n<TEXT>\n")
    assert document.text[start : start + 6] == "Zürich"


def test_latin1_read_as_utf8_fails_on_the_right_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.sgml"
    path.write_bytes(LATIN1)
    with pytest.raises(InputError) as caught:
        read_corpus(path)
    error = caught.value
    assert error.file == str(path)
    assert error.line == 4
    assert "utf-8" in error.message
    assert "0xfc" in error.message
    assert "--encoding latin-1" in error.message
    assert str(error).startswith(f"{path}:4: ")


def test_decode_text() -> None:
    assert decode_text("a\r\nb é".encode(), "f", "utf-8") == "a\r\nb é"  # no newline translation
    with pytest.raises(InputError) as caught:
        decode_text(b"ok\nok\n\xff\n", "f", "utf-8")
    assert (caught.value.file, caught.value.line) == ("f", 3)
    # The line is counted in characters of the encoding, not in 0x0a bytes.
    data = "a\nb\n".encode("utf-16-le") + b"\x00\xdc"  # a lone low surrogate
    with pytest.raises(InputError) as caught:
        decode_text(data, "f", "utf-16-le")
    assert caught.value.line == 3
    with pytest.raises(InputError) as caught:
        decode_text(b"x", "f", "no-such-encoding")
    assert caught.value.line == 0
    assert "unknown encoding" in caught.value.message


def test_utf8_byte_order_mark_is_not_text_outside() -> None:
    corpus = parse_corpus("\ufeff<DOC><DOCNO>A</DOCNO></DOC>")
    assert corpus.documents[0].offset == 1
    assert corpus.documents[0].text.startswith("<DOC>")


def test_read_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_corpus(tmp_path / "absent.sgml")
    assert caught.value.line == 0
    assert "cannot read" in caught.value.message


# --- SGML details ----------------------------------------------------------------------------------------


def test_comments_declarations_and_stray_less_than_are_not_elements() -> None:
    text = (
        '<!DOCTYPE corpus SYSTEM "c.dtd">\n'
        "<!-- a comment with <DOC> inside -->\n"
        "<?processing instruction?>\n"
        "<DOC>\n"
        "<DOCNO>A</DOCNO>\n"
        "<TEXT>if a < b and x<y then <!-- <B> --> done</TEXT>\n"
        "</DOC>\n"
        "<!-- between -->\n"
    )
    (document,) = parse_corpus(text).documents
    assert document.line == 4
    assert [s.name for s in document.sections] == ["DOCNO", "TEXT"]
    assert section_texts(document, "TEXT") == ["if a < b and x<y then <!-- <B> --> done"]


def test_empty_elements() -> None:
    (document,) = parse_corpus("<DOC><DOCNO>A</DOCNO><TEXT></TEXT><BR/><HR class='x' /></DOC>").documents
    text, br, hr = document.sections[1:]
    assert (text.start, text.content_start, text.content_end, text.end) == (21, 27, 27, 34)
    assert (br.name, br.start, br.content_start, br.content_end, br.end) == ("BR", 34, 39, 39, 39)
    assert document.text[hr.start : hr.end] == "<HR class='x' />"
    assert hr.content_start == hr.content_end == hr.end


def test_nested_sections_in_start_order() -> None:
    text = "<DOC><A><B><C>x</C></B><D/></A><DOCNO>Z</DOCNO></DOC>"
    (document,) = parse_corpus(text).documents
    assert [(s.name, s.start, s.end) for s in document.sections] == [
        ("A", 5, 31),
        ("B", 8, 23),
        ("C", 11, 19),
        ("D", 23, 27),
        ("DOCNO", 31, 47),
    ]
    assert document.doc_id == "Z"


def test_extractable_names() -> None:
    text = "<DOC><DOCNO>A</DOCNO><TEXT>t</TEXT><headline>h</headline><ANNOTATION>a</ANNOTATION></DOC>"
    assert DEFAULT_EXTRACTABLE == ("TEXT",)
    sections = parse_corpus(text, extractable=["Headline", "text"]).documents[0].sections
    assert [s.name for s in sections if s.extractable] == ["TEXT", "headline"]
    # A single name given as a string is one name, not its letters.
    sections = parse_corpus(text, extractable="HEADLINE").documents[0].sections
    assert [s.name for s in sections if s.extractable] == ["headline"]
    assert not any(s.extractable for s in parse_corpus(text, extractable=()).documents[0].sections)


def test_docid_tag_given_or_guessed_past_doctype() -> None:
    text = "<DOC><DOCTYPE>NEWS STORY</DOCTYPE><DOCNO>N1</DOCNO><ID>I1</ID></DOC>"
    guessed = parse_corpus(text)
    assert (guessed.docid_tag, guessed.documents[0].doc_id) == ("DOCNO", "N1")
    given_tag = parse_corpus(text, docid_tag="id")
    assert (given_tag.docid_tag, given_tag.documents[0].doc_id) == ("ID", "I1")  # spelled as found


def test_nested_id_element_is_found() -> None:
    text = "<DOC><HEAD><DOCID> H1 </DOCID></HEAD><TEXT>x</TEXT></DOC>"
    assert parse_corpus(text).documents[0].doc_id == "H1"


# --- errors: file, line and what was expected ------------------------------------------------------------


def test_mixed_document_tags() -> None:
    error = parse_error("<DOC><DOCNO>A</DOCNO></DOC>\n\n<STORY><DOCNO>B</DOCNO></STORY>\n")
    assert error.line == 3
    assert "mixed document tags: expected <DOC>, found <STORY>" in error.message


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("stray\n<DOC><DOCNO>A</DOCNO></DOC>\n", 1),
        ("<DOC><DOCNO>A</DOCNO></DOC>\n\n  junk here\n<DOC><DOCNO>B</DOCNO></DOC>\n", 3),
        ("<DOC><DOCNO>A</DOCNO></DOC>\n<!-- c -->\ntrailing\n", 3),
        ("<DOC><DOCNO>A</DOCNO></DOC>\na < b\n", 2),
    ],
)
def test_text_outside_documents(text: str, line: int) -> None:
    error = parse_error(text)
    assert error.line == line
    assert "outside any" in error.message


def test_text_outside_names_the_document_tag() -> None:
    error = parse_error("<DOC><DOCNO>A</DOCNO></DOC>\nstray words\n")
    assert "text outside any <DOC> document" in error.message
    assert "stray words" in error.message


def test_missing_document_end_tag_at_end_of_file() -> None:
    error = parse_error("<DOC><DOCNO>A</DOCNO></DOC>\n<DOC>\n<DOCNO>B</DOCNO>\n<TEXT>x</TEXT>\n")
    assert error.line == 2
    assert "missing </DOC>" in error.message


def test_missing_document_end_tag_before_next_document() -> None:
    error = parse_error("<DOC>\n<DOCNO>A</DOCNO>\n\n<DOC>\n<DOCNO>B</DOCNO>\n</DOC>\n")
    assert error.line == 1
    assert "missing </DOC>" in error.message
    assert "line 4" in error.message


def test_missing_inner_end_tag_at_end_of_file() -> None:
    error = parse_error("<DOC><DOCNO>A</DOCNO>\n<TEXT>x\n")
    assert error.line == 2
    assert "missing </TEXT>" in error.message


def test_improper_nesting() -> None:
    error = parse_error("<DOC><DOCNO>A</DOCNO>\n<A><B>\ntext</A></B>\n</DOC>\n")
    assert error.line == 3
    assert "expected </B> before </A>" in error.message
    assert "line 2" in error.message  # where <B> was opened


def test_inner_end_tag_missing_before_document_end() -> None:
    error = parse_error("<DOC><DOCNO>A</DOCNO>\n<TEXT>x\n</DOC>\n")
    assert error.line == 3
    assert "expected </TEXT> before </DOC>" in error.message


def test_end_tag_without_start_tag_inside_document() -> None:
    error = parse_error("<DOC><DOCNO>A</DOCNO>\n<TEXT>x</P></TEXT>\n</DOC>\n")
    assert error.line == 2
    assert "</P> without a matching start tag" in error.message
    assert "expected </TEXT>" in error.message


def test_end_tag_outside_documents() -> None:
    error = parse_error("<DOC><DOCNO>A</DOCNO></DOC>\n</DOC>\n")
    assert error.line == 2
    assert "end tag </DOC> without a start tag" in error.message


def test_malformed_end_tag() -> None:
    error = parse_error('<DOC><DOCNO>A</DOCNO>\n<TEXT>x</TEXT id="1">\n</DOC>\n')
    assert error.line == 2
    assert "malformed end tag" in error.message


def test_unclosed_comment() -> None:
    error = parse_error("<DOC><DOCNO>A</DOCNO>\n<!-- never closed\n</DOC>\n")
    assert error.line == 2
    assert "expected -->" in error.message


def test_missing_id_element() -> None:
    error = parse_error("<DOC><DOCNO>A</DOCNO></DOC>\n<DOC>\n<TEXT>x</TEXT>\n</DOC>\n")
    assert error.line == 2
    assert "expected a <DOCNO> element" in error.message


def test_missing_given_id_element() -> None:
    error = parse_error("<DOC><DOCNO>A</DOCNO></DOC>\n", docid_tag="DOCID")
    assert error.line == 1
    assert "expected a <DOCID> element" in error.message


def test_no_id_element_to_guess() -> None:
    error = parse_error("\n<DOC><TEXT>x</TEXT><DOCTYPE>NEWS</DOCTYPE></DOC>\n")
    assert error.line == 2
    assert "expected a document id element" in error.message


def test_id_with_internal_whitespace() -> None:
    error = parse_error("<DOC>\n<DOCNO> A B </DOCNO>\n</DOC>\n")
    assert error.line == 2
    assert "contains whitespace" in error.message


def test_empty_id() -> None:
    error = parse_error("<DOC>\n<DOCNO>  </DOCNO>\n</DOC>\n")
    assert error.line == 2
    assert "empty <DOCNO>" in error.message


def test_markup_inside_id() -> None:
    error = parse_error("<DOC>\n<DOCNO><B>A</B></DOCNO>\n</DOC>\n")
    assert error.line == 2
    assert "markup inside <DOCNO>" in error.message


def test_two_id_elements_in_one_document() -> None:
    error = parse_error("<DOC>\n<DOCNO>A</DOCNO>\n<DOCNO>B</DOCNO>\n</DOC>\n")
    assert error.line == 3
    assert "second <DOCNO>" in error.message
    assert "line 2" in error.message


def test_duplicate_ids_name_both_lines() -> None:
    error = parse_error(
        "<DOC><DOCNO>A</DOCNO></DOC>\n<DOC><DOCNO>B</DOCNO></DOC>\n<DOC><DOCNO> A </DOCNO></DOC>\n"
    )
    assert error.line == 3
    assert "duplicate document id A" in error.message
    assert "line 1" in error.message


@pytest.mark.parametrize("text", ["", "  \n\n", "<!-- only a comment -->\n"])
def test_no_documents(text: str) -> None:
    error = parse_error(text)
    assert error.line == 0
    assert "no documents" in error.message
    assert str(error) == "t.sgml: no documents: expected documents such as <DOC> ... </DOC>"


# --- properties and size ---------------------------------------------------------------------------------

# Text without markup characters, including CR, LF and non-ASCII letters.
_WORDS = st.text(alphabet=st.sampled_from("ab é\r\n\tZ&;."), max_size=12)
_NAMES = st.sampled_from(["TEXT", "P", "Annotation", "s", "HL"])


@st.composite
def _element(draw: st.DrawFn, depth: int = 0) -> str:
    name = draw(_NAMES)
    if depth >= 2 or draw(st.booleans()):
        return f"<{name}>{draw(_WORDS)}</{name.lower()}>"
    children = draw(st.lists(_element(depth + 1), max_size=3))
    return f"<{name} n='{depth}'>" + draw(_WORDS) + "".join(children) + f"</{name}>"


@given(st.lists(st.lists(_element(), max_size=4), min_size=1, max_size=4), _WORDS.map(str.strip))
@settings(max_examples=150, deadline=None)
def test_random_corpora_sections_point_at_their_tags(bodies: list[list[str]], separator: str) -> None:
    blank = "\r\n \n"
    documents = [
        f"<DOC>{blank}<DOCNO> D{i} </DOCNO>" + "".join(body) + "</DOC>" for i, body in enumerate(bodies)
    ]
    text = blank + blank.join(documents) + blank
    corpus = parse_corpus(text)
    assert [d.doc_id for d in corpus.documents] == [f"D{i}" for i in range(len(bodies))]
    for document, source in zip(corpus.documents, documents, strict=True):
        assert document.text == source
        assert text[document.offset : document.offset + len(source)] == source
        assert document.line == text.count("\n", 0, document.offset) + 1
        assert len(document.sections) == source.count("</") - 1  # every end tag but </DOC>
        previous = -1
        for s in document.sections:
            assert previous < s.start <= s.content_start <= s.content_end < s.end
            previous = s.start
            assert document.text[s.start : s.content_start].startswith(f"<{s.name}")
            assert document.text[s.content_end : s.end].upper() == f"</{s.name.upper()}>"
            assert s.extractable == (s.name.upper() == "TEXT")
            assert s.line == text.count("\n", 0, document.offset + s.start) + 1


def test_large_and_pathological_input() -> None:
    # Many '<' that begin no tag, and many small documents: a quadratic scan would take minutes (the
    # suite would visibly stall here; its speed is measured in benchmarks/, not asserted in a test).
    text_body = "x<y and <z " * 20000
    document = "<DOC>\n<DOCNO>{}</DOCNO>\n<TEXT>\n" + text_body + "</TEXT>\n</DOC>\n"
    small = "".join(f"<DOC><DOCNO>S{i}</DOCNO><TEXT><P>a</P><P>b</P></TEXT></DOC>\n" for i in range(20000))
    text = document.format("BIG") + small
    corpus = parse_corpus(text)
    assert len(corpus.documents) == 20001
    assert section_texts(corpus.documents[0], "TEXT") == ["\n" + text_body]


@pytest.mark.parametrize("tag", ["<DOC>", "<doc>", '<DOC id="1">'])
def test_a_word_stream_with_documents_is_a_segmented_corpus(tmp_path: Path, tag: str) -> None:
    # --unsegmented given a segmented corpus: its DOCNO ids were read as words of the stream and the
    # extents counted from the file's start, which scored quietly (exit 0) against the wrong offsets.
    path = tmp_path / "asr.sgml"
    path.write_text(f'<time sec="0.00"> hello\n{tag}\n<DOCNO> S1 </DOCNO>\nworld\n</DOC>\n')
    with pytest.raises(InputError) as caught:
        read_stream(path)
    assert caught.value.line == 2
    assert "drop --unsegmented" in caught.value.message


def test_a_word_stream_may_hold_other_tags(tmp_path: Path) -> None:
    # Only a DOC tag marks a segmented corpus; a tag whose name merely starts with DOC does not.
    text = '<time sec="0.00"> a tag-like <DOCUMENTARY> word\n'
    path = tmp_path / "s.txt"
    path.write_text(text)
    assert read_stream(path).documents[0].text == text
