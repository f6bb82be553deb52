"""Word alignment and word error rate of reference/hypothesis pairs, as ``iescore align`` computes them.

:func:`align` takes two transcripts (trn files, trn text, lists of strings, or dicts of utterance id ->
words), or one DataFrame with ``id``, ``ref`` and ``hyp`` columns, or two SGML text corpora
(``input_format="sgml"``), and returns a :class:`SpeechAlignment`: each utterance's counts, every
alignment column, and the totals (sclite's C, S, D, I and percentages, ``Err`` being the WER in percent).
The command and this function read, align and count with the same functions
(``iescore.pipeline.speech.transcripts.align_texts``), so their numbers cannot differ.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from iescore.pipeline.core.corpus import read_input
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.align import COST_MODELS
from iescore.pipeline.speech.glm import malformed_rule_warnings, parse_glm, read_glm
from iescore.pipeline.speech.transcripts import align_options, align_texts, aligned_tables
from iescore.result import Result
from iescore.sources import is_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SpeechAlignment", "align"]


class SpeechAlignment(Result):
    """An alignment: ``segments`` (counts per utterance), ``words`` (one row per alignment column) and
    ``totals`` (one row); columns as ``iescore.schemas`` SPEECH_SEGMENTS, SPEECH_WORDS, SPEECH_TOTALS."""

    headline = "segments"

    @property
    def segments(self) -> pd.DataFrame:
        """One row per utterance (or document): ``segment_id``, ``C``, ``S``, ``D``, ``I``, ``missing``."""
        return self.frame("segments")

    @property
    def words(self) -> pd.DataFrame:
        """One row per alignment column: ``segment_id``, ``column``, ``ref_word``, ``hyp_word``, ``op``..."""
        return self.frame("words")

    @property
    def totals(self) -> pd.DataFrame:
        """One row: ``C S D I``, ``Corr Sub Del Ins Err`` (percent of C + S + D) and ``missing``."""
        return self.frame("totals")

    @property
    def wer(self) -> float | None:
        """The word error rate, (S + D + I) / (C + S + D), as a fraction; None (undefined) when the
        reference has no word, where the totals' ``Err`` says 0 as sclite prints it."""
        row = self.arrow("totals").to_pylist()[0]
        words = row["C"] + row["S"] + row["D"]
        return (row["S"] + row["D"] + row["I"]) / words if words else None


def align(
    ref: Any,
    hyp: Any = None,
    *,
    input_format: str = "trn",
    cost: str = "levenshtein",
    glm: str | os.PathLike[str] | None = None,
    encoding: str = "utf-8",
    allow_missing: bool = False,
) -> SpeechAlignment:
    """Align each reference utterance with the hypothesis one of the same id, as ``iescore align``.

    ``ref`` and ``hyp``: a path (str or os.PathLike) of a trn file (or of an SGML corpus with
    ``input_format="sgml"``); a string holding a newline, read as the file's text; a dict of utterance id
    -> words; or a list of strings (utterance ids ``1``, ``2``, ...). Or ``ref`` alone: a DataFrame with
    ``id``, ``ref`` and ``hyp`` columns. Ids are lower-cased, as in trn files. ``glm``: a GLM file (or its
    text) applied to both sides; ``cost``: levenshtein (sclite's) or phonetic (fillers and fragments
    optional); ``allow_missing``: an utterance the hypothesis lacks counts as deletions (else an error).
    Bad input raises :class:`~iescore.pipeline.core.errors.InputError` naming the file (or ``<ref>``,
    ``<hyp>``) and line. Malformed GLM rules that are kept are warnings (:mod:`warnings`), as the
    command says them on stderr.

    >>> result = align(["the cat sat", "on the mat"], ["the cat sat down", "on a mat"])
    >>> result.totals[["C", "S", "D", "I", "Err"]].to_dict("records")
    [{'C': 5, 'S': 1, 'D': 0, 'I': 1, 'Err': 33.3}]
    >>> result.segments[["segment_id", "S", "I"]].values.tolist()
    [['1', 0, 1], ['2', 1, 0]]
    >>> align("data/hub4-speech/texts.sgml", "data/hub4-speech/asr.sgml", input_format="sgml").wer
    0.35
    """
    if cost not in COST_MODELS:
        raise ValueError(f"cost must be one of {', '.join(COST_MODELS)}, not {cost!r}")
    if input_format not in ("trn", "sgml"):
        raise ValueError(f"input_format must be trn or sgml, not {input_format!r}")
    if hyp is None:
        ref, hyp = _frame_sides(ref)
    what = "transcript" if input_format == "trn" else "text corpus"
    ref_text, ref_source = _side_text(ref, "<ref>", input_format, encoding, what)
    hyp_text, hyp_source = _side_text(hyp, "<hyp>", input_format, encoding, what)
    rules = None
    if glm is not None:
        rules = parse_glm(glm, "<glm>") if is_text(glm) else read_glm(glm, encoding)
        for warning in malformed_rule_warnings(rules):
            warnings.warn(warning, stacklevel=2)
    aligned = align_texts(
        ref_text, hyp_text, ref_source, hyp_source, align_options(cost, rules), input_format, allow_missing
    )
    return SpeechAlignment(aligned_tables(aligned))


def _frame_sides(frame: Any) -> tuple[dict[str, str], dict[str, str]]:
    """A DataFrame's ``id``, ``ref`` and ``hyp`` columns as two dicts of utterance id -> words."""
    columns = getattr(frame, "columns", None)
    if columns is None or not {"id", "ref", "hyp"} <= set(columns):
        raise InputError("<ref>", 0, "a DataFrame with columns id, ref and hyp expected (or give hyp)")
    ids = [str(i) for i in frame["id"]]
    return dict(zip(ids, frame["ref"], strict=True)), dict(zip(ids, frame["hyp"], strict=True))


def _side_text(value: Any, label: str, input_format: str, encoding: str, what: str) -> tuple[str, str]:
    """One side's text and the name its errors give: a file read as the command reads it, text as
    given, utterances written as trn lines."""
    if isinstance(value, os.PathLike) or (isinstance(value, str) and not is_text(value)):
        return read_input(value, encoding, what), os.fspath(value)
    if isinstance(value, str):
        return value, label
    if input_format != "trn":
        raise InputError(label, 0, "SGML input is a path or the corpus's text")
    if isinstance(value, Mapping):
        items = [(str(uid), words) for uid, words in value.items()]
    elif isinstance(value, Sequence):
        items = [(str(k), words) for k, words in enumerate(value, 1)]
    else:
        raise InputError(
            label, 0, f"a path, text, dict or list of utterances expected, not {type(value).__name__}"
        )
    lines = []
    for number, (uid, words) in enumerate(items, 1):
        if not isinstance(words, str) or "\n" in words or "\r" in words:
            raise InputError(label, number, f"utterance {uid!r}: one line of words expected")
        if not uid.strip() or any(c in uid for c in "()\n\r"):
            raise InputError(
                label, number, f"utterance id {uid!r}: a non-empty id without parentheses expected"
            )
        lines.append(f"{words} ({uid})\n")
    return "".join(lines), label
