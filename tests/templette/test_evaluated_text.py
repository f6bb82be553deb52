"""Which text is evaluated: the innermost element decides (pipeline.core.corpus.evaluated_ranges).

Seed 000's sample corpus and LDC's HUB-4 files put <TEXT> inside <BODY>; the transcripts put
<ANNOTATION> inside <TEXT>. The aligner's words and removal's whiteout follow the same rule. Every
expected word list below is read off the document by hand.
"""

from __future__ import annotations

from iescore.pipeline.core.corpus import evaluated_ranges, parse_corpus
from iescore.pipeline.speech.align import document_items
from iescore.pipeline.speech.words import flatten
from iescore.pipeline.templette.model import Extent, Instance, Pointer, Slot, TemplateSet, TextFill
from iescore.pipeline.templette.removal import RemovalOptions, remove_non_evaluated

# TEXT inside BODY (the seed's layout). Not evaluated: the id, the date, BODY's own text before and
# after TEXT, the text after </BODY>, and the annotation inside TEXT.
BODY_LAYOUT = (
    "<DOC>\n<DOCNO> D1 </DOCNO>\n<DATE_TIME> 03/07/1998 18:53 </DATE_TIME>\n<BODY>\nbody words\n<TEXT>\n"
    "alpha beta <ANNOTATION> (voice-over) </ANNOTATION> gamma\n"
    "</TEXT>\ntrailing body\n</BODY>\nafter body\n</DOC>\n"
)

# Deeper: BODY > TEXT > ANNOTATION > TEXT > ANNOTATION. Evaluated: a1 a2 (outer TEXT), b1 b2 (the TEXT
# inside the annotation), a3 (outer TEXT again); n1..n4 lie in annotations.
DEEP_LAYOUT = (
    "<DOC><DOCNO> D3 </DOCNO><BODY><TEXT> a1 a2 <ANNOTATION> n1 <TEXT> b1 <ANNOTATION> n2 n3 </ANNOTATION>"
    " b2 </TEXT> n4 </ANNOTATION> a3 </TEXT></BODY></DOC>"
)


def words(text: str) -> list[str]:
    document = parse_corpus(text).documents[0]
    return [word.text for word in flatten(document_items(document, None, None))]


def test_text_inside_body_is_evaluated() -> None:
    # By hand: 3 words. (Before the rule, BODY hid its TEXT: 0 words.)
    text = "<DOC>\n<DOCNO> D0 </DOCNO>\n<BODY>\n<TEXT>\none two three\n</TEXT>\n</BODY>\n</DOC>\n"
    assert words(text) == ["one", "two", "three"]


def test_annotation_inside_text_inside_body_is_not() -> None:
    assert words(BODY_LAYOUT) == ["alpha", "beta", "gamma"]


def test_deeper_nesting_alternates() -> None:
    assert words(DEEP_LAYOUT) == ["a1", "a2", "b1", "b2", "a3"]
    # The ranges themselves: tags are markup, so each range starts after a tag and ends before one.
    document = parse_corpus(DEEP_LAYOUT).documents[0]
    pieces = [document.text[start:end] for start, end in evaluated_ranges(document)]
    assert pieces == [" a1 a2 ", " b1 ", " b2 ", " a3 "]


def test_document_without_extractable_section_is_evaluated_whole() -> None:
    # A recognizer's document of bare words: everything outside its non-extractable elements.
    text = "<DOC><DOCNO> D4 </DOCNO> w1 w2 <NOTE> x y </NOTE> w3 <BODY> z </BODY></DOC>"
    assert words(text) == ["w1", "w2", "w3"]


def test_a_token_without_letter_or_digit_is_no_word() -> None:
    # The seed's "note -- today in\nAnchorage,..." : the dash is punctuation (removal whites it out of
    # contents too), the comma and dots are edge punctuation.
    text = "<DOC><DOCNO> D5 </DOCNO><TEXT>note -- today in\nAnchorage,... ...Alaska 2-0</TEXT></DOC>"
    assert words(text) == ["note", "today", "in", "Anchorage", "Alaska", "2-0"]


def test_removal_whites_out_by_the_same_rule() -> None:
    # A fill from a1 to a3 in DEEP_LAYOUT: BODY and the outer TEXT enclose it (left alone); inside it the
    # annotations go and the nested TEXT's words stay. Its words are the aligner's words of that span.
    corpus = parse_corpus(DEEP_LAYOUT)
    document = corpus.documents[0]
    start, end = document.text.index("a1"), document.text.index("a3") + 2
    fill = TextFill(document.text[start:end], (Extent(start, end),))
    instance = Instance(Pointer("EVENT", "D3", "1"), (Slot("S", ((fill,),)),))
    cleaned = remove_non_evaluated(TemplateSet((instance,)), corpus, RemovalOptions())
    content = cleaned.instances[0].slots[0].alternatives[0][0].content
    assert content.split() == ["a1", "a2", "b1", "b2", "a3"]
    assert content.split() == words(DEEP_LAYOUT)


def test_removal_in_the_body_layout() -> None:
    # "beta <ANNOTATION> (voice-over) </ANNOTATION> gamma" inside TEXT inside BODY: the annotation is
    # whited out (seed 000's "Anchorage ... Alaska"), its extent unchanged.
    corpus = parse_corpus(BODY_LAYOUT)
    document = corpus.documents[0]
    start = document.text.index("beta")
    end = document.text.index("gamma") + len("gamma")
    fill = TextFill(document.text[start:end], (Extent(start, end),))
    instance = Instance(Pointer("EVENT", "D1", "1"), (Slot("S", ((fill,),)),))
    cleaned = remove_non_evaluated(TemplateSet((instance,)), corpus, RemovalOptions()).instances[0]
    result = cleaned.slots[0].alternatives[0][0]
    assert result.content.split() == ["beta", "gamma"]
    assert len(result.content) == end - start and result.extents == (Extent(start, end),)
