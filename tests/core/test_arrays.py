"""``pipeline.core.arrays.codes``: the codes of a string column, by first appearance or sorted (the
templette score table's keys, MAT's files and tags). Expected codes written out by hand."""

from __future__ import annotations

import pyarrow as pa
from iescore.pipeline.core.arrays import codes


def test_codes_by_first_appearance_and_sorted_across_chunks() -> None:
    column = pa.chunked_array([["b", "a"], ["b", "c", "a"]])
    numbers, names = codes(column)
    # b first (0), a second (1), c third (2).
    assert numbers.tolist() == [0, 1, 0, 2, 1] and names.to_pylist() == ["b", "a", "c"]
    numbers, names = codes(column, sort=True)
    # Sorted: a 0, b 1, c 2.
    assert numbers.tolist() == [1, 0, 1, 2, 0] and names.to_pylist() == ["a", "b", "c"]
    assert str(numbers.dtype) == "int64"


def test_codes_of_an_empty_column() -> None:
    for column in (pa.chunked_array([], pa.string()), pa.array([], pa.string())):
        for sort in (False, True):
            numbers, names = codes(column, sort=sort)
            assert numbers.tolist() == [] and names.to_pylist() == []
