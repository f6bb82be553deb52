"""Run every benchmark and print one table of figures, ratios and targets.

    python -m benchmarks [--quick] [--only NAME ...] [--rounds N] [--json OUT.json] [--markdown OUT.md]
    python -m benchmarks --from-json OUT.json [MORE.json ...] [--only NAME ...] [--markdown OUT.md]

Each ``benchmarks/bench_*.py`` defines ``run(quick, rounds) -> list[Row]``: it generates its data,
then times iescore and its peers as whole processes, interleaved (see ``benchmarks/timing.py``).
``--rounds`` is the number of interleaved rounds (5; ``--quick``: 1). ``--quick`` runs small sizes, one
round, no warm-up: a smoke check that every benchmark still runs (CI runs it), not a measurement; a
peer that is not found gives a row with a note. The exit status is 1 when a benchmark failed.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import importlib
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from timing import Row, load_average  # noqa: E402

HEADINGS = ("work", "peer", "iescore s", "peer s", "ratio (range)", "ratio is", "target", "met",
            "MiB iescore / peer", "runs", "load before → after", "note")  # fmt: skip


def discover() -> list[str]:
    """The names of the benchmark modules (``bench_*.py``), sorted."""
    return sorted(path.stem for path in HERE.glob("bench_*.py"))


def run_all(names: list[str], quick: bool, rounds: int) -> tuple[list[Row], list[str]]:
    """Every benchmark's rows (each with its ``bench``) and the names of those that failed."""
    rows: list[Row] = []
    failed: list[str] = []
    for name in names:
        print(f"-- {name} (load {load_average()})", file=sys.stderr, flush=True)
        try:
            results = importlib.import_module(name).run(quick, rounds)
        except Exception:  # one broken benchmark must not hide the others' figures
            traceback.print_exc()
            failed.append(name)
            results = [Row(name, note="FAILED (traceback above)")]
        for result in results:
            result.bench = name
            if quick:  # small sizes: a target says nothing there
                result.met = None
            rows.append(result)
    return rows, failed


def markdown(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table (seconds to 3 significant digits, ratios with an ``x``)."""
    lines = ["| " + " | ".join(HEADINGS) + " |", "|" + "|".join("---" for _ in HEADINGS) + "|"]
    lines += ["| " + " | ".join(_cells(row)) + " |" for row in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, one round: a smoke check")
    parser.add_argument(
        "--only", nargs="+", metavar="NAME",
        help="these benchmarks (bench_coref or coref); with --from-json, the rows they gave",
    )  # fmt: skip
    parser.add_argument(
        "--rounds", type=int, help="interleaved rounds of each comparison (default 5; quick 1)"
    )
    parser.add_argument("--json", help="also write the run (rows, machine, date) here as JSON")
    parser.add_argument("--markdown", help="also write the table here (Markdown, for the README)")
    parser.add_argument(
        "--from-json", nargs="+", metavar="JSON",
        help="print the table of each run saved with --json, one after the other; run nothing",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.from_json:
        runs = [json.loads(Path(path).read_text()) for path in args.from_json]
        if args.only:  # the rows these benchmarks gave
            names = {name if name.startswith("bench_") else f"bench_{name}" for name in args.only}
            runs = [{**run, "rows": [r for r in run["rows"] if r.get("bench") in names]} for run in runs]
        _publish([run for run in runs if run["rows"]], args.markdown)
        return 0
    names = discover()
    if args.only:
        wanted = {name if name.startswith("bench_") else f"bench_{name}" for name in args.only}
        unknown = wanted - set(names)
        if unknown:
            parser.error(f"no such benchmark: {', '.join(sorted(unknown))} (have {', '.join(names)})")
        names = [name for name in names if name in wanted]
    rounds = args.rounds or (1 if args.quick else 5)
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    started = time.perf_counter()
    rows, failed = run_all(names, args.quick, rounds)
    run = {
        "date": date,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}",
        "python": platform.python_version(),
        "quick": args.quick,
        "rounds": rounds,
        "rows": [dataclasses.asdict(row) for row in rows],
    }
    _publish([run], args.markdown)
    print(
        f"\n{len(names)} benchmark(s) in {time.perf_counter() - started:.1f} s"
        f"{' (quick: a smoke check, not a measurement)' if args.quick else ''}"
        f"{'; FAILED: ' + ', '.join(failed) if failed else ''}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(run, indent=2) + "\n")
    return 1 if failed else 0


def _publish(runs: list[dict[str, Any]], path: str | None) -> None:
    """Print the table of the runs (and write it to ``path``) under a line naming them: runs on the same
    machine and Python, one after the other, share one table (each row says its rounds and load)."""
    texts = []
    for run in runs:
        kind = "quick smoke check" if run["quick"] else f"{run['rounds']} interleaved rounds"
        benches = (row["bench"].removeprefix("bench_") for row in run["rows"] if row.get("bench"))
        names = ", ".join(dict.fromkeys(benches))
        said = f"{run['date']} ({names}: {kind})" if names else f"{run['date']} ({kind})"
        platform_ = f"{run['machine']}, Python {run['python']}"
        if texts and texts[-1][0] == platform_:
            texts[-1][1].append(said)
            texts[-1][2].extend(run["rows"])
        else:
            texts.append((platform_, [said], list(run["rows"])))
    text = "\n".join(
        f"Run{'s' if len(said) > 1 else ''} of {'; '.join(said)}: {platform_}.\n\n{markdown(rows)}\n"
        for platform_, said, rows in texts
    )
    if path:
        Path(path).write_text(text)
    print(text)


def _cells(row: dict[str, Any]) -> list[str]:
    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.3g}" if value < 100 else f"{value:,.0f}"

    def mib(value: float | None) -> str:
        return "-" if value is None else f"{value:,.0f}"

    ratio = "-"
    if row["ratio"] is not None:
        ratio = f"{row['ratio']:.3g}x ({row['ratio_min']:.3g}-{row['ratio_max']:.3g})"
    met = {True: "yes", False: "**no**", None: "-"}[row["met"]]
    load = "-"
    if row["load_before"]:
        load = f"{row['load_before'].split()[0]} → {row['load_after'].split()[0]}"
    return [row["work"], row["peer"] or "-", seconds(row["iescore_s"]), seconds(row["peer_s"]), ratio,
            row["ratio_is"] or "-", row["target"] or "-", met,
            f"{mib(row['iescore_mib'])} / {mib(row['peer_mib'])}", str(row["runs"] or "-"), load,
            row["note"] or ""]  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
