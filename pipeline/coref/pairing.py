"""A key's and a response's documents paired, and the response's repeated mentions resolved, as the
CoNLL reference scorer (v8.01, ``scorer.pl``) does it, or refused (``strict``).

Three cases where a response does not mirror its key, each followed by default the way ``scorer.pl``
follows it and announced by a notice (``file:line: warning: ...``, printed on stderr by the command
line), or refused with an :class:`InputError` under ``strict``:

- a key document the response lacks is scored against an empty response (every key mention missed);
- a response document the key lacks is ignored;
- a response mention whose extent the response writes again, and which is not a key mention, is kept
  in every copy (each copy is one more invented mention: the reference's ``IdentifMentions`` removes a
  repeat only when its extent is a key mention). Under ``strict`` every repeat is removed.

A repeat of a key mention is removed in both modes (the first copy, in chain order, stays), as the
reference removes it, and counted in :attr:`CorefDocument.duplicates`. Every path that scores a key
and a response (the command in both of its forms, the campaign kind) pairs them here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.coref.alignment import AlignedDocument, align_documents
from iescore.pipeline.coref.readers import CorefDocument, Mention, read_pair


@dataclass(frozen=True)
class PairedDocuments:
    """The key's documents and, in the same order, the response's as written and as scored."""

    key: dict[str, CorefDocument]
    written: dict[str, CorefDocument]  # the response's document of each key document (empty if none)
    response: dict[str, CorefDocument]  # the same with its repeats resolved: what is scored
    missing: frozenset[str]  # key documents the response lacks
    removed: dict[str, tuple[Mention, ...]]  # per document: the response mentions removed as repeats
    notices: tuple[str, ...]  # ``file:line: warning: ...``, one per case met


def pair_documents(
    key: dict[str, CorefDocument],
    response: dict[str, CorefDocument],
    key_source: str,
    response_source: str,
    strict: bool = False,
) -> PairedDocuments:
    """Pair ``response``'s documents with ``key``'s and resolve repeated response mentions (see the
    module's text); raises InputError under ``strict`` where the default would give a notice."""
    notices: list[str] = []
    for doc_id, document in response.items():
        if doc_id not in key:
            message = f"document {doc_id!r} is not in the key {key_source}"
            if strict:
                raise InputError(
                    response_source, document.line, f"{message}: '#begin document' of a key document expected"
                )
            notices.append(
                f"{response_source}:{document.line}: warning: {message}: ignored, as scorer.pl ignores it"
            )
    written: dict[str, CorefDocument] = {}
    scored: dict[str, CorefDocument] = {}
    removed: dict[str, tuple[Mention, ...]] = {}
    missing = []
    for doc_id, key_doc in key.items():
        found = response.get(doc_id)
        if found is None:
            where = f"document {doc_id!r} of the key ({key_source}:{key_doc.line})"
            if strict:
                raise InputError(
                    response_source,
                    0,
                    f"{where} is missing: '#begin document {doc_id}' expected",
                )
            notices.append(
                f"{response_source}: warning: {where} is not in the response: scored as an empty response, "
                "as scorer.pl scores it"
            )
            missing.append(doc_id)
            found = CorefDocument(doc_id, (), 0, 0, title=key_doc.title)
        written[doc_id] = found
        scored[doc_id], removed[doc_id] = _resolve_repeats(key_doc, found, response_source, strict, notices)
    return PairedDocuments(key, written, scored, frozenset(missing), removed, tuple(notices))


def _resolve_repeats(
    key: CorefDocument, response: CorefDocument, source: str, strict: bool, notices: list[str]
) -> tuple[CorefDocument, tuple[Mention, ...]]:
    """The response document with its repeats removed (of key mentions; of every mention if strict)."""
    key_extents = {(m.start, m.end) for m in key.mentions}
    first: dict[tuple[int, int], Mention] = {}
    kept: list[Mention] = []
    gone: list[Mention] = []
    # Mentions are in (start, -end, chain) order: the copies of an extent are together, the copy in the
    # earliest chain first, which is the copy the reference keeps.
    for mention in response.mentions:
        extent = (mention.start, mention.end)
        if extent not in first:
            first[extent] = mention
            kept.append(mention)
        elif strict or extent in key_extents:
            gone.append(mention)
        else:
            kept.append(mention)
            notices.append(
                f"{source}:{mention.line}: warning: mention {mention.ident} {mention.text!r} of document "
                f"{response.doc_id!r} repeats the one at line {first[extent].line} and is not a key "
                "mention: both copies kept, as scorer.pl keeps them"
            )
    if not gone:
        return response, ()
    chains = sorted({m.chain for m in kept})
    number = {chain: n for n, chain in enumerate(chains)}  # chains left empty disappear, order kept
    mentions = tuple(replace(m, chain=number[m.chain]) for m in kept)
    return replace(response, mentions=mentions, chains=len(chains), duplicates=len(gone)), tuple(gone)


def read_paired(
    key_path: str | Path,
    response_path: str | Path,
    fmt: str = "conll",
    encoding: str = "utf-8",
    strict: bool = False,
) -> PairedDocuments:
    """:func:`~pipeline.coref.readers.read_pair` then :func:`pair_documents`."""
    key, response = read_pair(key_path, response_path, fmt, encoding)
    return pair_documents(key, response, str(key_path), str(response_path), strict)


def read_aligned(
    key_path: str | Path,
    response_path: str | Path,
    fmt: str = "conll",
    match: str = "exact",
    encoding: str = "utf-8",
    strict: bool = False,
) -> tuple[PairedDocuments, list[AlignedDocument]]:
    """:func:`read_paired`, and its documents aligned (:func:`~pipeline.coref.alignment.align_documents`)."""
    paired = read_paired(key_path, response_path, fmt, encoding, strict)
    return paired, align_documents(
        paired.key, paired.response, match=match, response_source=str(response_path)
    )
