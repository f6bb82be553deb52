"""The shape every stage shares: a content key, a spec of its inputs, one or more artifacts.

A *spec* is a plain dict that says how to build an artifact: ``{"stage": name, "options": {...},
"inputs": {role: spec}}``, or ``{"file": path, "sha256": digest}`` for a raw input file. A stage's key
is computed from the spec, so it changes exactly when the content would. Stages are thin: read their
inputs, call ``pipeline``, return their artifacts (``produce``).

This module does not import Luigi: a stage is run by ``tasks.core.compute`` in the command's own
process (no store), or by Luigi as a ``tasks.core.task.StageTask`` that writes its artifacts into a
store (``task_for``). Both call the same ``produce`` on the same input tables.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import hashlib
import operator
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from iescore.tasks.core.files import file_digest, stage_key

if TYPE_CHECKING:
    import pyarrow as pa
    from iescore.tasks.core.task import StageTask

INPUT_ERROR_PREFIX = "iescore input error: "
_STAGES: dict[str, type[Stage]] = {}


class FrozenSpec(Mapping):
    """A spec frozen once (mappings FrozenSpecs, sequences tuples): hashable, as Luigi's parameters must be.

    A stage's inputs are built from parts of its own spec, already frozen: they are taken as they are,
    not walked and copied again (a campaign summary's spec holds every system's whole chain, so freezing
    and keying each task's spec anew cost time in proportion to the graph for every task). Its key is
    computed once (``input_key``).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._items = dict(*args, **kwargs)
        self._hash: int | None = None
        self.stage_key: str | None = None
        self._repr: str | None = None

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def unfrozen(self) -> dict[str, Any]:
        """The mapping it wraps (its values frozen), for JSON."""
        return self._items

    def __repr__(self) -> str:
        # Luigi writes every task's parameters into a message string each time it builds one (in case of
        # an error). A stage's spec is written as its stage and key, which name it (a campaign summary's
        # whole spec was 700 kB of text); any other part once, then kept.
        if self._repr is None:
            if "stage" in self and "inputs" in self:
                self._repr = f"FrozenSpec(stage={self['stage']!r}, key={input_key(self)!r})"
            else:
                self._repr = repr(self._items)
        return self._repr

    def __hash__(self) -> int:
        # Equal stage specs have the same key (it is made from their content), so the key stands for the
        # spec without hashing every part of the graph.
        if self._hash is None:
            if "stage" in self and "inputs" in self:
                self._hash = hash(input_key(self))
            else:
                self._hash = functools.reduce(operator.xor, map(hash, self._items.items()), 0)
        return self._hash


def freeze_spec(value: Any) -> Any:
    """``value`` with every mapping a FrozenSpec and every list a tuple; a FrozenSpec is returned as is."""
    if isinstance(value, FrozenSpec):
        return value
    if isinstance(value, Mapping):
        return FrozenSpec((k, freeze_spec(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return tuple(freeze_spec(v) for v in value)
    return value


#: An input's tables as the runner has them: (role, output name or None for the first, columns or None
#: for all) -> the table, or None when the role was not given.
InputTables = Callable[[str, "str | None", "list[str] | None"], "pa.Table | None"]


def spec_input_file(spec: Mapping[str, Any], role: str) -> str | None:
    """Path of the raw input file ``role`` of a stage's spec, or None (a Stage's and a StageTask's)."""
    sub = spec.get("inputs", {}).get(role)
    return sub["file"] if sub and "file" in sub else None


class Stage:
    """Base of every stage: subclasses set STAGE, VERSION, OUTPUTS and implement ``produce``.

    A stage object is made by whoever runs it (``tasks.core.compute`` or the Luigi task), with its key,
    its spec, its store ("" when there is none) and how to get its inputs' tables.
    """

    STAGE: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1
    OUTPUTS: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.STAGE:
            _STAGES[cls.STAGE] = cls

    def __init__(self, key: str, spec: Mapping[str, Any], store: str, inputs: InputTables) -> None:
        self.key = key
        self.spec = spec
        self.store = store
        self._inputs = inputs

    @property
    def options(self) -> Mapping[str, Any]:
        return self.spec.get("options", {})

    def input_file(self, role: str) -> str | None:
        """Path of a raw input file given in the spec, or None."""
        return spec_input_file(self.spec, role)

    def input_table(
        self, role: str, name: str | None = None, columns: list[str] | None = None
    ) -> pa.Table | None:
        """The artifact ``name`` (default: the first) of an upstream stage, only ``columns`` when given, or
        None when the role was not given."""
        return self._inputs(role, name, columns)

    def produce(self) -> dict[str, pa.Table]:  # pragma: no cover - every stage overrides it
        raise NotImplementedError

    def provenance(self) -> dict[str, Any]:
        return provenance(type(self), self.key, self.spec)


def stage_class(spec: Mapping[str, Any]) -> type[Stage]:
    """The class of a stage spec's stage (its module imported: it registers itself)."""
    return _STAGES[spec["stage"]]


def provenance(cls: type[Stage], key: str, spec: Mapping[str, Any]) -> dict[str, Any]:
    """What an artifact records of how it was made: stage, VERSION, key, options, input keys and files."""
    inputs = spec.get("inputs", {})
    return {
        "stage": cls.STAGE,
        "version": cls.VERSION,
        "key": key,
        "options": dict(spec.get("options", {})),
        "inputs": {role: input_key(sub) for role, sub in inputs.items()},
        "files": {role: sub["file"] for role, sub in inputs.items() if "file" in sub},
    }


def produce(stage: Stage) -> dict[str, pa.Table]:
    """``stage.produce()``: its artifacts by output name."""
    tables = stage.produce()
    return {name: tables[name] for name in stage.OUTPUTS}


def file_spec(path: str | Path, keep: bool = False) -> dict[str, str]:
    """The spec of a raw input file: its absolute path and the sha256 of its bytes (``keep``: its bytes
    kept for a stage of this process that reads them through ``pipeline.core.filebytes.read_bytes``).

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
    return {"file": resolved, "sha256": _digest(resolved, status.st_size, status.st_mtime_ns, keep)}


def file_specs(paths: Sequence[str | Path], keep: bool = False) -> list[dict[str, str]]:
    """``file_spec`` of each of ``paths`` (many files of a few directories: a MAT corpus), each directory
    resolved once: a regular file that is not a link resolves to its resolved directory and its name."""
    directories: dict[str, str] = {}
    specs = []
    for path in paths:
        parent, name = os.path.split(os.fspath(path))
        try:
            status = os.lstat(path)
        except OSError:
            status = None
        if status is None or not stat.S_ISREG(status.st_mode) or name in ("", ".", ".."):
            specs.append(file_spec(path, keep))  # a link, a directory, or an error to report: as one file
            continue
        if parent not in directories:
            directories[parent] = os.path.realpath(parent or ".")
        resolved = os.path.join(directories[parent], name)
        specs.append(
            {"file": resolved, "sha256": _digest(resolved, status.st_size, status.st_mtime_ns, keep)}
        )
    return specs


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
        _digest(*file, False)


@functools.lru_cache(maxsize=1 << 16)
def _digest(path: str, size: int, mtime_ns: int, keep: bool = False) -> str:
    # A campaign names the reference once per system: hash each file once per version of it (a
    # reference of 10,000 MAT documents included).
    return file_digest(path, keep)


def stage_spec(stage: str, options: Mapping[str, Any], inputs: Mapping[str, Any]) -> dict[str, Any]:
    return {"stage": stage, "options": dict(options), "inputs": {k: v for k, v in inputs.items() if v}}


#: Keys already made, by the id of their spec (kept beside it, so that the id cannot be reused).
KeyMemo = dict[int, tuple[Mapping[str, Any], str]]


def input_key(spec: Mapping[str, Any], memo: KeyMemo | None = None) -> str:
    """The key of a spec: a file's digest, or the stage key over its options and input keys (``memo``:
    the keys of specs met before, looked up by identity: a spec is not changed once built)."""
    if "file" in spec:
        return spec["sha256"]
    frozen = isinstance(spec, FrozenSpec)
    if frozen and spec.stage_key is not None:
        return spec.stage_key
    if memo is not None:
        known = memo.get(id(spec))
        if known is not None and known[0] is spec:
            return known[1]
    cls = _STAGES[spec["stage"]]
    inputs = {role: input_key(sub, memo) for role, sub in spec.get("inputs", {}).items()}
    key = stage_key(cls.STAGE, cls.VERSION, spec.get("options", {}), inputs)
    if frozen:
        spec.stage_key = key
    if memo is not None:
        memo[id(spec)] = (spec, key)
    return key


def task_for(
    spec: Mapping[str, Any],
    store: str,
    cut: frozenset[str] | None = None,
    groups: tuple[tuple[str, ...], ...] | None = None,
) -> StageTask:
    """The Luigi task that builds ``spec`` into ``store`` (Luigi imported here, when a store is used);
    ``cut`` and ``groups``: see ``tasks.core.task``."""
    from iescore.tasks.core.task import task_for as luigi_task

    return luigi_task(spec, store, cut, groups)


class FillsPassThrough(Stage):
    """A stage whose rule is the identity in this version: its ``fills`` artifact is its input's.

    It still writes the artifact under its own key, so the chain and its audit trail keep one shape
    when the stage gets a real rule (and a new VERSION).
    """

    OUTPUTS = ("fills",)

    def produce(self) -> dict[str, pa.Table]:
        return {"fills": self.input_table("fills")}
