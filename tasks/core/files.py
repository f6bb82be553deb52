"""Digests and atomic writes, without Luigi: what every command and the artifact store share.

A raw input enters a stage's key by the sha256 of its bytes (``file_digest``), a stage by the sha256 of
its name, VERSION, options and inputs' keys (``stage_key``). Every file iescore writes (an artifact, a
report, a leaderboard) is written to a temporary file beside its final path and renamed into place
(``atomic_path``, ``write_text``): a killed run never leaves a file that looks complete. A temporary
file's name says which host and process wrote it (``TEMPORARY_MARK``), so the store can sweep those of
dead processes and never those of a run still going.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from iescore.pipeline.core.filebytes import digest

TEMPORARY_MARK = ".iescore-tmp."


def file_digest(path: str | Path, keep: bool = False) -> str:
    """sha256 of a file's bytes; ``keep``: keep them for the stage that parses the file in this process
    (``iescore.pipeline.core.filebytes``)."""
    return digest(str(path), keep)


def stage_key(stage: str, version: int, options: Mapping[str, Any], inputs: Mapping[str, str]) -> str:
    """The content address of a stage's artifacts: sha256 of its name, VERSION, options and input keys."""
    payload = json.dumps(
        plain({"stage": stage, "version": version, "options": options, "inputs": inputs}),
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def plain(value: Any) -> Any:
    """``value`` with every mapping a dict and every sequence a list.

    A spec must key the same whether it was built here or came back frozen from a Luigi parameter.
    """
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[str]:
    """A temporary path beside ``path``, renamed onto it when the block ends without an exception.

    The name ``.NAME.iescore-tmp.HOST.PID.RANDOM`` lets the store tell a dead writer's leftovers from a
    live one's. Readers only ever see ``path`` complete or absent.
    """
    final = Path(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    temporary = final.parent / f".{final.name}{TEMPORARY_MARK}{host()}.{os.getpid()}.{uuid.uuid4().hex[:12]}"
    try:
        yield str(temporary)
        os.replace(temporary, final)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def write_text(path: str | Path, text: str) -> None:
    """Write a text file (UTF-8) atomically."""
    with atomic_path(path) as temporary:
        Path(temporary).write_text(text, encoding="utf-8")


def host() -> str:
    """This host's name as temporary files carry it (dots allowed: their fields are split from the right)."""
    return socket.gethostname().replace("/", "_") or "localhost"
