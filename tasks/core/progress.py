"""Progress of a run on the terminal: tasks done of those pending, and the stage running.

Luigi runs a task in a forked process when there are several workers, so the count lives in shared
memory created before the run (children inherit it) and the handlers are Luigi events on ``StageTask``.
The same events time each task, which is how the benchmark tells task time from scheduling time.
A run that created its artifact store says so once (``new_stores``, ``announce_stores``).
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

import luigi
from iescore.pipeline.core.errors import InputError
from iescore.tasks.core.task import STAGE_BUILT, StageGroup, StageTask

BAR_WIDTH = 24


class Progress:
    """Counts finished tasks of ``total`` and writes a bar (a terminal) or one line a task (a file)."""

    def __init__(
        self, total: int, labels: Mapping[str, str], stream: TextIO | None = None, bar: bool | None = None
    ) -> None:
        self.total = total
        self.labels = dict(labels)
        self.stream = stream if stream is not None else sys.stderr
        self.bar = self.stream.isatty() if bar is None else bar
        self._done = multiprocessing.Value("i", 0)
        self._busy = multiprocessing.Value("d", 0.0)
        self._cpu = multiprocessing.Value("d", 0.0)
        self.started = time.monotonic()

    @property
    def done(self) -> int:
        return self._done.value

    @property
    def task_seconds(self) -> float:
        """Seconds spent inside tasks' ``run`` (all workers added up)."""
        return self._busy.value

    @property
    def task_cpu_seconds(self) -> float:
        """CPU seconds (user and system) spent inside tasks' ``run`` (all workers added up)."""
        return self._cpu.value

    def starting(self, task: StageTask) -> None:
        if self.bar:
            self._write(self._bar_line(self.done, f"{task.STAGE} {self._label(task)}"))

    def finished(self, task: StageTask, seconds: float, cpu_seconds: float = 0.0, timed: bool = True) -> None:
        """One more task done (``timed``: its seconds are added up; not for a coarse task's inner stage,
        whose seconds its task's include)."""
        with self._done.get_lock():
            self._done.value += 1
            done = self._done.value
        if timed:
            with self._busy.get_lock():
                self._busy.value += seconds
            with self._cpu.get_lock():
                self._cpu.value += cpu_seconds
        text = f"{task.STAGE} {self._label(task)} done ({seconds:.2f} s)"
        self._write(self._bar_line(done, text) if self.bar else f"iescore: [{done}/{self.total}] {text}\n")

    def timed(self, seconds: float, cpu_seconds: float) -> None:
        """A group's seconds added up (its members are counted as they finish, untimed)."""
        with self._busy.get_lock():
            self._busy.value += seconds
        with self._cpu.get_lock():
            self._cpu.value += cpu_seconds

    def close(self) -> None:
        if self.bar:
            self._write(self._bar_line(self.done, "finished") + "\n")

    def _label(self, task: StageTask) -> str:
        label = self.labels.get(task.task_id)
        return f"{task.key[:12]} [{label}]" if label else task.key[:12]

    def _bar_line(self, done: int, text: str) -> str:
        filled = BAR_WIDTH * done // self.total if self.total else BAR_WIDTH
        percent = 100 * done // self.total if self.total else 100
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        return f"\r[{bar}] {done}/{self.total} {percent:3d}% {text[:60]:60}"

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken terminal never fails the run
            pass


def new_stores(tasks: Iterable[StageTask]) -> list[Path]:
    """The artifact stores of ``tasks`` that do not exist yet (the run will create them); a store
    path that is not a directory is bad input."""
    missing = []
    # An object store (s3://...) has no directory to create: its check is ``tasks.core.store.check_store``.
    for store in dict.fromkeys(Path(task.store) for task in tasks if "://" not in str(task.store)):
        if store.exists() and not store.is_dir():
            raise InputError(str(store), 0, "the artifact store is not a directory")
        if not store.exists():
            missing.append(store)
    return missing


def announce_stores(stores: Iterable[Path], stream: TextIO | None = None) -> None:
    """Say once on stderr which of ``stores`` (from ``new_stores``) the run created: a mistyped
    ``--store`` must not fill a new directory silently."""
    out = stream if stream is not None else sys.stderr
    for store in stores:
        if store.is_dir():
            print(f"iescore: created artifact store {store}", file=out)


_active: Progress | None = None


def activate(progress: Progress | None) -> None:
    """Make ``progress`` receive the events of the tasks run from now on (None: stop)."""
    global _active
    _active = progress


@StageTask.event_handler(luigi.Event.START)
def _on_start(task: Any) -> None:
    if _active is not None and isinstance(task, StageTask):
        _active.starting(task)


@StageTask.event_handler(STAGE_BUILT)
def _on_stage_built(task: Any, seconds: float, cpu_seconds: float) -> None:
    # An inner stage of a coarse task: counted as a task of its own (its seconds are its task's too).
    if _active is not None and isinstance(task, StageTask):
        _active.finished(task, seconds, cpu_seconds, timed=False)


@StageGroup.event_handler(luigi.Event.PROCESSING_TIME)
@StageTask.event_handler(luigi.Event.PROCESSING_TIME)
def _on_done(task: Any, seconds: float) -> None:
    if _active is not None and isinstance(task, StageTask):
        _active.finished(task, seconds, task.__dict__.get("cpu_seconds", 0.0))
    elif _active is not None and isinstance(task, StageGroup):
        _active.timed(seconds, task.__dict__.get("cpu_seconds", 0.0))
