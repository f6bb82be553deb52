"""The MUC family under the contract of ``pipeline.core.family`` (seed 001).

The same statistics and measures as the templette family, since the MUC scorer's ALL SLOTS is made of
the same counts (its tallies are the templette machinery's); its statistics tables come from
``pipeline.templette.templette_statistics``.
"""

from __future__ import annotations

from pipeline.core.family import Family
from pipeline.templette import POINTS, point_measures

MUC = Family(
    name="muc",
    unit="document",
    statistic_names=POINTS,
    measure_names=("REC", "PRE", "F"),
    headline="F",
    categories="slot",
    formula=point_measures,
    counts=POINTS,
    options={"beta": 1.0},
)
