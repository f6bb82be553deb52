"""The project's one CSV writer: an Arrow table or a DataFrame as pandas writes it (``DataFrame.to_csv``)."""

from __future__ import annotations

import pyarrow as pa
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.core.text import csv_row_end

_INTEGER_TYPES = (pa.int8(), pa.int16(), pa.int32(), pa.int64())


def csv_text(table: pa.Table) -> str:
    """``table`` as CSV (``frame_csv``). Integer columns stay integers where some values are null (pandas
    would make them floats, written ``3.0``)."""
    integers = dict.fromkeys(_INTEGER_TYPES, pd.Int64Dtype())
    return frame_csv(table.to_pandas(types_mapper=integers.get))


def frame_csv(frame: pd.DataFrame) -> str:
    """``frame`` as CSV: ``,`` between fields, ``\\n`` after each row (``\\r\\n`` when a cell holds a
    carriage return: ``pipeline.core.text.csv_row_end``), a null as nothing, strings quoted where they
    must be, so that every row reads back whole."""
    return frame.to_csv(index=False, lineterminator=csv_row_end(frame))
