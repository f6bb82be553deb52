"""What a MAT scoring prints and writes, assembled from the stages' tables and typed options.

``mat_outputs`` takes what the MAT stages made (``MatTables``: the reported scores, the counts, the
pairs, each file's signal, the signature and the notes) and what the user asked for (``MatOptions``,
MATScore's output options) and returns ``MatOutputs``: the text MATScore prints on stdout, the JSON
value, and the CSV files by name (``pipeline.mat.csv_output``). One set of reported rows per table
(``pipeline.mat.tables.report_rows``) feeds the text, the JSON and the CSV files, so they cannot
disagree. Writing the files is the command's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.mat.confidence import DEFAULT_RESAMPLES, DEFAULT_SEED
from iescore.pipeline.mat.csv_output import CSV_FILES, EXCEL_SEPARATOR, score_csv, text_csv
from iescore.pipeline.mat.measures import ALL
from iescore.pipeline.mat.report import confusability, confusability_text, details_frame, details_text
from iescore.pipeline.mat.tables import TABLES, report_rows, table_confidence, table_text
from iescore.schemas import C

#: The details sheet's columns that hold input text (kept from becoming formulas in CSV files).
DETAIL_TEXT_COLUMNS = (C.file, C.type, C.reflabel, C.hyplabel, C.refcontent, C.hypcontent)
#: The confusability rows' columns that hold input text.
CONFUSABILITY_TEXT_COLUMNS = (C.file, C.reference)


@dataclass(frozen=True)
class MatOptions:
    """MATScore's output options: ``tag_span_details`` (refclash/hypclash by span error), ``details``
    (the span-by-span sheet), ``confusability`` (the label matrix), ``confidence`` (bootstrap columns
    from ``resamples`` score sets drawn with ``seed``), ``csv`` (CSV files instead of text on stdout,
    with ``csv_formulas`` and ``csv_separator``), ``json`` (the JSON value is wanted)."""

    tag_span_details: bool = False
    details: bool = False
    confusability: bool = False
    confidence: bool = False
    seed: int = DEFAULT_SEED
    resamples: int = DEFAULT_RESAMPLES
    csv: bool = False
    csv_formulas: bool = True
    csv_separator: str = EXCEL_SEPARATOR
    json: bool = False


@dataclass(frozen=True)
class MatTables:
    """What the MAT stages made, as Arrow tables: ``scores`` (MAT_SCORES), ``counts`` (MAT_COUNTS),
    ``pair_table`` (MAT_PAIRS), ``documents`` (the hypothesis's MAT_DOCUMENTS); the score ``signature``
    and the ``notes`` (tables left out, and why). The pairs and the signals become Python objects only when an
    output asks for them (details, confusability, JSON)."""

    scores: pa.Table
    counts: pa.Table
    pair_table: pa.Table
    documents: pa.Table
    signature: str
    notes: tuple[str, ...] = ()

    @cached_property
    def pairs(self) -> pd.DataFrame:
        """The pairs as a frame."""
        return self.pair_table.to_pandas()

    @cached_property
    def signals(self) -> dict[str, str]:
        """Each document's signal, by file."""
        files, signals = (self.documents.column(name).to_pylist() for name in (C.file, C.signal))
        return dict(zip(files, signals, strict=True))


@dataclass(frozen=True)
class MatOutputs:
    """``text``: what goes to stdout (empty with CSV files); ``json``: the JSON value (None unless asked
    for); ``csv_files``: file name -> contents."""

    text: str
    json: dict[str, Any] | None
    csv_files: dict[str, str] = field(default_factory=dict)


def mat_outputs(tables: MatTables, options: MatOptions) -> MatOutputs:
    """The text, JSON and CSV files of one MAT scoring."""
    reported = report_tables(tables, options)
    blocks = [table_text(rows, table) for table, rows in reported.items()]
    details = details_frame(tables.pairs, tables.signals) if options.details or options.json else None
    if options.details:
        blocks.append(details_text(details))
    matrix = confusability(tables.pairs) if options.confusability or options.json else None
    if options.confusability:
        blocks.append(confusability_text(matrix))
    text = "" if options.csv else "\n".join(blocks) + f"\nsignature: {tables.signature}\n"
    value = mat_json(tables, reported, details, matrix) if options.json else None
    return MatOutputs(text, value, csv_files(tables, reported, options) if options.csv else {})


def report_tables(tables: MatTables, options: MatOptions) -> dict[str, pa.Table]:
    """Each table's reported rows (per file, then the corpus; ``pipeline.mat.tables.report_rows``), in
    MATScore's order, with the accuracy columns in fixed-span tables and, with ``confidence``, the
    confidence columns after each measure."""
    present = set(pc.unique(tables.scores.column(C.table)).to_pylist())
    reported = {}
    for table in TABLES:
        if table not in present:
            continue
        confidence = None
        if options.confidence:
            confidence = table_confidence(
                tables.counts.to_pandas(), table, resamples=options.resamples, seed=options.seed
            )
        reported[table] = report_rows(
            tables.scores, table, tag_span_details=options.tag_span_details, confidence=confidence
        )
    return reported


def csv_files(tables: MatTables, reported: Mapping[str, pa.Table], options: MatOptions) -> dict[str, str]:
    """The CSV files: bytag.csv and each fixed-span table's, details.csv with ``details``,
    confusability.csv with ``confusability`` (``pipeline.mat.csv_output``)."""
    formulas, separator = options.csv_formulas, options.csv_separator
    files = {
        CSV_FILES[table]: score_csv(rows.to_pandas(), table, formulas=formulas, separator=separator)
        for table, rows in reported.items()
    }
    if options.details:
        details = details_frame(tables.pairs, tables.signals)
        files[CSV_FILES["details"]] = text_csv(details, formulas=formulas, text_columns=DETAIL_TEXT_COLUMNS)
    if options.confusability:
        files[CSV_FILES["confusability"]] = text_csv(
            confusability_rows(tables.pairs), formulas=formulas, text_columns=CONFUSABILITY_TEXT_COLUMNS
        )
    return files


def confusability_rows(pairs: pd.DataFrame) -> pd.DataFrame:
    """The confusability matrix of each file, then of the corpus (file ``<all>``), all in the corpus's
    label order: columns file, reference (the row's reference label, ``null`` for spurious), then one
    per hypothesis label and ``null`` (missing)."""
    corpus = confusability(pairs)
    parts = []
    for file, rows in pairs.groupby(C.file, sort=True, observed=True):
        matrix = confusability(rows).reindex(index=corpus.index, columns=corpus.columns, fill_value=0)
        parts.append(_matrix_rows(str(file), matrix))
    parts.append(_matrix_rows(ALL, corpus))
    return pd.concat(parts, ignore_index=True)


def mat_json(
    tables: MatTables,
    reported: Mapping[str, pa.Table],
    details: pd.DataFrame | None,
    matrix: pd.DataFrame | None,
) -> dict[str, Any]:
    """``{"signature", "tables": {table: [rows]}, "notes", "details": [rows], "confusability": {...}}``:
    every row per file and for the corpus (file ``<all>``), measures as fractions of 1 as printed."""
    value: dict[str, Any] = {
        "signature": tables.signature,
        "tables": {
            table: [_plain(row) for row in rows.to_pylist()] for table, rows in reported.items()
        },
    }
    if tables.notes:
        value["notes"] = list(tables.notes)
    if details is not None:
        value["details"] = [_plain(row) for row in details.to_dict(orient="records")]
    if matrix is not None:
        value["confusability"] = {
            "reference": [str(x) for x in matrix.index],
            "hypothesis": [str(x) for x in matrix.columns],
            "counts": [[int(v) for v in row] for row in matrix.to_numpy()],
        }
    return value


#: Measures a JSON row keeps as NaN (undefined) rather than null.
_NAN_MEASURES = (C.precision, C.recall, C.fmeasure)


def _matrix_rows(file: str, matrix: pd.DataFrame) -> pd.DataFrame:
    frame = matrix.astype(np.int64).reset_index()
    frame.columns = [C.reference, *map(str, matrix.columns)]
    frame.insert(0, C.file, file)
    return frame


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, item in row.items():
        if (
            item is None
            or item is pd.NA
            or (isinstance(item, float) and pd.isna(item) and key not in _NAN_MEASURES)
        ):
            out[key] = None
        elif hasattr(item, "item"):
            out[key] = item.item()
        else:
            out[key] = item
    return out
