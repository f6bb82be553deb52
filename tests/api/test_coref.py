"""iescore.coref against ``iescore coref``: the same numbers on the samples, in-memory = path.

The expected values are the command's own --json (tests/coref checks the command against the CoNLL
reference scorer): these tests pin that the library and the command are one computation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import main

from iescore.coref import score

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "coref-sample"
FIXTURES = ROOT / "tests" / "data"
METRICS = ("muc", "b3", "ceafe", "ceafm", "lea")


def command_json(tmp_path: Path, key: Path, response: Path, *options: str) -> dict:
    out = tmp_path / "coref.json"
    assert main(["coref", "--key", str(key), "--response", str(response), "--json", str(out), *options]) == 0
    return json.loads(out.read_text())


def percent(value: float | None) -> float | None:
    return None if value is None or value != value else round(100 * value, 6)


def assert_rows(rows: dict[str, dict], expected: dict) -> None:
    """The library's rows of one document (or the totals) hold the command's JSON numbers."""
    for metric in METRICS:
        row, want = rows[metric], expected[metric]
        for part in ("recall_num", "recall_den", "precision_num", "precision_den"):
            assert row[part] == want[part], (metric, part)
        for part in ("recall", "precision", "f1"):
            got = percent(row[part])
            if want[part] is None:
                assert got is None, (metric, part)
            else:
                assert got == pytest.approx(want[part], abs=1e-6), (metric, part)
    for link in ("coreference", "non_coreference"):
        row = rows[f"blanc_{link}"]
        assert row["recall_den"] == expected["blanc"][link]["recall_den"]
        assert row["precision_den"] == expected["blanc"][link]["precision_den"]
    assert percent(rows["blanc"]["f1"]) == pytest.approx(expected["blanc"]["f1"], abs=1e-6)


def by_metric(frame) -> dict[str, dict]:
    return {row["metric"]: row for row in frame.to_dict("records")}


@pytest.mark.parametrize("response", ["perfect.conll", "split.conll", "merged.conll"])
@pytest.mark.parametrize("zero_division", ["undefined", "0"])
def test_conll_samples_give_the_commands_numbers(tmp_path: Path, response: str, zero_division: str) -> None:
    key = SAMPLE / "key.conll"
    expected = command_json(tmp_path, key, SAMPLE / response, "--zero-division", zero_division)
    result = score(key, SAMPLE / response, zero_division=zero_division)
    assert_rows(by_metric(result.totals), expected)
    documents = result.documents
    assert list(dict.fromkeys(documents["doc_id"])) == [d["id"] for d in expected["documents"]]
    for document in expected["documents"]:
        rows = documents[documents["doc_id"] == document["id"]]
        assert rows["key_classes"].iloc[0] == document["key_classes"]
        assert rows["response_classes"].iloc[0] == document["response_classes"]
        assert_rows(by_metric(rows), document)


def test_the_conll_score_is_the_one_the_command_prints(tmp_path: Path, capsys) -> None:
    key, response = SAMPLE / "key.conll", SAMPLE / "split.conll"
    assert main(["coref", "--key", str(key), "--response", str(response)]) == 0
    printed = capsys.readouterr().out.split("CoNLL:   F ")[1].split("%")[0]
    assert f"{100 * score(key, response).conll:.1f}" == printed


def test_sgml_and_pairing_cases_give_the_commands_numbers(tmp_path: Path) -> None:
    muc_co = FIXTURES / "muc_co"
    expected = command_json(tmp_path, muc_co / "key.sgml", muc_co / "response.sgml", "-f", "sgml")
    assert_rows(
        by_metric(score(muc_co / "key.sgml", muc_co / "response.sgml", format="sgml").totals), expected
    )
    # A response with a document the key lacks: paired as the CoNLL scorer, the notice kept.
    key, response = FIXTURES / "coref" / "two.key", FIXTURES / "coref" / "extra.response"
    expected = command_json(tmp_path, key, response)
    result = score(key, response)
    assert_rows(by_metric(result.totals), expected)
    assert result.notices and str(response) in result.notices[0]


def test_text_gives_what_the_file_gives() -> None:
    key, response = SAMPLE / "key.conll", SAMPLE / "merged.conll"
    from_paths = score(key, response)
    from_text = score(key.read_text(), response.read_text())
    for name in from_paths.names:
        assert from_text.arrow(name).equals(from_paths.arrow(name)), name


@pytest.mark.parametrize(
    ("key", "response", "options", "expected"),
    [
        ("#begin document (d); part 000\nd 0 0 John (1\n", "perfect.conll", {}, "<key>:"),
        ("key.conll", "#begin document (d1); part 000\nd1 0 0 John (1)\n#end document\n", {}, "<response>"),
        ("key.conll", "split.conll", {"match": "min"}, "--match: MIN matching needs SGML input"),
        ("key.conll", "missing-file.conll", {}, "missing-file.conll"),
    ],
)
def test_bad_input_raises_input_error_naming_the_source(key, response, options, expected: str) -> None:
    key = key if "\n" in key else SAMPLE / key
    response = response if "\n" in response else SAMPLE / response
    with pytest.raises(InputError) as raised:
        score(key, response, **options)
    assert expected in str(raised.value)
    assert "/iescore-" not in str(raised.value)  # no temporary file's name
