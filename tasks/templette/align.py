"""AlignCorpora and NormalizeExtents.

With one text corpus for both sides the alignment is the identity and extents stay character
offsets; both stages still write their artifacts so the chain never changes shape. With different
texts (speech recognizer output), the words are aligned and extents become alignment columns.
"""

from __future__ import annotations

import pyarrow as pa
from iescore.pipeline.speech.align import AlignOptions, align_corpora, align_stream, identity_alignment
from iescore.pipeline.speech.glm import read_glm
from iescore.pipeline.templette.extents import normalize_extents
from iescore.pipeline.templette.tables import (
    corpus_from_table,
    template_set_from_table,
    template_set_to_table,
)
from iescore.schemas import ALIGNMENT
from iescore.tasks.core.base import Stage, input_key

EXTENT_UNIT_KEY = "extent_unit"


class AlignCorpora(Stage):
    STAGE = "AlignCorpora"
    VERSION = 3  # 3: words of the evaluated text by the innermost element; "--" is no word
    OUTPUTS = ("alignment",)

    def produce(self) -> dict[str, pa.Table]:
        inputs = self.spec.get("inputs", {})
        ref, hyp = inputs.get("ref"), inputs.get("hyp")
        if ref is None:
            return {"alignment": ALIGNMENT.empty_table()}
        ref_corpus = corpus_from_table(self.input_table("ref"))
        if hyp is None or input_key(hyp) == input_key(ref):
            return {"alignment": identity_alignment(ref_corpus)}
        glm_file = self.input_file("glm")
        glm = read_glm(glm_file, self.options.get("encoding", "utf-8")) if glm_file else None
        options = AlignOptions(cost=self.options.get("cost", "phonetic"), glm=glm)
        hyp_corpus = corpus_from_table(self.input_table("hyp"))
        if self.options.get("unsegmented"):
            return {
                "alignment": align_stream(ref_corpus, hyp_corpus.documents[0], hyp_corpus.source, options)
            }
        return {"alignment": align_corpora(ref_corpus, hyp_corpus, options)}


class NormalizeExtents(Stage):
    """Character extents become alignment columns (seed 000), unless both sides share one text."""

    STAGE = "NormalizeExtents"
    VERSION = 2
    OUTPUTS = ("fills",)

    def produce(self) -> dict[str, pa.Table]:
        fills = self.input_table("fills")
        if self.options.get("unit", "character") == "character":
            return {"fills": _with_unit(fills, "character")}
        offsets = None
        if self.options.get("unsegmented"):
            corpus = self.input_table("corpus")
            documents = corpus_from_table(corpus).documents if corpus is not None else ()
            offsets = {d.doc_id: d.offset for d in documents}
        normalized = normalize_extents(
            template_set_from_table(fills), self.input_table("alignment"), self.options["side"], offsets
        )
        return {"fills": _with_unit(template_set_to_table(normalized), "column")}


def _with_unit(table: pa.Table, unit: str) -> pa.Table:
    metadata = dict(table.schema.metadata or {})
    metadata[EXTENT_UNIT_KEY.encode()] = unit.encode()
    return table.replace_schema_metadata(metadata)
