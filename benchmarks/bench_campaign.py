"""Time a whole campaign: many systems scored against one reference, then reruns.

    python benchmarks/bench_campaign.py [--docs 1000] [--systems 100] [--workers 2] [--seed 7]

Generates a corpus (200 words a document), a reference template set (a TEMPLATE and 3 events of 4 text
fills per document) and one hypothesis per system whose error rate runs from 2% to 30% across the
systems, then runs ``iescore campaign`` as a separate process four times:

1. full: a cold store (every task, the output directory and the HTML page);
2. nothing changed: everything reused;
3. one system changed: one hypothesis file edited (a fill removed: its scores change, so its
   intervals and its 99 pairs are computed again; the other pairs may be reused);
4. dry run after a second edit.

For each it prints the wall time, the tasks run, the seconds spent inside tasks, the share of worker
time not spent inside tasks (Luigi scheduling, process start-up, idle workers: an upper bound on
scheduling), and the peak resident memory of the whole process tree (sampled every 50 ms).
:func:`run` (what ``python -m benchmarks`` calls) gives the full run and the one-system rerun as rows.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_templette import WORDS  # noqa: E402
from timing import Row, Target, iescore, load_average  # noqa: E402

SLOTS = ("WINNER", "LOSER", "PLACE", "DATE")


def generate(directory: Path, docs: int, systems: int, events: int, seed: int) -> Path:
    """Write texts, reference, hypotheses and the campaign file; return the campaign file."""
    rng = random.Random(seed)
    texts, reference, fills = [], [], []
    for d in range(docs):
        doc_id = f"DOC{d:06d}"
        words = [rng.choice(WORDS) for _ in range(200)]
        head = f"<DOC>\n<DOCNO> {doc_id} </DOCNO>\n<TEXT>\n"
        texts.append(head + " ".join(words) + "\n</TEXT>\n</DOC>\n")
        offsets, position = [], len(head)
        for word in words:
            offsets.append((position, position + len(word), word))
            position += len(word) + 1
        chosen = [[offsets[rng.randrange(len(offsets))] for _ in SLOTS] for _ in range(events)]
        fills.append((doc_id, chosen))
        reference.append(_document(doc_id, chosen, None, 0.0))
    (directory / "texts.sgml").write_text("".join(texts))
    (directory / "ref.tpl").write_text("".join(reference))
    lines = ['store = "store"\noutput = "out"\n\n[reference]\ntemplates = "ref.tpl"\ntexts = "texts.sgml"\n']
    lines.append("\n[options]\nresamples = 1000\nseed = 12345\nhtml_documents = 100\n")
    for s in range(systems):
        rate = 0.02 + 0.28 * s / max(systems - 1, 1)
        system_rng = random.Random(seed * 1000 + s)
        hypothesis = "".join(_document(doc, chosen, system_rng, rate) for doc, chosen in fills)
        (directory / f"sys{s:03d}.tpl").write_text(hypothesis)
        lines.append(f'\n[systems.sys{s:03d}]\ntemplates = "sys{s:03d}.tpl"\n')
    campaign = directory / "campaign.toml"
    campaign.write_text("".join(lines))
    return campaign


def remove_a_fill(path: Path) -> None:
    """Edit a hypothesis so that its scores change: its first WINNER fill removed (a missing point)."""
    lines = path.read_text().splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.startswith("    WINNER: "))
    path.write_text("".join(lines[:first] + lines[first + 1 :]))


def _document(doc_id: str, chosen: list, rng: random.Random | None, rate: float) -> str:
    parts = [f"<TEMPLATE-{doc_id}-1> :=\n    DOC_NR: {doc_id} ##14#{14 + len(doc_id)}#\n"]
    pointers = [f"<EVENT-{doc_id}-{e + 1}>" for e in range(len(chosen))]
    parts.append("    EVENT: " + "\n           ".join(pointers) + "\n")
    for e, slots in enumerate(chosen):
        parts.append(f"<EVENT-{doc_id}-{e + 1}> :=\n")
        for slot, (start, end, word) in zip(SLOTS, slots, strict=True):
            if rng is None or rng.random() >= rate:
                parts.append(f'    {slot}: "{word}" ##{start}#{end}#\n')
            elif rng.random() < 0.5:  # wrong: another word, a boundary too long
                parts.append(f'    {slot}: "{rng.choice(WORDS)}" ##{start}#{end + 1}#\n')
            # else missing
    return "".join(parts)


def tree_memory(pid: int, proportional: bool = True) -> tuple[int, int]:
    """Resident bytes of ``pid`` and all its descendants, from one look at ``/proc``: their RSS added up
    (pages a forked worker shares with its parent count once per process), and with ``proportional``
    their PSS (a shared page split between the processes sharing it: the memory the tree really holds;
    else 0). The PSS is the costly part: the kernel walks each process's pages (about 20 ms for a
    process of 400 MiB)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, shares, stack = 0, 0, [pid]
    while stack:
        current = stack.pop()
        total += rss.get(current, 0)
        shares += _pss(current) if proportional else 0
        stack.extend(children.get(current, []))
    return total, shares


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


#: Seconds between two looks at the process tree's RSS (a look reads every process's /proc stat, about
#: 2 ms), and how many looks apart its PSS is read too (14-20 ms for a tree of 400-500 MiB): reading
#: both at every look would take a noticeable share of the cores the measured run has.
SAMPLE_SECONDS = 0.05
PSS_EVERY = 5


def run_campaign(label: str, campaign: Path, workers: int, *extra: str, sample: bool = False) -> dict:
    """One ``iescore campaign`` process: its wall time and CPU, and with ``sample`` its peak memory.

    Times are taken without sampling: looking at the tree's memory reads ``/proc`` and the kernel's
    page walk for PSS, a few percent of the two cores the run has; the memory is measured in a run of its
    own (a second cold run)."""
    log = campaign.parent / f"{label}.log.json"
    command = iescore("campaign", str(campaign), "--workers", str(workers))
    command += ["--progress", "none", "--tasks-log", str(log), *extra]
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = peak_pss = 0
    stop = threading.Event()

    def sample_memory() -> None:
        nonlocal peak, peak_pss
        looks = 0
        while not stop.is_set():
            rss, pss = tree_memory(process.pid, proportional=looks % PSS_EVERY == 0)
            peak, peak_pss = max(peak, rss), max(peak_pss, pss)
            looks += 1
            time.sleep(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample_memory, daemon=True)
    if sample:
        sampler.start()
    out, err = process.communicate()
    wall = time.perf_counter() - start
    stop.set()
    if sample:
        sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if process.returncode != 0:
        raise SystemExit(f"{label}: iescore exited {process.returncode}\n{err[-2000:]}")
    result = {"label": label, "wall": wall, "cpu": cpu, "out": out}
    if sample:
        result.update(peak_mib=peak / 2**20, peak_pss_mib=peak_pss / 2**20)
    if log.exists():
        data = json.loads(log.read_text())
        result.update(ran=len(data["ran"]), reused=len(data["reused"]), task_seconds=data["task_seconds"])
        result["task_cpu"] = data.get("task_cpu_seconds") or 0.0
        inside = (data["task_seconds"] or 0.0) / (workers * wall) if wall else 0.0
        result["outside_share"] = 1.0 - inside
    return result


def report(result: dict) -> None:
    line = f"{result['label']:24} wall {result['wall']:7.1f} s  cpu {result['cpu']:7.1f} s"
    if "peak_mib" in result:
        line += f"  peak rss {result['peak_mib']:5.0f} MiB pss {result['peak_pss_mib']:5.0f} MiB"
    if "ran" in result:
        line += f"  ran {result['ran']:4d} reused {result['reused']:4d}"
        line += f"  in tasks {result['task_seconds']:7.1f} s wall, {result['task_cpu']:7.1f} s cpu"
        line += f" (outside: {result['cpu'] - result['task_cpu']:6.1f} s cpu)"
    print(line + f"  load {os.getloadavg()[0]:.1f}", flush=True)


def run(quick: bool, rounds: int) -> list[Row]:
    """A full campaign on a cold store, then the rerun after one system's file changed, in the same
    run: 1,000 documents x 100 systems on 2 workers (quick: 10 x 2). Targets: the full run under 2
    minutes, the rerun under 5% of it. The full run runs once (a second cold run is the memory run,
    whose sampling would slow a timed run); the rerun ``rounds`` times, each after one more fill of the
    same system was removed: the median and the range of the reruns against the full run."""
    docs, systems = (10, 2) if quick else (1000, 100)
    work = f"campaign {docs:,} docs x {systems} systems, 2 workers"
    before = load_average()
    with tempfile.TemporaryDirectory() as tmp:
        campaign = generate(Path(tmp), docs, systems, 3, 7)
        full = run_campaign("full", campaign, 2)
        reruns = []
        for _ in range(1 if quick else max(1, rounds)):
            remove_a_fill(Path(tmp) / "sys000.tpl")
            reruns.append(run_campaign("one system changed", campaign, 2)["wall"])
        memory = run_campaign("memory", campaign, 2, *_elsewhere(Path(tmp)), sample=True)
    after = load_average()
    full_target = Target(120, at_most=True, of="seconds")
    rerun_target = Target(0.05, at_most=True)
    ratio = statistics.median(reruns) / full["wall"]
    return [
        Row(f"{work}, full run, cold store", iescore_s=full["wall"], target=str(full_target),
            met=full_target.met(full["wall"]) if not quick else None, iescore_mib=memory["peak_pss_mib"],
            runs=1, load_before=before, load_after=after, note="memory: PSS of the process tree"),
        Row(f"{work}, one system changed", peer="full run", iescore_s=statistics.median(reruns),
            peer_s=full["wall"], ratio=ratio, ratio_min=min(reruns) / full["wall"],
            ratio_max=max(reruns) / full["wall"], ratio_is="rerun / full run", target=str(rerun_target),
            met=rerun_target.met(ratio) if not quick else None, runs=len(reruns), load_before=before,
            load_after=after, note=f"reruns: {', '.join(f'{wall:.2f}' for wall in reruns)} s"),
    ]  # fmt: skip


def _elsewhere(directory: Path) -> tuple[str, ...]:
    """Options sending a run to a store and output directory of its own (a cold run beside the first)."""
    return ("--store", str(directory / "store-memory"), "--out", str(directory / "out-memory"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--systems", type=int, default=100)
    parser.add_argument("--events", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", help="generate into this directory and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(args.keep or tmp)
        directory.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        campaign = generate(directory, args.docs, args.systems, args.events, args.seed)
        print(f"{args.docs} documents x {args.systems} systems, {args.workers} workers "
              f"(generated in {time.perf_counter() - start:.1f} s)")  # fmt: skip
        full = run_campaign("full (cold store)", campaign, args.workers)
        report(full)
        report(run_campaign("nothing changed", campaign, args.workers))
        edited = directory / "sys000.tpl"
        remove_a_fill(edited)  # other scores: its chain reruns, its statistics and pairs are new
        one = run_campaign("one system changed", campaign, args.workers)
        report(one)
        print(f"{'one-system rerun':24} {100 * one['wall'] / full['wall']:.1f}% of the full run")
        edited.write_text(edited.read_text() + "\n")
        dry = run_campaign("dry run", campaign, args.workers, "--dry-run")
        report(dry)
        html = directory / "out" / "report.html"
        print(f"{'HTML report':24} {html.stat().st_size / 2**20:.1f} MiB")
        # The memory, in a cold run of its own (sampling it would slow the timed runs).
        memory = run_campaign(
            "full, memory sampled", campaign, args.workers, *_elsewhere(directory), sample=True
        )
        report(memory)


if __name__ == "__main__":
    main()
