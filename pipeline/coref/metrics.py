"""Coreference measures: MUC (Vilain et al. 1995), B3, CEAF-e, CEAF-m, BLANC and LEA over chains.

Measures (all from exact numerators and denominators, summed over documents for the totals, i.e.
micro-averaged exactly as both reference scorers do):

- MUC: recall = sum(|K| - |p(K)|) / sum(|K| - 1), p(K) the partition of key chain K by the response
  chains, a key mention absent from the response being a singleton cell; precision symmetric.
- B3: recall = sum over key mentions m of |K(m) & R(m)| / |K(m)| over the number of key mentions
  (R(m) empty when m is not in the response); precision symmetric.
- CEAF-e: phi4(K, R) = 2 |K & R| / (|K| + |R|), the optimal one-to-one assignment of key to response
  chains (Kuhn-Munkres); recall = sum of phi4 / number of key chains,
  precision = sum / number of response chains.
- CEAF-m: the same with phi3(K, R) = |K & R| (its own optimal assignment); recall = sum of phi3 / number
  of key mentions, precision = sum / number of response mentions.
- BLANC (Recasens and Hovy 2011, for imperfect mentions as Luo et al. 2014 and the CoNLL scorer v8.01):
  the coreference links of a side are its pairs of mentions in one chain, its non-coreference links its
  pairs of mentions in two chains; per link type recall = common links / key links, precision = common
  links / response links (:class:`BlancCounts`). BLANC averages the two types' recalls, precisions and
  F's, over the types the key has links of: a key with no coreference link (all singletons) is scored
  on non-coreference links alone, a key with one chain on coreference links alone, and a key with no
  link at all (at most one mention) leaves BLANC undefined. The six link counts are sums over
  documents; BLANC is computed from the summed counts, as the reference scorer does.
- LEA (Moosavi and Strube 2016): recall = sum over key chains K of |K| * resolved(K) / links(K) over the
  number of key mentions, links(K) = |K| (|K| - 1) / 2 and resolved(K) the number of those links whose
  two mentions share a response chain; a singleton has one self-link, resolved when its mention is a
  singleton of the response too (the paper, and the reference scorer's LEA). Precision symmetric.

Singletons are kept on both sides in every measure, as the CoNLL reference scorer (v8) does and as
``expected.json`` implies: a singleton chain adds nothing to MUC's links but counts as a mention in B3
and as an entity in CEAF-e's denominators. A ratio with a zero denominator is undefined (``None``) by
default; with ``zero_division=0`` it is 0 (and F is computed from those zeros: 0), which is what the
reference scorers print (:func:`rates`).

:func:`score_batch` scores many documents at once with numpy from mention -> chain arrays, counting
links and partitions instead of listing them; :func:`score_documents` and :func:`scores_from_table`
apply it to aligned documents and to a mention table. The definitions themselves, one document at a
time with exact fractions, are the tests' oracle (``tests/coref/oracle_chains.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.coref.alignment import AlignedDocument, MentionTable, aligned_mentions

METRICS = ("muc", "b3", "ceafe", "ceafm", "blanc", "lea")  # every measure, in report order


DEFAULT_METRICS = ("muc", "b3", "ceafe")  # what the scoring functions compute unless asked for more


METRIC_NAMES = {
    "muc": "MUC",
    "b3": "B3",
    "ceafe": "CEAF-e",
    "ceafm": "CEAF-m",
    "blanc": "BLANC",
    "lea": "LEA",
}


ZERO_DIVISION = ("undefined", "0")  # a ratio x / 0 is None, or 0 as the reference scorers print it


Number = int | float | Fraction


@dataclass(frozen=True)
class Counts:
    """Numerators and denominators of recall and precision; sums of these are the micro-averages."""

    recall_num: Number
    recall_den: int
    precision_num: Number
    precision_den: int

    @property
    def recall(self) -> float | None:
        return None if self.recall_den == 0 else float(self.recall_num) / self.recall_den

    @property
    def precision(self) -> float | None:
        return None if self.precision_den == 0 else float(self.precision_num) / self.precision_den

    @property
    def f1(self) -> float | None:
        """Harmonic mean; undefined when recall or precision is, 0 when both are 0."""
        r, p = self.recall, self.precision
        if r is None or p is None:
            return None
        return 0.0 if r + p == 0 else 2 * r * p / (r + p)

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.recall_num + other.recall_num,
            self.recall_den + other.recall_den,
            self.precision_num + other.precision_num,
            self.precision_den + other.precision_den,
        )


ZERO = Counts(0, 0, 0, 0)


@dataclass(frozen=True)
class BlancCounts:
    """BLANC's link counts: for each link type, common links over key links and over response links.

    ``coreference.recall_num`` = ``coreference.precision_num`` = coreference links of both sides,
    ``recall_den`` the key's coreference links, ``precision_den`` the response's; the same for
    ``non_coreference``. Sums of these are the totals; the measures come from :func:`rates`.
    """

    coreference: Counts
    non_coreference: Counts

    @property
    def recall(self) -> float | None:
        return rates(self)[0]

    @property
    def precision(self) -> float | None:
        return rates(self)[1]

    @property
    def f1(self) -> float | None:
        return rates(self)[2]

    def __add__(self, other: BlancCounts) -> BlancCounts:
        return BlancCounts(self.coreference + other.coreference, self.non_coreference + other.non_coreference)


BLANC_ZERO = BlancCounts(ZERO, ZERO)


MetricCounts = Counts | BlancCounts


def rates(
    counts: MetricCounts, zero_division: str | int = "undefined"
) -> tuple[float | None, float | None, float | None]:
    """Recall, precision and F1 of a measure's counts.

    ``zero_division="undefined"`` (the default): a ratio with a zero denominator is ``None`` and so is
    F1 when recall or precision is; ``zero_division=0`` (or ``"0"``): such a ratio is 0 and F1 is 0
    when recall + precision is 0, the CoNLL reference scorer's convention (``ShowRPF``). BLANC (a
    :class:`BlancCounts`) averages each of the three over the link types the key has links of (see
    the module doc); with no key link at all it is undefined, or 0.
    """
    zero = zero_value(zero_division)
    if isinstance(counts, BlancCounts):
        types = [c for c in (counts.coreference, counts.non_coreference) if c.recall_den > 0]
        if not types:
            return zero, zero, zero
        values = [rates(c, zero_division) for c in types]
        return tuple(_mean([v[i] for v in values]) for i in range(3))  # type: ignore[return-value]
    recall = zero if counts.recall_den == 0 else float(counts.recall_num) / counts.recall_den
    precision = zero if counts.precision_den == 0 else float(counts.precision_num) / counts.precision_den
    if recall is None or precision is None:
        return recall, precision, None
    return (
        recall,
        precision,
        (0.0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)),
    )


def zero_counts(metric: str) -> MetricCounts:
    """The counts of a measure over no document (the start of a sum)."""
    return BLANC_ZERO if metric == "blanc" else ZERO


@dataclass(frozen=True)
class DocumentScores:
    doc_id: str
    key_classes: int
    response_classes: int
    scores: dict[str, MetricCounts]


@dataclass(frozen=True)
class CorefScores:
    """Per-document counts and their sums (the totals) for every measure."""

    documents: list[DocumentScores]
    totals: dict[str, MetricCounts]
    key_classes: int
    response_classes: int
    duplicates: int = 0
    differing_words: int = 0
    first_differing_word: str = ""


@dataclass
class BatchScores:
    """Per-document numerator/denominator arrays for each measure (index = document number).

    Four arrays a measure (recall numerator and denominator, precision numerator and denominator);
    eight for BLANC (those of the coreference links, then those of the non-coreference links).
    """

    arrays: dict[str, tuple[np.ndarray, ...]] = field(default_factory=dict)

    def document(self, index: int) -> dict[str, MetricCounts]:
        return {metric: _counts_of([a[index] for a in arrays]) for metric, arrays in self.arrays.items()}

    def totals(self) -> dict[str, MetricCounts]:
        return {metric: _counts_of([a.sum() for a in arrays]) for metric, arrays in self.arrays.items()}


def scores_from_table(
    table: pd.DataFrame, duplicates: int = 0, metrics: Iterable[str] = DEFAULT_METRICS
) -> CorefScores:
    """:func:`score_documents` from a :func:`mention_table` (the coreference stage's artifact).

    A document's key classes are the chains of its scored key mentions; its response classes the
    chains of its response mentions.
    """
    ordered = table.sort_values("doc", kind="stable")
    doc_ids = list(dict.fromkeys(zip(ordered["doc"].tolist(), ordered["doc_id"].tolist(), strict=True)))
    scored = table[table["scored"]]
    batch = score_batch(
        scored["doc"].to_numpy(),
        scored["key_chain"].to_numpy(),
        scored["response_chain"].to_numpy(),
        docs=(max(d for d, _ in doc_ids) + 1) if doc_ids else 0,
        metrics=metrics,
        response_mention=_extent_names(scored),
    )
    key_rows = scored[scored["key_mention"] >= 0]
    key_classes = key_rows.groupby("doc")["key_chain"].nunique().to_dict()
    response_rows = table[table["response_mention"] >= 0]
    response_classes = response_rows.groupby("doc")["response_chain"].nunique().to_dict()
    documents = [
        DocumentScores(doc_id, int(key_classes.get(number, 0)), int(response_classes.get(number, 0)),
                       batch.document(number))
        for number, doc_id in doc_ids
    ]  # fmt: skip
    return _summed(documents, batch.arrays, duplicates)


def score_mentions(mentions: MentionTable, metrics: Iterable[str] = DEFAULT_METRICS) -> CorefScores:
    """Score a key and a response from their :class:`~pipeline.coref.alignment.MentionTable` with
    :func:`score_batch`; totals are sums of the per-document counts."""
    table = mentions.table
    scored = table["scored"].to_numpy().astype(bool)
    if not scored.all():  # optional key mentions the response left out are not scored
        table = table[scored]
    batch = score_batch(
        table["doc"].to_numpy(),
        table["key_chain"].to_numpy(),
        table["response_chain"].to_numpy(),
        docs=len(mentions.doc_ids),
        metrics=metrics,
        response_mention=_extent_names(table),
    )
    documents = [
        DocumentScores(
            doc_id, int(mentions.key_chains[n]), int(mentions.response_chains[n]), batch.document(n)
        )
        for n, doc_id in enumerate(mentions.doc_ids)
    ]
    return _summed(
        documents, batch.arrays, mentions.duplicates, mentions.differing_words, mentions.first_differing_word
    )


def _extent_names(table: pd.DataFrame) -> np.ndarray:
    """Each row's extent as one number: copies of a response mention share it (:func:`score_batch`)."""
    start, end = table["start"].to_numpy().astype(np.int64), table["end"].to_numpy().astype(np.int64)
    return start * (int(end.max(initial=0)) + 1) + end


def _summed(
    documents: list[DocumentScores],
    metrics: Iterable[str],
    duplicates: int,
    differing_words: int = 0,
    first_differing_word: str = "",
) -> CorefScores:
    """The scores of ``documents`` with their totals: every measure's counts and the chain counts summed."""
    totals = {metric: sum_counts(metric, (d.scores[metric] for d in documents)) for metric in metrics}
    return CorefScores(
        documents,
        totals,
        sum(d.key_classes for d in documents),
        sum(d.response_classes for d in documents),
        duplicates,
        differing_words,
        first_differing_word,
    )


def score_documents(
    aligned: Sequence[AlignedDocument], metrics: Iterable[str] = DEFAULT_METRICS
) -> CorefScores:
    """:func:`score_mentions` of aligned documents."""
    return score_mentions(aligned_mentions(aligned), metrics)


def score_batch(
    doc: np.ndarray,
    key_chain: np.ndarray,
    response_chain: np.ndarray,
    docs: int | None = None,
    metrics: Iterable[str] = DEFAULT_METRICS,
    response_mention: np.ndarray | None = None,
) -> BatchScores:
    """Score many documents at once from one row per mention (of either side).

    ``doc`` numbers the documents from 0; ``key_chain`` and ``response_chain`` give each mention's chain
    within its document and side, -1 when the mention is not on that side. Rows may come in any order.
    ``response_mention`` (optional) names each response mention within its document (its extent's
    code): rows with the same name are copies of one mention, which the response wrote twice and
    :mod:`pipeline.coref.pairing` kept. Every measure counts each copy as a mention of its own but
    BLANC, whose links join mentions (the CoNLL scorer's sets of links): two copies make one mention,
    and two copies in one chain (or in two) a coreference (non-coreference) link of that mention with
    itself.
    MUC, B3, BLANC and LEA are pure counting (sorting the (key chain, response chain) pairs: no link is
    enumerated); CEAF-e and CEAF-m solve the assignment per connected component of the chain-overlap
    graph, directly when one side of the component has one chain, with
    ``scipy.optimize.linear_sum_assignment`` otherwise.
    """
    metrics = tuple(metrics)
    for metric in metrics:
        if metric not in METRICS:
            raise ValueError(f"unknown coreference measure {metric!r}")
    doc = np.asarray(doc, dtype=np.int64)
    key_chain = np.asarray(key_chain, dtype=np.int64)
    response_chain = np.asarray(response_chain, dtype=np.int64)
    n_docs = int(docs if docs is not None else (doc.max() + 1 if doc.size else 0))
    in_key, in_rsp = key_chain >= 0, response_chain >= 0

    # Global chain numbers: dense over (document, chain) on each side.
    k_code, k_doc = _global_chains(doc[in_key], key_chain[in_key])
    r_code, r_doc = _global_chains(doc[in_rsp], response_chain[in_rsp])
    k_size = np.bincount(k_code, minlength=len(k_doc))
    r_size = np.bincount(r_code, minlength=len(r_doc))
    k_mentions = np.bincount(doc[in_key], minlength=n_docs)
    r_mentions = np.bincount(doc[in_rsp], minlength=n_docs)
    k_chains = np.bincount(k_doc, minlength=n_docs)
    r_chains = np.bincount(r_doc, minlength=n_docs)

    # Mentions on both sides: count each (key chain, response chain) pair once.
    both = in_key & in_rsp
    k_of_both = np.full(len(doc), -1, dtype=np.int64)
    k_of_both[in_key] = k_code
    r_of_both = np.full(len(doc), -1, dtype=np.int64)
    r_of_both[in_rsp] = r_code
    pair_code = k_of_both[both] * max(len(r_doc), 1) + r_of_both[both]
    pairs, overlap = np.unique(pair_code, return_counts=True)
    pair_k = pairs // max(len(r_doc), 1)
    pair_r = pairs % max(len(r_doc), 1)
    pair_doc = k_doc[pair_k]

    result = BatchScores()
    if "muc" in metrics:
        # sum over pairs of (n_kr - 1) = |K| - |p(K)| summed over key chains, and the same for R.
        correct = np.bincount(pair_doc, weights=overlap - 1, minlength=n_docs)
        result.arrays["muc"] = (correct, k_mentions - k_chains, correct.copy(), r_mentions - r_chains)
    if "b3" in metrics:
        square = overlap.astype(np.float64) ** 2
        recall = np.bincount(pair_doc, weights=square / k_size[pair_k], minlength=n_docs)
        precision = np.bincount(pair_doc, weights=square / r_size[pair_r], minlength=n_docs)
        result.arrays["b3"] = (recall, k_mentions.copy(), precision, r_mentions.copy())
    if "ceafe" in metrics:
        phi = 2.0 * overlap / (k_size[pair_k] + r_size[pair_r])
        total = _ceaf_total(pair_k, pair_r, phi, pair_doc, len(k_doc), n_docs)
        result.arrays["ceafe"] = (total, k_chains.copy(), total.copy(), r_chains.copy())
    if "ceafm" in metrics:
        total = _ceaf_total(pair_k, pair_r, overlap.astype(np.float64), pair_doc, len(k_doc), n_docs)
        result.arrays["ceafm"] = (total, k_mentions.copy(), total.copy(), r_mentions.copy())
    if "blanc" in metrics:
        # Links counted, never listed: a side's coreference links are sum C(|chain|, 2), its
        # non-coreference links C(mentions, 2) minus those. Common coreference links: sum over the
        # (key chain, response chain) pairs of C(n_kr, 2). Common non-coreference links: pairs of
        # mentions on both sides, minus those sharing a key chain or a response chain (inclusion-
        # exclusion: those sharing both are the common coreference links).
        key_c = _sum_by(k_doc, _pairs_of(k_size), n_docs)
        rsp_c = _sum_by(r_doc, _pairs_of(r_size), n_docs)
        common_c = _sum_by(pair_doc, _pairs_of(overlap), n_docs)
        key_n = _pairs_of(k_mentions) - key_c
        rsp_n = _pairs_of(r_mentions) - rsp_c
        if response_mention is not None:
            named = np.asarray(response_mention, dtype=np.int64)[in_rsp]
            rsp_c, rsp_n = _links_with_copies(doc[in_rsp], r_code, named, n_docs, rsp_c, rsp_n)
        shared_k = _sum_by(k_doc, _pairs_of(np.bincount(pair_k, overlap, len(k_doc))), n_docs)
        shared_r = _sum_by(r_doc, _pairs_of(np.bincount(pair_r, overlap, len(r_doc))), n_docs)
        common_n = _pairs_of(np.bincount(doc[both], minlength=n_docs)) - shared_k - shared_r + common_c
        result.arrays["blanc"] = (
            common_c,
            key_c,
            common_c.copy(),
            rsp_c,
            common_n,
            key_n,
            common_n.copy(),
            rsp_n,
        )
    if "lea" in metrics:
        # A chain of n > 1 mentions has C(n, 2) links; the pair (K, R) resolves C(n_kr, 2) of K's. A
        # singleton's self-link is resolved when its one pair is with a singleton of the other side.
        # Each chain adds (resolved / links) * n, chains in order, as the reference adds them (the
        # same floating-point sums, so the same printed digits).
        ks, rs = k_size[pair_k], r_size[pair_r]
        resolved = _pairs_of(overlap).astype(np.float64)
        k_resolved = np.bincount(pair_k, np.where(ks == 1, rs == 1, resolved), len(k_doc))
        r_resolved = np.bincount(pair_r, np.where(rs == 1, ks == 1, resolved), len(r_doc))
        k_score = k_resolved / np.maximum(_pairs_of(k_size), 1) * k_size
        r_score = r_resolved / np.maximum(_pairs_of(r_size), 1) * r_size
        result.arrays["lea"] = (
            np.bincount(k_doc, weights=k_score, minlength=n_docs),
            k_mentions.copy(),
            np.bincount(r_doc, weights=r_score, minlength=n_docs),
            r_mentions.copy(),
        )
    return result


def _links_with_copies(
    doc: np.ndarray,
    chain: np.ndarray,
    named: np.ndarray,
    n_docs: int,
    coref: np.ndarray,
    non_coref: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The response's coreference and non-coreference link counts when mentions are named (copies
    share a name), as sets of pairs of names (see :func:`score_batch`); the documents without copies
    keep the counts given. ``chain`` is global (dense over documents)."""
    width = int(named.max(initial=0)) + 1
    name = doc * width + named  # global name
    if len(np.unique(name)) == len(name):
        return coref, non_coref
    triple, multiplicity = np.unique(np.stack([name, chain], axis=1), axis=0, return_counts=True)
    t_name, t_chain = triple[:, 0], triple[:, 1]
    t_doc = t_name // width
    names, chains_of_name = np.unique(t_name, return_counts=True)
    n_doc = names // width
    distinct = np.bincount(n_doc, minlength=n_docs)  # D: mentions, copies as one
    in_chain = np.bincount(t_chain, minlength=int(chain.max(initial=0)) + 1)  # d_c
    c_doc = np.zeros(len(in_chain), dtype=np.int64)
    c_doc[t_chain] = t_doc
    only = chains_of_name[np.searchsorted(names, t_name)] == 1  # the name's only chain is this one
    alone = np.bincount(t_chain[only], minlength=len(in_chain))  # s_c
    self_coref = np.bincount(np.unique(t_name[multiplicity > 1]) // width, minlength=n_docs)
    multi = names[chains_of_name > 1]
    # Pairs of names sharing k > 1 chains were counted k times in sum C(d_c, 2): only names in several
    # chains can, and only copies put a name in several chains (a handful).
    shared_more = np.zeros(n_docs, dtype=np.int64)
    chains_by_name = {int(n): set(t_chain[t_name == n].tolist()) for n in multi.tolist()}
    listed = sorted(chains_by_name)
    for i, a in enumerate(listed):
        for b in listed[i + 1 :]:
            if a // width == b // width:
                shared_more[a // width] += max(len(chains_by_name[a] & chains_by_name[b]) - 1, 0)
    # Without copies these are the counts given: C(n, 2) - sum C(n_c, 2) and sum C(n_c, 2).
    coref = _sum_by(c_doc, _pairs_of(in_chain), n_docs) - shared_more + self_coref
    non_coref = (
        _pairs_of(distinct)
        - _sum_by(c_doc, _pairs_of(alone), n_docs)
        + np.bincount(multi // width, minlength=n_docs)
    )
    return coref, non_coref


def _global_chains(doc: np.ndarray, chain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense numbers for (document, chain) pairs, and the document of each number."""
    if doc.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    width = int(chain.max()) + 1
    combined = doc * width + chain
    unique, code = np.unique(combined, return_inverse=True)
    return code.reshape(-1), unique // width


def _ceaf_total(
    pair_k: np.ndarray, pair_r: np.ndarray, phi: np.ndarray, pair_doc: np.ndarray, n_key: int, n_docs: int
) -> np.ndarray:
    """Sum per document of phi4 over the optimal assignment, component by component."""
    total = np.zeros(n_docs, dtype=np.float64)
    if phi.size == 0:
        return total
    # Connected components of the overlap graph (key chains 0..n_key-1, response chains after them) by
    # label propagation with pointer jumping; components are small and shallow in practice.
    a, b = pair_k, pair_r + n_key
    label = np.arange(n_key + int(pair_r.max()) + 1, dtype=np.int64)
    while True:
        low = np.minimum(label[a], label[b])
        before = label.copy()
        np.minimum.at(label, a, low)
        np.minimum.at(label, b, low)
        label = label[label]
        if np.array_equal(label, before):
            break
    component = label[a]
    order = np.argsort(component, kind="stable")
    component, a, b, phi, pair_doc = component[order], a[order], b[order], phi[order], pair_doc[order]
    starts = np.flatnonzero(np.r_[True, component[1:] != component[:-1]])
    ends = np.r_[starts[1:], len(component)]
    # Components with one key chain or one response chain: the best pair is the assignment.
    group = np.repeat(np.arange(len(starts)), ends - starts)
    best = np.maximum.reduceat(phi, starts)
    row = _rank_in_group(group, a)
    col = _rank_in_group(group, b)
    rows = np.maximum.reduceat(row, starts) + 1
    cols = np.maximum.reduceat(col, starts) + 1
    simple = (rows == 1) | (cols == 1)
    value = np.where(simple, best, 0.0)
    # The others: scipy's Hungarian algorithm on the component's small dense matrix; the assigned
    # weights are summed in row order, as the per-document path sums them.
    from scipy.optimize import linear_sum_assignment  # imported here: only tangled responses need it

    for g in np.flatnonzero(~simple).tolist():
        matrix = np.zeros((int(rows[g]), int(cols[g])))
        inside = slice(int(starts[g]), int(ends[g]))
        matrix[row[inside], col[inside]] = phi[inside]
        assigned_rows, assigned_cols = linear_sum_assignment(matrix, maximize=True)
        value[g] = sum(matrix[assigned_rows, assigned_cols].tolist())
    np.add.at(total, pair_doc[starts], value)
    return total


def _pairs_of(n: np.ndarray) -> np.ndarray:
    """n (n - 1) / 2, elementwise, as integers."""
    n = np.asarray(n, dtype=np.int64)
    return n * (n - 1) // 2


def _sum_by(index: np.ndarray, values: np.ndarray, length: int) -> np.ndarray:
    """Integer sums of ``values`` grouped by ``index`` (0 .. length - 1)."""
    total = np.zeros(length, dtype=np.int64)
    np.add.at(total, index, np.asarray(values, dtype=np.int64))
    return total


def _counts_of(values: Sequence[Any]) -> MetricCounts:
    def counts(rn: Any, rd: Any, pn: Any, pd_: Any) -> Counts:
        return Counts(float(rn), int(rd), float(pn), int(pd_))

    if len(values) == 8:
        return BlancCounts(counts(*values[:4]), counts(*values[4:]))
    return counts(*values)


def sum_counts(metric: str, counts: Iterable[MetricCounts]) -> MetricCounts:
    total = zero_counts(metric)
    for c in counts:
        total = total + c
    return total


def zero_value(zero_division: str | int) -> float | None:
    if str(zero_division) not in ZERO_DIVISION:
        raise ValueError(f"zero_division must be one of {ZERO_DIVISION}, not {zero_division!r}")
    return None if str(zero_division) == "undefined" else 0.0


def _mean(values: Sequence[float | None]) -> float | None:
    return None if any(v is None for v in values) else sum(values) / len(values)  # type: ignore[arg-type]


def _rank_in_group(group: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each element, the rank of its value among the distinct values of its group (0, 1, ...)."""
    order = np.lexsort((values, group))
    v, g = values[order], group[order]
    new_value = np.r_[True, (v[1:] != v[:-1]) | (g[1:] != g[:-1])]
    new_group = np.r_[True, g[1:] != g[:-1]]
    running = np.cumsum(new_value) - 1
    at_group_start = np.maximum.accumulate(np.where(new_group, running, 0))
    rank = np.empty_like(running)
    rank[order] = running - at_group_start
    return rank
