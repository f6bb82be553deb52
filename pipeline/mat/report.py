"""MATScore's outputs as text (issue 12, points 6 and 9): score tables, details, confusability.

Without ``--csv_output_dir`` MATScore formats its tables on standard output; ours print one block per
table, titled ``By tag``, ``By token``, ``By pseudo-token``, ``By character``, ``Details``,
``Confusability``, each a header line and one line per row, columns right-aligned to their widest cell,
separated by two spaces, measures with three decimals. The tag tables show the corpus rows (file
``<all>``): a row per tag, then ``<all>``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.mat.measures import ALL, MEASURE_COLUMNS, report_columns
from iescore.schemas import MAT_DETAILS, C

TITLES = {
    C.tag: "By tag",
    "token": "By token",
    "pseudo_token": "By pseudo-token",
    "character": "By character",
}
#: MATScore's column headers for our column names.
HEADERS = {C.test_docs: "test docs", C.test_units: "test toks"}
UNIT_HEADERS = {
    C.tag: "test toks",
    "token": "test toks",
    "pseudo_token": "test pseudo-toks",
    "character": "test chars",
}
DETAIL_COLUMNS = tuple(MAT_DETAILS.names)
NULL_LABEL = "null"


def text_table(
    scores: pd.DataFrame, table: str, tag_span_details: bool = False, extra: Sequence[str] = ()
) -> str:
    """The corpus rows of one reported table as text (``extra``: further columns, e.g. accuracy)."""
    rows = scores[(scores[C.table] == table) & (scores[C.file] == ALL)]
    columns = [*report_columns(table, tag_span_details), *extra]
    headers = [UNIT_HEADERS[table] if c == "test_units" else HEADERS.get(c, c) for c in columns]
    cells = [[_cell(row[c], c) for c in columns] for _, row in rows.iterrows()]
    return f"{TITLES.get(table, table)}\n" + format_grid(headers, cells)


def format_grid(headers: Sequence[str], cells: Sequence[Sequence[str]]) -> str:
    """Right-aligned columns, two spaces apart, a newline after every line."""
    widths = [max([len(h), *(len(r[k]) for r in cells)]) for k, h in enumerate(headers)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(lines) + "\n"


def details_frame(pairs: pd.DataFrame, signals: Mapping[str, str]) -> pd.DataFrame:
    """The details sheet (seed 002, "Details"): one row per pair or unpaired annotation, with the text
    each side's span covers (``refcontent``, ``hypcontent``; empty where there is no annotation)."""
    frame = pairs[[C.file, C.type, C.reflabel, C.refstart, C.refend, C.hyplabel, C.hypstart, C.hypend]].copy()
    frame[C.refcontent] = _contents(pairs[C.file], pairs[C.refstart], pairs[C.refend], signals)
    frame[C.hypcontent] = _contents(pairs[C.file], pairs[C.hypstart], pairs[C.hypend], signals)
    return frame[list(DETAIL_COLUMNS)]


def details_text(details: pd.DataFrame) -> str:
    """The details sheet as text (contents shown with ``repr``-style escapes of newlines and tabs)."""
    cells = [
        [
            "" if pd.isna(value) else _escape(str(value)) if name.endswith("content") else str(value)
            for name, value in zip(DETAIL_COLUMNS, row, strict=True)
        ]
        for row in details[list(DETAIL_COLUMNS)].itertuples(index=False)
    ]
    return "Details\n" + format_grid(list(DETAIL_COLUMNS), cells)


def confusability(pairs: pd.DataFrame) -> pd.DataFrame:
    """Label x label counts (reference rows, hypothesis columns) over the pairs that are a match or a
    tag clash (same span, another label), with a ``null`` row (spurious annotations, by hypothesis label)
    and a ``null`` column (missing annotations, by reference label). Labels sorted, ``null`` last."""
    kept = pairs[pairs[C.type].isin(["match", "tagclash", "missing", "spurious"])]
    ref = kept[C.reflabel].fillna(NULL_LABEL).astype(str)
    hyp = kept[C.hyplabel].fillna(NULL_LABEL).astype(str)
    labels = sorted(
        (set(ref) | set(hyp) | set(pairs[C.reflabel].dropna()) | set(pairs[C.hyplabel].dropna()))
        - {NULL_LABEL}
    )
    order = [*labels, NULL_LABEL]
    matrix = pd.crosstab(ref, hyp).reindex(index=order, columns=order, fill_value=0).astype(np.int64)
    matrix.loc[NULL_LABEL, NULL_LABEL] = 0
    matrix.index.name = "reference"
    matrix.columns.name = "hypothesis"
    return matrix


def confusability_text(matrix: pd.DataFrame) -> str:
    headers = ["ref \\ hyp", *map(str, matrix.columns)]
    cells = [
        [str(label), *(str(int(v)) for v in row)]
        for label, row in zip(matrix.index, matrix.to_numpy(), strict=True)
    ]
    return "Confusability\n" + format_grid(headers, cells)


def _cell(value: object, column: str) -> str:
    if column in MEASURE_COLUMNS or column.endswith(
        ("_accuracy", "_error_rate", "_mean", "_variance", "_stddev")
    ):
        if value is None or (isinstance(value, float) and np.isnan(value)):
            return "-"
        return f"{float(value):.3f}"
    return str(value)


def _contents(files: pd.Series, starts: pd.Series, ends: pd.Series, signals: Mapping[str, str]) -> list[str]:
    out = []
    for file, start, end in zip(files, starts, ends, strict=True):
        out.append("" if pd.isna(start) else signals[file][int(start) : int(end)])
    return out


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
