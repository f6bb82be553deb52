"""Segment-time-marked references (NIST ``stm``) and how sclite 2.10 gives them ctm hypothesis words.

An stm line is ``FILE CHANNEL SPEAKER BEGIN END [<LABEL,...>] TRANSCRIPT``; the transcript is written as
in a trn reference (``{ a / b / @ }`` alternations, ``(uh)`` optionally deletable words, ``te-``
fragments) and may be empty. A transcript holding ``IGNORE_TIME_SEGMENT_IN_SCORING`` marks a stretch
of time that is not scored: the hypothesis words given to it vanish. Comment lines start with ``;;``;
two kinds carry data, read from the reference and the hypothesis file alike::

    ;; CATEGORY "1" "Alternations" "Segments W or W/O Alternations"
    ;; LABEL "WA" "With Alt" "Segments Containing Alternations"

(the lur report's label groups; a label id is matched with the segments' ``<o,wa>`` labels).

Reading follows sclite: every line is lower-cased (unless case-sensitive, ``-s``), a word's ``;tag``
suffixes are read as in a ctm (:func:`~iescore.pipeline.speech.ctm.parse_token`), and the file is taken in
order, one run of segments per file and channel. sclite checks nothing; here each of these is an
:class:`~iescore.pipeline.core.errors.InputError` naming the line: fewer than five fields, a time that
is not a number, an end before the begin, a label field not closed by ``>``, unbalanced ``{ }``, a
segment beginning before the one before it in its channel, a file and channel that come back after
another, a malformed ``;; LABEL`` or ``;; CATEGORY`` line (sclite skips it silently).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.ctm import (
    BLANK,
    Channel,
    Ctm,
    TimedItem,
    TimedWord,
    ascii_lower,
    fields_of,
    lines_of,
)
from iescore.pipeline.speech.words import parse_items

IGNORE_MARKERS = ("ignore_time_segment_in_scoring", "ignoretimesegmentinscoring")
_FIELDS = "FILE CHANNEL SPEAKER BEGIN END [<LABELS>] TRANSCRIPT"
_QUOTED = re.compile(r'"([^"]*)"')


@dataclass(frozen=True)
class StmSegment:
    """One stm line: where and who, its time span, its labels as written (``<o,wa>``, or None),
    its transcript (words with their ``;tags``, blanks made single spaces), and its line."""

    file: str
    channel: str
    speaker: str
    begin: float
    end: float
    labels: str | None
    text: str
    line: int

    @property
    def ignored(self) -> bool:
        """A segment whose time is not scored (``IGNORE_TIME_SEGMENT_IN_SCORING``)."""
        folded = self.text.lower()
        return any(marker in folded for marker in IGNORE_MARKERS)


@dataclass(frozen=True)
class Label:
    """A ``;; LABEL`` (or ``;; CATEGORY``) header: id, title, description, as written."""

    id: str
    title: str
    description: str
    line: int


@dataclass(frozen=True)
class Stm:
    source: str
    segments: tuple[StmSegment, ...]
    labels: tuple[Label, ...]
    categories: tuple[Label, ...]


def _number(field: str, what: str, source: str, line: int) -> float:
    try:
        value = float(field)
    except ValueError:
        raise InputError(source, line, f"{what} '{field}' is not a number ({_FIELDS} expected)") from None
    if not math.isfinite(value):
        raise InputError(source, line, f"{what} '{field}' is not a finite number")
    return value


def comment_labels(text: str, source: str) -> tuple[tuple[Label, ...], tuple[Label, ...]]:
    """The ``;; LABEL`` and ``;; CATEGORY`` headers of a file (either side), each once.

    A header needs three quoted fields (id, title, description); anything less is an InputError.
    A description is kept as written (``\\\\`` stays two characters, as sclite prints it).
    """
    found: dict[str, dict[tuple[str, str, str], Label]] = {"LABEL": {}, "CATEGORY": {}}
    for number, line in enumerate(lines_of(text), 1):
        for kind in found:
            if line.startswith(f";; {kind} "):
                fields = _QUOTED.findall(line)
                if len(fields) < 3:
                    raise InputError(
                        source,
                        number,
                        f'{len(fields)} quoted fields: ;; {kind} "ID" "TITLE" "DESCRIPTION" expected',
                    )
                key = (fields[0], fields[1], fields[2])
                found[kind].setdefault(key, Label(*key, number))
    return tuple(found["LABEL"].values()), tuple(found["CATEGORY"].values())


def parse_stm(text: str, source: str, fold: Callable[[str], str] | None = ascii_lower) -> Stm:
    """The segments and label headers of an stm text, each line folded by ``fold`` first (None:
    case-sensitive); see the module docstring for what is refused."""
    segments: list[StmSegment] = []
    ended: dict[tuple[str, str], int] = {}
    key: tuple[str, str] | None = None
    previous_begin = -math.inf
    for number, raw in enumerate(lines_of(text), 1):
        if "\0" in raw:
            raise InputError(source, number, "NUL byte in a text file")
        if not raw.strip(BLANK) or raw.lstrip(BLANK).startswith(";"):
            continue
        line = raw if fold is None else fold(raw)
        fields = fields_of(line, 5)
        if len(fields) < 5:
            raise InputError(source, number, f"{len(fields)} fields: {_FIELDS} expected")
        file, channel, speaker, begin_field, end_field = fields[:5]
        rest = fields[5].strip(BLANK) if len(fields) > 5 else ""
        begin = _number(begin_field, "begin time", source, number)
        end = _number(end_field, "end time", source, number)
        if end < begin:
            raise InputError(source, number, f"end time {end_field} before begin time {begin_field}")
        labels = None
        if rest.startswith("<"):
            parts = fields_of(rest, 1)
            labels, rest = parts[0], (parts[1] if len(parts) > 1 else "")
            if not labels.endswith(">") or len(labels) < 2:
                raise InputError(
                    source, number, f"label field '{labels}' not closed by '>' (<LABEL,...> expected)"
                )
        here = (file, channel)
        if here != key:
            if here in ended:
                raise InputError(
                    source,
                    number,
                    f"file '{file}' channel '{channel}' already ended on line {ended[here]}: "
                    "an stm must keep each file and channel together",
                )
            if key is not None:
                ended[key] = segments[-1].line
            key, previous_begin = here, -math.inf
        if begin < previous_begin:
            raise InputError(
                source,
                number,
                f"begin time {begin_field} before the begin of the segment above: "
                "segments of a channel must be in time order",
            )
        previous_begin = begin
        transcript = " ".join(fields_of(rest))
        parse_items(transcript, source=source, line=number)  # unbalanced braces are an error here
        segments.append(StmSegment(file, channel, speaker, begin, end, labels, transcript, number))
    labels_found, categories = comment_labels(text, source)
    return Stm(source, tuple(segments), labels_found, categories)


# -- giving hypothesis words to segments --------------------------------------------------------------


@dataclass(frozen=True)
class Utterance:
    """A scored reference segment with the hypothesis words it was given.

    ``id`` is sclite's ``speaker-NNN`` (numbered per speaker in scoring order); ``hyp`` holds words and
    ``<ALT_BEGIN>`` choices in file order; ``sequence`` counts scored segments from 0.
    """

    id: str
    speaker: str
    file: str
    channel: str
    labels: str | None
    begin: float
    end: float
    ref_text: str
    hyp: tuple[TimedItem, ...]
    line: int
    sequence: int


@dataclass(frozen=True)
class Assignment:
    utterances: tuple[Utterance, ...]
    warnings: tuple[str, ...]  # sclite's messages on standard error for channels without hypothesis
    ignored_segments: int
    ignored_words: int  # hypothesis words that fell into ignored segments


def _midpoint(item: TimedItem) -> float:
    """Where sclite places an item: a word's midpoint; a block's largest word midpoint (0 if none)."""
    if isinstance(item, TimedWord):
        return item.midpoint
    return max((w.midpoint for w in item.words()), default=0.0)


def _runs(segments: Sequence[StmSegment]) -> list[list[StmSegment]]:
    runs: list[list[StmSegment]] = []
    for segment in segments:
        if runs and (runs[-1][0].file, runs[-1][0].channel) == (segment.file, segment.channel):
            runs[-1].append(segment)
        else:
            runs.append([segment])
    return runs


def _word_count(items: Sequence[TimedItem]) -> int:
    return sum(1 if isinstance(i, TimedWord) else len(i.words()) for i in items)


def _keep_in_time(items: Sequence[TimedItem], begin: float, end: float) -> list[TimedItem]:
    """``-m hyp``: the words that touch ``[begin, end]``; a block stays whole if any of its words does."""
    kept: list[TimedItem] = []
    for item in items:
        words = [item] if isinstance(item, TimedWord) else item.words()
        if any(not (w.begin > end or w.end < begin) for w in words):
            kept.append(item)
    return kept


def assign(
    stm: Stm,
    ctm: Ctm,
    reduce_ref: bool = False,
    reduce_hyp: bool = False,
) -> Assignment:
    """Give each stm segment the ctm words sclite gives it, channel by channel in file order.

    Within a channel a word belongs to the first segment whose end is after the word's midpoint (a
    block: its largest midpoint), so a word before or between segments joins the next segment and a
    word straddling a boundary goes where its midpoint is; the channel's last segment takes every word
    left. Words given to an ignored segment are dropped with it.

    ``reduce_ref`` (``-m ref``) skips the segments that end before the channel's first hypothesis word
    begins or begin after its last word ends; their words then join the next scored segment.
    ``reduce_hyp`` (``-m hyp``) drops the words outside the span of the channel's (kept) segments.

    A stm channel with no ctm words at its place in the ctm is scored against nothing, with sclite's
    warning. A ctm channel left over when the stm has ended is an InputError at its first line
    (sclite stops: "Hyp file has more data than ref file").
    """
    warnings: list[str] = []
    utterances: list[Utterance] = []
    counts: dict[str, int] = {}
    ignored_segments = ignored_words = 0
    channels: list[Channel] = list(ctm.channels)
    position = 0
    for run in _runs(stm.segments):
        first = run[0]
        items: Sequence[TimedItem] = ()
        if position >= len(channels):
            warnings.append(
                "align_ctm_to_stm: Hyp files ends before ref but continuing for "
                f"ref file/channel '{first.file}' '{first.channel}'."
            )
        elif (channels[position].file, channels[position].channel) == (first.file, first.channel):
            items = channels[position].items
            position += 1
        else:
            hyp = channels[position]
            warnings.append(
                "align_ctm_to_stm: File identifiers do not match but continuing. "
                f"ref file/channel '{first.file}' '{first.channel}', next hyp '{hyp.file}' '{hyp.channel}'."
            )
        scored = [True] * len(run)
        words = [w for item in items for w in ([item] if isinstance(item, TimedWord) else item.words())]
        if reduce_ref and words:
            start, stop = words[0].begin, words[-1].end
            scored = [not (start >= s.end or stop <= s.begin) for s in run]
        kept_items: Sequence[TimedItem] = items
        if reduce_hyp:
            spans = [s for s, keep in zip(run, scored, strict=True) if keep]
            if spans:
                kept_items = _keep_in_time(items, min(s.begin for s in spans), max(s.end for s in spans))
            else:
                kept_items = []
        kept_ids = {id(item) for item in kept_items}
        cursor = 0
        for index, segment in enumerate(run):
            if not scored[index]:
                continue
            if index == len(run) - 1:
                stop = len(items)
            else:
                stop = cursor
                while stop < len(items) and _midpoint(items[stop]) < segment.end:
                    stop += 1
            given = [item for item in items[cursor:stop] if id(item) in kept_ids]
            cursor = stop
            if segment.ignored:
                ignored_segments += 1
                ignored_words += _word_count(given)
                continue
            number = counts.get(segment.speaker, 0)
            counts[segment.speaker] = number + 1
            utterances.append(
                Utterance(
                    f"{segment.speaker}-{number:03d}",
                    segment.speaker,
                    segment.file,
                    segment.channel,
                    segment.labels,
                    segment.begin,
                    segment.end,
                    segment.text,
                    tuple(given),
                    segment.line,
                    len(utterances),
                )
            )
    if position < len(channels):
        extra = channels[position]
        raise InputError(
            ctm.source,
            extra.line,
            f"file '{extra.file}' channel '{extra.channel}' has no segments at this place in the reference "
            f"{stm.source} (the stm and the ctm must list files and channels in the same order)",
        )
    return Assignment(tuple(utterances), tuple(warnings), ignored_segments, ignored_words)
