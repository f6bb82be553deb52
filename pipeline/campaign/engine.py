"""Campaign files and leaderboards.

A campaign file (TOML) names one reference (``[reference]``), several systems (``[systems.NAME]``) and its
options (``[options]``, beside the ones every campaign takes: ``resamples``, ``seed``, ``html_documents``);
at the top level ``store`` (the artifact store) and ``output`` (where reports and tables go), both
relative to the campaign file. The templette kind's file is shown in ``pipeline.templette.campaign``.

``scorer`` (top level) names the campaign's kind (``pipeline.campaign.kinds.KINDS``): ``"templette"`` (the
default), ``"muc"``, ``"coref"``, ``"mat"``, ``"senseval"``, ``"clef"``, ``"clef-2"``, ``"trec"``.
Each kind declares its keys in ``[reference]``, ``[systems.NAME]`` and ``[options]`` (its module doc shows
its file: ``pipeline.muc.campaign``, ``pipeline.coref.campaign``...); a key of another kind is an error
naming its line.

Every campaign, whatever its kind, has one summary (``campaign_summary``: the leaderboard with bootstrap
intervals, every pair's paired bootstrap, approximate randomization, t-test where the headline is a mean
over units, Holm's correction over all pairs), one text board (``leaderboard_text``) and one page
(``report_data``, ``pipeline.campaign.html_report``), all in the kind's unit (``CampaignKind.unit``).

Paths are relative to the campaign file. System names are labels only: they never become paths (the
output directory names each system's tables by a slug of its name and a digest, see ``output_name``).

Every value's type and range is checked, and a wrong one is an InputError naming the file and the line
of its key: nothing is coerced (``"false"`` is not false, ``"COMMENT"`` is not a list). ``beta`` is a
finite number > 0 (0 is refused: F with beta 0 is the precision, which PRE already is); ``resamples`` is
within ``pipeline.core.settings.RESAMPLES`` (the command line's range), ``seed`` within ``SEED``;
``html_documents`` is >= 1; ``encoding`` names a text encoding Python knows.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.campaign import html_report, reuse, stats
from iescore.pipeline.campaign.kinds import KINDS
from iescore.pipeline.campaign.stats import Interval
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.family import Family, UnitStatistics, category_sums, measures_by_category
from iescore.pipeline.core.kinds import CampaignKind, Field
from iescore.pipeline.core.measures import is_usable_beta
from iescore.pipeline.core.settings import (
    ANY_COUNT,
    RESAMPLES,
    SEED,
    URL_SCHEME,
    encoding_problem,
    pattern_problem,
)
from iescore.pipeline.core.text import printable
from iescore.schemas import LEADERBOARD, PAGE_VIEW, PAGE_VIEWS, RANKS, SIGNIFICANCE, C, table_from_rows

#: The options every campaign takes, beside its kind's own; their ranges are the command line's
#: (``pipeline.core.settings``).
COMMON_OPTIONS = {
    "resamples": Field(
        "int",
        "bootstrap resamples and randomization shuffles",
        default=1000,
        low=RESAMPLES.low,
        high=RESAMPLES.high,
    ),
    "seed": Field("int", "the random generator's seed", default=12345, low=SEED.low, high=SEED.high),
    "html_documents": Field("int", "documents in the HTML page's per-document view", default=100, low=1),
}


def _keys_of(kind: CampaignKind) -> dict[str, set[str]]:
    """A kind's keys of [reference], of each [systems.NAME] and of [options]."""
    return {
        "reference": set(kind.reference),
        "system": set(kind.system),
        "options": set(COMMON_OPTIONS) | set(kind.options),
    }


@dataclass(frozen=True)
class System:
    """A system: ``templates`` is the value of its kind's main system key (its template set, response,
    run...), ``texts`` and ``unsegmented`` a templette system's hypothesis texts and whether they are one
    word stream; ``values`` every key of its table, checked (defaults filled in)."""

    name: str
    templates: Path
    texts: Path | None = None
    unsegmented: bool = False
    values: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Campaign:
    """A parsed campaign. ``reference_templates`` is the value of its kind's main reference key (the
    reference templates, the MUC configuration, the coreference key...), ``reference_texts`` a templette
    campaign's reference texts; ``reference_values`` every [reference] value, checked (defaults filled
    in); ``options`` every option, checked, with what the kind derives from them
    (``CampaignKind.prepare``)."""

    source: Path
    reference_templates: Path
    reference_texts: Path | None
    systems: tuple[System, ...]
    options: dict[str, Any] = field(default_factory=dict)
    store: Path | str | None = None  # a directory, or an s3://BUCKET/PREFIX URL (kept as written)
    output: Path | None = None
    store_line: int = 0
    output_line: int = 0
    scorer: str = "templette"
    reference_values: Mapping[str, Any] = field(default_factory=dict)
    #: The campaign file's text (the lines its errors name); empty for a campaign given as a dict.
    text: str = field(default="", repr=False)
    #: What errors blame: the file (empty: ``source``), or how a campaign given as a dict is named.
    origin: str = ""

    @property
    def kind(self) -> CampaignKind:
        """The campaign's kind (``pipeline.campaign.kinds.KINDS``) as its options set it: ranking by the
        measure they choose (``CampaignKind.ranked_by``), its F named with its beta (``F2``)."""
        kind = KINDS[self.scorer]
        if kind.measure_option is not None:
            kind = kind.ranked_by(self.options.get(kind.measure_option))
        return kind.with_beta(self.family_options.get("beta"))

    @property
    def family(self) -> Family:
        return self.kind.family

    @property
    def family_options(self) -> dict[str, Any]:
        """The options of the family's measures (templette's and MUC's beta) the campaign sets."""
        family = KINDS[self.scorer].family
        return {name: self.options[name] for name in family.options if name in self.options}

    @property
    def input_paths(self) -> list[tuple[str, Path]]:
        """Every file and directory the campaign reads, each with its key (``systems.NAME.path``)."""
        found = [
            (f"reference.{key}", path)
            for key, value in self.reference_values.items()
            for path in _paths([value])
        ]
        found += [(f"options.{key}", path) for key, value in self.options.items() for path in _paths([value])]
        for system in self.systems:
            where = _dotted(("systems", system.name))
            found += [
                (f"{where}.{key}", path) for key, value in system.values.items() for path in _paths([value])
            ]
        return found

    @property
    def reference_files(self) -> tuple[Path, ...]:
        """The files every system is scored against: every path of [reference] and [options] (and what
        the kind derives from them: a MUC configuration's key and texts)."""
        files = [value for part in (self.reference_values, self.options) for value in _paths(part.values())]
        return tuple(dict.fromkeys(Path(f) for f in files))


def read_campaign(path: str | Path) -> Campaign:
    """Parse and check a campaign file; every problem is an InputError naming the file and the line.

    Every value's type and range is checked (a ``"false"`` that Python would take as true, a string
    where a list is expected, a beta that is not a positive number...): nothing is coerced. Every table's
    keys are the kind's (``CampaignKind``: its ``reference``, ``system`` and ``options`` fields, and
    ``COMMON_OPTIONS``); a key of another kind is named as such.
    """
    path = Path(path)
    text = _campaign_text(path)
    return _campaign(_parse_toml(path, text), path, _Values(str(path), text))


#: What the errors of a campaign given as a dict blame (it has no file nor lines).
DICT_ORIGIN = "campaign (a dict)"


def campaign_from_dict(data: Mapping[str, Any], base: str | Path | None = None) -> Campaign:
    """A campaign given as a dict of the campaign file's keys (what ``tomllib`` makes of the file), checked
    by the same rules and with the same messages as a file's (``read_campaign``); errors blame
    ``DICT_ORIGIN`` with line 0. Paths, the store and the output are relative to ``base`` (default: the
    working directory), as a file's are to its folder. A path may be given as ``os.PathLike`` and an array
    as a tuple; every other value has a TOML type (nothing else is coerced).
    """
    values = _Values(DICT_ORIGIN, "")
    if not isinstance(data, Mapping):
        raise values.error((), f"a dict of the campaign file's keys expected, {_found(data)}")
    plain = _toml_values(data, (), values)
    source = Path(base if base is not None else ".").resolve() / "campaign"
    return _campaign(plain, source, values)


def _toml_values(value: Any, keys: tuple[str, ...], values: _Values) -> Any:
    """A dict's value as TOML would have parsed it: paths as strings, tuples as arrays, tables as dicts
    with string keys."""
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                raise values.error(
                    keys, f"{_dotted(keys) or 'the campaign'}: keys are strings, found {key!r}"
                )
        return {key: _toml_values(item, (*keys, key), values) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_toml_values(item, keys, values) for item in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if value is None:  # TOML has no null: a key left out is what a file says
        raise values.error(keys, f"{_dotted(keys)}: a value expected, found None (leave the key out instead)")
    return value


def _campaign(data: dict[str, Any], path: Path, values: _Values) -> Campaign:
    """The campaign of a parsed file's (or a dict's) ``data``; paths relative to ``path``'s folder."""
    values.known(data, (), {"scorer", "store", "output", "reference", "options", "systems"})
    scorer = data.get("scorer", "templette")
    if scorer not in KINDS:
        raise values.expected(("scorer",), "one of " + ", ".join(f'"{f}"' for f in KINDS), scorer)
    kind = KINDS[scorer]
    base = path.parent
    main = kind.main_reference
    reference = values.table(data, ("reference",), f"a [reference] table with {main} = ...")
    values.family_keys(reference, ("reference",), kind.name, "reference")
    checked = {
        name: values.field(reference, ("reference", name), f, base) for name, f in kind.reference.items()
    }
    system_key = kind.main_system
    parsed = []
    for name, entry, where in _system_tables(values, data, kind.name, system_key, "..."):
        own = {key: values.field(entry, (*where, key), f, base) for key, f in kind.system.items()}
        main_value = own[system_key]
        parsed.append(
            System(
                name,
                main_value[0] if isinstance(main_value, list) else main_value,
                own.get("texts"),
                bool(own.get("unsegmented", False)),
                values=own,
            )
        )
    given = values.table(data, ("options",), None)
    values.family_keys(given, ("options",), kind.name, "options")
    every = {**COMMON_OPTIONS, **kind.options}
    options = {name: values.field(given, ("options", name), f, base) for name, f in every.items()}
    if kind.prepare is not None:
        options.update(kind.prepare(checked, options, values.error))
    main_value = checked[main]
    return Campaign(
        path,
        main_value[0] if isinstance(main_value, list) else main_value,
        checked.get("texts"),
        tuple(parsed),
        options,
        values.directory(data, ("store",), base, urls=True),
        values.directory(data, ("output",), base),
        store_line=values.line(("store",)) if "store" in data else 0,
        output_line=values.line(("output",)) if "output" in data else 0,
        scorer=kind.name,
        reference_values=checked,
        text=values.text,
        origin=values.origin,
    )


def campaign_error(campaign: Campaign, system: str | None, error: InputError) -> InputError:
    """``error``, raised by a family's code for a campaign's value, told as the campaign file's.

    A family's readers and rules name the command line's options (``--file_re``, ``--equivalence_class``):
    each option the error names becomes the campaign key it stands for (``systems.NAME.file_re``,
    ``options.equivalence_classes``: the same name, or its plural in -s or -es), and the error names the
    campaign file and that key's line. An error naming neither an option nor a key is returned as it is.
    """
    named = re.findall(r"--[A-Za-z][\w-]*", f"{error.file} {error.message}")
    tables: list[tuple[tuple[str, ...], Mapping[str, Any]]] = [
        (("reference",), campaign.reference_values),
        (("options",), campaign.options),
    ]
    tables += [(("systems", s.name), s.values) for s in campaign.systems if s.name == system]
    keys: dict[str, tuple[str, ...]] = {}
    for option in dict.fromkeys(named):
        stem = option.lstrip("-").replace("-", "_")
        for where, values in reversed(tables):  # the system's own key first
            found = next((key for key in (stem, stem + "s", stem + "es") if key in values), None)
            if found is not None:
                keys[option] = (*where, found)
                break
    if not keys:
        return error
    message = error.message
    for option, key in keys.items():
        message = message.replace(option, _dotted(key))
    first = next(iter(keys.values()))
    where = "" if error.file.startswith("-") else f"{error.file}: "
    # A campaign made by hand (not read) has no text nor origin: its file's lines are read now.
    text = campaign.text if campaign.origin else _campaign_text(campaign.source)
    values = _Values(campaign.origin or str(campaign.source), text)
    return values.error(first, f"{_dotted(first)}: {where}{message}")


def _system_tables(
    values: _Values, data: Mapping[str, Any], scorer: str, system_key: str, value: str
) -> list[tuple[str, dict[str, Any], tuple[str, ...]]]:
    """Every ``[systems.NAME]`` table (at least one) with its name and key path, holding only the
    scorer's system keys; ``system_key = value`` is what messages ask for."""
    systems = values.table(
        data, ("systems",), f"a [systems.NAME] table with {system_key} = {value} for each system"
    )
    if not systems:
        raise values.error(
            ("systems",), f"at least one system expected: [systems.NAME] with {system_key} = {value}"
        )
    tables = []
    for name, entry in systems.items():
        where = ("systems", name)
        if not isinstance(entry, dict):
            raise values.expected(where, f"a table [{_dotted(where)}] with {system_key} = {value}", entry)
        values.family_keys(entry, where, scorer, "system")
        tables.append((name, entry, where))
    return tables


def _paths(items: Any) -> list[Path]:
    """The paths among values (a path, or a list of paths)."""
    found: list[Path] = []
    for item in items:
        if isinstance(item, Path):
            found.append(item)
        elif isinstance(item, list):
            found += [value for value in item if isinstance(value, Path)]
    return found


def output_name(system: str) -> str:
    """A file name for a system's outputs that cannot leave its directory, whatever the name holds.

    Letters (any script), digits, ``-`` and ``_`` are kept, everything else becomes ``_``; a digest of
    the full name keeps names that slug alike apart (``a/b`` and ``a b``).
    """
    slug = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in system)[:40].strip("_") or "system"
    return f"{slug}-{hashlib.sha256(system.encode()).hexdigest()[:8]}"


#: Below this many units a campaign's intervals and p-values mean little (its board and page say so).
FEW_UNITS = 10


def campaign_summary(
    kind: CampaignKind,
    systems: Sequence[str],
    statistics: Mapping[str, pa.Table],
    signatures: Mapping[str, str],
    attributes: Mapping[str, Mapping[str, Any]],
    resamples: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    previous: reuse.Previous | None = None,
    evidence: Mapping[str, pa.Table] | None = None,
) -> dict[str, pa.Table]:
    """A campaign's leaderboard (``LEADERBOARD``) and significance (``SIGNIFICANCE``), and the record a
    later summary reuses (``units``, ``systems``: ``pipeline.campaign.reuse``), for ``systems`` in campaign
    order, from every system's ``STATISTICS`` table: the kind's counts (sums of statistics) and the
    family's measures of the sums over units (``options``: the family's, e.g. templette's beta), ranked by
    the headline (``stats.standings``), the bootstrap interval of each interval measure, and every pair
    compared on the headline (paired bootstrap, approximate randomization, the paired t-test when the
    headline is a mean of per-unit values, Holm's correction over all pairs).

    ``statistics`` and ``signatures`` are needed only for the systems ``previous`` does not list as
    unchanged (their statistics and signature come from ``previous``); intervals and pair tests of
    statistics identical to ``previous``'s are taken from it. The tables are the same as without
    ``previous``. ``attributes`` (system -> the kind's attribute keys and values) are shown beside the names.
    ``evidence`` (system -> its stage's ``CampaignKind.evidence`` table, every system) is what the kind's
    own pair tests read (``CampaignKind.pair_tests``).
    """
    family_options = kind.family.resolve(options)
    unchanged = previous.unchanged if previous is not None else frozenset()
    own, signed = {}, dict(signatures)
    for name in systems:
        if previous is not None and name in unchanged:
            own[name], signed[name] = previous.systems[name], previous.rows[name][C.signature]
        else:
            own[name] = reuse.system_values(kind.family, name, statistics[name])
    table = reuse.assemble(kind.family, own)
    categorized = _categorized(kind.family, systems, statistics, previous)
    same = reuse.same_statistics(previous, table, summary_settings(kind, resamples, seed, family_options))
    intervals = reuse.intervals_reusing(
        table,
        same,
        previous,
        lambda some: stats.bootstrap_intervals(some, resamples=resamples, seed=seed, options=family_options),
    )
    totals = dict(zip(table.systems, table.totals(), strict=True))
    index = {name: i for i, name in enumerate(kind.family.statistic_names)}
    rows = []
    for standing in stats.standings(table, intervals, options=family_options):
        shown = json.dumps(dict(attributes.get(standing.system, {})), ensure_ascii=False, sort_keys=True)
        common = {C.rank: standing.rank, C.system: standing.system, C.attributes: shown}
        for count, summed in kind.counts.items():
            value = float(sum(totals[standing.system][index[s]] for s in summed))
            rows.append({**common, C.measure: count, C.value: value, C.low: None, C.high: None})
        for measure in kind.board:
            interval = standing.intervals.get(measure, Interval(None, None))
            if measure not in kind.interval_measures:
                interval = Interval(None, None)
            rows.append(
                {
                    **common,
                    C.measure: measure,
                    C.value: standing.measures[measure],
                    C.low: interval.low,
                    C.high: interval.high,
                }
            )
        for row in rows[-(len(kind.counts) + len(kind.board)) :]:
            row[C.signature] = signed[standing.system]
    board = table_from_rows(rows, LEADERBOARD)
    ranked = table.select(list(dict.fromkeys(board.column(C.system).to_pylist())))
    # The headline on every bootstrap resample, computed once: the pair tests and the rank ranges read it.
    resampled = stats.bootstrap_measure(ranked, None, resamples, seed, family_options)
    tests = reuse.pairs_reusing(
        ranked,
        same,
        previous,
        lambda some, pairs: stats.pair_tests(
            some,
            some.family.headline,
            resamples=resamples,
            seed=seed,
            options=family_options,
            pairs=pairs,
            resampled=resampled,
        ),
    )
    significance = _significance_rows(kind, ranked, tests, resamples, seed, evidence)
    return {
        "leaderboard": board,
        "significance": significance,
        "ranks": ranks_table(board, ranked, significance, resampled),
        **reuse.record_tables(table, own),
        "categories": reuse.categories_table(categorized),
    }


def ranks_table(
    board: pa.Table,
    ranked: UnitStatistics,
    significance: pa.Table,
    resampled: np.ndarray,
) -> pa.Table:
    """The ``RANKS`` table: each system of ``ranked`` (board order) with its rank, its 95% rank range
    over the bootstrap's resamples of the headline (``stats.rank_ranges`` of ``resampled``, the headline
    of every system on each resample: ``stats.bootstrap_measure`` of ``ranked``) and its rank cluster
    (``stats.rank_clusters``: significant where the Holm-adjusted randomization p-value is below
    ``stats.ALPHA``; an undefined p-value is not significant)."""
    systems = list(ranked.systems)
    rank_of = dict(zip(board.column(C.system).to_pylist(), board.column(C.rank).to_pylist(), strict=True))
    low, high = stats.rank_ranges(ranked.family.sign() * resampled)  # lower is better: negated
    holm_p = significance.column(C.randomization_p_holm).to_numpy(zero_copy_only=False)
    significant = np.nan_to_num(holm_p.astype(np.float64), nan=1.0) < stats.ALPHA
    clusters = stats.rank_clusters(len(systems), significant)
    rows = [
        {
            C.system: name,
            C.rank: rank_of[name],
            C.rank_low: int(low[i]),
            C.rank_high: int(high[i]),
            C.cluster: int(clusters[i]),
        }
        for i, name in enumerate(systems)
    ]
    return table_from_rows(rows, RANKS)


def _categorized(
    family: Family,
    systems: Sequence[str],
    statistics: Mapping[str, pa.Table],
    previous: reuse.Previous | None,
) -> dict[str, reuse.CategorySums]:
    """Each system's category sums (none for a family without categories): an unchanged system's from
    ``previous``, the others' from their statistics."""
    if not family.categories:
        return {}
    none: reuse.CategorySums = ([], reuse.no_sums(family))
    return {
        name: (
            previous.categories.get(name, none)
            if previous is not None and name in previous.unchanged
            else category_sums(family, statistics[name], system=name)
        )
        for name in systems
    }


def summary_settings(
    kind: CampaignKind, resamples: int, seed: int, options: Mapping[str, Any]
) -> dict[str, Any]:
    """What a summary's draws and measures depend on (``reuse.Previous.settings``)."""
    return {
        "resamples": resamples,
        "seed": seed,
        "family": kind.family.name,
        "measure": kind.family.headline,
        "options": dict(options),
    }


def previous_summary(
    kind: CampaignKind,
    resamples: int,
    seed: int,
    options: Mapping[str, Any] | None,
    tables: Mapping[str, pa.Table],
    unchanged: set[str] | frozenset[str],
) -> reuse.Previous:
    """A previous summary (its five outputs) as ``reuse.Previous``: its record, each system's signature,
    intervals and category sums, its pairs; ``unchanged`` as the caller found them (only those the record
    holds)."""
    units, systems = reuse.read_record(kind.family, tables["units"], tables["systems"])
    categories = reuse.read_categories(kind.family, tables["categories"])
    rows: dict[str, dict[str, Any]] = {}
    intervals: dict[str, dict[str, Interval]] = {}
    for row in tables["leaderboard"].to_pylist():
        rows[row[C.system]] = {C.signature: row[C.signature]}
        intervals.setdefault(row[C.system], {})[row[C.measure]] = Interval(row[C.low], row[C.high])
    return reuse.Previous(
        settings=summary_settings(kind, resamples, seed, kind.family.resolve(options)),
        units=units,
        systems=systems,
        rows=rows,
        intervals=intervals,
        pairs=reuse.pairs_from_table(tables["significance"]),
        categories=categories,
        unchanged=frozenset(name for name in unchanged if name in systems and name in rows),
    )


def significance_table(
    kind: CampaignKind,
    statistics: UnitStatistics,
    resamples: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
) -> pa.Table:
    """The ``SIGNIFICANCE`` table of a campaign: every pair of systems (in ``statistics.systems`` order, a
    before b) compared on the headline: paired bootstrap, approximate randomization, the paired t-test
    over units when the headline is a mean of per-unit values (``CampaignKind.per_unit_mean``), and the
    randomization and t-test p-values adjusted by Holm's correction over every pair
    (``stats.holm_adjusted``; m is the number of pairs with a p-value)."""
    tests = stats.pair_tests(statistics, statistics.family.headline, resamples, seed, options)
    return _significance_rows(kind, statistics, tests, resamples, seed)


def pair_test_columns(
    kind: CampaignKind, comparisons: Sequence[tuple[str, str]], evidence: Mapping[str, pa.Table] | None
) -> dict[str, np.ndarray]:
    """The kind's own pair tests (``CampaignKind.pair_tests``) of every compared pair (names a, b), on each
    system's ``evidence``: each test's p-values and their Holm adjustment over all pairs, by SIGNIFICANCE
    column, NaN where undefined. Without evidence (a table made from statistics alone) they are all NaN."""
    columns: dict[str, np.ndarray] = {}
    for test in kind.pair_tests:
        p_values = np.full(len(comparisons), np.nan)
        if evidence is not None:
            names = dict.fromkeys(name for pair in comparisons for name in pair)
            prepared = {name: test.prepare(evidence[name]) for name in names}
            for row, (a, b) in enumerate(comparisons):
                p_value = test.p_value(prepared[a], prepared[b])
                p_values[row] = np.nan if p_value is None else p_value
        raw, adjusted = test.columns
        columns[raw], columns[adjusted] = p_values, stats.holm_adjusted(p_values)
    return columns


def _significance_rows(
    kind: CampaignKind,
    statistics: UnitStatistics,
    tests: stats.PairTests,
    resamples: int,
    seed: int,
    evidence: Mapping[str, pa.Table] | None = None,
) -> pa.Table:
    """The ``SIGNIFICANCE`` table of ``tests`` (pairs of ``statistics.systems``), column by column."""
    n_pairs = len(tests.a)
    nothing = np.full(n_pairs, np.nan)
    t_values = stats.paired_t_tests(statistics) if kind.is_per_unit_mean() else nothing
    names = pa.array(list(statistics.systems), pa.string())
    columns: dict[str, pa.Array] = {
        C.system_a: names.take(pa.array(tests.a)),
        C.system_b: names.take(pa.array(tests.b)),
        C.measure: pa.array(np.full(n_pairs, statistics.family.headline, dtype=object), pa.string()),
        C.delta: _floats(tests.delta),
        C.paired_bootstrap_p: _floats(tests.paired_bootstrap_p),
        C.randomization_p: _floats(tests.randomization_p),
        C.resamples: pa.array(np.full(n_pairs, resamples, dtype=np.int64)),
        C.seed: pa.array(np.full(n_pairs, seed, dtype=np.int64)),
        C.t_test_p: _floats(t_values),
        C.randomization_p_holm: _floats(stats.holm_adjusted(tests.randomization_p)),
        C.t_test_p_holm: _floats(stats.holm_adjusted(t_values)),
    }
    if kind.pair_tests:
        systems = statistics.systems
        named = [(systems[a], systems[b]) for a, b in zip(tests.a.tolist(), tests.b.tolist(), strict=True)]
        own = pair_test_columns(kind, named, evidence)
        columns.update({column: _floats(values) for column, values in own.items()})
    arrays = [columns.get(field.name, pa.nulls(n_pairs, field.type)) for field in SIGNIFICANCE]
    return pa.Table.from_arrays(arrays, schema=SIGNIFICANCE)


def _floats(values: np.ndarray) -> pa.Array:
    """A float64 column of ``values``, NaN (undefined) as null."""
    values = np.asarray(values, dtype=np.float64)
    return pa.array(values, pa.float64(), mask=np.isnan(values))


def board_rows(kind: CampaignKind, board: pa.Table, scaled: bool = True) -> list[dict[str, Any]]:
    """A ``LEADERBOARD`` in wide form, one dict per system (best first): rank, system, the attributes'
    keys, then the kind's columns (``CampaignKind.columns``: counts as whole numbers, measures and their
    interval ends, in the kind's unit when ``scaled``), then the signature."""
    rows: dict[str, dict[str, Any]] = {}
    signatures: dict[str, str] = {}
    scale = kind.scale if scaled else (lambda value: value)
    columns = (C.system, C.rank, C.measure, C.value, C.low, C.high, C.attributes, C.signature)
    # Column by column (a long table has a row per system and column of the board).
    for system, rank, measure, value, low, high, attributes, signature in zip(
        *(board.column(name).to_pylist() for name in columns), strict=True
    ):
        wide = rows.get(system)
        if wide is None:
            wide = rows[system] = {C.rank: rank, C.system: system, **json.loads(attributes)}
        if measure in kind.counts:
            wide[measure] = int(value)
        else:
            wide[measure] = scale(value)
            if measure in kind.interval_measures:
                wide[f"{measure}_low"], wide[f"{measure}_high"] = scale(low), scale(high)
        signatures[system] = signature
    # The attributes in their JSON's order (sorted keys), as the leaderboard table keeps them.
    named = [C.rank, C.system, *(k for k in next(iter(rows.values()), {}) if k in kind.attributes)]
    return [
        {
            **{key: wide[key] for key in named if key in wide},
            **{column: wide.get(column) for column in kind.columns},
            C.signature: signatures[system],
        }
        for system, wide in rows.items()
    ]


#: The SIGNIFICANCE columns of families' own pair tests (``CampaignKind.pair_tests``).
PAIR_TEST_COLUMNS = (C.mapsswe_p, C.mapsswe_p_holm, C.sign_p, C.sign_p_holm)


def significance_rows(kind: CampaignKind, significance: pa.Table) -> pa.Table:
    """The significance table in the kind's unit (``delta`` in percentage points for a percent kind), with
    the pair-test columns of its own pair tests only (a kind without them has none in its CSV and JSON)."""
    own = {column for test in kind.pair_tests for column in test.columns}
    significance = significance.drop_columns(
        [c for c in PAIR_TEST_COLUMNS if c not in own and c in significance.column_names]
    )
    if kind.unit == "fraction":
        return significance
    index = significance.schema.get_field_index(C.delta)
    delta = [kind.scale(value) for value in significance.column(C.delta).to_pylist()]
    return significance.set_column(index, C.delta, pa.array(delta, pa.float64()))


def leaderboard_text(
    kind: CampaignKind, board: pa.Table, significance: pa.Table | None = None, units: int | None = None
) -> str:
    """A campaign's leaderboard as a fixed-width table: rank, system, its attributes, the kind's shown
    columns (counts as whole numbers, measures in the kind's unit: percent with two decimals, fractions
    with four; ``-`` where undefined), the headline's 95% interval, then against the next system down:
    p(next) (approximate randomization), its Holm-adjusted value and, for a headline that is a mean of
    per-unit values, the paired t-test's p and its Holm-adjusted value. With fewer than ``FEW_UNITS``
    ``units``, a last line says that its intervals and p-values mean little."""
    rows = board_rows(kind, board, scaled=False)
    headline = kind.family.headline
    names = [printable(row[C.system]) for row in rows]
    width = max([len("system")] + [len(name) for name in names])
    shown_attributes = [
        (key, max(len(key), *(len(_attribute(row.get(key))) for row in rows))) for key in kind.attributes
    ]
    # Against the next system down: (column header, significance column) for each p-value shown.
    tests = [("p(next)", C.randomization_p), ("Holm", C.randomization_p_holm)]
    if kind.is_per_unit_mean():
        tests += [("t p(next)", C.t_test_p), ("t Holm", C.t_test_p_holm)]
    following: dict[str, dict[str, float | None]] = {}
    pairs = 0
    if significance is not None:
        # Only each system against the next is printed: only those rows are read as Python.
        shown_pairs = significance.take(next_pairs(len(rows), significance.num_rows)).to_pylist()
        by_pair = {(r[C.system_a], r[C.system_b]): r for r in shown_pairs}
        pairs = significance.num_rows
        for upper, lower in zip(rows, rows[1:], strict=False):
            found = by_pair.get((upper[C.system], lower[C.system]), {})
            following[upper[C.system]] = {column: found.get(column) for _, column in tests}
    columns = [(m, max(kind.text_width, len(kind.text_names.get(m, m)) + 1)) for m in kind.shown]
    header = f"{'rank':>4}  {'system':<{width}}" + "".join(f"  {k:<{w}}" for k, w in shown_attributes)
    named = kind.text_names
    header += "".join(f"{named.get(m, m):>{w}}" for m, w in columns)
    header += f"  {named.get(headline, headline) + ' 95% CI':>17}"
    header += "".join(f"  {label:>9}" for label, _ in tests) if following else ""
    lines = [header, "-" * len(header)]
    for row, name in zip(rows, names, strict=True):
        cells = "".join(f"  {_attribute(row.get(k)):<{w}}" for k, w in shown_attributes)
        cells += "".join(
            f"{row[m] if m in kind.counts else _in_unit(kind, row.get(m)):>{w}}" for m, w in columns
        )
        low, high = (_in_unit(kind, row.get(f"{headline}_{end}")) for end in ("low", "high"))
        cells += f"  {low + '-' + high:>17}"
        if following:
            values = following.get(row[C.system])
            cells += "".join(
                f"  {_p(values[column]) if values is not None else '':>9}" for _, column in tests
            )
        lines.append(f"{row[C.rank]:>4}  {name:<{width}}{cells}")
    unit = plural(kind.family.unit)
    note = kind.ranking_note or f"ranked by {kind.headline_label}"
    lines.append(f"{note}; 95% CI: bootstrap over {unit}")
    if following:
        lines.append(
            f"p(next): approximate randomization over {unit}, {kind.headline_label} against the next system's"
            + (f"; t p(next): paired t-test over {unit}" if kind.is_per_unit_mean() else "")
        )
        lines.append(
            f"Holm: the p-value adjusted by Holm's correction for multiple comparisons over all {pairs} "
            f"pairs ({significance_file(pairs)})"
        )
        floor = holm_floor(significance)
        if floor is not None:
            lines.append(floor)
    if units is not None and units < FEW_UNITS:
        lines.append(few_units_note(units, unit))
    return "\n".join(lines) + "\n"


def holm_floor(significance: pa.Table) -> str | None:
    """The ``holm_floor_note`` of a campaign's significance table (every pair), said on its board and
    page, when its resamples are too few for Holm to mark any pair; None otherwise."""
    pairs = significance.num_rows
    resamples = significance.column(C.resamples)[0].as_py() if pairs else None
    if resamples is None or resamples >= stats.resamples_for_holm(pairs):
        return None
    return holm_floor_note(pairs, resamples)


#: The most pairs a campaign's output directory writes as ``significance.csv`` too (100 systems): beyond,
#: its pairs are in ``significance.parquet`` only (at 1,000 systems a CSV of 499,500 rows, some 50 MB,
#: which no spreadsheet reads well and which every rerun would write again whole).
SIGNIFICANCE_CSV_PAIRS = 4950


def significance_file(pairs: int) -> str:
    """The output directory's file that holds every pair's tests, as the board names it: the CSV up to
    ``SIGNIFICANCE_CSV_PAIRS`` pairs, else the Parquet table."""
    return "significance.csv" if pairs <= SIGNIFICANCE_CSV_PAIRS else "significance.parquet"


def holm_floor_note(pairs: int, resamples: int) -> str:
    """What a board says when no Holm-adjusted p-value can fall below ``stats.ALPHA`` (see
    ``stats.resamples_for_holm``): the rank clusters are then one."""
    return (
        f"with {resamples} resamples no pair can be significant after Holm over {pairs} pairs (the "
        f"smallest adjusted p-value is {pairs}/{resamples + 1}): every system is in rank cluster 1; "
        f"{stats.resamples_for_holm(pairs)} resamples would allow it"
    )


def few_units_note(units: int, unit: str) -> str:
    """What a board and page say of a campaign of fewer than ``FEW_UNITS`` units."""
    return (
        f"only {units} {unit if units != 1 else unit.rstrip('s')}: with fewer than {FEW_UNITS}, "
        "the intervals and p-values mean little"
    )


def plural(unit: str) -> str:
    """A family's unit in the plural, for sentences: document -> documents, query -> queries."""
    if unit.endswith("s"):
        return unit
    return unit[:-1] + "ies" if unit.endswith("y") and unit[-2:-1] not in "aeiou" else unit + "s"


def _in_unit(kind: CampaignKind, value: float | None) -> str:
    """A measure on the text board: percent with two decimals, or a fraction with four."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{100 * value:.2f}" if kind.unit == "percent" else f"{value:.4f}"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _attribute(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else printable(str(value))


def report_data(
    kind: CampaignKind,
    title: str,
    board: pa.Table,
    significance: pa.Table,
    categories: pa.Table,
    resamples: int,
    seed: int,
    units: int,
    options: Mapping[str, Any] | None = None,
    page: PageRows | None = None,
    chains: list[html_report.CorefView] | None = None,
    ranks: pa.Table | None = None,
    alignments: html_report.AlignmentsView | None = None,
) -> html_report.CampaignReport:
    """The HTML page's data of any campaign: the leaderboard's shown columns and the interval measures'
    intervals; the heat map shows the headline by category (the family's categories: slots, tags, CUIs,
    lexical items, queries) or, for a family without categories, the shown measures; the significance
    matrix with the Holm-adjusted randomization p-values (and, for a headline that is a mean of per-unit
    values, the paired t-test's), which mark its cells. The family's own sections come with their data:
    ``page`` (the per-document pairings, ``page_rows``) and ``chains`` (each document's chains,
    ``coref_chains``); ``ranks`` (``RANKS``) adds each system's rank range and cluster to the
    leaderboard; ``alignments`` is a WER campaign's section (the headline by label, the alignments by
    utterance). The kind's own pair tests (``CampaignKind.pair_tests``) show in the matrix's cells."""
    headline = kind.family.headline
    rows = board_rows(kind, board, scaled=False)
    family_options = kind.family.resolve(options)
    shown = {row[C.system]: _with_attributes(kind, row) for row in rows}
    measures = [m for m in kind.shown if m not in kind.counts]
    leaderboard_rows = [
        html_report.SystemRow(
            rank=row[C.rank],
            system=shown[row[C.system]],
            counts={k: row[k] for k in kind.counts},
            measures={m: row.get(m) for m in kind.board},
            intervals={m: (row.get(f"{m}_low"), row.get(f"{m}_high")) for m in kind.interval_measures},
            signature=row[C.signature],
        )
        for row in rows
    ]
    heat: dict[str, dict[str, float | None]] = {}
    sums = reuse.read_categories(kind.family, categories) if kind.family.categories else {}
    for row in rows:
        name = row[C.system]
        by_category = measures_by_category(kind.family, *sums[name], family_options) if name in sums else {}
        heat[shown[name]] = (
            {category: values[headline] for category, values in by_category.items()}
            if by_category
            else {kind.label(m): row.get(m) for m in measures}
        )
    # The page shows p-values of each system against the next and of the pairs among the best
    # (``html_report.MATRIX_DETAILED``), and marks of every pair: only those rows are read as Python.
    shown_pairs = significance.take(page_pairs(len(rows), significance.num_rows)).to_pylist()
    pairs = {
        (shown[r[C.system_a]], shown[r[C.system_b]]): (
            r[C.delta],
            r[C.paired_bootstrap_p],
            r[C.randomization_p],
        )
        for r in shown_pairs
    }
    per_unit_mean = kind.is_per_unit_mean()
    corrected = {
        (shown[r[C.system_a]], shown[r[C.system_b]]): {
            "randomization Holm": r.get(C.randomization_p_holm),
            **({"t-test": r.get(C.t_test_p), "t-test Holm": r.get(C.t_test_p_holm)} if per_unit_mean else {}),
            **{
                f"{test.name}{holm}": r.get(column)
                for test in kind.pair_tests
                for holm, column in zip(("", " Holm"), test.columns, strict=True)
            },
        }
        for r in shown_pairs
    }
    marks = None
    if significance.num_rows == len(rows) * (len(rows) - 1) // 2:
        holm_p = significance.column(C.randomization_p_holm).to_numpy(zero_copy_only=False)
        marks = np.nan_to_num(holm_p.astype(np.float64), nan=1.0) < stats.ALPHA
    rank_ranges = None
    if ranks is not None:
        rank_ranges = {
            shown[r[C.system]]: (r[C.rank_low], r[C.rank_high], r[C.cluster]) for r in ranks.to_pylist()
        }
    return html_report.CampaignReport(
        title=title,
        signature_note="Each system's score signature is in the leaderboard's tooltip and JSON output.",
        leaderboard=leaderboard_rows,
        slot_f=heat,
        significance=pairs,
        documents=page.documents if page is not None else [],
        documents_total=page.documents_total if page is not None else units,
        resamples=resamples,
        seed=seed,
        beta=float(family_options.get("beta", 1.0)),
        headline=headline,
        headline_label=kind.headline_label,
        columns={m: kind.label(m) for m in measures},
        unit=plural(kind.family.unit),
        categories=kind.family.categories or "measure",
        ranking_note=kind.ranking_note,
        corrected=corrected,
        correction=stats.CORRECTION,
        percent=kind.unit == "percent",
        sections=kind.sections,
        few_units=few_units_note(units, plural(kind.family.unit)) if units < FEW_UNITS else None,
        coref=chains,
        pairing_rows=page.rows if page is not None else None,
        embedded=page.embedded if page is not None else None,
        ranks=rank_ranges,
        marks=marks,
        alignments=alignments,
        pair_tests={test.name: (test.label, test.title) for test in kind.pair_tests} or None,
        holm_floor=holm_floor(significance),
        pairs_file=significance_file(significance.num_rows),
    )


def next_pairs(n_systems: int, n_pairs: int) -> np.ndarray:
    """The rows of a significance table (every pair of ``n_systems`` in board order) that compare each
    system with the next one down; all rows when the table is not that complete list."""
    if n_pairs != n_systems * (n_systems - 1) // 2:
        return np.arange(n_pairs)
    return np.array([stats.pair_index(n_systems, a, a + 1) for a in range(n_systems - 1)], dtype=np.int64)


def page_pairs(n_systems: int, n_pairs: int) -> np.ndarray:
    """The rows of a significance table (every pair of ``n_systems`` in board order: (0, 1), (0, 2), ...,
    (1, 2), ...) whose p-values the page shows: each system with the next one down, and every pair among
    the ``html_report.MATRIX_DETAILED`` best; all rows when the table is not that complete list."""
    if n_pairs != n_systems * (n_systems - 1) // 2:
        return np.arange(n_pairs)
    detailed = min(n_systems, html_report.MATRIX_DETAILED)
    wanted = {stats.pair_index(n_systems, a, b) for a in range(detailed - 1) for b in range(a + 1, detailed)}
    wanted.update(stats.pair_index(n_systems, a, a + 1) for a in range(n_systems - 1))
    return np.array(sorted(wanted), dtype=np.int64)


def _with_attributes(kind: CampaignKind, row: Mapping[str, Any]) -> str:
    """The system's name as the page shows it: with its attributes, e.g. ``team-1 (additional: yes)``."""
    shown = [f"{key}: {_attribute(row.get(key))}" for key in kind.attributes if key in row]
    return f"{row[C.system]} ({', '.join(shown)})" if shown else row[C.system]


@dataclass(frozen=True, eq=False)
class PageRows:
    """A templette or MUC campaign page's per-document view (``page_rows``): the documents shown, how many
    the campaign has, every system's pairing rows, and their JSON when made already (``embedded``)."""

    documents: list[html_report.DocumentView]
    documents_total: int
    rows: pa.Table | None
    embedded: html_report.EmbeddedRows | None = None

    def with_embedded(self, systems: Sequence[str]) -> PageRows:
        """These rows with their JSON for a page whose systems are in the order ``systems``."""
        if self.rows is None:
            return self
        embedded = html_report.embedded_rows(self.documents, self.rows, systems)
        return dataclasses.replace(self, embedded=embedded)


def page_rows(
    mappings: Mapping[str, pa.Table],
    documents: pa.Table | None,
    character_extents: Mapping[str, bool],
    limit: int,
    objects: bool = False,
    given_rows: pa.Table | None = None,
) -> PageRows:
    """The per-document view of ``report_data`` (see there), which needs no summary: the first ``limit``
    documents and one table of every system's pairings in them (in ``mappings`` order; ``given_rows``:
    that table made already, ``PAGE_VIEWS``)."""
    texts: dict[str, str] = {}
    if documents is not None:
        texts = dict(
            zip(documents.column(C.doc_id).to_pylist(), documents.column(C.text).to_pylist(), strict=True)
        )
    order = list(texts) or sorted({d for m in mappings.values() for d in m.column(C.doc_id).to_pylist()})
    shown = order[:limit]
    if given_rows is None and mappings:
        given_rows = views_rows(
            {
                name: mapping_view(mapping, shown, character_extents.get(name, False), objects)
                for name, mapping in mappings.items()
            }
        )
    # One table of every system's pairings: the page builds its per-document view column by column.
    return PageRows(
        documents=[html_report.DocumentView(doc, texts.get(doc, ""), {}) for doc in shown],
        documents_total=len(order),
        rows=given_rows,
    )


def views_rows(views: Mapping[str, pa.Table]) -> pa.Table:
    """Systems' views (name -> ``PAGE_VIEW``, in that order) as one ``PAGE_VIEWS`` table."""
    tables = [
        view.append_column(C.system, pa.array([name] * view.num_rows, pa.string())).cast(PAGE_VIEWS)
        for name, view in views.items()
    ]
    return pa.concat_tables(tables) if tables else PAGE_VIEWS.empty_table()


def board_order(board: pa.Table) -> list[str]:
    """The systems of a ``LEADERBOARD`` in its order (best first): the order ``campaign_summary`` ranked
    them in, read off the board rather than ranked again from every system's statistics."""
    return list(dict.fromkeys(board.column(C.system).to_pylist()))


def coref_chains(mentions: Mapping[str, pa.Table], limit: int) -> list[html_report.CorefView]:
    """The chains section's data of a coreference campaign: the key's and each response's chains, with
    split and merged chains, of the first ``limit`` documents in key order (``mentions``: each system's
    ``COREF_MENTIONS``)."""
    frames = {name: table.to_pandas() for name, table in mentions.items()}
    order: list[str] = []
    for frame in frames.values():
        order = list(dict.fromkeys([*order, *frame[C.doc_id]]))  # key order (mention_table's)
    return [_chain_view(doc, frames) for doc in order[:limit]]


def _chain_view(doc_id: str, frames: Mapping[str, Any]) -> html_report.CorefView:
    """One document's chains: the key's (from any system's mentions: every one lists every key
    mention), each system's response chains, and which are split or merged.

    A key chain is split when its mentions are not all in one response chain (a missing mention counts
    as a chain of its own); a response chain is merged when its mentions are not all of one key chain
    (a spurious mention counts as a chain of its own).
    """
    key: dict[int, list[html_report.CorefMention]] = {}
    responses: dict[str, list[list[html_report.CorefMention]]] = {}
    split: dict[str, list[int]] = {}
    merged: dict[str, list[int]] = {}
    for name, frame in frames.items():
        rows = (
            frame[frame[C.doc_id] == doc_id].sort_values([C.start, C.end], kind="stable").to_dict("records")
        )
        key_sides: dict[int, set[int]] = {}
        response_sides: dict[int, set[int]] = {}
        chains: dict[int, list[html_report.CorefMention]] = {}
        own_key: dict[int, list[html_report.CorefMention]] = {}
        lonely = 0  # each missing or spurious mention is a chain of its own on the other side
        for row in rows:
            start, end, status = int(row[C.start]), int(row[C.end]), row[C.status]
            if row[C.key_mention] >= 0:
                chain = int(row[C.key_chain])
                own_key.setdefault(chain, []).append(
                    html_report.CorefMention(row[C.key_text], start, end, status)
                )
                if status != "OPT":
                    lonely += status != "COR"
                    partner = int(row[C.response_chain]) if status == "COR" else -lonely
                    key_sides.setdefault(chain, set()).add(partner)
            if row[C.response_mention] >= 0:
                chain = int(row[C.response_chain])
                chains.setdefault(chain, []).append(
                    html_report.CorefMention(row[C.response_text], start, end, status)
                )
                lonely += status != "COR"
                partner = int(row[C.key_chain]) if status == "COR" else -lonely
                response_sides.setdefault(chain, set()).add(partner)
        key = key or own_key
        responses[name] = [chains[c] for c in sorted(chains)]
        key_position = {c: i for i, c in enumerate(sorted(own_key))}
        split[name] = [key_position[c] for c in sorted(own_key) if len(key_sides.get(c, ())) > 1]
        position = {c: i for i, c in enumerate(sorted(chains))}
        merged[name] = [position[c] for c in sorted(chains) if len(response_sides.get(c, ())) > 1]
    return html_report.CorefView(doc_id, [key[c] for c in sorted(key)], responses, split, merged)


#: The columns of a ``mapping`` artifact the page's per-document view shows (``report_data``).
MAPPING_VIEW_COLUMNS = [
    C.level, C.doc_id, C.instance_type, C.slot, C.ref_instance, C.hyp_instance, C.ref_fill, C.hyp_fill,
    C.ref_start, C.ref_end, C.hyp_start, C.hyp_end, C.points,
]  # fmt: skip


def shown_documents(documents: pa.Table | None, doc_ids: Sequence[str], limit: int) -> list[str]:
    """The documents a page's per-document view shows: the first ``limit`` of the reference corpus, or
    without texts of every document id of the mappings (``doc_ids``), sorted."""
    order = documents.column(C.doc_id).to_pylist() if documents is not None else sorted(set(doc_ids))
    return order[:limit]


def mapping_view(mapping: pa.Table, shown: Sequence[str], spans: bool, objects: bool) -> pa.Table:
    """One system's rows of the page's per-document view (``PAGE_VIEW``): its fill pairings (and object
    pairings with ``objects``) in the ``shown`` documents, in mapping order; ``ref`` and ``hyp`` the fills
    (an object's pointers), spans only with ``spans`` (character extents of the reference text) and never
    for objects; ``categories`` as ``point_categories`` writes them."""
    levels = ["instance", "fill"] if objects else ["fill"]
    selected = mapping.filter(
        pc.and_(
            pc.is_in(mapping.column(C.level), pa.array(levels, pa.string())),
            pc.is_in(mapping.column(C.doc_id), pa.array(list(shown), pa.string())),
        )
    )
    instance = pc.equal(selected.column(C.level), "instance")
    nothing = pa.scalar(None, pa.int64())

    def extent(name: str) -> pa.ChunkedArray | pa.Array:
        if not spans:
            return pa.nulls(selected.num_rows, pa.int64())
        return pc.if_else(instance, nothing, selected.column(name))

    columns = [
        selected.column(C.doc_id),
        selected.column(C.instance_type),
        pc.if_else(instance, pa.scalar(None, pa.string()), selected.column(C.slot)),
        pc.if_else(instance, selected.column(C.ref_instance), selected.column(C.ref_fill)),
        pc.if_else(instance, selected.column(C.hyp_instance), selected.column(C.hyp_fill)),
        extent(C.ref_start),
        extent(C.ref_end),
        extent(C.hyp_start),
        extent(C.hyp_end),
        pa.array(point_categories(selected.column(C.points)), pa.string()),
    ]
    return pa.Table.from_arrays(columns, schema=PAGE_VIEW)


def point_categories(points: pa.ChunkedArray | pa.Array) -> list[str]:
    """Each pairing's points as ``"aspect:category ..."`` (``"content:COR extent:INC"``), in order."""
    lists = points.combine_chunks() if isinstance(points, pa.ChunkedArray) else points
    flat = lists.flatten()
    aspects, categories = flat.field("aspect"), flat.field("category")
    if (
        lists.null_count or aspects.null_count or categories.null_count
    ):  # not in a valid mapping: as Python does
        return [" ".join(f"{p['aspect']}:{p['category']}" for p in row) for row in points.to_pylist()]
    offsets = pc.subtract(lists.offsets, lists.offsets[0])
    pieces = pc.binary_join_element_wise(aspects, categories, ":")
    return pc.binary_join(pa.ListArray.from_arrays(offsets, pieces), " ").to_pylist()


# --- reading campaign files ----------------------------------------------------------------------


def _campaign_text(path: Path) -> str:
    """The campaign file's text: TOML is UTF-8, and a byte that is not is reported with its line."""
    if path.is_dir():
        raise InputError(str(path), 0, "is a directory; a campaign file (TOML) expected")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(str(path), 0, "campaign file not found") from None
    except OSError as error:
        raise InputError(str(path), 0, f"cannot read the campaign file: {error.strerror or error}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(
            str(path),
            line,
            f"UTF-8 text expected (a campaign file is TOML): byte 0x{data[error.start]:02x} is not UTF-8",
        ) from None


_TOML_WHERE = re.compile(r" \(at (?:line (\d+), column (\d+)|end of document)\)$")


def _parse_toml(path: Path, text: str) -> dict[str, Any]:
    """The TOML document, or an InputError with the line of the syntax error.

    tomllib names a line and column for most errors; for an array, inline table or string never
    closed it says "end of document", or names the later line where the rest of the file stopped
    making sense: then the line is the one where the unclosed value starts.
    """
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        where = _TOML_WHERE.search(message)
        what = message[: where.start()] if where else message
        line = int(where.group(1)) if where and where.group(1) else 0
        at = f"line {line}, column {where.group(2)}" if where and where.group(2) else "the end"
        unclosed = _unclosed_statement(text)
        if unclosed and (line == 0 or line >= unclosed):
            message = f"a bracket or string opened on this line is never closed ({what} at {at})"
            raise InputError(str(path), unclosed, f"TOML syntax error: {message}") from None
        if line == 0:
            line = _unparsable_statement(text)
        column = f" (column {where.group(2)})" if where and where.group(2) else ""
        raise InputError(str(path), line, f"TOML syntax error: {what}{column}") from None


def _unclosed_statement(text: str) -> int:
    """The line where the last statement starts if it runs to the end of the text unclosed, else 0."""
    statements, unclosed = _lex(text)
    return statements[-1][0] if unclosed else 0


def _unparsable_statement(text: str) -> int:
    """The line of the first statement that is not valid TOML on its own, or 0."""
    for line, statement in _statements(text):
        try:
            tomllib.loads(statement)
        except tomllib.TOMLDecodeError:
            return line
    return 0


def _statements(text: str) -> list[tuple[int, str]]:
    """The statements of a TOML text (table headers, ``key = value``), each with its first line."""
    return _lex(text)[0]


def _lex(text: str) -> tuple[list[tuple[int, str]], bool]:
    """The statements of a TOML text, and whether the last one is never closed.

    A small lexer finds where each statement ends: a newline ends it unless it falls inside a
    multi-line string or brackets; strings may hold ``#``, brackets and quotes; comments are skipped.
    An array, inline table or multi-line string never closed runs to the end of the text.
    """
    statements: list[tuple[int, str]] = []
    start, start_line, line, depth, i, n = -1, 0, 1, 0, 0, len(text)
    closed = True
    while i < n:
        ch = text[i]
        if ch == "\n":
            if depth == 0 and start >= 0:
                statements.append((start_line, text[start:i]))
                start = -1
            line += 1
        elif ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif ch not in " \t\r":
            if start < 0:
                start, start_line = i, line
            if ch in "\"'":
                i, line, closed = _skip_string(text, i, line)
                continue
            if ch in "[{":
                depth += 1
            elif ch in "]}":
                depth = max(0, depth - 1)
        i += 1
    if start >= 0:
        statements.append((start_line, text[start:]))
        return statements, depth > 0 or not closed
    return statements, False


def _skip_string(text: str, i: int, line: int) -> tuple[int, int, bool]:
    """Past the string starting at ``text[i]`` (a quote): the index, the line it ends on, and whether
    it was closed (a one-line string left open ends at the newline, which ends its statement)."""
    quote = text[i]
    close = quote * 3 if text.startswith(quote * 3, i) else quote
    i += len(close)
    while i < len(text):
        ch = text[i]
        if ch == "\\" and quote == '"':
            if text.startswith("\n", i + 1):
                line += 1
            i += 2
            continue
        if ch == "\n":
            if len(close) == 1:
                return i, line, True
            line += 1
        elif text.startswith(close, i):
            i += len(close)
            if len(close) == 3:  # up to two quotes just before the closing ones belong to the string
                i += len(text[i : i + 2]) - len(text[i : i + 2].lstrip(quote))
            return i, line, True
        i += 1
    return i, line, len(close) == 1


def _key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The line of every key path of a (valid) TOML text, tables included: ``("systems", "a",
    "templates")`` is the line setting that system's templates, ``("systems", "a")`` its header."""
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for line, statement in _statements(text):
        try:
            parsed = tomllib.loads(statement)
        except tomllib.TOMLDecodeError:
            continue
        if statement.startswith("["):
            path: list[str] = []
            node: Any = parsed
            while isinstance(node, dict) and len(node) == 1:
                key, node = next(iter(node.items()))
                path.append(key)
                lines.setdefault(tuple(path), line)
            table = tuple(path)
        else:
            _record_keys(parsed, table, line, lines)
    return lines


def _record_keys(table: dict[str, Any], prefix: tuple[str, ...], line: int, lines: dict) -> None:
    for key, value in table.items():
        lines.setdefault((*prefix, key), line)
        if isinstance(value, dict):
            _record_keys(value, (*prefix, key), line, lines)


class _Values:
    """Typed access to a campaign's values: a value of the wrong type or range is an InputError
    naming the file and the line of its key (found when an error needs it)."""

    def __init__(self, origin: str, text: str) -> None:
        self.origin, self.text = origin, text
        self._lines: dict[tuple[str, ...], int] | None = None

    def line(self, keys: tuple[str, ...]) -> int:
        """The line of ``keys``, else of the nearest table holding it, else 0."""
        if self._lines is None:
            self._lines = _key_lines(self.text)
        while keys:
            if keys in self._lines:
                return self._lines[keys]
            keys = keys[:-1]
        return 0

    def error(self, keys: tuple[str, ...], message: str) -> InputError:
        return InputError(self.origin, self.line(keys), message)

    def expected(self, keys: tuple[str, ...], what: str, value: Any) -> InputError:
        return self.error(keys, f"{_dotted(keys)}: {what} expected, {_found(value)}")

    def known(self, table: Mapping[str, Any], keys: tuple[str, ...], allowed: set[str]) -> None:
        """A key the campaign format does not define is an error (a misspelt 'texts' must not vanish)."""
        for key in table:
            if key not in allowed:
                raise self.error(
                    (*keys, key),
                    f"unknown key {_dotted((*keys, key))}; expected one of {', '.join(sorted(allowed))}",
                )

    def family_keys(self, table: Mapping[str, Any], keys: tuple[str, ...], scorer: str, part: str) -> None:
        """Only the keys of the campaign's family: one of another family is named as such, with its line
        (a ``compare`` option under a coref campaign must not be ignored)."""
        allowed = _keys_of(KINDS[scorer])[part]
        for key in table:
            if key in allowed:
                continue
            # Every kind's keys (every family imported) only to name the owners of a key out of place.
            owners = [name for name, kind in KINDS.items() if key in _keys_of(kind)[part]]
            if owners:
                raise self.error(
                    (*keys, key),
                    f"{_dotted((*keys, key))} is a key of {' and '.join(owners)} campaigns, not of this "
                    f'scorer = "{scorer}" campaign; expected one of {", ".join(sorted(allowed))}',
                )
        self.known(table, keys, allowed)

    def table(self, parent: Mapping[str, Any], keys: tuple[str, ...], required: str | None) -> dict:
        """A table (``{}`` when absent and not required; ``required`` says what is expected)."""
        if keys[-1] not in parent:
            if required:
                raise self.error(keys[:-1], f"{required} expected")
            return {}
        value = parent[keys[-1]]
        if not isinstance(value, dict):
            raise self.expected(keys, f"a table [{_dotted(keys)}]", value)
        return value

    def file(
        self, table: Mapping[str, Any], keys: tuple[str, ...], base: Path, required: str | None = None
    ) -> Path | None:
        """An existing file, relative to the campaign file."""
        if keys[-1] not in table:
            if required:
                raise self.error(keys[:-1], required)
            return None
        value = table[keys[-1]]
        if not isinstance(value, str) or not value:
            raise self.expected(keys, "a file name (a string)", value)
        name = _dotted(keys)
        try:
            candidate = (base / value).resolve()
            directory, exists = candidate.is_dir(), candidate.is_file()
        except (OSError, ValueError) as error:  # a NUL in the name, a name too long...
            raise self.error(keys, f"{name}: {value!r} is not a usable file name ({error})") from None
        if directory:
            raise self.error(keys, f"{name}: {value!r} is a directory; a file expected")
        if not exists:
            raise self.error(keys, f"{name}: file {value!r} not found (looked for {candidate})")
        return candidate

    def directory(
        self, table: Mapping[str, Any], keys: tuple[str, ...], base: Path, urls: bool = False
    ) -> Path | str | None:
        """A directory name relative to the campaign file (whether it can be written into is the
        command line's check, with the other output paths); with ``urls``, an ``s3://`` URL is kept as
        written (a URL is no path)."""
        value = table.get(keys[-1])
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise self.expected(keys, "a directory name (a string)", value)
        if urls and URL_SCHEME.match(value):
            if not value.startswith("s3://"):
                raise self.expected(
                    keys,
                    "a directory name or s3://BUCKET/PREFIX (./NAME for a directory whose name has a colon)",
                    value,
                )
            return value
        return base / value

    def boolean(self, table: Mapping[str, Any], keys: tuple[str, ...], default: bool) -> bool:
        value = table.get(keys[-1], default)
        if not isinstance(value, bool):
            raise self.expected(keys, "true or false", value)
        return value

    def whole(self, value: Any, keys: tuple[str, ...], low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.expected(keys, f"a whole number from {low} to {high}", value)
        return value

    def words(self, value: Any, keys: tuple[str, ...]) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(word, str) for word in value):
            raise self.expected(keys, 'an array of strings (e.g. ["COMMENT"])', value)
        return list(value)

    def field(self, table: Mapping[str, Any], keys: tuple[str, ...], spec: Field, base: Path) -> Any:
        """The value of a kind's key (``pipeline.core.kinds.Field``), checked; its default when
        not given (an error when required). Paths are resolved against the campaign file's directory."""
        if keys[-1] not in table:
            if spec.required:
                raise self.error(keys[:-1], f"{_dotted(keys)} = ... expected ({spec.doc})")
            return list(spec.default) if isinstance(spec.default, list) else spec.default
        value = table[keys[-1]]
        kind = spec.type
        if kind == "file":
            return self.file(table, keys, base)
        if kind in ("directory", "path"):
            return self.existing(value, keys, base, kind)
        if kind == "paths":
            items = value if isinstance(value, list) else [value]
            if not items:
                raise self.expected(keys, "a path or a non-empty array of paths", value)
            return [self.existing(item, keys, base, "path") for item in items]
        if kind == "bool":
            return self.boolean(table, keys, bool(spec.default))
        if kind == "string":
            if not isinstance(value, str):
                raise self.expected(keys, "a string", value)
            return value
        if kind == "choice":
            if value not in spec.choices:
                raise self.expected(keys, "one of " + ", ".join(json.dumps(c) for c in spec.choices), value)
            return value
        if kind == "int":
            # A count without its own top must still fit a C long (numpy, Arrow's int64 columns).
            high = ANY_COUNT.high if spec.high is None else int(spec.high)
            return self.whole(value, keys, int(spec.low or 0), high)
        if kind == "number":
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise self.expected(keys, "a finite number", value)
            if (spec.low is not None and value < spec.low) or (spec.high is not None and value > spec.high):
                if spec.high is None:
                    bound = f">= {spec.low}"
                elif spec.low is None:
                    bound = f"<= {spec.high}"
                else:
                    bound = f"from {spec.low} to {spec.high}"
                raise self.expected(keys, f"a number {bound}", value)
            return float(value)
        if kind == "words":
            return self.words(value, keys)
        if kind == "positive":
            if isinstance(value, bool) or not isinstance(value, int | float) or not is_usable_beta(value):
                raise self.expected(keys, "a finite number > 0 whose square is finite and > 0", value)
            return float(value)
        if kind == "regex":
            problem = pattern_problem(value)
            if problem:
                raise self.error(keys, f"{_dotted(keys)}: {problem}, {_found(value)}")
            return value
        problem = encoding_problem(value)  # encoding
        if problem:
            raise self.error(keys, f"{_dotted(keys)}: {problem}, {_found(value)}")
        return value

    def existing(self, value: Any, keys: tuple[str, ...], base: Path, kind: str) -> Path:
        """An existing directory (``kind`` "directory") or file or directory ("path")."""
        what = "a directory name (a string)" if kind == "directory" else "a file or directory name (a string)"
        if not isinstance(value, str) or not value:
            raise self.expected(keys, what, value)
        try:
            candidate = (base / value).resolve()
            is_dir, exists = candidate.is_dir(), candidate.exists()
        except (OSError, ValueError) as error:
            raise self.error(keys, f"{_dotted(keys)}: {value!r} is not a usable name ({error})") from None
        if kind == "directory" and exists and not is_dir:
            raise self.error(keys, f"{_dotted(keys)}: {value!r} is a file; a directory expected")
        if not exists:
            raise self.error(keys, f"{_dotted(keys)}: {value!r} not found (looked for {candidate})")
        return candidate


def _dotted(keys: tuple[str, ...]) -> str:
    """Keys as TOML writes them: ``systems."name with spaces".templates``."""
    return ".".join(k if _BARE_KEY.fullmatch(k) else json.dumps(k, ensure_ascii=False) for k in keys)


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _found(value: Any) -> str:
    """What a value is, for messages: ``found the string 'no'``."""
    if isinstance(value, bool):
        return f"found {str(value).lower()}"
    if isinstance(value, int):
        return f"found the whole number {value}"
    if isinstance(value, float):
        return f"found the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:40] + "..."
        return f"found the string {json.dumps(shown, ensure_ascii=False)}"
    if isinstance(value, list):
        return "found an array"
    if isinstance(value, dict):
        return "found a table"
    return f"found {type(value).__name__} {value}"
