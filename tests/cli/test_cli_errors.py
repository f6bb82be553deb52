"""The command line's paths, numbers and help (issue 10): bad ones stop every command before any work.

An output that cannot be written (a directory where a file is needed, a file where a directory is
needed, a parent that is a regular file) is exit status 2 naming the path and the option, and nothing
is scored: the store is not even created. Tests run as root, where permission bits do not stop a
write, so "not writable" is a parent that is a regular file; the chmod test is skipped as root.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import socket
from pathlib import Path

import pytest
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import _parser, main
from iescore.tasks.core.arguments import (
    INPUT_DIRECTORY,
    INPUT_FILE,
    OUTPUT_DIRECTORY,
    OUTPUT_FILE,
    HelpFormatter,
    check_paths,
    path_problem,
)
from iescore.tasks.core.jsontext import json_text

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT.parent / "shared" / "samples" / "hub4-sports"
DATA = ROOT / "data"
MUC_DATA = ROOT / "tests" / "data"


def cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def usage_error(capsys: pytest.CaptureFixture[str], *argv: object) -> str:
    """An argparse-level error: exit status 2 and the message on stderr."""
    with pytest.raises(SystemExit) as exit_info:
        main([str(a) for a in argv])
    assert exit_info.value.code == 2
    return capsys.readouterr().err


def templette_args(store: Path) -> list[object]:
    return ["templette", "--ref", SAMPLE / "ref.tpl", "--hyp", SAMPLE / "hyp.tpl", "--texts",
            SAMPLE / "texts.sgml", "--store", store]  # fmt: skip


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    """A directory and a regular file, to be named where the other is needed."""
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("not a directory\n")
    return {"dir": tmp_path / "dir", "file": tmp_path / "file"}


# --- output paths, checked before any work -------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "where", "expected"),
    [
        ("--json", "dir", "is a directory; expected a file to write"),
        ("--json", "file/scores.json", "cannot be written: {file} is a file, not a directory"),
        ("--summary", "dir", "is a directory; expected a file to write"),
        ("--summary", "file/deeper/summary.txt", "cannot be written: {file} is a file, not a directory"),
        ("--csv", "file", "is a file; expected a directory to write into"),
        ("--csv", "file/tables", "cannot be written: {file} is a file, not a directory"),
        ("--store", "file", "is a file; expected a directory to write into"),
    ],
)
def test_templette_output_checked_before_scoring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], places: dict[str, Path], option: str, where: str,
    expected: str,
) -> None:  # fmt: skip
    target = tmp_path / where
    store = tmp_path / "store"
    argv = templette_args(store)
    if option == "--store":
        argv = argv[:-2]
        store = target
    status, out, err = cli(capsys, *argv, option, target)
    assert status == 2
    assert err == f"iescore: {target}: {expected.format(file=places['file'])} ({option})\n"
    assert out == ""  # no score report: nothing was scored
    assert option == "--store" or not store.exists()


def test_templette_csv_file_that_is_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --csv DIR writes DIR/totals.csv: a directory of that name is found before scoring.
    (tmp_path / "tables" / "totals.csv").mkdir(parents=True)
    status, _, err = cli(capsys, *templette_args(tmp_path / "store"), "--csv", tmp_path / "tables")
    assert status == 2 and "tables/totals.csv: is a directory; expected a file to write (--csv)" in err
    assert not (tmp_path / "store").exists()


def test_output_that_is_an_input_or_another_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reference = tmp_path / "ref.tpl"
    shutil.copy(SAMPLE / "ref.tpl", reference)
    before = reference.read_bytes()
    argv = ["templette", "--ref", reference, "--hyp", SAMPLE / "hyp.tpl", "--store", tmp_path / "store"]
    status, _, err = cli(capsys, *argv, "--json", reference)
    assert status == 2 and "is both an input and an output (--ref, --json)" in err
    assert reference.read_bytes() == before
    status, _, err = cli(
        capsys, *argv, "--json", tmp_path / "a.txt", "--summary", tmp_path / "x" / ".." / "a.txt"
    )
    assert status == 2 and "named by both --json and --summary" in err
    assert not (tmp_path / "store").exists()
    # Through links: a link to the input, and a folder linked to the input's folder.
    (tmp_path / "link.json").symlink_to(reference)
    status, _, err = cli(capsys, *argv, "--json", tmp_path / "link.json")
    assert status == 2 and "is both an input and an output (--ref, --json)" in err
    (tmp_path / "same").symlink_to(tmp_path, target_is_directory=True)
    status, _, err = cli(capsys, *argv, "--json", tmp_path / "same" / "ref.tpl")
    assert status == 2 and "is both an input and an output (--ref, --json)" in err
    assert reference.read_bytes() == before


def test_unwritable_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes through permission bits")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        status, _, err = cli(capsys, *templette_args(tmp_path / "store"), "--json", locked / "s.json")
        assert status == 2 and f"cannot be written: {locked} is not writable (--json)" in err
    finally:
        locked.chmod(0o700)


def test_align_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str], places: dict[str, Path]) -> None:
    trn = tmp_path / "a.trn"
    trn.write_text("a b c (u1)\n")
    status, out, err = cli(capsys, "align", "--ref", places["dir"], "--hyp", trn)
    assert (status, err) == (
        2,
        f"iescore: {places['dir']}: is a directory; expected a file to read (--ref)\n",
    )
    status, out, err = cli(capsys, "align", "--ref", trn, "--hyp", trn, "--json", places["dir"])
    assert status == 2 and out == "" and "is a directory; expected a file to write (--json)" in err


def test_coref_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str], places: dict[str, Path]) -> None:
    key = MUC_DATA / "muc_co" / "key.sgml"
    response = MUC_DATA / "muc_co" / "response.sgml"
    argv = ["coref", "-f", "sgml", "--key", key, "--response", response]
    for option, target in (("--json", places["dir"]), ("--partitions", places["file"] / "p.txt"),
                           ("--summary", places["dir"])):  # fmt: skip
        status, out, err = cli(capsys, *argv, option, target)
        assert status == 2 and out == "" and err.startswith(f"iescore: {target}: ") and f"({option})" in err
    status, _, err = cli(capsys, "coref", "--key", places["dir"], "--response", response)
    assert status == 2 and "is a directory; expected a file to read (--key)" in err


# --- campaign ----------------------------------------------------------------------------------------


def copy_campaign(tmp_path: Path, top: str = "", store: str = "store") -> Path:
    """The sample campaign in ``tmp_path``; ``top`` goes first and ``store`` replaces its store."""
    shutil.copytree(DATA / "hub4-sports", tmp_path / "hub4-sports")
    text = (DATA / "campaign.toml").read_text(encoding="utf-8")
    text = text.replace('\nstore = "store"', f"\nstore = {json.dumps(store)}")
    (tmp_path / "campaign.toml").write_text(top + text, encoding="utf-8")
    return tmp_path / "campaign.toml"


@pytest.mark.parametrize(
    ("option", "where", "expected"),
    [
        ("--out", "file", "is a file; expected a directory to write into"),
        ("--json", "dir", "is a directory; expected a file to write"),
        ("--csv", "dir", "is a directory; expected a file to write"),
        ("--html", "dir", "is a directory; expected a file to write"),
        ("--tasks-log", "file/log.json", "cannot be written: {file} is a file, not a directory"),
        ("--store", "file", "is a file; expected a directory to write into"),
    ],
)
def test_campaign_output_checked_before_scoring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], places: dict[str, Path], option: str, where: str,
    expected: str,
) -> None:  # fmt: skip
    campaign_file = copy_campaign(tmp_path)
    target = tmp_path / where
    store = target if option == "--store" else tmp_path / "store"
    argv = ["campaign", campaign_file, "--progress", "none"]
    argv += [option, target] if option == "--store" else ["--store", store, option, target]
    status, out, err = cli(capsys, *argv)
    assert status == 2 and out == ""
    assert err == f"iescore: {target}: {expected.format(file=places['file'])} ({option})\n"
    assert option == "--store" or not store.exists()


def test_campaign_output_directory_contents(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --out DIR writes DIR/leaderboard.json and DIR/systems/<name>/: both are checked before scoring.
    campaign_file = copy_campaign(tmp_path)
    out = tmp_path / "out"
    (out / "leaderboard.json").mkdir(parents=True)
    argv = ["campaign", campaign_file, "--store", tmp_path / "store", "--out", out]
    status, _, err = cli(capsys, *argv)
    assert (
        status == 2 and f"{out / 'leaderboard.json'}: is a directory; expected a file to write (--out)" in err
    )
    (out / "leaderboard.json").rmdir()
    (out / "systems").write_text("")
    status, _, err = cli(capsys, *argv)
    assert status == 2 and f"{out / 'systems'}: is a file; expected a directory to write into (--out)" in err
    assert not (tmp_path / "store").exists()


def test_campaign_file_output_and_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The campaign file's own `output` and `store` are named as such in the message.
    campaign_file = copy_campaign(tmp_path, 'output = "results"\n')
    (tmp_path / "results").write_text("")
    status, _, err = cli(capsys, "campaign", campaign_file, "--store", tmp_path / "store")
    assert status == 2 and err.endswith("results: is a file; expected a directory to write into (output in "
                                        "campaign.toml:1)\n")  # fmt: skip
    campaign_file = copy_campaign(tmp_path / "second", store="kept")
    (tmp_path / "second" / "kept").write_text("")
    status, _, err = cli(capsys, "campaign", campaign_file)
    assert status == 2
    assert "kept: is a file; expected a directory to write into (store in campaign.toml:6)" in err


def test_campaign_file_that_is_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = cli(capsys, "campaign", tmp_path)
    assert (status, err) == (2, f"iescore: {tmp_path}: is a directory; expected a file to read (CAMPAIGN)\n")


def test_out_and_html_both_get_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    campaign_file = copy_campaign(tmp_path)
    out, page = tmp_path / "out", tmp_path / "elsewhere" / "page.html"
    argv = ["campaign", campaign_file, "--store", tmp_path / "store", "--out", out, "--html", page,
            "--progress", "none"]  # fmt: skip
    status, _, err = cli(capsys, *argv)
    assert status == 0, err
    assert page.is_file() and (out / "report.html").is_file()
    assert page.read_bytes() == (out / "report.html").read_bytes()
    assert "<html" in page.read_text(encoding="utf-8").lower()
    # Rerun: the pages are fresh, neither is rewritten; a page deleted in one place comes back.
    (out / "report.html").unlink()
    assert cli(capsys, *argv)[0] == 0
    assert (out / "report.html").read_bytes() == page.read_bytes()
    # --html naming the output directory's own report.html (spelt differently) is one page, not a clash.
    same = out / "systems" / ".." / "report.html"
    assert cli(capsys, *argv[:-4], "--html", same, "--progress", "none")[0] == 0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_scheduler(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Nobody listens on a port just freed: refused at once, before Luigi's minute of retries.
    campaign_file = copy_campaign(tmp_path)
    port = free_port()
    argv = ["campaign", campaign_file, "--store", tmp_path / "store", "--progress", "none"]
    status, out, err = cli(capsys, *argv, "--scheduler-host", "127.0.0.1", "--scheduler-port", port)
    assert status == 2 and out == ""
    assert err.startswith(f"iescore: 127.0.0.1:{port}: cannot reach the Luigi central scheduler")
    assert not list((tmp_path / "store").glob("*/*/*.parquet"))


def test_scheduler_port_without_host(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Without a host the local scheduler runs: a port alone would be ignored, so it is refused.
    status, _, err = cli(capsys, "campaign", copy_campaign(tmp_path), "--scheduler-port", "8082")
    assert (status, err) == (2, "iescore: --scheduler-port: needs --scheduler-host (without a host the local "
                                "scheduler runs)\n")  # fmt: skip
    assert not (tmp_path / "store").exists()


# --- MUC configurations ------------------------------------------------------------------------------


def muc_copy(tmp_path: Path, name: str, replace: tuple[str, str] | None = None) -> Path:
    folder = tmp_path / name
    shutil.copytree(MUC_DATA / name, folder)
    config = next(folder.glob("*.config"))
    if replace:
        text = config.read_text()
        assert replace[0] in text
        config.write_text(text.replace(*replace))
    return config


def test_muc_output_file_that_is_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # te.config line 15: ":report_summary_file out/summary.txt".
    config = muc_copy(tmp_path, "muc_te")
    (config.parent / "out" / "summary.txt").mkdir(parents=True)
    status, out, err = cli(capsys, "muc", config, "--store", tmp_path / "store")
    summary = config.parent / "out" / "summary.txt"
    assert (status, out) == (2, "")
    assert (
        err
        == f"iescore: {config}:15: :report_summary_file {summary}: is a directory; expected a file to write\n"
    )
    assert not (tmp_path / "store").exists()


def test_muc_output_under_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # co.config line 6: ":partitions_file out/partitions.txt", with "out" a regular file.
    config = muc_copy(tmp_path, "muc_co")
    (config.parent / "out").write_text("")
    status, _, err = cli(capsys, "muc", config, "--store", tmp_path / "store")
    assert status == 2
    assert err.startswith(
        f"iescore: {config}:6: :partitions_file {config.parent / 'out' / 'partitions.txt'}: "
    )
    assert err.endswith(f"cannot be written: {config.parent / 'out'} is a file, not a directory\n")


@pytest.mark.parametrize(
    ("value", "expected"),
    [("missing.tpl", "file not found"), ("out", "is a directory; expected a file to read")],
)
def test_muc_input_file_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, expected: str
) -> None:
    # te.config line 12: ":key_file key.tpl".
    config = muc_copy(tmp_path, "muc_te", (":key_file key.tpl", f":key_file {value}"))
    (config.parent / "out").mkdir()
    status, _, err = cli(capsys, "muc", config, "--store", tmp_path / "store")
    assert (status, err) == (2, f"iescore: {config}:12: :key_file {config.parent / value}: {expected}\n")


def test_muc_outputs_sharing_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = muc_copy(tmp_path, "muc_te", ("out/history.tcl", "out/scores.txt"))
    status, _, err = cli(capsys, "muc", config, "--store", tmp_path / "store")
    assert status == 2 and f"{config}:16: :map_history_file" in err and "also named by :score_file" in err


def test_muc_store_and_config_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], places: dict[str, Path]
) -> None:
    config = muc_copy(tmp_path, "muc_te")
    status, _, err = cli(capsys, "muc", config, "--store", places["file"])
    assert (status, err) == (2, f"iescore: {places['file']}: is a file; expected a directory to write into "
                                "(--store)\n")  # fmt: skip
    status, _, err = cli(capsys, "muc", places["dir"])
    assert (status, err) == (
        2,
        f"iescore: {places['dir']}: is a directory; expected a file to read (CONFIG)\n",
    )


# --- artifacts ---------------------------------------------------------------------------------------


def test_artifacts_of_a_missing_store_or_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], places: dict[str, Path]
) -> None:
    status, _, err = cli(capsys, "artifacts", tmp_path / "nowhere")
    assert (status, err) == (2, f"iescore: {tmp_path / 'nowhere'}: directory not found (STORE)\n")
    status, _, err = cli(capsys, "artifacts", places["file"])
    assert (status, err) == (2, f"iescore: {places['file']}: is a file; expected a directory (STORE)\n")
    assert cli(capsys, "artifacts", places["dir"])[0] == 0


# --- numbers -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["templette", "campaign", "muc"])
@pytest.mark.parametrize("workers", ["0", "-3", "two"])
def test_workers_must_be_one_or_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, workers: str
) -> None:
    argv = {"templette": ["templette", "--ref", "r", "--hyp", "h"], "campaign": ["campaign", "c.toml"],
            "muc": ["muc", "c.config"]}[command]  # fmt: skip
    err = usage_error(capsys, *argv, "--workers", workers)
    assert "argument --workers: a whole number from 1 to 256 expected (processes of one machine" in err
    assert f"found '{workers}'" in err


@pytest.mark.parametrize("beta", ["0", "-1", "nan", "inf", "-inf", "x"])
def test_beta_must_be_finite_and_positive(capsys: pytest.CaptureFixture[str], beta: str) -> None:
    err = usage_error(capsys, "templette", "--ref", "r", "--hyp", "h", f"--beta={beta}")
    expected = "expected a finite number above 0 whose square is finite and above 0"
    assert f"argument --beta: {expected}, found '{beta}'" in err


@pytest.mark.parametrize("every", ["-1", "nan", "inf", "soon"])
def test_progress_interval_is_a_finite_number_of_seconds(
    capsys: pytest.CaptureFixture[str], every: str
) -> None:
    err = usage_error(capsys, "align", "--ref", "r", "--hyp", "h", f"--progress-every={every}")
    assert (
        f"argument --progress-every: expected a finite number of seconds, 0 or more, found '{every}'" in err
    )


@pytest.mark.parametrize("port", ["0", "65536", "-1", "http"])
def test_scheduler_port_range(capsys: pytest.CaptureFixture[str], port: str) -> None:
    err = usage_error(capsys, "campaign", "c.toml", f"--scheduler-port={port}")
    assert f"argument --scheduler-port: expected a port number from 1 to 65535, found '{port}'" in err


def test_small_beta_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 0.5 is finite and above 0: the rule refuses 0, not small values.
    status, _, err = cli(
        capsys, *templette_args(tmp_path / "store"), "--beta", "0.5", "--json", tmp_path / "s.json"
    )
    assert status == 0, err
    assert "beta:0.5" in json.loads((tmp_path / "s.json").read_text())["signature"]


# --- JSON --------------------------------------------------------------------------------------------


def test_json_text_has_no_bare_nan() -> None:
    text = json_text({"F": math.nan, "rows": [{"REC": 0.5, "PRE": math.nan}], "counts": (1, 2)})
    assert json.loads(text) == {"F": None, "rows": [{"REC": 0.5, "PRE": None}], "counts": [1, 2]}
    assert "NaN" not in text and text.endswith("\n")
    with pytest.raises(ValueError):
        json_text({"delta": math.inf})  # not an undefined value but a bug: never written as Infinity


# --- the path rules on their own ---------------------------------------------------------------------


def test_path_problems(places: dict[str, Path]) -> None:
    directory, file = places["dir"], places["file"]
    assert path_problem(directory / "new.json", OUTPUT_FILE) is None
    assert path_problem(directory / "a" / "b" / "new.json", OUTPUT_FILE) is None  # parents are made
    assert path_problem(file, OUTPUT_FILE) is None  # replaced
    assert path_problem(directory / "new", OUTPUT_DIRECTORY) is None
    assert path_problem(directory, OUTPUT_DIRECTORY) is None
    assert (
        path_problem(file / "x" / "y", OUTPUT_DIRECTORY)
        == f"cannot be written: {file} is a file, not a directory"
    )
    assert path_problem(file, INPUT_FILE) is None
    assert path_problem(directory / "none", INPUT_FILE) == "file not found"
    assert path_problem(file / "none", INPUT_FILE) == "file not found"
    assert path_problem(directory, INPUT_DIRECTORY) is None
    if Path("/dev/null").exists():
        assert path_problem("/dev/null", OUTPUT_FILE).startswith("is not a regular file")


@pytest.mark.parametrize("name", ["a\x00b.json", "a\x00b/scores.json"])
def test_a_nul_in_an_output_path_is_an_input_error_beside_an_input_directory(
    places: dict[str, Path], name: str
) -> None:
    # With an input directory among the checks, every path is resolved before it is probed: a name
    # the system refuses, in the file's name or in a folder's, is reported, never a traceback.
    gold = places["dir"] / "gold"
    gold.mkdir()
    output = str(places["dir"] / name)
    with pytest.raises(InputError, match="cannot be used: embedded null byte \\(--json\\)"):
        check_paths([("-gold", gold, INPUT_DIRECTORY), ("--json", output, OUTPUT_FILE)])


def test_many_output_paths_make_one_probe_directory_per_file_system(
    places: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A campaign checks a thousand output paths before any work; making and removing a directory to
    # see that the file system takes one is done once for them all (it took 3 s for 1,010 paths).
    import iescore.tasks.core.arguments as arguments

    made = []
    real = arguments.tempfile.mkdtemp

    def counting(*args: object, **kwargs: object) -> str:
        made.append(kwargs.get("dir"))
        return real(*args, **kwargs)

    monkeypatch.setattr(arguments.tempfile, "mkdtemp", counting)
    directory = places["dir"]
    check_paths([(f"--out{i}", directory / f"system{i}" / "scores.json", OUTPUT_FILE) for i in range(50)])
    assert len(made) == 1
    # Each folder is looked at once, however many files it gets.
    folders = []
    real_folder = arguments._folder_problem

    def folder_problem(folder: Path, probed: set[int]) -> str | None:
        folders.append(folder)
        return real_folder(folder, probed)

    monkeypatch.setattr(arguments, "_folder_problem", folder_problem)
    check_paths([(f"--o{i}", directory / "one" / f"{i}.csv", OUTPUT_FILE) for i in range(9)])
    assert folders == [directory / "one"] and len(made) == 2
    # Each check on its own still probes.
    assert path_problem(directory / "one.json", OUTPUT_FILE) is None
    assert len(made) == 3
    # A read-only mount of a probed file system (a bind mount has its device) is still refused.
    real_statvfs = arguments.os.statvfs
    readonly = directory / "readonly"
    readonly.mkdir()

    def statvfs(path: object) -> object:
        result = real_statvfs(path)
        if Path(path) == readonly:
            return type("V", (), {"f_flag": result.f_flag | arguments.os.ST_RDONLY})()
        return result

    monkeypatch.setattr(arguments.os, "statvfs", statvfs)
    with pytest.raises(InputError, match="read-only mount"):
        check_paths([("--a", directory / "x.json", OUTPUT_FILE), ("--b", readonly / "y.json", OUTPUT_FILE)])


# --- help --------------------------------------------------------------------------------------------


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = _parser()
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_has_help() -> None:
    commands = subcommands()
    assert set(commands) >= {"templette", "campaign", "artifacts", "glm", "align", "muc", "coref"}
    for name, command in commands.items():
        for action in command._actions:
            assert action.help and action.help.strip(), (
                f"iescore {name} {action.option_strings or action.dest}"
            )


def test_help_shows_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    # Every option that takes a value and has a default says it in --help.
    for name, command in subcommands().items():
        assert command.formatter_class is HelpFormatter, name
        text = " ".join(command.format_help().split())
        for action in command._actions:
            if action.nargs == 0 or action.default in (None, "", argparse.SUPPRESS):
                continue
            assert "default" in action.help or f"(default: {action.default})" in text, (name, action.dest)
    text = " ".join(subcommands()["templette"].format_help().split())
    assert "(default: 1)" in text and "(default: both)" in text
    assert "(default: 8082)" in " ".join(subcommands()["campaign"].format_help().split())


def test_progress_interval_beyond_the_platform_timer_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 1e300 is finite but no timer can wait that long: it ended in an OverflowError traceback.
    err = usage_error(capsys, "align", "--ref", "r", "--hyp", "h", "--progress-every=1e300")
    assert "argument --progress-every: expected at most" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("codec", ["rot13", "base64", "hex"])
@pytest.mark.parametrize("command", ["templette", "align", "coref", "muc"])
def test_a_codec_that_is_not_a_text_encoding_is_bad_input(
    capsys: pytest.CaptureFixture[str], command: str, codec: str, tmp_path: Path
) -> None:
    # codecs.lookup knows rot13 and base64, but bytes.decode refuses them with a LookupError that
    # ended in a traceback (exit 1).
    argv = {
        "templette": ["templette", "--ref", SAMPLE / "ref.tpl", "--hyp", SAMPLE / "hyp.tpl",
                      "--store", tmp_path / "store"],
        "align": ["align", "--ref", DATA / "hub4-speech" / "texts.sgml", "--hyp",
                  DATA / "hub4-speech" / "asr.sgml", "-i", "sgml"],
        "coref": ["coref", "--key", DATA / "coref-sample" / "key.conll", "--response",
                  DATA / "coref-sample" / "key.conll"],
        "muc": ["muc", MUC_DATA / "muc_co" / "co.config", "--store", tmp_path / "store"],
    }[command]  # fmt: skip
    err = usage_error(capsys, *argv, "--encoding", codec)
    assert "argument --encoding: the name of a text encoding expected" in err
    assert f"{codec!r}: not a text encoding, found {codec!r}" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["templette", "--ref", "r", "--hyp", "h", "--csv", ""],
        ["templette", "--ref", "r", "--hyp", "h", "--store", ""],
        ["templette", "--ref", "r", "--hyp", "h", "--hyp-texts", ""],
        ["campaign", "c.toml", "--store", ""],
        ["campaign", "c.toml", "--html", ""],
        ["campaign", "c.toml", "--scheduler-host", ""],
        ["coref", "--key", "k", "--response", "r", "--json", ""],
        ["align", "--ref", "r", "--hyp", "h", "--glm", ""],
        ["muc", "c.config", "--store", ""],
    ],
    ids=lambda argv: f"{argv[0]} {argv[-2]}",
)
def test_an_empty_value_is_a_usage_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    # `--csv ""` wrote the tables into the working directory, `--store ""` and `--html ""` were taken as
    # absent (the default store, no page): an empty value was silently read as something else.
    err = usage_error(capsys, *argv)
    assert f"argument {argv[-2]}: expected a non-empty value" in err


def test_options_where_empty_means_none_still_take_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (--unscored "" is accepted too: COMMENT is then scored and this sample's COMMENT has no extent.)
    status, _, _ = cli(capsys, *templette_args(tmp_path / "store"), "--premodifiers", "", "--punctuation", "")
    assert status == 0


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_output_directory_the_file_system_refuses_is_exit_2_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # /proc passes the permission checks made before the work (as root, everything is "writable") but
    # refuses a new directory when the CSV files are written at the end.
    sample = Path(__file__).resolve().parents[2] / "data" / "mat-sample"
    status = main(
        [
            "mat",
            "--file",
            str(sample / "good" / "a.json"),
            "--ref_file",
            str(sample / "ref" / "a.json"),
            "--csv_output_dir",
            "/proc/iescore-no-such/dir",
        ]
    )
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err and "/proc/iescore-no-such" in err, err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_trec_json_the_file_system_refuses_is_exit_2_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The JSON is written after the stages: a path the file system refuses then is exit 2, not a traceback.
    sample = Path(__file__).resolve().parents[2] / "data" / "trec-sample"
    argv = [
        "trec",
        str(sample / "qrels.txt"),
        str(sample / "teamA_run1.txt"),
        "--json",
        "/proc/iescore-no/x.json",
    ]
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err and "/proc/iescore-no" in err, err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
@pytest.mark.parametrize("command", ["mat", "templette"])
def test_a_store_the_file_system_refuses_is_exit_2_before_any_work(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    # /proc passes the permission bits (as root everything is "writable") but refuses a new directory:
    # the check makes one before the work starts, so the store is refused by name, not by a stage's
    # traceback once Luigi writes the first artifact.
    data = Path(__file__).resolve().parents[2] / "data"
    if command == "mat":
        argv = [
            "mat",
            "--dir",
            str(data / "mat-sample" / "good"),
            "--ref_dir",
            str(data / "mat-sample" / "ref"),
        ]
    else:
        sample = data / "hub4-sports"
        argv = ["templette", "--ref", str(sample / "ref.tpl"), "--hyp", str(sample / "hyp.tpl")]
    status = main([*argv, "--store", "/proc/iescore-no-store"])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err, err
    # /proc exists: it takes no new files (its "No such file or directory" would mislead).
    assert "/proc/iescore-no-store: cannot be written: /proc takes no new files" in err


def test_help_names_procedures_not_internal_documents(capsys: pytest.CaptureFixture[str]) -> None:
    # What a user reads in --help names the procedures, not the project's internal seed numbers or a
    # design document the installed package does not carry.
    top = _parser().format_help()
    names = top.split("{", 1)[1].split("}", 1)[0].split(",")
    assert "templette" in names and "trec" in names
    for name in names:
        with pytest.raises(SystemExit):
            main([name, "--help"])
        text = capsys.readouterr().out
        assert name in text
        assert "seed 00" not in text and "DESIGN.md" not in text, name
    assert "seed 00" not in top and "DESIGN.md" not in top
