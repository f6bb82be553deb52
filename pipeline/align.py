"""Alignment of reference and hypothesis texts (seed 000, "Extent Normalization by Alignment").

When both sides used the same text corpus the alignment is the identity: every word of every
document is one column, correct, at cost 0. It is still written out, so that the chain and its audit
trail keep one shape whatever the inputs.
"""

from __future__ import annotations

import re

import pyarrow as pa

from pipeline.model import Corpus
from schemas import ALIGNMENT, C

# A word is a run of non-blank characters outside SGML tags.
_TAG_OR_WORD = re.compile(r"<[^>]*>|[^\s<]+")


def identity_alignment(corpus: Corpus) -> pa.Table:
    """One column per word of each document, reference and hypothesis the same word (op C)."""
    doc_ids, columns, words, starts, ends = [], [], [], [], []
    for document in corpus.documents:
        column = 0
        for match in _TAG_OR_WORD.finditer(document.text):
            if match.group().startswith("<"):
                continue
            doc_ids.append(document.doc_id)
            columns.append(column)
            words.append(match.group())
            starts.append(match.start())
            ends.append(match.end())
            column += 1
    n = len(words)
    return pa.table(
        {
            C.doc_id: doc_ids,
            C.column: columns,
            C.ref_word: words,
            C.ref_start: starts,
            C.ref_end: ends,
            C.hyp_word: words,
            C.hyp_start: starts,
            C.hyp_end: ends,
            C.op: ["C"] * n,
            C.cost: [0.0] * n,
        },
        schema=ALIGNMENT,
    )
