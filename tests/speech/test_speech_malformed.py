"""Malformed input to the speech commands (issue 25, point 4): tables of variants of ``iescore align``'s
trn inputs and of GLM files (through ``iescore glm`` and ``iescore align --glm``), each a clean exit 2
naming the file and line (or the option) and what was expected, with nothing written."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

REF = "a b c (u1)\nd e (u2)\n"
HYP = "a x c (u1)\nd e (u2)\n"
RULES = ";; rules\n* name 't'\nA => B\n"


def _run_align(tmp_path: Path, capsys: pytest.CaptureFixture[str], ref: bytes, hyp: bytes, glm: bytes | None,
               *options: str) -> tuple[int, str, str]:  # fmt: skip
    (tmp_path / "ref.trn").write_bytes(ref)
    (tmp_path / "hyp.trn").write_bytes(hyp)
    argv = ["align", "--ref", str(tmp_path / "ref.trn"), "--hyp", str(tmp_path / "hyp.trn"),
            "--json", str(tmp_path / "out.json"), "--progress-every", "0", *options]  # fmt: skip
    if glm is not None:
        (tmp_path / "rules.glm").write_bytes(glm)
        argv += ["--glm", str(tmp_path / "rules.glm")]
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _where(tmp_path: Path, where: str) -> str:
    return where if where.startswith("-") else str(tmp_path / where)


# (id, ref, hyp, where the message points, what it says)
TRN = [
    ("ref-no-id", "a b c\n", HYP, "ref.trn:1", "utterance id '(ID)' expected at the end of the line"),
    ("hyp-no-id-line-2", REF, "a x c (u1)\nd e\n", "hyp.trn:2", "utterance id '(ID)' expected"),
    ("ref-id-not-last", "a (u1) b\n", HYP, "ref.trn:1", "utterance id '(ID)' expected"),
    ("ref-id-with-paren", "a b (u)1)\n", HYP, "ref.trn:1", "utterance id '(ID)' expected"),
    ("ref-empty-id", "a b ()\n", HYP, "ref.trn:1", "empty utterance id '()'"),
    ("ref-blank-id", "a b (  )\n", HYP, "ref.trn:1", "empty utterance id '()'"),
    ("ref-repeated-id", "a (u1)\nb (u1)\n", HYP, "ref.trn:2", "utterance id (u1) already on line 1"),
    ("hyp-repeated-id-case", REF, "a (u1)\nb (U1)\n", "hyp.trn:2", "already on line 1"),
    ("ref-unclosed-brace", "a { b / c (u1)\nd e (u2)\n", HYP, "ref.trn:1", "'}'"),
    ("ref-stray-close-brace", "a b } c (u1)\nd e (u2)\n", HYP, "ref.trn:1", "'}'"),
    ("ref-empty-alternative", "a { b / } c (u1)\nd e (u2)\n", HYP, "ref.trn:1", "write '@' for no word"),
    ("ref-not-utf8", "a b c (u1)\n", HYP, None, None),  # replaced below by bytes
    ("hyp-not-in-ref", REF, HYP + "f (u3)\n", "hyp.trn:3", "(u3) is not in the reference"),
    ("ref-not-in-hyp", REF + "f (u3)\n", HYP, "hyp.trn", "(u3) of the reference"),
    ("ref-empty", "", HYP, "ref.trn", "the reference is empty"),
    ("ref-comments-only", ";; nothing\n\n", HYP, "ref.trn", "the reference is empty"),
]
TRN_BYTES = {
    "ref-not-utf8": (b"a b c (u1)\nd \xff e (u2)\n", HYP.encode(), "ref.trn:2", "utf-8"),
}
TRN_BYTES["ref-utf16"] = (REF.encode("utf-16"), HYP.encode(), "ref.trn:1", "utf-8")
TRN_BYTES["hyp-utf16-no-bom"] = (REF.encode(), HYP.encode("utf-16-le"), "hyp.trn:1", "NUL")
TRN_BYTES["ref-nul-line-2"] = (b"a b c (u1)\nd\x00e (u2)\n", HYP.encode(), "ref.trn:2", "NUL")
TRN_CASES = [
    (name, *(TRN_BYTES[name] if name in TRN_BYTES else (ref.encode(), hyp.encode(), where, message)))
    for name, ref, hyp, where, message in TRN
] + [(name, *TRN_BYTES[name]) for name in TRN_BYTES if name not in {row[0] for row in TRN}]


@pytest.mark.parametrize(
    ("ref", "hyp", "where", "message"), [case[1:] for case in TRN_CASES], ids=[c[0] for c in TRN_CASES]
)
def test_malformed_trn_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ref: bytes, hyp: bytes, where: str, message: str
) -> None:
    status, out, err = _run_align(tmp_path, capsys, ref, hyp, None)
    assert status == 2
    assert err.startswith(f"iescore: {_where(tmp_path, where)}: "), err
    assert message in err, err
    assert out == "" and not (tmp_path / "out.json").exists()


# (id, GLM text (bytes), where the message points (line), what it says)
GLM = [
    ("no-arrow", b";; r\nA B\n", 2, "there is no '=>'"),
    ("indented-comment", b";; r\nA => B\n   ;; note\n", 3, "holds only a comment"),
    ("header-unquoted", b";; r\n* name = t\n", 2, "quot"),
    ("header-format", b";; r\n* format = 'NIST2'\n", 2, "NIST1"),
    ("header-copy-no-hit", b";; r\n* copy_no_hit = 'maybe'\n", 2, "maybe"),
    ("header-max-nrules-word", b";; r\n* max_nrules = 'many'\n", 2, "many"),
    ("too-many-rules", b";; r\n* max_nrules = '1'\nA => B\nC => D\n", 4, "more rules than max_nrules = 1"),
    ("bad-selector", b';; r\n;; INPUT_DEPENDENT_APPLICATION = "(ctm"\nA => B\n', 2, "regular expression"),
    ("empty-left-side", b';; r\n"" => X\n', 2, "empty left side"),
    ("context-unclosed-bracket", b";; r\nFOO => BAR / [ __\n", 2, "unbalanced brackets in 'BAR / [ __'"),
    ("context-no-slot", b";; r\nFOO => BAR / C D\n", 2, "'C __ D' expected"),
    ("context-two-slots", b";; r\nFOO => B / C __ D __ E\n", 2, "one '__' expected"),
    ("unbalanced-brace", b";; r\nFOO => {BAR / BAZ\n", 2, "'C __ D' expected"),
    ("unbalanced-open-brace", b";; r\nFOO => {BAR\n", 2, "unbalanced '{'"),
    ("unbalanced-close-brace", b";; r\nFOO => BAR}\n", 2, "unbalanced '}'"),
    ("second-arrow", b";; r\nFOO => B => C\n", 2, "a second '=>'"),
    ("not-utf8", b";; r\nA => B\n\xc9T\xc9 => ETE\n", 3, "utf-8"),
    ("utf16", ";; r\nA => B\n".encode("utf-16"), 1, "utf-8"),
]


@pytest.mark.parametrize(
    ("ref", "hyp", "where"), [("a b\n", HYP, "ref.trn:1"), (REF, "a (u1)\nb\n", "hyp.trn:2")]
)
def test_trn_without_id_names_its_file_through_the_glm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ref: str, hyp: str, where: str
) -> None:
    # With --glm each file is filtered as csrfilt -i trn filters it first: its errors name the file.
    status, out, err = _run_align(tmp_path, capsys, ref.encode(), hyp.encode(), RULES.encode())
    assert status == 2
    assert err.startswith(f"iescore: {tmp_path / where}: expected a trn line"), err
    assert out == "" and not (tmp_path / "out.json").exists()


@pytest.mark.parametrize(("text", "line", "message"), [g[1:] for g in GLM], ids=[g[0] for g in GLM])
def test_malformed_glm_exits_2_in_align(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: bytes, line: int, message: str
) -> None:
    status, out, err = _run_align(tmp_path, capsys, REF.encode(), HYP.encode(), text)
    assert status == 2
    assert err.startswith(f"iescore: {tmp_path / 'rules.glm'}:{line}: "), err
    assert message in err, err
    assert out == "" and not (tmp_path / "out.json").exists()


def _run_glm(monkeypatch: pytest.MonkeyPatch, argv: list[str], stdin: bytes) -> tuple[int, bytes]:
    sink = io.BytesIO()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(sink))
    status = main(argv)
    sys.stdout.flush()
    return status, sink.getvalue()


@pytest.mark.parametrize(("text", "line", "message"), [g[1:] for g in GLM], ids=[g[0] for g in GLM])
def test_malformed_glm_exits_2_in_the_filter(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    text: bytes,
    line: int,
    message: str,
) -> None:
    (tmp_path / "rules.glm").write_bytes(text)
    status, out = _run_glm(monkeypatch, ["glm", str(tmp_path / "rules.glm")], b"a foo b (u1)\n")
    err = capsys.readouterr().err
    assert (status, out) == (2, b"")
    assert err.startswith(f"iescore: {tmp_path / 'rules.glm'}:{line}: "), err
    assert message in err, err


# (id, input type, standard input, where (line of <stdin>, or the GLM), what it says)
FILTER = [
    ("trn-no-id", "trn", b"a b (u1)\nc d\n", "<stdin>:2", "an utterance id in parentheses"),
    ("stm-few-fields", "stm", b"f 1 s\n", "<stdin>:1", "expected an stm line: file channel speaker"),
    ("unbalanced-parenthesis", "text", b"a (b c\n", "<stdin>:1", "("),
    ("nested-parentheses", "text", b"a ((b)) c\n", "<stdin>:1", "("),
    ("stdin-not-utf8", "text", b"a b\n\xff c\n", "<stdin>:2", "not valid utf-8"),
]


@pytest.mark.parametrize(
    ("kind", "stdin", "where", "message"), [f[1:] for f in FILTER], ids=[f[0] for f in FILTER]
)
def test_malformed_filter_input_exits_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    stdin: bytes,
    where: str,
    message: str,
) -> None:
    (tmp_path / "rules.glm").write_text(RULES)
    status, out = _run_glm(monkeypatch, ["glm", str(tmp_path / "rules.glm"), "-i", kind], stdin)
    err = capsys.readouterr().err
    assert (status, out) == (2, b"")
    assert err.startswith(f"iescore: {where}: "), err
    assert message in err, err
