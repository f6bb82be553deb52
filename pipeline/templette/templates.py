"""Reading and writing template sets (seed 000, "Format of Extracted Information"; seed 001, records).

A template set is a sequence of instances ``<TYPE-DOCID-ONEUP> :=`` followed by slots ``NAME:`` whose
bodies are fill-alternatives separated by ``/``. Two layouts occur: seed 000 puts one slot (or one
alternative) per line, seed 001 puts a whole record on one line. Line breaks therefore mean almost nothing
and both layouts are read by one left-to-right tokenizer. Line ends matter only in that a quoted string,
an extent part and a run of bare words never continue past them.

Token kinds are recognised only at a *token boundary*: the start of a line, after whitespace, after
``:=`` and after a ``/`` token. Grammar decisions that the seeds leave open:

* A quoted string ends at the first matching quote that is followed by whitespace, the end of the line or
  ``##``, so ``'Race hasn't started'`` is one string. A ``"`` or ``'`` inside a bare word is ordinary.
* A bare run (consecutive bare words on one line, whitespace folded) is one fill: with an extent part it is
  an unquoted :class:`~pipeline.templette.model.TextFill`, without one a
  :class:`~pipeline.templette.model.SetFill`. Every quoted string is a
  :class:`~pipeline.templette.model.TextFill` (which slots hold set fills is not known here).
* ``##`` starts an extent part only at a token boundary or right after a closing quote; the extent part
  must follow a fill on the same line. A texts-file name after the last ``#`` is read and ignored; an
  all-digit one is refused as a probably forgotten final ``#``.
* ``?`` marks a slot optional only as the first token of its body and followed by whitespace.
* ``<`` at a token boundary always starts a pointer, which must close with ``>`` before any whitespace.
  A pointer followed by ``=`` or ``:`` (rather than ``:=``) is refused as a broken instance header.

Pointers are not checked against the instances here; :func:`check_pointers` does it on request.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from iescore.pipeline.core.corpus import read_input
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.templette.model import (
    Extent,
    Fill,
    Instance,
    Pointer,
    PointerFill,
    SetFill,
    Slot,
    TemplateSet,
    TextFill,
)


def parse_template_set(text: str, source: str = "<string>") -> TemplateSet:
    """Parse the text of a whole template file; ``source`` names it in error messages."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return _Parser(source).parse(_tokenize(text, source))


def parse_lines(lines: list[str], source: str, first: int) -> TemplateSet:
    """Parse some lines of a template file, numbered from ``first`` (the line of ``lines[0]``).

    Lines from one instance header up to the next parse as that instance does in the whole file
    (a header token resets the tokenizer's and the parser's state); only a duplicate of an instance
    elsewhere in the file goes unnoticed.
    """
    return _Parser(source).parse(_tokenize_lines(lines, source, first))


def read_template_set(path: str | Path, encoding: str = "utf-8") -> TemplateSet:
    """Read and parse a template file, decoding it strictly (see :func:`pipeline.core.corpus.decode_text`)."""
    return parse_template_set(read_input(path, encoding, "template set"), str(path))


def write_template_set(template_set: TemplateSet) -> str:
    """Render a template set in seed 000's layout, so that :func:`parse_template_set` reads it back.

    Raises :class:`ValueError` for what the format cannot express: a set fill that is not a single bare
    run, a string containing a newline or unquotable with either quote, an empty alternative, a bad
    pointer part or slot name. Unquoted text fills that would not read back as bare text are quoted.
    """
    blocks = [_write_instance(instance) for instance in template_set.instances]
    return "\n".join(blocks)


def check_pointers(template_set: TemplateSet) -> None:
    """Raise :class:`InputError` at the first pointer fill (in file order) naming no instance of the set."""
    known = {instance.pointer for instance in template_set.instances}
    for instance in template_set.instances:
        for slot in instance.slots:
            for alternative in slot.alternatives:
                for fill in alternative:
                    if isinstance(fill, PointerFill) and fill.target not in known:
                        raise InputError(
                            template_set.source,
                            fill.line,
                            f"pointer {fill.target.render()} in slot '{slot.name}:' names no instance of "
                            "this template set; an instance header with that pointer expected",
                        )


# --- tokenizer -----------------------------------------------------------------------------------------

_SPACE = re.compile(r"\s*")
_WORD = re.compile(r"\S+")
_SLOT_NAME = re.compile(r"([A-Za-z0-9_-]+):(?=\s|$)")
_SLOT_NAME_TEXT = re.compile(r"[A-Za-z0-9_-]+")
_POINTER = re.compile(r"<([^\s<>]*)>")
_EXTENT_PART = re.compile(r"##([0-9]+(?:#[0-9]+)*)#([^#]*)")

# The largest character offset an extent may hold: every artifact keeps it exactly (Arrow int64
# columns, and float64 where a side of an alignment row may be missing). Larger ones are typos.
MAX_OFFSET = 2**53 - 1


class _Token(NamedTuple):
    """One token: ``kind`` is header, pointer, slot, slash, optional, quoted or bare."""

    kind: str
    line: int
    text: str = ""
    pointer: Pointer | None = None
    extents: tuple[Extent, ...] = ()


def _tokenize(text: str, source: str) -> Iterator[_Token]:
    """All tokens of ``text`` in order; only ``\\n`` ends a line, so line numbers match editors."""
    return _tokenize_lines(text.split("\n"), source, 1)


def _tokenize_lines(lines: list[str], source: str, first: int) -> Iterator[_Token]:
    """All tokens of ``lines``, numbered from ``first``."""
    after_slot = False
    for number, line in enumerate(lines, start=first):
        tokens = _common_line(line, number)
        for token in _scan_line(line, number, source, after_slot) if tokens is None else tokens:
            after_slot = token.kind == "slot"
            yield token


# The lines most template files are made of, read by one match: an instance header; or an optional
# slot name followed by a pointer, a double-quoted string with one extent, or one bare word with one
# extent. Anything else (and anything these would refuse) goes through ``_scan_line``.
_COMMON_LINE = re.compile(
    r"""\s*(?:
        <(?P<header>[^\s<>]*)>\s*:=
      | (?:(?P<slot>[A-Za-z0-9_-]+):\s+)?
        (?: <(?P<pointer>[^\s<>]*)>
          | "(?P<quoted>[^"]*)"\s*\#\#(?P<quoted_start>[0-9]{1,15})\#(?P<quoted_end>[0-9]{1,15})\#
          | (?P<bare>[^\s<"'/\#?]\S*)(?<!:)\s+\#\#(?P<bare_start>[0-9]{1,15})\#(?P<bare_end>[0-9]{1,15})\#
        )
    )\s*""",
    re.VERBOSE,
)


def _common_line(line: str, number: int) -> list[_Token] | None:
    """The tokens of a common line (see ``_COMMON_LINE``), exactly as ``_scan_line`` gives them; None
    for any other line, and for one whose pointer or extent ``_scan_line`` would refuse."""
    match = _COMMON_LINE.fullmatch(line)
    if match is None:
        return None
    header, slot, pointer, quoted, bare = match.group("header", "slot", "pointer", "quoted", "bare")
    if header is not None:
        parsed = _pointer_or_none(header)
        return None if parsed is None else [_Token("header", number, pointer=parsed)]
    tokens = [_Token("slot", number, slot)] if slot is not None else []
    if pointer is not None:
        parsed = _pointer_or_none(pointer)
        if parsed is None:
            return None
        tokens.append(_Token("pointer", number, pointer=parsed))
        return tokens
    kind, text = ("quoted", quoted) if quoted is not None else ("bare", bare)
    start, end = (int(n) for n in match.group(f"{kind}_start", f"{kind}_end"))
    if start >= end:
        return None
    tokens.append(_Token(kind, number, text, extents=(Extent(start, end),)))
    return tokens


def _pointer_or_none(inner: str) -> Pointer | None:
    """``_parse_pointer`` of a well-formed pointer, None where it would raise."""
    first, last = inner.find("-"), inner.rfind("-")
    if 0 < first < last < len(inner) - 1 and last - first > 1:
        return Pointer(inner[:first], inner[first + 1 : last], inner[last + 1 :])
    return None


def _scan_line(line: str, number: int, source: str, after_slot: bool) -> Iterator[_Token]:
    """The tokens of one line; ``after_slot`` tells whether the previous token was a slot name."""
    end = len(line)
    pos = _SPACE.match(line).end()
    while pos < end:
        char = line[pos]
        if char == "<":
            token, pos = _scan_pointer(line, pos, number, source)
        elif char in "\"'":
            close = _closing_quote(line, pos)
            if close < 0:
                if line.find(char, pos + 1) < 0:
                    message = f"unterminated quote: closing {char} expected on the same line"
                else:
                    message = f"whitespace or an extent part '##...' expected after the closing {char}"
                raise InputError(source, number, message)
            raw = line[pos + 1 : close]
            extents, pos = _scan_trailing_extents(line, close + 1, number, source)
            token = _Token("quoted", number, raw, extents=extents)
        elif line.startswith("##", pos):
            raise InputError(source, number, "extent part '##...' must follow a text fill on the same line")
        elif char == "/":
            token, pos = _Token("slash", number), pos + 1
        elif char == "?" and after_slot and (pos + 1 == end or line[pos + 1].isspace()):
            token, pos = _Token("optional", number), pos + 1
        elif match := _SLOT_NAME.match(line, pos):
            token, pos = _Token("slot", number, match.group(1)), match.end()
        else:
            words = []
            while pos < end and not _starts_structural(line, pos):
                word = _WORD.match(line, pos)
                assert word is not None  # pos is at a non-blank character
                words.append(word.group())
                pos = _SPACE.match(line, word.end()).end()
            extents, pos = _scan_trailing_extents(line, pos, number, source)
            token = _Token("bare", number, " ".join(words), extents=extents)
        after_slot = token.kind == "slot"
        yield token
        pos = _SPACE.match(line, pos).end()


def _starts_structural(line: str, pos: int) -> bool:
    """Whether a token other than a bare word starts at boundary ``pos`` (this ends a bare run)."""
    return line[pos] in "<\"'/" or line.startswith("##", pos) or _SLOT_NAME.match(line, pos) is not None


def _closing_quote(line: str, pos: int) -> int:
    """Index of the quote closing the string opened at ``pos``, or -1.

    It is the first matching quote followed by whitespace, the end of the line or ``##``, so that an
    apostrophe inside a single-quoted string does not end it. Each character is looked at once.
    """
    quote, end = line[pos], len(line)
    close = line.find(quote, pos + 1)
    while close >= 0:
        after = close + 1
        if after == end or line[after].isspace() or line.startswith("##", after):
            return close
        close = line.find(quote, after)
    return -1


def _scan_pointer(line: str, pos: int, number: int, source: str) -> tuple[_Token, int]:
    """A pointer at ``pos``: an instance header when ``:=`` follows on the line, else a pointer fill."""
    match = _POINTER.match(line, pos)
    if match is None:
        start = _WORD.match(line, pos)
        assert start is not None
        raise InputError(
            source,
            number,
            f"unterminated pointer {start.group()!r}: '>' expected before whitespace or line end",
        )
    pointer = _parse_pointer(match.group(1), number, source)
    after = match.end()
    ahead = _SPACE.match(line, after).end()
    if line.startswith(":=", ahead):
        return _Token("header", number, pointer=pointer), ahead + 2
    if after < len(line) and not line[after].isspace():
        raise InputError(source, number, f"whitespace or ':=' expected after pointer {match.group()}")
    if ahead < len(line) and line[ahead] in ":=":
        raise InputError(source, number, f"':=' expected after instance pointer {match.group()}")
    return _Token("pointer", number, pointer=pointer), after


def _parse_pointer(inner: str, number: int, source: str) -> Pointer:
    """Split ``TYPE-DOCID-ONEUP`` at its first and last hyphens; the document id may hold hyphens."""
    first, last = inner.find("-"), inner.rfind("-")
    if 0 < first < last < len(inner) - 1 and last - first > 1:
        return Pointer(inner[:first], inner[first + 1 : last], inner[last + 1 :])
    raise InputError(
        source,
        number,
        f"bad pointer <{inner}>: '<TYPE-DOCID-ONEUP>' expected, three non-empty parts separated by hyphens",
    )


def _scan_trailing_extents(line: str, pos: int, number: int, source: str) -> tuple[tuple[Extent, ...], int]:
    """The extent part starting at or after ``pos`` (after blanks) if there is one, and the new position."""
    start = _SPACE.match(line, pos).end()
    if not line.startswith("##", start):
        return (), pos
    chunk = _WORD.match(line, start)
    assert chunk is not None
    match = _EXTENT_PART.fullmatch(chunk.group())
    part = _shorten(chunk.group())
    if match is None or match.group(2).isdigit():
        raise InputError(
            source,
            number,
            f"malformed extent part {part!r}: '##start#end#' expected (more '#start#end' pairs "
            "and a texts-file name without '#' may follow)",
        )
    digits = match.group(1).split("#")
    for text in digits:
        significant = text.lstrip("0")  # int() of thousands of digits is slow, then refused
        if len(significant) > len(str(MAX_OFFSET)) or int(text) > MAX_OFFSET:
            shown = _shorten(text, 30)
            raise InputError(
                source,
                number,
                f"offset {shown} in extent part {part!r} is too large: at most {MAX_OFFSET}",
            )
    numbers = [int(text) for text in digits]
    if len(numbers) % 2:
        raise InputError(
            source,
            number,
            f"extent part {part!r} has {len(numbers)} offsets: pairs of start and end expected",
        )
    extents = tuple(Extent(numbers[i], numbers[i + 1]) for i in range(0, len(numbers), 2))
    for extent in extents:
        if extent.start >= extent.end:
            raise InputError(
                source, number, f"extent start {extent.start} must be less than its end {extent.end}"
            )
    maximal = extents[0]
    for extent in extents[1:]:
        # A minimal string is part of the maximal one (seed 000, "minimal strings"): its extent too.
        if extent.start < maximal.start or extent.end > maximal.end:
            raise InputError(
                source,
                number,
                f"minimal extent {extent.start}#{extent.end} must lie inside the maximal extent "
                f"{maximal.start}#{maximal.end} of extent part {part!r}",
            )
    return extents, chunk.end()


# --- parser --------------------------------------------------------------------------------------------


@dataclass
class _SlotBuilder:
    """A slot being read; ``slash_line`` is the line of the last ``/`` (0 before any)."""

    name: str
    line: int
    optional: bool = False
    alternatives: list[tuple[Fill, ...]] = field(default_factory=list)
    current: list[Fill] = field(default_factory=list)
    slash_line: int = 0

    def slash(self, line: int, source: str) -> None:
        if self.current:
            self.alternatives.append(tuple(self.current))
            self.current = []
        elif self.slash_line:
            raise InputError(source, line, f"fill expected between two '/' in slot '{self.name}:'")
        # A '/' before the first fill just begins the first alternative.
        self.slash_line = line

    def build(self, source: str) -> Slot:
        if self.current:
            self.alternatives.append(tuple(self.current))
        elif self.slash_line:
            raise InputError(source, self.slash_line, f"fill expected after '/' in slot '{self.name}:'")
        else:
            raise InputError(source, self.line, f"slot body expected after '{self.name}:'")
        return Slot(self.name, tuple(self.alternatives), self.line, self.optional)


@dataclass
class _InstanceBuilder:
    """An instance being read, with the line of each slot name for duplicate messages."""

    pointer: Pointer
    line: int
    slots: list[Slot] = field(default_factory=list)
    slot_lines: dict[str, int] = field(default_factory=dict)

    def build(self) -> Instance:
        return Instance(self.pointer, tuple(self.slots), self.line)


class _Parser:
    """Builds instances from the token stream; one token at a time, no look-ahead needed."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.instances: list[Instance] = []
        self.header_lines: dict[Pointer, int] = {}
        self.instance: _InstanceBuilder | None = None
        self.slot: _SlotBuilder | None = None

    def parse(self, tokens: Iterator[_Token]) -> TemplateSet:
        previous_line = 0
        word: _Token | None = None  # the previous token, when it is a bare word that began its line
        for token in tokens:
            word, line_word = None, word
            if token.kind == "header":
                assert token.pointer is not None
                self._start_instance(token.pointer, token.line)
            elif self.instance is None:
                raise self._error(
                    token.line, f"instance header '<TYPE-DOCID-ONEUP> :=' expected, {_found(token)}"
                )
            elif token.kind == "slot":
                self._start_slot(self.instance, token.text, token.line)
            elif self.slot is None:
                raise self._error(
                    token.line, f"slot name 'NAME:' expected before the first fill, {_found(token)}"
                )
            elif token.kind == "optional":
                self.slot.optional = True
            elif token.kind == "slash":
                self.slot.slash(token.line, self.source)
            else:
                self._refuse_word_before_fill(token, line_word)
                self.slot.current.append(self._fill(token))
                if token.kind == "bare" and not token.extents and token.line != previous_line:
                    word = token
            previous_line = token.line
        self._finish_instance()
        return TemplateSet(tuple(self.instances), self.source)

    def _refuse_word_before_fill(self, token: _Token, word: _Token | None) -> None:
        """A bare word that begins a line and is followed on it by a quoted string or a pointer is a slot
        name that lost its ':' (``WINNER "Egypt" ##332#337#``): read as written, it would be two more
        fills of the slot above, silently."""
        if (
            word is not None
            and token.kind in ("quoted", "pointer")
            and word.line == token.line
            and _SLOT_NAME_TEXT.fullmatch(word.text)
        ):
            raise self._error(
                token.line, f"slot name '{word.text}:' expected, found {word.text!r} without its ':'"
            )

    def _start_instance(self, pointer: Pointer, line: int) -> None:
        self._finish_instance()
        if pointer in self.header_lines:
            first = self.header_lines[pointer]
            raise self._error(line, f"duplicate instance {pointer.render()}; first defined on line {first}")
        self.header_lines[pointer] = line
        self.instance = _InstanceBuilder(pointer, line)

    def _start_slot(self, instance: _InstanceBuilder, name: str, line: int) -> None:
        self._finish_slot()
        if name in instance.slot_lines:
            first = instance.slot_lines[name]
            raise self._error(
                line,
                f"duplicate slot '{name}:' in instance {instance.pointer.render()}; first on line {first}",
            )
        instance.slot_lines[name] = line
        self.slot = _SlotBuilder(name, line)

    def _finish_slot(self) -> None:
        if self.slot is not None and self.instance is not None:
            self.instance.slots.append(self.slot.build(self.source))
        self.slot = None

    def _finish_instance(self) -> None:
        self._finish_slot()
        if self.instance is not None:
            self.instances.append(self.instance.build())
        self.instance = None

    def _fill(self, token: _Token) -> Fill:
        if token.kind == "pointer":
            assert token.pointer is not None
            return PointerFill(token.pointer, token.line)
        if token.kind == "bare" and not token.extents:
            return SetFill(token.text, line=token.line)
        self._check_minimal_strings(token)
        return TextFill(token.text, token.extents, quoted=token.kind == "quoted", line=token.line)

    def _check_minimal_strings(self, token: _Token) -> None:
        """Brackets must pair up without nesting, and a fill needs one extent per minimal string plus one."""
        pairs = 0
        opened = False
        text = token.text if "[" in token.text or "]" in token.text else ""  # no bracket: nothing to pair
        for char in text:
            if char == "[":
                if opened:
                    raise self._error(
                        token.line, "']' expected before the next '[': minimal strings cannot nest"
                    )
                opened = True
            elif char == "]":
                if not opened:
                    raise self._error(token.line, "unbalanced ']' in text fill: '[' expected before it")
                opened = False
                pairs += 1
        if opened:
            raise self._error(token.line, "unbalanced '[' in text fill: ']' expected after it")
        count = len(token.extents)
        if count and (pairs or count > 1) and count != pairs + 1:
            raise self._error(
                token.line,
                f"text fill with {pairs} bracketed minimal string(s) needs {pairs + 1} extent(s) "
                f"(the maximal string's first), found {count}",
            )

    def _error(self, line: int, message: str) -> InputError:
        return InputError(self.source, line, message)


def _shorten(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters for an error message."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _found(token: _Token) -> str:
    """How a token is named in an error message."""
    if token.kind == "pointer":
        assert token.pointer is not None
        return f"found pointer {token.pointer.render()} (':=' after it makes it a header)"
    if token.kind == "slot":
        return f"found slot name '{token.text}:'"
    if token.kind == "slash":
        return "found '/'"
    shown = token.text if len(token.text) <= 40 else token.text[:37] + "..."
    return f"found {'quoted string' if token.kind == 'quoted' else 'text'} {shown!r}"


# --- writer --------------------------------------------------------------------------------------------


def _write_instance(instance: Instance) -> str:
    lines = [f"{_pointer_text(instance.pointer)} :="]
    for slot in instance.slots:
        lines.extend(_write_slot(slot))
    return "".join(line + "\n" for line in lines)


def _write_slot(slot: Slot) -> list[str]:
    """One line per single fill, aligned under the first; a further alternative's line starts with '/'."""
    if not _SLOT_NAME_TEXT.fullmatch(slot.name):
        raise ValueError(f"slot name {slot.name!r} is not letters, digits, '_' and '-'")
    if not slot.alternatives:
        raise ValueError(f"slot {slot.name!r} has no fill-alternative")
    head = f"    {slot.name}: " + ("? " if slot.optional else "")
    indent = len(head)
    lines = []
    for number, alternative in enumerate(slot.alternatives):
        if not alternative:
            raise ValueError(f"slot {slot.name!r} has an empty fill-alternative")
        for position, fill in enumerate(alternative):
            text = render_fill(fill)
            if position:
                lines.append(" " * indent + text)
            elif number:
                lines.append(" " * (indent - 2) + "/ " + text)
            elif not slot.optional and text.split(" ", 1)[0] == "?":
                # Right after 'NAME:' a bare '?' is the optional mark; a '/' first keeps it a fill.
                lines.append(head + "/ " + text)
            else:
                lines.append(head + text)
    return lines


def render_fill(fill: Fill) -> str:
    if isinstance(fill, PointerFill):
        return _pointer_text(fill.target)
    if isinstance(fill, SetFill):
        if fill.quoted:
            return _quote(fill.value)
        if not _reads_as_bare(fill.value):
            raise ValueError(f"set fill {fill.value!r} would not read back as one bare run of words")
        return fill.value
    # Without extents an unquoted text would read back as a set fill, so it gets quotes.
    bare = not fill.quoted and fill.extents and _reads_as_bare(fill.raw)
    text = fill.raw if bare else _quote(fill.raw)
    if fill.extents:
        text += " ##" + "".join(f"{extent.start}#{extent.end}#" for extent in fill.extents)
    return text


def _quote(raw: str) -> str:
    """``raw`` in quotes that read back as ``raw`` exactly; double ones unless ``raw`` holds some."""
    if '"' not in raw and "\n" not in raw:
        return '"' + raw + '"'  # the loop's first choice, and its only quote closes it
    if "\n" not in raw:
        for quote in sorted("\"'", key=raw.__contains__):
            text = quote + raw + quote
            if _closing_quote(text, 0) == len(text) - 1:
                return text
    raise ValueError(f"string {raw!r} cannot be quoted so that it reads back unchanged")


def _reads_as_bare(value: str) -> bool:
    """Whether ``value`` alone on a line reads back as itself, one bare run without extents."""
    try:
        tokens = list(_scan_line(value, 1, "<value>", after_slot=False))
    except InputError:
        return False
    return len(tokens) == 1 and tokens[0].kind == "bare" and tokens[0].text == value and not tokens[0].extents


def _pointer_text(pointer: Pointer) -> str:
    """``<TYPE-DOCID-ONEUP>``, refusing parts that would split differently when read back."""
    parts = (pointer.type, pointer.doc_id, pointer.one_up)
    if (
        not all(parts)
        or "-" in pointer.type
        or "-" in pointer.one_up
        or any(char.isspace() or char in "<>" for part in parts for char in part)
    ):
        raise ValueError(f"pointer {pointer!r} cannot be written as <TYPE-DOCID-ONEUP>")
    return pointer.render()
