"""NormalizeContent: the ``fills`` artifact with GLM-normalized contents (what the scorer compares).

Without a global mapping file the contents stay as they are (whitespace and case are folded at
comparison time).
"""

from __future__ import annotations

import pyarrow as pa
from iescore.pipeline.speech.glm import read_glm
from iescore.pipeline.templette.normalize import normalize_contents
from iescore.pipeline.templette.tables import template_set_from_table, template_set_to_table
from iescore.tasks.core.base import Stage


class NormalizeContent(Stage):
    STAGE = "NormalizeContent"
    VERSION = 2
    OUTPUTS = ("fills",)

    def produce(self) -> dict[str, pa.Table]:
        fills = self.input_table("fills")
        glm_file = self.input_file("glm")
        if glm_file is None:
            return {"fills": fills}
        glm = read_glm(glm_file, encoding=self.options.get("encoding", "utf-8"))
        normalized = normalize_contents(template_set_from_table(fills), glm)
        return {"fills": template_set_to_table(normalized)}
