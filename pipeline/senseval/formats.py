"""Readers of scorer2's files (seed 003): answer keys, answer files, sense maps, and the filter lists.

Every reader works on whole columns (pyarrow compute), never line by line in Python, so a million-line
answer file reads in a fraction of a second. No input needs to be sorted, and the last line needs no
final newline (scorer2 needs both, and loses instances silently without them). A ``\\r`` before a newline
is taken as part of the newline.

- **Key** (``item instance tag [tag ...]``): fields at blanks; blank lines are skipped. A line with no
  tag, and an instance given twice, are bad input.
- **Answers** (``item instance tag[/weight] ...``): split as scorer2 splits them, so that what scorer2
  scores, and how, does not change: everything from ``!!`` on is a comment; the identifier ends at the
  first two *spaces* (a tab there stays inside the identifier, which then names no instance); the tags
  are separated by spaces or tabs; a tag's weight follows its first ``/`` and is read as C's ``atof``
  reads it (its longest leading number; none: 0). Odd lines are scored as scorer2 scores them, each
  with a warning (``SENSE_ANSWERS.warning``): a blank line, a tab in the identifier, a weight that is
  not a plain number.
- **Sense map** (``sense [b1 parent b2 grandparent ...]``): each branching factor a positive integer,
  no sense given two lines, no parent chain that comes back to a sense (within a line, or through the
  parents' own lines).
- **Filter lists**: ``--instances`` lines ``item instance``; ``--senses``, sense tags separated by blanks.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import filled, scalar, strings, to_arrow, to_numpy, whole
from iescore.pipeline.core.errors import InputError
from iescore.schemas import SENSE_ANSWERS, SENSE_KEY, SENSE_MAP, SENSE_WARNINGS

#: scorer2's comment delimiter: everything from it to the end of the line is ignored.
COMMENT_DELIMITER = "!!"
#: atof's longest leading number (the exponent only when it has digits).
_LEADING_NUMBER = r"^(?P<number>[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)?(?P<tail>.*)$"
_POSITIVE_INTEGER = r"^0*[1-9][0-9]*$"
#: The largest branching factor (a 64-bit integer; a sense has far fewer children).
_LARGEST_FACTOR = 2**62
#: The largest weight: the largest C float (scorer2 holds weights in C floats).
_LARGEST_WEIGHT = float(np.finfo(np.float32).max)
#: Bytes looked at per block when finding separators (a block's temporary arrays are reused, not fresh
#: pages for the whole file).
_BLOCK = 1 << 20
#: A weight Arrow casts as atof reads it.
_PLAIN_NUMBER = r"^(?:[0-9]+\.?[0-9]*|\.[0-9]+)$"


def read_utf8(path: str | Path, encoding: str = "utf-8") -> bytes:
    """A file's bytes as UTF-8 (converted from ``encoding``, checked). A missing or unreadable file, or
    bytes that are not in ``encoding``, are bad input (the line of the first wrong byte)."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise InputError(str(path), 0, f"cannot read the file: {error.strerror or error}") from None
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        raise InputError(str(path), 0, f"unknown encoding {encoding!r}") from None
    try:
        if not utf8:
            return data.decode(encoding).encode("utf-8")
        if not data.isascii():  # ASCII is UTF-8: only other bytes need checking
            data.decode("utf-8")
        return data
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(str(path), line, f"bytes that are not {encoding}: {error.reason}") from None


def read_lines(path: str | Path, encoding: str = "utf-8", data: bytes | None = None) -> pa.StringArray:
    """The lines of a file (or of its ``data``, from :func:`read_utf8`) as one string array (no newline
    characters; a final newline ends the last line, it does not start an empty one). Split by Arrow, not
    by Python: a million lines in a fraction of a second."""
    data = read_utf8(path, encoding) if data is None else data
    whole = _string_array([0, len(data)], data, pa.large_string())
    lines = pc.list_flatten(pc.split_pattern(whole, "\n")).cast(pa.string())
    if len(lines) and lines[-1].as_py() == "":
        lines = lines.slice(0, len(lines) - 1)
    if b"\r" in data:
        lines = pc.utf8_rtrim(lines, characters="\r")
    return lines


def plain_tokens(data: bytes, comments: bool = False) -> tuple[int, pa.StringArray, np.ndarray] | None:
    """The fields of a plain file in one pass over its bytes (numpy), or None when it is not plain.

    Plain: lines end with a newline (the last one may not), fields are separated by one space, and
    there is no blank line, no space at either end of a line, no control character but the newlines
    (and, with ``comments``, no ``!!``). Then every way the readers split a line (at blanks, or at the
    first two spaces as scorer2 splits an answer line) gives these same fields, which are returned as
    (number of lines, the pieces of the file, the line (0-based) of each field): the pieces are the
    fields and the separators after them in turn, the file's own bytes without a copy, so field ``i`` is
    piece ``2 * i``. Files that are not plain are split by Arrow's string kernels, line by line (slower,
    the same fields)."""
    if not data or (comments and b"!!" in data) or len(data) >= 2**31 - 1:
        return None
    if not data.endswith(b"\n"):
        data += b"\n"
    raw = np.frombuffer(data, np.uint8)
    ends = byte_positions(raw, 32, below=True)  # UTF-8 has no byte below 33 inside a character
    ends_with = raw[ends]
    if ends[0] == 0 or np.any((ends_with != 10) & (ends_with != 32)):
        return None  # a blank first, or a control character
    if np.any(ends[1:] == ends[:-1] + 1):
        return None  # two blanks in a row (a blank line...)
    offsets = np.empty(2 * len(ends) + 1, np.int32)
    offsets[0] = 0
    offsets[1::2] = ends
    offsets[2::2] = ends
    offsets[2::2] += 1
    del ends
    pieces = _string_array(offsets, data, pa.string())
    newline = ends_with == 10
    token_line = np.zeros(len(newline), np.int32)
    np.cumsum(newline[:-1], out=token_line[1:])
    return int(newline.sum()), pieces, token_line


def byte_positions(raw: np.ndarray, byte: int, below: bool = False) -> np.ndarray:
    """The positions (int32) in ``raw`` of ``byte`` (``below``: of every byte up to it), found a block at
    a time so that no array as long as the file is made but the positions themselves."""
    found = [
        np.flatnonzero(block <= byte if below else block == byte).astype(np.int32) + np.int32(start)
        for start in range(0, len(raw), _BLOCK)
        for block in (raw[start : start + _BLOCK],)
    ]
    return np.concatenate(found) if found else np.zeros(0, np.int32)


def _string_array(offsets: np.ndarray | list[int], values: bytes | np.ndarray, kind: pa.DataType) -> pa.Array:
    """A string array over ``values`` (UTF-8, checked) cut at ``offsets``, without a copy."""
    width = np.int64 if kind == pa.large_string() else np.int32
    buffers = [None, pa.py_buffer(np.asarray(offsets, dtype=width)), pa.py_buffer(values)]
    return pa.Array.from_buffers(kind, len(offsets) - 1, buffers)


def _first_fields(
    n_lines: int, pieces: pa.StringArray, token_line: np.ndarray
) -> tuple[np.ndarray, np.ndarray, pa.Array, pa.Array, np.ndarray]:
    """From :func:`plain_tokens`: each line's count of fields and its first field's number, its first
    field, its second (null where none), and the numbers of the other fields."""
    counts = np.bincount(token_line, minlength=n_lines).astype(np.int32)
    first = np.zeros(n_lines, np.int32)
    np.cumsum(counts[:-1], out=first[1:])
    item = pieces.take(to_arrow(2 * first))
    second = np.minimum(first + 1, len(token_line) - 1)
    instance = pieces.take(to_arrow(2 * second, mask=counts < 2))
    later = np.ones(len(token_line), dtype=bool)
    later[first] = False
    later[second[counts >= 2]] = False
    return counts, first, item, instance, np.flatnonzero(later).astype(np.int32)


def _plain_lines(
    n_lines: int, pieces: pa.StringArray, token_line: np.ndarray
) -> tuple[pa.Array, pa.Array, pa.ListArray, np.ndarray]:
    """Each line's first field, second field (null where none) and the rest as a list, and its count
    of fields, from :func:`plain_tokens`."""
    counts, first, item, instance, rest = _first_fields(n_lines, pieces, token_line)
    rest_offsets = np.zeros(n_lines + 1, np.int32)
    np.cumsum(np.maximum(counts - 2, 0), out=rest_offsets[1:])
    return (
        item,
        instance,
        pa.ListArray.from_arrays(to_arrow(rest_offsets), pieces.take(to_arrow(2 * rest))),
        counts,
    )


def _plain_answer_fields(
    n_lines: int, pieces: pa.StringArray, token_line: np.ndarray
) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array, np.ndarray, np.ndarray, pa.Array]:
    """An answer file's fields from :func:`plain_tokens`: each line's item and instance (null where
    none), the offsets of each line's tags, the tags (each field from the third on, up to its first
    ``/``), the line of each tag, which tags have a weight (a ``/``), and the weights' text (after the
    ``/``) of those tags. The ``/`` are found in one numpy pass over the file's bytes, and the tags and
    weights cut out of its buffer by offsets, as the fields are."""
    counts, first, item, instance, rest = _first_fields(n_lines, pieces, token_line)
    rest_offsets = np.zeros(n_lines + 1, np.int32)
    np.cumsum(np.maximum(counts - 2, 0), out=rest_offsets[1:])
    bounds = np.frombuffer(pieces.buffers()[1], np.int32, count=len(pieces) + 1)
    start, end = bounds[2 * rest], bounds[2 * rest + 1]
    values = pieces.buffers()[2]
    slashes = byte_positions(np.frombuffer(values, np.uint8), ord("/"))
    at = np.searchsorted(slashes, start)
    slash = slashes[np.minimum(at, len(slashes) - 1)] if len(slashes) else end
    has_weight = (at < len(slashes)) & (slash < end)
    cut = np.where(has_weight, slash, end)
    tags = _every_other(start, cut, values)
    weight_text = _every_other(cut[has_weight] + 1, end[has_weight], values)
    return item, instance, to_arrow(rest_offsets), tags, token_line[rest], has_weight, weight_text


def _every_other(start: np.ndarray, end: np.ndarray, values: pa.Buffer) -> pa.StringArray:
    """The strings ``values[start[i]:end[i]]`` (ranges in increasing order, not overlapping), copied
    into one array by one take."""
    if not len(start):
        return strings([])
    bounds = np.empty(2 * len(start), np.int32)
    bounds[0::2] = start
    bounds[1::2] = end
    pieces = pa.Array.from_buffers(pa.string(), len(bounds) - 1, [None, pa.py_buffer(bounds), values])
    return pieces.take(to_arrow(np.arange(0, len(bounds), 2)))


def read_key(path: str | Path, encoding: str = "utf-8") -> pa.Table:
    """An answer key as a ``SENSE_KEY`` table, in file order (see the module doc for what is refused)."""
    data = read_utf8(path, encoding)
    plain = plain_tokens(data)
    fields = _plain_lines(*plain) if plain else None
    if fields and (fields[3] >= 3).all():
        item, instance, tags, _ = fields
        line_numbers = np.arange(1, len(fields[3]) + 1)
    else:  # not plain, or a line to refuse: split line by line (and name the line)
        lines = read_lines(path, encoding, data)
        tokens = split_blanks(lines)
        counts = to_numpy(pc.list_value_length(tokens))
        keep = counts > 0
        short = np.flatnonzero(keep & (counts < 3))
        if short.size:
            row = int(short[0])
            raise InputError(
                str(path), row + 1, f"'item instance tag [tag ...]' expected, got {lines[row].as_py()!r}"
            )
        line_numbers = np.flatnonzero(keep) + 1
        tokens = tokens.filter(to_arrow(keep))
        item, instance = pc.list_element(tokens, 0), pc.list_element(tokens, 1)
        tags = pc.list_slice(tokens, 2)
    table = pa.Table.from_arrays(
        [item, instance, to_arrow(line_numbers, pa.int64()), tags.cast(SENSE_KEY.field("key_tags").type)],
        schema=SENSE_KEY,
    )
    if not table.num_rows:
        lines = "is empty" if not data else "has only blank lines"
        raise InputError(
            str(path),
            0,
            f"the key {lines}: 'item instance tag [tag ...]' lines expected (nothing to score against)",
        )
    _refuse_repeats(path, table, ("item", "instance"), "instance given again (first on line {first})")
    _refuse_repeated_tags(path, table)
    return table


def _refuse_repeated_tags(path: str | Path, key: pa.Table) -> None:
    """A key line naming a tag twice is bad input: the key's tags are a set (any one is right), and
    scorer2 counts a repeated tag twice in mixed-grained credit (an answer tag above it gets 1/b from
    each copy)."""
    tags = whole(key.column("key_tags"))
    counts = to_numpy(pc.list_value_length(tags))
    if not len(counts) or counts.max() < 2:
        return
    flat = pc.list_flatten(tags)
    owner = to_numpy(pc.list_parent_indices(tags))
    several = counts[owner] > 1  # only lines with two tags or more can repeat one
    codes = to_numpy(pc.dictionary_encode(flat.filter(to_arrow(several))).indices)
    owner = owner[several].astype(np.int64)
    pair = owner * (int(codes.max(initial=0)) + 1) + codes
    _, first = np.unique(pair, return_index=True)
    if len(first) == len(pair):
        return
    repeated = np.setdiff1d(np.arange(len(pair)), first)[0]
    row = int(owner[repeated])
    raise InputError(
        str(path),
        int(key.column("line")[row].as_py()),
        f"tag {flat.filter(to_arrow(several))[int(repeated)].as_py()!r} given twice on this line: each key "
        "tag once expected",
    )


def read_answers(path: str | Path, encoding: str = "utf-8") -> pa.Table:
    """An answer file as a ``SENSE_ANSWERS`` table: every line, in file order, with its warning."""
    data = read_utf8(path, encoding)
    plain = plain_tokens(data, comments=True)
    if plain:  # no comment, no blank line, no tab: no line to warn about but for its weights
        item, instance, offsets, tags, tag_row, has_weight, weight_text = _plain_answer_fields(*plain)
        lines = None
        n_lines = plain[0]
    else:
        lines = read_lines(path, encoding, data)
        n_lines = len(lines)
        commented = pc.greater_equal(pc.find_substring(lines, COMMENT_DELIMITER), 0)
        if pc.any(commented).as_py():
            stripped = pc.replace_substring_regex(
                lines.filter(commented), pattern=COMMENT_DELIMITER + ".*$", replacement=""
            )
            lines = pc.replace_with_mask(lines, commented, stripped)
        parts = pc.split_pattern(lines, pattern=" ", max_splits=2)
        lengths = to_numpy(pc.list_value_length(parts))
        item = pc.list_element(parts, 0)
        instance = _element_or_null(parts, lengths, 1)
        rest = pc.fill_null(_element_or_null(parts, lengths, 2), "")
        tokens = split_blanks(rest)
        halves = pc.split_pattern(pc.list_flatten(tokens), pattern="/", max_splits=1)
        tags = pc.list_element(halves, 0)
        halves_length = to_numpy(pc.list_value_length(halves))
        has_weight = halves_length > 1
        weight_text = _element_or_null(halves, halves_length, 1).filter(to_arrow(has_weight))
        offsets = tokens.offsets
        tag_row = to_numpy(pc.list_parent_indices(tokens))
    # The weights, those of the tags that have one (weight_text) first.
    weighted_value, plain_weight = _plain_weights(weight_text)
    weighted_odd = np.zeros(len(weight_text), dtype=bool)
    other = ~plain_weight
    if other.any():  # C's atof: the longest leading number, in Arrow too (only these few rows)
        number = pc.extract_regex(weight_text.filter(to_arrow(other)), pattern=_LEADING_NUMBER)
        digits = number.field("number")
        weighted_value[other] = pc.cast(
            pc.if_else(pc.equal(digits, ""), "0", digits), pa.float64()
        ).to_numpy()
        weighted_odd[other] = pc.or_(pc.equal(digits, ""), pc.not_equal(number.field("tail"), "")).to_numpy(
            zero_copy_only=False
        )
    untagged = to_numpy(pc.binary_length(tags)) == 0
    if untagged.any():
        tag = int(np.argmax(untagged))
        text = weight_text[int(np.cumsum(has_weight)[tag]) - 1].as_py()
        raise InputError(
            str(path), int(tag_row[tag]) + 1, f"'/{text}' has no tag before its '/': 'tag[/weight]' expected"
        )
    value = np.zeros(len(tags))
    value[has_weight] = weighted_value
    _refuse_weights(path, value, has_weight, tags, tag_row, weight_text, n_lines)
    odd = np.zeros(len(tags), dtype=bool)
    odd[has_weight] = weighted_odd
    weights = to_arrow(value, pa.float64(), mask=~has_weight)
    answer_tags = pa.ListArray.from_arrays(offsets, tags)
    answer_weights = pa.ListArray.from_arrays(offsets, weights)

    warning = np.full(n_lines, None, dtype=object)
    if odd.any():
        rows = tag_row[odd]
        raw = np.asarray(
            weight_text.filter(to_arrow(weighted_odd)).to_numpy(zero_copy_only=False), dtype=object
        )
        for row, text in zip(rows[::-1], raw[::-1], strict=True):  # the first odd weight of a line wins
            warning[row] = f"weight {text!r} is not a number: scorer2 reads it as {_atof(text):g}"
    if lines is not None:
        _warn_blank_and_tabbed(warning, lines, item, instance, tokens)
    return pa.Table.from_arrays(
        [
            to_arrow(np.arange(1, n_lines + 1), pa.int64()),
            item,
            instance,
            answer_tags,
            answer_weights,
            pa.array(warning, pa.string())
            if odd.any() or lines is not None
            else pa.nulls(n_lines, pa.string()),
        ],
        schema=SENSE_ANSWERS,
    )


def _refuse_weights(
    path: str | Path,
    value: np.ndarray,
    has_weight: np.ndarray,
    tags: pa.Array,
    tag_row: np.ndarray,
    weight_text: pa.Array,
    n_lines: int,
) -> None:
    """Weights no answer can mean are bad input: a negative one (a share of an answer cannot be below
    nothing; scorer2 prints a precision above 1 or a negative recall for it), one beyond a C float
    (scorer2 holds weights in C floats: it becomes infinite, and the totals NaN), and a line whose
    weights sum beyond a C float (divided by that sum, every weight becomes 0)."""
    with np.errstate(over="ignore"):
        bad = (value < 0) | np.isinf(value.astype(np.float32))
    if bad.any():
        tag = int(np.argmax(bad))
        text = weight_text[int(np.cumsum(has_weight)[tag]) - 1].as_py()
        what = (
            "is negative: a number from 0 up expected"
            if value[tag] < 0
            else f"is too large: a number up to {_LARGEST_WEIGHT:.7g} expected (weights are C floats, as in "
            "scorer2)"
        )
        raise InputError(
            str(path), int(tag_row[tag]) + 1, f"weight {text!r} of tag {tags[tag].as_py()!r} {what}"
        )
    with np.errstate(over="ignore"):
        line_sums = np.bincount(tag_row, weights=value, minlength=n_lines).astype(np.float32)
    if np.isinf(line_sums).any():
        row = int(np.argmax(np.isinf(line_sums)))
        raise InputError(
            str(path),
            row + 1,
            f"the weights of this line sum beyond {_LARGEST_WEIGHT:.7g}: smaller weights expected "
            "(weights and their sum are C floats, as in scorer2)",
        )


def _warn_blank_and_tabbed(
    warning: np.ndarray, lines: pa.Array, item: pa.Array, instance: pa.Array, tokens: pa.ListArray
) -> None:
    """Set the warning of blank answer lines and of lines with a tab in ``item instance``."""
    untagged = np.flatnonzero(to_numpy(pc.list_value_length(tokens)) == 0)
    blank = untagged[pc.equal(pc.utf8_trim_whitespace(lines.take(pa.array(untagged))), "").to_numpy(False)]
    warning[blank] = (
        "no answer on this line (blank, or only a '!!' comment): scorer2 reports it as an answer for an "
        "instance that does not exist"
    )
    tabbed = np.zeros(len(lines), dtype=bool)
    if pc.any(pc.match_substring(lines, "\t")).as_py():
        identifier = pc.binary_join_element_wise(item, pc.fill_null(instance, ""), "")
        tabbed = to_numpy(pc.match_substring(identifier, "\t"))
    warning[tabbed] = (
        "a tab in 'item instance': scorer2 splits them at spaces only and finds no such instance"
    )


def answer_warnings(answers: pa.Table, path: str | Path, strict: bool = False) -> pa.Table:
    """The warnings of an answer table (``SENSE_WARNINGS``: line, warning); ``strict``: the first one is
    bad input instead."""
    warned = answers.filter(pc.is_valid(answers.column("warning")))
    if strict and warned.num_rows:
        raise InputError(str(path), warned.column("line")[0].as_py(), warned.column("warning")[0].as_py())
    return pa.Table.from_arrays([warned.column("line"), warned.column("warning")], schema=SENSE_WARNINGS)


def read_sense_map(path: str | Path, encoding: str = "utf-8") -> pa.Table:
    """A sense map as a ``SENSE_MAP`` table (blank lines skipped; see the module doc for what is refused)."""
    lines = read_lines(path, encoding)
    tokens = split_blanks(lines)
    counts = to_numpy(pc.list_value_length(tokens))
    keep = counts > 0
    even = np.flatnonzero(keep & (counts % 2 == 0))
    if even.size:
        row = int(even[0])
        raise InputError(
            str(path),
            row + 1,
            f"'sense [b1 parent b2 grandparent ...]' expected (a branching factor then a sense, in pairs), "
            f"got {lines[row].as_py()!r}",
        )
    line_numbers = np.flatnonzero(keep) + 1
    tokens = tokens.filter(to_arrow(keep))
    flat = pc.list_flatten(tokens)
    parent = to_numpy(pc.list_parent_indices(tokens))
    offsets = to_numpy(tokens.offsets).astype(np.int64)
    position = np.arange(len(flat)) - (offsets[parent] - offsets[0])
    is_factor = position % 2 == 1
    factors = flat.filter(to_arrow(is_factor))
    good = to_numpy(pc.match_substring_regex(factors, _POSITIVE_INTEGER))
    if not good.all():
        bad = int(np.flatnonzero(good == False)[0])  # noqa: E712 - numpy comparison
        row = int(parent[is_factor][bad])
        raise InputError(
            str(path),
            int(line_numbers[row]),
            f"branching factor {factors[bad].as_py()!r} of {pc.list_element(tokens, 0)[row].as_py()!r} "
            "is not a positive integer",
        )
    magnitude = to_numpy(pc.cast(factors, pa.float64()))
    if len(magnitude) and magnitude.max() > _LARGEST_FACTOR:
        bad = int(np.argmax(magnitude > _LARGEST_FACTOR))
        row = int(parent[is_factor][bad])
        raise InputError(
            str(path),
            int(line_numbers[row]),
            f"branching factor {factors[bad].as_py()!r} of {pc.list_element(tokens, 0)[row].as_py()!r} "
            f"is too large: a positive integer up to {_LARGEST_FACTOR} expected",
        )
    senses = flat.filter(to_arrow(~is_factor))
    sense_parent = parent[~is_factor]
    ancestor_mask = position[~is_factor] > 0
    sense_offsets = np.concatenate([[0], np.cumsum(np.bincount(sense_parent, minlength=len(tokens)))])
    ancestor_offsets = sense_offsets - np.arange(len(sense_offsets))
    ancestors = senses.filter(to_arrow(ancestor_mask))
    factor_values = pc.cast(factors, pa.int64())
    table = pa.Table.from_arrays(
        [
            pc.list_element(tokens, scalar(0)),
            to_arrow(line_numbers, pa.int64()),
            pa.ListArray.from_arrays(to_arrow(ancestor_offsets, pa.int32()), ancestors),
            pa.ListArray.from_arrays(to_arrow(ancestor_offsets, pa.int32()), factor_values),
        ],
        schema=SENSE_MAP,
    )
    _refuse_repeats(path, table, ("sense",), "sense given a line again (first on line {first})")
    _refuse_cycles(path, table, senses, sense_parent)
    _refuse_wrong_branching(path, line_numbers, senses, sense_parent, ancestor_mask, factor_values)
    return table


def _refuse_wrong_branching(
    path: str | Path,
    line_numbers: np.ndarray,
    senses: pa.Array,
    sense_parent: np.ndarray,
    ancestor_mask: np.ndarray,
    factors: pa.Array,
) -> None:
    """A branching factor is the number of subsenses of the sense after it (seed 003: row 12, key 2.1
    and answer 2 of five subsenses, scores 1/5). A sense given two different factors, or with more
    subsenses in the map than its factor, is bad input: mixed-grained credit for an answer above the
    key would depend on which line is read, or add up to more than 1 over its subsenses."""
    if not ancestor_mask.any():
        return
    codes = to_numpy(pc.dictionary_encode(senses).indices).astype(np.int64)
    at = np.flatnonzero(ancestor_mask)  # each ancestor's place among the senses; its child is just before
    parent, child = codes[at], codes[at - 1]
    factor = to_numpy(factors)
    lines = line_numbers[sense_parent[at]]
    _, first, inverse = np.unique(parent, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    claimed = factor[first][inverse]
    differs = np.flatnonzero(factor != claimed)
    if differs.size:
        row = int(differs[0])
        raise InputError(
            str(path),
            int(lines[row]),
            f"branching factor {factor[row]} of {senses[int(at[row])].as_py()!r} differs from the "
            f"{claimed[row]} given on line {lines[first[inverse[row]]]}: one number of subsenses expected",
        )
    size = int(codes.max()) + 1
    _, pair_first = np.unique(parent * size + child, return_index=True)
    pair_first.sort()  # each (sense, subsense) pair at its first line
    rank = np.zeros(len(parent), np.int64)
    order = pair_first[np.argsort(parent[pair_first], kind="stable")]
    group_start = np.searchsorted(parent[order], parent[order], side="left")
    rank[order] = np.arange(len(order)) - group_start
    over = pair_first[rank[pair_first] >= factor[pair_first]]
    if over.size:
        row = int(over.min())
        raise InputError(
            str(path),
            int(lines[row]),
            f"{senses[int(at[row]) - 1].as_py()!r} is subsense {rank[row] + 1} of "
            f"{senses[int(at[row])].as_py()!r}, whose branching factor is {factor[row]}: at most "
            f"{factor[row]} subsenses expected",
        )


def read_instance_list(path: str | Path, encoding: str = "utf-8") -> pa.Table:
    """An instance filter list: ``item instance`` per line (blank lines skipped), as a table of those two
    columns; any other line is bad input."""
    lines = read_lines(path, encoding)
    tokens = split_blanks(lines)
    counts = to_numpy(pc.list_value_length(tokens))
    wrong = np.flatnonzero((counts != 0) & (counts != 2))
    if wrong.size:
        row = int(wrong[0])
        raise InputError(str(path), row + 1, f"'item instance' expected, got {lines[row].as_py()!r}")
    if not (counts == 2).any():
        raise InputError(str(path), 0, "no instance listed: 'item instance' lines expected")
    tokens = tokens.filter(to_arrow(counts == 2))
    return pa.table({"item": pc.list_element(tokens, 0), "instance": pc.list_element(tokens, 1)})


def read_sense_list(path: str | Path, encoding: str = "utf-8") -> pa.Array:
    """A sense filter list: sense tags separated by blanks or newlines (none listed is bad input: it
    would drop every instance)."""
    senses = pc.unique(pc.list_flatten(split_blanks(read_lines(path, encoding))))
    if not len(senses):
        raise InputError(str(path), 0, "no sense listed: sense tags separated by blanks expected")
    return senses


def split_blanks(lines: pa.Array) -> pa.ListArray:
    """Each line's fields between runs of blanks (space, tab), without empty fields (Arrow's
    whitespace split gives one before leading and after trailing blanks, and one for an empty line)."""
    trimmed = pc.ascii_trim_whitespace(lines)
    tokens = pc.ascii_split_whitespace(trimmed)
    empty = to_numpy(pc.binary_length(trimmed)) == 0
    if not empty.any():
        return tokens
    counts = to_numpy(pc.list_value_length(tokens)).copy()
    keep = np.repeat(~empty, counts)
    counts[empty] = 0
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return pa.ListArray.from_arrays(to_arrow(offsets), pc.list_flatten(tokens).filter(to_arrow(keep)))


def _element_or_null(parts: pa.ListArray, lengths: np.ndarray, index: int) -> pa.Array:
    """``parts[row][index]``, null where the row has no such element."""
    offsets = to_numpy(parts.offsets).astype(np.int64)
    positions = offsets[:-1] - offsets[0] + index
    return pc.list_flatten(parts).take(to_arrow(positions, pa.int64(), mask=lengths <= index))


def _plain_weights(weight_text: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The weights (of the tags that have one) that are plain numbers as Arrow reads them (and as atof
    does), 0 elsewhere, and which ones they are. One cast when every weight is a finite number (the
    usual case), else a regex."""
    try:
        value = to_numpy(pc.cast(weight_text, pa.float64()))
        if np.isfinite(value).all():
            return value.copy(), np.ones(len(value), dtype=bool)
    except pa.ArrowInvalid:
        pass
    plain = to_numpy(pc.match_substring_regex(weight_text, _PLAIN_NUMBER))
    value = np.zeros(len(weight_text))
    value[plain] = to_numpy(pc.cast(weight_text.filter(to_arrow(plain)), pa.float64()))
    return value, plain


def _atof(text: str) -> float:
    """C's ``atof`` of a weight: its longest leading number, else 0."""
    match = re.match(_LEADING_NUMBER, text)
    number = match.group("number") if match else None
    return float(number) if number else 0.0


def _refuse_repeats(path: str | Path, table: pa.Table, columns: tuple[str, ...], message: str) -> None:
    """Bad input when two rows have the same ``columns``: the second one's line, naming the first's."""
    last = whole(table.column(columns[-1]))
    if len(last) < 2 or pc.all(pc.less(last.slice(0, len(last) - 1), last.slice(1))).as_py():
        return  # the last column alone increases (sorted key: instance names that include the item)
    labels = whole(table.column(columns[0]))
    for column in columns[1:]:
        labels = pc.binary_join_element_wise(labels, whole(table.column(column)), scalar("\x00"))
    if len(labels) < 2 or pc.all(pc.less(labels.slice(0, len(labels) - 1), labels.slice(1))).as_py():
        return  # in increasing order (as scorer2 wants its files): no repeat, and no hashing to see it
    encoded = pc.dictionary_encode(labels)
    if len(encoded.dictionary) == len(labels):  # the usual case: one hash pass, no sort
        return
    codes = to_numpy(encoded.indices)
    _, first = np.unique(codes, return_index=True)  # codes are 0..k-1: first[code] is its first row
    repeated = np.flatnonzero(first[codes] != np.arange(len(codes)))
    if repeated.size:
        row = int(repeated[0])
        lines = to_numpy(table.column("line"))
        first_line = int(lines[first[codes[row]]])
        raise InputError(str(path), int(lines[row]), message.format(first=first_line))


def _refuse_cycles(path: str | Path, table: pa.Table, senses: pa.Array, sense_parent: np.ndarray) -> None:
    """A sense map whose parent chains come back to a sense is bad input: within one line (a sense
    named twice), or through the lines of the parents (``a 2 b`` and ``b 2 a``)."""
    codes = to_numpy(pc.dictionary_encode(senses).indices).astype(np.int64)
    pair = np.asarray(sense_parent, dtype=np.int64) * (int(codes.max(initial=0)) + 1) + codes
    _, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    twice = np.flatnonzero(first[inverse.reshape(-1)] != np.arange(len(pair)))
    if twice.size:
        row = int(sense_parent[twice[0]])
        raise InputError(
            str(path),
            int(table.column("line")[row].as_py()),
            f"the parent chain of {table.column('sense')[row].as_py()!r} comes back to "
            f"{senses[int(twice[0])].as_py()!r}: a cycle",
        )
    # Each sense's parent is the first ancestor on its own line; follow parents by doubling: after
    # 2^k steps a chain that has not ended (-1) within len(map) steps goes round a cycle.
    own = whole(table.column("sense"))
    ancestors = whole(table.column("ancestors"))
    has_parent = to_numpy(pc.list_value_length(ancestors)) > 0
    jump = np.full(len(own), -1, dtype=np.int64)
    parents = pc.list_flatten(pc.list_slice(ancestors, 0, 1))
    jump[has_parent] = filled(pc.index_in(parents, value_set=own), -1)
    for _ in range(int(np.ceil(np.log2(len(own) + 1))) + 1):
        jump = np.where(jump >= 0, jump[np.maximum(jump, 0)], -1)
    cyclic = np.flatnonzero(jump >= 0)
    if cyclic.size:
        row = int(cyclic[0])
        raise InputError(
            str(path),
            int(table.column("line")[row].as_py()),
            f"the parent chain of {own[row].as_py()!r} through the parents' own lines comes back to a "
            "sense it passed: a cycle",
        )
