"""The HUB-4 templette scorer (seed 000): template sets, content and extent comparison, greedy mapping
of instances, slots and fills, COR/INC/MIS/SPU points, score tables and reports.

What other wings may use: the template model (the MUC scorer scores templates too), the score page's
building blocks (the MUC and NE pages share its layout), the templette family's declaration, its campaign
kind (whose board and page the MUC kind shares) and its default options.
"""

from iescore.pipeline.templette.campaign import POINT_BOARD, TEMPLETTE_CAMPAIGN
from iescore.pipeline.templette.defaults import DEFAULT_OPTIONS
from iescore.pipeline.templette.family import (
    POINT_MEASURES,
    POINTS,
    TEMPLETTE,
    point_measures,
    templette_statistics,
)
from iescore.pipeline.templette.model import (
    OPTIONAL_STATUS_SLOT,
    OPTIONAL_STATUS_VALUE,
    Extent,
    Instance,
    Pointer,
    PointerFill,
    SetFill,
    Slot,
    TemplateSet,
    TextFill,
)
from iescore.pipeline.templette.report import (
    PAGE_DIVIDER,
    f_measures_lines,
    grouped_counts,
    measure_row,
    name_heading,
    page_line,
    page_section,
    page_top,
    summary_lines,
)

__all__ = [
    "DEFAULT_OPTIONS",
    "POINT_BOARD",
    "POINT_MEASURES",
    "TEMPLETTE_CAMPAIGN",
    "OPTIONAL_STATUS_SLOT",
    "OPTIONAL_STATUS_VALUE",
    "PAGE_DIVIDER",
    "POINTS",
    "TEMPLETTE",
    "Extent",
    "Instance",
    "Pointer",
    "PointerFill",
    "SetFill",
    "Slot",
    "TemplateSet",
    "TextFill",
    "f_measures_lines",
    "grouped_counts",
    "measure_row",
    "name_heading",
    "page_line",
    "page_section",
    "page_top",
    "point_measures",
    "summary_lines",
    "templette_statistics",
]
