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

    [systems.alpha]
    templates = "alpha.tpl"
    texts = "alpha.sgml"                 # optional: the hypothesis texts when they differ

Paths are relative to the campaign file. System names are labels only: they never become paths.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from pipeline.errors import InputError
from pipeline.removal import DEFAULT_PREMODIFIERS
from pipeline.scoring import COMPARE_MODES
from schemas import COUNT_COLUMNS, LEADERBOARD, MEASURE_COLUMNS, C, table_from_rows

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
    store: Path | None = None


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
    _known(path, text, "", data, {"store", "reference", "options", "systems"})
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
    options["glm"] = _existing(path, base, options["glm"])
    store = data.get("store")
    return Campaign(
        path,
        _existing(path, base, reference["templates"]),
        _existing(path, base, reference.get("texts")),
        tuple(parsed),
        options,
        (base / store) if store else None,
    )


def leaderboard(systems: Mapping[str, pa.Table], signatures: Mapping[str, str]) -> pa.Table:
    """One row per system from its total scores, best F first; equal F share a rank, then by name."""
    rows = []
    for name, scores in systems.items():
        total = next(row for row in scores.to_pylist() if row[C.scope] == "total")
        rows.append(
            {
                C.system: name,
                **{k: total[k] for k in COUNT_COLUMNS + MEASURE_COLUMNS},
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
            line = next(
                (
                    n
                    for n, row in enumerate(text.splitlines(), 1)
                    if row.strip().startswith((f"{key} ", f"{key}="))
                ),
                0,
            )
            raise InputError(
                str(path), line, f"unknown key {prefix}{key}; expected one of {', '.join(sorted(allowed))}"
            )


def _existing(campaign: Path, base: Path, value: Any) -> Path | None:
    if value is None:
        return None
    candidate = (base / str(value)).resolve()
    if not candidate.is_file():
        raise InputError(str(campaign), 0, f"file {value!r} not found (looked for {candidate})")
    return candidate
