"""The scorer families a campaign can name (``scorer = "..."`` in a campaign file).

Each family declares itself in its own wing (``pipeline.templette``, ``pipeline.muc``,
``pipeline.coref``); this registry is where the campaign engine finds them by name. A new family is one
more line here.
"""

from __future__ import annotations

from pipeline.core.family import Family
from pipeline.coref import COREF
from pipeline.muc import MUC
from pipeline.templette import TEMPLETTE

#: The scorer families a campaign can name, and the family whose statistics each one's summary uses.
FAMILIES: dict[str, Family] = {"templette": TEMPLETTE, "muc": MUC, "coref": COREF}
