"""The project's JSON convention (``tasks.core.jsontext.json_text``): the bytes of a known document."""

from __future__ import annotations

import math

import pytest
from iescore.tasks.core.jsontext import json_text


def test_a_known_document_is_written_in_the_projects_convention() -> None:
    document = {
        "signature": "scorer:templette|case:mixed",
        "totals": {"COR": 3, "REC": 75.0, "PRE": math.nan, "F": 0.1},
        "by_slot": [{"slot": "WINNER", "name": 'Müller "Mo"'}, {"slot": "LOSER", "counts": (1, 2)}],
        "empty": {},
        "none": [],
        "flags": [True, False, None],
    }
    # Two-space indent, ", " between items only at line ends, ": " after keys, keys in the order
    # given, non-ASCII escaped, NaN as null, a tuple as a list, empty containers on one line, a final
    # newline: written out by hand from the convention in the module's docstring.
    expected = (
        "{\n"
        '  "signature": "scorer:templette|case:mixed",\n'
        '  "totals": {\n'
        '    "COR": 3,\n'
        '    "REC": 75.0,\n'
        '    "PRE": null,\n'
        '    "F": 0.1\n'
        "  },\n"
        '  "by_slot": [\n'
        "    {\n"
        '      "slot": "WINNER",\n'
        '      "name": "M\\u00fcller \\"Mo\\""\n'
        "    },\n"
        "    {\n"
        '      "slot": "LOSER",\n'
        '      "counts": [\n'
        "        1,\n"
        "        2\n"
        "      ]\n"
        "    }\n"
        "  ],\n"
        '  "empty": {},\n'
        '  "none": [],\n'
        '  "flags": [\n'
        "    true,\n"
        "    false,\n"
        "    null\n"
        "  ]\n"
        "}\n"
    )
    assert json_text(document) == expected


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_infinity_is_refused(value: float) -> None:
    # Not an undefined measure but a bug: never written as Infinity, which strict JSON readers reject.
    with pytest.raises(ValueError):
        json_text({"rows": [{"delta": value}]})
