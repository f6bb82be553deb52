"""Fixed-span tables by token, pseudo-token and character (issue 12, point 5; seed 002).

Expected numbers come from the seed's worked example (9 pseudo-tokens), the issue's token example, or
hand calculations written out beside each test. A slow, obviously-correct per-unit scorer written here
checks the vectorised one on random documents.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from iescore.pipeline.mat.fixed import (
    ACCURACY_COLUMNS,
    COUNT_COLUMNS,
    DETAIL_COLUMNS,
    TokenTableError,
    accuracy_columns,
    fixed_span_counts,
)

COLUMNS = ["match", "refclash", "missing", "hypclash", "spurious", "test_units"]


def _annotation(file: str, side: str, label: str, start: int, end: int, kind: str = "content") -> dict:
    return {"file": file, "side": side, "kind": kind, "label": label, "start": start, "end": end}


def _frame(rows: list[dict]) -> pd.DataFrame:
    columns = ["file", "side", "kind", "label", "start", "end"]
    return pd.DataFrame(rows, columns=columns).astype({"start": "int64", "end": "int64"})


def _tokens(file: str, text: str) -> list[dict]:
    """One hypothesis token annotation per whitespace-delimited word of ``text``."""
    return [_annotation(file, "hyp", "lex", m.start(), m.end(), "token") for m in re.finditer(r"\S+", text)]


def _row(table: pd.DataFrame, file: str, tag: str) -> dict:
    row = table[(table["file"] == file) & (table["tag"] == tag)]
    assert len(row) == 1, row
    return {name: int(row.iloc[0][name]) for name in COLUMNS}


# The seed's "deeply artificial example" (Pseudo-token scores):
#   ref: the future <NP>President of the United State</NP>s
#   hyp: the<NP> future President of the Unit</NP>ed States
SEED_TEXT = "the future President of the United States"
SEED_REF = (SEED_TEXT.index("President"), SEED_TEXT.index("States") + len("State"))  # [11, 40)
SEED_HYP = (len("the"), SEED_TEXT.index("United") + len("Unit"))  # [3, 32)


def _seed_annotations() -> pd.DataFrame:
    return _frame([_annotation("d", "ref", "NP", *SEED_REF), _annotation("d", "hyp", "NP", *SEED_HYP)])


def test_seed_example_has_nine_pseudo_tokens() -> None:
    # Cuts at 0, 3, 11, 32, 40, 41 give the pieces "the" | " future " | "President of the Unit" |
    # "ed State" | "s": 1 + 1 + 4 + 2 + 1 = 9 whitespace-delimited tokens (the seed's count).
    # Labels: "future" hyp only (spurious 1); "President", "of", "the", "Unit" on both (match 4);
    # "ed", "State" ref only (missing 2); "the" and "s" untagged.
    table = fixed_span_counts({"d": SEED_TEXT}, _seed_annotations(), "pseudo_token")
    assert _row(table, "d", "NP") == {
        "match": 4,
        "refclash": 0,
        "missing": 2,
        "hypclash": 0,
        "spurious": 1,
        "test_units": 9,
    }
    assert (table["table"] == "pseudo_token").all()
    # The same with categorical string columns (as pandas may hand them over).
    categorical = _seed_annotations().astype({name: "category" for name in ("file", "side", "kind", "label")})
    pd.testing.assert_frame_equal(fixed_span_counts({"d": SEED_TEXT}, categorical, "pseudo_token"), table)


def test_seed_example_by_character() -> None:
    # ref [11, 40) and hyp [3, 32) are 29 characters each; they share [11, 32) = 21 (match); the
    # reference alone has [32, 40) = 8 (missing), the hypothesis alone [3, 11) = 8 (spurious); the
    # document has 41 characters, whitespace included.
    table = fixed_span_counts({"d": SEED_TEXT}, _seed_annotations(), "character")
    assert _row(table, "d", "NP") == {
        "match": 21,
        "refclash": 0,
        "missing": 8,
        "hypclash": 0,
        "spurious": 8,
        "test_units": 41,
    }


def test_split_annotation_is_perfect_by_token() -> None:
    # <T>a b c d</T> against <T>a b</T> <T>c d</T>: each of the 4 tokens is T on both sides.
    text = "a b c d"
    rows = [
        _annotation("d", "ref", "T", 0, 7),
        _annotation("d", "hyp", "T", 0, 3),
        _annotation("d", "hyp", "T", 4, 7),
        *_tokens("d", text),
    ]
    table = fixed_span_counts({"d": text}, _frame(rows), "token")
    assert _row(table, "d", "T") == {
        "match": 4,
        "refclash": 0,
        "missing": 0,
        "hypclash": 0,
        "spurious": 0,
        "test_units": 4,
    }
    # By pseudo-token too (cuts at 0, 3, 4, 7 split no word); by character, the space at 3 is T in
    # the reference only: 6 matches and 1 missing of 7 characters.
    assert _row(fixed_span_counts({"d": text}, _frame(rows), "pseudo_token"), "d", "T")["match"] == 4
    by_char = _row(fixed_span_counts({"d": text}, _frame(rows), "character"), "d", "T")
    assert (by_char["match"], by_char["missing"], by_char["spurious"]) == (6, 1, 0)


def test_tag_clash_counts_each_unit_under_both_labels() -> None:
    # "Ann Lee went home": ref PER over "Ann Lee" (2 tokens), hyp ORG over "Ann Lee went" (3 tokens).
    # Tokens Ann, Lee: PER vs ORG -> refclash PER 2, hypclash ORG 2; "went": ORG alone -> spurious
    # ORG 1; "home": untagged. 4 tokens in the document.
    text = "Ann Lee went home"
    rows = [_annotation("d", "ref", "PER", 0, 7), _annotation("d", "hyp", "ORG", 0, 12), *_tokens("d", text)]
    table = fixed_span_counts({"d": text}, _frame(rows), "token")
    assert _row(table, "d", "PER") == {
        "match": 0,
        "refclash": 2,
        "missing": 0,
        "hypclash": 0,
        "spurious": 0,
        "test_units": 4,
    }
    assert _row(table, "d", "ORG") == {
        "match": 0,
        "refclash": 0,
        "missing": 0,
        "hypclash": 2,
        "spurious": 1,
        "test_units": 4,
    }


def test_overlapping_annotations_pair_equal_labels_first_then_in_label_order() -> None:
    # Characters [0, 3) carry A and B in the reference, A and C in the hypothesis: A matches (3),
    # B clashes with C (refclash B 3, hypclash C 3). Characters [3, 5) carry B and Z (ref) and
    # nothing (hyp): missing B 2, missing Z 2. Characters [5, 6) carry A (hyp) and D, E (ref): the
    # leftovers are D, E (ref) and A (hyp); in label order D clashes with A, E is missing (1 each).
    text = "abcdef"
    rows = [
        _annotation("d", "ref", "A", 0, 3),
        _annotation("d", "ref", "B", 0, 5),
        _annotation("d", "ref", "Z", 3, 5),
        _annotation("d", "hyp", "A", 0, 3),
        _annotation("d", "hyp", "C", 0, 3),
        _annotation("d", "hyp", "A", 5, 6),
        _annotation("d", "ref", "E", 5, 6),
        _annotation("d", "ref", "D", 5, 6),
    ]
    table = fixed_span_counts({"d": text}, _frame(rows), "character")
    got = {tag: _row(table, "d", tag) for tag in "ABCDEZ"}
    assert got["A"] == {
        "match": 3,
        "refclash": 0,
        "missing": 0,
        "hypclash": 1,
        "spurious": 0,
        "test_units": 6,
    }
    assert got["B"] == {
        "match": 0,
        "refclash": 3,
        "missing": 2,
        "hypclash": 0,
        "spurious": 0,
        "test_units": 6,
    }
    assert got["C"] == {
        "match": 0,
        "refclash": 0,
        "missing": 0,
        "hypclash": 3,
        "spurious": 0,
        "test_units": 6,
    }
    assert got["D"] == {
        "match": 0,
        "refclash": 1,
        "missing": 0,
        "hypclash": 0,
        "spurious": 0,
        "test_units": 6,
    }
    assert got["E"] == {
        "match": 0,
        "refclash": 0,
        "missing": 1,
        "hypclash": 0,
        "spurious": 0,
        "test_units": 6,
    }
    assert got["Z"] == {
        "match": 0,
        "refclash": 0,
        "missing": 2,
        "hypclash": 0,
        "spurious": 0,
        "test_units": 6,
    }


def test_every_file_and_tag_has_a_row_and_documents_stay_apart() -> None:
    # File "a" ends with a word and file "b" starts with one: laid end to end they must not merge
    # into one pseudo-token. "a": "x y" (2 pseudo-tokens, 3 chars), "b": "z\tw\n" (2, 4 chars),
    # "c": "" (0, 0). Tags P (in "a") and Q (in "b") get a row in every file.
    signals = {"b": "z\tw\n", "a": "x y", "c": ""}
    rows = [_annotation("a", "ref", "P", 2, 3), _annotation("b", "hyp", "Q", 0, 1)]
    table = fixed_span_counts(signals, _frame(rows), "pseudo_token")
    assert list(table["file"]) == ["a", "a", "b", "b", "c", "c"]
    assert list(table["tag"]) == ["P", "Q"] * 3
    assert list(table["test_units"]) == [2, 2, 2, 2, 0, 0]
    assert _row(table, "a", "P")["missing"] == 1
    assert _row(table, "b", "Q")["spurious"] == 1
    assert table[list(DETAIL_COLUMNS)].to_numpy().sum() == 0
    chars = fixed_span_counts(signals, _frame(rows), "character")
    assert list(chars["test_units"]) == [3, 3, 4, 4, 0, 0]


def test_pseudo_tokens_of_a_word_cut_by_boundaries() -> None:
    # "unbelievable story": ref X over "believ" [2, 8), hyp X over "believable" [2, 12). Cuts 0, 2,
    # 8, 12, 18 give "un" | "believ" | "able" | " story": 4 pseudo-tokens. "believ" X both (match),
    # "able" X hyp only (spurious).
    text = "unbelievable story"
    rows = [_annotation("d", "ref", "X", 2, 8), _annotation("d", "hyp", "X", 2, 12)]
    row = _row(fixed_span_counts({"d": text}, _frame(rows), "pseudo_token"), "d", "X")
    assert row == {"match": 1, "refclash": 0, "missing": 0, "hypclash": 0, "spurious": 1, "test_units": 4}


def test_by_token_needs_hypothesis_tokens() -> None:
    text = "a b"
    rows = [_annotation("d", "ref", "T", 0, 1), _annotation("d", "hyp", "T", 0, 1)]
    with pytest.raises(TokenTableError, match=r"no token table: hypothesis 'd' has no token annotations"):
        fixed_span_counts({"d": text}, _frame(rows), "token")
    # Reference tokens do not count: the units are the hypothesis's.
    ref_tokens = [{**token, "side": "ref"} for token in _tokens("d", text)]
    with pytest.raises(TokenTableError, match="has no token annotations"):
        fixed_span_counts({"d": text}, _frame(rows + ref_tokens), "token")
    # A blank document needs none.
    table = fixed_span_counts({"d": text, "e": "  "}, _frame(rows + _tokens("d", text)), "token")
    assert list(table["test_units"]) == [2, 0]


def test_by_token_refuses_a_content_boundary_inside_a_token() -> None:
    text = "the United States"
    rows = [_annotation("d", "ref", "GPE", 4, 17), _annotation("d", "hyp", "GPE", 4, 15), *_tokens("d", text)]
    with pytest.raises(TokenTableError) as caught:
        fixed_span_counts({"d": text}, _frame(rows), "token")
    message = str(caught.value)
    assert "'d'" in message and "hyp annotation GPE [4, 15) ends inside the token [11, 17)" in message
    # A boundary in the whitespace between tokens cuts no token: accepted.
    rows = [_annotation("d", "ref", "GPE", 3, 17), _annotation("d", "hyp", "GPE", 4, 17), *_tokens("d", text)]
    assert _row(fixed_span_counts({"d": text}, _frame(rows), "token"), "d", "GPE")["match"] == 2


def test_by_token_refuses_overlapping_or_empty_tokens() -> None:
    rows = [_annotation("d", "hyp", "lex", 0, 2, "token"), _annotation("d", "hyp", "lex", 1, 3, "token")]
    with pytest.raises(TokenTableError, match=r"overlapping token annotations \[0, 2\) and \[1, 3\)"):
        fixed_span_counts({"d": "abc"}, _frame(rows), "token")
    rows = [_annotation("d", "hyp", "lex", 0, 3, "token"), _annotation("d", "hyp", "lex", 3, 3, "token")]
    with pytest.raises(TokenTableError, match=r"empty token annotation at \[3, 3\)"):
        fixed_span_counts({"d": "abc"}, _frame(rows), "token")


def test_unknown_unit_and_unknown_file_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown fixed-span unit 'word'"):
        fixed_span_counts({"d": "a"}, _frame([]), "word")
    with pytest.raises(ValueError, match="annotation of file 'zz', which has no signal"):
        fixed_span_counts({"d": "a"}, _frame([_annotation("zz", "ref", "T", 0, 1)]), "character")


def test_accuracy_columns_as_the_seed_defines_them() -> None:
    # Seed: tag_sensitive_accuracy = (test toks - refclash - missing - spurious) / test toks,
    # tag_blind_accuracy = (test toks - missing - spurious) / test toks, error rates 1 - accuracy.
    # 20 units, refclash 2, missing 3, spurious 1: sensitive (20 - 6) / 20 = 0.7, blind 16/20 = 0.8.
    values = accuracy_columns(np.array([20, 0]), np.array([2, 0]), np.array([3, 0]), np.array([1, 0]))
    assert tuple(values) == ACCURACY_COLUMNS
    assert values["tag_sensitive_accuracy"][0] == pytest.approx(0.7)
    assert values["tag_sensitive_error_rate"][0] == pytest.approx(0.3)
    assert values["tag_blind_accuracy"][0] == pytest.approx(0.8)
    assert values["tag_blind_error_rate"][0] == pytest.approx(0.2)
    # No test unit: undefined.
    assert all(np.isnan(values[name][1]) for name in ACCURACY_COLUMNS)


# A slow reference: every unit listed explicitly, labels collected by a scan over all annotations.


def _units(text: str, rows: list[dict], unit: str) -> list[tuple[int, int]]:
    if unit == "character":
        return [(i, i + 1) for i in range(len(text))]
    if unit == "token":
        return sorted((r["start"], r["end"]) for r in rows if r["kind"] == "token" and r["side"] == "hyp")
    cuts = sorted({0, len(text)} | {r[k] for r in rows if r["kind"] == "content" for k in ("start", "end")})
    return [
        (a + m.start(), a + m.end())
        for a, b in zip(cuts, cuts[1:], strict=False)
        for m in re.finditer(r"\S+", text[a:b])
    ]


def _slow_counts(text: str, rows: list[dict], unit: str) -> Counter:
    counts: Counter = Counter()
    for start, end in _units(text, rows, unit):
        sides = {
            side: Counter(
                r["label"]
                for r in rows
                if r["kind"] == "content" and r["side"] == side and r["start"] <= start and end <= r["end"]
            )
            for side in ("ref", "hyp")
        }
        for label in set(sides["ref"]) | set(sides["hyp"]):
            counts[label, "match"] += min(sides["ref"][label], sides["hyp"][label])
        ref_left = sorted((sides["ref"] - sides["hyp"]).elements())
        hyp_left = sorted((sides["hyp"] - sides["ref"]).elements())
        pairs = min(len(ref_left), len(hyp_left))
        for label in ref_left[:pairs]:
            counts[label, "refclash"] += 1
        for label in ref_left[pairs:]:
            counts[label, "missing"] += 1
        for label in hyp_left[:pairs]:
            counts[label, "hypclash"] += 1
        for label in hyp_left[pairs:]:
            counts[label, "spurious"] += 1
    return counts


@st.composite
def _documents(draw: st.DrawFn) -> tuple[str, list[dict]]:
    words = draw(st.lists(st.sampled_from(["a", "bb", "ccc"]), min_size=1, max_size=8))
    spaces = draw(st.lists(st.sampled_from([" ", "  ", "\n"]), min_size=len(words), max_size=len(words)))
    text = "".join(w + s for w, s in zip(words, spaces, strict=True))
    tokens = _tokens("d", text)
    edges = sorted({t["start"] for t in tokens} | {t["end"] for t in tokens})
    rows = list(tokens)
    for side in ("ref", "hyp"):
        for _ in range(draw(st.integers(0, 4))):
            start, end = sorted(draw(st.lists(st.sampled_from(edges), min_size=2, max_size=2)))
            rows.append(_annotation("d", side, draw(st.sampled_from("XYZ")), start, end))
    return text, rows


@settings(max_examples=150, deadline=None)
@given(_documents(), st.sampled_from(["token", "pseudo_token", "character"]))
def test_vectorised_counts_agree_with_a_per_unit_scan(document: tuple[str, list[dict]], unit: str) -> None:
    text, rows = document
    table = fixed_span_counts({"d": text}, _frame(rows), unit)
    expected = _slow_counts(text, rows, unit)
    for _, row in table.iterrows():
        for name in COUNT_COLUMNS:
            assert row[name] == expected[row["tag"], name], (row["tag"], name)
    assert set(table["test_units"]) <= {len(_units(text, rows, unit))}
    # Order of the annotations does not matter.
    shuffled = _frame(rows).sample(frac=1.0, random_state=7)
    pd.testing.assert_frame_equal(fixed_span_counts({"d": text}, shuffled, unit), table)


def test_no_content_annotation_still_brings_the_documents() -> None:
    # No label anywhere: each document is one placeholder row with its units ("a b": 2 pseudo-tokens,
    # "cc": 1), and the reported table has only <all> rows: 2 docs, 3 units, nothing tagged, so
    # P = R = 1 (MATScore's conventions) and accuracy (3 - 0) / 3 = 1.
    from iescore.pipeline.mat.measures import NO_TAG, score_table
    from iescore.pipeline.mat.tables import report_rows

    counts = fixed_span_counts({"d": "a b", "e": "cc"}, _frame([]), "pseudo_token")
    assert list(counts["tag"]) == [NO_TAG, NO_TAG] and list(counts["test_units"]) == [2, 1]
    scores = score_table(pa.Table.from_pandas(counts, preserve_index=False), by_file=True)
    rows = report_rows(scores, "pseudo_token").to_pandas()
    assert list(zip(rows["file"], rows["tag"], strict=True)) == [
        ("d", "<all>"),
        ("e", "<all>"),
        ("<all>", "<all>"),
    ]
    corpus = rows.iloc[-1]
    assert (corpus["test_docs"], corpus["test_units"], corpus["precision"], corpus["recall"]) == (
        2,
        3,
        1.0,
        1.0,
    )
    assert corpus["tag_sensitive_accuracy"] == 1.0
