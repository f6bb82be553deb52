"""The project's JSON convention for ``--json`` files and campaign outputs, in one place.

Indented by two spaces, keys in the order given, non-ASCII characters escaped (``\\u00e9``), a final
newline; an undefined measure (NaN) written as ``null``. JSON has no NaN or Infinity, so any other
non-finite number is an error here rather than a file that strict JSON readers reject.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any


def json_text(value: Any) -> str:
    """``value`` as indented JSON text with a final newline; NaN written as null, Infinity refused.

    Most values hold no NaN (and only dicts and lists): they are encoded as they are, and only a value
    the encoder refuses is copied with its NaNs as None, then encoded again (an Infinity is refused
    then too). Copying every value first took a third of the time of a large report.
    """
    try:
        return json.dumps(value, indent=2, allow_nan=False) + "\n"
    except (ValueError, TypeError):
        return json.dumps(_nan_to_none(value), indent=2, allow_nan=False) + "\n"


def _nan_to_none(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, Mapping):
        return {key: _nan_to_none(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nan_to_none(item) for item in value]
    return value
