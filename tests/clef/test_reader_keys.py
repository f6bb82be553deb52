"""eval.pl's mention key (offsets joined by ``-``, written from the integers) made from the offsets."""

from __future__ import annotations

import numpy as np
from iescore.pipeline.clef.reader import mention_codes, offset_codes, offset_keys


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


def test_offset_codes_are_equal_exactly_when_the_offsets_are() -> None:
    rng = np.random.default_rng(9)
    for _ in range(300):
        n_offsets = rng.choice([2, 2, 2, 4, 6], int(rng.integers(0, 40)))
        top = int(rng.choice([5, 50, 10**6, 2**40]))  # 2**40: too large to pack start and end in one int
        offsets = rng.integers(0, top, int(n_offsets.sum()))
        codes = offset_codes(offsets, n_offsets).tolist()
        bounds = np.concatenate([[0], np.cumsum(n_offsets)])
        mentions = [tuple(offsets[a:b].tolist()) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        # Numbered in order of first sight: the code of each mention is the index of its offsets among
        # the distinct offsets as first met.
        first_seen = list(dict.fromkeys(mentions))
        assert codes == [first_seen.index(m) for m in mentions]


def test_mention_codes_are_equal_exactly_when_report_and_offsets_are() -> None:
    rng = np.random.default_rng(11)
    for _ in range(300):
        n_offsets = rng.choice([2, 2, 2, 4, 6], int(rng.integers(0, 40)))
        top = int(rng.choice([5, 50, 10**6, 2**40]))  # 2**40: the packed integers would leave int64
        offsets = rng.integers(0, top, int(n_offsets.sum()))
        report = rng.integers(0, int(rng.choice([1, 3, 10**4])), len(n_offsets))
        codes = mention_codes(report, offsets, n_offsets).tolist()
        bounds = np.concatenate([[0], np.cumsum(n_offsets)])
        mentions = [
            (int(r), *offsets[a:b].tolist()) for r, a, b in zip(report, bounds[:-1], bounds[1:], strict=True)
        ]
        for i in range(len(mentions)):
            for j in range(len(mentions)):
                assert (codes[i] == codes[j]) == (mentions[i] == mentions[j])


def test_mention_codes_by_hand() -> None:
    # Report 0: 5-26 twice (one code), 5-26-30-31 (a discontiguous mention starting alike: another);
    # report 1: 5-26 (another report: another code).
    codes = mention_codes(
        np.array([0, 0, 0, 1]), np.array([5, 26, 5, 26, 5, 26, 30, 31, 5, 26]), np.array([2, 2, 4, 2])
    ).tolist()
    assert codes[0] == codes[1]
    assert len({codes[0], codes[2], codes[3]}) == 3
