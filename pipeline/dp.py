"""Word alignment by dynamic programming, anchored on exact matches (seed 000, "Extent Normalization").

The aligner works on integer token ids, never on strings: callers map words to dense integers first
(:class:`Vocabulary`). A reference is a *word graph*: usually a plain sequence, but alternatives such as
``{ INDUSTRY'S / INDUSTRY }`` or ``{ @ / AN }`` (sclite reference alternations, GLM ``{a / b}``
replacements) make it branch. Each reference word is a node with the nodes that may precede it.

Speed: rapidfuzz (bit-parallel, C++) finds the exact matches; runs of at least ``ANCHOR`` equal
words become anchors the alignment passes through, and only the regions between them are worked on.

- Plain sequences (:func:`align_batch`, many documents at once): the columns are built from
  rapidfuzz's matching blocks with array operations, in the order sclite leaves equal-cost choices;
  only the regions where another choice could win are aligned again by the full programme.
- Word graphs (:func:`align`): ``Levenshtein.opcodes`` on a linear stand-in (a branching part is one
  never-matching id) finds the anchors, and every region between them goes through the full
  programme over the graph.

The full programme picks, among the alignments of least total cost, the one sclite would print:
see :func:`_align_region` for the order in which equal-cost moves are preferred.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter

import numpy as np
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
    still get their column, with op D or I and cost 0, and are never substituted. A plain sequence
    goes through :func:`align_batch`.
    """
    if ref.preds is None:
        # A plain sequence takes the vectorised path (the same result, faster).
        optional = [ref.optional] if ref.optional is not None else None
        return align_batch(
            [ref.ids], [hyp], costs, optional, [list(hyp_optional)] if hyp_optional is not None else None
        ).document(0)
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
) -> tuple[list[int], list[int], bytes, list[float]]:
    """:func:`_align_region` for a plain sequence, lean: columns as (ref, hyp, ops, costs), local.

    The same programme and the same tie order (diagonal, then insertion, deletion only when
    strictly cheaper), traced back from the end.
    """
    n, m = len(ref), len(hyp)
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


CHUNK_WORDS = 1 << 20  # documents are aligned in chunks of about this many words (arrays stay in cache)


def align_batch(
    refs: Sequence[Sequence[int]],
    hyps: Sequence[Sequence[int]],
    costs: Costs = Costs(),
    ref_optional: Sequence[Sequence[bool] | None] | None = None,
    hyp_optional: Sequence[Sequence[bool] | None] | None = None,
) -> BatchAlignment:
    """Align many plain reference sequences with their hypotheses; the same result as :func:`align`.

    Documents go through :func:`_align_chunk` a chunk at a time, so that the working arrays stay
    small; the results are joined with their indices moved to the whole concatenation.
    """
    chunks: list[BatchAlignment] = []
    start, words = 0, 0
    for d, ref in enumerate(refs):
        words += len(ref)
        if words >= CHUNK_WORDS or d == len(refs) - 1:
            chunks.append(
                _align_chunk(
                    refs[start : d + 1],
                    hyps[start : d + 1],
                    costs,
                    ref_optional[start : d + 1] if ref_optional is not None else None,
                    hyp_optional[start : d + 1] if hyp_optional is not None else None,
                )
            )
            start, words = d + 1, 0
    if len(chunks) == 1:
        return chunks[0]
    if not chunks:
        empty = np.zeros(0, np.int64)
        return BatchAlignment(
            empty, empty, np.zeros(0, np.uint8), np.zeros(0), np.zeros(1, np.int64), empty, empty
        )
    refs_seen = hyps_seen = columns_seen = 0
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("ref", "hyp", "ops", "costs", "bounds", "ro", "ho")}
    for chunk in chunks:
        parts["ref"].append(np.where(chunk.ref >= 0, chunk.ref + refs_seen, -1))
        parts["hyp"].append(np.where(chunk.hyp >= 0, chunk.hyp + hyps_seen, -1))
        parts["ops"].append(chunk.ops)
        parts["costs"].append(chunk.costs)
        parts["bounds"].append(chunk.bounds[:-1] + columns_seen)
        parts["ro"].append(chunk.ref_offsets + refs_seen)
        parts["ho"].append(chunk.hyp_offsets + hyps_seen)
        refs_seen += chunk.ref_words
        hyps_seen += chunk.hyp_words
        columns_seen += len(chunk.ops)
    return BatchAlignment(
        np.concatenate(parts["ref"]),
        np.concatenate(parts["hyp"]),
        np.concatenate(parts["ops"]),
        np.concatenate(parts["costs"]),
        np.concatenate(parts["bounds"] + [np.array([columns_seen], np.int64)]),
        np.concatenate(parts["ro"]),
        np.concatenate(parts["ho"]),
        refs_seen,
        hyps_seen,
    )


def _align_chunk(
    refs: Sequence[Sequence[int]],
    hyps: Sequence[Sequence[int]],
    costs: Costs,
    ref_optional: Sequence[Sequence[bool] | None] | None,
    hyp_optional: Sequence[Sequence[bool] | None] | None,
) -> BatchAlignment:
    """Align a chunk of documents (see :func:`align_batch`).

    rapidfuzz gives a least-edit alignment of every document as its matching blocks (runs of equal
    words). Between two blocks lie ``n`` reference and ``m`` hypothesis words without a match: they
    become ``min(n, m)`` substitutions and ``|n - m|`` deletions or insertions, the deletions or
    insertions first, as sclite's traceback leaves them (it runs back from the end preferring the
    diagonal). The columns are built from the blocks with array operations only. That alignment is
    sclite's wherever a region between anchors offers no other choice of matches and no optional
    word; the other regions are aligned again by the full programme (:func:`_refine`).
    """
    n_docs = len(refs)
    ref_lengths = np.fromiter((len(r) for r in refs), np.int64, n_docs)
    hyp_lengths = np.fromiter((len(h) for h in hyps), np.int64, n_docs)
    ref_offsets = np.concatenate(([0], np.cumsum(ref_lengths, dtype=np.int64)))
    hyp_offsets = np.concatenate(([0], np.cumsum(hyp_lengths, dtype=np.int64)))

    blocks: list = []
    per_document: list[int] = []
    for ref, hyp in zip(refs, hyps, strict=True):
        found = Levenshtein.editops(
            ref, hyp, score_hint=max(1, abs(len(ref) - len(hyp)))
        ).as_matching_blocks()
        blocks.extend(found)  # the last block of a document is (n, m, 0)
        per_document.append(len(found))
    flat = np.fromiter(chain.from_iterable(blocks), np.int64, 3 * len(blocks)).reshape(-1, 3)
    counts = np.asarray(per_document, np.int64)
    block_doc = np.repeat(np.arange(n_docs), counts)
    a = flat[:, 0] + ref_offsets[:-1][block_doc]
    b = flat[:, 1] + hyp_offsets[:-1][block_doc]
    size = flat[:, 2]
    first = np.zeros(len(flat), bool)
    first[np.concatenate(([0], np.cumsum(counts)[:-1]))[counts > 0]] = True
    # Where the gap before each block starts: the previous block's end, or the document's start.
    gap_ref = np.where(first, ref_offsets[:-1][block_doc], np.roll(a + size, 1))
    gap_hyp = np.where(first, hyp_offsets[:-1][block_doc], np.roll(b + size, 1))
    n_gap, m_gap = a - gap_ref, b - gap_hyp
    wide = np.maximum(n_gap, m_gap)
    spans = wide + size
    column_start = np.concatenate(([0], np.cumsum(spans, dtype=np.int64)))
    # Only the gap columns need work: every other column is a match. Columns then take the next
    # unconsumed word of each side they consume (all words are consumed, in order).
    ops = np.full(int(column_start[-1]), CORRECT, np.uint8)
    gap_columns = _ranges(column_start[:-1], wide)
    p = gap_columns - np.repeat(column_start[:-1], wide)
    lead = p < np.repeat(np.abs(n_gap - m_gap), wide)
    deletes = np.repeat(n_gap > m_gap, wide)
    ops[gap_columns] = np.where(lead, np.where(deletes, DELETION, INSERTION), SUBSTITUTION)
    takes_ref = ops != INSERTION
    takes_hyp = ops != DELETION
    col_ref = np.where(takes_ref, np.cumsum(takes_ref, dtype=np.int64) - 1, -1)
    col_hyp = np.where(takes_hyp, np.cumsum(takes_hyp, dtype=np.int64) - 1, -1)
    block_columns = np.bincount(block_doc, weights=spans, minlength=n_docs).astype(np.int64)
    bounds = np.concatenate(([0], np.cumsum(block_columns, dtype=np.int64)))
    words = _Words(refs, hyps)
    result = BatchAlignment(
        col_ref,
        col_hyp,
        ops,
        np.zeros(len(ops), np.float64),
        bounds,
        ref_offsets[:-1],
        hyp_offsets[:-1],
        int(ref_offsets[-1]),
        int(hyp_offsets[-1]),
    )
    ref_flags = _flags(ref_optional, ref_lengths)
    hyp_flags = _flags(hyp_optional, hyp_lengths)
    # Regions are judged on rapidfuzz's own layout: shifting first could join a match to an anchor
    # and hide a region's other choices. Flagged regions are realigned whole; in the others, the
    # deletions and insertions slide left as sclite leaves them.
    r_starts, r_ends, flagged, ref_from, ref_to, hyp_from, hyp_to = _flag_block_regions(
        words, costs, ref_flags, hyp_flags, first, size, n_gap, m_gap, gap_ref, gap_hyp, column_start
    )
    previous_size = np.where(first, 0, np.roll(size, 1))
    gap_starts = column_start[:-1]
    _flag_sliding_gaps(
        r_starts,
        r_ends,
        flagged,
        (ref_from, hyp_from),
        words,
        gap_starts,
        n_gap - m_gap,
        gap_ref,
        gap_hyp,
        previous_size,
    )
    starts, ends = r_starts[flagged], r_ends[flagged]
    word_ranges = (ref_from[flagged], ref_to[flagged], hyp_from[flagged], hyp_to[flagged])
    region = np.searchsorted(starts, gap_starts, side="right") - 1
    inside = (
        (region >= 0) & (gap_starts < ends[np.maximum(region, 0)])
        if len(starts)
        else np.zeros(len(gap_starts), bool)
    )
    _shift_left(
        col_ref,
        col_hyp,
        ops,
        words,
        gap_starts,
        np.where(inside, 0, n_gap - m_gap),
        gap_ref,
        gap_hyp,
        previous_size,
    )
    _fill_costs(result, words, costs, ref_flags, hyp_flags)
    if len(starts):
        _splice(result, words, costs, ref_flags, hyp_flags, starts, ends, word_ranges)
    return result


def _flag_sliding_gaps(
    r_starts: np.ndarray,
    r_ends: np.ndarray,
    flagged: np.ndarray,
    word_starts: tuple[np.ndarray, np.ndarray],
    words: _Words,
    gap_starts: np.ndarray,
    excess: np.ndarray,
    gap_ref: np.ndarray,
    gap_hyp: np.ndarray,
    previous_size: np.ndarray,
) -> None:
    """Flag the regions where a deleted or inserted word could slide in among equal matches.

    sclite moves a single deleted or inserted word left past a match of the same word (``delta
    delta`` against ``delta``: the first is the insertion), which a whole-block rotation does not
    cover. Such a region is realigned by the full programme, starting early enough (in place, on
    ``r_starts`` and ``flagged``) to take in the matches of those words before it.
    """
    candidates = np.flatnonzero((excess != 0) & (previous_size > 0))
    if len(candidates) == 0 or len(r_starts) == 0:
        return
    deleting = excess[candidates] > 0
    length = np.abs(excess[candidates])
    position = np.where(deleting, gap_ref[candidates], gap_hyp[candidates])
    lead = _ranges(position, length)
    owner = np.repeat(np.arange(len(candidates)), length)
    lead_deleting = deleting[owner]
    lead_words = np.empty(len(lead), np.int64)
    lead_words[lead_deleting] = words.gather(words.ref, lead[lead_deleting])
    lead_words[~lead_deleting] = words.gather(words.hyp, lead[~lead_deleting])
    before = position - 1
    before_words = np.empty(len(candidates), np.int64)
    before_words[deleting] = words.gather(words.ref, before[deleting])
    before_words[~deleting] = words.gather(words.hyp, before[~deleting])
    touching = np.bincount(owner, weights=lead_words == before_words[owner], minlength=len(candidates)) > 0
    for k in np.flatnonzero(touching).tolist():
        gap = int(candidates[k])
        sequence = words.ref if deleting[k] else words.hyp
        p, e = int(position[k]), int(length[k])
        block = set(sequence[p : p + e])
        reach = 0  # matches before the gap whose word is one of the block's
        while reach < int(previous_size[gap]) and sequence[p - 1 - reach] in block:
            reach += 1
        region = int(np.searchsorted(r_starts, gap_starts[gap], side="right")) - 1
        if region < 0 or gap_starts[gap] >= r_ends[region]:
            continue
        flagged[region] = True
        earlier = int(r_starts[region]) - (int(gap_starts[gap]) - reach)
        if earlier > 0:  # the matches taken in consume one word of each side apiece
            r_starts[region] -= earlier
            word_starts[0][region] -= earlier
            word_starts[1][region] -= earlier


def _shift_left(
    col_ref: np.ndarray,
    col_hyp: np.ndarray,
    ops: np.ndarray,
    words: _Words,
    starts: np.ndarray,
    excess: np.ndarray,
    gap_ref: np.ndarray,
    gap_hyp: np.ndarray,
    previous_size: np.ndarray,
) -> None:
    """Move each gap's leading deletions or insertions left past equal matched words, in place.

    ``C(x, x) I(x)`` and ``I(x) C(x, x)`` cost the same; sclite's traceback leaves the insertion (or
    deletion) as far left as it can go, so a block of them slides left over the matches before it
    while the word leaving the block's end equals the word entering at its start.
    """
    candidates = np.flatnonzero((excess != 0) & (previous_size > 0))
    if len(candidates) == 0:
        return
    deleting = excess[candidates] > 0
    length = np.abs(excess[candidates])
    position = np.where(deleting, gap_ref[candidates], gap_hyp[candidates])
    last = position + length - 1
    before = position - 1
    ref_check = candidates[deleting]
    hyp_check = candidates[~deleting]
    ok = np.zeros(len(candidates), bool)
    ok[deleting] = words.gather(words.ref, last[deleting]) == words.gather(words.ref, before[deleting])
    ok[~deleting] = words.gather(words.hyp, last[~deleting]) == words.gather(words.hyp, before[~deleting])
    del ref_check, hyp_check
    for k in np.flatnonzero(ok).tolist():
        block = int(candidates[k])
        sequence = words.ref if deleting[k] else words.hyp
        p, e, limit = int(position[k]), int(length[k]), int(previous_size[block])
        shift = 0
        while shift < limit and sequence[p + e - 1 - shift] == sequence[p - 1 - shift]:
            shift += 1
        start = int(starts[block]) - shift
        # The matched pairs before the block: reference and hypothesis positions of its first column.
        r0, h0 = int(col_ref[start]), int(col_hyp[start])
        if deleting[k]:
            col_ref[start : start + e] = np.arange(r0, r0 + e)
            col_hyp[start : start + e] = -1
            ops[start : start + e] = DELETION
            col_ref[start + e : start + e + shift] = np.arange(r0 + e, r0 + e + shift)
            col_hyp[start + e : start + e + shift] = np.arange(h0, h0 + shift)
        else:
            col_hyp[start : start + e] = np.arange(h0, h0 + e)
            col_ref[start : start + e] = -1
            ops[start : start + e] = INSERTION
            col_hyp[start + e : start + e + shift] = np.arange(h0 + e, h0 + e + shift)
            col_ref[start + e : start + e + shift] = np.arange(r0, r0 + shift)
        ops[start + e : start + e + shift] = CORRECT


class _Words:
    """The chunk's word ids as flat Python lists, gathered by global index only where needed."""

    def __init__(self, refs: Sequence[Sequence[int]], hyps: Sequence[Sequence[int]]) -> None:
        self.ref = list(chain.from_iterable(refs))
        self.hyp = list(chain.from_iterable(hyps))

    @staticmethod
    def gather(words: list[int], index: np.ndarray) -> np.ndarray:
        if len(index) == 0:
            return np.zeros(0, np.int64)
        if len(index) == 1:
            return np.array([words[int(index[0])]], np.int64)
        return np.fromiter(itemgetter(*index.tolist())(words), np.int64, len(index))


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of ``range(s, s + l)`` for every start and length, without a Python loop."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)[:-1])), lengths)
    return np.arange(total) + offsets


def _flag_block_regions(
    words: _Words,
    costs: Costs,
    ref_flags: np.ndarray | None,
    hyp_flags: np.ndarray | None,
    first: np.ndarray,
    size: np.ndarray,
    n_gap: np.ndarray,
    m_gap: np.ndarray,
    gap_ref: np.ndarray,
    gap_hyp: np.ndarray,
    column_start: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """The regions between anchors, and which the full programme must realign.

    Returns their column ranges ``[r_starts, r_ends)``, the flags, and their word ranges on each side
    ``[ref_from, ref_to)``, ``[hyp_from, hyp_to)``.

    Block ``k`` is preceded by its gap. A region starts at the gap of a document's first block or
    of a block that follows an anchor (a block of at least ``ANCHOR`` matches); it takes in the short
    blocks after its gaps and ends before the next anchor (or at the document's end).
    """
    n_blocks = len(size)
    if n_blocks == 0:
        empty = np.zeros(0, np.int64)
        return empty, empty, np.zeros(0, bool), empty, empty, empty, empty
    short = size < ANCHOR
    starts_region = first.copy()
    starts_region[1:] |= ~short[:-1]
    region = np.cumsum(starts_region) - 1
    n_regions = int(region[-1]) + 1
    inside_c = np.where(short, size, 0)  # a short block's matches lie inside its region
    wide = np.maximum(n_gap, m_gap)
    errors = np.bincount(region, weights=wide, minlength=n_regions)
    corrects = np.bincount(region, weights=inside_c, minlength=n_regions)
    head = np.flatnonzero(starts_region)
    tail = np.concatenate((head[1:], [n_blocks])) - 1
    r_starts = column_start[head]
    r_ends = column_start[tail] + wide[tail] + inside_c[tail]
    ref_from, ref_to = gap_ref[head], gap_ref[tail] + n_gap[tail] + inside_c[tail]
    hyp_from, hyp_to = gap_hyp[head], gap_hyp[tail] + m_gap[tail] + inside_c[tail]
    flagged = np.zeros(n_regions, bool)

    # (a) another choice of matches: more equal (reference, hypothesis) word pairs than matches.
    # A region of one column has none: its substitution pairs two different words.
    wide_regions = np.flatnonzero((errors > 0) & (errors + corrects > 1))
    if len(wide_regions):
        ref_lengths = ref_to[wide_regions] - ref_from[wide_regions]
        hyp_lengths = hyp_to[wide_regions] - hyp_from[wide_regions]
        ref_values = words.gather(words.ref, _ranges(ref_from[wide_regions], ref_lengths))
        hyp_values = words.gather(words.hyp, _ranges(hyp_from[wide_regions], hyp_lengths))
        width = int(max(ref_values.max(initial=0), hyp_values.max(initial=0))) + 1
        ref_keys, ref_counts = np.unique(
            np.repeat(wide_regions, ref_lengths) * width + ref_values, return_counts=True
        )
        hyp_keys, hyp_counts = np.unique(
            np.repeat(wide_regions, hyp_lengths) * width + hyp_values, return_counts=True
        )
        common, ri, hi = np.intersect1d(ref_keys, hyp_keys, assume_unique=True, return_indices=True)
        equal_pairs = np.bincount(
            common // width, weights=ref_counts[ri] * hyp_counts[hi], minlength=n_regions
        )
        flagged |= equal_pairs > corrects

    # (b) optional words change what is cheapest.
    for flags, lower, upper in ((ref_flags, ref_from, ref_to), (hyp_flags, hyp_from, hyp_to)):
        if flags is not None:
            prefix = np.concatenate(([0], np.cumsum(flags, dtype=np.int64)))
            flagged |= prefix[upper] - prefix[lower] > 0

    # (c) with phonetic costs, which words substitute for which matters once a region has two errors.
    if costs.substitution is not None:
        flagged |= errors >= 2
    flagged &= errors > 0
    return r_starts, r_ends, flagged, ref_from, ref_to, hyp_from, hyp_to


def _flags(optional: Sequence[Sequence[bool] | None] | None, lengths: np.ndarray) -> np.ndarray | None:
    """One flag per word of the concatenation (None: no word is optional)."""
    if optional is None or not any(o is not None and any(o) for o in optional):
        return None
    return np.fromiter(
        (
            f
            for o, n in zip(optional, lengths.tolist(), strict=True)
            for f in (o if o is not None else [False] * n)
        ),
        bool,
        int(lengths.sum()),
    )


def _fill_costs(
    result: BatchAlignment,
    words: _Words,
    costs: Costs,
    ref_flags: np.ndarray | None,
    hyp_flags: np.ndarray | None,
) -> None:
    ops = result.ops
    out = result.costs
    out[:] = 0.0
    deletions = np.flatnonzero(ops == DELETION)
    out[deletions] = costs.deletion
    if ref_flags is not None:
        out[deletions[ref_flags[result.ref[deletions]]]] = 0.0
    insertions = np.flatnonzero(ops == INSERTION)
    out[insertions] = costs.insertion
    if hyp_flags is not None:
        out[insertions[hyp_flags[result.hyp[insertions]]]] = 0.0
    subs = np.flatnonzero(ops == SUBSTITUTION)
    if costs.substitution is None:
        out[subs] = costs.flat_substitution
    else:
        cost = costs.substitution
        pairs = zip(
            words.gather(words.ref, result.ref[subs]).tolist(),
            words.gather(words.hyp, result.hyp[subs]).tolist(),
            strict=True,
        )
        out[subs] = [cost(r, h) for r, h in pairs]


def _splice(
    result: BatchAlignment,
    words: _Words,
    costs: Costs,
    ref_flags: np.ndarray | None,
    hyp_flags: np.ndarray | None,
    starts: np.ndarray,
    ends: np.ndarray,
    word_ranges: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> None:
    """Replace the columns ``[start, end)`` of every flagged region by the full programme's columns.

    The programme leaves a region's leading deletions or insertions as far left as the region
    goes; like sclite's, they may go further, over the matches before the region, while the word
    leaving the block equals the word entering it (the region then starts earlier).
    """
    doc_of = np.searchsorted(result.bounds, starts, side="right") - 1
    doc_starts = result.bounds[doc_of].tolist()
    local = Alignment()  # every region's new columns, global word indices, one after the other
    sizes = []
    new_starts = []
    ref_starts, ref_ends, hyp_starts, hyp_ends = (r.tolist() for r in word_ranges)
    ops = result.ops
    for k, start in enumerate(starts.tolist()):
        a, b, j1, j2 = ref_starts[k], ref_ends[k], hyp_starts[k], hyp_ends[k]
        refs, hyps, part_ops, part_costs = _align_linear(
            words.ref[a:b],
            words.hyp[j1:j2],
            costs,
            ref_flags[a:b].tolist() if ref_flags is not None else None,
            hyp_flags[j1:j2].tolist() if hyp_flags is not None else None,
        )
        refs = [r + a if r >= 0 else -1 for r in refs]
        hyps = [h + j1 if h >= 0 else -1 for h in hyps]
        shift = 0
        if part_ops and part_ops[0] in (DELETION, INSERTION):
            lead_op = part_ops[0]
            e = len(part_ops) - len(part_ops.lstrip(bytes([lead_op])))
            sequence, p = (words.ref, a) if lead_op == DELETION else (words.hyp, j1)
            while (
                start - 1 - shift >= doc_starts[k]
                and ops[start - 1 - shift] == CORRECT
                and sequence[p + e - 1 - shift] == sequence[p - 1 - shift]
            ):
                shift += 1
            if shift:
                lead_costs = part_costs[:e]
                if lead_op == DELETION:
                    lead = ([a - shift + t for t in range(e)], [-1] * e)
                    matched = (
                        [a - shift + e + t for t in range(shift)],
                        [j1 - shift + t for t in range(shift)],
                    )
                else:
                    lead = ([-1] * e, [j1 - shift + t for t in range(e)])
                    matched = (
                        [a - shift + t for t in range(shift)],
                        [j1 - shift + e + t for t in range(shift)],
                    )
                refs = lead[0] + matched[0] + refs[e:]
                hyps = lead[1] + matched[1] + hyps[e:]
                part_ops = bytes([lead_op]) * e + bytes([CORRECT]) * shift + part_ops[e:]
                part_costs = lead_costs + [0.0] * shift + part_costs[e:]
        local.ref.extend(refs)
        local.hyp.extend(hyps)
        local.ops.extend(part_ops)
        local.costs.extend(part_costs)
        sizes.append(len(part_ops))
        new_starts.append(start - shift)
    starts = np.asarray(new_starts, np.int64)
    new_sizes = np.asarray(sizes, np.int64)
    new_ref = np.frombuffer(local.ref, np.int64)
    new_hyp = np.frombuffer(local.hyp, np.int64)
    # Scatter: an old column outside the regions moves by the change in size of the regions before
    # it; a region's new columns start where the region started, moved the same way.
    keep = np.ones(len(result.ops), bool)
    keep[_ranges(starts, ends - starts)] = False
    delta = np.zeros(len(result.ops) + 1, np.int64)
    np.add.at(delta, ends, new_sizes - (ends - starts))
    shift = np.cumsum(delta, dtype=np.int64)
    kept = np.flatnonzero(keep)
    kept_at = kept + shift[kept]
    new_at = _ranges(starts + shift[starts], new_sizes)
    size = len(result.ops) + int(delta.sum())
    result.bounds = result.bounds + shift[result.bounds]
    for name, new, dtype in (
        ("ref", new_ref, np.int64),
        ("hyp", new_hyp, np.int64),
        ("ops", np.frombuffer(bytes(local.ops), np.uint8), np.uint8),
        ("costs", np.frombuffer(local.costs, np.float64), np.float64),
    ):
        merged = np.empty(size, dtype)
        merged[kept_at] = getattr(result, name)[kept]
        merged[new_at] = new
        setattr(result, name, merged)
