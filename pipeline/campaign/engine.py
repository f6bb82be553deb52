"""Campaign files and leaderboards.

A campaign file (TOML) names one reference and several systems::

    store = "store"                      # artifact store, relative to the campaign file

    [reference]
    templates = "ref.tpl"
    texts = "texts.sgml"                 # optional

    [options]                            # all optional; these are the defaults
    compare = "both"                     # content | extent | both
    unscored = ["COMMENT"]
    case_sensitive = false
    beta = 1.0
    encoding = "utf-8"
    glm = "rules.glm"                    # content normalization (and the words aligned, for speech)
    premodifiers = ["a", "an", "the", "and"]
    punctuation = ",.;:!?\"()'-"        # whited out of contents
    cost = "phonetic"                    # or "levenshtein": alignment costs for speech input
    resamples = 1000                     # bootstrap resamples and randomization shuffles
    seed = 12345                         # their random generator's seed
    html_documents = 100                 # documents in the HTML report's per-document view

    [systems.alpha]
    templates = "alpha.tpl"
    texts = "alpha.sgml"                 # optional: the hypothesis texts when they differ

    [systems."name with / and .."]     # any name: names are labels, never paths
    templates = "beta.tpl"
    texts = "beta-asr.sgml"
    unsegmented = true                   # the texts are one word stream (speech input)

    output = "results"                   # optional (top level): where reports and tables go

``scorer`` (top level) names the scorer family: ``"templette"`` (the default, above), ``"muc"`` or
``"coref"``. Each family has its own keys in ``[reference]``, ``[systems.NAME]`` and ``[options]``
(``FAMILY_KEYS``); a key of another family is an error naming its line::

    scorer = "muc"                       # the MUC scorer (seed 001), template or named entity tasks
    [reference]
    config = "te.config"                 # a MUC configuration: key, slot and class defs, options
    [systems.alpha]
    response = "alpha.tpl"               # replaces the configuration's :response_file
    [options]                            # encoding resamples seed html_documents

    scorer = "coref"                     # coreference chains: MUC, B3, CEAF-e, CoNLL F1
    [reference]
    key = "key.conll"
    [systems.alpha]
    response = "alpha.conll"
    [options]
    format = "conll"                     # or "sgml" (MUC texts with COREF tags)
    match = "exact"                      # or "min" (sgml only)
                                         # and encoding resamples seed html_documents

A MUC configuration of the coreference task is refused: its campaign is ``scorer = "coref"``.

Paths are relative to the campaign file. System names are labels only: they never become paths (the
output directory names each system's tables by a slug of its name and a digest, see ``output_name``).

Every value's type and range is checked, and a wrong one is an InputError naming the file and the line
of its key: nothing is coerced (``"false"`` is not false, ``"COMMENT"`` is not a list). ``beta`` is a
finite number > 0 (0 is refused: F with beta 0 is the precision, which PRE already is); ``resamples`` is
1 to ``MAX_RESAMPLES`` (100000: each draws a row per document, so memory grows as resamples x documents);
``seed`` is 0 to 2**63-1; ``html_documents`` is >= 1; ``encoding`` names a text encoding Python knows.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from pipeline.campaign import html_report, reuse, stats
from pipeline.campaign.defaults import DEFAULT_OPTIONS
from pipeline.campaign.families import FAMILIES
from pipeline.campaign.kinds import KINDS
from pipeline.campaign.stats import Interval
from pipeline.core.errors import InputError
from pipeline.core.family import Family, UnitStatistics, category_measures
from pipeline.core.kinds import CampaignKind, Field
from pipeline.coref import COREF, FORMATS, MATCH_MODES
from pipeline.muc.config import MucConfig, read_config
from pipeline.muc.rules import TASKS
from pipeline.speech.align import COST_MODELS
from pipeline.templette import TEMPLETTE, templette_statistics
from pipeline.templette.report import _p, _pct2
from pipeline.templette.report import printable as _printable
from pipeline.templette.scoring import COMPARE_MODES
from schemas import (
    COREF_BOARD_MEASURES,
    COREF_LEADERBOARD,
    COUNT_COLUMNS,
    FAMILY_LEADERBOARD,
    FAMILY_SIGNIFICANCE,
    LEADERBOARD,
    MEASURE_COLUMNS,
    PAGE_VIEW,
    SIGNIFICANCE,
    C,
    table_from_rows,
)

#: Per scorer: the keys of [reference], of each [systems.NAME], and the options it takes.
_COMMON_OPTIONS = {"encoding", "resamples", "seed", "html_documents"}
FAMILY_KEYS: dict[str, dict[str, set[str]]] = {
    "templette": {
        "reference": {"templates", "texts"},
        "system": {"templates", "texts", "unsegmented"},
        "options": set(DEFAULT_OPTIONS) - {"format", "match"},
    },
    "muc": {"reference": {"config"}, "system": {"response"}, "options": set(_COMMON_OPTIONS)},
    "coref": {"reference": {"key"}, "system": {"response"}, "options": _COMMON_OPTIONS | {"format", "match"}},
}
#: The options every campaign of a registered kind takes, beside the kind's own.
KIND_COMMON_OPTIONS = {
    "resamples": Field("int", "bootstrap resamples and randomization shuffles", default=1000, low=1),
    "seed": Field("int", "the random generator's seed", default=12345, low=0),
    "html_documents": Field("int", "documents in the HTML page's per-document view", default=100, low=1),
}


def _family_keys() -> dict[str, dict[str, set[str]]]:
    """``FAMILY_KEYS`` and the keys of every registered kind (``pipeline.campaign.kinds.KINDS``)."""
    keys = dict(FAMILY_KEYS)
    for name, kind in KINDS.items():
        keys[name] = {
            "reference": set(kind.reference),
            "system": set(kind.system),
            "options": set(KIND_COMMON_OPTIONS) | set(kind.options),
        }
    return keys


# What each family's reference table and system tables must hold, for messages.
_REQUIRED = {
    "templette": ("templates", "a [reference] table with templates = FILE"),
    "muc": ("config", "a [reference] table with config = FILE (a MUC configuration)"),
    "coref": ("key", "a [reference] table with key = FILE"),
}


@dataclass(frozen=True)
class System:
    """A system: ``templates`` is its file, templates (templette) or its response (muc, coref); in a
    campaign of a registered kind (``pipeline.campaign.kinds``), the value of the kind's main system key,
    and ``values`` every key of its table, checked (defaults filled in)."""

    name: str
    templates: Path
    texts: Path | None = None
    unsegmented: bool = False
    values: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Campaign:
    """A parsed campaign. ``reference_templates`` is the reference's file: its templates (templette),
    the MUC configuration (muc, parsed in ``muc_config``) or the coreference key (coref)."""

    source: Path
    reference_templates: Path
    reference_texts: Path | None
    systems: tuple[System, ...]
    options: dict[str, Any] = field(default_factory=dict)
    store: Path | str | None = None  # a directory, or an s3://BUCKET/PREFIX URL (kept as written)
    output: Path | None = None
    store_line: int = 0
    scorer: str = "templette"
    muc_config: MucConfig | None = None
    #: A registered kind's [reference] values, checked (defaults filled in); empty otherwise.
    reference_values: Mapping[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> CampaignKind | None:
        """The campaign's kind when its family declares one (``pipeline.campaign.kinds.KINDS``), ranking
        by the measure its options choose (``CampaignKind.measure_option``; ``CampaignKind.ranked_by``)."""
        kind = KINDS.get(self.scorer)
        if kind is None or kind.measure_option is None:
            return kind
        return kind.ranked_by(self.options.get(kind.measure_option))

    @property
    def family(self) -> Family:
        kind = self.kind
        return kind.family if kind is not None else FAMILIES[self.scorer]

    @property
    def reference_files(self) -> tuple[Path, ...]:
        """The files every system is scored against: the reference's templates and texts, the GLM; a
        MUC configuration and its key and texts; a coreference key."""
        if self.kind is not None:
            files = tuple(
                value for part in (self.reference_values, self.options) for value in _paths(part.values())
            )
        elif self.muc_config is not None:
            files = (self.reference_templates, self.muc_config.key_file, self.muc_config.text_file)
        else:
            files = (self.reference_templates, self.reference_texts, self.options.get("glm"))
        return tuple(Path(f) for f in files if f)


def read_campaign(path: str | Path) -> Campaign:
    """Parse and check a campaign file; every problem is an InputError naming the file and the line.

    Every value's type and range is checked (a ``"false"`` that Python would take as true, a string
    where a list is expected, a beta that is not a positive number...): nothing is coerced.
    """
    path = Path(path)
    text = _campaign_text(path)
    data = _parse_toml(path, text)
    values = _Values(path, text)
    base = path.parent
    values.known(data, (), {"scorer", "store", "output", "reference", "options", "systems"})
    scorer = data.get("scorer", "templette")
    if scorer not in _family_keys():
        raise values.expected(("scorer",), "one of " + ", ".join(f'"{f}"' for f in _family_keys()), scorer)
    if scorer in KINDS:
        return _read_kind(path, data, values, KINDS[scorer])
    keys = FAMILY_KEYS[scorer]
    main, required = _REQUIRED[scorer]
    system_key = "templates" if scorer == "templette" else "response"
    reference = values.table(data, ("reference",), required)
    values.family_keys(reference, ("reference",), scorer, "reference")
    parsed = []
    for name, entry, where in _system_tables(values, data, scorer, system_key, "FILE"):
        parsed.append(
            System(
                name,
                values.file(
                    entry, (*where, system_key), base, f"system {name!r}: {system_key} = FILE expected"
                ),
                values.file(entry, (*where, "texts"), base),
                values.boolean(entry, (*where, "unsegmented"), False),
            )
        )
    given = values.table(data, ("options",), None)
    values.family_keys(given, ("options",), scorer, "options")
    options = {name: values.option(given, name, base) for name in DEFAULT_OPTIONS if name in keys["options"]}
    if scorer == "coref" and options["match"] == "min" and options["format"] != "sgml":
        raise values.error(
            ("options", "match"), 'options.match: "min" needs format = "sgml" (CoNLL has no MIN)'
        )
    reference_file = values.file(reference, ("reference", main), base, f"reference: {main} = FILE expected")
    config = None
    if scorer == "muc":
        config = _muc_reference(reference_file, options["encoding"], values.error(("reference", main), ""))
    return Campaign(
        path,
        reference_file,
        values.file(reference, ("reference", "texts"), base),
        tuple(parsed),
        options,
        values.directory(data, ("store",), base, urls=True),
        values.directory(data, ("output",), base),
        store_line=values.line(("store",)) if "store" in data else 0,
        scorer=scorer,
        muc_config=config,
    )


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


def _read_kind(path: Path, data: Mapping[str, Any], values: _Values, kind: CampaignKind) -> Campaign:
    """A campaign of a registered kind: every table's keys are the kind's, every value of its Field's type."""
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
        parsed.append(System(name, main_value[0] if isinstance(main_value, list) else main_value, values=own))
    given = values.table(data, ("options",), None)
    values.family_keys(given, ("options",), kind.name, "options")
    every = {**KIND_COMMON_OPTIONS, **kind.options}
    options = {name: values.field(given, ("options", name), f, base) for name, f in every.items()}
    if options["resamples"] > MAX_RESAMPLES:
        raise values.expected(
            ("options", "resamples"), f"a whole number from 1 to {MAX_RESAMPLES}", options["resamples"]
        )
    if options["seed"] > MAX_SEED:
        raise values.expected(("options", "seed"), f"a whole number from 0 to {MAX_SEED}", options["seed"])
    main_value = checked[main]
    return Campaign(
        path,
        main_value[0] if isinstance(main_value, list) else main_value,
        None,
        tuple(parsed),
        options,
        values.directory(data, ("store",), base, urls=True),
        values.directory(data, ("output",), base),
        store_line=values.line(("store",)) if "store" in data else 0,
        scorer=kind.name,
        reference_values=checked,
    )


def _paths(items: Any) -> list[Path]:
    """The paths among values (a path, or a list of paths)."""
    found: list[Path] = []
    for item in items:
        if isinstance(item, Path):
            found.append(item)
        elif isinstance(item, list):
            found += [value for value in item if isinstance(value, Path)]
    return found


def _muc_reference(path: Path, encoding: str, where: InputError) -> MucConfig:
    """The MUC configuration of a MUC campaign: a template or named entity task whose key (and texts)
    exist. Its :response_file is not read: each system's response replaces it."""
    config = read_config(path, encoding)
    if config.task not in TASKS:
        raise InputError(config.source, 0, f":scoring_task expected, one of {', '.join(TASKS)}")
    if config.task == "coreference":
        raise InputError(
            where.file,
            where.line,
            f"reference.config: {path.name} configures the coreference task; score coreference with "
            'scorer = "coref" ([reference] key = FILE, [options] format = "sgml")',
        )
    for name, file in (("key_file", config.key_file), ("text_file", config.text_file)):
        if file is not None and not Path(file).is_file():
            raise InputError(
                config.source, config.option_lines.get(name, 0), f":{name} {file}: file not found"
            )
    return config


def leaderboard(
    systems: Mapping[str, pa.Table],
    signatures: Mapping[str, str],
    intervals: Mapping[str, Mapping[str, Interval]] | None = None,
) -> pa.Table:
    """One row per system from its total scores, best F first (``stats.ranking``: equal F share a rank,
    listed by name; an undefined F ranks last).

    ``intervals`` (system -> measure -> Interval) fill the confidence-interval columns.
    """
    rows = {name: board_row(scores, signatures[name]) for name, scores in systems.items()}
    return ranked_board(rows, intervals)


def board_row(scores: pa.Table, signature: str) -> dict[str, Any]:
    """A system's leaderboard row without rank and intervals: its total counts and measures (the
    ``total`` scope of its ``scores``) and its signature."""
    total = next(row for row in scores.to_pylist() if row[C.scope] == "total")
    return {**{k: total[k] for k in COUNT_COLUMNS + MEASURE_COLUMNS}, C.signature: signature}


def ranked_board(
    rows: Mapping[str, Mapping[str, Any]], intervals: Mapping[str, Mapping[str, Interval]] | None = None
) -> pa.Table:
    """The ``LEADERBOARD`` table from every system's ``board_row``, with intervals and ranks."""
    complete = {}
    for name, row in rows.items():
        bounds = {}
        for measure, interval in (intervals or {}).get(name, {}).items():
            bounds[f"{measure}_low"], bounds[f"{measure}_high"] = interval.low, interval.high
        complete[name] = {
            C.system: name,
            **{k: row[k] for k in COUNT_COLUMNS + MEASURE_COLUMNS},
            **bounds,
            C.signature: row[C.signature],
        }
    ranked = stats.ranking({name: row[C.F] for name, row in complete.items()})
    return table_from_rows([{**complete[name], C.rank: rank} for name, rank in ranked], LEADERBOARD)


def output_name(system: str) -> str:
    """A file name for a system's outputs that cannot leave its directory, whatever the name holds.

    Letters (any script), digits, ``-`` and ``_`` are kept, everything else becomes ``_``; a digest of
    the full name keeps names that slug alike apart (``a/b`` and ``a b``).
    """
    slug = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in system)[:40].strip("_") or "system"
    return f"{slug}-{hashlib.sha256(system.encode()).hexdigest()[:8]}"


def campaign_statistics(
    scores: Mapping[str, pa.Table],
    signatures: Mapping[str, str],
    tallies: Mapping[str, pa.Table],
    resamples: int,
    seed: int,
    beta: float,
    family: Family = TEMPLETTE,
) -> tuple[pa.Table, pa.Table]:
    """The leaderboard with bootstrap intervals, and the significance of every pair of systems.

    ``family`` is TEMPLETTE or MUC (the MUC scorer's ALL SLOTS is made of the same points).
    Both come from the templette family's statistics (``document_statistics``): the points ALL SLOTS
    counts (``slot_points``), by document, so every interval and every delta is about the leaderboard's
    own REC, PRE and F (their full-sample values are those the board prints). The documents resampled
    are every document with a point in any system's tallies.
    """
    tables = campaign_summary(list(scores), scores, signatures, tallies, resamples, seed, beta, family)
    return tables["leaderboard"], tables["significance"]


def campaign_summary(
    systems: Sequence[str],
    scores: Mapping[str, pa.Table],
    signatures: Mapping[str, str],
    tallies: Mapping[str, pa.Table],
    resamples: int,
    seed: int,
    beta: float,
    family: Family = TEMPLETTE,
    previous: reuse.Previous | None = None,
) -> dict[str, pa.Table]:
    """``campaign_statistics``'s leaderboard and significance, and the record a later summary reuses
    (``units``, ``systems``: ``pipeline.campaign.reuse``), for ``systems`` in campaign order.

    ``scores``, ``signatures`` and ``tallies`` are needed only for the systems ``previous`` does not list
    as unchanged: an unchanged system's statistics and leaderboard row come from ``previous``, and every
    interval or pair test ``previous`` holds for statistics identical to today's is taken from it
    (``reuse.same_statistics``). The tables are the same as without ``previous``.
    """
    unchanged = previous.unchanged if previous is not None else frozenset()
    own, rows = {}, {}
    for name in systems:
        if previous is not None and name in unchanged:
            own[name], rows[name] = previous.systems[name], previous.rows[name]
        else:
            table = templette_statistics(tallies[name], name)
            own[name] = reuse.system_values(family, name, table)
            rows[name] = board_row(scores[name], signatures[name])
    statistics = reuse.assemble(family, own)
    _require_same_totals(statistics, rows)
    options = {"beta": beta}
    settings = {"resamples": resamples, "seed": seed, "family": family.name, "options": options}
    same = reuse.same_statistics(previous, statistics, settings)
    # A system's interval depends on its own statistics only (the resampled documents are drawn the same
    # whatever the systems), so the board can be built once, with them.
    intervals = reuse.intervals_reusing(
        statistics,
        same,
        previous,
        lambda some: stats.bootstrap_intervals(some, resamples=resamples, seed=seed, options=options),
    )
    board = ranked_board(rows, intervals)
    # Pairs run best ranked first: system a of each pair ranks above system b.
    ranked = statistics.select(board.column(C.system).to_pylist())
    comparisons = reuse.comparisons_reusing(
        ranked,
        same,
        previous,
        lambda some, pairs: stats.paired_significance(
            some, some.family.headline, resamples=resamples, seed=seed, options=options, pairs=pairs
        ),
    )
    significance = _significance_rows(comparisons, family.headline, resamples, seed)
    return {"leaderboard": board, "significance": significance, **reuse.record_tables(statistics, own)}


def previous_summary(
    family: Family,
    resamples: int,
    seed: int,
    beta: float,
    tables: Mapping[str, pa.Table],
    unchanged: set[str] | frozenset[str],
) -> reuse.Previous:
    """A previous templette or MUC summary's tables (its four outputs) as ``reuse.Previous``, with the
    systems whose inputs the caller found unchanged (only those the record holds are kept)."""
    units, systems = reuse.read_record(family, tables["units"], tables["systems"])
    rows, intervals = {}, {}
    for row in tables["leaderboard"].to_pylist():
        rows[row[C.system]] = {k: row[k] for k in (*COUNT_COLUMNS, *MEASURE_COLUMNS, C.signature)}
        intervals[row[C.system]] = {
            m: Interval(row.get(f"{m}_low"), row.get(f"{m}_high")) for m in family.measure_names
        }
    return reuse.Previous(
        settings={"resamples": resamples, "seed": seed, "family": family.name, "options": {"beta": beta}},
        units=units,
        systems=systems,
        rows=rows,
        intervals=intervals,
        comparisons=reuse.comparisons_from_table(tables["significance"]),
        unchanged=frozenset(name for name in unchanged if name in systems and name in rows),
    )


def significance_table(
    statistics: UnitStatistics, resamples: int, seed: int, options: Mapping[str, Any] | None = None
) -> pa.Table:
    """The ``significance`` table of any family: every pair of systems (in ``statistics.systems`` order,
    a before b) compared on the family's headline measure."""
    headline = statistics.family.headline
    comparisons = stats.paired_significance(
        statistics, headline, resamples=resamples, seed=seed, options=options
    )
    return _significance_rows(comparisons, headline, resamples, seed)


def _significance_rows(
    comparisons: Sequence[stats.Comparison], headline: str, resamples: int, seed: int
) -> pa.Table:
    rows = [
        {
            C.system_a: c.a,
            C.system_b: c.b,
            C.measure: headline,
            C.delta: c.delta,
            C.paired_bootstrap_p: c.paired_bootstrap_p,
            C.randomization_p: c.randomization_p,
            C.resamples: resamples,
            C.seed: seed,
        }
        for c in comparisons
    ]
    return table_from_rows(rows, SIGNIFICANCE)


def document_statistics(
    systems: list[str], tallies: Mapping[str, pa.Table], family: Family = TEMPLETTE
) -> UnitStatistics:
    """The campaign's sufficient statistics: the templette family's, ALL SLOTS points by system and
    document (``pipeline.campaign.families.templette_statistics``).

    The units are every document with a point in any system's tallies, sorted by id (the order
    resampling draws them in).
    """
    tables = {name: templette_statistics(tallies[name], name) for name in systems}
    return UnitStatistics.from_table(family, tables)


def coref_campaign_statistics(
    statistics: Mapping[str, pa.Table], signatures: Mapping[str, str], resamples: int, seed: int
) -> tuple[pa.Table, pa.Table]:
    """A coreference campaign's leaderboard and significance from every system's ``STATISTICS`` table
    (``pipeline.campaign.families.coref_statistics``): the COREF family's measures of the sums over documents,
    ranked by CoNLL F1 (``stats.standings``), its bootstrap interval, and every pair compared on it."""
    table = UnitStatistics.from_table(COREF, statistics)
    intervals = stats.bootstrap_intervals(table, resamples=resamples, seed=seed)
    rows = []
    for standing in stats.standings(table, intervals):
        headline = standing.intervals.get(COREF.headline, Interval(None, None))
        rows.append(
            {
                C.rank: standing.rank,
                C.system: standing.system,
                **{name: standing.measures[name] for name in COREF_BOARD_MEASURES},
                f"{COREF.headline}_low": headline.low,
                f"{COREF.headline}_high": headline.high,
                C.signature: signatures[standing.system],
            }
        )
    board = table_from_rows(rows, COREF_LEADERBOARD)
    ranked = table.select(board.column(C.system).to_pylist())
    return board, significance_table(ranked, resamples, seed)


def is_coref_board(board: pa.Table) -> bool:
    """Whether a leaderboard is a coreference campaign's (``COREF_LEADERBOARD``)."""
    return COREF.headline in board.column_names


def coref_leaderboard_text(board: pa.Table, significance: pa.Table | None = None) -> str:
    """A coreference leaderboard as a fixed-width table: MUC, B3 and CEAF-e F1, CoNLL F1 and its
    interval, percentages (``-`` where undefined); then p(next) as the templette leaderboard."""
    rows = board.to_pylist()
    names = [_printable(row[C.system]) for row in rows]
    width = max([len("system")] + [len(name) for name in names])
    following: dict[str, float | None] = {}
    if significance is not None:
        p_values = {(r[C.system_a], r[C.system_b]): r[C.randomization_p] for r in significance.to_pylist()}
        for upper, lower in zip(rows, rows[1:], strict=False):
            following[upper[C.system]] = p_values.get((upper[C.system], lower[C.system]))
    shown = ("MUC_F1", "B3_F1", "CEAFe_F1", "CoNLL_F1")
    header = f"{'rank':>4}  {'system':<{width}}" + "".join(f"{c:>9}" for c in shown)
    header += f"  {'CoNLL_F1 95% CI':>15}" + (f"  {'p(next)':>7}" if following else "")
    lines = [header, "-" * len(header)]
    for row, name in zip(rows, names, strict=True):
        cells = "".join(f"{_pct2(row[c]):>9}" for c in shown)
        cells += f"  {_pct2(row['CoNLL_F1_low']):>7}-{_pct2(row['CoNLL_F1_high']):<7}"
        if following:
            p = following.get(row[C.system])
            cells += f"  {_p(p) if row[C.system] in following else '':>7}"
        lines.append(f"{row[C.rank]:>4}  {name:<{width}}{cells}")
    if following:
        lines.append("p(next): approximate randomization over documents, CoNLL F1 against the next system's")
    return "\n".join(lines) + "\n"


def kind_statistics(
    kind: CampaignKind,
    statistics: Mapping[str, pa.Table],
    signatures: Mapping[str, str],
    attributes: Mapping[str, Mapping[str, Any]],
    resamples: int,
    seed: int,
) -> tuple[pa.Table, pa.Table]:
    """A registered kind's leaderboard (``FAMILY_LEADERBOARD``) and significance, from every system's
    ``STATISTICS`` table: the family's measures of the sums over units, ranked by its headline
    (``stats.standings``), each board measure's bootstrap interval, and every pair compared on the headline.
    ``attributes`` (system -> the kind's attribute keys and values) are shown beside the names."""
    tables = kind_summary(kind, list(statistics), statistics, signatures, attributes, resamples, seed)
    return tables["leaderboard"], tables["significance"]


def kind_summary(
    kind: CampaignKind,
    systems: Sequence[str],
    statistics: Mapping[str, pa.Table],
    signatures: Mapping[str, str],
    attributes: Mapping[str, Mapping[str, Any]],
    resamples: int,
    seed: int,
    previous: reuse.Previous | None = None,
) -> dict[str, pa.Table]:
    """``kind_statistics``'s tables and the record a later summary reuses (``units``, ``systems``), for
    ``systems`` in campaign order. ``statistics`` and ``signatures`` are needed only for the systems
    ``previous`` does not list as unchanged (their statistics and signature come from ``previous``);
    intervals and pair tests of statistics identical to ``previous``'s are taken from it
    (``pipeline.campaign.reuse``). The tables are the same as without ``previous``."""
    unchanged = previous.unchanged if previous is not None else frozenset()
    own, signed = {}, dict(signatures)
    for name in systems:
        if previous is not None and name in unchanged:
            own[name], signed[name] = previous.systems[name], previous.rows[name][C.signature]
        else:
            own[name] = reuse.system_values(kind.family, name, statistics[name])
    table = reuse.assemble(kind.family, own)
    settings = {
        "resamples": resamples,
        "seed": seed,
        "family": kind.family.name,
        "measure": kind.family.headline,
    }
    same = reuse.same_statistics(previous, table, settings)
    intervals = reuse.intervals_reusing(
        table, same, previous, lambda some: stats.bootstrap_intervals(some, resamples=resamples, seed=seed)
    )
    rows = []
    for standing in stats.standings(table, intervals):
        shown = json.dumps(dict(attributes.get(standing.system, {})), ensure_ascii=False, sort_keys=True)
        for measure in kind.board:
            interval = standing.intervals.get(measure, Interval(None, None))
            rows.append(
                {
                    C.rank: standing.rank,
                    C.system: standing.system,
                    C.measure: measure,
                    C.value: standing.measures[measure],
                    C.low: interval.low,
                    C.high: interval.high,
                    C.attributes: shown,
                    C.signature: signed[standing.system],
                }
            )
    board = table_from_rows(rows, FAMILY_LEADERBOARD)
    ranked = table.select(list(dict.fromkeys(board.column(C.system).to_pylist())))
    comparisons = reuse.comparisons_reusing(
        ranked,
        same,
        previous,
        lambda some, pairs: stats.paired_significance(
            some, some.family.headline, resamples=resamples, seed=seed, pairs=pairs
        ),
    )
    significance = _kind_significance_rows(
        kind, ranked, _significance_rows(comparisons, kind.family.headline, resamples, seed)
    )
    return {"leaderboard": board, "significance": significance, **reuse.record_tables(table, own)}


def previous_kind_summary(
    kind: CampaignKind, resamples: int, seed: int, tables: Mapping[str, pa.Table], unchanged: set[str]
) -> reuse.Previous:
    """A previous summary of a registered kind (its four outputs) as ``reuse.Previous``: its record, each
    system's signature and board intervals, its pairs; ``unchanged`` as the caller found them."""
    units, systems = reuse.read_record(kind.family, tables["units"], tables["systems"])
    rows: dict[str, dict[str, Any]] = {}
    intervals: dict[str, dict[str, Interval]] = {}
    for row in tables["leaderboard"].to_pylist():
        rows[row[C.system]] = {C.signature: row[C.signature]}
        intervals.setdefault(row[C.system], {})[row[C.measure]] = Interval(row[C.low], row[C.high])
    return reuse.Previous(
        settings={
            "resamples": resamples,
            "seed": seed,
            "family": kind.family.name,
            "measure": kind.family.headline,
        },
        units=units,
        systems=systems,
        rows=rows,
        intervals=intervals,
        comparisons=reuse.comparisons_from_table(tables["significance"]),
        unchanged=frozenset(name for name in unchanged if name in systems and name in rows),
    )


def kind_significance_table(
    kind: CampaignKind, statistics: UnitStatistics, resamples: int, seed: int
) -> pa.Table:
    """A registered kind's significance (``FAMILY_SIGNIFICANCE``): ``significance_table``'s pairs on the
    headline, the paired t-test over units when the headline is a mean of per-unit values
    (``CampaignKind.per_unit_mean``), and the randomization and t-test p-values adjusted by Holm's
    correction over every pair (``stats.holm``; m is the number of pairs with a p-value)."""
    return _kind_significance_rows(kind, statistics, significance_table(statistics, resamples, seed))


def _kind_significance_rows(kind: CampaignKind, statistics: UnitStatistics, pairs: pa.Table) -> pa.Table:
    rows = pairs.to_pylist()
    t_values = stats.paired_t_tests(statistics) if kind.is_per_unit_mean() else [None] * len(rows)
    adjusted = stats.holm([row[C.randomization_p] for row in rows])
    t_adjusted = stats.holm(t_values)
    for row, t_p, holm_p, holm_t in zip(rows, t_values, adjusted, t_adjusted, strict=True):
        row.update({C.t_test_p: t_p, C.randomization_p_holm: holm_p, C.t_test_p_holm: holm_t})
    return table_from_rows(rows, FAMILY_SIGNIFICANCE)


def is_family_board(board: pa.Table) -> bool:
    """Whether a leaderboard is a registered kind's (``FAMILY_LEADERBOARD``, long form)."""
    return C.measure in board.column_names and C.attributes in board.column_names


def board_rows(board: pa.Table) -> list[dict[str, Any]]:
    """A ``FAMILY_LEADERBOARD`` in wide form, one dict per system (best first): rank, system, the
    attributes' keys, then per measure its value and ``MEASURE_low``/``MEASURE_high``, then signature."""
    rows: dict[str, dict[str, Any]] = {}
    for row in board.to_pylist():
        wide = rows.setdefault(
            row[C.system],
            {C.rank: row[C.rank], C.system: row[C.system], **json.loads(row[C.attributes])},
        )
        wide[row[C.measure]] = row[C.value]
        wide[f"{row[C.measure]}_low"], wide[f"{row[C.measure]}_high"] = row[C.low], row[C.high]
    for row in board.to_pylist():
        rows[row[C.system]][C.signature] = row[C.signature]
    return list(rows.values())


def family_leaderboard_text(kind: CampaignKind, board: pa.Table, significance: pa.Table | None = None) -> str:
    """A registered kind's leaderboard as a fixed-width table: rank, system, its attributes, the board's
    measures (four decimals, ``-`` where undefined), the headline's 95% interval, then against the next
    system down: p(next) (approximate randomization), its Holm-adjusted value and, for a headline that is
    a mean of per-unit values, the paired t-test's p and its Holm-adjusted value (``FAMILY_SIGNIFICANCE``)."""
    rows = board_rows(board)
    headline = kind.family.headline
    names = [_printable(row[C.system]) for row in rows]
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
        by_pair = {(r[C.system_a], r[C.system_b]): r for r in significance.to_pylist()}
        pairs = len(by_pair)
        for upper, lower in zip(rows, rows[1:], strict=False):
            found = by_pair.get((upper[C.system], lower[C.system]), {})
            following[upper[C.system]] = {column: found.get(column) for _, column in tests}
    columns = [(m, max(9, len(m) + 1)) for m in kind.board]
    header = f"{'rank':>4}  {'system':<{width}}" + "".join(f"  {k:<{w}}" for k, w in shown_attributes)
    header += "".join(f"{m:>{w}}" for m, w in columns) + f"  {headline + ' 95% CI':>17}"
    header += "".join(f"  {label:>9}" for label, _ in tests) if following else ""
    lines = [header, "-" * len(header)]
    for row, name in zip(rows, names, strict=True):
        cells = "".join(f"  {_attribute(row.get(k)):<{w}}" for k, w in shown_attributes)
        cells += "".join(f"{_fraction(row.get(m)):>{w}}" for m, w in columns)
        interval = f"{_fraction(row.get(f'{headline}_low'))}-{_fraction(row.get(f'{headline}_high'))}"
        cells += f"  {interval:>17}"
        if following:
            values = following.get(row[C.system])
            cells += "".join(
                f"  {_p(values[column]) if values is not None else '':>9}" for _, column in tests
            )
        lines.append(f"{row[C.rank]:>4}  {name:<{width}}{cells}")
    note = kind.ranking_note or f"ranked by {kind.headline_label}"
    lines.append(f"{note}; 95% CI: bootstrap over {plural(kind.family.unit)}")
    if following:
        lines.append(
            f"p(next): approximate randomization over {plural(kind.family.unit)}, {kind.headline_label} "
            "against the next system's"
            + (
                f"; t p(next): paired t-test over {plural(kind.family.unit)}"
                if kind.is_per_unit_mean()
                else ""
            )
        )
        lines.append(
            f"Holm: the p-value adjusted by Holm's correction for multiple comparisons over all {pairs} "
            "pairs (significance.csv)"
        )
    return "\n".join(lines) + "\n"


def plural(unit: str) -> str:
    """A family's unit in the plural, for sentences: document -> documents, query -> queries."""
    if unit.endswith("s"):
        return unit
    return unit[:-1] + "ies" if unit.endswith("y") and unit[-2:-1] not in "aeiou" else unit + "s"


def _fraction(value: float | None) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.4f}"


def _attribute(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else _printable(str(value))


def kind_report_data(
    kind: CampaignKind,
    title: str,
    board: pa.Table,
    significance: pa.Table,
    statistics: Mapping[str, pa.Table],
    resamples: int,
    seed: int,
) -> html_report.CampaignReport:
    """The HTML page's data of a registered kind's campaign: the leaderboard's measures and the headline's
    interval; the heat map shows the headline by category (the family's categories: tags, CUIs, lexical
    items, queries) or, for a family without categories, the board's measures; the significance matrix
    adds the Holm-adjusted randomization p-values and, for a headline that is a mean of per-unit values,
    the paired t-test's (``FAMILY_SIGNIFICANCE``)."""
    headline = kind.family.headline
    rows = board_rows(board)
    columns = {m: m for m in kind.board}
    leaderboard_rows = [
        html_report.SystemRow(
            rank=row[C.rank],
            system=_with_attributes(kind, row),
            counts={},
            measures={m: row.get(m) for m in kind.board},
            intervals={headline: (row.get(f"{headline}_low"), row.get(f"{headline}_high"))},
            signature=row[C.signature],
        )
        for row in rows
    ]
    shown = {row[C.system]: _with_attributes(kind, row) for row in rows}
    heat: dict[str, dict[str, float | None]] = {}
    for row in rows:
        name = row[C.system]
        by_category = (
            category_measures(kind.family, statistics[name], system=name) if kind.family.categories else {}
        )
        heat[shown[name]] = (
            {category: values[headline] for category, values in by_category.items()}
            if by_category
            else {m: row.get(m) for m in kind.board}
        )
    pairs = {
        (shown[r[C.system_a]], shown[r[C.system_b]]): (
            r[C.delta],
            r[C.paired_bootstrap_p],
            r[C.randomization_p],
        )
        for r in significance.to_pylist()
    }
    per_unit_mean = kind.is_per_unit_mean()
    corrected = {
        (shown[r[C.system_a]], shown[r[C.system_b]]): {
            "randomization Holm": r.get(C.randomization_p_holm),
            **({"t-test": r.get(C.t_test_p), "t-test Holm": r.get(C.t_test_p_holm)} if per_unit_mean else {}),
        }
        for r in significance.to_pylist()
    }
    units = len({u for table in statistics.values() for u in table.column(C.unit).to_pylist()})
    return html_report.CampaignReport(
        title=title,
        signature_note="Each system's score signature is in the leaderboard's tooltip and JSON output.",
        leaderboard=leaderboard_rows,
        slot_f=heat,
        significance=pairs,
        documents=[],
        documents_total=units,
        resamples=resamples,
        seed=seed,
        headline=headline,
        headline_label=kind.headline_label,
        columns=columns,
        unit=plural(kind.family.unit),
        categories=kind.family.categories or "measure",
        ranking_note=kind.ranking_note,
        corrected=corrected,
        correction=stats.CORRECTION,
    )


def _with_attributes(kind: CampaignKind, row: Mapping[str, Any]) -> str:
    """The system's name as the page shows it: with its attributes, e.g. ``team-1 (additional: yes)``."""
    shown = [f"{key}: {_attribute(row.get(key))}" for key in kind.attributes if key in row]
    return f"{row[C.system]} ({', '.join(shown)})" if shown else row[C.system]


def _require_same_totals(statistics: UnitStatistics, rows: Mapping[str, Mapping[str, Any]]) -> None:
    """The statistics' full-sample counts are the board's totals (``board_row``), or the campaign stops
    (internal error).

    A guard on the rule that intervals and significance describe the printed numbers: were the two ever
    computed from different points again, no interval would be written next to a number it is not about.
    """
    totals = statistics.totals()
    names = statistics.family.statistic_names
    for index, name in enumerate(statistics.systems):
        board = [int(rows[name][category]) for category in names]
        counted = [int(value) for value in totals[index]]
        if board != counted:
            raise RuntimeError(
                f"system {name!r}: statistics count {dict(zip(names, counted, strict=True))}, "
                f"the leaderboard {dict(zip(names, board, strict=True))}"
            )


def report_data(
    title: str,
    board: pa.Table,
    significance: pa.Table,
    scores: Mapping[str, pa.Table],
    mappings: Mapping[str, pa.Table],
    documents: pa.Table | None,
    character_extents: Mapping[str, bool],
    limit: int,
    resamples: int,
    seed: int,
    objects: bool = False,
    given_views: Mapping[str, pa.Table] | None = None,
    page: PageRows | None = None,
) -> html_report.CampaignReport:
    """The HTML report's data from a campaign's artifacts.

    ``objects``: the per-document view lists the object (instance) pairings before the fills, as the
    MUC scorer's summary does (a MUC campaign); their slot is empty and their fills the pointers.

    ``character_extents[name]`` says whether a system's mapping extents are characters of the reference
    text (clean text) rather than alignment columns (speech input): only then are its fills
    highlighted in the text. The per-document view holds the first ``limit`` documents in corpus order
    (``shown_documents``).

    ``given_views`` (system -> its ``mapping_view`` for these documents) stand in for the mappings of the
    systems they name: those mappings need only their ``doc_id`` column (none at all with ``documents``).
    ``page``, the per-document view already made from them (``page_rows``), stands in for all of that.
    """
    if page is None:
        page = page_rows(mappings, documents, character_extents, limit, objects, given_views)
    rows = board.to_pylist()
    leaderboard_rows = [
        html_report.SystemRow(
            rank=row[C.rank],
            system=row[C.system],
            counts={k: row[k] for k in COUNT_COLUMNS},
            measures={k: row[k] for k in MEASURE_COLUMNS},
            intervals={m: (row.get(f"{m}_low"), row.get(f"{m}_high")) for m in ("REC", "PRE", "F")},
            signature=row[C.signature],
        )
        for row in rows
    ]
    slot_f = {}
    for name, table in scores.items():
        slots = table.filter(pc.equal(table.column(C.scope), "slot"))
        slot_f[name] = {
            f"{instance_type}.{slot}": f
            for instance_type, slot, f in zip(
                slots.column(C.instance_type).to_pylist(),
                slots.column(C.slot).to_pylist(),
                slots.column(C.F).to_pylist(),
                strict=True,
            )
        }
    pairs = {
        (row[C.system_a], row[C.system_b]): (row[C.delta], row[C.paired_bootstrap_p], row[C.randomization_p])
        for row in significance.to_pylist()
    }
    return html_report.CampaignReport(
        title=title,
        signature_note="Each system's score signature is in the leaderboard's tooltip and JSON output.",
        leaderboard=leaderboard_rows,
        slot_f=slot_f,
        significance=pairs,
        documents=page.documents,
        documents_total=page.documents_total,
        resamples=resamples,
        seed=seed,
        pairing_rows=page.rows,
        embedded=page.embedded,
    )


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
    given_views: Mapping[str, pa.Table] | None = None,
) -> PageRows:
    """The per-document view of ``report_data`` (see there), which needs no summary: the first ``limit``
    documents and one table of every system's pairings in them (in ``mappings`` order)."""
    texts: dict[str, str] = {}
    if documents is not None:
        texts = dict(
            zip(documents.column(C.doc_id).to_pylist(), documents.column(C.text).to_pylist(), strict=True)
        )
    order = list(texts) or sorted({d for m in mappings.values() for d in m.column(C.doc_id).to_pylist()})
    shown = order[:limit]
    tables = []
    for name, mapping in mappings.items():
        view = (given_views or {}).get(name)
        if view is None:
            view = mapping_view(mapping, shown, character_extents.get(name, False), objects)
        tables.append(view.append_column(C.system, pa.array([name] * view.num_rows, pa.string())))
    # One table of every system's pairings: the page builds its per-document view column by column.
    return PageRows(
        documents=[html_report.DocumentView(doc, texts.get(doc, ""), {}) for doc in shown],
        documents_total=len(order),
        rows=pa.concat_tables(tables) if tables else None,
    )


def board_order(scores: Mapping[str, pa.Table]) -> list[str]:
    """The systems in the order of the leaderboard made from their ``scores`` (``ranked_board``: by the F of
    their ``total`` row)."""
    f = {}
    for name, table in scores.items():
        total = table.filter(pc.equal(table.column(C.scope), "total"))
        f[name] = total.column(C.F)[0].as_py() if total.num_rows else None
    return [name for name, _ in stats.ranking(f)]


def coref_report_data(
    title: str,
    board: pa.Table,
    significance: pa.Table,
    mentions: Mapping[str, pa.Table],
    limit: int,
    resamples: int,
    seed: int,
) -> html_report.CampaignReport:
    """The HTML page's data of a coreference campaign: leaderboard rows with each metric's F1 and the
    CoNLL F1's interval; the heat map's columns are the metrics; the per-document view shows the key's
    and each response's chains (first ``limit`` documents in key order), with split and merged chains.
    """
    rows = board.to_pylist()
    headline = COREF.headline
    leaderboard_rows = [
        html_report.SystemRow(
            rank=row[C.rank],
            system=row[C.system],
            counts={},
            measures={k: row[k] for k in html_report.COREF_COLUMNS},
            intervals={headline: (row[f"{headline}_low"], row[f"{headline}_high"])},
            signature=row[C.signature],
        )
        for row in rows
    ]
    heat = {row[C.system]: {label: row[k] for k, label in html_report.COREF_COLUMNS.items()} for row in rows}
    pairs = {
        (row[C.system_a], row[C.system_b]): (row[C.delta], row[C.paired_bootstrap_p], row[C.randomization_p])
        for row in significance.to_pylist()
    }
    frames = {name: table.to_pandas() for name, table in mentions.items()}
    order: list[str] = []
    for frame in frames.values():
        order = list(dict.fromkeys([*order, *frame[C.doc_id]]))  # key order (mention_table's)
    shown = order[:limit]
    views = [_chain_view(doc, frames) for doc in shown]
    return html_report.CampaignReport(
        title=title,
        signature_note="Each system's score signature is in the leaderboard's tooltip and JSON output.",
        leaderboard=leaderboard_rows,
        slot_f=heat,
        significance=pairs,
        documents=[],
        documents_total=len(order),
        resamples=resamples,
        seed=seed,
        headline=headline,
        headline_label="CoNLL F1",
        coref=views,
    )


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

# Bootstrap and randomization draw (resamples x documents) matrices: past this their memory, not the
# precision of a p-value, is what the number buys.
MAX_RESAMPLES = 100_000
# The seed is kept in an int64 column of the significance table.
MAX_SEED = 2**63 - 1


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

    def __init__(self, path: Path, text: str) -> None:
        self.path, self.text = path, text
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
        return InputError(str(self.path), self.line(keys), message)

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
        every = _family_keys()
        allowed = every[scorer][part]
        for key in table:
            if key in allowed:
                continue
            owners = [family for family, parts in every.items() if key in parts[part]]
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
        if urls and "://" in value:
            return value
        return base / value

    def boolean(self, table: Mapping[str, Any], keys: tuple[str, ...], default: bool) -> bool:
        value = table.get(keys[-1], default)
        if not isinstance(value, bool):
            raise self.expected(keys, "true or false", value)
        return value

    def whole(self, value: Any, keys: tuple[str, ...], low: int, high: int | None) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < low or (high and value > high):
            bound = f"from {low} to {high}" if high else f">= {low}"
            raise self.expected(keys, f"a whole number {bound}", value)
        return value

    def words(self, value: Any, keys: tuple[str, ...]) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(word, str) for word in value):
            raise self.expected(keys, 'an array of strings (e.g. ["COMMENT"])', value)
        return list(value)

    def field(self, table: Mapping[str, Any], keys: tuple[str, ...], spec: Field, base: Path) -> Any:
        """The value of a registered kind's key (``pipeline.core.kinds.Field``), checked; its default when
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
            return self.whole(value, keys, int(spec.low or 0), None if spec.high is None else int(spec.high))
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
        if not isinstance(value, str) or not _text_encoding(value):  # encoding
            raise self.expected(keys, 'the name of a text encoding (e.g. "utf-8", "latin-1")', value)
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

    def option(self, given: Mapping[str, Any], name: str, base: Path) -> Any:
        """The option ``name`` (its default when not given), checked."""
        default = DEFAULT_OPTIONS[name]
        if name not in given:
            return list(default) if isinstance(default, list) else default
        value, keys = given[name], ("options", name)
        if name in ("compare", "cost"):
            choices = COMPARE_MODES if name == "compare" else COST_MODELS
            if value not in choices:
                raise self.expected(keys, "one of " + ", ".join(f'"{c}"' for c in choices), value)
        elif name in ("unscored", "premodifiers"):
            value = self.words(value, keys)
        elif name == "case_sensitive":
            value = self.boolean(given, keys, default)
        elif name == "beta":
            # F is defined for beta > 0; beta 0 would make F the precision, which PRE already is.
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
                raise self.expected(keys, "a finite number > 0", value)
            value = float(value)
        elif name == "encoding":
            if not isinstance(value, str) or not _text_encoding(value):
                raise self.expected(keys, 'the name of a text encoding (e.g. "utf-8", "latin-1")', value)
        elif name == "glm":
            value = self.file(given, keys, base)
        elif name == "punctuation":
            if not isinstance(value, str):
                raise self.expected(keys, "a string of characters", value)
        elif name == "resamples":
            value = self.whole(value, keys, 1, MAX_RESAMPLES)
        elif name == "seed":
            value = self.whole(value, keys, 0, MAX_SEED)
        elif name == "html_documents":
            value = self.whole(value, keys, 1, None)
        elif name in ("format", "match"):
            choices = FORMATS if name == "format" else MATCH_MODES
            if value not in choices:
                raise self.expected(keys, "one of " + ", ".join(f'"{c}"' for c in choices), value)
        return value


def _text_encoding(name: str) -> bool:
    try:
        b"a".decode(name)  # also refuses codecs that are not text encodings (rot13, base64...)
    except LookupError:
        return False
    except UnicodeDecodeError:  # a text encoding in which one byte is not a character (UTF-16)
        return True
    return True


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
