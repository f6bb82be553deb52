"""The bulk path of ``iescore align`` (issue 16) against the per-utterance one, on random data.

Every expectation here is the per-utterance reference implementation's output (parse_trn,
align_segments, render_report, report_json, the scalar phonetic distance, the Python programme of
_realign_each), which the sclite conformance tests pin to sclite's own output: the bulk path must
give the same text, column for column and byte for byte.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.align import AlignOptions, costs_for
from iescore.pipeline.speech.dp import Costs, Vocabulary, align_batch
from iescore.pipeline.speech.phonetic import PhoneticDistances, _lexicon, phonetic_distance
from iescore.pipeline.speech.transcripts import (
    Lexicon,
    align_segments,
    align_transcripts,
    blanks,
    columns_report_json,
    parse_trn,
    read_trn,
    render_columns,
    render_report,
    report_json,
)
from iescore.pipeline.speech.words import flatten, speech_optional
from iescore.tasks.cli.main import main
from iescore.tasks.core.jsontext import json_text

SCLITE = Path(__file__).resolve().parents[3] / "shared" / "external" / "sctk" / "sclite-test1"


def test_blanks_are_the_blanks_of_str_split_for_every_code_point() -> None:
    # read_trn splits words and trims lines where str.split() and str.rstrip() do: blanks() must mark
    # exactly the UTF-8 bytes of the characters str.isspace calls blank, for every code point.
    characters = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    marked = blanks("".join(characters).encode("utf-8"))
    expected = np.repeat([c.isspace() for c in characters], [len(c.encode("utf-8")) for c in characters])
    assert marked.tolist() == expected.tolist()
    lexicon = Lexicon()
    transcript = read_trn("\x1f a\x1fb\u3000c\xa0d\u2003 (u1)\u2029\u205f\n", "f.trn", lexicon, fold=None)
    assert [lexicon.texts[w] for w in transcript.words] == ["a", "b", "c", "d"]
    assert transcript.ids == ["u1"] and transcript.lines == [1]


# -- random transcripts ------------------------------------------------------------------------------

WORDS = ["the", "a", "heart", "part", "uh", "um", "h-", "-tion", "Straße", "strasse", "ΟΔΟΣ", "İstanbul",
         "read", "red", "reed", "of", "general", "motors", "@", "/", "x.y.", "don't", "ok", "Ok"]  # fmt: skip


def _utterance(rng: random.Random, vocabulary: list[str], alternations: bool) -> str:
    words = [rng.choice(vocabulary) for _ in range(rng.randint(0, 12))]
    plain = [w for w in vocabulary if w not in ("@", "/")]  # these two mean something in braces
    if alternations and words and rng.random() < 0.3:
        k = rng.randrange(len(words))
        other = rng.choice(["@", rng.choice(plain), f"{rng.choice(plain)} {rng.choice(plain)}"])
        words[k] = f"{{ {rng.choice(plain)} / {other} }}"
    gap = rng.choice([" ", "  ", "\t", " \u3000"])
    return gap.join(words)


def _corpus(seed: int, utterances: int, vocabulary: list[str]) -> tuple[str, str]:
    rng = random.Random(seed)
    ref_lines, hyp_lines = [";; a comment", ""], []
    for u in range(utterances):
        uid = f"Spk{u % 3}_{u:03d}"
        ref_lines.append(f"{_utterance(rng, vocabulary, True)} ({uid})")
        if rng.random() < 0.9:  # some utterances missing from the hypothesis
            hyp_lines.append(f"{_utterance(rng, vocabulary, rng.random() < 0.1)} ({uid}) ")
    rng.shuffle(hyp_lines)
    return "\n".join(ref_lines) + "\n", "\n".join(hyp_lines) + "\n"


def _both(ref_text: str, hyp_text: str, cost: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """(report, JSON) by the per-utterance path and by the bulk path."""
    optional = speech_optional if cost == "phonetic" else None
    options = AlignOptions(cost, None, optional)
    segments = align_segments(
        parse_trn(ref_text, "ref", optional is not None),
        parse_trn(hyp_text, "hyp", optional is not None),
        options,
        "ref",
        "hyp",
        allow_missing=True,
    )
    lexicon = Lexicon()
    refs = read_trn(ref_text, "ref", lexicon, True, optional is not None)
    hyps = read_trn(hyp_text, "hyp", lexicon, False, optional is not None)
    aligned = align_transcripts(refs, hyps, lexicon, options, "ref", "hyp", allow_missing=True)
    return (
        (render_report(segments, "hyp"), json_text(report_json(segments))),
        ("".join(render_columns(aligned, "hyp")), json_text(columns_report_json(aligned))),
    )


@pytest.mark.parametrize("cost", ["levenshtein", "phonetic"])
@pytest.mark.parametrize("seed", range(6))
def test_bulk_report_and_json_equal_the_per_utterance_ones(cost: str, seed: int) -> None:
    # Small vocabularies (many chance matches, ties, sliding insertions), fillers and fragments
    # (optional with phonetic costs), alternations on both sides, words whose case or Unicode
    # folding differs, utterances missing from the hypothesis.
    vocabulary = WORDS[: 4 + 4 * seed] if seed < 5 else WORDS
    ref_text, hyp_text = _corpus(seed, 120, vocabulary)
    reference, bulk = _both(ref_text, hyp_text, cost)
    assert bulk[0] == reference[0]
    assert bulk[1] == reference[1]


def test_bulk_path_on_sclites_own_test_equals_the_per_utterance_path() -> None:
    reference, bulk = _both(
        (SCLITE / "csrnab.ref").read_text(), (SCLITE / "csrnab.hyp").read_text(), "levenshtein"
    )
    assert bulk == reference


def test_bulk_path_on_made_up_word_text_at_scale() -> None:
    # Word-like random text, 12% errors, 2,000 utterances: the chunked report rendering and the
    # batch realignment on many regions at once.
    rng = random.Random(11)
    vocabulary = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(1, 5))) for _ in range(300)]
    ref_lines, hyp_lines = [], []
    for u in range(2000):
        ref = [rng.choice(vocabulary) for _ in range(rng.randint(1, 30))]
        hyp = []
        for word in ref:
            roll = rng.random()
            if roll < 0.07:
                hyp.append(rng.choice(vocabulary))
            elif roll >= 0.095:
                hyp.append(word)
            if rng.random() < 0.025:
                hyp.append(rng.choice(vocabulary))
        ref_lines.append(" ".join(ref) + f" (u{u})")
        hyp_lines.append(" ".join(hyp) + f" (u{u})")
    for cost in ("levenshtein", "phonetic"):
        reference, bulk = _both("\n".join(ref_lines), "\n".join(hyp_lines), cost)
        assert bulk == reference


@pytest.mark.parametrize(
    "text",
    [
        "a b c\n",
        "a b (u1\n",
        "a b ()\n",
        "a b (  )\n",
        "a (b) (u1)\na (u1)\n",
        "a { b / } (u1)\n",
        "a { b (u1)\n",
        "a } b (u1)\n",
        "a (x)y) (u1)\n",
        "a b (u(1)\n",
        "a b (u1) x\n",
        "a b (U1)\nc (u1)\n",
    ],
)
def test_read_trn_refuses_what_parse_trn_refuses_and_reads_what_it_reads(text: str) -> None:
    # Odd lines: each either refused by both readers with the same message, or read by both alike.
    try:
        segments = parse_trn(text, "f.trn")
    except InputError as error:
        with pytest.raises(InputError) as got:
            read_trn(text, "f.trn", Lexicon())
        assert str(got.value) == str(error)
        return
    lexicon = Lexicon()
    transcript = read_trn(text, "f.trn", lexicon)
    assert transcript.ids == [s.id for s in segments]
    assert [lexicon.texts[w] for w in transcript.words] == [
        w.text for s in segments for w in flatten(s.items)
    ]


def test_read_trn_reads_what_parse_trn_reads() -> None:
    ref_text, hyp_text = _corpus(3, 200, WORDS)
    for text, reference in ((ref_text, True), (hyp_text, False)):
        lexicon = Lexicon()
        transcript = read_trn(text + "a  b\t(u-Ü) \t\n", "f", lexicon, reference)
        segments = parse_trn(text + "a  b\t(u-Ü) \t\n", "f")
        assert transcript.ids == [s.id for s in segments]
        assert transcript.lines == [s.line for s in segments]
        for k, segment in enumerate(segments):
            if k in transcript.graphs:
                assert transcript.graphs[k] == segment.items
                continue
            words = transcript.words[transcript.bounds[k] : transcript.bounds[k + 1]]
            assert [lexicon.texts[w] for w in words] == [w.text for w in flatten(segment.items)]


# -- phonetic costs in bulk ----------------------------------------------------------------------------


def test_phonetic_distances_in_bulk_equal_the_scalar_ones() -> None:
    rng = random.Random(3)
    dictionary = list(_lexicon())[::40]
    made_up = [
        "".join(rng.choice("abcdefghiklmnoprstuy-'.") for _ in range(rng.randint(0, 9))) for _ in range(2000)
    ]
    odd = ["", "%", "&", "read", "reed", "red", "Heart", "heart-", "h-", "n.b.c.", "ß", "İ", "café", "cafe",
           "Café", "tion", "x" * 80]  # fmt: skip
    words = dictionary + made_up + odd
    distances = PhoneticDistances(words)
    for _ in range(3):  # later calls mix known and new pairs
        ref = np.array([rng.randrange(len(words)) for _ in range(20000)])
        hyp = np.array([rng.randrange(len(words)) for _ in range(20000)])
        expected = [
            phonetic_distance(words[r], words[h]) for r, h in zip(ref.tolist(), hyp.tolist(), strict=True)
        ]
        assert distances(ref, hyp).tolist() == expected


def _random_documents(seed: int, count: int, types: int) -> tuple[list[list[int]], list[list[int]]]:
    rng = random.Random(seed)
    refs, hyps = [], []
    for _ in range(count):
        ref = [rng.randrange(types) for _ in range(rng.randint(0, 40))]
        hyp = []
        for word in ref:
            roll = rng.random()
            if roll < 0.1:
                hyp.append(rng.randrange(types))
            elif roll >= 0.15:
                hyp.append(word)
            if rng.random() < 0.05:
                hyp.append(rng.randrange(types))
        refs.append(ref)
        hyps.append(hyp)
    return refs, hyps


@pytest.mark.parametrize("types", [3, 8, 40])
def test_batch_realignment_with_costs_equals_the_per_region_programme(types: int) -> None:
    # Phonetic substitution costs and optional words: the vectorised programme (costs in bulk)
    # against the Python programme of each region (costs one pair at a time), columns and costs.
    vocabulary = Vocabulary()
    words = ["heart", "part", "uh", "h-", "the", "a", "read", "red", "motors", "general", "um", "of"]
    vocabulary.ids([f"{words[k % len(words)]}{k // len(words) or ''}" for k in range(types)])
    bulk = costs_for(AlignOptions("phonetic"), vocabulary)
    scalar = Costs(substitution=bulk.substitution)
    refs, hyps = _random_documents(types, 300, types)
    flags = np.array([speech_optional(w) for w in vocabulary.words])
    ref_optional = [flags[r].tolist() for r in refs]
    hyp_optional = [flags[h].tolist() for h in hyps]
    for costs in ((bulk, scalar), (Costs(), Costs())):
        got = align_batch(refs, hyps, costs[0], ref_optional, hyp_optional)
        expected = align_batch(refs, hyps, costs[1], ref_optional, hyp_optional)
        for name in ("ref", "hyp", "ops", "costs", "bounds"):
            assert getattr(got, name).tolist() == getattr(expected, name).tolist(), name


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bounded_substitution_costs_ask_for_few_cells_and_change_nothing(seed: int) -> None:
    # Substitution costs from 1 to 4 in quarter steps, chosen so that many paths tie: with the
    # bounds declared, the programme asks the costs of the cells a best path could use only, and
    # every column and cost equals the programme that asks for every cell. Optional words too.
    rng = random.Random(seed)
    table = {(r, h): rng.choice((1.0, 1.75, 2.5, 3.25, 4.0)) for r in range(12) for h in range(12)}
    asked: list[int] = []

    def substitutions(ref: np.ndarray, hyp: np.ndarray) -> np.ndarray:
        asked.append(len(ref))
        return np.array([table[r, h] for r, h in zip(ref.tolist(), hyp.tolist(), strict=True)])

    def one(r: int, h: int) -> float:
        return table[r, h]

    refs, hyps = _random_documents(seed, 400, 12)
    # One problem long enough that its bounds need 32-bit integers: (3 + 6,000 + 1) x 6 > 32,767.
    refs.append([rng.randrange(12) for _ in range(3)])
    hyps.append([rng.randrange(12) for _ in range(6000)])
    optional = [[w == 0 for w in ref] for ref in refs], [[w == 0 for w in hyp] for hyp in hyps]
    bounded = Costs(substitution=one, substitutions=substitutions, substitution_bounds=(1, 4))
    got = align_batch(refs, hyps, bounded, *optional)
    few = sum(asked)
    asked.clear()
    expected = align_batch(refs, hyps, Costs(substitution=one, substitutions=substitutions), *optional)
    for name in ("ref", "hyp", "ops", "costs", "bounds"):
        assert getattr(got, name).tolist() == getattr(expected, name).tolist(), name
    # Without the bounds every cell of unequal words is asked; with them, under a third of those.
    assert few < sum(asked) / 3


def test_batch_equals_one_document_at_a_time() -> None:
    # One align_batch call over every utterance gives each utterance's alignment alone.
    vocabulary = Vocabulary()
    vocabulary.ids(["heart", "part", "uh", "h-", "the", "a", "read", "red"])
    costs = costs_for(AlignOptions("phonetic"), vocabulary)
    refs, hyps = _random_documents(5, 200, 8)
    for c in (Costs(), costs):
        batch = align_batch(refs, hyps, c)
        for d, (ref, hyp) in enumerate(zip(refs, hyps, strict=True)):
            alone = align_batch([ref], [hyp], c).document(0)
            together = batch.document(d)
            assert (together.ref, together.hyp, together.ops, together.costs) == (
                alone.ref,
                alone.hyp,
                alone.ops,
                alone.costs,
            )


def test_progress_every_zero_still_gives_a_line_per_segment(tmp_path: Path, capsys) -> None:
    ref, hyp = tmp_path / "ref.trn", tmp_path / "hyp.trn"
    ref.write_text("".join(f"a b (u{k})\n" for k in range(5)))
    hyp.write_text("".join(f"a c (u{k})\n" for k in range(5)))
    assert main(["align", "--ref", str(ref), "--hyp", str(hyp), "--progress-every", "0"]) == 0
    err = capsys.readouterr().err
    assert [f"aligned {k} of 5 segments" in err for k in range(1, 6)] == [True] * 5
