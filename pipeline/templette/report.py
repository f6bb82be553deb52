"""Score tables from tallies, and their renderings: MUC score report, JSON, report summary.

Everything here reads the ``tallies`` (one row per point) or the ``mapping``; nothing rescores text.
The text report follows the MUC scorer's page layout (seed 001, "score report"): POS ACT | COR PAR INC |
MIS SPU NON | REC PRE UND OVG SUB ERR, with OBJ SCORES, SLOT SCORES, ALL SLOTS and the ``P&R 2P&R
P&2R`` F-measures line. Undefined percentages print as ``-`` (the MUC scorer printed 0).

The templette page never cuts a name: a label (object type, slot, document, section) longer than its
field is written whole on a line of its own, and its numbers follow on the next line, in every section
alike. (The MUC scorer cut labels to 12 characters, which can make two slots look alike; the MUC and NE
pages of ``iescore muc`` keep that cut, ``page_line(..., whole=False)``, as the seed prints them.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import codes
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.core.measures import CATEGORIES, Counts, f_measure, measures, percent
from iescore.schemas import COUNT_COLUMNS, MEASURE_COLUMNS, SCORES, C, table_from_rows

OBJECT = "object"
SCOPES = ("total", "document", "type", "slot", "object")


def slot_points(frame: pd.DataFrame) -> pd.DataFrame:
    """The points ALL SLOTS counts: fill points, every aspect but ``object``.

    The one definition of the leaderboard's measure: the score tables' total, document, type and slot
    rows and the campaign statistics (intervals, significance) all select their points with it, so an
    interval is always about the number printed beside it. Object (instance-level) points make the
    OBJ SCORES only (seed 001's report keeps them out of ALL SLOTS).
    """
    return frame[frame[C.aspect] != OBJECT]


def slot_point_table(table: pa.Table) -> pa.Table:
    """``slot_points`` on an Arrow table: its rows whose aspect is not ``object`` (a null aspect is kept,
    as pandas' ``!=`` keeps it)."""
    return table.filter(pc.fill_null(pc.not_equal(table.column(C.aspect), OBJECT), True))


def score_table(tallies: pa.Table, beta: float = 1.0) -> pa.Table:
    """The ``scores`` artifact: counts and measures by total, document, type, slot and object type.

    Fill points (every aspect but ``object``) make the total, document, type and slot scores; object
    points make the object scores. Every document and type that has any point gets a row. Groups come
    in order of first appearance; counted on the table's columns (:func:`_score_table_frame`, the same
    rows from a pandas frame, serves tallies with a null key).
    """
    keys = [C.doc_id, C.instance_type, C.slot]
    if any(tallies.column(k).null_count for k in keys[:2]) or tallies.num_rows == 0:
        return _score_table_frame(tallies, beta)
    aspect = tallies.column(C.aspect)
    is_object = pc.equal(aspect, OBJECT).to_numpy(zero_copy_only=False)
    if pc.any(pc.is_null(pc.filter(tallies.column(C.slot), pa.array(~is_object)))).as_py():
        return _score_table_frame(tallies, beta)
    category = pc.index_in(tallies.column(C.category), value_set=pa.array(CATEGORIES))
    if category.null_count:
        return _score_table_frame(tallies, beta)
    cats = category.to_numpy(zero_copy_only=False).astype(np.int64)
    fills = ~is_object
    doc, doc_names = codes(tallies.column(C.doc_id))
    type_, type_names = codes(tallies.column(C.instance_type))
    slot_codes, slot_names = codes(tallies.column(C.slot).fill_null(""))
    # Slots: (type, slot) pairs of fill points, in order of first appearance.
    pair = type_ * len(slot_names) + slot_codes
    pair_first = _first_rows(pair[fills])
    fill_rows = np.flatnonzero(fills)
    pairs = pair[fill_rows[pair_first]]
    pair_code = np.full(len(type_names) * len(slot_names), -1, dtype=np.int64)
    pair_code[pairs] = np.arange(len(pairs))
    # Object types, in order of first appearance among object points.
    object_rows = np.flatnonzero(is_object)
    object_first = object_rows[_first_rows(type_[object_rows])]
    object_types = type_[object_first]
    object_code = np.full(len(type_names), -1, dtype=np.int64)
    object_code[object_types] = np.arange(len(object_types))

    def counts(group: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
        return np.bincount(group[rows] * 6 + cats[rows], minlength=n * 6).reshape(n, 6)

    blocks = [
        ("total", counts(np.zeros(len(cats), np.int64), fill_rows, 1), None, None, None),
        ("document", counts(doc, fill_rows, len(doc_names)), doc_names, None, None),
        ("type", counts(type_, fill_rows, len(type_names)), None, type_names, None),
        (
            "slot",
            counts(pair_code[pair], fill_rows, len(pairs)),
            None,
            type_names.take(pa.array(pairs // len(slot_names))),
            slot_names.take(pa.array(pairs % len(slot_names))),
        ),
        (OBJECT, counts(object_code[type_], object_rows, len(object_types)), None,
         type_names.take(pa.array(object_types)), None),
    ]  # fmt: skip
    scope, doc_ids, types, slots, all_counts = [], [], [], [], []
    for name, block, d, t, sl in blocks:
        n = len(block)
        scope.append(pa.array([name] * n, pa.string()))
        doc_ids.append(d if d is not None else pa.nulls(n, pa.string()))
        types.append(t if t is not None else pa.nulls(n, pa.string()))
        slots.append(sl if sl is not None else pa.nulls(n, pa.string()))
        all_counts.append(block)
    table_counts = np.concatenate(all_counts)
    arrays = {
        C.scope: pa.concat_arrays(scope),
        C.doc_id: pa.concat_arrays([a.cast(pa.string()) for a in doc_ids]),
        C.instance_type: pa.concat_arrays([a.cast(pa.string()) for a in types]),
        C.slot: pa.concat_arrays([a.cast(pa.string()) for a in slots]),
        **measure_columns(table_counts, beta),
    }
    return pa.Table.from_arrays([arrays[name] for name in SCORES.names], schema=SCORES)


def measure_columns(counts: np.ndarray, beta: float = 1.0) -> dict[str, pa.Array]:
    """Counts (n x 6, in ``CATEGORIES`` order), POS, ACT and every measure as columns: ``measures``
    on arrays, the same float operations in the same order (nulls where undefined)."""
    cor, inc, par, mis, spu, non = (counts[:, i] for i in range(6))
    pos, act = cor + inc + par + mis, cor + inc + par + spu
    b2 = beta * beta

    def ratio(numerator: np.ndarray, denominator: np.ndarray) -> pa.Array:
        with np.errstate(divide="ignore", invalid="ignore"):
            values = numerator / denominator
        return pa.array(values, pa.float64(), mask=denominator == 0)

    columns = {"COR": cor, "INC": inc, "PAR": par, "MIS": mis, "SPU": spu, "NON": non, "POS": pos, "ACT": act}
    out: dict[str, pa.Array] = {k: pa.array(v, pa.int64()) for k, v in columns.items()}
    out["REC"] = ratio(cor + 0.5 * par, pos)
    out["PRE"] = ratio(cor + 0.5 * par, act)
    out["F"] = ratio((b2 + 1.0) * (cor + 0.5 * par), b2 * pos + act)
    out["UND"] = ratio(mis, pos)
    out["OVG"] = ratio(spu, act)
    out["SUB"] = ratio(inc + 0.5 * par, cor + par + inc)
    out["ERR"] = ratio(inc + 0.5 * par + mis + spu, cor + par + inc + mis + spu)
    return out


def _first_rows(numbers: np.ndarray) -> np.ndarray:
    """The row of each distinct code's first appearance, in order of appearance."""
    if len(numbers) == 0:
        return np.zeros(0, dtype=np.int64)
    _, first = np.unique(numbers, return_index=True)
    return np.sort(first)


def _score_table_frame(tallies: pa.Table, beta: float = 1.0) -> pa.Table:
    """:func:`score_table` from a pandas frame, group by group (tallies with a null key)."""
    frame = tallies.to_pandas()
    fills = slot_points(frame)
    objects = frame[frame[C.aspect] == OBJECT]
    rows: list[dict[str, Any]] = [_row("total", _counts(fills[C.category]), beta)]
    for scope, source, keys in (
        ("document", fills, [C.doc_id]),
        ("type", fills, [C.instance_type]),
        ("slot", fills, [C.instance_type, C.slot]),
        (OBJECT, objects, [C.instance_type]),
    ):
        # Every document and type with any point gets a row, zeros when it has no fill points.
        every = _key_tuples(frame, keys) if scope in ("document", "type") else []
        for key, counts in grouped_counts(source, keys, every):
            rows.append(_row(scope, counts, beta, **dict(zip(keys, key, strict=True))))
    return table_from_rows(rows, SCORES)


def scores_json(scores: pa.Table, signature: str) -> dict[str, Any]:
    """The ``--json`` document of DESIGN.md: signature, totals, by_type, by_slot, by_document.

    Counts are integers; measures are percentages (0-100 floats), ``None`` (JSON null) where undefined.
    """
    by_scope = _by_scope(scores)
    keys = {"type": (C.instance_type,), "slot": (C.instance_type, C.slot), "document": (C.doc_id,)}

    def entries(scope: str) -> list[dict[str, Any]]:
        return [{**{k: row[k] for k in keys[scope]}, **score_object(row)} for row in by_scope.get(scope, [])]

    return {
        "signature": signature,
        "totals": score_object(by_scope["total"][0]),
        "by_type": entries("type"),
        "by_slot": entries("slot"),
        "by_document": entries("document"),
    }


def score_object(row: Mapping[str, Any]) -> dict[str, Any]:
    """Counts as integers and measures as percentages of one score row."""
    values: dict[str, Any] = {k: int(row[k]) for k in COUNT_COLUMNS}
    for k in MEASURE_COLUMNS:
        values[k] = None if row[k] is None else round(row[k] * 100.0, 6)
    return values


def muc_report(scores: pa.Table, signature: str, title: str = "iescore") -> str:
    """The MUC-layout score report page for the totals, with a section of document scores."""
    by_scope = _by_scope(scores)
    divider = PAGE_DIVIDER
    lines = page_top(title, signature)
    lines.append(page_section("OBJ SCORES"))
    for row in by_scope.get(OBJECT, []):
        lines.append(page_line(" " + row[C.instance_type].lower(), row, whole=True))
    lines.append(divider)
    lines.append(page_section("SLOT SCORES"))
    slots = by_scope.get("slot", [])
    for type_row in by_scope.get("type", []):
        type_name = type_row[C.instance_type]
        lines.append(page_section(" " + type_name.lower()))
        for row in slots:
            if row[C.instance_type] == type_name:
                lines.append(page_line("  " + row[C.slot].lower(), row, whole=True))
    lines.append(divider)
    lines.append(page_section("DOC SCORES"))
    for row in by_scope.get("document", []):
        lines.append(page_line(" " + row[C.doc_id], row, whole=True))
    lines.append(divider)
    total = by_scope["total"][0]
    lines.append(page_line("ALL SLOTS", total))
    lines.append("")
    lines.extend(f_measures_lines(Counts(**{k: int(total[k]) for k in CATEGORIES})))
    return "\n".join(lines) + "\n"


def report_summary(mapping: pa.Table) -> str:
    """The IE report summary (seed 001): one line per pairing, result | slot | reference | hypothesis.

    Upper-case results are instance pairings, lower-case ones single fills; a text fill compared on
    content and extent shows both results, content first (``cor/inc``).
    """

    def line(row: Mapping[str, Any]) -> str:
        results = "/".join(p["category"].lower() for p in row[C.points])
        if row[C.level] == "instance":
            return f"{results.upper()} | | {row[C.ref_instance] or ''} | {row[C.hyp_instance] or ''}"
        return f"{results} | {row[C.slot]}: | {row[C.ref_fill] or ''} | {row[C.hyp_fill] or ''}"

    return summary_lines(mapping, line)


def summary_lines(mapping: pa.Table, line: Callable[[Mapping[str, Any]], str]) -> str:
    """A report summary: a ``Document ID`` line before each document's pairings, then ``line(row)``
    for every mapping row."""
    lines: list[str] = []
    current = None
    for row in mapping.to_pylist():
        if row[C.doc_id] != current:
            current = row[C.doc_id]
            lines.extend(["", f"Document {current}"])
        lines.append(line(row))
    return "\n".join(lines).lstrip("\n") + "\n"


def measure_name(beta: float) -> str:
    """``F`` at beta 1, else ``F`` followed by beta: ``F2``, ``F0.5``."""
    return "F" if beta == 1 else f"F{beta:g}"


# --- helpers -------------------------------------------------------------------------------------


def _counts(categories: Iterable[str]) -> Counts:
    return Counts.of(categories)


def _row(scope: str, counts: Counts, beta: float, **keys: str) -> dict[str, Any]:
    return {C.scope: scope, **keys, **measure_row(counts, beta)}


def measure_row(counts: Counts, beta: float = 1.0) -> dict[str, Any]:
    """Counts (with POS and ACT) and measures of one line of a score page or table."""
    return {**counts.as_dict(), **measures(counts, beta)}


def grouped_counts(
    points: pd.DataFrame, keys: list[str], also: list[tuple[str, ...]] | None = None
) -> list[tuple[tuple[str, ...], Counts]]:
    """Counts per group of ``keys`` in one pass over ``points``; groups in ``also`` first, zeros if absent.

    Groups come in order of first appearance (the scorer's canonical order).
    """
    lookup: dict[tuple[str, ...], dict[str, int]] = {}
    if not points.empty:
        table = points.groupby(keys + [C.category], sort=False).size().unstack(fill_value=0)
        for key, row in zip(table.index, table.to_dict("records"), strict=True):
            lookup[key if isinstance(key, tuple) else (key,)] = row
    order = dict.fromkeys((also or []) + _key_tuples(points, keys))
    return [(key, Counts(**{c: int(lookup.get(key, {}).get(c, 0)) for c in CATEGORIES})) for key in order]


def _key_tuples(frame: pd.DataFrame, keys: list[str]) -> list[tuple[str, ...]]:
    if frame.empty:
        return []
    columns = [frame[k] for k in keys]
    if not any(column.hasnans for column in columns):
        # Whole columns as Python objects at once: iterating a pyarrow-backed column is per element.
        columns = [column.to_numpy(dtype=object) for column in columns]
    return list(dict.fromkeys(zip(*columns, strict=True)))


def _by_scope(scores: pa.Table) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in scores.to_pylist():
        grouped.setdefault(row[C.scope], []).append(row)
    return grouped


def f_measures_lines(counts: Counts) -> list[str]:
    """The ``P&R 2P&R P&2R`` line of a MUC page: F at beta 1, 0.5 and 2, in percent with 2 decimals."""
    fs = [f_measure(counts, beta) for beta in (1.0, 0.5, 2.0)]
    values = "".join(f"{page_fmt2(f):>{w}}" for f, w in zip(fs, (10, 12, 12), strict=True))
    return [f"{'':17}{'P&R':>10}{'2P&R':>12}{'P&2R':>12}", f"{'F-MEASURES':17}{values}"]


PAGE_DIVIDER = "-" * 24 + "+" + "-" * 13 + "+" + "-" * 14 + "+" + "-" * 24


def page_top(title: str, signature: str) -> list[str]:
    """The first lines of a MUC score page: title, signature, rule, column header, divider."""
    return [f"* * * {title} * * *", f"signature: {signature}", "", "-" * 78, page_header(), PAGE_DIVIDER]


def page_header() -> str:
    measures_part = "".join(f"{m:>4}" for m in ("REC", "PRE", "UND", "OVG", "SUB", "ERR"))
    return (
        f"{'':12}{'POS':>6}{'ACT':>6}|{'COR':>4}{'PAR':>4}{'INC':>5}|{'MIS':>4}{'SPU':>5}{'NON':>5}|"
        + measures_part
    )


LABEL_WIDTH = 12  # the MUC page's label field, before POS
SECTION_WIDTH = 24  # a section title's field, before the first rule


def page_section(label: str) -> str:
    """A section title line (``SLOT SCORES``, `` template``); a longer title is written whole alone."""
    if len(label) > SECTION_WIDTH:
        return f"{label}\n{'':{SECTION_WIDTH}}|{'':13}|{'':14}|"
    return f"{label:{SECTION_WIDTH}}|{'':13}|{'':14}|"


def name_heading(name: str) -> str:
    """A name heading a group of lines (`` succession_e``-style type headings of SLOT SCORES), cut to the
    label field exactly as :func:`page_line` cuts the same name in OBJ SCORES: the MUC pages cut a
    long name the same way in every section, as seed 001's report does."""
    return page_section((" " + name.lower())[:LABEL_WIDTH])


def page_line(label: str, row: Mapping[str, Any], whole: bool = False) -> str:
    """A line of numbers after ``label``. A label longer than its field is cut to it, as the MUC scorer
    did; with ``whole``, it is written whole on the line before (two lines, joined by a newline)."""
    pct = "".join(_fmt0(row[m]) for m in ("REC", "PRE", "UND", "OVG", "SUB", "ERR"))
    numbers = (
        f"{row['POS']:>6}{row['ACT']:>6}|{row['COR']:>4}{row['PAR']:>4}{row['INC']:>5}|"
        f"{row['MIS']:>4}{row['SPU']:>5}{row['NON']:>5}|{pct}"
    )
    if len(label) > LABEL_WIDTH and whole:
        return f"{label}\n{'':{LABEL_WIDTH}}{numbers}"
    return f"{label[:LABEL_WIDTH]:{LABEL_WIDTH}}{numbers}"


def _fmt0(value: float | None) -> str:
    shown = percent(value)
    return f"{'-' if shown is None else int(shown):>4}"


def page_fmt2(value: float | None) -> str:
    shown = percent(value, 2)
    return "-" if shown is None else f"{shown:.2f}"
