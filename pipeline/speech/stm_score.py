"""Score a ctm hypothesis against an stm reference as sclite 2.10 does, into ``iescore sclite``'s model.

:func:`pipeline.speech.stm.assign` gives each stm segment its ctm words; each segment is then aligned
by the project's aligner (:func:`pipeline.speech.dp.align`, sclite's weights 4/3/3 and its tie
rules) and its pairs go into a :class:`~pipeline.speech.sclite.model.ScoredSystem` with the
hypothesis words' times and confidences.

sclite's word rules applied here: ``(word)`` is an optionally deletable word under ``-D`` (it then
matches ``word``, and left out it counts as correct); under ``-F`` a fragment (``te-``, ``-tion``)
matches any word it begins (ends) and counts as correct. A hypothesis ``<ALT_BEGIN>`` block is a
choice: the combination of alternatives with the least cost is kept (on a tie, the later one, as
sclite's right-to-left search ends up choosing). The empty alternative is no word.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from iescore.pipeline.speech.ctm import TimedChoice, TimedItem, TimedWord, ascii_lower, parse_ctm, read_text
from iescore.pipeline.speech.dp import Alignment, Costs, Vocabulary, align
from iescore.pipeline.speech.sclite.model import CategoryDef, LabelDef, ScoredSystem, Segment, SystemBuilder
from iescore.pipeline.speech.stm import Utterance, assign, comment_labels, parse_stm
from iescore.pipeline.speech.words import Word, parse_items, word_graph

MAX_COMBINATIONS = 256  # hypothesis choices per segment tried exhaustively; beyond, first alternatives


@dataclass(frozen=True)
class StmOptions:
    """The sclite options that change how an stm/ctm pair is scored."""

    opt_del: bool = False  # -D
    frag_corr: bool = False  # -F
    reduce_ref: bool = False  # -m ref
    reduce_hyp: bool = False  # -m hyp
    fold: Callable[[str], str] | None = ascii_lower  # None: -s
    encoding: str = "utf-8"


def is_opt_del(word: str) -> bool:
    return len(word) > 2 and word[0] == "(" and word[-1] == ")"


def is_fragment(word: str) -> bool:
    """sclite's fragment: a word beginning or ending with ``-`` (inside parentheses too)."""
    inner = word[1:-1] if is_opt_del(word) else word
    return len(inner) > 1 and (inner[0] == "-" or inner[-1] == "-")


def fragment_matches(a: str, b: str) -> bool:
    """``te-`` matches ``test`` and ``-st`` matches ``test`` (sclite's ``equal_WORD2`` under -F)."""
    for frag, other in ((a, b), (b, a)):
        if len(frag) > 1 and frag.endswith("-"):
            return other.startswith(frag[:-1])
        if len(frag) > 1 and frag.startswith("-"):
            return len(other) >= len(frag) - 1 and other.endswith(frag[1:])
    return False


class _Aligner:
    """Aligns one segment's reference text with its hypothesis items under the chosen options."""

    def __init__(self, options: StmOptions) -> None:
        self.options = options
        self.vocabulary = Vocabulary()
        words = self.vocabulary.words
        self.costs = Costs()
        if options.frag_corr:
            self.costs = Costs(
                substitution=lambda r, h: 0.0 if fragment_matches(self._bare(words[r]), self._bare(words[h])) else 4.0
            )

    def _bare(self, word: str) -> str:
        return word[1:-1] if self.options.opt_del and is_opt_del(word) else word

    def key(self, word: str) -> str:
        return self._bare(word)

    def align(self, ref_text: str, hyp: Sequence[TimedItem]) -> tuple[Alignment, list[Word], list[TimedWord]]:
        items = parse_items(ref_text)
        graph, ref_words = word_graph(items, self.vocabulary, key=self.key)
        choices = [item.alternatives for item in hyp if isinstance(item, TimedChoice)]
        combinations: Sequence[tuple[int, ...]] = [()]
        if choices:
            sizes = [len(c) for c in choices]
            total = 1
            for size in sizes:
                total *= size
            if total <= MAX_COMBINATIONS:
                combinations = list(itertools.product(*(range(n) for n in sizes)))
            else:
                combinations = [tuple(0 for _ in sizes)]
        best: tuple[float, Alignment, list[TimedWord]] | None = None
        for combination in combinations:
            picks = iter(combination)
            hyp_words: list[TimedWord] = []
            for item in hyp:
                if isinstance(item, TimedWord):
                    hyp_words.append(item)
                else:
                    hyp_words.extend(item.alternatives[next(picks)])
            ids = self.vocabulary.ids([self.key(w.text) for w in hyp_words])
            alignment = align(graph, ids, self.costs)
            cost = alignment.total_cost()
            if best is None or cost <= best[0]:
                best = (cost, alignment, hyp_words)
        assert best is not None
        return best[1], ref_words, best[2]

    def pairs(self, utterance: Utterance, has_confidence: bool) -> list[tuple]:
        alignment, ref_words, hyp_words = self.align(utterance.ref_text, utterance.hyp)
        out: list[tuple] = []
        for r, h, op in zip(alignment.ref, alignment.hyp, alignment.ops.decode("ascii"), strict=True):
            ref = ref_words[r].text if r >= 0 else None
            word = hyp_words[h] if h >= 0 else None
            hyp = word.text if word is not None else None
            if self.options.opt_del and op in "DI" and is_opt_del(ref if op == "D" else hyp or ""):
                op = "C"
            elif op == "S" and self.options.frag_corr and (is_fragment(ref or "") or is_fragment(hyp or "")):
                if fragment_matches(self._bare(ref or ""), self._bare(hyp or "")):
                    op = "C"
            confidence = None
            if word is not None and has_confidence:
                confidence = word.confidence if word.confidence is not None else 0.0
            out.append(
                (
                    ref,
                    hyp,
                    op,
                    None,
                    None,
                    word.begin if word is not None else None,
                    word.end if word is not None else None,
                    confidence,
                )
            )
        return out


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
    aligner = _Aligner(options)
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
            builder.add(segment, aligner.pairs(u, ctm.has_confidence))
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
