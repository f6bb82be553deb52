"""The command line's arguments, checked before any work starts: paths, numbers and the scheduler.

A run that scores for minutes and then cannot write its ``--json`` (a directory of that name, a parent
that is a file) loses the work; so every sub-command checks each path it will read or write, and every
number, first. A bad path or number is the user's input problem: an :class:`InputError` naming the
path and the option (exit status 2), or for numbers argparse's own ``argument --workers: ...`` error
(also exit status 2). As root, permission bits do not stop a write, so "not writable" is mostly a
parent that is a regular file; :func:`os.access` covers the other users.
"""

from __future__ import annotations

import argparse
import math
import os
import socket
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.measures import is_usable_beta
from iescore.pipeline.core.settings import (
    ANY_COUNT,
    RESAMPLES,
    SEED,
    WORKERS,
    Count,
    encoding_problem,
    pattern_problem,
)

# What a path is for; a check is (option, path or None, kind).
INPUT_FILE = "input file"
INPUT_DIRECTORY = "input directory"
OUTPUT_FILE = "output file"
OUTPUT_DIRECTORY = "output directory"
SCHEDULER_TIMEOUT = 3.0  # seconds to wait for the central scheduler to accept a connection


def check_paths(checks: Iterable[tuple[str, str | Path | None, str]]) -> None:
    """Raise :class:`InputError` for the first path that cannot serve as its kind; ``None`` is skipped.

    Also refused: two options writing the same file (one would silently replace the other), an
    output file that is one of the inputs (the scores would overwrite what they were made from), and an
    output inside an input directory (it would be read back as input).
    """
    checks = [
        (option, path if isinstance(path, Path) else Path(path), kind)
        for option, path, kind in checks
        if path is not None
    ]
    folders: dict[str, str] = {}  # each folder resolved once (a campaign writes nine files a folder)
    resolved = [_resolved(path, folders) for _, path, _ in checks]
    # First, before any probe makes and removes a directory in an input directory (its time changes).
    _check_outside_inputs(checks, resolved)
    probes = Probes()
    for option, path, kind in checks:
        problem = path_problem(path, kind, probes)
        if problem:
            raise InputError(str(path), 0, f"{problem} ({option})")
    seen: dict[str, tuple[str, str]] = {}
    for (option, path, kind), real in zip(checks, resolved, strict=True):
        if kind not in (INPUT_FILE, OUTPUT_FILE):
            continue
        if real in seen and OUTPUT_FILE in (kind, seen[real][1]):
            other, other_kind = seen[real]
            if kind == other_kind:
                message = f"named by both {other} and {option}; each output needs its own file"
            else:
                message = (
                    f"is both an input and an output ({other}, {option}); iescore does not overwrite inputs"
                )
            raise InputError(str(path), 0, message)
        seen.setdefault(real, (option, kind))


def _resolved(path: Path, folders: dict[str, str]) -> str:
    """``path`` resolved as ``os.path.realpath`` resolves it, its folder resolved once among ``folders``
    (a link, or a name such as ``..``, is resolved whole). A name the system refuses (a NUL character) is
    made absolute as it stands: ``path_problem`` reports it."""
    text = os.fspath(path)
    parent, name = os.path.split(text)
    try:
        if name in ("", ".", "..") or os.path.islink(text):
            return os.path.realpath(text)
        folder = folders.get(parent)
        if folder is None:
            folder = folders[parent] = os.path.realpath(parent or ".")
    except (OSError, ValueError):
        return os.path.abspath(text)
    return os.path.join(folder, name)


def _check_outside_inputs(checks: list[tuple[str, Path, str]], resolved: list[str]) -> None:
    """No output inside an input directory (a gold, run or hypothesis directory), at any depth: the next
    run would read it back as input (and fail on it, or score it). ``resolved``: each check's path
    resolved. Each folder's ancestors are looked at once (a campaign of 1,000 systems writes 9,000
    files in 1,000 folders)."""
    inputs: dict[str, str] = {}
    for (option, _, kind), real in zip(checks, resolved, strict=True):
        if kind == INPUT_DIRECTORY:
            inputs.setdefault(real, option)
    if not inputs:
        return
    within: dict[str, str | None] = {}  # a folder -> the input directory it is or lies in, or None

    def input_around(folder: str) -> str | None:
        walked, place = [], folder
        while place not in within:
            walked.append(place)
            if place in inputs:
                within[place] = place
                break
            parent = os.path.dirname(place)
            if parent == place:
                within[place] = None
                break
            place = parent
        for seen in walked:
            within[seen] = within[place]
        return within[folder]

    for (option, path, kind), real in zip(checks, resolved, strict=True):
        if kind not in (OUTPUT_FILE, OUTPUT_DIRECTORY):
            continue
        place = input_around(real)
        if place is not None:
            where = "is the input directory" if place == real else "is inside the input directory"
            raise InputError(
                str(path),
                0,
                f"{where} {place} ({inputs[place]}): an output there would be read back as input; "
                f"write it elsewhere ({option})",
            )


class Probes:
    """What checking many paths at once has found out about their folders: the file systems that took a
    new directory (see ``_creatable``), and each folder's answer (a campaign writes nine files a folder)."""

    def __init__(self) -> None:
        self.devices: set[int] = set()
        self.folders: dict[Path, str | None] = {}


def path_problem(path: str | Path, kind: str, probes: Probes | None = None) -> str | None:
    """What stops ``path`` from serving as ``kind`` (one of the four kinds above), or None.

    A name the system refuses outright (too long, a NUL character) is a problem too, not a crash.
    ``probes``: what is known already, when many paths are checked at once.
    """
    try:
        return _path_problem(path if isinstance(path, Path) else Path(path), kind, probes or Probes())
    except OSError as error:
        return f"cannot be used: {error.strerror or error}"
    except ValueError as error:
        if "unknown path kind" in str(error):
            raise
        return f"cannot be used: {error}"


def _path_problem(path: Path, kind: str, probes: Probes) -> str | None:
    if kind == INPUT_FILE:
        if path.is_dir():
            return "is a directory; expected a file to read"
        if not path.exists():
            return "file not found"
        if not path.is_file():
            return "is not a regular file; expected a file to read"
        if not os.access(path, os.R_OK):
            return "is not readable"
        return None
    if kind == INPUT_DIRECTORY:
        if path.is_dir():
            return None
        return "is a file; expected a directory" if path.exists() else "directory not found"
    if kind == OUTPUT_FILE:
        try:
            mode: int | None = path.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            mode = None  # not there (a parent that is a file is the folder's problem, below)
        if mode is not None and stat.S_ISDIR(mode):
            return "is a directory; expected a file to write"
        if mode is not None and not stat.S_ISREG(mode):
            return "is not a regular file; expected a file to write (iescore replaces it)"
        # Files are written to a temporary file beside them and renamed: the directory must be writable.
        return _creatable(path.parent, probes)
    if kind == OUTPUT_DIRECTORY:
        if path.exists() and not path.is_dir():
            return "is a file; expected a directory to write into"
        return _creatable(path, probes)
    raise ValueError(f"unknown path kind {kind!r}")


def _creatable(directory: Path, probes: Probes) -> str | None:
    """Whether ``directory`` exists writable or can be made: its nearest existing ancestor decides (each
    folder found out once among ``probes``)."""
    if directory not in probes.folders:
        probes.folders[directory] = _folder_problem(directory, probes.devices)
    return probes.folders[directory]


def _folder_problem(directory: Path, probed: set[int]) -> str | None:
    ancestor = directory
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"cannot be written: {ancestor} is a file, not a directory"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"cannot be written: {ancestor} is not writable"
    # Permission bits are not the whole story (a read-only mount, /proc, which root "may" write): make a
    # directory there and take it away again, as writing will need.
    # A read-only mount (a bind mount shares its file system's device) is refused at once.
    if os.statvfs(ancestor).f_flag & os.ST_RDONLY:
        return f"cannot be written: {ancestor} is on a read-only mount"
    # A file system that took such a directory once is taken at its permission bits for the other
    # paths checked with it (a campaign checks a thousand; making a directory can take milliseconds).
    device = ancestor.stat().st_dev
    if device in probed:
        return None
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".iescore-check-", dir=ancestor))
    except FileNotFoundError:
        # The folder exists (just checked), yet making anything in it "is not found": a virtual file
        # system (/proc, /sys) that takes no new files, whatever its permission bits say.
        return f"cannot be written: {ancestor} takes no new files (a virtual file system such as /proc)"
    except OSError as error:
        return f"cannot be written: {ancestor}: {error.strerror or error}"
    probed.add(device)
    return None


def check_scheduler(host: str, port: int, timeout: float = SCHEDULER_TIMEOUT) -> None:
    """A central scheduler that does not answer is an error within seconds, before any task is built.

    (Luigi itself retries for about a minute and then fails with a traceback.)
    """
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise InputError(
            f"{host}:{port}",
            0,
            f"cannot reach the Luigi central scheduler (--scheduler-host, --scheduler-port): {reason}",
        ) from None


# --- numbers (argparse types: a bad value is ``argument --workers: ...``, exit status 2) -------------


# Options whose empty value has a meaning (the empty list: none); every other option taking a value
# refuses an empty one, which the commands would otherwise read as the option being absent.
EMPTY_MEANS_NONE = frozenset({"premodifiers", "punctuation", "unscored"})


def non_empty(text: str) -> str:
    """Any value but the empty string (paths, hosts, encodings)."""
    if text == "":
        raise argparse.ArgumentTypeError("expected a non-empty value, found ''")
    return text


def refuse_empty_values(parser: argparse.ArgumentParser) -> None:
    """Give every option of ``parser`` that takes a plain string value the :func:`non_empty` type."""
    for action in parser._actions:
        plain = isinstance(action, argparse._StoreAction) and action.type is None and action.nargs is None
        # (argparse also passes a string default through the type: an empty default stays allowed.)
        if plain and action.dest not in EMPTY_MEANS_NONE and action.default != "":
            action.type = non_empty


def bounded(count: Count) -> Callable[[str], int]:
    """The argument type of a count (``pipeline.core.settings``): the same range on every command as in
    campaign files, ``argument --seed: a whole number from 0 to ... expected ..., found '-1'``."""

    def parse(text: str) -> int:
        try:
            number: int | None = int(text)
        except ValueError:
            number = None
        problem = count.problem(number)
        if problem:
            raise argparse.ArgumentTypeError(f"{problem}, found {text!r}")
        return number

    parse.__name__ = count.name
    return parse


#: ``--workers``, ``--resamples``, ``--seed`` on every command; ``whole_number`` for the other counts
#: (``iescore trec -M``, ``-N``).
workers = bounded(WORKERS)
resamples = bounded(RESAMPLES)
seed = bounded(SEED)
whole_number = bounded(ANY_COUNT)


def text_encoding(text: str) -> str:
    """The name of a text encoding Python knows (``--encoding``); ``base64`` and the like are refused."""
    problem = encoding_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{problem}, found {text!r}")
    return text


def regular_expression(text: str) -> str:
    """A user's regular expression (``--file_re``), one RE2 can match in linear time
    (``pipeline.core.settings.pattern_problem``); not empty (no name is empty)."""
    problem = pattern_problem(non_empty(text))
    if problem:
        raise argparse.ArgumentTypeError(f"{problem}, found {text!r}")
    return text


def seconds(text: str) -> float:
    """A finite number of seconds, 0 or more (``--progress-every``)."""
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number < 0:
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds, 0 or more, found {text!r}")
    if number > threading.TIMEOUT_MAX:  # a longer wait overflows the platform's timer
        limit = threading.TIMEOUT_MAX
        raise argparse.ArgumentTypeError(f"expected at most {limit:g} seconds, found {text!r}")
    return number


def positive_float(text: str) -> float:
    """A finite number above 0 (``--beta``: F weighs recall beta times as much as precision).

    The campaign files' rule too (``pipeline.core.measures.is_usable_beta``).
    """
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not is_usable_beta(number):
        raise argparse.ArgumentTypeError(
            f"expected a finite number above 0 whose square is finite and above 0, found {text!r}"
        )
    return number


def port_number(text: str) -> int:
    """A TCP port, 1 to 65535."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if not 1 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 1 to 65535, found {text!r}")
    return number


# --- help -------------------------------------------------------------------------------------------


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, unless the help already says it.

    Flags (options without a value) and options whose default is "not given" (None, empty) say nothing:
    "(default: True)" on ``--no-upcase`` would mislead.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.nargs == 0 or action.default in (None, "", argparse.SUPPRESS):
            return text
        return super()._get_help_string(action)
