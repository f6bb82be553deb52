"""``pipeline.core.filebytes``: the bytes a command digests are the bytes its stage parses, read once."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from iescore.pipeline.core import filebytes
from iescore.pipeline.core.filebytes import digest, read_bytes


def _rewrite_keeping_mtime(path: Path, data: bytes) -> None:
    """Write ``data`` (as long as the old content) into ``path`` in place, its mtime unchanged."""
    status = path.stat()
    with open(path, "r+b") as handle:
        handle.write(data)
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))


def test_the_parse_gets_the_digested_bytes_once(tmp_path: Path) -> None:
    path = tmp_path / "report.pipe"
    path.write_bytes(b"aaaa")
    assert digest(str(path), keep=True) == hashlib.sha256(b"aaaa").hexdigest()
    # The disk now holds other bytes that stat cannot tell apart: the parse still gets what was digested
    # (kept, not read again), and only once.
    _rewrite_keeping_mtime(path, b"bbbb")
    assert read_bytes(str(path)) == b"aaaa"
    assert read_bytes(str(path)) == b"bbbb"


def test_any_spelling_of_the_path_finds_the_kept_bytes(tmp_path: Path) -> None:
    path = tmp_path / "report.pipe"
    path.write_bytes(b"aaaa")
    digest(str(path), keep=True)
    _rewrite_keeping_mtime(path, b"bbbb")
    assert read_bytes(str(tmp_path / "." / "report.pipe")) == b"aaaa"


def test_a_file_changed_since_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "report.pipe"
    path.write_bytes(b"aaaa")
    digest(str(path), keep=True)
    path.write_bytes(b"a longer text")
    assert read_bytes(str(path)) == b"a longer text"


def test_nothing_is_kept_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "report.pipe"
    path.write_bytes(b"aaaa")
    assert digest(str(path)) == hashlib.sha256(b"aaaa").hexdigest()
    _rewrite_keeping_mtime(path, b"bbbb")
    assert read_bytes(str(path)) == b"bbbb"


def test_the_budget_drops_the_oldest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(filebytes, "KEPT_BYTES", 10)
    first, second = tmp_path / "first", tmp_path / "second"
    first.write_bytes(b"111111")
    second.write_bytes(b"222222")
    digest(str(first), keep=True)
    digest(str(second), keep=True)  # 12 bytes > 10: the first is dropped
    assert filebytes._kept_size <= 10
    _rewrite_keeping_mtime(first, b"333333")
    _rewrite_keeping_mtime(second, b"444444")
    assert read_bytes(str(first)) == b"333333"
    assert read_bytes(str(second)) == b"222222"


def test_a_large_file_is_hashed_whole_and_not_kept(tmp_path: Path) -> None:
    # Larger than what is read in one piece without keeping (a megabyte): hashed as it is read.
    path = tmp_path / "large.pipe"
    data = bytes(range(256)) * (5 << 12)  # 5 MiB
    path.write_bytes(data)
    assert digest(str(path)) == hashlib.sha256(data).hexdigest()
    assert digest(str(path), keep=True) == hashlib.sha256(data).hexdigest()
    assert read_bytes(str(path)) == data


def test_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.pipe"
    path.write_bytes(b"")
    assert digest(str(path), keep=True) == hashlib.sha256(b"").hexdigest()
    assert read_bytes(str(path)) == b""
