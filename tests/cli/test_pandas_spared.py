"""pandas imported where first used (``pipeline.core.lazy``): a one-system campaign rerun's own process
imports none (a fifth of a second of it, issue 16), and its outputs are those of a run that did; a run
that forks a process per task imports it once, before the forks."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from pipeline.core.lazy import LazyModule

ROOT = Path(__file__).resolve().parents[2]

# Runs the command (after importing pandas, given "pandas" first), then says whether pandas was imported
# in its process.
PROBE = """
import sys
argv = sys.argv[1:]
if argv[0] == "pandas":
    import pandas
    argv = argv[1:]
from tasks.cli.main import main
status = main(argv)
print(status, "pandas" in sys.modules)
"""


def run(*argv: object, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *map(str, argv)], capture_output=True, text=True, cwd=cwd
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[-1]


def test_a_one_system_rerun_imports_no_pandas(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "data" / "hub4-sports", tmp_path / "hub4-sports")
    shutil.copy(ROOT / "data" / "campaign.toml", tmp_path / "campaign.toml")
    argv = ("campaign", "campaign.toml", "--store", "store", "--workers", 2, "--progress", "none")
    # A first run forks a process per task: pandas is imported once, before the forks.
    assert run(*argv, "--out", "cold", cwd=tmp_path) == "0 True"
    eager = tmp_path / "hub4-sports" / "eager.tpl"
    eager.write_text(eager.read_text().replace('"1986" ##442#446#', '"12 years" ##259#267#'))
    assert run(*argv, "--out", "cold", cwd=tmp_path) == "0 False"
    # The same outputs as a run from the same store in a process that had pandas.
    assert run("pandas", *argv, "--out", "warm", cwd=tmp_path) == "0 True"
    for path in sorted((tmp_path / "cold").rglob("*")):
        if path.is_file():
            relative = path.relative_to(tmp_path / "cold")
            assert (tmp_path / "warm" / relative).read_bytes() == path.read_bytes(), relative


def test_a_lazy_module_is_imported_when_first_used_then_keeps_its_names() -> None:
    lazy = LazyModule("json")
    assert "imported when first used" in repr(lazy)
    assert lazy.dumps([1]) == "[1]"
    assert "dumps" in vars(lazy)  # kept: asked again, found without a call
