"""Time ``iescore align`` on utterances (trn) against its floor and sclite, as whole processes.

Generates reference and hypothesis trn files: utterances of about ``words`` words (uniformly between
half and one and a half times that) drawn from a Zipf-like vocabulary of 30,000 made-up words, and a
hypothesis with about 12% word errors (substitutions, deletions, insertions 6:2:2). Sizes: 1M words in
50,000 utterances, 4M words in 200,000 utterances, 100 documents of 10,000 words (quick: 40,000 words
in 2,000 utterances, 10 documents of 1,000 words).

Timed, interleaved whole processes on each pair of files:

- ``iescore align --ref REF.trn --hyp HYP.trn -i trn --cost levenshtein --json OUT``;
- the floor, ``peers/rapidfuzz_floor.py``: read both files, map words to integer ids, rapidfuzz's
  ``Levenshtein.editops`` per utterance, nothing else. Target: within 2x of it;
- the same ``iescore align`` with ``--cost phonetic`` (target: within 1.5x of levenshtein);
- sclite (``sclite -r REF trn -h HYP trn -i spu_id -o sum pra``) when ``$IESCORE_SCLITE`` names it or
  it is on PATH, not on the long documents (its alignment is quadratic in an utterance's length).
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import (  # noqa: E402, E501
    Interleaved,
    Row,
    Target,
    compare,
    iescore,
    interleaved,
    not_found,
    peer_programs,
    peer_script,
)


def run(quick: bool, rounds: int) -> list[Row]:
    """The rows (see the module docstring)."""
    # (work, utterances, words each, time sclite too)
    sizes = (
        [("align 40,000 words in 2,000 utterances", 2000, 20, True),
         ("align 10 documents of 1,000 words", 10, 1000, False)]
        if quick
        else [("align 1M words in 50,000 utterances", 50_000, 20, True),
              ("align 4M words in 200,000 utterances", 200_000, 20, True),
              ("align 100 documents of 10,000 words", 100, 10_000, False)]
    )  # fmt: skip
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_align_") as temporary:
        for work, utterances, words, with_peer in sizes:
            directory = Path(temporary) / f"{utterances}x{words}"
            directory.mkdir()
            ref, hyp, _ = write_trn(directory, utterances, words)
            timing, sclite = measure(directory, ref, hyp, rounds, not quick, with_peer)
            rows.append(compare(f"{work}, levenshtein", timing, "iescore", "floor", "rapidfuzz floor",
                                Target(2, at_most=True), peer_over_ours=False))  # fmt: skip
            rows.append(compare(f"{work}, --cost phonetic", timing, "phonetic", "iescore", "levenshtein",
                                Target(1.5, at_most=True), peer_over_ours=False))  # fmt: skip
            if sclite:
                rows.append(
                    compare(f"{work}, levenshtein", timing, "iescore", "sclite", f"sclite ({sclite})")
                )
            elif with_peer:
                rows.append(Row(f"{work}, levenshtein", peer="sclite", note=not_found("sclite")))
            for path in directory.iterdir():
                path.unlink()
    return rows


def measure(
    directory: Path, ref: Path, hyp: Path, rounds: int, warm_up: bool, with_peer: bool
) -> tuple[Interleaved, Path | None]:
    """Interleave iescore (levenshtein, phonetic), the floor and, if ``with_peer`` and found, sclite."""
    align = iescore("align", "--ref", str(ref), "--hyp", str(hyp), "-i", "trn")
    commands = {
        "iescore": [*align, "--cost", "levenshtein", "--json", str(directory / "out.json")],
        "floor": peer_script("rapidfuzz_floor.py", str(ref), str(hyp)),
        "phonetic": [*align, "--cost", "phonetic", "--json", str(directory / "out-p.json")],
    }
    programs = peer_programs("sclite") if with_peer else []
    sclite = programs[0] if programs else None
    if sclite:
        commands["sclite"] = [str(sclite), "-r", str(ref), "trn", "-h", str(hyp), "trn", "-i", "spu_id",
                              "-o", "sum", "pra", "-O", str(directory), "-n", "sclite"]  # fmt: skip
    return interleaved(commands, rounds, warm_up), sclite


def write_trn(
    directory: Path,
    utterances: int,
    words: int,
    errors: float = 0.12,
    seed: int = 1,
    error_seed: int | None = None,
) -> tuple[Path, Path, int]:
    """Reference and hypothesis trn files in ``directory``; returns their paths and the word count.
    ``error_seed``: draw the errors from their own seed (one reference, several hypotheses)."""
    rng = np.random.default_rng(seed)
    made_up = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocabulary = np.array(
        sorted(
            {
                "".join(made_up.choice(letters) for _ in range(made_up.randint(2, 9))).upper()
                for _ in range(30000)
            }
        ),
        dtype=object,
    )
    weights = 1.0 / np.arange(1, len(vocabulary) + 1)
    weights /= weights.sum()
    lengths = rng.integers(max(1, words // 2), words * 3 // 2 + 1, utterances)
    total = int(lengths.sum())
    ref = rng.choice(len(vocabulary), total, p=weights)
    if error_seed is not None:
        rng = np.random.default_rng(error_seed)
    roll = rng.random(total)
    substituted = roll < errors * 0.6
    kept = ~((roll >= errors * 0.6) & (roll < errors * 0.8))
    inserted = rng.random(total) < errors * 0.2
    # Each reference word gives its hypothesis word (unless deleted), then maybe an insertion.
    pairs = np.stack((np.where(substituted, rng.choice(len(vocabulary), total, p=weights), ref),
                      rng.choice(len(vocabulary), total, p=weights)), axis=1).ravel()  # fmt: skip
    emitted = np.stack((kept, inserted), axis=1).ravel()
    hyp = pairs[emitted]
    owner = np.repeat(np.arange(utterances), lengths)
    hyp_lengths = np.bincount(np.repeat(owner, 2)[emitted], minlength=utterances)
    ref_words, hyp_words = vocabulary[ref], vocabulary[hyp]
    ref_bounds = np.concatenate(([0], np.cumsum(lengths))).tolist()
    hyp_bounds = np.concatenate(([0], np.cumsum(hyp_lengths))).tolist()
    paths = directory / "ref.trn", directory / "hyp.trn"
    for path, side, bounds in ((paths[0], ref_words, ref_bounds), (paths[1], hyp_words, hyp_bounds)):
        with path.open("w", encoding="utf-8") as out:
            out.writelines(
                " ".join(side[bounds[u] : bounds[u + 1]]) + f" (spk{u // 100:04d}-{u % 100:03d})\n"
                for u in range(utterances)
            )
    return paths[0], paths[1], total
