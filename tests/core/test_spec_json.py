"""A spec's JSON for Luigi (``SpecParameter.serialize``): what ``DictParameter.serialize`` writes, byte
for byte, each frozen part written once."""

from __future__ import annotations

import json
import random

from luigi.parameter import _DictParamEncoder

from tasks.core.base import SpecParameter, freeze_spec, spec_json


def _value(rng: random.Random, depth: int) -> object:
    kind = rng.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return rng.choice(["plain", 'quote " and \\\\ slash', "\u00e9t\u00e9 \U0001f600", "", "\n\t"])
    if kind == 1:
        return rng.choice([0, -3, 10**20, 1.5, -0.0, 1e-300, 3.0])
    if kind == 2:
        return rng.choice([True, False, None])
    if kind in (3, 4):
        return rng.randrange(100)
    if kind in (5, 6):
        return {f"k{i}\u00e9": _value(rng, depth + 1) for i in range(rng.randrange(4))}
    return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def test_the_json_is_what_luigi_writes() -> None:
    rng = random.Random(5)
    for _ in range(300):
        spec = freeze_spec({"stage": "X", "options": _value(rng, 1), "inputs": {"a": _value(rng, 1)}})
        expected = json.dumps(spec, cls=_DictParamEncoder)
        assert SpecParameter().serialize(spec) == expected
        assert json.loads(expected) == json.loads(spec_json(spec))


def test_each_part_is_written_once() -> None:
    inner = freeze_spec({"stage": "Inner", "options": {"n": 1}})
    outer = freeze_spec({"stage": "Outer", "inputs": {"left": inner, "right": inner}})
    first = spec_json(outer)
    assert inner._json is not None and inner._json in first
    assert spec_json(outer) is first  # kept, not written again


def test_a_plain_mapping_is_left_to_luigi() -> None:
    assert SpecParameter().serialize({"b": [1, 2]}) == json.dumps({"b": [1, 2]})
