"""Mentions and matches to and from their Arrow tables (schemas ``CLEF_MENTIONS``, ``CLEF_MATCHES``).

Arrow and numpy only (no pandas; conversions through ``pipeline.core.arrays``). A mention's pieces
travel as one list column of ``{start, end}`` structs; in memory they are the flat piece arrays of
:class:`pipeline.clef.reader.Mentions` (one entry per piece, grouped by mention in mention order), so
the conversion is offsets arithmetic, not a loop.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.clef.reader import Mentions
from iescore.pipeline.clef.rules import MatchColumns
from iescore.pipeline.core.arrays import strings, to_arrow, to_numpy
from iescore.schemas import CLEF_MATCHES, CLEF_MENTIONS, EXTENT


def mentions_table(mentions: Mentions) -> pa.Table:
    """One side's mentions as a ``CLEF_MENTIONS`` table (Arrow only: no frame is made)."""
    columns = [_mention_column(mentions, field) for field in CLEF_MENTIONS]
    return pa.Table.from_arrays(columns, schema=CLEF_MENTIONS)


def mentions_from_table(table: pa.Table, side: str) -> Mentions:
    """The :class:`Mentions` of a ``CLEF_MENTIONS`` (or ``CLEF_MATCHES``) table."""
    pieces = table.column("pieces").combine_chunks()
    lengths = to_numpy(pc.list_value_length(pieces)).astype(np.int64)
    flat = pc.list_flatten(pieces)
    rest = table.drop_columns(["pieces"])
    return Mentions(
        side,
        rest,
        np.repeat(to_numpy(rest.column("mention")), lengths),
        to_numpy(flat.field("start")),
        to_numpy(flat.field("end")),
    )


def matches_table(gold: Mentions, system: Mentions, columns: MatchColumns) -> pa.Table:
    """Every gold mention, then every prediction, with its status in each mode (``columns``, from
    ``pipeline.clef.rules.match_columns``), as a ``CLEF_MATCHES`` table: the reader's columns, then
    ``exact`` / ``partner`` (the exact partner's ``mention`` on the other side, -1 when none) /
    ``partner_cui`` (null when none) / ``cui_match`` / ``nbest_match``, ``overlap`` / ``overlap_cui``,
    ``one_to_one`` (-1) with ``one_to_one_chars`` (0 when unpaired), and the pieces."""
    parts = []
    for side, mentions, status, other in (
        ("gold", gold, columns.gold, system),
        ("system", system, columns.system, gold),
    ):
        partner = status["partner"]
        extra = {
            "side": pa.DictionaryArray.from_arrays(
                to_arrow(np.zeros(len(mentions), dtype=np.int32)), strings([side])
            ),
            "partner_cui": other.column("cui").take(to_arrow(partner, mask=partner < 0)),
            **{name: to_arrow(values) for name, values in status.items()},
        }
        parts.append(
            pa.Table.from_arrays(
                [
                    extra[field.name].cast(field.type)
                    if field.name in extra
                    else _mention_column(mentions, field)
                    for field in CLEF_MATCHES
                ],
                schema=CLEF_MATCHES,
            )
        )
    # Two chunks (gold, then system), as a Parquet file of more than one row group reads back.
    return pa.concat_tables(parts)


def _mention_column(mentions: Mentions, field: pa.Field) -> pa.Array:
    """A column of ``CLEF_MENTIONS`` made from ``mentions``: the pieces as a list of extents."""
    if field.name == "pieces":
        offsets = np.concatenate([[0], np.cumsum(mentions.ints("n_pieces"))]).astype(np.int32)
        structs = pa.StructArray.from_arrays(
            [to_arrow(mentions.piece_start, pa.int64()), to_arrow(mentions.piece_end, pa.int64())],
            fields=list(EXTENT),
        )
        return pa.ListArray.from_arrays(to_arrow(offsets), structs, type=field.type)
    column = mentions.key if field.name == "key" else mentions.column(field.name)
    return column.cast(field.type)
