"""Time the word aligner against its floor: bare rapidfuzz opcodes on the same integer arrays.

    python benchmarks/bench_align.py --docs 10000 --words 500 --errors 0.10

Generates ``docs`` reference documents of about ``words`` words drawn from a Zipf-like vocabulary,
and a hypothesis for each with about ``errors`` word errors (substitutions, deletions, insertions in
the proportions 6:2:2). Words are mapped to integer ids once, outside the timings. Then, on the same
integer arrays, it times:

- the floor: ``rapidfuzz.distance.Levenshtein.opcodes`` for every document, nothing else;
- ``pipeline.speech.dp.align`` with sclite's costs (anchoring on the same opcodes, realigning regions);
- ``pipeline.speech.dp.align`` with phonetic substitution costs;
- building the alignment artifact (``pipeline.speech.align.batch_table``) from the levenshtein result.

It prints words per second, the ratio to the floor, and the process's peak memory (max RSS).
"""

from __future__ import annotations

import argparse
import random
import resource
import time

from rapidfuzz.distance import Levenshtein

from pipeline.speech.align import batch_table
from pipeline.speech.dp import Costs, Vocabulary, align_batch
from pipeline.speech.phonetic import phonetic_distance
from pipeline.speech.words import Word


def generate(
    docs: int, words: int, errors: float, seed: int
) -> tuple[list[list[int]], list[list[int]], list[str]]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocabulary_words = sorted(
        {"".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(30000)}
    )
    weights = [1.0 / (rank + 1) for rank in range(len(vocabulary_words))]
    vocabulary = Vocabulary()
    ids = vocabulary.ids(vocabulary_words)
    refs, hyps = [], []
    for _ in range(docs):
        n = rng.randint(words * 8 // 10, words * 12 // 10)
        ref = rng.choices(ids, weights, k=n)
        hyp = []
        for word in ref:
            roll = rng.random()
            if roll < errors * 0.6:
                hyp.append(rng.choice(ids))
            elif roll < errors * 0.8:
                continue
            else:
                hyp.append(word)
            if rng.random() < errors * 0.2:
                hyp.append(rng.choice(ids))
        refs.append(ref)
        hyps.append(hyp)
    return refs, hyps, vocabulary.words


def best_of(repeat: int, step) -> float:  # noqa: ANN001 - any callable
    """The least wall time of ``repeat`` runs (the machine's noise only ever adds time)."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=10000)
    parser.add_argument("--words", type=int, default=500)
    parser.add_argument("--errors", type=float, default=0.10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-phonetic", action="store_true")
    parser.add_argument("--repeat", type=int, default=3, help="time each step this often, keep the best")
    args = parser.parse_args()

    started = time.perf_counter()
    refs, hyps, words = generate(args.docs, args.words, args.errors, args.seed)
    total = sum(len(r) for r in refs)
    print(
        f"generated {args.docs} documents, {total:,} reference words in {time.perf_counter() - started:.1f} s"
    )

    def bare_opcodes() -> None:
        for ref, hyp in zip(refs, hyps, strict=True):
            Levenshtein.opcodes(ref, hyp, score_hint=max(1, abs(len(ref) - len(hyp))))

    floor = best_of(args.repeat, bare_opcodes)
    print(f"floor   rapidfuzz opcodes      {floor:7.2f} s  {total / floor:12,.0f} words/s")

    batches = []
    flat = best_of(args.repeat, lambda: batches.append(align_batch(refs, hyps)))
    batch = batches[-1]
    print(
        f"align   levenshtein (sclite)   {flat:7.2f} s  {total / flat:12,.0f} words/s  "
        f"{flat / floor:5.2f}x floor"
    )
    errors = int((batch.ops != ord("C")).sum())
    print(f"        word error rate {100 * errors / total:.1f}%")

    if not args.skip_phonetic:
        costs = Costs(substitution=lambda r, h: 1.0 + 3.0 * phonetic_distance(words[r], words[h]))
        phonetic = best_of(1, lambda: align_batch(refs, hyps, costs))
        print(
            f"align   phonetic               {phonetic:7.2f} s  {total / phonetic:12,.0f} words/s  "
            f"{phonetic / floor:5.2f}x floor"
        )

    ref_words = [[Word(words[i], k, k + 1) for k, i in enumerate(ref)] for ref in refs]
    hyp_words = [[Word(words[i], k, k + 1) for k, i in enumerate(hyp)] for hyp in hyps]
    doc_ids = [f"d{d}" for d in range(len(refs))]
    started = time.perf_counter()
    rows = batch_table(batch, doc_ids, ref_words, hyp_words).num_rows
    table = time.perf_counter() - started
    print(f"table   alignment artifact     {table:7.2f} s  {rows:,} rows")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (max RSS) {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
