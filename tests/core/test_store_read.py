"""The store's table reader: what ``pq.read_table`` gives, columns, metadata and refusals included."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from iescore.tasks.core.store import PROVENANCE_KEY, provenance, read_table, write_table


def _artifact(tmp_path: Path) -> Path:
    path = tmp_path / "a.parquet"
    table = pa.table({"doc_id": ["d1", "d2", None], "count": pa.array([1, None, 3], pa.int64())})
    write_table(str(path), table, {"stage": "Test", "key": "k"})
    return path


def test_the_whole_table_and_its_metadata_as_pq_read_table_gives_them(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    table = read_table(path)
    assert table.equals(pq.read_table(path))
    assert table.schema.equals(pq.read_table(path).schema, check_metadata=True)
    assert PROVENANCE_KEY in table.schema.metadata
    assert provenance(path)["stage"] == "Test"


def test_some_columns_in_the_order_asked(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    table = read_table(path, ["count", "doc_id"])
    assert table.column_names == ["count", "doc_id"]
    assert table.equals(pq.read_table(path, columns=["count", "doc_id"]))


def test_a_column_the_file_lacks_is_refused_not_skipped(tmp_path: Path) -> None:
    # Parquet's file reader alone would return the table without it.
    path = _artifact(tmp_path)
    with pytest.raises(pa.ArrowInvalid, match="no column slot"):
        read_table(path, ["doc_id", "slot"])


def test_a_file_that_is_not_parquet_or_not_there(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    with pytest.raises(pa.ArrowInvalid):
        read_table(bad)
    with pytest.raises(FileNotFoundError):
        read_table(tmp_path / "absent.parquet")
