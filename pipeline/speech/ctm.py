"""Time-marked hypothesis words: NIST's ``ctm`` format, as sclite 2.10 reads it.

A ctm line is ``FILE CHANNEL BEGIN DURATION WORD [CONFIDENCE [CORRECT]]``; lines starting with ``;``
are comments. A word may carry tags after an unescaped ``;`` (``THEY;tag1``, ``ABOUT;;tag2``): sclite
keeps the text before the first one and turns ``\\;`` into ``;`` (``A\\;S;tag1`` is ``A;S``). A
confidence ``NA`` is no confidence. Alternative hypotheses are written as a block::

    F A * * <ALT_BEGIN>
    F A 0.60 0.30 HERE
    F A * * <ALT>
    F A 0.60 0.30 THERE
    F A * * <ALT_END>

where an alternative may be empty (no word). Marker lines carry ``*`` for their times.

sclite lower-cases every line unless it aligns case-sensitively (``-s``), and reads the file in order,
one run of lines per file and channel; it checks none of the fields. Here each of these is an
:class:`~iescore.pipeline.core.errors.InputError` naming the line: fewer than five fields or more
than seven, a time or duration that is not a number (``*`` is allowed on marker lines only), a
confidence that is not a number or ``NA``, an ``<ALT>`` or ``<ALT_END>``
outside a block, a block not closed before its channel ends, and a file and channel that come back
after another one (sclite would score the second run against nothing).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from iescore.pipeline.core.errors import InputError

ALT_BEGIN, ALT, ALT_END = "<alt_begin>", "<alt>", "<alt_end>"
_FIELDS = "FILE CHANNEL BEGIN DURATION WORD [CONFIDENCE]"
_TAG = re.compile(r"(?<!\\);")
BLANK = " \t\n\r"
_BLANKS = re.compile(r"[ \t\n\r]+")  # what sclite's strtok splits at (and a CR of a CRLF line)


def fields_of(line: str, limit: int = 0) -> list[str]:
    """The blank-separated fields of a line as sclite's ``strtok(" \\t\\n")`` gives them; with
    ``limit``, at most that many splits (the rest of the line is the last field)."""
    fields = _BLANKS.split(line.strip(BLANK), limit)
    return [] if fields == [""] else fields


def lines_of(text: str) -> list[str]:
    """The lines of a text, split at newlines only (form feeds and other separators stay in)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """Lower-case ASCII letters only: sclite's folding without a localization (``-e`` absent or generic)."""
    return text.translate(_ASCII_LOWER)


@dataclass(frozen=True)
class TimedWord:
    """A ctm word: its text (tags removed), begin time, duration, confidence (None: not given), line."""

    text: str
    begin: float
    duration: float
    confidence: float | None
    line: int
    tagged: str | None = None  # the sgml form when the word carries ;tags (ctm.parse_token)

    @property
    def end(self) -> float:
        return self.begin + self.duration

    @property
    def midpoint(self) -> float:
        return self.begin + self.duration / 2.0


@dataclass(frozen=True)
class TimedChoice:
    """An ``<ALT_BEGIN>`` block: its alternatives (an empty one is no word) and the line it opens on."""

    alternatives: tuple[tuple[TimedWord, ...], ...]
    line: int

    def words(self) -> list[TimedWord]:
        return [w for alternative in self.alternatives for w in alternative]


TimedItem = TimedWord | TimedChoice


@dataclass(frozen=True)
class Channel:
    """The words of one file and channel, in file order."""

    file: str
    channel: str
    items: tuple[TimedItem, ...]
    line: int  # where the channel's first line is


@dataclass(frozen=True)
class Ctm:
    source: str
    channels: tuple[Channel, ...]
    has_confidence: bool  # some word gives a confidence (sclite then reports NCE)


def parse_token(token: str) -> tuple[str, str | None]:
    """A ctm or stm token as sclite reads it: the word, and its sgml form when it carries tags.

    The word is the text before the first unescaped ``;`` with every backslash removed (``A\\;S`` is
    ``A;S``) and a trailing ``*`` dropped from a word longer than one character. Up to two tags follow
    (``PRIDE;tag1;tag2``, ``ABOUT;;tag2``); sclite drops them from its reports but its sgml writes
    ``word;tag1;tag2`` with ``;`` escaped (``a\\;s;tag1;``), which is the second value (None when
    the token has no ``;`` of its own).
    """
    parts = _TAG.split(token, 3)
    value = parts[0].replace("\\", "")
    if len(value) > 1 and value.endswith("*"):
        value = value[:-1]
    if len(parts) == 1:
        return value, None
    tag1 = parts[1].replace("\\", "")
    tag2 = parts[2].replace("\\", "") if len(parts) > 2 else ""
    return value, f"{_escape(value)};{_escape(tag1)};{_escape(tag2)}"


def _escape(text: str) -> str:
    return text.replace(";", "\\;")


def word_text(token: str) -> str:
    """The word of a ctm or stm token as sclite keeps it (:func:`parse_token`)."""
    return parse_token(token)[0]


def _number(field: str, what: str, source: str, line: int) -> float:
    try:
        value = float(field)
    except ValueError:
        raise InputError(source, line, f"{what} '{field}' is not a number ({_FIELDS} expected)") from None
    if not math.isfinite(value):
        raise InputError(source, line, f"{what} '{field}' is not a finite number")
    return value


def parse_ctm(text: str, source: str, fold: Callable[[str], str] | None = ascii_lower) -> Ctm:
    """The channels of a ctm text, each line folded by ``fold`` first (None: case-sensitive, ``-s``);
    see the module docstring for what is refused."""
    channels: list[Channel] = []
    seen: dict[tuple[str, str], int] = {}
    current: list[TimedItem] = []
    key: tuple[str, str] | None = None
    start = 0
    block: list[list[TimedWord]] | None = None
    block_line = 0
    has_confidence = False

    def close(number: int) -> None:
        if block is not None:
            raise InputError(source, block_line, f"<ALT_BEGIN> without <ALT_END> before line {number}")
        if key is not None:
            channels.append(Channel(key[0], key[1], tuple(current), start))

    for number, raw in enumerate(lines_of(text), 1):
        if "\0" in raw:
            raise InputError(source, number, "NUL byte in a text file")
        line = raw if fold is None else fold(raw)
        if not line.strip(BLANK) or line.lstrip(BLANK).startswith(";"):
            continue
        fields = fields_of(line)
        if len(fields) < 5:
            raise InputError(source, number, f"{len(fields)} fields: {_FIELDS} expected")
        if len(fields) > 7:
            raise InputError(
                source, number, f"{len(fields)} fields: at most 7 ({_FIELDS} [CORRECT]) expected"
            )
        file, channel, begin_field, duration_field, token = fields[:5]
        here = (file, channel)
        if here != key:
            close(number)
            if here in seen:
                raise InputError(
                    source,
                    number,
                    f"file '{file}' channel '{channel}' already ended on line {seen[here]}: "
                    "a ctm must keep each file and channel together",
                )
            if key is not None:
                seen[key] = number - 1
            key, current, start, block = here, [], number, None
        marker = token.lower()
        if marker in (ALT_BEGIN, ALT, ALT_END):
            if marker == ALT_BEGIN:
                if block is not None:
                    raise InputError(
                        source, number, f"<ALT_BEGIN> inside the block opened on line {block_line}"
                    )
                block, block_line = [[]], number
            elif block is None:
                raise InputError(source, number, f"{marker.upper()} outside an <ALT_BEGIN> block")
            elif marker == ALT:
                block.append([])
            else:
                current.append(TimedChoice(tuple(tuple(a) for a in block), block_line))
                block = None
            continue
        begin = _number(begin_field, "begin time", source, number)
        duration = _number(duration_field, "duration", source, number)
        confidence = None
        if len(fields) > 5 and fields[5].lower() != "na":
            confidence = _number(fields[5], "confidence", source, number)
            has_confidence = True
        if len(fields) > 6:
            _number(fields[6], "correctness flag", source, number)
        text, tagged = parse_token(token)
        word = TimedWord(text, begin, duration, confidence, number, tagged)
        if block is not None:
            block[-1].append(word)
        else:
            current.append(word)
    close(len(lines_of(text)) + 1)
    return Ctm(source, tuple(channels), has_confidence)


def read_text(path: str | Path, source: str, encoding: str) -> str:
    """The text of an input file; a missing file or bytes not in ``encoding`` are InputErrors."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(source, 0, "no such file") from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(source, line, f"not {encoding} text: {error.reason}") from None


def read_ctm(
    path: str | Path,
    source: str | None = None,
    encoding: str = "utf-8",
    fold: Callable[[str], str] | None = ascii_lower,
) -> Ctm:
    """Read and parse a ctm file; ``source`` names it in errors (the path by default)."""
    name = str(path) if source is None else source
    return parse_ctm(read_text(path, name, encoding), name, fold)
