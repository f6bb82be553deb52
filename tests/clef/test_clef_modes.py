"""``iescore clef``'s stages computed in process (the default) and run by Luigi (``--store``): the same
files byte for byte, the same stdout and stderr; the in-process run imports no Luigi and writes no store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "clef-sample"
FIXTURES = ROOT / "tests" / "data" / "clef"


def outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, bytes | str]:
    """Run ``iescore clef`` writing into tmp_path; every file it wrote, its stdout and its stderr."""
    tmp_path.mkdir(parents=True)
    out = tmp_path / "out"
    extra = ["--out", str(out), "--json", str(tmp_path / "run.json"), "--by-report"]
    assert main([*argv, *extra]) == 0
    captured = capsys.readouterr()
    files = {str(p.relative_to(tmp_path)): p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file()}
    return {**files, "stdout": captured.out, "stderr": captured.err}


@pytest.mark.parametrize(
    ("system", "gold", "task", "workbench"),
    [
        (SAMPLE / "run1", SAMPLE / "gold", "A", True),
        (SAMPLE / "run2", SAMPLE / "gold", "1b", False),
        (SAMPLE / "task2" / "run1", SAMPLE / "task2" / "gold", "2", False),
        (FIXTURES / "edge" / "system", FIXTURES / "edge" / "gold", "1a", False),  # a replaced line: a warning
        (FIXTURES / "crlf" / "system", FIXTURES / "crlf" / "gold", "1a", False),  # CRLF: a warning
    ],
)
def test_in_process_and_store_write_the_same_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], system: Path, gold: Path, task: str, workbench: bool
) -> None:
    argv = ["clef", "-input", str(system), "-gold", str(gold), "-n", "m", "-r", "1", "-t", task]
    if workbench:
        argv += ["--workbench", "page.html", "--texts", str(SAMPLE / "texts")]
    in_process = outputs(
        tmp_path / "p", capsys, [a.replace("page.html", str(tmp_path / "p" / "w.html")) for a in argv]
    )
    store = tmp_path / "store"
    stored = outputs(
        tmp_path / "s",
        capsys,
        [*(a.replace("page.html", str(tmp_path / "s" / "w.html")) for a in argv), "--store", str(store)],
    )
    assert sorted(in_process) == sorted(stored)
    assert len(in_process) == 4 + workbench  # eval.pl's file, JSON, stdout, stderr (, the page)
    # A new store is announced on stderr; everything else is the same.
    stored["stderr"] = "".join(
        line
        for line in stored["stderr"].splitlines(True)
        if not line.startswith("iescore: created artifact store")
    )
    for name, value in in_process.items():
        assert value == stored[name], name
    assert "scorer:clef|task:" in in_process["stdout"]
    # run2 lacks report-03's file and has report-04's, which the gold lacks: both said.
    assert ("iescore: warning: " in in_process["stderr"]) == (
        FIXTURES in system.parents or system == SAMPLE / "run2"
    )
    assert any(store.rglob("*.parquet"))


def test_in_process_run_needs_no_luigi_and_writes_no_store(tmp_path: Path) -> None:
    code = (
        "import json, sys\n"
        "from iescore.tasks.cli.main import main\n"
        f"status = main(['clef', '-input', {str(SAMPLE / 'run1')!r}, '-gold', {str(SAMPLE / 'gold')!r}, "
        "'-n', 'x', '-r', '1', '-t', '1a'])\n"
        "assert status == 0, status\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('luigi', 'iescore.tasks')))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    modules = json.loads(result.stdout.strip().splitlines()[-1])
    assert not [m for m in modules if m.startswith("luigi")]
    lean = ("iescore.tasks.core.store", "iescore.tasks.core.task", "iescore.tasks.campaign")
    assert not [m for m in modules if m.startswith(lean)]
    assert "iescore.tasks.clef.stages" in modules  # the stages, computed in this process
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.1.1a.noadd"]
