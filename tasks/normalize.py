"""NormalizeContent: the ``fills`` artifact with normalized contents (what the scorer compares).

In this version normalization keeps contents as they are (whitespace and case are folded at
comparison time); global-mapping (GLM) normalization is a later stage version.
"""

from __future__ import annotations

import pyarrow as pa

from tasks.base import Stage


class NormalizeContent(Stage):
    STAGE = "NormalizeContent"
    VERSION = 1
    OUTPUTS = ("fills",)

    def produce(self) -> dict[str, pa.Table]:
        return {"fills": self.input_table("fills")}
