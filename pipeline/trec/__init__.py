"""TREC retrieval evaluation equal to trec_eval 10.0 (seed 004, CLEF eHealth Task 3), with significance.

What other wings may use: the family's declaration and statistics tables, and the evaluation itself.
"""

from iescore.pipeline.trec.evaluate import Evaluation, Options, evaluate
from iescore.pipeline.trec.formats import Qrels, Run, read_qrels, read_run
from iescore.pipeline.trec.measures import Measure, parse_measure, parse_measures

__all__ = [
    "CAMPAIGN_MEASURES",
    "CAMPAIGN_REQUEST",
    "TREC",
    "TREC_CAMPAIGN",
    "Evaluation",
    "Measure",
    "Options",
    "Qrels",
    "Run",
    "evaluate",
    "parse_measure",
    "parse_measures",
    "read_qrels",
    "read_run",
    "trec_family",
    "trec_statistics",
]

_FAMILY = ("CAMPAIGN_MEASURES", "CAMPAIGN_REQUEST", "TREC", "trec_family", "trec_statistics")


def __getattr__(name: str):  # the family (pipeline.core.family imports pandas) only when asked for
    if name in _FAMILY:
        from iescore.pipeline.trec import family

        return getattr(family, name)
    if name == "TREC_CAMPAIGN":
        from iescore.pipeline.trec.campaign import TREC_CAMPAIGN

        return TREC_CAMPAIGN
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
