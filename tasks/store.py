"""The content-addressed artifact store.

A stage's key is the sha256 of its name, its VERSION, its significant options and the keys of its
inputs; a raw file enters by the sha256 of its bytes. The key names the artifact's path and the
task, so editing an input reruns exactly what depends on it and touching it reruns nothing.
Artifacts are written through Luigi's temporary paths: a killed run never leaves a file that looks
complete.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import luigi
import pyarrow as pa
import pyarrow.parquet as pq

PROVENANCE_KEY = b"iescore.provenance"


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
        {"stage": stage, "version": version, "options": options, "inputs": inputs},
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def artifact_path(store: str | Path, stage: str, key: str, name: str) -> Path:
    """``STORE/stage/ab/abcdef....name.parquet``; stage and name come from code, the key is hex."""
    if not all(c in "0123456789abcdef" for c in key) or len(key) != 64:
        raise ValueError(f"artifact key must be 64 hex digits, not {key!r}")
    return Path(store) / stage / key[:2] / f"{key}.{name}.parquet"


def write_table(target: luigi.LocalTarget, table: pa.Table, provenance: Mapping[str, Any]) -> None:
    """Write ``table`` to ``target`` atomically, with its provenance in the Parquet metadata."""
    metadata = dict(table.schema.metadata or {})
    metadata[PROVENANCE_KEY] = json.dumps(provenance, sort_keys=True, default=str).encode()
    table = table.replace_schema_metadata(metadata)
    with target.temporary_path() as temporary:
        pq.write_table(table, temporary)


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
