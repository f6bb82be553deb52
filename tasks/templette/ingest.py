"""IngestCorpus and IngestTemplates: raw files in, ``documents`` and ``fills`` artifacts out."""

from __future__ import annotations

import pyarrow as pa
from iescore.pipeline.core.corpus import read_corpus, read_input, read_stream
from iescore.pipeline.templette.columns import read_fills
from iescore.pipeline.templette.tables import corpus_to_table
from iescore.tasks.core.base import Stage


class IngestCorpus(Stage):
    """Read an SGML text corpus into the ``documents`` artifact."""

    STAGE = "IngestCorpus"
    VERSION = 2
    OUTPUTS = ("documents",)

    def produce(self) -> dict[str, pa.Table]:
        encoding = self.options.get("encoding", "utf-8")
        if self.options.get("unsegmented"):
            return {"documents": corpus_to_table(read_stream(self.input_file("texts"), encoding))}
        corpus = read_corpus(
            self.input_file("texts"),
            encoding=encoding,
            extractable=tuple(self.options.get("extractable", ("TEXT",))),
        )
        return {"documents": corpus_to_table(corpus)}


class IngestTemplates(Stage):
    """Read a template set into the ``fills`` artifact, checked against its corpus when one is given
    (:func:`pipeline.templette.columns.read_fills`)."""

    STAGE = "IngestTemplates"
    VERSION = 2  # 2: an empty reference is bad input
    OUTPUTS = ("fills",)

    def produce(self) -> dict[str, pa.Table]:
        path = self.input_file("templates")
        text = read_input(path, self.options.get("encoding", "utf-8"), "template set")
        table = read_fills(
            text,
            str(path),
            self.options.get("role"),
            self.input_table("corpus"),
            bool(self.options.get("unsegmented")),
        )
        return {"fills": table}
