"""The CLEF eHealth statistics and measures as plain numpy (the formulas ``pipeline.clef.family``'s
families are built on), importable without the families' contract: ``iescore clef`` prints the
measures without importing pandas. See ``pipeline.clef.family`` for what each statistic counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

CLEF_STATISTICS = (
    "strict_tp",
    "strict_fp",
    "strict_fn",
    "relaxed_tp",
    "relaxed_fp",
    "relaxed_fn",
    "one_to_one_tp",
    "one_to_one_fp",
    "one_to_one_fn",
    "correct",
    "nbest_correct",
)
_COLUMN = {name: i for i, name in enumerate(CLEF_STATISTICS)}
#: Task names as eval.pl's ``-t`` takes them (CLEF eHealth 2013 and SemEval-2014 Task 7) -> ours.
TASKS = {"1a": "1a", "1b": "1b", "2": "2", "A": "1a", "B": "1b"}


def ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator``, 0 where the numerator is 0 (eval.pl's rule: no TP, no score)."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    np.divide(numerator, denominator, out=out, where=(numerator != 0) & (denominator != 0))
    return out


def precision_recall_f(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> tuple[np.ndarray, ...]:
    """P, R, F of counts (any shape), all three 0 where there is no true positive."""
    precision = ratio(tp, tp + fp)
    recall = ratio(tp, tp + fn)
    f_score = ratio(2 * precision * recall, precision + recall)
    return precision, recall, f_score


def _column(sums: np.ndarray, name: str) -> np.ndarray:
    return sums[..., _COLUMN[name]]


def task_1a(sums: np.ndarray, options: Mapping[str, Any]) -> np.ndarray:
    values = []
    for mode in ("strict", "relaxed", "one_to_one"):
        values += precision_recall_f(*(_column(sums, f"{mode}_{c}") for c in ("tp", "fp", "fn")))
    return np.concatenate([np.stack(values, axis=-1), task_1b(sums, options)], axis=-1)


def task_1b(sums: np.ndarray, options: Mapping[str, Any]) -> np.ndarray:
    correct = _column(sums, "correct")
    gold = _column(sums, "strict_tp") + _column(sums, "strict_fn")
    return np.stack([ratio(correct, gold), ratio(correct, _column(sums, "strict_tp"))], axis=-1)


def task_2(sums: np.ndarray, options: Mapping[str, Any]) -> np.ndarray:
    gold = _column(sums, "strict_tp") + _column(sums, "strict_fn")
    return np.stack(
        [ratio(_column(sums, "correct"), gold), ratio(_column(sums, "nbest_correct"), gold)], axis=-1
    )


MEASURE_NAMES_1A = (
    *(f"{mode}_{m}" for mode in ("strict", "relaxed", "one_to_one") for m in ("P", "R", "F")),
    "strict_accuracy",
    "relaxed_accuracy",
)
MEASURE_NAMES_ACCURACY = ("strict_accuracy", "relaxed_accuracy")
#: Each task's (formula, measure names), by our task name (``TASKS``' values).
FORMULAS = {
    "1a": (task_1a, MEASURE_NAMES_1A),
    "1b": (task_1b, MEASURE_NAMES_ACCURACY),
    "2": (task_2, MEASURE_NAMES_ACCURACY),
}


def task_measures(task: str, sums: np.ndarray) -> dict[str, float]:
    """The measures of ``task`` (as ``-t`` names it) from the summed statistics, by name."""
    formula, names = FORMULAS[TASKS[task]]
    values = formula(np.asarray(sums, dtype=np.float64), {})
    return dict(zip(names, (float(v) for v in values), strict=True))
