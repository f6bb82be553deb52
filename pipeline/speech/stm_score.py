"""Score a ctm hypothesis against an stm reference as sclite 2.10 does, into ``iescore sclite``'s model.

:func:`pipeline.speech.stm.assign` gives each stm segment its ctm words; each segment's transcript and
words become two word networks (alternations and ``<ALT_BEGIN>`` blocks as alternatives) aligned by
:func:`pipeline.speech.netdp.align_networks` with sclite's costs and tie rules; the pairs go into a
:class:`~pipeline.speech.sclite.model.ScoredSystem` with the hypothesis words' times and confidences.

sclite's word rules: ``(word)`` is optionally deletable under ``-D`` (it matches ``word``; left out it
counts as correct); under ``-F`` a fragment (``te-``, ``-tion``) matches a word it begins (ends).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from iescore.pipeline.speech.ctm import TimedItem, TimedWord, ascii_lower, parse_ctm, read_text
from iescore.pipeline.speech.netdp import NULL_ALT, NetItem, NetWord, Pair, align_networks, network
from iescore.pipeline.speech.sclite.model import CategoryDef, LabelDef, ScoredSystem, Segment, SystemBuilder
from iescore.pipeline.speech.stm import Utterance, assign, comment_labels, parse_stm


@dataclass(frozen=True)
class StmOptions:
    """The sclite options that change how an stm/ctm pair is scored."""

    opt_del: bool = False  # -D
    frag_corr: bool = False  # -F
    reduce_ref: bool = False  # -m ref
    reduce_hyp: bool = False  # -m hyp
    fold: Callable[[str], str] | None = ascii_lower  # None: -s
    encoding: str = "utf-8"


def _float32(value: float | None) -> float | None:
    """A ctm confidence as sclite holds it (a C ``float``)."""
    return None if value is None else float(np.float32(value))


def net_word(text: str, options: StmOptions, word: TimedWord | None = None, confidence: bool = False) -> NetWord:
    """A word with sclite's flags: ``(x)`` optionally deletable under -D; under -F a fragment is a
    word beginning or ending with ``-`` (or ``(x-)`` under -D)."""
    opt_del = options.opt_del and len(text) > 2 and text[0] == "(" and text[-1] == ")"
    frag = options.frag_corr and (
        (len(text) > 0 and (text[0] == "-" or text[-1] == "-")) or (opt_del and text[-2] == "-")
    )
    if word is None:
        return NetWord(text, opt_del=opt_del, frag=frag)
    conf = (_float32(word.confidence) if word.confidence is not None else 0.0) if confidence else None
    return NetWord(text, word.begin, word.begin + word.duration, conf, opt_del, frag)


def text_items(text: str, options: StmOptions) -> list[NetItem]:
    """A reference transcript as network items: words, and ``{ a / b / @ }`` as a tuple of
    alternatives (``@`` kept: it is the empty alternative's word)."""
    stack: list[list[list[NetItem]]] = []
    current: list[NetItem] = []
    for token in re.findall(r"[{}]|[^\s{}]+", text):
        if token == "{":
            stack.append([current, []])
            current = stack[-1][1]
        elif token == "/" and stack:
            stack[-1].append([])
            current = stack[-1][-1]
        elif token == "}" and stack:
            outer, *alternatives = stack.pop()
            outer.append(tuple(tuple(a) for a in alternatives))
            current = outer
        else:
            current.append(net_word(token, options))
    return current


def timed_items(items: Sequence[TimedItem], options: StmOptions, confidence: bool) -> list[NetItem]:
    """Ctm words and ``<ALT_BEGIN>`` blocks as network items (an empty alternative is ``@``)."""
    out: list[NetItem] = []
    for item in items:
        if isinstance(item, TimedWord):
            out.append(net_word(item.text, options, item, confidence))
        else:
            out.append(
                tuple(
                    tuple(net_word(w.text, options, w, confidence) for w in alternative)
                    or (NetWord(NULL_ALT, 0.0, 0.0, 0.0 if confidence else None),)
                    for alternative in item.alternatives
                )
            )
    return out


def _row(pair: Pair) -> tuple:
    ref, hyp = pair.ref, pair.hyp
    return (
        ref.text if ref is not None else None,
        hyp.text if hyp is not None else None,
        pair.op,
        ref.begin if ref is not None else None,
        ref.end if ref is not None else None,
        hyp.begin if hyp is not None else None,
        hyp.end if hyp is not None else None,
        hyp.confidence if hyp is not None else None,
    )


def score_stm_ctm(
    ref_path: str,
    hyp_path: str,
    title: str,
    options: StmOptions = StmOptions(),
) -> tuple[ScoredSystem, list[str]]:
    """One ctm system scored against an stm reference, and sclite's warnings for standard error.

    Paths are named in errors and in the model as given. Labels and categories come from the
    ``;;`` headers of the reference, then of the hypothesis, each once.
    """
    ref_text = read_text(ref_path, ref_path, options.encoding)
    hyp_text = read_text(hyp_path, hyp_path, options.encoding)
    stm = parse_stm(ref_text, ref_path, options.fold)
    ctm = parse_ctm(hyp_text, hyp_path, options.fold)
    assignment = assign(stm, ctm, options.reduce_ref, options.reduce_hyp)
    hyp_labels, hyp_categories = comment_labels(hyp_text, hyp_path)
    labels = list(dict.fromkeys((x.id, x.title, x.description) for x in stm.labels + hyp_labels))
    categories = list(dict.fromkeys((x.id, x.title, x.description) for x in stm.categories + hyp_categories))
    builder = SystemBuilder()
    by_speaker: dict[str, list[Utterance]] = {}
    for utterance in assignment.utterances:
        by_speaker.setdefault(utterance.speaker, []).append(utterance)
    for utterances in by_speaker.values():
        for u in utterances:
            segment = Segment(
                u.id,
                u.speaker,
                u.file,
                u.channel,
                u.begin,
                u.end,
                tuple(u.labels[1:-1].split(",")) if u.labels else (),
                u.sequence,
            )
            pairs = align_networks(
                network(text_items(u.ref_text, options)), network(timed_items(u.hyp, options, ctm.has_confidence))
            )
            builder.add(segment, [_row(p) for p in pairs])
    system = builder.build(
        title=title,
        ref_file=ref_path,
        hyp_file=hyp_path,
        ref_format="stm",
        hyp_format="ctm",
        labels=[LabelDef(*x) for x in labels],
        categories=[CategoryDef(*x) for x in categories],
        frag_corr=options.frag_corr,
        opt_del=options.opt_del,
    )
    return system, list(assignment.warnings)
