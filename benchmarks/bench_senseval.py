"""Time ``iescore senseval`` against scorer2 on the same files, in the same run (issue 13, point 8).

    python benchmarks/bench_senseval.py --scorer2 /tmp/scorer2/scorer2              # 1,000,000 instances
    python benchmarks/bench_senseval.py --generate DIR --instances 400 --items 8   # files only

Generates (seeded) a sense map of ``items`` lexical items, each with 2 to 5 main senses, most with 0 to
4 subsenses and some of those with sub-subsenses (branching factors as counted); a key of ``instances``
instances spread over the items (85% one tag, 12% two, 3% ``U``); and answers for 95% of the instances:
one to three tags of the item, weighted (``tag/0.55``, weights summing to less than, exactly or more than
1) on most lines, unweighted on some, with an unknown tag on 1%. Every file is sorted, as scorer2 needs.

Then, best of ``--repeat`` runs each, whole processes, interleaved (one run of each in turn, so that
the machine's load falls on all alike): ``iescore senseval`` on the same files in its own process (the
default), the same with ``--store`` (the Luigi stages, a new artifact store each run, so nothing is
reused), and scorer2 (fine, coarse, mixed); prints the seconds of wall clock and of CPU (user + system,
each the least of its runs) and the load average. scorer2 is not part
of this repository: build it from its C source yourself (see ``tests/data/senseval/README.md``) and pass
its path, or only iescore is timed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


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


def best_of_each(
    commands: dict[str, list[str]], repeat: int, cwd: Path, store: Path
) -> dict[str, tuple[float, float]]:
    """The fastest of ``repeat`` runs of each command: (seconds of wall clock, seconds of CPU, user and
    system, of that process), each the least of its runs, each run from scratch (the store emptied
    first), the commands taking turns. CPU time is the fairer figure on a loaded machine."""
    import resource

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            shutil.rmtree(store, ignore_errors=True)
            start, start_cpu = time.perf_counter(), cpu()
            subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[name].append((time.perf_counter() - start, cpu() - start_cpu))
    return {name: (min(w for w, _ in runs), min(c for _, c in runs)) for name, runs in times.items()}


def _children_max_rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def run(quick: bool) -> list[dict]:
    """Rows for ``python -m benchmarks``: ``iescore senseval`` (in process, fine and mixed) against
    scorer2 (``$IESCORE_SCORER2``, else ``scorer2`` on PATH) on the same files, best of 3 (quick: 20,000
    instances over 200 items, once each: a smoke check)."""
    from timing import best_process, python_floor, row

    instances, items, repeat = (20_000, 200, 1) if quick else (1_000_000, 5_000, 3)
    scorer2 = os.environ.get("IESCORE_SCORER2") or shutil.which("scorer2")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        sense_map, key, answers = generate(Path(tmp), instances, items, 13)
        floor = python_floor(repeat)
        for granularity in ("fine", "mixed"):
            flags = [] if granularity == "fine" else ["-g", granularity]
            files = [str(answers), str(key), str(sense_map), *flags]
            ours, memory = best_process([sys.executable, "-m", "tasks.cli.main", "senseval", *files], repeat)
            figures = {"floor_s": floor, "target": "ratio <= 1 (no slower than scorer2)"}
            if scorer2:
                peer, _ = best_process([scorer2, *files], repeat)
                figures.update(peer="scorer2", peer_s=peer, ratio=ours / peer)
            else:
                figures["note"] = "scorer2 not found ($IESCORE_SCORER2)"
            rows.append(
                row(f"senseval {instances:,} instances, {granularity} ({memory:.0f} MiB)", ours, **figures)
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--instances", type=int, default=1_000_000)
    parser.add_argument("--items", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scorer2", help="path of a scorer2 binary to time against")
    parser.add_argument("--generate", help="only write the files into this directory")
    args = parser.parse_args()
    import timing  # noqa: F401 - its import lets the timed processes write bytecode, as a user's Python does

    if args.generate:
        for path in generate(Path(args.generate), args.instances, args.items, args.seed):
            print(path)
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        start = time.perf_counter()
        sense_map, key, answers = generate(work, args.instances, args.items, args.seed)
        print(
            f"generated {args.instances:,} instances over {args.items:,} items "
            f"in {time.perf_counter() - start:.1f} s"
        )
        iescore = [sys.executable, "-m", "tasks.cli.main", "senseval"]
        store = work / "store"
        for granularity in ("fine", "coarse", "mixed"):
            flags = [] if granularity == "fine" else ["-g", granularity]
            command = [*iescore, str(answers), str(key), str(sense_map), *flags]
            commands = {"in-process": command, "store": [*command, "--store", str(store)]}
            if args.scorer2:  # fine is scorer2's default: it has no '-g fine'
                commands["scorer2"] = [args.scorer2, str(answers), str(key), str(sense_map), *flags]
            best = best_of_each(commands, args.repeat, Path.cwd(), store)
            (wall, cpu), (store_wall, store_cpu) = best["in-process"], best["store"]
            line = (
                f"{granularity:>6}: iescore {wall:5.2f} s, CPU {cpu:5.2f} s "
                f"(--store: {store_wall:5.2f} s, CPU {store_cpu:5.2f} s)"
            )
            if args.scorer2:
                peer_wall, peer_cpu = best["scorer2"]
                line += (
                    f"   scorer2 {peer_wall:5.2f} s, CPU {peer_cpu:5.2f} s"
                    f"   ratio {wall / peer_wall:4.2f} (CPU {cpu / peer_cpu:4.2f})"
                )
            print(f"{line}   load {os.getloadavg()[0]:.1f}", flush=True)
        print(f"peak memory of this benchmark's children: {_children_max_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
