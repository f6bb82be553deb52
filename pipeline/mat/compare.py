"""One side of a MAT comparison read into tables, and the check that both sides share their signals.

:func:`ingest` reads the files of one side (reference or hypothesis) into a documents table (columns of
``schemas.MAT_DOCUMENTS``) and an annotations table (``schemas.MAT_ANNOTATIONS``) under the label rules.
:func:`check_signals` refuses a pair of documents whose signals differ (issue 12, point 2), naming the
hypothesis file and the first differing character.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.mat.files import FilePair
from iescore.pipeline.mat.labels import LabelRules, annotation_frame
from iescore.pipeline.mat.readers import read_document
from iescore.schemas import C

DOCUMENT_COLUMNS = ("file", "side", "source", "signal", "signal_sha256")


def ingest(
    pairs: Sequence[FilePair],
    side: str,
    file_type: str,
    rules: LabelRules,
    encoding: str | None = None,
    overlay: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The documents and annotations of ``side`` ("ref" or "hyp") of ``pairs``."""
    if side not in ("ref", "hyp"):
        raise ValueError(f"side must be 'ref' or 'hyp', not {side!r}")
    documents = {}
    for pair in pairs:
        path = pair.ref if side == "ref" else pair.hyp
        documents[pair.key] = read_document(path, file_type, encoding, overlay, rules.known_labels())
    table = pd.DataFrame(
        {
            C.file: list(documents),
            C.side: side,
            C.source: [str(documents[k].source) for k in documents],
            C.signal: [documents[k].signal for k in documents],
            "signal_sha256": [
                hashlib.sha256(documents[k].signal.encode("utf-8")).hexdigest() for k in documents
            ],
        },
        columns=list(DOCUMENT_COLUMNS),
    )
    return table.sort_values(C.file, kind="stable").reset_index(drop=True), annotation_frame(
        documents, side, rules
    )


def check_signals(ref_documents: pd.DataFrame, hyp_documents: pd.DataFrame) -> None:
    """Every document's reference and hypothesis signals must be equal; else InputError naming the
    hypothesis file, the line and column and the first differing character."""
    ref = ref_documents.set_index(C.file)
    # Equal digests are equal signals: only the documents that differ (or lack a reference) are looked at.
    ref_digest = hyp_documents[C.file].map(ref["signal_sha256"])
    differing = hyp_documents[(ref_digest != hyp_documents["signal_sha256"]).to_numpy()]
    for row in differing.itertuples(index=False):
        if row.file not in ref.index:
            raise InputError(row.source, 0, "no reference document for this hypothesis")
        other = ref.loc[row.file]
        a, b = other[C.signal], row.signal
        k = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        line = b.count("\n", 0, k) + 1
        column = k - (b.rfind("\n", 0, k) + 1) + 1
        ref_char = repr(a[k]) if k < len(a) else "the end of the signal"
        hyp_char = repr(b[k]) if k < len(b) else "the end of the signal"
        raise InputError(
            row.source,
            0,
            f"its signal differs from the reference's ({other['source']}) at character {k} (line {line}, "
            f"column {column}): reference {ref_char}, hypothesis {hyp_char}",
        )
