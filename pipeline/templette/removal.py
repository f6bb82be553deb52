"""Removal of non-evaluated text from text fills (seed 000, "Removal of Non-evaluated Text").

Before instance sets are mapped, every text fill -- its maximal content string and each minimal one --
loses the text that is not evaluated:

1. *Non-extractable SGML sections* lying inside the fill, such as ``<ANNOTATION> (voice-over)
   </ANNOTATION>`` in a HUB-4 transcript, are whited out: the tags and what lies between them become
   spaces. With the corpus, a content string that is a copy of the document text under its extent is
   whited out exactly where the document's non-extractable sections lie. The innermost section decides,
   so the text of an extractable section nested in a non-extractable one stays (its tags, being markup,
   go); a section that encloses the whole fill is left alone, since the rule is about sections *inside*
   a fill -- a fill lying wholly in an annotation is not emptied. Any other content string (no
   corpus, no extent, or a content that differs from the document, e.g. written on one line or changed
   by the global mapping file) has every ``<TAG ...> ... </TAG>`` element found in the string whited out.
2. *Punctuation marks* of the configured set are whited out; extents are not adjusted. With the
   default set ``DEFAULT_PUNCTUATION`` (``, . ; : ! ? " ( )``, typographic quotes, ``'`` and ``-``),
   three marks are kept where they belong to a word or number: an apostrophe between two word
   characters (``O'Brien``, ``isn't``), a hyphen touching a word character (``voice-over``, ``2-0``,
   the fragment ``Buni-``), a period or comma between two digits (``1,100``, ``3.5``). The braces and
   slashes of GLM alternative groups ``{ a / b }`` are never whited out, whatever the set.
3. *Premodifiers* (``DEFAULT_PREMODIFIERS``: a, an, the, and; whole words, case-insensitive) are removed
   from the start of the string, repeatedly (``and the X`` becomes ``X``), together with the whitespace
   after each and any whitespace or punctuation before the first. The extent start moves past what was
   removed, measured in the document text under the extent when the corpus has the document and the
   words are found there, else in the content string itself. A string that is nothing but premodifiers
   keeps its last one (``the`` stays ``the``): a premodifier is only removed when a word character
   follows it, so no fill becomes empty.

When fills are compared, whitespace runs fold to one space, so whited-out text costs nothing. Only text
fills change; pointer and set fills, and ``raw`` (the content as written), pass unchanged.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.corpus import evaluated_parts
from iescore.pipeline.core.documents import Corpus, Document, Section
from iescore.pipeline.templette.model import (
    OPTIONAL_STATUS_SLOT,
    OPTIONAL_STATUS_VALUE,
    Extent,
    Fill,
    TemplateSet,
    TextFill,
)
from iescore.schemas import FILLS, C

DEFAULT_PREMODIFIERS = ("a", "an", "the", "and")
DEFAULT_PUNCTUATION = ",.;:!?\"()“”‘’'-"

# Kept inside a word (O'Brien), attached to a word (voice-over, Buni-), inside a number (1,100).
_WORD_INTERNAL = frozenset("'’")
_WORD_ATTACHED = frozenset("-")
_NUMBER_INTERNAL = frozenset(".,")
# A GLM alternative group left by content normalization: its braces and slashes are syntax, not text.
_GLM_GROUP = re.compile(r"\{[^{}]*\}")
# An SGML element written inside a content string (the fallback when the document cannot be used).
_ELEMENT = re.compile(
    r"<(?P<name>[A-Za-z][-A-Za-z0-9_.:]*)(?:\s[^<>]*)?>.*?</(?P=name)\s*>", re.DOTALL | re.IGNORECASE
)


@dataclass(frozen=True)
class RemovalOptions:
    """What counts as non-evaluated: premodifier words and punctuation marks (a string of characters)."""

    premodifiers: tuple[str, ...] = DEFAULT_PREMODIFIERS
    punctuation: str = DEFAULT_PUNCTUATION

    def __post_init__(self) -> None:
        if isinstance(self.premodifiers, str) or not all(
            isinstance(word, str) and word and not any(ch.isspace() for ch in word)
            for word in self.premodifiers
        ):
            raise ValueError(
                f"premodifiers must be a list of single words without whitespace, got {self.premodifiers!r}"
            )
        if not isinstance(self.punctuation, str):
            raise ValueError(f"punctuation must be a string of characters, got {self.punctuation!r}")


def remove_non_evaluated(
    template_set: TemplateSet, corpus: Corpus | None, options: RemovalOptions
) -> TemplateSet:
    """The template set with non-evaluated text removed from every text fill (see the module doc).

    ``corpus`` is the text corpus the fills' extents point into (character offsets from each document's
    ``<``); without it, or for a document it lacks, everything is measured in the content strings.
    """
    remover = _Remover(corpus, options)
    return template_set.map_text_fills(lambda instance, fill: remover.fill(fill, instance.pointer.doc_id))


def remove_non_evaluated_table(fills: pa.Table, corpus: Corpus | None, options: RemovalOptions) -> pa.Table:
    """:func:`remove_non_evaluated` on a ``fills`` table, column by column: the same table that
    ``template_set_to_table(remove_non_evaluated(template_set_from_table(fills), ...))`` gives, without
    a dataclass per fill.

    Only the text fills' rows change: their maximal and minimal contents (``max_content`` and
    ``norm_content``, ``min_contents`` and ``norm_min_contents``, as the table of a template set
    writes them) and extent starts. ``instance_optional`` is computed again from the cleaned
    contents, as an instance computes it (an ``OBJ_STATUS`` fill reading ``OPTIONAL``). The table's
    own rows must be in template-set order (as every ``fills`` artifact is).

    Most text fills are *plain*: one content string, no minimal string, no ``<``, no premodifier at
    its start, and, where its extent lies in a document of the corpus, no section starting or ending
    strictly inside the extent (so nothing there is whited out). A plain fill's content only loses
    its punctuation, which is worked out once per distinct string; its extent stays. Every other text
    fill goes through the rule string by string.
    """
    return _remove_columns(fills, _DocumentColumns.of_corpus(corpus) if corpus is not None else None, options)


def remove_non_evaluated_columns(
    fills: pa.Table, documents: pa.Table | None, options: RemovalOptions
) -> pa.Table:
    """:func:`remove_non_evaluated_table` with the corpus given as its ``documents`` table: a document
    is built from its row only when a fill that is not plain needs it."""
    return _remove_columns(
        fills, _DocumentColumns.of_table(documents) if documents is not None else None, options
    )


def _remove_columns(fills: pa.Table, documents: _DocumentColumns | None, options: RemovalOptions) -> pa.Table:
    remover = _Remover(None, options)
    if documents is not None:
        remover.documents = documents
    n = fills.num_rows
    column = {name: fills.column(name).combine_chunks() for name in _REMOVAL_COLUMNS}
    text_rows = np.flatnonzero(_numpy(pc.fill_null(pc.equal(column[C.kind], "text"), False)))
    take = pa.array(text_rows, pa.int64())
    contents = column[C.norm_content].take(take)
    starts = column[C.max_start].take(take)
    ends = column[C.max_end].take(take)
    plain = _numpy(contents.is_valid())
    for name in (C.norm_min_contents, C.min_extents):
        plain &= _numpy(pc.fill_null(pc.list_value_length(column[name].take(take)), 0)) == 0
    plain &= ~_numpy(pc.fill_null(pc.match_substring(contents, "<"), True))
    plain &= _numpy(starts.is_valid()) == _numpy(ends.is_valid())
    # Once per distinct content string: premodifiers at its start, its punctuation whited out.
    encoded = pc.dictionary_encode(contents)
    distinct = encoded.dictionary.to_pylist()
    codes = _numpy(pc.fill_null(encoded.indices, 0)).astype(np.int64)
    match = remover.premodifier.match
    if distinct:
        plain &= np.array([match(text) is None for text in distinct], bool)[codes]
    cleaned = pa.array([remover.white_out_punctuation(text) for text in distinct], pa.string())
    if documents is not None and len(text_rows):
        plain &= documents.nothing_inside(column[C.doc_id].take(take), starts, ends)

    # Every other text fill, string by string.
    rule_rows = text_rows[~plain]
    k = len(rule_rows)
    rule = {name: column[name].take(pa.array(rule_rows, pa.int64())).to_pylist() for name in _REMOVAL_COLUMNS}
    ruled_contents, ruled_minimal, ruled_starts, ruled_extents = [], [], [], []
    for i in range(k):
        document = remover.documents.get(rule[C.doc_id][i])
        start, minimal_extents = rule[C.max_start][i], rule[C.min_extents][i]
        extents: list[Extent | None] = []
        if start is not None:
            extents.append(Extent(start, rule[C.max_end][i]))
            extents.extend(Extent(e["start"], e["end"]) for e in minimal_extents or ())
        minimal = rule[C.norm_min_contents][i] or []
        strings = remover.clean_strings([rule[C.norm_content][i] or "", *minimal], extents, document)
        ruled_contents.append(strings[0])
        ruled_minimal.append(strings[1:])
        if extents:
            start = extents[0].start  # type: ignore[union-attr]
            minimal_extents = [{"start": e.start, "end": e.end} for e in extents[1:]]  # type: ignore[union-attr]
        ruled_starts.append(start)
        # A text row's list columns as a template set's table writes them (an empty list, never null).
        ruled_extents.append([] if minimal_extents is None else minimal_extents)

    # Each column: the input's value, a plain fill's (a distinct string's, or an empty list) or a
    # ruled fill's, taken from one pool.
    plain_rows = text_rows[plain]

    def pooled(
        name: str, plain_values: pa.Array | None, plain_index: np.ndarray | int, ruled: list
    ) -> pa.Array:
        kind = FILLS.field(name).type
        index = np.arange(n, dtype=np.int64)
        pool, offset = [column[name]], n
        if plain_values is not None:
            index[plain_rows] = offset + plain_index
            pool.append(plain_values)
            offset += len(plain_values)
        index[rule_rows] = offset + np.arange(k)
        pool.append(pa.array(ruled, kind))
        return pa.concat_arrays(pool).take(pa.array(index))

    contents_out = pooled(C.norm_content, cleaned, codes[plain], ruled_contents)
    empty = pa.array([[]], FILLS.field(C.norm_min_contents).type)
    minimal_out = pooled(C.norm_min_contents, empty, 0, ruled_minimal)
    starts_out = pooled(C.max_start, None, 0, ruled_starts)
    empty = pa.array([[]], FILLS.field(C.min_extents).type)
    extents_out = pooled(C.min_extents, empty, 0, ruled_extents)
    replaced = {
        C.instance_optional: _optional_instances(fills, column[C.kind], contents_out),
        C.max_content: contents_out,
        C.min_contents: minimal_out,
        C.norm_content: contents_out,
        C.norm_min_contents: minimal_out,
        C.max_start: starts_out,
        C.min_extents: extents_out,
    }
    table = fills
    for name, values in replaced.items():
        index = FILLS.get_field_index(name)
        table = table.set_column(index, FILLS.field(index), values)
    return table


_REMOVAL_COLUMNS = (
    C.kind,
    C.doc_id,
    C.norm_content,
    C.norm_min_contents,
    C.max_start,
    C.max_end,
    C.min_extents,
)


def _optional_instances(fills: pa.Table, kinds: pa.Array, contents: pa.Array) -> pa.Array:
    """Each row's ``instance_optional``: its instance has an ``OBJ_STATUS`` fill reading ``OPTIONAL``
    (a set fill's value, a text fill's compared content), as ``Instance.optional`` says. Slot names
    are upper-cased once each; only the rows of an ``OBJ_STATUS`` slot are looked at in Python."""
    n = fills.num_rows
    slots = pc.dictionary_encode(fills.column(C.slot).combine_chunks())
    status = np.array([name.upper() == OPTIONAL_STATUS_SLOT for name in slots.dictionary.to_pylist()], bool)
    if not status.any():
        return pa.array(np.zeros(n, bool))
    codes = _numpy(pc.fill_null(slots.indices, -1)).astype(np.int64)
    candidates = np.flatnonzero((codes >= 0) & np.append(status, False)[codes])
    where = pa.array(candidates, pa.int64())
    values = fills.column(C.content).take(where).to_pylist()
    cleaned = contents.take(where).to_pylist()
    keys = list(
        zip(
            fills.column(C.instance_type).to_pylist(),
            fills.column(C.doc_id).to_pylist(),
            fills.column(C.one_up).to_pylist(),
            strict=True,
        )
    )
    optional = set()
    for row, kind, value, content in zip(
        candidates, kinds.take(where).to_pylist(), values, cleaned, strict=True
    ):
        value = value if kind == "set" else content if kind == "text" else ""
        if (value or "").strip().upper() == OPTIONAL_STATUS_VALUE:
            optional.add(keys[row])
    return pa.array([key in optional for key in keys] if optional else np.zeros(n, bool), pa.bool_())


# --- helpers -------------------------------------------------------------------------------------------


class _DocumentColumns:
    """A corpus as arrays: document ids, text lengths, and every section's start and end keyed by its
    document (``document * span + offset``, sorted); ``get`` builds a document on demand."""

    def __init__(
        self, ids: list[str], lengths: np.ndarray, owners: np.ndarray, starts: np.ndarray, ends: np.ndarray
    ) -> None:
        self.ids = pa.array(ids, pa.string())
        self.unique = len(set(ids)) == len(ids)
        self.rows = {doc_id: row for row, doc_id in enumerate(ids)}  # the last of a repeated id, as by_id
        self.lengths = lengths.astype(np.int64)
        self.span = int(max(lengths.max(initial=0), starts.max(initial=0), ends.max(initial=0))) + 1
        self.usable = self.unique and not (starts < 0).any() and not (ends < 0).any()
        self.starts = np.sort(owners * self.span + starts)
        self.ends = np.sort(owners * self.span + ends)
        self.built: dict[str, Document] = {}
        self.build: Callable[[int], Document] = lambda row: None  # type: ignore[assignment,return-value]

    @classmethod
    def of_corpus(cls, corpus: Corpus) -> _DocumentColumns:
        documents = corpus.documents
        sections = [(row, s.start, s.end) for row, d in enumerate(documents) for s in d.sections]
        owners, starts, ends = (np.array([s[i] for s in sections], np.int64) for i in range(3))
        lengths = np.array([len(d.text) for d in documents], np.int64)
        columns = cls([d.doc_id for d in documents], lengths, owners, starts, ends)
        columns.build = documents.__getitem__
        return columns

    @classmethod
    def of_table(cls, table: pa.Table) -> _DocumentColumns:
        sections = table.column(C.sections).combine_chunks()
        flat = pc.list_flatten(sections)
        owners = _numpy(pc.list_parent_indices(sections)).astype(np.int64)
        starts, ends = (
            _numpy(pc.fill_null(flat.field(name), -1)).astype(np.int64) for name in ("start", "end")
        )
        lengths = _numpy(pc.utf8_length(table.column(C.text))).astype(np.int64)
        columns = cls(table.column(C.doc_id).to_pylist(), lengths, owners, starts, ends)

        def build(row: int) -> Document:
            values = table.slice(row, 1).to_pylist()[0]
            sections = tuple(Section(**section) for section in values[C.sections] or ())
            return Document(
                values[C.doc_id], values[C.text], values[C.doc_offset], values[C.doc_line], sections
            )

        columns.build = build
        return columns

    def get(self, doc_id: str | None) -> Document | None:
        """The document with this id (the last, if several have it), or None."""
        document = self.built.get(doc_id)  # type: ignore[arg-type]
        if document is None:
            row = self.rows.get(doc_id)  # type: ignore[arg-type]
            if row is None:
                return None
            document = self.built[doc_id] = self.build(row)  # type: ignore[index]
        return document

    def nothing_inside(self, doc_ids: pa.Array, starts: pa.Array, ends: pa.Array) -> np.ndarray:
        """For each fill, whether its extent's document text has nothing to white out: no document,
        no extent, an extent off its document (the rule then works in the content string), or no
        section starting in ``[start, end)`` or ending in ``(start, end)``."""
        rows = pc.index_in(doc_ids, value_set=self.ids)
        valid = _numpy(rows.is_valid()) & _numpy(starts.is_valid()) & _numpy(ends.is_valid())
        if not valid.any():
            return np.ones(len(doc_ids), bool)
        if not self.usable:
            return ~valid
        row = _numpy(pc.fill_null(rows, 0)).astype(np.int64)
        start = _numpy(pc.fill_null(starts, 0)).astype(np.int64)
        end = _numpy(pc.fill_null(ends, 0)).astype(np.int64)
        inside = valid & (start >= 0) & (start <= end) & (end <= self.lengths[row])
        low, high = row * self.span + start, row * self.span + end
        starting = np.searchsorted(self.starts, high, "left") - np.searchsorted(self.starts, low, "left")
        ending = np.searchsorted(self.ends, high, "left") - np.searchsorted(self.ends, low, "right")
        return ~inside | ((starting == 0) & (ending == 0))


class _Remover:
    """One removal pass: the options compiled once and a section index per document, built on demand."""

    def __init__(self, corpus: Corpus | None, options: RemovalOptions) -> None:
        self.documents: Corpus | _DocumentColumns | dict[str, Document]
        self.documents = corpus.by_id() if corpus is not None else {}
        self.punctuation = frozenset(options.punctuation)
        self.indexes: dict[str, _SectionIndex] = {}
        # Whitespace and punctuation may come before the first premodifier ("...and Alaska").
        self.lead = r"(?:\s|[" + re.escape(options.punctuation) + r"])*" if options.punctuation else r"\s*"
        words = sorted(options.premodifiers, key=len, reverse=True)
        alternatives = "|".join(re.escape(word) for word in words) or r"(?!)"
        # A premodifier is a whole word followed by whitespace and, somewhere after, a word character: so
        # the last word of a fill is never removed.
        self.premodifier = re.compile(
            self.lead + r"(" + alternatives + r")\s+(?=.*\w)", re.IGNORECASE | re.DOTALL
        )

    def fill(self, fill: Fill, doc_id: str) -> Fill:
        if not isinstance(fill, TextFill):
            return fill
        document = self.documents.get(doc_id)
        # extents[0] goes with the maximal string, extents[i + 1] with minimal string i (when given).
        extents = list(fill.extents)
        cleaned = self.clean_strings([fill.content or "", *(fill.minimal_contents or ())], extents, document)
        return replace(fill, content=cleaned[0], minimal_contents=tuple(cleaned[1:]), extents=tuple(extents))

    def clean_strings(
        self, strings: list[str], extents: list[Extent | None], document: Document | None
    ) -> list[str]:
        """A text fill's strings cleaned; ``extents[i]`` goes with ``strings[i]`` when there is one and is
        replaced by its cleaned extent."""
        cleaned = []
        for i, text in enumerate(strings):
            extent = extents[i] if i < len(extents) else None
            text, extent = self.clean(text, extent, document)
            cleaned.append(text)
            if extent is not None:
                extents[i] = extent
        return cleaned

    def clean(self, text: str, extent: Extent | None, document: Document | None) -> tuple[str, Extent | None]:
        """One content string and its extent, with non-evaluated text removed or whited out."""
        source = None  # the document text under the extent, non-extractable sections whited out
        if (
            document is not None
            and extent is not None
            and 0 <= extent.start <= extent.end <= len(document.text)
        ):
            under = document.text[extent.start : extent.end]
            source = self.index(document).white_out(under, extent.start)
            text = source if text == under else _white_out_elements(text)
        else:
            text = _white_out_elements(text)

        removed, cut = self.premodifier_prefix(text)
        text = self.white_out_punctuation(text)[cut:]
        if not removed or extent is None:
            return text, extent
        shift = self.find_words(source, removed) if source is not None else None
        if shift is None:
            shift = cut
        return text, Extent(min(extent.start + shift, extent.end), extent.end)

    def premodifier_prefix(self, text: str) -> tuple[list[str], int]:
        """The premodifiers starting ``text`` and the length of the prefix they (and spacing) take."""
        removed: list[str] = []
        position = 0
        while match := self.premodifier.match(text, position):
            removed.append(match.group(1))
            position = match.end()
        return removed, position

    def find_words(self, source: str, words: list[str]) -> int | None:
        """Where the text after ``words`` starts in ``source``, or None when they are not found there."""
        position = 0
        for word in words:
            match = _word_pattern(self.lead, word).match(source, position)
            if match is None:
                return None
            position = match.end()
        return position

    def white_out_punctuation(self, text: str) -> str:
        punctuation = self.punctuation
        if not any(ch in punctuation for ch in text):
            return text
        protected = set()
        for group in _GLM_GROUP.finditer(text):
            protected.update(i for i in range(group.start(), group.end()) if text[i] in "{}/")
        chars = list(text)
        for i, ch in enumerate(text):
            if ch not in punctuation or i in protected:
                continue
            before = text[i - 1] if i > 0 else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            if ch in _WORD_INTERNAL and _is_word(before) and _is_word(after):
                continue
            if ch in _WORD_ATTACHED and (_is_word(before) or _is_word(after)):
                continue
            if ch in _NUMBER_INTERNAL and before.isdigit() and after.isdigit():
                continue
            chars[i] = " "
        return "".join(chars)

    def index(self, document: Document) -> _SectionIndex:
        index = self.indexes.get(document.doc_id)
        if index is None:
            index = self.indexes[document.doc_id] = _SectionIndex(document.sections)
        return index


class _SectionIndex:
    """A document's sections sorted by start and by end, to find those meeting a span by bisection."""

    def __init__(self, sections: tuple[Section, ...]) -> None:
        self.by_start = sorted(sections, key=lambda section: section.start)
        self.starts = [section.start for section in self.by_start]
        self.by_end = sorted(sections, key=lambda section: section.end)
        self.ends = [section.end for section in self.by_end]

    def white_out(self, text: str, offset: int) -> str:
        """``text`` (the document from ``offset``) with its non-extractable sections turned to spaces."""
        start, end = offset, offset + len(text)
        # The sections that meet [start, end) without enclosing it: those starting inside it, and those
        # starting before it that end inside it.
        inside = self.by_start[bisect_left(self.starts, start) : bisect_left(self.starts, end)]
        left = [
            section
            for section in self.by_end[bisect_right(self.ends, start) : bisect_left(self.ends, end)]
            if section.start < start
        ]
        meeting = [
            section for section in left + inside if not (section.start <= start and section.end >= end)
        ]
        if not meeting:
            return text
        # The corpus's one rule (the innermost section decides; tags are markup), with the sections
        # enclosing the whole fill taken as extractable: only what lies inside a fill is whited out.
        pieces = []
        position = start
        for low, high in evaluated_parts(meeting, start, end, outside=True):
            pieces.append(" " * (low - position))
            pieces.append(text[low - start : high - start])
            position = high
        pieces.append(" " * (end - position))
        return "".join(pieces)


@functools.lru_cache(maxsize=64)
def _word_pattern(lead: str, word: str) -> re.Pattern[str]:
    return re.compile(lead + re.escape(word) + r"\s+", re.IGNORECASE)


def _white_out_elements(text: str) -> str:
    if "<" not in text:
        return text
    return _ELEMENT.sub(lambda match: " " * len(match.group(0)), text)


def _numpy(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(values.to_numpy(zero_copy_only=False))


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"
