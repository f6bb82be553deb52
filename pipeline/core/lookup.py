"""Where each value of an Arrow column stands in a list of known strings, as numpy positions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def positions(values: pa.Array | pa.ChunkedArray, known: Sequence[str] | pa.Array) -> np.ndarray:
    """Each value's position in ``known`` (distinct strings), -1 for a null or a value not there."""
    value_set = known if isinstance(known, pa.Array) else pa.array(list(known), pa.string())
    found = pc.fill_null(pc.index_in(values, value_set=value_set), -1)
    return found.to_numpy(zero_copy_only=False).astype(np.int64)
