"""RemoveNonEvaluated: the ``fills`` artifact ready for mapping (seed 000, "Removal of Non-evaluated Text").

Premodifiers are removed from the start of every text fill (extents adjusted); punctuation and
non-extractable SGML sections are whited out. The rule lives in :mod:`pipeline.templette.removal`; options:
``premodifiers`` (list of words, default a, an, the, and) and ``punctuation`` (a string of marks).
The optional ``corpus`` input (a ``documents`` table) lets extents be measured in the document text.
"""

from __future__ import annotations

import pyarrow as pa
from iescore.pipeline.templette.removal import (
    DEFAULT_PREMODIFIERS,
    DEFAULT_PUNCTUATION,
    RemovalOptions,
    remove_non_evaluated_columns,
)
from iescore.schemas import FILLS
from iescore.tasks.core.base import Stage


class RemoveNonEvaluated(Stage):
    STAGE = "RemoveNonEvaluated"
    VERSION = 2
    OUTPUTS = ("fills",)

    def produce(self) -> dict[str, pa.Table]:
        options = RemovalOptions(
            premodifiers=tuple(self.options.get("premodifiers", DEFAULT_PREMODIFIERS)),
            punctuation=self.options.get("punctuation", DEFAULT_PUNCTUATION),
        )
        fills = self.input_table("fills")
        documents = self.input_table("corpus")  # None when the spec has no corpus
        table = remove_non_evaluated_columns(fills, documents, options)
        # Keep what the input's metadata says (e.g. the extent unit) under what a fills table states
        # itself (its schema's metadata and source).
        source = (fills.schema.metadata or {}).get(b"source", b"")
        metadata = {**(fills.schema.metadata or {}), **(FILLS.metadata or {}), b"source": source}
        return {"fills": table.replace_schema_metadata(metadata)}
