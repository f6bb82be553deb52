"""The coreference measures from their definitions, one document at a time with exact fractions: the
oracle that ``score_batch`` (pipeline.coref.metrics) is checked against.

:func:`score_chains` enumerates what the product only counts (BLANC's and LEA's links, every cell of
MUC's partitions) and solves CEAF's assignment with :func:`max_weight_assignment` (Kuhn-Munkres on
exact fractions). :func:`agreed_counts` is what the hand-worked tests call: the oracle's counts of
one document, after checking that ``score_batch`` gives the same.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable, Sequence
from fractions import Fraction

import numpy as np
import pytest
from iescore.pipeline.coref import (
    METRICS,
    BatchScores,
    BlancCounts,
    Counts,
    MetricCounts,
    Number,
    score_batch,
)


def agreed_counts(
    key_chains: list[list[Hashable]], response_chains: list[list[Hashable]]
) -> dict[str, MetricCounts]:
    """:func:`score_chains` of one document, checked equal to ``score_batch``'s counts of it."""
    expected = score_chains(key_chains, response_chains)
    assert_same(batch_of([(key_chains, response_chains)]).document(0), expected)
    return expected


def batch_of(documents: Sequence[tuple[list[list[Hashable]], list[list[Hashable]]]]) -> BatchScores:
    """``score_batch`` of documents given as (key chains, response chains), every measure."""
    doc, key_chain, response_chain = [], [], []
    for number, (key, response) in enumerate(documents):
        key_of = {m: i for i, chain in enumerate(key) for m in chain}
        response_of = {m: i for i, chain in enumerate(response) for m in chain}
        for mention in sorted(set(key_of) | set(response_of)):
            doc.append(number)
            key_chain.append(key_of.get(mention, -1))
            response_chain.append(response_of.get(mention, -1))
    return score_batch(
        np.array(doc, dtype=np.int64),
        np.array(key_chain, dtype=np.int64),
        np.array(response_chain, dtype=np.int64),
        docs=len(documents),
        metrics=METRICS,
    )


def assert_same(batch_counts: dict[str, MetricCounts], oracle_counts: dict[str, MetricCounts]) -> None:
    """Equal denominators, numerators equal to 1e-9 (the product sums floats), for every measure."""
    assert set(batch_counts) == set(oracle_counts) == set(METRICS)
    for metric, oracle in oracle_counts.items():
        ours = batch_counts[metric]
        if isinstance(oracle, BlancCounts):
            assert isinstance(ours, BlancCounts)
            pairs = [(ours.coreference, oracle.coreference), (ours.non_coreference, oracle.non_coreference)]
        else:
            pairs = [(ours, oracle)]
        for a, b in pairs:
            assert a.recall_den == b.recall_den and a.precision_den == b.precision_den, metric
            assert a.recall_num == pytest.approx(float(b.recall_num), abs=1e-9), metric
            assert a.precision_num == pytest.approx(float(b.precision_num), abs=1e-9), metric


def score_chains(
    key_chains: Iterable[Iterable[Hashable]], response_chains: Iterable[Iterable[Hashable]]
) -> dict[str, MetricCounts]:
    """The per-document reference path: every measure from its definition, with exact fractions.

    Mentions are any hashable values; a mention in two chains of one side is a :class:`ValueError`.
    BLANC and LEA enumerate their links (quadratic in a document's mentions: for tests and checks).
    """
    key = [frozenset(c) for c in key_chains]
    response = [frozenset(c) for c in response_chains]
    key, response = [c for c in key if c], [c for c in response if c]
    key_of, response_of = _chain_index(key), _chain_index(response)

    def muc_side(chains: list[frozenset], other_of: dict) -> tuple[int, int]:
        num = den = 0
        for chain in chains:
            cells = {other_of[m] for m in chain if m in other_of}
            partition_size = len(cells) + sum(1 for m in chain if m not in other_of)
            num += len(chain) - partition_size
            den += len(chain) - 1
        return num, den

    def b3_side(chains: list[frozenset], others: list[frozenset], other_of: dict) -> Fraction:
        total = Fraction(0)
        for chain in chains:
            for m in chain:
                if m in other_of:
                    total += Fraction(len(chain & others[other_of[m]]), len(chain))
        return total

    def coreference_links(chains: list[frozenset]) -> set[frozenset]:
        return {frozenset(pair) for chain in chains for pair in itertools.combinations(chain, 2)}

    def non_coreference_links(chains: list[frozenset]) -> set[frozenset]:
        return {
            frozenset((a, b)) for one, other in itertools.combinations(chains, 2) for a in one for b in other
        }

    def lea_links(chain: frozenset) -> set[frozenset]:
        # a singleton's one link is its self-link (Moosavi and Strube 2016)
        return {chain} if len(chain) == 1 else {frozenset(p) for p in itertools.combinations(chain, 2)}

    def lea_side(chains: list[frozenset], others: list[frozenset]) -> Fraction:
        other_links = set().union(*(lea_links(c) for c in others))
        total = Fraction(0)
        for chain in chains:
            links = lea_links(chain)
            total += len(chain) * Fraction(len(links & other_links), len(links))
        return total

    muc_r, muc_rd = muc_side(key, response_of)
    muc_p, muc_pd = muc_side(response, key_of)
    similarity = [[Fraction(2 * len(k & r), len(k) + len(r)) for r in response] for k in key]
    ceaf = sum((similarity[i][j] for i, j in max_weight_assignment(similarity)), Fraction(0))
    common = [[len(k & r) for r in response] for k in key]
    ceafm = sum((common[i][j] for i, j in max_weight_assignment(common)), 0)
    key_mentions, response_mentions = sum(map(len, key)), sum(map(len, response))
    key_c, response_c = coreference_links(key), coreference_links(response)
    key_n, response_n = non_coreference_links(key), non_coreference_links(response)
    return {
        "muc": Counts(muc_r, muc_rd, muc_p, muc_pd),
        "b3": Counts(
            b3_side(key, response, response_of),
            key_mentions,
            b3_side(response, key, key_of),
            response_mentions,
        ),
        "ceafe": Counts(ceaf, len(key), ceaf, len(response)),
        "ceafm": Counts(ceafm, key_mentions, ceafm, response_mentions),
        "blanc": BlancCounts(
            Counts(len(key_c & response_c), len(key_c), len(key_c & response_c), len(response_c)),
            Counts(len(key_n & response_n), len(key_n), len(key_n & response_n), len(response_n)),
        ),
        "lea": Counts(lea_side(key, response), key_mentions, lea_side(response, key), response_mentions),
    }


def max_weight_assignment(weights: Sequence[Sequence[Number]]) -> list[tuple[int, int]]:
    """A one-to-one assignment of rows to columns with the largest total weight (Kuhn-Munkres).

    Works on rectangular matrices (the smaller side is assigned completely) and on exact fractions
    as well as floats. Returns (row, column) pairs sorted by row. O(n^2 m) for n <= m.
    """
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if rows == 0 or cols == 0:
        return []
    transposed = rows > cols
    if transposed:
        weights = [[weights[i][j] for i in range(rows)] for j in range(cols)]
        rows, cols = cols, rows
    # Shortest augmenting paths with potentials, minimising the negated weights (1-based arrays).
    u = [0] * (rows + 1)
    v = [0] * (cols + 1)
    owner = [0] * (cols + 1)  # owner[j] = row assigned to column j (0: none)
    way = [0] * (cols + 1)
    for i in range(1, rows + 1):
        owner[0] = i
        j0 = 0
        min_to = [None] * (cols + 1)
        used = [False] * (cols + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            row = weights[i0 - 1]
            delta = None
            j1 = 0
            for j in range(1, cols + 1):
                if not used[j]:
                    reduced = -row[j - 1] - u[i0] - v[j]
                    if min_to[j] is None or reduced < min_to[j]:
                        min_to[j] = reduced
                        way[j] = j0
                    if delta is None or min_to[j] < delta:
                        delta = min_to[j]
                        j1 = j
            for j in range(cols + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    min_to[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    pairs = [(owner[j] - 1, j - 1) for j in range(1, cols + 1) if owner[j]]
    if transposed:
        pairs = [(j, i) for i, j in pairs]
    return sorted(pairs)


def _chain_index(chains: list[frozenset]) -> dict[Hashable, int]:
    index: dict[Hashable, int] = {}
    for number, chain in enumerate(chains):
        for mention in chain:
            if mention in index:
                raise ValueError(f"mention {mention!r} is in two chains")
            index[mention] = number
    return index
