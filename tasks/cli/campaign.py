"""``iescore campaign``: score every system of a campaign file in one Luigi graph, print the leaderboard,
write the outputs."""

from __future__ import annotations

import argparse
import sys

from iescore.pipeline.campaign.engine import read_campaign
from iescore.tasks.campaign.outputs import board_text, summary_tables
from iescore.tasks.campaign.run import (
    PROGRESS,
    CampaignRequest,
    campaign_graph,
    check_request,
    run_campaign,
)
from iescore.tasks.cli.common import EXIT_OK, SCHEDULER_PORT, WORKERS_HELP
from iescore.tasks.core.arguments import INPUT_FILE, check_paths, port_number, workers
from iescore.tasks.core.plan import pending_tasks


def campaign(args: argparse.Namespace) -> int:
    """Score every system of a campaign file in one graph (``tasks.campaign.run``, which the library's
    ``iescore.campaign.run`` calls too); print the leaderboard."""
    check_paths([("CAMPAIGN", args.campaign, INPUT_FILE)])
    request = CampaignRequest(
        store=args.store,
        workers=args.workers,
        scheduler_host=args.scheduler_host,
        scheduler_port=args.scheduler_port,
        out=args.out,
        html=args.html,
        json=args.json,
        csv=args.csv,
        progress=args.progress,
        tasks_log=args.tasks_log,
    )
    check_request(request)
    graph = campaign_graph(read_campaign(args.campaign), request)
    if args.dry_run:
        pending, total = pending_tasks(graph.roots, reference=graph.campaign.reference_files)
        sys.stdout.write(plan_text(pending, total))
        return EXIT_OK
    status, _ = run_campaign(graph)
    if status != EXIT_OK:
        return status
    board, significance, units = summary_tables(graph.summary)
    sys.stdout.write(board_text(graph.campaign.kind, board, significance, units))
    if graph.pages:
        pages = ", ".join(str(page) for page in graph.pages)
        print(f"iescore: the campaign's page: {pages}", file=sys.stderr)
    return EXIT_OK


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
        choices=PROGRESS,
        default="auto",
        help="progress on stderr: a bar on a terminal (auto), always a bar, one line a task, or none",
    )
    c.add_argument("--tasks-log", help="write which tasks ran, were reused or ran elsewhere (JSON)")
    c.set_defaults(handler=campaign)
