"""Readers of trec_eval's inputs: qrels (``qid iter docno rel``) and runs (``qid Q0 docno rank score tag``).

Fields are separated by any run of white space (C's ``isspace``: space, tab, CR, VT, FF); blank lines
and lines whose first field starts with ``#`` are skipped, as trec_eval 10.0 skips them. Unlike
trec_eval, which stops at the first malformed line with only a line count (``Malformed line 12``) or
silently reads ``rel = atol("x") = 0``, every check here names the file, the line and what was expected:
the wrong number of fields, a relevance that is not an integer, a score that is not a number (NaN is
refused too: it has no place in a ranking), duplicate documents in one query of a run or of the qrels,
an empty run or qrels.

Tokenising is vectorised over the bytes of the file (numpy; no Python loop over lines): the field
boundaries are found once, and each field becomes one Arrow binary array, so a run of a million lines
is read in a fraction of a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
from iescore.pipeline.core.arrays import whole
from iescore.pipeline.core.errors import InputError
from iescore.schemas import TREC_QRELS, TREC_RUN, C

QRELS_FIELDS = ("qid", "iter", "docno", "rel")
RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")
LARGEST_GRADE = 2**31 - 1  # a grade beyond a 32-bit long is refused (trec_eval's long may be 32 bits)

# C's isspace in the "C" locale; newline separates lines, the others separate fields.
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[ord(c) for c in " \t\n\r\v\f"]] = True


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgements: one entry per judged (query, document).

    ``rel`` is the judgement as written: ``>= 0`` a judged grade, negative "in the pool but not judged"
    (trec_eval's infAP convention). ``lines`` are the 1-based line numbers, for messages.
    """

    source: str
    qid: pa.Array
    docno: pa.Array
    rel: np.ndarray
    lines: np.ndarray

    def __len__(self) -> int:
        return len(self.rel)


@dataclass(frozen=True, eq=False)
class Run:
    """A ranked run: one entry per retrieved (query, document) with its score; ``tag`` is the run tag of
    the file's last line (what trec_eval prints as ``runid``). The rank column is read but not used."""

    source: str
    qid: pa.Array
    docno: pa.Array
    score: np.ndarray
    tag: str
    lines: np.ndarray

    def __len__(self) -> int:
        return len(self.score)


def read_qrels(path: str | Path, name: str | None = None) -> Qrels:
    """Read a qrels file (``qid iter docno rel``; ``rel`` an integer, possibly negative); messages name it
    ``name`` (default: ``path``)."""
    source = name or str(path)
    fields, lines = _read_fields(path, source, QRELS_FIELDS, "qrels", (0, 2, 3), {3: pa.int64()})
    rel = _integers(source, fields[3], lines)
    return Qrels(source, fields[0], fields[2], rel, lines)


def read_run(path: str | Path, name: str | None = None) -> Run:
    """Read a run in TREC format (``qid Q0 docno rank score tag``); an empty run is bad input. Messages
    name it ``name`` (default: ``path``)."""
    source = name or str(path)
    fields, lines = _read_fields(
        path, source, RUN_FIELDS, "run", (0, 2, 4, 5), {4: pa.float64()}, trailing=True, last=5
    )
    score = _numbers(source, fields[4], lines)
    tag = fields[5][len(lines) - 1].as_py().decode("utf-8", "replace")
    return Run(source, fields[0], fields[2], score, tag, lines)


def _read_fields(
    path: str | Path,
    source: str,
    names: tuple[str, ...],
    kind: str,
    wanted: tuple[int, ...],
    types: dict[int, pa.DataType],
    trailing: bool = False,
    last: int | None = None,
) -> tuple[list[pa.Array | None], np.ndarray]:
    """The ``wanted`` fields of every line of the file, and each entry's line number. ``last``: a
    field of which only the last line's value is needed (a run's tag): the fast reader takes it from
    the last line alone, so that its column holds that one value at the row of the last line."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise InputError(source, 0, f"cannot read the {kind} file: {error.strerror or error}") from None
    _check_encoding(data, source, kind)
    fast = _csv_fields(data, names, tuple(k for k in wanted if k != last), types)
    if fast is not None:
        fields, lines = fast
        if last is not None and len(lines):
            # A regular file: its last line has every field, one delimiter between them.
            end = len(data) - data.endswith(b"\n")
            final = data[data.rfind(b"\n", 0, end) + 1 : end]
            value = final.split(b"\t" if b"\t" in final else b" ")[last]
            fields[last] = _last_only(value, len(lines))
    else:
        fields, lines = split_fields(data, len(names), source, " ".join(names), trailing, wanted)
    if not len(lines):
        raise InputError(source, 0, f"empty {kind}: no line of the form '{' '.join(names)}'")
    return fields, lines


def _check_encoding(data: bytes, source: str, kind: str) -> None:
    """Refuse, at its first line, a file that is not ASCII/UTF-8 text: a UTF-16 or UTF-32 file (a byte
    order mark, or NUL bytes) would otherwise read as fields of NUL-filled tokens, and a UTF-8 byte order
    mark would become part of the first query id."""
    expected = f"a {kind} file is ASCII or UTF-8 text (convert it, e.g. iconv -f UTF-16 -t UTF-8)"
    for mark, encoding in ((b"\xff\xfe", "UTF-16 (little-endian)"), (b"\xfe\xff", "UTF-16 (big-endian)")):
        if data.startswith(mark):
            raise InputError(source, 1, f"wrong encoding: {encoding} byte order mark; {expected}")
    if data.startswith(b"\xef\xbb\xbf"):
        raise InputError(
            source, 1, f"a UTF-8 byte order mark, which would become part of the first query id; {expected}"
        )
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise InputError(
            source, line, f"wrong encoding: a NUL byte (UTF-16 or UTF-32 text, or binary data?); {expected}"
        )


_IRREGULAR_LINE_START = np.array([ord(c) for c in "\n# \t"], dtype=np.uint8)
#: Bytes looked at a time when checking that a file is regular.
_BLOCK = 1 << 20


def _csv_fields(
    data: bytes, names: tuple[str, ...], wanted: tuple[int, ...], types: dict[int, pa.DataType]
) -> tuple[list[pa.Array | None], np.ndarray] | None:
    """The fields by Arrow's CSV reader (ten times faster) when the file is plainly regular: one space
    (or one tab) between fields, no blank, comment, indented or CR lines; None otherwise, or when Arrow
    refuses it (another number of fields, a bad number), and :func:`split_fields` reads it (and names
    the line at fault)."""
    if not data or data[:1] in (b"#", b"\n", b" ", b"\t") or b"\r" in data:
        return None
    if b"\t" in data:
        delimiter = "\t"
        if b" " in data:
            return None
    else:
        delimiter = " "
    raw = np.frombuffer(data, dtype=np.uint8)
    for start in range(0, len(raw) - 1, _BLOCK):  # a block at a time: no temporary as long as the file
        block = raw[start : start + _BLOCK + 1]
        line_starts = block[1:][block[:-1] == 10]  # the first byte of every line but the first
        if np.isin(line_starts, _IRREGULAR_LINE_START).any():  # a blank, comment or indented line
            return None
    from pyarrow import csv

    columns = [f"f{k}" for k in range(len(names))]
    try:
        table = csv.read_csv(
            pa.py_buffer(data),
            # Small blocks parsed in turn: the parser holds one block's buffers at a time, not several
            # large blocks side by side (a run's memory stays near the size of its columns).
            read_options=csv.ReadOptions(column_names=columns, block_size=1 << 22, use_threads=False),
            parse_options=csv.ParseOptions(
                delimiter=delimiter, quote_char=False, double_quote=False, escape_char=False
            ),
            convert_options=csv.ConvertOptions(
                include_columns=[columns[k] for k in wanted],
                column_types={columns[k]: types.get(k, pa.binary()) for k in wanted},
                null_values=[],
                strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    fields: list[pa.Array | None] = [None] * len(names)
    for k in wanted:
        fields[k] = whole(table.column(columns[k]))
    return fields, np.arange(1, table.num_rows + 1, dtype=np.int64)


def split_fields(
    data: bytes,
    width: int,
    source: str,
    layout: str,
    trailing: bool = False,
    wanted: tuple[int, ...] | None = None,
) -> tuple[list[pa.Array | None], np.ndarray]:
    """The ``width`` white-space separated fields of every line of ``data`` (blank and ``#`` lines skipped)
    as binary arrays, and the 1-based line number of each entry; a line with another number of fields is
    an :class:`InputError` naming ``layout``. With ``trailing``, text after the last field is ignored (a
    run's line, as trec_eval reads it: its own test run ``results.trunc`` has such lines). Only the fields
    in ``wanted`` (default: all) are gathered; the others are ``None``."""
    raw = np.frombuffer(data, dtype=np.uint8)
    if not raw.size:
        return [pa.array([], pa.binary()) for _ in range(width)], np.zeros(0, dtype=np.int64)
    space = _SPACE[raw]
    word = ~space
    before = np.empty_like(space)
    before[0] = True
    before[1:] = space[:-1]
    after = np.empty_like(space)
    after[-1] = True
    after[:-1] = space[1:]
    starts = np.flatnonzero(word & before)
    ends = np.flatnonzero(word & after) + 1
    line_of = np.cumsum(raw == 10, dtype=np.int32)[starts]  # 0-based line of every token
    first = np.ones(len(starts), dtype=bool)
    first[1:] = line_of[1:] != line_of[:-1]
    comment_lines = line_of[first & (raw[starts] == ord("#"))]
    if comment_lines.size:
        keep = ~np.isin(line_of, comment_lines)
        starts, ends, line_of, first = starts[keep], ends[keep], line_of[keep], first[keep]
    line_numbers = line_of[first]
    heads = np.flatnonzero(first)
    counts = np.diff(np.append(heads, len(starts)))
    bad = np.flatnonzero(counts < width if trailing else counts != width)
    if bad.size:
        row = int(bad[0])
        expected = f"at least {width}" if trailing else f"{width}"
        raise InputError(
            source,
            int(line_numbers[row]) + 1,
            f"{int(counts[row])} field(s); expected {expected} separated by white space: {layout}",
        )
    wanted = tuple(range(width)) if wanted is None else wanted
    ragged = trailing and bool((counts != width).any())
    fields = [
        None
        if k not in wanted
        else _gather(raw, starts[heads + k], ends[heads + k])
        if ragged
        else _gather(raw, starts[k::width], ends[k::width])
        for k in range(width)
    ]
    return fields, line_numbers + 1


def _gather(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """One binary array of the byte ranges ``[starts, ends)`` of ``raw`` (one ragged gather)."""
    lengths = ends - starts
    offsets = np.zeros(len(starts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    index = np.arange(offsets[-1], dtype=np.int64) + np.repeat(starts - offsets[:-1], lengths)
    large = offsets[-1] >= 2**31
    kind, offsets = (pa.large_binary(), offsets) if large else (pa.binary(), offsets.astype(np.int32))
    return pa.Array.from_buffers(
        kind, len(starts), [None, pa.py_buffer(offsets), pa.py_buffer(raw[index].tobytes())]
    )


def _last_only(value: bytes, length: int) -> pa.Array:
    """A binary column of ``length`` rows holding ``value`` at its last row (empty before it)."""
    offsets = np.zeros(length + 1, np.int32)
    offsets[-1] = len(value)
    return pa.Array.from_buffers(pa.binary(), length, [None, pa.py_buffer(offsets), pa.py_buffer(value)])


def to_numpy(array: pa.Array, dtype: type) -> np.ndarray:
    """A null-free numeric Arrow array as numpy, without pyarrow's ``to_numpy`` (which imports pandas:
    half a second of every ``iescore trec`` run)."""
    return np.frombuffer(array.buffers()[1], dtype=dtype)[array.offset : array.offset + len(array)]


def from_numpy(values: np.ndarray) -> pa.Array:
    """A numpy int64 array as Arrow (``pa.array`` would import pandas)."""
    values = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)])


def _integers(source: str, column: pa.Array, lines: np.ndarray) -> np.ndarray:
    try:
        if pa.types.is_integer(column.type):
            grades = to_numpy(column.cast(pa.int64()), np.int64)
        else:
            grades = to_numpy(_as_text(column).cast(pa.int64()), np.int64)
        if not len(grades) or np.abs(grades).max() <= LARGEST_GRADE:
            return grades
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    values = []
    for position, value in enumerate(column.to_pylist()):  # only on unusual input ('+1', or bad)
        try:
            number = int(value)
        except ValueError:
            raise InputError(
                source, int(lines[position]), f"relevance {_show(value)} is not an integer"
            ) from None
        if not -LARGEST_GRADE <= number <= LARGEST_GRADE:
            raise InputError(
                source,
                int(lines[position]),
                f"relevance {_show(value)} is out of range (|grade| <= 2^31 - 1)",
            )
        values.append(number)
    return np.array(values, dtype=np.int64)


def _numbers(source: str, column: pa.Array, lines: np.ndarray) -> np.ndarray:
    try:
        if pa.types.is_floating(column.type):
            values = to_numpy(column, np.float64)
        else:
            values = to_numpy(_as_text(column).cast(pa.float64()), np.float64)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        values = None
    if values is not None and not np.isnan(values).any():
        return values
    for position, value in enumerate(column.to_pylist()):
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if number != number:
            raise InputError(source, int(lines[position]), f"score {_show(value)} is not a number")
    raise InputError(source, 0, "scores that are not numbers")  # pragma: no cover


def _show(value: bytes | float) -> str:
    return repr(value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value))


def qrels_table(qrels: Qrels) -> pa.Table:
    """The ``TREC_QRELS`` table of ``qrels`` (ids must be UTF-8 to be a string column)."""
    return pa.Table.from_arrays(
        [
            _text(qrels.source, qrels.qid, "query id", qrels.lines),
            _text(qrels.source, qrels.docno, "docno", qrels.lines),
            from_numpy(qrels.rel),
            from_numpy(qrels.lines),
        ],
        schema=TREC_QRELS,
    )


def run_table(run: Run) -> pa.Table:
    """The ``TREC_RUN`` table of ``run``, its tag in the metadata (``trec_runid``)."""
    table = pa.Table.from_arrays(
        [
            _text(run.source, run.qid, "query id", run.lines),
            _text(run.source, run.docno, "docno", run.lines),
            pa.Array.from_buffers(pa.float64(), len(run.score), [None, pa.py_buffer(run.score)]),
            from_numpy(run.lines),
        ],
        schema=TREC_RUN,
    )
    return table.replace_schema_metadata({**(table.schema.metadata or {}), RUNID_KEY: run.tag.encode()})


def qrels_from_table(table: pa.Table, source: str) -> Qrels:
    """The :class:`Qrels` of a ``TREC_QRELS`` table (``source`` names the original file in messages)."""
    return Qrels(
        source,
        _binary(table.column(C.qid)),
        _binary(table.column(C.docno)),
        _int64(table.column(C.rel)),
        _int64(table.column(C.line)),
    )


def run_from_table(table: pa.Table, source: str) -> Run:
    """The :class:`Run` of a ``TREC_RUN`` table."""
    tag = (table.schema.metadata or {}).get(RUNID_KEY, b"").decode()
    score = whole(table.column(C.score))
    return Run(
        source,
        _binary(table.column(C.qid)),
        _binary(table.column(C.docno)),
        to_numpy(score, np.float64),
        tag,
        _int64(table.column(C.line)),
    )


RUNID_KEY = b"trec_runid"


def _text(source: str, column: pa.Array, what: str, lines: np.ndarray) -> pa.Array:
    try:
        return _as_text(column).cast(pa.string())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    for position, value in enumerate(column.to_pylist()):  # only on bad input: find its line
        try:
            value.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(
                source,
                int(lines[position]),
                f"{what} {value!r} is not UTF-8 text ({error.reason} at byte {error.start + 1})",
            ) from None
    raise InputError(source, 0, f"a {what} is not UTF-8 text")  # pragma: no cover


def _as_text(column: pa.Array) -> pa.Array:
    """A binary column as UTF-8 text (checked), its buffers kept: string for binary, large_string for
    large_binary (a file of more than 2 GiB of one field)."""
    return column.cast(pa.large_string() if pa.types.is_large_binary(column.type) else pa.string())


def _binary(column: pa.ChunkedArray) -> pa.Array:
    return whole(column).cast(pa.binary())


def _int64(column: pa.ChunkedArray) -> np.ndarray:
    """The column as a read-only numpy view of its buffer (nothing writes into a run or qrels)."""
    return to_numpy(whole(column), np.int64)


#: trec_eval 10.0's rel_info formats (``-R``) and results formats (``-T``): which are read here, and why
#: the others are not (None: read).
REL_INFO_FORMATS: dict[str, str | None] = {
    "qrels": None,
    "prefs": "preference judgements (qid iter docno rel_group pref) and the prefs_* measures they feed",
    "qrels_prefs": "qrels read as preferences (every pair of grades a preference) for the prefs_* measures",
    "qrels_jg": "qrels with several judgement groups and the *_avgjg measures averaged over them",
}
RESULTS_FORMATS: dict[str, str | None] = {"trec_results": None}


def check_formats(rel_info_format: str, results_format: str) -> None:
    """Refuse trec_eval's ``-R``/``-T`` formats that are not read here, saying what they are and why;
    ``qrels`` and ``trec_results`` (trec_eval's defaults) are what every reader of this module reads."""
    for option, given, known, kind in (
        ("-R", rel_info_format, REL_INFO_FORMATS, "rel_info"),
        ("-T", results_format, RESULTS_FORMATS, "results"),
    ):
        if given not in known:
            raise InputError(
                option,
                0,
                f"unknown {kind} format {given!r}; trec_eval 10.0 has {', '.join(known)}",
            )
        reason = known[given]
        if reason is not None:
            raise InputError(
                option,
                0,
                f"{given!r} (trec_eval's format for {reason}) is not supported: iescore reads only the "
                "standard qrels (-R qrels: qid iter docno rel) and runs (-T trec_results) that its measures "
                f"are defined on; use trec_eval itself for {given}",
            )
