"""HUB-4 templette scores of a hypothesis template set against a reference (seed 000), as ``iescore
templette`` computes them.

:func:`score` takes the template sets (and the text corpora their extents point into) as paths or as
the files' text and returns a :class:`TempletteScores`: the score tables (total, by document, by
instance type, by slot), the tallies (one row per point, the sufficient statistics every score sums)
and the mapping (every pairing of instances and fills, with its points). The command and this
function build the same stages (``iescore.tasks.templette.graph``) and read the same tables, so their
numbers cannot differ.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from iescore.pipeline.core.measures import is_usable_beta
from iescore.pipeline.core.signature import SIGNATURE_KEY
from iescore.pipeline.speech.align import COST_MODELS
from iescore.pipeline.speech.glm import malformed_rule_warnings, read_glm
from iescore.pipeline.templette.removal import DEFAULT_PREMODIFIERS, DEFAULT_PUNCTUATION
from iescore.pipeline.templette.scoring import COMPARE_MODES
from iescore.result import Result
from iescore.schemas import C
from iescore.sources import input_files
from iescore.tasks.cli.common import run_stages
from iescore.tasks.templette.graph import report_tables, templette_options, templette_spec

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["TempletteScores", "score"]


class TempletteScores(Result):
    """Score tables and what they are made of: ``scores`` (``schemas.SCORES``: one row per scope, total,
    document, type, slot and object), ``tallies`` (``schemas.TALLIES``) and ``mapping``
    (``schemas.MAPPING``). Measures are fractions of 1 (the command prints percentages)."""

    headline = "scores"

    def __init__(self, tables: dict[str, pa.Table]) -> None:
        metadata = tables["scores"].schema.metadata or {}
        super().__init__(tables, metadata.get(SIGNATURE_KEY, b"").decode())

    @property
    def scores(self) -> pd.DataFrame:
        """Every score row: ``scope`` (total, document, type, slot, object), its keys, counts, measures."""
        return self.frame("scores")

    @property
    def totals(self) -> pd.DataFrame:
        """The ALL SLOTS row (one row)."""
        return self._scope("total")

    @property
    def by_document(self) -> pd.DataFrame:
        """One row per document (``doc_id``)."""
        return self._scope("document")

    @property
    def by_type(self) -> pd.DataFrame:
        """One row per instance type (``instance_type``)."""
        return self._scope("type")

    @property
    def by_slot(self) -> pd.DataFrame:
        """One row per slot of an instance type (``instance_type``, ``slot``)."""
        return self._scope("slot")

    @property
    def tallies(self) -> pd.DataFrame:
        """One row per point (COR, INC, PAR, MIS, SPU, NON) with its document, type, slot and reason."""
        return self.frame("tallies")

    @property
    def mapping(self) -> pd.DataFrame:
        """Every pairing of instance sets, instances, slots and fills, with its points."""
        return self.frame("mapping")

    def _scope(self, scope: str) -> pd.DataFrame:
        frame = self.scores
        return frame[frame[C.scope] == scope].reset_index(drop=True)


def score(
    ref: str | os.PathLike[str],
    hyp: str | os.PathLike[str],
    *,
    texts: str | os.PathLike[str] | None = None,
    hyp_texts: str | os.PathLike[str] | None = None,
    unsegmented: bool = False,
    glm: str | os.PathLike[str] | None = None,
    cost: str = "phonetic",
    premodifiers: str = ",".join(DEFAULT_PREMODIFIERS),
    punctuation: str = DEFAULT_PUNCTUATION,
    compare: str = "both",
    unscored: str = "COMMENT",
    case_sensitive: bool = False,
    beta: float = 1.0,
    encoding: str = "utf-8",
) -> TempletteScores:
    """Score the template set ``hyp`` against ``ref``, as ``iescore templette --ref --hyp ...``.

    Every input (``ref``, ``hyp``, ``texts``: the reference corpus, ``hyp_texts``: the hypothesis corpus
    when it differs, ``glm``) is a path (str or os.PathLike) or the file's text (a string holding a line
    break). The options are the command's, with its defaults: ``unscored`` and ``premodifiers`` are
    comma-separated words (empty: none). The stages run in this process; nothing is written. Bad input
    raises :class:`~iescore.pipeline.core.errors.InputError` naming the file (or ``<ref>``, ``<hyp>``,
    ...) and line; malformed GLM rules that are kept are warnings (:mod:`warnings`).

    >>> result = score("data/hub4-sports/ref.tpl", "data/hub4-sports/sloppy.tpl",
    ...                texts="data/hub4-sports/texts.sgml")
    >>> result.totals[["COR", "INC", "MIS", "SPU", "POS", "ACT"]].to_dict("records")
    [{'COR': 15, 'INC': 4, 'MIS': 0, 'SPU': 0, 'POS': 19, 'ACT': 19}]
    >>> print(f"F {100 * result.totals['F'][0]:.2f}")
    F 78.95
    >>> result.by_document["doc_id"].tolist()
    ['ABC19980307.1830.1415', 'PRI19980302.2000.2923', 'PRI19980317.2000.2025']
    >>> result.signature.split("|")[:2]
    ['scorer:templette', 'compare:both']
    """
    for name, value, choices in (("compare", compare, COMPARE_MODES), ("cost", cost, COST_MODELS)):
        if value not in choices:
            raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    if not is_usable_beta(float(beta)):
        raise ValueError(f"beta must be a finite number above 0, not {beta!r}")
    inputs = {
        "ref": ref,
        "hyp": hyp,
        "texts": texts,
        "hyp_texts": hyp_texts,
        "glm": glm,
    }
    with input_files(inputs, encoding) as (_, paths):
        if paths["glm"] is not None:
            for warning in malformed_rule_warnings(read_glm(paths["glm"], encoding)):
                warnings.warn(warning, stacklevel=2)
        options = templette_options(
            compare=compare,
            unscored=unscored,
            case_sensitive=case_sensitive,
            beta=float(beta),
            encoding=encoding,
            unsegmented=unsegmented,
            glm=paths["glm"],
            cost=cost,
            premodifiers=premodifiers,
            punctuation=punctuation,
        )
        spec = templette_spec(*(_path(paths[role]) for role in ("ref", "hyp", "texts", "hyp_texts")), options)
        _, artifacts = run_stages([spec], None)
        return TempletteScores(report_tables(artifacts, spec))


def _path(path: str | None) -> Path | None:
    return None if path is None else Path(path)
