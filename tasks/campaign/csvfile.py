"""The project's one CSV writer: an Arrow table or a DataFrame as pandas writes it (``DataFrame.to_csv``)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.core.text import csv_row_end

_INTEGER_TYPES = (pa.int8(), pa.int16(), pa.int32(), pa.int64())


def csv_text(table: pa.Table) -> str:
    """``table`` as CSV (``frame_csv``). Integer columns stay integers where some values are null (pandas
    would make them floats, written ``3.0``)."""
    integers = dict.fromkeys(_INTEGER_TYPES, pd.Int64Dtype())
    frame = table.to_pandas(types_mapper=integers.get)
    return frame.to_csv(index=False, lineterminator=_row_end(table))


def frame_csv(frame: pd.DataFrame) -> str:
    """``frame`` as CSV: ``,`` between fields, ``\\n`` after each row (``\\r\\n`` when a cell holds a
    carriage return: ``pipeline.core.text.csv_row_end``), a null as nothing, strings quoted where they
    must be, so that every row reads back whole."""
    return frame.to_csv(index=False, lineterminator=csv_row_end(frame))


def _row_end(table: pa.Table) -> str:
    """``csv_row_end`` of ``table`` as pandas would have it, found on the Arrow columns (a search per
    column, not a Python loop over every cell): the text cells are those of its string columns, plain or
    dictionary-encoded."""
    if any("\r" in name for name in table.column_names):
        return "\r\n"
    for column in table.columns:
        kind = column.type
        if pa.types.is_dictionary(kind) and _is_text(kind.value_type):
            column = column.cast(kind.value_type)
        elif not _is_text(kind):
            continue
        if column.null_count < len(column) and pc.any(pc.match_substring(column, "\r")).as_py():
            return "\r\n"
    return "\n"


def _is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)
