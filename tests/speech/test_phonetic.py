"""Phonetic distance between words (pipeline/speech/phonetic.py), for the aligner's ``--cost phonetic``.

Pronunciations quoted below are CMUdict's (pipeline/speech/data/cmudict.txt.gz), stress removed. Costs are the
module's table: voicing pair 0.25, nasal/nasal 0.25, vowel/vowel 0.5, other pair of one manner 0.75,
anything else 1, insertion/deletion 1; the sum is divided by the longer pronunciation's length.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from iescore.pipeline.speech import phonetic
from iescore.pipeline.speech.phonetic import (
    PHONES,
    PhoneticCost,
    phonetic_distance,
    pronunciation,
    pronunciations,
    substitution_cost,
)

ROOT = Path(__file__).resolve().parents[2]


def _in_dictionary(word: str) -> bool:
    return word in phonetic._lexicon()


# --- pronunciations ---------------------------------------------------------------------------------


def test_dictionary_pronunciations_lose_their_stress_digits() -> None:
    # cmudict.dict: "heart HH AA1 R T", "general JH EH1 N ER0 AH0 L" (variant JH EH1 N R AH0 L).
    assert pronunciation("heart") == ("HH", "AA", "R", "T")
    assert pronunciations("general") == (
        ("JH", "EH", "N", "ER", "AH", "L"),
        ("JH", "EH", "N", "R", "AH", "L"),
    )


def test_lookup_ignores_case_and_accents() -> None:
    # GLM-normalized transcripts are upper case; cmudict's keys are lower case ("jose HH OW1 Z EY0").
    assert pronunciation("HEART") == pronunciation("Heart") == ("HH", "AA", "R", "T")
    assert pronunciation("José") == ("HH", "OW", "Z", "EY")


def test_primary_pronunciation_is_the_dictionarys_first_variant() -> None:
    # cmudict.dict: "read R EH1 D", then "read(2) R IY1 D".
    assert pronunciations("read") == (("R", "EH", "D"), ("R", "IY", "D"))
    assert pronunciation("read") == ("R", "EH", "D")


def test_fragment_is_pronounced_without_its_hyphens() -> None:
    # Seed 000's "H-": the hyphen marks a cut-off word and is not pronounced; cmudict "h EY1 CH".
    assert pronunciation("h-") == pronunciation("h") == ("EY", "CH")
    assert pronunciation("-heart") == pronunciation("heart-") == pronunciation("heart")


def test_fragment_not_in_dictionary_falls_back_to_letter_rules() -> None:
    # "buni" is not in cmudict: B, U -> AH (short vowel), N, final I after a vowel -> IY.
    assert not _in_dictionary("buni")
    assert pronunciation("buni-") == ("B", "AH", "N", "IY")


@pytest.mark.parametrize(
    ("word", "phones"),
    [
        # PH -> F, R, EE -> IY, SH -> SH, A -> AE (short), CK -> K
        ("phreeshack", ("F", "R", "IY", "SH", "AE", "K")),
        # S, N, AR -> AA R (R-coloured before a consonant), B, A + one consonant + final E -> EY, K
        ("snarbake", ("S", "N", "AA", "R", "B", "EY", "K")),
        # word-initial WR -> R, A -> AE, NG -> NG, I -> IH, TH -> TH
        ("wrangith", ("R", "AE", "NG", "IH", "TH")),
        # TH, R, I -> IH, ZZ -> one Z, final LE after a consonant -> AH L
        ("thrizzle", ("TH", "R", "IH", "Z", "AH", "L")),
        # word-initial GN -> N, AR -> AA R, F
        ("gnarf", ("N", "AA", "R", "F")),
        # G, L, I -> IH, MM -> one M, ER -> ER, T, final Y after a vowel -> IY
        ("glimmerty", ("G", "L", "IH", "M", "ER", "T", "IY")),
        # letters as above; each digit is its name's pronunciation (cmudict "two T UW1")
        ("r2d2", ("R", "T", "UW", "D", "T", "UW")),
    ],
)
def test_unknown_words_get_letter_to_sound_pronunciations(word: str, phones: tuple[str, ...]) -> None:
    assert not _in_dictionary(word)
    assert pronunciation(word) == phones


def test_unknown_compounds_are_pronounced_part_by_part() -> None:
    # Not in cmudict as wholes; parts: heart + part, and the letters n, b, c ("n EH1 N", "b B IY1",
    # "c S IY1").
    assert not _in_dictionary("heart-part") and not _in_dictionary("n.b.c.")
    assert pronunciation("heart-part") == ("HH", "AA", "R", "T", "P", "AA", "R", "T")
    assert pronunciation("n.b.c.") == ("EH", "N", "B", "IY", "S", "IY")


def test_words_without_letters_or_digits_have_the_empty_pronunciation() -> None:
    assert pronunciation("") == ()
    assert pronunciation("-") == ()
    assert pronunciation("%") == ()
    assert pronunciations("") == ((),)


def test_pronunciations_do_not_depend_on_the_process_or_hash_seed() -> None:
    # Same answers in two fresh interpreters with different string hashing as in this one.
    words = ["phreeshack", "buni-", "glimmerty", "r2d2", "heart-part", "read", "h-"]
    pairs = [["heart", "part"], ["buni-", "bunny"], ["snarbake", "phreeshack"]]
    script = (
        "import json, sys\n"
        "from iescore.pipeline.speech.phonetic import phonetic_distance, pronunciations\n"
        "words, pairs = json.loads(sys.argv[1])\n"
        "answers = [[pronunciations(w) for w in words], [phonetic_distance(a, b) for a, b in pairs]]\n"
        "print(json.dumps(answers))\n"
    )
    expected = json.loads(
        json.dumps([[pronunciations(w) for w in words], [phonetic_distance(a, b) for a, b in pairs]])
    )
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        out = subprocess.run(
            [sys.executable, "-c", script, json.dumps([words, pairs])],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(out.stdout) == expected


def test_lexicon_is_loaded_on_first_use_only() -> None:
    script = (
        "from iescore.pipeline.speech import phonetic\n"
        "before = phonetic._lexicon.cache_info().currsize\n"
        "phonetic.phonetic_distance('', '')\n"
        "still = phonetic._lexicon.cache_info().currsize\n"
        "phonetic.pronunciation('heart')\n"
        "print(before, still, phonetic._lexicon.cache_info().currsize)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "0", "1"]


def test_shipped_lexicon_is_complete_and_uses_only_known_phones() -> None:
    # pipeline/speech/data/README.md: 126,052 words from cmudict.dict; every phone must have a class, or its
    # substitutions would all cost 1.
    lexicon = phonetic._lexicon()
    assert len(lexicon) == 126_052
    used = {phone for stored in lexicon.values() for phone in stored.replace("|", " ").split()}
    assert used == set(PHONES)
    assert len(PHONES) == 39


# --- substitution costs -----------------------------------------------------------------------------


def test_substitution_cost_table() -> None:
    assert substitution_cost("T", "T") == 0
    assert substitution_cost("T", "D") == 0.25  # voicing pair
    assert substitution_cost("CH", "JH") == 0.25  # voicing pair of affricates
    assert substitution_cost("M", "NG") == 0.25  # nasals
    assert substitution_cost("IY", "AA") == 0.5  # vowels
    assert substitution_cost("P", "K") == 0.75  # both stops, not a voicing pair
    assert substitution_cost("S", "TH") == 0.75  # both fricatives
    assert substitution_cost("L", "R") == 0.75  # liquids
    assert substitution_cost("HH", "P") == 1  # aspirate against stop
    assert substitution_cost("AA", "R") == 1  # vowel against consonant
    assert substitution_cost("T", "N") == 1  # stop against nasal


def test_substitution_cost_is_symmetric_over_all_phones() -> None:
    for p in PHONES:
        for q in PHONES:
            assert substitution_cost(p, q) == substitution_cost(q, p), (p, q)
            assert (substitution_cost(p, q) == 0) == (p == q), (p, q)


# --- word distances -----------------------------------------------------------------------------------


def test_homophones_and_identical_words_are_at_zero() -> None:
    # cmudict: "their DH EH1 R", "there DH EH1 R".
    assert phonetic_distance("their", "there") == 0
    assert phonetic_distance("heart", "heart") == 0
    assert phonetic_distance("HEART", "heart-") == 0


def test_heart_part_from_seed_000() -> None:
    # HH AA R T / P AA R T: one substitution HH->P (aspirate vs stop, 1) out of 4 phones.
    assert phonetic_distance("heart", "part") == 0.25


def test_heart_is_farther_from_general_than_from_part() -> None:
    # heart HH AA R T against general's variant JH EH N R AH L, the cheaper one: HH/JH 1 + AA/EH 0.5
    # + insert N 1 + R/R 0 + insert AH 1 + T/L 1 = 4.5, over 6 phones = 0.75. (Against JH EH N ER AH L
    # the best is 5.5.) Any alignment needs 2 insertions and pays at least 0.5 for each of heart's 4
    # phones, none of which is in general: at least 4/6 in any case.
    assert phonetic_distance("heart", "general") == 0.75
    assert phonetic_distance("heart", "general") > phonetic_distance("heart", "part")


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("bat", "pat", 0.25 / 3),  # B AE T / P AE T: voicing pair
        ("map", "nap", 0.25 / 3),  # M AE P / N AE P: nasals
        ("bit", "bat", 0.5 / 3),  # B IH T / B AE T: vowels
        ("pick", "tick", 0.75 / 3),  # P IH K / T IH K: stops, not a voicing pair
        ("cat", "cats", 1 / 4),  # K AE T / K AE T S: one insertion over 4 phones
        ("cat", "dog", 2 / 3),  # K AE T / D AO G: K/D 0.75 + AE/AO 0.5 + T/G 0.75 = 2, over 3
        ("the", "a", 1 / 2),  # DH AH / AH (the closest variants): delete DH, over 2
        ("buni-", "bunny", 0.0),  # B AH N IY (letter rules) / B AH N IY
    ],
)
def test_distance_values(a: str, b: str, expected: float) -> None:
    assert phonetic_distance(a, b) == pytest.approx(expected, abs=1e-12)


def test_similar_phones_cost_less_than_unrelated_ones() -> None:
    # _ AE T with only the first phone changed: voicing pair < other stop pair < unrelated phone.
    voicing = phonetic_distance("bat", "pat")  # B/P 0.25
    stops = phonetic_distance("pat", "cat")  # P/K 0.75
    unrelated = phonetic_distance("pat", "hat")  # P/HH 1
    assert voicing < stops < unrelated


def test_distance_uses_the_closest_pair_of_variants() -> None:
    # read: R EH D | R IY D; reed: R IY D. Primary against primary would be EH/IY 0.5 over 3.
    assert phonetic_distance("read", "reed") == 0
    assert phonetic_distance("read", "red") == 0  # red: R EH D


def test_empty_pronunciations() -> None:
    # Same (normalized) word: 0. Phones against none: all insertions, 4/4 = 1. Two different words
    # without phones: 1, nothing says they sound alike.
    assert phonetic_distance("", "") == 0
    assert phonetic_distance("-", "") == 0
    assert phonetic_distance("%", "%") == 0
    assert phonetic_distance("", "heart") == 1
    assert phonetic_distance("heart", "%") == 1
    assert phonetic_distance("%", "&") == 1


def test_unrelated_words_are_near_one() -> None:
    # strength: S T R EH NG K TH | S T R EH NG TH; of: AH V. Neither AH nor V is in strength, so the best
    # is 4 deletions + AH/EH 0.5 + V/TH 0.75 = 5.25 over the 6-phone variant = 0.875 (the 7-phone one
    # gives 6.25 / 7 = 0.89).
    assert phonetic_distance("strength", "of") == 0.875


words = st.text(alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABC-'.%2 é"), max_size=12)


@given(words, words)
def test_distance_is_symmetric_and_within_bounds(a: str, b: str) -> None:
    d = phonetic_distance(a, b)
    assert 0.0 <= d <= 1.0
    assert d == phonetic_distance(b, a)
    assert phonetic_distance(a, a) == 0.0


@given(st.lists(st.sampled_from(PHONES), max_size=8), st.lists(st.sampled_from(PHONES), max_size=8))
def test_edit_cost_is_symmetric_and_bounded_by_the_longer_length(x: list[str], y: list[str]) -> None:
    # Checked below the word cache, which would hide an asymmetric cost by ordering the pair.
    cx = tuple(phonetic._INDEX[p] for p in x)
    cy = tuple(phonetic._INDEX[p] for p in y)
    cost = phonetic._edit_cost(cx, cy)
    assert cost == phonetic._edit_cost(cy, cx)
    assert 0 <= cost <= max(len(x), len(y))
    assert (cost == 0) == (x == y)


# --- the aligner's helper -----------------------------------------------------------------------------


def test_phonetic_cost_for_the_aligner() -> None:
    cost = PhoneticCost()
    assert cost.sub_cost("heart", "part") == 0.25
    assert cost.sub_cost("THE", "THE") == 0
    assert cost.ins_cost("of") == 1.0 and cost.del_cost("of") == 1.0
    assert PhoneticCost(insertion=2.0).ins_cost("of") == 2.0
    with pytest.raises(ValueError, match="must not be negative"):
        PhoneticCost(deletion=-1.0)
