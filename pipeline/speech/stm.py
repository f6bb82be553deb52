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

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.ctm import (
    WORD,
    Ctm,
    FieldLines,
    Offences,
    TimedItem,
    ascii_lower,
    fold_lines,
    runs,
)
from iescore.pipeline.speech.words import parse_items

IGNORE_MARKERS = ("ignore_time_segment_in_scoring", "ignoretimesegmentinscoring")
_FIELDS = "FILE CHANNEL SPEAKER BEGIN END [<LABELS>] TRANSCRIPT"
_HEADER = re.compile(r"^;; (LABEL|CATEGORY) [^\n]*", re.MULTILINE)
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
    """An stm as columns, one entry per segment in file order: ``file``, ``channel``, ``speaker``,
    ``labels`` (as written, or None), ``begin``, ``end``, ``line``, and its transcript's tokens
    ``tokens[token_bounds[k]:token_bounds[k + 1]]``, numbers into ``token_texts`` (tokens as
    written, ``;tags`` included)."""

    source: str
    labels: tuple[Label, ...]
    categories: tuple[Label, ...]
    file: list[str]
    channel: list[str]
    speaker: list[str]
    segment_labels: list[str | None]
    begin: np.ndarray
    end: np.ndarray
    line: np.ndarray
    token_texts: list[str]
    tokens: np.ndarray
    token_bounds: np.ndarray

    def __len__(self) -> int:
        return len(self.file)

    def text(self, k: int) -> str:
        """Segment ``k``'s transcript, its tokens joined by single spaces."""
        texts = self.token_texts
        return " ".join(
            texts[t] for t in self.tokens[self.token_bounds[k] : self.token_bounds[k + 1]].tolist()
        )

    @cached_property
    def ignored(self) -> np.ndarray:
        """Which segments are not scored (a token holding ``IGNORE_TIME_SEGMENT_IN_SCORING``)."""
        marked = np.array(
            [any(m in ascii_lower(t) for m in IGNORE_MARKERS) for t in self.token_texts], bool
        )  # fmt: skip
        if not len(marked):
            return np.zeros(len(self), bool)
        owner = np.repeat(np.arange(len(self)), np.diff(self.token_bounds))
        return np.bincount(owner[marked[self.tokens]], minlength=len(self)) > 0

    @cached_property
    def segments(self) -> tuple[StmSegment, ...]:
        """The segments as objects."""
        return tuple(
            StmSegment(
                self.file[k], self.channel[k], self.speaker[k], float(self.begin[k]), float(self.end[k]),
                self.segment_labels[k], self.text(k), int(self.line[k]),
            )
            for k in range(len(self))
        )  # fmt: skip


def comment_labels(text: str, source: str) -> tuple[tuple[Label, ...], tuple[Label, ...]]:
    """The ``;; LABEL`` and ``;; CATEGORY`` headers of a file (either side), each once.

    A header needs three quoted fields (id, title, description); anything less is an InputError.
    A description is kept as written (``\\\\`` stays two characters, as sclite prints it).
    """
    found: dict[str, dict[tuple[str, str, str], Label]] = {"LABEL": {}, "CATEGORY": {}}
    number, counted = 1, 0
    for match in _HEADER.finditer(text):
        number += text.count("\n", counted, match.start())
        counted = match.start()
        kind, line = match.group(1), match.group()
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
    case-sensitive); see the module docstring for what is refused (the first offence in file
    order). Fields are cut out of the text's bytes as columns (``pipeline.speech.ctm.FieldLines``)."""
    lines = FieldLines(fold_lines(text, fold))
    errors = Offences(source)
    errors.add(lines.nul_lines(), 0, lambda k: "NUL byte in a text file")
    rows = lines.data_lines(";")
    count = lines.counts[rows]
    few = count < 5
    errors.add(rows[few] + 1, 1, lambda k: f"{count[few][k]} fields: {_FIELDS} expected")
    rows, count = rows[~few], count[~few]
    number = rows + 1
    begin = lines.numbers(rows, 3, errors, 5, "begin time", _FIELDS)
    end = lines.numbers(rows, 4, errors, 6, "end time", _FIELDS)
    backwards = np.flatnonzero(end < begin)
    if len(backwards):
        k = int(backwards[0])
        written = lines.strings(rows[k : k + 1], 3) + lines.strings(rows[k : k + 1], 4)
        errors.add_one(int(number[k]), 7, f"end time {written[1]} before begin time {written[0]}")
    first_word = lines.first[rows] + 5
    labelled = np.zeros(len(rows), bool)
    has_sixth = count > 5
    labelled[has_sixth] = lines.raw[lines.starts[first_word[has_sixth]]] == ord("<")
    label_rows = np.flatnonzero(labelled)
    label_texts = lines.strings(rows[label_rows], 5)
    for k, label in zip(label_rows.tolist(), label_texts, strict=True):
        if not label.endswith(">") or len(label) < 2:
            errors.add_one(
                int(number[k]), 8, f"label field '{label}' not closed by '>' (<LABEL,...> expected)"
            )
            break
    first_word = first_word + labelled
    files, file_of = lines.distinct(rows, 0)
    names, name_of = lines.distinct(rows, 1)
    run_start, again, earlier = runs(file_of * max(len(names), 1) + name_of)
    if len(again):
        first, last_of_earlier = run_start[again[0]], run_start[earlier[0] + 1] - 1
        errors.add_one(
            int(number[first]), 9,
            f"file '{files[file_of[first]]}' channel '{names[name_of[first]]}' already ended on line "
            f"{number[last_of_earlier]}: an stm must keep each file and channel together",
        )  # fmt: skip
    new_run = np.zeros(len(rows), bool)
    new_run[run_start] = True
    earlier_begin = np.flatnonzero(~new_run[1:] & (begin[1:] < begin[:-1])) + 1
    if len(earlier_begin):
        k = int(earlier_begin[0])
        errors.add_one(
            int(number[k]), 10,
            f"begin time {lines.strings(rows[k : k + 1], 3)[0]} before the begin of the segment above: "
            "segments of a channel must be in time order",
        )  # fmt: skip
    # The transcript's tokens: fields from the first word to the end of the line.
    token_counts = np.maximum(count - (first_word - lines.first[rows]), 0)
    token_bounds = np.concatenate(([0], np.cumsum(token_counts))).astype(np.int64)
    token_index = np.repeat(first_word, token_counts) + (
        np.arange(token_bounds[-1]) - np.repeat(token_bounds[:-1], token_counts)
    )
    token_texts, tokens = lines.distinct_fields(token_index)
    braced = np.array([("{" in t or "}" in t) for t in token_texts], bool)
    if braced.any():
        owner = np.repeat(np.arange(len(rows)), token_counts)
        for k in np.unique(owner[braced[tokens]]).tolist():
            if number[k] >= errors.first:
                break
            words = " ".join(token_texts[t] for t in tokens[token_bounds[k] : token_bounds[k + 1]].tolist())
            try:
                parse_items(words, source=source, line=int(number[k]))  # unbalanced braces
            except InputError as error:
                errors.add_one(int(number[k]), 11, error.message)
                break
    errors.raise_first()
    segment_labels: list[str | None] = [None] * len(rows)
    for k, label in zip(label_rows.tolist(), label_texts, strict=True):
        segment_labels[k] = label
    speakers, speaker_of = lines.distinct(rows, 2)
    labels_found, categories = comment_labels(text, source)
    return Stm(
        source,
        labels_found,
        categories,
        [files[f] for f in file_of.tolist()],
        [names[c] for c in name_of.tolist()],
        [speakers[s] for s in speaker_of.tolist()],
        segment_labels,
        begin,
        end,
        number.astype(np.int64),
        token_texts,
        tokens,
        token_bounds,
    )


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
    """The scored segments as columns, in scoring order: ``segment`` (the stm segment), ``ids``
    (sclite's ``speaker-NNN``) and the ctm items given to each,
    ``items[item_bounds[k]:item_bounds[k + 1]]`` (numbers of ``ctm``'s items, in file order)."""

    stm: Stm
    ctm: Ctm
    segment: np.ndarray
    ids: list[str]
    items: np.ndarray
    item_bounds: np.ndarray
    warnings: tuple[str, ...]  # sclite's messages on standard error for channels without hypothesis
    ignored_segments: int
    ignored_words: int  # hypothesis words that fell into ignored segments

    @cached_property
    def utterances(self) -> tuple[Utterance, ...]:
        """The scored segments as objects."""
        stm, items = self.stm, self.ctm.items(self.items)
        out = []
        for k, (s, uid) in enumerate(zip(self.segment.tolist(), self.ids, strict=True)):
            given = tuple(items[self.item_bounds[k] : self.item_bounds[k + 1]])
            out.append(
                Utterance(
                    uid, stm.speaker[s], stm.file[s], stm.channel[s], stm.segment_labels[s],
                    float(stm.begin[s]), float(stm.end[s]), stm.text(s), given, int(stm.line[s]), k,
                )
            )  # fmt: skip
        return tuple(out)


def assign(stm: Stm, ctm: Ctm, reduce_ref: bool = False, reduce_hyp: bool = False) -> Assignment:
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

    sclite walks each channel's words with a cursor, giving a segment words while their midpoints
    are before its end. That walk is a merge of the words' midpoints with the segments' ends, and a
    merge depends only on the running maxima of the two sequences: word ``j`` goes to the first
    segment whose running maximum end is above the running maximum midpoint up to ``j``, found for
    every word at once by a binary search.
    """
    warnings: list[str] = []
    rows_word = ctm.kind == WORD
    row_begin = np.where(rows_word, ctm.begin, np.nan)
    row_end = row_begin + ctm.duration
    row_mid = np.where(rows_word, ctm.begin + ctm.duration / 2.0, -np.inf)
    item_first = ctm.item_rows[:-1]
    n_items = len(item_first)
    item_mid = np.maximum.reduceat(row_mid, item_first) if n_items else np.zeros(0)
    item_mid[np.isneginf(item_mid)] = 0.0
    item_words = np.add.reduceat(rows_word.astype(np.int64), item_first) if n_items else np.zeros(0, np.int64)
    segment_parts: list[np.ndarray] = []
    item_parts: list[np.ndarray] = []
    count_parts: list[np.ndarray] = []
    ignored_segments = ignored_words = 0
    n = len(stm)
    key_change = np.ones(n, bool)
    if n:
        key_change[1:] = [
            (a, b) != (c, d)
            for a, b, c, d in zip(stm.file[1:], stm.channel[1:], stm.file[:-1], stm.channel[:-1], strict=True)
        ]
    run_starts = np.flatnonzero(key_change).tolist() + [n]
    position = 0
    channels = len(ctm.channel_files)
    for first, stop_segment in zip(run_starts[:-1], run_starts[1:], strict=True):
        file, channel = stm.file[first], stm.channel[first]
        lo = hi = 0
        if position >= channels:
            warnings.append(
                "align_ctm_to_stm: Hyp files ends before ref but continuing for "
                f"ref file/channel '{file}' '{channel}'."
            )
        elif (ctm.channel_files[position], ctm.channel_names[position]) == (file, channel):
            lo, hi = int(ctm.channel_items[position]), int(ctm.channel_items[position + 1])
            position += 1
        else:
            warnings.append(
                "align_ctm_to_stm: File identifiers do not match but continuing. "
                f"ref file/channel '{file}' '{channel}', next hyp "
                f"'{ctm.channel_files[position]}' '{ctm.channel_names[position]}'."
            )
        run = np.arange(first, stop_segment)
        seg_begin, seg_end = stm.begin[run], stm.end[run]
        scored = np.ones(len(run), bool)
        rows = np.arange(ctm.item_rows[lo], ctm.item_rows[hi])
        words = rows[rows_word[rows]]
        if reduce_ref and len(words):
            start, stop = row_begin[words[0]], row_end[words[-1]]
            scored = ~((start >= seg_end) | (stop <= seg_begin))
        kept = np.ones(hi - lo, bool)
        if reduce_hyp:
            if scored.any():
                span_lo, span_hi = seg_begin[scored].min(), seg_end[scored].max()
                touching = rows_word[rows] & ~((row_begin[rows] > span_hi) | (row_end[rows] < span_lo))
                kept = np.add.reduceat(touching, item_first[lo:hi] - item_first[lo]) > 0 if hi > lo else kept
            else:
                kept[:] = False
        order = np.flatnonzero(scored)
        mids = np.maximum.accumulate(item_mid[lo:hi]) if hi > lo else np.zeros(0)
        stops = np.searchsorted(mids, np.maximum.accumulate(seg_end[order]), "left")
        if len(order) and order[-1] == len(run) - 1:
            stops[-1] = hi - lo
        starts = np.concatenate(([0], stops[:-1])).astype(np.int64)
        local = np.arange(hi - lo)
        owner = np.repeat(np.arange(len(order)), stops - starts)
        taken = kept[local[: len(owner)]] if len(owner) else np.zeros(0, bool)
        given = local[: len(owner)][taken] + lo
        counts = np.bincount(owner[taken], minlength=len(order))
        ignored = stm.ignored[run[order]]
        if ignored.any():
            ignored_segments += int(ignored.sum())
            owner_ignored = ignored[owner[taken]]
            ignored_words += int(item_words[given[owner_ignored]].sum())
            given = given[~owner_ignored]
            counts = counts[~ignored]
        segment_parts.append(run[order][~ignored])
        item_parts.append(given)
        count_parts.append(counts)
    if position < channels:
        raise InputError(
            ctm.source,
            int(ctm.channel_lines[position]),
            f"file '{ctm.channel_files[position]}' channel '{ctm.channel_names[position]}' has no segments "
            f"at this place in the reference {stm.source} (the stm and the ctm must list files and channels "
            "in the same order)",
        )
    segment = np.concatenate(segment_parts) if segment_parts else np.zeros(0, np.int64)
    items = np.concatenate(item_parts) if item_parts else np.zeros(0, np.int64)
    counts = np.concatenate(count_parts) if count_parts else np.zeros(0, np.int64)
    # sclite numbers each speaker's segments in scoring order.
    numbers: dict[str, int] = {}
    ids = []
    for s in segment.tolist():
        speaker = stm.speaker[s]
        k = numbers.get(speaker, 0)
        numbers[speaker] = k + 1
        ids.append(f"{speaker}-{k:03d}")
    item_bounds = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return Assignment(
        stm, ctm, segment.astype(np.int64), ids, items.astype(np.int64), item_bounds, tuple(warnings),
        ignored_segments, ignored_words,
    )  # fmt: skip
