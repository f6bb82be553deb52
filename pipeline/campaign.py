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

Paths are relative to the campaign file. System names are labels only: they never become paths (the
output directory names each system's tables by a slug of its name and a digest, see ``output_name``).
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import html_report, stats
from pipeline.errors import InputError
from pipeline.removal import DEFAULT_PREMODIFIERS
from pipeline.report import slot_points
from pipeline.scoring import COMPARE_MODES
from pipeline.stats import Interval
from schemas import COUNT_COLUMNS, LEADERBOARD, MEASURE_COLUMNS, SIGNIFICANCE, C, table_from_rows

DEFAULT_OPTIONS: dict[str, Any] = {
    "compare": "both",
    "unscored": ["COMMENT"],
    "case_sensitive": False,
    "beta": 1.0,
    "encoding": "utf-8",
    "glm": None,
    "cost": "phonetic",
    "premodifiers": list(DEFAULT_PREMODIFIERS),
    "punctuation": None,
    "resamples": 1000,
    "seed": 12345,
    "html_documents": 100,
}


@dataclass(frozen=True)
class System:
    name: str
    templates: Path
    texts: Path | None = None
    unsegmented: bool = False


@dataclass(frozen=True)
class Campaign:
    source: Path
    reference_templates: Path
    reference_texts: Path | None
    systems: tuple[System, ...]
    options: dict[str, Any] = field(default_factory=dict)
    store: Path | str | None = None  # a directory, or an s3://BUCKET/PREFIX URL (kept as written)
    output: Path | None = None
    store_line: int = 0


def read_campaign(path: str | Path) -> Campaign:
    """Parse and check a campaign file; every problem is an InputError naming the file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(str(path), 0, "campaign file not found") from None
    except tomllib.TOMLDecodeError as error:
        line = getattr(error, "lineno", 0) or 0
        raise InputError(str(path), line, f"TOML expected: {error}") from None
    base = path.parent
    text = path.read_text(encoding="utf-8")
    _known(path, text, "", data, {"store", "output", "reference", "options", "systems"})
    reference = data.get("reference")
    if not isinstance(reference, dict) or "templates" not in reference:
        raise InputError(str(path), 0, "a [reference] table with 'templates' is expected")
    _known(path, text, "reference.", reference, {"templates", "texts"})
    systems = data.get("systems")
    if not isinstance(systems, dict) or not systems:
        raise InputError(str(path), 0, "a [systems.NAME] table with 'templates' is expected for each system")
    parsed = []
    for name, entry in systems.items():
        if not isinstance(entry, dict) or "templates" not in entry:
            raise InputError(str(path), 0, f"system {name!r}: 'templates' expected")
        _known(path, text, f"systems.{name}.", entry, {"templates", "texts", "unsegmented"})
        texts = entry.get("texts")
        parsed.append(
            System(
                name,
                _existing(path, base, entry["templates"]),
                _existing(path, base, texts),
                bool(entry.get("unsegmented", False)),
            )
        )
    options = dict(DEFAULT_OPTIONS)
    _known(path, text, "options.", data.get("options", {}), set(DEFAULT_OPTIONS))
    options.update(data.get("options", {}))
    if options["compare"] not in COMPARE_MODES:
        raise InputError(str(path), 0, f"options.compare must be one of {', '.join(COMPARE_MODES)}")
    if options["cost"] not in ("phonetic", "levenshtein"):
        raise InputError(str(path), 0, "options.cost must be phonetic or levenshtein")
    for name in ("resamples", "html_documents"):
        if not isinstance(options[name], int) or isinstance(options[name], bool) or options[name] < 1:
            raise InputError(str(path), _line(text, name), f"options.{name} must be a whole number >= 1")
    if not isinstance(options["seed"], int) or isinstance(options["seed"], bool) or options["seed"] < 0:
        raise InputError(str(path), _line(text, "seed"), "options.seed must be a whole number >= 0")
    options["glm"] = _existing(path, base, options["glm"])
    store, output = data.get("store"), data.get("output")
    return Campaign(
        path,
        _existing(path, base, reference["templates"]),
        _existing(path, base, reference.get("texts")),
        tuple(parsed),
        options,
        (store if "://" in str(store) else base / store) if store else None,  # a URL is no path
        (base / output) if output else None,
        store_line=_line(text, "store"),
    )


def leaderboard(
    systems: Mapping[str, pa.Table],
    signatures: Mapping[str, str],
    intervals: Mapping[str, Mapping[str, Interval]] | None = None,
) -> pa.Table:
    """One row per system from its total scores, best F first; equal F share a rank, then by name.

    ``intervals`` (system -> measure -> Interval) fill the confidence-interval columns.
    """
    rows = []
    for name, scores in systems.items():
        total = next(row for row in scores.to_pylist() if row[C.scope] == "total")
        bounds = {}
        for measure, interval in (intervals or {}).get(name, {}).items():
            bounds[f"{measure}_low"], bounds[f"{measure}_high"] = interval.low, interval.high
        rows.append(
            {
                C.system: name,
                **{k: total[k] for k in COUNT_COLUMNS + MEASURE_COLUMNS},
                **bounds,
                C.signature: signatures[name],
            }
        )
    rows.sort(key=lambda row: (-(row[C.F] or 0.0), row[C.system]))
    rank, previous = 0, None
    for position, row in enumerate(rows, start=1):
        if row[C.F] != previous:
            rank, previous = position, row[C.F]
        row[C.rank] = rank
    return table_from_rows(rows, LEADERBOARD)


def _known(path: Path, text: str, prefix: str, table: Mapping[str, Any], allowed: set[str]) -> None:
    """A key the campaign format does not define is an error (a misspelt 'texts' must not vanish)."""
    for key in table:
        if key not in allowed:
            line = _line(text, key)
            raise InputError(
                str(path), line, f"unknown key {prefix}{key}; expected one of {', '.join(sorted(allowed))}"
            )


def _line(text: str, key: str) -> int:
    """The first line setting ``key`` (0 when it cannot be found), for error messages."""
    return next(
        (n for n, row in enumerate(text.splitlines(), 1) if row.strip().startswith((f"{key} ", f"{key}="))),
        0,
    )


def output_name(system: str) -> str:
    """A file name for a system's outputs that cannot leave its directory, whatever the name holds.

    Letters (any script), digits, ``-`` and ``_`` are kept, everything else becomes ``_``; a digest of
    the full name keeps names that slug alike apart (``a/b`` and ``a b``).
    """
    slug = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in system)[:40].strip("_") or "system"
    return f"{slug}-{hashlib.sha256(system.encode()).hexdigest()[:8]}"


def _existing(campaign: Path, base: Path, value: Any) -> Path | None:
    if value is None:
        return None
    candidate = (base / str(value)).resolve()
    if not candidate.is_file():
        raise InputError(str(campaign), 0, f"file {value!r} not found (looked for {candidate})")
    return candidate


def campaign_statistics(
    scores: Mapping[str, pa.Table],
    signatures: Mapping[str, str],
    tallies: Mapping[str, pa.Table],
    resamples: int,
    seed: int,
    beta: float,
) -> tuple[pa.Table, pa.Table]:
    """The leaderboard with bootstrap intervals, and the significance of every pair of systems.

    Both come from the per-document tallies only: the points ALL SLOTS counts (``slot_points``), by
    document and category, so every interval and every delta is about the leaderboard's own REC, PRE and
    F (their full-sample values are those the board prints). The documents resampled are every document
    with a point in any system's tallies.
    """
    names = list(scores)
    counts = document_statistics(names, tallies)
    _require_same_totals(counts, scores)
    # A system's interval depends on its own counts only (the resampled documents are drawn the same
    # whatever the systems), so the board can be built once, with them.
    intervals = stats.bootstrap_intervals(counts, resamples=resamples, seed=seed, beta=beta)
    board = leaderboard(scores, signatures, intervals)
    # Pairs run best ranked first: system a of each pair ranks above system b.
    order = board.column(C.system).to_pylist()
    ranked = [names.index(name) for name in order]
    counts = stats.Tallies(tuple(order), counts.documents, counts.counts[ranked])
    rows = [
        {
            C.system_a: c.a,
            C.system_b: c.b,
            C.measure: "F",
            C.delta: c.delta,
            C.paired_bootstrap_p: c.paired_bootstrap_p,
            C.randomization_p: c.randomization_p,
            C.resamples: resamples,
            C.seed: seed,
        }
        for c in stats.paired_significance(counts, "F", resamples=resamples, seed=seed, beta=beta)
    ]
    return board, table_from_rows(rows, SIGNIFICANCE)


def document_statistics(systems: list[str], tallies: Mapping[str, pa.Table]) -> stats.Tallies:
    """The campaign's sufficient statistics: ALL SLOTS points by system, document and category.

    COR INC PAR MIS SPU as one array, by bincount, over every document with a point in any system's
    tallies (sorted by id, the order resampling draws them in).
    """
    documents = sorted({doc for table in tallies.values() for doc in table.column(C.doc_id).to_pylist()})
    scored = ("COR", "INC", "PAR", "MIS", "SPU")
    counts = np.zeros((len(systems), len(documents), len(scored)), dtype=np.int64)
    doc_index = pd.Index(documents)
    category_index = pd.Index(scored)
    for position, name in enumerate(systems):
        frame = slot_points(tallies[name].select([C.doc_id, C.aspect, C.category]).to_pandas())
        frame = frame[frame[C.category] != "NON"]
        docs = doc_index.get_indexer(frame[C.doc_id])
        categories = category_index.get_indexer(frame[C.category])
        if (categories < 0).any():
            unknown = sorted(set(frame[C.category][categories < 0]))
            raise ValueError(f"system {name!r}: unknown point categories {unknown}")
        flat = np.bincount(docs * len(scored) + categories, minlength=len(documents) * len(scored))
        counts[position] = flat.reshape(len(documents), len(scored))
    return stats.Tallies(tuple(systems), tuple(documents), counts)


def _require_same_totals(counts: stats.Tallies, scores: Mapping[str, pa.Table]) -> None:
    """The statistics' full-sample counts are the board's totals, or the campaign stops (internal error).

    A guard on the rule that intervals and significance describe the printed numbers: were the two ever
    computed from different points again, no interval would be written next to a number it is not about.
    """
    totals = counts.counts.sum(axis=1)
    for index, name in enumerate(counts.systems):
        total = next(row for row in scores[name].to_pylist() if row[C.scope] == "total")
        board = [int(total[category]) for category in stats.COUNTED]
        if board != totals[index].tolist():
            counted = totals[index].tolist()
            raise RuntimeError(
                f"system {name!r}: statistics count {dict(zip(stats.COUNTED, counted, strict=True))}, "
                f"the leaderboard {dict(zip(stats.COUNTED, board, strict=True))}"
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
) -> html_report.CampaignReport:
    """The HTML report's data from a campaign's artifacts.

    ``character_extents[name]`` says whether a system's mapping extents are characters of the reference
    text (clean text) rather than alignment columns (speech input): only then are its fills
    highlighted in the text. The per-document view holds the first ``limit`` documents in corpus order.
    """
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
    slot_f = {
        name: {
            f"{row[C.instance_type]}.{row[C.slot]}": row[C.F]
            for row in table.to_pylist()
            if row[C.scope] == "slot"
        }
        for name, table in scores.items()
    }
    pairs = {
        (row[C.system_a], row[C.system_b]): (row[C.delta], row[C.paired_bootstrap_p], row[C.randomization_p])
        for row in significance.to_pylist()
    }
    texts: dict[str, str] = {}
    if documents is not None:
        texts = dict(
            zip(documents.column(C.doc_id).to_pylist(), documents.column(C.text).to_pylist(), strict=True)
        )
    order = list(texts) or sorted({d for m in mappings.values() for d in m.column(C.doc_id).to_pylist()})
    shown = order[:limit]
    views: dict[str, dict[str, list[html_report.Pairing]]] = {doc: {} for doc in shown}
    for name, mapping in mappings.items():
        spans = character_extents.get(name, False)
        selected = mapping.filter(
            pc.and_(
                pc.equal(mapping.column(C.level), "fill"),
                pc.is_in(mapping.column(C.doc_id), pa.array(shown, pa.string())),
            )
        )
        for row in selected.to_pylist():
            views[row[C.doc_id]].setdefault(name, []).append(
                html_report.Pairing(
                    instance_type=row[C.instance_type],
                    slot=row[C.slot],
                    ref=row[C.ref_fill],
                    hyp=row[C.hyp_fill],
                    ref_span=_span(row, C.ref_start, C.ref_end) if spans else None,
                    hyp_span=_span(row, C.hyp_start, C.hyp_end) if spans else None,
                    categories=" ".join(f"{p['aspect']}:{p['category']}" for p in row[C.points]),
                )
            )
    return html_report.CampaignReport(
        title=title,
        signature_note="Each system's score signature is in the leaderboard's tooltip and JSON output.",
        leaderboard=leaderboard_rows,
        slot_f=slot_f,
        significance=pairs,
        documents=[html_report.DocumentView(doc, texts.get(doc, ""), views[doc]) for doc in shown],
        documents_total=len(order),
        resamples=resamples,
        seed=seed,
    )


def _span(row: Mapping[str, Any], start: str, end: str) -> tuple[int, int] | None:
    return None if row[start] is None else (row[start], row[end])
