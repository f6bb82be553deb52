"""The shape every stage task shares: a content key, a spec of its inputs, one or more artifacts.

A *spec* is a plain dict that says how to build an artifact: ``{"stage": name, "options": {...},
"inputs": {role: spec}}``, or ``{"file": path, "sha256": digest}`` for a raw input file. The task's
only significant parameter is the key computed from the spec, so the task id changes exactly when
the content would. Stages are thin: read their inputs, call ``pipeline``, write their artifacts.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import gc
import hashlib
import os
import stat
import time
import traceback
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import luigi
import pyarrow as pa
from luigi.freezing import FrozenOrderedDict

from pipeline.core.errors import InputError
from tasks.core import store as artifacts

INPUT_ERROR_PREFIX = "iescore input error: "
_STAGES: dict[str, type[Stage]] = {}


class FrozenSpec(FrozenOrderedDict):
    """A spec frozen once (mappings FrozenSpecs, sequences tuples), as Luigi's DictParameter freezes it.

    A stage's inputs are built from parts of its own spec, already frozen: they are taken as they are,
    not walked and copied again (a campaign summary's spec holds every system's whole chain, so freezing
    and keying each task's spec anew cost time in proportion to the graph for every task). Its key is
    computed once (``input_key``).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stage_key: str | None = None
        self._repr: str | None = None

    def __repr__(self) -> str:
        # Luigi writes every task's parameters into a message string each time it builds one (in case of
        # an error). A stage's spec is written as its stage and key, which name it (a campaign summary's
        # whole spec was 700 kB of text); any other part once, then kept.
        if self._repr is None:
            if "stage" in self and "inputs" in self:
                self._repr = f"FrozenSpec(stage={self['stage']!r}, key={input_key(self)!r})"
            else:
                self._repr = super().__repr__()
        return self._repr

    def __hash__(self) -> int:
        # Luigi keys its tasks by their parameters' hash. Equal stage specs have the same key (it is made
        # from their content), so the key stands for the spec without hashing every part of the graph.
        if "stage" in self and "inputs" in self:
            return hash(input_key(self))
        return super().__hash__()


def freeze_spec(value: Any) -> Any:
    """``value`` with every mapping a FrozenSpec and every list a tuple; a FrozenSpec is returned as is."""
    if isinstance(value, FrozenSpec):
        return value
    if isinstance(value, Mapping):
        return FrozenSpec((k, freeze_spec(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return tuple(freeze_spec(v) for v in value)
    return value


class SpecParameter(luigi.DictParameter):
    """Luigi's DictParameter, freezing with ``freeze_spec`` (the same values, each frozen once)."""

    def normalize(self, x: Any) -> Any:
        return freeze_spec(x)


class Stage(luigi.Task):
    """Base of every stage: subclasses set STAGE, VERSION, OUTPUTS and implement ``produce``."""

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

    STAGE: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1
    OUTPUTS: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.STAGE:
            _STAGES[cls.STAGE] = cls

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

    def requires(self) -> dict[str, Stage]:
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
        sub = self.spec.get("inputs", {}).get(role)
        return sub["file"] if sub and "file" in sub else None

    def input_table(
        self, role: str, name: str | None = None, columns: list[str] | None = None
    ) -> pa.Table | None:
        """The artifact of an upstream stage (only ``columns`` when given), or None when the role was not
        given."""
        memory = self.__dict__.get("_memory")
        if memory is not None:  # computed in this process (see ``compute_here``)
            tables = memory.get(role)
            if tables is None:
                return None
            table = tables[name or next(iter(tables))]
            return table.select(columns) if columns is not None else table
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
        with _collector_paused():
            tables = self.produce()
        self.set_status_message(f"{self.STAGE} {self.key[:12]}: writing {', '.join(self.OUTPUTS)}")
        self.set_progress_percentage(90)
        for name in self.OUTPUTS:
            artifacts.write_table(self.output()[name], tables[name], self.provenance())
        self.set_status_message(f"{self.STAGE} {self.key[:12]}: done")
        self.set_progress_percentage(100)
        # CPU seconds of this run (the progress events add them up: CPU is the fair measure under load).
        self.__dict__["cpu_seconds"] = time.process_time() - started

    def produce(self) -> dict[str, pa.Table]:  # pragma: no cover - every stage overrides it
        raise NotImplementedError

    def provenance(self) -> dict[str, Any]:
        return {
            "stage": self.STAGE,
            "version": self.VERSION,
            "key": self.key,
            "options": dict(self.options),
            "inputs": {role: input_key(sub) for role, sub in self.spec.get("inputs", {}).items()},
            "files": {
                role: sub["file"] for role, sub in self.spec.get("inputs", {}).items() if "file" in sub
            },
        }

    def on_failure(self, exception: BaseException) -> str:
        # Bad input is the user's to fix: one clean line, recognisable by the command line.
        if isinstance(exception, InputError):
            return INPUT_ERROR_PREFIX + exception.render()
        return "".join(traceback.format_exception(exception))


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a stage computes.

    A stage builds hundreds of thousands of small objects (fills, pairings, rows) that live until it
    ends; each full collection walks all of them again, which was half of the templette chain's time
    (issue 16). Reference counting still frees everything without cycles; cycles wait for the
    collector, which runs again once the stage is done.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def file_spec(path: str | Path) -> dict[str, str]:
    """The spec of a raw input file: its absolute path and the sha256 of its bytes.

    A directory (a system of MAT or CLEF files) is one input too: its digest covers the relative name
    and the digest of every regular file under it, in sorted order, so any change to any of them (a file
    added, removed, renamed or edited) changes it.
    """
    resolved = os.path.realpath(path)  # what Path.resolve() gives, without its per-call overhead
    status = os.stat(resolved)
    if stat.S_ISDIR(status.st_mode):
        hasher = hashlib.sha256(b"directory\0")
        for file in sorted(p for p in Path(resolved).rglob("*") if p.is_file()):
            info = file.stat()
            name = file.relative_to(resolved).as_posix()
            hasher.update(f"{name}\0{_digest(str(file), info.st_size, info.st_mtime_ns)}\0".encode())
        return {"file": resolved, "sha256": hasher.hexdigest()}
    return {"file": resolved, "sha256": _digest(resolved, status.st_size, status.st_mtime_ns)}


def prefetch_digests(paths: Iterable[str | Path], threads: int = 2) -> None:
    """Hash the regular files among ``paths`` now, ``threads`` at a time, so that ``file_spec`` finds
    their digests made (Python's sha256 and file reads let other threads run: a campaign's hundred system
    files take half the time on two cores). A path that cannot be read is left to ``file_spec``."""
    files = []
    for path in dict.fromkeys(str(p) for p in paths):
        try:
            resolved = os.path.realpath(path)
            status = os.stat(resolved)
        except OSError:
            continue
        if stat.S_ISREG(status.st_mode):
            files.append((resolved, status.st_size, status.st_mtime_ns))
    if len(files) < 2 or threads < 2:
        return
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(_digest_quietly, files))


def _digest_quietly(file: tuple[str, int, int]) -> None:
    with contextlib.suppress(OSError):  # unreadable now: ``file_spec`` says so, with its path
        _digest(*file)


@functools.lru_cache(maxsize=4096)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    # A campaign names the reference once per system: hash each file once per version of it.
    return artifacts.file_digest(path)


def stage_spec(stage: str, options: Mapping[str, Any], inputs: Mapping[str, Any]) -> dict[str, Any]:
    return {"stage": stage, "options": dict(options), "inputs": {k: v for k, v in inputs.items() if v}}


def input_key(spec: Mapping[str, Any]) -> str:
    """The key of a spec: a file's digest, or the stage key over its options and input keys."""
    if "file" in spec:
        return spec["sha256"]
    frozen = isinstance(spec, FrozenSpec)
    if frozen and spec.stage_key is not None:
        return spec.stage_key
    cls = _STAGES[spec["stage"]]
    inputs = {role: input_key(sub) for role, sub in spec.get("inputs", {}).items()}
    key = artifacts.stage_key(cls.STAGE, cls.VERSION, spec.get("options", {}), inputs)
    if frozen:
        spec.stage_key = key
    return key


def task_for(spec: Mapping[str, Any], store: str) -> Stage:
    """The task that builds ``spec`` into ``store``."""
    cls = _STAGES[spec["stage"]]
    spec = freeze_spec(spec)
    return cls(key=input_key(spec), spec=spec, store=str(store))


def compute_here(
    spec: Mapping[str, Any], done: dict[str, dict[str, pa.Table]] | None = None
) -> dict[str, pa.Table]:
    """The artifacts of ``spec`` computed in this process, with no store: every stage's ``produce``
    called on its inputs' tables as they are made (each stage once, however many stages use it).

    What a command without ``--store`` runs: the same rules as the Luigi chain, in the same order,
    without writing and reading Parquet. ``done`` (key -> tables) carries the stages already computed.
    """
    done = {} if done is None else done
    key = input_key(spec)
    if key not in done:
        # The stage object without Luigi's constructor: it would freeze the whole spec (thousands of
        # input files for a directory of documents) for a task that is never scheduled.
        cls = _STAGES[spec["stage"]]
        task = cls.__new__(cls)
        task.__dict__.update(key=key, spec=spec, store="")
        task.__dict__["_memory"] = {
            role: compute_here(sub, done) for role, sub in spec.get("inputs", {}).items() if "stage" in sub
        }
        with _collector_paused():
            tables = task.produce()
        done[key] = {name: tables[name] for name in task.OUTPUTS}
    return done[key]


class FillsPassThrough(Stage):
    """A stage whose rule is the identity in this version: its ``fills`` artifact is its input's.

    It still writes the artifact under its own key, so the chain and its audit trail keep one shape
    when the stage gets a real rule (and a new VERSION).
    """

    OUTPUTS = ("fills",)

    def produce(self) -> dict[str, pa.Table]:
        return {"fills": self.input_table("fills")}
