"""The benchmark harness: interleaved whole processes, ratios round by round, the table, the README.

No timing is asserted: the commands timed here are trivial and only the bookkeeping is checked.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import timing  # noqa: E402


def _runner():
    """``benchmarks/__main__.py`` as a module (``__main__`` is pytest's own here)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("benchmarks_runner", BENCHMARKS / "__main__.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_interleaved_runs_the_commands_in_turn_after_a_warm_up(tmp_path: Path) -> None:
    """Each run appends its name to a log: warm-up A, warm-up B, then A, B, A, B, A, B."""
    log = tmp_path / "log"
    commands = {
        name: [sys.executable, "-c", f"open({str(log)!r}, 'a').write({name!r})"] for name in ("A", "B")
    }
    seen = []
    result = timing.interleaved(commands, 3, before_each=seen.append)
    assert log.read_text() == "AB" + "AB" * 3
    assert seen == ["A", "B"] * 4
    assert [len(result.runs[name].seconds) for name in "AB"] == [3, 3]
    assert all(peak > 0 for name in "AB" for peak in result.runs[name].peaks)
    assert len(result.load_before.split()) == 3 and len(result.load_after.split()) == 3


def test_ratios_are_taken_round_by_round_and_summarised_by_median_and_range() -> None:
    # Rounds: iescore 1, 2, 4 s against the peer's 3, 4, 40 s: per-round peer / iescore 3, 2, 10,
    # so the median ratio is 3 and the range 2-10 (the ratio of the medians, 4 / 2, would say 2).
    runs = {
        "iescore": timing.Runs((1.0, 2.0, 4.0), (100.0, 120.0, 110.0)),
        "peer": timing.Runs((3.0, 4.0, 40.0), (5.0, 6.0, 5.0)),
    }
    result = timing.Interleaved(runs, "0.10 0.20 0.30", "0.40 0.50 0.60")
    row = timing.compare("work", result, "iescore", "peer", "peer program", timing.Target(2, at_most=False))
    assert (row.ratio, row.ratio_min, row.ratio_max) == (3.0, 2.0, 10.0)
    assert (row.iescore_s, row.peer_s) == (2.0, 4.0)
    assert (row.iescore_mib, row.peer_mib) == (120.0, 6.0)
    assert row.ratio_is == "peer / iescore" and row.target == ">= 2x" and row.met is True
    assert row.runs == 3 and row.load_before == "0.10 0.20 0.30"
    slower = timing.compare("w", result, "iescore", "peer", "p", timing.Target(0.2, at_most=True), False)
    assert slower.ratio == pytest.approx(1 / 3) and slower.ratio_is == "iescore / peer"
    assert slower.met is False


def test_a_failing_command_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="exited 3"):
        timing.run_process([sys.executable, "-c", "import sys; sys.exit(3)"])


def test_peers_come_from_their_variables_and_a_missing_one_gives_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.write_text("")
    second.write_text("")
    monkeypatch.setenv("IESCORE_SCORER2", f"{first}:{tmp_path / 'absent'}:{second}")
    assert timing.peer_programs("scorer2") == [first, second]
    monkeypatch.setenv("IESCORE_EVALPL", str(tmp_path / "absent"))
    assert timing.peer_programs("eval.pl") == []
    assert "$IESCORE_EVALPL" in timing.not_found("eval.pl")


def test_the_timed_processes_write_bytecode() -> None:
    import os

    assert "PYTHONDONTWRITEBYTECODE" not in os.environ


def test_the_table_has_one_line_a_row_with_ratio_range_and_load() -> None:
    runs = {"iescore": timing.Runs((1.0,), (50.0,)), "peer": timing.Runs((12.5,), (7.0,))}
    result = timing.Interleaved(runs, "1.00 2.00 3.00", "1.50 2.00 3.00")
    row = timing.compare("clef", result, "iescore", "peer", "eval.pl", timing.Target(12, at_most=False))
    missing = timing.Row("trec", note="trec_eval not found")
    import dataclasses

    lines = _runner().markdown([dataclasses.asdict(row), dataclasses.asdict(missing)]).splitlines()
    assert len(lines) == 4
    assert (
        "| clef | eval.pl | 1 | 12.5 | 12.5x (12.5-12.5) | peer / iescore | >= 12x | yes | 50 / 7 | 1 |"
        in lines[2]
    )
    assert "1.00 → 1.50" in lines[2]
    assert lines[3].startswith("| trec | - |") and lines[3].endswith("trec_eval not found |")


def test_every_benchmark_has_a_run_and_no_peer_is_timed_in_process() -> None:
    """A benchmark compares whole processes: none imports a peer library into its own process."""
    for path in BENCHMARKS.glob("bench_*.py"):
        text = path.read_text()
        assert "def run(quick: bool, rounds: int)" in text, path.name
        assert not re.search(r"^\s*(import|from) (nervaluate|pytrec_eval|ranx)\b", text, re.M), path.name
    for path in (BENCHMARKS / "peers").glob("*.py"):
        text = path.read_text()
        assert not re.search(r"^\s*(import|from) (pipeline|tasks|schemas|iescore)\b", text, re.M), path.name


def test_the_readme_is_short_current_and_names_files_that_exist() -> None:
    text = (BENCHMARKS / "README.md").read_text()
    assert len(text.splitlines()) < 200
    assert not re.search(r"\bissues?\s*#?\s*\d+", text, re.I)
    assert "## Figures (filled from the run" in text
    for path in re.findall(r"`((?:benchmarks|tests)/[^`\s]*)`", text):
        assert list(ROOT.glob(path)), path


def test_saved_runs_print_one_table_a_machine_under_the_line_naming_each_run(tmp_path: Path, capsys) -> None:
    """``--from-json A B C``: runs saved apart (the quiet windows of a long measurement) in one text; runs
    on one machine share a table, another machine's run gets its own."""
    import dataclasses
    import json

    paths = []
    for date, work, machine in (("2026-01-01 10:00 UTC", "clef", "m"), ("2026-01-02 11:00 UTC", "trec", "m"),
                                ("2026-01-03 12:00 UTC", "mat", "other")):  # fmt: skip
        rows = [timing.Row(f"{work} row", note="n", bench=f"bench_{work}"), timing.Row("x", bench="bench_x")]
        run = {"date": date, "machine": machine, "python": "3", "quick": False, "rounds": 2,
               "rows": [dataclasses.asdict(row) for row in rows]}  # fmt: skip
        paths.append(tmp_path / f"{work}.json")
        paths[-1].write_text(json.dumps(run))
    out = tmp_path / "figures.md"
    assert _runner().main(["--from-json", *map(str, paths), "--markdown", str(out)]) == 0
    text = out.read_text()
    assert capsys.readouterr().out == text + "\n"
    first = text.index(
        "Runs of 2026-01-01 10:00 UTC (clef, x: 2 interleaved rounds); 2026-01-02 11:00 UTC (trec, x: 2 "
        "interleaved rounds): m, Python 3."
    )
    second = text.index("Run of 2026-01-03 12:00 UTC (mat, x: 2 interleaved rounds): other, Python 3.")
    clef, trec, mat = (text.index(f"| {work} row |") for work in ("clef", "trec", "mat"))
    assert first < clef < trec < second < mat
    assert text.count("| work |") == 2
    # --only: the rows those benchmarks gave; a run left without rows is not named.
    assert _runner().main(["--from-json", *map(str, paths), "--only", "trec", "--markdown", str(out)]) == 0
    text = out.read_text()
    assert "| trec row |" in text and "| clef row |" not in text and "| x |" not in text
    assert "2026-01-01" not in text and "2026-01-03" not in text
