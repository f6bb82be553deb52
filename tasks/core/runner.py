"""Running a graph with Luigi and saying what happened: what ran, what was reused, what failed.

What happened to each task comes from Luigi's events on ``Stage``: a task found complete when Luigi
schedules it was reused, one found incomplete was pending (both in this process); a task's success or
failure is recorded where it runs, in this process or, with several workers, in the process Luigi forks
for it (a list shared through a ``multiprocessing`` manager). Failures of bad input come back as clean
``file:line: message`` lines (see ``Stage.on_failure``); anything else is an internal error with its
traceback.
"""

from __future__ import annotations

import configparser
import gc
import multiprocessing
import time
from collections.abc import Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import luigi
import luigi.configuration
from luigi.execution_summary import LuigiStatusCode

from tasks.core import progress as progress_events
from tasks.core.base import INPUT_ERROR_PREFIX, Stage

_configured = False
WAIT_FOR_OTHERS = 0.5  # seconds between asking luigid again while another client finishes our roots
#: What Luigi says of a run in which a task failed or could not be scheduled.
FAILED_STATUSES = (
    LuigiStatusCode.FAILED,
    LuigiStatusCode.FAILED_AND_SCHEDULING_FAILED,
    LuigiStatusCode.SCHEDULING_FAILED,
)


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
    """Put the project's luigi.cfg under whatever the user configured: an option set in the user's own
    files (``/etc/luigi/luigi.cfg``, ``./luigi.cfg``, ``LUIGI_CONFIG_PATH``) keeps their value, every other
    option of ours is added. Luigi reads only those files, so iescore behaves the same from any directory."""
    global _configured
    if _configured:
        return
    config = luigi.configuration.get_config()
    defaults = configparser.ConfigParser(interpolation=None)
    defaults.read_string(resources.files("tasks").joinpath("luigi.cfg").read_text())
    for section in defaults.sections():
        if not config.has_section(section):
            config.add_section(section)
        for option, value in defaults.items(section):
            if not config.has_option(section, option):
                config.set(section, option, value)
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
    params: dict[str, Any] = {"workers": workers, "detailed_summary": True, "log_level": level}
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
    forks = params["workers"] > 1
    if forks:
        # Luigi forks a process per task: pandas (imported where first used, ``pipeline.core.lazy``) is
        # imported here once, not by every task's process.
        import pandas  # noqa: F401
    global _events
    progress_events.activate(progress)
    with ExitStack() as stack:
        # A task run in a forked process records its end in a list that process can reach.
        finished = stack.enter_context(multiprocessing.Manager()).list() if forks else []
        _events = _Events(finished)
        # With several workers Luigi forks a process per task. Objects alive now (modules, the graph) are
        # moved out of the collector's sight: a collection in a worker would otherwise visit, and so copy,
        # every page of the parent's heap it shares (time and memory per task; gc.freeze's documentation).
        gc.freeze()
        try:
            first: tuple[set[str], dict[str, Stage]] | None = None
            while True:
                _events.reused, _events.pending = set(), {}
                result = luigi.build(roots, **params)
                if first is None:
                    first = _events.reused, _events.pending
                ends = finished[:]  # one copy (from the manager: one request)
                failed = result.status in FAILED_STATUSES or not result.scheduling_succeeded
                failed = failed or any(explanation is not None for _, explanation in ends)
                # A worker leaves when nothing is left for it to run, even while another client still
                # runs the last tasks: wait for those, asking the scheduler again, until the roots exist.
                if failed or not scheduler_host or all(task.complete() for task in roots):
                    break
                time.sleep(WAIT_FOR_OTHERS)
        finally:
            gc.unfreeze()
            _events = None
            progress_events.activate(None)
            if progress is not None:
                progress.close()
    reused, pending_then = first or (set(), {})
    ran = {task_id for task_id, explanation in ends if explanation is None}
    outcome = Outcome(ok=not failed and all(task.complete() for task in roots))
    outcome.ran = sorted(ran)
    outcome.reused = sorted(reused)
    if scheduler_host:  # pending when this client looked, done now, not by this client: by another
        outcome.elsewhere = sorted(
            task_id for task_id, task in pending_then.items() if task_id not in ran and task.complete()
        )
    for _, explanation in sorted((end for end in ends if end[1] is not None), key=lambda end: end[0]):
        if explanation.startswith(INPUT_ERROR_PREFIX):
            outcome.input_errors.append(explanation[len(INPUT_ERROR_PREFIX) :])
        else:
            outcome.errors.append(explanation)
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


class _Events:
    """What Luigi's events said of the tasks of one run: those found complete when scheduled
    (``reused``), those found incomplete (``pending``), and each task's end where it ran
    (``finished``: its id and None for a success, or its failure's explanation)."""

    def __init__(self, finished: Any) -> None:
        self.reused: set[str] = set()
        self.pending: dict[str, Stage] = {}
        self.finished = finished


_events: _Events | None = None


@Stage.event_handler(luigi.Event.DEPENDENCY_PRESENT)
def _on_present(task: Stage) -> None:
    if _events is not None:
        _events.reused.add(task.task_id)


@Stage.event_handler(luigi.Event.DEPENDENCY_MISSING)
def _on_missing(task: Stage) -> None:
    if _events is not None:
        _events.pending[task.task_id] = task


@Stage.event_handler(luigi.Event.SUCCESS)
def _on_success(task: Stage) -> None:
    if _events is not None:
        _events.finished.append((task.task_id, None))


@Stage.event_handler(luigi.Event.FAILURE)
@Stage.event_handler(luigi.Event.BROKEN_TASK)
def _on_failure(task: Stage, exception: BaseException) -> None:
    # What Luigi sends its scheduler as the failure's explanation: bad input one clean line.
    if _events is not None:
        _events.finished.append((task.task_id, task.on_failure(exception)))


@Stage.event_handler(luigi.Event.PROCESS_FAILURE)
@Stage.event_handler(luigi.Event.TIMEOUT)
def _on_lost(task: Stage, message: str) -> None:
    # The task's process died or was stopped (Luigi says so in this process).
    if _events is not None:
        _events.finished.append((task.task_id, f"{task.task_id}: {message}"))
