"""eval.pl's mention key (offsets joined by ``-``, written from the integers) made from the offsets."""

from __future__ import annotations

import numpy as np
from iescore.pipeline.clef.reader import offset_keys


def test_keys_are_the_offsets_joined_as_perl_writes_them() -> None:
    rng = np.random.default_rng(5)
    for _ in range(300):
        n_offsets = rng.integers(1, 4, rng.integers(0, 12)) * 2
        offsets = rng.integers(0, 10 ** int(rng.integers(1, 18)), int(n_offsets.sum()), dtype=np.int64)
        offsets[rng.random(len(offsets)) < 0.2] = 0  # 0 is one digit
        keys = offset_keys(offsets, n_offsets)
        keys.validate(full=True)
        bounds = np.concatenate([[0], np.cumsum(n_offsets)])
        pairs = zip(bounds[:-1], bounds[1:], strict=True)
        expected = ["-".join(str(int(v)) for v in offsets[a:b]) for a, b in pairs]
        assert keys.to_pylist() == expected


def test_a_few_keys_by_hand() -> None:
    # Two mentions: 5-26, then a discontiguous one 89-109 + 112-116; 1000000 has seven digits.
    keys = offset_keys(np.array([5, 26, 89, 109, 112, 116, 0, 1000000]), np.array([2, 4, 2]))
    assert keys.to_pylist() == ["5-26", "89-109-112-116", "0-1000000"]
