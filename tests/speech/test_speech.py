"""Speech input end to end: recognizer texts, noisy contents, unsegmented streams, bad input, audit.

The sample in data/hub4-speech: two reference documents, the recognizer's version of each, and the
same recognizer output as one unsegmented word stream with timestamps.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from iescore.pipeline.core.corpus import read_corpus
from iescore.pipeline.templette.model import Extent, Instance, TemplateSet, TextFill
from iescore.pipeline.templette.scoring import ScoringOptions, content_matches, score_template_sets
from iescore.pipeline.templette.templates import read_template_set
from iescore.tasks.cli.main import main
from iescore.tasks.core.store import list_artifacts

ROOT = Path(__file__).resolve().parents[2]
SPEECH = ROOT / "data" / "hub4-speech"
SAMPLE = ROOT.parent / "shared" / "samples" / "hub4-sports"


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def score(tmp_path: Path, capsys: pytest.CaptureFixture[str], hyp: str, hyp_texts: str, *extra: str) -> dict:
    out = tmp_path / "scores.json"
    status, _, err = run(
        capsys, "templette", "--ref", SPEECH / "ref.tpl", "--hyp", SPEECH / hyp,
        "--texts", SPEECH / "texts.sgml", "--hyp-texts", SPEECH / hyp_texts,
        "--store", tmp_path / "store", "--json", out, *extra,
    )  # fmt: skip
    assert status == 0, err
    return json.loads(out.read_text())


# By hand, compare both (2 points a text fill):
#   S1 ENTITY NAME "General Motors" / "general motors": same words (case folded), same columns: 2 COR.
#   S1 ENTITY LOCATION "Detroit" / "detroit": 2 COR.
#   S1 PERSON NAME "Glen Buni- Bunting" / "glen bunting": the fragment is optional (noisy data), so the
#      content is correct; the reference spans the columns glen, buni- (deleted), bunting and so
#      does the hypothesis (glen ... bunting): 2 COR.
#   S2 EVENT LOCATION "Anchorage" / "anchor age": "anchor age" is no substring of "anchorage": content
#      INC; the hypothesis spans two columns (anchorage/anchor substituted, age inserted), the
#      reference one: not enclosed, extent INC.
#   Total COR 6, INC 2: REC = PRE = 6/8 = 75%.
EXPECTED = {"COR": 6, "INC": 2, "MIS": 0, "SPU": 0}


@pytest.mark.parametrize("cost", ["phonetic", "levenshtein"])
def test_recognizer_texts_segmented(tmp_path: Path, capsys: pytest.CaptureFixture[str], cost: str) -> None:
    scores = score(tmp_path, capsys, "asr.tpl", "asr.sgml", "--cost", cost)
    assert {k: scores["totals"][k] for k in EXPECTED} == EXPECTED
    assert scores["totals"]["REC"] == 75.0 and scores["totals"]["PRE"] == 75.0
    assert f"align:{cost}" in scores["signature"]


def test_recognizer_stream_unsegmented(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The same words as one stream: instance sets story1 and story2 overlap S1 and S2 only, so the
    # mapping and the points are those of the segmented run.
    scores = score(tmp_path, capsys, "asr-stream.tpl", "asr-stream.txt", "--unsegmented")
    assert {k: scores["totals"][k] for k in EXPECTED} == EXPECTED
    by_doc = {d["doc_id"]: d for d in scores["by_document"]}
    assert (by_doc["S1"]["COR"], by_doc["S2"]["INC"]) == (6, 2)
    assert "unsegmented" in scores["signature"]


def test_both_ways_of_mapping_instance_sets_agree_on_segmented_data() -> None:
    # Seed 000: with segmented hypothesis texts, mapping instance sets by document id and by the
    # overlap-restricted greedy algorithm give the same mapping. Extents are moved to corpus offsets
    # (document offset + offset) so that the documents' extents do not overlap.
    corpus = read_corpus(SAMPLE / "texts.sgml")
    offsets = {d.doc_id: d.offset for d in corpus.documents}
    extents = {d.doc_id: (d.offset, d.offset + len(d.text)) for d in corpus.documents}
    reference = _shifted(read_template_set(SAMPLE / "ref.tpl"), offsets)
    for name in ("perfect", "sloppy", "forgetful", "eager"):
        hypothesis = _shifted(read_template_set(ROOT / "data" / "hub4-sports" / f"{name}.tpl"), offsets)
        by_document = score_template_sets(reference, hypothesis, ScoringOptions())
        by_overlap = score_template_sets(
            reference, hypothesis, ScoringOptions(instance_sets="overlap"), set_extents=extents
        )
        assert _pairs(by_overlap) == _pairs(by_document), name
        assert by_overlap.counts() == by_document.counts(), name


def _shifted(template_set: TemplateSet, offsets: dict[str, int]) -> TemplateSet:
    def shift(instance: Instance, fill: TextFill) -> TextFill:
        offset = offsets[instance.pointer.doc_id]
        return TextFill(
            fill.raw,
            tuple(Extent(e.start + offset, e.end + offset) for e in fill.extents),
            fill.quoted,
            fill.line,
        )

    return template_set.map_text_fills(shift)


def _pairs(scoring) -> list:  # noqa: ANN001
    return sorted((str(i.ref), str(i.hyp), i.point.category) for i in scoring.instances)


@pytest.mark.parametrize(
    ("ref", "hyp", "noisy", "expected"),
    [
        # Seed 000, noisy data: the fragment "Buni-" may be missing from the hypothesis.
        ("Glen Buni- Bunting", "Glen Bunting", True, True),
        # Clean data compares characters: "glen bunting" is no substring of "glen buni- bunting".
        ("Glen Buni- Bunting", "Glen Bunting", False, False),
        # A filler in the reference is optional too.
        ("the uh race", "the race", True, True),
        # Only reference tokens are optional: a hypothesis filler is an extra word.
        ("the race", "the uh race", True, False),
        # Tokens, not characters: with minimal string "race", the hypothesis "race" is a substring of
        # the maximal "races" as characters, not as tokens.
        ("[race]s", "race", True, False),
        ("[race]s", "race", False, True),
    ],
)
def test_noisy_content_comparison(ref: str, hyp: str, noisy: bool, expected: bool) -> None:
    assert content_matches(TextFill(ref), TextFill(hyp), noisy=noisy) is expected


def test_noisy_minimal_string_may_lose_its_optional_tokens() -> None:
    # Minimal string "Buni- Bunting": its fragment may be missing, so "Bunting" contains it.
    assert content_matches(TextFill("Glen [Buni- Bunting]"), TextFill("Bunting"), noisy=True)
    # "Glen" alone contains no form of the minimal string.
    assert not content_matches(TextFill("Glen [Buni- Bunting]"), TextFill("Glen"), noisy=True)


def test_hypothesis_document_the_reference_lacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hyp_texts = tmp_path / "asr.sgml"
    extra = "<DOC>\n<DOCNO> S9 </DOCNO>\n<TEXT>\nnot in the reference\n</TEXT>\n</DOC>\n"
    text = (SPEECH / "asr.sgml").read_text()
    hyp_texts.write_text(text + extra)
    line = text.count("\n") + 1
    status, _, err = run(
        capsys, "templette", "--ref", SPEECH / "ref.tpl", "--hyp", SPEECH / "asr.tpl",
        "--texts", SPEECH / "texts.sgml", "--hyp-texts", hyp_texts, "--store", tmp_path / "store",
    )  # fmt: skip
    assert status == 2
    assert f"{hyp_texts}:{line}: document 'S9' is not in the reference texts" in err


def test_empty_reference_document_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # S2's words become blanks of the same length (its extents stay inside it); S2 starts on line 7.
    # An empty hypothesis document is scored instead (all deletions): tests/speech/test_speech_body.py.
    texts = tmp_path / "texts.sgml"
    sentence = "The race starts tomorrow in Anchorage."
    texts.write_text((SPEECH / "texts.sgml").read_text().replace(sentence, " " * len(sentence)))
    status, _, err = run(
        capsys, "templette", "--ref", SPEECH / "ref.tpl", "--hyp", SPEECH / "asr.tpl",
        "--texts", texts, "--hyp-texts", SPEECH / "asr.sgml", "--store", tmp_path / "store",
    )  # fmt: skip
    assert status == 2
    assert f"{texts}:7: reference document 'S2' has no words" in err


def test_words_in_another_encoding_are_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hyp_texts = tmp_path / "asr.sgml"
    data = (SPEECH / "asr.sgml").read_text().replace("detroit", "détroit").encode("latin-1")
    hyp_texts.write_bytes(data)
    status, _, err = run(
        capsys, "templette", "--ref", SPEECH / "ref.tpl", "--hyp", SPEECH / "asr.tpl",
        "--texts", SPEECH / "texts.sgml", "--hyp-texts", hyp_texts, "--store", tmp_path / "store",
    )  # fmt: skip
    assert status == 2
    assert f"{hyp_texts}:4:" in err and "utf-8" in err


def test_alignment_artifact_explains_a_normalized_extent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The README's audit recipe: find the alignment artifact of a run and read it with pandas.
    score(tmp_path, capsys, "asr.tpl", "asr.sgml")
    alignment = next(a for a in list_artifacts(tmp_path / "store") if a["stage"] == "AlignCorpora")
    frame = pd.read_parquet(alignment["path"])
    s2 = frame[frame.doc_id == "S2"].set_index("column")
    # "anchor age" normalized to columns [5, 7): column 5 substitutes anchorage/anchor, 6 inserts age.
    assert list(s2.loc[5:6, "op"]) == ["S", "I"]
    assert (s2.loc[5, "ref_word"], s2.loc[5, "hyp_word"], s2.loc[6, "hyp_word"]) == (
        "Anchorage",
        "anchor",
        "age",
    )
    assert pd.isna(s2.loc[6, "ref_word"])


EXAMPLE_GLM = ROOT.parent / "shared" / "external" / "sctk" / "glm-tests" / "example.glm"


def test_glm_normalizes_contents_both_sides() -> None:
    # example.glm: 'SHE'S => SHE IS' and '" OK " => " OKAY "' (quotes bound a string with its blanks).
    from iescore.pipeline.speech.glm import read_glm
    from iescore.pipeline.templette.normalize import normalize_text

    glm = read_glm(EXAMPLE_GLM)
    assert normalize_text(glm, "she's ok") == "SHE IS OKAY"
    # '[S.'S] => [{S.'S / S. IS / S. HAS}] / [ ] __ [ ]': the alternatives are kept...
    assert normalize_text(glm, "the S.'S best") == "THE {S.'S / S. IS / S. HAS} BEST"
    # ... and content comparison accepts any of them.
    ref = TextFill(normalize_text(glm, "the S.'S best"))
    assert content_matches(ref, TextFill("the s. has best"), alternatives=True)
    assert content_matches(ref, TextFill("the s.'s best"), alternatives=True)
    assert not content_matches(ref, TextFill("the s. had best"), alternatives=True)
    # Without a GLM, braces are plain characters: no alternatives, and unbalanced ones are no error.
    assert not content_matches(ref, TextFill("the s. has best"))
    assert content_matches(TextFill("Detroit {x"), TextFill("Detroit {x"))


def test_glm_option_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The reference says "OK", the recognizer "okay". Without a GLM the content point is incorrect;
    # with example.glm (" OK " => " OKAY ") both contents read OKAY and the point is correct. The
    # extent point is correct either way (one column each).
    head = "<DOC>\n<DOCNO> D1 </DOCNO>\n<TEXT>\n"
    ref_text = head + "that is OK with me\n</TEXT>\n</DOC>\n"
    hyp_text = head + "that is okay with me\n</TEXT>\n</DOC>\n"
    (tmp_path / "ref.sgml").write_text(ref_text)
    (tmp_path / "hyp.sgml").write_text(hyp_text)
    s, h = ref_text.index("OK"), hyp_text.index("okay")
    (tmp_path / "ref.tpl").write_text(f'<ANSWER-D1-1> :=\n    WORD: "OK" ##{s}#{s + 2}#\n')
    (tmp_path / "hyp.tpl").write_text(f'<ANSWER-D1-1> :=\n    WORD: "okay" ##{h}#{h + 4}#\n')
    results = {}
    for label, extra in (("plain", []), ("glm", ["--glm", str(EXAMPLE_GLM)])):
        out = tmp_path / f"{label}.json"
        status, _, err = run(
            capsys, "templette", "--ref", tmp_path / "ref.tpl", "--hyp", tmp_path / "hyp.tpl",
            "--texts", tmp_path / "ref.sgml", "--hyp-texts", tmp_path / "hyp.sgml",
            "--store", tmp_path / "store", "--json", out, *extra,
        )  # fmt: skip
        assert status == 0, err
        results[label] = json.loads(out.read_text())["totals"]
    assert (results["plain"]["COR"], results["plain"]["INC"]) == (1, 1)
    assert (results["glm"]["COR"], results["glm"]["INC"]) == (2, 0)


def test_glm_rule_that_does_not_parse_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    glm = tmp_path / "bad.glm"
    glm.write_text(';; comment\n* name "bad"\nGOOD => BETTER\nNO ARROW HERE\n')
    status, _, err = run(
        capsys, "templette", "--ref", SPEECH / "ref.tpl", "--hyp", SPEECH / "asr.tpl",
        "--texts", SPEECH / "texts.sgml", "--hyp-texts", SPEECH / "asr.sgml", "--glm", glm,
        "--store", tmp_path / "store",
    )  # fmt: skip
    assert status == 2
    assert f"{glm}:4:" in err


def test_speech_campaign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # data/speech-campaign.toml: the segmented and the unsegmented system both score COR 6, INC 2
    # (EXPECTED above), so they share rank 1.
    out = tmp_path / "board.json"
    status, _, err = run(
        capsys,
        "campaign",
        ROOT / "data" / "speech-campaign.toml",
        "--store",
        tmp_path / "store",
        "--json",
        out,
    )
    assert status == 0, err
    board = {row["system"]: row for row in json.loads(out.read_text())["leaderboard"]}
    for system in ("asr", "asr-stream"):
        assert {k: board[system][k] for k in EXPECTED} == EXPECTED, system
        assert board[system]["rank"] == 1


def test_long_streams_are_cut_at_words_said_once_without_changing_the_alignment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Above WHOLE_STREAM_LIMIT the stream is aligned in pieces cut at words that occur once on each
    # side ("motors", "detroit", "glen", ... in the sample). On the sample, forced through that path,
    # the alignment must be the whole-stream one, column for column.
    import iescore.pipeline.speech.align as align_module
    from iescore.pipeline.core.corpus import read_stream

    reference = read_corpus(SPEECH / "texts.sgml")
    stream = read_stream(SPEECH / "asr-stream.txt").documents[0]
    whole = align_module.align_stream(reference, stream, "asr-stream.txt")
    monkeypatch.setattr(align_module, "WHOLE_STREAM_LIMIT", 0)
    cut = align_module.align_stream(reference, stream, "asr-stream.txt")
    assert cut.equals(whole)
    assert align_module._longest_increasing([(0, 5), (1, 1), (2, 2), (3, 9), (4, 3)]) == [
        (1, 1),
        (2, 2),
        (4, 3),
    ]
