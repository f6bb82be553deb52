"""WER campaigns (``scorer = "wer"``): the word error rate family, each system's alignment as a table,
and sc_stats' MAPSSWE and sign test as the family's own pair tests.

A system is aligned with the reference by ``iescore sclite``'s own rules (:func:`align_system` calls
``pipeline.speech.sclite.trn.score_trn`` for trn against trn, ``pipeline.speech.stm_score`` for ctm
against stm or ctm, with the same options dataclasses), and the alignment becomes the auditable
``WER_ALIGNMENT`` table: one row per aligned word pair, with its utterance, speaker and stm labels.

The unit a campaign resamples is the utterance (trn) or segment (stm). Its statistics are the sclite
counts ``C S D I`` and ``utterances`` (1) and ``utterances_in_error`` (1 when any word is in error), so
every measure is sclite's over summed counts: ``wer = (S + D + I) / (C + S + D)`` (sclite's Err),
``corr``, ``sub``, ``del``, ``ins`` over the reference words, and ``ser`` (sclite's S.Err) over the
utterances. A rate over no reference word is undefined. Lower is better for every measure but ``corr``.
The categories (the page's heat map) are the speakers; the page's family section adds the rates by stm
label (``label_sums``) and each system's alignment by utterance, as sclite's ``.pra`` blocks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.family import Family, statistics_table
from iescore.pipeline.speech.sc_stats.tests import mapsswe_test, percentages, segment_pairs, sign_test
from iescore.pipeline.speech.sclite.model import ScoredSystem, Segment, SystemBuilder
from iescore.pipeline.speech.sclite.pra import segment_block
from iescore.pipeline.speech.sclite.trn import (
    Encoding,
    TrnOptions,
    decode_bytes,
    encode_text,
    read_text,
    score_trn,
)
from iescore.pipeline.speech.stm_score import StmOptions, byte_characters, score_ctm_ctm, score_stm_ctm
from iescore.schemas import WER_ALIGNMENT, C

STATISTICS = ("utterances", "utterances_in_error", "C", "S", "D", "I")
MEASURES = ("corr", "sub", "del", "ins", "wer", "ser")
#: sclite's names of the measures (its .sys report's columns).
SCLITE_NAMES = {"corr": "Corr", "sub": "Sub", "del": "Del", "ins": "Ins", "wer": "WER", "ser": "S.Err"}
#: The formats a WER campaign scores: the reference's, and the systems' each reference format takes.
HYPOTHESIS_FORMATS = {"trn": ("trn",), "stm": ("ctm",), "ctm": ("ctm",)}
#: sclite's -e names and the text encoding their words are shown in.
ENCODINGS = {"ascii": "", "utf-8": "utf-8", "gb": "gb", "euc": "euc"}
_CHARSETS = {"": "utf-8", "utf-8": "utf-8", "gb": "gb18030", "euc": "euc_jp"}
#: sc_stats' minimum number of correct boundary words of a MAPSSWE segment (its default).
MIN_GOOD = 2
#: The metadata key of the alignment's stm ``;; LABEL`` definitions (JSON: [[id, title, description]]).
LABELS_KEY = b"iescore.wer.labels"


def _formula(sums: np.ndarray, options: Mapping[str, Any]) -> np.ndarray:
    utterances, in_error, c, s, d, i = (sums[..., k] for k in range(len(STATISTICS)))
    ref = c + s + d
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = [np.where(ref > 0, x / ref, np.nan) for x in (c, s, d, i, s + d + i)]
        ser = np.where(utterances > 0, in_error / utterances, np.nan)
    return np.stack([*rates, ser], axis=-1)


WER = Family(
    name="wer",
    unit="utterance",
    statistic_names=STATISTICS,
    measure_names=MEASURES,
    headline="wer",
    categories="speaker",
    formula=_formula,
    counts=STATISTICS,
    lower_better=("sub", "del", "ins", "wer", "ser"),
)


@dataclass(frozen=True)
class Alignment:
    """One system aligned as ``iescore sclite`` aligns it: its scored system, sclite's warnings, and the
    charset its words are read in (for the table and page)."""

    system: ScoredSystem
    warnings: tuple[str, ...]
    charset: str


def align_system(
    reference: str,
    reference_format: str,
    hypothesis: str,
    hypothesis_format: str,
    *,
    id_type: str = "wsj",
    case_sensitive: bool = False,
    encoding: str = "ascii",
    opt_del: bool = False,
    frag_corr: bool = False,
    time_mediated: bool = False,
    reduce_ref: bool = False,
    reduce_hyp: bool = False,
) -> Alignment:
    """``hypothesis`` aligned with ``reference`` as ``iescore sclite -r REF FMT -h HYP FMT`` aligns them,
    with its options: ``-i id_type`` (trn), ``-s`` (case_sensitive), ``-e`` (encoding: ascii, utf-8, gb,
    euc), ``-D``, ``-F``, ``-T`` (ctm reference), ``-m ref`` / ``-m hyp`` (stm). Formats other than
    :data:`HYPOTHESIS_FORMATS` are an InputError naming the hypothesis file."""
    if hypothesis_format not in HYPOTHESIS_FORMATS.get(reference_format, ()):
        raise InputError(hypothesis, 0, format_problem(reference_format, hypothesis_format))
    code = Encoding(ENCODINGS[encoding], "")
    if reference_format == "trn":
        options = TrnOptions(id_type, case_sensitive, code, opt_del, frag_corr)
        return Alignment(score_trn(reference, hypothesis, hypothesis, options), (), _CHARSETS[code.name])
    timed = StmOptions(
        opt_del=opt_del,
        frag_corr=frag_corr,
        reduce_ref=reduce_ref,
        reduce_hyp=reduce_hyp,
        fold=None if case_sensitive else code.lower,
        characters=byte_characters(code.name),
    )
    ref_text, hyp_text = read_text(reference), read_text(hypothesis)
    if reference_format == "ctm":
        system = score_ctm_ctm(reference, hypothesis, hypothesis, timed, time_mediated, ref_text, hyp_text)
        return Alignment(system, (), _CHARSETS[code.name])
    system, warnings = score_stm_ctm(reference, hypothesis, hypothesis, timed, ref_text, hyp_text)
    return Alignment(system, tuple(warnings), _CHARSETS[code.name])


def format_problem(reference_format: str, hypothesis_format: str) -> str:
    """Why a pair of formats is not scored, and what is expected."""
    expected = " or ".join(HYPOTHESIS_FORMATS.get(reference_format, ()))
    return (
        f"{hypothesis_format} hypotheses against a {reference_format} reference are not scored; "
        f"--format must be {expected} (as iescore sclite takes them)"
    )


def alignment_table(alignment: Alignment) -> pa.Table:
    """The ``WER_ALIGNMENT`` table of a system: every aligned pair with its utterance, sequence, speaker
    and labels, words in their text (case as sclite holds them), sclite's op; the stm ``;; LABEL``
    definitions in the schema's metadata (``LABELS_KEY``)."""
    system, charset = alignment.system, alignment.charset
    sizes = np.diff(system.bounds)
    segments = system.segments
    texts = np.array([_text(word, charset) for word in system.texts] + [None], dtype=object)

    def per_pair(values: list[Any]) -> np.ndarray:
        return np.repeat(np.array(values, dtype=object), sizes)

    columns = {
        C.utterance: per_pair([s.id for s in segments]),
        C.sequence: np.repeat(np.array([s.sequence for s in segments], np.int64), sizes),
        C.speaker: per_pair([s.speaker for s in segments]),
        C.labels: per_pair([",".join(s.labels) for s in segments]),
        C.ref_word: texts[system.ref],  # -1 (no word) is the last entry: None
        C.hyp_word: texts[system.hyp],
        C.op: np.array([chr(op) for op in system.ops.tolist()], dtype=object),
    }
    table = pa.Table.from_pydict(
        {name: pa.array(values, WER_ALIGNMENT.field(name).type) for name, values in columns.items()},
        schema=WER_ALIGNMENT,
    )
    labels = json.dumps([[lab.id, lab.title, lab.description] for lab in system.labels], ensure_ascii=False)
    return table.replace_schema_metadata({**(WER_ALIGNMENT.metadata or {}), LABELS_KEY: labels.encode()})


def wer_statistics(system: ScoredSystem) -> pa.Table:
    """A system's ``STATISTICS`` table: per utterance (unit; category its speaker) ``utterances`` = 1,
    ``utterances_in_error`` (1 when any pair is not C) and sclite's C, S, D, I. Every scored utterance
    is a unit, an empty one included."""
    counts = system.counts()
    in_error = (counts[:, 1:].sum(axis=1) > 0).astype(np.float64)
    values = np.column_stack([np.ones(len(counts)), in_error, counts.astype(np.float64)])
    width = len(STATISTICS)
    units = [s.id for s in system.segments for _ in range(width)]
    speakers = [s.speaker for s in system.segments for _ in range(width)]
    return statistics_table(units, speakers, list(STATISTICS) * len(counts), values.ravel())


def label_sums(alignment: pa.Table) -> tuple[list[str], np.ndarray]:
    """The stm labels of a system's alignment and each one's statistics summed over its segments,
    ``(labels, STATISTICS)``: the labels in their ``;; LABEL`` order, named by their titles as the
    ``.lur`` names them, then any undefined one by its id, in order of appearance. A segment counts in
    each of its labels, as sclite's ``.lur`` counts it."""
    definitions = label_definitions(alignment)
    defined = [entry[0] for entry in definitions]
    table = alignment.select([C.utterance, C.labels, C.op]).to_pandas()
    if table.empty:
        return defined, np.zeros((len(defined), len(STATISTICS)))
    ops = table.groupby([C.utterance, C.labels], sort=False)[C.op].agg(lambda s: "".join(s))
    order: dict[str, int] = {label.lower(): k for k, label in enumerate(defined)}
    names = list(defined)
    rows: dict[int, np.ndarray] = {}
    for (_, labels), evals in ops.items():
        vector = _evals_vector(evals)
        for label in filter(None, labels.split(",")):
            k = order.get(label.lower())
            if k is None:
                k = order[label.lower()] = len(names)
                names.append(label)
            rows[k] = rows.get(k, 0) + vector
    sums = np.zeros((len(names), len(STATISTICS)))
    for k, vector in rows.items():
        sums[k] = vector
    titles = {entry[0]: entry[1] for entry in definitions if entry[1]}
    return [titles.get(name, name) for name in names], sums


def label_definitions(alignment: pa.Table) -> list[tuple[str, str, str]]:
    """The stm ``;; LABEL`` definitions kept with an alignment: (id, title, description)."""
    raw = (alignment.schema.metadata or {}).get(LABELS_KEY)
    return [tuple(entry) for entry in json.loads(raw)] if raw else []


def _evals_vector(evals: str) -> np.ndarray:
    c, s, d, i = (evals.count(op) for op in "CSDI")
    return np.array([1.0, float(s + d + i > 0), c, s, d, i])


# --- the family's own pair tests (sc_stats') ----------------------------------------------------------


@dataclass(frozen=True)
class Evaluations:
    """What sc_stats' tests read of one system: each utterance's speaker and op string, in order."""

    utterances: dict[str, tuple[str, str]]
    speakers: dict[str, np.ndarray]


def evaluations(alignment: pa.Table) -> Evaluations:
    """A system's ``WER_ALIGNMENT`` table as sc_stats reads a system: per utterance its speaker and the
    op letters of its pairs (``C S D I``), and per speaker its counts ``(C, S, D, I)``."""
    table = alignment.select([C.utterance, C.speaker, C.op]).to_pandas()
    utterances: dict[str, tuple[str, str]] = {}
    if not table.empty:
        grouped = table.groupby([C.utterance, C.speaker], sort=False)[C.op].agg(lambda s: "".join(s))
        utterances = {utt: (speaker, evals) for (utt, speaker), evals in grouped.items()}
    speakers: dict[str, np.ndarray] = {}
    for speaker, evals in utterances.values():
        counts = np.array([evals.count(op) for op in "CSDI"], np.int64)
        speakers[speaker] = speakers.get(speaker, np.zeros(4, np.int64)) + counts
    return Evaluations(utterances, speakers)


def mapsswe_p(first: Evaluations, second: Evaluations) -> float | None:
    """The two-sided p-value of sc_stats' matched pairs sentence-segment word error test (MAPSSWE) of
    two systems: the utterances both scored (same id and speaker, in the first system's order) cut into
    segments as sc_stats cuts them (``segment_pairs``, two correct boundary words), Z of the per-segment
    error differences, and its p from sc_stats' normal table (what sc_stats prints beside its result)."""
    segments: list[tuple[int, int, int]] = []
    dropped = sentences = 0
    for utterance, (speaker, evals) in first.utterances.items():
        other = second.utterances.get(utterance)
        if other is None or other[0] != speaker:
            continue
        found, lost = segment_pairs(evals, other[1], MIN_GOOD)
        segments += found
        dropped += lost
        sentences += 1
    return min(1.0, mapsswe_test(segments, dropped, sentences).confidence)


def sign_p(first: Evaluations, second: Evaluations) -> float | None:
    """The two-sided p-value of sc_stats' sign test on two systems' per-speaker word error rates (its
    ``-f E``): speakers of the first system, then any the second adds (a speaker a system lacks has a
    rate of 0, as sc_stats counts an empty speaker); None without speakers."""
    speakers = list(dict.fromkeys([*first.speakers, *second.speakers]))
    if not speakers:
        return None
    none = np.zeros(4, np.int64)
    a = percentages(np.array([first.speakers.get(s, none) for s in speakers]), "E")
    b = percentages(np.array([second.speakers.get(s, none) for s in speakers]), "E")
    return min(1.0, sign_test(a, b, zero_is_best=True).p_value)


# --- the page's alignment view -------------------------------------------------------------------------


@dataclass(frozen=True)
class UtteranceView:
    """One utterance of a system's alignment as the page shows it: its id, speaker, counts and its
    sclite ``.pra`` block (``REF:``, ``HYP:``, ``Eval:`` lines, errors in upper case)."""

    utterance: str
    speaker: str
    counts: tuple[int, int, int, int]
    block: str


def utterance_views(
    alignment: pa.Table,
    utterances: Sequence[str] | None,
    encoding: str = "ascii",
    case_sensitive: bool = False,
) -> list[UtteranceView]:
    """The ``.pra`` blocks of ``utterances`` (None: every one) of a system's alignment, in its order, as
    sclite's ``-o pralign`` prints each segment (``pralign.segment_block``): errors in upper case (by
    the encoding's rules, as sclite) unless ``case_sensitive``."""
    if utterances is not None:
        alignment = alignment.filter(
            pc.is_in(alignment.column(C.utterance), pa.array(list(utterances), pa.string()))
        )
    charset = _CHARSETS[ENCODINGS[encoding]]
    code = Encoding(ENCODINGS[encoding], "")
    table = alignment.select([C.utterance, C.speaker, C.labels, C.ref_word, C.hyp_word, C.op]).to_pylist()
    builder, order = SystemBuilder(), []
    by_utterance: dict[str, list[tuple]] = {}
    speakers: dict[str, tuple[str, str]] = {}
    for row in table:
        utt = row[C.utterance]
        if utt not in by_utterance:
            by_utterance[utt] = []
            order.append(utt)
            speakers[utt] = (row[C.speaker], row[C.labels])
        by_utterance[utt].append((row[C.ref_word], row[C.hyp_word], row[C.op]))
    for utt in order:
        speaker, labels = speakers[utt]
        builder.add(
            Segment(id=utt, speaker=speaker, labels=tuple(filter(None, labels.split(",")))), by_utterance[utt]
        )
    system = builder.build(
        title="", ref_file="", hyp_file="", ref_format="", hyp_format="", case_sensitive=case_sensitive
    )
    counts = system.counts()
    upper = _upper(code, charset)
    return [
        UtteranceView(
            seg.id,
            seg.speaker,
            tuple(int(v) for v in counts[k]),
            "".join(segment_block(system, k, 1000, upper, False, counts)),
        )
        for k, seg in enumerate(system.segments)
    ]


def _text(word: str, charset: str) -> str:
    """A word held as sclite holds it (one character a byte) in its text."""
    return encode_text(word).decode(charset, errors="replace")


def _upper(code: Encoding, charset: str) -> Callable[[str], str]:
    """sclite's upper case of a word given in its text."""

    def upper(word: str) -> str:
        try:
            held = decode_bytes(word.encode(charset))
        except UnicodeEncodeError:
            return word
        return _text(code.upper(held), charset)

    return upper
