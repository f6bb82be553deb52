"""``iescore campaign``: score every system of a campaign file in one Luigi graph, print the leaderboard,
write the outputs."""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

from iescore.pipeline.campaign.engine import Campaign, read_campaign
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.text import printable
from iescore.tasks.campaign.graph import campaign_spec
from iescore.tasks.campaign.outputs import (
    board_text,
    campaign_output_paths,
    html_is_fresh,
    html_paths,
    html_recipe,
    json_text,
    summary_tables,
    write_campaign_outputs,
    write_leaderboard,
    write_pages,
)
from iescore.tasks.cli.common import (
    DEFAULT_STORE,
    EXIT_OK,
    SCHEDULER_PORT,
    WORKERS_HELP,
    run_outcome,
    warn_malformed_rules,
)
from iescore.tasks.core.arguments import (
    INPUT_DIRECTORY,
    INPUT_FILE,
    OUTPUT_DIRECTORY,
    OUTPUT_FILE,
    check_paths,
    check_scheduler,
    port_number,
    workers,
)
from iescore.tasks.core.base import task_for
from iescore.tasks.core.files import write_text
from iescore.tasks.core.plan import pending_tasks
from iescore.tasks.core.progress import Progress
from iescore.tasks.core.runner import one_chain
from iescore.tasks.core.store import check_store, is_s3, sweep_store


def campaign(args: argparse.Namespace) -> int:
    """Score every system of a campaign file in one graph; print the leaderboard, write the outputs."""
    check_paths([("CAMPAIGN", args.campaign, INPUT_FILE)])
    if args.scheduler_port is not None and not args.scheduler_host:
        raise InputError(
            "--scheduler-port", 0, "needs --scheduler-host (without a host the local scheduler runs)"
        )
    parsed = read_campaign(args.campaign)
    if parsed.options.get("glm"):
        warn_malformed_rules(str(parsed.options["glm"]), parsed.options["encoding"])
    store = str(args.store or parsed.store or (parsed.source.parent / DEFAULT_STORE))
    check_store(store, *(("--store", 0) if args.store else (str(parsed.source), parsed.store_line)))
    output = Path(args.out) if args.out else parsed.output
    # The page goes to --html and, with an output directory, to its report.html too.
    pages = [Path(args.html)] if args.html else []
    if output and not (pages and pages[0].resolve() == (output / "report.html").resolve()):
        pages.append(output / "report.html")
    _check_campaign_paths(args, parsed, store, output, pages)
    summary_spec, report_specs = campaign_spec(parsed)
    summary = task_for(summary_spec, store)
    reports = {name: task_for(spec, store) for name, spec in report_specs.items()}
    roots = {**{printable(name): task for name, task in reports.items()}, "campaign": summary}
    if args.dry_run:
        pending, total = pending_tasks(roots, reference=parsed.reference_files)
        sys.stdout.write(plan_text(pending, total))
        return EXIT_OK
    for path in sweep_store(store):
        print(f"iescore: removed a killed run's temporary file {path}", file=sys.stderr)
    if args.scheduler_host:
        check_scheduler(args.scheduler_host, args.scheduler_port or SCHEDULER_PORT)
    progress, pending = None, None
    if args.progress != "none" or args.tasks_log:
        pending, _ = pending_tasks(roots, False, parsed.reference_files, whole=False)
        labels = {p.task.task_id: p.label for p in pending}
        bar = None if args.progress == "auto" else args.progress == "bar"
        progress = Progress(len(pending), labels, bar=bar)
        if args.progress == "none" or (args.progress == "auto" and not progress.bar):
            progress.stream = io.StringIO()  # not shown (only timed for the tasks log)
    tasks = [item.task for item in pending] if pending is not None else None
    # One chain (a one-system rerun) runs in this process.
    chain = one_chain([summary], tasks) if args.workers > 1 and not args.scheduler_host else None
    status, outcome = run_outcome(
        [summary], args.workers, args.scheduler_host, args.scheduler_port, progress, tasks, chain
    )
    if args.tasks_log:
        log = {
            "ran": outcome.ran,
            "reused": outcome.reused,
            "elsewhere": outcome.elsewhere,
            # Seconds inside tasks' run (all workers of this process), and the run's wall time.
            "task_seconds": round(progress.task_seconds, 3) if progress else None,
            "task_cpu_seconds": round(progress.task_cpu_seconds, 3) if progress else None,
            "wall_seconds": round(time.monotonic() - progress.started, 3) if progress else None,
        }
        write_text(args.tasks_log, json_text(log))
    if status != EXIT_OK:
        return status
    kind = parsed.kind
    board, significance, units = summary_tables(summary)
    sys.stdout.write(board_text(kind, board, significance, units))
    write_leaderboard(kind, board, significance, args.json, args.csv)
    if output:
        write_campaign_outputs(output, parsed, summary, reports, args.workers, pages)
    else:
        recipe = html_recipe(parsed, summary)
        stale = [page for page in pages if not html_is_fresh(page, recipe)]
        if stale:
            write_pages(stale, parsed, summary, reports)
    if pages:
        print(f"iescore: the campaign's page: {', '.join(str(page) for page in pages)}", file=sys.stderr)
    return EXIT_OK


def _check_campaign_paths(
    args: argparse.Namespace, parsed: Campaign, store: str, output: Path | None, pages: list[Path]
) -> None:
    """Every path the campaign reads or writes, checked before the graph is built."""
    in_file = f"in {parsed.source.name}"
    store_option = (
        "--store"
        if args.store
        else (f"store {in_file}:{parsed.store_line}" if parsed.store else "default store")
    )
    output_option = "--out" if args.out else f"output {in_file}:{parsed.output_line}"
    checks = [
        (store_option, None if is_s3(store) else Path(store), OUTPUT_DIRECTORY),
        ("--json", args.json, OUTPUT_FILE),
        ("--csv", args.csv, OUTPUT_FILE),
        ("--tasks-log", args.tasks_log, OUTPUT_FILE),
    ]
    checks += [
        (f"{key} {in_file}", path, INPUT_DIRECTORY if path.is_dir() else INPUT_FILE)
        for key, path in parsed.input_paths
    ]
    if output is not None:
        checks += [(output_option, path, kind) for path, kind in campaign_output_paths(output, parsed)]
    for page in pages:
        option = "--html" if args.html and page == Path(args.html) else output_option
        checks += [(option, path, OUTPUT_FILE) for path in html_paths(page)]
    check_paths(checks)


def plan_text(pending: list, total: int) -> str:
    """``--dry-run``: the tasks that would run, dependencies first, each with its reason."""
    lines = [f"would run {len(pending)} of {total} tasks"]
    for item in pending:
        lines.append(f"  {item.stage:<20} {item.task.key[:12]}  {item.label}: {item.reason}")
    return "\n".join(lines) + "\n"


def add_campaign_command(commands: argparse._SubParsersAction) -> None:
    c = commands.add_parser("campaign", help="score every system of a campaign file")
    c.add_argument("campaign", help="campaign file (TOML)")
    c.add_argument(
        "--store",
        help="artifact store, a directory or s3://BUCKET/PREFIX (default: the file's 'store', else "
        "iescore-store beside it)",
    )
    c.add_argument("--workers", type=workers, default=1, help=WORKERS_HELP)
    c.add_argument("--scheduler-host", help="Luigi central scheduler host (default: local scheduler)")
    c.add_argument(
        "--scheduler-port",
        type=port_number,
        help=f"Luigi central scheduler port, with --scheduler-host (default: {SCHEDULER_PORT})",
    )
    c.add_argument("--json", help="write the leaderboard and significance tests as JSON here")
    c.add_argument("--csv", help="write the leaderboard as CSV here")
    c.add_argument(
        "--out", help="write every output here (default: the file's 'output'): tables, report, HTML"
    )
    c.add_argument(
        "--html", help="write the self-contained HTML report here (with --out, also as report.html there)"
    )
    c.add_argument("--dry-run", action="store_true", help="list what would run and why; run nothing")
    c.add_argument(
        "--progress",
        choices=("auto", "bar", "lines", "none"),
        default="auto",
        help="progress on stderr: a bar on a terminal (auto), always a bar, one line a task, or none",
    )
    c.add_argument("--tasks-log", help="write which tasks ran, were reused or ran elsewhere (JSON)")
    c.set_defaults(handler=campaign)
