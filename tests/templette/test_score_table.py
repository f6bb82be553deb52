"""The score tables counted on columns equal those counted group by group from a frame (issue 16).

``score_table`` counts tallies with Arrow and numpy; ``_score_table_frame`` (the earlier code, kept
for tallies with a null key) counts them with pandas, group by group, and computes measures with
``measures``. On random tallies (documents with object points only, types with no fill point, every
category, several betas) both give the same table, row for row and bit for bit.
"""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from iescore.pipeline.templette.report import _score_table_frame, score_table
from iescore.schemas import TALLIES, C

POINTS = st.tuples(
    st.sampled_from(["D2", "D1", "D10"]),
    st.sampled_from(["TEMPLATE", "EVENT"]),
    st.sampled_from(["WINNER", "PLACE", "EVENT"]),
    st.sampled_from(["content", "extent", "pointer", "object", "object"]),
    st.sampled_from(["COR", "INC", "PAR", "MIS", "SPU", "NON"]),
)


def tallies(points: list[tuple[str, str, str, str, str]]) -> pa.Table:
    columns = {name: [None] * len(points) for name in TALLIES.names}
    for i, (doc, type_, slot, aspect, category) in enumerate(points):
        columns[C.doc_id][i] = doc
        columns[C.instance_type][i] = type_
        columns[C.slot][i] = None if aspect == "object" else slot
        columns[C.aspect][i] = aspect
        columns[C.category][i] = category
    return pa.table(columns, schema=TALLIES)


@settings(max_examples=300, deadline=None)
@given(st.lists(POINTS, min_size=1, max_size=60), st.sampled_from([1.0, 0.5, 2.0, 3.0]))
def test_columns_and_frame_give_the_same_scores(points, beta: float) -> None:
    table = tallies(points)
    got, expected = score_table(table, beta), _score_table_frame(table, beta)
    assert got.to_pylist() == expected.to_pylist()
    assert got.equals(expected)


def test_a_document_with_object_points_only_gets_a_row_of_zeros() -> None:
    # D2 has one object point and no fill point: its document row counts nothing (REC undefined).
    table = tallies([("D1", "EVENT", "WINNER", "content", "COR"), ("D2", "EVENT", "", "object", "MIS")])
    rows = {(r[C.scope], r[C.doc_id]): r for r in score_table(table).to_pylist()}
    assert rows[("document", "D2")]["POS"] == 0 and rows[("document", "D2")]["REC"] is None
    assert rows[("document", "D1")]["COR"] == 1 and rows[("document", "D1")]["F"] == 1.0
    assert rows[("object", None)]["MIS"] == 1
