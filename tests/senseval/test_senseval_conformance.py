"""``iescore senseval`` against scorer2's own output (issue 13, points 1 to 3).

The expected outputs are scorer2's, run on the inputs beside them (``tests/data/senseval/README.md``
says which program, which commit, which commands). Each test compares our stdout with scorer2's line
for line: ``-v`` blocks, ``Unable to score`` lines, the score block. Every test runs in both modes of
the command: in its own process (no ``--store``, the default) and by the Luigi stages (``--store DIR``).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "data" / "senseval"
CASES = [(g, m) for g in ("fine", "coarse", "mixed") for m in (False, True)]
MODES = ["in-process", "stages"]


def store_args(mode: str, store: Path) -> list[str]:
    """No option in process; ``--store`` (a new store) for the stages."""
    return [] if mode == "in-process" else ["--store", str(store)]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["senseval", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def expected_name(stem: str, granularity: str, minimal: bool) -> str:
    return f"{stem}.{granularity}{'.minimal' if minimal else ''}.out"


def flags(granularity: str, minimal: bool) -> list[str]:
    return ["-g", granularity, *(["-m"] if minimal else []), "-v"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("granularity", "minimal"), CASES)
@pytest.mark.parametrize("stem", ["seed", "odd"])
def test_same_output_as_scorer2(
    mode: str,
    stem: str,
    granularity: str,
    minimal: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
) -> None:
    monkeypatch.chdir(DATA)
    status, out, err = run(
        capsys,
        f"{stem}.answers",
        f"{stem}.key",
        f"{stem}.sensemap",
        *flags(granularity, minimal),
        *store_args(mode, tmp_path / "store"),
    )
    assert status == 0, err
    assert out == (DATA / expected_name(stem, granularity, minimal)).read_text()
    # stderr carries scorer2's "Unable to score" lines too (as scorer2 prints them there).
    unable = [line for line in out.splitlines() if line.startswith("Unable to score")]
    assert [line for line in err.splitlines() if line.startswith("Unable to score")] == unable


@pytest.mark.parametrize("mode", MODES)
def test_without_a_sense_map_as_scorer2(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(DATA)
    status, out, _ = run(capsys, "odd.answers", "odd.key", "-v", *store_args(mode, tmp_path / "s"))
    assert status == 0
    assert out == (DATA / "odd.nomap.out").read_text()


@pytest.mark.parametrize("mode", MODES)
def test_coarse_without_a_map_falls_back_to_fine(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(DATA)
    status, out, err = run(
        capsys, "odd.answers", "odd.key", "-g", "coarse", "-v", *store_args(mode, tmp_path)
    )
    assert status == 0
    assert out == (DATA / "odd.nomap.out").read_text()  # scorer2 scores fine-grained then, and says so
    assert "Fine-grained scoring will be used since no sense map was given" in err


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("granularity", "minimal"), CASES)
def test_random_files_as_scorer2(
    mode: str, granularity: str, minimal: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # 400 instances, 8 items, weights of two decimals, 1,300 lines of -v output: every one as scorer2's
    # (scores on decimal ties, 0.0375, print as scorer2's single-precision floats print them).
    monkeypatch.chdir(DATA / "random")
    status, out, _ = run(
        capsys,
        "answers.txt",
        "key.txt",
        "senses.map",
        *flags(granularity, minimal),
        *store_args(mode, tmp_path),
    )
    assert status == 0
    assert out == (DATA / "random" / expected_name("random", granularity, minimal)).read_text()


@pytest.mark.parametrize("mode", MODES)
def test_line_order_and_final_newline_do_not_matter(mode: str, tmp_path: Path, capsys) -> None:
    # scorer2 needs sorted files ending with a newline; we give the same totals for any line order and
    # without the final newline (no instance of random/ has two answers, so which one is first is moot).
    rng = random.Random(7)
    names = ("answers.txt", "key.txt", "senses.map")
    for name in names:
        lines = (DATA / "random" / name).read_text().splitlines()
        rng.shuffle(lines)
        (tmp_path / name).write_text("\n".join(lines))  # no final newline
    expected = (DATA / "random" / "random.mixed.out").read_text().splitlines()[-5:]
    status, out, _ = run(
        capsys,
        str(tmp_path / "answers.txt"),
        str(tmp_path / "key.txt"),
        str(tmp_path / "senses.map"),
        "-g",
        "mixed",
        *store_args(mode, tmp_path / "store"),
    )
    assert status == 0
    block = out.splitlines()[-5:]
    assert block[1:] == expected[1:]  # the heading names the files, which differ
    assert block[0].startswith("Mixed-grained score for")


@pytest.mark.parametrize("granularity", ["fine", "mixed"])
def test_json_and_stderr_the_same_in_both_modes(
    granularity: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # The JSON (signature, totals, by item, unscored, warnings) and stderr (warnings, unscored lines)
    # of odd/ are byte for byte the same whether scored in process or by the stages (which also say on
    # stderr what they ran).
    monkeypatch.chdir(DATA)
    results = []
    for mode in MODES:
        out_json = tmp_path / f"{mode}.json"
        status, out, err = run(
            capsys,
            "odd.answers",
            "odd.key",
            "odd.sensemap",
            "-g",
            granularity,
            "--by-item",
            "--json",
            str(out_json),
            *store_args(mode, tmp_path / "store"),
        )
        assert status == 0
        reported = [line for line in err.splitlines() if line.startswith(("iescore: odd", "Unable"))]
        results.append((out, reported, out_json.read_bytes()))
    assert results[0] == results[1]
    assert b'"signature": "scorer:senseval|granularity:' in results[0][2]
