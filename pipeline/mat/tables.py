"""The reported rows of one MAT table with the fixed-span and confidence columns (issue 12, points 5, 8).

``pipeline.mat.measures.score_table`` gives every table's rows (per file, then the corpus) with the
counts and precision, recall, fmeasure. Here each table gets what MATScore adds around them: in the
fixed-span tables the seed's four accuracy columns (after fmeasure), and with confidence data three
columns (mean, variance, standard deviation over resampled corpora) right after each measure, on the
corpus rows only (a file's row is not resampled). The same rows feed the text tables, the JSON and the
CSV files, so the three always agree.
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import filled, scalar, to_arrow
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.mat.confidence import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    confidence_data,
    insert_confidence,
)
from iescore.pipeline.mat.fixed import accuracy_columns
from iescore.pipeline.mat.measures import ALL, MEASURE_COLUMNS, rates, report_columns
from iescore.pipeline.mat.report import HEADERS, TITLES, UNIT_HEADERS, format_grid
from iescore.schemas import C

#: The tables in MATScore's order.
TABLES = ("tag", "token", "pseudo_token", "character")


def report_rows(
    scores: pa.Table,
    table: str,
    *,
    tag_span_details: bool = False,
    confidence: pd.DataFrame | None = None,
) -> pa.Table:
    """One table's rows of ``scores`` (``MAT_SCORES``), per file then the corpus, in MATScore's columns.

    Columns: file, then :func:`pipeline.mat.measures.report_columns` (our names: ``test_docs``,
    ``test_units``...), then in fixed-span tables the accuracy columns; ``confidence`` (from
    :func:`table_confidence`) puts its columns after each measure, filled on the corpus rows only.
    """
    rows = scores.filter(pc.equal(scores.column(C.table), scalar(table)))
    rows = rows.select(["file", *report_columns(table, tag_span_details)])
    if table != "tag":
        for name, values in accuracy_columns(
            filled(rows.column(C.test_units), 0),
            filled(rows.column(C.refclash), 0),
            filled(rows.column(C.missing), 0),
            filled(rows.column(C.spurious), 0),
        ).items():
            rows = rows.append_column(name, to_arrow(values))
    if confidence is None:
        return rows
    frame = rows.to_pandas()
    merged = insert_confidence(frame, confidence)
    added = [column for column in merged.columns if column not in frame.columns]
    merged.loc[merged[C.file] != ALL, added] = np.nan
    return pa.Table.from_pandas(merged, preserve_index=False)


def table_confidence(
    counts: pd.DataFrame, table: str, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> pd.DataFrame:
    """The confidence data of one table from its per-file ``MAT_COUNTS`` rows (MATScore's measures)."""
    rows = counts[counts[C.table] == table]
    return confidence_data(rows, rates, fixed_span=table != "tag", resamples=resamples, seed=seed)


def headers(columns: list[str], table: str) -> list[str]:
    """MATScore's header of each column (``test docs``, ``test toks`` / ``test pseudo-toks`` / ``test
    chars``); other columns keep their names."""
    return [UNIT_HEADERS[table] if c == "test_units" else HEADERS.get(c, c) for c in columns]


def table_text(rows: pa.Table, table: str) -> str:
    """The corpus rows of :func:`report_rows` as a titled text block (three decimals, ``-`` undefined)."""
    corpus = rows.filter(pc.equal(rows.column(C.file), scalar(ALL)))
    columns = [c for c in rows.column_names if c != "file"]
    values = [corpus.column(c).to_pylist() for c in columns]
    cells = [
        [_cell(value, column) for column, value in zip(columns, row, strict=True)]
        for row in zip(*values, strict=True)
    ]
    return f"{TITLES[table]}\n" + format_grid(headers(columns, table), cells)


def is_measure(column: str) -> bool:
    """A column shown with three decimals (a measure, an accuracy, a confidence statistic)."""
    return column in MEASURE_COLUMNS or column.endswith(
        ("_accuracy", "_error_rate", "_mean", "_variance", "_stddev")
    )


def _cell(value: object, column: str) -> str:
    if is_measure(column):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "-"
        return f"{float(value):.3f}"
    return str(value)
