"""iescore.senseval against ``iescore senseval``: the same scores on the samples, whatever the inputs' form.

Expected values come from the command (``--json``), which tests/senseval checks against scorer2.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import main

from iescore import senseval

DATA = Path(__file__).resolve().parents[2] / "data" / "senseval-sample"
KEY, SENSE_MAP = DATA / "key.txt", DATA / "senses.map"
ANSWERS = [DATA / "system-a.answers", DATA / "system-b.answers"]
TOTALS = ("precision", "recall", "attempted_fraction")


def command_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    out = tmp_path / "senseval.json"
    assert main(["senseval", *argv, "--json", str(out)]) == 0
    capsys.readouterr()
    return json.loads(out.read_text())


@pytest.mark.parametrize("answers", ANSWERS, ids=lambda p: p.name)
@pytest.mark.parametrize("granularity", ["fine", "coarse", "mixed"])
@pytest.mark.parametrize("policy", ["disjunctive", "coverage"])
def test_api_equals_command_on_the_sample(tmp_path, capsys, answers, granularity, policy) -> None:
    argv = [str(answers), str(KEY), str(SENSE_MAP), "-g", granularity, "--policy", policy]
    expected = command_json(tmp_path, capsys, argv)
    result = senseval.score(answers, KEY, SENSE_MAP, granularity=granularity, policy=policy)
    assert result.signature == expected["signature"]
    for name in TOTALS:
        assert getattr(result, name) == pytest.approx(expected["totals"][name], abs=1e-12)
    totals = result.totals
    overall = totals[totals["item"].isna()].iloc[0]
    assert overall["credit"] == pytest.approx(expected["totals"]["correct"], abs=1e-12)
    by_item = totals.dropna(subset=["item"]).set_index("item")
    for row in expected["by_item"]:
        assert by_item.loc[row["item"], "credit"] == pytest.approx(row["correct"], abs=1e-12)
        assert by_item.loc[row["item"], "attempted"] == pytest.approx(row["attempted"], abs=1e-12)
    # Per-instance credit sums to the totals the command printed.
    assert result.instances["credit"].sum() == pytest.approx(expected["totals"]["correct"], abs=1e-9)


def test_coarse_without_a_map_is_fine_with_the_note(capsys) -> None:
    result = senseval.score(ANSWERS[1], KEY, granularity="coarse")
    assert result.granularity == "fine"
    assert main(["senseval", str(ANSWERS[1]), str(KEY), "-g", "coarse"]) == 0
    assert result.note in capsys.readouterr().err


def parse_line(line: str) -> dict:
    item, instance, *tags = line.split("!!")[0].split()
    senses = [tuple([tag.split("/")[0], float(tag.split("/")[1])]) if "/" in tag else tag for tag in tags]
    return {"item": item, "instance": instance, "senses": senses}


def test_in_memory_inputs_equal_paths() -> None:
    by_path = senseval.score(ANSWERS[1], KEY, SENSE_MAP, granularity="mixed")
    answers_text, key_text, map_text = (p.read_text() for p in (ANSWERS[1], KEY, SENSE_MAP))
    records = [parse_line(line) for line in answers_text.splitlines() if line.split("!!")[0].strip()]
    key_records = [parse_line(line) for line in key_text.splitlines() if line.strip()]
    for answers, key in ((answers_text, key_text), (records, key_records)):
        result = senseval.score(answers, key, map_text, granularity="mixed")
        for name in ("totals", "instances", "unscored"):
            assert result.arrow(name).equals(by_path.arrow(name)), name


def test_filters_in_memory_equal_files(tmp_path) -> None:
    instances = tmp_path / "instances.txt"
    instances.write_text("bank b01\nbank b02\n")
    by_path = senseval.score(ANSWERS[0], KEY, instances=instances)
    in_memory = senseval.score(ANSWERS[0], KEY, instances=[("bank", "b01"), ("bank", "b02")])
    assert in_memory.arrow("instances").equals(by_path.arrow("instances"))
    assert list(by_path.instances["instance"]) == ["b01", "b02"]


@pytest.mark.parametrize(
    ("call", "source", "expected"),
    [
        (lambda: senseval.score("bank b01 x/abc\n", "bank b01 bank.1\nbank b01 bank.2\n"), "<key>:2", ""),
        (lambda: senseval.score([{"item": "bank"}], KEY), "<answers>:1", "record"),
        (lambda: senseval.score(ANSWERS[0], KEY, granularity="medium"), "-g", "fine"),
        (lambda: senseval.score(ANSWERS[0], DATA / "missing.txt"), "missing.txt", "(KEY)"),
        (lambda: senseval.score(ANSWERS[0], KEY, encoding="rot13"), "--encoding", "encoding"),
    ],
)
def test_bad_input_names_its_source(call, source: str, expected: str) -> None:
    with pytest.raises(InputError) as raised:
        call()
    assert raised.value.render().split(": ")[0].endswith(source)
    assert expected in raised.value.message
