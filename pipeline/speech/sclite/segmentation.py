"""sclite's inferred word segmentation (``-S algo1|algo2 LEXICON [ASCIITOO]``).

For languages written without blanks between words, sclite can let the alignment choose where one
side's words begin and end (SCTK ``align.c``, ``net_adt.c``, read for their rules): that side's
words are split into characters (a run of ASCII characters stays whole unless ``ASCIITOO``), and
for every run of consecutive words (or characters) whose concatenation is a word of the lexicon, the
network gets one more path: that word, from where the run begins to where it ends. The alignment
then picks the cheapest path. ``algo1`` does this on the hypothesis, ``algo2`` on the reference.

Which path wins a tie depends on the order in which sclite's network keeps its arcs, so the network
is built here as sclite builds it, node by node, and only then numbered for
:func:`pipeline.speech.netdp.align_networks`:

- a character split replaces a word's arc by a chain whose first arc is put last among the arcs
  leaving the word's start node and whose last arc is put last among those entering its end node;
- the lexicon's words are looked for from each arc in breadth-first order, following at most as
  many arcs as the lexicon's longest word has characters; each word found is put last among the
  arcs leaving its start node and entering its end node (and is followed too when a later search
  passes through its start node);
- the numbering is sclite's in-order traversal, with an empty arc at the head.

The lexicon is one word a line (its first field), in byte order: sclite looks words up by binary
search and, when the lexicon is out of order, says so and goes on with wrong answers; here that is
an error naming the line. A blank line is skipped (sclite holds it as the empty word, which is out
of order).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.netdp import NULL_ALT, NetItem, NetWord, Network
from iescore.pipeline.speech.sclite.trn import shown


@dataclass(frozen=True)
class Segmentation:
    """``-S``: the algorithm (``algo1``: the hypothesis is segmented, ``algo2``: the reference),
    the lexicon's words, the length of its longest word in characters, ``ascii_too``, and how the
    run's encoding splits a word into characters."""

    algorithm: str
    words: frozenset[str]
    longest: int
    ascii_too: bool = False
    characters: Callable[[str], list[str]] = list  # a word's characters, by the run's encoding


def read_lexicon(
    path: str, text: str, algorithm: str, ascii_too: bool, characters: Callable[[str], list[str]]
) -> Segmentation:
    """The lexicon ``path`` (its ``text`` read one character a byte); ``characters`` splits a word
    into its characters by the run's encoding."""
    words: list[str] = []
    for number, line in enumerate(text.split("\n"), 1):
        fields = line.split()
        if not fields:
            continue  # a blank line (sclite would hold it as the empty word, out of order)
        word = fields[0]
        if words and word < words[-1]:
            raise InputError(
                path,
                number,
                f"lexicon words expected in byte order: {shown(word)!r} after {shown(words[-1])!r}",
            )
        words.append(word)
    longest = max((len(characters(w)) for w in words), default=1)
    return Segmentation(algorithm, frozenset(words), max(longest, 1), ascii_too, characters)


@dataclass(eq=False)
class _Node:
    ins: list[_Arc] = field(default_factory=list)
    outs: list[_Arc] = field(default_factory=list)


@dataclass(eq=False)
class _Arc:
    word: NetWord | None
    start: _Node
    end: _Node


def segmented_network(
    items: Sequence[NetItem],
    segmentation: Segmentation,
    split: Callable[[str, bool], list[str]],
) -> Network:
    """The network of ``items`` (as :func:`pipeline.speech.netdp.network` takes them) with its words
    split into characters and the lexicon's words added as paths (module docstring). ``split(word,
    keep_ascii_runs)`` gives a word's characters."""
    if not items:  # sclite's empty network: its head arc alone, which ends it
        return Network([None], [[]], [0])
    start, stop = _Node(), _Node()
    _build(items, start, stop)
    _split_words(start, segmentation.ascii_too, split)
    _connect(start, segmentation)
    return _numbered(start, stop)


def _link(word: NetWord | None, start: _Node, end: _Node) -> _Arc:
    arc = _Arc(word, start, end)
    start.outs.append(arc)
    end.ins.append(arc)
    return arc


def _build(items: Sequence[NetItem], start: _Node, end: _Node) -> None:
    """``items`` as arcs from ``start`` to ``end``: a word an arc, an alternation's alternatives side
    by side between the same two nodes (each alternative a chain)."""
    here = start
    for k, item in enumerate(items):
        there = end if k == len(items) - 1 else _Node()
        if isinstance(item, NetWord):
            _link(item, here, there)
        else:
            for alternative in item:
                if alternative:
                    _build(alternative, here, there)
        here = there


def _walk(start: _Node, depth_first: bool) -> Iterator[_Node]:
    """The network's nodes from ``start``, each once, in sclite's order: each node's successors are
    queued before it is given (at the front depth first, at the back breadth first), so the caller
    may change its arcs."""
    visited = {id(start)}
    fringe: deque[_Node] = deque([start])
    while fringe:
        node = fringe.popleft()
        for arc in node.outs:
            if id(arc.end) not in visited:
                visited.add(id(arc.end))
                (fringe.appendleft if depth_first else fringe.append)(arc.end)
        yield node


def _split_words(start: _Node, ascii_too: bool, split: Callable[[str, bool], list[str]]) -> None:
    """sclite's ``expand_words_to_chars`` over its depth-first traversal: each word longer than one
    byte whose characters differ from it becomes a chain of its characters."""
    for node in _walk(start, depth_first=True):
        for arc in list(node.outs):
            word = arc.word
            if word is None or len(word.text) <= 1:
                continue
            characters = split(word.key, not ascii_too)
            if characters == [word.text]:
                continue
            # Each character gets an equal share of the word's time, and its confidence.
            timed = word.begin is not None and word.end is not None
            step = (word.end - word.begin) / len(characters) if timed else None
            begin = word.begin
            here = arc.start
            for k, char in enumerate(characters):
                there = arc.end if k == len(characters) - 1 else _Node()
                end = begin + step if begin is not None and step is not None else None
                text = f"({char})" if word.opt_del else char
                _link(NetWord(text, begin, end, word.confidence, opt_del=word.opt_del), here, there)
                here, begin = there, end
            arc.start.outs.remove(arc)
            arc.end.ins.remove(arc)


def _connect(start: _Node, segmentation: Segmentation) -> None:
    """sclite's ``Network_fully_connect_cond``: from each arc (breadth-first), the runs of at most
    ``longest`` arcs whose words joined are a lexicon word, each added as one arc."""
    arcs = [arc for node in _walk(start, depth_first=False) for arc in node.outs]
    for base in arcs:
        assert base.word is not None
        _extend(base, base, base.word, segmentation.longest - 1, segmentation.words)


def _extend(base: _Arc, current: _Arc, word: NetWord, left: int, lexicon: frozenset[str]) -> None:
    if left == 0:
        return
    outs = current.end.outs
    k = 0
    while k < len(outs):  # arcs added to this list while it is read are read too, as sclite's
        arc = outs[k]
        assert arc.word is not None
        joined = _append(word, arc.word)
        if (joined.text[1:-1] if joined.opt_del else joined.text) in lexicon:
            _link(joined, base.start, arc.end)
        _extend(base, arc, joined, left - 1, lexicon)
        k += 1


def _append(first: NetWord, second: NetWord) -> NetWord:
    """sclite's ``append_WORD_no_NULL``: two words joined (``@`` adds nothing; two optionally
    deletable words make one), from the first's begin to the second's end, their confidences
    averaged and their weights summed."""
    opt_del = first.opt_del and second.opt_del
    if opt_del:
        text = f"({first.key}{second.key})"
    elif first.text == NULL_ALT:
        text = second.key
    elif second.text == NULL_ALT:
        text = first.key
    else:
        text = first.key + second.key
    confidence = None
    if first.confidence is not None and second.confidence is not None:
        confidence = (first.confidence + second.confidence) / 2.0
    return NetWord(
        text,
        first.begin,
        second.end,
        confidence,
        opt_del=opt_del,
        frag=first.frag and second.frag,
        weight=first.weight + second.weight,
    )


def _numbered(start: _Node, stop: _Node) -> Network:
    """The network in sclite's in-order traversal, behind an empty head arc: words, each word's
    predecessors in the order of its start node's entering arcs, and the final words."""
    head = _Node()
    _link(None, head, start)
    waiting: dict[int, int] = {}
    seen = {id(head)}
    fringe: deque[_Node] = deque([head])
    order: list[_Arc] = []
    while fringe:  # every node's count of entering arcs (a first traversal, as sclite's)
        node = fringe.popleft()
        waiting[id(node)] = len(node.ins)
        for arc in node.outs:
            if id(arc.end) not in seen:
                seen.add(id(arc.end))
                fringe.append(arc.end)
    fringe = deque([head])
    while fringe:
        node = fringe.popleft()
        for arc in node.outs:
            waiting[id(arc.end)] -= 1
            if waiting[id(arc.end)] == 0:
                fringe.append(arc.end)
        order.extend(node.outs)
    number = {id(arc): k for k, arc in enumerate(order)}
    words = [arc.word for arc in order]
    preds = [[number[id(p)] for p in arc.start.ins] for arc in order]
    return Network(words, preds, [number[id(p)] for p in stop.ins])
