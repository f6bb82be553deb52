"""Running a campaign: what ``iescore campaign`` and ``iescore.campaign.run`` both do.

``campaign_graph`` checks where the campaign reads and writes and builds its tasks (nothing runs);
``run_campaign`` runs them with Luigi into the store and writes the outputs asked for (the leaderboard's
JSON and CSV, the output directory, the page). The command parses its arguments and prints the board;
the library reads the same tables into a result: the numbers cannot differ.
"""

from __future__ import annotations

import io
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from iescore.pipeline.campaign.engine import Campaign
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.settings import WORKERS
from iescore.pipeline.core.text import printable
from iescore.tasks.campaign.graph import campaign_cut, campaign_groups, campaign_spec
from iescore.tasks.campaign.outputs import (
    campaign_output_paths,
    html_is_fresh,
    html_paths,
    html_recipe,
    json_significance_path,
    json_text,
    summary_tables,
    write_campaign_outputs,
    write_leaderboard,
    write_pages,
)
from iescore.tasks.cli.common import DEFAULT_STORE, EXIT_OK, SCHEDULER_PORT, run_outcome, warn_malformed_rules
from iescore.tasks.core.arguments import (
    INPUT_DIRECTORY,
    INPUT_FILE,
    OUTPUT_DIRECTORY,
    OUTPUT_FILE,
    check_paths,
    check_scheduler,
)
from iescore.tasks.core.base import Stage, task_for
from iescore.tasks.core.files import write_text
from iescore.tasks.core.plan import pending_tasks
from iescore.tasks.core.progress import Progress
from iescore.tasks.core.runner import Outcome, one_chain
from iescore.tasks.core.store import check_store, is_s3, sweep_store

#: How a run shows its progress on stderr: a bar on a terminal (auto), a bar, one line a task, or nothing.
PROGRESS = ("auto", "bar", "lines", "none")


@dataclass(frozen=True)
class CampaignRequest:
    """How to run a campaign, as ``iescore campaign``'s options say it (``None``: not given). ``store``
    defaults to the campaign's ``store``, else ``iescore-store`` beside its file; ``out`` to its
    ``output``."""

    store: str | None = None
    workers: int = 1
    scheduler_host: str | None = None
    scheduler_port: int | None = None
    out: str | Path | None = None
    html: str | Path | None = None
    json: str | Path | None = None
    csv: str | Path | None = None
    progress: str = "auto"
    tasks_log: str | Path | None = None


@dataclass(frozen=True)
class CampaignGraph:
    """A campaign's tasks, checked and ready to run: the summary, each system's task (``reports``: name ->
    the task its kind runs), the store, the output directory and the pages to write; ``luigi_root``, the
    summary's coarse task (``campaign_cut``, its systems grouped by ``campaign_groups``), is what Luigi
    runs."""

    campaign: Campaign
    request: CampaignRequest
    store: str
    output: Path | None
    pages: tuple[Path, ...]
    summary: Stage
    reports: dict[str, Stage]
    luigi_root: Stage

    @property
    def roots(self) -> dict[str, Stage]:
        """Each system's task by its printable name, and the summary (``"campaign"``)."""
        return {**{printable(name): task for name, task in self.reports.items()}, "campaign": self.summary}


def check_request(request: CampaignRequest) -> None:
    """The request's values, checked before the campaign is read (InputError naming the option). The
    command's parser has checked each already; the library's keywords are checked here."""
    problem = WORKERS.problem(request.workers)
    if problem:
        raise InputError("--workers", 0, f"{problem}, found {request.workers!r}")
    if request.progress not in PROGRESS:
        raise InputError(
            "--progress", 0, f"one of {', '.join(PROGRESS)} expected, found {request.progress!r}"
        )
    port = request.scheduler_port
    if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535):
        raise InputError("--scheduler-port", 0, f"a port number from 1 to 65535 expected, found {port!r}")
    if port is not None and not request.scheduler_host:
        raise InputError(
            "--scheduler-port", 0, "needs --scheduler-host (without a host the local scheduler runs)"
        )


def campaign_graph(campaign: Campaign, request: CampaignRequest) -> CampaignGraph:
    """The campaign's tasks in its store, after every path it reads or writes is checked (InputError
    naming the option or the campaign file's line otherwise). Callers check ``request`` first
    (``check_request``), before the campaign is read."""
    if campaign.options.get("glm"):
        warn_malformed_rules(str(campaign.options["glm"]), campaign.options["encoding"])
    store = str(request.store or campaign.store or (campaign.source.parent / DEFAULT_STORE))
    blamed = (
        ("--store", 0) if request.store else (campaign.origin or str(campaign.source), campaign.store_line)
    )
    check_store(store, *blamed)
    output = Path(request.out) if request.out else campaign.output
    # The page goes to --html and, with an output directory, to its report.html too.
    pages = [Path(request.html)] if request.html else []
    if output and not (pages and pages[0].resolve() == (output / "report.html").resolve()):
        pages.append(output / "report.html")
    _check_campaign_paths(request, campaign, store, output, pages)
    summary_spec, report_specs = campaign_spec(campaign)
    return CampaignGraph(
        campaign,
        request,
        store,
        output,
        tuple(pages),
        task_for(summary_spec, store),
        {name: task_for(spec, store) for name, spec in report_specs.items()},
        task_for(summary_spec, store, campaign_cut(report_specs), campaign_groups(report_specs)),
    )


def run_campaign(graph: CampaignGraph) -> tuple[int, Outcome]:
    """Run the campaign's tasks (those already in the store are reused) and write the outputs its request
    asks for; the exit status (bad input and internal errors are on stderr, and nothing is written) and
    what ran."""
    request, campaign, summary = graph.request, graph.campaign, graph.summary
    for path in sweep_store(graph.store):
        print(f"iescore: removed a killed run's temporary file {path}", file=sys.stderr)
    if request.scheduler_host:
        check_scheduler(request.scheduler_host, request.scheduler_port or SCHEDULER_PORT)
    progress, pending = None, None
    if request.progress != "none" or request.tasks_log:
        pending, _ = pending_tasks(graph.roots, False, campaign.reference_files, whole=False)
        labels = {p.task.task_id: p.label for p in pending}
        bar = None if request.progress == "auto" else request.progress == "bar"
        progress = Progress(len(pending), labels, bar=bar)
        if request.progress == "none" or (request.progress == "auto" and not progress.bar):
            progress.stream = io.StringIO()  # not shown (only timed for the tasks log)
    tasks = [item.task for item in pending] if pending is not None else None
    # One chain (a one-system rerun) runs in this process.
    chain = one_chain([summary], tasks) if request.workers > 1 and not request.scheduler_host else None
    status, outcome = run_outcome(
        [graph.luigi_root],
        request.workers,
        request.scheduler_host,
        request.scheduler_port,
        progress,
        tasks,
        chain,
    )
    if request.tasks_log:
        log = {
            "ran": outcome.ran,
            "reused": outcome.reused,
            "elsewhere": outcome.elsewhere,
            # Seconds inside tasks' run (all workers of this process), and the run's wall time.
            "task_seconds": round(progress.task_seconds, 3) if progress else None,
            "task_cpu_seconds": round(progress.task_cpu_seconds, 3) if progress else None,
            "wall_seconds": round(time.monotonic() - progress.started, 3) if progress else None,
        }
        write_text(request.tasks_log, json_text(log))
    if status != EXIT_OK:
        return status, outcome
    if request.json or request.csv:
        board, significance, _ = summary_tables(summary)
        write_leaderboard(campaign.kind, board, significance, request.json, request.csv)
    pages = list(graph.pages)
    if graph.output:
        write_campaign_outputs(graph.output, campaign, summary, graph.reports, request.workers, pages)
    else:
        recipe = html_recipe(campaign, summary)
        stale = [page for page in pages if not html_is_fresh(page, recipe)]
        if stale:
            write_pages(stale, campaign, summary, graph.reports)
    return EXIT_OK, outcome


def _check_campaign_paths(
    request: CampaignRequest, parsed: Campaign, store: str, output: Path | None, pages: list[Path]
) -> None:
    """Every path the campaign reads or writes, checked before the graph is built."""
    in_file = f"in {parsed.source.name}"
    store_option = (
        "--store"
        if request.store
        else (f"store {in_file}:{parsed.store_line}" if parsed.store else "default store")
    )
    output_option = "--out" if request.out else f"output {in_file}:{parsed.output_line}"
    checks = [
        (store_option, None if is_s3(store) else Path(store), OUTPUT_DIRECTORY),
        ("--json", request.json, OUTPUT_FILE),
        ("--json", json_significance_path(request.json) if request.json else None, OUTPUT_FILE),
        ("--csv", request.csv, OUTPUT_FILE),
        ("--tasks-log", request.tasks_log, OUTPUT_FILE),
    ]
    checks += [
        (f"{key} {in_file}", path, INPUT_DIRECTORY if path.is_dir() else INPUT_FILE)
        for key, path in parsed.input_paths
    ]
    if output is not None:
        checks += [(output_option, path, kind) for path, kind in campaign_output_paths(output, parsed)]
    for page in pages:
        option = "--html" if request.html and page == Path(request.html) else output_option
        checks += [(option, path, OUTPUT_FILE) for path in html_paths(page)]
    check_paths(checks)
