"""A campaign summary that recomputes only what the systems a rerun changed affect.

A campaign's intervals and pair tests come from the systems' statistics over the campaign's units
(``pipeline.campaign.stats``), and their random draws depend only on the seed, the number of resamples
and the number of units (``numpy.random.default_rng(seed)``: first the (R, U) resamples, then the (R, U)
swaps). So, with the same units, seed, resamples and family options:

- a system's bootstrap intervals are a function of its own statistics (``bootstrap_intervals`` works
  column by column after one product of the draws with the statistics);
- a pair's delta and both p-values are a function of the two systems' statistics
  (``pair_tests``: after the same products, each pair's arithmetic is its own). With a and b
  swapped (the ranking changed their order), delta is exactly negated and both p-values are the same
  bits: floating-point rounding is symmetric (``fl(x - y) = -fl(y - x)``), and every test compares
  absolute values.

The products sum statistics weighted by whole numbers, and a system's sums are the same bits whichever
systems are beside it (``stats.resampled_sums``): when every statistic of the family is a count
(templette, MUC, MAT, CLEF), each sum is an exact integer (or half) in float64 whatever the order of the
additions in one product over every system; with fractional statistics (TREC, SENSEVAL) each system's
product is made alone, of the same shape for every system. The measures are made of additions,
multiplications and divisions, element by element, exactly rounded whatever the layout of the arrays
they are computed on. A summary that reuses nothing makes the very calls it made before this module
existed.

A summary records, beside its leaderboard and significance, its units (``SUMMARY_UNITS``) and each
system's statistics (``SUMMARY_SYSTEMS``, the values ``UnitStatistics.from_table`` gives that system).
A later summary, given that record (``Previous``; finding it in the store is ``tasks.campaign.summary``'s
business), takes from it:

- the statistics of the systems whose inputs are unchanged (their tallies need not be read);
- the leaderboard row (counts, measures, signature) of a system whose scores are unchanged;
- the intervals of a system whose statistics over the units are identical, bit for bit, to the record's,
  and the test of a pair whose two systems' statistics are, when the units, resamples, seed and options
  are the same as the record's.

Everything else is computed as a summary without a record computes it, so the tables are the same
bytes either way (``tests/campaign/test_summary_reuse.py`` compares a rerun with a cold run).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.campaign.stats import Interval, PairTests, every_pair
from iescore.pipeline.core.family import Family, UnitStatistics
from iescore.schemas import SUMMARY_CATEGORIES, SUMMARY_SYSTEMS, SUMMARY_UNITS, C


@dataclass(frozen=True, eq=False)
class SystemValues:
    """One system's statistics over the units it has a row for (sorted), shape ``(len(units), K)``."""

    units: tuple[str, ...]
    values: np.ndarray


#: A system's categories (sorted) and each one's statistics summed over the units, ``(C, K)``.
CategorySums = tuple[list[str], np.ndarray]


@dataclass(frozen=True, eq=False)
class PairTable:
    """A summary's pair tests: ``tests`` (``a`` and ``b`` positions among ``systems``)."""

    systems: tuple[str, ...]
    tests: PairTests


@dataclass(frozen=True, eq=False)
class Previous:
    """A previous summary's record and results (see the module doc).

    ``settings``: what its draws and measures depended on (resamples, seed, family, options), compared
    with the current ones as given; ``systems``: name -> its statistics; ``rows``: name -> its
    leaderboard row as a dict; ``pairs``: its pairs' tests (``PairTable``, a ranked above b then);
    ``intervals``: name -> measure -> Interval; ``categories``: name -> its categories and their sums
    (``category_sums``); ``unchanged``: the systems whose inputs are the very artifacts the previous
    summary read (the caller's judgement, by content address).
    """

    settings: Mapping[str, Any]
    units: tuple[str, ...]
    systems: Mapping[str, SystemValues]
    rows: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    intervals: Mapping[str, Mapping[str, Interval]] = field(default_factory=dict)
    pairs: PairTable | None = None
    categories: Mapping[str, CategorySums] = field(default_factory=dict)
    unchanged: frozenset[str] = frozenset()


def system_values(family: Family, name: str, table: pa.Table) -> SystemValues:
    """A system's statistics from its ``STATISTICS`` table, over its own units (checked as
    ``UnitStatistics.from_table`` checks them)."""
    statistics = UnitStatistics.from_table(family, {name: table})
    return SystemValues(statistics.units, statistics.values[0])


def assemble(family: Family, systems: Mapping[str, SystemValues]) -> UnitStatistics:
    """The campaign's statistics: every unit any system has a row for, sorted; a unit a system has no row
    for is zeros for it. The same array ``UnitStatistics.from_table`` builds from all the tables at once
    (each cell sums the same rows in the same order)."""
    units = sorted({unit for one in systems.values() for unit in one.units})
    positions = unit_positions(units)
    values = np.zeros((len(systems), len(units), len(family.statistic_names)))
    for position, one in enumerate(systems.values()):
        if one.units:
            values[position, positions(one.units)] = one.values
    return UnitStatistics(family, tuple(systems), tuple(units), values)


def unit_positions(units: Sequence[str]) -> Callable[[Sequence[str]], np.ndarray]:
    """Where each of a system's units is among ``units``: a function, which looks each distinct list of
    units up once (a campaign's systems mostly have the same units: all the documents)."""
    index = {unit: position for position, unit in enumerate(units)}
    whole = tuple(units)
    found: dict[tuple[str, ...], np.ndarray] = {}

    def positions(own: Sequence[str]) -> np.ndarray:
        own = tuple(own)
        if own == whole:
            return np.arange(len(whole), dtype=np.int64)
        if own not in found:
            found[own] = np.array([index.get(unit, -1) for unit in own], dtype=np.int64)
        return found[own]

    return positions


def record_tables(statistics: UnitStatistics, systems: Mapping[str, SystemValues]) -> dict[str, pa.Table]:
    """The record a summary keeps for later ones: ``units`` (SUMMARY_UNITS) and ``systems``
    (SUMMARY_SYSTEMS), in the statistics' system order."""
    where = unit_positions(statistics.units)
    positions, values = [], []
    for name in statistics.systems:
        one = systems[name]
        positions.append(where(one.units))
        values.append(np.asarray(one.values, dtype=np.float64).ravel())
    units = pa.Table.from_arrays([pa.array(list(statistics.units), pa.string())], schema=SUMMARY_UNITS)
    record = pa.Table.from_arrays(
        [
            pa.array(list(statistics.systems), pa.string()),
            _lists(positions, pa.int64()),
            _lists(values, pa.float64()),
        ],
        schema=SUMMARY_SYSTEMS,
    )
    return {"units": units, "systems": record}


def read_record(
    family: Family, units: pa.Table, systems: pa.Table
) -> tuple[tuple[str, ...], dict[str, SystemValues]]:
    """The units and every system's statistics from a record (``record_tables``'s two tables)."""
    unit_list = tuple(units.column(C.unit).to_pylist())
    width = len(family.statistic_names)
    positions = systems.column(C.unit_positions).combine_chunks()
    values = systems.column(C.statistic_values).combine_chunks()
    flat_positions = positions.flatten().to_numpy()
    flat_values = values.flatten().to_numpy()
    position_offsets = positions.offsets.to_numpy() - positions.offsets[0].as_py()
    value_offsets = values.offsets.to_numpy() - values.offsets[0].as_py()
    every = np.arange(len(unit_list))
    found: dict[str, SystemValues] = {}
    for row, name in enumerate(systems.column(C.system).to_pylist()):
        own = flat_positions[position_offsets[row] : position_offsets[row + 1]]
        numbers = flat_values[value_offsets[row] : value_offsets[row + 1]]
        if len(numbers) != len(own) * width or (len(own) and (own.min() < 0 or own.max() >= len(unit_list))):
            raise ValueError(f"summary record of system {name!r}: positions and values do not agree")
        # A system with every unit (most of them) shares the one tuple of units.
        system_units = unit_list if np.array_equal(own, every) else tuple(unit_list[p] for p in own)
        found[name] = SystemValues(system_units, numbers.reshape(len(own), width).copy())
    return unit_list, found


def categories_table(systems: Mapping[str, CategorySums]) -> pa.Table:
    """Every system's category sums as one ``SUMMARY_CATEGORIES`` table, systems in the given order."""
    names = [name for name, (categories, _) in systems.items() for _ in categories]
    categories = [category for found, _ in systems.values() for category in found]
    sums = [row for _, values in systems.values() for row in np.asarray(values, dtype=np.float64)]
    return pa.Table.from_arrays(
        [pa.array(names, pa.string()), pa.array(categories, pa.string()), _lists(sums, pa.float64())],
        schema=SUMMARY_CATEGORIES,
    )


def no_sums(family: Family) -> np.ndarray:
    """The sums of a system without categories: ``(0, K)``."""
    return np.zeros((0, len(family.statistic_names)))


def read_categories(family: Family, table: pa.Table) -> dict[str, CategorySums]:
    """The systems' category sums of a ``SUMMARY_CATEGORIES`` table (``categories_table``'s inverse)."""
    width = len(family.statistic_names)
    values = table.column(C.statistic_values).combine_chunks()
    if len(values.flatten()) != len(values) * width:
        raise ValueError("summary categories: every row must hold the family's statistics")
    flat = values.flatten().to_numpy().reshape(len(values), width)
    found: dict[str, tuple[list[str], list[int]]] = {}
    for row, (name, category) in enumerate(
        zip(table.column(C.system).to_pylist(), table.column(C.category).to_pylist(), strict=True)
    ):
        names, rows = found.setdefault(name, ([], []))
        names.append(category)
        rows.append(row)
    return {name: (names, flat[rows]) for name, (names, rows) in found.items()}


def same_statistics(
    previous: Previous | None, statistics: UnitStatistics, settings: Mapping[str, Any]
) -> set[str]:
    """The systems whose statistics over the campaign's units are those of ``previous``, bit for bit,
    under the same units and settings."""
    if previous is None:
        return set()
    if dict(previous.settings) != dict(settings) or previous.units != statistics.units:
        return set()
    where = unit_positions(statistics.units)
    same = set()
    for position, name in enumerate(statistics.systems):
        old = previous.systems.get(name)
        if old is None:
            continue
        aligned = np.zeros_like(statistics.values[position])
        if old.units:
            aligned[where(old.units)] = old.values
        if np.array_equal(aligned, statistics.values[position]):
            same.add(name)
    return same


def intervals_reusing(
    statistics: UnitStatistics,
    same: set[str],
    previous: Previous | None,
    compute: Callable[[UnitStatistics], dict[str, dict[str, Interval]]],
) -> dict[str, dict[str, Interval]]:
    """Every system's intervals: ``previous``'s for the systems in ``same`` (``same_statistics``), the rest
    from ``compute`` on those systems alone (the same values as over all: see the module doc)."""
    kept = {name for name in same if previous is not None and name in previous.intervals}
    fresh = [name for name in statistics.systems if name not in kept]
    # Nothing reused: the very call a summary without a record makes.
    computed = compute(statistics if not kept else statistics.select(fresh)) if fresh else {}
    return {
        name: dict(previous.intervals[name]) if name in kept else computed[name]  # type: ignore[union-attr]
        for name in statistics.systems
    }


def pairs_reusing(
    ranked: UnitStatistics,
    same: set[str],
    previous: Previous | None,
    compute: Callable[[UnitStatistics, np.ndarray | None], PairTests],
) -> PairTests:
    """Every pair's test in ``stats.pair_tests``' order over ``ranked``: ``previous``'s for a pair of two
    systems in ``same`` (delta negated when their order flipped), the others from ``compute``
    (``stats.pair_tests`` with ``pairs``; None: all of them)."""
    n_systems = len(ranked.systems)
    pairs = every_pair(n_systems)
    rows = _previous_rows(ranked.systems, same, previous, pairs)
    if previous is None or previous.pairs is None or not rows.any():
        # Nothing reused: every pair, by the very call a summary without a record makes.
        return compute(ranked, None)
    old = previous.pairs.tests
    found = rows != 0
    taken = np.abs(rows[found]) - 1
    flipped = rows[found] < 0
    delta = np.full(len(pairs), np.nan)
    bootstrap, shuffled = delta.copy(), delta.copy()
    delta[found] = np.where(flipped, -old.delta[taken], old.delta[taken])
    bootstrap[found] = old.paired_bootstrap_p[taken]
    shuffled[found] = old.randomization_p[taken]
    missing = np.flatnonzero(~found)
    if len(missing):
        fresh = compute(ranked, pairs[missing])
        delta[missing] = fresh.delta
        bootstrap[missing] = fresh.paired_bootstrap_p
        shuffled[missing] = fresh.randomization_p
    return PairTests(pairs[:, 0].copy(), pairs[:, 1].copy(), delta, bootstrap, shuffled)


def _previous_rows(
    systems: Sequence[str], same: set[str], previous: Previous | None, pairs: np.ndarray
) -> np.ndarray:
    """For each of ``pairs`` (positions among ``systems``), the row of ``previous``'s pair tests of the
    same two systems plus one (negative when it lists them in the other order), when both are in
    ``same``; else 0."""
    rows = np.zeros(len(pairs), dtype=np.int64)
    if previous is None or previous.pairs is None or not same:
        return rows
    old = previous.pairs
    n_old = len(old.systems)
    position = {name: i for i, name in enumerate(old.systems)}
    where = np.array([position.get(name, -1) if name in same else -1 for name in systems], dtype=np.int64)
    a, b = where[pairs[:, 0]], where[pairs[:, 1]]
    both = (a >= 0) & (b >= 0)
    keys = old.tests.a * n_old + old.tests.b
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]

    def look_up(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        wanted = first * n_old + second
        at = np.minimum(np.searchsorted(sorted_keys, wanted), max(len(sorted_keys) - 1, 0))
        hit = both & (len(sorted_keys) > 0)
        hit &= sorted_keys[at] == wanted if len(sorted_keys) else False
        return np.where(hit, order[at] + 1, 0)

    forward = look_up(a, b)
    backward = look_up(b, a)
    return np.where(forward > 0, forward, -backward)


def pairs_from_table(significance: pa.Table) -> PairTable:
    """A significance table's pair tests (``PairTable``): its systems in order of first mention."""
    named = pa.chunked_array(
        significance.column(C.system_a).chunks + significance.column(C.system_b).chunks, pa.string()
    )
    systems = pc.unique(named)
    a, b = (
        pc.index_in(significance.column(name), value_set=systems).to_numpy(zero_copy_only=False)
        for name in (C.system_a, C.system_b)
    )
    arrays = [
        np.asarray(significance.column(name).to_numpy(zero_copy_only=False), dtype=np.float64)
        for name in (C.delta, C.paired_bootstrap_p, C.randomization_p)
    ]
    tests = PairTests(np.asarray(a, np.int64), np.asarray(b, np.int64), *arrays)
    return PairTable(tuple(systems.to_pylist()), tests)


def _lists(arrays: Sequence[np.ndarray], value_type: pa.DataType) -> pa.Array:
    lengths = np.array([len(a) for a in arrays], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    flat = np.concatenate(arrays) if arrays else np.zeros(0)
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(flat, value_type))
