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

import numpy as np
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.mat.tally import COUNT_COLUMNS, DETAIL_COLUMNS
from iescore.schemas import C

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
    match = np.asarray(sums[C.match], dtype=np.float64)
    reftotal = (
        match + np.asarray(sums[C.refclash], dtype=np.float64) + np.asarray(sums[C.missing], np.float64)
    )
    hyptotal = (
        match + np.asarray(sums[C.hypclash], dtype=np.float64) + np.asarray(sums[C.spurious], np.float64)
    )
    precision = np.divide(match, hyptotal, out=np.ones_like(match), where=hyptotal > 0)
    recall = np.divide(match, reftotal, out=np.ones_like(match), where=reftotal > 0)
    total = precision + recall
    fmeasure = np.divide(2 * precision * recall, total, out=np.zeros_like(match), where=total > 0)
    return {C.precision: precision, C.recall: recall, C.fmeasure: fmeasure}


def score_table(
    counts: pd.DataFrame, by_file: bool = False, test_units: Mapping[str, int] | None = None
) -> pd.DataFrame:
    """The reported rows of the tables in ``counts`` (``MAT_COUNTS`` rows, one or more tables).

    Per table: a row per tag and an ``<all>`` row over tags, for the corpus (file ``<all>``), and with
    ``by_file`` also for each file first (files sorted, then the corpus). Tags sorted, ``<all>`` last.
    Columns :data:`SCORE_COLUMNS`. ``test_units`` (file -> test toks): the documents of the tag table,
    so that a comparison with no content annotation at all still has its ``<all>`` rows (all zero
    counts, precision and recall 1.0, F 1.0).
    """
    if test_units is not None and not (counts[C.table] == "tag").any():
        empty = pd.DataFrame(
            {
                C.file: list(test_units),
                C.table: "tag",
                C.tag: NO_TAG,
                **{c: 0 for c in (*COUNT_COLUMNS, *DETAIL_COLUMNS)},
                C.test_units: [int(v) for v in test_units.values()],
            }
        )
        counts = pd.concat([counts, empty], ignore_index=True) if len(counts) else empty
    frames = []
    for table, rows in counts.groupby(C.table, sort=False):
        frames.append(_one_table(str(table), rows, by_file))
    if not frames:
        return pd.DataFrame(columns=list(SCORE_COLUMNS))
    return pd.concat(frames, ignore_index=True)


def _one_table(table: str, counts: pd.DataFrame, by_file: bool) -> pd.DataFrame:
    summed = [*COUNT_COLUMNS, *DETAIL_COLUMNS]
    units = counts.groupby(C.file, sort=True)[C.test_units].first()
    parts = []
    if by_file:
        per_tag = counts.groupby([C.file, C.tag], sort=True)[summed].sum().reset_index()
        per_file = counts.groupby(C.file, sort=True)[summed].sum().reset_index().assign(tag=ALL)
        rows = pd.concat([per_tag, per_file], ignore_index=True)
        rows[C.test_docs] = 1
        rows[C.test_units] = rows[C.file].map(units).astype(np.int64)
        rows["_all"] = rows[C.tag] == ALL
        parts.append(rows.sort_values(["file", "_all", "tag"], kind="stable").drop(columns="_all"))
    corpus_tag = counts.groupby(C.tag, sort=True)[summed].sum().reset_index()
    corpus_all = counts[summed].sum().to_frame().T.assign(tag=ALL)
    corpus = pd.concat([corpus_tag, corpus_all], ignore_index=True).assign(file=ALL)
    corpus[C.test_docs] = len(units)
    corpus[C.test_units] = int(units.sum())
    parts.append(corpus)
    frame = pd.concat(parts, ignore_index=True)
    frame = frame[frame[C.tag] != NO_TAG]
    frame[C.table] = table
    frame[C.refonly] = frame[C.refclash] + frame[C.missing]
    frame[C.reftotal] = frame[C.refonly] + frame[C.match]
    frame[C.hyponly] = frame[C.hypclash] + frame[C.spurious]
    frame[C.hyptotal] = frame[C.hyponly] + frame[C.match]
    for name, values in rates({c: frame[c].to_numpy() for c in COUNT_COLUMNS}).items():
        frame[name] = values
    integer = [c for c in SCORE_COLUMNS if c not in ("file", "table", "tag", *MEASURE_COLUMNS)]
    frame[integer] = frame[integer].astype(np.int64)
    return frame[list(SCORE_COLUMNS)].reset_index(drop=True)


def report_columns(table: str, tag_span_details: bool = False) -> list[str]:
    """The columns MATScore shows for a table, in its order, under our column names: ``--tag_span_details``
    puts the seven reference detail columns before refclash and their twins before hypclash."""
    shown = [c for c in SCORE_COLUMNS if c not in ("file", "table", *DETAIL_COLUMNS)]
    if tag_span_details and table == "tag":
        for side, first in (("ref", "refclash"), ("hyp", "hypclash")):
            at = shown.index(first)
            shown[at:at] = [c for c in DETAIL_COLUMNS if c.startswith(side)]
    return shown
