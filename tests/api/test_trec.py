"""iescore.trec against ``iescore trec``: the same values on the samples, whatever the inputs' form.

Expected values come from the command (``--json``), which tests/trec checks against trec_eval 10.0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import main

from iescore import trec

DATA = Path(__file__).resolve().parents[2] / "data" / "trec-sample"
QRELS = DATA / "qrels.txt"
RUNS = [DATA / "teamA_run1.txt", DATA / "teamA_run2.txt", DATA / "teamB_run1.txt"]
MEASURES = ["official", "ndcg_cut.10", "nDCG@10", "P@5", "AP(rel=2)"]


def command_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    out = tmp_path / "trec.json"
    argv = ["trec", str(QRELS), *map(str, RUNS), *(f"-m{m}" for m in MEASURES), *extra, "--json", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    return json.loads(out.read_text())


def trec_lines(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("complete", [False, True])
def test_api_equals_command_on_the_sample(tmp_path, capsys, complete: bool) -> None:
    expected = command_json(tmp_path, capsys, *(["-c"] if complete else []))
    result = trec.evaluate(QRELS, [str(run) for run in RUNS], measures=MEASURES, complete=complete)
    assert result.runs == list(expected["runs"])
    assert result.signature == expected["signature"]
    aggregated = result.aggregated
    per_query = result.per_query.set_index(["run", "qid", "measure"])["value"]
    for run, values in expected["runs"].items():
        for measure, value in values["all"].items():
            if isinstance(value, (int, float)) and measure != "runid":
                assert aggregated.loc[run, measure] == pytest.approx(value, abs=1e-12), (run, measure)
        for qid, row in values["queries"].items():
            for measure, value in row.items():
                if isinstance(value, (int, float)):
                    assert per_query[(run, qid, measure)] == pytest.approx(value, abs=1e-12)


def test_command_prints_the_api_tables(capsys) -> None:
    """The command's text is the text column of the API's table (one path: same numbers)."""
    assert main(["trec", "-q", "-m", "map", "-m", "P.5", str(QRELS), str(RUNS[0])]) == 0
    printed = capsys.readouterr().out
    table = trec.evaluate(QRELS, RUNS[0], measures=["map", "P.5"]).evaluation()
    shown = table[table["text"].notna()]
    assert printed == "".join(
        f"{m:<22s}\t{q}\t{t}\n" for q, m, t in zip(shown["qid"], shown["measure"], shown["text"], strict=True)
    )


def test_in_memory_inputs_equal_paths() -> None:
    by_path = trec.evaluate(QRELS, RUNS[:2], measures=MEASURES)
    qrels_rows = trec_lines(QRELS)
    qrels_frame = pd.DataFrame(
        {
            "query": [r[0] for r in qrels_rows],
            "doc": [r[2] for r in qrels_rows],
            "relevance": [int(r[3]) for r in qrels_rows],
        }
    )
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, _, d, rel in qrels_rows:
        qrels_dict.setdefault(q, {})[d] = int(rel)
    runs_frames, runs_dicts = {}, {}
    for name, path in zip(by_path.runs, RUNS[:2], strict=True):
        rows = trec_lines(path)
        runs_frames[name] = pd.DataFrame(
            {
                "query_id": [r[0] for r in rows],
                "doc_id": [r[2] for r in rows],
                "score": [float(r[4]) for r in rows],
            }
        )
        scores: dict[str, dict[str, float]] = {}
        for r in rows:
            scores.setdefault(r[0], {})[r[2]] = float(r[4])
        runs_dicts[name] = scores
    texts = {name: path.read_text() for name, path in zip(by_path.runs, RUNS[:2], strict=True)}
    for qrels, runs in (
        (qrels_frame, runs_frames),
        (qrels_dict, runs_dicts),
        (QRELS.read_text(), texts),
    ):
        result = trec.evaluate(qrels, runs, measures=MEASURES)
        assert result.runs == by_path.runs
        pd.testing.assert_frame_equal(result.aggregated.drop(columns=[], errors="ignore"), by_path.aggregated)
        pd.testing.assert_frame_equal(result.per_query, by_path.per_query)


def test_one_pytrec_eval_dict_is_one_run() -> None:
    # Hand check: q1's relevant d1 is ranked second of two (d2 scores higher): AP = 1/2, P@1 = 0.
    result = trec.evaluate(
        {"q1": {"d1": 1, "d2": 0}}, {"q1": {"d1": 0.5, "d2": 0.9}}, measures=["map", "P.1"]
    )
    assert result.runs == ["run1"]
    assert (result.value("map"), result.value("P_1")) == (0.5, 0.0)


@pytest.mark.parametrize(
    ("call", "source", "expected"),
    [
        (lambda: trec.evaluate("qrels 0 d1 x\n", {"q": {"d1": 1.0}}), "<qrels>:1", "integer"),
        (lambda: trec.evaluate(QRELS, "q1 Q0 d1 1\n"), "<run-run1>:1", "qid Q0 docno rank score tag"),
        (lambda: trec.evaluate(QRELS, RUNS[0], measures=["nonsense"]), "-m", "unknown measure"),
        (lambda: trec.evaluate(QRELS, RUNS[0], max_docs=-1), "-M", "whole number"),
        (lambda: trec.evaluate(DATA / "missing.txt", RUNS[0]), "missing.txt", "(QRELS)"),
        (lambda: trec.evaluate({"q": {"d": 0.5}}, RUNS[0]), "<qrels>", "integer relevance"),
        (lambda: trec.evaluate(pd.DataFrame({"q": ["a"]}), RUNS[0]), "<qrels>", "column query"),
    ],
)
def test_bad_input_names_its_source(call, source: str, expected: str) -> None:
    with pytest.raises(InputError) as raised:
        call()
    assert raised.value.render().split(": ")[0].endswith(source)
    assert expected in raised.value.message


def test_a_store_keeps_the_artifacts_and_gives_the_same_values(tmp_path) -> None:
    in_process = trec.evaluate(QRELS, RUNS[:2], measures=["map", "P.5"])
    stored = trec.evaluate(QRELS, RUNS[:2], measures=["map", "P.5"], store=tmp_path / "store")
    pd.testing.assert_frame_equal(stored.aggregated, in_process.aggregated)
    assert stored.signature == in_process.signature
    assert list((tmp_path / "store").rglob("*.parquet"))
