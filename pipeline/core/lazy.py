"""pandas imported when first used (``pd``), and kept from being imported by pyarrow's first conversion
(``spare_pandas``): a process that needs no pandas does not pay its import (a fifth of a second; a
campaign's one-system rerun takes a second and a half).

A module writes ``from pipeline.core.lazy import pd`` where it would ``import pandas as pd``: ``pd.X``
imports pandas the first time any module asks for one of its names, then is pandas' own ``X``.
(Annotations naming ``pd.DataFrame`` are strings, under ``from __future__ import annotations``.)
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import pyarrow as pa


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


def spare_pandas() -> None:
    """Keep pyarrow from importing pandas (a fifth of a second) in a process that needs it not. pyarrow
    tries to import pandas, once, the first time it converts a Python or numpy value (``pa.array``, a
    scalar argument of a compute function), to see whether the value is a pandas object. That first try
    is made here, with pandas hidden for its duration; pyarrow then goes on without pandas. Should this
    process import pandas later (through ``pd``, or a caller in the same process), pyarrow is told as
    soon as that import is done (:class:`_PandasImports`), and treats pandas objects as before. Nothing
    is changed when pandas is imported already (a test process)."""
    if "pandas" in sys.modules:
        return
    sys.meta_path.insert(0, _PandasImports)
    _PandasImports.hidden = True
    try:
        pa.array([0])  # pyarrow's first conversion: its one try at importing pandas
    finally:
        _PandasImports.hidden = False


class _PandasImports:
    """An import finder for pandas: finds none while ``hidden``; afterwards, the first import of pandas
    runs as usual, then has pyarrow's pandas shim import it again (it finds it done) so that pyarrow
    knows it has pandas, and this finder leaves ``sys.meta_path``."""

    hidden = False

    @classmethod
    def find_spec(cls, name: str, path: object = None, target: object = None) -> object:
        if name != "pandas":
            return None
        if cls.hidden:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        import importlib.util

        sys.meta_path.remove(cls)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        run = loader.exec_module

        def exec_module(module: object) -> None:
            run(module)
            pa.lib._pandas_api.pd  # noqa: B018 - pyarrow's shim imports pandas (done) and uses it

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec
