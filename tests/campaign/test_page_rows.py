"""The campaign page built from one table of pairings (``CampaignReport.pairing_rows``, issue 16) is the
page built from Pairing objects, byte for byte; CSV files written with Arrow are pandas' bytes.

The Pairing path (``_embedded_data``) is the page's reference implementation, tested on its own in
test_html_report.py; here the column path must give the same bytes on data made to reach every branch:
spurious and missing fills, object pairings, a reference repeated by several systems, the same fill text
in several documents, characters outside the Basic Multilingual Plane, systems with no pairings in a
document.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pyarrow as pa
import pytest
from iescore.pipeline.campaign import html_report
from iescore.pipeline.campaign.html_report import CampaignReport, DocumentView, Pairing, SystemRow
from iescore.schemas import PAGE_VIEW, C

SYSTEMS = ["one", "two", "three", "four"]


def pairings_of(rng: random.Random, text: str, system: int) -> list[Pairing]:
    found = []
    for i in range(rng.randrange(0, 7)):
        level = rng.random()
        if level < 0.15:  # an object pairing: pointers, no slot, no spans
            found.append(
                Pairing(
                    "EVENT", None, f"<EVENT-{i}>", rng.choice([None, f"<EVENT-{i + 1}>"]), None, None, "COR"
                )
            )
            continue
        start = rng.choice([2, 5, 9])  # few spans: references repeat across systems
        span = (start, start + rng.randrange(0, 2))
        ref = rng.choice([None, "fill a", "fill b", "\U0001f600 fill"])
        hyp = rng.choice([None, "fill a", f"hyp {system}", "fill b"])
        categories = rng.choice(["content:COR extent:COR", "content:INC", "extent:MIS", "content:SPU", "COR"])
        found.append(
            Pairing(
                rng.choice(["EVENT", "TEMPLATE"]),
                rng.choice(["WINNER", "LOSER", "EVENT"]),
                ref,
                hyp,
                None if ref is None or rng.random() < 0.2 else span,
                None if hyp is None or rng.random() < 0.2 else (span[0], min(len(text), span[1] + 1)),
                categories,
            )
        )
    return found


def reports(seed: int) -> tuple[CampaignReport, CampaignReport]:
    rng = random.Random(seed)
    documents = []
    for d in range(6):
        text = "".join(rng.choice(["a", "b", " ", "\U0001f600", "é"]) for _ in range(40))
        documents.append(
            DocumentView(
                f"D{d}",
                text,
                {name: pairings_of(rng, text, s) for s, name in enumerate(SYSTEMS) if rng.random() < 0.8},
            )
        )
    board = [
        SystemRow(rank, name, {}, {"F": 0.5, "REC": 0.5, "PRE": 0.5}, {}, "sig")
        for rank, name in enumerate(["three", "one", "four", "two"], start=1)
    ]
    objects = CampaignReport("t", "n", board, {}, {}, documents, 9, 10, 1)
    rows = []
    for document in documents:
        for name, found in document.pairings.items():
            for p in found:
                rows.append(
                    {
                        C.doc_id: document.doc_id,
                        C.instance_type: p.instance_type,
                        C.slot: p.slot,
                        C.ref: p.ref,
                        C.hyp: p.hyp,
                        C.ref_start: None if p.ref_span is None else p.ref_span[0],
                        C.ref_end: None if p.ref_span is None else p.ref_span[1],
                        C.hyp_start: None if p.hyp_span is None else p.hyp_span[0],
                        C.hyp_end: None if p.hyp_span is None else p.hyp_span[1],
                        C.categories: p.categories,
                        "system": name,
                    }
                )
    schema = PAGE_VIEW.append(pa.field("system", pa.string()))
    table = pa.Table.from_pylist(rows, schema=schema)
    # Rows of one system need not be together, only in their own order.
    table = table.take(pa.array(sorted(range(len(rows)), key=lambda i: (rows[i]["system"] != "two", i))))
    columns = dataclasses.replace(
        objects, documents=[DocumentView(d.doc_id, d.text, {}) for d in documents], pairing_rows=table
    )
    return objects, columns


@pytest.mark.parametrize("seed", range(12))
def test_the_page_from_one_table_is_the_page_from_pairings(seed: int) -> None:
    objects, columns = reports(seed)
    assert html_report.render_campaign_html(columns) == html_report.render_campaign_html(objects)


def test_a_span_outside_its_text_is_refused_from_the_table_too() -> None:
    _, columns = reports(3)
    table = columns.pairing_rows
    assert table is not None
    starts = table.column(C.ref_start).to_pylist()
    row = next(i for i, value in enumerate(starts) if value is not None)
    ends = table.column(C.ref_end).to_pylist()
    ends[row] = 10_000
    broken = table.set_column(table.schema.get_field_index(C.ref_end), C.ref_end, pa.array(ends, pa.int64()))
    with pytest.raises(ValueError, match="outside the text"):
        html_report.render_campaign_html(dataclasses.replace(columns, pairing_rows=broken))


# --- The one CSV writer --------------------------------------------------------------------------


def test_csv_text_keeps_integers_whole_beside_nulls_and_quotes_as_csv_does() -> None:
    from iescore.tasks.campaign.csvfile import csv_text

    table = pa.table(
        {
            "count": pa.array([3, None], pa.int64()),
            "name": pa.array(['say "hi", then go', None], pa.string()),
            "value": pa.array([0.1 + 0.2, None], pa.float64()),
        }
    )
    # Written by hand: an integer column with a null stays "3" (not "3.0"); a field holding a comma or a
    # quote is quoted with its quotes doubled; a null is an empty field; a float is its shortest repr.
    assert csv_text(table) == 'count,name,value\n3,"say ""hi"", then go",0.30000000000000004\n,,\n'


# --- The per-document view's JSON made before the page (``CampaignReport.embedded``) -------------


def test_json_made_before_is_used_only_for_its_own_rows_in_the_pages_order() -> None:
    _, columns = reports(5)
    assert columns.pairing_rows is not None
    page = html_report.render_campaign_html(columns)
    order = ["three", "one", "four", "two"]  # the leaderboard's
    made = html_report.embedded_rows(columns.documents, columns.pairing_rows, order)
    # Made in the page's order from the report's own rows: the page's JSON, and the page uses it.
    assert made.payload in page
    assert html_report.render_campaign_html(dataclasses.replace(columns, embedded=made)) == page
    marked = dataclasses.replace(made, payload="MADE-BEFORE")
    assert "MADE-BEFORE" in html_report.render_campaign_html(dataclasses.replace(columns, embedded=marked))
    # Another order, equal copies of the rows or documents: the page makes its own, the same page.
    others = [
        dataclasses.replace(marked, systems=tuple(sorted(order))),
        dataclasses.replace(marked, rows=columns.pairing_rows.slice(0)),
        dataclasses.replace(marked, documents=list(columns.documents)),
    ]
    for other in others:
        assert html_report.render_campaign_html(dataclasses.replace(columns, embedded=other)) == page


def test_json_made_before_was_checked_and_a_page_without_it_checks_its_rows() -> None:
    _, columns = reports(3)
    table = columns.pairing_rows
    assert table is not None
    ends = table.column(C.ref_end).to_pylist()
    ends[next(i for i, value in enumerate(ends) if value is not None)] = 10_000
    broken = table.set_column(table.schema.get_field_index(C.ref_end), C.ref_end, pa.array(ends, pa.int64()))
    with pytest.raises(ValueError, match="outside the text"):
        html_report.embedded_rows(columns.documents, broken, ["three", "one", "four", "two"])
    # JSON made from other rows does not spare the page's own rows their check.
    made = html_report.embedded_rows(columns.documents, table, ["three", "one", "four", "two"])
    with pytest.raises(ValueError, match="outside the text"):
        html_report.render_campaign_html(dataclasses.replace(columns, pairing_rows=broken, embedded=made))


@pytest.mark.parametrize("scale", [1, 10**15])
def test_groups_are_numbered_in_order_of_first_appearance(scale: int) -> None:
    """``_groups_in_order`` against a dict: its folded keys, re-ranked before they would overflow (a
    column of huge values), number each row's group as the dict meets it."""
    rng = np.random.default_rng(scale % 97)
    keys = rng.integers(-3, 4, size=(500, 5)) * np.array([1, scale, 1, scale, 1])
    seen: dict[tuple[int, ...], int] = {}
    expected, repeats = [], []
    for row in map(tuple, keys.tolist()):
        repeats.append(row in seen)
        expected.append(seen.setdefault(row, len(seen)))
    number, repeated = html_report._groups_in_order(keys)
    assert number.tolist() == expected and repeated.tolist() == repeats
    empty = html_report._groups_in_order(np.zeros((0, 3), dtype=np.int64))
    assert empty[0].tolist() == [] and empty[1].tolist() == []
