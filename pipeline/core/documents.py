"""Text corpora: documents and their SGML sections (seed 000, "Scoring Input Formats").

What every family reads its texts into (``pipeline.core.corpus`` parses SGML into these). Offsets are
half-open character offsets ``[start, end)`` counted from the ``<`` of the document tag.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Section:
    """An SGML element inside a document, with offsets relative to the document tag's ``<``.

    ``[start, end)`` covers the whole element, tags included; ``[content_start, content_end)`` only
    what is between its tags. ``extractable`` sections (``TEXT`` by default) hold evaluated text.
    """

    name: str
    start: int
    end: int
    content_start: int
    content_end: int
    extractable: bool
    line: int = 0


@dataclass(frozen=True)
class Document:
    """One text document: its id, its text (from the ``<`` of its tag) and its sections."""

    doc_id: str
    text: str
    offset: int = 0
    line: int = 0
    sections: tuple[Section, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Corpus:
    """A text corpus: documents in file order, and the tag names it uses."""

    documents: tuple[Document, ...]
    source: str = ""
    doc_tag: str = "DOC"
    docid_tag: str = "DOCNO"

    def by_id(self) -> dict[str, Document]:
        return {document.doc_id: document for document in self.documents}
