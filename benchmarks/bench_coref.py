"""Time coreference scoring (MUC, B3, CEAF-e) on many documents at once.

    python benchmarks/bench_coref.py --docs 1000 --mentions 200

Generates ``docs`` key documents of ``mentions`` mentions each, in chains of realistic sizes (many
singletons and pairs, a few long chains), and a response for each: the key with mentions dropped (10%),
moved to another chain (8%), chains split (10% of chains) and merged (5%), and spurious mentions added
(10%, some in new chains, some in existing ones). The mention -> chain arrays are built once, outside
the timings. Then it times :func:`pipeline.coref.score_batch` for each measure on its own (best of
``--repeat`` runs) and prints documents per second: a profile of the scoring step inside one
process, not a comparison with any peer.

Separately (not part of the scoring times) it writes the same documents as CoNLL files and times
reading them (:func:`read_pair`), aligning mentions and building the mention table.

:func:`run` (what ``python -m benchmarks`` calls) times whole processes on those CoNLL files instead,
interleaved: ``iescore coref`` (every measure) against the CoNLL reference scorer's ``muc`` and ``all``
when perl and its ``scorer.pl`` are found (``$IESCORE_CONLL_SCORER`` or PATH).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from iescore.pipeline.coref import (  # noqa: E402
    align_documents,
    mention_table,
    read_pair,
    score_batch,
    score_documents,
)
from timing import Row, Target, compare, iescore, interleaved, not_found, peer_programs, without_peer  # noqa: E402


def generate(docs: int, mentions: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of (document, key chain, response chain), -1 where a mention is absent from a side."""
    rng = np.random.default_rng(seed)
    doc_rows, key_rows, rsp_rows = [], [], []
    for d in range(docs):
        # chain sizes: geometric (mean about 3), so about a third of the chains are singletons
        sizes = []
        while sum(sizes) < mentions:
            sizes.append(int(rng.geometric(0.35)))
        sizes[-1] -= sum(sizes) - mentions
        key = np.repeat(np.arange(len(sizes)), sizes)
        rng.shuffle(key)  # mentions of a chain spread over the document
        chains = len(sizes)
        response = key.copy()
        # split: half the mentions of some chains go to a new chain
        for chain in rng.choice(chains, size=max(1, chains // 10), replace=False):
            members = np.flatnonzero(key == chain)
            moved = members[rng.random(len(members)) < 0.5]
            response[moved] = chains
            chains += 1
        # merge: some response chains take the mentions of another
        for a, b in rng.choice(chains, size=(max(1, chains // 20), 2)):
            response[response == b] = a
        # move single mentions to a random chain, drop some
        move = rng.random(mentions) < 0.08
        response[move] = rng.integers(0, chains, int(move.sum()))
        response[rng.random(mentions) < 0.10] = -1
        # spurious mentions: half join existing chains, half form new chains
        spurious = int(mentions * 0.10)
        extra = np.where(
            rng.random(spurious) < 0.5,
            rng.integers(0, chains, spurious),
            chains + rng.integers(0, spurious // 2 + 1, spurious),
        )
        doc_rows.append(np.full(mentions + spurious, d))
        key_rows.append(np.r_[key, np.full(spurious, -1)])
        rsp_rows.append(np.r_[response, extra])
    return np.concatenate(doc_rows), np.concatenate(key_rows), np.concatenate(rsp_rows)


def write_conll(path: Path, doc: np.ndarray, chain: np.ndarray) -> None:
    """One token a mention (one-token mentions), so the files hold exactly the generated chains."""
    lines = []
    for d in np.unique(doc):
        lines.append(f"#begin document (bench/{d}); part 000")
        for token, c in enumerate(chain[doc == d]):
            lines.append(f"bench/{d}\t0\t{token}\tw\t{'-' if c < 0 else f'({c})'}")
        lines.append("#end document")
    path.write_text("\n".join(lines) + "\n")


def best_of(repeat: int, function, *args, **kwargs) -> tuple[float, object]:  # noqa: ANN001
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function(*args, **kwargs)
        best = min(best, time.perf_counter() - started)
    return best, result


def run(quick: bool, rounds: int) -> list[Row]:
    """Interleaved whole processes on CoNLL files: ``iescore coref`` (every measure) against the
    reference scorer's ``muc`` (target: no slower, ratio its time over iescore's) and ``all``.

    1,000 documents of 200 mentions (quick: 50, ``muc`` only); the reference scorer's ``all`` takes
    minutes a run, so it runs one round without a warm-up.
    """
    docs = 50 if quick else 1000
    doc, key_chain, response_chain = generate(docs, 200, 20261121)
    work = f"coref {docs:,} docs x 200 mentions, CoNLL, all measures"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        key, response = Path(tmp) / "key.conll", Path(tmp) / "response.conll"
        write_conll(key, doc, key_chain)
        write_conll(response, doc, response_chain)
        ours = iescore("coref", "--key", str(key), "--response", str(response))
        scorers = peer_programs("scorer.pl") if shutil.which("perl") else []
        for scorer in scorers:
            metrics = (("muc", Target(1, at_most=False)),) + (() if quick else (("all", None),))
            for metric, target in metrics:
                peer = ["perl", str(scorer), metric, str(key), str(response), "none"]
                long = metric == "all"
                timing = interleaved({"iescore": ours, "peer": peer}, 1 if long else rounds,
                                     warm_up=not (quick or long))  # fmt: skip
                rows.append(compare(work, timing, "iescore", "peer", f"perl scorer.pl {metric}", target,
                                    note="one round, no warm-up" if long else None))  # fmt: skip
        if not scorers:
            note = not_found("scorer.pl") + ", with perl"
            rows.append(without_peer(work, ours, rounds, not quick, note, Target(1, at_most=False)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--mentions", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261121)
    parser.add_argument("--no-files", action="store_true", help="skip the CoNLL reading timings")
    args = parser.parse_args()

    doc, key_chain, response_chain = generate(args.docs, args.mentions, args.seed)
    print(
        f"{args.docs} documents, {int((key_chain >= 0).sum())} key mentions, "
        f"{int((response_chain >= 0).sum())} response mentions"
    )
    score_batch(doc[:1000], key_chain[:1000], response_chain[:1000])  # warm-up (imports, caches)
    for metrics in (("muc",), ("b3",), ("ceafe",), ("muc", "b3", "ceafe")):
        seconds, batch = best_of(
            args.repeat, score_batch, doc, key_chain, response_chain, docs=args.docs, metrics=metrics
        )
        totals = batch.totals()
        figures = "  ".join(f"{m} F1 {100 * (totals[m].f1 or 0):.1f}" for m in metrics)
        print(
            f"{'+'.join(metrics):16} {seconds:8.4f} s  {args.docs / seconds:12,.0f} documents/s   {figures}"
        )

    if not args.no_files:
        with tempfile.TemporaryDirectory() as tmp:
            key_file, rsp_file = Path(tmp) / "key.conll", Path(tmp) / "response.conll"
            write_conll(key_file, doc, key_chain)
            write_conll(rsp_file, doc, response_chain)
            started = time.perf_counter()
            key, response = read_pair(key_file, rsp_file, "conll")
            read_s = time.perf_counter() - started
            started = time.perf_counter()
            aligned = align_documents(key, response)
            align_s = time.perf_counter() - started
            started = time.perf_counter()
            table = mention_table(aligned)
            table_s = time.perf_counter() - started
            started = time.perf_counter()
            scores = score_documents(aligned)
            whole_s = time.perf_counter() - started
        print(
            f"read two CoNLL files {read_s:.2f} s, align mentions {align_s:.2f} s, "
            f"mention table ({len(table):,} rows) {table_s:.2f} s, score_documents (table + all three) "
            f"{whole_s:.2f} s; MUC F1 {100 * (scores.totals['muc'].f1 or 0):.1f}"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (max RSS) {peak:.0f} MiB")


if __name__ == "__main__":
    main()
