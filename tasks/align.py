"""AlignCorpora and NormalizeExtents.

With one text corpus for both sides the alignment is the identity and extents stay character
offsets; both stages still write their artifacts so the chain never changes shape.
"""

from __future__ import annotations

import pyarrow as pa

from pipeline.align import identity_alignment
from pipeline.errors import InputError
from pipeline.tables import corpus_from_table
from schemas import ALIGNMENT
from tasks.base import FillsPassThrough, Stage, input_key


class AlignCorpora(Stage):
    STAGE = "AlignCorpora"
    VERSION = 1
    OUTPUTS = ("alignment",)

    def produce(self) -> dict[str, pa.Table]:
        inputs = self.spec.get("inputs", {})
        ref, hyp = inputs.get("ref"), inputs.get("hyp")
        if ref is None:
            return {"alignment": ALIGNMENT.empty_table()}
        if hyp is not None and input_key(hyp) != input_key(ref):
            hyp_file = hyp["inputs"]["texts"]["file"]
            raise InputError(
                hyp_file,
                0,
                "hypothesis texts that differ from the reference texts need speech alignment, "
                "which this version does not do yet; score against the reference texts",
            )
        return {"alignment": identity_alignment(corpus_from_table(self.input_table("ref")))}


class NormalizeExtents(FillsPassThrough):
    """The identity alignment maps every character offset to itself."""

    STAGE = "NormalizeExtents"
    VERSION = 1
