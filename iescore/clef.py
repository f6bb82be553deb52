"""CLEF eHealth 2013 scores as eval.pl computes them: the library behind ``iescore clef``.

:func:`score` scores a system's disorder (or abbreviation) annotations against the gold standard's for
one task (``1a``: span F1, exact and overlapping, and the one-to-one overlap measure; ``1b`` and
``2``: normalization accuracy, strict and relaxed; ``A`` and ``B`` as SemEval-2014 Task 7 names them)
and returns :class:`ClefScores`: the summed statistics and the measures, one row of counts per report,
and every mention with its status in each match mode. ``iescore clef`` parses its arguments and calls
:func:`plan_scoring` and :func:`run_scoring`, as :func:`score` does, so the command and the library
cannot disagree. The rules are in :mod:`iescore.pipeline.clef.rules`.

Inputs (each side): a directory of pipe-delimited files (``report||type||CUI||start||end``), a mapping
of file names to their texts, or a list of records ``{"report", "type", "cui", "spans": [(start,
end), ...]}`` (one file a report); in-memory sides are written as a directory and read by the command's
reader (:mod:`iescore.sources`).

>>> from iescore import clef
>>> result = clef.score("data/clef-sample/gold", "data/clef-sample/run1", task="1a")
>>> [round(result.measures[name], 3) for name in ("strict_P", "strict_R", "strict_F", "relaxed_F")]
[0.727, 0.727, 0.727, 0.87]
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iescore.pipeline.core.errors import InputError
from iescore.result import Result
from iescore.sources import PathLike, Sources, is_path, run_specs

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ClefPlan", "ClefScores", "check_task", "plan_scoring", "run_scoring", "score"]

#: One side: a directory, ``{file name: text}``, or records ``{"report", "type", "cui", "spans"}``.
ClefInput = PathLike | Mapping[str, str] | Sequence[Mapping[str, Any]]


class ClefScores(Result):
    """A CLEF run's tables: ``scores`` (``CLEF_SCORES``: the summed statistics, then the task's
    measures; signed), ``statistics`` (``STATISTICS``: per report, its counts, the family's sufficient
    statistics) and ``matches`` (``CLEF_MATCHES``: every gold mention and prediction with its status in
    each mode). ``warnings``: what the command prints as warnings (reports on one side only, CRLF line
    ends, replaced lines)."""

    headline = "scores"

    def __init__(
        self, tables: Mapping[str, Any], signature: str, task: str, warnings: Sequence[str] = ()
    ) -> None:
        super().__init__(tables, signature)
        self.task = task
        self.warnings = list(warnings)

    @property
    def scores(self) -> pd.DataFrame:
        """name, kind (statistic or measure), value: what eval.pl's output file is made of."""
        return self.frame("scores")

    @property
    def measures(self) -> dict[str, float]:
        """The task's measures by name (``strict_P``, ``relaxed_F``, ``one_to_one_F``,
        ``strict_accuracy``...), fractions of 1 (0 without a true positive, as eval.pl)."""
        table = self.arrow("scores").to_pydict()
        return {
            name: value
            for name, kind, value in zip(table["name"], table["kind"], table["value"], strict=True)
            if kind == "measure"
        }

    @property
    def by_report(self) -> pd.DataFrame:
        """One row per report (index: the report), one column per statistic (strict_tp, ...,
        nbest_correct): the ``--by-report`` counts."""
        import pandas as pd

        from iescore.pipeline.clef import CLEF_STATISTICS, by_report

        counts = by_report(self.arrow("statistics"))
        return pd.DataFrame(
            counts.values, index=pd.Index(counts.reports, name="report"), columns=CLEF_STATISTICS
        )

    @property
    def matches(self) -> pd.DataFrame:
        """Every gold mention and prediction with its status in each match mode."""
        return self.frame("matches")


@dataclass(frozen=True)
class ClefPlan:
    """A scoring checked and its stages planned (``tasks.clef.stages``): the ClefReport spec, the task,
    the two directories."""

    spec: dict[str, Any]
    task: str
    gold: str
    system: str


def score(
    gold: ClefInput,
    system: ClefInput,
    *,
    task: str = "1a",
    store: PathLike | None = None,
    workers: int = 1,
) -> ClefScores:
    """Score ``system`` against ``gold`` as ``iescore clef -gold GOLD -input SYSTEM -t TASK`` does.

    ``task`` is ``-t`` (1a, 1b, 2, A, B); ``store``: keep the stages' artifacts there (Luigi,
    ``workers`` at a time). Bad input raises :class:`~iescore.pipeline.core.errors.InputError` with the
    command's message.

    >>> gold = [{"report": "r1", "type": "Disease_Disorder", "cui": "C0008031", "spans": [(20, 30)]},
    ...         {"report": "r1", "type": "Disease_Disorder", "cui": "CUI-less", "spans": [(40, 50)]}]
    >>> system = [{"report": "r1", "type": "Disease_Disorder", "cui": "C0008031", "spans": [(20, 28)]}]
    >>> result = score(gold, system)
    >>> result.measures["strict_F"], result.measures["relaxed_P"], result.measures["relaxed_R"]
    (0.0, 1.0, 0.5)
    """
    with Sources() as sources:
        plan = plan_scoring(
            _directory(gold, "gold", sources), _directory(system, "system", sources), task=task
        )
        result = run_scoring(plan, store, workers)
        result.warnings = [sources.shown(warning) for warning in result.warnings]
        return result


def check_task(task: str) -> None:
    """``-t``: a task eval.pl knows (1a, 1b, 2; A, B for SemEval-2014 Task 7)."""
    from iescore.pipeline.clef import TASKS

    if task not in TASKS:
        raise InputError(
            "-t", 0, f"expected one of {', '.join(TASKS)} (eval.pl: 'Incorrect task id'), found {task!r}"
        )


def plan_scoring(gold: PathLike, system: PathLike, *, task: str = "1a") -> ClefPlan:
    """The checked task and the stages of a scoring of two directories; a bad task, or a path that is
    not a directory of annotation files, is :class:`InputError` before any file is read."""
    from iescore.tasks.clef.stages import clef_spec
    from iescore.tasks.core.arguments import INPUT_DIRECTORY, check_paths

    check_task(task)
    check_paths([("-input", system, INPUT_DIRECTORY), ("-gold", gold, INPUT_DIRECTORY)])
    return ClefPlan(clef_spec(gold, system, task), task, str(gold), str(system))


def run_scoring(plan: ClefPlan, store: PathLike | None = None, workers: int = 1) -> ClefScores:
    """Run a plan's stages (in this process, or by Luigi into ``store``) and gather their tables and
    warnings; :class:`~iescore.sources.StagesFailedError` when a run with a store stopped."""
    from iescore.pipeline.clef.reader import unpaired_reports
    from iescore.pipeline.core.signature import SIGNATURE_KEY
    from iescore.tasks.clef.stages import WARNINGS_KEY
    from iescore.tasks.cli.common import check_store_option

    check_store_option(
        None if store is None else str(store), inputs=[("-input", plan.system), ("-gold", plan.gold)]
    )
    artifacts = run_specs([plan.spec], store, workers)
    warnings = unpaired_reports(plan.gold, plan.system)
    tally = plan.spec["inputs"]["statistics"]
    match = tally["inputs"]["matches"]
    for side in ("gold", "system"):
        raw = artifacts.table(match["inputs"][side], "mentions").schema.metadata.get(WARNINGS_KEY)
        warnings.extend(json.loads(raw) if raw else [])
    scores = artifacts.table(plan.spec, "scores")
    tables = {
        "scores": scores,
        "statistics": artifacts.table(tally, "statistics"),
        "matches": artifacts.table(match, "matches"),
    }
    return ClefScores(tables, scores.schema.metadata[SIGNATURE_KEY].decode(), plan.task, warnings)


def _directory(side: Any, role: str, sources: Sources) -> str:
    """A directory for a side given as a path, ``{file name: text}`` or records."""
    if is_path(side):
        return str(side)
    if isinstance(side, Mapping):
        return sources.directory(role, side)
    files: dict[str, list[str]] = {}
    for number, record in enumerate(side, 1):
        try:
            report, spans = str(record["report"]), record["spans"]
            fields = [report, str(record.get("type", "Disease_Disorder")), str(record["cui"])]
            fields += [str(int(offset)) for span in spans for offset in span]
        except (KeyError, TypeError, ValueError):
            raise InputError(
                f"<{role}>",
                number,
                "a record {'report': ..., 'type': ..., 'cui': ..., 'spans': [(start, end), ...]} expected",
            ) from None
        files.setdefault(f"{report}.pipe.txt", []).append("||".join(fields) + "\n")
    return sources.directory(role, {name: "".join(lines) for name, lines in files.items()})
