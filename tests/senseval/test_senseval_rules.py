"""SENSEVAL rules (issue 13, points 2 to 6): the seed's 22-row table, its coverage and conjunctive
policies, unknown senses, filters, bad input, warnings, JSON, stages and the family.

Expected numbers come from seed 003's tables or from hand calculations written beside them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import luigi
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.senseval import SENSEVAL, senseval_statistics
from iescore.pipeline.senseval.formats import read_answers, read_key, read_sense_map
from iescore.pipeline.senseval.report import totals
from iescore.pipeline.senseval.scoring import SenseOptions, _sorted_index_in, score_senses
from iescore.tasks.cli.main import main
from iescore.tasks.core.base import task_for
from iescore.tasks.senseval.stages import senseval_spec

DATA = Path(__file__).resolve().parents[1] / "data" / "senseval"
SEED_MAP = DATA / "seed.sensemap"  # 1 -> 1.1, 1.2 (b = 2); 2 -> 2.1 ... 2.5 (b = 5); 3


def score_one(tmp_path: Path, key: str, guess: str, granularity: str, policy: str = "disjunctive", **kw):
    """Credit, attempted and total of one instance ``w 1`` (key tags ``key``, answer ``guess``)."""
    (tmp_path / "k").write_text(f"w 1 {key}\n")
    (tmp_path / "a").write_text(f"w 1 {guess}\n")
    scored = score_senses(
        read_key(tmp_path / "k"),
        read_answers(tmp_path / "a"),
        read_sense_map(SEED_MAP),
        SenseOptions(granularity=granularity, policy=policy, **kw),
    )
    row = scored.instances.to_pylist()[0]
    return row["credit"], row["attempted"], row["total"]


def seed_guess(text: str) -> str:
    """The seed's ``1(0.6), 2(0.4)`` as an answer: ``1/0.6 2/0.4``."""
    return " ".join(part.strip().replace("(", "/").rstrip(")") for part in text.split(","))


# Seed 003, "HOW IT WORKS": key, guess, F, C, M. Rows 18 and 20 are corrected: the seed's rows 10 and
# 11 give a tag below the key tag full credit in M (10: key 1, guess 1.1 -> 1.0) and a tag above it
# 1/b (11: key 1.1, guess 1 -> 0.5), and F credits only equal tags (11: 0.0). Row 18 (key 1, guess
# 1.1(0.6) 2(0.4)): 1.1 is below 1, so M = 0.6 (the seed prints 0.3). Row 20 (key 1.1, guess 1(0.6)
# 2(0.4)): F has no equal tag, so 0.0 (seed: 0.6); M gives 1 above 1.1 credit 1/2, so 0.5 x 0.6 = 0.3
# (seed: 0.6). scorer2 itself prints 0.600 and 0.300 for them (tests/data/senseval/seed.*.out).
SEED_TABLE = [
    (1, "1", "1(1.0)", 1.0, 1.0, 1.0),
    (2, "1 3", "1(1.0)", 1.0, 1.0, 1.0),
    (3, "1", "2(1.0)", 0.0, 0.0, 0.0),
    (4, "1 2", "2(1.0)", 1.0, 1.0, 1.0),
    (5, "1 3", "2(1.0)", 0.0, 0.0, 0.0),
    (6, "1.1", "1.1(1.0)", 1.0, 1.0, 1.0),
    (7, "1.1 3", "1.1(1.0)", 1.0, 1.0, 1.0),
    (8, "1.1", "1.2(1.0)", 0.0, 1.0, 0.0),
    (9, "1.1 3", "1.2(1.0)", 0.0, 1.0, 0.0),
    (10, "1", "1.1(1.0)", 0.0, 1.0, 1.0),
    (11, "1.1", "1(1.0)", 0.0, 1.0, 0.5),
    (12, "2.1", "2(1.0)", 0.0, 1.0, 0.2),
    (13, "1.1 1.2", "1.1(1.0)", 1.0, 1.0, 1.0),
    (14, "1.1 1.2", "1(1.0)", 0.0, 1.0, 1.0),
    (15, "2.1 2.2", "2(1.0)", 0.0, 1.0, 0.4),
    (16, "1", "1(0.6), 2(0.4)", 0.6, 0.6, 0.6),
    (17, "2", "1(0.6), 2(0.4)", 0.4, 0.4, 0.4),
    (18, "1", "1.1(0.6), 2(0.4)", 0.0, 0.6, 0.6),  # seed: M 0.3 (see above)
    (19, "1", "1.1(0.6), 1.2(0.4)", 0.0, 1.0, 1.0),
    (20, "1.1", "1(0.6), 2(0.4)", 0.0, 0.6, 0.3),  # seed: F 0.6, M 0.6 (see above)
    (21, "1 3", "1(0.6), 2(0.4)", 0.6, 0.6, 0.6),
    (22, "1 2", "1(0.6), 2(0.4)", 1.0, 1.0, 1.0),
]


@pytest.mark.parametrize(("row", "key", "guess", "fine", "coarse", "mixed"), SEED_TABLE)
def test_seed_table(tmp_path: Path, row: int, key: str, guess: str, fine: float, coarse: float, mixed: float):
    for granularity, expected in (("fine", fine), ("coarse", coarse), ("mixed", mixed)):
        credit, attempted, total = score_one(tmp_path, key, seed_guess(guess), granularity)
        assert credit == pytest.approx(expected), (row, granularity)
        assert (attempted, total) == (pytest.approx(1.0), 1.0)


@pytest.mark.parametrize(
    ("row", "key", "guess", "fine", "coarse", "mixed"),
    [
        # The seed's amended rows: 4, 9, 21, and "rows 2 and 13 would also be scored like row 4".
        (4, "1 2", "2(1.0)", 0.5, 0.5, 0.5),
        (9, "1.1 3", "1.2(1.0)", 0.0, 0.5, 0.0),
        (21, "1 3", "1(0.6), 2(0.4)", 0.3, 0.3, 0.3),
        (2, "1 3", "1(1.0)", 0.5, 0.5, 0.5),
        # Row 13 coarse: the key's 1.1 and 1.2 both become 1, one tag, so the coverage is whole: 1.0
        # (the seed: rows without multiple key tags score as before). Mixed: 1.1 equals one of two.
        (13, "1.1 1.2", "1.1(1.0)", 0.5, 1.0, 0.5),
        # Hand: row 14 mixed, 1 is above both 1.1 and 1.2 for 1/2 each: (1/2 + 1/2) / 2 key tags = 0.5.
        (14, "1.1 1.2", "1(1.0)", 0.0, 1.0, 0.5),
        # Single-tag rows are unchanged (rows 1 and 11).
        (1, "1", "1(1.0)", 1.0, 1.0, 1.0),
        (11, "1.1", "1(1.0)", 0.0, 1.0, 0.5),
    ],
)
def test_coverage_policy(tmp_path: Path, row, key, guess, fine, coarse, mixed) -> None:
    for granularity, expected in (("fine", fine), ("coarse", coarse), ("mixed", mixed)):
        credit, _, _ = score_one(tmp_path, key, seed_guess(guess), granularity, "coverage")
        assert credit == pytest.approx(expected), (row, granularity)


# The seed's conjunctive table (probabilities of appearance): key, guess, score (F = C = M), and the
# expected tags returned and key tags the seed names (row 1: 1 and 1; row 4: 2 and 1; row 9: 1.1 and 1).
CONJUNCTIVE = [
    (1, "1", "1(1.0)", 1.0, 1.0, 1),
    (2, "1 3", "1(1.0)", 1.0, 1.0, 2),
    (3, "1 3", "1(1.0), 3(1.0)", 2.0, 2.0, 2),
    (4, "3", "1(1.0), 3(1.0)", 1.0, 2.0, 1),
    (5, "1", "1(0.6)", 0.6, 0.6, 1),
    (6, "1 3", "1(0.6)", 0.6, 0.6, 2),
    (7, "1 3", "1(0.6), 3(0.6)", 1.2, 1.2, 2),
    (8, "1 3", "1(0.6), 3(0.2)", 0.8, 0.8, 2),
    (9, "3", "1(0.6), 3(0.5)", 0.5, 1.1, 1),
]


@pytest.mark.parametrize(("row", "key", "guess", "score", "returned", "key_tags"), CONJUNCTIVE)
def test_conjunctive_policy(tmp_path: Path, row, key, guess, score, returned, key_tags) -> None:
    for granularity in ("fine", "coarse", "mixed"):
        credit, attempted, total = score_one(tmp_path, key, seed_guess(guess), granularity, "conjunctive")
        assert (credit, attempted, total) == (pytest.approx(score), pytest.approx(returned), key_tags), row


def test_conjunctive_mixed_partial_credit(tmp_path: Path) -> None:
    # Hand: key 2.1 2.2, guess 2 (appears for sure): 2 is above each for 1/5, so 0.2 + 0.2 = 0.4 of 2
    # key tags, 1 tag returned. A tag repeated cannot earn a key tag more than 1: key 3, guess 3 3 -> 1.
    assert score_one(tmp_path, "2.1 2.2", "2", "mixed", "conjunctive") == (pytest.approx(0.4), 1.0, 2.0)
    assert score_one(tmp_path, "3", "3 3", "fine", "conjunctive") == (1.0, 2.0, 1.0)


def test_weights(tmp_path: Path) -> None:
    # Seed/issue: x/0.5 right is 0.5 correct of 0.5 attempted; weights over 1 are divided by their sum
    # (1/2 + 2/2 -> 1/3 and 2/3, key 2: 2/3 of 1 attempted); a tag without weight makes every tag weigh
    # 1 (1/0.2 2 -> 1/2 and 2/2: key 1, 0.5); x/abc weighs 0 (key 1: 1/abc 2/0.5 -> 0 of 0.5).
    assert score_one(tmp_path, "1", "1/0.5", "fine") == (0.5, 0.5, 1.0)
    assert score_one(tmp_path, "2", "1/2 2/4", "fine") == (pytest.approx(2 / 3), 1.0, 1.0)
    assert score_one(tmp_path, "1", "1/0.2 2", "fine") == (0.5, 1.0, 1.0)
    assert score_one(tmp_path, "1", "1/abc 2/0.5", "fine") == (0.0, 0.5, 1.0)
    # Coarse merges answer tags and adds their weights: 1.1/0.3 1.2/0.3 -> 1/0.6, key 1.1 -> 1: 0.6.
    assert score_one(tmp_path, "1.1", "1.1/0.3 1.2/0.3", "coarse") == pytest.approx((0.6, 0.6, 1.0))


def test_only_the_first_answer_counts_whatever_the_order(tmp_path: Path) -> None:
    (tmp_path / "k").write_text("w 2 1\nw 1 1\n")
    (tmp_path / "a").write_text("w 1 2\nw 2 1\nw 1 1")  # no final newline; the second 'w 1' is late
    scored = score_senses(read_key(tmp_path / "k"), read_answers(tmp_path / "a"), None, SenseOptions())
    assert totals(scored.instances).credit == 1.0  # w 2 right, w 1 wrong (its first answer: 2)
    assert scored.unscored.to_pylist() == [
        {"line": 3, "name": "w_1", "reason": "Excluded or already scored."}
    ]


def test_an_instance_is_its_item_and_its_name(tmp_path: Path) -> None:
    # The key's instance names increase (matched by name, then the item checked) or not (matched by the
    # pair): either way 'b 1' is not the key's 'a 1' but an instance that does not exist, and 'a 1'
    # scores 1 of 1 (its tag right) while 'b 2' scores 0 (x is not y).
    for key in ("a 1 x\nb 2 y\n", "b 2 y\na 1 x\n"):
        (tmp_path / "k").write_text(key)
        (tmp_path / "a").write_text("b 1 x\na 1 x\nb 2 x\n")
        scored = score_senses(read_key(tmp_path / "k"), read_answers(tmp_path / "a"), None, SenseOptions())
        assert (totals(scored.instances).credit, totals(scored.instances).attempted) == (1.0, 2.0)
        assert scored.unscored.to_pylist() == [{"line": 1, "name": "b_1", "reason": "Does not exist."}]


@pytest.mark.parametrize("width", [3, 70])
def test_sorted_key_look_up_agrees_with_hashing(width: int) -> None:
    # The sorted key's instances are found by merging fixed-width byte rows of the key and of the
    # answers (one stable sort), each answer matched with the last key name before it; Arrow's
    # index_in (hashing) is the oracle. Names of every length up to ``width``, prefixes of each other
    # ("a" < "aa"), absent names, a null, and a name with a NUL byte (looked up by hashing instead).
    rng = np.random.default_rng(5)
    names = sorted({"".join(rng.choice(list("ab.9"), rng.integers(1, width + 1))) for _ in range(400)})
    values = pa.array(names)
    queries = pa.array([*rng.choice(names, 300).tolist(), "zz", "", None, "a\x00", *names[:5][::-1]])
    expected = pc.fill_null(pc.index_in(queries, value_set=values), -1).to_numpy()
    assert _sorted_index_in(queries, values).tolist() == expected.tolist()
    part, among = queries.slice(3, 40), values.slice(0, 100)  # arrays that start inside their buffers
    expected = pc.fill_null(pc.index_in(part, value_set=among), -1).to_numpy()
    assert _sorted_index_in(part, among).tolist() == expected.tolist()


def test_names_of_one_width_are_looked_up_in_their_buffer() -> None:
    # Every name as wide (the bench's key): the names' own buffer is the rows. Answers a sorted subset,
    # then an absent name and one out of order; the expected rows are the subset's positions, -1, 1.
    key = [f"item{i:03d}.{j:04d}" for i in range(20) for j in range(50)]
    answers = pa.array([*key[::3], "item999.0000", "item000.0001"])
    assert _sorted_index_in(answers, pa.array(key)).tolist() == [*range(0, len(key), 3), -1, 1]


def test_mixed_ancestors_by_depth_or_by_search(tmp_path: Path, monkeypatch) -> None:
    # The mixed-grained look-up by depth (short map lines) and by search (long ones) give the same
    # credits (to the last bit: the conjunctive policy sums their products with the weights): the seed's
    # map with a line eight ancestors long (b = 3 at each level; the most looked up by depth) added.
    from iescore.pipeline.senseval import scoring

    chain = " ".join(f"3 d{depth}" for depth in range(1, 9))
    (tmp_path / "m").write_text(
        SEED_MAP.read_text() + f"d0 {chain}\n" + "".join(f"d{depth}\n" for depth in range(1, 9))
    )
    (tmp_path / "k").write_text("w 1 1\nw 2 1.1\nw 3 2.1\nzz 1 d0\nzz 2 d0\nzz 3 d7\n")
    (tmp_path / "a").write_text("w 1 1.1\nw 2 1\nw 3 2\nzz 1 d8\nzz 2 d3/0.3 d0/0.5\nzz 3 d0\n")
    tables = read_key(tmp_path / "k"), read_answers(tmp_path / "a"), read_sense_map(tmp_path / "m")
    policies = scoring.POLICIES
    assert scoring._MAX_TABLE_DEPTH == 8
    by_depth = [score_senses(*tables, SenseOptions("mixed", policy=p)).instances for p in policies]
    monkeypatch.setattr(scoring, "_MAX_TABLE_DEPTH", 0)
    by_search = [score_senses(*tables, SenseOptions("mixed", policy=p)).instances for p in policies]
    for depth, search in zip(by_depth, by_search, strict=True):  # to the last bit, in every policy
        assert depth.equals(search)
    by_depth = by_depth[0]
    # Seed rows 10, 11, 12: 1.0, 0.5, 0.2. d8 is 8 levels above d0: 1 / 3^8; d3/0.3 is 3 levels above
    # d0: 0.3 / 3^3, plus d0/0.5 itself: 0.5; d0 is below d7: 1.
    expected = [1.0, 0.5, 0.2, 1 / 3**8, 0.3 / 27 + 0.5, 1.0]  # in single precision, as scorer2
    assert by_depth.column("credit").to_pylist() == pytest.approx(expected, rel=1e-7)


def test_unknown_senses(tmp_path: Path, monkeypatch, capsys) -> None:
    # odd.answers line 8, 'art 4 art.3/0.2 bogus/0.2' (key art.3): scorer2 scores it 0.2 of 0.4
    # attempted (odd.fine.out); with --unknown-senses unattempted it is an invalid answer: not attempted,
    # so the attempted total falls from 7.45 to 7.05 and the credit from 2.10 to 1.90 (fine, hand).
    monkeypatch.chdir(DATA)
    base = ["senseval", "odd.answers", "odd.key", "odd.sensemap", "--store", str(tmp_path)]
    assert main(base) == 0
    assert "(2.10 correct of 7.45 attempted)" in capsys.readouterr().out
    assert main([*base, "--unknown-senses", "unattempted"]) == 0
    captured = capsys.readouterr()
    assert "(1.90 correct of 7.05 attempted)" in captured.out
    assert 'Unable to score answer for "art_4" (line 7): Invalid answer.' in captured.err
    # Without a map there is nothing to call unknown: the option changes nothing (seed: mistakes).
    assert (
        main(
            [
                "senseval",
                "odd.answers",
                "odd.key",
                "--store",
                str(tmp_path),
                "--unknown-senses",
                "unattempted",
            ]
        )
        == 0
    )
    assert "(2.10 correct of 7.45 attempted)" in capsys.readouterr().out


def test_sense_filter_seed_row_15(tmp_path: Path, monkeypatch, capsys) -> None:
    # Seed: with only 1.1 and 2.2 on the list, row 15's key 2.1 2.2 becomes 2.2; rows whose key keeps no
    # tag are ignored. Keys of seed.key keeping a tag: r06 1.1, r07 1.1, r08 1.1, r09 1.1, r11 1.1,
    # r13 1.1, r14 1.1, r15 2.2, r20 1.1 (9 instances). Mixed credits, hand: r06 1, r07 1, r08 0 (1.2),
    # r09 0, r11 1/2, r13 1, r14 1/2, r15 1/5 (2 above 2.2), r20 0.6 x 1/2 = 0.3: 4.5 of 9.
    (tmp_path / "senses").write_text("1.1\n2.2\n")
    monkeypatch.chdir(DATA)
    args = [
        "senseval",
        "seed.answers",
        "seed.key",
        "seed.sensemap",
        "-g",
        "mixed",
        "--store",
        str(tmp_path / "s"),
    ]
    assert main([*args, "--senses", str(tmp_path / "senses"), "-v"]) == 0
    out = capsys.readouterr().out
    assert 'score for "seed_r15": 0.200\n key   = 2.2\n' in out
    assert " recall: 0.500 (4.50 correct of 9.00 in total)" in out


def test_instance_filter(tmp_path: Path, monkeypatch, capsys) -> None:
    # Only r01 (1.0) and r03 (0.0) in every policy: 1 of 2; the other answers are excluded.
    (tmp_path / "list").write_text("seed r01\nseed r03\n")
    monkeypatch.chdir(DATA)
    status = main(
        [
            "senseval",
            "seed.answers",
            "seed.key",
            "--instances",
            str(tmp_path / "list"),
            "--store",
            str(tmp_path),
        ]
    )
    assert status == 0
    captured = capsys.readouterr()
    assert " precision: 0.500 (1.00 correct of 2.00 attempted)" in captured.out
    assert captured.err.count("Excluded or already scored.") == 20


@pytest.mark.parametrize(
    ("name", "text", "line", "message"),
    [
        ("key", "w 1 1\nw 2\n", 2, "'item instance tag [tag ...]' expected"),
        ("key", "w 1 1\nw 1 2\n", 2, "instance given again (first on line 1)"),
        ("map", "1\n1.1 two 1\n", 2, "branching factor 'two' of '1.1' is not a positive integer"),
        ("map", "1\n1.1 0 1\n", 2, "branching factor '0'"),
        ("map", "1.1 2 1\n1 2 1.1\n", 1, "a cycle"),
        ("map", "1.1 2 1 3 1.1\n", 1, "a cycle"),
        ("map", "1.1 2\n", 1, "in pairs"),
        ("map", "1\n2\n1\n", 3, "sense given a line again (first on line 1)"),
    ],
)
def test_bad_input_exits_2_with_file_and_line(tmp_path: Path, capsys, name, text, line, message) -> None:
    files = {"answers": "w 1 1\n", "key": "w 1 1\n", "map": "1\n"}
    files[name] = text
    for file, content in files.items():
        (tmp_path / file).write_text(content)
    status = main(
        ["senseval", *(str(tmp_path / f) for f in ("answers", "key", "map")), "--store", str(tmp_path / "s")]
    )
    err = capsys.readouterr().err
    assert status == 2
    assert f"{tmp_path / name}:{line}: " in err and message in err


def test_missing_file_and_unknown_granularity(tmp_path: Path, capsys) -> None:
    (tmp_path / "key").write_text("w 1 1\n")
    assert main(["senseval", str(tmp_path / "nothing"), str(tmp_path / "key"), "--store", str(tmp_path)]) == 2
    assert "nothing" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["senseval", str(tmp_path / "key"), str(tmp_path / "key"), "-g", "medium"])
    assert exit_.value.code == 2


def test_warnings_on_stderr_counted_in_json_and_strict(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(DATA)
    out_json = tmp_path / "out.json"
    args = ["senseval", "odd.answers", "odd.key", "odd.sensemap", "--store", str(tmp_path / "s")]
    assert main([*args, "--json", str(out_json)]) == 0
    err = capsys.readouterr().err
    # odd.answers: line 3 'art.2/abc', line 5 a tab between item and instance, line 6 blank.
    assert "odd.answers:3: warning: weight 'abc' is not a number" in err
    assert "odd.answers:5: warning: a tab in 'item instance'" in err
    assert "odd.answers:6: warning: no answer on this line" in err
    result = json.loads(out_json.read_text())
    assert result["warnings"] == 3
    # scorer2's stderr for odd (fine): 2 'Does not exist' of lines 4, 5 (tab, blank) + bank_9 + bank;
    # 1 invalid (line 6, 'art 4'); 2 excluded (second art 3, second bank 3).
    assert result["unscored"] == {
        "Does not exist.": 4,
        "Invalid answer.": 1,
        "Excluded or already scored.": 2,
    }
    # odd.fine.out: 2.10 correct, 7.45 attempted, 9 in total.
    assert result["totals"]["correct"] == pytest.approx(2.1)
    assert result["totals"]["attempted"] == pytest.approx(7.45)
    assert result["totals"]["recall"] == pytest.approx(2.1 / 9)
    assert result["signature"].startswith("scorer:senseval|granularity:fine|minimal:no|policy:disjunctive")
    assert main([*args, "--strict"]) == 2
    assert "odd.answers:3: weight 'abc' is not a number" in capsys.readouterr().err


def test_by_item(tmp_path: Path, monkeypatch, capsys) -> None:
    # odd.mixed.out per instance: art 1.000 + 0.667 + 0.250 + 0.200 + 0.500 (attempted 1 + 1 + 0.25 +
    # 0.4 + 1 = 3.65 of 5); bank 1.000 + 0.250 + 1.000 + 0.800 = 3.05 (attempted 1 + 1 + 1 + 0.8).
    monkeypatch.chdir(DATA)
    assert (
        main(
            [
                "senseval",
                "odd.answers",
                "odd.key",
                "odd.sensemap",
                "-g",
                "mixed",
                "--by-item",
                "--store",
                str(tmp_path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert 'Mixed-grained score for item "art":\n precision: 0.717 (2.62 correct of 3.65 attempted)\n' in out
    # 3.05 / 4 = 0.7625, a tie: bank 4's 0.8 is the C float 0.800000012 (as scorer2 holds it), so 0.763.
    assert " recall: 0.763 (3.05 correct of 4.00 in total)\n" in out.split('item "bank"')[1]


def test_statistics_and_family_measures(tmp_path: Path) -> None:
    scored = score_senses(
        read_key(DATA / "seed.key"),
        read_answers(DATA / "seed.answers"),
        read_sense_map(SEED_MAP),
        SenseOptions(),
    )
    statistics = senseval_statistics(scored.instances)
    assert statistics.num_rows == 3 * 22
    frame = statistics.to_pandas()
    sums = frame.pivot_table(index="statistic", values="value", aggfunc="sum")["value"]
    # seed.fine.out: 8.60 correct of 22.00 attempted, 22 in total.
    measures = SENSEVAL.measures(np.array([sums["credit"], sums["attempted"], sums["total"]]))
    assert measures == pytest.approx([8.6 / 22, 8.6 / 22, 1.0])
    assert SENSEVAL.headline == "recall"
    assert set(frame["category"]) == {"seed"} and frame["unit"].iloc[0] == "seed r01"
    assert np.isnan(SENSEVAL.measures(np.array([0.0, 0.0, 3.0]))[0])  # nothing attempted: undefined


def test_stages_rerun_only_what_changed(tmp_path: Path) -> None:
    answers = tmp_path / "answers"
    answers.write_text((DATA / "seed.answers").read_text())
    options = {"granularity": "mixed", "minimal": False, "policy": "disjunctive", "unknown_senses": "wrong"}
    store = str(tmp_path / "store")

    def build() -> set[str]:
        task = task_for(senseval_spec(answers, DATA / "seed.key", SEED_MAP, options), store)
        ran: set[str] = set()
        luigi.Task.event_handler(luigi.Event.SUCCESS)(lambda t: ran.add(type(t).__name__))
        assert luigi.build([task], local_scheduler=True, log_level="ERROR")
        return ran

    assert build() == {"IngestSenseKey", "IngestSenseAnswers", "ScoreSenses", "ReportSenses"}
    assert build() == set()
    answers.write_text((DATA / "seed.answers").read_text().replace("r01 1/1.0", "r01 2/1.0"))
    assert build() == {"IngestSenseAnswers", "ScoreSenses", "ReportSenses"}


def test_reader_errors_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        read_key(tmp_path / "absent")


@pytest.mark.parametrize("granularity", ["fine", "mixed"])
def test_a_senseval_run_imports_no_pandas(granularity: str) -> None:
    # ``iescore senseval`` builds and reads its columns through ``pipeline.core.arrays``: pyarrow's own
    # conversions import pandas (a tenth of the command's time on a million instances), which it needs not.
    files = [str(DATA / name) for name in ("seed.answers", "seed.key", "seed.sensemap")]
    program = (
        "import sys\n"
        "from iescore.tasks.cli.main import main\n"
        f"status = main(['senseval', '-g', {granularity!r}, '--by-item', *{files!r}])\n"
        "print(status, 'pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-2:] == ["0", "False"]
