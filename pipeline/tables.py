"""Domain objects to Arrow tables and back, in the columns ``schemas`` defines.

Stages hand each other tables; the scorer works on dataclasses. These functions are the only bridge,
and they round-trip: ``template_set_from_table(template_set_to_table(t))`` gives ``t`` back.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from pipeline.model import (
    Corpus,
    Document,
    Extent,
    Fill,
    Instance,
    Pointer,
    PointerFill,
    Section,
    SetFill,
    Slot,
    TemplateSet,
    TextFill,
)
from pipeline.scoring import FillPairing, Scoring
from pipeline.templates import render_fill
from schemas import DOCUMENTS, FILLS, MAPPING, TALLIES, table_from_rows

SOURCE_KEY = b"source"


def corpus_to_table(corpus: Corpus) -> pa.Table:
    """The ``documents`` artifact of a corpus; the tag names and source travel in the metadata."""
    rows = [
        {
            "doc_id": d.doc_id,
            "text": d.text,
            "doc_offset": d.offset,
            "doc_line": d.line,
            "sections": [vars(s) for s in d.sections],
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
            row["doc_id"],
            row["text"],
            row["doc_offset"],
            row["doc_line"],
            tuple(Section(**section) for section in row["sections"] or ()),
        )
        for row in table.to_pylist()
    )
    return Corpus(
        documents, meta.get("source", ""), meta.get("doc_tag", "DOC"), meta.get("docid_tag", "DOCNO")
    )


def template_set_to_table(template_set: TemplateSet) -> pa.Table:
    """The ``fills`` artifact: one row per single fill (a slotless instance is one row)."""
    rows: list[dict[str, Any]] = []
    for instance in template_set.instances:
        head = {
            "doc_id": instance.pointer.doc_id,
            "instance_type": instance.pointer.type,
            "one_up": instance.pointer.one_up,
            "instance_line": instance.line,
            "instance_optional": instance.optional,
        }
        if not instance.slots:
            rows.append(head)
        for slot in instance.slots:
            for a, alternative in enumerate(slot.alternatives):
                for i, fill in enumerate(alternative):
                    row = dict(head, slot=slot.name, slot_line=slot.line, slot_optional=slot.optional)
                    row.update(alternative=a, fill_index=i, kind=fill.kind, line=fill.line)
                    row.update(_fill_columns(fill))
                    rows.append(row)
    return _with_metadata(table_from_rows(rows, FILLS), {"source": template_set.source})


def template_set_from_table(table: pa.Table) -> TemplateSet:
    """Rebuild the template set; text fills carry the normalized contents (what the scorer compares)."""
    instances: dict[Pointer, dict[str, Any]] = {}
    for row in table.to_pylist():
        pointer = Pointer(row["instance_type"], row["doc_id"], row["one_up"])
        instance = instances.setdefault(pointer, {"line": row["instance_line"], "slots": {}})
        if row["slot"] is None:
            continue
        slot = instance["slots"].setdefault(
            row["slot"], {"line": row["slot_line"], "optional": row["slot_optional"], "alternatives": {}}
        )
        slot["alternatives"].setdefault(row["alternative"], []).append((row["fill_index"], _fill(row)))
    built = []
    for pointer, instance in instances.items():
        slots = tuple(
            Slot(
                name,
                tuple(
                    tuple(fill for _, fill in sorted(fills, key=lambda item: item[0]))
                    for _, fills in sorted(slot["alternatives"].items())
                ),
                slot["line"],
                slot["optional"],
            )
            for name, slot in instance["slots"].items()
        )
        built.append(Instance(pointer, slots, instance["line"]))
    return TemplateSet(tuple(built), _metadata(table).get("source", ""))


def scoring_to_tables(scoring: Scoring) -> tuple[pa.Table, pa.Table]:
    """The ``mapping`` and ``tallies`` artifacts of a scoring."""
    mapping: list[dict[str, Any]] = []
    tallies: list[dict[str, Any]] = []
    for pairing in scoring.instances:
        row = {
            "level": "instance",
            "doc_id": pairing.doc_id,
            "instance_type": pairing.instance_type,
            "ref_instance": pairing.ref.render() if pairing.ref else None,
            "hyp_instance": pairing.hyp.render() if pairing.hyp else None,
            "points": [vars(pairing.point)],
        }
        mapping.append(dict(row, **_counts(pairing.counts.as_dict())))
        tallies.append(_tally(row, pairing.point, None, None, None))
        for fill in pairing.fills:
            fill_row = _fill_pairing_row(fill)
            mapping.append(fill_row)
            for point in fill.points:
                tallies.append(_tally(fill_row, point, fill.slot, fill_row["ref_line"], fill_row["hyp_line"]))
    return table_from_rows(mapping, MAPPING), table_from_rows(tallies, TALLIES)


# --- helpers -------------------------------------------------------------------------------------


def _fill_columns(fill: Fill) -> dict[str, Any]:
    if isinstance(fill, TextFill):
        maximal = fill.maximal_extent
        return {
            "content": fill.raw,
            "quoted": fill.quoted,
            "max_content": fill.content,
            "min_contents": list(fill.minimal_contents or ()),
            "norm_content": fill.content,
            "norm_min_contents": list(fill.minimal_contents or ()),
            "max_start": maximal.start if maximal else None,
            "max_end": maximal.end if maximal else None,
            "min_extents": [vars(e) for e in fill.extents[1:]],
        }
    if isinstance(fill, SetFill):
        return {"content": fill.value, "quoted": fill.quoted}
    return {
        "content": fill.target.render(),
        "target_type": fill.target.type,
        "target_doc_id": fill.target.doc_id,
        "target_one_up": fill.target.one_up,
    }


def _fill(row: dict[str, Any]) -> Fill:
    kind = row["kind"]
    if kind == "pointer":
        return PointerFill(
            Pointer(row["target_type"], row["target_doc_id"], row["target_one_up"]), row["line"]
        )
    if kind == "set":
        return SetFill(row["content"], bool(row["quoted"]), row["line"])
    extents: tuple[Extent, ...] = ()
    if row["max_start"] is not None:
        extents = (Extent(row["max_start"], row["max_end"]),) + tuple(
            Extent(e["start"], e["end"]) for e in row["min_extents"] or ()
        )
    return TextFill(
        row["content"],
        extents,
        bool(row["quoted"]),
        row["line"],
        row["norm_content"],
        tuple(row["norm_min_contents"] or ()),
    )


def _fill_pairing_row(fill: FillPairing) -> dict[str, Any]:
    counts = fill.counts.as_dict()
    return {
        "level": "fill",
        "doc_id": fill.doc_id,
        "instance_type": fill.instance_type,
        "slot": fill.slot,
        "ref_instance": fill.ref_instance.render() if fill.ref_instance else None,
        "hyp_instance": fill.hyp_instance.render() if fill.hyp_instance else None,
        "ref_alternative": fill.ref_alternative,
        "ref_line": fill.ref_fill.line if fill.ref_fill else None,
        "hyp_line": fill.hyp_fill.line if fill.hyp_fill else None,
        "kind": (fill.ref_fill or fill.hyp_fill).kind,  # type: ignore[union-attr]
        "ref_fill": render_fill(fill.ref_fill) if fill.ref_fill else None,
        "hyp_fill": render_fill(fill.hyp_fill) if fill.hyp_fill else None,
        "points": [vars(p) for p in fill.points],
        **_counts(counts),
    }


def _counts(counts: dict[str, int]) -> dict[str, int]:
    return {k: counts[k] for k in ("COR", "INC", "MIS", "SPU", "NON")}


def _tally(row: dict[str, Any], point: Any, slot: str | None, ref_line: Any, hyp_line: Any) -> dict[str, Any]:
    return {
        "doc_id": row["doc_id"],
        "instance_type": row["instance_type"],
        "slot": slot,
        "aspect": point.aspect,
        "category": point.category,
        "reason": point.reason or None,
        "ref_instance": row["ref_instance"],
        "hyp_instance": row["hyp_instance"],
        "ref_line": ref_line,
        "hyp_line": hyp_line,
    }


def _with_metadata(table: pa.Table, values: dict[str, str]) -> pa.Table:
    metadata = dict(table.schema.metadata or {})
    metadata.update({k.encode(): str(v).encode() for k, v in values.items()})
    return table.replace_schema_metadata(metadata)


def _metadata(table: pa.Table) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
