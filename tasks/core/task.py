"""A stage as a Luigi task: its inputs read from the store, its artifacts written there.

``task_for(spec, store)`` makes the task of a stage spec (``tasks.core.base``). The task's only
significant parameter is the stage's key, so the task id changes exactly when the content would. Its
``run`` makes the stage object with the inputs' artifacts read from the store and writes what
``produce`` returns: the same stage code ``tasks.core.compute`` runs in a command's own process.

A graph of thousands of stages is too many tasks for Luigi's scheduler, so a task can be coarse:
``task_for(spec, store, cut)`` makes a task whose Luigi dependencies (``requires``) are only the stages
whose keys are in ``cut`` (each a task of its own); every other stage it needs (``inner_stages``) is
built in its ``run``, one after the other in one process, each written to the store exactly as its
own task would write it (the same path, bytes and provenance), and skipped when already there. The
stage graph itself (``stage_inputs``) is the same either way. Each inner stage built or found built is
told by a Luigi event on the task (``STAGE_BUILT``, ``STAGE_FOUND``), for the run's outcome and its
progress.

Coarser still, a task given ``groups`` (tuples of keys of stages in its cut) requires each group as one
Luigi task (``StageGroup``) instead of a task per stage: the group's run builds each of its members as
the member's own task would (a member found built is skipped), so a campaign of a thousand systems is
some dozens of Luigi tasks, each a process of its own when Luigi runs several workers, and one changed
system still rebuilds that system's stages alone.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
import traceback
from collections.abc import Mapping
from typing import Any, ClassVar

import luigi
import pyarrow as pa
from iescore.pipeline.core.errors import InputError
from iescore.tasks.core import store as artifacts
from iescore.tasks.core.base import (
    INPUT_ERROR_PREFIX,
    FrozenSpec,
    Stage,
    freeze_spec,
    input_key,
    produce,
    provenance,
    spec_input_file,
    stage_class,
)


class SpecParameter(luigi.DictParameter):
    """Luigi's DictParameter for a spec, frozen with ``freeze_spec`` (each part frozen once)."""

    def normalize(self, x: Any) -> Any:
        return freeze_spec(x)

    def serialize(self, x: Any) -> str:
        return json.dumps(x, default=_unfrozen)


def _unfrozen(value: Any) -> Any:
    if isinstance(value, FrozenSpec):
        return value.unfrozen()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


#: Events a coarse task triggers for each of its inner stages: built (with the stage's task, its seconds
#: and CPU seconds), or found already in the store (with the stage's task).
STAGE_BUILT, STAGE_FOUND = "iescore.stage_built", "iescore.stage_found"


class StageKeys(frozenset):
    """Stage keys (a campaign's cut: a thousand of them) written out by ``repr`` as their number only.

    Luigi writes every parameter of a task into a message string each time it makes the task or writes
    its ``repr`` (in case of an error); every key of a large cut, each time, cost seconds per run."""

    def __repr__(self) -> str:
        return f"StageKeys({len(self)} keys)"


class StageGroups(tuple):
    """Groups of stage keys (a tuple of tuples) written out by ``repr`` as their sizes only (see
    ``StageKeys``)."""

    def __repr__(self) -> str:
        return f"StageGroups({len(self)} groups of {sum(map(len, self))} keys)"


class CutParameter(luigi.Parameter):
    """The keys of the stages that are tasks of their own (``StageKeys``), or None: every stage is."""

    def normalize(self, x: Any) -> Any:
        return x if x is None or isinstance(x, StageKeys) else StageKeys(x)

    def serialize(self, x: Any) -> str:
        return json.dumps(None if x is None else sorted(x))


class GroupsParameter(luigi.Parameter):
    """Groups of stage keys (``StageGroups``), or None: no group."""

    def normalize(self, x: Any) -> Any:
        return x if x is None or isinstance(x, StageGroups) else StageGroups(tuple(group) for group in x)

    def serialize(self, x: Any) -> str:
        return json.dumps(x)


class MembersParameter(luigi.Parameter):
    """The stage tasks of a group (a tuple), written out as their keys."""

    def normalize(self, x: Any) -> Any:
        return tuple(x)

    def serialize(self, x: Any) -> str:
        return json.dumps([member.key for member in x])


class StageTask(luigi.Task):
    """A stage (``stage``, a ``tasks.core.base.Stage`` subclass) run by Luigi into an artifact store."""

    key = luigi.Parameter(description="content address of the stage's artifacts")
    # Private: Luigi does not write it out for its scheduler (a campaign summary's spec holds every
    # system's whole chain: hundreds of kB each time Luigi adds the task); the key names the task.
    spec = SpecParameter(
        significant=False,
        visibility=luigi.parameter.ParameterVisibility.PRIVATE,
        description="how to build the artifacts",
    )
    store = luigi.Parameter(
        significant=False, description="artifact store: a directory or s3://BUCKET/PREFIX"
    )
    # Private and insignificant: the same stage has one task id however coarse its task is.
    cut = CutParameter(
        default=None,
        significant=False,
        visibility=luigi.parameter.ParameterVisibility.PRIVATE,
        description="keys of the stages that are tasks of their own (absent: every stage is)",
    )
    # Private and insignificant as the cut: which of the stages this task requires run together.
    groups = GroupsParameter(
        default=None,
        significant=False,
        visibility=luigi.parameter.ParameterVisibility.PRIVATE,
        description="keys of stages in the cut run as one Luigi task each group (absent: none grouped)",
    )

    stage: ClassVar[type[Stage]] = Stage
    STAGE: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1
    OUTPUTS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def get_params(cls) -> list[tuple[str, luigi.Parameter]]:
        # Luigi finds a task's parameters with dir() each time it makes a task or writes its parameters
        # (several times per task); a stage's parameters are the three above, whatever the class.
        found = cls.__dict__.get("_parameters")
        if found is None:
            found = super().get_params()
            cls._parameters = found
        return list(found)

    @property
    def options(self) -> Mapping[str, Any]:
        return self.spec.get("options", {})

    def stage_inputs(self) -> dict[str, StageTask]:
        """The stages this stage reads, by role (with this task's ``cut``)."""
        # Built once per task object: Luigi and ``input()`` ask again and again, and each input's key
        # hashes its whole upstream spec (a campaign summary has two inputs per system).
        cached = self.__dict__.get("_inputs_built")
        if cached is None:
            cached = {
                role: task_for(sub, self.store, self.cut)
                for role, sub in self.spec.get("inputs", {}).items()
                if "stage" in sub
            }
            self.__dict__["_inputs_built"] = cached
        return dict(cached)

    def inner_stages(self) -> list[StageTask]:
        """The stages this task builds in its run before its own, dependencies first: every stage it
        needs, through stages not in ``cut`` (none when ``cut`` is None)."""
        cached = self.__dict__.get("_inner_built")
        if cached is None:
            cached = []
            if self.cut is not None:
                # Depth first, each stage listed once, after every stage it reads.
                expanded: set[str] = set()
                stack: list[tuple[StageTask, bool]] = [(self, False)]
                while stack:
                    task, done = stack.pop()
                    if done:
                        if task is not self:
                            cached.append(task)
                    elif task.key not in expanded:
                        expanded.add(task.key)
                        stack.append((task, True))
                        subs = [sub for sub in task.stage_inputs().values() if sub.key not in self.cut]
                        stack.extend((sub, False) for sub in reversed(subs))
            self.__dict__["_inner_built"] = cached
        return list(cached)

    def requires(self) -> dict[str, luigi.Task]:
        """What Luigi runs before this task: its stage inputs, or with a ``cut``, the stages in the cut
        that it or its inner stages read (``role``, or ``KEY/role`` for an inner stage's); with ``groups``,
        the stages of a group as one ``StageGroup`` (``group/NAME``)."""
        if self.cut is None:
            return self.stage_inputs()
        cached = self.__dict__.get("_requires_built")
        if cached is None:
            cached, seen = {}, set()
            for task in [self, *self.inner_stages()]:
                for role, sub in task.stage_inputs().items():
                    if sub.key in self.cut and sub.key not in seen:
                        seen.add(sub.key)
                        cached[role if task is self else f"{task.key[:12]}/{role}"] = sub
            if self.groups:
                cached = _grouped(cached, self.groups)
            self.__dict__["_requires_built"] = cached
        return dict(cached)

    def run(self) -> None:
        self.run_for(self)

    def output(self) -> dict[str, luigi.Target]:
        # A LocalTarget, or an S3Target when the store is s3://BUCKET/PREFIX (see tasks/core/store.py).
        # Local targets are made once per task object (Luigi asks for them each time it checks the task
        # is complete); an S3 target holds its process's client, which a forked worker must not share.
        targets = self.__dict__.get("_targets")
        if targets is None:
            targets = {
                name: artifacts.artifact_target(self.store, self.STAGE, self.key, name)
                for name in self.OUTPUTS
            }
            if not artifacts.is_s3(self.store):
                self.__dict__["_targets"] = targets
        return dict(targets)

    def input_file(self, role: str) -> str | None:
        """Path of a raw input file given in the spec, or None."""
        return spec_input_file(self.spec, role)

    def input_table(
        self, role: str, name: str | None = None, columns: list[str] | None = None
    ) -> pa.Table | None:
        """The artifact ``name`` (default: the first) of an upstream stage in the store (only ``columns``
        when given), or None when the role was not given."""
        task = self.stage_inputs().get(role)
        if task is None:
            return None
        targets = task.output()
        return artifacts.read_table(targets[name or next(iter(targets))], columns)

    def run_for(self, runner: luigi.Task) -> None:
        """This task's run (its inner stages, then its own), its status told on ``runner``: the task Luigi
        runs (itself, or the ``StageGroup`` it belongs to)."""
        started = time.process_time()
        built: dict[str, dict[str, pa.Table]] = {}
        inner = self.inner_stages()
        for number, task in enumerate(inner):
            # What luigid's web page shows for a running task: its stage and key, and how far it got.
            runner.set_status_message(f"{self.STAGE} {self.key[:12]}: {task.STAGE} {task.key[:12]}")
            runner.set_progress_percentage(90 * number // (len(inner) + 1))
            if task.complete():  # an earlier run built it: read from the store when needed
                self.trigger_event(STAGE_FOUND, task)
                continue
            begun, cpu = time.monotonic(), time.process_time()
            built[task.key] = task.build(built)
            self.trigger_event(STAGE_BUILT, task, time.monotonic() - begun, time.process_time() - cpu)
        runner.set_status_message(f"{self.STAGE} {self.key[:12]}: computing")
        runner.set_progress_percentage(90 * len(inner) // (len(inner) + 1))
        self.build(built)
        runner.set_status_message(f"{self.STAGE} {self.key[:12]}: done")
        runner.set_progress_percentage(100)
        # CPU seconds of this run (the progress events add them up: CPU is the fair measure under load).
        self.__dict__["cpu_seconds"] = time.process_time() - started

    def build(self, built: Mapping[str, Mapping[str, pa.Table]]) -> dict[str, pa.Table]:
        """Produce this stage's artifacts and write them to the store; its inputs are taken from
        ``built`` (key -> artifacts built in this process) or else read from the store."""

        def input_table(
            role: str, name: str | None = None, columns: list[str] | None = None
        ) -> pa.Table | None:
            task = self.stage_inputs().get(role)
            tables = built.get(task.key) if task is not None else None
            if tables is None:
                return self.input_table(role, name, columns)
            table = tables[name or next(iter(tables))]
            return table.select(columns) if columns is not None else table

        tables = produce(self.stage(self.key, self.spec, str(self.store), input_table))
        for name in self.OUTPUTS:
            artifacts.write_table(self.output()[name], tables[name], self.provenance())
        return tables

    def provenance(self) -> dict[str, Any]:
        return provenance(self.stage, self.key, self.spec)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # The class is made per stage (``task_class``) under the stage's own name, so pickle cannot find
        # it by name: a task is sent to another process (the campaign's output pool) as what makes it.
        return _stage_task, (self.stage, self.key, self.spec, str(self.store), self.cut, self.groups)

    def on_failure(self, exception: BaseException) -> str:
        # Bad input is the user's to fix: one clean line, recognisable by the command line.
        if isinstance(exception, InputError):
            return INPUT_ERROR_PREFIX + exception.render()
        return "".join(traceback.format_exception(exception))


@functools.cache
def task_class(stage: type[Stage]) -> type[StageTask]:
    """The Luigi task class of a stage class: named as the stage class, so task ids read as before."""
    return type(
        stage.__name__,
        (StageTask,),
        {
            "stage": stage,
            "STAGE": stage.STAGE,
            "VERSION": stage.VERSION,
            "OUTPUTS": stage.OUTPUTS,
            "__module__": stage.__module__,
            "__doc__": stage.__doc__,
        },
    )


def _stage_task(
    stage: type[Stage],
    key: str,
    spec: FrozenSpec,
    store: str,
    cut: frozenset[str] | None,
    groups: tuple[tuple[str, ...], ...] | None = None,
) -> StageTask:
    """The task of ``stage`` with these parameters (how a pickled task is made again)."""
    return task_class(stage)(key=key, spec=spec, store=store, cut=cut, groups=groups)


def task_for(
    spec: Mapping[str, Any],
    store: str,
    cut: frozenset[str] | None = None,
    groups: tuple[tuple[str, ...], ...] | None = None,
) -> StageTask:
    """The task that builds ``spec`` into ``store``; with ``cut`` (the keys of the stages that are tasks of
    their own), it builds the other stages it needs in its own run; with ``groups`` (keys of stages in the
    cut), the stages of each group it requires are one Luigi task (see the module doc)."""
    spec = freeze_spec(spec)
    return task_class(stage_class(spec))(
        key=input_key(spec), spec=spec, store=str(store), cut=cut, groups=groups
    )


class StageGroup(luigi.Task):
    """Coarse stage tasks (``members``, each with its cut) run as one Luigi task: it requires what its
    members require outside the group, its outputs are theirs, and its run builds each member not yet in
    the store (``StageTask.run_for``), telling each as built (``STAGE_BUILT``) or found (``STAGE_FOUND``).
    Its id is a hash of its members' keys: every client of a central scheduler makes the same groups."""

    name = luigi.Parameter(description="content address of the group: a hash of its members' keys")
    members = MembersParameter(
        significant=False,
        visibility=luigi.parameter.ParameterVisibility.PRIVATE,
        description="the stage tasks of the group (a tuple)",
    )

    @property
    def store(self) -> str:
        return str(self.members[0].store)

    def requires(self) -> dict[str, luigi.Task]:
        cached = self.__dict__.get("_requires_built")
        if cached is None:
            inside = {member.key for member in self.members}
            cached, seen = {}, set()
            for member in self.members:
                for role, sub in member.requires().items():
                    if sub.task_id not in seen and getattr(sub, "key", None) not in inside:
                        seen.add(sub.task_id)
                        cached[f"{member.key[:12]}/{role}"] = sub
            self.__dict__["_requires_built"] = cached
        return dict(cached)

    def output(self) -> dict[str, luigi.Target]:
        return {
            f"{member.key[:12]}/{name}": target
            for member in self.members
            for name, target in member.output().items()
        }

    def run(self) -> None:
        started = time.process_time()
        for member in self.members:
            if member.complete():  # built before: found, as an inner stage is
                member.trigger_event(STAGE_FOUND, member)
                continue
            begun, cpu = time.monotonic(), time.process_time()
            member.run_for(self)
            member.trigger_event(STAGE_BUILT, member, time.monotonic() - begun, time.process_time() - cpu)
        self.set_status_message(f"group of {len(self.members)} {self.name[:12]}: done")
        self.set_progress_percentage(100)
        self.__dict__["cpu_seconds"] = time.process_time() - started

    def on_failure(self, exception: BaseException) -> str:
        return self.members[0].on_failure(exception)


def group_of(members: tuple[StageTask, ...]) -> StageGroup:
    """The group of ``members`` (named by a hash of their keys, in order)."""
    digest = hashlib.sha256("\n".join(member.key for member in members).encode()).hexdigest()
    return StageGroup(name=digest, members=members)


def _grouped(required: dict[str, luigi.Task], groups: tuple[tuple[str, ...], ...]) -> dict[str, luigi.Task]:
    """``required`` (role -> task) with the tasks of each group replaced by the group's task (roles
    ``group/NAME``, in the place of the group's first member); a group of one stays that task."""
    where = {key: number for number, keys in enumerate(groups) for key in keys}
    members: dict[int, list[StageTask]] = {}
    for task in required.values():
        number = where.get(getattr(task, "key", None))
        if number is not None:
            members.setdefault(number, []).append(task)
    result: dict[str, luigi.Task] = {}
    for role, task in required.items():
        number = where.get(getattr(task, "key", None))
        if number is None or len(members[number]) == 1:
            result[role] = task
        elif members[number][0] is task:
            group = group_of(tuple(members[number]))
            result[f"group/{group.name[:12]}"] = group
    return result
