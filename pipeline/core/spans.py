"""Intervals of text: which overlap, which form chunks, how long their overlaps and unions are.

Every span scorer (MAT's tag-level pairing, CLEF's mention matching) asks the same questions of many
character intervals at once: which pairs of a reference span and a hypothesis span overlap, which spans
hang together through a chain of overlaps, and how much two spans share. This module answers them with
sorts and searches over whole columns (numpy), never with a loop over all pairs: the work grows with the
number of spans plus the number of overlapping pairs found, whatever the documents look like.

Conventions, the same in every function:

- an interval is half-open, ``[start, end)``, in integer positions (characters), ``start <= end``;
- two intervals *overlap* when they share at least one position: ``max(starts) < min(ends)``. Intervals
  that only touch (``end == start``) do not overlap, and a zero-length interval (``start == end``)
  overlaps nothing, not even an interval around it;
- intervals overlap only within one document; a document is any hashable key (str or int), given as
  one array per side, aligned with the offsets.

Results never depend on the order of the input beyond the indices they return: pairs come back sorted
by (left index, right index), chunks are numbered by their position in the documents.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
ArrayLike = npt.ArrayLike

__all__ = [
    "overlap_pairs",
    "overlap_chunks",
    "overlap_lengths",
    "union_lengths",
    "pair_lengths",
]


def overlap_pairs(
    left_doc: ArrayLike,
    left_start: ArrayLike,
    left_end: ArrayLike,
    right_doc: ArrayLike,
    right_start: ArrayLike,
    right_end: ArrayLike,
) -> tuple[IntArray, IntArray]:
    """Every (left, right) pair of intervals of one document that share at least one position.

    Returns two aligned int64 arrays of indices into the left and right inputs, sorted by left index,
    then right index. Touching intervals and zero-length intervals pair with nothing (see the module's
    conventions). ``ValueError`` when the arrays of one side differ in length or a start exceeds its end.

    Two intervals of positive length overlap exactly when one's start lies inside the other (the right
    start in ``[left.start, left.end)``, or the left start in ``(right.start, right.end)``; the two cases
    are disjoint). Each case is one range query per interval on the other side sorted by (document,
    start), answered with ``searchsorted`` and expanded with ``np.repeat``: O((n + m + pairs) log(n + m)).
    """
    l_doc, r_doc = _document_codes(left_doc, right_doc)
    l_start, l_end = _offsets(left_start, left_end, len(l_doc), "left")
    r_start, r_end = _offsets(right_start, right_end, len(r_doc), "right")
    _, l_start_key, l_end_key, r_start_key, r_end_key = _keys(
        (l_doc, l_start, l_end), (r_doc, r_start, r_end)
    )
    l_live = np.flatnonzero(l_start < l_end)
    r_live = np.flatnonzero(r_start < r_end)

    # Both sides sorted by (document, start); queries go in that order too (searchsorted is much faster
    # on sorted needles: each search starts near the previous one). Intervals usually come in reading
    # order, nearly sorted already: a stable sort (a merge of the sorted runs) is then about linear.
    r_order = r_live[np.argsort(r_start_key[r_live], kind="stable")]
    l_order = l_live[np.argsort(l_start_key[l_live], kind="stable")]
    r_sorted = r_start_key[r_order]
    l_sorted = l_start_key[l_order]

    # Case 1: the right start lies in [left.start, left.end).
    lo = np.searchsorted(r_sorted, l_sorted, side="left")
    hi = np.searchsorted(r_sorted, l_end_key[l_order], side="left")
    left_1, pos_1 = _expand(l_order, lo, hi)
    right_1 = r_order[pos_1]

    # Case 2: the left start lies in (right.start, right.end).
    lo = np.searchsorted(l_sorted, r_sorted, side="right")
    hi = np.searchsorted(l_sorted, r_end_key[r_order], side="left")
    right_2, pos_2 = _expand(r_order, lo, hi)
    left_2 = l_order[pos_2]

    left = np.concatenate([left_1, left_2])
    right = np.concatenate([right_1, right_2])
    # One int64 key (left, right) sorts faster than a lexsort of two columns; each case's pairs come
    # in runs already sorted, which a stable sort merges.
    order = np.argsort(left * max(len(r_doc), 1) + right, kind="stable")
    return left[order], right[order]


def overlap_chunks(doc: ArrayLike, start: ArrayLike, end: ArrayLike) -> IntArray:
    """The chunk of every interval: intervals joined by a chain of overlaps share a chunk id.

    Pass the intervals of both sides of a comparison together to get MAT's chunks (issue 12, point 3).
    Chunk ids are dense, 0 .. C-1, numbered in order of (document, first start) of the chunk, documents in
    sorted order of their keys. A zero-length interval overlaps nothing and is a chunk of its own, numbered
    where its position falls (after positive-length intervals with the same start); it does not split a
    chunk that surrounds it. One sort and a running maximum of ends: O(n log n).
    """
    (codes,) = _document_codes(doc)
    starts, ends = _offsets(start, end, len(codes), "")
    n = len(codes)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    _, start_key, end_key = _keys((codes, starts, ends))
    empty = starts == ends
    # Sort by (document, start), positive-length intervals before zero-length ones at the same start,
    # then by index, so that the numbering is a function of the positions alone.
    order = np.lexsort((np.arange(n), empty, start_key))
    sorted_start = start_key[order]
    sorted_end = end_key[order]
    sorted_empty = empty[order]
    # Only positive-length intervals extend a chunk: a zero-length one contributes no end.
    reach = np.where(sorted_empty, np.iinfo(np.int64).min, sorted_end)
    running = np.maximum.accumulate(reach)
    previous_reach = np.concatenate([[np.iinfo(np.int64).min], running[:-1]])
    # Keys put documents apart (see _keys), so a new document always opens a new chunk; a zero-length
    # interval always opens (and closes) its own.
    opens = sorted_empty | (sorted_start >= previous_reach)
    opened = np.cumsum(opens) - 1  # the id a chunk gets where it opens
    # A positive-length interval that opens nothing belongs to the last chunk a positive-length interval
    # opened (a zero-length interval inside a chunk does not split it).
    last_positive = np.maximum.accumulate(np.where(opens & ~sorted_empty, opened, -1))
    sorted_ids = np.where(sorted_empty, opened, last_positive)
    ids = np.empty(n, dtype=np.int64)
    ids[order] = sorted_ids
    return ids


def overlap_lengths(
    left_start: ArrayLike, left_end: ArrayLike, right_start: ArrayLike, right_end: ArrayLike
) -> IntArray:
    """The number of positions two aligned arrays of intervals share, element by element (0 when apart)."""
    ls, le, rs, re = (np.asarray(a, dtype=np.int64) for a in (left_start, left_end, right_start, right_end))
    return np.maximum(np.minimum(le, re) - np.maximum(ls, rs), 0)


def union_lengths(
    left_start: ArrayLike, left_end: ArrayLike, right_start: ArrayLike, right_end: ArrayLike
) -> IntArray:
    """The number of positions covered by either interval, element by element (the sum of the lengths
    minus the overlap; for intervals apart, the sum of their lengths, not the hull)."""
    ls, le, rs, re = (np.asarray(a, dtype=np.int64) for a in (left_start, left_end, right_start, right_end))
    return (le - ls) + (re - rs) - overlap_lengths(ls, le, rs, re)


def pair_lengths(
    left_start: ArrayLike,
    left_end: ArrayLike,
    right_start: ArrayLike,
    right_end: ArrayLike,
    left_index: ArrayLike,
    right_index: ArrayLike,
) -> tuple[IntArray, IntArray]:
    """Overlap and union lengths of the pairs ``(left_index[k], right_index[k])``, e.g. those returned
    by :func:`overlap_pairs`."""
    li = np.asarray(left_index, dtype=np.int64)
    ri = np.asarray(right_index, dtype=np.int64)
    ls = np.asarray(left_start, dtype=np.int64)[li]
    le = np.asarray(left_end, dtype=np.int64)[li]
    rs = np.asarray(right_start, dtype=np.int64)[ri]
    re = np.asarray(right_end, dtype=np.int64)[ri]
    return overlap_lengths(ls, le, rs, re), union_lengths(ls, le, rs, re)


# --- helpers ---------------------------------------------------------------------------------------


def _document_codes(*docs: ArrayLike) -> tuple[IntArray, ...]:
    """Dense integer codes for document keys, shared by all the given arrays (sorted key order)."""
    arrays = [np.asarray(d) for d in docs]
    sizes = [len(a) for a in arrays]
    if sum(sizes) == 0:
        return tuple(np.zeros(0, dtype=np.int64) for _ in arrays)
    if all(a.dtype.kind in "iu" for a in arrays):
        present = [a for a in arrays if len(a)]
        low, high = min(int(a.min()) for a in present), max(int(a.max()) for a in present)
        if high - low <= sum(sizes):  # already dense enough (e.g. factorized codes): keep the order
            return tuple(a.astype(np.int64) - low if low else a.astype(np.int64, copy=False) for a in arrays)
        import pandas as pd  # here only: dense integer codes (CLEF's) need no pandas at all

        codes, _ = pd.factorize(np.concatenate(arrays).astype(np.int64), sort=True)
        inverse = np.asarray(codes, dtype=np.int64)
    else:
        import pandas as pd

        together = np.concatenate([a.astype(object) for a in arrays])
        codes, _ = pd.factorize(pd.Series(together).astype(str), sort=True)
        inverse = np.asarray(codes, dtype=np.int64)
    bounds = np.cumsum([0, *sizes])
    return tuple(inverse[bounds[i] : bounds[i + 1]] for i in range(len(arrays)))


def _offsets(start: ArrayLike, end: ArrayLike, n: int, side: str) -> tuple[IntArray, IntArray]:
    starts = np.asarray(start, dtype=np.int64).reshape(-1)
    ends = np.asarray(end, dtype=np.int64).reshape(-1)
    label = f"{side} " if side else ""
    if len(starts) != n or len(ends) != n:
        raise ValueError(
            f"{label}documents, starts and ends differ in length ({n}, {len(starts)}, {len(ends)})"
        )
    bad = np.flatnonzero(starts > ends)
    if len(bad):
        i = int(bad[0])
        raise ValueError(f"{label}interval {i} starts after it ends ({starts[i]} > {ends[i]})")
    return starts, ends


def _keys(*sides: tuple[IntArray, IntArray, IntArray]) -> tuple[Any, ...]:
    """One int64 sort key per offset that orders by (document, offset) and keeps documents apart.

    ``key = document * scale + (offset - lowest)``, with ``scale`` above the largest offset span, so a
    range query on keys never crosses into another document. Where that would overflow int64, offsets
    are first replaced by their ranks among all offsets (same order, same ties), which bounds ``scale``
    by the number of intervals.
    """
    present = [a for _, s, e in sides for a in (s, e) if len(a)]
    n_docs = 1 + max((int(d.max()) for d, _, _ in sides if len(d)), default=0)
    if not present:
        return (1, *(a for _, s, e in sides for a in (s, e)))
    lowest, highest = min(int(a.min()) for a in present), max(int(a.max()) for a in present)
    scale = highest - lowest + 2
    out: list[Any] = [scale]
    if n_docs * scale < 2**62:
        for doc, s, e in sides:  # key = document * scale - lowest + offset: one base per side
            base = doc.astype(np.int64) * scale
            base -= lowest
            out += [base + s, base + e]
        return tuple(out)
    distinct = np.unique(np.concatenate(present))
    scale = len(distinct) + 1
    out = [scale]
    for doc, s, e in sides:
        base = doc.astype(np.int64) * scale
        out += [base + np.searchsorted(distinct, s), base + np.searchsorted(distinct, e)]
    return tuple(out)


def _expand(owner: IntArray, lo: IntArray, hi: IntArray) -> tuple[IntArray, IntArray]:
    """Expand ranges ``[lo[k], hi[k])`` belonging to ``owner[k]`` into (owner, position) rows."""
    counts = np.maximum(hi - lo, 0)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    owners = np.repeat(owner, counts)
    firsts = np.cumsum(counts) - counts
    positions = np.arange(total, dtype=np.int64) - np.repeat(firsts - lo, counts)
    return owners.astype(np.int64), positions
