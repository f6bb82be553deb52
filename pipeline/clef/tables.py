"""Mentions and matches to and from their Arrow tables (schemas ``CLEF_MENTIONS``, ``CLEF_MATCHES``).

pandas is imported only where a frame is made (the command reads and matches without it). A mention's
pieces travel as one list column of ``{start, end}`` structs; in memory they are the flat
``pieces`` frame of :class:`pipeline.clef.reader.Mentions` (one row per piece, grouped by mention in
mention order), so the conversion is offsets arithmetic, not a loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.clef.reader import Mentions
from schemas import CLEF_MATCHES, CLEF_MENTIONS, EXTENT


def mentions_table(mentions: Mentions) -> pa.Table:
    """One side's mentions as a ``CLEF_MENTIONS`` table."""
    return _with_pieces(mentions.frame, mentions.pieces, CLEF_MENTIONS)


def mentions_from_table(table: pa.Table, side: str) -> Mentions:
    """The :class:`Mentions` of a ``CLEF_MENTIONS`` (or ``CLEF_MATCHES``) table."""
    pieces = table.column("pieces").combine_chunks()
    lengths = pc.list_value_length(pieces).to_numpy(zero_copy_only=False).astype(np.int64)
    flat = pc.list_flatten(pieces)
    rest = table.drop_columns(["pieces"])
    return Mentions(
        side,
        rest,
        np.repeat(rest.column("mention").to_numpy(), lengths),
        flat.field("start").to_numpy(zero_copy_only=False),
        flat.field("end").to_numpy(zero_copy_only=False),
    )


def matches_table(matches: Any, gold: Mentions, system: Mentions) -> pa.Table:
    """The match frame of ``pipeline.clef.rules.match_mentions`` (pandas) as a ``CLEF_MATCHES`` table."""
    import pandas as pd

    offset = len(gold.frame)
    pieces = pd.concat(
        [gold.pieces, system.pieces.assign(mention=system.pieces["mention"].to_numpy() + offset)],
        ignore_index=True,
    )
    return _with_pieces(matches, pieces, CLEF_MATCHES)


def _with_pieces(frame: Any, pieces: Any, schema: pa.Schema) -> pa.Table:
    counts = frame["n_pieces"].to_numpy(dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    structs = pa.StructArray.from_arrays(
        [pa.array(pieces["start"].to_numpy(np.int64)), pa.array(pieces["end"].to_numpy(np.int64))],
        fields=list(EXTENT),
    )
    columns = {}
    for field in schema:
        if field.name == "pieces":
            columns[field.name] = pa.ListArray.from_arrays(pa.array(offsets), structs, type=field.type)
        else:
            columns[field.name] = pa.Array.from_pandas(frame[field.name], type=field.type)
    return pa.Table.from_pydict(columns, schema=schema)
