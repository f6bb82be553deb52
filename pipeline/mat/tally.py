"""The tag-level counts of a MAT comparison: per document and tag (issue 12, point 4; seed 002).

From the pairs of :mod:`pipeline.mat.pairing`: a **match** counts under its label; a clash counts as
**refclash** under the reference label and **hypclash** under the hypothesis label, and in exactly one
of the seven span-detail columns of each side (seed 002, "Optional tag-level score columns"); an
unpaired reference annotation is **missing**, an unpaired hypothesis one **spurious**. ``test_units``
is the number of token annotations of the hypothesis document (the seed's "test toks").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import filled, scalar, strings, to_arrow
from iescore.schemas import MAT_COUNTS, C

COUNT_COLUMNS = ("match", "refclash", "missing", "hypclash", "spurious")
DETAIL_KINDS = (
    "tagclash",
    "overmark",
    "undermark",
    "overlap",
    "tagplusovermark",
    "tagplusundermark",
    "tagplusoverlap",
)
DETAIL_COLUMNS = tuple(f"{side}{kind}" for side in ("ref", "hyp") for kind in DETAIL_KINDS)
COUNTS_COLUMNS = ("file", "table", "tag", *COUNT_COLUMNS, *DETAIL_COLUMNS, "test_units")

#: A clash's detail type (hypothesis's view) -> (reference column, hypothesis column). The hypothesis
#: covering the reference is the reference's undermark (seed: "also trigger the corresponding
#: hypovermark column").
CLASH_COLUMNS = {
    "tagclash": ("reftagclash", "hyptagclash"),
    "overmark": ("refundermark", "hypovermark"),
    "undermark": ("refovermark", "hypundermark"),
    C.overlap: ("refoverlap", "hypoverlap"),
    "tagplusovermark": ("reftagplusundermark", "hyptagplusovermark"),
    "tagplusundermark": ("reftagplusovermark", "hyptagplusundermark"),
    "tagplusoverlap": ("reftagplusoverlap", "hyptagplusoverlap"),
}


def tag_counts(
    annotations: pa.Table, pairs: pa.Table, files: Sequence[str], labels: Sequence[str] | None = None
) -> pa.Table:
    """The ``MAT_COUNTS`` rows of the tag table (``annotations``: ``MAT_ANNOTATIONS`` of both sides;
    ``pairs``: ``MAT_PAIRS``): one per (file, tag) for every file of ``files`` and every label of
    ``labels`` (default: the sorted labels of the content annotations of both sides), zeros included,
    so that every document brings its ``test_units`` and counts as a test doc."""
    is_content = pc.equal(annotations.column(C.kind), scalar("content"))
    if labels is None:
        found = pc.unique(annotations.column(C.label).filter(is_content))
        labels = sorted(found.to_pylist())
    files = sorted(files)
    file_index = strings(list(files))
    label_index = strings(list(labels))
    names = COUNTS_COLUMNS[3:]
    width = len(names)
    column_of = {name: k for k, name in enumerate(names)}

    # Every pair row adds to one or two cells per side: (file, label, column) -> +1.
    type_names = ["match", "missing", "spurious", *CLASH_COLUMNS]
    kind = _codes(strings(type_names), pairs.column(C.type), "pair type")
    f = _codes(file_index, pairs.column(C.file), "file")
    ref_label = filled(pc.index_in(pairs.column(C.reflabel), value_set=label_index), -1).astype(np.int64)
    hyp_label = filled(pc.index_in(pairs.column(C.hyplabel), value_set=label_index), -1).astype(np.int64)
    is_clash = kind >= 3
    ref_detail = np.array([0, 0, 0, *(column_of[c[0]] for c in CLASH_COLUMNS.values())])[kind]
    hyp_detail = np.array([0, 0, 0, *(column_of[c[1]] for c in CLASH_COLUMNS.values())])[kind]
    entries = [
        (kind == 0, ref_label, np.full(len(kind), column_of[C.match])),
        (kind == 1, ref_label, np.full(len(kind), column_of[C.missing])),
        (kind == 2, hyp_label, np.full(len(kind), column_of[C.spurious])),
        (is_clash, ref_label, np.full(len(kind), column_of[C.refclash])),
        (is_clash, ref_label, ref_detail),
        (is_clash, hyp_label, np.full(len(kind), column_of[C.hypclash])),
        (is_clash, hyp_label, hyp_detail),
    ]
    cells = []
    for mask, label, column in entries:
        if (label[mask] < 0).any():
            raise ValueError("a paired annotation's label is not among the labels counted")
        cells.append(((f[mask] * len(labels) + label[mask]) * width + column[mask]).astype(np.int64))
    flat = np.bincount(np.concatenate(cells), minlength=len(files) * len(labels) * width)
    values = flat.reshape(len(files) * len(labels), width).astype(np.int64)

    per_file = hypothesis_tokens(annotations, files)
    values[:, column_of[C.test_units]] = np.repeat(per_file, len(labels))
    rows = len(files) * len(labels)
    keys = [
        _repeated(file_index, np.repeat(np.arange(len(files), dtype=np.int32), len(labels))),
        _repeated(strings(["tag"]), np.zeros(rows, dtype=np.int32)),
        _repeated(label_index, np.tile(np.arange(len(labels), dtype=np.int32), len(files))),
    ]
    counted = [to_arrow(np.ascontiguousarray(values[:, k])) for k in range(width)]
    return pa.Table.from_arrays([*keys, *counted], schema=MAT_COUNTS)


def _repeated(values: pa.Array, index: np.ndarray) -> pa.Array:
    """``values`` taken at ``index`` as a plain string column (through a dictionary: no Python string)."""
    return pa.DictionaryArray.from_arrays(to_arrow(index), values).cast(pa.string())


def hypothesis_tokens(annotations: pa.Table, files: Sequence[str]) -> np.ndarray:
    """The test toks of each of ``files``: its hypothesis token annotations (``MAT_ANNOTATIONS``)."""
    tokens = pc.and_(
        pc.equal(annotations.column(C.kind), scalar("token")),
        pc.equal(annotations.column(C.side), scalar("hyp")),
    )
    token_files = annotations.column(C.file).filter(tokens)
    if len(token_files) == 0:  # no token annotation (a filtered column of no chunk)
        return np.zeros(len(files), dtype=np.int64)
    codes = _codes(strings(list(files)), token_files, "file")
    return np.bincount(codes, minlength=len(files)).astype(np.int64)


def _codes(index: pa.Array, values: pa.ChunkedArray | pa.Array, what: str) -> np.ndarray:
    codes = filled(pc.index_in(values, value_set=index), -1).astype(np.int64)
    if (codes < 0).any():
        missing = values[int(np.argmax(codes < 0))].as_py()
        raise ValueError(f"{what} {missing!r} is not among {index.to_pylist()[:10]}")
    return codes
