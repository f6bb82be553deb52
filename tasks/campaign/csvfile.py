"""The project's one CSV writer: an Arrow table as pandas writes it (``DataFrame.to_csv(index=False)``)."""

from __future__ import annotations

import pyarrow as pa

from pipeline.core.lazy import pd

_INTEGER_TYPES = (pa.int8(), pa.int16(), pa.int32(), pa.int64())


def csv_text(table: pa.Table) -> str:
    """``table`` as CSV: ``,`` between fields, ``\\n`` after each row, a null as nothing, strings quoted
    only where they must be. Integer columns stay integers where some values are null (pandas would make
    them floats, written ``3.0``)."""
    integers = dict.fromkeys(_INTEGER_TYPES, pd.Int64Dtype())
    return table.to_pandas(types_mapper=integers.get).to_csv(index=False)
