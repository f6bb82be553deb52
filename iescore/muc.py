"""The MUC scorer (seed 001), as ``iescore muc CONFIG`` computes it.

:func:`score` takes a MUC configuration file (or its text) and, optionally, the key, response and texts
in place of the files it names, and returns the scores of its task: for template element, template
relation, scenario template and named entity a :class:`MucScores` (the score tables, the tallies and
the mapping); for coreference an :class:`iescore.coref.CorefScores`. The command and this function
build the same stages (``iescore.tasks.muc.stages.muc_task_spec``) and read the same tables, so their
numbers cannot differ.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from iescore.coref import CorefScores
from iescore.pipeline.coref import score_tables
from iescore.pipeline.muc.config import parse_config, read_config
from iescore.pipeline.muc.rules import task_of
from iescore.sources import input_files, is_text
from iescore.tasks.cli.common import run_stages
from iescore.tasks.cli.muc import check_config_paths
from iescore.tasks.muc.stages import coreference_scores, muc_task_spec
from iescore.tasks.templette.graph import report_tables
from iescore.templette import TempletteScores

__all__ = ["MucScores", "score"]


class MucScores(TempletteScores):
    """The scores of a template or named entity task: ``scores`` (by scope: total, document, type, slot,
    object), ``tallies`` and ``mapping``, as :class:`iescore.templette.TempletteScores`."""


def score(
    config: str | os.PathLike[str],
    *,
    key: str | os.PathLike[str] | None = None,
    response: str | os.PathLike[str] | None = None,
    texts: str | os.PathLike[str] | None = None,
    encoding: str = "utf-8",
) -> MucScores | CorefScores:
    """Score the task of the MUC configuration ``config``, as ``iescore muc CONFIG``.

    ``config``: a path (str or os.PathLike), or the configuration's text (a string holding a line break;
    relative paths in it count from the current directory). ``key``, ``response``, ``texts``: a path or
    a file's text, used in place of the configuration's ``:key_file``, ``:response_file``,
    ``:text_file``. ``encoding``: of the key, response and texts. The configuration's output files are
    not written. Bad input raises :class:`~iescore.pipeline.core.errors.InputError` naming the file (or
    ``<config>``, ``<key>``, ...) and line.

    >>> result = score("data/muc-te/te.config")
    >>> result.totals[["COR", "PAR", "INC", "MIS", "SPU", "POS", "ACT"]].to_dict("records")
    [{'COR': 8, 'PAR': 0, 'INC': 1, 'MIS': 1, 'SPU': 1, 'POS': 10, 'ACT': 10}]
    >>> result.by_type[["instance_type", "F"]].round(3).values.tolist()
    [['PERSON', 0.75], ['ORGANIZATION', 0.833]]
    >>> score("data/muc-te/te.config", response="data/muc-te/perfect.tpl").totals["F"].tolist()
    [1.0]
    """
    inputs = {"config": config, "key": key, "response": response, "texts": texts}
    with input_files(inputs, encoding) as (_, paths):
        config_path = Path(paths["config"])  # type: ignore[arg-type]
        if is_text(config):
            parsed = parse_config(str(config), "<config>", base_dir=Path.cwd())
        else:
            parsed = read_config(config_path)
        replaced = {
            field: Path(path)
            for field, path in (
                ("key_file", paths["key"]),
                ("response_file", paths["response"]),
                ("text_file", paths["texts"]),
            )
            if path is not None
        }
        parsed = dataclasses.replace(parsed, outputs={}, **replaced)
        task = task_of(parsed)
        check_config_paths(parsed)
        spec = muc_task_spec(parsed, config_path, encoding)
        _, artifacts = run_stages([spec], None)
        if task == "coreference":
            mentions = artifacts.table(spec, "mentions")
            tables = score_tables(coreference_scores(mentions))
            tables["mentions"] = mentions
            return CorefScores(tables)
        return MucScores(report_tables(artifacts, spec))
