"""RemoveNonEvaluated: the ``fills`` artifact ready for mapping.

This version removes nothing (no premodifiers, no whiting out); whitespace folding happens when
contents are compared.
"""

from __future__ import annotations

import pyarrow as pa

from tasks.base import Stage


class RemoveNonEvaluated(Stage):
    STAGE = "RemoveNonEvaluated"
    VERSION = 1
    OUTPUTS = ("fills",)

    def produce(self) -> dict[str, pa.Table]:
        return {"fills": self.input_table("fills")}
