"""Time CLEF eHealth scoring (``iescore clef``) against eval.pl on the same files.

    python benchmarks/bench_clef.py --reports 10000 --mentions 50 --subset 2000 \\
        --evalpl /tmp/evalpl/eval.pl --evalpl-all

Generates ``reports`` gold reports of ``mentions`` disorder mentions each (10,000 x 50 = 500,000), 10%
of them discontiguous (two pieces), spread over a text of 40 characters a mention, and a system run with
typical errors: 70% of the gold mentions found exactly (a tenth of those with a wrong CUI), 10% with a
boundary moved (still overlapping), 5% split in two predictions, 5% merged with the next mention into one
prediction, 10% missed, and 5% spurious predictions. One pipe file per report per side.

Times, best of ``--repeat`` runs, in the same run so that the machine's load hits both alike:

- eval.pl (Perl, ``-t A``, which computes the strict and relaxed counts) on the first ``subset``
  reports, when ``--evalpl`` names the script (it is not part of this repository; see
  tests/data/clef/README.md for where it comes from);
- ``iescore clef -t 1a`` on the same subset (a new process each time, as eval.pl; in process, no
  ``--store``), and on all reports;
- with ``--evalpl-all``, eval.pl on all reports too (the issue's target is 20x on the same files);
- the command's functions alone (read both sides, match, count by report) on all reports, in this
  process (no interpreter start, no imports).

eval.pl's overlap test compares each prediction with every gold mention of its report (and copies the
report's hash each time): quadratic per report. iescore finds overlapping pieces by a sort and range
queries (``pipeline.core.spans``), exact matches by a join.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from pipeline.clef import by_report
from tasks.clef.stages import clef_spec
from tasks.core.compute import compute

TEXT_PER_MENTION = 40


def generate(root: Path, reports: int, mentions: int, seed: int) -> None:
    """Write ``root/gold`` and ``root/system`` (one file per report)."""
    rng = np.random.default_rng(seed)
    for side in ("gold", "system"):
        (root / side).mkdir(parents=True)
    cuis = [f"C{n:07d}" for n in rng.choice(9_000_000, size=2_000, replace=False)] + ["CUI-less"]
    for r in range(reports):
        name = f"{r:05d}-{r * 7919 % 100000:06d}-DISCHARGE_SUMMARY.txt"
        starts = np.arange(mentions) * TEXT_PER_MENTION + rng.integers(0, 10, mentions)
        lengths = rng.integers(4, 25, mentions)
        ends = starts + lengths
        discontiguous = rng.random(mentions) < 0.10
        second_start = ends + rng.integers(1, 5, mentions)
        second_end = second_start + rng.integers(3, 8, mentions)
        cui = rng.integers(0, len(cuis), mentions)
        gold = [
            _line(name, cuis[cui[i]], starts[i], ends[i], discontiguous[i], second_start[i], second_end[i])
            for i in range(mentions)
        ]
        fate = rng.random(mentions)
        system = []
        for i in range(mentions):
            s, e, two, s2, e2 = starts[i], ends[i], discontiguous[i], second_start[i], second_end[i]
            code = cuis[cui[i]] if rng.random() > 0.10 else cuis[rng.integers(0, len(cuis))]
            if fate[i] < 0.70:
                system.append(_line(name, code, s, e, two, s2, e2))
            elif fate[i] < 0.80:
                system.append(_line(name, code, s + 1, e + 2, False, 0, 0))
            elif fate[i] < 0.85:
                middle = (s + e) // 2
                system.append(_line(name, code, s, middle, False, 0, 0))
                system.append(_line(name, code, middle + 1, e, False, 0, 0))
            elif fate[i] < 0.90 and i + 1 < mentions:
                system.append(_line(name, code, s, ends[i + 1], False, 0, 0))
            # else: missed
        for _ in range(int(mentions * 0.05)):
            s = int(rng.integers(0, mentions * TEXT_PER_MENTION))
            system.append(_line(name, cuis[rng.integers(0, len(cuis))], s, s + 6, False, 0, 0))
        (root / "gold" / name).write_text("\n".join(gold) + "\n")
        (root / "system" / name).write_text("\n".join(system) + "\n")


def _line(report: str, cui: str, s: int, e: int, two: bool, s2: int, e2: int) -> str:
    tail = f"||{s2}||{e2}" if two else ""
    return f"{report}||Disease_Disorder||{cui}||{s}||{e}{tail}"


def subset(root: Path, reports: int) -> Path:
    """The first ``reports`` files of each side, copied under ``root/subset``."""
    target = root / "subset"
    for side in ("gold", "system"):
        (target / side).mkdir(parents=True)
        for path in sorted((root / side).iterdir())[:reports]:
            shutil.copy(path, target / side / path.name)
    return target


def best(repeat: int, command: list[str], cwd: Path) -> tuple[float, float]:
    """The best wall time and the best CPU time (user + system) of ``repeat`` runs of ``command``.

    Python may write its bytecode caches (``PYTHONDONTWRITEBYTECODE`` is dropped), as on a user's
    machine; the first run pays for compiling, the best of several does not.
    """
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, check=True, capture_output=True, env=environment)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), min(cpus)


def run(quick: bool) -> list[dict]:
    """Rows for ``python -m benchmarks``: ``iescore clef -t 1a`` against eval.pl (``$IESCORE_EVAL_PL``,
    with perl) on the same files, wall and CPU, best of 3 (quick: 200 reports of 20 mentions, once)."""
    import shutil

    from timing import row

    reports, mentions, repeat = (200, 20, 1) if quick else (10_000, 50, 3)
    evalpl = os.environ.get("IESCORE_EVAL_PL")
    with tempfile.TemporaryDirectory(prefix="bench-clef-") as tmp:
        root = Path(tmp)
        generate(root, reports, mentions, 13)
        sides = ["-input", str(root / "system"), "-gold", str(root / "gold")]
        ours = best(
            repeat,
            [sys.executable, "-m", "tasks.cli.main", "clef", "-n", "b", "-r", "1", "-t", "1a", *sides],
            root,
        )
        figures: dict = {"target": ">= 20x eval.pl (ratio is eval.pl / iescore, CPU)"}
        if evalpl and shutil.which("perl"):
            peer = best(repeat, ["perl", evalpl, "-n", "b", "-r", "1", "-t", "A", *sides], root)
            figures.update(peer="eval.pl", peer_s=peer[0], ratio=peer[1] / ours[1])
        else:
            figures["note"] = "eval.pl not given ($IESCORE_EVAL_PL)"
        figures["note"] = (figures.get("note", "") + f" iescore CPU {ours[1]:.2f} s").strip()
        return [row(f"clef -t 1a, {reports:,} reports x {mentions} mentions", ours[0], **figures)]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reports", type=int, default=10_000)
    parser.add_argument("--mentions", type=int, default=50, help="gold mentions per report")
    parser.add_argument("--subset", type=int, default=1_000, help="reports eval.pl is timed on")
    parser.add_argument("--evalpl", help="path of eval.pl (SemEval-2014 Task 7); without it, no peer timing")
    parser.add_argument(
        "--evalpl-all", action="store_true", help="time eval.pl on all reports too (about a minute a run)"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    import timing  # noqa: F401 - its import lets the timed processes write bytecode, as a user's Python does

    with tempfile.TemporaryDirectory(prefix="bench-clef-") as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        generate(root, args.reports, args.mentions, args.seed)
        took = time.perf_counter() - start
        print(f"load average at the start: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
        print(f"generated {args.reports} reports x {args.mentions} gold mentions in {took:.1f} s")
        part = subset(root, args.subset)
        ours = [sys.executable, "-m", "tasks.cli.main", "clef", "-n", "b", "-r", "1", "-t", "1a"]
        rows = []
        if args.evalpl:
            evalpl = ["perl", args.evalpl, "-n", "b", "-r", "1", "-t", "A"]
            peer = best(
                args.repeat, [*evalpl, "-input", str(part / "system"), "-gold", str(part / "gold")], root
            )
            rows.append((f"eval.pl, {args.subset} reports", peer))
        mine = best(args.repeat, [*ours, "-input", str(part / "system"), "-gold", str(part / "gold")], root)
        rows.append((f"iescore clef, {args.subset} reports", mine))
        full = best(args.repeat, [*ours, "-input", str(root / "system"), "-gold", str(root / "gold")], root)
        rows.append((f"iescore clef, {args.reports} reports", full))
        if args.evalpl and args.evalpl_all:
            whole = [*evalpl, "-input", str(root / "system"), "-gold", str(root / "gold")]
            peer_all = best(args.repeat, whole, root)
            rows.append((f"eval.pl, {args.reports} reports", peer_all))
        walls, cpus = [], []
        for _ in range(args.repeat):
            start, cpu = time.perf_counter(), time.process_time()
            spec = clef_spec(root / "gold", root / "system", "1a")
            counts = by_report(compute(spec["inputs"]["statistics"])["statistics"])
            walls.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
        rows.append((f"the stages in process, {args.reports} reports", (min(walls), min(cpus))))
        print(f"reports {len(counts.reports)}")
        print(f"{'':55s} {'wall':>8s}   {'CPU':>8s}")
        for label, (wall, cpu) in rows:
            print(f"{label:55s} {wall:8.2f} s {cpu:8.2f} s")
        print(f"load average at the end: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
        if args.evalpl and args.evalpl_all:
            wall, cpu = peer_all[0] / full[0], peer_all[1] / full[1]
            print(f"speed-up on all reports: {wall:.1f}x wall, {cpu:.1f}x CPU (eval.pl / iescore clef)")
        if args.evalpl:
            print(f"speed-up on the subset: {peer[0] / mine[0]:.1f}x wall, {peer[1] / mine[1]:.1f}x CPU "
                  "(eval.pl / iescore clef, process to process)")  # fmt: skip


if __name__ == "__main__":
    main()
