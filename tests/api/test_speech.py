"""iescore.speech against ``iescore align``: the same numbers on the samples, in-memory = path.

The expected values are the command's own output (its --json), which tests/speech checks against
sclite: these tests pin that the library and the command are one computation.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import main

from iescore.speech import align

ROOT = Path(__file__).resolve().parents[2]
REF = "the cat sat on the mat (u1)\nuh he said it is gonna rain (u2)\nno words here (u3)\n"
HYP = "the cat sat on a mat today (u1)\nhe said it's going to rain (u2)\nno word here (u3)\n"
GLM = ";; rules\nGONNA => GOING TO\nIT'S => IT IS\n"


def command_json(tmp_path: Path, *argv: str) -> dict:
    out = tmp_path / "align.json"
    assert main(["align", *argv, "--json", str(out), "--progress-every", "1000"]) == 0
    return json.loads(out.read_text())


def assert_same(result, expected: dict) -> None:
    """The library's tables hold the command's totals and per-segment counts."""
    totals = result.totals.iloc[0].to_dict()
    assert {k: totals[k] for k in expected["totals"]} == expected["totals"]
    segments = result.segments
    assert segments[["segment_id", "C", "S", "D", "I"]].to_dict("records") == [
        {"segment_id": s["id"], **{k: s[k] for k in "CSDI"}} for s in expected["segments"]
    ]
    assert segments.loc[segments["missing"], "segment_id"].tolist() == expected["missing"]
    # The word table's ops count what the segments count (an optional word left out counts nothing).
    words = result.words
    assert (words["op"] == "S").sum() == totals["S"]
    assert ((words["op"] == "D") & ~words["ref_optional"]).sum() == totals["D"]
    assert ((words["op"] == "I") & ~words["hyp_optional"]).sum() == totals["I"]


@pytest.fixture
def trn(tmp_path: Path) -> tuple[Path, Path, Path]:
    paths = tmp_path / "ref.trn", tmp_path / "hyp.trn", tmp_path / "rules.glm"
    for path, text in zip(paths, (REF, HYP, GLM), strict=True):
        path.write_text(text)
    return paths


@pytest.mark.parametrize("cost", ["levenshtein", "phonetic"])
@pytest.mark.parametrize("with_glm", [False, True])
def test_trn_files_give_the_commands_numbers(tmp_path: Path, trn, cost: str, with_glm: bool) -> None:
    ref, hyp, glm = trn
    options = ["--cost", cost, *(["--glm", str(glm)] if with_glm else [])]
    expected = command_json(tmp_path, "--ref", str(ref), "--hyp", str(hyp), *options)
    result = align(ref, str(hyp), cost=cost, glm=glm if with_glm else None)
    assert_same(result, expected)
    # In memory: the files' text, and the GLM's text, give the same tables.
    in_memory = align(REF, HYP, cost=cost, glm=GLM if with_glm else None)
    for name in result.names:
        assert in_memory.arrow(name).equals(result.arrow(name))


@pytest.mark.parametrize("sample", ["hub4-speech", "hub4-speech-body"])
def test_sgml_samples_give_the_commands_numbers(tmp_path: Path, sample: str) -> None:
    ref, hyp = ROOT / "data" / sample / "texts.sgml", ROOT / "data" / sample / "asr.sgml"
    expected = command_json(tmp_path, "--ref", str(ref), "--hyp", str(hyp), "-i", "sgml")
    result = align(ref, hyp, input_format="sgml")
    assert_same(result, expected)
    assert result.wer == pytest.approx(expected["totals"]["Err"] / 100, abs=5e-4)


def test_allow_missing_matches_the_command(tmp_path: Path, trn) -> None:
    ref, _, _ = trn
    hyp = tmp_path / "part.trn"
    hyp.write_text("the cat sat on the mat (u1)\n")
    expected = command_json(tmp_path, "--ref", str(ref), "--hyp", str(hyp), "--allow-missing")
    assert_same(align(ref, hyp, allow_missing=True), expected)
    with pytest.raises(InputError, match="has no hypothesis"):
        align(ref, hyp)


def test_lists_dicts_and_a_frame_are_trn_utterances() -> None:
    # Ids 1, 2 for a list; a dict's ids as given (lower-cased, as trn ids are).
    refs, hyps = ["a b c", "d e"], ["a x c", "d e f"]
    as_lists = align(refs, hyps)
    as_dicts = align({"1": "a b c", "2": "d e"}, {"1": "a x c", "2": "d e f"})
    frame = pd.DataFrame({"id": [1, 2], "ref": refs, "hyp": hyps})
    as_frame = align(frame)
    as_text = align("a b c (1)\nd e (2)\n", "a x c (1)\nd e f (2)\n")
    for other in (as_dicts, as_frame, as_text):
        for name in as_lists.names:
            assert other.arrow(name).equals(as_lists.arrow(name))
    # By hand: u1 a/a C, b/x S, c/c C; u2 d e C C, f I: C 4, S 1, D 0, I 1 of 5 words.
    assert as_lists.totals[["C", "S", "D", "I", "Err"]].to_dict("records") == [
        {"C": 4, "S": 1, "D": 0, "I": 1, "Err": 40.0}
    ]
    assert as_lists.words.loc[as_lists.words["op"] == "S", ["ref_word", "hyp_word"]].values.tolist() == [
        ["b", "x"]
    ]


@pytest.mark.parametrize(
    ("ref", "hyp", "source", "expected"),
    [
        ("a b (u1)\nc d\n", "a b (u1)\n", "<ref>:2", "utterance id '(ID)' expected"),
        ("a b (u1)\n", "a b (u2)\n", "<hyp>:1", "is not in the reference"),
        (["a", "b\nc"], ["a", "b"], "<ref>:2", "one line of words expected"),
        ({"(x)": "a"}, {"(x)": "a"}, "<ref>:1", "without parentheses"),
        (pd.DataFrame({"id": [1]}), None, "<ref>", "columns id, ref and hyp"),
    ],
)
def test_bad_input_raises_input_error_naming_the_source(ref, hyp, source: str, expected: str) -> None:
    with pytest.raises(InputError, match=re.escape(expected)) as raised:
        align(ref, hyp)
    assert str(raised.value).startswith(source + ":")


def test_a_bad_file_is_named_as_the_command_names_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.trn"
    bad.write_text("a b\n")
    with pytest.raises(InputError) as raised:
        align(bad, bad)
    assert str(raised.value) == f"{bad}:1: utterance id '(ID)' expected at the end of the line"


def test_the_wer_of_no_reference_word_is_undefined() -> None:
    # Two insertions against an empty reference: sclite's Err prints 0.0, the ratio is undefined.
    result = align("(u1)\n", "a b (u1)\n")
    assert result.totals[["I", "Err"]].to_dict("records") == [{"I": 2, "Err": 0.0}]
    assert result.wer is None
