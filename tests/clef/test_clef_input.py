"""Bad input to ``iescore clef``: exit status 2 with file:line (or the option) and what was expected;
and the reading rules (report from the first field, replaced lines, skipped names)."""

from __future__ import annotations

from pathlib import Path

import pytest
from iescore.pipeline.clef import read_mentions
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "data" / "clef-sample" / "gold"


def run(tmp_path: Path, lines: str | bytes, *options: str, name: str = "r1.pipe") -> int:
    system = tmp_path / "system"
    system.mkdir(exist_ok=True)
    path = system / name
    if isinstance(lines, bytes):
        path.write_bytes(lines)
    else:
        path.write_text(lines)
    argv = ["clef", "-input", str(system), "-gold", str(GOLD), "-n", "x", "-r", "1", "-t", "1a",
            "--out", str(tmp_path), *options]  # fmt: skip
    return main(argv)


@pytest.mark.parametrize(
    ("lines", "line", "expected"),
    [
        # 4 fields, 6 fields (an even count: a start without its end), 2 fields.
        ("r||D||C||1||5\nr||D||C||1\n", 2, "5, 7, 9, ... fields separated by '||', found 4"),
        ("r||D||C||1||5||9\n", 1, "found 6"),
        ("r||D||C||1||5||", 1, "found 6"),  # Perl's split would drop the empty field; we do not
        ("\n\nr||D\n", 3, "found 2"),
        ("r||D||C||x||5\n", 1, "found 'x'"),
        ("r||D||C||-5||5\n", 1, "found '-5'"),
        ("r||D||C|| 1||5\n", 1, "found ' 1'"),
        ("r||D||C||30||35||20||25\n", 1, "increasing order"),
        ("r||D||C||9||5\n", 1, "found 5 after 9"),
    ],
)
def test_malformed_lines_exit_2_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: str, line: int, expected: str
) -> None:
    assert run(tmp_path, lines) == 2
    err = capsys.readouterr().err
    assert f"r1.pipe:{line}: " in err and expected in err, err
    assert not (tmp_path / "x.1.1a.noadd").exists()


def test_invalid_utf8_is_bad_input_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, b"r||D||C||1||5\nr||D||\xff||1||5\n") == 2
    assert "r1.pipe:2: expected UTF-8 text" in capsys.readouterr().err


def test_empty_directories_are_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".hidden").write_text("r||D||C||1||5\n")
    (empty / "old~").write_text("r||D||C||1||5\n")
    argv = [
        "clef",
        "-input",
        str(empty),
        "-gold",
        str(GOLD),
        "-n",
        "x",
        "-r",
        "1",
        "-t",
        "1a",
        "--out",
        str(tmp_path),
    ]
    assert main(argv) == 2
    assert f"{empty}: no annotation files" in capsys.readouterr().err
    argv = [
        "clef",
        "-input",
        str(GOLD),
        "-gold",
        str(empty),
        "-n",
        "x",
        "-r",
        "1",
        "-t",
        "1a",
        "--out",
        str(tmp_path),
    ]
    assert main(argv) == 2
    assert f"{empty}: no annotation files" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("-r", "3", "-r: expected 1 or 2 (which run; eval.pl: 'Incorrect run id'), found '3'"),
        ("-r", "x", "found 'x'"),
        ("-t", "1c", "-t: expected one of 1a, 1b, 2, A, B (eval.pl: 'Incorrect task id'), found '1c'"),
        ("-t", "a", "found 'a'"),
    ],
)
def test_run_and_task_values_eval_pl_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, expected: str
) -> None:
    values = {"-r": "1", "-t": "1a", option: value}
    argv = ["clef", "-input", str(GOLD), "-gold", str(GOLD), "-n", "x", "-r", values["-r"],
            "-t", values["-t"], "--out", str(tmp_path)]  # fmt: skip
    assert main(argv) == 2
    assert expected in capsys.readouterr().err


def test_output_directory_must_be_writable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    argv = [
        "clef",
        "-input",
        str(GOLD),
        "-gold",
        str(GOLD),
        "-n",
        "x",
        "-r",
        "1",
        "-t",
        "1a",
        "--out",
        str(blocker),
    ]
    assert main(argv) == 2
    assert "expected a directory to write into (--out)" in capsys.readouterr().err


def test_task_2_gold_needs_codes_and_systems_give_one(tmp_path: Path) -> None:
    directory = tmp_path / "d"
    directory.mkdir()
    (directory / "r").write_text("r||Abbreviation|| ||1||5\n")
    with pytest.raises(InputError, match=r"r:1: expected the n-best codes"):
        read_mentions(directory, "gold", nbest=True)
    (directory / "r").write_text("r||Abbreviation||C1 C2||1||5\n")
    with pytest.raises(InputError, match=r"r:1: expected one code in the CUI field, found 'C1 C2'"):
        read_mentions(directory, "system", one_code=True)
    mentions = read_mentions(directory, "gold", nbest=True)
    assert mentions.frame.loc[0, "cui"] == "c1" and mentions.frame.loc[0, "codes"] == "c1 c2"


def test_report_from_first_field_replacements_and_skipped_names(tmp_path: Path) -> None:
    directory = tmp_path / "d"
    directory.mkdir()
    # One file, two reports; a one-character name is read (eval.pl's pattern needs two characters).
    (directory / "a").write_text("r2||D||C9||0||4\nr1||D||C1||0||4\n\nr1||D||C2||6||8||10||12\n")
    (directory / "b.txt").write_text("r1||D||C3||0||4\n")  # replaces a:2 (read after it: name order)
    (directory / ".x").write_text("r9||D||C||0||4\n")
    (directory / "b.txt~").write_text("r9||D||C||0||4\n")
    mentions = read_mentions(directory, "system")
    frame = mentions.frame
    assert list(
        zip(frame["report"], frame["key"], frame["cui"], frame["file"], frame["line"], strict=True)
    ) == [
        ("r2", "0-4", "c9", "a", 1),
        ("r1", "6-8-10-12", "c2", "a", 4),
        ("r1", "0-4", "c3", "b.txt", 1),
    ]
    assert list(frame["mention"]) == [0, 1, 2] and list(frame["n_pieces"]) == [1, 2, 1]
    assert mentions.pieces.to_dict("list") == {
        "mention": [0, 1, 1, 2],
        "start": [0, 6, 10, 0],
        "end": [4, 8, 12, 4],
    }
    assert len(mentions.warnings) == 1 and f"{directory / 'a'}:2: replaced by b.txt:1" in mentions.warnings[0]


def test_leading_zeros_are_the_same_offset(tmp_path: Path) -> None:
    directory = tmp_path / "d"
    directory.mkdir()
    (directory / "r").write_text("r||D||C||010||020\n")
    assert read_mentions(directory, "gold").frame.loc[0, "key"] == "10-20"


def test_a_run_that_found_nothing_scores_zero(tmp_path: Path) -> None:
    """An empty annotation file is a report without mentions, not an error: no TP, so P, R, F are 0."""
    assert run(tmp_path, "") == 0
    assert (tmp_path / "x.1.1a.noadd").read_text() == (
        "\n* Task 1a Strict:\nPrecision: \t0.000\nRecall: \t0.000\nF-score: \t0.000\n"
        "\n* Task 1a Relaxed:\nPrecision: \t0.000\nRecall: \t0.000\nF-score: \t0.000\n"
    )
