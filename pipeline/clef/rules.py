"""Matching predictions to gold mentions in every mode, and the per-report counts (seed 004, Task 1, 2).

:func:`match_columns` gives every gold mention and every prediction its status in each mode
(``pipeline.clef.tables.matches_table`` lays them out as the auditable artifact the statistics, the
eval.pl report and the Workbench are all computed from):

- **exact**: a mention of the other side in the same report has exactly the same offsets (all pieces);
  offsets are unique per report and side (the reader keeps the last of two), so this pairs one to one;
- **cui_match**: that exact partner has the same CUI (lower-cased; ``cui-less`` is a value like any
  other). **nbest_match**: for a gold mention, the partner's code is in the gold's code list (Task 2's
  n-best; for Task 1 the list is the CUI alone); for a prediction, its code is in its partner's list;
- **overlap**: some piece of it shares at least one character with some piece of a mention of the other
  side in the same report (half-open offsets: ``[0, 5)`` and ``[5, 9)`` touch and do not overlap, and a
  zero-length piece overlaps nothing). eval.pl's overlap test differs in one case: it takes a
  zero-length piece strictly inside another for an overlap (``tests/data/clef`` shows it);
- **overlap_cui**: some overlapping mention of the other side has the same CUI (the Workbench's
  Span&Class mode with overlap matching);
- **one_to_one**: overlapping mentions paired one to one, greedily, largest overlap first: the pairs are
  ranked by the characters their pieces share (more first), then by the gold mention's first start,
  last end and offsets, then the prediction's; a pair is taken when neither mention is taken yet. The
  ranking never looks at reading order, so the same files in any order pair the same way. Computed
  without a loop over pairs: every round takes each pair that ranks first among the remaining pairs of
  both its mentions (what the greedy sweep would take next), then drops the pairs of taken mentions.

Overlapping pieces are found with ``pipeline.core.spans`` (a sort and sweep per report, never all
pairs within a report); exact matches with a join on (report, offsets). Everything is numpy and Arrow
(no pandas); ``tally_mentions`` counts the statistics of the matches table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.clef.measures import CLEF_STATISTICS
from iescore.pipeline.clef.reader import FRAME_COLUMNS, Mentions, mention_codes
from iescore.pipeline.core.arrays import strings, to_arrow, to_numpy
from iescore.pipeline.core.spans import overlap_pairs
from iescore.schemas import STATISTICS

#: Columns of the match table (schema ``CLEF_MATCHES``), in order.
MATCH_COLUMNS = (
    "side",
    *FRAME_COLUMNS,
    "exact",
    "partner",
    "partner_cui",
    "cui_match",
    "nbest_match",
    "overlap",
    "overlap_cui",
    "one_to_one",
    "one_to_one_chars",
)
#: The per-side status columns of :class:`MatchColumns` (numpy), in ``MATCH_COLUMNS`` order.
STATUS_COLUMNS = (
    "exact",
    "partner",
    "cui_match",
    "nbest_match",
    "overlap",
    "overlap_cui",
    "one_to_one",
    "one_to_one_chars",
)


@dataclass
class MatchColumns:
    """Every mention's status in each mode (module doc), as numpy arrays per side: ``gold[name]`` and
    ``system[name]`` for each of ``STATUS_COLUMNS``; ``reports`` the sorted report names of both sides
    and ``report_gold``, ``report_system`` each mention's index into them."""

    gold: dict[str, np.ndarray]
    system: dict[str, np.ndarray]
    reports: pa.Array
    report_gold: np.ndarray
    report_system: np.ndarray


@dataclass
class ReportCounts:
    """Per-report counts (the ``--by-report`` table): ``reports`` sorted, ``values`` one row per
    report, one int64 column per statistic of ``CLEF_STATISTICS``."""

    reports: list[str]
    values: np.ndarray

    def sums(self) -> np.ndarray:
        """The totals over all reports, float64, in ``CLEF_STATISTICS`` order."""
        return self.values.sum(axis=0).astype(np.float64)


def match_columns(gold: Mentions, system: Mentions) -> MatchColumns:
    """Every gold mention's and prediction's status in each mode (module doc), numpy and Arrow only.

    ``partner`` is the exact partner's ``mention`` on the other side (-1 when none), ``one_to_one``
    the one-to-one partner's (-1) and ``one_to_one_chars`` the characters shared with it (0).
    """
    n_g, n_s = len(gold), len(system)
    # Strings become integer codes shared by both sides, once: reports (sorted: the by-report order)
    # and CUIs for equality; each mention's (report, offsets) becomes one integer (no text).
    reports, report_g, report_s = _joint_codes(gold.column("report"), system.column("report"), sort=True)
    _, cui_g, cui_s = _joint_codes(gold.column("cui"), system.column("cui"), sort=False)
    (g_offsets, g_counts), (s_offsets, s_counts) = gold.offsets, system.offsets
    codes = mention_codes(
        np.concatenate([report_g, report_s]),
        np.concatenate([g_offsets, s_offsets]),
        np.concatenate([g_counts, s_counts]),
    )
    # Exact: the same (report, offsets); unique per side, so a lookup pairs them one to one.
    g_partner = _find(codes[:n_g], codes[n_g:])
    paired_g = np.flatnonzero(g_partner >= 0)
    paired_s = g_partner[paired_g]
    s_partner = np.full(n_s, -1, dtype=np.int64)
    s_partner[paired_s] = paired_g
    same_code = cui_g[paired_g] == cui_s[paired_s]
    in_list = _in_code_list(
        system.column("cui").take(to_arrow(paired_s)),
        gold.column("codes").take(to_arrow(paired_g)),
        same_code,
    )
    pair_g, pair_s, pair_chars = _overlapping_mentions(gold, system, report_g, report_s)
    pair_same_cui = cui_g[pair_g] == cui_s[pair_s]
    chosen_g, chosen_s, chosen_chars = _one_to_one(
        pair_g, pair_s, pair_chars, gold, system, report_g, report_s
    )

    def side(n: int, partner: np.ndarray, paired: np.ndarray, overlapping: np.ndarray, chosen: np.ndarray,
             other: np.ndarray) -> dict[str, np.ndarray]:  # fmt: skip
        return {
            "exact": partner >= 0,
            "partner": partner,
            "cui_match": _lookup(n, paired, same_code, False),
            "nbest_match": _lookup(n, paired, in_list, False),
            "overlap": _flags(n, overlapping),
            "overlap_cui": _flags(n, overlapping[pair_same_cui]),
            "one_to_one": _lookup(n, chosen, other, -1),
            "one_to_one_chars": _lookup(n, chosen, chosen_chars, 0),
        }

    return MatchColumns(
        gold=side(n_g, g_partner, paired_g, pair_g, chosen_g, chosen_s),
        system=side(n_s, s_partner, paired_s, pair_s, chosen_s, chosen_g),
        reports=reports,
        report_gold=report_g,
        report_system=report_s,
    )


def tally_mentions(matches: Any, by_cui: bool = True) -> pa.Table:
    """Per (report, CUI) counts of every statistic of ``CLEF_STATISTICS``, the family's sufficient
    statistics, as a ``STATISTICS`` table: unit (the report), category (the CUI), statistic, value.
    Only nonzero values have a row, but every report of either side has at least one (a report is a
    unit the bootstrap resamples even when all its counts are 0).

    True positives and false positives are counted on predictions and go to the prediction's CUI
    (eval.pl counts its relaxed TPs on predictions; an exact or one-to-one pair counts once either way,
    and ``correct`` pairs have one CUI), false negatives and ``nbest_correct`` on gold mentions and go
    to the gold's (top) CUI. So the categories partition each report's counts. ``by_cui=False``: one
    row per report and statistic, category null (what ``iescore clef`` needs: the totals and per-report
    counts, without the heat map's millions of rows on a large corpus). ``matches``: a ``CLEF_MATCHES``
    table (``pipeline.clef.tables.matches_table``).
    """

    def flags(name: str) -> np.ndarray:
        return to_numpy(matches.column(name).combine_chunks())

    side = matches.column("side").combine_chunks()
    counts = _statistic_flags(
        to_numpy(pc.equal(side, strings(["gold"])[0])),
        flags("exact"),
        flags("overlap"),
        flags("one_to_one") >= 0,
        flags("cui_match"),
        flags("nbest_match"),
    )
    report_code, reports = _sorted_codes(matches.column("report"))
    if by_cui:
        cui_code, cuis = _sorted_codes(matches.column("cui"))
    else:
        cui_code, cuis = np.zeros(matches.num_rows, dtype=np.int64), strings([""])
    width = max(len(cuis), 1) if by_cui else 1
    group, first = _distinct(report_code * width + cui_code, len(reports) * width)
    sums = np.stack(
        [np.bincount(first[counts[name]], minlength=len(group)) for name in CLEF_STATISTICS], axis=1
    )
    row, statistic = np.nonzero(sums)  # row-major: by report, then CUI (both sorted), then statistic
    unit, category, values = group[row] // width, group[row] % width, sums[row, statistic]
    # A report whose counts are all 0 still has a row: its strict_tp of 0, category null (a report
    # always has a mention and a mention always counts somewhere, but the rule costs nothing).
    counted = np.zeros(len(reports), dtype=bool)
    counted[unit] = True
    missing = np.flatnonzero(~counted)
    null = np.full(len(missing) + len(unit), not by_cui)
    null[: len(missing)] = True
    unit = np.concatenate([missing, unit])
    category = np.concatenate([np.zeros(len(missing), dtype=np.int64), category])
    statistic = np.concatenate([np.zeros(len(missing), dtype=np.int64), statistic])
    values = np.concatenate([np.zeros(len(missing)), values])

    def labels(index: np.ndarray, dictionary: pa.Array, mask: np.ndarray | None = None) -> pa.Array:
        indices = to_arrow(index.astype(np.int32), mask=mask)
        return pa.DictionaryArray.from_arrays(indices, dictionary.cast(pa.string())).cast(pa.string())

    return pa.Table.from_arrays(
        [
            labels(unit, reports),
            labels(category, cuis, null),
            labels(statistic, strings(list(CLEF_STATISTICS))),
            to_arrow(values, pa.float64()),
        ],
        schema=STATISTICS,
    )


def totals(statistics: pa.Table) -> np.ndarray:
    """The sums of a ``STATISTICS`` table as a vector in ``CLEF_STATISTICS`` order."""
    return by_report(statistics).sums()


def by_report(statistics: pa.Table) -> ReportCounts:
    """The per-report counts of a ``STATISTICS`` table (the ``--by-report`` counts), reports sorted.

    The table has a row per report, CUI and statistic (millions for a large campaign): each row's
    (report, statistic) cell is one integer, and the cells are summed by one ``bincount``.
    """
    row, units = _sorted_codes(statistics.column("unit"))
    column = to_numpy(
        pc.index_in(statistics.column("statistic"), value_set=strings(list(CLEF_STATISTICS)))
    ).astype(np.int64)
    width = len(CLEF_STATISTICS)
    cells = np.bincount(
        row * width + column, weights=to_numpy(statistics.column("value")), minlength=len(units) * width
    )
    return ReportCounts(units.to_pylist(), cells.reshape(len(units), width).astype(np.int64))


# ------------------------------------------------------------------------------------------- helpers


def _sorted_codes(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """Each value's code among the column's distinct values sorted (code point order), and those values."""
    dictionary, indices = _encode(column)
    order = to_numpy(pc.array_sort_indices(dictionary)).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[indices], dictionary.take(to_arrow(order))


def _encode(column: pa.ChunkedArray) -> tuple[pa.Array, np.ndarray]:
    """The distinct values of a string column (Arrow's hash) and each row's index into them (int64).

    The chunks are encoded as they are, not joined into one array first: Arrow's hash gives every chunk
    the one dictionary of all their values (checked; joined when it did not)."""
    encoded = pc.dictionary_encode(column)
    if not isinstance(encoded, pa.ChunkedArray):
        return encoded.dictionary, to_numpy(encoded.indices).astype(np.int64)
    chunks = encoded.chunks
    if not chunks or not all(chunk.dictionary.equals(chunks[-1].dictionary) for chunk in chunks[:-1]):
        chunks = [pc.dictionary_encode(column.combine_chunks())]
    indices = np.concatenate([to_numpy(chunk.indices).astype(np.int64) for chunk in chunks])
    return chunks[-1].dictionary, indices


def _distinct(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_inverse=True)`` for codes in ``0 .. size-1``: by a table of the values
    present when ``size`` is not much more than the codes' count (no sort), else by ``np.unique``."""
    if size > 4 * len(codes) + 1024:
        group, inverse = np.unique(codes, return_inverse=True)
        return group, inverse.reshape(-1)
    present = np.zeros(size, dtype=bool)
    present[codes] = True
    return np.flatnonzero(present), (np.cumsum(present) - 1)[codes]


def _statistic_flags(
    gold: np.ndarray,
    exact: np.ndarray,
    overlap: np.ndarray,
    paired: np.ndarray,
    cui_match: np.ndarray,
    nbest_match: np.ndarray,
) -> dict[str, np.ndarray]:
    """Which mentions count in each statistic (module doc of ``pipeline.clef.family``)."""
    system = ~gold
    return {
        "strict_tp": system & exact,
        "strict_fp": system & ~exact,
        "strict_fn": gold & ~exact,
        "relaxed_tp": system & overlap,
        "relaxed_fp": system & ~overlap,
        "relaxed_fn": gold & ~overlap,
        "one_to_one_tp": system & paired,
        "one_to_one_fp": system & ~paired,
        "one_to_one_fn": gold & ~paired,
        "correct": system & cui_match,
        "nbest_correct": gold & nbest_match,
    }


def _overlapping_mentions(
    gold: Mentions, system: Mentions, report_g: np.ndarray, report_s: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gold mention, system mention, characters their pieces share) for every overlapping pair, sorted
    by gold then system mention; ``report_g``, ``report_s``: each mention's report code."""
    g_mention, s_mention = gold.piece_mention, system.piece_mention
    g_start, g_end, s_start, s_end = gold.piece_start, gold.piece_end, system.piece_start, system.piece_end
    gi, si = overlap_pairs(report_g[g_mention], g_start, g_end, report_s[s_mention], s_start, s_end)
    shared = np.minimum(g_end[gi], s_end[si]) - np.maximum(g_start[gi], s_start[si])
    width = max(len(system), 1)
    pair = g_mention[gi] * width + s_mention[si]
    # The piece pairs come sorted by (gold piece, system piece), and pieces are grouped by mention, so
    # the mention pairs are sorted but around discontiguous mentions: a stable sort merges those runs
    # (about linear), and each mention pair's shared characters are summed over its run.
    order = np.argsort(pair, kind="stable")
    pair = pair[order]
    head = np.ones(len(pair), dtype=bool)
    head[1:] = pair[1:] != pair[:-1]
    heads = np.flatnonzero(head)
    distinct = pair[heads]
    chars = np.add.reduceat(shared[order], heads) if len(heads) else np.zeros(0, dtype=np.int64)
    return distinct // width, distinct % width, chars


def _one_to_one(
    g: np.ndarray,
    s: np.ndarray,
    chars: np.ndarray,
    gold: Mentions,
    system: Mentions,
    report_g: np.ndarray,
    report_s: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The greedy one-to-one pairing of overlapping mention pairs ``(g, s)`` sharing ``chars``
    characters, largest overlap first (module doc); ``report_g``, ``report_s`` each mention's report
    code. Returns the chosen pairs' gold, system and chars, by gold mention."""
    if len(g) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    # Rank each side's mentions by (report, first start, last end, offsets key) once, then the pairs by two
    # int64 keys: (report, more shared characters first) and (the gold's rank, the prediction's rank).
    # The same order as a lexsort of all seven columns, cheaper.
    g_rank = _rank(gold, report_g)
    s_rank = _rank(system, report_s)
    most = int(chars.max()) + 1
    by_report = report_g[g] * most + (most - 1 - chars)
    by_mentions = g_rank[g] * max(len(system), 1) + s_rank[s]
    order = np.lexsort((by_mentions, by_report))
    # In rank order, a pair is what the greedy sweep takes next when it is the first live pair of both its
    # gold mention and its prediction; taking all such pairs at once changes nothing (none shares a
    # mention with another), and the rounds end when no live pair is left.
    ranked_g, ranked_s = g[order], s[order]
    live = np.ones(len(order), dtype=bool)
    taken = np.zeros(len(order), dtype=bool)
    used_g = np.zeros(len(gold), dtype=bool)
    used_s = np.zeros(len(system), dtype=bool)
    while live.any():
        position = np.flatnonzero(live)
        now = position[_firsts(ranked_g[position], len(gold)) & _firsts(ranked_s[position], len(system))]
        taken[now] = True
        used_g[ranked_g[now]] = True
        used_s[ranked_s[now]] = True
        live[position] = ~(used_g[ranked_g[position]] | used_s[ranked_s[position]])
    chosen = np.sort(order[taken], kind="stable")  # reports come in runs: a merge of them
    return g[chosen], s[chosen], chars[chosen]


def _find(needles: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each needle, the index of the equal element of ``values`` (distinct), -1 when none (by a
    sort: the codes come nearly sorted, in reading order)."""
    if len(values) == 0:
        return np.full(len(needles), -1, dtype=np.int64)
    order = np.argsort(values, kind="stable")  # a merge of the sorted runs
    ordered = values[order]
    at = np.minimum(np.searchsorted(ordered, needles), len(values) - 1)
    return np.where(ordered[at] == needles, order[at], -1).astype(np.int64)


def _rank(mentions: Mentions, report: np.ndarray) -> np.ndarray:
    """Each mention's rank by (report, first start, last end, offsets key as text): distinct ranks,
    0 .. n-1. One argsort of an int64 made of the first three; the keys' text is written only for
    mentions of one report with the same start and end (discontiguous ones), to order those.
    """
    start, end = mentions.ints("start"), mentions.ints("end")
    if len(start) == 0:
        return np.zeros(0, dtype=np.int64)
    starts, ends = int(start.max()) + 1, int(end.max()) + 1
    if (int(report.max()) + 1) * starts * ends >= 2**62:
        texts = _text_ranks(mentions.key)
        order = np.lexsort((texts, end, start, report))
    else:
        value = (report * starts + start) * ends + end
        order = np.argsort(value, kind="stable")
        ordered = value[order]
        same = ordered[1:] == ordered[:-1]
        tied = np.zeros(len(order), dtype=bool)
        tied[1:] |= same
        tied[:-1] |= same
        if tied.any():  # contiguous runs of equal values: order each by the keys' text
            rows = order[tied]
            texts = _text_ranks(mentions.key.take(to_arrow(rows)))
            order[tied] = rows[np.lexsort((texts, value[rows]))]
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def _text_ranks(texts: pa.Array) -> np.ndarray:
    """Each string's rank in sorted (code point) order; equal strings, equal ranks are not needed
    (callers' strings are distinct within a report), any order among them."""
    order = to_numpy(pc.array_sort_indices(texts)).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def _firsts(values: np.ndarray, size: int) -> np.ndarray:
    """Whether each element is the first occurrence of its value (values in ``0 .. size-1``)."""
    index = np.arange(len(values))
    first = np.full(size, len(values), dtype=np.int64)
    np.minimum.at(first, values, index)
    return first[values] == index


def _joint_codes(a: pa.Array, b: pa.Array, sort: bool) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """Integer codes of two string columns over one shared set of values (Arrow's hash; the values'
    sorted order when ``sort``), and the values (sorted when ``sort``)."""
    both = pa.chunked_array([a, b])
    if sort:
        codes, values = _sorted_codes(both)
    else:
        values, codes = _encode(both)
    return values, codes[: len(a)], codes[len(a) :]


def _in_code_list(code: pa.Array, lists: pa.Array, same: np.ndarray) -> np.ndarray:
    """Whether each ``code`` is among the whitespace-separated codes of ``lists`` (a join, not a loop;
    split as Python's ``str.split()`` splits, by pandas, imported only when some list has a space)."""
    if len(lists) == 0 or not pc.any(pc.match_substring(lists, " ")).as_py():
        return same
    import pandas as pd

    lists_ = pd.Series(lists.to_pylist(), dtype=object)
    exploded = lists_.str.split().explode()
    answers = np.asarray(code.to_pylist(), dtype=object)
    hit = exploded.to_numpy() == answers[exploded.index.to_numpy()]
    found = np.zeros(len(code), dtype=bool)
    found[exploded.index.to_numpy()[hit]] = True
    return found


def _lookup(size: int, index: np.ndarray, values: object, default: object) -> np.ndarray:
    """An array of ``size`` holding ``values`` at ``index`` and ``default`` elsewhere."""
    values = np.asarray(values)
    out = np.full(size, default, dtype=np.result_type(values.dtype, np.asarray(default).dtype))
    out[np.asarray(index, dtype=np.int64)] = values
    return out


def _flags(size: int, index: np.ndarray) -> np.ndarray:
    out = np.zeros(size, dtype=bool)
    out[np.asarray(index, dtype=np.int64)] = True
    return out
