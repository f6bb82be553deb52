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
from functools import cached_property
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import slices, to_arrow, to_numpy
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


# Row kinds of a ctm (:class:`Ctm`): a word, or a block marker.
WORD, BEGIN, ALTERNATIVE, END = 0, 1, 2, 3
_MARKERS = {ALT_BEGIN: BEGIN, ALT: ALTERNATIVE, ALT_END: END}


@dataclass(frozen=True)
class Ctm:
    """A ctm as columns: one row per word or marker line, in file order.

    ``kind`` is ``WORD``, ``BEGIN``, ``ALTERNATIVE`` or ``END`` (``<ALT_BEGIN>``, ``<ALT>``,
    ``<ALT_END>``); ``word`` and ``tagged`` index ``texts`` (the word, and its sgml form when it
    carries tags; -1: none, and a marker's ``word`` is -1); ``begin``, ``duration`` and
    ``confidence`` are NaN where absent (markers; no confidence or ``NA``). Items are a word alone or
    a whole block, its rows ``item_rows[k]:item_rows[k + 1]``; channel ``c`` (``channel_files[c]``,
    ``channel_names[c]``, its first line ``channel_lines[c]``) holds the items
    ``channel_items[c]:channel_items[c + 1]``.
    """

    source: str
    has_confidence: bool  # some word gives a confidence (sclite then reports NCE)
    texts: list[str]
    kind: np.ndarray
    word: np.ndarray
    tagged: np.ndarray
    begin: np.ndarray
    duration: np.ndarray
    confidence: np.ndarray
    line: np.ndarray
    item_rows: np.ndarray
    channel_files: list[str]
    channel_names: list[str]
    channel_lines: np.ndarray
    channel_items: np.ndarray

    @classmethod
    def empty(cls, source: str) -> Ctm:
        """A ctm without words."""
        none, numbers = np.zeros(0), np.zeros(0, np.int64)
        first = np.zeros(1, np.int64)
        kinds = np.zeros(0, np.int8)
        return cls(
            source,
            False,
            [],
            kinds,
            numbers,
            numbers,
            none,
            none,
            none,
            numbers,
            first,
            [],
            [],
            numbers,
            first,
        )

    @cached_property
    def channels(self) -> tuple[Channel, ...]:
        """The channels as objects (words and blocks), for the readers that walk a channel word by
        word (a ctm reference, sclite's ``chop_WTOKE_2``) and for the aligner's networks."""
        items = self.items(np.arange(len(self.item_rows) - 1))
        return tuple(
            Channel(file, name, tuple(items[a:b]), int(line))
            for file, name, line, a, b in zip(
                self.channel_files,
                self.channel_names,
                self.channel_lines.tolist(),
                self.channel_items[:-1].tolist(),
                self.channel_items[1:].tolist(),
                strict=True,
            )
        )

    def items(self, numbers: np.ndarray) -> list[TimedItem]:
        """The items ``numbers`` as :class:`TimedWord` and :class:`TimedChoice` objects."""
        texts = self.texts
        kind, word, tagged = self.kind.tolist(), self.word.tolist(), self.tagged.tolist()
        begin, duration, line = self.begin.tolist(), self.duration.tolist(), self.line.tolist()
        confidence = self.confidence.tolist()

        def timed(r: int) -> TimedWord:
            c = confidence[r]
            return TimedWord(
                texts[word[r]], begin[r], duration[r], None if c != c else c, line[r],
                texts[tagged[r]] if tagged[r] >= 0 else None,
            )  # fmt: skip

        out: list[TimedItem] = []
        bounds = self.item_rows.tolist()
        for k in np.asarray(numbers).tolist():
            first, last = bounds[k], bounds[k + 1]
            if kind[first] == WORD:
                out.append(timed(first))
                continue
            alternatives: list[list[TimedWord]] = [[]]
            for r in range(first + 1, last - 1):
                if kind[r] == ALTERNATIVE:
                    alternatives.append([])
                else:
                    alternatives[-1].append(timed(r))
            out.append(TimedChoice(tuple(tuple(a) for a in alternatives), line[first]))
        return out


def fold_lines(text: str, fold: Callable[[str], str] | None) -> str:
    """``text`` with ``fold`` applied to each line, as sclite folds every line it reads (None: as it
    is). A text of ASCII characters alone is folded in one call: on ASCII every fold iescore uses
    (ASCII letters, or a localization's table) changes characters one by one."""
    if fold is None:
        return text
    if text.isascii():
        return fold(text)
    return "\n".join(map(fold, text.split("\n")))


# A number Arrow and Python read alike (anything else, "+1" or "1_000" or "inf", is read by float()).
_DECIMAL = r"^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"


class FieldLines:
    """A text's lines (split at newlines only) cut into fields at sclite's blanks (space, tab, CR),
    as byte ranges of its UTF-8 encoding: the columnar reading of ctm and stm files."""

    def __init__(self, text: str) -> None:
        data = text.encode("utf-8")
        self.buffer = pa.py_buffer(data)
        raw = self.raw = np.frombuffer(data, np.uint8)
        breaks = np.flatnonzero(raw == 10)
        self.length = len(breaks) + (1 if data and not data.endswith(b"\n") else 0)
        blank = raw <= 32
        blank &= (raw == 32) | (raw == 10) | (raw == 9) | (raw == 13)
        edge = np.diff(blank.view(np.int8), prepend=np.int8(1), append=np.int8(1))
        del blank
        self.starts = np.flatnonzero(edge == -1)
        self.ends = np.flatnonzero(edge == 1)
        del edge
        self.token_line = np.searchsorted(breaks, self.starts)  # the newlines before a field: its line
        self.counts = np.bincount(self.token_line, minlength=self.length)
        self.first = np.concatenate(([0], np.cumsum(self.counts)))[:-1]

    def __len__(self) -> int:
        return self.length

    def nul_lines(self) -> np.ndarray:
        """The (1-based) numbers of the lines holding a NUL."""
        nul = np.flatnonzero(self.raw == 0)
        return np.unique(np.searchsorted(np.flatnonzero(self.raw == 10), nul)) + 1

    def data_lines(self, comment: str) -> np.ndarray:
        """The lines (0-based) with a field whose first field does not begin with ``comment``."""
        rows = np.flatnonzero(self.counts > 0)
        return rows[self.raw[self.starts[self.first[rows]]] != ord(comment)]

    def column(self, rows: np.ndarray, k: int) -> pa.Array:
        """Field ``k`` of each of ``rows`` (every one has it) as a string array."""
        tokens = self.first[rows] + k
        return slices(self.buffer, self.starts[tokens], self.ends[tokens])

    def distinct(self, rows: np.ndarray, k: int) -> tuple[list[str], np.ndarray]:
        """Field ``k`` of ``rows``: its distinct values in order of first sight, and each row's."""
        if not len(rows):
            return [], np.zeros(0, np.int64)
        encoded = self.column(rows, k).dictionary_encode()
        return encoded.dictionary.to_pylist(), to_numpy(encoded.indices).astype(np.int64)

    def strings(self, rows: np.ndarray, k: int) -> list[str]:
        """Field ``k`` of each of ``rows``."""
        return self.column(rows, k).to_pylist() if len(rows) else []

    def distinct_fields(self, fields: np.ndarray) -> tuple[list[str], np.ndarray]:
        """The fields numbered ``fields`` (ascending): their distinct texts in order of first sight,
        and each one's number among them."""
        if not len(fields):
            return [], np.zeros(0, np.int64)
        encoded = slices(self.buffer, self.starts[fields], self.ends[fields]).dictionary_encode()
        return encoded.dictionary.to_pylist(), to_numpy(encoded.indices).astype(np.int64)

    def is_na(self, rows: np.ndarray, k: int) -> np.ndarray:
        """Whether field ``k`` of each of ``rows`` is ``NA`` in any case."""
        at = self.starts[self.first[rows] + k]
        two = self.ends[self.first[rows] + k] - at == 2
        at = np.where(two, at, 0)
        raw = self.raw
        second = np.minimum(at + 1, len(raw) - 1)
        return two & ((raw[at] | 0x20) == ord("n")) & ((raw[second] | 0x20) == ord("a"))

    def numbers(
        self, rows: np.ndarray, k: int, errors: Offences, priority: int, what: str, layout: str
    ) -> np.ndarray:
        """Field ``k`` of ``rows`` as numbers (Python's ``float``); one that is not a number, or not
        finite, is an offence at its line."""
        if not len(rows):
            return np.zeros(0)
        column = self.column(rows, k)
        values = np.full(len(rows), np.nan)
        plain = to_numpy(pc.match_substring_regex(column, _DECIMAL))
        try:
            values[plain] = to_numpy(column.filter(to_arrow(plain)).cast(pa.float64()))
        except pa.ArrowInvalid:
            plain[:] = False
        unread = np.flatnonzero(~plain)
        if len(unread):
            fields = column.take(to_arrow(unread)).to_pylist()
            for position, value in zip(unread.tolist(), fields, strict=True):
                try:
                    values[position] = float(value)
                except ValueError:
                    errors.add_one(
                        int(rows[position]) + 1,
                        priority,
                        f"{what} '{value}' is not a number ({layout} expected)",
                    )
                    values[position] = 0.0
        infinite = np.flatnonzero(~np.isfinite(values))
        if len(infinite):
            value = column[int(infinite[0])].as_py()
            errors.add_one(int(rows[infinite[0]]) + 1, priority, f"{what} '{value}' is not a finite number")
        return values


def runs(key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each run of equal ``key`` values starts; the runs whose key had a run before (a file and
    channel that come back after another), and for each the first run of its key."""
    run_start = np.flatnonzero(np.diff(key, prepend=-1) != 0)
    run_key = key[run_start]
    keys, first_run = np.unique(run_key, return_index=True)
    earlier = first_run[np.searchsorted(keys, run_key)]
    again = np.flatnonzero(earlier != np.arange(len(run_key)))
    return run_start, again, earlier[again]


class Offences:
    """The input errors of a columnar read: the one sclite's line-by-line reading would meet first
    (the lowest line it is raised at, then the earliest check on that line) is raised."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.found: tuple[int, int, int, str] | None = None  # raised at, check, line named, message

    @property
    def first(self) -> float:
        """The line the first offence so far is raised at (infinity: none)."""
        return self.found[0] if self.found is not None else math.inf

    def add(self, at: np.ndarray, check: int, message: Callable[[int], str]) -> None:
        """Offences raised at the (ascending) lines ``at`` by the check numbered ``check``; only
        the first one's ``message(0)`` is made."""
        if len(at):
            self.add_one(int(at[0]), check, message(0))

    def add_one(self, at: int, check: int, message: str, line: int | None = None) -> None:
        found = (at, check, at if line is None else line, message)
        if self.found is None or found[:2] < self.found[:2]:
            self.found = found

    def raise_first(self) -> None:
        if self.found is not None:
            raise InputError(self.source, self.found[2], self.found[3])


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


def parse_ctm(text: str, source: str, fold: Callable[[str], str] | None = ascii_lower) -> Ctm:
    """The rows and channels of a ctm text, each line folded by ``fold`` first (None: case-sensitive,
    ``-s``); see the module docstring for what is refused (the first offence in file order).

    The fields are cut out of the text's bytes with numpy, numbers parsed by Arrow, and each
    distinct token read once (:func:`parse_token`)."""
    lines = FieldLines(fold_lines(text, fold))
    errors = Offences(source)
    errors.add(lines.nul_lines(), 0, lambda k: "NUL byte in a text file")
    rows = lines.data_lines(";")
    count = lines.counts[rows]
    few, many = count < 5, count > 7
    errors.add(rows[few] + 1, 1, lambda k: f"{count[few][k]} fields: {_FIELDS} expected")
    errors.add(
        rows[many] + 1, 1, lambda k: f"{count[many][k]} fields: at most 7 ({_FIELDS} [CORRECT]) expected"
    )
    good = (count >= 5) & (count <= 7) & (rows + 1 < errors.first)
    rows, count = rows[good], count[good]
    if not len(rows):
        errors.raise_first()
        return Ctm.empty(source)
    number = rows + 1
    files, file_of = lines.distinct(rows, 0)
    names, name_of = lines.distinct(rows, 1)
    tokens, token_of = lines.distinct(rows, 4)
    marker = np.array([_MARKERS.get(ascii_lower(t), WORD) for t in tokens], np.int8)
    kind = marker[token_of] if len(tokens) else np.zeros(0, np.int8)
    # Runs of one file and channel; a pair that comes back after another is refused.
    run_start, again, earlier = runs(file_of * max(len(names), 1) + name_of)
    if len(again):
        first, following = run_start[again[0]], run_start[earlier[0] + 1]
        errors.add_one(
            int(number[first]), 3,
            f"file '{files[file_of[first]]}' channel '{names[name_of[first]]}' already ended on line "
            f"{number[following] - 1}: a ctm must keep each file and channel together",
        )  # fmt: skip
    # Blocks: whether one is open before each row (the last BEGIN or END before it in its run).
    run_of = np.repeat(np.arange(len(run_start)), np.diff(np.append(run_start, len(rows))))
    changes = (kind == BEGIN) | (kind == END)
    last_change = np.maximum.accumulate(np.where(changes, np.arange(len(rows)), -1))
    before = np.concatenate(([-1], last_change[:-1]))
    in_run = before >= run_start[run_of] if len(rows) else np.zeros(0, bool)
    open_before = in_run & (kind[np.maximum(before, 0)] == BEGIN) if len(rows) else in_run
    nested = np.flatnonzero((kind == BEGIN) & open_before)
    errors.add(
        number[nested],
        4,
        lambda k: f"<ALT_BEGIN> inside the block opened on line {number[before[nested[k]]]}",
    )
    stray = np.flatnonzero(((kind == ALTERNATIVE) | (kind == END)) & ~open_before)
    errors.add(
        number[stray], 4,
        lambda k: f"{'<ALT>' if kind[stray[k]] == ALTERNATIVE else '<ALT_END>'} outside an <ALT_BEGIN> block",
    )  # fmt: skip
    run_last = np.append(run_start[1:], len(rows)) - 1
    closing = last_change[run_last] if len(rows) else run_last
    unclosed = np.flatnonzero((closing >= run_start) & (kind[np.maximum(closing, 0)] == BEGIN))
    close_at = np.append(number[run_start[1:]], len(lines) + 1)
    for r in unclosed.tolist():  # raised when the next run begins (or the file ends)
        errors.add_one(
            int(close_at[r]),
            2,
            f"<ALT_BEGIN> without <ALT_END> before line {close_at[r]}",
            int(number[closing[r]]),
        )
    words = np.flatnonzero(kind == WORD)
    begin = np.full(len(rows), np.nan)
    duration = np.full(len(rows), np.nan)
    confidence = np.full(len(rows), np.nan)
    begin[words] = lines.numbers(rows[words], 2, errors, 5, "begin time", _FIELDS)
    duration[words] = lines.numbers(rows[words], 3, errors, 6, "duration", _FIELDS)
    with_confidence = words[count[words] > 5]
    given = with_confidence[~lines.is_na(rows[with_confidence], 5)]
    confidence[given] = lines.numbers(rows[given], 5, errors, 7, "confidence", _FIELDS)
    lines.numbers(rows[words[count[words] > 6]], 6, errors, 8, "correctness flag", _FIELDS)
    errors.raise_first()
    # Each distinct token read once: its word and its sgml form.
    texts: list[str] = []
    index: dict[str, int] = {}

    def number_of(value: str) -> int:
        found = index.get(value)
        if found is None:
            found = index[value] = len(texts)
            texts.append(value)
        return found

    read = [parse_token(t) for t in tokens]
    token_word = np.array([number_of(value) for value, _ in read], np.int64)
    token_tagged = np.array([number_of(tag) if tag is not None else -1 for _, tag in read], np.int64)
    word = np.where(kind == WORD, token_word[token_of] if len(tokens) else 0, -1)
    tagged = np.where(kind == WORD, token_tagged[token_of] if len(tokens) else -1, -1)
    # Items: a word outside a block, or a block from its BEGIN.
    inside = open_before & (kind != BEGIN)
    item_start = np.flatnonzero(~inside)
    item_rows = np.append(item_start, len(rows)).astype(np.int64)
    channel_items = np.append(np.searchsorted(item_start, run_start), len(item_start)).astype(np.int64)
    return Ctm(
        source,
        bool(len(given)),
        texts,
        kind,
        word,
        tagged,
        begin,
        duration,
        confidence,
        number.astype(np.int64),
        item_rows,
        [files[f] for f in file_of[run_start].tolist()],
        [names[c] for c in name_of[run_start].tolist()],
        number[run_start].astype(np.int64),
        channel_items,
    )


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
