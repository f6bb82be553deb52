"""trec_eval's measures over all queries at once: one padded (queries x ranks) matrix, column operations.

:func:`evaluate` ranks a run the way trec_eval 10.0 does and computes every requested measure per query
and over all queries, equal to trec_eval's output to the last printed digit (its own test files are
among this project's tests). The rules, as trec_eval applies them:

- documents are ranked by score, descending; equal scores by docno in descending byte order; the rank
  column and the order of lines are ignored;
- ``-M n`` keeps each query's first n documents; ``-J`` then drops every document without a
  judgement (not in the qrels, or judged negative) before anything is computed;
- a retrieved document's relevance is its qrels grade; a qrels grade below 0 means "in the pool but not
  judged" (trec_eval's infAP convention, shown ``.`` in ``relstring``); a document not in the qrels is
  "not in the pool" (``-``); a grade ``>= -l`` (default 1) is relevant;
- the queries evaluated are the qrels queries the run answers, in byte order of their ids; a run query
  without judgements is ignored; a qrels query with no relevant document is evaluated (every ratio
  over the number relevant is 0 for it, as trec_eval defines them; values that trec_eval leaves as 0/0,
  such as Rndcg with no relevant ranking, print ``-nan`` as C's printf prints them). A qrels query the
  run has no line for is ignored
  (trec_eval 9's behaviour and its documentation; version 10.0 stops with an error) unless ``complete``
  (``-c``): then it counts, as trec_eval -c counts it (one retrieved document outside the pool, then
  ``num_ret`` 0).

Sums over ranks are accumulated in rank order and sums over queries in query order (``np.cumsum``, never
pairwise summation), and logarithms of whole numbers come from :func:`math.log2`, so the floating-point
values are trec_eval's own, not merely close to them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.trec.formats import Qrels, Run, from_numpy, to_numpy
from iescore.pipeline.trec.measures import (
    LONG,
    Measure,
    is_integer_name,
)

MAXLONG = 2147483647  # trec_eval's default for -M
NONPOOL, UNJUDGED = -1, -2  # trec_eval's RELVALUE_NONPOOL and RELVALUE_UNJUDGED
_PAD = np.iinfo(np.int64).min  # a rank past the end of a query's list
_MIN_GEO_MEAN = 0.00001
_INFAP_EPSILON = 0.00001


@dataclass(frozen=True)
class Options:
    """trec_eval's options that change values: ``-l``, ``-c``, ``-M``, ``-J``, ``-N``."""

    level: int = 1
    complete: bool = False
    max_docs: int = MAXLONG
    judged_only: bool = False
    num_docs: int = 0  # trec_eval's default (its help says MAXLONG; its code says 0)

    def signature(self) -> dict[str, object]:
        return {
            "l": self.level,
            "c": int(self.complete),
            "M": self.max_docs,
            "J": int(self.judged_only),
            "N": self.num_docs,
        }


@dataclass(frozen=True, eq=False)
class Value:
    """One printed value of a measure: its name, whether it is a whole number, how the summary is
    formed, and whether trec_eval prints it per query."""

    name: str
    measure: Measure
    is_long: bool
    summary: str
    per_query: bool


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Every requested value per query (``per_query[q, v]``, queries in byte order of their ids) and over
    all queries (``summary[v]``), with the run tag and the relevance strings (``relstrings[v]`` per
    query, for ``relstring`` values). ``ignored`` are the qrels queries the run does not answer (not
    evaluated, as ``complete`` was not asked for)."""

    runid: str
    qids: tuple[str, ...]
    values: tuple[Value, ...]
    per_query: np.ndarray
    summary: np.ndarray
    relstrings: dict[int, list[str]] = field(default_factory=dict)
    ignored: tuple[str, ...] = ()
    options: Options = Options()

    def value_index(self, name: str) -> int:
        for position, value in enumerate(self.values):
            if value.name == name:
                return position
        raise KeyError(name)

    def column(self, name: str) -> np.ndarray:
        """One value's per-query column."""
        return self.per_query[:, self.value_index(name)]


def measure_values(measures: Sequence[Measure]) -> tuple[Value, ...]:
    """The values ``measures`` print, in order (a measure with cutoffs prints one value a cutoff)."""
    return tuple(
        Value(
            name,
            measure,
            measure.definition.kind == LONG,
            measure.definition.summary,
            measure.definition.per_query,
        )
        for measure in measures
        for name in measure.value_names()
    )


def evaluate(
    qrels: Qrels, run: Run, measures: Sequence[Measure], options: Options | None = None
) -> Evaluation:
    """Rank ``run`` and compute ``measures`` against ``qrels`` as trec_eval 10.0 does (module doc)."""
    options = options or Options()
    ranking = rank(qrels, run, options)
    values = measure_values(measures)
    columns: list[np.ndarray] = []
    relstrings: dict[int, list[str]] = {}
    for measure in measures:
        if measure.name == "runid":
            arrays = [np.zeros(ranking.queries)]
        elif measure.name == "relstring":
            relstrings[len(columns)] = ranking.relstrings(int(measure.cutoffs()[0]))
            arrays = [np.zeros(ranking.queries)]
        else:
            level = options.level if measure.rel is None else measure.rel
            arrays = _COMPUTE[measure.name](ranking, measure, level)
        if measure.label is not None and measure.name == "num_q":
            arrays = [np.ones(ranking.queries)]
        for _name, array in zip(measure.value_names(), arrays, strict=True):
            columns.append(np.asarray(array, dtype=np.float64))
    per_query = np.stack(columns, axis=1) if columns else np.zeros((ranking.queries, 0))
    if ranking.missing.size:
        per_query = _clean_missing(per_query, values, ranking.missing, relstrings)
    summary = _summaries(per_query, values, ranking, qrels, options)
    return Evaluation(
        runid=run.tag,
        qids=ranking.qids,
        values=values,
        per_query=per_query,
        summary=summary,
        relstrings=relstrings,
        ignored=ranking.ignored,
        options=options,
    )


class Ranking:
    """The evaluated queries' ranked relevance values as one padded matrix, with the qrels' counts.

    ``rel[q, i]`` is the relevance value of query ``q``'s document at rank ``i`` (0-based): its grade,
    ``NONPOOL`` or ``UNJUDGED``; ``_PAD`` past ``num_ret[q]``. ``judged_q``/``judged_rel`` list every
    judged (grade >= 0) qrels entry of the evaluated queries.
    """

    def __init__(
        self,
        qids: tuple[str, ...],
        rel: np.ndarray,
        num_ret: np.ndarray,
        judged_q: np.ndarray,
        judged_rel: np.ndarray,
        missing: np.ndarray,
        ignored: tuple[str, ...],
        num_docs: int,
    ) -> None:
        self.qids = qids
        self.queries = len(qids)
        self.rel = rel
        self.num_ret = num_ret
        self.judged_q = judged_q
        self.judged_rel = judged_rel
        self.missing = missing
        self.ignored = ignored
        self.num_docs = num_docs
        self.width = rel.shape[1]
        self.valid = np.arange(self.width)[None, :] < num_ret[:, None]
        self._cache: dict[tuple, np.ndarray] = {}

    # --- counts -------------------------------------------------------------------------------------
    def cached(self, key: tuple, make) -> np.ndarray:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def relevant(self, level: int) -> np.ndarray:
        """Ranks whose relevance value is ``>= level`` (what trec_eval's measures test)."""
        return self.cached(("relevant", level), lambda: self.valid & (self.rel >= level))

    def cumrel(self, level: int) -> np.ndarray:
        return self.cached(("cumrel", level), lambda: np.cumsum(self.relevant(level), axis=1))

    def num_rel(self, level: int) -> np.ndarray:
        return self.cached(
            ("num_rel", level),
            lambda: np.bincount(
                self.judged_q, weights=self.judged_rel >= level, minlength=self.queries
            ).astype(np.int64),
        )

    def num_nonrel(self, level: int) -> np.ndarray:
        return self.cached(
            ("num_nonrel", level),
            lambda: np.bincount(
                self.judged_q, weights=self.judged_rel < level, minlength=self.queries
            ).astype(np.int64),
        )

    def num_rel_ret(self, level: int) -> np.ndarray:
        return self.cached(
            ("num_rel_ret", level),
            lambda: (self.valid & (self.rel >= 0) & (self.rel >= level)).sum(axis=1),
        )

    def count_at(self, cumulative: np.ndarray, k: np.ndarray | int) -> np.ndarray:
        """``cumulative[q, min(k, num_ret) - 1]`` (0 where that is no rank): a count in the first k ranks."""
        upto = np.minimum(np.broadcast_to(np.asarray(k, dtype=np.int64), (self.queries,)), self.num_ret)
        result = np.zeros(self.queries, dtype=cumulative.dtype)
        has = upto > 0
        rows = np.flatnonzero(has)
        result[rows] = cumulative[rows, upto[rows] - 1]
        return result

    # --- gains --------------------------------------------------------------------------------------
    def gains(self, pairs: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(retrieved gains ``[q, i]``, the ideal ranking's gains ``[q, j]`` (zero-padded), their number)
        for trec_eval's gain parameters ``level=gain`` (default: a grade's gain is the grade)."""
        custom = _custom_gains(pairs)
        key = ("gains", tuple(custom))
        if key not in self._cache:
            self._cache[key] = self._gains(custom)
        return self._cache[key]

    def _gains(self, custom: list[tuple[int, float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        retrieved = np.where(self.valid & (self.rel >= 0), self.rel, 0).astype(np.float64)
        for level, gain in dict(custom).items():
            retrieved[self.valid & (self.rel == level)] = gain
        if not custom:
            ideal, count = _descending_rows(self.judged_q, self.judged_rel.astype(np.float64), self.queries)
            return retrieved, ideal, count
        # trec_eval walks its list of (level, gain) entries, sorted by glibc's merge sort with a comparator
        # that truncates the gain difference to an int, from the top down: each entry with documents adds
        # them, until an entry with documents and a gain <= 0 (or a top entry's gain <= 0) ends the ideal.
        levels = self.num_rel_levels()
        counted: dict[int, np.ndarray] = {}

        def per_level(queries: np.ndarray, level: int) -> np.ndarray:
            if level not in counted:
                at = self.judged_rel == level
                counted[level] = np.bincount(self.judged_q[at], minlength=self.queries)
            return counted[level][queries]

        rows_q: list[np.ndarray] = []
        rows_gain: list[np.ndarray] = []
        for number in np.unique(levels):
            queries = np.flatnonzero(levels == number)
            entries = _sorted_entries(custom, int(number))
            counts = np.zeros((len(queries), len(entries)), dtype=np.int64)
            if entries and entries[-1][1] > 0:
                open_ = np.ones(len(queries), dtype=bool)
                for e in range(len(entries) - 1, -1, -1):
                    level, gain = entries[e]
                    here = per_level(queries, level)
                    stop = open_ & (here > 0) & (gain <= 0)
                    open_ &= ~stop
                    counts[:, e] = np.where(open_, here, 0)
            order = list(range(len(entries) - 1, -1, -1))
            repeated = counts[:, order].ravel()
            rows_q.append(np.repeat(np.repeat(queries, len(entries)), repeated))
            rows_gain.append(np.repeat(np.tile([entries[e][1] for e in order], len(queries)), repeated))
        q = np.concatenate(rows_q) if rows_q else np.zeros(0, np.int64)
        gains = np.concatenate(rows_gain) if rows_gain else np.zeros(0)
        order = np.argsort(q, kind="stable")
        q, gains = q[order], gains[order]
        count = np.bincount(q, minlength=self.queries).astype(np.int64)
        ideal = np.zeros((self.queries, max(int(count.max(initial=0)), 1)))
        ideal[q, _ranks_within(q, self.queries)] = gains
        return retrieved, ideal, count

    def top_gain(self, pairs: tuple) -> np.ndarray:
        """The gain of the top entry of trec_eval's sorted gain list (its starting 'ideal gain')."""
        custom = _custom_gains(pairs)
        levels = self.num_rel_levels()
        if not custom:  # whole gains sort in order: the top entry is the highest grade
            return np.maximum(levels - 1, 0).astype(np.float64)
        top = np.zeros(self.queries)
        for number in np.unique(levels):
            entries = _sorted_entries(custom, int(number))
            top[levels == number] = entries[-1][1] if entries else 0.0
        return top

    def num_rel_levels(self) -> np.ndarray:
        highest = np.full(self.queries, -1, dtype=np.int64)
        np.maximum.at(highest, self.judged_q, self.judged_rel)
        return highest + 1

    def relstrings(self, length: int) -> list[str]:
        characters = np.full(self.rel.shape, ord("<"), dtype=np.uint8)
        characters[self.rel >= 0] = ord("0") + np.minimum(self.rel[self.rel >= 0], 9)
        characters[self.rel > 9] = ord(">")
        characters[self.rel == NONPOOL] = ord("-")
        characters[self.rel == UNJUDGED] = ord(".")
        upto = np.clip(np.minimum(length, self.num_ret), 0, None)
        return [characters[q, : upto[q]].tobytes().decode("ascii") for q in range(self.queries)]


def rank(qrels: Qrels, run: Run, options: Options) -> Ranking:
    """The :class:`Ranking` of ``run`` against ``qrels`` under ``options`` (duplicates refused here)."""
    qid_dictionary, (qrels_qcode, run_qcode) = _byte_order_codes(qrels.qid, run.qid)
    doc_dictionary, (qrels_dcode, run_docs) = _byte_order_codes(qrels.docno, run.docno)
    ndocs = max(len(doc_dictionary), 1)
    qrels_key = qrels_qcode.astype(np.int64) * ndocs + qrels_dcode
    run_key = run_qcode.astype(np.int64) * ndocs + run_docs
    del qrels_dcode
    _refuse_duplicates(qrels_key, qrels, doc_dictionary, qid_dictionary, ndocs, "qrels")
    _refuse_duplicates(run_key, run, doc_dictionary, qid_dictionary, ndocs, "run")
    qrels_order = np.argsort(qrels_key, kind="stable")

    qrels_queries = np.unique(qrels_qcode)
    run_queries = np.unique(run_qcode)
    answered = np.isin(qrels_queries, run_queries)
    evaluated = qrels_queries if options.complete else qrels_queries[answered]
    missing_codes = qrels_queries[~answered]
    if not evaluated.size:
        raise InputError(
            run.source, 0, f"no query of the run is in the qrels {qrels.source}; nothing to evaluate"
        )
    position = np.full(len(qid_dictionary), -1, dtype=np.int32)
    position[evaluated] = np.arange(len(evaluated))
    qids = tuple(qid_dictionary[int(code)] for code in evaluated)
    ignored = () if options.complete else tuple(qid_dictionary[int(code)] for code in missing_codes)

    # Retrieved documents of the evaluated queries, ranked: score descending, docno descending.
    run_q = position[run_qcode]
    del run_qcode
    if (run_q >= 0).all():
        order = _ranking_order(run_q, run.score, run_docs, len(doc_dictionary))
    else:
        keep = np.flatnonzero(run_q >= 0)
        order = keep[_ranking_order(run_q[keep], run.score[keep], run_docs[keep], len(doc_dictionary))]
    del run_docs
    sorted_q = run_q[order]
    del run_q
    ranks = _ranks_within(sorted_q, len(evaluated))
    if options.max_docs < MAXLONG:
        cut = ranks < max(options.max_docs, 0)
        order, sorted_q, ranks = order[cut], sorted_q[cut], ranks[cut]

    # Relevance of each retrieved document: its grade, UNJUDGED for a negative grade, NONPOOL if absent.
    sorted_qrels_key = qrels_key[qrels_order]
    ranked_key = run_key[order]
    del run_key, order
    found = np.searchsorted(sorted_qrels_key, ranked_key)
    np.minimum(found, max(len(sorted_qrels_key) - 1, 0), out=found)
    hit = (sorted_qrels_key[found] == ranked_key) if len(sorted_qrels_key) else np.zeros(len(found), bool)
    del ranked_key
    rel = qrels.rel[qrels_order][found] if len(sorted_qrels_key) else np.zeros(len(found), np.int64)
    del found
    rel[rel < 0] = UNJUDGED
    rel[~hit] = NONPOOL
    del hit
    if options.judged_only:
        judged = rel >= 0
        rel, sorted_q = rel[judged], sorted_q[judged]
        ranks = _ranks_within(sorted_q, len(evaluated))
    missing = np.flatnonzero(~np.isin(evaluated, run_queries))
    if missing.size:  # -c: trec_eval's stand-in ranking of one document outside the pool
        rel = np.concatenate([rel, np.full(missing.size, NONPOOL)])
        sorted_q = np.concatenate([sorted_q, missing])
        ranks = np.concatenate([ranks, np.zeros(missing.size, dtype=ranks.dtype)])
        if options.judged_only:
            keep_rows = rel >= 0
            rel, sorted_q, ranks = rel[keep_rows], sorted_q[keep_rows], ranks[keep_rows]
    num_ret = np.bincount(sorted_q, minlength=len(evaluated)).astype(np.int64)
    width = max(int(num_ret.max(initial=0)), 1)
    matrix = np.full((len(evaluated), width), _PAD, dtype=np.int64)
    matrix[sorted_q, ranks] = rel

    qrels_q = position[qrels_qcode]
    judged_rows = (qrels_q >= 0) & (qrels.rel >= 0)
    return Ranking(
        qids,
        matrix,
        num_ret,
        qrels_q[judged_rows],
        qrels.rel[judged_rows].astype(np.int64),
        missing,
        ignored,
        options.num_docs,
    )


# --- the measures -----------------------------------------------------------------------------------

_LOG2_CACHE: list[np.ndarray] = [np.zeros(0)]


def _log2_table(n: int) -> np.ndarray:
    """``log2(k)`` for k < n, from C's libm (``math.log2``), as trec_eval computes discounts."""
    if len(_LOG2_CACHE[0]) < n:
        size = max(n, 2 * len(_LOG2_CACHE[0]))
        table = np.array([-math.inf] + [math.log2(k) for k in range(1, size)])
        _LOG2_CACHE[0] = table
    return _LOG2_CACHE[0]


def _discounts(width: int) -> np.ndarray:
    """``log2(i + 2)`` for ranks i = 0..width-1."""
    return _log2_table(width + 2)[2 : width + 2]


def _sequential_rowsum(matrix: np.ndarray) -> np.ndarray:
    """Row sums accumulated left to right (as C's loops), not by pairwise summation."""
    if matrix.shape[1] == 0:
        return np.zeros(matrix.shape[0])
    return np.cumsum(matrix, axis=1)[:, -1]


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """IEEE division as C does it (0/0 = -nan, x/0 = inf), without numpy's warnings."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(numerator, denominator)


def _num_ret(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    return [r.num_ret]


def _num_rel(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    return [r.num_rel(level)]


def _num_rel_ret(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    return [r.num_rel_ret(level)]


def _num_q(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    return [np.ones(r.queries)]


def _ap_parts(r: Ranking, level: int) -> np.ndarray:
    """Precision at each relevant rank (0 elsewhere)."""

    def make() -> np.ndarray:
        ranks = np.arange(1, r.width + 1, dtype=np.float64)
        return np.where(r.relevant(level), r.cumrel(level) / ranks, 0.0)

    return r.cached(("ap_parts", level), make)


def _average_precision(r: Ranking, level: int) -> np.ndarray:
    total = _sequential_rowsum(_ap_parts(r, level))
    found = r.cumrel(level)[:, -1] > 0
    return np.where(found, _divide(total, r.num_rel(level)), 0.0)


def _map(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    return [_average_precision(r, level)]


def _gm_map(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    return [np.log(np.maximum(_average_precision(r, level), _MIN_GEO_MEAN))]


def _rprec(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    num_rel = r.num_rel(level)
    found = r.count_at(r.cumrel(level), num_rel)
    return [np.where(np.minimum(r.num_ret, num_rel) > 0, _divide(found, num_rel), 0.0)]


def _bpref_value(r: Ranking, level: int) -> np.ndarray:
    judged = r.valid & (r.rel >= 0)
    rel = judged & (r.rel >= level)
    # Each relevant rank's part, computed at those ranks only.
    rows, cols = np.nonzero(rel)
    nonrel_before = np.cumsum(judged & (r.rel < level), axis=1, dtype=np.int32)[rows, cols]
    del judged
    num_rel = r.num_rel(level)
    bound = np.minimum(r.num_nonrel(level), num_rel)
    with np.errstate(divide="ignore", invalid="ignore"):
        part = np.where(nonrel_before > 0, 1.0 - np.minimum(nonrel_before, num_rel[rows]) / bound[rows], 1.0)
    parts = np.zeros(rel.shape)
    parts[rows, cols] = part
    total = _sequential_rowsum(parts)
    return np.where(num_rel > 0, _divide(total, num_rel), total)


def _bpref(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    return [_bpref_value(r, level)]


def _gm_bpref(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    return [np.log(np.maximum(_bpref_value(r, level), _MIN_GEO_MEAN))]


def _recip_rank(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    relevant = r.relevant(level)
    first = relevant.argmax(axis=1)
    return [np.where(relevant.any(axis=1), 1.0 / (first + 1.0), 0.0)]


def _interpolated(r: Ranking, level: int, fractions: Sequence[float]) -> list[np.ndarray]:
    """trec_eval's interpolated precision at recall ``fractions`` (iprec_at_recall, 11pt_avg)."""
    num_rel_ret = r.num_rel_ret(level).astype(np.float64)
    start = _divide(num_rel_ret, r.num_ret.astype(np.float64))  # 0/0 stays -nan, as in C
    cumrel = r.cumrel(level)
    precision = cumrel / np.arange(1, r.width + 1, dtype=np.float64)
    precision[~r.valid] = -np.inf
    suffix = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
    del precision
    np.maximum(suffix, start[:, None], out=suffix)  # NaN start stays NaN, as C's '<' never replaces it
    num_rel = r.num_rel(level)
    results = []
    for fraction in fractions:
        wanted = _lround(fraction * num_rel)
        position = np.minimum((cumrel < wanted[:, None]).sum(axis=1), r.width - 1)
        at = suffix[np.arange(r.queries), position]
        whole = np.where(r.num_ret > 0, suffix[:, 0], start)
        value = np.where(wanted == 0, whole, at)
        results.append(np.where(wanted > r.num_rel_ret(level), 0.0, value))
    return results


def _lround(x: np.ndarray) -> np.ndarray:
    """C's lround: halves away from zero (inputs here are >= 0)."""
    whole = np.trunc(x)
    return (whole + (x - whole >= 0.5)).astype(np.int64)


def _iprec_at_recall(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    return _interpolated(r, level, m.cutoffs())


def _11pt_avg(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    fractions = m.cutoffs()
    values = _interpolated(r, level, fractions)
    total = np.zeros(r.queries)
    for value in reversed(values):  # C adds them from the highest recall level down
        total = total + value
    return [total / len(fractions)]


def _precision(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    cumrel = r.cumrel(level)
    return [r.count_at(cumrel, k) / float(k) for k in m.cutoffs()]


def _recall(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    cumrel = r.cumrel(level)
    num_rel = r.num_rel(level).astype(np.float64)
    return [
        np.where(num_rel > 0, _divide(r.count_at(cumrel, k).astype(np.float64), num_rel), 0.0)
        for k in m.cutoffs()
    ]


def _infap(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    judged = r.valid & (r.rel >= 0)
    rel = judged & (r.rel >= level)
    # Each relevant rank's part, computed at those ranks only (the counts so far read off there).
    rows, cols = np.nonzero(rel)
    above = np.cumsum(rel, axis=1, dtype=np.int32)[rows, cols] - 1
    nonrel_so_far = np.cumsum(judged & (r.rel < level), axis=1, dtype=np.int32)[rows, cols]
    del judged
    unjudged_so_far = np.cumsum(r.valid & (r.rel == UNJUDGED), axis=1, dtype=np.int32)[rows, cols]
    j = cols.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        part = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((above + nonrel_so_far + unjudged_so_far) / j) * (
            (above + _INFAP_EPSILON) / ((above + nonrel_so_far) + 2 * _INFAP_EPSILON)
        )
    part[cols == 0] = 1.0
    parts = np.zeros(rel.shape)
    parts[rows, cols] = part
    total = _sequential_rowsum(parts)
    num_rel = r.num_rel(level)
    return [np.where(num_rel > 0, _divide(total, num_rel), total)]


def _rprec_mult(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    num_rel = r.num_rel(level)
    cumrel = r.cumrel(level)
    num_rel_ret = r.num_rel_ret(level).astype(np.float64)
    results = []
    for fraction in m.cutoffs():
        cutoff = (fraction * num_rel + 0.9).astype(np.int64)  # C's (long) truncation
        beyond = cutoff > r.num_ret
        inside = _divide(r.count_at(cumrel, cutoff).astype(np.float64), cutoff.astype(np.float64))
        value = np.where(beyond, _divide(num_rel_ret, cutoff.astype(np.float64)), inside)
        results.append(np.where(cutoff == 0, 0.0, value))
    return results


def _utility(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    a, b, c, d = m.cutoffs()
    rel_ret = r.num_rel_ret(level)
    num_rel = r.num_rel(level)
    rest = float(r.num_docs) + rel_ret - r.num_ret - num_rel  # in floats: -N may be up to a C long
    return [a * rel_ret + b * (r.num_ret - rel_ret) + c * (num_rel - rel_ret) + d * rest]


def _bin_g(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    relevant = r.relevant(level)
    cumrel = r.cumrel(level)
    argument = 3 + np.arange(r.width)[None, :] - cumrel
    table = _log2_table(r.width + 4)
    part = np.where(relevant, 1.0 / table[np.clip(argument, 0, r.width + 3)], 0.0)
    total = _sequential_rowsum(part)
    return [np.where(cumrel[:, -1] > 0, _divide(total, r.num_rel(level)), 0.0)]


def _g(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    gains, ideal, count = r.gains(m.cutoffs())
    width = r.width
    ideal_here = _take_columns(ideal, width)
    # In place, one matrix at a time: (2 + sum of costs so far) - sum of gains so far, then its log2.
    cost = np.where(ideal_here >= 1.0, ideal_here, 1.0)
    cost[~r.valid] = 0.0
    np.cumsum(cost, axis=1, out=cost)
    cost += 2.0
    cost -= np.cumsum(gains, axis=1)
    part = np.zeros_like(gains)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.log2(cost, out=cost)
        np.divide(gains, cost, out=part, where=gains != 0)
    del cost
    results = _sequential_rowsum(part)
    sum_ideal = _sequential_rowsum(ideal)
    return [np.where(sum_ideal > 0, _divide(results, sum_ideal), 0.0)]


def _take_columns(matrix: np.ndarray, width: int) -> np.ndarray:
    """``matrix`` cut or padded with zeros to ``width`` columns."""
    if matrix.shape[1] >= width:
        return matrix[:, :width]
    return np.pad(matrix, ((0, 0), (0, width - matrix.shape[1])))


def _dcg_parts(r: Ranking, pairs: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(results dcg prefix sums ``[q, i]``, ideal dcg prefix sums ``[q, j]``, ideal gains, ideal count)."""
    gains, ideal, count = r.gains(pairs)
    with np.errstate(divide="ignore", invalid="ignore"):
        results = gains / _discounts(r.width)[None, :]
    results[gains == 0] = 0.0
    np.cumsum(results, axis=1, out=results)
    ideal_sums = np.cumsum(ideal / _discounts(ideal.shape[1])[None, :], axis=1)
    return results, ideal_sums, ideal, count


def _ndcg_family(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    results, ideal_sums, _ideal, _count = _dcg_parts(r, m.cutoffs())
    dcg = results[:, -1]
    ideal_dcg = ideal_sums[:, -1] if ideal_sums.shape[1] else np.zeros(r.queries)
    if m.name == "dcg":
        return [dcg]
    if m.name == "ideal_dcg":
        return [ideal_dcg]
    return [np.where(ideal_dcg > 0, _divide(dcg, ideal_dcg), 0.0)]


def _ndcg_rel(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    gains, _ideal, count = r.gains(m.cutoffs())
    results, ideal_sums, _ideal, count = _dcg_parts(r, m.cutoffs())
    rows = np.arange(r.queries)
    ideal_width = ideal_sums.shape[1]
    if ideal_width == 0:
        ideal_sums = np.zeros((r.queries, 1))
    positive = gains > 0
    # Each part at the ranks of positive gain only: the results' dcg over the ideal dcg at that rank
    # (saturated at the ideal's last rank).
    at_q, at_rank = np.nonzero(positive)
    counted = count[at_q]
    saturated = np.clip(np.minimum(at_rank, counted - 1), 0, None)
    ideal_at = np.where(counted > 0, ideal_sums[at_q, np.minimum(saturated, ideal_sums.shape[1] - 1)], 0.0)
    del counted, saturated
    with np.errstate(divide="ignore", invalid="ignore"):
        parts = np.zeros(gains.shape)
        parts[at_q, at_rank] = results[at_q, at_rank] / ideal_at
        total = _sequential_rowsum(parts)
        ideal_total = np.where(count > 0, ideal_sums[rows, np.maximum(count - 1, 0)], 0.0)
        total = total + ((count - positive.sum(axis=1)).astype(np.float64) * results[:, -1]) / ideal_total
    return [np.where(total > 0, _divide(total, count.astype(np.float64)), 0.0)]


def _rndcg(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    results, ideal_sums, ideal, count = _dcg_parts(r, m.cutoffs())
    top = r.top_gain(m.cutoffs())
    width = ideal.shape[1]
    rows = np.arange(r.queries)
    # Events: positions p in 1..count where the ideal gain changes (position count: it drops to none).
    extended = np.pad(ideal, ((0, 0), (0, 1)))
    p = np.arange(1, width + 1)[None, :]
    changed = (extended[:, 1:] != extended[:, :-1]) & (p <= count[:, None])
    upto = np.minimum(p, r.num_ret[:, None])  # results dcg of the ranks before p
    results_before = np.where(upto > 0, results[rows[:, None], np.clip(upto - 1, 0, r.width - 1)], 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        part = (
            np.where(changed, results_before / ideal_sums[:, :width], 0.0)
            if width
            else np.zeros((r.queries, 0))
        )
        total = _sequential_rowsum(part)
        events = changed.sum(axis=1)
        ideal_total = np.where(count > 0, ideal_sums[rows, np.maximum(count - 1, 0)] if width else 0.0, 0.0)
        extra = (count + 1 < r.num_ret) & (ideal_total > 0) & (top > 0)
        total = np.where(extra, total + results[:, -1] / ideal_total, total)
        events = events + extra
        value = np.true_divide(total, events)
    return [np.where(r.num_rel(level) == 0, 0.0, value)]


def _ndcg_cut(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    results = np.where(r.valid & (r.rel > 0), r.rel, 0).astype(np.float64)
    results /= _discounts(r.width)[None, :]
    np.cumsum(results, axis=1, out=results)
    positive = r.judged_rel > 0
    ideal, count = _descending_rows(
        r.judged_q[positive], r.judged_rel[positive].astype(np.float64), r.queries
    )
    ideal_sums = np.cumsum(ideal / _discounts(ideal.shape[1])[None, :], axis=1)
    rows = np.arange(r.queries)
    out = []
    for k in m.cutoffs():
        dcg = r.count_at(results, k)
        upto = np.minimum(k, count)
        ideal_dcg = np.where(
            upto > 0, ideal_sums[rows, np.maximum(upto - 1, 0)] if ideal.shape[1] else 0.0, 0.0
        )
        out.append(np.where(ideal_dcg > 0, _divide(dcg, ideal_dcg), dcg))
    return out


def _map_cut(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    sums = np.cumsum(_ap_parts(r, level), axis=1)
    num_rel = r.num_rel(level)
    return [np.where(num_rel > 0, _divide(r.count_at(sums, k), num_rel), 0.0) for k in m.cutoffs()]


def _relative_p(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    cumrel = r.cumrel(level)
    num_rel = r.num_rel(level)
    return [
        np.where(num_rel > 0, _divide(r.count_at(cumrel, k).astype(np.float64), np.minimum(k, num_rel)), 0.0)
        for k in m.cutoffs()
    ]


def _success(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    cumrel = r.cumrel(level)
    return [(r.count_at(cumrel, k) > 0).astype(np.float64) for k in m.cutoffs()]


def _set_p(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    return [np.where(r.num_ret > 0, _divide(r.num_rel_ret(level), r.num_ret), 0.0)]


def _set_relative_p(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    num_rel = r.num_rel(level)
    both = (r.num_ret > 0) & (num_rel > 0)
    return [np.where(both, _divide(r.num_rel_ret(level), np.minimum(r.num_ret, num_rel)), 0.0)]


def _set_recall(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    num_rel = r.num_rel(level)
    return [np.where(num_rel > 0, _divide(r.num_rel_ret(level), num_rel), 0.0)]


def _set_map(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    num_rel = r.num_rel(level).astype(np.float64)
    rel_ret = r.num_rel_ret(level).astype(np.float64)
    both = (r.num_ret > 0) & (num_rel > 0)
    return [np.where(both, _divide(rel_ret * rel_ret, r.num_ret * num_rel), 0.0)]


def _set_f(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    (beta,) = m.cutoffs()[:1]
    rel_ret = r.num_rel_ret(level).astype(np.float64)
    precision = _divide(rel_ret, r.num_ret.astype(np.float64))
    recall = _divide(rel_ret, r.num_rel(level).astype(np.float64))
    value = _divide((beta + 1.0) * precision * recall, beta * precision + recall)
    return [np.where(rel_ret > 0, value, 0.0)]


def _num_nonrel_judged_ret(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    nonpool = (r.valid & (r.rel == NONPOOL)).sum(axis=1)
    unjudged = (r.valid & (r.rel == UNJUDGED)).sum(axis=1)
    return [r.num_ret - nonpool - unjudged - r.num_rel_ret(level)]


def _persistence(m: Measure) -> float:
    p = 0.9
    for name, value in m.cutoffs():
        if name == "p":
            p = value
    return p


def _powers(p: float, width: int) -> np.ndarray:
    """``p**i`` for i = 0..width by repeated multiplication, as C's loop forms it."""
    factors = np.full(width + 1, p)
    factors[0] = 1.0
    return np.cumprod(factors)


def _rbp(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    p = _persistence(m)
    pairs = m.cutoffs()
    gains, _ideal, _count = r.gains(pairs)
    # Gains outside [0, 1] are rescaled by the smallest and largest gain of the query's levels.
    levels = r.num_rel_levels()
    custom = _custom_gains(pairs)
    low = np.zeros(r.queries)
    high = np.maximum(levels - 1, 0).astype(np.float64)
    for number in np.unique(levels) if custom else ():
        gains_here = [gain for _level, gain in _sorted_entries(custom, int(number))]
        if gains_here:
            low[levels == number] = min(0.0, *gains_here)
            high[levels == number] = max(0.0, *gains_here)
    rescale = (low < 0) | (high > 1)
    scaled = np.where(
        rescale[:, None], (gains - low[:, None]) / np.where(rescale, high - low, 1.0)[:, None], gains
    )
    # Only a level in the query's gain list is rescaled; any other (not in the pool) has gain 0.
    listed = r.valid & (r.rel >= 0) & (r.rel < levels[:, None])
    for level, _gain in custom:
        listed |= r.valid & (r.rel == level)
    scaled = np.where(listed, scaled, 0.0)
    powers = _powers(p, r.width)[None, : r.width]
    total = _sequential_rowsum(np.where(scaled != 0, scaled * powers, 0.0))
    return [(1.0 - p) * total]


def _rbp_resid(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    p = _persistence(m)
    powers = _powers(p, r.width)
    unjudged = r.valid & (r.rel < 0)
    total = _sequential_rowsum(np.where(unjudged, powers[None, : r.width], 0.0))
    value = powers[r.num_ret] + (1 - p) * total
    return [np.where(unjudged.any(axis=1), value, 0.0)]


def _unj(r: Ranking, m: Measure, level: int) -> list[np.ndarray]:
    unjudged = np.cumsum(r.valid & ((r.rel == NONPOOL) | (r.rel == UNJUDGED)), axis=1)
    return [r.count_at(unjudged, k) / float(k) for k in m.cutoffs()]


_COMPUTE = {
    "num_q": _num_q,
    "num_ret": _num_ret,
    "num_rel": _num_rel,
    "num_rel_ret": _num_rel_ret,
    "map": _map,
    "gm_map": _gm_map,
    "Rprec": _rprec,
    "bpref": _bpref,
    "recip_rank": _recip_rank,
    "iprec_at_recall": _iprec_at_recall,
    "P": _precision,
    "recall": _recall,
    "infAP": _infap,
    "gm_bpref": _gm_bpref,
    "Rprec_mult": _rprec_mult,
    "utility": _utility,
    "11pt_avg": _11pt_avg,
    "binG": _bin_g,
    "G": _g,
    "dcg": _ndcg_family,
    "ideal_dcg": _ndcg_family,
    "ndcg": _ndcg_family,
    "ndcg_rel": _ndcg_rel,
    "Rndcg": _rndcg,
    "ndcg_cut": _ndcg_cut,
    "map_cut": _map_cut,
    "relative_P": _relative_p,
    "success": _success,
    "set_P": _set_p,
    "set_relative_P": _set_relative_p,
    "set_recall": _set_recall,
    "set_map": _set_map,
    "set_F": _set_f,
    "num_nonrel_judged_ret": _num_nonrel_judged_ret,
    "rbp": _rbp,
    "rbp_resid": _rbp_resid,
    "unj": _unj,
}


# --- helpers ----------------------------------------------------------------------------------------


def _custom_gains(pairs: tuple) -> list[tuple[int, float]]:
    """The ``level=gain`` parameters whose level is an integer, in the order given (trec_eval skips the
    others, such as rbp's ``p``); a level given twice keeps its first gain."""
    seen: dict[int, float] = {}
    for name, value in pairs:
        if is_integer_name(name) and int(name) not in seen:
            seen[int(name)] = value
    return list(seen.items())


def _sorted_entries(custom: list[tuple[int, float]], num_levels: int) -> list[tuple[int, float]]:
    """trec_eval's gain list for a query with levels 0..num_levels-1: the parameters, then each level
    not among them with its grade as gain, sorted as glibc 2.36's qsort (a merge sort) sorts them with
    trec_eval's comparator ``(int)(gain1 - gain2)`` (so gains closer than 1 compare equal)."""
    given = {level for level, _gain in custom}
    entries = list(custom) + [(level, float(level)) for level in range(num_levels) if level not in given]
    return _glibc_msort(entries)


def _glibc_msort(entries: list[tuple[int, float]]) -> list[tuple[int, float]]:
    if len(entries) <= 1:
        return list(entries)
    half = len(entries) // 2
    left, right = _glibc_msort(entries[:half]), _glibc_msort(entries[half:])
    merged: list[tuple[int, float]] = []
    while left and right:
        if int(left[0][1] - right[0][1]) <= 0:  # C's truncating cast of the difference
            merged.append(left.pop(0))
        else:
            merged.append(right.pop(0))
    return merged + left + right


def _byte_order_codes(*arrays: pa.Array) -> tuple[list[str], list[np.ndarray]]:
    """The distinct values of ``arrays`` decoded, in the order of their bytes, and each array's codes
    (int32) into that list. Each array is encoded alone and their small dictionaries together, so the
    arrays are never copied end to end."""
    encoded = [array.dictionary_encode() for array in arrays]
    union = pa.concat_arrays([e.dictionary for e in encoded]).dictionary_encode()
    dictionary = union.dictionary
    order = to_numpy(pc.sort_indices(dictionary), np.uint64).astype(np.int64)
    rank_of = np.empty(len(order), dtype=np.int32)
    rank_of[order] = np.arange(len(order))
    recode = rank_of[to_numpy(union.indices, np.int32)]  # each piece's dictionary entry -> its rank
    starts = np.cumsum([0] + [len(e.dictionary) for e in encoded])
    codes = [recode[start + to_numpy(e.indices, np.int32)] for start, e in zip(starts, encoded, strict=False)]
    names = [value.decode("utf-8", "replace") for value in dictionary.take(from_numpy(order)).to_pylist()]
    return names, codes


def _ranking_order(queries: np.ndarray, scores: np.ndarray, docs: np.ndarray, ndocs: int) -> np.ndarray:
    """The order sorting rows by query, then score descending, then docno code descending.

    One argsort of a packed int64 key (query, rank of the score among the distinct scores, docno) when
    the three fit in 63 bits, else a lexsort (the same order, four times slower)."""
    # Each score's rank among the distinct scores (-0.0 and 0.0 are one score, as in C).
    by_score = np.argsort(scores)
    ordered = scores[by_score]
    step = np.empty(len(scores), np.int32)
    step[:1] = 0
    np.not_equal(ordered[1:], ordered[:-1], out=step[1:], casting="unsafe")
    del ordered
    np.cumsum(step, out=step)
    inverse = np.empty(len(scores), np.int32)
    inverse[by_score] = step
    del by_score, step
    distinct = int(inverse.max(initial=-1)) + 1
    bits = [max(int(n), 1).bit_length() for n in (int(queries.max(initial=0)) + 1, distinct, ndocs)]
    if sum(bits) > 63:
        return np.lexsort((-docs.astype(np.int64), -scores, queries))
    key = np.subtract(distinct - 1, inverse, dtype=np.int64)
    del inverse
    key <<= bits[2]
    key |= ndocs - 1 - docs
    high = queries.astype(np.int64)
    high <<= bits[1] + bits[2]
    key |= high
    del high
    return np.argsort(key, kind="stable")


def _ranks_within(sorted_q: np.ndarray, queries: int) -> np.ndarray:
    """0-based position of every row within its query (rows sorted by query)."""
    starts = np.zeros(queries, np.int32)
    np.cumsum(np.bincount(sorted_q, minlength=queries)[:-1], out=starts[1:])
    return np.arange(len(sorted_q), dtype=np.int32) - starts[sorted_q]


def _descending_rows(q: np.ndarray, gains: np.ndarray, queries: int) -> tuple[np.ndarray, np.ndarray]:
    """Each query's positive ``gains`` in decreasing order as a zero-padded matrix, and their number."""
    positive = gains > 0
    q, gains = q[positive], gains[positive]
    order = np.lexsort((-gains, q))
    q, gains = q[order], gains[order]
    count = np.bincount(q, minlength=queries).astype(np.int64)
    matrix = np.zeros((queries, max(int(count.max(initial=0)), 1)))
    matrix[q, _ranks_within(q, queries)] = gains
    return matrix, count


def _refuse_duplicates(
    keys: np.ndarray, source: Qrels | Run, docs: list[str], qids: list[str], ndocs: int, kind: str
) -> None:
    """An :class:`InputError` if a (query, document) repeats (named at its first repeat in file order)."""
    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    repeated = np.flatnonzero(ordered[1:] == ordered[:-1])
    if repeated.size:
        lines = source.lines[order]
        pairs = [(int(lines[i]), int(lines[i + 1])) for i in repeated]
        first, second = min(pairs, key=lambda pair: pair[1])
        key = int(ordered[repeated[0]])
        for i in repeated:
            if (int(lines[i]), int(lines[i + 1])) == (first, second):
                key = int(ordered[i])
        raise InputError(
            source.source,
            second,
            f"document {docs[key % ndocs]!r} is listed again for query {qids[key // ndocs]!r} (first at "
            f"line {first}); a {kind} lists each document once a query",
        )


def _clean_missing(
    per_query: np.ndarray, values: Sequence[Value], missing: np.ndarray, relstrings: dict[int, list[str]]
) -> np.ndarray:
    """trec_eval -c's clean-up of a query the run has no line for: num_ret, utility, unj and rbp_resid
    are 0 and relstring is empty (the other values are those of its stand-in ranking)."""
    per_query = per_query.copy()
    for position, value in enumerate(values):
        name = value.measure.name
        if name in ("num_ret", "utility", "unj", "rbp_resid"):
            per_query[missing, position] = 0.0
        if name == "relstring":
            for q in missing:
                relstrings[position][int(q)] = ""
    return per_query


def _summaries(
    per_query: np.ndarray, values: Sequence[Value], ranking: Ranking, qrels: Qrels, options: Options
) -> np.ndarray:
    """Every value over all queries, as trec_eval accumulates it (in query order) and averages it."""
    queries = ranking.queries
    sums = np.cumsum(per_query, axis=0)[-1] if queries else np.zeros(len(values))
    summary = np.zeros(len(values))
    for position, value in enumerate(values):
        total = sums[position]
        if value.summary == "mean":
            summary[position] = total / queries
        elif value.summary == "gm":
            summary[position] = math.exp(total / queries)
        elif value.summary == "count":
            summary[position] = queries
        elif value.summary == "sum":
            summary[position] = total
            if value.measure.name == "num_rel" and options.complete:
                # trec_eval -c recounts num_rel over the whole qrels: grades > 0 (whatever -l says).
                summary[position] = float(np.count_nonzero(qrels.rel > 0))
    return summary
