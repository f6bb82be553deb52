"""Running a graph with Luigi and saying what happened: what ran, what was reused, what failed.

What happened to each task comes from Luigi's events on ``StageTask``. A task found complete when Luigi
schedules it was reused. Each task of the graph (the roots, then each dependency as Luigi finds it)
gets a flag in shared memory, made in this process while Luigi schedules, before it forks any worker;
the task's success or failure sets it where the task runs, in this process or in the process Luigi
forks for it; a forked task process ends when this process is killed (``tasks.core.orphans``). A
failure's explanation is what the task told Luigi's scheduler (``StageTask.on_failure``), asked of the
scheduler afterwards: bad input comes back as clean ``file:line: message`` lines; anything else is an
internal error with its traceback. A group of stage tasks (``StageGroup``) is one Luigi task; what ran
or was reused is told of its members, each by its own id.
"""

from __future__ import annotations

import configparser
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from multiprocessing.sharedctypes import RawValue
from typing import Any

import luigi
import luigi.configuration
import luigi.rpc
import luigi.scheduler
import luigi.worker
from iescore.tasks.core import progress as progress_events
from iescore.tasks.core.base import INPUT_ERROR_PREFIX
from iescore.tasks.core.orphans import ParentWatch
from iescore.tasks.core.store import is_s3
from iescore.tasks.core.task import STAGE_BUILT, STAGE_FOUND, StageGroup, StageTask
from luigi.execution_summary import LuigiStatusCode

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
    defaults.read_string(resources.files("iescore.tasks").joinpath("luigi.cfg").read_text())
    for section in defaults.sections():
        if not config.has_section(section):
            config.add_section(section)
        for option, value in defaults.items(section):
            if not config.has_option(section, option):
                config.set(section, option, value)
    _configured = True


def run(
    tasks: Iterable[StageTask],
    workers: int = 1,
    scheduler_host: str | None = None,
    scheduler_port: int | None = None,
    progress: progress_events.Progress | None = None,
    pending: list[StageTask] | None = None,
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
    global _events, _watch
    events = _events = _Events(roots)
    # A forked task process ends when this process is killed (``tasks.core.orphans``).
    _watch = ParentWatch() if forks else None
    factory = _Factory()
    progress_events.activate(progress)
    try:
        reused: set[str] | None = None
        while True:
            events.reused = set()
            result = luigi.build(roots, worker_scheduler_factory=factory, **params)
            if reused is None:
                reused = events.reused
            failed = result.status in FAILED_STATUSES or not result.scheduling_succeeded or events.failed()
            if failed or not scheduler_host:
                break
            # A worker leaves when nothing is left for it to run, even while another client still runs
            # the last tasks: wait while the scheduler shows them running, then build again (nothing
            # left to do once the roots exist; a task of a worker that died is pending again and runs
            # here). Building again at once would check the roots' dependencies while another client
            # finishes the roots, and could then claim a finished root pending: it would run twice.
            disabled = _wait_for_others(factory.scheduler, events, roots)
            for task_id in disabled:  # why it failed, as the client that ran it last told luigid
                error = _explanation(factory.scheduler.fetch_error(task_id).get("error"))
                events.explanations[task_id] = error or (
                    f"{task_id}: the central scheduler disabled it after repeated failures (its "
                    "[scheduler] retry_count)"
                )
            if disabled or all(task.complete() for task in roots):
                failed = bool(disabled)
                break
    finally:
        _events = None
        if _watch is not None:
            _watch.close()
            _watch = None
        progress_events.activate(None)
        if progress is not None:
            progress.close()
    ran = events.ended(SUCCEEDED)
    outcome = Outcome(ok=not failed and all(task.complete() for task in roots))
    outcome.ran = sorted(ran)
    outcome.reused = sorted((reused or set()) | events.ended(FOUND))
    if scheduler_host:  # not done when this client looked, done now, not by this client: by another
        graph = events.graph()
        others = graph.keys() - (reused or set()) - ran
        outcome.elsewhere = sorted(task_id for task_id in others if graph[task_id].complete())
    explanations = dict(events.explanations)
    for task_id in events.ended(FAILED) | events.groups_ended(FAILED):
        error = _explanation(factory.scheduler.fetch_error(task_id).get("error"))
        explanations.setdefault(task_id, error or f"{task_id} failed")
    for _, explanation in sorted(explanations.items()):
        if explanation.startswith(INPUT_ERROR_PREFIX):
            outcome.input_errors.append(explanation[len(INPUT_ERROR_PREFIX) :])
        else:
            outcome.errors.append(explanation)
    if not outcome.ok and not outcome.errors and not outcome.input_errors:
        outcome.errors.append(result.summary_text)
    return outcome


def _wait_for_others(scheduler: Any, events: _Events, roots: list[StageTask]) -> list[str]:
    """Wait until the roots exist or no task of the graph runs anywhere (luigid's task list); return the
    ids of the graph's tasks the central scheduler has disabled (they do not run, however long one
    waits)."""
    while not all(task.complete() for task in roots):
        ours = events.tasks.keys() | events.groups.keys()
        running = scheduler.task_list(status="RUNNING", upstream_status="")
        if not running.keys() & ours:
            disabled = scheduler.task_list(status="DISABLED", upstream_status="")
            return sorted(disabled.keys() & ours)
        time.sleep(WAIT_FOR_OTHERS)
    return []


#: A graph with more pending tasks than this is not taken for one chain without looking further.
CHAIN_LIMIT = 32


def one_chain(roots: list[StageTask], pending: list[StageTask] | None = None) -> bool:
    """True when the tasks Luigi would run under ``roots`` (the incomplete ones, reached through incomplete
    tasks, as Luigi reaches them) are one chain: each needs the one before it. Such a run gains nothing
    from several workers, and each task forked costs about 0.1 s of start-up (a one-system rerun of a
    campaign: the system's six stages and the summary). Past ``CHAIN_LIMIT`` pending tasks it says no
    without checking further: those runs are long enough, and a walk of an S3 store costs a request per
    task. ``pending``, when given, are those tasks, dependencies first (no walk)."""
    if pending is not None:
        return len(pending) <= CHAIN_LIMIT and _chained(pending)
    found: dict[str, StageTask] = {}
    done: set[str] = set()
    order: list[StageTask] = []  # dependencies first
    stack: list[tuple[StageTask, bool]] = [(task, False) for task in reversed(roots)]
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


def _chained(order: list[StageTask]) -> bool:
    """Each task of ``order`` (dependencies first) needs the one before it (as Luigi's dependency, or as
    a stage of a coarse task)."""
    return all(
        any(
            sub.task_id == before.task_id
            for sub in [*task.requires().values(), *task.stage_inputs().values()]
        )
        for before, task in zip(order, order[1:], strict=False)
    )


class _Factory:
    """What ``luigi.build`` makes its scheduler and worker with (its ``worker_scheduler_factory``):
    Luigi's own classes, as its default makes them, the scheduler kept to be asked for explanations."""

    scheduler: Any = None

    def create_local_scheduler(self) -> luigi.scheduler.Scheduler:
        self.scheduler = luigi.scheduler.Scheduler(prune_on_get_work=True, record_task_history=False)
        return self.scheduler

    def create_remote_scheduler(self, url: str) -> luigi.rpc.RemoteScheduler:
        self.scheduler = luigi.rpc.RemoteScheduler(url)
        return self.scheduler

    def create_worker(
        self, scheduler: Any, worker_processes: int, assistant: bool = False
    ) -> luigi.worker.Worker:
        return luigi.worker.Worker(
            scheduler=scheduler, worker_processes=worker_processes, assistant=assistant
        )


#: How a pending task ended, in its flag (FOUND: an inner stage of a coarse task, found built).
PENDING, SUCCEEDED, FAILED, FOUND = 0, 1, 2, 3


class _Events:
    """What Luigi's events said of the tasks of one run: the graph's tasks (the roots and every
    dependency Luigi found) and how each ended (``flags``, shared memory the process running it
    writes); the ids of those found complete when scheduled (``reused``); the explanations of failures
    seen in this process (a task that could not be scheduled, a worker process that died). A group of
    stage tasks (``StageGroup``) has a flag of its own (``groups``: it failed or not), and is never
    listed as run or reused: its members are."""

    def __init__(self, roots: list[StageTask]) -> None:
        self.reused: set[str] = set()
        self.tasks: dict[str, StageTask] = {}
        self.flags: dict[str, Any] = {}
        self.groups: dict[str, Any] = {}
        self.explanations: dict[str, str] = {}
        #: Coarse tasks of a local store found complete when discovered: their inner stages do not run.
        self.unexpanded: list[StageTask] = []
        for root in roots:
            self.add(root)

    def add(self, task: StageTask) -> None:
        """A task of the graph (a root, or a task's dependency), with its flag, and the stages it builds
        in its run (a coarse task's inner stages) with theirs. A coarse task of a local store already
        complete runs none of them, and gets none: making each inner stage's task costs far more than
        looking at the task's outputs (a campaign's rerun discovers every system's task, complete but
        one). An S3 store's tasks are not looked at twice (a request each). A group adds its members."""
        if isinstance(task, StageGroup):
            if task.task_id not in self.groups:
                self.groups[task.task_id] = RawValue("b", PENDING)
                for member in task.members:
                    self.add(member)
            return
        if task.task_id in self.flags:
            return
        inner: list[StageTask] = []
        if task.cut is not None:
            if not is_s3(task.store) and task.complete():
                self.unexpanded.append(task)
            else:
                inner = task.inner_stages()
        for each in [task, *inner]:
            self.tasks[each.task_id] = each
            self.flags[each.task_id] = RawValue("b", PENDING)

    def graph(self) -> dict[str, StageTask]:
        """Every task of the graph by id, the inner stages of the unexpanded tasks too."""
        every = dict(self.tasks)
        for task in self.unexpanded:
            every.update((each.task_id, each) for each in task.inner_stages())
        return every

    def ended(self, how: int) -> set[str]:
        return {task_id for task_id, flag in self.flags.items() if flag.value == how}

    def groups_ended(self, how: int) -> set[str]:
        return {task_id for task_id, flag in self.groups.items() if flag.value == how}

    def failed(self) -> bool:
        flags = [*self.flags.values(), *self.groups.values()]
        return bool(self.explanations) or any(flag.value == FAILED for flag in flags)


_events: _Events | None = None
_watch: ParentWatch | None = None


@StageGroup.event_handler(luigi.Event.START)
@StageTask.event_handler(luigi.Event.START)
def _on_start(task: StageTask | StageGroup) -> None:
    # In the process Luigi forked for the task (nothing in this one).
    if _watch is not None:
        _watch.watch()


@StageGroup.event_handler(luigi.Event.DEPENDENCY_PRESENT)
@StageTask.event_handler(luigi.Event.DEPENDENCY_PRESENT)
def _on_present(task: StageTask | StageGroup) -> None:
    if _events is not None:
        members = task.members if isinstance(task, StageGroup) else (task,)
        _events.reused.update(member.task_id for member in members)


@StageGroup.event_handler(luigi.Event.DEPENDENCY_DISCOVERED)
@StageTask.event_handler(luigi.Event.DEPENDENCY_DISCOVERED)
def _on_discovered(task: StageTask | StageGroup, dependency: StageTask | StageGroup) -> None:
    # Luigi schedules every task before it forks a worker: the flag is there for the task's process.
    if _events is not None:
        _events.add(dependency)


@StageTask.event_handler(luigi.Event.SUCCESS)
def _on_success(task: StageTask) -> None:
    if _events is not None and task.task_id in _events.flags:
        _events.flags[task.task_id].value = SUCCEEDED


@StageTask.event_handler(STAGE_BUILT)
def _on_stage_built(task: StageTask, seconds: float, cpu_seconds: float) -> None:
    # An inner stage of a coarse task (``tasks.core.task``), built where the task runs.
    if _events is not None and task.task_id in _events.flags:
        _events.flags[task.task_id].value = SUCCEEDED


@StageTask.event_handler(STAGE_FOUND)
def _on_stage_found(task: StageTask) -> None:
    if _events is not None and task.task_id in _events.flags:
        _events.flags[task.task_id].value = FOUND


@StageGroup.event_handler(luigi.Event.FAILURE)
@StageTask.event_handler(luigi.Event.FAILURE)
def _on_failure(task: StageTask | StageGroup, exception: BaseException) -> None:
    if _events is not None:
        flags = _events.groups if isinstance(task, StageGroup) else _events.flags
        if task.task_id in flags:
            flags[task.task_id].value = FAILED


@StageGroup.event_handler(luigi.Event.BROKEN_TASK)
@StageTask.event_handler(luigi.Event.BROKEN_TASK)
def _on_broken(task: StageTask | StageGroup, exception: BaseException) -> None:
    # Its requirements could not be found (in this process, while Luigi schedules).
    if _events is not None:
        _events.explanations[task.task_id] = task.on_failure(exception)


@StageGroup.event_handler(luigi.Event.PROCESS_FAILURE)
@StageGroup.event_handler(luigi.Event.TIMEOUT)
@StageTask.event_handler(luigi.Event.PROCESS_FAILURE)
@StageTask.event_handler(luigi.Event.TIMEOUT)
def _on_lost(task: StageTask | StageGroup, message: str) -> None:
    # The task's process died or was stopped (Luigi says so in this process).
    if _events is not None:
        _events.explanations[task.task_id] = f"{task.task_id}: {message}"


def _explanation(raw: str | None) -> str:
    # The worker sends a task's failure explanation JSON-encoded.
    if not raw:
        return ""
    try:
        decoded = json.loads(raw)
    except ValueError:
        return raw
    return decoded if isinstance(decoded, str) else raw
