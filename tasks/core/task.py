"""A stage as a Luigi task: its inputs read from the store, its artifacts written there.

``task_for(spec, store)`` makes the task of a stage spec (``tasks.core.base``). The task's only
significant parameter is the stage's key, so the task id changes exactly when the content would. Its
``run`` makes the stage object with the inputs' artifacts read from the store and writes what
``produce`` returns: the same stage code ``tasks.core.compute`` runs in a command's own process.
"""

from __future__ import annotations

import functools
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

    def requires(self) -> dict[str, StageTask]:
        # Built once per task object: Luigi and ``input()`` ask again and again, and each input's key
        # hashes its whole upstream spec (a campaign summary has two inputs per system).
        cached = self.__dict__.get("_requires_built")
        if cached is None:
            cached = {
                role: task_for(sub, self.store)
                for role, sub in self.spec.get("inputs", {}).items()
                if "stage" in sub
            }
            self.__dict__["_requires_built"] = cached
        return dict(cached)

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
        task = self.requires().get(role)
        if task is None:
            return None
        targets = task.output()
        return artifacts.read_table(targets[name or next(iter(targets))], columns)

    def run(self) -> None:
        started = time.process_time()
        # What luigid's web page shows for a running task: its stage and key, and how far it got.
        self.set_status_message(f"{self.STAGE} {self.key[:12]}: computing")
        self.set_progress_percentage(0)
        tables = produce(self.stage(self.key, self.spec, str(self.store), self.input_table))
        self.set_status_message(f"{self.STAGE} {self.key[:12]}: writing {', '.join(self.OUTPUTS)}")
        self.set_progress_percentage(90)
        for name in self.OUTPUTS:
            artifacts.write_table(self.output()[name], tables[name], self.provenance())
        self.set_status_message(f"{self.STAGE} {self.key[:12]}: done")
        self.set_progress_percentage(100)
        # CPU seconds of this run (the progress events add them up: CPU is the fair measure under load).
        self.__dict__["cpu_seconds"] = time.process_time() - started

    def provenance(self) -> dict[str, Any]:
        return provenance(self.stage, self.key, self.spec)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # The class is made per stage (``task_class``) under the stage's own name, so pickle cannot find
        # it by name: a task is sent to another process (the campaign's output pool) as what makes it.
        return _stage_task, (self.stage, self.key, self.spec, str(self.store))

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


def _stage_task(stage: type[Stage], key: str, spec: FrozenSpec, store: str) -> StageTask:
    """The task of ``stage`` with these parameters (how a pickled task is made again)."""
    return task_class(stage)(key=key, spec=spec, store=store)


def task_for(spec: Mapping[str, Any], store: str) -> StageTask:
    """The task that builds ``spec`` into ``store``."""
    spec = freeze_spec(spec)
    return task_class(stage_class(spec))(key=input_key(spec), spec=spec, store=str(store))
