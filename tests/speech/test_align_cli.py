"""`iescore align` on incomplete and malformed inputs, its defaults and its progress lines (issue 10)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from iescore.tasks.cli.main import _parser, main


def _files(tmp_path: Path, ref: str, hyp: str, suffix: str = "trn") -> tuple[Path, Path]:
    ref_path, hyp_path = tmp_path / f"ref.{suffix}", tmp_path / f"hyp.{suffix}"
    ref_path.write_text(ref)
    hyp_path.write_text(hyp)
    return ref_path, hyp_path


REF = "alpha bravo charlie (u1)\ndelta echo (u2)\nfoxtrot (u3)\n"


# -- missing hypothesis utterances ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("hyp", "first"),
    [
        ("alpha bravo charlie (u1)\n", "u2"),  # partial: u2 and u3 missing
        ("delta echo (u2)\n", "u1"),  # the first missing one in reference order
        ("", "u1"),  # empty
    ],
)
def test_a_missing_hypothesis_utterance_is_an_error(tmp_path: Path, capsys, hyp: str, first: str) -> None:
    ref, hyp_path = _files(tmp_path, REF, hyp)
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"iescore: {hyp_path}: ({first}) of the reference {ref}:")
    assert "--allow-missing" in captured.err
    assert captured.out == ""


def test_allow_missing_scores_missing_utterances_as_deletions(tmp_path: Path, capsys) -> None:
    # By hand: u1 "alpha bravo charlie" / "alpha bravo xray": C 2, S 1. u2 (2 words) and u3 (1 word)
    # are missing: D 3. Reference words 6; Corr 2/6 = 33.3, Sub 16.7, Del 50.0, Err 4/6 = 66.7.
    ref, hyp = _files(tmp_path, REF, "alpha bravo xray (u1)\n")
    out = tmp_path / "a.json"
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp), "--allow-missing", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Corr 33.3  Sub 16.7  Del 50.0  Ins 0.0  Err 66.7" in printed
    assert "missing hypothesis utterances: 2 (scored as deletions)" in printed
    assert "id: (u2)\nScores: (#C #S #D #I) 0 0 2 0\n" in printed
    result = json.loads(out.read_text())
    assert {k: result["totals"][k] for k in ("C", "S", "D", "I", "missing")} == {
        "C": 2,
        "S": 1,
        "D": 3,
        "I": 0,
        "missing": 2,
    }
    assert result["missing"] == ["u2", "u3"]


def test_allow_missing_with_an_empty_hypothesis(tmp_path: Path, capsys) -> None:
    # Every reference word deleted: 6 words, Del 100.0, three utterances missing.
    ref, hyp = _files(tmp_path, REF, "")
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp), "--allow-missing"]) == 0
    printed = capsys.readouterr().out
    assert "Corr 0.0  Sub 0.0  Del 100.0  Ins 0.0  Err 100.0" in printed
    assert "missing hypothesis utterances: 3" in printed


def test_a_hypothesis_utterance_the_reference_lacks_is_an_error_even_with_allow_missing(
    tmp_path: Path, capsys
) -> None:
    ref, hyp = _files(tmp_path, REF, "alpha (u1)\nzulu (u9)\n")
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp), "--allow-missing"]) == 2
    assert f"iescore: {hyp}:2: (u9) is not in the reference" in capsys.readouterr().err


def _sgml(*docs: tuple[str, str]) -> str:
    return "".join(f"<DOC>\n<DOCNO> {d} </DOCNO>\n<TEXT>\n{text}\n</TEXT>\n</DOC>\n" for d, text in docs)


def test_sgml_documents_missing_from_the_hypothesis(tmp_path: Path, capsys) -> None:
    ref, hyp = _files(
        tmp_path, _sgml(("D1", "one two three"), ("D2", "four five")), _sgml(("D1", "one two three")), "sgml"
    )
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp), "-i", "sgml"]) == 2
    assert f"iescore: {hyp}: (D2) of the reference {ref}:" in capsys.readouterr().err
    # Allowed: D1 C 3, D2 D 2; 5 reference words, Corr 60.0, Del 40.0.
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp), "-i", "sgml", "--allow-missing"]) == 0
    printed = capsys.readouterr().out
    assert "Corr 60.0  Sub 0.0  Del 40.0  Ins 0.0  Err 40.0" in printed
    assert "missing hypothesis utterances: 1" in printed


def test_an_sgml_hypothesis_document_the_reference_lacks_is_an_error(tmp_path: Path, capsys) -> None:
    ref, hyp = _files(tmp_path, _sgml(("D1", "one two")), _sgml(("D1", "one two"), ("D7", "seven")), "sgml")
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp), "-i", "sgml", "--allow-missing"]) == 2
    assert "(d7) is not in the reference" in capsys.readouterr().err.lower()


# -- malformed trn files ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("a b (u1)\nc d (u1)\n", 2, "utterance id (u1) already on line 1"),
        ("a b (u1)\nc d ()\n", 2, "empty utterance id '()': '(ID)' expected at the end of the line"),
        ("a b (u1)\nc d\n", 2, "utterance id '(ID)' expected at the end of the line"),
        ("a b (u1) c\n", 1, "utterance id '(ID)' expected at the end of the line"),
        ("a { b / c d (u1)\n", 1, "'{' without a closing '}'"),
        ("a b / c } d (u1)\n", 1, "'}' without '{' at column 9"),
        ("a { b / } c (u1)\n", 1, "empty alternative at column 9: write '@' for no word"),
        ("a { } c (u1)\n", 1, "empty alternative at column 5: write '@' for no word"),
        ("a { / b } c (u1)\n", 1, "empty alternative at column 5: write '@' for no word"),
    ],
)
def test_malformed_trn_lines_are_errors_at_their_line(
    tmp_path: Path, capsys, text: str, where: int, message: str
) -> None:
    bad, good = _files(tmp_path, text, "a b (u1)\n")
    for args in (["--ref", str(bad), "--hyp", str(good)], ["--ref", str(good), "--hyp", str(bad)]):
        assert main(["align", *args, "--allow-missing"]) == 2
        assert capsys.readouterr().err == f"iescore: {bad}:{where}: {message}\n"


@pytest.mark.parametrize("text", ["", "\n\n", ";; a comment only\n"])
def test_a_reference_without_utterances_is_an_error(tmp_path: Path, capsys, text: str) -> None:
    ref, hyp = _files(tmp_path, text, "a b (u1)\n")
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp), "--allow-missing"]) == 2
    assert capsys.readouterr().err == f"iescore: {ref}: no utterances or documents: the reference is empty\n"


def test_at_sign_and_slash_outside_braces_are_no_empty_alternative(tmp_path: Path, capsys) -> None:
    # '{ @ / b }' is sclite's empty alternative; a '/' outside braces is a word like any other.
    ref, hyp = _files(tmp_path, "a { @ / b } / c (u1)\n", "a / c (u1)\n")
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp)]) == 0
    assert "Scores: (#C #S #D #I) 3 0 0 0" in capsys.readouterr().out


# -- defaults and help -----------------------------------------------------------------------------


def test_align_defaults_to_sclites_costs(tmp_path: Path, capsys) -> None:
    # sclite's costs count every word: the filler "uh" left out is a deletion (C 2, D 1). With phonetic
    # costs it would be an optional word, left out for free and counted correct (C 3).
    ref, hyp = _files(tmp_path, "the uh cat (u1)\n", "the cat (u1)\n")
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp)]) == 0
    assert "Scores: (#C #S #D #I) 2 0 1 0" in capsys.readouterr().out
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp), "--cost", "phonetic"]) == 0
    assert "Scores: (#C #S #D #I) 3 0 0 0" in capsys.readouterr().out


def test_every_align_option_shows_its_default_in_help() -> None:
    parser = _parser()
    align = next(a for a in parser._subparsers._group_actions[0].choices.items() if a[0] == "align")[1]
    text = " ".join(align.format_help().split())
    assert "(default: levenshtein)" in text
    for action in align._actions:
        if action.dest == "help":
            continue
        assert action.help and re.search(r"default|required", action.help), action.dest


# -- progress --------------------------------------------------------------------------------------


def test_progress_lines_go_to_stderr_and_stdout_holds_the_report_alone(tmp_path: Path, capsys) -> None:
    # --progress-every 0: a line after every segment (two here).
    ref, hyp = _files(tmp_path, "a b (u1)\nc d (u2)\n", "a b (u1)\nc x (u2)\n")
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp), "--progress-every", "0"]) == 0
    captured = capsys.readouterr()
    assert re.search(r"^iescore align: aligned 1 of 2 segments \(\d+ s\)$", captured.err, re.M)
    assert re.search(r"^iescore align: aligned 2 of 2 segments \(\d+ s\)$", captured.err, re.M)
    assert "iescore align:" not in captured.out
    assert captured.out.startswith("id: (u1)\n")
