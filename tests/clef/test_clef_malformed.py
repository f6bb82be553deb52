"""Malformed input to ``iescore clef`` (issue 25, point 4): a table of variants of eval.pl's directories
and files (system and gold side) and of its options, each a clean exit 2 naming the file and line (or
the directory, or the option) and what was expected, with nothing written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "clef-sample"
GOOD = b"report-01||Disease_Disorder||C0008031||20||30\n"

# (id, file contents (None: no file), which side holds it, where the message points, what it says)
FILES = [
    ("4-fields", b"r||D||C||1\n", "r.pipe:1", "5, 7, 9, ... fields separated by '||', found 4"),
    ("6-fields", b"r||D||C||1||5||9\n", "r.pipe:1", "found 6"),
    ("trailing-separator", b"r||D||C||1||5||\n", "r.pipe:1", "found 6"),
    ("2-fields-line-3", b"\n\nr||D\n", "r.pipe:3", "found 2"),
    ("one-field", b"r||D||C||1||5\nnonsense\n", "r.pipe:2", "found 1"),
    ("offset-word", b"r||D||C||x||5\n", "r.pipe:1", "found 'x'"),
    ("offset-negative", b"r||D||C||-5||5\n", "r.pipe:1", "found '-5'"),
    ("offset-blank", b"r||D||C|| 1||5\n", "r.pipe:1", "found ' 1'"),
    ("offset-plus", b"r||D||C||+1||5\n", "r.pipe:1", "found '+1'"),
    ("offset-decimal", b"r||D||C||1.5||5\n", "r.pipe:1", "found '1.5'"),
    ("offset-empty", b"r||D||C||||5\n", "r.pipe:1", "found ''"),
    # Arrow's cast reads '0x1F' as 31: the offsets must be checked as ASCII digits before it converts them
    ("offset-hex", b"r||D||C||0x1F||50\n", "r.pipe:1", "found '0x1F'"),
    ("offset-arabic-digits", "r||D||C||\u0661\u0662||50\n".encode(), "r.pipe:1", "found '\u0661\u0662'"),
    ("offset-19-digits", b"r||D||C||1||1234567890123456789\n", "r.pipe:1", "found '1234567890123456789'"),
    ("end-before-start", b"r||D||C||9||5\n", "r.pipe:1", "found 5 after 9"),
    ("pieces-decreasing", b"r||D||C||30||35||20||25\n", "r.pipe:1", "increasing order"),
    ("not-utf8", b"r||D||C||1||5\nr||D||\xff||1||5\n", "r.pipe:2", "expected UTF-8 text"),
    ("utf16", "r||D||C||1||5\n".encode("utf-16"), "r.pipe:1", "expected UTF-8 text"),
    ("single-bars", b"r|D|C|1|5\n", "r.pipe:1", "found 1"),
    ("no-report", b"r||D||C||1||5\n||D||C||1||5\n", "r.pipe:2", "the report field is empty"),
]


def _argv(tmp_path: Path, system: Path, gold: Path, *options: str, name: str = "x") -> list[str]:
    return ["clef", "-input", str(system), "-gold", str(gold), "-n", name, "-r", "1", "-t", "1a",
            "--out", str(tmp_path / "out"), "--json", str(tmp_path / "out" / "x.json"), *options]  # fmt: skip


def _check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], where: str, message: str
) -> None:
    before = sorted(tmp_path.rglob("*"))
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err.startswith(f"iescore: {where}"), captured.err
    assert message in captured.err, captured.err
    assert captured.out == ""
    assert sorted(tmp_path.rglob("*")) == before  # nothing written


@pytest.mark.parametrize("side", ["system", "gold"])
@pytest.mark.parametrize(("data", "where", "message"), [f[1:] for f in FILES], ids=[f[0] for f in FILES])
def test_malformed_clef_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], side: str, data: bytes, where: str, message: str
) -> None:
    directories = {name: tmp_path / name for name in ("system", "gold")}
    for directory in directories.values():
        directory.mkdir()
        (directory / "a.pipe").write_bytes(GOOD)
    (directories[side] / "r.pipe").write_bytes(data)
    (tmp_path / "out").mkdir()
    argv = _argv(tmp_path, directories["system"], directories["gold"])
    _check(tmp_path, capsys, argv, str(directories[side] / where), message)


def _layout(tmp_path: Path, variant: str) -> tuple[Path, Path, str, str]:
    """System and gold directories for a directory variant, and where and what the message says."""
    system, gold = tmp_path / "system", tmp_path / "gold"
    shutil.copytree(SAMPLE / "run1", system)
    shutil.copytree(SAMPLE / "gold", gold)
    if variant == "system-empty":
        shutil.rmtree(system)
        system.mkdir()
        return system, gold, str(system), "no annotation files"
    if variant == "gold-empty":
        shutil.rmtree(gold)
        gold.mkdir()
        return system, gold, str(gold), "no annotation files"
    if variant == "system-hidden-only":
        shutil.rmtree(system)
        system.mkdir()
        (system / ".report").write_bytes(GOOD)
        (system / "report~").write_bytes(GOOD)
        return system, gold, str(system), "names starting with '.' or ending in '~' are skipped"
    if variant == "system-missing":
        shutil.rmtree(system)
        return system, gold, str(system), "directory not found (-input)"
    if variant == "gold-missing":
        shutil.rmtree(gold)
        return system, gold, str(gold), "directory not found (-gold)"
    if variant == "system-is-a-file":
        shutil.rmtree(system)
        system.write_bytes(GOOD)
        return system, gold, str(system), "is a file; expected a directory (-input)"
    raise AssertionError(variant)


DIRECTORIES = ["system-empty", "gold-empty", "system-hidden-only", "system-missing", "gold-missing",
               "system-is-a-file"]  # fmt: skip


@pytest.mark.parametrize("variant", DIRECTORIES)
def test_malformed_clef_directory_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], variant: str
) -> None:
    system, gold, where, message = _layout(tmp_path, variant)
    (tmp_path / "out").mkdir()
    _check(tmp_path, capsys, _argv(tmp_path, system, gold), where, message)


# (id, -n, other options, the option named, what it says)
OPTIONS = [
    ("n-parent", "../../x", [], "-n", "a run name expected, found '../../x'"),
    ("n-absolute", "/tmp/iescore-x", [], "-n", "inside --out"),
    ("n-subdirectory", "sub/x", [], "-n", "holds no '/'"),
    ("n-backslash", "a\\b", [], "-n", "holds no '/' or '\\'"),
    ("r-3", "x", ["-r", "3"], "-r", "expected 1 or 2"),
    ("t-unknown", "x", ["-t", "1c"], "-t", "expected one of"),
    ("workbench-without-texts", "x", ["--workbench", "w.html"], "--workbench", "needs the reports' texts"),
    (
        "texts-missing",
        "x",
        ["--workbench", "w.html", "--texts", "nowhere"],
        "nowhere",
        "directory not found (--texts)",
    ),
]


@pytest.mark.parametrize(
    ("name", "options", "where", "message"), [o[1:] for o in OPTIONS], ids=[o[0] for o in OPTIONS]
)
def test_malformed_clef_option_exits_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    options: list[str],
    where: str,
    message: str,
) -> None:
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    argv = _argv(tmp_path, SAMPLE / "run1", SAMPLE / "gold", *options, name=name)
    _check(tmp_path, capsys, argv, where, message)
    assert not list(Path("/tmp").glob("iescore-x.*"))


def test_out_that_is_a_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "out").write_text("a file\n")
    argv = _argv(tmp_path, SAMPLE / "run1", SAMPLE / "gold")
    _check(tmp_path, capsys, argv, str(tmp_path / "out"), "expected a directory to write into (--out)")


def test_report_in_one_directory_only_is_announced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # eval.pl (CLEF eHealth 2013) scores such a report without a word: report-01's gold mentions count
    # as missed, and the renamed system file's as spurious; the numbers stay eval.pl's, the files are said.
    system = tmp_path / "system"
    shutil.copytree(SAMPLE / "run1", system)
    (system / "report-01.pipe.txt").rename(system / "renamed.pipe.txt")
    argv = ["clef", "-input", str(system), "-gold", str(SAMPLE / "gold"), "-n", "x", "-r", "1", "-t", "1a",
            "--out", str(tmp_path)]  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert (
        f"iescore: warning: {SAMPLE / 'gold' / 'report-01.pipe.txt'}: a report file in {SAMPLE / 'gold'} "
        "only; its mentions count as missed (no system file of that name)\n"
    ) in err
    assert (
        f"iescore: warning: {system / 'renamed.pipe.txt'}: a report file in {system} only; its mentions "
        "count as spurious (no gold file of that name)\n"
    ) in err
    # The first field names the report, not the file: the scores equal those of the unrenamed run.
    renamed = (tmp_path / "x.1.1a.noadd").read_text()
    argv[2] = str(SAMPLE / "run1")
    assert main(argv) == 0
    assert (tmp_path / "x.1.1a.noadd").read_text() == renamed
    assert "warning" not in capsys.readouterr().err
