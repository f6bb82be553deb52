"""eval.pl's output file, and our additions: the one-to-one overlap measure, per-report counts, JSON.

eval.pl writes ``NAME.RUN.TASK.add`` (``-a``) or ``.noadd``::

    <blank line>
    * Task 1a Strict:
    Precision: <TAB>0.727
    Recall: <TAB>0.727
    F-score: <TAB>0.727
    <blank line>
    * Task 1a Relaxed:
    ...

(``Precision: \\t%0.3f``: a colon, a space and a tab, three decimals, as its ``printf``; Python's
``%.3f`` rounds the same binary double the same way). Task 1b prints ``Accuracy:`` under ``* Task 1b
Strict:`` and ``* Task 1b Relaxed:``. The task is printed as ``-t`` named it, so ``-t A`` (SemEval-2014
Task 7's name for 1a) prints ``* Task A Strict:`` as that year's eval.pl does. eval.pl accepts ``-t 2``
and writes an empty file; we write Task 2's two accuracies in the layout of 1b.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from iescore.pipeline.clef.measures import CLEF_STATISTICS, TASKS, task_measures
from iescore.pipeline.clef.rules import ReportCounts


def output_name(name: str, run: str, task: str, additional: bool) -> str:
    """eval.pl's output file name: ``NAME.RUN.TASK.add`` or ``.noadd``."""
    return f"{name}.{run}.{task}.{'add' if additional else 'noadd'}"


def eval_text(task: str, sums: np.ndarray) -> str:
    """The output file's text for ``task`` (as ``-t`` named it) from the summed statistics."""
    values = _measures(task, sums)
    if TASKS[task] == "1a":
        sections = [
            ("Strict", [("Precision", values["strict_P"]), ("Recall", values["strict_R"]),
                        ("F-score", values["strict_F"])]),
            ("Relaxed", [("Precision", values["relaxed_P"]), ("Recall", values["relaxed_R"]),
                         ("F-score", values["relaxed_F"])]),
        ]  # fmt: skip
    else:
        sections = [
            ("Strict", [("Accuracy", values["strict_accuracy"])]),
            ("Relaxed", [("Accuracy", values["relaxed_accuracy"])]),
        ]
    return "".join(
        f"\n* Task {task} {title}:\n" + "".join(f"{label}: \t{value:0.3f}\n" for label, value in lines)
        for title, lines in sections
    )


def one_to_one_text(task: str, sums: np.ndarray) -> str:
    """Our one-to-one overlap measure in eval.pl's layout, under its own name (Task 1a only)."""
    values = _measures(task, sums)
    return (
        f"\n* Task {task} Overlap one-to-one (iescore, not eval.pl):\n"
        f"Precision: \t{values['one_to_one_P']:0.3f}\n"
        f"Recall: \t{values['one_to_one_R']:0.3f}\n"
        f"F-score: \t{values['one_to_one_F']:0.3f}\n"
    )


def by_report_text(counts: ReportCounts) -> str:
    """The per-report counts as a plain table (one row per report, one column per statistic)."""
    names = ["report", *CLEF_STATISTICS]
    rows = [[str(report), *(str(int(v)) for v in row)] for report, row in zip(
        counts.reports, counts.values.tolist(), strict=True)]  # fmt: skip
    rows.append(["TOTAL", *(str(int(v)) for v in counts.values.sum(axis=0))])
    widths = [max(len(names[i]), *(len(r[i]) for r in rows)) for i in range(len(names))]
    lines = ["  ".join(n.ljust(w) if i == 0 else n.rjust(w) for i, (n, w) in enumerate(
        zip(names, widths, strict=True)))]  # fmt: skip
    for row in rows:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(
            zip(row, widths, strict=True))))  # fmt: skip
    return "\n".join(lines) + "\n"


def scores_json(
    task: str, sums: np.ndarray, signature: str, counts: ReportCounts | None, run: dict[str, Any]
) -> dict[str, Any]:
    """``{"signature", "task", "run", "counts", "measures", "by_report"?}`` (measures as fractions)."""
    data: dict[str, Any] = {
        "signature": signature,
        "task": task,
        "run": run,
        "counts": {name: int(v) for name, v in zip(CLEF_STATISTICS, sums, strict=True)},
        "measures": {name: float(v) for name, v in _measures(task, sums).items()},
    }
    if counts is not None:
        data["by_report"] = [
            {"report": str(report), **{n: int(v) for n, v in zip(CLEF_STATISTICS, row, strict=True)}}
            for report, row in zip(counts.reports, counts.values.tolist(), strict=True)
        ]
    return data


def _measures(task: str, sums: np.ndarray) -> dict[str, float]:
    return task_measures(task, sums)
