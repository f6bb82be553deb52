"""What every library call returns: named tables, each the Arrow table the stages made and a DataFrame.

A family's result class subclasses :class:`Result` and names its tables as typed properties
(``def totals(self) -> pd.DataFrame: return self.frame("totals")``), so a notebook gets pandas, a
pipeline gets Arrow without a copy through pandas, and both carry the score signature the commands print.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


class Result:
    """Named Arrow tables with their DataFrames (made once, on first use) and the score signature."""

    #: The table a notebook shows for the result (``_repr_html_``).
    headline: ClassVar[str] = ""

    def __init__(self, tables: Mapping[str, pa.Table], signature: str = "") -> None:
        self._tables = dict(tables)
        self._frames: dict[str, pd.DataFrame] = {}
        self.signature = signature

    @property
    def names(self) -> list[str]:
        """The tables' names, in the order the family gives them."""
        return list(self._tables)

    def arrow(self, name: str) -> pa.Table:
        """The Arrow table ``name``, as the stages made it (columns as ``iescore.schemas`` names them)."""
        try:
            return self._tables[name]
        except KeyError:
            raise KeyError(f"{type(self).__name__} has no table {name!r}; it has {self.names}") from None

    def frame(self, name: str) -> pd.DataFrame:
        """The table ``name`` as a pandas DataFrame (made once)."""
        if name not in self._frames:
            self._frames[name] = self.arrow(name).to_pandas()
        return self._frames[name]

    def _repr_html_(self) -> str:
        name = self.headline or self.names[0]
        return self.frame(name)._repr_html_() or ""

    def __repr__(self) -> str:
        shapes = ", ".join(f"{name}: {table.num_rows} rows" for name, table in self._tables.items())
        return f"{type(self).__name__}({shapes})"
