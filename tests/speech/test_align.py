"""Word alignment: the seed's example, sclite's own test case, word graphs, anchoring, extents."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from iescore.pipeline.core.documents import Corpus, Document, Section
from iescore.pipeline.speech.align import AlignOptions, align_corpora, document_items
from iescore.pipeline.speech.dp import Vocabulary, WordGraph, align
from iescore.pipeline.speech.transcripts import align_segments, parse_trn, render_segment, totals
from iescore.pipeline.speech.words import parse_items, word_graph
from iescore.pipeline.templette.extents import normalize_extents
from iescore.pipeline.templette.model import Extent, Instance, Pointer, Slot, TemplateSet, TextFill
from iescore.pipeline.templette.scoring import ScoringOptions, score_template_sets
from iescore.tasks.cli.main import main

SHARED = Path(__file__).resolve().parents[3] / "shared"
SCLITE = SHARED / "external" / "sctk" / "sclite-test1"

# Seed 000, "Example Alignment" (offsets counted from the '<' of <DOC>).
SEED_REF = "<DOC> The h- heart of General Motors </DOC>"
SEED_HYP = "<DOC> A part of General Motors       </DOC>"


def seed_alignment(cost: str):
    ref = Corpus((Document("d", SEED_REF),))
    hyp = Corpus((Document("d", SEED_HYP),))
    return align_corpora(ref, hyp, AlignOptions(cost=cost))


@pytest.mark.parametrize("cost", ["phonetic", "levenshtein"])
def test_seed_example_alignment(cost: str) -> None:
    # The seed's picture: | THE | H- | HEART | of | general | motors | over | A | | PART | of | ... |
    # phonetic: the->a costs 1 + 3 * 0.5, h- is a fragment (optional, deleted for 0), heart->part
    # 1 + 3 * 0.25: 4.25 in all, where any other placement of the deletion costs more.
    # levenshtein: h- is optional there too; S + D(0) + S = 8 beats the other placements (4 + 3 + 4).
    table = seed_alignment(cost).to_pylist()
    assert [(r["ref_word"], r["hyp_word"], r["op"]) for r in table] == [
        ("The", "A", "S"),
        ("h-", None, "D"),
        ("heart", "part", "S"),
        ("of", "of", "C"),
        ("General", "General", "C"),
        ("Motors", "Motors", "C"),
    ]
    assert table[1]["cost"] == 0.0
    assert (table[4]["ref_start"], table[5]["ref_end"]) == (22, 36)
    assert (table[4]["hyp_start"], table[5]["hyp_end"]) == (16, 30)


def test_seed_example_extents_normalize_to_equal_columns() -> None:
    alignment = seed_alignment("phonetic")

    def template_set(start: int, end: int) -> TemplateSet:
        fill = TextFill("General Motors", (Extent(start, end),))
        return TemplateSet((Instance(Pointer("ORG", "d", "1"), (Slot("NAME", ((fill,),)),)),))

    ref = normalize_extents(template_set(22, 36), alignment, "ref")
    hyp = normalize_extents(template_set(16, 30), alignment, "hyp")
    # Columns 4 through 5 (the seed's ##4#5#) are [4, 6) half-open.
    assert ref.instances[0].slots[0].alternatives[0][0].extents == (Extent(4, 6),)
    assert hyp.instances[0].slots[0].alternatives[0][0].extents == (Extent(4, 6),)
    scoring = score_template_sets(ref, hyp, ScoringOptions(compare="extent"))
    assert scoring.counts().COR == 1 and scoring.counts().INC == 0


def test_extent_over_no_word_is_empty_at_the_next_column() -> None:
    alignment = seed_alignment("phonetic")
    fill = TextFill("x", (Extent(0, 5),))  # "<DOC>": markup only, no word
    ts = TemplateSet((Instance(Pointer("ORG", "d", "1"), (Slot("NAME", ((fill,),)),)),))
    assert normalize_extents(ts, alignment, "ref").instances[0].slots[0].alternatives[0][0].extents == (
        Extent(0, 0),
    )


def _sclite_segments():
    options = AlignOptions(cost="levenshtein", optional=None)
    ref = parse_trn((SCLITE / "csrnab.ref").read_text(), "csrnab.ref")
    hyp = parse_trn((SCLITE / "csrnab.hyp").read_text(), "csrnab.hyp")
    return align_segments(ref, hyp, options, "csrnab.ref", "csrnab.hyp")


def test_sclite_test1_totals_equal_the_published_sys() -> None:
    # test1.sys, Sum/Avg: 51 sentences, 1406 words, Corr 89.8 Sub 9.3 Del 0.9 Ins 1.8 Err 12.0.
    segments = _sclite_segments()
    result = totals(segments)
    assert len(segments) == 51
    assert result["C"] + result["S"] + result["D"] == 1406
    assert [result[k] for k in ("Corr", "Sub", "Del", "Ins", "Err")] == [89.8, 9.3, 0.9, 1.8, 12.0]


def test_sclite_test1_every_utterance_block_equals_the_published_pra() -> None:
    pra = (SCLITE / "test1.pra").read_text()
    published = {m.group(1): m.group(0) for m in re.finditer(r"id: \((\S+)\)\n(?:.*\n){4}", pra)}
    segments = _sclite_segments()
    assert len(published) == 51
    # The whole block: Scores line and the REF/HYP/Eval layout, byte for byte.
    assert [s.id for s in segments if render_segment(s) != published[s.id]] == []


def test_empty_alternative_with_an_insertion_beats_a_substitution() -> None:
    # sclite's reference alternation { @ / THE } against hypothesis "a united": the empty path plus
    # inserting "a" costs 3, substituting the -> a costs 4. The empty path counts as no word.
    vocabulary = Vocabulary()
    graph, words = word_graph(parse_items("{ @ / the } united"), vocabulary)
    alignment = align(graph, vocabulary.ids(["a", "united"]))
    assert alignment.counts() == {"C": 1, "S": 0, "D": 0, "I": 1}
    assert [words[r].text if r >= 0 else None for r in alignment.ref] == [None, "united"]


@pytest.mark.parametrize(
    ("hyp", "expected"),
    [
        # The two-word alternative matches word for word.
        ("recur sive now", {"C": 3, "S": 0, "D": 0, "I": 0}),
        # The one-word alternative matches; the other path would cost a substitution or more.
        ("recursive now", {"C": 2, "S": 0, "D": 0, "I": 0}),
    ],
)
def test_multiword_alternatives(hyp: str, expected: dict) -> None:
    vocabulary = Vocabulary()
    graph, _ = word_graph(parse_items("{ recursive / recur sive } now"), vocabulary)
    assert align(graph, vocabulary.ids(hyp.split())).counts() == expected


def _full_dp_cost(ref: list[int], hyp: list[int]) -> float:
    """The textbook edit distance with sclite's weights (sub 4, ins 3, del 3), no anchoring."""
    previous = [3.0 * j for j in range(len(hyp) + 1)]
    for i, r in enumerate(ref, 1):
        current = [3.0 * i]
        for j, h in enumerate(hyp, 1):
            current.append(min(previous[j - 1] + (0 if r == h else 4), previous[j] + 3, current[j - 1] + 3))
        previous = current
    return previous[-1]


def test_anchored_alignment_is_optimal_on_realistic_text() -> None:
    # Word-like vocabulary (500 types), 10% errors: the anchored alignment must cost what the full
    # programme costs. (With three-word vocabularies chance matches can mislead anchors; see README.)
    rng = random.Random(7)
    for _ in range(200):
        ref = [rng.randrange(500) for _ in range(rng.randint(1, 80))]
        hyp = []
        for word in ref:
            roll = rng.random()
            if roll < 0.04:
                continue
            hyp.append(rng.randrange(500) if roll < 0.08 else word)
            if rng.random() < 0.03:
                hyp.append(rng.randrange(500))
        assert align(WordGraph.linear(ref), hyp).total_cost() == _full_dp_cost(ref, hyp)


def test_optional_filler_costs_nothing_to_delete() -> None:
    vocabulary = Vocabulary()
    graph, _ = word_graph(parse_items("we uh went", optional=lambda w: w == "uh"), vocabulary)
    alignment = align(graph, vocabulary.ids(["we", "went"]))
    assert alignment.counts() == {"C": 2, "S": 0, "D": 1, "I": 0}
    assert alignment.total_cost() == 0.0


def test_words_skip_markup_punctuation_and_non_extractable_sections() -> None:
    text = (
        "<DOC><DOCNO> D1 </DOCNO><TEXT> Anchorage,... <ANNOTATION> (voice-over) </ANNOTATION> Alaska. "
        "</TEXT></DOC>"
    )
    start = text.index("<TEXT>")
    sections = (
        Section("DOCNO", 5, 24, 12, 16, False),
        Section("TEXT", start, len(text) - 6, start + 6, len(text) - 13, True),
        Section("ANNOTATION", text.index("<ANNOTATION>"), text.index("</ANNOTATION>") + 13, 0, 0, False),
    )
    items = document_items(Document("D1", text, sections=sections), None)
    assert [(w.text, text[w.start : w.end]) for w in items] == [
        ("Anchorage", "Anchorage"),
        ("Alaska", "Alaska"),
    ]


def test_align_command_on_sclite_test1(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "align.json"
    status = main(
        [
            "align",
            "--ref",
            str(SCLITE / "csrnab.ref"),
            "--hyp",
            str(SCLITE / "csrnab.hyp"),
            "-i",
            "trn",
            "--cost",
            "levenshtein",
            "--json",
            str(out),
        ]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "Scores: (#C #S #D #I) 14 7 0 1" in printed  # test1.pra, (4t0c0202)
    assert "Corr 89.8  Sub 9.3  Del 0.9  Ins 1.8  Err 12.0" in printed
    result = json.loads(out.read_text())
    assert {k: result["totals"][k] for k in ("C", "S", "D", "I")} == {"C": 1263, "S": 131, "D": 12, "I": 26}
    assert result["segments"][1] == {"id": "4t0c0202", "C": 14, "S": 7, "D": 0, "I": 1}


def test_align_command_refuses_a_hypothesis_id_the_reference_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    ref = tmp_path / "ref.trn"
    hyp = tmp_path / "hyp.trn"
    ref.write_text("a b c (u1)\n")
    hyp.write_text("a b c (u1)\na b (u2)\n")
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp)]) == 2
    assert f"{hyp}:2: (u2) is not in the reference" in capsys.readouterr().err


def test_align_command_refuses_a_line_without_id(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    ref = tmp_path / "ref.trn"
    ref.write_text("a b c (u1)\nno id here\n")
    assert main(["align", "--ref", str(ref), "--hyp", str(ref)]) == 2
    assert f"{ref}:2: utterance id '(ID)' expected" in capsys.readouterr().err


def test_align_command_on_sgml_corpora(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # data/hub4-speech, phonetic costs. By hand from the texts:
    # S1: The/a S, h- (fragment, optional: left out, counts correct), heart/part S, of general motors
    #     is in detroit C (6), uh, (filler, its comma is no part of it: correct), said glen C (2),
    #     Buni- (fragment: correct), Bunting C: C 6 + 2 + 1 + 3 optional = 12, S 2.
    # S2: the race starts tomorrow in C (5), Anchorage/anchor S, age I.
    speech = Path(__file__).resolve().parents[2] / "data" / "hub4-speech"
    out = tmp_path / "a.json"
    status = main(
        ["align", "--ref", str(speech / "texts.sgml"), "--hyp", str(speech / "asr.sgml"), "-i", "sgml",
         "--cost", "phonetic", "--json", str(out)]
    )  # fmt: skip
    assert status == 0
    printed = capsys.readouterr().out
    assert "REF:  THE H- HEART of general motors" in printed
    segments = {s["id"]: s for s in json.loads(out.read_text())["segments"]}
    assert segments["S1"] == {"id": "S1", "C": 12, "S": 2, "D": 0, "I": 0}
    assert segments["S2"] == {"id": "S2", "C": 5, "S": 1, "D": 0, "I": 1}


def _full_programme(ref: list[int], hyp: list[int]):
    """sclite's dynamic programme over the whole sequence: no anchors, no vectorised shortcut."""
    from iescore.pipeline.speech.dp import Alignment, Costs, _align_region

    out = Alignment()
    _align_region(WordGraph(ref), hyp, Costs(), None, 0, len(ref), 0, len(hyp), out)
    return out


@pytest.mark.parametrize(
    ("documents", "longest"),
    [
        (300, 60),  # short documents: the programme's values fit in int16
        (4, 280),  # 210 to 280 words a side, whole (under REGION_CELLS): values in int32
    ],
)
def test_vectorised_alignment_equals_sclites_programme_column_for_column(
    documents: int, longest: int
) -> None:
    # Many documents at once through the array path; each must equal the full programme exactly
    # (same columns, same ops: sclite's choice among equal-cost alignments), on word-like text with
    # repeated words (a 60-word vocabulary makes repeats and chance matches common).
    from iescore.pipeline.speech.dp import align_batch

    rng = random.Random(11)
    refs, hyps = [], []
    for _ in range(documents):
        shortest = longest * 3 // 4 if longest > 60 else 0
        ref = [rng.randrange(60) for _ in range(rng.randint(shortest, longest))]
        hyp = []
        for word in ref:
            roll = rng.random()
            if roll < 0.05:
                continue
            hyp.append(rng.randrange(60) if roll < 0.12 else word)
            if rng.random() < 0.05:
                hyp.append(rng.randrange(60))
        refs.append(ref)
        hyps.append(hyp)
    batch = align_batch(refs, hyps)
    for d, (ref, hyp) in enumerate(zip(refs, hyps, strict=True)):
        expected, got = _full_programme(ref, hyp), batch.document(d)
        assert (list(got.ref), list(got.hyp), bytes(got.ops)) == (
            list(expected.ref),
            list(expected.hyp),
            bytes(expected.ops),
        ), d


def test_glm_rewritten_words_keep_their_original_spans() -> None:
    # en20030506.glm line 73: 'MR. => MISTER / [ ] __ [ ]' (also at the start of a line: csrfilt pads
    # with a blank), line 83: 'GONNA => GOING TO'. Each rewritten word spans the characters its rule
    # consumed; the comma after "Jones" is not part of the word.
    from iescore.pipeline.speech.glm import read_glm

    glm = read_glm(SHARED / "external" / "sctk" / "en20030506.glm")
    text = "<DOC>\nMr. Smith met Mr. Jones, gonna go\n</DOC>"
    ref = Corpus((Document("d", text),))
    hyp = Corpus((Document("d", "<DOC>\nmister smith met mister jones going to go\n</DOC>"),))
    rows = align_corpora(ref, hyp, AlignOptions(cost="levenshtein", glm=glm)).to_pylist()
    assert [(r["ref_word"], text[r["ref_start"] : r["ref_end"]], r["op"]) for r in rows] == [
        ("MISTER", "Mr.", "C"),
        ("SMITH", "Smith", "C"),
        ("MET", "met", "C"),
        ("MISTER", "Mr.", "C"),
        ("JONES", "Jones", "C"),
        ("GOING", "gonna", "C"),
        ("TO", "gonna", "C"),
        ("GO", "go", "C"),
    ]


def test_braces_in_plain_text_are_characters() -> None:
    # Without a GLM a text is split at blanks only: "{race" is a word, not an unclosed choice.
    items = document_items(Document("d", "<DOC> The {race starts </DOC>"), None)
    assert [w.text for w in items] == ["The", "{race", "starts"]


def test_a_single_insertion_slides_left_past_a_match_of_its_word(tmp_path: Path, capsys) -> None:
    # ref "a b c d e", hyp "a b c d d f g", sclite's costs. By hand, traced back from the end as
    # sclite does: (e, g) diagonal S (total 10); at (d, f) the diagonal would cost 3 + 3 + 4 = 10 >
    # 6, the insertion of f gives 6; at (d, second d) the diagonal (match) gives 3 = the cell's
    # value; at (c, first d) the diagonal would cost 3 + 4 > 3, the insertion gives 3. So the
    # first "d" is the inserted one: I(d) C(d) I(f) S(e, g).
    ref, hyp = tmp_path / "r.trn", tmp_path / "h.trn"
    ref.write_text("alpha bravo charlie delta echo (u1)\n")
    hyp.write_text("alpha bravo charlie delta delta foxtrot golf (u1)\n")
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp), "--cost", "levenshtein"]) == 0
    out = capsys.readouterr().out
    assert "REF:  alpha bravo charlie ***** delta ******* ECHO \n" in out
    assert "HYP:  alpha bravo charlie DELTA delta FOXTROT GOLF \n" in out


def test_an_optional_word_is_matched_or_left_out_never_substituted() -> None:
    # ref "say a um went", hyp "say um went", phonetic costs, "um" optional (a filler). Substituting
    # a -> um (1 + 3 x 0.5) and leaving out the reference "um" for free would cost 2.5, less than
    # deleting "a" (3), but a filler stands for nothing and is never substituted: D(a) C(um).
    from iescore.pipeline.speech.align import costs_for
    from iescore.pipeline.speech.words import speech_optional

    vocabulary = Vocabulary()
    graph, words = word_graph(parse_items("say a um went", optional=speech_optional), vocabulary)
    hyp_words = ["say", "um", "went"]
    costs = costs_for(AlignOptions(cost="phonetic"), vocabulary)
    alignment = align(graph, vocabulary.ids(hyp_words), costs, [w == "um" for w in hyp_words])
    assert bytes(alignment.ops) == b"CDCC"
    assert [words[r].text for r in alignment.ref] == ["say", "a", "um", "went"]


# -- large regions (issue 10): two unrelated 100,000-word texts -------------------------------------

BIG = 100_000


def test_two_unrelated_100000_word_texts_align_as_substitutions_with_called_costs() -> None:
    # No word of the reference is in the hypothesis: the whole text is one region of 10^10 cells,
    # realigned by the programme because the costs are a function (as phonetic ones are). By hand:
    # both sides have n words, so an alignment with k deletions has k insertions and n - k
    # substitutions, costing 2 (n - k) + 6 k with these costs: least for k = 0, every word
    # substituted for the word at its own position.
    from iescore.pipeline.speech.dp import Costs, align_batch

    ref = list(range(BIG))
    hyp = list(range(BIG, 2 * BIG))
    batch = align_batch([ref], [hyp], Costs(substitution=lambda r, h: 2.0))
    assert bytes(batch.ops) == b"S" * BIG
    assert batch.ref.tolist() == ref and batch.hyp.tolist() == list(range(BIG))
    assert float(batch.costs.sum()) == 2.0 * BIG


def test_two_unrelated_100000_word_utterances_with_an_alternation(tmp_path: Path) -> None:
    # trn utterances, sclite's costs; the reference opens with an alternation, so it is a word graph
    # (the other aligner). Either branch gives 100,000 reference words against 100,000 different
    # hypothesis words: as above, 4 (n - k) + 6 k is least for k = 0, all substitutions.
    ref_text = "{ alt / alternative } " + " ".join(f"r{k}" for k in range(1, BIG)) + " (u1)\n"
    hyp_text = " ".join(f"h{k}" for k in range(BIG)) + " (u1)\n"
    options = AlignOptions(cost="levenshtein", optional=None)
    segments = align_segments(parse_trn(ref_text, "ref"), parse_trn(hyp_text, "hyp"), options, "ref", "hyp")
    assert segments[0].counts() == {"C": 0, "S": BIG, "D": 0, "I": 0}
    assert totals(segments)["Err"] == 100.0


def test_regions_cut_in_pieces_still_align_every_word_once_in_order(monkeypatch) -> None:
    # Force the piecewise path on ordinary regions (pieces of 6 words a side above 50 cells): every
    # word of each side is in exactly one column, in order; C pairs equal words, S different ones; a
    # column's cost is its move's (flat costs: 0, 4, 3, 3; optional words deleted or inserted: 0).
    import iescore.pipeline.speech.dp as dp
    from iescore.pipeline.speech.dp import Costs

    monkeypatch.setattr(dp, "REGION_CELLS", 50)
    monkeypatch.setattr(dp, "PIECE", 6)
    rng = random.Random(5)
    for trial in range(150):
        ref = [rng.randrange(30) for _ in range(rng.randint(0, 120))]
        hyp = [rng.randrange(30) if rng.random() < 0.3 else w for w in ref if rng.random() > 0.15]
        ref_optional = [rng.random() < 0.1 for _ in ref] if trial % 3 == 0 else None
        for costs in (Costs(), Costs(substitution=lambda r, h: 2.0)):
            alignment = align(WordGraph(ref, ref_optional), hyp, costs)
            assert [r for r in alignment.ref if r >= 0] == list(range(len(ref)))
            assert [h for h in alignment.hyp if h >= 0] == list(range(len(hyp)))
            flat = {"S": 4.0 if costs.substitution is None else 2.0, "D": 3.0, "I": 3.0, "C": 0.0}
            for r, h, op, cost in zip(
                alignment.ref, alignment.hyp, alignment.ops.decode(), alignment.costs, strict=True
            ):
                assert (op == "C") == (r >= 0 and h >= 0 and ref[r] == hyp[h])
                optional_deleted = op == "D" and ref_optional is not None and ref_optional[r]
                assert cost == (0.0 if optional_deleted else flat[op])
