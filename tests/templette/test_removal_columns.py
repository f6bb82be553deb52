"""RemoveNonEvaluated's column path agrees with the template-set path (issue 16, point 5).

The stage cleans a ``fills`` table column by column (:func:`remove_non_evaluated_table`); the rule
itself is :func:`remove_non_evaluated` on a template set. On random template sets (premodifiers,
punctuation, minimal strings, annotations inside fills, contents that differ from the text,
``OBJ_STATUS`` fills that removal makes read ``OPTIONAL``) both give the same table.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from iescore.pipeline.core.corpus import parse_corpus
from iescore.pipeline.templette.model import Extent, Instance, Pointer, SetFill, Slot, TemplateSet, TextFill
from iescore.pipeline.templette.removal import (
    DEFAULT_PUNCTUATION,
    RemovalOptions,
    remove_non_evaluated,
    remove_non_evaluated_columns,
    remove_non_evaluated_table,
)
from iescore.pipeline.templette.tables import corpus_to_table, template_set_to_table

WORDS = ["the", "a", "and", "Egypt", "O'Brien", "(cup)", "1,100", "--", "final.", "optional", "OPTIONAL,"]
BODY = " ".join(WORDS) + " <ANNOTATION> noise </ANNOTATION> " + " ".join(reversed(WORDS))
DOCUMENT = f"<DOC><DOCNO> D1 </DOCNO><TEXT>{BODY}</TEXT></DOC>"
CORPUS = parse_corpus(DOCUMENT)
TEXT_START = DOCUMENT.index("<TEXT>") + len("<TEXT>")
# Every word's span in the document (annotation words included: a fill may enclose the annotation).
SPANS: list[tuple[int, int]] = []
_position = TEXT_START
for _word in BODY.split(" "):
    SPANS.append((_position, _position + len(_word)))
    _position += len(_word) + 1


@st.composite
def text_fills(draw: st.DrawFn) -> TextFill:
    first = draw(st.integers(0, len(SPANS) - 1))
    last = draw(st.integers(first, min(first + 4, len(SPANS) - 1)))
    start, end = SPANS[first][0], SPANS[last][1]
    raw = DOCUMENT[start:end]
    if draw(st.booleans()):  # a content that is not the text under its extent
        raw = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4)))
        return TextFill(raw, (Extent(start, end),) if draw(st.booleans()) else ())
    if draw(st.booleans()) and first < last:  # one minimal string: the last word, in brackets
        word_start = SPANS[last][0]
        bracketed = raw[: word_start - start] + "[" + raw[word_start - start :] + "]"
        return TextFill(bracketed, (Extent(start, end), Extent(word_start, end)))
    return TextFill(raw, (Extent(start, end),))


@st.composite
def template_sets(draw: st.DrawFn) -> TemplateSet:
    instances = []
    for n in range(draw(st.integers(1, 4))):
        slots = []
        if draw(st.booleans()):
            status = draw(st.sampled_from(["OPTIONAL", "the optional", "optional.", "KEEP"]))
            fill = SetFill(status) if draw(st.booleans()) else TextFill(status)
            slots.append(Slot("OBJ_STATUS", ((fill,),)))
        for name in draw(st.lists(st.sampled_from(["WINNER", "LOSER", "PLACE"]), unique=True, max_size=3)):
            alternatives = draw(
                st.lists(st.lists(text_fills(), min_size=1, max_size=2), min_size=1, max_size=2)
            )
            slots.append(Slot(name, tuple(tuple(a) for a in alternatives)))
        instances.append(Instance(Pointer("EVENT", "D1", str(n + 1)), tuple(slots), n + 1))
    return TemplateSet(tuple(instances), "random.tpl")


@settings(max_examples=150, deadline=None)
@given(template_sets(), st.booleans(), st.sampled_from(["", DEFAULT_PUNCTUATION, ".-"]))
def test_column_removal_agrees_with_template_set_removal(
    template_set: TemplateSet, with_corpus: bool, punctuation: str
) -> None:
    options = RemovalOptions(punctuation=punctuation)
    corpus = CORPUS if with_corpus else None
    expected = template_set_to_table(remove_non_evaluated(template_set, corpus, options))
    got = remove_non_evaluated_table(template_set_to_table(template_set), corpus, options)
    assert got.equals(expected)
    documents = corpus_to_table(corpus) if corpus is not None else None
    assert remove_non_evaluated_columns(template_set_to_table(template_set), documents, options).equals(
        expected
    )


# Plain fills (one word or a few, no premodifier) whose extents start or end at or inside the tags
# of non-extractable sections, lie inside them, enclose them or meet none: the column path decides
# which fills need the rule by the sections starting or ending inside their extents.
@st.composite
def annotated_corpora(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    """A corpus of two documents (D1, D2) and the span of every token of D1 (tags are tokens)."""
    tokens: list[str] = []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.booleans()):
            inner = draw(st.lists(st.sampled_from(["noise", "cup", "Egypt,"]), min_size=1, max_size=2))
            tokens += ["<ANNOTATION>", *inner, "</ANNOTATION>"]
        else:
            tokens.append(draw(st.sampled_from(["Egypt", "cup", "2-0", "O'Brien", "(final)"])))
    head = "<DOC><DOCNO> D1 </DOCNO><TEXT>"
    spans, position = [], len(head)
    for token in tokens:
        spans.append((position, position + len(token)))
        position += len(token) + 1
    text = head + " ".join(tokens) + "</TEXT></DOC>\n<DOC><DOCNO> D2 </DOCNO><TEXT>cup</TEXT></DOC>\n"
    return text, spans


@settings(max_examples=300, deadline=None)
@given(annotated_corpora(), st.data())
def test_plain_fills_meeting_sections_are_cleaned_as_by_the_rule(
    corpus_spans: tuple[str, list[tuple[int, int]]], data: st.DataObject
) -> None:
    text, spans = corpus_spans
    corpus = parse_corpus(text)
    fills = []
    for _ in range(data.draw(st.integers(1, 6))):
        first = data.draw(st.integers(0, len(spans) - 1))
        last = data.draw(st.integers(first, len(spans) - 1))
        start = spans[first][0] + data.draw(st.sampled_from([0, 0, 1, 2, -1]))
        end = spans[last][1]
        # Mostly the text under the extent: one starting inside an end tag ("/ANNOTATION> cup") has no
        # "<" but a section ending inside it, so its document text is whited out in part.
        raw = corpus.documents[0].text[start:end] if data.draw(st.booleans()) else "cup"
        fills.append(TextFill(raw, (Extent(start, end),) if start < end else ()))
    doc_id = data.draw(st.sampled_from(["D1", "D1", "D2", "D9"]))
    instance = Instance(Pointer("EVENT", doc_id, "1"), (Slot("WINNER", (tuple(fills),)),), 1)
    template_set = TemplateSet((instance,), "t.tpl")
    options = RemovalOptions()
    expected = template_set_to_table(remove_non_evaluated(template_set, corpus, options))
    table = template_set_to_table(template_set)
    assert remove_non_evaluated_table(table, corpus, options).equals(expected)
    assert remove_non_evaluated_columns(table, corpus_to_table(corpus), options).equals(expected)


def test_a_fill_around_an_annotation_is_whited_out_by_the_column_path() -> None:
    # By hand: "cup <ANNOTATION> noise </ANNOTATION> Egypt" -- the annotation (tags and text, 32
    # characters: 12 + 1 + 5 + 1 + 13) lies inside the fill's extent and becomes spaces; "cup" and
    # "Egypt" stay.
    body = "cup <ANNOTATION> noise </ANNOTATION> Egypt"
    text = f"<DOC><DOCNO> D1 </DOCNO><TEXT>{body}</TEXT></DOC>"
    start = text.index("cup")
    fill = TextFill(body, (Extent(start, start + len(body)),))
    instance = Instance(Pointer("EVENT", "D1", "1"), (Slot("WINNER", ((fill,),)),), 1)
    table = template_set_to_table(TemplateSet((instance,), "t.tpl"))
    removed = remove_non_evaluated_columns(table, corpus_to_table(parse_corpus(text)), RemovalOptions())
    assert removed.column("norm_content").to_pylist() == ["cup " + " " * 32 + " Egypt"]


def test_removal_can_make_an_instance_optional() -> None:
    # "the optional": the premodifier goes, the content reads OPTIONAL: the instance is optional after
    # removal (Instance.optional), and the column path says so too.
    instance = Instance(Pointer("EVENT", "D1", "1"), (Slot("OBJ_STATUS", ((TextFill("the optional"),),)),), 1)
    table = template_set_to_table(TemplateSet((instance,), "t.tpl"))
    assert table.column("instance_optional").to_pylist() == [False]
    removed = remove_non_evaluated_table(table, None, RemovalOptions())
    assert removed.column("instance_optional").to_pylist() == [True]
    assert removed.column("norm_content").to_pylist() == ["optional"]
