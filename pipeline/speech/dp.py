"""Word alignment by dynamic programming, with sclite's choice among alignments of equal cost.

The aligner works on integer token ids, never on strings: callers map words to dense integers first
(:class:`Vocabulary`). A reference is a *word graph*: usually a plain sequence, but alternatives such as
``{ INDUSTRY'S / INDUSTRY }`` or ``{ @ / AN }`` (sclite reference alternations, GLM ``{a / b}``
replacements) make it branch. Each reference word is a node with the nodes that may precede it.

- Plain sequences (:func:`align_batch`, many documents at once): the programme runs on all the
  documents together, one anti-diagonal of cells at a time (numpy), in groups of about the same size.
- Word graphs (:func:`align`): the programme over the graph, in Python, one utterance at a time.

Both run the whole programme on every document of at most ``REGION_CELLS`` cells; a larger one is
cut into pieces along rapidfuzz's least-edit alignment (bit-parallel, C++), each piece aligned by the
programme. See :func:`_align_region` for the order in which equal-cost moves are preferred (SCTK
``net_dp.c``'s).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
from iescore.pipeline.core.arrays import ranges
from rapidfuzz.distance import Levenshtein

# Exact-match runs this long (in words) anchor the alignment; shorter ones are realigned with the
# region around them, so that a lone chance match cannot pull the alignment off the best path.
ANCHOR = 3

CORRECT, SUBSTITUTION, DELETION, INSERTION = ord("C"), ord("S"), ord("D"), ord("I")

# sclite's default weights (SCTK sclite: correct 0, substitution 4, insertion 3, deletion 3).
SUB_COST, INS_COST, DEL_COST = 4.0, 3.0, 3.0


class Vocabulary:
    """Dense integer ids for words; the same word always gets the same id."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self.words: list[str] = []

    def id(self, word: str) -> int:
        """The id of ``word``, assigned on first sight."""
        ids = self._ids
        found = ids.get(word)
        if found is None:
            found = ids[word] = len(self.words)
            self.words.append(word)
        return found

    def ids(self, words: Sequence[str]) -> list[int]:
        """The ids of ``words``, new words numbered on the way, in order of first sight."""
        known, seen = self._ids, self.words
        for word in words:
            if word not in known:
                known[word] = len(seen)
                seen.append(word)
        return [known[word] for word in words]


@dataclass
class WordGraph:
    """The reference side: word ids in order, each node with its possible predecessors.

    ``preds`` is ``None`` for a plain sequence (node ``k`` follows ``k - 1``). Otherwise ``preds[k]``
    lists the nodes that may come right before node ``k`` (``-1``: the start), and ``finals`` the
    nodes that may end the sequence (``-1`` in it: the empty path). ``groups`` are the ``[start, end)``
    node ranges of the branching parts, in order and not overlapping.
    """

    ids: list[int]
    optional: list[bool] | None = None
    preds: list[tuple[int, ...]] | None = None
    finals: frozenset[int] = frozenset()
    groups: list[tuple[int, int]] = field(default_factory=list)

    @staticmethod
    def linear(ids: list[int], optional: list[bool] | None = None) -> WordGraph:
        return WordGraph(ids, optional)


@dataclass(frozen=True)
class Costs:
    """Costs of the four moves. ``substitution`` is ``None`` for the flat sclite weight."""

    insertion: float = INS_COST
    deletion: float = DEL_COST
    flat_substitution: float = SUB_COST
    substitution: Callable[[int, int], float] | None = None
    # ``substitution`` for many pairs at once (arrays of reference and hypothesis ids), the same
    # numbers: when given, the vectorised path asks it for all the pairs it needs in bulk.
    substitutions: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    # The least and the most ``substitution`` gives for two different words, when known and whole
    # numbers: the vectorised path then asks only for the cells that could lie on a best path.
    substitution_bounds: tuple[int, int] | None = None


@dataclass
class Alignment:
    """Columns of an alignment: reference node (-1: none), hypothesis index (-1: none), op, cost."""

    ref: array = field(default_factory=lambda: array("q"))
    hyp: array = field(default_factory=lambda: array("q"))
    ops: bytearray = field(default_factory=bytearray)
    costs: array = field(default_factory=lambda: array("d"))

    def __len__(self) -> int:
        return len(self.ops)

    def counts(self) -> dict[str, int]:
        """Number of columns of each op, C S D I (optional words skipped at cost 0 included)."""
        return {op: self.ops.count(ord(op)) for op in "CSDI"}

    def total_cost(self) -> float:
        return float(sum(self.costs))


def align(
    ref: WordGraph,
    hyp: Sequence[int],
    costs: Costs = Costs(),
    hyp_optional: Sequence[bool] | None = None,
    score_hint: int | None = None,
) -> Alignment:
    """Align the hypothesis ids with the reference word graph at least total cost.

    An empty reference gives one insertion per hypothesis word and vice versa. Optional words (fillers,
    fragments, sclite's ``(word)``) cost nothing to delete (reference) or insert (hypothesis); they
    still get their column, with op D or I and cost 0, and are never substituted. A plain sequence
    goes through :func:`align_batch`.
    """
    if ref.preds is None:
        # A plain sequence takes the vectorised path (the same programme).
        optional = [ref.optional] if ref.optional is not None else None
        return align_batch(
            [ref.ids], [hyp], costs, optional, [list(hyp_optional)] if hyp_optional is not None else None
        ).document(0)
    out = Alignment()
    if len(ref.ids) * len(hyp) <= REGION_CELLS:
        # Whole, as sclite aligns it: an anchor could keep the trace off the path sclite's ties choose.
        _region(ref, hyp, costs, hyp_optional, range(len(ref.ids) + 1), 0, len(ref.ids), 0, len(hyp), out)
        return out
    surrogate, node_of = _surrogate(ref)
    if score_hint is None:
        score_hint = max(1, abs(len(surrogate) - len(hyp)))
    pending_ref, pending_hyp = 0, 0  # start of the region not yet aligned (surrogate, hyp positions)
    path: list[tuple[int, int]] = []  # rapidfuzz's alignment through that region: where its steps end
    if len(surrogate) * len(hyp) > REGION_CELLS and set(surrogate).isdisjoint(hyp):
        opcodes = []  # no word in common: one region, cut on the straight line (see align_batch)
    else:
        opcodes = Levenshtein.opcodes(surrogate, hyp, score_hint=score_hint)
    for tag, i1, i2, j1, j2 in opcodes:
        if tag != "equal" or i2 - i1 < ANCHOR:
            path.append((i2, j2))
            continue
        _cut_region(
            ref, hyp, costs, hyp_optional, surrogate, node_of, pending_ref, i1, pending_hyp, j1, out, path
        )
        _equal(node_of, i1, i2, j1, out)
        pending_ref, pending_hyp = i2, j2
        path = []
    _cut_region(
        ref,
        hyp,
        costs,
        hyp_optional,
        surrogate,
        node_of,
        pending_ref,
        len(surrogate),
        pending_hyp,
        len(hyp),
        out,
        path,
    )
    return out


# -- helpers ---------------------------------------------------------------------------------------

_SENTINEL_BASE = -2  # never-matching ids for the branching parts of a reference (hyp ids are >= 0)


def _surrogate(ref: WordGraph) -> tuple[list[int], list[int]]:
    """A linear id sequence for the anchoring pass, and the first node of each of its items.

    ``node_of`` has one more entry than the surrogate (the node count), so the node range of items
    ``[a, b)`` is ``[node_of[a], node_of[b])``.
    """
    if not ref.groups:
        return ref.ids, range(len(ref.ids) + 1)  # type: ignore[return-value]
    surrogate: list[int] = []
    node_of: list[int] = []
    position = 0
    for number, (start, end) in enumerate(ref.groups):
        surrogate.extend(ref.ids[position:start])
        node_of.extend(range(position, start))
        surrogate.append(_SENTINEL_BASE - number)
        node_of.append(start)
        position = end
    surrogate.extend(ref.ids[position:])
    node_of.extend(range(position, len(ref.ids) + 1))
    return surrogate, node_of


def _cut_region(
    ref: WordGraph,
    hyp: Sequence[int],
    costs: Costs,
    hyp_optional: Sequence[bool] | None,
    surrogate: Sequence[int],
    node_of: Sequence[int],
    i1: int,
    i2: int,
    j1: int,
    j2: int,
    out: Alignment,
    path: Sequence[tuple[int, int]],
) -> None:
    """:func:`_region`, or for a region of more than ``REGION_CELLS`` cells, its pieces one by one.

    The pieces are cut on the linear stand-in along ``path`` (rapidfuzz's alignment through the
    region, the end of each step in whole-sequence positions; :func:`_cut_points`), so a branching
    part lies whole in one piece; a piece's first nodes follow the piece's start, as a region's
    follow its anchor.
    """
    if (node_of[i2] - node_of[i1]) * (j2 - j1) <= REGION_CELLS:
        _region(ref, hyp, costs, hyp_optional, node_of, i1, i2, j1, j2, out)
        return
    local = [(i - i1, j - j1) for i, j in path]
    cuts = _cut_points(
        surrogate[i1:i2], hyp[j1:j2], PIECE if costs.substitution is None else CALLED_PIECE, local
    )
    for (a0, b0), (a1, b1) in zip(cuts, cuts[1:], strict=False):
        if min(surrogate[i1 + a0 : i1 + a1], default=0) <= _SENTINEL_BASE:
            _region(ref, hyp, costs, hyp_optional, node_of, i1 + a0, i1 + a1, j1 + b0, j1 + b1, out)
            continue
        # No branching part in the piece: the lean programme for plain sequences (the same one).
        a, b = node_of[i1 + a0], node_of[i1 + a1]
        h1, h2 = j1 + b0, j1 + b1
        refs, hyps, ops, steps = _align_linear(
            ref.ids[a:b],
            hyp[h1:h2],
            costs,
            ref.optional[a:b] if ref.optional else None,
            hyp_optional[h1:h2] if hyp_optional else None,
            whole=True,
        )
        out.ref.extend(r + a if r >= 0 else -1 for r in refs)
        out.hyp.extend(h + h1 if h >= 0 else -1 for h in hyps)
        out.ops.extend(ops)
        out.costs.extend(steps)


def _equal(node_of: Sequence[int], i1: int, i2: int, j1: int, out: Alignment) -> None:
    n = i2 - i1
    first = node_of[i1]
    out.ref.extend(range(first, first + n))
    out.hyp.extend(range(j1, j1 + n))
    out.ops.extend(b"C" * n)
    out.costs.frombytes(bytes(8 * n))  # n zeros


def _region(
    ref: WordGraph,
    hyp: Sequence[int],
    costs: Costs,
    hyp_optional: Sequence[bool] | None,
    node_of: Sequence[int],
    i1: int,
    i2: int,
    j1: int,
    j2: int,
    out: Alignment,
) -> None:
    a, b = node_of[i1], node_of[i2]
    if a == b and j1 == j2:
        return
    optional = ref.optional
    if ref.preds is None and (b - a == 1) and (j2 - j1 == 1) and not (optional and optional[a]):
        # One word against one word: a substitution (or a match) always beats deletion + insertion,
        # whatever the costs, because every substitution cost is below insertion + deletion.
        r, h = ref.ids[a], hyp[j1]
        if not (hyp_optional and hyp_optional[j1]):
            if r == h:
                _column(out, a, j1, CORRECT, 0.0)
            else:
                _column(out, a, j1, SUBSTITUTION, _sub(costs, r, h))
            return
    _align_region(ref, hyp, costs, hyp_optional, a, b, j1, j2, out)


def _sub(costs: Costs, r: int, h: int) -> float:
    return costs.flat_substitution if costs.substitution is None else costs.substitution(r, h)


def _column(out: Alignment, r: int, h: int, op: int, cost: float) -> None:
    out.ref.append(r)
    out.hyp.append(h)
    out.ops.append(op)
    out.costs.append(cost)


def _align_region(
    ref: WordGraph,
    hyp: Sequence[int],
    costs: Costs,
    hyp_optional: Sequence[bool] | None,
    a: int,
    b: int,
    j1: int,
    j2: int,
    out: Alignment,
) -> None:
    """Full dynamic programme for reference nodes ``[a, b)`` against hypothesis words ``[j1, j2)``.

    Rows are reference nodes, in graph order (predecessors first); row ``-1`` is the region's start.
    Among equal-cost moves into a cell the preference is sclite's (SCTK ``net_dp.c``): the diagonal
    (match or substitution) first, then the insertion, and the deletion only when strictly cheaper;
    the trace runs back from the end, so ambiguous insertions and deletions land as far left as they
    can.
    """
    m = j2 - j1
    ids, ref_optional = ref.ids, ref.optional
    hyp_ins = [0.0 if (hyp_optional and hyp_optional[j1 + j]) else costs.insertion for j in range(m)]
    start_row = [0.0] * (m + 1)
    for j in range(m):
        start_row[j + 1] = start_row[j] + hyp_ins[j]
    rows: dict[int, list[float]] = {-1: start_row}
    back: dict[int, list[tuple[int, int, int, float]]] = {}
    flat = costs.substitution is None
    for k in range(a, b):
        if ref.preds is None:
            preds = (k - 1,) if k > a else (-1,)
        else:
            preds = tuple(p if p >= a else -1 for p in ref.preds[k])
        ref_is_optional = bool(ref_optional and ref_optional[k])
        deletion = 0.0 if ref_is_optional else costs.deletion
        rid = ids[k]
        row = [0.0] * (m + 1)
        trace: list[tuple[int, int, int, float]] = [(0, 0, 0, 0.0)] * (m + 1)
        for j in range(m + 1):
            diagonal = deletion_value = None
            diagonal_move = deletion_move = (0, 0, 0, 0.0)
            if j > 0:
                h = hyp[j1 + j - 1]
                if h == rid:
                    op, step = CORRECT, 0.0
                elif ref_is_optional or (hyp_optional and hyp_optional[j1 + j - 1]):
                    # An optional word (filler, fragment) is matched or left out, never substituted:
                    # the substitution costs what deleting and inserting would.
                    op, step = SUBSTITUTION, costs.deletion + costs.insertion
                else:
                    op, step = SUBSTITUTION, (costs.flat_substitution if flat else costs.substitution(rid, h))
                for p in preds:  # the first predecessor wins a tie: alternatives in written order
                    value = rows[p][j - 1] + step
                    if diagonal is None or value < diagonal:
                        diagonal, diagonal_move = value, (p, j - 1, op, step)
            for p in preds:
                value = rows[p][j] + deletion
                if deletion_value is None or value < deletion_value:
                    deletion_value, deletion_move = value, (p, j, DELETION, deletion)
            insertion = row[j - 1] + hyp_ins[j - 1] if j > 0 else None
            # sclite's order (net_dp.c): the diagonal wins every tie; a deletion only when strictly
            # cheaper than the insertion.
            if (
                diagonal is not None
                and diagonal <= deletion_value
                and (insertion is None or diagonal <= insertion)
            ):
                best, best_move = diagonal, diagonal_move
            elif insertion is None or deletion_value < insertion:
                best, best_move = deletion_value, deletion_move
            else:
                best, best_move = insertion, (k, j - 1, INSERTION, hyp_ins[j - 1])
            row[j] = best  # type: ignore[assignment]
            trace[j] = best_move
        rows[k] = row
        back[k] = trace
    # The region ends after one of its exit nodes: the nodes the next part of the graph may follow.
    exits = _exits(ref, a, b)
    end_node, best = -2, None
    for node in exits:
        value = rows[node][m]
        if best is None or value < best:
            end_node, best = node, value
    columns: list[tuple[int, int, int, float]] = []
    node, j = end_node, m
    while node != -1:
        p, pj, op, step = back[node][j]
        if op == INSERTION:
            columns.append((-1, j1 + pj, op, step))
        elif op == DELETION:
            columns.append((node, -1, op, step))
        else:
            columns.append((node, j1 + pj, op, step))
        node, j = p, pj
    while j > 0:  # leading insertions before the first reference word of the region
        j -= 1
        columns.append((-1, j1 + j, INSERTION, hyp_ins[j]))
    for r, h, op, step in reversed(columns):
        _column(out, r, h, op, step)


def _align_linear(
    ref: Sequence[int],
    hyp: Sequence[int],
    costs: Costs,
    ref_optional: Sequence[bool] | None,
    hyp_optional: Sequence[bool] | None,
    path: Sequence[tuple[int, int]] | None = None,
    whole: bool = False,
) -> tuple[list[int], list[int], bytes, list[float]]:
    """:func:`_align_region` for a plain sequence, lean: columns as (ref, hyp, ops, costs), local.

    The same programme and the same tie order (diagonal, then insertion, deletion only when
    strictly cheaper), traced back from the end. A region of more than ``REGION_CELLS`` cells is
    aligned piece by piece (:func:`_cut_points`, along ``path`` when given), unless ``whole``.
    """
    n, m = len(ref), len(hyp)
    if n * m > REGION_CELLS and not whole:
        return _align_linear_in_pieces(ref, hyp, costs, ref_optional, hyp_optional, path)
    ins = [0.0 if (hyp_optional and hyp_optional[j]) else costs.insertion for j in range(m)]
    dels = [0.0 if (ref_optional and ref_optional[i]) else costs.deletion for i in range(n)]
    flat = costs.substitution
    both = costs.deletion + costs.insertion
    previous = [0.0] * (m + 1)
    for j in range(m):
        previous[j + 1] = previous[j] + ins[j]
    moves: list[bytearray] = [bytearray(b"\x02" * (m + 1))]  # row 0: insertions only
    for i in range(n):
        r = ref[i]
        deletion = dels[i]
        r_optional = bool(ref_optional and ref_optional[i])
        row = [previous[0] + deletion]
        move = bytearray(m + 1)
        move[0] = 1
        for j in range(1, m + 1):
            h = hyp[j - 1]
            if h == r:
                step = 0.0
            elif r_optional or (hyp_optional and hyp_optional[j - 1]):
                step = both
            else:
                step = costs.flat_substitution if flat is None else flat(r, h)
            diagonal = previous[j - 1] + step
            down = previous[j] + deletion
            right = row[j - 1] + ins[j - 1]
            if diagonal <= down and diagonal <= right:
                row.append(diagonal)
            elif down < right:
                row.append(down)
                move[j] = 1
            else:
                row.append(right)
                move[j] = 2
        moves.append(move)
        previous = row
    refs: list[int] = []
    hyps: list[int] = []
    ops = bytearray()
    steps: list[float] = []
    i, j = n, m
    while i > 0 or j > 0:
        move = moves[i][j] if i > 0 else 2
        if move == 0:
            i, j = i - 1, j - 1
            refs.append(i)
            hyps.append(j)
            if hyp[j] == ref[i]:
                ops.append(CORRECT)
                steps.append(0.0)
            else:
                ops.append(SUBSTITUTION)
                if (ref_optional and ref_optional[i]) or (hyp_optional and hyp_optional[j]):
                    steps.append(both)
                else:
                    steps.append(costs.flat_substitution if flat is None else flat(ref[i], hyp[j]))
        elif move == 1:
            i -= 1
            refs.append(i)
            hyps.append(-1)
            ops.append(DELETION)
            steps.append(dels[i])
        else:
            j -= 1
            refs.append(-1)
            hyps.append(j)
            ops.append(INSERTION)
            steps.append(ins[j])
    refs.reverse()
    hyps.reverse()
    ops.reverse()
    steps.reverse()
    return refs, hyps, bytes(ops), steps


# A region of more cells than this (reference words x hypothesis words) is not aligned whole: its
# table would grow with the product of its lengths (two unrelated 100,000-word texts: 10^10 cells).
# It is cut into pieces of at most PIECE words a side along rapidfuzz's least-edit alignment, and
# each piece goes through the programme; the work then grows with the length times PIECE. With
# substitution costs of their own (phonetic), a cell costs a call of the cost function (tens of
# microseconds for a new pair of words), so the pieces are single steps of rapidfuzz's alignment.
REGION_CELLS = 100_000
PIECE = 24
CALLED_PIECE = 1


def _cut_points(
    ref: Sequence[int],
    hyp: Sequence[int],
    piece: int = PIECE,
    path: Sequence[tuple[int, int]] | None = None,
) -> list[tuple[int, int]]:
    """Where to cut a large region: ``(i, j)`` pairs from ``(0, 0)`` to ``(len(ref), len(hyp))``.

    The points lie on rapidfuzz's least-edit alignment (unit costs): at the ends of its runs of
    equal words, and through the stretches between them (and along long runs) on the straight line,
    so that consecutive points are at most ``piece`` words apart on each side. Then as many
    consecutive stretches as fit in ``piece`` words a side make one piece. The programme on each
    piece is sclite's; only the cut points are fixed, so the alignment's total cost can exceed the
    least one, and a tie sclite would settle across a cut is settled within each piece.

    ``path``: the points of such an alignment when the caller has one (each step's end, in order).
    """
    n, m = len(ref), len(hyp)
    points: list[tuple[int, int]] = [(0, 0)]

    def line(i1: int, j1: int) -> None:
        i0, j0 = points[-1]
        steps = -(-max(i1 - i0, j1 - j0) // piece)
        for t in range(1, steps + 1):
            points.append((i0 + (i1 - i0) * t // steps, j0 + (j1 - j0) * t // steps))

    if path is None:
        hint = max(1, abs(n - m))
        for a, b, size in Levenshtein.editops(ref, hyp, score_hint=hint).as_matching_blocks():
            line(a, b)  # the stretch without a match before the run
            line(a + size, b + size)  # the run of equal words
    else:
        for i, j in path:
            line(i, j)
    line(n, m)
    cuts = [(0, 0)]
    for k in range(1, len(points)):
        i0, j0 = cuts[-1]
        i, j = points[k]
        if i - i0 > piece or j - j0 > piece:
            cuts.append(points[k - 1])
    if cuts[-1] != (n, m):
        cuts.append((n, m))
    return cuts


def _align_linear_in_pieces(
    ref: Sequence[int],
    hyp: Sequence[int],
    costs: Costs,
    ref_optional: Sequence[bool] | None,
    hyp_optional: Sequence[bool] | None,
    path: Sequence[tuple[int, int]] | None = None,
) -> tuple[list[int], list[int], bytes, list[float]]:
    """:func:`_align_linear` for a region too large to align whole, piece by piece (:func:`_cut_points`)."""
    refs: list[int] = []
    hyps: list[int] = []
    ops = bytearray()
    steps: list[float] = []
    cuts = _cut_points(ref, hyp, PIECE if costs.substitution is None else CALLED_PIECE, path)
    for (i0, j0), (i1, j1) in zip(cuts, cuts[1:], strict=False):
        part = _align_linear(
            ref[i0:i1],
            hyp[j0:j1],
            costs,
            ref_optional[i0:i1] if ref_optional else None,
            hyp_optional[j0:j1] if hyp_optional else None,
            whole=True,
        )
        refs.extend(r + i0 if r >= 0 else -1 for r in part[0])
        hyps.extend(h + j0 if h >= 0 else -1 for h in part[1])
        ops.extend(part[2])
        steps.extend(part[3])
    return refs, hyps, bytes(ops), steps


def _layout_path(ops: np.ndarray, n: int, m: int) -> list[tuple[int, int]] | None:
    """The path of a region's columns through its words, for :func:`_cut_points`.

    Only for a region too large to align whole (None otherwise, or if the columns do not consume
    the region's ``n`` and ``m`` words).
    """
    if n * m <= REGION_CELLS or len(ops) == 0:
        return None
    i = np.cumsum(ops != INSERTION)
    j = np.cumsum(ops != DELETION)
    if int(i[-1]) != n or int(j[-1]) != m:
        return None
    # The matches, each from the point before it to the point after; the stretches between them
    # are cut on the straight line, as the matching blocks of :func:`_cut_points` are.
    matched = np.flatnonzero(ops == CORRECT)
    points = np.empty((2 * len(matched), 2), np.int64)
    points[0::2, 0], points[0::2, 1] = i[matched] - 1, j[matched] - 1
    points[1::2, 0], points[1::2, 1] = i[matched], j[matched]
    return [(a, b) for a, b in points.tolist()]


def _exits(ref: WordGraph, a: int, b: int) -> list[int]:
    """Nodes of ``[a, b)`` (or -1, the region's start) that the rest of the graph may follow."""
    if ref.preds is None:
        return [b - 1] if b > a else [-1]
    following = ref.preds[b] if b < len(ref.ids) else tuple(ref.finals)
    exits = sorted({p if p >= a else -1 for p in following}, reverse=True)
    return exits


# -- the vectorised path for plain sequences -------------------------------------------------------


@dataclass
class BatchAlignment:
    """Alignments of many documents in flat arrays; indices are positions in the concatenated words.

    ``bounds[d]:bounds[d + 1]`` are document ``d``'s columns; ``ref_offsets[d]`` and ``hyp_offsets[d]``
    the position of its first reference and hypothesis word in the concatenation.
    """

    ref: np.ndarray
    hyp: np.ndarray
    ops: np.ndarray
    costs: np.ndarray
    bounds: np.ndarray
    ref_offsets: np.ndarray
    hyp_offsets: np.ndarray
    ref_words: int = 0
    hyp_words: int = 0

    def document(self, d: int) -> Alignment:
        """Document ``d``'s alignment with indices local to its own words."""
        start, end = int(self.bounds[d]), int(self.bounds[d + 1])
        ref = self.ref[start:end]
        hyp = self.hyp[start:end]
        ref = np.where(ref >= 0, ref - self.ref_offsets[d], -1)
        hyp = np.where(hyp >= 0, hyp - self.hyp_offsets[d], -1)
        return Alignment(
            array("q", ref.tolist()),
            array("q", hyp.tolist()),
            bytearray(self.ops[start:end].tobytes()),
            array("d", self.costs[start:end].tolist()),
        )


def align_batch(
    refs: Sequence[Sequence[int]],
    hyps: Sequence[Sequence[int]],
    costs: Costs = Costs(),
    ref_optional: Sequence[Sequence[bool] | None] | None = None,
    hyp_optional: Sequence[Sequence[bool] | None] | None = None,
) -> BatchAlignment:
    """Align many plain reference sequences with their hypotheses by sclite's programme
    (:func:`align_joined` on the sequences joined)."""
    ref_lengths = np.fromiter(map(len, refs), np.int64, len(refs))
    hyp_lengths = np.fromiter(map(len, hyps), np.int64, len(hyps))
    return align_joined(
        np.fromiter(chain.from_iterable(refs), np.int64, int(ref_lengths.sum())),
        ref_lengths,
        np.fromiter(chain.from_iterable(hyps), np.int64, int(hyp_lengths.sum())),
        hyp_lengths,
        costs,
        _joined_flags(ref_optional, ref_lengths),
        _joined_flags(hyp_optional, hyp_lengths),
    )


def align_joined(
    ref_words: np.ndarray,
    ref_lengths: np.ndarray,
    hyp_words: np.ndarray,
    hyp_lengths: np.ndarray,
    costs: Costs = Costs(),
    ref_flags: np.ndarray | None = None,
    hyp_flags: np.ndarray | None = None,
) -> BatchAlignment:
    """Align many plain reference sequences with their hypotheses by sclite's programme, given
    joined: each side's words one sequence after the other (``ref_words``, ``hyp_words``), each
    sequence's length, and which words are optional (``ref_flags``, ``hyp_flags``; None: none).

    Every document of at most ``REGION_CELLS`` cells goes whole through the programme
    (:func:`_align_linear`'s sums, comparisons and tie order, so sclite's choice among alignments
    of equal cost), all documents together (:func:`_programmes`). A larger document is cut into
    pieces along rapidfuzz's least-edit alignment (:func:`_cut_points`), and the pieces go through
    the programme with the others.
    """
    n_docs = len(ref_lengths)
    ref_lengths = np.asarray(ref_lengths, np.int64)
    hyp_lengths = np.asarray(hyp_lengths, np.int64)
    ref_offsets = np.concatenate(([0], np.cumsum(ref_lengths, dtype=np.int64)))
    hyp_offsets = np.concatenate(([0], np.cumsum(hyp_lengths, dtype=np.int64)))
    ref_words = np.asarray(ref_words, np.int64)
    hyp_words = np.asarray(hyp_words, np.int64)
    ref_opt = ref_flags if ref_flags is not None and ref_flags.any() else None
    hyp_opt = hyp_flags if hyp_flags is not None and hyp_flags.any() else None

    # The problems: whole documents, and the pieces of the large ones, in document order.
    doc = np.arange(n_docs)
    ref_from, n, hyp_from, m = ref_offsets[:-1], ref_lengths, hyp_offsets[:-1], hyp_lengths
    large = np.flatnonzero(ref_lengths * hyp_lengths > REGION_CELLS)
    if len(large):
        piece = PIECE if costs.substitution is None else CALLED_PIECE
        cut: list[tuple[int, int, int, int, int]] = []
        for d in large.tolist():
            r0, h0 = int(ref_offsets[d]), int(hyp_offsets[d])
            ref = ref_words[r0 : int(ref_offsets[d + 1])].tolist()
            hyp = hyp_words[h0 : int(hyp_offsets[d + 1])].tolist()
            # Two long texts without a word in common: nothing to match (rapidfuzz would find that
            # at the price of its quadratic work); the pieces follow the straight line.
            path = [] if set(ref).isdisjoint(hyp) else None
            points = _cut_points(ref, hyp, piece, path)
            cut.extend(
                (d, r0 + i0, i1 - i0, h0 + j0, j1 - j0)
                for (i0, j0), (i1, j1) in zip(points, points[1:], strict=False)
            )
        keep = np.ones(n_docs, bool)
        keep[large] = False
        pieces = np.array(cut, np.int64).reshape(-1, 5)
        order = np.argsort(np.concatenate((doc[keep], pieces[:, 0])), kind="stable")
        doc, ref_from, n, hyp_from, m = (
            np.concatenate((whole[keep], pieces[:, k]))[order]
            for k, whole in enumerate((doc, ref_from, n, hyp_from, m))
        )
    lengths, col_ref, col_hyp, ops, col_costs = _programmes(
        ref_words, hyp_words, ref_opt, hyp_opt, costs, ref_from, n, hyp_from, m
    )
    columns = np.bincount(doc, weights=lengths, minlength=n_docs).astype(np.int64)
    return BatchAlignment(
        col_ref,
        col_hyp,
        ops,
        col_costs,
        np.concatenate(([0], np.cumsum(columns, dtype=np.int64))),
        ref_offsets[:-1],
        hyp_offsets[:-1],
        int(ref_offsets[-1]),
        int(hyp_offsets[-1]),
    )


def _joined_flags(optional: Sequence[Sequence[bool] | None] | None, lengths: np.ndarray) -> np.ndarray | None:
    """Which words are optional, over the concatenation (None: none is)."""
    if optional is None or all(flags is None for flags in optional):
        return None
    return np.concatenate(
        [np.zeros(0, bool)]
        + [
            np.asarray(flags, bool) if flags is not None else np.zeros(int(size), bool)
            for flags, size in zip(optional, lengths.tolist(), strict=True)
        ]
    )


# Cells (padded, of every problem) the programme works on at once: its working arrays are about
# 20 bytes a cell.
GROUP_CELLS = 1 << 21


def _programmes(
    ref_words: np.ndarray,
    hyp_words: np.ndarray,
    ref_opt: np.ndarray | None,
    hyp_opt: np.ndarray | None,
    costs: Costs,
    ref_from: np.ndarray,
    n: np.ndarray,
    hyp_from: np.ndarray,
    m: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Problem ``k``: reference words ``ref_from[k]`` on (``n[k]`` of them) against hypothesis words
    ``hyp_from[k]`` on (``m[k]``), each aligned by the programme (:func:`_programme_group`).

    Problems of about the same size go together, sorted by size, as many as fit in
    ``GROUP_CELLS``; a problem with no word on one side is its deletions or insertions. Returns
    each problem's number of columns and the columns of every problem one after the other:
    reference and hypothesis word (positions in ``ref_words``, ``hyp_words``; -1: none), op, cost.
    """
    sizes = np.where((n == 0) | (m == 0), n + m, 0)
    parts: list[tuple[np.ndarray, ...]] = []
    with_costs = costs.substitution is not None or ref_opt is not None or hyp_opt is not None
    low = min(int(ref_words.min(initial=0)), int(hyp_words.min(initial=0)), 0)
    ref_pad, hyp_pad = low - 1, low - 2  # never equal to a word, nor to each other
    both = np.flatnonzero((n > 0) & (m > 0))
    both = both[np.argsort(np.maximum(n, m)[both], kind="stable")]
    start = 0
    while start < len(both):
        side = int(max(n[both[start]], m[both[start]])) + 2
        span = max(1, GROUP_CELLS // (side * side))
        side = (
            int(max(n[both[min(start + span, len(both)) - 1]], m[both[min(start + span, len(both)) - 1]])) + 2
        )
        group = both[start : start + max(1, GROUP_CELLS // (side * side))]
        start += len(group)
        gn, gm = n[group], m[group]
        rows, cols = int(gn.max()), int(gm.max())
        row_valid = np.arange(rows) < gn[:, None]
        col_valid = np.arange(cols) < gm[:, None]
        ref_index = ranges(ref_from[group], gn)
        hyp_index = ranges(hyp_from[group], gm)
        ref_padded = np.full((len(group), rows), ref_pad, np.int64)
        ref_padded[row_valid] = ref_words[ref_index]
        hyp_padded = np.full((len(group), cols), hyp_pad, np.int64)
        hyp_padded[col_valid] = hyp_words[hyp_index]
        # Cell (i, j) of problem g at [i, j, g]: each step of the programme reads contiguous rows.
        equal = (
            np.ascontiguousarray(ref_padded.T)[:, None, :] == np.ascontiguousarray(hyp_padded.T)[None, :, :]
        )
        steps = None
        if with_costs:
            ref_flag = np.zeros((len(group), rows), bool)
            hyp_flag = np.zeros((len(group), cols), bool)
            if ref_opt is not None:
                ref_flag[row_valid] = ref_opt[ref_index]
            if hyp_opt is not None:
                hyp_flag[col_valid] = hyp_opt[hyp_index]
            steps = _group_steps(
                costs,
                ref_padded,
                hyp_padded,
                equal.transpose(2, 0, 1),
                row_valid,
                col_valid,
                ref_flag,
                hyp_flag,
            )
        lengths, local_ref, local_hyp, local_ops, local_costs = _programme_group(equal, gn, gm, costs, steps)
        sizes[group] = lengths
        owner = np.repeat(group, lengths)
        parts.append(
            (
                group,
                lengths,
                np.where(local_ref >= 0, local_ref + ref_from[owner], -1),
                np.where(local_hyp >= 0, local_hyp + hyp_from[owner], -1),
                local_ops,
                local_costs,
            )
        )
    for empty, op in (
        (np.flatnonzero((m == 0) & (n > 0)), DELETION),
        (np.flatnonzero((n == 0) & (m > 0)), INSERTION),
    ):
        if not len(empty):
            continue
        lengths = n[empty] if op == DELETION else m[empty]
        words = ranges((ref_from if op == DELETION else hyp_from)[empty], lengths)
        none = np.full(len(words), -1, np.int64)
        if op == DELETION:
            step = np.where(ref_opt[words], 0.0, costs.deletion) if ref_opt is not None else None
        else:
            step = np.where(hyp_opt[words], 0.0, costs.insertion) if hyp_opt is not None else None
        if step is None:
            step = np.full(len(words), costs.deletion if op == DELETION else costs.insertion)
        sides = (words, none) if op == DELETION else (none, words)
        parts.append((empty, lengths, *sides, np.full(len(words), op, np.uint8), step))
    offsets = np.concatenate(([0], np.cumsum(sizes, dtype=np.int64)))
    total = int(offsets[-1])
    out = (np.empty(total, np.int64), np.empty(total, np.int64), np.empty(total, np.uint8), np.empty(total))
    for group, lengths, *columns in parts:
        at = ranges(offsets[group], lengths)
        for target, values in zip(out, columns, strict=True):
            target[at] = values
    return (sizes, *out)


def _group_steps(
    costs: Costs,
    ref_padded: np.ndarray,
    hyp_padded: np.ndarray,
    equal: np.ndarray,
    row_valid: np.ndarray,
    col_valid: np.ndarray,
    ref_opt: np.ndarray,
    hyp_opt: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The moves' costs of a group of regions, as :func:`_align_linear` takes them: each cell's
    diagonal step (0 for equal words, deletion + insertion where either word is optional, else the
    substitution cost), each reference word's deletion and each hypothesis word's insertion (0 for
    an optional word). Substitution costs of their own are asked in bulk for the cells that need
    them."""
    either = ref_opt[:, :, None] | hyp_opt[:, None, :]
    deletion = np.where(ref_opt, 0.0, costs.deletion)
    insertion = np.where(hyp_opt, 0.0, costs.insertion)
    if costs.substitution is not None:
        needed = ~equal & ~either & row_valid[:, :, None] & col_valid[:, None, :]
        if costs.substitution_bounds is not None and _whole(costs.deletion, costs.insertion):
            # Unasked cells cost the most a substitution can: no best path goes through them.
            step = np.full(equal.shape, float(costs.substitution_bounds[1]))
            needed &= _on_best_paths(equal, either, deletion, insertion, row_valid, col_valid, costs)
        else:
            step = np.full(equal.shape, costs.flat_substitution)
        where = np.nonzero(needed)
        if len(where[0]):
            pairs = (ref_padded[where[0], where[1]], hyp_padded[where[0], where[2]])
            step[where] = _substitutions(costs, *pairs)
    else:
        step = np.full(equal.shape, costs.flat_substitution)
    step[either] = costs.deletion + costs.insertion
    step[equal] = 0.0
    return step, deletion, insertion


def _on_best_paths(
    equal: np.ndarray,
    either: np.ndarray,
    deletion: np.ndarray,
    insertion: np.ndarray,
    row_valid: np.ndarray,
    col_valid: np.ndarray,
    costs: Costs,
) -> np.ndarray:
    """Which diagonal moves of a group of problems (``[g, i, j]``: reference word ``i`` against
    hypothesis word ``j``) could lie on a path of least cost, when a substitution costs from
    ``least`` to ``most`` (``costs.substitution_bounds``).

    With every substitution at ``least``, the programme run forwards and run on the reversed
    problems gives a lower bound of the cheapest path through each move; with every substitution
    at ``most``, the programme's value is an upper bound of the cheapest path. A move whose lower
    bound exceeds that bound lies on no path of least cost, and every value and comparison of the
    trace back stays as if its true cost were known: whole numbers, so the margin is at least 1.
    """
    assert costs.substitution_bounds is not None
    least, most = costs.substitution_bounds
    regions, rows, cols = equal.shape
    n, m = row_valid.sum(axis=1), col_valid.sum(axis=1)
    both = int(costs.deletion + costs.insertion)
    # No value exceeds a path's length times its dearest move: half the memory traffic in int16.
    kind = np.int16 if (rows + cols + 1) * max(both, most) < np.iinfo(np.int16).max else np.int32
    deletions = deletion.T.astype(kind)
    insertions = insertion.T.astype(kind)
    moves = np.where(equal, 0, np.where(either, both, least)).astype(kind).transpose(1, 2, 0)
    forward = _whole_table(moves, deletions, insertions)
    highest = _whole_table(np.where(moves == least, kind(most), moves), deletions, insertions)
    bound = highest[n, m, np.arange(regions)]
    # Problem g reversed: word i is word n[g] - 1 - i (padding stays where it is).
    region = np.arange(regions)
    back_i = np.where(row_valid, n[:, None] - 1 - np.arange(rows), np.arange(rows)).T
    back_j = np.where(col_valid, m[:, None] - 1 - np.arange(cols), np.arange(cols)).T
    backward = _whole_table(
        moves[back_i[:, None, :], back_j[None, :, :], region],
        deletions[back_i, region],
        insertions[back_j, region],
    )
    # The cheapest path through move (i, j): forward to (i, j), the move, backward from (i + 1, j + 1).
    rest_i = np.maximum(n[None, :] - 1 - np.arange(rows)[:, None], 0)
    rest_j = np.maximum(m[None, :] - 1 - np.arange(cols)[:, None], 0)
    through = forward[:-1, :-1] + least + backward[rest_i[:, None, :], rest_j[None, :, :], region]
    return (through <= bound).transpose(2, 0, 1)


def _whole(*costs: float) -> bool:
    """Whether every cost is a whole number (the programme then runs in integers)."""
    return all(float(c).is_integer() for c in costs)


def _whole_table(
    step: np.ndarray, deletions: np.ndarray, insertions: np.ndarray, out: np.ndarray | None = None
) -> np.ndarray:
    """The programme's values, ``[i, j, g]``, for whole-number costs: ``step[i, j, g]`` the
    diagonal move onto cell (i + 1, j + 1), ``deletions[i, g]``, ``insertions[j, g]``; written
    into ``out`` when given (of shape ``(rows + 1, cols + 1, regions)``).

    The table holds ``u[i, j] = value[i, j] - P[j]``, ``P`` the running sum of the insertions: a
    row's diagonal and deletion moves come from the row before, all at once, and its insertions
    chain as a running minimum, ``u[i, j] = min over k <= j of best[k]``, exact in integers.
    """
    rows, cols, regions = step.shape
    running = np.zeros((cols + 1, regions), step.dtype)
    np.cumsum(insertions, axis=0, out=running[1:])
    # In u: the diagonal from u[i - 1, j - 1] costs step - insertion of word j; the deletion
    # from u[i - 1, j] the deletion.
    shifted = step - insertions[None]
    table = np.empty((rows + 1, cols + 1, regions), step.dtype) if out is None else out
    table[0] = 0
    for i in range(rows):
        above, row = table[i], table[i + 1]
        np.add(above[:-1], shifted[i], out=row[1:])
        np.minimum(row[1:], above[1:] + deletions[i], out=row[1:])
        np.add(above[0], deletions[i], out=row[0])
        # The running minimum along the row, one hypothesis word at a time: each step works on
        # a contiguous row of problems (numpy's accumulate along this axis goes element by element).
        for j in range(1, cols + 1):
            np.minimum(row[j], row[j - 1], out=row[j])
    table += running[None]
    return table


def _substitutions(costs: Costs, ref: np.ndarray, hyp: np.ndarray) -> np.ndarray:
    """The substitution costs of many pairs: in bulk (``costs.substitutions``), else one call of
    ``costs.substitution`` per distinct pair."""
    if costs.substitutions is not None:
        return costs.substitutions(ref, hyp)
    assert costs.substitution is not None
    pairs, inverse = np.unique(np.stack((ref, hyp)), axis=1, return_inverse=True)
    called = costs.substitution
    values = np.fromiter((called(r, h) for r, h in pairs.T.tolist()), np.float64, pairs.shape[1])
    return values[inverse.ravel()]


# The op of a column by its move (diagonal, deletion, insertion) and whether its words are equal:
# index 2 * move + equal.
_OP_OF_MOVE = np.array([SUBSTITUTION, CORRECT, DELETION, DELETION, INSERTION, INSERTION], np.uint8)


def _programme_group(
    equal: np.ndarray,
    n: np.ndarray,
    m: np.ndarray,
    costs: Costs,
    move_costs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_align_linear` on many problems at once, one row (reference word) at a time.

    ``equal[i, j, g]``: reference word ``i`` of problem ``g`` equals its hypothesis word ``j``
    (padding never equal); ``n``, ``m``: the problems' lengths. ``move_costs``: the moves' costs of
    every cell, reference word and hypothesis word (:func:`_group_steps`, problems first), when they
    are not the flat ones. The problems lie on the last axis, so that every step works on
    contiguous rows of problems.

    With whole-number costs (sclite's) the table is :func:`_whole_table`'s; other costs fill a
    row's diagonal and deletion moves from the row before, all at once, and chain its insertions
    one cell at a time with :func:`_align_linear`'s sums.
    The trace back from ``(n, m)`` then takes at each cell :func:`_align_linear`'s move: the
    diagonal unless another move is strictly cheaper, the deletion only if strictly cheaper than
    the insertion. Padding cells lie after a problem's own
    cells and never change them. Returns each problem's number of columns and its columns one
    problem after the other, with local indices (-1: none), ops and costs.
    """
    rows, cols, regions = equal.shape
    whole = costs.substitution is None and _whole(costs.flat_substitution, costs.deletion, costs.insertion)
    dearest = sum(abs(c) for c in (costs.flat_substitution, costs.deletion, costs.insertion)) * 2
    # Whole numbers in int16 while no value can come near its range (half the memory traffic).
    kind = (np.int16 if (rows + cols + 2) * dearest < 8000 else np.int32) if whole else np.float64
    if move_costs is None:
        # 0 for equal words, the substitution cost elsewhere (a product: np.where with two scalars
        # takes several times as long on a table this size).
        step = (~equal).astype(kind) * kind(costs.flat_substitution)
        deletions = np.full((rows, regions), costs.deletion, kind)
        insertions = np.full((cols, regions), costs.insertion, kind)
    else:
        step = np.ascontiguousarray(move_costs[0].transpose(1, 2, 0), dtype=kind)
        deletions, insertions = move_costs[1].T.astype(kind), move_costs[2].T.astype(kind)
    # The table with a border of "never" before its first row and column: cell (i, j) at
    # [i + 1, j + 1], so that the trace back reads every neighbour without a bound check.
    never = np.inf if kind is np.float64 else kind(np.iinfo(kind).max // 2)
    bordered = np.full((rows + 2, cols + 2, regions), never, kind)
    table = bordered[1:, 1:]
    if whole:
        _whole_table(step, deletions, insertions, out=table)
    else:
        table[0, 0] = 0
        np.cumsum(insertions, axis=0, out=table[0, 1:])
        for i in range(rows):
            above, row = table[i], table[i + 1]
            np.add(above[:-1], step[i], out=row[1:])
            np.minimum(row[1:], above[1:] + deletions[i], out=row[1:])
            np.add(above[0], deletions[i], out=row[0])
            for j in range(cols):
                np.minimum(row[j + 1], row[j] + insertions[j], out=row[j + 1])
    # Trace back from (n, m), every problem one step at a time; the moves come out last first
    # (0 diagonal, 1 deletion, 2 insertion, 3 the problem is done). ``at``: the cell in the
    # bordered table; ``diagonal_at``, ``deletion_at``, ``insertion_at``: the cost of the move
    # into it (outside the arrays on the border, where the neighbour is "never": clipped).
    region = np.arange(regions)
    values, steps_of = bordered.ravel(), step.ravel()
    deletion_of, insertion_of = deletions.ravel(), insertions.ravel()
    row_size = (cols + 2) * regions
    at = ((n + 1) * (cols + 2) + m + 1) * regions + region
    origin = (cols + 3) * regions + region
    diagonal_at = ((n - 1) * cols + m - 1) * regions + region
    deletion_at = (n - 1) * regions + region
    insertion_at = (m - 1) * regions + region
    # How each move changes those positions (none once done).
    at_change = np.array([row_size + regions, row_size, regions, 0], np.int64)
    diagonal_change = np.array([(cols + 1) * regions, cols * regions, regions, 0], np.int64)
    deletion_change = np.array([regions, regions, 0, 0], np.int64)
    insertion_change = np.array([regions, 0, regions, 0], np.int64)
    flat = move_costs is None
    steps = rows + cols
    back_move = np.full((steps, regions), 3, np.int64)
    for t in range(steps):
        done = at == origin
        if done.all():
            break
        diagonal = values.take(at - row_size - regions) + steps_of.take(diagonal_at, mode="clip")
        down = values.take(at - row_size)
        right = values.take(at - regions)
        if flat:
            down += kind(costs.deletion)
            right += kind(costs.insertion)
        else:
            down += deletion_of.take(deletion_at, mode="clip")
            right += insertion_of.take(insertion_at, mode="clip")
        chosen = np.where((diagonal <= down) & (diagonal <= right), 0, (down >= right) + 1)
        chosen[done] = 3
        back_move[t] = chosen
        at -= at_change.take(chosen)
        diagonal_at -= diagonal_change.take(chosen)
        if not flat:
            deletion_at -= deletion_change.take(chosen)
            insertion_at -= insertion_change.take(chosen)
    lengths = np.count_nonzero(back_move != 3, axis=0).astype(np.int64)
    owner = np.repeat(region, lengths)
    first = np.cumsum(lengths) - lengths
    within = np.arange(int(lengths.sum())) - np.repeat(first, lengths)
    back = np.repeat(lengths, lengths) - 1 - within
    moves = back_move[back, owner]
    # Each column's words: how many of its problem's words the columns up to it take, less one.
    takes_ref, takes_hyp = moves <= 1, moves != 1
    ref_local = np.cumsum(takes_ref) - 1
    hyp_local = np.cumsum(takes_hyp) - 1
    if len(moves):
        ref_local -= np.repeat(ref_local[first] + 1 - takes_ref[first], lengths)
        hyp_local -= np.repeat(hyp_local[first] + 1 - takes_hyp[first], lengths)
    r_at, h_at = np.clip(ref_local, 0, rows - 1), np.clip(hyp_local, 0, cols - 1)
    matched = equal[r_at, h_at, owner]
    ops = _OP_OF_MOVE[2 * moves + matched]
    column_costs = np.where(
        moves == 0,
        step[r_at, h_at, owner],
        np.where(moves == 1, deletions[r_at, owner], insertions[h_at, owner]),
    ).astype(np.float64)
    return (
        lengths,
        np.where(moves == 2, -1, ref_local),
        np.where(moves == 1, -1, hyp_local),
        ops,
        column_costs,
    )
