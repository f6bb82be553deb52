"""Time CLEF eHealth scoring (``iescore clef``) against eval.pl on the same files.

Generates ``reports`` gold reports of ``mentions`` disorder mentions each (10,000 x 50 = 500,000;
quick: 200 x 20), 10% of them discontiguous (two pieces), spread over a text of 40 characters a
mention, and a system run with typical errors: 70% of the gold mentions found exactly (a tenth of
those with a wrong CUI), 10% with a boundary moved (still overlapping), 5% split in two predictions,
5% merged with the next mention into one prediction, 10% missed, and 5% spurious predictions. One
pipe file per report per side.

Timed, interleaved whole processes: ``iescore clef -n b -r 1 -t 1a`` against ``perl eval.pl -n b -r 1
-t A`` (which computes the strict and relaxed counts) on all reports, when ``$IESCORE_EVALPL`` names
eval.pl (or ``eval.pl`` is on PATH) and perl is found. eval.pl takes about a minute a run at full
size, so at most 3 rounds are run. Target: at least 20x (ratio: eval.pl's time over iescore's).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import Row, Target, compare, iescore, interleaved, not_found, peer_programs, without_peer  # noqa: E402

TEXT_PER_MENTION = 40


def run(quick: bool, rounds: int) -> list[Row]:
    """The rows (see the module docstring)."""
    reports, mentions = (200, 20) if quick else (10_000, 50)
    work = f"clef {reports:,} reports x {mentions} mentions"
    target = Target(20, at_most=False)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_clef_") as tmp:
        root = Path(tmp)
        generate(root, reports, mentions, 13)
        sides = ["-input", str(root / "system"), "-gold", str(root / "gold")]
        ours = iescore("clef", "-n", "b", "-r", "1", "-t", "1a", *sides)
        scripts = peer_programs("eval.pl") if shutil.which("perl") else []
        for script in scripts:
            peer = ["perl", str(script), "-n", "b", "-r", "1", "-t", "A", *sides]
            timing = interleaved({"iescore": ours, "peer": peer}, min(rounds, 3), warm_up=not quick, cwd=root)
            rows.append(compare(f"{work}, -t 1a", timing, "iescore", "peer", "perl eval.pl -t A", target))
        if not scripts:
            note = not_found("eval.pl") + ", with perl"
            rows.append(without_peer(f"{work}, -t 1a", ours, rounds, not quick, note, target, cwd=root))
    return rows


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
