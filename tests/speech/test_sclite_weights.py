"""``iescore sclite -w`` and ``-S`` below the command line: the word-weight list, the weighted
alignment cost, the ``.wws`` sums, and the inferred-segmentation network. Expected values are worked
out by hand in the comments (the whole reports are checked against sclite's own in test_sclite.py)."""

from __future__ import annotations

import numpy as np
import pytest
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.netdp import NetWord, align_networks, network
from iescore.pipeline.speech.sclite.model import ScoredSystem, Segment
from iescore.pipeline.speech.sclite.segmentation import read_lexicon, segmented_network
from iescore.pipeline.speech.sclite.summary import _int_sum, weighted_counts
from iescore.pipeline.speech.sclite.trn import decode_bytes
from iescore.pipeline.speech.sclite.weights import read_word_weights, weigh
from iescore.pipeline.speech.stm_score import byte_characters, separate_chars

WWL = """;; 'Headings' 'Word Spelling' 'Char Count' 'Other'
;; Default missing weight '0.5'
zebra 5 1
apple 2.25 1
new 3
york 4
"""


def test_word_weights_first_column_default_and_compounds() -> None:
    weights = read_word_weights("w.wwl", WWL)
    assert weights.description == 'w.wwl Column "Char Count"'
    assert weights.weight("apple") == 2.25
    assert weights.weight("zebra") == 5.0  # the first weight column only
    assert weights.weight("pear") == 0.5  # the default missing weight
    assert weights.weight("new=york") == 7.0  # 3 + 4
    assert weights.weight("new=pear") == 3.5  # 3 + the default 0.5
    assert weights.words == ("apple", "new", "york", "zebra")  # sorted, as sclite searches them


def test_word_weights_without_headings_or_default() -> None:
    weights = read_word_weights("plain.wwl", "a 1\nb 2\n")
    assert weights.description == 'plain.wwl Column "plain.wwl Col 1"'
    assert weights.weight("c") == 0.0


def test_unity_weighs_every_word_one() -> None:
    weights = read_word_weights("unity", None)
    assert weights.description == 'unity Column "Unity Weighting"'
    assert weights.weight("anything") == weights.weight("the") == 1.0


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("a 1\nb two\n", 2, "a weight expected (a number such as 2 or 0.5), found 'two'"),
        ("a\n", 1, "a word and its weight expected, found 'a'"),
        (";; Default missing weight '?'\n", 1, "a weight expected"),
        (";; Default missing weight 7\n", 1, "the default missing weight expected between quotes"),
        (";; 'Headings' 'Word Spelling' 'A' 'B\n", 1, "every column heading expected between two quotes"),
    ],
)
def test_malformed_word_weights_name_their_line(text: str, line: int, expected: str) -> None:
    with pytest.raises(InputError) as error:
        read_word_weights("bad.wwl", text)
    assert error.value.file == "bad.wwl" and error.value.line == line
    assert expected in error.value.message


def test_weights_change_the_alignment() -> None:
    """REF ``a b``, HYP ``b a``, a weighing 10 and b 1. Unweighted, ``D C I`` (a deleted and
    inserted: 3 + 0 + 3) and ``I C D`` (b: 3 + 0 + 3) tie at 6 and two substitutions cost 8.
    Weighted, ``I C D`` costs 1 + 0 + 1 = 2, ``D C I`` 10 + 10 = 20, ``S S`` 11 + 11 = 22."""
    weights = read_word_weights("w.wwl", "a 10\nb 1\n")
    ref = weigh(network([NetWord("a"), NetWord("b")]), weights)
    hyp = weigh(network([NetWord("b"), NetWord("a")]), weights)
    pairs = align_networks(ref, hyp, weighted=True)
    assert [(p.ref and p.ref.text, p.hyp and p.hyp.text, p.op) for p in pairs] == [
        (None, "b", "I"),
        ("a", "a", "C"),
        ("b", None, "D"),
    ]
    assert [p.hyp.weight for p in pairs if p.hyp] == [1.0, 10.0]


def test_empty_alternative_and_optionally_deletable_words_weigh_nothing() -> None:
    weights = read_word_weights("unity", None)
    net = weigh(network([NetWord("(uh)", opt_del=True), ((NetWord("x"),), (NetWord("@"),))]), weights)
    assert [w.weight for w in net.words[1:]] == [0.0, 1.0, 0.0]


def test_weighted_sums_per_speaker_and_truncated_totals() -> None:
    """Two speakers. s1: C (ref 2, hyp 2), S (ref 1.5, hyp 4), D (ref 3): reference 2 + 1.5 + 3 = 6.5,
    correct 2 (the hypothesis word's), substituted 1.5 + 4 = 5.5, deleted 3, inserted 0. s2: I (hyp
    0.75): reference 0, inserted 0.75. sclite's int totals: int(0 + 6.5) = 6, then int(6 + 0) = 6."""
    system = ScoredSystem(
        title="t",
        ref_file="r",
        hyp_file="h",
        ref_format="trn",
        hyp_format="trn",
        segments=[Segment("(s1-1)", "s1"), Segment("(s2-1)", "s2")],
        bounds=np.array([0, 3, 4]),
        ref=np.array([0, 1, 2, -1]),
        hyp=np.array([0, 3, -1, 4]),
        ops=np.frombuffer(b"CSDI", np.uint8),
        texts=["a", "b", "c", "d", "e"],
        ref_weight=np.array([2.0, 1.5, 3.0, np.nan]),
        hyp_weight=np.array([2.0, 4.0, np.nan, 0.75]),
        weight_file="w",
    )
    sums = weighted_counts(system, ["s1", "s2"])
    assert sums.tolist() == [[6.5, 2.0, 5.5, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.75]]
    assert _int_sum(sums[:, 0].tolist()) == 6
    assert _int_sum([1.5, 1.5]) == 2  # int(0 + 1.5) = 1, int(1 + 1.5) = 2: not 3


def _split(word: str, keep_ascii_runs: bool) -> list[str]:
    return separate_chars(word, keep_ascii_runs, False, byte_characters("utf-8"))


def test_segmented_network_adds_the_lexicon_words_as_sclite_orders_them() -> None:
    """Words ``a b c`` with lexicon ``ab abc c`` (ASCII words stay whole). From ``a`` (breadth-first),
    ``a``+``b`` = ``ab`` is added from the start to ``b``'s end, then ``ab``+``c`` = ``abc`` to the end;
    from ``b``, ``bc`` is not a word. Numbered in order behind the empty head: head, the start's
    arcs ``a ab abc`` in the order added, then ``b``, then ``c``; ``c`` follows ``b`` then ``ab``, and
    the network ends with ``c`` or ``abc``."""
    lexicon = read_lexicon("l.lex", "ab\nabc\nc\n", "algo1", False, byte_characters(""))
    assert lexicon.longest == 3
    net = segmented_network([NetWord("a"), NetWord("b"), NetWord("c")], lexicon, _split)
    assert [w.text if w else None for w in net.words] == [None, "a", "ab", "abc", "b", "c"]
    assert net.preds == [[], [0], [0], [0], [1], [4, 2]]
    assert net.finals == [5, 3]
    pairs = align_networks(network([NetWord("abc")]), net)
    assert [(p.ref.text, p.hyp.text, p.op) for p in pairs if p.ref and p.hyp] == [("abc", "abc", "C")]


def test_segmented_network_splits_words_beyond_ascii_into_characters() -> None:
    """``北京大学`` (four characters, not ASCII) becomes 北 京 大 学; the lexicon ``北京 大学`` adds
    ``北京`` from the start to 京's end and ``大学`` from there to the end: a path of two words that
    matches the reference ``北京 大学`` at no cost."""
    text = decode_bytes("北京\n大学\n".encode())
    lexicon = read_lexicon("l.lex", text, "algo1", False, byte_characters("utf-8"))
    assert lexicon.longest == 2  # characters, not bytes
    word = decode_bytes("北京大学".encode())
    net = segmented_network([NetWord(word)], lexicon, _split)
    # The start's arcs 北 and 北京 (added from it), then 京, then the arcs leaving 京's end: 大 and
    # 大学, then 学.
    expected = ["北", "北京", "京", "大", "大学", "学"]
    assert [w.text for w in net.words[1:]] == [decode_bytes(w.encode()) for w in expected]
    ref = network([NetWord(decode_bytes("北京".encode())), NetWord(decode_bytes("大学".encode()))])
    assert [p.op for p in align_networks(ref, net)] == ["C", "C"]


def test_empty_side_is_the_head_alone() -> None:
    lexicon = read_lexicon("l.lex", "a\n", "algo1", False, byte_characters(""))
    net = segmented_network([], lexicon, _split)
    assert (net.words, net.preds, net.finals) == ([None], [[]], [0])


def test_lexicon_out_of_byte_order_names_its_line() -> None:
    with pytest.raises(InputError) as error:
        read_lexicon("l.lex", "a\n\nc\nb\n", "algo1", False, byte_characters(""))
    assert (error.value.file, error.value.line) == ("l.lex", 4)  # the blank line 2 is skipped
    assert "byte order" in error.value.message
