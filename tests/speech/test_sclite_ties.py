"""``align_batch`` chooses among alignments of equal cost as sclite 2.10 does.

The expected alignments are sclite's own ``.pra`` of 3,000 random small-vocabulary pairs
(``tests/data/speech/sclite_ties/README.md``: inputs, program and command).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from iescore.pipeline.speech.dp import Vocabulary, align_batch

TIES = Path(__file__).resolve().parents[1] / "data" / "speech" / "sclite_ties"


def _utterances(path: Path) -> dict[str, list[str]]:
    out = {}
    for line in path.read_text().splitlines():
        words, uid = line.rsplit("(", 1)
        out[uid[:-1]] = words.split()
    return out


def _sclite_columns() -> dict[str, list[tuple[str | None, str | None]]]:
    """Each utterance's (reference, hypothesis) columns in sclite's .pra (None: no word)."""
    blocks = {}
    for part in (TIES / "ties.pra").read_text().split("\nid: (")[1:]:
        lines = re.search(r"REF:  (.*)\nHYP:  (.*)\n", part)
        refs, hyps = (lines.group(1).split(), lines.group(2).split()) if lines else ([], [])
        blocks[part[: part.index(")")]] = [
            (None if set(r) == {"*"} else r.lower(), None if set(h) == {"*"} else h.lower())
            for r, h in zip(refs, hyps, strict=True)
        ]
    return blocks


def _batch_columns(ids: list[str], refs: list[list[str]], hyps: list[list[str]]) -> dict[str, list]:
    vocabulary = Vocabulary()
    batch = align_batch([vocabulary.ids(r) for r in refs], [vocabulary.ids(h) for h in hyps])
    out = {}
    for d, uid in enumerate(ids):
        alignment = batch.document(d)
        out[uid] = [
            (refs[d][r] if r >= 0 else None, hyps[d][h] if h >= 0 else None)
            for r, h in zip(alignment.ref, alignment.hyp, strict=True)
        ]
    return out


@pytest.fixture(scope="module")
def pairs() -> tuple[list[str], list[list[str]], list[list[str]], dict]:
    refs, hyps = _utterances(TIES / "ties.ref"), _utterances(TIES / "ties.hyp")
    ids = list(refs)
    return ids, [refs[u] for u in ids], [hyps[u] for u in ids], _sclite_columns()


def test_the_tie_an_anchored_aligner_settled_otherwise(pairs) -> None:
    # sclite: REF  C B D E a F e a B E A / HYP  * * * * a * e a * F C (3 C, 2 S, 6 D).
    ids, refs, hyps, expected = pairs
    got = _batch_columns(ids[:1], refs[:1], hyps[:1])
    assert got["t0000-x"] == expected["t0000-x"]
    assert [r for r, h in got["t0000-x"] if r is not None and r == h] == ["a", "e", "a"]


def test_every_random_pair_aligns_as_sclite_aligns_it(pairs) -> None:
    ids, refs, hyps, expected = pairs
    got = _batch_columns(ids, refs, hyps)
    differing = [uid for uid in ids if got[uid] != expected[uid]]
    assert differing == []


def test_one_batch_per_utterance_gives_the_same(pairs) -> None:
    # Alone or among the others (chunked, bucketed by length), each pair's alignment is sclite's.
    ids, refs, hyps, expected = pairs
    for d in range(0, 3000, 97):
        assert _batch_columns(ids[d : d + 1], refs[d : d + 1], hyps[d : d + 1])[ids[d]] == expected[ids[d]]
