"""The family contract: sufficient statistics per unit, and measures computed from their sums.

A scorer family (templette, MUC, coreference; later MAT, SENSEVAL, CLEF, TREC) declares:

- its **unit**, what a bootstrap resamples: documents (templette, MUC, coreference, MAT, CLEF), instances
  (SENSEVAL), queries (TREC);
- its **statistics**, a fixed, named vector of numbers per (system, unit). Floats are allowed (SENSEVAL
  credit is fractional, a TREC average precision is per query); the statistics of a set of units are the
  sums of its units'. So a resampled or shuffled corpus is scored by re-weighting and summing, never by
  rescoring, and a measure that is a mean over units (TREC MAP) is a sum of per-unit values and a count;
- its **measures**, computed from summed statistics only and vectorised over any leading axes:
  ``Family.measures(sums[..., K], options) -> values[..., M]``, NaN where a measure is undefined (never 0);
- its **headline** measure (the leaderboard's ranking and the measure significance tests compare) and the
  label of its **categories** (the heat map's rows: slots, object classes, tags, CUIs, lexical items).

Per system the statistics travel as a long table of schema ``schemas.STATISTICS`` (unit, category,
statistic, value: see its doc strings); :meth:`UnitStatistics.from_table` turns the tables of several
systems into one ``(systems, units, statistics)`` array, which is all ``pipeline.campaign.stats`` needs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.lookup import positions
from iescore.schemas import STATISTICS, C

#: ``formula(sums[..., K] as float64, options) -> values[..., M]``; NaN where undefined. A family whose
#: formula is ``selective`` takes a third argument too, the positions of the measures wanted, and returns
#: those alone in that order (``values[..., len(wanted)]``).
Formula = Callable[..., np.ndarray]


@dataclass(frozen=True)
class MeasureForms:
    """One measure as a function of a few linear forms of the statistics, for the pair tests' millions of
    shuffled sums: ``forms(sums[..., K]) -> [..., L]``, and ``measure(planes[L, ...]) -> [...]`` of the forms
    stacked on the first axis. ``measure(moveaxis(forms(x), -1, 0))`` is the family's measure of ``x`` bit
    for bit, and sums and differences of forms are the forms of the sums and differences, exactly: a form
    is a statistic itself, or a sum of counts with coefficients that are binary fractions (whole numbers
    and halves are exact in float64). So a test can add and subtract L planes per pair instead of K."""

    forms: Callable[[np.ndarray], np.ndarray]
    measure: Callable[[np.ndarray], np.ndarray]


#: ``reduced(measure, options) -> MeasureForms | None``: a family's forms of one measure (None: that
#: measure has none; every statistic is then a form of its own).
Reduction = Callable[[str, Mapping[str, Any]], "MeasureForms | None"]


@dataclass(frozen=True, eq=False)
class Family:
    """A scorer family's statistics and measures (see the module doc).

    ``counts`` names the statistics that are counts: whole numbers, never negative (COR, a
    denominator...); every other statistic may be any finite number. ``options`` are the options the
    formula takes, with their defaults (templette: ``beta``); :meth:`measures` refuses any other.
    Compared by identity (``eq=False``): a family is a declaration, and its formula has no equality.
    """

    name: str
    unit: str
    statistic_names: tuple[str, ...]
    measure_names: tuple[str, ...]
    headline: str
    categories: str | None
    formula: Formula
    counts: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    #: The measures where lower is better (an error rate: WER); a campaign ranked by one of them ranks
    #: the lowest first. Every other measure: higher is better.
    lower_better: tuple[str, ...] = ()
    #: Whether the formula can compute some measures alone (see ``Formula``): a campaign's pair tests
    #: need the headline of millions of sums, and nothing else.
    selective: bool = False
    #: The forms of a measure (``Reduction``), for the pair tests; None: every statistic is a form.
    reduced: Reduction | None = None

    def __post_init__(self) -> None:
        for attribute in ("statistic_names", "measure_names", "counts", "lower_better"):
            object.__setattr__(self, attribute, tuple(getattr(self, attribute)))
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        if not self.name or not self.unit:
            raise ValueError(f"family {self.name!r}: a name and a unit are required")
        for kind, names in (("statistic", self.statistic_names), ("measure", self.measure_names)):
            if not names:
                raise ValueError(f"family {self.name!r}: at least one {kind} expected")
            _require_unique(f"family {self.name!r}: {kind}", names)
        if self.headline not in self.measure_names:
            raise ValueError(
                f"family {self.name!r}: unknown headline {self.headline!r}; measures: {self.measure_names}"
            )
        unknown = [name for name in self.counts if name not in self.statistic_names]
        if unknown:
            raise ValueError(f"family {self.name!r}: counts {unknown} are not among its statistics")
        unknown = [name for name in self.lower_better if name not in self.measure_names]
        if unknown:
            raise ValueError(f"family {self.name!r}: lower_better {unknown} are not among its measures")
        if not callable(self.formula):
            raise ValueError(f"family {self.name!r}: its formula must be callable")

    def measures(self, sums: np.ndarray, options: Mapping[str, Any] | None = None) -> np.ndarray:
        """Every measure of summed statistics ``[..., K]`` as ``[..., M]`` float64, NaN where undefined.

        Leading axes are kept (``(resamples, systems, K) -> (resamples, systems, M)``).
        """
        sums = np.asarray(sums, dtype=np.float64)
        width = len(self.statistic_names)
        if sums.shape[-1:] != (width,):
            raise ValueError(
                f"family {self.name!r}: sums must have a last axis of {width} statistics "
                f"{self.statistic_names}, got shape {sums.shape}"
            )
        values = np.asarray(self.formula(sums, self.resolve(options)), dtype=np.float64)
        expected = (*sums.shape[:-1], len(self.measure_names))
        if values.shape != expected:
            raise ValueError(
                f"family {self.name!r}: its formula gave shape {values.shape}, expected {expected}"
            )
        return values

    def measure(self, sums: np.ndarray, measure: str, options: Mapping[str, Any] | None = None) -> np.ndarray:
        """One measure of summed statistics ``[..., K]`` as ``[...]`` float64, NaN where undefined: the
        value :meth:`measures` gives for it, computed alone when the formula is ``selective``."""
        index = self.measure_index(measure)
        if not self.selective:
            return self.measures(sums, options)[..., index]
        sums = np.asarray(sums, dtype=np.float64)
        if sums.shape[-1:] != (len(self.statistic_names),):
            raise ValueError(
                f"family {self.name!r}: sums must have a last axis of {len(self.statistic_names)} "
                f"statistics {self.statistic_names}, got shape {sums.shape}"
            )
        values = np.asarray(self.formula(sums, self.resolve(options), (index,)), dtype=np.float64)
        if values.shape != (*sums.shape[:-1], 1):
            raise ValueError(
                f"family {self.name!r}: its formula gave shape {values.shape} for one measure, expected "
                f"{(*sums.shape[:-1], 1)}"
            )
        return values[..., 0]

    def measure_forms(self, measure: str, options: Mapping[str, Any] | None = None) -> MeasureForms:
        """``measure`` as a function of linear forms of the statistics (see ``MeasureForms``): the
        family's own (``reduced``), else the K statistics themselves as the forms."""
        self.measure_index(measure)
        resolved = self.resolve(options)
        own = self.reduced(measure, resolved) if self.reduced is not None else None
        if own is not None:
            return own
        return MeasureForms(
            forms=lambda sums: sums,
            measure=lambda planes: self.measure(np.moveaxis(planes, 0, -1), measure, resolved),
        )

    def resolve(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The family's default options updated with ``options``; an option it does not take is an error."""
        resolved = dict(self.options)
        for name, value in (options or {}).items():
            if name not in resolved:
                raise ValueError(
                    f"family {self.name!r} has no option {name!r}; its options: {sorted(resolved) or 'none'}"
                )
            resolved[name] = value
        return resolved

    def sign(self, measure: str | None = None) -> float:
        """+1 where higher is better for ``measure`` (default: the headline), -1 where lower is: a
        measure times its sign ranks higher-is-better."""
        return -1.0 if (measure or self.headline) in self.lower_better else 1.0

    def measure_index(self, measure: str) -> int:
        if measure not in self.measure_names:
            raise ValueError(
                f"unknown measure {measure!r} of family {self.name!r}; expected one of {self.measure_names}"
            )
        return self.measure_names.index(measure)


@dataclass(frozen=True, eq=False)
class UnitStatistics:
    """Statistics of several systems over one common, ordered list of units.

    ``values[s, u]`` is the statistics vector of ``systems[s]`` in ``units[u]`` (shape ``(S, U, K)``,
    float64, a private read-only copy). The unit order matters only as the order in which resampling
    draws units, so with a fixed seed it is part of what determines the results. Every value is
    finite, and the family's counts are whole numbers >= 0.
    """

    family: Family
    systems: tuple[str, ...]
    units: tuple[str, ...]
    values: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "systems", tuple(self.systems))
        object.__setattr__(self, "units", tuple(self.units))
        _require_unique("system", self.systems)
        _require_unique("unit", self.units)
        values = np.asarray(self.values)
        names = self.family.statistic_names
        expected = (len(self.systems), len(self.units), len(names))
        if values.shape != expected:
            raise ValueError(
                f"statistics have shape {values.shape}, expected (systems, units, statistics): {expected}"
            )
        if values.size and not (
            np.issubdtype(values.dtype, np.integer) or np.issubdtype(values.dtype, np.floating)
        ):
            raise ValueError(f"statistics must be numbers, got dtype {values.dtype}")
        values = np.array(values, dtype=np.float64)  # a private copy, so freezing it freezes nobody else's
        if not np.isfinite(values).all():
            raise ValueError("statistics must be finite numbers")
        counts = [names.index(name) for name in self.family.counts]
        if counts and values.size:
            counted = values[..., counts]
            if counted.min() < 0:
                raise ValueError(f"counts {self.family.counts} must not be negative")
            if (counted != np.round(counted)).any():
                raise ValueError(f"counts {self.family.counts} must be whole numbers")
        values.setflags(write=False)
        object.__setattr__(self, "values", values)

    def totals(self) -> np.ndarray:
        """``(S, K)``: every system's statistics summed over all units (the full sample)."""
        return self.values.sum(axis=1)

    def select(self, systems: Sequence[str]) -> UnitStatistics:
        """The statistics of ``systems`` (a subset, in that order) over the same units."""
        index = [self.systems.index(name) for name in systems]
        return UnitStatistics(self.family, tuple(systems), self.units, self.values[index])

    @classmethod
    def from_table(
        cls, family: Family, tables: Mapping[str, pa.Table], units: Sequence[str] | None = None
    ) -> UnitStatistics:
        """Statistics of several systems from their ``STATISTICS`` tables (system name -> table).

        ``units`` defaults to every unit with a row in any system's table, sorted; a unit a system has
        no row for is all zeros for it. A statistic the family does not declare, a value that is not
        finite, a negative or fractional count, a unit outside the given ``units`` and a second row for
        the same (unit, category, statistic) raise ValueError naming the system and the row: nothing
        is dropped or merged silently.
        """
        checked = {name: _statistics_rows(family, name, table) for name, table in tables.items()}
        if units is None:
            units = sorted({u for rows in checked.values() for u in pc.unique(rows.unit).to_pylist()})
        units = tuple(units)
        _require_unique("unit", units)
        known = pa.array(units, pa.string())
        width = len(family.statistic_names)
        values = np.zeros((len(checked), len(units), width))
        for position, (name, rows) in enumerate(checked.items()):
            found = positions(rows.unit, known)
            if (found < 0).any():
                unknown = rows.unit[int(np.flatnonzero(found < 0)[0])].as_py()
                raise ValueError(f"system {name!r}: unit {unknown!r} is not among the units resampled")
            cells = found * width + rows.statistic
            flat = np.bincount(cells, weights=rows.value, minlength=len(units) * width)
            values[position] = flat.reshape(len(units), width)
        return cls(family, tuple(checked), units, values)


def statistics_table(
    units: Sequence[str], categories: Sequence[str | None], statistics: Sequence[str], values: Sequence[float]
) -> pa.Table:
    """A ``STATISTICS`` table from its four columns (one row per element)."""
    return pa.Table.from_arrays(
        [
            pa.array(list(units), pa.string()),
            pa.array(list(categories), pa.string()),
            pa.array(list(statistics), pa.string()),
            pa.array(np.asarray(values, dtype=np.float64), pa.float64()),
        ],
        schema=STATISTICS,
    )


def category_measures(
    family: Family, table: pa.Table, options: Mapping[str, Any] | None = None, system: str = "system"
) -> dict[str, dict[str, float | None]]:
    """The heat map's values of one system: category -> measure -> value (``None`` where undefined), the
    family's measures of :func:`category_sums`."""
    return measures_by_category(family, *category_sums(family, table, system), options)


def category_sums(family: Family, table: pa.Table, system: str = "system") -> tuple[list[str], np.ndarray]:
    """One system's categories (sorted) and each one's statistics summed over the units, ``(C, K)``.

    A category's statistics are the sums over units of its rows; rows without a category (null) count
    in their unit's sums only.
    """
    rows = _statistics_rows(family, system, table)
    kept = pc.is_valid(rows.category).to_numpy(zero_copy_only=False)
    categories = rows.category.filter(pa.array(kept))
    width = len(family.statistic_names)
    names = sorted(pc.unique(categories).to_pylist())
    index = positions(categories, names)
    sums = np.bincount(
        index * width + rows.statistic[kept], weights=rows.value[kept], minlength=len(names) * width
    ).reshape(len(names), width)
    return names, sums


def measures_by_category(
    family: Family, names: Sequence[str], sums: np.ndarray, options: Mapping[str, Any] | None = None
) -> dict[str, dict[str, float | None]]:
    """category -> measure -> value (``None`` where undefined) of ``sums`` (:func:`category_sums`)."""
    values = family.measures(sums, options)
    return {
        category: {
            measure: (None if np.isnan(values[i, m]) else float(values[i, m]))
            for m, measure in enumerate(family.measure_names)
        }
        for i, category in enumerate(names)
    }


class _Rows(NamedTuple):
    """A system's STATISTICS table, checked (``_statistics_rows``): its columns, and each row's
    statistic as its index among the family's."""

    unit: pa.Array
    category: pa.Array
    statistic: np.ndarray
    value: np.ndarray


def _statistics_rows(family: Family, system: str, table: pa.Table) -> _Rows:
    """A system's STATISTICS table checked: every statistic the family's, every value finite, every count
    a whole number >= 0, no (unit, category, statistic) twice; a row that is not is a ValueError naming
    the system and the row."""
    missing = [name for name in STATISTICS.names if name not in table.column_names]
    if missing:
        raise ValueError(f"system {system!r}: statistics table without the columns {missing}")
    for column in (C.unit, C.statistic, C.value):
        nulls = table.column(column).is_null().to_numpy(zero_copy_only=False)
        if nulls.any():
            raise ValueError(f"system {system!r}: row {int(np.flatnonzero(nulls)[0])} has no {column}")
    table = table.select(STATISTICS.names).combine_chunks()
    unit, category = (table.column(name).combine_chunks() for name in (C.unit, C.category))
    codes = positions(table.column(C.statistic), family.statistic_names)
    if (codes < 0).any():
        unknown = table.column(C.statistic)[int(np.flatnonzero(codes < 0)[0])].as_py()
        raise ValueError(
            f"system {system!r}: unknown statistic {unknown!r} for family {family.name!r}; "
            f"expected one of {family.statistic_names}"
        )
    value = table.column(C.value).to_numpy().astype(np.float64)
    _require_rows(system, table, ~np.isfinite(value), "is not a finite number")
    is_count = np.isin(codes, [family.statistic_names.index(name) for name in family.counts])
    _require_rows(system, table, is_count & (value < 0), "is a negative count")
    _require_rows(system, table, is_count & (value != np.round(value)), "is a count but not a whole number")
    # A row is a repeat when its (unit, category, statistic) came before: each key's first row is not.
    unit_code = pc.dictionary_encode(unit).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    encoded = pc.dictionary_encode(category)
    category_code = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64) + 1
    key = (unit_code * (len(encoded.dictionary) + 1) + category_code) * len(family.statistic_names) + codes
    repeated = np.ones(len(key), dtype=bool)
    repeated[np.unique(key, return_index=True)[1]] = False
    _require_rows(system, table, repeated, "repeats an earlier row's (unit, category, statistic)")
    return _Rows(unit, category, codes, value)


def _require_rows(system: str, table: pa.Table, bad: np.ndarray, problem: str) -> None:
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        unit, category, statistic, value = (table.column(c)[row].as_py() for c in STATISTICS.names)
        raise ValueError(
            f"system {system!r}: row {row} (unit {unit!r}, category {category!r}, {statistic} = {value}) "
            f"{problem} ({int(bad.sum())} row(s))"
        )


def _require_unique(kind: str, names: Sequence[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"{kind} {name!r} is listed twice")
        seen.add(name)
