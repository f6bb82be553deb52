"""Mention alignment: a key and a response document's mentions paired, and the mention table.

Mention matching (:func:`align_documents`): a key and a response mention match when their extents are
equal (the MUC scorer aligned COREF objects by position). With ``match="min"`` (SGML only) a response
mention left unmatched may also match an unmatched key mention whose extent contains it and whose
``MIN`` string it contains, the MUC-6/7 coreference rule; the innermost such key mention wins, ties by
key order, response mentions taken in document order.

Optional key mentions (``STATUS="OPT"`` in SGML): when the response has a matching mention they are
scored like any other; when it has none they are left out of the key before scoring (no penalty) and
reported as ``OPT``.

:func:`mention_table` lists every mention of either side with its pairing (the coreference stages'
artifact, ``schemas.COREF_MENTIONS``); every measure is computed from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.coref.readers import CorefDocument, Mention
from iescore.schemas import COREF_MENTIONS

MATCH_MODES = ("exact", "min")


@dataclass(frozen=True)
class AlignedDocument:
    """A key document and its response, with the mention pairing used by every measure and report."""

    doc_id: str
    key: CorefDocument
    response: CorefDocument
    key_match: tuple[int, ...]  # per key mention: index of its response mention, or -1
    response_match: tuple[int, ...]  # per response mention: index of its key mention, or -1

    def scored_key(self, index: int) -> bool:
        """False for an optional key mention the response left out (it is not scored)."""
        return self.key_match[index] >= 0 or not self.key.mentions[index].optional


@dataclass(frozen=True)
class MentionTable:
    """A key and a response aligned: their :func:`mention_table` and what the scores need besides."""

    table: pd.DataFrame  # the columns of :func:`mention_table` (``schemas.COREF_MENTIONS``)
    doc_ids: list[str]  # the key's documents, file order (the table's ``doc`` numbers them)
    key_chains: np.ndarray  # per document: the chains of its scored key mentions
    response_chains: np.ndarray  # per document: the response's chains
    duplicates: int  # response mentions removed as duplicates
    differing_words: int = 0  # CoNLL: response tokens whose word differs from the key's
    first_differing_word: str = ""  # the first of them, as :class:`CorefDocument` describes it
    notices: tuple[str, ...] = ()  # ``file:line: warning: ...`` (:mod:`pipeline.coref.pairing`)


def align_documents(
    key: dict[str, CorefDocument],
    response: dict[str, CorefDocument],
    match: str = "exact",
    response_source: str = "response",
) -> list[AlignedDocument]:
    """Pair the documents by id (key order) and their mentions by extent (or MIN, see the module doc).

    A key document the response lacks is scored against an empty response; a response document the
    key lacks is an :class:`InputError`.
    """
    if match not in MATCH_MODES:
        raise ValueError(f"match must be one of {MATCH_MODES}, not {match!r}")
    for doc_id, document in response.items():
        if doc_id not in key:
            raise InputError(response_source, document.line, f"document {doc_id!r} is not in the key")
    aligned = []
    for doc_id, key_doc in key.items():
        rsp_doc = response.get(doc_id) or CorefDocument(doc_id, (), 0, 0)
        key_match, response_match = _match_mentions(key_doc.mentions, rsp_doc.mentions, match)
        aligned.append(AlignedDocument(doc_id, key_doc, rsp_doc, key_match, response_match))
    return aligned


def mention_table(aligned: Sequence[AlignedDocument]) -> pd.DataFrame:
    """One row per mention of either side (the natural artifact of a coreference stage).

    Columns: ``doc_id``, ``doc`` (document number), ``key_mention``/``response_mention`` (index in
    the document's mentions, -1 when absent), ``key_chain``/``response_chain`` (-1 when absent),
    ``start``, ``end`` (half-open, the key's extent when matched), ``status`` (COR, MIS, SPU, OPT),
    ``scored`` (False for OPT), ``key_text``, ``response_text``.
    """
    rows: dict[str, list[Any]] = {name: [] for name in _TABLE_COLUMNS}
    for number, doc in enumerate(aligned):
        for index, mention in enumerate(doc.key.mentions):
            partner = doc.key_match[index]
            other = doc.response.mentions[partner] if partner >= 0 else None
            status = "COR" if other else ("OPT" if mention.optional else "MIS")
            _append(
                rows,
                doc.doc_id,
                number,
                index,
                partner,
                mention.chain,
                other.chain if other else -1,
                mention.start,
                mention.end,
                status,
                status != "OPT",
                mention.text,
                other.text if other else "",
            )
        for index, mention in enumerate(doc.response.mentions):
            if doc.response_match[index] < 0:
                _append(
                    rows,
                    doc.doc_id,
                    number,
                    -1,
                    index,
                    -1,
                    mention.chain,
                    mention.start,
                    mention.end,
                    "SPU",
                    True,
                    "",
                    mention.text,
                )
    return pd.DataFrame(rows)


def aligned_mentions(aligned: Sequence[AlignedDocument]) -> MentionTable:
    """The :class:`MentionTable` of aligned documents."""
    table = mention_table(aligned)
    number = table["doc"].to_numpy().astype(np.int64)
    chain = table["key_chain"].to_numpy().astype(np.int64)
    scored_key = table["scored"].to_numpy().astype(bool) & (table["key_mention"].to_numpy() >= 0)
    width = int(chain.max(initial=0)) + 1
    chains = np.unique(number[scored_key] * width + chain[scored_key]) // width  # a document per chain
    differing = [doc.response for doc in aligned if doc.response.differing_words]
    return MentionTable(
        table,
        [doc.doc_id for doc in aligned],
        np.bincount(chains, minlength=len(aligned)),
        np.array([doc.response.chains for doc in aligned], dtype=np.int64),
        sum(doc.response.duplicates for doc in aligned),
        sum(doc.differing_words for doc in differing),
        differing[0].first_differing_word if differing else "",
    )


def _match_mentions(
    key: Sequence[Mention], response: Sequence[Mention], match: str
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    key_match = [-1] * len(key)
    response_match = [-1] * len(response)
    by_extent = {(m.start, m.end): i for i, m in enumerate(key)}
    for j, mention in enumerate(response):
        i = by_extent.get((mention.start, mention.end))
        if i is not None:
            key_match[i], response_match[j] = j, i
    if match == "min":
        for j, mention in enumerate(response):
            if response_match[j] >= 0:
                continue
            best = None
            for i, candidate in enumerate(key):
                if key_match[i] >= 0 or candidate.min_span is None:
                    continue
                inside = candidate.start <= mention.start and mention.end <= candidate.end
                has_min = mention.start <= candidate.min_span[0] and candidate.min_span[1] <= mention.end
                if (
                    inside
                    and has_min
                    and (best is None or candidate.end - candidate.start < key[best].end - key[best].start)
                ):
                    best = i
            if best is not None:
                key_match[best], response_match[j] = j, best
    return tuple(key_match), tuple(response_match)


_TABLE_COLUMNS = tuple(COREF_MENTIONS.names)  # the artifact's columns, documented in schemas/


def _append(rows: dict[str, list[Any]], *values: Any) -> None:
    for name, value in zip(_TABLE_COLUMNS, values, strict=True):
        rows[name].append(value)
