"""``prefetch_digests``: the files a campaign names hashed two at a time before its specs are built; the
specs then find the same digests ``file_spec`` makes, and nothing else changes."""

from __future__ import annotations

import hashlib
from pathlib import Path

from iescore.tasks.core import base
from iescore.tasks.core.base import file_spec, prefetch_digests


def test_the_specs_find_the_digests_made_before(tmp_path: Path) -> None:
    files = []
    for n in range(6):
        path = tmp_path / f"system{n}.tpl"
        path.write_bytes(bytes([n]) * (3 << 20 if n == 0 else 1000 + n))
        files.append(path)
    folder = tmp_path / "folder"
    folder.mkdir()
    base._digest.cache_clear()
    prefetch_digests([*files, folder, tmp_path / "absent.tpl", files[0]])
    made = base._digest.cache_info().currsize
    assert made == len(files)  # each regular file once; the folder and the absent file left alone
    for path in files:
        assert file_spec(path)["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert base._digest.cache_info().hits >= len(files)


def test_an_edited_file_is_hashed_again(tmp_path: Path) -> None:
    path = tmp_path / "a.tpl"
    path.write_text("first")
    other = tmp_path / "b.tpl"
    other.write_text("other")
    prefetch_digests([path, other])
    before = file_spec(path)["sha256"]
    path.write_text("second, longer")
    assert file_spec(path)["sha256"] == hashlib.sha256(b"second, longer").hexdigest() != before
