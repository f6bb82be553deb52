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
from dataclasses import dataclass, replace

import pyarrow as pa

from pipeline.core.corpus import evaluated_parts
from pipeline.core.documents import Corpus, Document, Section
from pipeline.templette.model import (
    OPTIONAL_STATUS_SLOT,
    OPTIONAL_STATUS_VALUE,
    Extent,
    Fill,
    TemplateSet,
    TextFill,
)
from schemas import FILLS, C

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
    """
    remover = _Remover(corpus, options)
    kinds = fills.column(C.kind).to_pylist()
    text_rows = [row for row, kind in enumerate(kinds) if kind == "text"]
    doc_ids = fills.column(C.doc_id).to_pylist()
    max_content = fills.column(C.norm_content).to_pylist()
    min_contents = fills.column(C.norm_min_contents).to_pylist()
    max_start = fills.column(C.max_start).to_pylist()
    max_end = fills.column(C.max_end).to_pylist()
    min_extents = fills.column(C.min_extents).to_pylist()
    for row in text_rows:
        document = remover.documents.get(doc_ids[row])
        minimal = min_contents[row] or []
        extents: list[Extent | None] = []
        if max_start[row] is not None:
            extents.append(Extent(max_start[row], max_end[row]))
            extents.extend(Extent(e["start"], e["end"]) for e in min_extents[row] or ())
        cleaned = remover.clean_strings([max_content[row] or "", *minimal], extents, document)
        max_content[row] = cleaned[0]
        min_contents[row] = cleaned[1:]
        if extents:
            max_start[row] = extents[0].start  # type: ignore[union-attr]
            min_extents[row] = [{"start": e.start, "end": e.end} for e in extents[1:]]  # type: ignore[union-attr]
    # A text row's list columns as a template set's table writes them (an empty list, never null).
    for row in text_rows:
        if min_extents[row] is None:
            min_extents[row] = []
    optional = _optional_instances(fills, kinds, max_content)
    replaced = {
        C.instance_optional: optional,
        C.max_content: max_content,
        C.min_contents: min_contents,
        C.norm_content: max_content,
        C.norm_min_contents: min_contents,
        C.max_start: max_start,
        C.min_extents: min_extents,
    }
    table = fills
    for name, values in replaced.items():
        index = FILLS.get_field_index(name)
        table = table.set_column(index, FILLS.field(index), pa.array(values, type=FILLS.field(index).type))
    return table


def _optional_instances(fills: pa.Table, kinds: list[str], contents: list[str | None]) -> list[bool]:
    """Each row's ``instance_optional``: its instance has an ``OBJ_STATUS`` fill reading ``OPTIONAL``
    (a set fill's value, a text fill's compared content), as ``Instance.optional`` says."""
    slots = fills.column(C.slot).to_pylist()
    values = fills.column(C.content).to_pylist()
    keys = list(
        zip(
            fills.column(C.instance_type).to_pylist(),
            fills.column(C.doc_id).to_pylist(),
            fills.column(C.one_up).to_pylist(),
            strict=True,
        )
    )
    optional = set()
    for row, slot in enumerate(slots):
        if slot is None or slot.upper() != OPTIONAL_STATUS_SLOT:
            continue
        kind = kinds[row]
        value = values[row] if kind == "set" else contents[row] if kind == "text" else ""
        if (value or "").strip().upper() == OPTIONAL_STATUS_VALUE:
            optional.add(keys[row])
    return [key in optional for key in keys] if optional else [False] * len(keys)


# --- helpers -------------------------------------------------------------------------------------------


class _Remover:
    """One removal pass: the options compiled once and a section index per document, built on demand."""

    def __init__(self, corpus: Corpus | None, options: RemovalOptions) -> None:
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


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"
