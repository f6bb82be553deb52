"""MAT's reported tables from per-document counts (issue 12, point 4; seed 002, "All score tables").

``refonly = refclash + missing``, ``reftotal = refonly + match``, ``hyponly = hypclash + spurious``,
``hyptotal = hyponly + match``, ``precision = match / hyptotal``, ``recall = match / reftotal``,
``fmeasure = 2PR / (P + R)``, with MATScore's conventions for empty denominators: precision is 1.0 when
hyptotal is 0 (nothing proposed, nothing wrong), recall 1.0 when reftotal is 0, and F is 0 when
P + R is 0. So every measure is defined; the JSON never holds ``null`` for them.

``test docs`` is the number of documents of the row (every document for ``<all>`` rows), ``test toks``
(``test_units``) the sum of the documents' test units: the same on every tag row of a table, as the seed
says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import codes, filled, scalar, strings, to_arrow
from iescore.pipeline.mat.tally import COUNT_COLUMNS, DETAIL_COLUMNS
from iescore.schemas import MAT_COUNTS, MAT_SCORES, C

ALL = "<all>"
#: A placeholder tag carrying the documents of a table without any tag (never reported).
NO_TAG = "\x00no tag"
MEASURE_COLUMNS = ("precision", "recall", "fmeasure")
#: The reported table's columns (``schemas.MAT_SCORES``), without the span details' order (see
#: :func:`report_columns`).
SCORE_COLUMNS = (
    "file",
    "table",
    "tag",
    "test_docs",
    "test_units",
    "match",
    "refclash",
    "missing",
    "refonly",
    "reftotal",
    "hypclash",
    "spurious",
    "hyponly",
    "hyptotal",
    *DETAIL_COLUMNS,
    *MEASURE_COLUMNS,
)


def rates(sums: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Precision, recall and F of summed counts (arrays of any shape), MATScore's conventions."""
    return rates_of_totals(*count_totals(sums))


def count_totals(sums: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """match, reftotal (match + refclash + missing) and hyptotal (match + hypclash + spurious): what
    the rates read of summed counts."""
    match = np.asarray(sums[C.match], dtype=np.float64)
    reftotal = (
        match + np.asarray(sums[C.refclash], dtype=np.float64) + np.asarray(sums[C.missing], np.float64)
    )
    hyptotal = (
        match + np.asarray(sums[C.hypclash], dtype=np.float64) + np.asarray(sums[C.spurious], np.float64)
    )
    return match, reftotal, hyptotal


def rates_of_totals(match: np.ndarray, reftotal: np.ndarray, hyptotal: np.ndarray) -> dict[str, np.ndarray]:
    """Precision, recall and F of ``count_totals``, MATScore's conventions."""
    precision = np.divide(match, hyptotal, out=np.ones_like(match), where=hyptotal > 0)
    recall = np.divide(match, reftotal, out=np.ones_like(match), where=reftotal > 0)
    total = precision + recall
    fmeasure = np.divide(2 * precision * recall, total, out=np.zeros_like(match), where=total > 0)
    return {C.precision: precision, C.recall: recall, C.fmeasure: fmeasure}


def score_table(
    counts: pa.Table, by_file: bool = False, test_units: Mapping[str, int] | None = None
) -> pa.Table:
    """The reported rows of the tables in ``counts`` (``MAT_COUNTS`` rows, one or more tables), as a
    ``MAT_SCORES`` table (numpy sums over integer codes: no frame).

    Per table: a row per tag and an ``<all>`` row over tags, for the corpus (file ``<all>``), and with
    ``by_file`` also for each file first (files sorted, then the corpus). Tags sorted, ``<all>`` last.
    Columns :data:`SCORE_COLUMNS`. ``test_units`` (file -> test toks): the documents of the tag table,
    so that a comparison with no content annotation at all still has its ``<all>`` rows (all zero
    counts, precision and recall 1.0, F 1.0).
    """
    counts = counts.select(list(MAT_COUNTS.names)).cast(MAT_COUNTS)
    if test_units is not None and not pc.any(pc.equal(counts.column(C.table), scalar("tag"))).as_py():
        n = len(test_units)
        zeros = to_arrow(np.zeros(n, dtype=np.int64))
        extra = pa.Table.from_arrays(
            [
                strings(list(test_units)),
                strings(["tag"] * n),
                strings([NO_TAG] * n),
                *([zeros] * (len(MAT_COUNTS.names) - 4)),
                to_arrow(np.array([int(v) for v in test_units.values()], dtype=np.int64)),
            ],
            schema=MAT_COUNTS,
        )
        counts = pa.concat_tables([counts, extra])
    table_codes, table_names = codes(counts.column(C.table), sort=False)
    parts = [
        _one_table(str(table), counts.filter(to_arrow(table_codes == k)), by_file)
        for k, table in enumerate(table_names.to_pylist())
    ]
    if not parts:
        return MAT_SCORES.empty_table()
    arrays = [
        pa.concat_arrays([part[name] for part in parts])
        if name in (C.file, C.table, C.tag)
        else to_arrow(np.concatenate([part[name] for part in parts]), MAT_SCORES.field(name).type)
        for name in SCORE_COLUMNS
    ]
    return pa.Table.from_arrays(arrays, schema=MAT_SCORES)


def _one_table(table: str, counts: pa.Table, by_file: bool) -> dict[str, Any]:
    """One table's rows as columns, strings as Arrow arrays (see :func:`score_table`)."""
    summed = [*COUNT_COLUMNS, *DETAIL_COLUMNS]
    values = np.stack([filled(counts.column(c), 0).astype(np.int64) for c in summed], axis=1)
    units = filled(counts.column(C.test_units), 0).astype(np.int64)
    file_code, file_names = codes(counts.column(C.file), sort=True)
    tag_code, tag_names = codes(counts.column(C.tag), sort=True)
    n_files, n_tags = len(file_names), len(tag_names)
    # A file's test units: those of its first row.
    first_row = np.full(n_files, len(file_code), dtype=np.int64)
    np.minimum.at(first_row, file_code, np.arange(len(file_code), dtype=np.int64))
    file_units = units[first_row] if len(file_code) else np.zeros(0, dtype=np.int64)
    no_tag = tag_names.to_pylist().index(NO_TAG) if NO_TAG in tag_names.to_pylist() else -1

    def sums(groups: np.ndarray, size: int) -> np.ndarray:
        columns = [np.bincount(groups, weights=values[:, k], minlength=size) for k in range(len(summed))]
        return np.stack(columns, axis=1).round().astype(np.int64).reshape(size, len(summed))

    out_file, out_tag, out_values, out_docs, out_units = [], [], [], [], []
    if by_file:
        # Per file: its tags present (sorted), then its <all> row (tag code n_tags).
        pair = file_code * n_tags + tag_code
        present = np.unique(pair)
        row_file = np.concatenate([present // max(n_tags, 1), np.arange(n_files)])
        row_tag = np.concatenate([present % max(n_tags, 1), np.full(n_files, n_tags)])
        per_pair = sums(np.searchsorted(present, pair), len(present))
        row_values = np.concatenate([per_pair, sums(file_code, n_files)])
        order = np.lexsort((row_tag, row_file))
        keep = order[row_tag[order] != no_tag]
        out_file.append(row_file[keep])
        out_tag.append(row_tag[keep])
        out_values.append(row_values[keep])
        out_docs.append(np.ones(len(keep), dtype=np.int64))
        out_units.append(file_units[row_file[keep]])
    corpus_tag = np.array([k for k in range(n_tags) if k != no_tag] + [n_tags], dtype=np.int64)
    out_file.append(np.full(len(corpus_tag), n_files, dtype=np.int64))  # n_files: <all>
    out_tag.append(corpus_tag)
    out_values.append(np.concatenate([sums(tag_code, n_tags), values.sum(axis=0, keepdims=True)])[corpus_tag])
    out_docs.append(np.full(len(corpus_tag), n_files, dtype=np.int64))
    out_units.append(np.full(len(corpus_tag), int(file_units.sum()), dtype=np.int64))
    counted = np.concatenate(out_values)
    labels = {C.file: (file_names, out_file), C.tag: (tag_names, out_tag)}
    columns: dict[str, Any] = {
        name: _labels(names, np.concatenate(numbers)) for name, (names, numbers) in labels.items()
    }
    columns[C.table] = _labels(strings([table]), np.zeros(len(counted), dtype=np.int64))
    columns[C.test_docs] = np.concatenate(out_docs)
    columns[C.test_units] = np.concatenate(out_units)
    columns.update({name: counted[:, k] for k, name in enumerate(summed)})
    columns[C.refonly] = columns[C.refclash] + columns[C.missing]
    columns[C.reftotal] = columns[C.refonly] + columns[C.match]
    columns[C.hyponly] = columns[C.hypclash] + columns[C.spurious]
    columns[C.hyptotal] = columns[C.hyponly] + columns[C.match]
    columns.update(rates({c: columns[c] for c in COUNT_COLUMNS}))
    return columns


def _labels(names: pa.Array, codes: np.ndarray) -> pa.Array:
    """``names`` followed by ``<all>``, taken at ``codes`` (``len(names)`` is ``<all>``)."""
    dictionary = pa.concat_arrays([names.cast(pa.string()), strings([ALL])])
    return pa.DictionaryArray.from_arrays(to_arrow(codes.astype(np.int32)), dictionary).cast(pa.string())


def report_columns(table: str, tag_span_details: bool = False) -> list[str]:
    """The columns MATScore shows for a table, in its order, under our column names: ``--tag_span_details``
    puts the seven reference detail columns before refclash and their twins before hypclash."""
    shown = [c for c in SCORE_COLUMNS if c not in ("file", "table", *DETAIL_COLUMNS)]
    if tag_span_details and table == "tag":
        for side, first in (("ref", "refclash"), ("hyp", "hypclash")):
            at = shown.index(first)
            shown[at:at] = [c for c in DETAIL_COLUMNS if c.startswith(side)]
    return shown
