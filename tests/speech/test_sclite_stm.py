"""stm and ctm reading, sclite's assignment of ctm words to stm segments, and the scores against
sclite 2.10's own outputs (tests/data/speech/sctk, README there)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.ctm import TimedChoice, TimedWord, parse_ctm, parse_token, word_text
from iescore.pipeline.speech.netdp import align_networks, fragment_equal, network
from iescore.pipeline.speech.stm import assign, parse_stm
from iescore.pipeline.speech.stm_score import StmOptions, score_stm_ctm, text_items

SCTK = Path(__file__).resolve().parents[1] / "data" / "speech" / "sctk"
INPUTS = SCTK / "inputs"


def _texts(items) -> list[str]:
    out = []
    for item in items:
        if isinstance(item, TimedWord):
            out.append(item.text)
        else:
            out.append("{" + " / ".join(" ".join(w.text for w in a) or "@" for a in item.alternatives) + "}")
    return out


# -- ctm ---------------------------------------------------------------------------------------------


def test_word_tags_and_escapes():
    # lvc_hyp.ctm's words: the text before the first unescaped ';', '\;' unescaped.
    assert word_text("they;tag1") == "they"
    assert word_text("about;;tag2") == "about"
    assert word_text("a\\;s;tag1") == "a;s"
    assert word_text("um;tag1;") == "um"
    assert word_text("word*") == "word"  # sclite drops a trailing '*'
    assert word_text("*") == "*"
    # the sgml form, as sclite's multi_stm sgml writes these words
    assert parse_token("they;tag1") == ("they", "they;tag1;")
    assert parse_token("pride;tag1;tag2") == ("pride", "pride;tag1;tag2")
    assert parse_token("about;;tag2") == ("about", "about;;tag2")
    assert parse_token("a\\;s;tag1") == ("a;s", "a\\;s;tag1;")
    assert parse_token("far") == ("far", None)


def test_ctm_lines_blocks_and_confidence():
    text = (
        ";; a comment\n"
        "F1 A 0.10 0.40 HELLO 0.95\n"
        "F1 A * * <ALT_BEGIN>\n"
        "F1 A 0.60 0.30 HERE NA\n"
        "F1 A * * <ALT>\n"
        "F1 A * * <ALT_END>\n"
        "F2 B 1.00 0.50 Word;tag\n"
    )
    ctm = parse_ctm(text, "t.ctm")
    assert ctm.has_confidence
    assert [(c.file, c.channel, c.line) for c in ctm.channels] == [("f1", "a", 2), ("f2", "b", 7)]
    first = ctm.channels[0].items
    assert first[0] == TimedWord("hello", 0.10, 0.40, 0.95, 2)
    assert isinstance(first[1], TimedChoice)
    # HERE with confidence NA (none), then the empty alternative.
    assert first[1].alternatives == ((TimedWord("here", 0.60, 0.30, None, 4),), ())
    assert ctm.channels[1].items[0].text == "word"
    # -s: no folding
    assert parse_ctm(text, "t.ctm", None).channels[0].file == "F1"


def test_ctm_ascii_folding_only():
    # sclite without a localization lower-cases ASCII letters only (README: ÄRGER stays Ä).
    ctm = parse_ctm("f A 0 1 ÄRGER\n", "t.ctm")
    assert ctm.channels[0].items[0].text == "Ärger"


# -- stm ---------------------------------------------------------------------------------------------


def test_stm_segments_labels_and_headers():
    stm = parse_stm((INPUTS / "own.stm").read_text(), "own.stm")
    assert [label.id for label in stm.labels] == ["O", "F", "M", "S1", "S2"]
    # the description keeps its two backslashes (the lur prints them as is)
    assert stm.labels[-1].description == "The second story\\\\with a line break"
    first = stm.segments[0]
    assert (first.file, first.channel, first.speaker, first.begin, first.end) == ("f1", "a", "spka", 0.0, 3.0)
    assert first.labels == "<o,f,s1>"
    assert first.text == "hello { there / here } world today"
    assert [s.ignored for s in stm.segments] == [False, False, True, False, False, False, False, False]
    assert stm.segments[4].text == ""  # the empty segment 11.00-12.00


def test_stm_segments_keep_tags_for_the_sgml():
    stm = parse_stm((INPUTS / "lvc_ref.stm").read_text(), "lvc_ref.stm")
    # as written; the words are read (and their sgml forms made) when the segment is aligned
    assert stm.segments[0].text == "i've;tag1 { um;tag1; / uh;;tag2 } a\\;s;tag1 far as i'm concerned"
    assert [c.id for c in stm.categories] == ["0", "1"]
    assert stm.segments[2].labels == "<o,na>" and stm.segments[2].text == ""
    assert stm.segments[6].labels is None  # "2347 a 2347-a 115.43 121.12": no labels, no words


# -- assignment ----------------------------------------------------------------------------------------


def test_assignment_by_midpoint_own_stm():
    stm = parse_stm((INPUTS / "own.stm").read_text(), "own.stm")
    ctm = parse_ctm((INPUTS / "own_hyp.ctm").read_text(), "own_hyp.ctm")
    result = assign(stm, ctm)
    got = {u.id: _texts(u.hyp) for u in result.utterances}
    # Channel f1 A, segments 0-3, 3-5, 5.5-8 (ignored), 8-11, 11-12 (empty, the last).
    # A word goes to the first segment whose end is after its midpoint:
    #   TODAY 2.70+0.50: midpoint 2.95 < 3.00, so 0-3 although it straddles 3.00;
    #   STRAY 5.20+0.20: midpoint 5.30 >= 5.00, so the next segment 5.5-8, with IGNORED (6.25) and
    #   WORDS (7.20): all three vanish with that ignored segment;
    #   THEN 10.90+0.30: midpoint 11.05 >= 11.00, so 11-12; OOPS (11.50) too; AFTER (12.65) is after
    #   the channel's last segment, which takes every word left.
    assert got["spka-000"] == ["hello", "here", "world", "today"]
    assert got["spka-001"] == ["this", "is", "a", "tea", "test"]
    assert got["spkb-000"] == ["good", "morning", "um", "everyone"]
    assert got["spka-002"] == ["then", "oops", "after"]
    assert got["spkd-000"] == ["with", "the", "second", "speaker", "uh", "here"]
    assert got["spka-003"] == ["second", "file", "word"]  # f2 A: numbered on after spka's f1 segments
    # scoring order: spka-000, spka-001, spkb-000, spka-002, spkc-000, spkd-000, spka-003
    assert [u.sequence for u in result.utterances] == list(range(7))
    assert result.utterances[3].id == "spka-002"
    assert (result.ignored_segments, result.ignored_words) == (1, 3)
    assert result.warnings == ()


STM3 = "f a s1 0 2 a b\nf a s1 2 4 c d\nf a s1 6 8 e\n"


def test_reduce_ref_and_hyp():
    ctm = parse_ctm("f a 2.1 0.4 c\nf a 2.6 0.4 d\nf a 8.5 0.2 z\n", "h.ctm")
    stm = parse_stm(STM3, "r.stm")
    # -m ref: the hypothesis spans 2.1 .. 8.7; segment 0-2 ends before 2.1 and is skipped.
    ids = [(u.begin, _texts(u.hyp)) for u in assign(stm, ctm, reduce_ref=True).utterances]
    assert ids == [(2.0, ["c", "d"]), (6.0, ["z"])]
    # -m hyp: the segments span 0 .. 8; z (8.5-8.7) begins after 8 and is dropped.
    ids = [(u.begin, _texts(u.hyp)) for u in assign(stm, ctm, reduce_hyp=True).utterances]
    assert ids == [(0.0, []), (2.0, ["c", "d"]), (6.0, [])]


def test_channel_missing_from_ctm_and_extra():
    stm = parse_stm("f a s 0 1 x\ng a s 0 1 y\n", "r.stm")
    result = assign(stm, parse_ctm("g a 0.1 0.2 y\n", "h.ctm"))
    # f a has no words at the ctm's position (g a comes first): scored against nothing, with
    # sclite's warning; g a then gets its words.
    assert [_texts(u.hyp) for u in result.utterances] == [[], ["y"]]
    assert result.warnings == (
        "align_ctm_to_stm: File identifiers do not match but continuing. "
        "ref file/channel 'f' 'a', next hyp 'g' 'a'.",
    )
    with pytest.raises(InputError) as error:
        assign(stm, parse_ctm("f a 0.1 0.2 x\ng a 0.1 0.2 y\nh a 0 1 z\n", "h.ctm"))
    assert error.value.file == "h.ctm" and error.value.line == 3 and "'h' channel 'a'" in error.value.message


def test_fragment_matching():
    assert fragment_equal("te-", "test") and fragment_equal("test", "te-")
    assert fragment_equal("-st", "test") and not fragment_equal("te-", "tea-x"[:0] + "xtea")


# -- malformed input -----------------------------------------------------------------------------------

STM_BAD = [
    ("f a s 0\n", 1, "4 fields"),
    ("f a s zero 1 w\n", 1, "begin time 'zero' is not a number"),
    ("f a s 0 nan w\n", 1, "not a finite number"),
    ("f a s 2 1 w\n", 1, "end time 1 before begin time 2"),
    ("f a s 0 1 <o,wa w\n", 1, "not closed by '>'"),
    ("f a s 0 1 { a / b\n", 1, "'{' without a closing '}'"),
    ("f a s 0 1 a } b\n", 1, "'}' without '{'"),
    ("f a s 2 3 a\nf a s 1 2 b\n", 2, "must be in time order"),
    ("f a s 0 1 a\ng a s 0 1 b\nf a s 2 3 c\n", 3, "already ended on line 1"),
    (
        ';; LABEL "O" "Overall"\nf a s 0 1 a\n',
        1,
        '2 quoted fields: ;; LABEL "ID" "TITLE" "DESCRIPTION" expected',
    ),
    ("f a s 0 1 a\0\n", 1, "NUL byte"),
]


@pytest.mark.parametrize(("text", "line", "expected"), STM_BAD)
def test_malformed_stm(text, line, expected):
    with pytest.raises(InputError) as error:
        parse_stm(text, "bad.stm")
    assert (error.value.file, error.value.line) == ("bad.stm", line)
    assert expected in error.value.message


CTM_BAD = [
    ("f a 0 1\n", 1, "4 fields: FILE CHANNEL BEGIN DURATION WORD [CONFIDENCE] expected"),
    ("f a 0 1 w 0.5 1 extra\n", 1, "8 fields: at most 7"),
    ("f a x 1 w\n", 1, "begin time 'x' is not a number"),
    ("f a 0 * w\n", 1, "duration '*' is not a number"),
    ("f a 0 1 w high\n", 1, "confidence 'high' is not a number"),
    ("f a 0 1 w 0.5 yes\n", 1, "correctness flag 'yes' is not a number"),
    ("f a * * <ALT>\n", 1, "<ALT> outside an <ALT_BEGIN> block"),
    ("f a * * <ALT_END>\n", 1, "<ALT_END> outside an <ALT_BEGIN> block"),
    ("f a * * <ALT_BEGIN>\nf a * * <ALT_BEGIN>\n", 2, "inside the block opened on line 1"),
    ("f a * * <ALT_BEGIN>\nf a 0 1 w\n", 1, "<ALT_BEGIN> without <ALT_END>"),
    ("f a * * <ALT_BEGIN>\ng a 0 1 w\n", 1, "<ALT_BEGIN> without <ALT_END> before line 2"),
    ("f a 0 1 w\ng a 0 1 w\nf a 2 1 w\n", 3, "already ended on line 1"),
]


@pytest.mark.parametrize(("text", "line", "expected"), CTM_BAD)
def test_malformed_ctm(text, line, expected):
    with pytest.raises(InputError) as error:
        parse_ctm(text, "bad.ctm")
    assert (error.value.file, error.value.line) == ("bad.ctm", line)
    assert expected in error.value.message


def test_missing_file(tmp_path):
    with pytest.raises(InputError) as error:
        score_stm_ctm(str(tmp_path / "none.stm"), str(INPUTS / "own_hyp.ctm"), "t")
    assert error.value.file.endswith("none.stm") and "no such file" in error.value.message


# -- against sclite 2.10's outputs ---------------------------------------------------------------------

_SCORES = re.compile(r"id: (\(\S+\))\n(?:.*\n)*?Scores: \(#C #S #D #I\) (\d+) (\d+) (\d+) (\d+)")


def _manifest() -> dict[str, dict]:
    manifest = json.loads((SCTK / "cases.json").read_text())
    cases = manifest["cases"] if isinstance(manifest, dict) else manifest
    return {case["name"]: case for case in cases}


def _stm_cases() -> list[tuple[str, str, str, StmOptions, str]]:
    found = []
    for case in _manifest().values():
        argv = case["argv"]
        if case["program"] != "sclite" or "stm" not in argv:
            continue
        if "-S" in argv or "-w" in argv:
            continue  # a lexicon or weight list to read as the command reads it: test_sclite.py runs them
        reduce = argv[argv.index("-m") + 1 : argv.index("-m") + 3] if "-m" in argv else []
        options = StmOptions(
            opt_del="-D" in argv,
            frag_corr="-F" in argv,
            reduce_ref="ref" in reduce,
            reduce_hyp="hyp" in reduce,
            char_align="-c" in argv,
            encoding="gb18030" if "gb" in argv else "utf-8",
        )
        hyps = [argv[i + 1] for i, a in enumerate(argv) if a == "-h"]
        pras = [f for f in case["outputs"] if f.endswith(".pra")]
        for hyp, pra in zip(hyps, pras, strict=False):
            found.append((case["name"], argv[argv.index("-r") + 1], hyp, options, pra))
    return found


@pytest.mark.parametrize(
    ("name", "ref", "hyp", "options", "pra"), _stm_cases(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_segment_scores_match_sclite(name, ref, hyp, options, pra, monkeypatch):
    """Every segment's id and C S D I as sclite's .pra prints them, test9 (-c, GB) included."""
    monkeypatch.chdir(INPUTS)
    system, _ = score_stm_ctm(ref, hyp, hyp, options)
    text = (SCTK / "cases" / name / pra).read_bytes().decode(options.encoding)
    want = _SCORES.findall(text)
    got = [(s.id, *map(str, c)) for s, c in zip(system.segments, system.counts(), strict=True)]
    assert got == want


# Every output file of the stm/ctm cases is compared with sclite's by tests/speech/test_sclite.py
# (the command's fixture harness); here only what the model holds.


# -- the network alignment against sclite on random utterances ----------------------------------------

RANDOM = Path(__file__).resolve().parents[1] / "data" / "speech" / "sclite_random"


def _utterances(path: Path) -> list[str]:
    return [line.rsplit(" (", 1)[0] if " (" in line else "" for line in path.read_text().split("\n")[:-1]]


@pytest.mark.parametrize("variant", ["plain", "D", "F", "DF"])
def test_network_alignment_equals_sclites(variant):
    """500 random pairs with alternations on both sides, (x) words and fragments: counts, the words
    on each side in order and the Eval line equal sclite's .pra (README in that folder)."""
    refs, hyps = _utterances(RANDOM / "random.ref"), _utterances(RANDOM / "random.hyp")
    blocks = {}
    for part in (RANDOM / f"random_{variant}.pra").read_text().split("\nid: (")[1:]:
        scores = re.search(r"Scores: \(#C #S #D #I\) (.*)\n", part).group(1)
        lines = re.search(r"REF:  (.*)\nHYP:  (.*)\nEval: (.*)\n", part)
        blocks[part[: part.index(")")]] = (scores, *(lines.groups() if lines else ("", "", "")))
    options = StmOptions(opt_del="D" in variant, frag_corr="F" in variant)
    for d, (ref, hyp) in enumerate(zip(refs, hyps, strict=True)):
        pairs = align_networks(network(text_items(ref, options)), network(text_items(hyp, options)))
        scores, ref_line, hyp_line, eval_line = blocks[f"r{d:04d}-x"]
        got = (
            " ".join(str(sum(p.op == op for p in pairs)) for op in "CSDI"),
            [p.ref.text for p in pairs if p.ref],
            [p.hyp.text for p in pairs if p.hyp],
            [p.op for p in pairs if p.op != "C"],
        )
        want = (
            scores,
            [t.lower() for t in ref_line.split() if set(t) != {"*"}],
            [t.lower() for t in hyp_line.split() if set(t) != {"*"}],
            eval_line.split(),
        )
        assert got == want, (d, ref, hyp)


# -- the command on malformed files ---------------------------------------------------------------------

GOOD_STM = "f a s 0 2 a b\n"
GOOD_CTM = "f a 0.1 0.5 a\nf a 1.0 0.5 b\n"
COMMAND_BAD = [
    ("bad.stm", "f a s 0\n", GOOD_CTM, 1, "4 fields: FILE CHANNEL SPEAKER BEGIN END"),
    ("bad.stm", "f a s 0 x a\n", GOOD_CTM, 1, "end time 'x' is not a number"),
    ("bad.stm", "f a s 0 1 <o a\n", GOOD_CTM, 1, "not closed by '>'"),
    ("bad.ctm", GOOD_STM, "f a 0.1 0.5 a\nf a 1.0\n", 2, "3 fields: FILE CHANNEL BEGIN DURATION WORD"),
    ("bad.ctm", GOOD_STM, "f a * * <ALT_END>\n", 1, "<ALT_END> outside an <ALT_BEGIN> block"),
    ("bad.ctm", GOOD_STM, "f a 0.1 0.5 a\ng a 0 1 z\n", 2, "file 'g' channel 'a' has no segments"),
]


@pytest.mark.parametrize(("bad", "stm", "ctm", "line", "expected"), COMMAND_BAD)
def test_command_refuses_malformed_input(bad, stm, ctm, line, expected, tmp_path, monkeypatch, capsys):
    from iescore.tasks.cli.sclite import sclite_main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.stm" if bad == "bad.stm" else tmp_path / "ref.stm").write_text(stm)
    (tmp_path / "bad.ctm" if bad == "bad.ctm" else tmp_path / "hyp.ctm").write_text(ctm)
    ref = "bad.stm" if bad == "bad.stm" else "ref.stm"
    hyp = "bad.ctm" if bad == "bad.ctm" else "hyp.ctm"
    (tmp_path / "out").mkdir()
    status = sclite_main(["-r", ref, "stm", "-h", hyp, "ctm", "-o", "all", "-O", "out", "-f", "0", "-n", "x"])
    error = capsys.readouterr().err
    assert status == 2
    assert f"{bad}:{line}: " in error and expected in error
    assert list((tmp_path / "out").iterdir()) == []  # nothing written
