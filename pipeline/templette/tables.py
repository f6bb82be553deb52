"""Domain objects to Arrow tables and back, in the columns ``schemas`` defines.

Stages hand each other tables; the scorer works on dataclasses. These functions are the only bridge,
and they round-trip: ``template_set_from_table(template_set_to_table(t))`` gives ``t`` back.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
from iescore.pipeline.core.documents import Corpus, Document, Section
from iescore.pipeline.core.measures import Counts
from iescore.pipeline.templette.model import (
    Extent,
    Fill,
    Instance,
    Pointer,
    PointerFill,
    SetFill,
    Slot,
    TemplateSet,
    TextFill,
)
from iescore.pipeline.templette.scoring import Scoring
from iescore.pipeline.templette.templates import render_fill
from iescore.schemas import DOCUMENTS, FILLS, MAPPING, TALLIES, C, table_from_rows

SOURCE_KEY = b"source"


def corpus_to_table(corpus: Corpus) -> pa.Table:
    """The ``documents`` artifact of a corpus; the tag names and source travel in the metadata."""
    rows = [
        {
            C.doc_id: d.doc_id,
            C.text: d.text,
            C.doc_offset: d.offset,
            C.doc_line: d.line,
            C.sections: [vars(s) for s in d.sections],
        }
        for d in corpus.documents
    ]
    table = table_from_rows(rows, DOCUMENTS)
    return _with_metadata(
        table, {"source": corpus.source, "doc_tag": corpus.doc_tag, "docid_tag": corpus.docid_tag}
    )


def corpus_from_table(table: pa.Table) -> Corpus:
    meta = _metadata(table)
    documents = tuple(
        Document(
            row[C.doc_id],
            row[C.text],
            row[C.doc_offset],
            row[C.doc_line],
            tuple(Section(**section) for section in row[C.sections] or ()),
        )
        for row in table.to_pylist()
    )
    return Corpus(
        documents, meta.get("source", ""), meta.get("doc_tag", "DOC"), meta.get("docid_tag", "DOCNO")
    )


def template_set_to_table(template_set: TemplateSet) -> pa.Table:
    """The ``fills`` artifact: one row per single fill (a slotless instance is one row).

    Rows are tuples in the schema's column order, turned into columns once (:func:`_table`).
    """
    rows: list[tuple[Any, ...]] = []
    append = rows.append
    for instance in template_set.instances:
        pointer = instance.pointer
        head = (pointer.doc_id, pointer.type, pointer.one_up, instance.line, instance.optional)
        if not instance.slots:
            append(head + _NO_SLOT)
        for slot in instance.slots:
            slot_head = head + (slot.name, slot.line, slot.optional)
            for a, alternative in enumerate(slot.alternatives):
                for i, fill in enumerate(alternative):
                    append(slot_head + (a, i, fill.kind, fill.line) + _fill_values(fill))
    return _with_metadata(_table(rows, FILLS), {"source": template_set.source})


def template_set_from_table(table: pa.Table) -> TemplateSet:
    """Rebuild the template set; text fills carry the normalized contents (what the scorer compares).

    The table is read a column at a time (one Python list per column, no dict per row); each row's
    fill is built from the columns of its kind, each instance's pointer once.
    """
    column = {name: table.column(name).to_pylist() for name in table.column_names}
    fills = _fills_of_columns(column)
    instances: dict[tuple[str, str, str], tuple[Pointer, int, dict[str, Any]]] = {}
    rows = zip(
        column[C.instance_type],
        column[C.doc_id],
        column[C.one_up],
        column[C.instance_line],
        column[C.slot],
        column[C.slot_line],
        column[C.slot_optional],
        column[C.alternative],
        column[C.fill_index],
        fills,
        strict=True,
    )
    for instance_type, doc_id, one_up, instance_line, name, slot_line, slot_optional, a, i, fill in rows:
        key = (instance_type, doc_id, one_up)
        instance = instances.get(key)
        if instance is None:
            instance = instances[key] = (Pointer(instance_type, doc_id, one_up), instance_line, {})
        if name is None:
            continue
        slots = instance[2]
        slot = slots.get(name)
        if slot is None:
            slot = slots[name] = (slot_line, slot_optional, {})
        slot[2].setdefault(a, []).append((i, fill))
    built = []
    for pointer, line, slots in instances.values():
        built_slots = tuple(
            Slot(
                name,
                tuple(
                    tuple(fill for _, fill in sorted(alternative, key=_first))
                    for _, alternative in sorted(alternatives.items())
                ),
                slot_line,
                slot_optional,
            )
            for name, (slot_line, slot_optional, alternatives) in slots.items()
        )
        built.append(Instance(pointer, built_slots, line))
    return TemplateSet(tuple(built), _metadata(table).get("source", ""))


def _first(item: tuple[int, Fill]) -> int:
    return item[0]


def _fills_of_columns(column: dict[str, list[Any]]) -> list[Fill | None]:
    """The single fill of every row of a ``fills`` table read as columns (None for a slotless row)."""
    fills: list[Fill | None] = []
    append = fills.append
    rows = zip(
        column[C.kind],
        column[C.line],
        column[C.content],
        column[C.quoted],
        column[C.norm_content],
        column[C.norm_min_contents],
        column[C.max_start],
        column[C.max_end],
        column[C.min_extents],
        column[C.target_type],
        column[C.target_doc_id],
        column[C.target_one_up],
        strict=True,
    )
    for kind, line, content, quoted, norm, norm_min, start, end, minimal, target, target_doc, one_up in rows:
        if kind == "pointer":
            append(PointerFill(Pointer(target, target_doc, one_up), line))
        elif kind == "set":
            append(SetFill(content, bool(quoted), line))
        elif kind is None:
            append(None)
        else:
            extents: tuple[Extent, ...] = ()
            if start is not None:
                extents = (Extent(start, end),)
                if minimal:
                    extents += tuple(Extent(e["start"], e["end"]) for e in minimal)
            append(TextFill(content, extents, bool(quoted), line, norm, tuple(norm_min or ())))
    return fills


def scoring_to_tables(scoring: Scoring) -> tuple[pa.Table, pa.Table]:
    """The ``mapping`` and ``tallies`` artifacts of a scoring.

    Mapping rows are tuples of its columns but ``points``; every point goes to three flat lists
    (aspect, category, reason) in row order, which make the ``points`` column (a list per row) and,
    with the columns of each point's row, the ``tallies`` (one row per point, in the same order).
    """
    mapping: list[tuple[Any, ...]] = []
    aspects: list[str] = []
    categories: list[str] = []
    reasons: list[str] = []
    offsets = [0]
    rendered: dict[Pointer, str] = {}

    def render(pointer: Pointer | None) -> str | None:
        if pointer is None:
            return None
        text = rendered.get(pointer)
        if text is None:
            text = rendered[pointer] = pointer.render()
        return text

    for pairing in scoring.instances:
        point = pairing.point
        mapping.append(
            ("instance", pairing.doc_id, pairing.instance_type, None, render(pairing.ref),
             render(pairing.hyp)) + _NO_FILL_PAIRING + _counts(pairing.counts)
        )  # fmt: skip
        aspects.append(point.aspect)
        categories.append(point.category)
        reasons.append(point.reason)
        offsets.append(len(aspects))
        for fill in pairing.fills:
            ref_fill, hyp_fill = fill.ref_fill, fill.hyp_fill
            mapping.append(
                ("fill", fill.doc_id, fill.instance_type, fill.slot, render(fill.ref_instance),
                 render(fill.hyp_instance), fill.ref_alternative, ref_fill.line if ref_fill else None,
                 hyp_fill.line if hyp_fill else None, (ref_fill or hyp_fill).kind,  # type: ignore[union-attr]
                 render_fill(ref_fill) if ref_fill else None, render_fill(hyp_fill) if hyp_fill else None)
                + _maximal(ref_fill) + _maximal(hyp_fill) + _counts(fill.counts)
            )  # fmt: skip
            for p in fill.points:
                aspects.append(p.aspect)
                categories.append(p.category)
                reasons.append(p.reason)
            offsets.append(len(aspects))
    if not mapping:
        return MAPPING.empty_table(), TALLIES.empty_table()
    columns = [MAPPING.field(name) for name in MAPPING.names if name != C.points]
    arrays = {
        f.name: pa.array(values, type=f.type)
        for values, f in zip(zip(*mapping, strict=True), columns, strict=True)
    }
    points_type = MAPPING.field(C.points).type
    aspect_array = pa.array(aspects, pa.string())
    category_array = pa.array(categories, pa.string())
    points = pa.StructArray.from_arrays(
        [aspect_array, category_array, pa.array(reasons, pa.string())], fields=list(points_type.value_type)
    )
    arrays[C.points] = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), points, type=points_type)
    table = pa.Table.from_arrays([arrays[name] for name in MAPPING.names], schema=MAPPING)
    # Each point's row of the mapping: the row whose offsets hold it.
    parents = pa.array(np.repeat(np.arange(len(mapping)), np.diff(np.asarray(offsets))), pa.int64())
    inherited = (C.doc_id, C.instance_type, C.slot, C.ref_instance, C.hyp_instance, C.ref_line, C.hyp_line)
    from_row = {name: arrays[name].take(parents) for name in inherited}
    tally = {
        **from_row,
        C.aspect: aspect_array,
        C.category: category_array,
        C.reason: pa.array([reason or None for reason in reasons], pa.string()),
    }
    return table, pa.Table.from_arrays([tally[name] for name in TALLIES.names], schema=TALLIES)


# --- helpers -------------------------------------------------------------------------------------


# The columns of a ``fills`` row after its fill's line, for each kind of fill; nulls where it has none.
_NO_SLOT = (None,) * 19
_SET_TAIL = (None,) * 10
_POINTER_MIDDLE = (None,) * 7


def _fill_values(fill: Fill) -> tuple[Any, ...]:
    """The ``fills`` columns from ``content`` on, for one single fill."""
    if isinstance(fill, TextFill):
        maximal = fill.maximal_extent
        minimal = list(fill.minimal_contents or ())
        return (
            fill.raw,
            fill.quoted,
            fill.content,
            minimal,
            fill.content,
            list(minimal),
            maximal.start if maximal else None,
            maximal.end if maximal else None,
            [vars(e) for e in fill.extents[1:]],
            None,
            None,
            None,
        )
    if isinstance(fill, SetFill):
        return (fill.value, fill.quoted) + _SET_TAIL
    target = fill.target
    return (target.render(), None) + _POINTER_MIDDLE + (target.type, target.doc_id, target.one_up)


def _table(rows: list[tuple[Any, ...]], schema: pa.Schema) -> pa.Table:
    """A table of ``schema`` from rows given as tuples of its columns in order (one array per column)."""
    if not rows:
        return schema.empty_table()
    columns = zip(*rows, strict=True)
    return pa.Table.from_arrays(
        [pa.array(values, type=f.type) for values, f in zip(columns, schema, strict=True)], schema=schema
    )


_NO_FILL_PAIRING = (None,) * 10  # ref_alternative to hyp_end
_NO_EXTENT = (None, None)


def _maximal(fill: Fill | None) -> tuple[int | None, int | None]:
    """A text fill's maximal extent as two columns (nulls for other fills and fills without one)."""
    extent = fill.maximal_extent if isinstance(fill, TextFill) else None
    return (extent.start, extent.end) if extent else _NO_EXTENT


def _counts(counts: Counts) -> tuple[int, int, int, int, int]:
    return (counts.COR, counts.INC, counts.MIS, counts.SPU, counts.NON)


def _with_metadata(table: pa.Table, values: dict[str, str]) -> pa.Table:
    metadata = dict(table.schema.metadata or {})
    metadata.update({k.encode(): str(v).encode() for k, v in values.items()})
    return table.replace_schema_metadata(metadata)


def _metadata(table: pa.Table) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
