"""JSON text for the commands' ``--json`` files: indented, NaN as null (no pandas or Luigi to import)."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from typing import Any

# The C function ``json.dumps`` itself encodes strings with (``ensure_ascii``, its default).
_STRING = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]


def json_text(value: Any) -> str:
    """Indented JSON with a final newline; a NaN (an undefined measure) becomes null.

    JSON has no NaN or Infinity: ``allow_nan=False`` makes any other non-finite number an error here
    rather than a file that strict JSON readers reject.

    The text is ``json.dumps(value, indent=2, allow_nan=False)``'s (NaN made None first), written by
    ``_indented`` for values of the usual kinds (dicts with string keys, lists and tuples, strings,
    numbers, booleans, None: a campaign writes thousands of pairs and a hundred systems' scores), by
    ``json.dumps`` for anything else.
    """
    try:
        return _indented(value, "\n") + "\n"
    except _UnusualValueError:
        return json.dumps(_nan_to_none(value), indent=2, allow_nan=False) + "\n"


class _UnusualValueError(Exception):
    """A value ``_indented`` leaves to ``json.dumps`` (its text and its errors are json's)."""


def _indented(value: Any, newline: str) -> str:
    """``value`` as ``json.dumps(..., indent=2)`` writes it at the nesting ``newline`` gives."""
    if isinstance(value, str):
        return _STRING(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return int.__repr__(value)
    if type(value) is float:
        if math.isnan(value):
            return "null"
        if math.isinf(value):
            raise _UnusualValueError
        return float.__repr__(value)
    inner = newline + "  "
    if type(value) is dict:
        if not value:
            return "{}"
        parts = []
        for key, item in value.items():
            if type(key) is not str:
                raise _UnusualValueError
            parts.append(_STRING(key) + ": " + _indented(item, inner))
        return "{" + inner + ("," + inner).join(parts) + newline + "}"
    if type(value) is list or type(value) is tuple:
        if not value:
            return "[]"
        if all(type(row) is dict and row and _scalars(row) for row in value):
            rows = _rows(value, newline)
            if rows is not None:
                return rows
        return "[" + inner + ("," + inner).join(_indented(item, inner) for item in value) + newline + "]"
    raise _UnusualValueError


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _scalars(row: dict[Any, Any]) -> bool:
    return all(type(item) in _SCALARS for item in row.values())


def _rows(rows: list[Any] | tuple[Any, ...], newline: str) -> str | None:
    """A list of non-empty dicts of scalars (a table's rows: a system's scores by document, a campaign's
    pairs) at the nesting ``newline`` gives, written by json's C encoder in one call; None when a value
    is not finite (a NaN, written null, is left to ``_indented``).

    Without an indent the encoder separates the items of the dicts and of the list alike. Given the
    dicts' separator, the text between two rows is ``},`` that separator and ``{``, and nowhere else can
    a ``}`` be followed by a line break (a string's line breaks are escaped): there the rows' separators,
    and each dict's opening and closing, are put at their own nesting.
    """
    row_newline = newline + "  "
    item_newline = row_newline + "  "
    try:
        text = _row_encoder(item_newline).encode(rows)
    except ValueError:
        return None
    between = "}," + item_newline + "{"
    text = text[2:-2].replace(between, row_newline + "}," + row_newline + "{" + item_newline)
    return "[" + row_newline + "{" + item_newline + text + row_newline + "}" + newline + "]"


@functools.cache
def _row_encoder(item_newline: str) -> json.JSONEncoder:
    """json's C encoder (no indent) separating items by ``,`` and ``item_newline``; NaN refused."""
    return json.JSONEncoder(separators=("," + item_newline, ": "), allow_nan=False)


def _nan_to_none(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, Mapping):
        return {key: _nan_to_none(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nan_to_none(item) for item in value]
    return value
