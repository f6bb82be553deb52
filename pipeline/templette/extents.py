"""Extent normalization: character extents become alignment-column extents (seed 000).

Seed 000, "Example Alignment": reference ``The h- heart of General Motors`` and hypothesis ``A part of
General Motors`` align in six columns; "General Motors" is ``##22#36#`` in the reference and
``##16#30#`` in the hypothesis, and both become columns 4 through 5 -- equal. The unit of a
normalized extent is the alignment column of the document (of the corpus, for unsegmented
hypothesis texts). Like character extents they are half-open: columns 4 through 5 are ``[4, 6)``,
the seed's inclusive ``##4#5#``.

A character extent covers the columns of the words (of its own side) that it overlaps. An extent
that overlaps no word (it covers only punctuation or markup) becomes the empty extent ``[c, c)`` at
the column of the next word, so it still encloses and overlaps nothing by accident.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left, bisect_right
from collections.abc import Mapping

import pyarrow as pa
from iescore.pipeline.templette.model import Extent, Instance, TemplateSet, TextFill
from iescore.schemas import C

SIDES = ("ref", "hyp")


@dataclasses.dataclass
class _WordColumns:
    starts: list[int]
    ends: list[int]
    columns: list[int]
    width: int  # number of columns

    def convert(self, extent: Extent) -> Extent:
        first = bisect_right(self.ends, extent.start)  # first word ending after the start
        last = bisect_left(self.starts, extent.end) - 1  # last word starting before the end
        if first <= last:
            return Extent(self.columns[first], self.columns[last] + 1)
        column = self.columns[first] if first < len(self.columns) else self.width
        return Extent(column, column)


def normalize_extents(
    template_set: TemplateSet,
    alignment: pa.Table,
    side: str,
    doc_offsets: Mapping[str, int] | None = None,
) -> TemplateSet:
    """The template set with every text fill's extents in alignment columns of its side's words.

    ``side`` is ``ref`` or ``hyp``. Without ``doc_offsets`` each document has its own columns (the
    alignment's doc_id). With them (unsegmented hypothesis texts) the columns run through the whole
    corpus: a reference extent is first moved by its document's corpus offset, a hypothesis extent is
    already counted from the start of the corpus (its offset is 0).
    """
    if side not in SIDES:
        raise ValueError(f"side must be ref or hyp, not {side!r}")
    indexes = _indexes(alignment, side, by_document=doc_offsets is None)

    def convert(instance: Instance, fill: TextFill) -> TextFill:
        if doc_offsets is None:
            return _convert_fill(fill, indexes.get(instance.pointer.doc_id), 0)
        return _convert_fill(fill, indexes.get(""), doc_offsets.get(instance.pointer.doc_id, 0))

    return template_set.map_text_fills(convert)


def document_extents(alignment: pa.Table) -> dict[str, tuple[int, int]]:
    """Each document's column range ``[first, last + 1)``: a reference instance set's extent."""
    extents: dict[str, tuple[int, int]] = {}
    for doc_id, column in zip(
        alignment.column(C.doc_id).to_pylist(), alignment.column(C.column).to_pylist(), strict=True
    ):
        start, end = extents.get(doc_id, (column, column + 1))
        extents[doc_id] = (min(start, column), max(end, column + 1))
    return extents


def _indexes(alignment: pa.Table, side: str, by_document: bool) -> dict[str, _WordColumns]:
    doc_ids = alignment.column(C.doc_id).to_pylist() if by_document else None
    columns = alignment.column(C.column).to_pylist()
    starts = alignment.column(f"{side}_start").to_pylist()
    ends = alignment.column(f"{side}_end").to_pylist()
    built: dict[str, _WordColumns] = {}
    for row, column in enumerate(columns):
        key = doc_ids[row] if doc_ids is not None else ""
        index = built.get(key)
        if index is None:
            index = built[key] = _WordColumns([], [], [], 0)
        if starts[row] is not None:
            index.starts.append(starts[row])
            index.ends.append(ends[row])
            index.columns.append(column)
        index.width = max(index.width, column + 1)
    return built


def _convert_fill(fill: TextFill, index: _WordColumns | None, offset: int) -> TextFill:
    if not fill.extents:
        return fill
    if index is None:  # a document without words: nothing to stand on, every extent is empty
        return dataclasses.replace(fill, extents=tuple(Extent(0, 0) for _ in fill.extents))
    return dataclasses.replace(
        fill,
        extents=tuple(index.convert(Extent(e.start + offset, e.end + offset)) for e in fill.extents),
    )
