"""numpy <-> Arrow through the arrays' buffers: one place for every family's conversions.

pyarrow's own conversions (``pa.array`` of a numpy array or a list, ``Array.to_numpy``) go through its
pandas compatibility layer, which imports pandas (a quarter to half a second of a command's start) the
first time; a command that needs no pandas otherwise builds and reads its columns from their buffers
here. Covered: numeric and bool columns (with nulls from a mask when building; filled when reading),
string columns cut out of one buffer, and the scalars a compute function takes beside its arrays.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_TYPES = {
    np.dtype(np.int64): pa.int64(),
    np.dtype(np.int32): pa.int32(),
    np.dtype(np.float64): pa.float64(),
    np.dtype(np.float32): pa.float32(),
}

_DTYPES = {
    **{arrow: dtype for dtype, arrow in _TYPES.items()},
    pa.uint64(): np.dtype(np.uint64),
    pa.uint32(): np.dtype(np.uint32),
    pa.int8(): np.dtype(np.int8),
    pa.int16(): np.dtype(np.int16),
    pa.uint8(): np.dtype(np.uint8),
    pa.uint16(): np.dtype(np.uint16),
    pa.float32(): np.dtype(np.float32),
}


def to_arrow(values: np.ndarray, kind: pa.DataType | None = None, mask: np.ndarray | None = None) -> pa.Array:
    """A numpy int, float or bool array as Arrow (bools packed), as ``kind`` when given (int64 for int64,
    say: the values are converted to its numpy type first); null where ``mask`` is true."""
    if kind is not None and kind != pa.bool_():
        values = np.asarray(values, dtype=_DTYPES[kind])
    values = np.ascontiguousarray(values)
    validity = None
    if mask is not None and np.any(mask):
        validity = pa.py_buffer(np.packbits(~np.asarray(mask, dtype=bool), bitorder="little"))
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [validity, pa.py_buffer(bits)])
    return pa.Array.from_buffers(_TYPES[values.dtype], len(values), [validity, pa.py_buffer(values)])


def to_numpy(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """An Arrow int, float or bool array without nulls as numpy (a view for numbers; dictionary indices
    are int8 to int64, sort indices uint64)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if array.null_count:
        raise ValueError("to_numpy: the array has nulls")
    buffer = array.buffers()[1]
    if pa.types.is_boolean(array.type):
        if len(array) == 0:
            return np.zeros(0, dtype=bool)
        bits = np.unpackbits(np.frombuffer(buffer, dtype=np.uint8), bitorder="little")
        return bits[array.offset : array.offset + len(array)].astype(bool)
    dtype = _DTYPES[array.type]
    if len(array) == 0:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(buffer, dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


def filled(array: pa.Array | pa.ChunkedArray, fill: float) -> np.ndarray:
    """An Arrow int or float array as a new numpy array, ``fill`` where it is null."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if not array.null_count:
        return to_numpy(array).copy()
    dtype = _DTYPES[array.type]
    values = np.frombuffer(
        array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize
    )
    valid = np.unpackbits(np.frombuffer(array.buffers()[0], dtype=np.uint8), bitorder="little")
    valid = valid[array.offset : array.offset + len(array)].astype(bool)
    return np.where(valid, values, np.asarray(fill).astype(np.result_type(dtype, np.asarray(fill).dtype)))


def scalar(value: str | int) -> pa.Scalar:
    """A string or an int64 scalar, for a compute function's argument beside its arrays (a Python value
    there is converted by pyarrow's pandas layer)."""
    if isinstance(value, str):
        return strings([value])[0]
    return to_arrow(np.array([value], dtype=np.int64))[0]


def ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of ``range(s, s + l)`` for every start and length (int64), without a loop."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.asarray(starts, dtype=np.int64) - (np.cumsum(lengths) - lengths)
    return np.repeat(offsets, lengths) + np.arange(total, dtype=np.int64)


def slices(data: pa.Buffer, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """The strings ``data[starts[k]:ends[k]]`` (byte offsets, ``starts[0] <= ends[0] <= starts[1] <= ...``)
    as a ``string`` array, cut out of ``data`` (already checked as UTF-8, cut at ASCII bytes).

    An array whose offsets alternate start, end, start, ... holds the wanted strings at even positions
    and what lies between them at odd ones: built on ``data`` without a copy, then the even ones taken
    (with 32-bit offsets when ``data`` allows them: the taken array is then a ``string`` array as it is).
    """
    n = len(starts)
    if n == 0:
        return strings([])
    small = data.size < 1 << 31
    offsets = np.empty(2 * n, dtype=np.int32 if small else np.int64)
    offsets[0::2] = starts
    offsets[1::2] = ends
    kind = pa.string() if small else pa.large_string()
    both = pa.Array.from_buffers(kind, 2 * n - 1, [None, pa.py_buffer(offsets), data])
    taken = both.take(to_arrow(np.arange(0, 2 * n - 1, 2, dtype=np.int32 if small else np.int64)))
    return taken if small else taken.cast(pa.string())


def strings(values: list[str]) -> pa.Array:
    """A list of Python strings as a ``string`` array (a few: file names, statistic names)."""
    encoded = [value.encode("utf-8") for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    offsets[1:] = np.cumsum(np.fromiter((len(e) for e in encoded), dtype=np.int64, count=len(encoded)))
    data = pa.py_buffer(b"".join(encoded))
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets), data])


def whole(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    """A table's column as one array: its only chunk as it is (``combine_chunks`` copies even one
    chunk), the chunks concatenated when there are several."""
    if isinstance(column, pa.ChunkedArray):
        return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    return column


def codes(column: pa.ChunkedArray | pa.Array, sort: bool = False) -> tuple[np.ndarray, pa.Array]:
    """Each value's int64 code among the column's distinct values, and those values: numbered in order
    of first appearance, or with ``sort`` in code point order (a column without nulls)."""
    if isinstance(column, pa.ChunkedArray) and column.num_chunks == 0:
        column = pa.array([], column.type)
    encoded = whole(column).dictionary_encode()
    numbers = to_numpy(encoded.indices).astype(np.int64)
    if not sort:
        return numbers, encoded.dictionary
    order = to_numpy(pc.array_sort_indices(encoded.dictionary)).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[numbers], encoded.dictionary.take(to_arrow(order))
