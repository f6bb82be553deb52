"""Inputs given to the library as text, written where the commands' readers read files.

The scorers' readers (and the stages, whose artifacts are keyed by their input files' digests) read
files. A library call given a file's text writes it into a temporary directory for the call, and an
:class:`~iescore.pipeline.core.errors.InputError` naming such a file is raised again naming the
argument instead (``<key>:12: ...``), so the message is the command's, with the argument's name for
the file's.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.settings import encoding_problem
from iescore.tasks.core.arguments import INPUT_FILE, check_paths


def is_text(value: object) -> bool:
    """Whether ``value`` is an input's text rather than a path: a string holding a line break."""
    return isinstance(value, str) and ("\n" in value or "\r" in value)


@contextlib.contextmanager
def input_paths(
    inputs: Mapping[str, tuple[object, str]], encoding: str = "utf-8"
) -> Iterator[dict[str, str | None]]:
    """``role -> (value, file name)`` as ``role -> path``: a path (str or os.PathLike) as it is, text
    (:func:`is_text`) written in ``encoding`` as ``file name`` into a temporary directory (removed
    afterwards), None as None. A path that is no readable file is an input error naming the path and the
    role (as the commands check their options); input errors naming a written file name ``<role>``."""
    problem = encoding_problem(encoding)
    if problem:
        raise ValueError(f"encoding: {problem}, found {encoding!r}")
    with tempfile.TemporaryDirectory(prefix="iescore-") as directory:
        paths: dict[str, str | None] = {}
        labels: dict[str, str] = {}
        for role, (value, name) in inputs.items():
            if value is None:
                paths[role] = None
            elif is_text(value):
                path = os.path.join(directory, name)
                Path(path).write_text(str(value), encoding=encoding, newline="")
                paths[role] = path
                labels[path] = f"<{role}>"
            elif isinstance(value, (str, os.PathLike)):
                paths[role] = os.fspath(value)
            else:
                raise InputError(
                    f"<{role}>", 0, f"a path or the file's text expected, not {type(value).__name__}"
                )
        check_paths([(role, paths[role], INPUT_FILE) for role in paths if paths[role] not in labels])
        try:
            yield paths
        except InputError as error:
            if not labels:
                raise
            raise InputError(named(error.file, labels), error.line, named(error.message, labels)) from error


def named(text: str, labels: Mapping[str, str]) -> str:
    """``text`` with each written file's path replaced by its argument's name."""
    for path, label in labels.items():
        text = text.replace(path, label)
    return text
