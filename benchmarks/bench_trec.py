"""Time ``iescore trec`` against trec_eval (C) and pytrec_eval on a large graded run.

Generates (seeded) a qrels file with graded judgements (0..3, about 300 judged documents a query, some
judged -1: pooled but not judged) and a run of QUERIES x DOCS retrieved documents (half of them judged,
ties in score included): 1,000 x 1,000 (quick: 100 x 200). Then, interleaved whole processes:

- ``iescore trec -m all_trec`` against ``trec_eval -m all_trec`` (each build named in
  ``$IESCORE_TREC_EVAL``, else ``trec_eval`` on PATH); their outputs must be byte for byte equal, but
  for ``rbp`` with a build where trec_eval's uninitialised gain bounds come out otherwise (``-O2``);
- ``iescore trec -m map -m P.10 -m ndcg_cut.10`` against the same with trec_eval, and against
  ``peers/pytrec_eval_run.py`` (pytrec_eval's own parsers, then its evaluator) when pytrec_eval is
  installed (``pip install -e '.[bench]'``).

Target: ``-m all_trec`` within 1.2x of trec_eval (ratio: iescore's time over trec_eval's), checked
against the first build named (trec_eval as its Makefile builds it); the others are shown beside it.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import (  # noqa: E402, E501
    Row,
    Target,
    compare,
    has_module,
    iescore,
    interleaved,
    not_found,
    peer_programs,
    peer_script,
    without_peer,
)

ALL_TREC = ["-m", "all_trec"]
THREE = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10"]


def run(quick: bool, rounds: int) -> list[Row]:
    """The rows (see the module docstring)."""
    queries, docs = (100, 200) if quick else (1000, 1000)
    size = f"trec {queries:,} queries x {docs:,} docs"
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_trec_") as temporary:
        qrels, run_file = generate(Path(temporary), queries, docs, 1)
        builds = peer_programs("trec_eval")
        for measures, label, target in ((ALL_TREC, "-m all_trec", Target(1.2, at_most=True)),
                                        (THREE, "map P.10 ndcg_cut.10", None)):  # fmt: skip
            ours = iescore("trec", *measures, qrels, run_file)
            for number, build in enumerate(builds):
                note = output_note(str(build), qrels, run_file) if measures is ALL_TREC else None
                timing = interleaved({"iescore": ours, "peer": [str(build), *measures, qrels, run_file]},
                                     rounds, warm_up=not quick)  # fmt: skip
                # The target is checked against the first build (trec_eval as its Makefile builds it);
                # another build (-O2) is shown beside it.
                checked = target if number == 0 else None
                rows.append(compare(f"{size}, {label}", timing, "iescore", "peer", f"trec_eval ({build})",
                                    checked, peer_over_ours=False, note=note))  # fmt: skip
            if not builds:
                note = not_found("trec_eval")
                rows.append(without_peer(f"{size}, {label}", ours, rounds, not quick, note, target))
        work = f"{size}, map P.10 ndcg_cut.10"
        if has_module("pytrec_eval"):
            peer = peer_script("pytrec_eval_run.py", qrels, run_file)
            timing = interleaved({"iescore": iescore("trec", *THREE, qrels, run_file), "peer": peer},
                                 rounds, warm_up=not quick)  # fmt: skip
            rows.append(compare(work, timing, "iescore", "peer", "pytrec_eval", Target(1, at_most=False)))
        else:
            note = "pytrec_eval not installed: pip install -e '.[bench]'"
            rows.append(without_peer(work, iescore("trec", *THREE, qrels, run_file), rounds, not quick, note))
    return rows


def output_note(trec_eval: str, qrels: str, run: str) -> str:
    """How ``iescore trec -m all_trec``'s output compares with this build's: byte for byte equal, or
    equal but for ``rbp`` (trec_eval leaves the smallest and largest gain of rbp uninitialised, so its
    value depends on the build: docs/trec.md). Any other difference stops the benchmark."""
    ours = subprocess.run(iescore("trec", *ALL_TREC, qrels, run), capture_output=True, check=True).stdout
    theirs = subprocess.run([trec_eval, *ALL_TREC, qrels, run], capture_output=True, check=True).stdout
    if ours == theirs:
        return "equal output"
    differ = {a.split()[0] for a, b in zip(ours.splitlines(), theirs.splitlines(), strict=False) if a != b}
    if len(ours.splitlines()) == len(theirs.splitlines()) and differ == {b"rbp"}:
        return "equal output but rbp (this build's uninitialised gain bounds)"
    raise RuntimeError(f"outputs differ: iescore trec and {trec_eval} -m all_trec")


def generate(directory: Path, queries: int, docs: int, seed: int) -> tuple[str, str]:
    """Write ``qrels`` and ``run`` into ``directory``; their paths."""
    rng = np.random.default_rng(seed)
    qids = np.repeat(np.arange(queries), docs)
    docnos = rng.permutation(docs * 3)[:docs]  # the same pool for every query, shuffled once
    doc = np.tile(docnos, queries)
    # Scores rounded to 3 decimals: a few ties in every query (broken by docno, descending).
    score = np.round(rng.normal(size=queries * docs), 3)
    rank = np.tile(np.arange(1, docs + 1), queries)
    run = directory / "run.txt"
    with run.open("w") as out:
        for q, d, r, s in zip(qids.tolist(), doc.tolist(), rank.tolist(), score.tolist(), strict=True):
            out.write(f"q{q} Q0 D{d:07d} {r} {s:.3f} bench\n")
    judged = min(300, docs * 3)
    qrels = directory / "qrels.txt"
    with qrels.open("w") as out:
        for q in range(queries):
            pool = rng.choice(docs * 3, size=judged, replace=False)
            grades = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], size=judged)
            for d, g in zip(pool.tolist(), grades.tolist(), strict=True):
                out.write(f"q{q} 0 D{d:07d} {g}\n")
    return str(qrels), str(run)
