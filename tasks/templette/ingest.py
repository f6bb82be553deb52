"""IngestCorpus and IngestTemplates: raw files in, ``documents`` and ``fills`` artifacts out."""

from __future__ import annotations

import pyarrow as pa

from pipeline.core.corpus import read_corpus, read_input, read_stream
from pipeline.templette.checks import (
    check_against_corpus,
    check_reference_not_empty,
    check_single_alternatives,
)
from pipeline.templette.columns import checks_hold, fills_table_of_text
from pipeline.templette.tables import corpus_from_table, corpus_to_table, template_set_to_table
from pipeline.templette.templates import check_pointers, parse_template_set
from tasks.core.base import Stage


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
    """Read a template set into the ``fills`` artifact, checked against its corpus when one is given.

    A file of common lines is read into columns and checked on them
    (:mod:`pipeline.templette.columns`); any other file, or one whose checks cannot be told to pass
    that way, is parsed into a template set and checked on it (which raises the errors).
    """

    STAGE = "IngestTemplates"
    VERSION = 2  # 2: an empty reference is bad input
    OUTPUTS = ("fills",)

    def produce(self) -> dict[str, pa.Table]:
        path = self.input_file("templates")
        text = read_input(path, self.options.get("encoding", "utf-8"), "template set")
        documents = self.input_table("corpus")
        unsegmented = bool(self.options.get("unsegmented"))
        table = fills_table_of_text(text, str(path))
        if table is not None and checks_hold(table, self.options.get("role"), documents, unsegmented):
            return {"fills": table}
        template_set = parse_template_set(text, str(path))
        check_pointers(template_set)
        if self.options.get("role") == "hypothesis":
            check_single_alternatives(template_set)
        else:
            check_reference_not_empty(template_set)
        if documents is not None:
            check_against_corpus(template_set, corpus_from_table(documents), unsegmented)
        return {"fills": template_set_to_table(template_set)}
