"""CEAF-m, BLANC and LEA (issue 11), and the zero-division convention of every coreference measure.

Expected numbers are worked by hand in the comments, or taken from the CoNLL reference scorer's own
test cases: ``expected.json`` (checked for every measure in tests/coref/test_coref.py) and, for LEA, the
expected values the scorer's LEA branch lists for the same data files (``test/CorefMetricTestConfig.pm``
of conll/reference-coreference-scorers, merged from ns-moosavi/LEA-scorer).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from iescore.pipeline.coref import (
    METRICS,
    BlancCounts,
    Counts,
    rates,
    read_aligned,
    score_batch,
    score_documents,
    score_report,
    scores_json,
)
from iescore.tasks.cli.main import main
from oracle_chains import agreed_counts

SHARED = Path(__file__).resolve().parents[3] / "shared"
DATA = SHARED / "external" / "coref" / "datafiles"

needs_shared = pytest.mark.skipif(
    not DATA.is_dir(), reason="../shared/external/coref is not beside the checkout"
)


def exact_counts(counts: Counts) -> tuple[Fraction, Fraction]:
    return Fraction(counts.recall_num) / counts.recall_den, Fraction(
        counts.precision_num
    ) / counts.precision_den


# --- CEAF-m -----------------------------------------------------------------------------------------------


def test_ceafm_by_hand() -> None:
    # key {a b} {c}, response {a b c}: phi3({a b}, {a b c}) = 2, phi3({c}, {a b c}) = 1; one response
    # chain, so the best assignment takes 2: recall 2 / 3 key mentions, precision 2 / 3 response mentions.
    ceafm = agreed_counts([["a", "b"], ["c"]], [["a", "b", "c"]])["ceafm"]
    assert (ceafm.recall_num, ceafm.recall_den, ceafm.precision_num, ceafm.precision_den) == (2, 3, 2, 3)
    # key {a b c} {d e}, response {a b} {c d e} {x}: phi3 = [[2, 1, 0], [0, 2, 0]]; the assignment
    # {a b c}-{a b}, {d e}-{c d e} gives 4 (the other, 1 + 0, gives 1): recall 4/5, precision 4/6.
    ceafm = agreed_counts([["a", "b", "c"], ["d", "e"]], [["a", "b"], ["c", "d", "e"], ["x"]])["ceafm"]
    assert (ceafm.recall_num, ceafm.recall_den, ceafm.precision_num, ceafm.precision_den) == (4, 5, 4, 6)


# --- BLANC ------------------------------------------------------------------------------------------------


def blanc_of(key: list[list[str]], response: list[list[str]]) -> BlancCounts:
    blanc = agreed_counts(key, response)["blanc"]
    assert isinstance(blanc, BlancCounts)
    return blanc


def test_blanc_both_link_types() -> None:
    # TC-B-1 of the reference scorer's TestCases.README, worked there by hand: key {a b} {c d e},
    # response {b c x} {d e}. Key coreference links ab cd ce de (4), response bc bx cx de (4), common de:
    # R_c = P_c = 1/4. Key non-coreference links ac ad ae bc bd be (6), response bd be cd ce xd xe (6),
    # common bd be: R_n = P_n = 2/6. BLANC = (1/4 + 1/3) / 2 = 7/24 for recall, precision and F.
    blanc = blanc_of([["a", "b"], ["c", "d", "e"]], [["b", "c", "x"], ["d", "e"]])
    assert blanc.coreference == Counts(1, 4, 1, 4)
    assert blanc.non_coreference == Counts(2, 6, 2, 6)
    for value in rates(blanc):
        assert value == pytest.approx(7 / 24)


def test_blanc_key_without_coreference_links_scores_non_coreference_links_only() -> None:
    # key {a} {b} {c} (all singletons: no coreference link), response {a b} {c}. Non-coreference links:
    # key ab ac bc, response ac bc, common 2: R_n 2/3, P_n 1, F_n 0.8. The response's wrong link ab is
    # not counted at all (the reference scorer's rule: only the link types the key has are averaged).
    blanc = blanc_of([["a"], ["b"], ["c"]], [["a", "b"], ["c"]])
    assert blanc.coreference == Counts(0, 0, 0, 1)
    assert rates(blanc) == pytest.approx((2 / 3, 1.0, 0.8))


def test_blanc_key_with_one_chain_scores_coreference_links_only() -> None:
    # key {a b c} (no non-coreference link), response {a b} {c}: coreference links key ab ac bc,
    # response ab, common ab: R_c 1/3, P_c 1, F_c 1/2; that is BLANC.
    blanc = blanc_of([["a", "b", "c"]], [["a", "b"], ["c"]])
    assert blanc.non_coreference == Counts(0, 0, 0, 2)
    assert rates(blanc) == pytest.approx((1 / 3, 1.0, 0.5))


def test_blanc_undefined_parts() -> None:
    # key {a} {b c}, response {a} {b} {c}: coreference links key bc, response none: R_c 0/1, P_c 0/0.
    # Non-coreference links key ab ac, response ab ac bc: R_n 2/2, P_n 2/3, F_n 0.8.
    blanc = blanc_of([["a"], ["b", "c"]], [["a"], ["b"], ["c"]])
    # Undefined by default: P_c is, so BLANC's precision and F are; recall (0 + 1) / 2 is defined.
    assert rates(blanc) == (0.5, None, None)
    # As the reference scorer prints it (TC-A-10's pattern): P = (0 + 2/3) / 2, F = (0 + 0.8) / 2.
    assert rates(blanc, zero_division=0) == pytest.approx((0.5, 1 / 3, 0.4))
    # A key without any link (one mention): BLANC is undefined, or 0 as the reference prints it.
    lone = blanc_of([["a"]], [["a"]])
    assert rates(lone) == (None, None, None)
    assert rates(lone, zero_division=0) == (0.0, 0.0, 0.0)


def test_blanc_totals_come_from_summed_link_counts() -> None:
    # Document 0: key {a b}, response {a b}: coreference 1/1, 1/1, no non-coreference link: BLANC 1.
    # Document 1: key {c} {d}, response {c d}: coreference key 0, response 1; non-coreference key cd,
    # response none. Summed: coreference common 1, key 1, response 2 (R_c 1, P_c 1/2, F_c 2/3);
    # non-coreference common 0, key 1, response 0 (R_n 0, P_n 0/0, F_n undefined).
    # BLANC of the totals (zero division 0): R (1 + 0)/2, P (1/2 + 0)/2, F (2/3 + 0)/2, not the mean of
    # the two documents' BLANC values.
    batch = score_batch(
        np.array([0, 0, 1, 1]), np.array([0, 0, 0, 1]), np.array([0, 0, 0, 0]), docs=2, metrics=["blanc"]
    )
    first, second, total = batch.document(0)["blanc"], batch.document(1)["blanc"], batch.totals()["blanc"]
    assert total == first + second
    assert total.coreference == Counts(1, 1, 1, 2) and total.non_coreference == Counts(0, 1, 0, 0)
    assert rates(first) == (1.0, 1.0, 1.0)
    assert rates(total, zero_division=0) == pytest.approx((0.5, 0.25, 1 / 3))
    assert rates(total) == (0.5, None, None)


# --- LEA ---------------------------------------------------------------------------------------------------


def test_lea_by_hand() -> None:
    # LEA recall = sum over key entities k of |k| * resolved(k) / links(k), over sum |k|; links(k) =
    # |k| (|k| - 1) / 2, resolved(k) = those links whose mentions share a response entity. Precision
    # swaps the sides.
    # key {A B C} {D E F G}, response {A B} {C D} {F G H} (the data of the reference's TC-L):
    # recall: {A B C} has 3 links, AB resolved: 3 * 1/3; {D E F G} 6 links, FG resolved: 4 * 1/6;
    #   (1 + 2/3) / 7 = 5/21.
    # precision: {A B} 1 link, resolved: 2 * 1; {C D} 1 link, C and D in two key entities: 0;
    #   {F G H} 3 links, FG resolved (H is in no key entity): 3 * 1/3; (2 + 0 + 1) / 7 = 3/7.
    lea = agreed_counts([list("ABC"), list("DEFG")], [list("AB"), list("CD"), list("FGH")])["lea"]
    assert exact_counts(lea) == (Fraction(5, 21), Fraction(3, 7))
    # Singletons have one link, a self-link, resolved when the other side has the same singleton.
    # key {a} {b c} {d e f}, response {a} {d e} (TC-A-2):
    # recall: {a} self-link resolved by {a}: 1 * 1; {b c}: b, c missing, 0; {d e f}: de of 3 links:
    #   3 * 1/3; (1 + 0 + 1) / 6 = 1/3. precision: {a} 1 * 1; {d e} 1 link, resolved: 2 * 1; 3/3 = 1.
    lea = agreed_counts([["a"], ["b", "c"], ["d", "e", "f"]], [["a"], ["d", "e"]])["lea"]
    assert exact_counts(lea) == (Fraction(1, 3), Fraction(1))
    # A singleton's self-link is not resolved by a larger entity holding its mention, and an entity of
    # two is not resolved by two singletons: key {a} {b}, response {a b}: recall 0/2, precision 0/2
    # (ab links two key entities); key {a b}, response {a} {b}: recall 0/2, precision 0/2.
    for key, response in (([["a"], ["b"]], [["a", "b"]]), ([["a", "b"]], [["a"], ["b"]])):
        lea = agreed_counts(key, response)["lea"]
        assert (lea.recall_num, lea.recall_den, lea.precision_num, lea.precision_den) == (0, 2, 0, 2)


# The LEA branch's expected (recall, precision) for the reference's data files, as written there.
# (A8 and A9 are commented out there; ours equal A7's, the same response once duplicates are removed.)
LEA_REFERENCE = {
    ("TC-A", "A-1"): (1, 1),
    ("TC-A", "A-2"): ((1 + 3 * (1 / 3)) / 6, 1),
    ("TC-A", "A-3"): (1, (1 + 3 * (1 / 3) + 4 * (3 / 6)) / 9),
    ("TC-A", "A-4"): ((1 + 2 + 0) / 6, (1 + 3 * (1 / 3) + 2 * 0 + 0) / 7),
    ("TC-A", "A-5"): ((1 + 2 + 3 * 0) / 6, (1 + 4 * (1 / 6) + 2 * 0 + 1 * 0) / 8),
    ("TC-A", "A-6"): ((1 + 2 + 3 * 0) / 6, (1 + 3 / 3 + 2 * 0 + 2 * 0) / 8),
    ("TC-A", "A-7"): ((1 + 2 + 3 * 0) / 6, (1 + 3 / 3 + 2 * 0 + 1 * 0) / 7),
    ("TC-A", "A-10"): (1 / 6, 1 / 6),
    ("TC-A", "A-11"): ((0 + 2 + 3) / 6, 4 / 15),
    ("TC-A", "A-12"): (1 / 6, 1 / 7),
    ("TC-A", "A-13"): ((1 * 0 + 2 * 0 + 3 / 3) / 6, 1 / 21),
    ("TC-B", "B-1"): ((2 * 0 + 3 / 3) / 5, (3 * 0 + 2) / 5),
    ("TC-C", "C-1"): ((2 * 0 + 3 / 3 + 2) / 7, (3 * 0 + 2 + 2) / 7),
    ("TC-D", "D-1"): ((5 + 2 + 5) / 12, (5 + 7 * (11 / 21)) / 12),
    ("TC-E", "E-1"): ((5 + 2 + 5) / 12, (10 * (20 / 45) + 2) / 12),
    ("TC-F", "F-1"): (4 * (2 / 6) / 4, (2 + 2) / 4),
    ("TC-G", "G-1"): (1, (4 * 2 / 6) / 4),
    ("TC-H", "H-1"): (1, 1),
    ("TC-I", "I-1"): (4 * (2 / 6) / 4, (2 + 2) / 4),
    ("TC-J", "J-1"): ((3 * 1 / 3) / 3, 1),
    ("TC-K", "K-1"): ((7 * (1 + 1 + 1) / 21) / 7, (3 / 3 + 3 / 3 + 3 / 3) / 9),
    ("TC-L", "L-1"): ((3 * 1 / 3 + 4 * 1 / 6) / 7, (2 + 2 * 0 + 3 / 3) / 7),
    ("TC-M", "M-1"): (1, 1),
    ("TC-M", "M-2"): (0, 0),
    ("TC-M", "M-3"): (6 * (4 / 15) / 6, (2 + 3 + 0) / 6),
    ("TC-M", "M-4"): (6 * (3 / 15) / 6, 6 * (3 / 15) / 6),
    ("TC-M", "M-5"): (0, 0),
    ("TC-M", "M-6"): (6 * (1 / 15) / 6, (2 + 3 * 0 + 1 * 0) / 6),
    ("TC-N", "N-1"): (1, 1),
    ("TC-N", "N-2"): (0, 0),
    ("TC-N", "N-3"): (1 / 6, 1 / 6),
    ("TC-N", "N-4"): (3 / 6, 3 / 6),
    ("TC-N", "N-5"): (0, 0),
    ("TC-N", "N-6"): (0, 0),
}


@needs_shared
@pytest.mark.parametrize(
    ("key", "response"), sorted(LEA_REFERENCE), ids=[r for _, r in sorted(LEA_REFERENCE)]
)
def test_lea_against_the_reference_lea_cases(key: str, response: str) -> None:
    _, aligned = read_aligned(DATA / f"{key}.key", DATA / f"TC-{response}.response")
    lea = score_documents(aligned, metrics=["lea"]).totals["lea"]
    recall, precision = LEA_REFERENCE[key, response]
    f1 = 0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)
    assert rates(lea, zero_division=0) == pytest.approx((recall, precision, f1), abs=1e-9)


# --- zero division, reports, JSON and the command line ---------------------------------------------------


def test_rates_zero_division() -> None:
    # 3/3 recall and no response: precision 0/0. Undefined: precision and F undefined; the reference
    # scorer's way: precision 0 and F = 2 * 1 * 0 / (1 + 0) = 0.
    counts = Counts(3, 3, 0, 0)
    assert rates(counts) == (1.0, None, None)
    assert rates(counts, zero_division=0) == (1.0, 0.0, 0.0)
    assert rates(counts, zero_division="0") == (1.0, 0.0, 0.0)
    assert rates(Counts(0, 0, 0, 0), zero_division=0) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        rates(counts, zero_division="nan")


def test_report_and_json_say_which_convention(tmp_path: Path) -> None:
    key, response = tmp_path / "k.conll", tmp_path / "r.conll"
    key.write_text("#begin document (d); part 0\nd 0 0 w (1)\nd 0 1 w (2)\n#end document\n")
    response.write_text("#begin document (d); part 0\nd 0 0 w -\nd 0 1 w -\n#end document\n")
    scores = score_documents(read_aligned(key, response)[1], metrics=METRICS)
    # Two key singletons, no response mention: MUC 0/0 both ways; B3 recall 0/2, precision 0/0; BLANC:
    # the key has one non-coreference link (ab), the response none: recall 0/1, precision 0/0.
    default, zero = scores_json(scores), scores_json(scores, zero_division="0")
    assert default["zero_division"] == "undefined" and zero["zero_division"] == 0
    assert default["muc"]["recall"] is None and zero["muc"]["recall"] == 0
    assert default["b3"]["precision"] is None and zero["b3"]["precision"] == 0 and zero["b3"]["f1"] == 0
    assert default["blanc"]["recall"] == 0 and default["blanc"]["precision"] is None
    assert zero["blanc"]["precision"] == 0 and zero["blanc"]["non_coreference"]["recall_den"] == 1
    assert zero["blanc"]["coreference"]["recall_den"] == 0
    assert set(default) == {*METRICS, "zero_division", "documents"}
    assert set(default["documents"][0]) >= set(METRICS)
    lines = {line.split(":")[0].strip(): line for line in score_report(scores).splitlines() if ":" in line}
    assert lines["MUC"].endswith("precision 0 / 0 -%   F -%")
    zero_lines = {
        line.split(":")[0].strip(): line
        for line in score_report(scores, zero_division=0).splitlines()
        if ":" in line
    }
    assert zero_lines["MUC"].endswith("precision 0 / 0 0.0%   F 0.0%")
    assert zero_lines["BLANC"].startswith("BLANC:   recall 0.0%   precision 0.0%   F 0.0%")
    assert zero_lines["non-coreference links"].startswith("  non-coreference links: recall 0 / 1 0.0%")
    assert {"CEAF-m", "LEA", "coreference links"} <= set(zero_lines)


@needs_shared
def test_cli_zero_division_and_new_measures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "scores.json"
    args = ["coref", "--key", str(DATA / "TC-A.key"), "--response", str(DATA / "TC-A-10.response")]
    assert main([*args, "--json", str(out)]) == 0
    default = json.loads(out.read_text())
    assert main([*args, "--json", str(out), "--zero-division", "0"]) == 0
    zero = json.loads(out.read_text())
    printed = capsys.readouterr().out
    # TC-A-10 (TestCases.README): response all singletons. MUC 0 / 0 precision; BLANC recall_c 0/4,
    # prec_c 0/0, recall_n 11/11, prec_n 11/15: BLANC (0.5, 11/30, 11/26) as the reference prints it.
    assert default["zero_division"] == "undefined" and zero["zero_division"] == 0
    assert default["muc"]["precision"] is None and zero["muc"]["precision"] == 0
    assert default["blanc"]["precision"] is None
    # (The JSON gives percentages.)
    assert (zero["blanc"]["recall"], zero["blanc"]["precision"], zero["blanc"]["f1"]) == pytest.approx(
        (50.0, 1100 / 30, 1100 / 26)
    )
    assert zero["ceafm"]["recall"] == pytest.approx(50.0) and zero["lea"]["precision"] == pytest.approx(
        100 / 6
    )
    assert "BLANC:   recall 50.0%   precision 36.7%   F 42.3%" in printed
    assert "BLANC:   recall 50.0%   precision -%   F -%" in printed
