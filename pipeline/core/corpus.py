"""Reading text corpora (seed 000, "Text Corpus Format").

A text corpus is one file holding a sequence of SGML documents. Every document is enclosed in the same
*document tag* (``<DOC>`` usually; the first start tag of the file decides) and holds one *document id
element* (``<DOCNO>`` or ``<DOCID>`` usually) whose contents name the document in template sets.

Offsets are what the template extents count (seed 000, "Extent Part"): Python ``str`` indices, i.e.
characters rather than bytes, counted from the ``<`` of the document start tag, with every character of
the file counted -- newlines are never translated, so a CRLF file counts its ``\\r`` characters.

Every element inside a document becomes a :class:`~pipeline.core.documents.Section`. Only the sections
named in
``extractable`` (``TEXT`` by default) hold evaluated text; others nested in them, such as the
``<ANNOTATION>`` sections of the HUB-4 transcripts, are non-extractable and get whited out later (seed
000, "Removal of Non-evaluated Text"). Which characters are evaluated is one rule,
:func:`evaluated_ranges`: the innermost element around a character decides, so the ``<TEXT>`` that
HUB-4 files put inside ``<BODY>`` is evaluated and an ``<ANNOTATION>`` inside ``<TEXT>`` is not.

The parser makes one pass over the markup with a single regular expression and a stack of open elements,
so it is linear in the size of the file. Anything it cannot make sense of is an
:class:`~pipeline.core.errors.InputError` naming the file, the line and what was expected.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from iescore.pipeline.core.documents import Corpus, Document, Section
from iescore.pipeline.core.errors import InputError

DEFAULT_EXTRACTABLE = ("TEXT",)


def parse_corpus(
    text: str,
    source: str = "<string>",
    extractable: Iterable[str] = DEFAULT_EXTRACTABLE,
    docid_tag: str | None = None,
) -> Corpus:
    """Parse the text of a whole corpus file.

    ``source`` names the file in error messages. ``extractable`` names the sections that hold evaluated
    text (compared case-insensitively). ``docid_tag`` names the document id element; when ``None`` it is
    the first element of the first document whose name starts with ``DOC`` (``<DOCTYPE>`` excepted).
    """
    return _CorpusParser(text, source, extractable, docid_tag).parse()


STREAM_ID = "*stream*"
_DOC_TAG = re.compile(r"<doc(?=[\s>])[^>]*>?", re.IGNORECASE)


def read_stream(path: str | Path, encoding: str = "utf-8") -> Corpus:
    """An unsegmented text (seed 000): one word stream with SGML tags such as timestamps.

    The whole file is one document (id ``*stream*``) whose offsets count from the start of the file;
    its words are everything outside tags.
    """
    source = str(path)
    text = read_input(path, encoding, "hypothesis word stream")
    if not text.strip():
        raise InputError(source, 0, "the hypothesis word stream is empty")
    document = _DOC_TAG.search(text)
    if document:
        raise InputError(
            source,
            text.count("\n", 0, document.start()) + 1,
            f"a word stream without documents expected (--unsegmented), found {document.group()!r}: "
            "this is a segmented corpus; drop --unsegmented",
        )
    return Corpus((Document(STREAM_ID, text, 0, 1, ()),), source, "", "")


def read_corpus(
    path: str | Path,
    encoding: str = "utf-8",
    extractable: Iterable[str] = DEFAULT_EXTRACTABLE,
    docid_tag: str | None = None,
) -> Corpus:
    """Read and parse a corpus file; see :func:`parse_corpus`.

    The bytes are decoded strictly and without newline translation, because extents count characters of
    the file exactly as it is.
    """
    source = str(path)
    return parse_corpus(read_input(path, encoding, "text corpus"), source, extractable, docid_tag)


def read_input(path: str | Path, encoding: str, what: str) -> str:
    """The text of an input file, decoded strictly (:func:`decode_text`).

    A missing or unreadable file is the user's input problem, reported like any other:
    ``PATH:0: cannot read the WHAT: No such file or directory``.
    """
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise InputError(source, 0, f"cannot read the {what}: {error.strerror or error}") from error
    return decode_text(data, source, encoding)


def decode_text(data: bytes, source: str, encoding: str) -> str:
    """Decode ``data`` strictly; a byte that is not valid in ``encoding`` is an :class:`InputError`.

    The error names the 1-based line of the first bad byte and suggests another encoding: silently
    replacing bytes would shift or corrupt the text that extents point at.
    """
    try:
        codecs.lookup(encoding)
    except LookupError as error:
        raise InputError(source, 0, f"unknown encoding {encoding!r}") from error
    try:
        return data.decode(encoding)
    except LookupError as error:  # a codec that is not a text encoding (rot13, base64, hex...)
        raise InputError(source, 0, f"not a text encoding: {encoding!r}") from error
    except UnicodeDecodeError as error:
        # Decoding the good prefix (rather than counting b"\n") keeps the line right for encodings
        # where a newline is not the single byte 0x0a, such as UTF-16.
        line = data[: error.start].decode(encoding, errors="replace").count("\n") + 1
        bad = data[error.start : error.end].hex(" ")
        raise InputError(
            source,
            line,
            f"cannot decode byte(s) 0x{bad} as {encoding} ({error.reason}); the file is in another "
            "encoding, give it with e.g. --encoding latin-1",
        ) from error


def evaluated_ranges(document: Document) -> list[tuple[int, int]]:
    """The ``[start, end)`` ranges of ``document`` that hold evaluated text, in order, not touching.

    One rule, used by the aligner (which words there are) and by removal (what is whited out of a
    fill): a character is evaluated when the innermost element around it is extractable. So a
    ``<TEXT>`` inside a non-extractable ``<BODY>`` (the seed's sample, LDC's HUB-4 files) is evaluated,
    an ``<ANNOTATION>`` inside ``<TEXT>`` is not, and a ``<TEXT>`` inside that annotation is again.
    Tags are markup, never evaluated text. The document element itself counts as extractable only when
    the document has no extractable section (a recognizer's document of bare words is evaluated whole,
    less its non-extractable elements); otherwise the text between its sections, e.g. between
    ``</BODY>`` and ``<END_TIME>``, is not evaluated.
    """
    whole = not any(section.extractable for section in document.sections)
    return evaluated_parts(document.sections, 0, len(document.text), whole)


def evaluated_parts(
    sections: Sequence[Section], start: int, end: int, outside: bool
) -> list[tuple[int, int]]:
    """The evaluated ranges inside ``[start, end)`` by the innermost-element rule of
    :func:`evaluated_ranges`; ``outside`` says whether text in none of ``sections`` is evaluated.

    ``sections`` must be properly nested (as the parser makes them; any order). Removal passes only the
    sections that meet a fill without enclosing it, with ``outside`` true: the elements enclosing the
    whole fill count as extractable there, since the seed whites out sections *inside* a fill. One sort
    and one sweep with a stack of the open elements: linear after the sort.
    """
    ranges: list[tuple[int, int]] = []

    def keep(low: int, high: int) -> None:
        low, high = max(low, start), min(high, end)
        if low >= high:
            return
        if ranges and ranges[-1][1] == low:
            ranges[-1] = (ranges[-1][0], high)
        else:
            ranges.append((low, high))

    open_sections: list[Section] = []  # the elements around ``position``, innermost last
    position = start  # everything before it has been decided

    def evaluated_here() -> bool:
        return open_sections[-1].extractable if open_sections else outside

    def close() -> None:
        nonlocal position
        section = open_sections.pop()
        if section.extractable:
            keep(position, section.content_end)
        position = max(position, section.end)  # the end tag is markup

    for section in sorted(sections, key=lambda s: (s.start, -s.end)):
        while open_sections and open_sections[-1].end <= section.start:
            close()
        if evaluated_here():
            keep(position, section.start)
        # The start tag is markup: an extractable section's text starts after it.
        position = max(position, section.content_start if section.extractable else section.start)
        open_sections.append(section)
    while open_sections:
        close()
    if outside:
        keep(position, end)
    return ranges


# --- helpers -------------------------------------------------------------------------------------------

# One pattern for every kind of markup, so one finditer walks the file. A ``<`` that matches none of the
# alternatives (``a < b``, ``x<y`` with no ``>`` before the next ``<``) is plain text. Quoted attribute
# values may hold ``>`` but never ``<``, which bounds every attempt by the next ``<`` and keeps the scan
# linear; the alternatives inside the attribute loop start with distinct characters, so there is no
# exponential backtracking either.
_MARKUP = re.compile(
    r"""
      <!--(?P<comment>.*?-->)?                          # comment; the group is missing if never closed
    | <[!?][^<>]*>                                      # declaration (<!DOCTYPE ...>), processing instr.
    | <(?P<slash>/?)(?P<name>[A-Za-z][-A-Za-z0-9_.:]*)  # start or end tag
      (?P<attrs>(?:\s(?:[^<>"']|"[^"<]*"|'[^'<]*')*)?)
      /?>
    """,
    re.VERBOSE | re.DOTALL,
)

# Never taken for the document id element when it is guessed: HUB-4 and TREC documents carry a
# ``<DOCTYPE> NEWS STORY </DOCTYPE>`` element whose name also starts with DOC.
_NOT_DOCID = frozenset({"DOCTYPE"})

_BOM = "\ufeff"


class _Open(NamedTuple):
    """An element whose end tag has not been seen yet."""

    key: str  # upper-cased name, for case-insensitive matching
    name: str  # as spelled in the start tag
    start: int  # offset of its ``<`` in the file
    content_start: int  # offset just after its start tag's ``>``
    line: int
    index: int  # its slot in the document's section list (-1 for the document element)


class _CorpusParser:
    """One parse of one corpus text; the state lives here so that the helpers can share it."""

    def __init__(self, text: str, source: str, extractable: Iterable[str], docid_tag: str | None) -> None:
        self.text = text
        self.source = source
        # A bare string is one name, not a sequence of one-letter names.
        names = [extractable] if isinstance(extractable, str) else list(extractable)
        self.extractable = frozenset(name.upper() for name in names)
        self.docid_key = docid_tag.upper() if docid_tag else None
        self.docid_name = docid_tag
        self.doc_name: str | None = None  # spelled as in the first document's start tag
        self.doc_key = ""
        self.documents: list[Document] = []
        self.id_lines: dict[str, int] = {}
        # The document being read: its start in the file, its open elements (the document element at the
        # bottom) and its sections, in start order (a None is an element whose end tag is still to come).
        self.doc_start = 0
        self.stack: list[_Open] = []
        self.sections: list[Section | None] = []

    def parse(self) -> Corpus:
        text = self.text
        pos = 0  # end of the last markup seen: text between pos and the next markup is unchecked
        line = 1  # line number at line_pos, advanced monotonically so counting stays linear
        line_pos = 0
        for match in _MARKUP.finditer(text):
            start = match.start()
            line += text.count("\n", line_pos, start)
            line_pos = start
            if not self.stack and start > pos:
                self._check_outside(pos, start, line)
            pos = match.end()
            if match.group("name") is not None:
                if match.group("slash"):
                    self._end_tag(match, line)
                else:
                    self._start_tag(match, line)
            elif match.group(0).startswith("<!--") and match.group("comment") is None:
                raise self._error(line, "comment is not closed: expected --> before the end of the file")
            # Other comments and declarations are not elements: nothing to do.

        if self.stack:
            top = self.stack[-1]
            message = f"missing </{top.name}> for this <{top.name}>: reached the end of the file"
            raise self._error(top.line, message)
        if pos < len(text):
            self._check_outside(pos, len(text), line + text.count("\n", line_pos))
        if not self.documents:
            raise self._error(0, "no documents: expected documents such as <DOC> ... </DOC>")
        return Corpus(tuple(self.documents), self.source, self.doc_name or "", self.docid_name or "")

    def _start_tag(self, match: re.Match[str], line: int) -> None:
        name = match.group("name")
        key = name.upper()
        start, end = match.span()
        empty = match.group(0).endswith("/>")  # <NAME/>, XML style: an element with empty content
        stack = self.stack
        if not stack:
            if self.doc_name is None:
                self.doc_name, self.doc_key = name, key
            elif key != self.doc_key:
                raise self._error(line, f"mixed document tags: expected <{self.doc_name}>, found <{name}>")
            self.doc_start = start
            self.sections = []
            if empty:
                self._finish_document(end, line)
            else:
                stack.append(_Open(key, name, start, end, line, -1))
        elif key == self.doc_key:
            # Documents do not nest: the open element lacks its end tag.
            top = stack[-1]
            message = f"missing </{top.name}> for this <{top.name}>: found the next <{name}> at line {line}"
            raise self._error(top.line, message)
        elif empty:
            base = self.doc_start
            after = end - base
            wanted = key in self.extractable
            self.sections.append(Section(name, start - base, after, after, after, wanted, line))
        else:
            stack.append(_Open(key, name, start, end, line, len(self.sections)))
            self.sections.append(None)  # filled in at the end tag, which keeps sections in start order

    def _end_tag(self, match: re.Match[str], line: int) -> None:
        name = match.group("name")
        raw = match.group(0)
        if raw.endswith("/>") or match.group("attrs").strip():
            raise self._error(line, f"malformed end tag {raw!r}: expected </{name}>")
        stack = self.stack
        if not stack:
            raise self._error(line, f"end tag </{name}> without a start tag, outside any document")
        top = stack[-1]
        if name.upper() != top.key:
            raise self._error(line, self._mismatch(name, top))
        stack.pop()
        start, end = match.span()
        if not stack:
            self._finish_document(end, top.line)
            return
        base = self.doc_start
        self.sections[top.index] = Section(
            top.name,
            top.start - base,
            end - base,
            top.content_start - base,
            start - base,
            top.key in self.extractable,
            top.line,
        )

    def _finish_document(self, end: int, line: int) -> None:
        """Find the document id and record the document, which ends just before ``end``."""
        start = self.doc_start
        done = tuple(section for section in self.sections if section is not None)
        if self.docid_key is None:
            self._guess_docid(done, line)
        id_section = None
        for section in done:
            if section.name.upper() == self.docid_key:
                if id_section is not None:
                    raise self._error(
                        section.line,
                        f"a second <{section.name}> element in one document: the first is at line "
                        f"{id_section.line}",
                    )
                id_section = section
        if id_section is None:
            message = f"expected a <{self.docid_name}> element (the document id) in this document"
            raise self._error(line, message)
        if not self.documents:
            self.docid_name = id_section.name  # the spelling of the file, even when the caller named it
        text = self.text[start:end]
        doc_id = text[id_section.content_start : id_section.content_end].strip()
        if not doc_id:
            raise self._error(id_section.line, f"empty <{id_section.name}> element: expected a document id")
        if "<" in doc_id or ">" in doc_id:
            message = f"markup inside <{id_section.name}>: expected only a document id"
            raise self._error(id_section.line, message)
        if len(doc_id.split()) > 1:
            raise self._error(
                id_section.line, f"document id {doc_id!r} contains whitespace: expected a single word"
            )
        first_line = self.id_lines.get(doc_id)
        if first_line is not None:
            message = f"duplicate document id {doc_id}: also the id of the document at line {first_line}"
            raise self._error(line, message)
        self.id_lines[doc_id] = line
        self.documents.append(Document(doc_id, text, start, line, done))

    def _guess_docid(self, sections: tuple[Section, ...], line: int) -> None:
        """Take the first element named DOC... of the first document as the document id element."""
        for section in sections:
            key = section.name.upper()
            if key.startswith("DOC") and key not in _NOT_DOCID:
                self.docid_key, self.docid_name = key, section.name
                return
        raise self._error(
            line,
            "expected a document id element such as <DOCNO> or <DOCID> in the first document "
            "(or name the id element explicitly)",
        )

    def _check_outside(self, start: int, end: int, line: int) -> None:
        """Text between documents must be blank; ``line`` is the line at ``end``.

        The caller knows the line at ``end`` and counting back from there is only paid on an error.
        """
        gap = self.text[start:end]
        if start == 0 and gap.startswith(_BOM):
            gap = gap[1:]  # a UTF-8 byte order mark is not content
            start += 1
        stripped = gap.lstrip()
        if not stripped:
            return
        first = start + len(gap) - len(stripped)
        line -= self.text.count("\n", first, end)
        snippet = stripped.split("\n", 1)[0].strip()[:40]
        if self.doc_name:
            where = f"<{self.doc_name}> document"
        else:
            where = "document (expected a start tag such as <DOC>)"
        raise self._error(line, f"text outside any {where}: {snippet!r}")

    def _mismatch(self, name: str, top: _Open) -> str:
        """Describe an end tag that does not close the innermost open element."""
        key = name.upper()
        if any(entry.key == key for entry in self.stack):
            return f"expected </{top.name}> before </{name}> (<{top.name}> opened at line {top.line})"
        return (
            f"end tag </{name}> without a matching start tag: expected </{top.name}> "
            f"(<{top.name}> opened at line {top.line})"
        )

    def _error(self, line: int, message: str) -> InputError:
        return InputError(self.source, line, message)
