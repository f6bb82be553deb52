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
from iescore.pipeline.core.lazy import pd
from iescore.schemas import C

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
    annotations: pd.DataFrame, pairs: pd.DataFrame, files: Sequence[str], labels: Sequence[str] | None = None
) -> pd.DataFrame:
    """The ``MAT_COUNTS`` rows of the tag table: one per (file, tag) for every file of ``files`` and
    every label of ``labels`` (default: the sorted labels of the content annotations of both sides),
    zeros included, so that every document brings its ``test_units`` and counts as a test doc."""
    content = annotations[annotations[C.kind] == "content"]
    if labels is None:
        labels = sorted(pd.unique(content[C.label]).tolist())
    files = sorted(files)
    file_index = pd.Index(files, dtype=object)
    label_index = pd.Index(list(labels), dtype=object)
    names = COUNTS_COLUMNS[3:]
    width = len(names)
    column_of = {name: k for k, name in enumerate(names)}

    # Every pair row adds to one or two cells per side: (file, label, column) -> +1.
    type_names = ["match", "missing", "spurious", *CLASH_COLUMNS]
    kind = _codes(pd.Index(type_names, dtype=object), pairs[C.type], "pair type")
    f = _codes(file_index, pairs[C.file], "file")
    ref_label = label_index.get_indexer(pairs[C.reflabel])
    hyp_label = label_index.get_indexer(pairs[C.hyplabel])
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

    tokens = annotations[(annotations[C.kind] == "token") & (annotations[C.side] == "hyp")]
    per_file = np.bincount(_codes(file_index, tokens[C.file], "file"), minlength=len(files))
    values[:, column_of[C.test_units]] = np.repeat(per_file, len(labels))
    frame = pd.DataFrame(values, columns=list(names))
    frame.insert(0, "tag", np.tile(np.asarray(list(labels), dtype=object), len(files)))
    frame.insert(0, "table", "tag")
    frame.insert(0, "file", np.repeat(np.asarray(files, dtype=object), len(labels)))
    return frame


def _codes(index: pd.Index, values: pd.Series, what: str) -> np.ndarray:
    codes = index.get_indexer(values)
    if (codes < 0).any():
        raise ValueError(f"{what} {values.iloc[int(np.argmax(codes < 0))]!r} is not among {list(index)[:10]}")
    return codes.astype(np.int64)
