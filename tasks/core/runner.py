"""Running a graph with Luigi and saying what happened: what ran, what was reused, what failed.

Failures of bad input come back as clean ``file:line: message`` lines (see ``Stage.on_failure``);
anything else is an internal error with its traceback.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources

import luigi
import luigi.configuration
import luigi.interface
from luigi.execution_summary import _summary_dict

from tasks.core import progress as progress_events
from tasks.core.base import INPUT_ERROR_PREFIX, Stage

_configured = False
WAIT_FOR_OTHERS = 0.5  # seconds between asking luigid again while another client finishes our roots


@dataclass
class Outcome:
    """What a run did. ``ran`` and ``reused`` hold task ids; ``errors`` one message per failed task."""

    ok: bool
    ran: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    elsewhere: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    input_errors: list[str] = field(default_factory=list)


def configure() -> None:
    """Load the project's luigi.cfg under whatever the user configured (theirs wins)."""
    global _configured
    if _configured:
        return
    config = luigi.configuration.get_config()
    parser = type(config)
    defaults = str(resources.files("tasks").joinpath("luigi.cfg"))
    # Luigi reads its config paths in order, later ones winning: ours go first.
    parser._config_paths = [defaults] + [p for p in parser._config_paths if p != defaults]
    config.reload()
    _configured = True


def run(
    tasks: Iterable[Stage],
    workers: int = 1,
    scheduler_host: str | None = None,
    scheduler_port: int | None = None,
    progress: progress_events.Progress | None = None,
    pending: list[Stage] | None = None,
    chain: bool | None = None,
) -> Outcome:
    """Build ``tasks`` (local scheduler unless a host is given) and report the outcome.

    With a central scheduler, a task another client is running is waited for (the worker stays
    alive), so every client ends with the whole graph built, each task having run exactly once.
    ``pending``: the tasks the run will do, dependencies first, when the caller has found them already
    (``tasks.core.plan.pending_tasks``); else they are looked for here when it matters. ``chain``:
    whether they are one chain (``one_chain``), when the caller has found that out already.
    """
    configure()
    level = luigi.configuration.get_config().get("core", "log_level", "CRITICAL")
    params: dict = {"workers": workers, "detailed_summary": True, "log_level": level}
    if scheduler_host:
        params.update(scheduler_host=scheduler_host, scheduler_port=scheduler_port or 8082)
        luigi.configuration.get_config().set("worker", "keep_alive", "true")
    else:
        params["local_scheduler"] = True
        luigi.configuration.get_config().set("worker", "keep_alive", "false")
    roots = list(tasks)
    if workers > 1 and not scheduler_host and (one_chain(roots, pending) if chain is None else chain):
        # No two of the pending tasks can run at once: in this process, without a fork per task.
        params["workers"] = 1
    if params["workers"] > 1:
        # Luigi forks a process per task: pandas (imported where first used, ``pipeline.core.lazy``) is
        # imported here once, not by every task's process.
        import pandas  # noqa: F401
    ran: set[str] = set()
    elsewhere: set[str] = set()
    reused: set[str] | None = None
    progress_events.activate(progress)
    # With several workers Luigi forks a process per task. Objects alive now (modules, the graph) are moved
    # out of the collector's sight: a collection in a worker would otherwise visit, and so copy, every page
    # of the parent's heap it shares (time and memory per task; Python's gc.freeze documentation).
    gc.freeze()
    try:
        while True:
            result = luigi.interface.build(roots, **params)
            summary = _summary_dict(result.worker)
            ran |= {task.task_id for task in summary["completed"]}
            elsewhere |= {task.task_id for task in summary["run_by_other_worker"]}
            if reused is None:
                reused = {task.task_id for task in summary["already_done"]}
            failed = summary["failed"] or summary["scheduling_error"] or not result.scheduling_succeeded
            # A worker leaves when nothing is left for it to run, even while another client still
            # runs the last tasks: wait for those, asking the scheduler again, until the roots exist.
            if failed or not scheduler_host or all(task.complete() for task in roots):
                break
            time.sleep(WAIT_FOR_OTHERS)
    finally:
        gc.unfreeze()
        progress_events.activate(None)
        if progress is not None:
            progress.close()
    outcome = Outcome(ok=not failed and all(task.complete() for task in roots))
    outcome.ran = sorted(ran)
    outcome.reused = sorted(reused or set())
    outcome.elsewhere = sorted(elsewhere - ran)
    scheduler = result.worker._scheduler
    for task in sorted(summary["failed"] | summary["scheduling_error"], key=lambda t: t.task_id):
        error = _explanation(scheduler.fetch_error(task.task_id).get("error")) or f"{task.task_id} failed"
        if error.startswith(INPUT_ERROR_PREFIX):
            outcome.input_errors.append(error[len(INPUT_ERROR_PREFIX) :])
        else:
            outcome.errors.append(error)
    if not outcome.ok and not outcome.errors and not outcome.input_errors:
        outcome.errors.append(result.summary_text)
    return outcome


#: A graph with more pending tasks than this is not taken for one chain without looking further.
CHAIN_LIMIT = 32


def one_chain(roots: list[Stage], pending: list[Stage] | None = None) -> bool:
    """True when the tasks Luigi would run under ``roots`` (the incomplete ones, reached through incomplete
    tasks, as Luigi reaches them) are one chain: each needs the one before it. Such a run gains nothing
    from several workers, and each task forked costs about 0.1 s of start-up (a one-system rerun of a
    campaign: the system's six stages and the summary). Past ``CHAIN_LIMIT`` pending tasks it says no
    without checking further: those runs are long enough, and a walk of an S3 store costs a request per
    task. ``pending``, when given, are those tasks, dependencies first (no walk)."""
    if pending is not None:
        return len(pending) <= CHAIN_LIMIT and _chained(pending)
    found: dict[str, Stage] = {}
    done: set[str] = set()
    order: list[Stage] = []  # dependencies first
    stack: list[tuple[Stage, bool]] = [(task, False) for task in reversed(roots)]
    while stack:
        task, expanded = stack.pop()
        if expanded:
            order.append(task)
        elif task.task_id in found or task.task_id in done:
            continue
        elif task.complete():
            done.add(task.task_id)
        else:
            found[task.task_id] = task
            if len(found) > CHAIN_LIMIT:
                return False
            stack.append((task, True))
            stack.extend((sub, False) for sub in reversed(list(task.requires().values())))
    return _chained(order)


def _chained(order: list[Stage]) -> bool:
    """Each task of ``order`` (dependencies first) needs the one before it."""
    return all(
        any(sub.task_id == before.task_id for sub in task.requires().values())
        for before, task in zip(order, order[1:], strict=False)
    )


def _explanation(raw: str | None) -> str:
    # The worker sends a task's failure explanation JSON-encoded.
    if not raw:
        return ""
    try:
        decoded = json.loads(raw)
    except ValueError:
        return raw
    return decoded if isinstance(decoded, str) else raw
