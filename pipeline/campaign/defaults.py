"""The default options of a templette, MUC or coreference scoring, as campaign files and
``iescore templette`` start from them (a module of its own: the campaign engine imports every family)."""

from __future__ import annotations

from typing import Any

from pipeline.templette.removal import DEFAULT_PREMODIFIERS

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
    "format": "conll",
    "match": "exact",
}
