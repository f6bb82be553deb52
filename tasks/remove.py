"""RemoveNonEvaluated: the ``fills`` artifact ready for mapping.

This version removes nothing (no premodifiers, no whiting out); whitespace folding happens when
contents are compared.
"""

from __future__ import annotations

from tasks.base import FillsPassThrough


class RemoveNonEvaluated(FillsPassThrough):
    STAGE = "RemoveNonEvaluated"
    VERSION = 1
