"""Interval machinery (``pipeline.core.spans``): hand cases, then random inputs against brute force.

The oracles below test every pair of intervals (and grow chunks by repeated merging): slow, obviously
right, small sizes only. Conventions under test: half-open intervals, touching intervals apart,
zero-length intervals overlapping nothing, documents never mixing.
"""

from __future__ import annotations

import numpy as np
import pytest
from iescore.pipeline.core.spans import (
    overlap_chunks,
    overlap_lengths,
    overlap_pairs,
    pair_lengths,
    union_lengths,
)


def _oracle_pairs(ld, ls, le, rd, rs, re):
    pairs = []
    for i in range(len(ld)):
        for j in range(len(rd)):
            shared = min(le[i], re[j]) - max(ls[i], rs[j])
            if ld[i] == rd[j] and shared > 0:
                pairs.append((i, j))
    return pairs


def _oracle_chunks(doc, start, end):
    """Chunk ids as a partition: union-find over every overlapping pair."""
    n = len(doc)
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for i, j in _oracle_pairs(doc, start, end, doc, start, end):
        parent[find(i)] = find(j)
    return [find(i) for i in range(n)]


def _same_partition(a, b):
    pairs_a = {(i, j) for i in range(len(a)) for j in range(len(a)) if a[i] == a[j]}
    pairs_b = {(i, j) for i in range(len(b)) for j in range(len(b)) if b[i] == b[j]}
    return pairs_a == pairs_b


def _random_side(rng, n, docs, width):
    doc = rng.choice(docs, size=n)
    start = rng.integers(0, width, size=n)
    length = rng.choice([0, 1, 1, 2, 3, 5, 8], size=n)
    return doc, start, start + length


def test_touching_intervals_do_not_overlap():
    left, right = overlap_pairs(["d"], [0], [5], ["d", "d"], [5, 2], [9, 5])
    # [0,5) and [5,9) only touch; [0,5) and [2,5) share 2,3,4.
    assert left.tolist() == [0] and right.tolist() == [1]


def test_zero_length_intervals_overlap_nothing():
    # [3,3) lies inside [0,10) but has no position to share; so does the pair of identical [4,4).
    left, right = overlap_pairs(["d", "d"], [3, 4], [3, 4], ["d", "d"], [0, 4], [10, 4])
    assert left.tolist() == [] and right.tolist() == []


def test_documents_never_mix():
    left, right = overlap_pairs(["a", "b"], [0, 0], [5, 5], ["b", "a", "c"], [1, 1, 1], [2, 2, 2])
    assert list(zip(left.tolist(), right.tolist(), strict=True)) == [(0, 1), (1, 0)]


def test_nested_and_equal_intervals():
    # left [0,10) holds right [2,3) and [0,10) and overlaps [9,12); left [2,3) lies in right [0,10).
    left, right = overlap_pairs([1, 1], [0, 2], [10, 3], [1, 1, 1], [2, 0, 9], [3, 10, 12])
    assert list(zip(left.tolist(), right.tolist(), strict=True)) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]


def test_empty_inputs():
    left, right = overlap_pairs([], [], [], ["d"], [0], [1])
    assert left.tolist() == [] and right.tolist() == []
    assert overlap_chunks([], [], []).tolist() == []


def test_bad_intervals_are_refused():
    with pytest.raises(ValueError, match="starts after it ends"):
        overlap_pairs(["d"], [5], [4], ["d"], [0], [1])
    with pytest.raises(ValueError, match="differ in length"):
        overlap_chunks(["d", "d"], [0], [1])


def test_chunks_by_hand():
    # doc a: [0,4) and [3,6) overlap (chunk 0); [3,3) is zero-length inside them, a chunk of its own
    # (numbered after the positive chunk open at its position); [6,8) touches [3,6): a new chunk;
    # doc b: [0,2) alone. Documents sort a < b.
    ids = overlap_chunks(["b", "a", "a", "a", "a"], [0, 0, 3, 3, 6], [2, 4, 3, 6, 8])
    assert ids.tolist() == [3, 0, 1, 0, 2]


def test_chunk_joins_through_a_chain():
    # [0,2) - [1,4) - [3,6): transitively one chunk although [0,2) and [3,6) are apart; [6,7) touches.
    ids = overlap_chunks([0, 0, 0, 0], [3, 0, 1, 6], [6, 2, 4, 7])
    assert ids.tolist() == [0, 0, 0, 1]


def test_chunk_ids_do_not_depend_on_input_order():
    rng = np.random.default_rng(7)
    doc, start, end = _random_side(rng, 60, ["x", "y"], 40)
    ids = overlap_chunks(doc, start, end)
    perm = rng.permutation(60)
    assert overlap_chunks(doc[perm], start[perm], end[perm]).tolist() == ids[perm].tolist()


def test_lengths_by_hand():
    # [0,10) and [5,15): overlap 5 positions, union 15; [0,2) and [4,6): overlap 0, union 2 + 2 = 4.
    assert overlap_lengths([0, 0], [10, 2], [5, 4], [15, 6]).tolist() == [5, 0]
    assert union_lengths([0, 0], [10, 2], [5, 4], [15, 6]).tolist() == [15, 4]
    overlap, union = pair_lengths([0, 7], [10, 9], [5], [15], [1, 0], [0, 0])
    assert overlap.tolist() == [2, 5] and union.tolist() == [10, 15]


def test_huge_offsets_and_many_documents_keep_order():
    # Offsets near 2**61 with many documents would overflow a naive (document, offset) key.
    base = 2**61
    left, right = overlap_pairs(
        np.arange(1000),
        np.full(1000, base),
        np.full(1000, base + 5),
        [999, 0],
        [base + 4, base - 9],
        [base + 6, base],
    )
    assert list(zip(left.tolist(), right.tolist(), strict=True)) == [(999, 0)]
    assert overlap_chunks([0, 0, 1], [base, base + 3, 0], [base + 4, base + 9, base]).tolist() == [0, 0, 1]


@pytest.mark.parametrize("seed", range(40))
def test_pairs_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, m = rng.integers(0, 30, size=2)
    docs = ["a", "b", "c"][: 1 + seed % 3]
    ld, ls, le = _random_side(rng, n, docs, 25)
    rd, rs, re = _random_side(rng, m, docs, 25)
    left, right = overlap_pairs(ld, ls, le, rd, rs, re)
    assert list(zip(left.tolist(), right.tolist(), strict=True)) == _oracle_pairs(ld, ls, le, rd, rs, re)
    overlap, union = pair_lengths(ls, le, rs, re, left, right)
    for k, (i, j) in enumerate(zip(left, right, strict=True)):
        covered_l = set(range(ls[i], le[i]))
        covered_r = set(range(rs[j], re[j]))
        assert overlap[k] == len(covered_l & covered_r) > 0
        assert union[k] == len(covered_l | covered_r)


@pytest.mark.parametrize("seed", range(40))
def test_chunks_match_brute_force(seed):
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(0, 40))
    doc, start, end = _random_side(rng, n, [0, 1][: 1 + seed % 2], 30)
    ids = overlap_chunks(doc, start, end)
    assert _same_partition(ids.tolist(), _oracle_chunks(doc, start, end))
    # Dense ids, numbered by the first position of each chunk in (document, start) order.
    assert sorted(set(ids.tolist())) == list(range(len(set(ids.tolist()))))
    firsts = {}
    for i in sorted(range(n), key=lambda i: (doc[i], start[i], start[i] == end[i])):
        firsts.setdefault(ids[i], (doc[i], start[i]))
    ordered = [firsts[c] for c in sorted(firsts)]
    assert ordered == sorted(ordered)
