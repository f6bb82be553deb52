"""Time ``iescore senseval`` against scorer2 on the same files.

    python benchmarks/bench_senseval.py --generate DIR --instances 400 --items 8   # files only

Generates (seeded) a sense map of ``items`` lexical items, each with 2 to 5 main senses, most with 0 to
4 subsenses and some of those with sub-subsenses; a key of ``instances`` instances spread over the
items (85% one tag, 12% two, 3% ``U``); and answers for 95% of the instances: one to three tags of the
item, weighted (``tag/0.55``, weights summing to less than, exactly or more than 1) on most lines,
unweighted on some, with an unknown tag on 1%. Every file is sorted, as scorer2 needs. Sizes:
1,000,000 instances over 5,000 items (quick: 20,000 over 200).

Timed, interleaved whole processes: ``iescore senseval ANSWERS KEY MAP`` (fine, and ``-g mixed``)
against each scorer2 build named in ``$IESCORE_SCORER2`` (else ``scorer2`` on PATH). Target: within
1.2x of scorer2 built with ``-O2`` (ratio: iescore's time over scorer2's).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import Row, Target, compare, iescore, interleaved, not_found, peer_programs, without_peer  # noqa: E402


def run(quick: bool, rounds: int) -> list[Row]:
    """The rows (see the module docstring)."""
    instances, items = (20_000, 200) if quick else (1_000_000, 5_000)
    target = Target(1.2, at_most=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_senseval_") as tmp:
        sense_map, key, answers = generate(Path(tmp), instances, items, 13)
        builds = peer_programs("scorer2")
        for granularity in ("fine", "mixed"):
            flags = [] if granularity == "fine" else ["-g", granularity]  # fine: scorer2's default
            files = [str(answers), str(key), str(sense_map), *flags]
            work = f"senseval {instances:,} instances, {granularity}"
            for build in builds:
                timing = interleaved({"iescore": iescore("senseval", *files), "peer": [str(build), *files]},
                                     rounds, warm_up=not quick)  # fmt: skip
                rows.append(compare(work, timing, "iescore", "peer", f"scorer2 ({build})", target,
                                    peer_over_ours=False))  # fmt: skip
            if not builds:
                command = iescore("senseval", *files)
                rows.append(without_peer(work, command, rounds, not quick, not_found("scorer2"), target))
    return rows


def generate(directory: Path, instances: int, items: int, seed: int) -> tuple[Path, Path, Path]:
    """Write ``senses.map``, ``key.txt`` and ``answers.txt`` into ``directory``; return their paths."""
    rng = np.random.default_rng(seed)
    directory.mkdir(parents=True, exist_ok=True)
    map_lines: list[str] = []
    item_senses: list[list[str]] = []
    for i in range(items):
        item = f"item{i:05d}"
        senses: list[str] = []
        for main in range(1, int(rng.integers(2, 6)) + 1):
            top = f"{item}.{main}"
            senses.append(top)
            map_lines.append(top)
            children = int(rng.integers(0, 5))
            for sub in range(1, children + 1):
                child = f"{top}.{sub}"
                senses.append(child)
                map_lines.append(f"{child} {children} {top}")
                grandchildren = int(rng.integers(0, 3)) if rng.random() < 0.3 else 0
                for leaf in range(1, grandchildren + 1):
                    name = f"{child}.{leaf}"
                    senses.append(name)
                    map_lines.append(f"{name} {grandchildren} {child} {children} {top}")
        item_senses.append(senses)
    per_item = np.bincount(rng.integers(0, items, instances), minlength=items)
    key_lines: list[str] = []
    answer_lines: list[str] = []
    for i, count in enumerate(per_item):
        item = f"item{i:05d}"
        senses = item_senses[i]
        n = len(senses)
        kinds = rng.random(count)
        first = rng.integers(0, n, count)
        second = rng.integers(0, n, count)
        answered = rng.random(count) < 0.95
        width = rng.integers(1, 4, count)
        picks = rng.integers(0, n, (count, 3))
        weights = np.round(rng.random((count, 3)) * 0.7 + 0.05, 2)
        style = rng.random(count)
        for j in range(count):
            instance = f"{item}.{j:06d}"
            if kinds[j] < 0.03:
                tags = "U"
            elif kinds[j] < 0.15 and first[j] != second[j]:
                tags = f"{senses[first[j]]} {senses[second[j]]}"
            else:
                tags = senses[first[j]]
            key_lines.append(f"{item} {instance} {tags}")
            if not answered[j]:
                continue
            chosen = [senses[k] for k in picks[j, : width[j]]]
            if style[j] < 0.01:
                chosen[-1] = "bogus"
            if style[j] < 0.10:
                guess = " ".join(chosen)
            else:
                guess = " ".join(f"{tag}/{w:.2f}" for tag, w in zip(chosen, weights[j], strict=False))
            answer_lines.append(f"{item} {instance} {guess}")
    paths = (directory / "senses.map", directory / "key.txt", directory / "answers.txt")
    for path, lines in zip(paths, (map_lines, key_lines, answer_lines), strict=True):
        path.write_text("\n".join(sorted(lines)) + "\n", encoding="ascii")
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description="Write the benchmark's files (for fixtures).")
    parser.add_argument("--generate", required=True, help="write the files into this directory")
    parser.add_argument("--instances", type=int, default=1_000_000)
    parser.add_argument("--items", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    for path in generate(Path(args.generate), args.instances, args.items, args.seed):
        print(path)


if __name__ == "__main__":
    main()
