"""NormalizeContent: the ``fills`` artifact with normalized contents (what the scorer compares).

In this version normalization keeps contents as they are (whitespace and case are folded at
comparison time); global-mapping (GLM) normalization is a later stage version.
"""

from __future__ import annotations

from tasks.base import FillsPassThrough


class NormalizeContent(FillsPassThrough):
    STAGE = "NormalizeContent"
    VERSION = 1
