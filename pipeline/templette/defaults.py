"""The default options of a templette scoring, as templette campaign files (``TEMPLETTE_CAMPAIGN``) and
``iescore templette`` start from them."""

from __future__ import annotations

from typing import Any

from iescore.pipeline.templette.removal import DEFAULT_PREMODIFIERS

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
