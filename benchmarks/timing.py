"""What the benchmarks share: timing whole processes (best of N, with peak memory) and finding peers.

A row of results, as every ``bench_*.run(quick)`` returns them and ``python -m benchmarks`` prints them:
``{"work", "peer", "peer_s", "iescore_s", "floor_s", "ratio"}`` (a missing figure is None), and
optionally ``"target"`` (what the issue asks of ``ratio``) and ``"note"``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# The processes timed run as a user's do: Python writes (and then reads) the bytecode of iescore's
# modules. Some environments (this workplace's among them) set PYTHONDONTWRITEBYTECODE, which makes
# every process compile all of iescore's modules from source again (about 0.45 s at each start).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
CONLL_SCORER_VARIABLE = "IESCORE_CONLL_SCORER"  # path of the CoNLL reference scorer's scorer.pl


def run_process(command: Sequence[str], cwd: str | Path | None = None) -> tuple[float, float]:
    """Run ``command`` (output discarded); return its wall seconds and peak resident memory (MiB).

    The peak is the largest ``VmHWM`` of the process and its descendants, sampled every 20 ms (the
    rusage of a child would count the benchmark's own memory, copied before the child's exec). A
    non-zero exit status is an error: a benchmark of a failing command would time nothing.
    """
    started = time.perf_counter()
    process = subprocess.Popen(list(command), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, _tree_high_water(process.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, error = process.communicate()
    wall = time.perf_counter() - started
    stop.set()
    sampler.join()
    if process.returncode != 0:
        message = error.decode(errors="replace")[-2000:]
        raise RuntimeError(f"{' '.join(map(str, command))} exited {process.returncode}: {message}")
    return wall, peak / 2**20


def _tree_high_water(pid: int) -> int:
    """The summed peak resident bytes (VmHWM) of ``pid`` and its live descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/status") as handle:
                for line in handle:
                    if line.startswith("VmHWM:"):
                        total += int(line.split()[1]) * 1024
                        break
        except OSError:
            pass
        stack.extend(children.get(current, []))
    return total


def best_process(command: Sequence[str], repeat: int, cwd: str | Path | None = None) -> tuple[float, float]:
    """The least wall time of ``repeat`` runs (noise only ever adds time) and the largest peak memory."""
    runs = [run_process(command, cwd) for _ in range(repeat)]
    return min(wall for wall, _ in runs), max(peak for _, peak in runs)


def iescore(*arguments: str) -> list[str]:
    """The command line of ``iescore`` in this checkout's interpreter."""
    return [sys.executable, "-m", "tasks.cli.main", *arguments]


def python_floor(repeat: int) -> float:
    """Seconds to start Python and import what any iescore command needs (numpy, pyarrow, pandas)."""
    return best_process([sys.executable, "-c", "import numpy, pandas, pyarrow.compute"], repeat)[0]


def conll_scorer() -> Path | None:
    """The CoNLL reference scorer (``scorer.pl``): ``$IESCORE_CONLL_SCORER``, else on PATH; with perl."""
    if shutil.which("perl") is None:
        return None
    given = os.environ.get(CONLL_SCORER_VARIABLE)
    if given:
        return Path(given) if Path(given).is_file() else None
    found = shutil.which("scorer.pl")
    return Path(found) if found else None


def row(work: str, iescore_s: float | None, **figures: Any) -> dict[str, Any]:
    """One result row with every key present."""
    result = {"work": work, "peer": None, "peer_s": None, "iescore_s": iescore_s, "floor_s": None,
              "ratio": None}  # fmt: skip
    result.update(figures)
    return result
