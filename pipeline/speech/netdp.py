"""sclite's alignment of two word networks, for stm and ctm inputs (alternatives on either side, times).

Each side is a network of words: a plain sequence, or with alternatives (``{ a / b / @ }`` in a
reference transcript, ``<ALT_BEGIN>`` blocks in a ctm). The alignment is sclite 2.10's dynamic
programme over the words of both networks (SCTK ``net_dp.c``, read for its rules, not copied): a cell
``(a, b)`` is reached from the cells of the words that may precede ``a`` and ``b``; a substitution (or
match) is kept when it costs no more than a deletion and an insertion, a deletion when it costs less
than an insertion; among predecessors of equal cost the first alternative wins. Costs are sclite's
(``word.c``), in single precision as sclite adds them:

- words (``wwd_WORD``): match 0, substitution 4, insertion or deletion 3, an optionally deletable word
  ``(uh)`` (under ``-D``) inserted or deleted 2, the empty alternative ``@`` inserted or deleted 0.001,
  ``@`` against ``@`` 1;
- time-mediated (``-T``, ``wwd_time_WORD``): insertion or deletion costs the word's duration, a pair
  costs the distance of the begin times plus the distance of the end times, plus 0.001 if the words
  differ; ``@`` inserted or deleted 0.001;
- word-weight mediated (``-w``, ``wwd_weight_WORD``): insertion or deletion costs the word's weight,
  a substitution the two weights summed, a match 0; ``@`` inserted or deleted 0.001.

The path leaves ``@`` out; a deleted (inserted) optionally deletable word counts as correct.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

NULL_ALT = "@"


@dataclass(frozen=True)
class NetWord:
    """A word of a network: its text as held, times (None: untimed), confidence, and the sclite flags."""

    text: str
    begin: float | None = None
    end: float | None = None
    confidence: float | None = None
    opt_del: bool = False  # ``(word)`` under -D: compared without its parentheses
    frag: bool = False  # a fragment under -F
    tagged: str | None = None  # the sgml form of a word read with ;tags
    weight: float = 0.0  # its weight under -w (``pipeline.speech.sclite.weights``)

    @property
    def key(self) -> str:
        return self.text[1:-1] if self.opt_del else self.text


# A network item: a word, or a choice between alternatives (each a sequence of items).
NetItem = NetWord | tuple


@dataclass
class Network:
    """Words in topological order; ``words[0]`` is the empty head. ``preds[k]`` lists the words that
    may come right before word ``k`` (in alternative order), ``finals`` the words that may end it."""

    words: list[NetWord | None]
    preds: list[list[int]]
    finals: list[int]


def network(items: Sequence[NetItem]) -> Network:
    """The network of ``items``: a :class:`NetWord`, or a tuple of alternatives (sequences of items)."""
    words: list[NetWord | None] = [None]
    preds: list[list[int]] = [[]]

    def build(sequence: Sequence[NetItem], before: list[int]) -> list[int]:
        for item in sequence:
            if isinstance(item, NetWord):
                words.append(item)
                preds.append(before)
                before = [len(words) - 1]
            else:
                after: list[int] = []
                for alternative in item:
                    for end in build(alternative, before):
                        if end not in after:
                            after.append(end)
                before = after
        return before

    finals = build(items, [0])
    return Network(words, preds, finals)


def fragment_equal(a: str, b: str) -> bool:
    """sclite's ``equal_WORD2`` under -F: ``te-`` equals a word it begins, ``-st`` one it ends."""
    la, lb = len(a), len(b)
    if a.startswith("-") and la > 1:
        return lb >= la - 1 and a[1:] == b[lb - (la - 1) :]
    if a.endswith("-") and la > 1:
        return a[:-1] == b[: la - 1]
    if b.startswith("-") and lb > 1:
        return la >= lb - 1 and a[la - (lb - 1) :] == b[1:]
    if b.endswith("-") and lb > 1:
        return a[: lb - 1] == b[:-1]
    return a == b


def equal(ref: NetWord, hyp: NetWord) -> bool:
    if ref.frag or hyp.frag:
        return fragment_equal(ref.key, hyp.key)
    return ref.key == hyp.key


def _f32(value: float) -> float:
    return float(np.float32(value))


def _same(value: float) -> float:
    return value


def word_cost(ref: NetWord | None, hyp: NetWord | None) -> float:
    """sclite's ``wwd_WORD``."""
    if hyp is None and ref is not None and ref.text == NULL_ALT:
        return 0.001
    if ref is None and hyp is not None and hyp.text == NULL_ALT:
        return 0.001
    if (ref is None and hyp is not None and hyp.opt_del) or (hyp is None and ref is not None and ref.opt_del):
        return 2.0
    if ref is None or hyp is None:
        return 3.0
    if ref.text == NULL_ALT and hyp.text == NULL_ALT:
        return 1.0
    return 0.0 if equal(ref, hyp) else 4.0


def _times(word: NetWord) -> tuple[float, float]:
    return (word.begin or 0.0, word.end or 0.0)


def _null_alt_alone(ref: NetWord | None, hyp: NetWord | None) -> bool:
    """The empty alternative ``@`` against no word: sclite's time and weight costs give it 0.001."""
    word = ref if hyp is None else hyp if ref is None else None
    return word is not None and word.text == NULL_ALT


def time_cost(ref: NetWord | None, hyp: NetWord | None) -> float:
    """sclite's ``wwd_time_WORD`` (``-T``)."""
    if _null_alt_alone(ref, hyp):
        return 0.001
    if ref is None:
        assert hyp is not None
        t1, t2 = _times(hyp)
        return t2 - t1
    if hyp is None:
        t1, t2 = _times(ref)
        return t2 - t1
    (r1, r2), (h1, h2) = _times(ref), _times(hyp)
    return abs(r1 - h1) + abs(r2 - h2) + (0.0 if equal(ref, hyp) else 0.001)


def weight_cost(ref: NetWord | None, hyp: NetWord | None) -> float:
    """sclite's ``wwd_weight_WORD`` (``-w``)."""
    if _null_alt_alone(ref, hyp):
        return 0.001
    if ref is None:
        assert hyp is not None
        return hyp.weight
    if hyp is None:
        return ref.weight
    return 0.0 if equal(ref, hyp) else ref.weight + hyp.weight


@dataclass(frozen=True)
class Pair:
    """One column of the path: reference and hypothesis word (None: none), and sclite's eval code."""

    ref: NetWord | None
    hyp: NetWord | None
    op: str


def align_networks(
    ref: Network, hyp: Network, time_mediated: bool = False, weighted: bool = False
) -> list[Pair]:
    """The least-cost path through both networks, with sclite's tie rules (module docstring);
    ``weighted``: by the words' weights (``-w``)."""
    cost = time_cost if time_mediated else weight_cost if weighted else word_cost
    # Whole-number costs add exactly in single precision; only durations, weights and @'s 0.001 need
    # rounding.
    exact = (
        not time_mediated
        and not weighted
        and not any(w is not None and w.text == NULL_ALT for w in ref.words + hyp.words)
    )
    f32 = _same if exact else _f32
    ref_words, hyp_words = ref.words, hyp.words
    na, nb = len(ref_words), len(hyp_words)
    inf = 999999999.9
    d = [[0.0] * nb for _ in range(na)]
    back = [[(0, 0)] * nb for _ in range(na)]
    for b in range(1, nb):
        best, arg = inf, -1
        for p in hyp.preds[b]:
            if d[0][p] < best:
                best, arg = d[0][p], p
        d[0][b] = f32(best + f32(cost(None, hyp_words[b])))
        back[0][b] = (0, arg)
    for a in range(1, na):
        best, arg = inf, -1
        for p in ref.preds[a]:
            if d[p][0] < best:
                best, arg = d[p][0], p
        d[a][0] = f32(best + f32(cost(ref_words[a], None)))
        back[a][0] = (arg, 0)
    for a in range(1, na):
        word_a, preds_a, row = ref_words[a], ref.preds[a], d[a]
        del_cost = f32(cost(word_a, None))
        for b in range(1, nb):
            word_b, preds_b = hyp_words[b], hyp.preds[b]
            ins, ins_b = inf, -1
            for p in preds_b:
                if row[p] < ins:
                    ins, ins_b = row[p], p
            dele, del_a = inf, -1
            for p in preds_a:
                if d[p][b] < dele:
                    dele, del_a = d[p][b], p
            sub, sub_a, sub_b = inf, -1, -1
            for pa in preds_a:
                prev = d[pa]
                for pb in preds_b:
                    if prev[pb] < sub:
                        sub, sub_a, sub_b = prev[pb], pa, pb
            sub = f32(sub + f32(cost(word_a, word_b)))
            dele = f32(dele + del_cost)
            ins = f32(ins + f32(cost(None, word_b)))
            if sub <= dele and sub <= ins:
                row[b], back[a][b] = sub, (sub_a, sub_b)
            elif dele < ins:
                row[b], back[a][b] = dele, (del_a, b)
            else:
                row[b], back[a][b] = ins, (a, ins_b)
    best, a, b = 999999.9, -1, -1
    for fa in ref.finals:
        for fb in hyp.finals:
            if best > d[fa][fb]:
                best, a, b = d[fa][fb], fa, fb
    pairs: list[Pair] = []
    while a > 0 or b > 0:
        ba, bb = back[a][b]
        if a == ba:  # insertion
            word = hyp_words[b]
            assert word is not None
            if word.text != NULL_ALT:
                pairs.append(Pair(None, word, "C" if word.opt_del else "I"))
        elif b == bb:  # deletion
            word = ref_words[a]
            assert word is not None
            if word.text != NULL_ALT:
                pairs.append(Pair(word, None, "C" if word.opt_del else "D"))
        else:
            wa, wb = ref_words[a], hyp_words[b]
            assert wa is not None and wb is not None
            if not (wa.text == NULL_ALT and wb.text == NULL_ALT):
                pairs.append(Pair(wa, wb, "C" if equal(wa, wb) else "S"))
        a, b = ba, bb
    pairs.reverse()
    return pairs
