"""Reading eval.pl's pipe-delimited annotation directories (seed 004, "Tools for Evaluation").

A directory holds one file per report (every file except names starting with ``.`` or ending in
``~``, eval.pl's rule), one mention a line::

    report||Disease_Disorder||CUI||start||end[||start||end ...]

Extra start/end pairs are the pieces of a discontiguous mention; offsets are half-open ``[start, end)``
characters of the report's text. The report comes from the first field, never from the file's name.
Empty lines are skipped. A second line with the same report and offsets replaces the first (eval.pl
keeps mentions in a hash keyed by report and offsets); the replacement is said in the warnings. CUIs
compare case-insensitively (eval.pl lower-cases them); ``CUI-less`` is a value like any other.

Task 2 gold files use the same lines, with the annotators' n-best codes in the CUI field, best first,
separated by single spaces (``report||Abbreviation||C0020538 C0027051||14||17``); a system's line has
one code. See ``data/clef-sample/task2/README.md``.

Where we differ from eval.pl, on purpose: a CRLF line end is read as a line end (eval.pl keeps the CR
in the last offset, which then never equals a gold offset: every exact match of that line fails
silently); offsets must be whole numbers written in digits (eval.pl compares ``abc`` as 0 with a
warning, and ``010`` differs from ``10`` in its exact match but not in its overlap test); a line with
a wrong number of fields is an error even when its extra fields are empty (Perl's ``split`` drops
trailing empty fields, so eval.pl took ``r||D||C||1||5||``); files are read in name order, so which of
two identical mentions in different files is "second" is defined (eval.pl follows ``readdir``); a
one-character file name is read (eval.pl's pattern ``^[^.].*[^~]$`` needs two characters).

Nothing loops over lines: the files' bytes are joined once, line ends and ``||`` separators are found
on them with numpy, the fields are cut out of the one buffer by Arrow (which checks and converts the
offsets), and replaced lines are found by one integer per mention made of its report and offsets
(:func:`mention_codes`; eval.pl's text key is written only when asked for).
Nothing here imports pandas until a frame is asked for.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import ranges, scalar, slices, strings, to_arrow, to_numpy
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.filebytes import digest, read_bytes

GOLD, SYSTEM = "gold", "system"
FORMAT = "report||type||CUI||start||end[||start||end ...]"
_DIGITS = r"^[0-9]{1,18}$"  # int64 holds 18 digits whatever they are
#: The columns of :attr:`Mentions.frame`, in order.
FRAME_COLUMNS = (
    "report",
    "mention",
    "file",
    "line",
    "type",
    "cui",
    "cui_text",
    "codes",
    "key",
    "start",
    "end",
    "n_pieces",
)
_WARNINGS_SHOWN = 20  # replacement warnings written out per directory; the rest are counted
_CHUNK = 1 << 20  # bytes of text compared at a time when looking for line ends and separators


@dataclass
class Mentions:
    """One side's mentions: ``table`` one row per mention, ``piece_*`` one entry per piece.

    ``table`` columns (Arrow): ``report``, ``mention`` (0-based, reading order after replacements),
    ``file`` (the file's name), ``line`` (1-based), ``type``, ``cui`` (lower-cased: what is compared),
    ``cui_text`` (as written), ``codes`` (the field lower-cased: a Task 2 gold line's n-best codes
    separated by spaces, else the CUI alone), ``start`` and ``end`` (of the first and the last piece),
    ``n_pieces`` (int64); ``key`` (the offsets joined by ``-``, eval.pl's key) is the property
    :attr:`key` (a column of ``table`` only when read back from an artifact); ``file`` and ``type``
    are ``deferred`` when read (made by :meth:`column` on demand: matching needs neither). ``piece_mention``,
    ``piece_start``, ``piece_end``: int64 numpy arrays, grouped by mention in mention order. ``frame``
    and ``pieces`` are the same as pandas frames (made on first use: the command never needs them).
    ``warnings``: what was read but said (CRLF line ends, replaced lines), ``file:line: ...``.
    """

    side: str
    table: pa.Table
    piece_mention: np.ndarray
    piece_start: np.ndarray
    piece_end: np.ndarray
    warnings: list[str] = field(default_factory=list)
    deferred: dict[str, Callable[[], pa.Array]] = field(default_factory=dict)

    def __len__(self) -> int:
        return self.table.num_rows

    def column(self, name: str) -> pa.Array:
        """A column of ``table`` (or a deferred one) as one Arrow array (no copy when it is one chunk)."""
        if name not in self.table.column_names and name in self.deferred:
            return self.deferred[name]()
        column = self.table.column(name)
        return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()

    def ints(self, name: str) -> np.ndarray:
        """An int64 column of ``table`` as numpy (a view)."""
        return to_numpy(self.column(name)).astype(np.int64, copy=False)

    @cached_property
    def offsets(self) -> tuple[np.ndarray, np.ndarray]:
        """Every mention's offsets (start, end, start, end, ...) in mention order, and how many each has."""
        offsets = np.empty(2 * len(self.piece_start), dtype=np.int64)
        offsets[0::2], offsets[1::2] = self.piece_start, self.piece_end
        return offsets, self.ints("n_pieces") * 2

    @cached_property
    def key(self) -> pa.Array:
        """eval.pl's key of each mention (the offsets joined by ``-``): the table's ``key`` column when it
        has one, else written from the pieces (the reader leaves it out: matching needs no text)."""
        if "key" in self.table.column_names:
            return self.column("key")
        return offset_keys(*self.offsets)

    @cached_property
    def frame(self) -> Any:
        """``table`` as a pandas DataFrame, with the deferred columns and ``key``, in the order of
        ``FRAME_COLUMNS`` (a table read back from an artifact has them all: its own order)."""
        table = self.table
        if any(name not in table.column_names for name in FRAME_COLUMNS):
            columns = {name: self.key if name == "key" else self.column(name) for name in FRAME_COLUMNS}
            table = pa.table(columns)
        return table.to_pandas()

    @cached_property
    def pieces(self) -> Any:
        """The pieces as a pandas DataFrame: ``mention``, ``start``, ``end``."""
        import pandas as pd

        return pd.DataFrame({"mention": self.piece_mention, "start": self.piece_start, "end": self.piece_end})


def read_mentions(directory: str | Path, side: str, nbest: bool = False, one_code: bool = False) -> Mentions:
    """Every mention of the annotation files in ``directory`` (see the module doc for the format).

    ``nbest``: the CUI field may hold several codes separated by spaces (a Task 2 gold directory), the
    first being compared as the CUI; ``one_code``: a CUI field with a space is an error (a Task 2
    system gives one code per abbreviation). Otherwise the field is one value as written, as in eval.pl.
    Raises :class:`InputError` with file:line for a malformed line, and naming the directory when it
    holds no annotation file.
    """
    directory = Path(directory)
    base_names = annotation_names(directory)
    # Plain strings, not Path objects: 10,000 files make pathlib's parsing a second. A listed name
    # holds no separator, so joining is putting the directory's prefix before it.
    prefix = os.path.join(str(directory), "")
    names = [prefix + name for name in base_names]
    datas = [read_bytes(name) for name in names]
    warnings: list[str] = []
    # One pass over the bytes: each file ends with a line end (one is added when missing), the files are
    # joined, and Arrow checks the UTF-8 of the whole at once (a bad file is then found file by file).
    datas = [data if data.endswith(b"\n") else data + b"\n" for data in datas]
    joined = b"".join(datas)
    # A CR is looked for first (``find`` of one byte is a memchr, a two-byte pattern a slower search).
    if joined.find(b"\r") != -1 and b"\r\n" in joined:
        for index, data in enumerate(datas):
            if b"\r\n" in data:
                first = data[: data.index(b"\r\n")].count(b"\n") + 1
                warnings.append(
                    f"{names[index]}:{first}: CRLF line ends, read as line ends (eval.pl would keep the CR "
                    "in the last offset and miss every exact match of such a line)"
                )
        datas = [data.replace(b"\r\n", b"\n") for data in datas]
        joined = b"".join(datas)
    data = pa.py_buffer(joined)
    try:
        whole = np.array([0, len(joined)], dtype=np.int64)
        pa.Array.from_buffers(pa.large_string(), 1, [None, pa.py_buffer(whole), data]).validate(full=True)
    except pa.ArrowInvalid:
        for name, content in zip(names, datas, strict=True):
            _decode(name, content)
        raise
    file_ends = np.cumsum(np.fromiter((len(d) for d in datas), dtype=np.int64, count=len(datas)))
    del datas
    table, piece_mention, starts, ends, deferred = _parse(
        data,
        np.frombuffer(joined, dtype=np.uint8),
        file_ends,
        names,
        base_names,
        nbest,
        one_code,
        warnings,
        str(directory),
    )
    return Mentions(side, table, piece_mention, starts, ends, warnings, deferred)


def _parse(
    data: pa.Buffer,
    text: np.ndarray,
    file_ends: np.ndarray,
    names: list[str],
    base_names: list[str],
    nbest: bool,
    one_code: bool,
    warnings: list[str],
    directory: str,
) -> tuple[pa.Table, np.ndarray, np.ndarray, np.ndarray, dict[str, Callable[[], pa.Array]]]:
    """The lines of the joined files ``text`` (bytes as uint8, every file ending with a line end) as
    the mentions table of :class:`Mentions` (a later line with the same report and offsets replacing
    an earlier one, said in ``warnings``), each piece's mention, start and end, and the makers of the
    deferred columns. Bad lines raise :class:`InputError`, replaced or not.

    Lines and fields are found on the bytes with numpy (line ends, ``||`` separators), and the fields
    are cut out of the buffer by Arrow (offsets checked and converted by it) without a Python string per
    line.
    """
    line_end = _where(text, 10)
    line_start = np.concatenate([[0], line_end[:-1] + 1]).astype(np.int64)
    # Every file ends with a line end, so file f's last line is the one ending at file_ends[f] - 1.
    last_line = np.searchsorted(line_end, file_ends - 1)
    lines = np.diff(last_line, prepend=-1)
    file_of_line = np.repeat(np.arange(len(file_ends)), lines)
    line_number = np.arange(1, len(line_end) + 1) - np.repeat(last_line - lines + 1, lines)
    keep = line_end > line_start  # empty lines are skipped
    if not keep.all():
        line_start, line_end = line_start[keep], line_end[keep]
        file_of_line, line_number = file_of_line[keep], line_number[keep]

    def fail(row: int, message: str) -> InputError:
        return InputError(names[file_of_line[row]], int(line_number[row]), message)

    # ``||`` separators as Perl's split and Arrow's split_pattern find them: left to right, not
    # overlapping, so a run of k pipes holds k // 2 of them, at its even positions.
    separator = _separators(text)
    counts = np.diff(np.searchsorted(separator, np.concatenate([[-1], line_end]))).astype(np.int64) + 1
    bad = (counts < 5) | (counts % 2 == 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise fail(row, f"expected {FORMAT}: 5, 7, 9, ... fields separated by '||', found {counts[row]}")
    # Line i's separators are separator[first_sep[i]:first_sep[i] + counts[i] - 1]. Its fields 0 to 2
    # end at its first three separators; its offsets (fields 3 on) start after its separators from the
    # third on and end at the next one, the last at the line end. No array per field is made.
    first_sep = np.cumsum(counts - 1) - (counts - 1)
    is_offset = np.ones(len(separator), dtype=bool)
    is_offset[first_sep] = False
    is_offset[first_sep + 1] = False
    offset_start = separator[is_offset] + 2
    is_offset[first_sep + 2] = False
    n_offsets = counts - 3
    last_offset = np.cumsum(n_offsets) - 1
    offset_end = np.empty(len(offset_start), dtype=np.int64)
    ends_at_line = np.zeros(len(offset_start), dtype=bool)
    ends_at_line[last_offset] = True
    offset_end[~ends_at_line] = separator[is_offset]
    offset_end[last_offset] = line_end
    del is_offset, ends_at_line
    offsets = _offsets(data, offset_start, offset_end)
    if offsets is None:  # something else than digits: the first such field is the error
        offset_text = slices(data, offset_start, offset_end)
        digits = to_numpy(pc.match_substring_regex(offset_text, _DIGITS))
        index = int(np.flatnonzero(~digits)[0])
        raise fail(
            int(np.searchsorted(last_offset, index)),
            f"expected an offset, a whole number 0 or more written in digits, found "
            f"{offset_text[index].as_py()!r}",
        )
    decreasing = offsets[1:] < offsets[:-1]
    decreasing[last_offset[:-1]] = False  # from one mention's last offset to the next one's first
    if decreasing.any():
        index = int(np.flatnonzero(decreasing)[0])
        raise fail(
            int(np.searchsorted(last_offset, index)),
            f"expected offsets in increasing order (each piece's start <= end <= the next piece's start), "
            f"found {offsets[index + 1]} after {offsets[index]}",
        )
    field_ends = [separator[first_sep + k] for k in range(3)]
    field_starts = [line_start, field_ends[0] + 2, field_ends[1] + 2]

    def field(k: int, rows: np.ndarray | None = None) -> pa.Array:
        if rows is None or len(rows) == len(line_start):  # every line kept: no rows to pick
            return slices(data, field_starts[k], field_ends[k])
        return slices(data, field_starts[k][rows], field_ends[k][rows])

    # eval.pl keys every mention by its first field: an empty one is a mention of no report.
    empty_report = field_ends[0] == field_starts[0]
    if empty_report.any():
        raise fail(int(np.flatnonzero(empty_report)[0]), f"expected {FORMAT}: the report field is empty")
    if nbest or one_code:  # Task 2's checks of the code field see every line, replaced or not
        checked = _codes(field(2), nbest, one_code, fail)
    report = field(0)
    # A later line with the same report and offsets replaces an earlier one: the last row of each
    # (report, offsets) pair of codes. Only the kept rows' other fields are cut out of the text.
    report_code = to_numpy(pc.dictionary_encode(report).indices).astype(np.int64)
    combined = mention_codes(report_code, offsets, n_offsets)
    kept = np.zeros(len(combined), dtype=bool)
    kept[_last_of_each(combined)] = True
    rows = np.flatnonzero(kept)
    replaced = len(rows) < len(kept)
    picked = rows if replaced else slice(None)  # nothing replaced: the lines' columns as they are
    if replaced:
        warnings += _replaced(
            combined,
            kept,
            report,
            offsets,
            n_offsets,
            names,
            base_names,
            file_of_line,
            line_number,
            directory,
        )
        mask = to_arrow(kept)
        report = report.filter(mask)
        if nbest or one_code:
            checked = tuple(column.filter(mask) for column in checked)
    cui_text, codes, cui = checked if nbest or one_code else _codes(field(2, rows), False, False, fail)
    first = (np.cumsum(n_offsets) - n_offsets)[picked]
    last = first + n_offsets[picked] - 1
    table = pa.table(
        {
            "report": report,
            "mention": to_arrow(np.arange(len(rows), dtype=np.int64)),
            "line": to_arrow(line_number[picked]),
            "cui": cui,
            "cui_text": cui_text,
            "codes": codes,
            "start": to_arrow(offsets[first]),
            "end": to_arrow(offsets[last]),
            "n_pieces": to_arrow(n_offsets[picked] // 2),
        }
    )
    piece_mention = np.repeat(np.arange(len(counts)), n_offsets // 2)
    starts, ends = offsets[0::2], offsets[1::2]
    if replaced:
        kept_pieces = kept[piece_mention]
        piece_mention = (np.cumsum(kept) - 1)[piece_mention[kept_pieces]]
        starts, ends = starts[kept_pieces], ends[kept_pieces]
    # What only the frames show (the stages, the Workbench) is cut out when asked for.
    deferred = {
        "file": lambda: pa.DictionaryArray.from_arrays(
            to_arrow(file_of_line[picked].astype(np.int32)), strings(base_names)
        ).cast(pa.string()),
        "type": lambda: field(1, rows),
    }
    return table, piece_mention, starts.copy(), ends.copy(), deferred


def _codes(cui_text: pa.Array, nbest: bool, one_code: bool, fail: Any) -> tuple[pa.Array, pa.Array, pa.Array]:
    """``cui_text``, ``codes`` (lower-cased; with ``nbest`` trimmed) and ``cui`` (the first code with
    ``nbest``) of the code fields; ``fail(row, message)`` makes the error of a bad one."""
    codes = pc.utf8_lower(cui_text)
    if nbest:
        codes = pc.utf8_trim_whitespace(codes)
        empty = to_numpy(pc.equal(codes, ""))
        if empty.any():
            raise fail(
                int(np.flatnonzero(empty)[0]), "expected the n-best codes, best first, in the CUI field"
            )
        return cui_text, codes, pc.list_element(pc.utf8_split_whitespace(codes), 0)
    if one_code:
        several = to_numpy(pc.match_substring_regex(codes, r"\s"))
        if several.any():
            row = int(np.flatnonzero(several)[0])
            raise fail(row, f"expected one code in the CUI field, found {cui_text[row].as_py()!r}")
    return cui_text, codes, codes


def _replaced(
    combined: np.ndarray,
    kept: np.ndarray,
    report: pa.Array,
    offsets: np.ndarray,
    n_offsets: np.ndarray,
    names: list[str],
    base_names: list[str],
    file_of_line: np.ndarray,
    line_number: np.ndarray,
    directory: str,
) -> list[str]:
    """The warnings for the replaced lines (the first ``_WARNINGS_SHOWN``, then how many more)."""
    shown = np.flatnonzero(~kept)
    first = np.cumsum(n_offsets) - n_offsets
    order = np.argsort(combined, kind="stable")
    ordered = combined[order]
    warnings = []
    for row in shown[:_WARNINGS_SHOWN]:
        report_of = report[int(row)].as_py()
        key_of = "-".join(str(o) for o in offsets[first[row] : first[row] + n_offsets[row]].tolist())
        by = int(order[np.searchsorted(ordered, combined[row], side="right") - 1])
        warnings.append(
            f"{names[file_of_line[row]]}:{line_number[row]}: replaced by "
            f"{base_names[file_of_line[by]]}:{line_number[by]} "
            f"(same report {report_of!r} and offsets {key_of}), as eval.pl does"
        )
    if len(shown) > _WARNINGS_SHOWN:
        warnings.append(f"{directory}: {len(shown) - _WARNINGS_SHOWN} more lines replaced by later ones")
    return warnings


def _separators(text: np.ndarray) -> np.ndarray:
    """Where each ``||`` separator of ``text`` starts (module doc: left to right, not overlapping)."""
    parts = [np.zeros(0, dtype=np.int64)]
    for at in range(0, len(text), _CHUNK):  # each window one byte longer: a pair across the cut is found
        pipe = text[at : at + _CHUNK + 1] == 124
        parts.append(np.flatnonzero(pipe[:-1] & pipe[1:]) + at)
    separator = np.concatenate(parts)
    if not (separator[1:] == separator[:-1] + 1).any():
        return separator
    pipes = _where(text, 124)  # a run of three or more pipes: its even positions, left to right
    new_run = np.ones(len(pipes), dtype=bool)
    new_run[1:] = pipes[1:] != pipes[:-1] + 1
    run = np.cumsum(new_run) - 1
    within = pipes - pipes[new_run][run]
    return pipes[(within % 2 == 0) & (within + 2 <= np.bincount(run)[run])]


def _where(text: np.ndarray, byte: int) -> np.ndarray:
    """The positions of ``byte`` in ``text`` (int64), found a chunk at a time: no mask of the whole text."""
    parts = [np.zeros(0, dtype=np.int64)]
    parts += [np.flatnonzero(text[at : at + _CHUNK] == byte) + at for at in range(0, len(text), _CHUNK)]
    return np.concatenate(parts)


def _offsets(data: pa.Buffer, start: np.ndarray, end: np.ndarray) -> np.ndarray | None:
    """The offset fields ``data[start[k]:end[k]]`` as int64, or None when one is not 1 to 18 digits
    (int64 holds any 18 digits): Arrow checks and converts all the fields at once."""
    length = end - start
    if not len(length):
        return np.zeros(0, dtype=np.int64)
    if int(length.min()) < 1 or int(length.max()) > 18:
        return None
    fields = slices(data, start, end)
    if not pc.all(pc.ascii_is_decimal(fields)).as_py():
        return None
    return to_numpy(pc.cast(fields, pa.int64()))


def offset_codes(offsets: np.ndarray, n_offsets: np.ndarray) -> np.ndarray:
    """One int64 code per mention, equal exactly when the mentions' offsets are (``offsets`` all
    mentions' offsets in order, ``n_offsets`` how many each has), numbered in order of first sight.

    A mention of one piece (most of them) is the integer ``start * top + end``; the others are coded
    among themselves by Arrow's hash of their offsets' bytes and placed above every such integer; the
    integers are then numbered by Arrow's hash. No text is made."""
    values = np.ascontiguousarray(offsets, dtype=np.int64)
    counts = np.asarray(n_offsets, dtype=np.int64)
    top = int(values.max(initial=0)) + 1
    if top >= 1 << 30:  # start * top + end could leave int64: every mention by its bytes
        return _bytes_codes(values, counts)
    first = np.cumsum(counts) - counts
    single = counts == 2
    key = np.empty(len(counts), dtype=np.int64)
    ones = first[single]
    key[single] = values[ones] * top + values[ones + 1]
    if not single.all():
        several = ~single[np.repeat(np.arange(len(counts)), counts)]
        key[~single] = top * top + _bytes_codes(values[several], counts[~single])
    return to_numpy(pc.dictionary_encode(to_arrow(key)).indices).astype(np.int64)


def mention_codes(report: np.ndarray, offsets: np.ndarray, n_offsets: np.ndarray) -> np.ndarray:
    """One int64 code per mention, equal exactly when both the mentions' reports (``report``: integer
    codes 0 or more) and their offsets are (``offsets`` all mentions' offsets in order, ``n_offsets``
    how many each has). The codes are not dense: they are compared and sorted, never counted.

    A mention of one piece (most of them) is the integer ``(report * top + start) * top + end``; the
    others are coded among themselves by Arrow's hash of their offsets' bytes and placed above every
    such integer, with their report. When those integers could leave int64, the codes are made from the
    dense :func:`offset_codes` instead."""
    report = np.asarray(report, dtype=np.int64)
    values = np.ascontiguousarray(offsets, dtype=np.int64)
    counts = np.asarray(n_offsets, dtype=np.int64)
    if len(counts) == 0:
        return np.zeros(0, dtype=np.int64)
    top = int(values.max(initial=0)) + 1
    reports = int(report.max()) + 1
    multi = np.flatnonzero(counts != 2)
    above = reports * top * top  # Python integers: no overflow while deciding
    if not len(values) or above + reports * max(len(multi), 1) >= 1 << 62:
        key = offset_codes(values, counts)
        return report * (int(key.max()) + 1) + key
    first = np.cumsum(counts) - counts
    last = len(values) - 1
    code = (report * top + values[np.minimum(first, last)]) * top + values[np.minimum(first + 1, last)]
    if len(multi):
        several = ranges(first[multi], counts[multi])
        code[multi] = above + report[multi] * len(multi) + _bytes_codes(values[several], counts[multi])
    return code


def _bytes_codes(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """:func:`offset_codes` by Arrow's hash of each mention's offsets as raw bytes (a view of ``values``)."""
    bounds = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts * 8, out=bounds[1:])
    binary = pa.Array.from_buffers(
        pa.large_binary(), len(counts), [None, pa.py_buffer(bounds), pa.py_buffer(values)]
    )
    return to_numpy(pc.dictionary_encode(binary).indices).astype(np.int64)


def offset_keys(offsets: np.ndarray, n_offsets: np.ndarray) -> pa.Array:
    """eval.pl's key of each mention: its offsets joined by ``-``, written from the integers (``010`` is
    ``10``). Offsets repeat (they are positions in a report's text), so Arrow writes each distinct one in
    decimal once, takes it for every occurrence, and joins each mention's list of them."""
    values = np.asarray(offsets, dtype=np.int64)
    bounds = np.zeros(len(n_offsets) + 1, dtype=np.int32)
    np.cumsum(np.asarray(n_offsets, dtype=np.int64), out=bounds[1:])
    distinct = pc.dictionary_encode(to_arrow(values))
    written = distinct.dictionary.cast(pa.string()).take(distinct.indices)
    return pc.binary_join(pa.ListArray.from_arrays(to_arrow(bounds), written), scalar("-"))


def _last_of_each(codes: np.ndarray) -> np.ndarray:
    """The last row of every distinct code, in row order (a stable sort: the codes come nearly sorted)."""
    order = np.argsort(codes, kind="stable")
    ordered = codes[order]
    is_last = np.ones(len(codes), dtype=bool)
    is_last[:-1] = ordered[1:] != ordered[:-1]
    return np.sort(order[is_last], kind="stable")  # nearly sorted: a merge of its runs


def annotation_names(directory: Path) -> list[str]:
    """The annotation files of ``directory`` in name order (not ``.name``, not ``name~``; at least one): their
    names (one ``scandir``, no ``Path`` per file)."""
    if not directory.is_dir():
        raise InputError(str(directory), 0, "expected a directory of annotation files")
    with os.scandir(directory) as entries:
        names = sorted(
            entry.name
            for entry in entries
            if entry.is_file() and not entry.name.startswith(".") and not entry.name.endswith("~")
        )
    if not names:
        raise InputError(
            str(directory),
            0,
            "no annotation files: expected one pipe-delimited file per report (names starting with '.' "
            "or ending in '~' are skipped)",
        )
    return names


def unpaired_reports(gold: str | Path, system: str | Path) -> list[str]:
    """Warnings for the annotation files present in one directory only (by file name), naming the file
    and its directory: eval.pl scores such a report silently (a gold file without its system file counts
    every mention as missed, a system file without its gold file every mention as spurious), and so do
    we, but said. The first ``_WARNINGS_SHOWN`` of each side are named, the rest counted."""
    gold_names, system_names = annotation_names(Path(gold)), annotation_names(Path(system))
    warnings = []
    for directory, names, other, counted in (
        (gold, gold_names, system_names, "missed (no system file of that name)"),
        (system, system_names, gold_names, "spurious (no gold file of that name)"),
    ):
        alone = sorted(set(names) - set(other))
        for name in alone[:_WARNINGS_SHOWN]:
            warnings.append(
                f"{os.path.join(str(directory), name)}: a report file in {directory} only; its mentions "
                f"count as {counted}"
            )
        if len(alone) > _WARNINGS_SHOWN:
            warnings.append(f"{directory}: {len(alone) - _WARNINGS_SHOWN} more report files in it only")
    return warnings


def directory_digest(directory: str | Path, keep: bool = False) -> str:
    """sha256 of an annotation directory: each file's name and the sha256 of its bytes, in name order
    (``keep``: the bytes kept for :func:`read_mentions` in this process, ``pipeline.core.filebytes``).

    The stages key a directory by the same digest (``tasks.clef.stages.directory_spec``), and it enters
    the signature, so a run scores with the same signature in a store or without one.
    """
    prefix = os.path.join(str(directory), "")  # a listed name holds no separator (read_mentions)
    lines = [f"{name}\0{digest(prefix + name, keep)}\n" for name in annotation_names(Path(directory))]
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()


def _decode(name: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(name, line, f"expected UTF-8 text: {error.reason}") from None
