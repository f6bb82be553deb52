"""The identity alignment's array path agrees with the aligner's word rule (issue 16, point 5).

``identity_alignment`` finds the words of a whole corpus with array operations; the aligner's
:func:`pipeline.speech.align.document_items` finds them run by run. On random documents (nested
extractable and non-extractable sections, stray tags, edge punctuation (long runs too), dashes,
non-ASCII letters and blanks) both give the same words and spans, column for column.
"""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from iescore.pipeline.core.corpus import parse_corpus
from iescore.pipeline.speech.align import document_items, identity_alignment
from iescore.pipeline.speech.words import flatten
from iescore.schemas import ALIGNMENT, C

PIECES = [
    "alpha", "Beta", "--", "...", "(x)", "O'Brien", "[y]", "`z`", "1,100", "é", "ça", "٣", "_", "_a",
    "<B>x</B>", "<ANNOTATION> gone </ANNOTATION>", "<ANNOTATION>n <TEXT> back </TEXT>m</ANNOTATION>",
    "w<BR/>v", "<!-- c -->", "a<b", " ", "  ", "\n",
    "\u00a0", "\u2003", "\t", ",", ".", "?!", '"q"', "x-", "-y", "<", "1 < 2",
    "((((((((((deep))))))))))", '"`([.,;:!?"a', "b!?.,;:)]`\"(",  # more edge marks than 8 steps
]  # fmt: skip


def by_items(corpus) -> pa.Table:
    """The alignment as the aligner's item functions give it, document by document."""
    columns: dict[str, list] = {name: [] for name in ALIGNMENT.names}
    for document in corpus.documents:
        for column, word in enumerate(flatten(document_items(document, None, None))):
            columns[C.doc_id].append(document.doc_id)
            columns[C.column].append(column)
            for side in ("ref", "hyp"):
                columns[f"{side}_word"].append(word.text)
                columns[f"{side}_start"].append(word.start)
                columns[f"{side}_end"].append(word.end)
            columns[C.op].append("C")
            columns[C.cost].append(0.0)
    return pa.table(columns, schema=ALIGNMENT)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=30), min_size=1, max_size=4))
def test_identity_alignment_agrees_with_document_items(bodies: list[list[str]]) -> None:
    text = "".join(
        f"<DOC>\n<DOCNO> D{n} </DOCNO>\n<TEXT>\n{' '.join(body)}\n</TEXT>\n</DOC>\n"
        for n, body in enumerate(bodies)
    )
    corpus = parse_corpus(text)
    assert identity_alignment(corpus).equals(by_items(corpus))


def test_identity_alignment_of_a_known_document() -> None:
    # By hand: TEXT holds "(Alpha), -- beta <ANNOTATION> gone </ANNOTATION> ça." starting at
    # offset 24 ("<DOC><DOCNO> D </DOCNO>" is 23 characters, then "<TEXT>" ends at 29).
    text = "<DOC><DOCNO> D </DOCNO><TEXT>(Alpha), -- beta <ANNOTATION> gone </ANNOTATION> ça.</TEXT></DOC>"
    table = identity_alignment(parse_corpus(text))
    assert table.column(C.ref_word).to_pylist() == ["Alpha", "beta", "ça"]
    # "(Alpha)," at 29..37: the word at 30..35; " -- " at 37..41; "beta" at 41..45; " <ANNOTATION>"
    # 45..58 (the tag is 12 characters), " gone " 58..64, "</ANNOTATION>" 64..77 (13), " " 77, "ça" 78..80.
    assert table.column(C.ref_start).to_pylist() == [30, 41, 78]
    assert table.column(C.ref_end).to_pylist() == [35, 45, 80]
    assert table.column(C.column).to_pylist() == [0, 1, 2]
