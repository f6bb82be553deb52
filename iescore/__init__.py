"""iescore: scorers for information-extraction, speech and NLP evaluation campaigns.

The import name of everything the distribution installs: ``iescore.pipeline`` (the scoring rules),
``iescore.tasks`` (Luigi stages and the command line), ``iescore.schemas`` (every artifact's columns) and,
one module a family, the library the commands are built on (``iescore.coref``, ``iescore.trec``, ...).
A family's module is imported the first time it is named, so ``import iescore`` stays cheap.
``__version__`` below is the one place the version is written: the distribution's metadata,
``iescore --version`` and every score signature read it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__version__ = "0.1.0"

#: The library's modules, one a family, and campaigns.
FAMILIES = ("speech", "templette", "muc", "coref", "mat", "senseval", "clef", "trec", "campaign")

__all__ = ["__version__", *FAMILIES]


def __getattr__(name: str) -> ModuleType:
    if name in FAMILIES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
