"""The CLEF eHealth family under the contract of ``pipeline.core.family`` (seed 004, "Outcome Measures").

One statistics vector per report (the unit a bootstrap resamples), split over categories, the CUIs:
true and false positives are counted on predictions and go to the prediction's CUI, false negatives and
``nbest_correct`` on gold mentions and go to the gold's (top) CUI, so the categories' sums are the
report's sums (``pipeline.clef.rules.tally_mentions``).

- ``strict_tp``, ``strict_fp``, ``strict_fn``: Task 1a exact spans, as eval.pl counts them (TP: a
  prediction with exactly a gold mention's offsets, all pieces; FN: a gold mention without one);
- ``relaxed_tp``, ``relaxed_fp``, ``relaxed_fn``: eval.pl's overlapping spans: TP counts *predictions*
  that overlap some gold mention, FN counts *gold mentions* that no prediction overlaps (so one long
  prediction over two gold mentions is one TP and no FN, and two predictions over one gold mention are
  two TPs);
- ``one_to_one_tp``, ``one_to_one_fp``, ``one_to_one_fn``: overlapping spans, each gold mention matched
  at most once (``pipeline.clef.rules``: largest overlap first), the measure other papers call overlap F1;
- ``correct``: gold mentions with an exactly-matching prediction of the same CUI (Task 1b; Task 2: the
  annotators' top code), ``nbest_correct``: whose code is in the gold's n-best list (Task 2 relaxed).

The measures follow eval.pl: P = TP / (TP + FP), R = TP / (TP + FN), F = 2PR / (P + R), all three 0
when there is no true positive (seed 004's formulas; eval.pl's ``print_fsc``); Task 1b strict accuracy
= correct / gold mentions (``strict_tp + strict_fn``), relaxed = correct / predictions with a gold
mention's exact offsets (``strict_tp``); Task 2 strict = correct / gold, relaxed = nbest_correct / gold;
an accuracy is 0 when nothing is correct (eval.pl's ``print_acc``). Each task is its own family, as its
headline differs: Task 1a's strict F (its measures include Task 1b's two accuracies, computed from the
same statistics, so one Task 1 campaign shows both), Task 1b's and Task 2's strict accuracy.
"""

from __future__ import annotations

from iescore.pipeline.clef.measures import (
    CLEF_STATISTICS,
    MEASURE_NAMES_1A,
    MEASURE_NAMES_ACCURACY,
    TASKS,
    precision_recall_f,
    ratio,
    task_1a,
    task_1b,
    task_2,
)
from iescore.pipeline.core.family import Family

__all__ = [
    "CLEF_1A",
    "CLEF_1B",
    "CLEF_2",
    "CLEF_STATISTICS",
    "TASKS",
    "clef_family",
    "precision_recall_f",
    "ratio",
]

_COUNTS = CLEF_STATISTICS
CLEF_1A = Family(
    name="clef-1a",
    unit="report",
    statistic_names=CLEF_STATISTICS,
    measure_names=MEASURE_NAMES_1A,
    headline="strict_F",
    categories="CUI",
    formula=task_1a,
    counts=_COUNTS,
)
CLEF_1B = Family(
    name="clef-1b",
    unit="report",
    statistic_names=CLEF_STATISTICS,
    measure_names=MEASURE_NAMES_ACCURACY,
    headline="strict_accuracy",
    categories="CUI",
    formula=task_1b,
    counts=_COUNTS,
)
CLEF_2 = Family(
    name="clef-2",
    unit="report",
    statistic_names=CLEF_STATISTICS,
    measure_names=MEASURE_NAMES_ACCURACY,
    headline="strict_accuracy",
    categories="CUI",
    formula=task_2,
    counts=_COUNTS,
)
FAMILIES = {"1a": CLEF_1A, "1b": CLEF_1B, "2": CLEF_2}


def clef_family(task: str) -> Family:
    """The family of a task as ``-t`` names it (``1a``, ``1b``, ``2``, ``A``, ``B``)."""
    if task not in TASKS:
        raise ValueError(f"unknown CLEF task {task!r}; expected one of {', '.join(TASKS)}")
    return FAMILIES[TASKS[task]]
