"""``json_text`` writes what ``json.dumps(..., indent=2, allow_nan=False)`` writes, NaN as null (issue 16:
its own indented writer, for speed, must not change a byte of any ``--json`` file)."""

from __future__ import annotations

import json
import math
import random
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

from tasks.core.jsontext import _nan_to_none, json_text

LEAVES = [
    None,
    True,
    False,
    0,
    -1,
    2**70,
    0.1,
    -0.0,
    1e-300,
    1e300,
    math.nan,
    "",
    'a"b\\c\n',
    "é\U0001f600",
    "\x00",
]


def value(rng: random.Random, depth: int) -> Any:
    kind = rng.random()
    if depth > 3 or kind < 0.4:
        return rng.choice(LEAVES)
    if kind < 0.7:
        return {
            rng.choice(["a", "é", 'k"', "", "x y"]) + str(i): value(rng, depth + 1)
            for i in range(rng.randrange(4))
        }
    if kind < 0.85:
        return [value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return tuple(value(rng, depth + 1) for _ in range(rng.randrange(3)))


def expected(data: Any) -> str:
    return json.dumps(_nan_to_none(data), indent=2, allow_nan=False) + "\n"


@pytest.mark.parametrize("seed", range(200))
def test_json_text_is_json_dumps_indented(seed: int) -> None:
    data = value(random.Random(seed), 0)
    assert json_text(data) == expected(data)


@pytest.mark.parametrize(
    "data",
    [
        {1: "integer key"},
        OrderedDict(a=1),
        {"numpy": np.float64(0.25), "int": np.int64(3).item()},
        [np.float64("nan")],
    ],
)
def test_other_values_are_json_dumps_own(data: Any) -> None:
    assert json_text(data) == expected(data)


def test_infinity_is_refused_as_before() -> None:
    with pytest.raises(ValueError):
        json_text({"a": [math.inf]})


def rows(rng: random.Random) -> list[dict[str, Any]]:
    """A table's rows (dicts of scalars: the shape ``json_text`` writes in one go), with strings that
    look like the text between rows."""
    texts = ["},\n      {", "}, {", "},\\n{", '"}', "{", "é\U0001f600", ""]
    scalars = [*LEAVES, *texts] if rng.random() < 0.3 else [x for x in [*LEAVES, *texts] if x is not math.nan]
    keys = ["a", "}", "b c", "é", "x"]
    return [
        {key: rng.choice(scalars) for key in rng.sample(keys, rng.randrange(1, len(keys) + 1))}
        for _ in range(rng.randrange(1, 6))
    ]


@pytest.mark.parametrize("seed", range(100))
def test_rows_of_scalars_are_json_dumps_indented(seed: int) -> None:
    rng = random.Random(seed)
    data = rows(rng)
    nested = {"by_document": data, "totals": data[0], "more": [data, rows(rng)]}
    assert json_text(data) == expected(data)
    assert json_text(nested) == expected(nested)


def test_rows_with_an_infinity_are_refused_as_before() -> None:
    with pytest.raises(ValueError):
        json_text([{"a": 1.0}, {"a": -math.inf}])
