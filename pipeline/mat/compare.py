"""One side of a MAT comparison read into tables, and the check that both sides share their signals.

:func:`ingest` reads the files of one side (reference or hypothesis) into a documents table (columns of
``schemas.MAT_DOCUMENTS``) and an annotations table (``schemas.MAT_ANNOTATIONS``) under the label rules.
:func:`check_signals` refuses a pair of documents whose signals differ (issue 12, point 2), naming the
hypothesis file and the first differing character.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import strings, to_arrow, to_numpy
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.mat.labels import LabelRules, annotation_table
from iescore.pipeline.mat.readers import read_documents
from iescore.schemas import MAT_DOCUMENTS, C


def ingest(
    files: Sequence[tuple[str, str | Path]],
    side: str,
    file_type: str,
    rules: LabelRules,
    encoding: str | None = None,
    overlay: bool = False,
) -> tuple[pa.Table, pa.Table]:
    """The documents (``schemas.MAT_DOCUMENTS``) and annotations (``schemas.MAT_ANNOTATIONS``) of the
    files ``(document key, path)`` of ``side`` ("ref" or "hyp"), in document key order."""
    if side not in ("ref", "hyp"):
        raise ValueError(f"side must be 'ref' or 'hyp', not {side!r}")
    documents = read_documents(files, file_type, encoding, overlay, rules.known_labels())
    n = len(documents.keys)
    table = pa.Table.from_arrays(
        [
            strings(list(documents.keys)),
            strings([side]).take(to_arrow(np.zeros(n, np.int64))),
            strings(list(documents.sources)),
            documents.signals,
            strings(_signal_digests(documents.signals)),
        ],
        schema=MAT_DOCUMENTS,
    )
    return table, annotation_table(documents, side, rules)


def _signal_digests(signals: pa.Array) -> list[str]:
    """sha256 of each signal's UTF-8 bytes, read from the array's buffers (no Python string each)."""
    signals = signals.cast(pa.large_string())
    offsets = np.frombuffer(signals.buffers()[1], dtype=np.int64)[
        signals.offset : signals.offset + len(signals) + 1
    ]
    data = memoryview(signals.buffers()[2]) if signals.buffers()[2] is not None else memoryview(b"")
    return [
        hashlib.sha256(data[a:b]).hexdigest()
        for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)
    ]


def check_signals(ref_documents: pa.Table, hyp_documents: pa.Table) -> None:
    """Every document's reference and hypothesis signals must be equal (``MAT_DOCUMENTS`` tables); else
    InputError naming the hypothesis file, the line and column and the first differing character."""
    # Equal digests are equal signals: only the first document that differs (or lacks a reference) is
    # looked at.
    ref_row = pc.index_in(hyp_documents.column(C.file), value_set=ref_documents.column(C.file))
    ref_digest = ref_documents.column("signal_sha256").take(ref_row)
    equal = pc.equal(ref_digest, hyp_documents.column("signal_sha256"))
    same = pc.and_kleene(pc.is_valid(equal), equal)  # no reference: not the same
    differing = np.flatnonzero(~to_numpy(same))
    if not len(differing):
        return
    row = int(differing[0])
    hyp = {name: hyp_documents.column(name)[row].as_py() for name in (C.file, C.source, C.signal)}
    found = ref_row[row].as_py()
    if found is None:
        raise InputError(hyp[C.source], 0, "no reference document for this hypothesis")
    a, b = ref_documents.column(C.signal)[found].as_py(), hyp[C.signal]
    k = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    line = b.count("\n", 0, k) + 1
    column = k - (b.rfind("\n", 0, k) + 1) + 1
    ref_char = repr(a[k]) if k < len(a) else "the end of the signal"
    hyp_char = repr(b[k]) if k < len(b) else "the end of the signal"
    raise InputError(
        hyp[C.source],
        0,
        f"its signal differs from the reference's ({ref_documents.column(C.source)[found].as_py()}) at "
        f"character {k} (line {line}, column {column}): reference {ref_char}, hypothesis {hyp_char}",
    )
