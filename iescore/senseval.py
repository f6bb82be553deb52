"""SENSEVAL word-sense scores as scorer2 computes them: the library behind ``iescore senseval``.

:func:`score` scores a system's answers against a key (and a sense map, for coarse- and mixed-grained
scores) and returns :class:`SensevalScores`: the sums over all instances and per lexical item, every
instance with its credit, the answer lines that could not be scored, and the warnings about answer
lines. ``iescore senseval`` parses its arguments and calls :func:`plan_scoring` and :func:`run_scoring`,
as :func:`score` does, so the command and the library cannot disagree. The rules are in
:mod:`iescore.pipeline.senseval.scoring`.

Inputs: a path (``str`` without a line end, or ``os.PathLike``), the file's text, or (answers and key)
a list of records ``{"item": ..., "instance": ..., "senses": [tag, (tag, weight), ...]}``, written in
scorer2's format and read by the command's readers (:mod:`iescore.sources`).

>>> from iescore import senseval
>>> result = senseval.score("data/senseval-sample/system-b.answers", "data/senseval-sample/key.txt",
...                         "data/senseval-sample/senses.map", granularity="coarse")
>>> round(result.precision, 3), round(result.recall, 3), round(result.attempted_fraction, 3)
(0.826, 0.57, 0.69)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iescore.pipeline.core.errors import InputError
from iescore.result import Result
from iescore.sources import PathLike, Sources, is_path, run_specs

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SensePlan", "SensevalScores", "plan_scoring", "run_scoring", "score"]

#: Answers or a key: a path, the file's text, or records ``{"item", "instance", "senses"}``.
SenseInput = PathLike | Sequence[Mapping[str, Any]]


class SensevalScores(Result):
    """A SENSEVAL scoring's tables: ``totals`` (``SENSE_TOTALS``: all instances, item null, then each
    lexical item; signed), ``instances`` (``SENSE_INSTANCES``: every instance of the key after the
    filters, with its credit, attempted and total), ``unscored`` (the answer lines not scored, and why)
    and ``warnings`` (line, warning: what scorer2 scores oddly). ``granularity`` is the one used (fine
    when coarse or mixed was asked for without a sense map; ``note`` then says so, as scorer2 does)."""

    headline = "totals"

    def __init__(self, tables: Mapping[str, Any], signature: str, granularity: str, note: str | None) -> None:
        super().__init__(tables, signature)
        self.granularity = granularity
        self.note = note

    @property
    def totals(self) -> pd.DataFrame:
        """Credit, attempted and total summed over all instances (first row, item null) and per item."""
        return self.frame("totals")

    @property
    def instances(self) -> pd.DataFrame:
        """Every scored instance: key and answer tags as scored, credit, attempted, total."""
        return self.frame("instances")

    @property
    def unscored(self) -> pd.DataFrame:
        """The answer lines that could not be scored, with the reason."""
        return self.frame("unscored")

    @property
    def warnings(self) -> pd.DataFrame:
        """The answer lines scorer2 scores oddly: line, warning."""
        return self.frame("warnings")

    @property
    def precision(self) -> float | None:
        """Credit over attempted (None when nothing was attempted)."""
        return self._sums().precision

    @property
    def recall(self) -> float | None:
        """Credit over the instances' total (None without instances)."""
        return self._sums().recall

    @property
    def attempted_fraction(self) -> float | None:
        """Attempted over the total (scorer2's 'attempted', as a fraction of 1)."""
        return self._sums().attempted_fraction

    def _sums(self) -> Any:
        from iescore.pipeline.senseval.report import totals

        return totals(self.arrow("totals"))


@dataclass(frozen=True)
class SensePlan:
    """A scoring checked and its stages planned (``tasks.senseval.stages``), before any file is read:
    the ReportSenses spec, the options, the granularity used and scorer2's note when it is not the one
    asked for."""

    spec: dict[str, Any]
    options: dict[str, Any]
    granularity: str
    note: str | None


def score(
    answers: SenseInput,
    key: SenseInput,
    sense_map: PathLike | None = None,
    *,
    granularity: str = "fine",
    minimal: bool = False,
    policy: str = "disjunctive",
    unknown_senses: str = "wrong",
    instances: PathLike | Iterable[tuple[str, str]] | None = None,
    senses: PathLike | Iterable[str] | None = None,
    strict: bool = False,
    encoding: str = "utf-8",
    store: PathLike | None = None,
    workers: int = 1,
) -> SensevalScores:
    """Score ``answers`` against ``key`` as ``iescore senseval ANSWERS KEY [SENSEMAP]`` does.

    ``granularity`` is ``-g`` (fine, coarse, mixed), ``minimal`` ``-m``; ``policy``, ``unknown_senses``,
    ``strict`` and ``encoding`` are the command's options of those names; ``instances`` (a file, its
    text or ``(item, instance)`` pairs) and ``senses`` (a file, its text or tags) are its filters.
    ``store``: keep the stages' artifacts there (Luigi, ``workers`` at a time). Bad input raises
    :class:`~iescore.pipeline.core.errors.InputError` with the command's message.

    >>> key = [{"item": "bank", "instance": "b1", "senses": ["bank.1"]},
    ...        {"item": "bank", "instance": "b2", "senses": ["bank.2"]}]
    >>> answers = [{"item": "bank", "instance": "b1", "senses": [("bank.1", 0.5), ("bank.2", 0.5)]}]
    >>> result = score(answers, key)
    >>> result.instances[["instance", "credit", "attempted"]].to_dict("records")
    [{'instance': 'b1', 'credit': 0.5, 'attempted': 1.0}, {'instance': 'b2', 'credit': 0.0, 'attempted': 0.0}]
    """
    with Sources() as sources:
        plan = plan_scoring(
            _sense_file(answers, "answers", sources),
            _sense_file(key, "key", sources),
            None if sense_map is None else _text_file(sense_map, "sense_map", sources),
            granularity=granularity,
            minimal=minimal,
            policy=policy,
            unknown_senses=unknown_senses,
            instances=None if instances is None else _list_file(instances, "instances", sources),
            senses=None if senses is None else _list_file(senses, "senses", sources),
            strict=strict,
            encoding=encoding,
        )
        return run_scoring(plan, store, workers)


def plan_scoring(
    answers: PathLike,
    key: PathLike,
    sense_map: PathLike | None = None,
    *,
    granularity: str = "fine",
    minimal: bool = False,
    policy: str = "disjunctive",
    unknown_senses: str = "wrong",
    instances: PathLike | None = None,
    senses: PathLike | None = None,
    strict: bool = False,
    encoding: str = "utf-8",
) -> SensePlan:
    """The checked options and the stages of a scoring of files; a bad option, or a path that is not a
    readable file, is :class:`InputError` before any file is read."""
    from pathlib import Path

    from iescore.pipeline.core.settings import encoding_problem
    from iescore.pipeline.senseval.scoring import (
        GRANULARITIES,
        POLICIES,
        UNKNOWN_SENSES,
        effective_granularity,
    )
    from iescore.tasks.core.arguments import INPUT_FILE, check_paths
    from iescore.tasks.senseval.stages import senseval_spec

    for option, value, choices in (
        ("-g", granularity, GRANULARITIES),
        ("--policy", policy, POLICIES),
        ("--unknown-senses", unknown_senses, UNKNOWN_SENSES),
    ):
        if value not in choices:
            raise InputError(option, 0, f"one of {', '.join(choices)} expected, found {value!r}")
    problem = encoding_problem(encoding)
    if problem:
        raise InputError("--encoding", 0, f"{problem}, found {encoding!r}")
    check_paths(
        [
            ("ANSWERS", answers, INPUT_FILE),
            ("KEY", key, INPUT_FILE),
            ("SENSEMAP", sense_map, INPUT_FILE),
            ("--instances", instances, INPUT_FILE),
            ("--senses", senses, INPUT_FILE),
        ]
    )
    used, note = effective_granularity(granularity, sense_map is not None)
    options = {
        "granularity": used,
        "minimal": bool(minimal),
        "policy": policy,
        "unknown_senses": unknown_senses,
        "encoding": encoding,
        "strict": bool(strict),
    }
    spec = senseval_spec(
        Path(answers),
        Path(key),
        Path(sense_map) if sense_map is not None else None,
        options,
        Path(instances) if instances is not None else None,
        Path(senses) if senses is not None else None,
    )
    return SensePlan(spec, options, used, note)


def run_scoring(plan: SensePlan, store: PathLike | None = None, workers: int = 1) -> SensevalScores:
    """Run a plan's stages (in this process, or by Luigi into ``store``) and gather their tables;
    :class:`~iescore.sources.StagesFailedError` when a run with a store stopped."""
    from iescore.pipeline.core.signature import SIGNATURE_KEY
    from iescore.tasks.cli.common import check_store_option

    check_store_option(None if store is None else str(store))
    artifacts = run_specs([plan.spec], store, workers)
    scored = plan.spec["inputs"]["scored"]
    totals = artifacts.table(plan.spec, "totals")
    tables = {
        "totals": totals,
        "instances": artifacts.table(scored, "instances"),
        "unscored": artifacts.table(scored, "unscored"),
        "warnings": artifacts.table(scored["inputs"]["answers"], "warnings"),
    }
    signature = totals.schema.metadata[SIGNATURE_KEY].decode()
    return SensevalScores(tables, signature, plan.granularity, plan.note)


def _sense_file(data: Any, role: str, sources: Sources) -> str:
    """A path for answers or a key given as a path, text or records."""
    if is_path(data) or isinstance(data, (str, bytes)):
        return _text_file(data, role, sources)
    lines = []
    for number, record in enumerate(data, 1):
        try:
            item, instance, tags = record["item"], record["instance"], record["senses"]
        except (KeyError, TypeError):
            raise InputError(
                f"<{role}>", number, "a record {'item': ..., 'instance': ..., 'senses': [...]} expected"
            ) from None
        written = [tag if isinstance(tag, str) else f"{tag[0]}/{float(tag[1])!r}" for tag in tags]
        lines.append(" ".join([str(item), str(instance), *written]) + "\n")
    return sources.text(role, "".join(lines))


def _text_file(data: Any, role: str, sources: Sources) -> str:
    return str(data) if is_path(data) else sources.text(role, data)


def _list_file(data: Any, role: str, sources: Sources) -> str:
    """A path for a filter given as a path, its text, or its entries (tags, or (item, instance) pairs)."""
    if is_path(data) or isinstance(data, (str, bytes)):
        return _text_file(data, role, sources)
    return sources.text(
        role, "".join((entry if isinstance(entry, str) else " ".join(entry)) + "\n" for entry in data)
    )
