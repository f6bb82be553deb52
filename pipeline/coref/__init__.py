"""Coreference scoring: MUC (Vilain), B3, CEAF-e, CEAF-m, BLANC and LEA over CoNLL or SGML key and
response files, with seed 001's partitions report and summary.

What other wings may use: the coreference family's declaration and its statistics tables, its campaign
kind, the reading formats and mention match modes, and the scores of a mention table with their report
and JSON.
"""

from pipeline.coref.campaign import COREF_CAMPAIGN
from pipeline.coref.family import COREF, coref_statistics
from pipeline.coref.scorer import (
    FORMATS,
    MATCH_MODES,
    METRICS,
    score_report,
    scores_from_table,
    scores_json,
)

__all__ = [
    "COREF",
    "COREF_CAMPAIGN",
    "FORMATS",
    "MATCH_MODES",
    "METRICS",
    "coref_statistics",
    "score_report",
    "scores_from_table",
    "scores_json",
]
