"""Word alignment by dynamic programming, anchored on exact matches (seed 000, "Extent Normalization").

The aligner works on integer token ids, never on strings: callers map words to dense integers first
(:class:`Vocabulary`). A reference is a *word graph*: usually a plain sequence, but alternatives such as
``{ INDUSTRY'S / INDUSTRY }`` or ``{ @ / AN }`` (sclite reference alternations, GLM ``{a / b}``
replacements) make it branch. Each reference word is a node with the nodes that may precede it.

Speed: a document of thousands of words is aligned in two steps.

1. ``rapidfuzz.distance.Levenshtein.opcodes`` (bit-parallel, C++) on the id sequences finds the
   exact matches. Runs of at least ``ANCHOR`` equal words become anchors: the alignment must pass
   through them. A branching part of the reference is one never-matching id in this pass.
2. Every region between anchors is aligned again by the full dynamic programme below, with the
   chosen costs (sclite's 0/4/3/3, or phonetic substitution costs) and the word graph. Regions are
   small when the texts are close (most are one word or two), so this costs little.

The full programme over a region picks, among the alignments of least total cost, the one sclite
would print: see :func:`_align_region` for the order in which equal-cost moves are preferred.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

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
        get, new = self._ids.get, self.id
        return [i if (i := get(w)) is not None else new(w) for w in words]


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
    still get their column, with op D or I and cost 0.
    """
    out = Alignment()
    surrogate, node_of = _surrogate(ref)
    if score_hint is None:
        score_hint = max(1, abs(len(surrogate) - len(hyp)))
    pending_ref, pending_hyp = 0, 0  # start of the region not yet aligned (surrogate, hyp positions)
    for tag, i1, i2, j1, j2 in Levenshtein.opcodes(surrogate, hyp, score_hint=score_hint):
        if tag != "equal" or i2 - i1 < ANCHOR:
            continue
        _region(ref, hyp, costs, hyp_optional, node_of, pending_ref, i1, pending_hyp, j1, out)
        _equal(node_of, i1, i2, j1, out)
        pending_ref, pending_hyp = i2, j2
    _region(ref, hyp, costs, hyp_optional, node_of, pending_ref, len(surrogate), pending_hyp, len(hyp), out)
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
        deletion = 0.0 if (ref_optional and ref_optional[k]) else costs.deletion
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


def _exits(ref: WordGraph, a: int, b: int) -> list[int]:
    """Nodes of ``[a, b)`` (or -1, the region's start) that the rest of the graph may follow."""
    if ref.preds is None:
        return [b - 1] if b > a else [-1]
    following = ref.preds[b] if b < len(ref.ids) else tuple(ref.finals)
    exits = sorted({p if p >= a else -1 for p in following}, reverse=True)
    return exits
