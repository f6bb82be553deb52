"""Coreference scores of a key/response pair: MUC, B3, CEAF-e, CEAF-m, BLANC, LEA and the CoNLL score.

:func:`score` reads a key and a response (CoNLL files or MUC SGML texts with COREF tags, as paths or as
the files' text) and returns a :class:`CorefScores`: every metric per document and in total (sums of
the documents' counts), and the aligned mentions. ``iescore coref --key K --response R`` reads and
scores with the same function (``iescore.pipeline.coref.score_files``) and prints these numbers.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pyarrow as pa

from iescore.pipeline.coref import FORMATS, MATCH_MODES, ZERO_DIVISION, score_files, score_tables
from iescore.result import Result
from iescore.schemas import COREF_MENTIONS
from iescore.sources import input_files

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CorefScores", "score"]


class CorefScores(Result):
    """Scores of a response's chains: ``totals`` and ``documents`` (``schemas.COREF_SCORES``: a row
    per metric, and per document), ``mentions`` (``schemas.COREF_MENTIONS``: every key and response
    mention and how it matched); ``notices``, what the pairing of documents and mentions announced."""

    headline = "totals"

    def __init__(self, tables: dict[str, pa.Table], notices: tuple[str, ...] = ()) -> None:
        super().__init__(tables)
        self.notices = notices

    @property
    def totals(self) -> pd.DataFrame:
        """One row per metric: counts, recall, precision and F1 (fractions) of the whole response."""
        return self.frame("totals")

    @property
    def documents(self) -> pd.DataFrame:
        """One row per document and metric, the columns of :attr:`totals`."""
        return self.frame("documents")

    @property
    def mentions(self) -> pd.DataFrame:
        """One row per mention of the key or the response: document, chains, extent, COR/MIS/SPU/OPT."""
        return self.frame("mentions")

    @property
    def conll(self) -> float | None:
        """The CoNLL score: the mean of the MUC, B3 and CEAF-e F1 of the totals (a fraction)."""
        totals = self.arrow("totals").to_pylist()
        return next(row["f1"] for row in totals if row["metric"] == "conll")


def score(
    key: str | os.PathLike[str],
    response: str | os.PathLike[str],
    *,
    format: str = "conll",
    match: str = "exact",
    encoding: str = "utf-8",
    strict: bool = False,
    zero_division: str | int = "undefined",
) -> CorefScores:
    """Score ``response`` against ``key`` with every metric, as ``iescore coref --key --response``.

    ``key``, ``response``: a path (str or os.PathLike), or the file's text (a string holding a line
    break). ``format``: conll or sgml; ``match``: exact, or min (SGML: the key's MIN string);
    ``strict``: refuse documents one side lacks and remove every repeated response mention (else paired
    as the CoNLL scorer does, each case in :attr:`CorefScores.notices`); ``zero_division``: a ratio
    over 0 is undefined (None) or 0. Bad input raises
    :class:`~iescore.pipeline.core.errors.InputError`, naming the file, or ``<key>``/``<response>``.

    >>> result = score("data/coref-sample/key.conll", "data/coref-sample/split.conll")
    >>> totals = result.totals.set_index("metric")
    >>> totals.loc["muc", ["recall_num", "recall_den", "precision_num", "precision_den"]].astype(int).tolist()
    [3, 5, 3, 3]
    >>> print(f"MUC F1 {totals.loc['muc', 'f1']:.3f}, CoNLL {result.conll:.4f}")
    MUC F1 0.750, CoNLL 0.7409
    >>> result.documents.query("metric == 'muc'")[["doc_id", "f1"]].round(3).values.tolist()
    [['(d1); part 000', 0.8], ['(d2); part 000', 0.667]]
    """
    for name, value, choices in (
        ("format", format, FORMATS),
        ("match", match, MATCH_MODES),
        ("zero_division", str(zero_division), ZERO_DIVISION),
    ):
        if value not in choices:
            raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    inputs = {"key": key, "response": response}
    with input_files(inputs, encoding) as (sources, paths):
        mentions, scores = score_files(paths["key"], paths["response"], format, match, encoding, strict)
        notices = tuple(sources.shown(notice) for notice in mentions.notices)
    tables = score_tables(scores, zero_division)
    tables["mentions"] = pa.Table.from_pandas(mentions.table, schema=COREF_MENTIONS, preserve_index=False)
    return CorefScores(tables, notices)
