"""The MUC scorer's reports (seed 001): score pages per document and for the totals, the information
extraction report summary, the map history as a Tcl-style list, and text filtering.

Everything is computed from the ``tallies`` and ``mapping`` artifacts; nothing rescores text.

A score page is the MUC layout of ``pipeline.templette.report``: an optional TEXT FILTERING section (scenario
templates), OBJ SCORES by object type, SLOT SCORES by type and slot, ALL SLOTS, and the ``P&R 2P&R
P&2R`` F-measures line. There is one page per document (in document order) and a last page for the
totals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.core.measures import Counts
from iescore.pipeline.templette import (
    PAGE_DIVIDER,
    TemplateSet,
    f_measures_lines,
    grouped_counts,
    measure_row,
    name_heading,
    page_line,
    page_section,
    page_top,
    summary_lines,
)
from iescore.schemas import C

OBJECT = "object"


def relevant_documents(template_set: TemplateSet, template_type: str) -> set[str]:
    """Documents judged relevant by a template set (text filtering, seed 001).

    A document is relevant when its instance set holds any object other than the top-level
    ``template_type`` object: an irrelevant document's key is a bare TEMPLATE (its document number).
    """
    return {
        instance.pointer.doc_id
        for instance in template_set.instances
        if instance.pointer.type.upper() != template_type.upper()
    }


def text_filtering(documents: Iterable[str], key: set[str], response: set[str]) -> dict[str, Counts]:
    """Text filtering tallies per document: one point each, COR when key and response agree on the
    document's relevance, INC when they do not (so POS = ACT = the documents, as the seed's page
    shows: ``100 100 | 86 0 14 | 0 0 0``)."""
    return {doc: Counts(COR=1) if (doc in key) == (doc in response) else Counts(INC=1) for doc in documents}


def score_pages(
    tallies: pa.Table,
    title: str,
    signature: str,
    beta: float = 1.0,
    filtering: Mapping[str, Counts] | None = None,
    documents: Sequence[str] | None = None,
) -> str:
    """One MUC score page per document, then the page of totals (form feed between pages).

    ``documents`` fixes the order (default: order of first appearance in the tallies); ``filtering``
    adds the TEXT FILTERING section.
    """
    frame = tallies.select([C.doc_id, C.instance_type, C.slot, C.aspect, C.category]).to_pandas()
    order = list(documents) if documents is not None else list(dict.fromkeys(frame[C.doc_id]))
    pages = []
    groups = dict(tuple(frame.groupby(C.doc_id, sort=False))) if not frame.empty else {}
    empty = frame.iloc[0:0]
    for doc in order:
        part = groups.get(doc, empty)
        doc_filter = {doc: filtering[doc]} if filtering is not None and doc in filtering else None
        pages.append(_page(part, f"{title} -- document {doc}", signature, beta, doc_filter))
    pages.append(_page(frame, f"{title} -- totals", signature, beta, filtering))
    return "\f\n".join(pages)


def _page(
    frame: pd.DataFrame,
    title: str,
    signature: str,
    beta: float,
    filtering: Mapping[str, Counts] | None,
) -> str:
    divider = PAGE_DIVIDER
    lines = page_top(title, signature)
    if filtering is not None:
        lines.append(page_line("TEXT FILTERI", measure_row(Counts.total(filtering.values()), beta)))
        lines.append(divider)
    objects = frame[frame[C.aspect] == OBJECT]
    fills = frame[frame[C.aspect] != OBJECT]
    lines.append(page_section("OBJ SCORES"))
    for type_name, counts in grouped_counts(objects, [C.instance_type]):
        lines.append(page_line(" " + type_name[0].lower(), measure_row(counts, beta)))
    lines.append(divider)
    lines.extend(slot_scores_lines(fills, beta))
    return "\n".join(lines) + "\n"


def slot_scores_lines(fills: pd.DataFrame, beta: float, types: Sequence[str] | None = None) -> list[str]:
    """The end of a score page: SLOT SCORES (each type's slots, the types in ``types`` order, or as
    they come), the divider, the ALL SLOTS line and the F-measures."""
    lines = [page_section("SLOT SCORES")]
    by_slot = grouped_counts(fills, [C.instance_type, C.slot])
    for type_name in types if types is not None else dict.fromkeys(key[0] for key, _ in by_slot):
        lines.append(name_heading(type_name))
        for (slot_type, slot), counts in by_slot:
            if slot_type == type_name:
                lines.append(page_line("  " + str(slot).lower(), measure_row(counts, beta)))
    total = Counts.of(fills[C.category])
    return [
        *lines,
        PAGE_DIVIDER,
        page_line("ALL SLOTS", measure_row(total, beta)),
        "",
        *f_measures_lines(total),
    ]


def ie_report_summary(mapping: pa.Table) -> str:
    """Seed 001's information extraction report summary: four columns separated by ``|``.

    The result (upper case for objects, lower case for single fills: cor inc mis spu non), the slot
    name (empty on object lines), the key and the response: an object's pointer, or a fill's
    content. A fill compared on more than one aspect shows its worst result (inc before cor).
    """

    def fields(row: Mapping[str, Any]) -> list[str]:
        result = worst_category(p["category"] for p in row[C.points])
        if row[C.level] == "instance":
            return [result.upper(), "", row[C.ref_instance] or "", row[C.hyp_instance] or ""]
        return [
            result.lower(),
            f"{row[C.slot]}:",
            fill_content(row[C.ref_fill]),
            fill_content(row[C.hyp_fill]),
        ]

    def line(row: Mapping[str, Any]) -> str:
        # As the seed prints them: an empty column leaves only its bar ("SPU | | | <PERSON-...>").
        first, *rest = fields(row)
        return first + "".join(" |" + (f" {field}" if field else "") for field in rest)

    return summary_lines(mapping, line)


_SEVERITY = {"COR": 0, "NON": 1, "PAR": 2, "INC": 3, "MIS": 4, "SPU": 5}


def worst_category(categories: Iterable[str]) -> str:
    """The worst of a pairing's categories (SPU, MIS, INC, PAR, NON, COR from worst); NON if none."""
    found = list(categories)
    return max(found, key=lambda c: _SEVERITY.get(c, 9)) if found else "NON"


def fill_content(fill: str | None) -> str:
    """A fill as the summary shows it: a text fill's quoted content without its extents."""
    if not fill:
        return ""
    text = fill.split(" ##", 1)[0]
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def map_history(mapping: pa.Table) -> str:
    """The map history (seed 001): one Tcl-style list; each element a document's list of attribute
    name / value pairs, nesting down to the single fills::

        {-document 930620083 -objects {{-key <PERSON-930620083-1> -response <PERSON-930620083-2>
          -result COR -fills {{-slot PER_NAME -key {"Joe Roth"} -response {"JOE ROTH"}
          -result cor -points {content:COR}} ...}} ...}}

    ``-key`` / ``-response`` are empty lists for an unmapped side.
    """
    documents: dict[str, list[str]] = {}
    objects: dict[tuple[str, str | None, str | None], list[str]] = {}
    order: list[tuple[str, tuple[str, str | None, str | None]]] = []
    heads: dict[tuple[str, str | None, str | None], str] = {}
    for row in mapping.to_pylist():
        key = (row[C.doc_id], row[C.ref_instance], row[C.hyp_instance])
        if row[C.level] == "instance":
            result = worst_category(p["category"] for p in row[C.points]).upper()
            key_side = tcl_quote(row[C.ref_instance] or "")
            sides = f"-key {key_side} -response {tcl_quote(row[C.hyp_instance] or '')}"
            heads[key] = f"{sides} -type {tcl_quote(row[C.instance_type])} -result {result}"
            objects.setdefault(key, [])
            order.append((row[C.doc_id], key))
            continue
        points = " ".join(f"{p['aspect']}:{p['category']}" for p in row[C.points])
        result = worst_category(p["category"] for p in row[C.points]).lower()
        objects.setdefault(key, []).append(
            "{"
            + f"-slot {tcl_quote(row[C.slot] or '')} -key {tcl_quote(row[C.ref_fill] or '')}"
            + f" -response {tcl_quote(row[C.hyp_fill] or '')}"
            + f" -result {result} -points {tcl_quote(points)}"
            + "}"
        )
    for doc, key in order:
        fills = " ".join(objects.get(key, []))
        documents.setdefault(doc, []).append("{" + heads[key] + " -fills {" + fills + "}}")
    parts = [
        "{-document " + tcl_quote(doc) + " -objects {" + " ".join(objs) + "}}"
        for doc, objs in documents.items()
    ]
    return "{" + "\n ".join(parts) + "}\n"


_TCL_SPECIAL = set(' \t\n\r{}[]$"\\;')


def tcl_quote(value: str) -> str:
    """``value`` as one Tcl list element: bare when it can be, in braces when they balance, else with
    backslashes before every special character."""
    if value == "":
        return "{}"
    if not any(ch in _TCL_SPECIAL for ch in value):
        return value
    depth = 0
    balanced = "\\" not in value
    for ch in value:
        depth += ch == "{"
        depth -= ch == "}"
        if depth < 0:
            balanced = False
            break
    if balanced and depth == 0 and value[-1] != "\\":
        return "{" + value + "}"
    return "".join("\\" + ch if ch in _TCL_SPECIAL else ch for ch in value)
