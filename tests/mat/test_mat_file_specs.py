"""The specs of a MAT side's many files (``tasks.core.base.file_specs``): each as ``file_spec`` gives it.

``file_spec`` (one path at a time) is the oracle: the batch resolves each directory once, and must give
the same resolved path and digest for plain files, relative paths, links and files under a linked
directory.
"""

from __future__ import annotations

import os

from iescore.tasks.core.base import file_spec, file_specs


def test_file_specs_are_file_spec_of_each_path(tmp_path, monkeypatch):
    real = tmp_path / "real"
    real.mkdir()
    (real / "a.json").write_text("{}")
    (real / "b.json").write_text('{"x": 1}')
    (tmp_path / "linked").symlink_to(real, target_is_directory=True)
    (real / "c.json").symlink_to(real / "b.json")
    (real / "sub").mkdir()
    (real / "sub" / "d.json").write_text("[]")
    monkeypatch.chdir(tmp_path)
    paths = [
        str(real / "a.json"),
        "real/b.json",
        os.path.join("linked", "a.json"),
        str(tmp_path / "linked" / "sub" / "d.json"),
        str(real / "c.json"),
        str(real / "sub"),
    ]
    assert file_specs(paths) == [file_spec(path) for path in paths]
    # A linked directory resolves to its target; a link to a file resolves to the file it names.
    assert file_specs(paths)[2]["file"] == str((real / "a.json").resolve())
    assert file_specs(paths)[4]["file"] == str((real / "b.json").resolve())
