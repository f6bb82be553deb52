"""The MUC family under the contract of ``pipeline.core.family`` (seed 001).

The same statistics and measures as the templette family, since the MUC scorer's ALL SLOTS is made of
the same counts (its tallies are the templette machinery's); its statistics tables come from
``pipeline.templette.templette_statistics``.
"""

from __future__ import annotations

from dataclasses import replace

from iescore.pipeline.templette import TEMPLETTE

#: The templette family under another name: the same statistics, measures, headline and categories.
MUC = replace(TEMPLETTE, name="muc")
