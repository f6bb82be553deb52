"""Bad input through the command line: empty keys, CoNLL responses that lost a token line, numbers.

Every case here was once accepted silently (a perfect or undefined score, or scores that shifted) or
ended in a traceback; each must now be exit status 2 with ``iescore: file:line: message`` and no
traceback, or, where the input is legitimate (an empty hypothesis), a score.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
COREF = ROOT.parent / "shared" / "external" / "coref" / "datafiles"
needs_shared = pytest.mark.skipif(not COREF.is_dir(), reason="../shared/external/coref not present")


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out, captured.err


# --- empty references and keys; empty hypotheses -----------------------------------------------------

ONE_INSTANCE = '<TEMPLATE-D1-1> :=\n    NAME: "Egypt" ##0#5#\n    KIND: COUNTRY\n'


@pytest.mark.parametrize("text", ["", "\n\n   \n"], ids=["empty", "blank"])
def test_empty_reference_template_set_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    ref, hyp = tmp_path / "ref.tpl", tmp_path / "hyp.tpl"
    ref.write_text(text)
    hyp.write_text(ONE_INSTANCE)
    status, _, err = run(capsys, "templette", "--ref", ref, "--hyp", hyp, "--store", tmp_path / "store")
    assert status == 2
    assert err.startswith(f"iescore: {ref}: nothing to score against") and "instance" in err


def test_empty_hypothesis_template_set_misses_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, hyp, out = tmp_path / "ref.tpl", tmp_path / "hyp.tpl", tmp_path / "s.json"
    ref.write_text(ONE_INSTANCE)
    hyp.write_text("")
    status, _, err = run(
        capsys, "templette", "--ref", ref, "--hyp", hyp, "--store", tmp_path / "store", "--json", out
    )
    assert status == 0, err
    # By hand (compare both): NAME is a text fill, 2 points (content, extent); KIND a set fill, 1
    # point. Nothing in the hypothesis: POS 3, ACT 0, MIS 3; REC 0; PRE and OVG undefined (0/0);
    # F = 2 COR / (POS + ACT) = 0; UND 100.
    totals = json.loads(out.read_text())["totals"]
    assert (totals["POS"], totals["ACT"], totals["MIS"], totals["COR"], totals["SPU"]) == (3, 0, 3, 0, 0)
    assert totals["REC"] == 0 and totals["PRE"] is None and totals["F"] == 0 and totals["UND"] == 100


@pytest.fixture
def muc_te(tmp_path: Path) -> Path:
    shutil.copytree(DATA / "muc_te", tmp_path / "te")
    return tmp_path / "te"


def test_empty_muc_key_is_bad_input(muc_te: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (muc_te / "key.tpl").write_text("")
    status, _, err = run(capsys, "muc", muc_te / "te.config", "--store", muc_te / "store")
    assert status == 2 and err.startswith(f"iescore: {muc_te / 'key.tpl'}: nothing to score against: a key")


def test_empty_muc_response_misses_everything(muc_te: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (muc_te / "response.tpl").write_text("")
    status, out, err = run(capsys, "muc", muc_te / "te.config", "--store", muc_te / "store")
    assert status == 0, err
    # By hand from key.tpl: ORG_NAME, ORG_TYPE, ORG_LEADER, PER_NAME and PER_TITLE of PERSON-57 are
    # missing (5); ORG_ALIAS is tallied with its alternative of fewest points ("Evergreen", 1 MIS), the
    # other alternative's 2 fills NON; optional PERSON-58's PER_NAME NON. POS 6 ACT 0 MIS 6 NON 3:
    # REC 0, PRE undefined, UND 100, ERR 100.
    assert "ALL SLOTS        6     0|   0   0    0|   6    0    3|   0   - 100   -   - 100" in out


def test_named_entity_key_without_entities_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ne = tmp_path / "ne"
    shutil.copytree(DATA / "muc_ne", ne)
    shutil.copyfile(ne / "texts.sgml", ne / "key.sgml")  # the texts without a single tag
    status, _, err = run(capsys, "muc", ne / "ne.config", "--store", tmp_path / "store")
    assert status == 2
    assert err.startswith(f"iescore: {ne / 'key.sgml'}: nothing to score against") and "ENAMEX" in err


@pytest.mark.parametrize(
    ("fmt", "key_text", "words"),
    [
        ("conll", "", "no document"),
        ("conll", "#begin document (d); part 0\nd 0 0 w -\n#end document\n", "no mention"),
        ("sgml", "", "no document"),
        ("sgml", "<DOC>\n<DOCNO> S </DOCNO>\na b\n</DOC>\n", "no mention"),
    ],
    ids=["conll-empty", "conll-no-mention", "sgml-empty", "sgml-no-mention"],
)
def test_empty_coreference_key_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, key_text: str, words: str
) -> None:
    key, response = tmp_path / "key", tmp_path / "response"
    key.write_text(key_text)
    response.write_text(key_text)
    status, _, err = run(capsys, "coref", "-f", fmt, "--key", key, "--response", response)
    assert status == 2 and err.startswith(f"iescore: {key}: {words}")


def test_empty_muc_coreference_key_names_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    co = tmp_path / "co"
    shutil.copytree(DATA / "muc_co", co)
    (co / "key.sgml").write_text("")
    status, _, err = run(capsys, "muc", co / "co.config", "--store", tmp_path / "store")
    # It used to blame the response ("text differs from the key's").
    assert status == 2 and err.startswith(f"iescore: {co / 'key.sgml'}: no document")


# --- CoNLL responses must hold the key's documents, sentences and tokens ----------------------------


def _conll_response(tmp_path: Path, edit: callable) -> Path:
    """TC-A-1.response (the perfect response to TC-A.key) with its lines edited."""
    lines = (COREF / "TC-A-1.response").read_text().split("\n")
    path = tmp_path / "resp.conll"
    path.write_text("\n".join(edit(lines)))
    return path


def _without(number: int) -> callable:
    return lambda lines: lines[: number - 1] + lines[number:]


def _twice(number: int) -> callable:
    return lambda lines: lines[:number] + lines[number - 1 :]


# TC-A.key: line 1 '#begin document (LuoTestCase); ', lines 2-10 sentence 1 (a1 a2 junk b1 b2 b3 b4 jnk
# .), line 11 blank, lines 12-22 sentence 2 (c jnk d1 d2 jnk e jnk f1 f2 f3 .), line 23 '#end document'.
CONLL_EDITS = [
    # b1 (line 5) gone: line 5 of the response holds b2, and sentence 1 has 8 tokens, not 9. (The
    # bracket "(1" of b1 is gone too; the token is said first.)
    ("token line deleted", _without(5), 5, "token 'b1' expected ({key}:5), found 'b2' (sentence 1 of "
     "document '(LuoTestCase);' has 9 tokens in the key, 8 here)"),
    # The last token of sentence 1 ('.', line 10) gone: line 10 is the blank line, line 11 holds c.
    ("sentence end deleted", _without(10), 11, "token '.' expected ({key}:10), found 'c' (sentence 1 of "
     "document '(LuoTestCase);' has 9 tokens in the key, 8 here)"),
    # b1 twice: line 6 holds b1 again where the key has b2; sentence 1 has 10 tokens.
    ("token line repeated", _twice(5), 6, "token 'b2' expected ({key}:6), found 'b1' (sentence 1 of "
     "document '(LuoTestCase);' has 9 tokens in the key, 10 here)"),
    # The last token of the document ('.', line 22) gone: the document ends at line 22.
    ("last token deleted", _without(22), 22, "document '(LuoTestCase);' ends after 19 tokens; the key "
     "goes on with token '.' ({key}:22)"),
    ("extra last token", _twice(22), 23, "token '.' is one too many: the key's document '(LuoTestCase);' "
     "ends after 20 tokens ({key}:23)"),
    # The blank line between the sentences gone: same words, but c (line 11) starts no sentence.
    ("sentence break deleted", _without(11), 11, "a sentence break (blank line) expected before token "
     "'c', as in the key ({key}:12)"),
    ("sentence break added", lambda lines: lines[:5] + [""] + lines[5:], 7, "no sentence break expected "
     "before token 'b2': the key's sentence goes on ({key}:6) (sentence 1 of document '(LuoTestCase);' has "
     "9 tokens in the key, 4 here)"),
    ("document renamed", lambda lines: [lines[0].replace("LuoTestCase", "Other")] + lines[1:], 1,
     "document '(Other);' is not in the key {key}: '#begin document' of a key document expected"),
]  # fmt: skip


@needs_shared
@pytest.mark.parametrize(("name", "edit", "line", "message"), CONLL_EDITS, ids=[e[0] for e in CONLL_EDITS])
def test_conll_response_must_follow_the_key_tokens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, edit: callable, line: int, message: str
) -> None:
    key = COREF / "TC-A.key"
    response = _conll_response(tmp_path, edit)
    status, out, err = run(capsys, "coref", "--key", key, "--response", response, "--strict")
    # Before, a deleted token line shifted every later mention: MUC F fell from 100 to 0, exit 0.
    assert status == 2, out
    assert err == f"iescore: {response}:{line}: {message.format(key=key)}\n"


@needs_shared
def test_conll_response_missing_a_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "key.conll"
    key.write_text((COREF / "TC-A.key").read_text() + (COREF / "TC-A.key").read_text().replace("Luo", "Two"))
    status, _, err = run(capsys, "coref", "--key", key, "--response", COREF / "TC-A-1.response", "--strict")
    # The key's second document starts on line 24 (TC-A.key has 23 lines and a final newline).
    assert status == 2
    assert err == (
        f"iescore: {COREF / 'TC-A-1.response'}: document '(TwoTestCase);' of the key ({key}:24) is "
        "missing: '#begin document (TwoTestCase);' expected\n"
    )


@needs_shared
def test_conll_words_alone_differing_are_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    # TC-A-4.response writes its spurious mentions on key tokens 'jnk' renamed 'x' and 'y' (lines 13, 17
    # and 19 of both files); the reference scorer ignores words and so do the scores (TC-A-4: MUC
    # recall 1/3, precision 1/3), but the report says so.
    key, response = COREF / "TC-A.key", COREF / "TC-A-4.response"
    status, out, err = run(capsys, "coref", "--key", key, "--response", response)
    assert status == 0, err
    assert "TOTALS:" in out and "1 / 3" in out
    assert (
        f"note: 3 response token(s) have another word than the key's; mentions are token positions, "
        f"compared as such (first: {response}:13: token 'jnk' expected ({key}:13), found 'x')"
    ) in out
    status, out, _ = run(capsys, "coref", "--key", key, "--response", COREF / "TC-A-1.response")
    assert status == 0 and "note:" not in out


# --- numbers ------------------------------------------------------------------------------------------


def test_template_offset_beyond_64_bits_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, hyp = tmp_path / "ref.tpl", tmp_path / "hyp.tpl"
    ref.write_text(ONE_INSTANCE)
    hyp.write_text(ONE_INSTANCE.replace("##0#5#", "##0#99999999999999999999999#"))
    # Without texts nothing bounded the offset: Arrow raised OverflowError in a traceback (exit 1).
    status, _, err = run(capsys, "templette", "--ref", ref, "--hyp", hyp, "--store", tmp_path / "store")
    assert status == 2 and err.startswith(f"iescore: {hyp}:2: offset 99999999999999999999999 in extent")


@pytest.mark.parametrize("option", ["key_file", "response_file"])
def test_muc_configuration_naming_a_missing_file(
    muc_te: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    config = muc_te / "te.config"
    text = config.read_text()
    config.write_text(text.replace(f":{option} ", f":{option} missing-"))
    line = next(n for n, row in enumerate(text.splitlines(), start=1) if row.startswith(f":{option}"))
    # Was a FileNotFoundError traceback (the store hashes inputs before any reader runs).
    status, _, err = run(capsys, "muc", config, "--store", muc_te / "store")
    missing = config.parent / f"missing-{text.split(f':{option} ')[1].split()[0]}"
    assert (status, err) == (2, f"iescore: {config}:{line}: :{option} {missing}: file not found\n")


# --- GLM rules ------------------------------------------------------------------------------------------


def test_malformed_glm_rule_in_the_templette_chain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref, glm = tmp_path / "ref.tpl", tmp_path / "rules.glm"
    ref.write_text(ONE_INSTANCE)
    # Without brackets, rfilter1 cuts the output at the alternation's "/": EGYPT became "{A" on both
    # sides, and the sample scored 100 with the rule silently broken.
    glm.write_text(';;\n* case_sensitive = "F"\nEGYPT => {MISR / EGYPT}\n')
    status, _, err = run(
        capsys, "templette", "--ref", ref, "--hyp", ref, "--glm", glm, "--store", tmp_path / "store"
    )
    # Refused when the file is read, before any stage runs (docs/speech.md).
    (error,) = err.splitlines()
    assert status == 2 and error.startswith(f"iescore: {glm}:3: 'C __ D' expected after the context slash")
    assert not (tmp_path / "store").exists()


def test_empty_left_side_through_the_glm_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    glm = tmp_path / "rules.glm"
    glm.write_text(";;\nA => B\n=> C\n")
    status, _, err = run(capsys, "glm", glm, "-i", "text")
    assert status == 2 and err.startswith(f"iescore: {glm}:3: empty left side")


# --- stray characters in texts ------------------------------------------------------------------------


def test_stray_angle_bracket_in_a_word_stream_keeps_the_words() -> None:
    from iescore.pipeline.core.documents import Document
    from iescore.pipeline.speech.align import document_items

    # An unsegmented stream: tags are skipped, the rest is words. The stray "<" used to open a "tag"
    # running to the next ">", which silently dropped "you" (and was quadratic on 200,000 of them).
    stream = Document("*stream*", "I < you <time sec=1> me", 0, 1, ())
    # The "<" itself has no letter or digit, so it is no word (README, "Words of a text").
    assert [word.text for word in document_items(stream, None, None, "s.txt")] == ["I", "you", "me"]
