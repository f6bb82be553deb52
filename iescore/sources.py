"""Where a library call's inputs come from: a path as the command takes it, or data held in memory.

The commands' readers read files, and each rule is read once: so in-memory data (a file's text, a
mapping of file names to texts, records a family turns into its file format) is written into a
temporary directory, in the format the command reads, and goes through the same stages as a path.
A bad input then raises the same :class:`~iescore.pipeline.core.errors.InputError` the command prints,
naming the in-memory source as ``<role>`` (``<qrels>:3: ...``) instead of the temporary file.

A ``str`` is a path unless it holds a line end: text of one line is written with its ``\\n``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from iescore.pipeline.core.errors import InputError

if TYPE_CHECKING:
    from iescore.pipeline.core.settings import Count
    from iescore.tasks.core.compute import Artifacts

__all__ = [
    "PathLike",
    "Sources",
    "StagesFailedError",
    "check_count",
    "input_files",
    "is_path",
    "is_text",
    "run_specs",
]

PathLike = str | os.PathLike


def is_path(value: object) -> bool:
    """Whether ``value`` names a file or directory (an ``os.PathLike``, or a ``str`` without a line end)."""
    return isinstance(value, os.PathLike) or (isinstance(value, str) and not ("\n" in value or "\r" in value))


def is_text(value: object) -> bool:
    """Whether ``value`` is a file's text rather than its path: a ``str`` holding a line end."""
    return isinstance(value, str) and not is_path(value)


class StagesFailedError(RuntimeError):
    """A run with a store failed: its errors were printed on stderr as the command prints them;
    ``status`` is the command's exit status (2 bad input, 1 internal error)."""

    def __init__(self, status: int) -> None:
        self.status = status
        kind = "bad input" if status == 2 else "an internal error"
        super().__init__(f"the stages stopped on {kind} (exit status {status}; messages on stderr)")


class Sources:
    """A call's inputs as paths: paths kept as given, in-memory data written under a temporary
    directory (removed on exit). Use as a context manager: an InputError about a written file is
    raised again naming its role instead."""

    def __init__(self) -> None:
        self._directory: str | None = None

    def __enter__(self) -> Sources:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        directory, self._directory = self._directory, None
        if directory is None:
            return
        shutil.rmtree(directory, ignore_errors=True)
        if isinstance(error, InputError) and directory in f"{error.file}{error.message}":
            raise InputError(
                self._label(error.file, directory), error.line, self._label(error.message, directory)
            ) from None

    def shown(self, text: str) -> str:
        """``text`` (a warning) with every written path shown as ``<role>``, as errors are."""
        return text if self._directory is None else self._label(text, self._directory)

    def text(self, role: str, data: str | bytes) -> str:
        """A file named ``role`` holding ``data`` (text is written as UTF-8); a role is one file name."""
        if Path(role).name != role or role in ("", ".", ".."):
            raise InputError(f"<{role}>", 0, "a name without a directory part expected")
        path = Path(self._root(), role)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return str(path)

    def directory(self, role: str, files: Mapping[str, str | bytes]) -> str:
        """A directory named ``role`` holding ``files`` (name -> text or bytes)."""
        path = Path(self._root(), role)
        path.mkdir()
        for name, data in files.items():
            if Path(name).name != name or name in ("", ".", ".."):
                raise InputError(f"<{role}>", 0, f"a file name expected (no directory part), got {name!r}")
            (path / name).write_bytes(data.encode() if isinstance(data, str) else data)
        return str(path)

    def _root(self) -> str:
        if self._directory is None:
            self._directory = os.path.realpath(tempfile.mkdtemp(prefix="iescore-"))
        return self._directory

    @staticmethod
    def _label(text: str, directory: str) -> str:
        """``text`` with each written path ``DIR/role[/name]`` shown as ``<role>[/name]``."""
        parts = text.split(directory + os.sep)
        return parts[0] + "".join(_bracketed(part) for part in parts[1:])


def _bracketed(rest: str) -> str:
    role, sep, tail = rest.partition(os.sep)
    if sep:
        return f"<{role}>{sep}{tail}"
    end = len(role)
    for stop in (":", " ", ",", ")", "'", '"'):
        position = role.find(stop)
        if position != -1:
            end = min(end, position)
    return f"<{role[:end]}>{role[end:]}"


def check_count(option: str, value: object, count: Count) -> None:
    """A count given to the library (``workers``, ``seed``, ``resamples``, ``max_docs``...) checked by
    the range the command's argument type uses (``pipeline.core.settings``)."""
    problem = count.problem(value)
    if problem:
        raise InputError(option, 0, f"{problem}, found {value!r}")


def run_specs(specs: Sequence[Mapping[str, Any]], store: PathLike | None, workers: int = 1) -> Artifacts:
    """The command's runner on ``specs`` (``tasks.cli.common.run_stages``): the artifacts, or
    :class:`StagesFailedError` when a run with a store stopped (its messages already on stderr)."""
    from iescore.pipeline.core.settings import WORKERS
    from iescore.tasks.cli.common import EXIT_OK, run_stages

    check_count("workers", workers, WORKERS)
    status, artifacts = run_stages(specs, None if store is None else str(store), workers)
    if status != EXIT_OK:
        raise StagesFailedError(status)
    return artifacts


@contextlib.contextmanager
def input_files(
    inputs: Mapping[str, object], encoding: str = "utf-8"
) -> Iterator[tuple[Sources, dict[str, str | None]]]:
    """``role -> value`` as ``role -> path`` for readers of one file each: a path as it is (checked as the
    commands check their input files), a file's text (:func:`is_text`) written in ``encoding``, None as
    None; with the :class:`Sources` that wrote them (``shown`` names a written file in a warning)."""
    from iescore.pipeline.core.settings import encoding_problem
    from iescore.tasks.core.arguments import INPUT_FILE, check_paths

    problem = encoding_problem(encoding)
    if problem:
        raise ValueError(f"encoding: {problem}, found {encoding!r}")
    with Sources() as sources:
        paths: dict[str, str | None] = {}
        given = []
        for role, value in inputs.items():
            if value is None:
                paths[role] = None
            elif is_text(value):
                paths[role] = sources.text(role, str(value).encode(encoding))
            elif is_path(value):
                paths[role] = os.fspath(value)  # type: ignore[arg-type]
                given.append(role)
            else:
                raise InputError(
                    f"<{role}>", 0, f"a path or the file's text expected, not {type(value).__name__}"
                )
        check_paths([(role, paths[role], INPUT_FILE) for role in given])
        yield sources, paths
