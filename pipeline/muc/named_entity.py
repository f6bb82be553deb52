"""Reading named entity keys and responses (seed 001, "SGML" and the Named Entity task).

A named entity key or response is the texts file with SGML tags added around the names, times and numbers:
``<TIMEX TYPE="DATE" ALT="fiscal 1994">the first six months of fiscal 1994</TIMEX>``. The scorer turns
every ``ENAMEX``, ``TIMEX`` and ``NUMEX`` element into an object, which in a template file would read (seed
001's example)::

    <TIMEX-DOCNUM1-1> :=
        TEXT: "the first six months of fiscal 1994" /"fiscal 1994"
        TYPE: DATE

Objects are aligned only when they come from SGML elements "in the same position of the original text
file", so every object also has a position: its element's ``[start, end)`` in the document *with the NE tags
removed*, i.e. in the texts file's document, counted from the ``<`` of the document tag as
:mod:`pipeline.core.corpus` counts. Rules chosen where the seed is silent:

* Tag names are matched case-insensitively; the object type is the tag name upper-cased (``ENAMEX``).
* Attributes: ``TYPE`` (required, not empty), ``ALT`` and ``STATUS``; names are case-insensitive, values
  must be in double or single quotes (an unquoted value, a repeated or an unknown attribute is an error
  rather than something dropped). ``TYPE`` is one value, kept as written.
* The one-up number counts all NE elements of a document together, in document order, from 1: the third
  element of document 930620083 is ``<ENAMEX-930620083-3>`` whatever the types of the first two.
* Slots, in this order: ``TEXT`` (one text fill: the element's text with any non-NE tags inside removed,
  whitespace as in the file, with the element's extent); ``TYPE`` (a set fill); ``STATUS`` (a set fill, only
  when the attribute is given). ``ALT`` is not a slot of its own: in a key it is a second alternative of
  ``TEXT``, as in the seed's example (which is also why the seed's NE report shows the ``alt`` slot with no
  fills). Its extent is its first occurrence inside the element (whitespace runs matching any whitespace),
  or none when it does not occur there.
* ``STATUS="OPT"`` (or ``OPTIONAL``) in a key makes the object optional, as MUC-6's NE keys used it: the
  object also gets ``OBJ_STATUS: OPTIONAL``, the marker :attr:`pipeline.templette.model.Instance.optional`
  reads and
  the scorer treats as structure, never as a fill. In a response ``STATUS`` is kept as a fill and never
  makes anything optional, and ``ALT`` is an error (a response slot holds a single fill-alternative).
* NE elements do not nest or overlap each other, must not be empty or blank, and must not cross the
  boundary of any other element (a paragraph, the ``<TXT>`` section, the document): each lies in exactly one
  *section*, the innermost other element enclosing it (the document tag's name when none), which is what the
  report's section scores group by.
* The document structure (document tag, id element, every other element) is read by
  :func:`pipeline.core.corpus.parse_corpus` from the text with the NE tags removed, so it follows the
  same rules.
  With a texts file, each document must equal the texts file's document of the same id character for
  character (seed 001: "not delete or insert any characters outside of the SGML tags"), and the two files
  must hold the same documents; the first difference is an error at its line and column.

Everything is one pass over the file plus one over the untagged text, linear in the file's size.
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from iescore.pipeline.core.corpus import parse_corpus, read_input
from iescore.pipeline.core.documents import Corpus, Document, Section
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.templette import (
    OPTIONAL_STATUS_SLOT,
    OPTIONAL_STATUS_VALUE,
    Extent,
    Instance,
    Pointer,
    SetFill,
    Slot,
    TemplateSet,
    TextFill,
)

NE_TAGS = ("ENAMEX", "TIMEX", "NUMEX")
ATTRIBUTES = ("TYPE", "ALT", "STATUS")
OPTIONAL_STATUSES = ("OPT", "OPTIONAL")


@dataclass(frozen=True)
class NamedEntities:
    """A named entity key or response read as objects.

    ``template_set`` holds one instance per NE element in file order. ``positions`` gives each instance's
    element as ``(start, end)`` in its document's ``untagged`` text (the texts file's document), and
    ``sections`` the name of the SGML element enclosing it. ``corpus`` is the untagged text read as a text
    corpus (documents with their sections); ``untagged`` maps each document id to its untagged text.
    """

    template_set: TemplateSet
    positions: dict[Pointer, tuple[int, int]]
    sections: dict[Pointer, str]
    untagged: dict[str, str]
    corpus: Corpus
    source: str = ""


def read_ne_file(
    path: str | Path,
    encoding: str = "utf-8",
    texts: Corpus | None = None,
    *,
    is_key: bool = True,
) -> NamedEntities:
    """Read a named entity key (``is_key``) or response; see :func:`parse_ne`."""
    role = "key" if is_key else "response"
    text = read_input(path, encoding, f"named entity {role}")
    return parse_ne(text, str(path), texts, is_key=is_key)


def parse_ne(
    text: str,
    source: str = "<string>",
    texts: Corpus | None = None,
    *,
    is_key: bool = True,
) -> NamedEntities:
    """Parse the text of a named entity key or response file named ``source``.

    With ``texts`` (the texts file, read by :func:`pipeline.core.corpus.read_corpus`) every document must be
    that file's document with NE tags added and nothing else changed.
    """
    stripped = _strip_tags(text, source, is_key)
    try:
        corpus = parse_corpus(
            stripped.untagged,
            source,
            docid_tag=texts.docid_tag if texts is not None and texts.docid_tag else None,
        )
    except InputError as error:
        # The corpus parser counted lines in the untagged text; NE tags spanning lines shift them.
        raise InputError(source, stripped.original_line(error.line), error.message) from error
    if texts is not None:
        _check_against_texts(corpus, texts, stripped, text, source)
    return _objects(corpus, stripped, source, is_key)


# --- pass 1: the NE tags --------------------------------------------------------------------------------

# An NE tag (whole, or broken: no closing '>'), or a comment, whose insides are not looked at. Quoted
# attribute values may hold '>' but never '<', which bounds every match by the next '<'.
_TAG = re.compile(
    r"""
      (?P<comment><!--.*?-->)
    | <(?P<slash>/?)(?P<name>ENAMEX|TIMEX|NUMEX)(?![-A-Za-z0-9_.:])
      (?P<attrs>(?:[^<>"']|"[^"<]*"|'[^'<]*')*)
      (?P<close>>)?
    """,
    re.IGNORECASE | re.VERBOSE | re.DOTALL,
)
_ATTRIBUTE = re.compile(
    r"""\s+(?P<name>[A-Za-z][-A-Za-z0-9_.:]*)\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)')"""
)
_ANY_TAG = re.compile(r"<!--.*?-->|<[!?/]?[A-Za-z][^<>]*>", re.DOTALL)


class _Element(NamedTuple):
    """One NE element: its tag name (upper-cased), attributes and ``[start, end)`` in the untagged file."""

    name: str
    attributes: dict[str, str]
    start: int
    end: int
    line: int


class _Stripped:
    """The file with its NE tags removed, the elements found, and the way back to the file's positions."""

    def __init__(
        self,
        untagged: str,
        elements: list[_Element],
        tag_positions: list[int],
        removed: list[int],
        newlines: list[int],
    ) -> None:
        self.untagged = untagged
        self.elements = elements
        self.tag_positions = tag_positions  # untagged offset of each removed tag, ascending
        self.removed = removed  # characters removed up to and including each tag
        self.newlines = newlines  # newlines removed up to and including each tag

    def original_offset(self, offset: int) -> int:
        """The file offset of the untagged text's character at ``offset`` (tags just before it counted)."""
        index = bisect.bisect_right(self.tag_positions, offset)
        return offset + (self.removed[index - 1] if index else 0)

    def original_line(self, line: int) -> int:
        """The file's line number of the untagged text's line ``line`` (0 stays 0)."""
        if line <= 0 or not self.newlines or self.newlines[-1] == 0:
            return line
        start = 0
        for _ in range(line - 1):
            start = self.untagged.find("\n", start) + 1
        # The tags removed before the line's first character, including one right at its start (whose
        # newlines all come before that character in the file).
        index = bisect.bisect_right(self.tag_positions, start)
        return line + (self.newlines[index - 1] if index else 0)


def _strip_tags(text: str, source: str, is_key: bool) -> _Stripped:
    pieces: list[str] = []
    elements: list[_Element] = []
    tag_positions: list[int] = []
    removed: list[int] = []
    newlines: list[int] = []
    open_element: tuple[str, str, dict[str, str], int, int] | None = None  # name, spelled, attrs, start, line
    last = 0  # end of the last tag removed
    length = 0  # characters of untagged text so far
    line, line_pos = 1, 0
    removed_chars = removed_newlines = 0
    for match in _TAG.finditer(text):
        if match.group("comment") is not None:
            continue
        start, end = match.span()
        line += text.count("\n", line_pos, start)
        line_pos = start
        spelled = match.group("name")
        name = spelled.upper()
        if match.group("close") is None:
            raise InputError(
                source,
                line,
                f"tag <{match.group('slash')}{spelled} is not closed: expected '>' (or a closing quote)",
            )
        pieces.append(text[last:start])
        length += start - last
        last = end
        removed_chars += end - start
        removed_newlines += text.count("\n", start, end)
        tag_positions.append(length)
        removed.append(removed_chars)
        newlines.append(removed_newlines)
        if match.group("slash"):
            if match.group("attrs").strip():
                raise InputError(source, line, f"malformed end tag {match.group(0)!r}: expected </{spelled}>")
            if open_element is None:
                raise InputError(source, line, f"end tag </{spelled}> without a start tag <{spelled} ...>")
            open_name, open_spelled, attributes, open_start, open_line = open_element
            if name != open_name:
                raise InputError(
                    source,
                    line,
                    f"expected </{open_spelled}> (opened at line {open_line}) before </{spelled}>: "
                    "NE elements must not overlap",
                )
            elements.append(_Element(name, attributes, open_start, length, open_line))
            open_element = None
        else:
            if open_element is not None:
                raise InputError(
                    source,
                    line,
                    f"<{spelled}> inside <{open_element[1]}> (opened at line {open_element[4]}): NE "
                    f"elements do not nest or overlap, expected </{open_element[1]}> first",
                )
            attributes = _attributes(match.group("attrs"), spelled, source, line, is_key)
            open_element = (name, spelled, attributes, length, line)
    if open_element is not None:
        raise InputError(
            source,
            open_element[4],
            f"missing </{open_element[1]}> for this <{open_element[1]}>: reached the end of the file",
        )
    pieces.append(text[last:])
    untagged = "".join(pieces)
    for element in elements:
        inside = _ANY_TAG.sub("", untagged[element.start : element.end])
        if not inside.strip():
            raise InputError(
                source,
                element.line,
                f"empty <{element.name}> element: expected the text it marks between its tags",
            )
    return _Stripped(untagged, elements, tag_positions, removed, newlines)


def _attributes(attrs: str, spelled: str, source: str, line: int, is_key: bool) -> dict[str, str]:
    if attrs.rstrip().endswith("/"):
        raise InputError(
            source, line, f'empty element <{spelled}/>: expected <{spelled} TYPE="...">text</{spelled}>'
        )
    found: dict[str, str] = {}
    pos = 0
    while attrs[pos:].strip():
        match = _ATTRIBUTE.match(attrs, pos)
        if match is None:
            raise InputError(
                source,
                line,
                f"malformed attributes in <{spelled}{attrs}>: expected NAME=\"value\" or NAME='value' at "
                f"{attrs[pos:].strip()[:30]!r}",
            )
        name = match.group("name").upper()
        value = match.group("dq") if match.group("dq") is not None else match.group("sq")
        if name not in ATTRIBUTES:
            raise InputError(
                source,
                line,
                f"unknown attribute {match.group('name')} of <{spelled}>: expected TYPE, ALT or STATUS",
            )
        if name in found:
            raise InputError(source, line, f"attribute {name} given twice in <{spelled}>")
        if name == "ALT" and not is_key:
            raise InputError(
                source, line, f"ALT in a response's <{spelled}>: only a key may give alternative texts"
            )
        if not value.strip():
            raise InputError(source, line, f"empty {name} attribute of <{spelled}>: expected a value")
        found[name] = value
        pos = match.end()
    if "TYPE" not in found:
        raise InputError(source, line, f'<{spelled}> without a TYPE attribute: expected e.g. TYPE="PERSON"')
    return found


# --- the texts file -------------------------------------------------------------------------------------


def _check_against_texts(corpus: Corpus, texts: Corpus, stripped: _Stripped, text: str, source: str) -> None:
    expected_documents = texts.by_id()
    for document in corpus.documents:
        expected = expected_documents.get(document.doc_id)
        if expected is None:
            raise InputError(
                source,
                stripped.original_line(document.line),
                f"document {document.doc_id} is not in the texts file {texts.source}",
            )
        if document.text == expected.text:
            continue
        index = len(os.path.commonprefix([document.text, expected.text]))
        offset = stripped.original_offset(document.offset + index)
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        texts_line = expected.line + expected.text.count("\n", 0, index)
        raise InputError(
            source,
            line,
            f"column {column}: the text outside the NE tags differs from the texts file {texts.source} "
            f"(document {document.doc_id}, its line {texts_line}): expected "
            f"{expected.text[index : index + 20]!r}, found {document.text[index : index + 20]!r}; tags "
            "may be added but no character of the text inserted or deleted",
        )
    present = {document.doc_id for document in corpus.documents}
    for document in texts.documents:
        if document.doc_id not in present:
            raise InputError(
                source,
                0,
                f"document {document.doc_id} of the texts file {texts.source} (line {document.line}) is "
                "missing: expected every document of the texts file",
            )


# --- pass 2: objects ------------------------------------------------------------------------------------


def _objects(corpus: Corpus, stripped: _Stripped, source: str, is_key: bool) -> NamedEntities:
    instances: list[Instance] = []
    positions: dict[Pointer, tuple[int, int]] = {}
    sections: dict[Pointer, str] = {}
    documents = corpus.documents
    elements = stripped.elements
    index = 0
    for document in documents:
        doc_end = document.offset + len(document.text)
        inside: list[_Element] = []
        while index < len(elements) and elements[index].start < doc_end:
            element = elements[index]
            if element.start < document.offset or element.end > doc_end:
                raise InputError(
                    source,
                    element.line,
                    f"<{element.name}> element outside or across the boundary of a <{corpus.doc_tag}> "
                    "document",
                )
            inside.append(element)
            index += 1
        names = _section_names(document, corpus.doc_tag, inside, source)
        for one_up, (element, section) in enumerate(zip(inside, names, strict=True), start=1):
            pointer = Pointer(element.name, document.doc_id, str(one_up))
            start, end = element.start - document.offset, element.end - document.offset
            instances.append(_instance(pointer, element, document.text, start, end, is_key))
            positions[pointer] = (start, end)
            sections[pointer] = section
    if index < len(elements):
        element = elements[index]
        raise InputError(source, element.line, f"<{element.name}> element after the last document")
    return NamedEntities(
        TemplateSet(tuple(instances), source),
        positions,
        sections,
        {document.doc_id: document.text for document in documents},
        corpus,
        source,
    )


def _section_names(document: Document, doc_tag: str, elements: list[_Element], source: str) -> list[str]:
    """The innermost other element enclosing each NE element, by one sweep over the document's sections.

    ``document.sections`` are in start order and properly nested, and the NE elements are in order and
    do not overlap, so a stack of the sections open at each element's start is enough; a section that
    starts inside an element must also end inside it.
    """
    text = document.text
    content_start = text.find(">") + 1  # after the document's start tag
    content_end = text.rfind("<")  # its end tag
    sections = document.sections
    stack: list[Section] = []
    following = 0
    names: list[str] = []
    for element in elements:
        start, end = element.start - document.offset, element.end - document.offset
        if start < content_start or end > content_end:
            raise InputError(
                source, element.line, f"<{element.name}> element across the <{doc_tag}> document's own tag"
            )
        while following < len(sections) and sections[following].start < start:
            section = sections[following]
            following += 1
            while stack and stack[-1].end <= section.start:
                stack.pop()
            stack.append(section)
        while stack and stack[-1].end <= start:
            stack.pop()
        enclosing = stack[-1] if stack else None
        if enclosing is not None and (start < enclosing.content_start or end > enclosing.content_end):
            raise InputError(
                source,
                element.line,
                f"<{element.name}> element crosses the end of <{enclosing.name}> (line {enclosing.line}): "
                f"expected </{element.name}> before </{enclosing.name}>",
            )
        # The sections starting inside the element; each section is looked at once, elements not overlapping.
        inner = following
        while inner < len(sections) and sections[inner].start < end:
            later = sections[inner]
            inner += 1
            if later.end > end:
                raise InputError(
                    source,
                    element.line,
                    f"<{element.name}> element crosses the start of <{later.name}> (line {later.line}): "
                    f"expected </{element.name}> before <{later.name}> or after </{later.name}>",
                )
        names.append(doc_tag if enclosing is None else enclosing.name)
    return names


def _instance(pointer: Pointer, element: _Element, text: str, start: int, end: int, is_key: bool) -> Instance:
    line = element.line
    marked = text[start:end]
    content = _ANY_TAG.sub("", marked)
    # content and minimal_contents are given so that brackets in the text are not read as minimal strings.
    alternatives: list[tuple[TextFill]] = [
        (TextFill(content, (Extent(start, end),), True, line, content, ()),)
    ]
    alt = element.attributes.get("ALT")
    if alt is not None:
        found = re.search(r"\s+".join(re.escape(word) for word in alt.split()), marked)
        extents = (Extent(start + found.start(), start + found.end()),) if found else ()
        alternatives.append((TextFill(alt, extents, True, line, alt, ()),))
    slots = [
        Slot("TEXT", tuple(alternatives), line),
        Slot("TYPE", ((SetFill(element.attributes["TYPE"], False, line),),), line),
    ]
    status = element.attributes.get("STATUS")
    if status is not None:
        slots.append(Slot("STATUS", ((SetFill(status, False, line),),), line))
        if is_key and status.strip().upper() in OPTIONAL_STATUSES:
            slots.append(Slot(OPTIONAL_STATUS_SLOT, ((SetFill(OPTIONAL_STATUS_VALUE, False, line),),), line))
    return Instance(pointer, tuple(slots), line)
