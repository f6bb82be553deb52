"""MITRE MAT's scoring engine (seed 002, issue 12): span annotations paired by chunks and an optimal
assignment, tag-level tables with span details, details and confusability; readers of mat-json,
xml-inline, brat and CoNLL.

What other wings may use: the MAT family's declaration, its campaign kind and its statistics tables.
"""

from iescore.pipeline.mat.campaign import MAT_CAMPAIGN
from iescore.pipeline.mat.family import MAT, mat_statistics

__all__ = ["MAT", "MAT_CAMPAIGN", "mat_statistics"]
