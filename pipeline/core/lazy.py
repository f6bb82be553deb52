"""pandas imported when first used: ``from pipeline.core.lazy import pd`` where a module would write
``import pandas as pd``. A command that never touches a pandas name does not pay pandas' import.

``pd.X`` imports pandas the first time any module asks for one of its names, then is pandas' own
``X``. Annotations naming ``pd.DataFrame`` are strings (``from __future__ import annotations``).

A plain object rather than the standard library's ``importlib.util.LazyLoader``: that loader puts a
module object into ``sys.modules`` at once, so ``"pandas" in sys.modules`` (how a library or a test
asks whether pandas was imported) would say yes before any use.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """A module imported the first time one of its names is asked for; each name then kept here."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, name: str) -> Any:
        value = getattr(importlib.import_module(self._name), name)
        setattr(self, name, value)  # asked again: found here, without this call
        return value

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported when first used>"


#: pandas, imported when first used.
pd: Any = LazyModule("pandas")
