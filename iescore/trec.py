"""TREC retrieval measures as ``trec_eval`` 10.0 computes them: the library behind ``iescore trec``.

:func:`evaluate` scores one run or many against qrels and returns a :class:`TrecEvaluation`: every value
of every query and over queries, for any measure trec_eval names (``"map"``, ``"P.5,10"``,
``"ndcg_cut.10"``, nicknames ``"official"`` and ``"all_trec"``) or ir_measures spells (``"nDCG@10"``,
``"AP(rel=2)"``). ``iescore trec`` parses its arguments and calls :func:`plan_evaluation` and
:func:`run_evaluation`, as :func:`evaluate` does, so the command and the library cannot disagree.

Inputs: a path (``str`` without a line end, or ``os.PathLike``), the file's text, a pandas DataFrame
(qrels: columns ``query``, ``doc``, ``relevance``; a run: ``query``, ``doc``, ``score``; ir_measures'
``query_id`` and ``doc_id`` are read too), or a dict ``{query: {doc: value}}`` as pytrec_eval takes it.
In-memory inputs are written in TREC format and read by the command's readers
(:mod:`iescore.sources`). This module imports neither pandas nor Luigi: the tables are Arrow until a
DataFrame is asked for.

>>> from iescore import trec
>>> result = trec.evaluate("data/trec-sample/qrels.txt", "data/trec-sample/teamA_run1.txt",
...                        measures=["map", "ndcg_cut.10", "P@5"])
>>> print(result.aggregated.round(4).to_string())
                   map  ndcg_cut_10     P@5
teamA_run1.txt  0.1253       0.1515  0.1714
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from iescore.pipeline.core.errors import InputError
from iescore.result import Result
from iescore.sources import PathLike, Sources, check_count, is_path, run_specs

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from iescore.pipeline.trec.evaluate import Options

__all__ = ["TrecEvaluation", "TrecPlan", "evaluate", "plan_evaluation", "run_evaluation", "run_names"]

#: What a qrels or a run may be: a path, the file's text, a DataFrame, or ``{query: {doc: value}}``.
TrecInput = Union[PathLike, "pd.DataFrame", Mapping[str, Mapping[str, float]]]

_QUERY = ("query", "query_id", "qid")
_DOC = ("doc", "doc_id", "docno")


class TrecEvaluation(Result):
    """Each run's ``trec_evaluation`` table (``iescore.schemas.TREC_EVALUATION``: qid, measure, value,
    text), named by the run, in the order given; ``signature`` covers the options, the measures, the
    qrels and every run (what ``iescore trec --json`` writes)."""

    @property
    def runs(self) -> list[str]:
        """The runs' names: a path's file name (``name#2`` for a second of that name), a mapping's keys,
        ``run1``, ``run2``... for in-memory runs given without a name."""
        return self.names

    def evaluation(self, run: str | None = None) -> pd.DataFrame:
        """One run's (the first's by default) ``trec_evaluation`` rows as a DataFrame: every value of
        every query, then over queries (qid ``all``), with the text trec_eval prints."""
        return self.frame(run or self.names[0])

    @property
    def per_query(self) -> pd.DataFrame:
        """Every run's per-query values, long: columns run, qid, measure, value (values trec_eval does
        not print per query, such as gm_map's logarithms, included as the table holds them)."""
        import pandas as pd

        frames = []
        for name in self.names:
            frame = self.frame(name)
            frame = frame[frame["qid"] != "all"][["qid", "measure", "value"]]
            frames.append(frame.assign(run=name)[["run", "qid", "measure", "value"]])
        return pd.concat(frames, ignore_index=True)

    @property
    def aggregated(self) -> pd.DataFrame:
        """Every run's values over queries: one row per run (index: its name), one column per value
        (named as trec_eval prints it, ``ndcg_cut_10``, or as ir_measures spells it, ``nDCG@10``);
        the text-only values runid and relstring are left out."""
        import pandas as pd

        rows = {}
        for name in self.names:
            frame = self.frame(name)
            frame = frame[(frame["qid"] == "all") & ~frame["measure"].isin(["runid", "relstring"])]
            rows[name] = pd.Series(frame["value"].to_numpy(), index=frame["measure"].to_numpy())
        return pd.DataFrame.from_dict(rows, orient="index")

    def value(self, measure: str, run: str | None = None) -> float:
        """The value ``measure`` (as printed: ``map``, ``P_10``, ``nDCG@10``) of one run (default: the
        first) over queries."""
        return float(self.aggregated.loc[run or self.names[0], measure])

    def _repr_html_(self) -> str:
        return self.aggregated._repr_html_() or ""


@dataclass(frozen=True)
class TrecPlan:
    """An evaluation checked and its stages planned, before any file is read: the runs by name, the
    ``EvaluateRun`` spec of each (``tasks.trec.stages``), the trec_eval options, the measures and the
    names of the values they print."""

    runs: dict[str, str]
    specs: dict[str, dict[str, Any]]
    options: Options
    measures: tuple[str, ...]
    value_names: tuple[str, ...]
    signature: str


def evaluate(
    qrels: TrecInput,
    runs: TrecInput | Sequence[TrecInput] | Mapping[str, TrecInput],
    *,
    measures: Iterable[str] | None = None,
    level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    num_docs: int | None = None,
    store: PathLike | None = None,
    workers: int = 1,
) -> TrecEvaluation:
    """Evaluate one run (or a list, or a mapping name -> run) against ``qrels`` as trec_eval does.

    ``measures`` as ``-m`` takes them (default: ``official``); ``level`` is ``-l`` (the lowest grade
    that is relevant), ``complete`` ``-c`` (a qrels query the run does not answer counts as 0; without
    it, it is ignored), ``max_docs`` ``-M``, ``judged_only`` ``-J``, ``num_docs`` ``-N``. ``store``:
    keep the stages' artifacts there (Luigi, ``workers`` at a time), as ``--store`` does. Bad input
    raises :class:`~iescore.pipeline.core.errors.InputError` with the command's message.

    >>> result = evaluate({"q1": {"d1": 1, "d2": 0}}, {"q1": {"d1": 0.5, "d2": 0.9}}, measures=["map", "P.1"])
    >>> result.value("map"), result.value("P_1")
    (0.5, 0.0)
    """
    with Sources() as sources:
        qrels_path = _qrels_path(qrels, sources)
        named = {
            name: _run_path(run, name, sources) if not is_path(run) else str(run)
            for name, run in _named_runs(runs).items()
        }
        plan = plan_evaluation(
            qrels_path,
            named,
            measures=measures,
            level=level,
            complete=complete,
            max_docs=max_docs,
            judged_only=judged_only,
            num_docs=num_docs,
        )
        return run_evaluation(plan, store, workers)


def plan_evaluation(
    qrels: PathLike,
    runs: Mapping[str, PathLike],
    *,
    measures: Iterable[str] | None = None,
    level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    num_docs: int | None = None,
) -> TrecPlan:
    """The checked options and the stages of an evaluation of files (``runs``: name -> path): a bad
    option or measure, or a path that is not a readable file, is :class:`InputError` before any file is
    read."""
    from iescore.pipeline.core.signature import make_signature
    from iescore.pipeline.trec.evaluate import MAXLONG, Options, measure_values
    from iescore.pipeline.trec.measures import parse_measures
    from iescore.tasks.core.arguments import INPUT_FILE, check_paths
    from iescore.tasks.trec.stages import evaluate_spec

    _check_c_longs(level, max_docs, num_docs)
    requested = list(measures) if measures is not None else None
    if isinstance(measures, str):
        requested = [measures]
    parsed = parse_measures(requested)  # a bad measure is bad input before any file is read
    check_paths([("QRELS", qrels, INPUT_FILE), *(("RUN", run, INPUT_FILE) for run in runs.values())])
    options = Options(
        level=level,
        complete=complete,
        max_docs=MAXLONG if max_docs is None else max_docs,
        judged_only=judged_only,
        num_docs=0 if num_docs is None else num_docs,
    )
    specs = {
        name: evaluate_spec(qrels, run, asdict(options), requested or ["official"])
        for name, run in runs.items()
    }
    digests = {"qrels": _digest(next(iter(specs.values())), "qrels")} if specs else {}
    digests.update({f"run{i + 1}": _digest(spec, "run") for i, spec in enumerate(specs.values())})
    signature = make_signature("trec", {**options.signature(), "m": [str(m) for m in parsed]}, digests)
    return TrecPlan(
        runs={name: str(run) for name, run in runs.items()},
        specs=specs,
        options=options,
        measures=tuple(str(m) for m in parsed),
        value_names=tuple(value.name for value in measure_values(parsed)),
        signature=signature,
    )


def run_evaluation(plan: TrecPlan, store: PathLike | None = None, workers: int = 1) -> TrecEvaluation:
    """Run a plan's stages (in this process, or by Luigi into ``store``) and gather each run's
    ``evaluation`` table; :class:`~iescore.sources.StagesFailedError` when a run with a store stopped."""
    from iescore.tasks.cli.common import check_store_option

    check_store_option(None if store is None else str(store))
    artifacts = run_specs(list(plan.specs.values()), store, workers)
    tables: dict[str, pa.Table] = {
        name: artifacts.table(spec, "evaluation") for name, spec in plan.specs.items()
    }
    return TrecEvaluation(tables, plan.signature)


def run_names(paths: Sequence[str]) -> dict[str, str]:
    """Runs given by path, named as ``iescore trec`` names them: the file name, ``name#2`` for a
    second run of the same file name."""
    named: dict[str, str] = {}
    for path in paths:
        name = Path(path).name
        candidate, n = name, 1
        while candidate in named:
            n += 1
            candidate = f"{name}#{n}"
        named[candidate] = path
    return named


def _named_runs(runs: Any) -> dict[str, Any]:
    """``runs`` as name -> run: a mapping of runs (not a pytrec_eval dict of one run), a list, or one."""
    if isinstance(runs, Mapping) and runs and not _is_scores(runs):
        return {str(name): run for name, run in runs.items()}
    listed = list(runs) if isinstance(runs, (list, tuple)) else [runs]
    paths = run_names([str(run) for run in listed if is_path(run)])
    by_path = iter(paths)
    named = {}
    for position, run in enumerate(listed):
        named[next(by_path) if is_path(run) else f"run{position + 1}"] = run
    return named


def _is_scores(value: Mapping) -> bool:
    """Whether a mapping is one run as pytrec_eval takes it (query -> doc -> number)."""
    first = next(iter(value.values()))
    if not isinstance(first, Mapping):
        return False
    inner = next(iter(first.values()), 0)
    return isinstance(inner, (int, float)) and not isinstance(inner, bool)


def _qrels_path(qrels: Any, sources: Sources) -> str:
    if is_path(qrels):
        return str(qrels)
    if isinstance(qrels, (str, bytes)):
        return sources.text("qrels", qrels)
    rows = _rows(qrels, ("relevance", "rel"), "<qrels>")
    return sources.text("qrels", "".join(f"{q} 0 {d} {_grade(r, q, d)}\n" for q, d, r in rows))


def _run_path(run: Any, name: str, sources: Sources) -> str:
    tag = re.sub(r"[^\w.@-]", "_", name) or "run"
    role = f"run-{tag}"
    if isinstance(run, (str, bytes)):
        return sources.text(role, run)
    rows = _rows(run, ("score",), f"<{role}>")
    lines = []
    rank: dict[str, int] = {}
    for query, doc, score in rows:
        rank[query] = rank.get(query, 0) + 1
        lines.append(f"{query} Q0 {doc} {rank[query]} {float(score)!r} {tag}\n")
    return sources.text(role, "".join(lines))


def _rows(data: Any, value_columns: tuple[str, ...], source: str) -> list[tuple[str, str, Any]]:
    """(query, doc, value) of a DataFrame or a ``{query: {doc: value}}`` mapping."""
    if isinstance(data, Mapping):
        return [(str(q), str(d), v) for q, docs in data.items() for d, v in docs.items()]
    columns = [str(c) for c in getattr(data, "columns", ())]
    if not columns:
        raise InputError(
            source,
            0,
            f"a path, text, DataFrame or {{query: {{doc: value}}}} expected, got {type(data).__name__}",
        )
    chosen = []
    for names in (_QUERY, _DOC, value_columns):
        found = next((c for c in names if c in columns), None)
        if found is None:
            raise InputError(
                source, 0, f"a column {' or '.join(names)} expected; the DataFrame has {columns}"
            )
        chosen.append(found)
    return [(str(q), str(d), v) for q, d, v in zip(*(data[c].tolist() for c in chosen), strict=True)]


def _grade(value: Any, query: str, doc: str) -> int:
    try:
        grade = int(value)
    except (TypeError, ValueError):
        grade = None
    if grade is None or grade != value:
        raise InputError(
            "<qrels>", 0, f"query {query!r}, document {doc!r}: an integer relevance expected, got {value!r}"
        )
    return grade


def _digest(spec: Mapping[str, Any], role: str) -> str:
    """The sha256 of the raw file ``role`` (qrels or run) of an EvaluateRun spec."""
    return spec["inputs"][role]["inputs"][role]["sha256"]


def _check_c_longs(level: int, max_docs: int | None, num_docs: int | None) -> None:
    """``-l``, ``-M`` and ``-N`` within what trec_eval reads them into (a C long; a grade for ``-l``,
    beyond which nothing could be relevant): trec_eval crashes on ``-l 99999999999999999999``."""
    from iescore.pipeline.core.settings import ANY_COUNT
    from iescore.pipeline.trec.formats import LARGEST_GRADE
    from iescore.pipeline.trec.measures import LONG_MAX

    if not -LARGEST_GRADE <= level <= LARGEST_GRADE:
        raise InputError(
            "-l",
            0,
            f"a relevance level between {-LARGEST_GRADE} and {LARGEST_GRADE} expected (grades are 32-bit "
            f"integers, so no document could be relevant), got {level}",
        )
    for option, value in (("-M", max_docs), ("-N", num_docs)):
        if value is not None:
            check_count(option, value, ANY_COUNT)
        if value is not None and value > LONG_MAX:
            raise InputError(
                option,
                0,
                f"a whole number of at most {LONG_MAX} (a C long, as trec_eval reads it) expected, "
                f"got {value}",
            )
