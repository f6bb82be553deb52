"""iescore.mat against ``iescore mat``: the same tables on the samples, whatever the inputs' form.

Expected values come from the command (``--json``), which tests/mat checks against MATScore's rules and
the sample's hand-worked counts (data/mat-sample/README.md).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import main

from iescore import mat

DATA = Path(__file__).resolve().parents[2] / "data" / "mat-sample"
ROUGH = {"file_type": "xml-inline", "ref_fsuff_off": ".xml", "ref_fsuff_on": ".json"}
ROUGH_ARGS = ["--file_type", "xml-inline", "--ref_fsuff_off", ".xml", "--ref_fsuff_on", ".json"]
FIXED = {"by_token": True, "by_pseudo_token": True, "by_character": True}
FIXED_ARGS = ["--by_token", "--by_pseudo_token", "--by_character"]
CONFIDENCE_ARGS = ["--compute_confidence_data"]


def command_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[dict, str]:
    out = tmp_path / "mat.json"
    assert main(["mat", *argv, "--details", "--confusability", "--json", str(out)]) == 0
    err = capsys.readouterr().err
    return json.loads(out.read_text()), err


def same(value: object, expected: object) -> bool:
    if isinstance(expected, float) and math.isnan(expected):
        return isinstance(value, float) and math.isnan(value)
    if expected is None:
        return value is None or (isinstance(value, float) and math.isnan(value))
    if isinstance(expected, float):
        return value == pytest.approx(expected, abs=1e-12)
    return value == expected


def assert_rows(frame, rows: list[dict]) -> None:
    assert len(frame) == len(rows)
    for got, want in zip(frame.to_dict("records"), rows, strict=True):
        assert set(want) <= set(got)
        for key, value in want.items():
            assert same(got[key], value), (key, got[key], value)


@pytest.mark.parametrize(
    ("system", "options", "argv"),
    [
        ("good", {**FIXED, "tag_span_details": True}, [*FIXED_ARGS, "--tag_span_details"]),
        ("rough", {**ROUGH, **FIXED}, [*ROUGH_ARGS, *FIXED_ARGS]),
        (
            "good",
            {"compute_confidence_data": True, "resamples": 50},
            ["--compute_confidence_data", "--resamples", "50"],
        ),
    ],
)
def test_api_equals_command_on_the_sample(tmp_path, capsys, system, options, argv) -> None:
    expected, err = command_json(
        tmp_path, capsys, ["--dir", str(DATA / system), "--ref_dir", str(DATA / "ref"), *argv]
    )
    result = mat.score(DATA / "ref", DATA / system, **options)
    assert result.signature == expected["signature"]
    assert result.notes == expected.get("notes", [])
    for note in result.notes:
        assert note in err
    assert [name for name in result.names if name in expected["tables"]] == list(expected["tables"])
    for table, rows in expected["tables"].items():
        assert_rows(result.frame(table), rows)
    assert_rows(result.details, expected["details"])
    corpus = result.confusability[result.confusability["file"] == "<all>"]
    assert list(corpus["reference"]) == expected["confusability"]["reference"]
    assert (
        corpus[expected["confusability"]["hypothesis"]].to_numpy().tolist()
        == expected["confusability"]["counts"]
    )


def test_one_file_equals_the_command_with_file_and_ref_file(tmp_path, capsys) -> None:
    hyp, ref = DATA / "good" / "a.json", DATA / "ref" / "a.json"
    expected, _ = command_json(tmp_path, capsys, ["--file", str(hyp), "--ref_file", str(ref)])
    result = mat.score(ref, hyp)
    assert result.signature == expected["signature"]
    assert_rows(result.tag, expected["tables"]["tag"])


def test_in_memory_documents_equal_directories() -> None:
    by_path = mat.score(DATA / "ref", DATA / "rough", **ROUGH, **FIXED)
    ref = {p.name: json.loads(p.read_text()) for p in (DATA / "ref").iterdir()}
    rough = {p.name: p.read_text() for p in (DATA / "rough").iterdir()}
    in_memory = mat.score(ref, rough, **ROUGH, **FIXED)
    assert in_memory.names == by_path.names
    for name in ("tag", "pseudo_token", "character", "details", "confusability", "pairs"):
        assert in_memory.arrow(name).equals(by_path.arrow(name)), name
    assert [note.replace("'", "") for note in in_memory.notes] == [
        note.replace("'", "") for note in by_path.notes
    ]


@pytest.mark.parametrize(
    ("call", "source", "expected"),
    [
        (
            lambda: mat.score(
                {"a.xml": "<DOC>x</DOC>"},
                {"a.xml": "<DOC>y</DOC>"},
                file_type="xml-inline",
                ref_file_type="xml-inline",
            ),
            "<hyp>/a.xml",
            "signal",
        ),
        (lambda: mat.score({"a.json": "{"}, {"a.json": "{}"}), "<ref>/a.json:1", ""),
        (lambda: mat.score(DATA / "ref", DATA / "good", file_type="pdf"), "--file_type", "mat-json"),
        (
            lambda: mat.score(DATA / "ref", DATA / "good", xml_input_is_overlay=True),
            "--xml_input_is_overlay",
            "xml-inline",
        ),
        (lambda: mat.score(DATA / "ref", DATA / "missing"), "missing", "(--file)"),
        (lambda: mat.score(DATA / "ref", ["a"]), "<hyp>", "mapping"),
    ],
)
def test_bad_input_names_its_source(call, source: str, expected: str) -> None:
    with pytest.raises(InputError) as raised:
        call()
    assert raised.value.render().split(": ")[0].endswith(source)
    assert expected in raised.value.message
