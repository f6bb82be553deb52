"""The named entity task's reports (seed 001): the score page and the named entity report summary.

The NE score page has, before the usual OBJ SCORES, SLOT SCORES and ALL SLOTS sections, SUBTASK
SCORES (the TYPE slot's points by tag and type value: ``enamex / organization``) and SECT SCORES
(every slot point by the SGML section the object came from: ``Header``, ``Body``). An object's type
value and section are the key's, or the response's for a spurious object.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.core.measures import Counts
from iescore.pipeline.muc.report import OBJECT, fill_content, slot_scores_lines, worst_category
from iescore.pipeline.templette import (
    PAGE_DIVIDER,
    grouped_counts,
    measure_row,
    name_heading,
    page_line,
    page_section,
    page_top,
)
from iescore.schemas import C

TYPE_SLOT, TEXT_SLOT = "TYPE", "TEXT"
# The MUC-6/7 named entity subtasks, shown on every page even when empty (as the seed's page does).
NE_SUBTYPES = {
    "ENAMEX": ["ORGANIZATION", "PERSON", "LOCATION", "OTHER"],
    "TIMEX": ["DATE", "TIME", "OTHER"],
    "NUMEX": ["MONEY", "PERCENT", "OTHER"],
}


def ne_score_pages(
    tallies: pa.Table,
    mapping: pa.Table,
    key_sections: Mapping[str, str],
    response_sections: Mapping[str, str],
    title: str,
    signature: str,
    beta: float = 1.0,
    documents: Sequence[str] | None = None,
    subtypes: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """One NE score page per document and a page of totals (form feed between pages).

    ``key_sections`` and ``response_sections`` map each side's object pointers (``<ENAMEX-DOC-3>``)
    to their SGML sections; ``subtypes``
    lists, per tag, type values always shown (``{"ENAMEX": ["ORGANIZATION", "PERSON", ...]}``), as
    the seed's page shows zero rows for types that never occur.
    """
    frame = tallies.select(
        [C.doc_id, C.instance_type, C.slot, C.aspect, C.category, C.ref_instance, C.hyp_instance]
    )
    points = frame.to_pandas()
    values = _type_values(mapping)
    pairs = [
        (ref if isinstance(ref, str) else None, hyp if isinstance(hyp, str) else None)  # NaN: no object
        for ref, hyp in zip(points[C.ref_instance], points[C.hyp_instance], strict=True)
    ]
    points["type_value"] = [values.get(pair, "") for pair in pairs]
    points["section"] = [
        key_sections.get(ref, "") if isinstance(ref, str) else response_sections.get(hyp, "")
        for ref, hyp in pairs
    ]
    order = list(documents) if documents is not None else list(dict.fromkeys(points[C.doc_id]))
    groups = dict(tuple(points.groupby(C.doc_id, sort=False))) if not points.empty else {}
    pages = [
        _page(groups.get(doc, points.iloc[0:0]), f"{title} -- document {doc}", signature, beta, subtypes)
        for doc in order
    ]
    pages.append(_page(points, f"{title} -- totals", signature, beta, subtypes))
    return "\f\n".join(pages)


def _type_values(mapping: pa.Table) -> dict[tuple[str | None, str | None], str]:
    """(ref pointer, hyp pointer) -> the object's TYPE value: the key's, else the response's."""
    rows = mapping.filter(pc.equal(mapping.column(C.slot), TYPE_SLOT)).to_pylist()
    values: dict[tuple[str | None, str | None], str] = {}
    for row in rows:
        fill = row[C.ref_fill] or row[C.hyp_fill] or ""
        values.setdefault((row[C.ref_instance], row[C.hyp_instance]), fill.strip('"').upper())
    return values


def _page(
    points: pd.DataFrame,
    title: str,
    signature: str,
    beta: float,
    subtypes: Mapping[str, Sequence[str]] | None,
) -> str:
    divider = PAGE_DIVIDER
    lines = page_top(title, signature)
    objects = points[points[C.aspect] == OBJECT]
    fills = points[points[C.aspect] != OBJECT]
    type_points = fills[fills[C.slot] == TYPE_SLOT]
    lines.append(page_section("SUBTASK SCORES"))
    tags = list(dict.fromkeys([*(subtypes or {}), *points[C.instance_type]]))
    by_type = dict(grouped_counts(type_points, [C.instance_type, "type_value"]))
    for tag in tags:
        lines.append(name_heading(tag))
        shown = list(dict.fromkeys([*(subtypes or {}).get(tag, ()), *(v for (t, v) in by_type if t == tag)]))
        for value in shown:
            lines.append(
                page_line("  " + value.lower(), measure_row(by_type.get((tag, value), Counts()), beta))
            )
    lines.append(divider)
    lines.append(page_section("SECT SCORES"))
    for (section,), counts in grouped_counts(fills, ["section"]):
        lines.append(page_line(" " + (section or "(none)"), measure_row(counts, beta)))
    lines.append(divider)
    lines.append(page_section("OBJ SCORES"))
    for (tag,), counts in grouped_counts(objects, [C.instance_type]):
        lines.append(page_line(" " + tag.lower(), measure_row(counts, beta)))
    lines.append(divider)
    lines.extend(slot_scores_lines(fills, beta, tags))
    return "\n".join(lines) + "\n"


def ne_report_summary(mapping: pa.Table) -> str:
    """Seed 001's named entity report summary: one line per object pair, seven columns.

    TAG, the TYPE result and the TEXT result (cor inc mis spu, lower case), the key and response
    TYPE values, the key and response TEXT (the key alternative the response was aligned with).
    """
    rows = mapping.to_pylist()
    fills: dict[tuple, dict[str, dict]] = {}
    for row in rows:
        if row[C.level] == "fill":
            fills.setdefault((row[C.doc_id], row[C.ref_instance], row[C.hyp_instance]), {})[row[C.slot]] = row
    lines: list[str] = []
    current = None
    rule = "-" * 105
    for row in rows:
        if row[C.level] != "instance":
            continue
        if row[C.doc_id] != current:
            current = row[C.doc_id]
            lines.extend(
                [rule, f"Document {current}", "TAG TYPE TEXT KEY_TYPE RSP_TYPE KEY_TEXT RSP_TEXT", rule]
            )
        slots = fills.get((row[C.doc_id], row[C.ref_instance], row[C.hyp_instance]), {})
        type_row, text_row = slots.get(TYPE_SLOT), slots.get(TEXT_SLOT)
        # An absent TYPE leaves no column, as in the seed's "ENAMEX mis mis PERSON "Washington" """.
        types = [value for value in (_bare(type_row, side) for side in (C.ref_fill, C.hyp_fill)) if value]
        texts = [_quoted(text_row, side) for side in (C.ref_fill, C.hyp_fill)]
        lines.append(" ".join([row[C.instance_type], _result(type_row), _result(text_row), *types, *texts]))
    return "\n".join(lines) + "\n"


def _result(row: dict | None) -> str:
    return "non" if row is None else worst_category(p["category"] for p in row[C.points]).lower()


def _bare(row: dict | None, side: str) -> str:
    value = (row or {}).get(side) or ""
    return value.strip('"')


def _quoted(row: dict | None, side: str) -> str:
    return f'"{fill_content((row or {}).get(side))}"'
