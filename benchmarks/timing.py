"""What the benchmarks share: timing whole processes interleaved, result rows, and finding peers.

Every figure is the wall time of a whole process, as a user would start it: iescore through its
installed ``iescore`` entry point, a peer through its own program or, for a Python peer, a minimal
script of its own in ``benchmarks/peers/`` (nothing of iescore imported). Two commands compared are
run in turn, A, B, A, B, ... after one warm-up run of each, so that a change of the machine's load
falls on both alike; the ratio is taken pair by pair and reported as the median and the range of
the per-pair ratios, beside each side's median wall time, its largest peak memory and the load
average before and after.

Python writes bytecode in every process timed, as on a user's machine: some environments set
``PYTHONDONTWRITEBYTECODE``, which would make each start compile all of iescore's modules again, so
this module removes it from the environment the timed processes inherit.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEERS = Path(__file__).resolve().parent / "peers"
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

#: Environment variables naming the peer programs (else the program's name on PATH). Each may hold
#: several paths separated by ``os.pathsep`` (say two builds of trec_eval): each gets a row.
PEER_VARIABLES = {
    "trec_eval": "IESCORE_TREC_EVAL",
    "scorer2": "IESCORE_SCORER2",
    "scorer.pl": "IESCORE_CONLL_SCORER",
    "eval.pl": "IESCORE_EVALPL",
    "sclite": "IESCORE_SCLITE",
    "sc_stats": "IESCORE_SC_STATS",
}


@dataclass(frozen=True)
class Runs:
    """The wall seconds and peak resident memory (MiB) of each timed run of one command."""

    seconds: tuple[float, ...]
    peaks: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def peak(self) -> float:
        return max(self.peaks)


@dataclass(frozen=True)
class Interleaved:
    """Commands run in turn: each one's runs (in the order of the rounds) and the load around them."""

    runs: dict[str, Runs]
    load_before: str
    load_after: str

    def ratios(self, numerator: str, denominator: str) -> tuple[float, ...]:
        """The ratio of two commands' wall times, round by round (the runs of one round are neighbours)."""
        pairs = zip(self.runs[numerator].seconds, self.runs[denominator].seconds, strict=True)
        return tuple(a / b for a, b in pairs)


def interleaved(
    commands: dict[str, Sequence[str]],
    rounds: int,
    warm_up: bool = True,
    cwd: str | Path | None = None,
    before_each: Callable[[str], None] | None = None,
    stdin: Path | None = None,
) -> Interleaved:
    """Run ``commands`` in turn, ``rounds`` times (A, B, A, B, ...), after one untimed run of each.

    ``before_each(name)`` is called before every run of ``name`` (say, to empty a store so that each
    run starts cold). The warm-up fills the file cache and writes Python's bytecode, which a user's
    second run finds too. The load average (``/proc/loadavg``'s three figures) is read before the
    warm-up and after the last run. ``stdin``: a file every command reads on its standard input.
    """
    load_before = load_average()
    if warm_up:
        for name, command in commands.items():
            if before_each:
                before_each(name)
            run_process(command, cwd, stdin)
    seconds: dict[str, list[float]] = {name: [] for name in commands}
    peaks: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            if before_each:
                before_each(name)
            wall, peak = run_process(command, cwd, stdin)
            seconds[name].append(wall)
            peaks[name].append(peak)
    runs = {name: Runs(tuple(seconds[name]), tuple(peaks[name])) for name in commands}
    return Interleaved(runs, load_before, load_average())


def run_process(
    command: Sequence[str], cwd: str | Path | None = None, stdin: Path | None = None
) -> tuple[float, float]:
    """Run ``command`` (output discarded; ``stdin``: a file on its standard input); return its wall
    seconds and peak resident memory (MiB).

    The peak is the largest sum of ``VmHWM`` over the process and its descendants, sampled every
    20 ms (the rusage of a child would count the benchmark's own memory, copied before the child's
    exec). A non-zero exit status is an error: a benchmark of a failing command would time nothing.
    """
    source = open(stdin, "rb") if stdin is not None else subprocess.DEVNULL  # noqa: SIM115
    started = time.perf_counter()
    process = subprocess.Popen(
        list(command), cwd=cwd, stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
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
    if stdin is not None:
        source.close()
    stop.set()
    sampler.join()
    if process.returncode != 0:
        message = error.decode(errors="replace")[-2000:]
        raise RuntimeError(f"{' '.join(map(str, command))} exited {process.returncode}: {message}")
    return wall, peak / 2**20


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as ``/proc/loadavg`` gives them."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())


def iescore(*arguments: str) -> list[str]:
    """The command line of ``iescore`` as a user runs it: the installed entry point beside this
    interpreter (or on PATH), else ``python -m iescore`` from the checkout."""
    beside = Path(sys.executable).with_name("iescore")
    program = str(beside) if beside.is_file() else shutil.which("iescore")
    if program:
        return [program, *arguments]
    return [sys.executable, "-m", "iescore", *arguments]


def peer_script(name: str, *arguments: str) -> list[str]:
    """The command line of one of the minimal peer scripts in ``benchmarks/peers/``."""
    return [sys.executable, str(PEERS / name), *arguments]


def has_module(name: str) -> bool:
    """Whether a Python peer library is installed (its script would run)."""
    import importlib.util

    return importlib.util.find_spec(name) is not None


def peer_programs(program: str) -> list[Path]:
    """The builds of a peer program: the paths in its environment variable that are files, else
    ``program`` on PATH (an empty list: not found)."""
    given = os.environ.get(PEER_VARIABLES[program])
    if given:
        return [Path(path) for path in given.split(os.pathsep) if path and Path(path).is_file()]
    found = shutil.which(program)
    return [Path(found)] if found else []


def not_found(program: str) -> str:
    """The note of a row whose peer was not found."""
    return f"{program} not found (${PEER_VARIABLES[program]} or PATH)"


@dataclass(frozen=True)
class Target:
    """What a row must reach: ``ratio`` or ``seconds`` (iescore's median) compared by ``at_most`` or not."""

    value: float
    at_most: bool
    of: str = "ratio"

    def __str__(self) -> str:
        unit = "x" if self.of == "ratio" else " s"
        return f"{'<=' if self.at_most else '>='} {self.value:g}{unit}"

    def met(self, figure: float | None) -> bool | None:
        if figure is None:
            return None
        return figure <= self.value if self.at_most else figure >= self.value


@dataclass
class Row:
    """One line of the results table (a missing figure is None)."""

    work: str
    peer: str | None = None
    iescore_s: float | None = None
    peer_s: float | None = None
    ratio: float | None = None
    ratio_min: float | None = None
    ratio_max: float | None = None
    ratio_is: str | None = None
    target: str | None = None
    met: bool | None = None
    iescore_mib: float | None = None
    peer_mib: float | None = None
    runs: int | None = None
    load_before: str | None = None
    load_after: str | None = None
    note: str | None = None
    bench: str | None = field(default=None)


def compare(
    work: str,
    timing: Interleaved,
    ours: str,
    peer: str,
    peer_label: str,
    target: Target | None = None,
    peer_over_ours: bool = True,
    note: str | None = None,
) -> Row:
    """The row comparing two commands of ``timing``: medians, peaks and the per-round ratios, either
    the peer's time over iescore's (how many times faster iescore is) or iescore's over the peer's."""
    numerator, denominator = (peer, ours) if peer_over_ours else (ours, peer)
    ratios = timing.ratios(numerator, denominator)
    ratio = statistics.median(ratios)
    return Row(
        work=work,
        peer=peer_label,
        iescore_s=timing.runs[ours].median,
        peer_s=timing.runs[peer].median,
        ratio=ratio,
        ratio_min=min(ratios),
        ratio_max=max(ratios),
        ratio_is="peer / iescore" if peer_over_ours else "iescore / peer",
        target=str(target) if target else None,
        met=target.met(ratio) if target else None,
        iescore_mib=timing.runs[ours].peak,
        peer_mib=timing.runs[peer].peak,
        runs=len(ratios),
        load_before=timing.load_before,
        load_after=timing.load_after,
        note=note,
    )


def alone(
    work: str, timing: Interleaved, name: str, target: Target | None = None, note: str | None = None
) -> Row:
    """The row of one command of ``timing`` without a peer (its ``target``, if any, on its seconds)."""
    runs = timing.runs[name]
    return Row(
        work=work,
        iescore_s=runs.median,
        target=str(target) if target else None,
        met=target.met(runs.median) if target else None,
        iescore_mib=runs.peak,
        runs=len(runs.seconds),
        load_before=timing.load_before,
        load_after=timing.load_after,
        note=note,
    )


def without_peer(
    work: str,
    command: Sequence[str],
    rounds: int,
    warm_up: bool,
    note: str,
    target: Target | None = None,
    cwd: str | Path | None = None,
) -> Row:
    """iescore's row when its peer is not found: its own runs, the target shown but not judged."""
    row = alone(work, interleaved({"iescore": command}, rounds, warm_up, cwd), "iescore", note=note)
    row.target = str(target) if target else None
    return row


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
