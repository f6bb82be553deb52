"""CLEF eHealth 2013 (seed 004, Tasks 1 and 2; SemEval-2014 Task 7): disorder spans exact and overlapping,
normalization accuracy strict and relaxed, eval.pl's output, and the Evaluation Workbench as one page.

What other wings may use: the families, the reader, the matching and tallies, the tables, the reports.
"""

from __future__ import annotations

import importlib
from typing import Any

# Where each public name lives. Imported on first use (PEP 562), so that ``iescore clef``, which needs
# the reader, the matching and the report but not the families' contract (it imports pandas), starts
# without pandas.
_HOMES = {
    "CLEF_2_CAMPAIGN": "campaign",
    "CLEF_CAMPAIGN": "campaign",
    "CLEF_1A": "family",
    "CLEF_1B": "family",
    "CLEF_2": "family",
    "clef_family": "family",
    "CLEF_STATISTICS": "measures",
    "TASKS": "measures",
    "Mentions": "reader",
    "read_mentions": "reader",
    "by_report_text": "report",
    "eval_text": "report",
    "one_to_one_text": "report",
    "output_name": "report",
    "scores_json": "report",
    "ReportCounts": "rules",
    "by_report": "rules",
    "match_columns": "rules",
    "tally_mentions": "rules",
    "totals": "rules",
    "matches_table": "tables",
    "mentions_from_table": "tables",
    "mentions_table": "tables",
}

__all__ = [
    "CLEF_1A",
    "CLEF_1B",
    "CLEF_2",
    "CLEF_2_CAMPAIGN",
    "CLEF_CAMPAIGN",
    "CLEF_STATISTICS",
    "TASKS",
    "Mentions",
    "ReportCounts",
    "by_report",
    "by_report_text",
    "clef_family",
    "eval_text",
    "match_columns",
    "matches_table",
    "mentions_from_table",
    "mentions_table",
    "one_to_one_text",
    "output_name",
    "read_mentions",
    "scores_json",
    "tally_mentions",
    "totals",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
