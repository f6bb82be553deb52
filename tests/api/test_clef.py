"""iescore.clef against ``iescore clef``: the same counts and measures on the samples, in memory too.

Expected values come from the command (``--json``), which tests/clef checks against eval.pl.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import main

from iescore import clef

DATA = Path(__file__).resolve().parents[2] / "data" / "clef-sample"
BAD_LINE = "r||Disease_Disorder||C1||5\n"  # four fields: an end offset missing
CASES = [
    (DATA / "gold", DATA / "run1", "1a"),
    (DATA / "gold", DATA / "run2", "1a"),
    (DATA / "gold", DATA / "run2", "1b"),
    (DATA / "task2" / "gold", DATA / "task2" / "run1", "2"),
]


@pytest.mark.parametrize(("gold", "system", "task"), CASES, ids=lambda v: getattr(v, "name", v))
def test_api_equals_command_on_the_sample(tmp_path, capsys, gold, system, task) -> None:
    out = tmp_path / "clef.json"
    argv = ["clef", "-input", str(system), "-gold", str(gold), "-n", "x", "-r", "1", "-t", task]
    assert main([*argv, "--out", str(tmp_path), "--json", str(out)]) == 0
    err = capsys.readouterr().err
    expected = json.loads(out.read_text())
    result = clef.score(gold, system, task=task)
    assert result.signature == expected["signature"]
    assert result.measures == pytest.approx(expected["measures"], abs=1e-12)
    statistics = result.scores[result.scores["kind"] == "statistic"].set_index("name")["value"]
    assert statistics.to_dict() == pytest.approx(expected["counts"])
    by_report = result.by_report
    for row in expected["by_report"]:
        assert by_report.loc[row.pop("report")].to_dict() == row
    for warning in result.warnings:
        assert f"iescore: warning: {warning}" in err


def test_in_memory_sides_equal_directories() -> None:
    gold, system = DATA / "gold", DATA / "run2"
    by_path = clef.score(gold, system, task="1a")
    texts = {side: {p.name: p.read_text() for p in side.iterdir()} for side in (gold, system)}
    in_memory = clef.score(texts[gold], texts[system], task="1a")
    assert in_memory.arrow("scores").equals(by_path.arrow("scores"))
    assert in_memory.arrow("matches").equals(by_path.arrow("matches"))
    assert [w.split(":")[0].rsplit("/", 1)[-1] for w in in_memory.warnings] == [
        w.split(":")[0].rsplit("/", 1)[-1] for w in by_path.warnings
    ]
    assert all(w.startswith(("<gold>/", "<system>/")) for w in in_memory.warnings)


def records(directory: Path) -> list[dict]:
    rows = []
    for path in sorted(directory.iterdir()):
        for line in path.read_text().splitlines():
            report, kind, cui, *offsets = line.split("||")
            spans = [(int(a), int(b)) for a, b in zip(offsets[::2], offsets[1::2], strict=True)]
            rows.append({"report": report, "type": kind, "cui": cui, "spans": spans})
    return rows


def test_records_equal_directories_when_files_are_named_by_report() -> None:
    gold, system = DATA / "gold", DATA / "run1"
    by_path = clef.score(gold, system, task="1b")
    in_memory = clef.score(records(gold), records(system), task="1b")
    assert in_memory.measures == by_path.measures
    assert in_memory.by_report.equals(by_path.by_report)


@pytest.mark.parametrize(
    ("call", "source", "expected"),
    [
        (
            lambda: clef.score({"r.pipe": "r||Disease_Disorder||C1||5\n"}, DATA / "run1"),
            "<gold>/r.pipe:1",
            "fields",
        ),
        (lambda: clef.score(DATA / "gold", [{"report": "r"}]), "<system>:1", "record"),
        (lambda: clef.score(DATA / "gold", DATA / "run1", task="3"), "-t", "1a"),
        (lambda: clef.score(DATA / "gold", DATA / "missing"), "missing", "(-input)"),
    ],
)
def test_bad_input_names_its_source(call, source: str, expected: str) -> None:
    with pytest.raises(InputError) as raised:
        call()
    assert raised.value.render().split(": ")[0].endswith(source)
    assert expected in raised.value.message
