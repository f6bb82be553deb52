"""The content-addressed artifact store.

A stage's key is the sha256 of its name, its VERSION, its significant options and the keys of its
inputs; a raw file enters by the sha256 of its bytes. The key names the artifact's path and the
task, so editing an input reruns exactly what depends on it and touching it reruns nothing.
Artifacts are written to a temporary file beside their final path and renamed into place (atomic on
one file system): a killed run never leaves a file that looks complete. A temporary file's name says
which host and process wrote it, so a later run sweeps those of dead processes and never those of a
campaign still running against the same store.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import luigi
import pyarrow as pa
import pyarrow.parquet as pq

PROVENANCE_KEY = b"iescore.provenance"
TEMPORARY_MARK = ".iescore-tmp."
# A temporary file of another host cannot be checked for a live writer: it is swept after this long.
FOREIGN_TEMPORARY_AGE = 24 * 3600.0


def file_digest(path: str | Path) -> str:
    """sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def stage_key(stage: str, version: int, options: Mapping[str, Any], inputs: Mapping[str, str]) -> str:
    """The content address of a stage's artifact."""
    payload = json.dumps(
        plain({"stage": stage, "version": version, "options": options, "inputs": inputs}),
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def plain(value: Any) -> Any:
    """``value`` with every mapping a dict and every sequence a list.

    Luigi freezes a DictParameter into FrozenOrderedDicts and tuples; a spec must key the same whether
    it was built here or came back frozen from a parent task's parameter.
    """
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def artifact_path(store: str | Path, stage: str, key: str, name: str) -> Path:
    """``STORE/stage/ab/abcdef....name.parquet``; stage and name come from code, the key is hex."""
    if not all(c in "0123456789abcdef" for c in key) or len(key) != 64:
        raise ValueError(f"artifact key must be 64 hex digits, not {key!r}")
    return Path(store) / stage / key[:2] / f"{key}.{name}.parquet"


def write_table(target: luigi.LocalTarget, table: pa.Table, provenance: Mapping[str, Any]) -> None:
    """Write ``table`` to ``target`` atomically, with its provenance in the Parquet metadata."""
    metadata = dict(table.schema.metadata or {})
    metadata[PROVENANCE_KEY] = json.dumps(plain(provenance), sort_keys=True, default=str).encode()
    table = table.replace_schema_metadata(metadata)
    path = target.path if isinstance(target, luigi.LocalTarget) else str(target)
    with atomic_path(path) as temporary:
        pq.write_table(table, temporary)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[str]:
    """A temporary path beside ``path``, renamed onto it when the block ends without an exception.

    The name ``.NAME.iescore-tmp.HOST.PID.RANDOM`` lets ``sweep_temporaries`` tell a dead writer's
    leftovers from a live one's. Readers only ever see ``path`` complete or absent.
    """
    final = Path(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    temporary = final.parent / (
        f".{final.name}{TEMPORARY_MARK}{_host()}.{os.getpid()}.{uuid.uuid4().hex[:12]}"
    )
    try:
        yield str(temporary)
        os.replace(temporary, final)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def write_text(path: str | Path, text: str) -> None:
    """Write a text file atomically (reports and leaderboards outside the store too)."""
    with atomic_path(path) as temporary:
        Path(temporary).write_text(text, encoding="utf-8")


def sweep_temporaries(store: str | Path, now: float | None = None) -> list[Path]:
    """Delete temporary files left by killed writers; return what was deleted.

    A file of this host is stale when its process is gone; one of another host when it is older
    than ``FOREIGN_TEMPORARY_AGE``. A live writer's file is never touched.
    """
    now = time.time() if now is None else now
    swept = []
    for candidate in Path(store).glob(f"**/.*{TEMPORARY_MARK}*"):
        host, pid = _writer(candidate.name)
        try:
            stale = (
                not _alive(pid)
                if host == _host()
                else now - candidate.stat().st_mtime > FOREIGN_TEMPORARY_AGE
            )
            if stale:
                candidate.unlink()
                swept.append(candidate)
        except FileNotFoundError:  # its writer finished (or another sweeper got there) meanwhile
            continue
    return swept


def _host() -> str:
    # Host names may hold dots; the temporary name's fields are split from the right.
    return socket.gethostname().replace("/", "_") or "localhost"


def _writer(name: str) -> tuple[str, int]:
    parts = name.split(TEMPORARY_MARK, 1)[1].rsplit(".", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return "", -1  # not ours to judge by process: swept by age
    return parts[0], int(parts[1])


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def read_table(target: luigi.LocalTarget | str | Path) -> pa.Table:
    path = target.path if isinstance(target, luigi.LocalTarget) else str(target)
    return pq.read_table(path)


def provenance(path: str | Path) -> dict[str, Any]:
    """The provenance recorded in an artifact (empty for a file iescore did not write)."""
    metadata = pq.read_schema(path).metadata or {}
    raw = metadata.get(PROVENANCE_KEY)
    return json.loads(raw) if raw else {}


def list_artifacts(store: str | Path) -> list[dict[str, Any]]:
    """Every artifact of a store with its stage, key, rows and provenance, by stage then key."""
    rows = []
    for path in sorted(Path(store).glob("*/*/*.parquet")):
        meta = pq.read_metadata(path)
        rows.append({"path": str(path), "rows": meta.num_rows, **provenance(path)})
    return rows
