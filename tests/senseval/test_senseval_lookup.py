"""Finding each answer line's instance in a sorted key: the merge of the two sorted runs.

``scoring._sorted_index_in`` merges the key's instance names (increasing) with the answers' by one
stable sort and matches each answer with the last key name before it. The oracle is Arrow's own hash
look-up (``pyarrow.compute.index_in``): for random names, repeated, absent, null, empty, of unequal
widths, in order and not, both give the same row (or -1) for every answer. The bench's layout (every
name as wide, answers a sorted subset) is the case where the names' buffer is used as the rows as is.
"""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from iescore.pipeline.senseval.scoring import _sorted_index_in


def oracle(queries: pa.Array, values: pa.Array) -> np.ndarray:
    return np.array([-1 if i is None else i for i in pc.index_in(queries, value_set=values).to_pylist()])


@pytest.mark.parametrize("seed", range(40))
def test_merge_finds_what_hashing_finds(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = "ab.1é"
    names = sorted({"".join(rng.choices(alphabet, k=rng.randint(1, 6))) for _ in range(rng.randint(1, 40))})
    values = pa.array(names, pa.string())
    queries: list[str | None] = []
    for _ in range(rng.randint(0, 60)):
        kind = rng.random()
        if kind < 0.1:
            queries.append(None)
        elif kind < 0.6:
            queries.append(rng.choice(names))  # present (some twice)
        else:
            queries.append("".join(rng.choices(alphabet + "c", k=rng.randint(0, 7))))  # mostly absent
    if seed % 2:
        queries = sorted(q for q in queries if q is not None)
    array = pa.array(queries, pa.string())
    assert _sorted_index_in(array, values).tolist() == oracle(array, values).tolist()


def test_names_of_one_width_are_found_in_place() -> None:
    key = [f"item{i:03d}.{j:04d}" for i in range(20) for j in range(50)]
    answers = key[::3] + ["item999.0000", "item000.0001"]  # the last two: absent, and out of order
    values, queries = pa.array(key, pa.string()), pa.array(answers, pa.string())
    expected = [*range(0, len(key), 3), -1, 1]
    assert _sorted_index_in(queries, values).tolist() == expected
    assert oracle(queries, values).tolist() == expected
