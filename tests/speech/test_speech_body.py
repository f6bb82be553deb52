"""Speech input on the seed's own corpus layout: <TEXT> inside <BODY>, <ANNOTATION> inside <TEXT>.

The sample in data/hub4-speech-body (see its README): two reference stories in the seed's layout,
a recognizer's texts in the same layout with recognition errors, and the same words as one stream.
Also: a document without words is bad input on the reference side and all deletions on the
hypothesis side, in `iescore align -i sgml`, in templette scoring and with an unsegmented stream.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from iescore.tasks.cli.main import main
from iescore.tasks.core.store import list_artifacts

ROOT = Path(__file__).resolve().parents[2]
BODY = ROOT / "data" / "hub4-speech-body"
SPORTS = ROOT / "data" / "hub4-sports"
ABC, PRI = "ABC19980307.1830.1415", "PRI19980302.2000.2923"


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def templette(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    hyp: object,
    hyp_texts: object,
    *extra: object,
    texts: object = BODY / "texts.sgml",
) -> tuple[int, dict | None, str]:
    out = tmp_path / "scores.json"
    status, _, err = run(
        capsys, "templette", "--ref", BODY / "ref.tpl", "--hyp", hyp, "--texts", texts,
        "--hyp-texts", hyp_texts, "--store", tmp_path / "store", "--json", out, *extra,
    )  # fmt: skip
    return status, json.loads(out.read_text()) if status == 0 else None, err


def align_sgml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ref: object, hyp: object
) -> tuple[int, dict | None, str]:
    out = tmp_path / "align.json"
    status, _, err = run(
        capsys, "align", "-i", "sgml", "--cost", "levenshtein", "--ref", ref, "--hyp", hyp, "--json", out
    )
    return status, json.loads(out.read_text()) if status == 0 else None, err


def counts(score: dict, keys: str = "COR INC MIS SPU") -> dict:
    return {k: score[k] for k in keys.split()}


# By hand, compare both (2 points a text fill). Evaluated words: ABC's <TEXT> (inside <BODY>) less its
# annotation "(voice-over)" and the dash "--": 19 words; PRI's <TEXT>: 23 words. Recognizer: "one" ->
# "won", "26th" -> "twenty sixth" (S + I), "nation" -> "nations", "12" -> "twelve", "2-0" -> "two
# zero" (S + I). Columns (0-based, per document): ABC Anchorage 7, Alaska 8, Iditarod dog sled race
# 16-19; PRI African..tournament 5-10, defending 18, champion 19, south 20, Africa 21, 2-0/two/zero 22-23.
#   ABC S_EVENT "Iditarod dog sled race" / "iditarod dog sled race": same words, columns [16, 20): 2 COR.
#   ABC LOCATION "Anchorage,... <ANNOTATION> (voice-over) </ANNOTATION> ...Alaska": the annotation and
#       punctuation are whited out, "Anchorage Alaska" / "anchorage alaska"; columns [7, 9) both: 2 COR.
#   PRI S_EVENT "... of nation soccer tournament" / "... of nations soccer tournament": "nations" is no
#       token of the reference: content INC; one word for one, columns [5, 11) both: extent COR.
#   PRI WINNER "Egypt": no hypothesis fill: 2 MIS.
#   PRI LOSER "defending champion [south Africa]" / "champion south africa": a run of the maximal string
#       holding the minimal one: content COR; [19, 22) inside [18, 22), overlapping the minimal
#       [20, 22): extent COR.
#   PRI SCORE "2-0" / "two zero": content INC; the hypothesis spans two columns, the reference one:
#       not enclosed, extent INC (whichever of the two columns the alignment gives "2-0").
#   Total COR 7, INC 3, MIS 2, SPU 0: POS 12, ACT 10, REC 7/12 = 58.33%, PRE 7/10 = 70%.
EXPECTED = {"COR": 7, "INC": 3, "MIS": 2, "SPU": 0}
EXPECTED_BY_DOCUMENT = {
    ABC: {"COR": 4, "INC": 0, "MIS": 0, "SPU": 0},
    PRI: {"COR": 3, "INC": 3, "MIS": 2, "SPU": 0},
}


@pytest.mark.parametrize("cost", ["phonetic", "levenshtein"])
def test_body_layout_recognizer_texts(tmp_path: Path, capsys: pytest.CaptureFixture[str], cost: str) -> None:
    status, scores, err = templette(tmp_path, capsys, BODY / "asr.tpl", BODY / "asr.sgml", "--cost", cost)
    assert status == 0, err
    assert counts(scores["totals"]) == EXPECTED
    assert scores["totals"]["REC"] == pytest.approx(100 * 7 / 12)
    assert scores["totals"]["PRE"] == pytest.approx(70.0)
    assert {d["doc_id"]: counts(d) for d in scores["by_document"]} == EXPECTED_BY_DOCUMENT


def test_body_layout_recognizer_stream_unsegmented(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same words as one stream with time stamps: story1's fills lie in ABC's columns [0, 20),
    # story2's in PRI's [20, 44), so each maps to its own story and the points are the segmented run's.
    status, scores, err = templette(
        tmp_path, capsys, BODY / "asr-stream.tpl", BODY / "asr-stream.txt", "--unsegmented"
    )
    assert status == 0, err
    assert counts(scores["totals"]) == EXPECTED
    assert {d["doc_id"]: counts(d) for d in scores["by_document"]} == EXPECTED_BY_DOCUMENT


def test_align_sgml_on_the_body_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # sclite's counts, by hand from the recognizer errors above: ABC 19 reference words, one S (won),
    # "26th" / "twenty sixth" one S and one I: C 17 S 2 D 0 I 1. PRI 23 words, S nations, S twelve,
    # "2-0" / "two zero" S + I: C 20 S 3 D 0 I 1.
    status, report, err = align_sgml(tmp_path, capsys, BODY / "texts.sgml", BODY / "asr.sgml")
    assert status == 0, err
    assert report["segments"] == [
        {"id": ABC, "C": 17, "S": 2, "D": 0, "I": 1},
        {"id": PRI, "C": 20, "S": 3, "D": 0, "I": 1},
    ]
    assert counts(report["totals"], "C S D I") == {"C": 37, "S": 5, "D": 0, "I": 2}


def test_align_sgml_hub4_sports_against_itself_counts_every_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An independent count: the text of each <TEXT> element, annotations cut out, split at blanks;
    # a token with a letter or digit is a word ("--" is not). It must be the real count, not 0.
    text = (SPORTS / "texts.sgml").read_text()
    expected = {}
    for document in re.findall(r"<DOC>.*?</DOC>", text, re.DOTALL):
        doc_id = re.search(r"<DOCNO>\s*(\S+)\s*</DOCNO>", document).group(1)
        body = " ".join(re.findall(r"<TEXT>(.*?)</TEXT>", document, re.DOTALL))
        body = re.sub(r"<ANNOTATION>.*?</ANNOTATION>", " ", body, flags=re.DOTALL)
        expected[doc_id] = sum(1 for token in body.split() if re.search(r"[A-Za-z0-9]", token))
    assert len(expected) == 3 and all(expected.values())
    status, report, err = align_sgml(tmp_path, capsys, SPORTS / "texts.sgml", SPORTS / "texts.sgml")
    assert status == 0, err
    assert {s["id"]: s["C"] for s in report["segments"]} == expected
    assert counts(report["totals"], "C S D I") == {"C": sum(expected.values()), "S": 0, "D": 0, "I": 0}
    assert report["totals"]["Err"] == 0.0


# --- documents without words ---------------------------------------------------------------------------


def without_words(path: Path, doc_id: str, tmp_path: Path, replacement: str = "") -> Path:
    """A copy of ``path`` whose document ``doc_id`` keeps its layout and length but no words in <TEXT>:
    every character of the TEXT content but newlines is a blank, ``replacement`` written at its start."""
    text = path.read_text()
    doc_start = text.index(f"<DOCNO> {doc_id} </DOCNO>")
    start = text.index("<TEXT>", doc_start) + len("<TEXT>")
    end = text.index("</TEXT>", start)
    blank = "".join(ch if ch == "\n" else " " for ch in text[start:end])
    blank = blank[:1] + replacement + blank[1 + len(replacement) :]
    copy = tmp_path / f"empty-{path.name}"
    copy.write_text(text[:start] + blank + text[end:])
    return copy


# PRI's <DOC> is on line 16 of texts.sgml (ABC takes lines 1-15). Its TEXT keeps an annotation only:
# no words once non-extractable sections are left out.
PRI_LINE = 16
NO_WORDS = f"reference document '{PRI}' has no words"


def test_reference_document_without_words_is_bad_input_in_align(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = without_words(BODY / "texts.sgml", PRI, tmp_path, "<ANNOTATION> (music) </ANNOTATION>")
    status, _, err = align_sgml(tmp_path, capsys, texts, BODY / "asr.sgml")
    assert status == 2
    assert f"{texts}:{PRI_LINE}: {NO_WORDS}" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("unsegmented", [False, True])
def test_reference_document_without_words_is_bad_input_in_templette(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], unsegmented: bool
) -> None:
    texts = without_words(BODY / "texts.sgml", PRI, tmp_path, "<ANNOTATION> (music) </ANNOTATION>")
    if unsegmented:
        hyp, extra = (BODY / "asr-stream.tpl", BODY / "asr-stream.txt"), ("--unsegmented",)
    else:
        hyp, extra = (BODY / "asr.tpl", BODY / "asr.sgml"), ()
    status, _, err = templette(tmp_path, capsys, *hyp, *extra, texts=texts)
    assert status == 2
    assert f"{texts}:{PRI_LINE}: {NO_WORDS}" in err


def test_hypothesis_document_without_words_is_all_deletions_in_align(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The recognizer output nothing for PRI: its 23 reference words are deleted; ABC as before.
    hyp = without_words(BODY / "asr.sgml", PRI, tmp_path)
    status, report, err = align_sgml(tmp_path, capsys, BODY / "texts.sgml", hyp)
    assert status == 0, err
    assert report["segments"] == [
        {"id": ABC, "C": 17, "S": 2, "D": 0, "I": 1},
        {"id": PRI, "C": 0, "S": 0, "D": 23, "I": 0},
    ]


def test_hypothesis_document_without_words_is_all_deletions_in_templette(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The hypothesis keeps its ABC instance only (PRI's text is empty): ABC 4 COR as above; PRI's
    # reference instance maps to nothing, its 4 text fills are 2 MIS each: MIS 8.
    hyp_texts = without_words(BODY / "asr.sgml", PRI, tmp_path)
    hyp = tmp_path / "abc-only.tpl"
    hyp.write_text((BODY / "asr.tpl").read_text().split("\n\n")[0] + "\n")
    status, scores, err = templette(tmp_path, capsys, hyp, hyp_texts)
    assert status == 0, err
    assert counts(scores["totals"]) == {"COR": 4, "INC": 0, "MIS": 8, "SPU": 0}
    alignment = next(a for a in list_artifacts(tmp_path / "store") if a["stage"] == "AlignCorpora")
    frame = pd.read_parquet(alignment["path"])
    assert list(frame[frame.doc_id == PRI].op) == ["D"] * 23


def test_stream_without_words_is_all_deletions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Time stamps and no words: the recognizer heard nothing. An empty hypothesis template set: the
    # reference's 6 text fills are 2 MIS each; all 42 reference words are deletions.
    stream = tmp_path / "silence.txt"
    stream.write_text('<time sec="0.00">\n<time sec="11.26">\n')
    hyp = tmp_path / "nothing.tpl"
    hyp.write_text("")
    status, scores, err = templette(tmp_path, capsys, hyp, stream, "--unsegmented")
    assert status == 0, err
    assert counts(scores["totals"]) == {"COR": 0, "INC": 0, "MIS": 12, "SPU": 0}
    alignment = next(a for a in list_artifacts(tmp_path / "store") if a["stage"] == "AlignCorpora")
    assert list(pd.read_parquet(alignment["path"]).op) == ["D"] * 42


def test_empty_stream_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Unlike a stream of time stamps without words, an empty file is taken for a wrong or truncated
    # file, as a text corpus without documents is.
    stream = tmp_path / "blank.txt"
    stream.write_text("\n")
    status, _, err = templette(tmp_path, capsys, BODY / "asr-stream.tpl", stream, "--unsegmented")
    assert status == 2
    assert f"{stream}: the hypothesis word stream is empty" in err


def test_trn_utterances_may_be_empty_on_either_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # sclite's trn rules are kept: u1's 3 reference words are deleted, u2's 2 hypothesis words inserted.
    (tmp_path / "ref.trn").write_text("a b c (u1)\n(u2)\n")
    (tmp_path / "hyp.trn").write_text("(u1)\nx y (u2)\n")
    out = tmp_path / "trn.json"
    status, _, err = run(
        capsys, "align", "-i", "trn", "--cost", "levenshtein", "--ref", tmp_path / "ref.trn",
        "--hyp", tmp_path / "hyp.trn", "--json", out,
    )  # fmt: skip
    assert status == 0, err
    assert counts(json.loads(out.read_text())["totals"], "C S D I") == {"C": 0, "S": 0, "D": 3, "I": 2}
