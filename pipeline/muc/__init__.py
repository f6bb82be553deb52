"""The MUC scorer (seed 001): configuration files, template element, relation and scenario tasks on the
templette machinery, named entity in SGML, the MUC score pages and report summaries.

What other wings may use: the MUC family's declaration and its campaign kind.
"""

from iescore.pipeline.muc.campaign import MUC_CAMPAIGN
from iescore.pipeline.muc.family import MUC

__all__ = ["MUC", "MUC_CAMPAIGN"]
