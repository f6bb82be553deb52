"""Coreference scoring (issue 5): readers, every measure against the reference scorers, reports, CLI."""

from __future__ import annotations

import ast
import itertools
import json
import operator
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.coref import (
    METRICS,
    align_documents,
    mention_table,
    partitions_report,
    rates,
    read_aligned,
    read_conll,
    read_muc_sgml,
    read_pair,
    score_batch,
    score_documents,
    score_report,
    summary_report,
)
from iescore.tasks.cli.main import main
from oracle_chains import agreed_counts, assert_same, batch_of, max_weight_assignment, score_chains

SHARED = Path(__file__).resolve().parents[3] / "shared"
COREF = SHARED / "external" / "coref"
EXPECTED = json.loads((COREF / "expected.json").read_text()) if COREF.is_dir() else {}
OUR_NAMES = {"muc": "muc", "b_cubed": "b3", "ceaf_e": "ceafe", "ceaf_m": "ceafm", "blanc": "blanc"}

needs_shared = pytest.mark.skipif(
    not COREF.is_dir(), reason="../shared/external/coref is not beside the checkout"
)


# --- expected.json: the CoNLL reference scorer's own test cases ----------------------------------------

_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def exact(value: int | float | str) -> Fraction:
    """An expected value of expected.json: a number or arithmetic over numbers (+ - * / and brackets)."""

    def walk(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return Fraction(str(node.value))
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        raise ValueError(f"not plain arithmetic: {ast.dump(node)}")

    return walk(ast.parse(str(value), mode="eval"))


def test_exact_evaluates_arithmetic_only() -> None:
    assert exact("2*(2/3)*(2/2)/(2/3+2/2)") == Fraction(4, 5)
    assert exact("1/2 * (1/4 + 1/3)") == Fraction(7, 24)
    assert exact(0.72) == Fraction(18, 25)
    with pytest.raises(ValueError):
        exact("__import__('os')")


@needs_shared
@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_reference_scorer_cases(case: str) -> None:
    # Every measure expected.json gives for the case. The reference scorer prints 0 for a ratio whose
    # denominator is 0 (and computes F from those zeros): zero_division=0 is that convention.
    spec = EXPECTED[case]
    _, aligned = read_aligned(COREF / spec["key_file"], COREF / spec["response_file"], "conll")
    totals = score_documents(aligned, metrics=METRICS).totals
    assert set(spec["expected_metrics"]) <= set(OUR_NAMES), case
    for their_name, values in spec["expected_metrics"].items():
        ours = OUR_NAMES[their_name]
        recall, precision, f1 = (float(exact(v)) for v in values)
        our_recall, our_precision, our_f1 = rates(totals[ours], zero_division=0)
        assert our_recall == pytest.approx(recall, abs=1e-4), (case, ours, "recall")
        assert our_precision == pytest.approx(precision, abs=1e-4), (case, ours, "P")
        assert our_f1 == pytest.approx(f1, abs=1e-4), (case, ours, "F1")


@needs_shared
def test_every_case_and_measure_is_covered() -> None:
    # 36 cases; 28 give MUC, and the 8 others give BLANC only: every (case, measure) pair is checked.
    assert len(EXPECTED) == 36
    assert sum("muc" in spec["expected_metrics"] for spec in EXPECTED.values()) == 28
    assert sum("blanc" in spec["expected_metrics"] for spec in EXPECTED.values()) == 27
    assert sum("ceaf_m" in spec["expected_metrics"] for spec in EXPECTED.values()) == 10
    assert {name for spec in EXPECTED.values() for name in spec["expected_metrics"]} == set(OUR_NAMES)


@needs_shared
def test_conll_reader_follows_the_reference_brackets() -> None:
    # TC-A-5: "(1" "(1" "1)" "1)" on b1..b4 nest: (b2..b3) closes first, then (b1..b4).
    # TC-A-9: b1..b4 is in chain 1 once and in chain 3 ten times; the first chain to appear keeps it.
    docs = read_conll(COREF / "datafiles" / "TC-A-5.response", response=True)
    (doc,) = docs.values()
    extents = {(m.start, m.end, m.chain) for m in doc.mentions}
    assert {(3, 7, 1), (4, 6, 1)} <= extents
    written = read_conll(COREF / "datafiles" / "TC-A-9.response", response=True)["(LuoTestCase);"]
    assert sum((m.start, m.end) == (3, 7) for m in written.mentions) == 11  # read as written
    paired, _ = read_aligned(COREF / "datafiles" / "TC-A.key", COREF / "datafiles" / "TC-A-9.response")
    nine = paired.response["(LuoTestCase);"]  # b1..b4 is a key mention: its repeats go
    assert nine.duplicates == 10 and not paired.notices
    assert [(m.start, m.end) for m in nine.mentions if m.chain == 1] == [(3, 7), (9, 10), (10, 11)]
    assert [m.text for m in nine.mentions if m.chain == 2] == ["z"]


# --- the definitions on small hand-worked cases ---------------------------------------------------------


def test_vilain_examples() -> None:
    # Vilain et al. (1995), MUC-6: key {A B C D}, response {A B} {C D}: the key chain is cut into 2
    # cells, recall (4 - 2) / (4 - 1) = 2/3; each response chain lies in one key chain, precision 1.
    muc = agreed_counts([["A", "B", "C", "D"]], [["A", "B"], ["C", "D"]])["muc"]
    assert (muc.recall_num, muc.recall_den, muc.precision_num, muc.precision_den) == (2, 3, 2, 2)
    # key {A B C}, response {A C}: B is missing, a singleton cell: recall (3 - 2) / 2, precision 1/1.
    muc = agreed_counts([["A", "B", "C"]], [["A", "C"]])["muc"]
    assert (muc.recall, muc.precision) == (0.5, 1.0)


def test_b3_and_ceafe_by_hand() -> None:
    # key {a b} {c}, response {a b c}:
    # B3 recall: a 2/2, b 2/2, c 1/1 -> 3/3; precision: a, b 2/3, c 1/3 -> (5/3) / 3.
    # CEAF-e: phi({a b}, {a b c}) = 4/5, phi({c}, {a b c}) = 2/4; best 4/5: recall 4/5 / 2, precision 4/5.
    scores = agreed_counts([["a", "b"], ["c"]], [["a", "b", "c"]])
    assert scores["b3"].recall_num == 3 and scores["b3"].precision_num == Fraction(5, 3)
    assert scores["ceafe"].recall_num == Fraction(4, 5)
    assert (scores["ceafe"].recall_den, scores["ceafe"].precision_den) == (2, 1)


def test_undefined_ratios_are_none() -> None:
    # all singletons: no links in either side, MUC recall and precision 0/0
    muc = agreed_counts([["a"], ["b"]], [["a"], ["b"]])["muc"]
    assert muc.recall is None and muc.precision is None and muc.f1 is None
    assert agreed_counts([["a", "b"]], [["a"], ["b"]])["muc"].f1 is None


def brute_force_assignment(weights: list[list[Fraction]]) -> Fraction:
    rows, cols = len(weights), len(weights[0]) if weights else 0
    if rows == 0 or cols == 0:
        return Fraction(0)
    if rows <= cols:
        return max(
            sum(weights[i][c] for i, c in enumerate(p)) for p in itertools.permutations(range(cols), rows)
        )
    return max(sum(weights[r][j] for j, r in enumerate(p)) for p in itertools.permutations(range(rows), cols))


@pytest.mark.parametrize("shape", [(1, 1), (1, 4), (4, 1), (2, 5), (5, 2), (3, 3), (4, 6), (6, 4), (5, 5)])
def test_assignment_is_optimal_on_rectangular_matrices(shape: tuple[int, int]) -> None:
    rng = random.Random(hash(shape) % 1000)
    for _ in range(30):
        weights = [
            [Fraction(rng.randint(0, 6), rng.randint(1, 4)) for _ in range(shape[1])] for _ in range(shape[0])
        ]
        pairs = max_weight_assignment(weights)
        assert len(pairs) == min(shape)
        assert len({i for i, _ in pairs}) == len({j for _, j in pairs}) == min(shape)
        assert sum(weights[i][j] for i, j in pairs) == brute_force_assignment(weights)


def test_assignment_known_case() -> None:
    # greedy would take 10 and then 1; the optimum is 9 + 8.
    assert max_weight_assignment([[10, 9], [8, 1]]) == [(0, 1), (1, 0)]


# --- the vectorised batch path equals the per-document definitions (oracle_chains) ---------------------


def random_document(rng: random.Random, mentions: int) -> tuple[list[list[int]], list[list[int]]]:
    """A key partition and a response: mentions moved, merged, split, dropped and invented."""
    key_chain = [rng.randrange(max(1, mentions // 3)) for _ in range(mentions)]
    response_chain = []
    for chain in key_chain:
        roll = rng.random()
        if roll < 0.15:
            response_chain.append(None)  # dropped
        elif roll < 0.35:
            response_chain.append(rng.randrange(mentions))  # moved
        else:
            response_chain.append(chain * 2 + (rng.random() < 0.2))  # kept, sometimes split
    invented = [rng.randrange(max(mentions, 1)) for _ in range(rng.randrange(3))]
    key = _group(range(mentions), key_chain)
    response = _group(
        list(range(mentions)) + [mentions + i for i in range(len(invented))], response_chain + invented
    )
    return key, response


def _group(mentions: object, chains: list) -> list[list[int]]:
    groups: dict[int, list[int]] = {}
    for mention, chain in zip(mentions, chains, strict=True):  # type: ignore[call-overload]
        if chain is not None:
            groups.setdefault(chain, []).append(mention)
    return list(groups.values())


def test_batch_equals_simple_path_on_random_documents() -> None:
    rng = random.Random(5)
    documents = [random_document(rng, rng.randint(0, 40)) for _ in range(200)]
    batch = batch_of(documents)
    for number, (key, response) in enumerate(documents):
        assert_same(batch.document(number), score_chains(key, response))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(st.integers(-1, 4), min_size=0, max_size=12), st.integers(0, 2**16)),
        min_size=1,
        max_size=5,
    )
)
def test_batch_equals_simple_path_property(spec: list[tuple[list[int], int]]) -> None:
    documents = []
    for response_chains, seed in spec:
        rng = random.Random(seed)
        key_chains = [rng.choice([-1, 0, 1, 2, 3]) for _ in response_chains]
        documents.append(
            (
                _group(range(len(key_chains)), [c if c >= 0 else None for c in key_chains]),
                _group(range(len(response_chains)), [c if c >= 0 else None for c in response_chains]),
            )
        )
    batch = batch_of(documents)
    for number, (key, response) in enumerate(documents):
        simple = score_chains(key, response)
        assert_same(batch.document(number), simple)
        similarity = [[Fraction(2 * len(set(k) & set(r)), len(k) + len(r)) for r in response] for k in key]
        assert simple["ceafe"].recall_num == brute_force_assignment(similarity)
        common = [[Fraction(len(set(k) & set(r))) for r in response] for k in key]
        assert simple["ceafm"].recall_num == brute_force_assignment(common)


def test_batch_rows_in_any_order() -> None:
    rng = np.random.default_rng(3)
    doc = np.repeat(np.arange(50), 30)
    key_chain = rng.integers(-1, 8, doc.size)
    response_chain = np.where(key_chain < 0, rng.integers(0, 8, doc.size), rng.integers(-1, 8, doc.size))
    order = rng.permutation(doc.size)
    a = score_batch(doc, key_chain, response_chain, docs=50, metrics=METRICS)
    b = score_batch(doc[order], key_chain[order], response_chain[order], docs=50, metrics=METRICS)
    for metric in a.arrays:
        for x, y in zip(a.arrays[metric], b.arrays[metric], strict=True):
            np.testing.assert_allclose(x, y)


# --- MUC SGML ---------------------------------------------------------------------------------------------

KEY_SGML = """\
<DOC>
<DOCNO> V1 </DOCNO>
<TEXT>
<COREF ID="1">A</COREF> <COREF ID="2" REF="1">B</COREF> \
<COREF ID="3" REF="2">C</COREF> <COREF ID="4" REF="3">D</COREF>
</TEXT>
</DOC>
<DOC>
<DOCNO> V2 </DOCNO>
<TEXT>
<COREF ID="1" MIN="Washington">Consuela Washington</COREF> met <COREF ID="2">Dingell</COREF>.
<COREF ID="3" REF="1">She</COREF> told <COREF ID="4" REF="2">him</COREF> that \
<COREF ID="5" REF="3">she</COREF>
would leave <COREF ID="6" REF="5" STATUS="OPT">her post</COREF> and <COREF ID="7" REF="4" \
MIN="Dingell">the <COREF ID="8">Michigan</COREF> Democrat Dingell</COREF> agreed.
</TEXT>
</DOC>
"""

RESPONSE_SGML = """\
<DOC>
<DOCNO> V1 </DOCNO>
<TEXT>
<COREF ID="a">A</COREF> <COREF ID="b" REF="a">B</COREF> \
<COREF ID="c">C</COREF> <COREF ID="d" REF="c">D</COREF>
</TEXT>
</DOC>
<DOC>
<DOCNO> V2 </DOCNO>
<TEXT>
<COREF ID="10">Consuela <COREF ID="11" REF="10">Washington</COREF></COREF> met <COREF ID="12">Dingell</COREF>.
<COREF ID="13" REF="12">She</COREF> told <COREF ID="14" REF="12">him</COREF> that she
would leave her post and the Michigan Democrat <COREF ID="15" REF="14">Dingell</COREF> agreed.
</TEXT>
</DOC>
"""


@pytest.fixture
def sgml_pair(tmp_path: Path) -> tuple[Path, Path]:
    key, response = tmp_path / "key.sgml", tmp_path / "rsp.sgml"
    key.write_text(KEY_SGML)
    response.write_text(RESPONSE_SGML)
    return key, response


def test_sgml_reader_positions_and_chains(sgml_pair: tuple[Path, Path]) -> None:
    key = read_muc_sgml(sgml_pair[0])
    v1 = key["V1"]
    # "<DOC>\n<DOCNO> V1 </DOCNO>\n<TEXT>\n" is 33 characters; A is the 34th (offset 33).
    assert [(m.start, m.end, m.text) for m in v1.mentions][:2] == [(33, 34, "A"), (35, 36, "B")]
    assert {m.chain for m in v1.mentions} == {0} and v1.chains == 1
    v2 = key["V2"]
    nested = [m for m in v2.mentions if m.ident in ("7", "8")]
    assert [m.text for m in nested] == ["the Michigan Democrat Dingell", "Michigan"]
    assert nested[0].start < nested[1].start < nested[1].end < nested[0].end
    assert v2.chains == 3
    assert [m.ident for m in v2.mentions if m.optional] == ["6"]


def test_sgml_scores_by_hand(sgml_pair: tuple[Path, Path]) -> None:
    key, response = read_pair(*sgml_pair, fmt="sgml")
    scores = score_documents(align_documents(key, response))
    v1, v2 = (d.scores["muc"] for d in scores.documents)
    # V1: Vilain's example, key {A B C D}, response {A B} {C D}: recall 2/3, precision 2/2.
    assert (v1.recall_num, v1.recall_den, v1.precision_num, v1.precision_den) == (2, 3, 2, 2)
    # V2, exact extents. Key chains: K1 {Consuela Washington, She, she} (her post: optional, unmatched,
    # left out), K2 {Dingell, him, the Michigan Democrat Dingell}, K3 {Michigan}.
    # Response: R1 {Consuela Washington, Washington}, R2 {Dingell, She, him, Dingell(2nd)}.
    # Recall: K1 cut into {CW} {She} {she} -> 3 - 3 = 0; K2 into {Dingell him} {tMDD} -> 3 - 2 = 1;
    #   K3 0; denominator 2 + 2 + 0 = 4 -> 1/4.
    # Precision: R1 into {CW} {Washington} -> 0; R2 into {Dingell him} {She} {Dingell 2nd} -> 4 - 3 = 1;
    #   denominator 1 + 3 = 4 -> 1/4.
    assert (v2.recall_num, v2.recall_den, v2.precision_num, v2.precision_den) == (1, 4, 1, 4)
    assert [d.key_classes for d in scores.documents] == [1, 3]
    assert [d.response_classes for d in scores.documents] == [2, 2]
    total = scores.totals["muc"]
    assert (total.recall_num, total.recall_den, total.precision_num, total.precision_den) == (3, 7, 3, 6)
    # B3 recall of V2 by hand: K1 CW 1/3, She 1/3, she 0; K2 Dingell 2/3, him 2/3, tMDD 0; K3 0 -> 2 of 7.
    b3 = scores.documents[1].scores["b3"]
    assert b3.recall_num == pytest.approx(2.0) and b3.recall_den == 7


def test_sgml_min_matching(sgml_pair: tuple[Path, Path]) -> None:
    key, response = read_pair(*sgml_pair, fmt="sgml")
    aligned = align_documents(key, response, match="min")
    v2 = score_documents(aligned).documents[1].scores["muc"]
    # "Dingell" (second) lies inside "the Michigan Democrat Dingell" and holds its MIN: K2 now keeps
    # {Dingell him tMDD} in one cell (3 - 1 = 2), recall 2/4; R2 {Dingell She him Dingell} is cut into
    # {Dingell him Dingell} {She}: 4 - 2 = 2, precision 2/4. "Washington" does not match: CW is
    # matched exactly already.
    assert (v2.recall_num, v2.precision_num) == (2, 2)


def test_summary_and_partitions(sgml_pair: tuple[Path, Path]) -> None:
    key, response = read_pair(*sgml_pair, fmt="sgml")
    aligned = align_documents(key, response)
    summary = summary_report(aligned).splitlines()
    v2 = summary[summary.index("Document V2") + 1 :]
    assert v2[:4] == [
        'COR "Consuela Washington" "Consuela Washington"',
        'COR "Dingell" "Dingell"',
        'COR "She" "She"',
        'COR "him" "him"',
    ]
    assert 'MIS "she" ""' in v2 and 'SPU "" "Washington"' in v2 and 'OPT "her post" ""' in v2
    assert v2.index('MIS "she" ""') < v2.index('SPU "" "Washington"') < v2.index('OPT "her post" ""')
    partitions = partitions_report(aligned)
    block = partitions.split("Document V2\n")[1]
    first_key_class = block.split("*" * 52 + "\n")[1]
    # C lines hold start, last character (inclusive), ID, REF, the response's ID, the text.
    assert first_key_class.splitlines()[0].startswith("C ") and first_key_class.splitlines()[0].endswith(
        ' 1 NULL 10 "Consuela Washington"'
    )
    start, last = map(int, first_key_class.splitlines()[0].split()[1:3])
    assert last - start + 1 == len("Consuela Washington")
    assert "O " in first_key_class and "=" * 52 in block and "S " in block


def test_score_report_layout(sgml_pair: tuple[Path, Path]) -> None:
    key, response = read_pair(*sgml_pair, fmt="sgml")
    report = score_report(score_documents(align_documents(key, response)))
    rows = {line.split()[0]: line.split() for line in report.splitlines() if line.strip()}
    assert rows["V1"][1:] == ["1", "2", "2", "/", "3", "66.7", "2", "/", "2", "100.0", "80.0"]
    assert rows["TOTALS:"][1:] == ["4", "4", "3", "/", "7", "42.9%", "3", "/", "6", "50.0%", "46.2%"]


def test_mention_table_columns(sgml_pair: tuple[Path, Path]) -> None:
    key, response = read_pair(*sgml_pair, fmt="sgml")
    table = mention_table(align_documents(key, response))
    assert list(table.columns) == [
        "doc_id",
        "doc",
        "key_mention",
        "response_mention",
        "key_chain",
        "response_chain",
        "start",
        "end",
        "status",
        "scored",
        "key_text",
        "response_text",
    ]
    assert table["status"].value_counts().to_dict() == {"COR": 8, "MIS": 3, "SPU": 2, "OPT": 1}


BAD_SGML = [
    ("unclosed", '<DOC>\n<DOCNO> X </DOCNO>\n<COREF ID="1">a\n</DOC>\n', 3, "not closed"),
    ("stray close", "<DOC>\n<DOCNO> X </DOCNO>\na</COREF>\n</DOC>\n", 3, "without an open"),
    ("overlap", '<DOC>\n<DOCNO> X </DOCNO>\n<S><COREF ID="1">a</S>\nb</COREF>\n</DOC>\n', 3, "overlapping"),
    (
        "missing ref",
        '<DOC>\n<DOCNO> X </DOCNO>\n<COREF ID="1">a</COREF>\n<COREF ID="2" REF="9">b</COREF>\n</DOC>\n',
        4,
        "REF '9'",
    ),
    (
        "duplicate id",
        '<DOC>\n<DOCNO> X </DOCNO>\n<COREF ID="1">a</COREF>\n<COREF ID="1">b</COREF>\n</DOC>\n',
        4,
        "used twice",
    ),
    ("no docno", '<DOC>\n<COREF ID="1">a</COREF>\n</DOC>\n', 1, "DOCNO"),
    ("outside", '<COREF ID="1">a</COREF>\n<DOC>\n<DOCNO> X </DOCNO>\n</DOC>\n', 1, "outside"),
    # STATUS="OPT" is the one status of a COREF (MUC-7 task definition); any other value was ignored,
    # so the mention was silently required.
    (
        "unknown status",
        '<DOC>\n<DOCNO> X </DOCNO>\n<COREF ID="1" STATUS="OPTIONAL">a</COREF>\n</DOC>\n',
        3,
        'STATUS="OPT"',
    ),
]


@pytest.mark.parametrize(("name", "text", "line", "words"), BAD_SGML, ids=[b[0] for b in BAD_SGML])
def test_bad_sgml(tmp_path: Path, name: str, text: str, line: int, words: str) -> None:
    path = tmp_path / "bad.sgml"
    path.write_text(text)
    with pytest.raises(InputError) as error:
        read_muc_sgml(path)
    assert (error.value.file, error.value.line) == (str(path), line)
    assert words in error.value.message


def test_response_text_must_equal_key_text(tmp_path: Path, sgml_pair: tuple[Path, Path]) -> None:
    changed = tmp_path / "changed.sgml"
    changed.write_text(RESPONSE_SGML.replace("would leave her", "would quit her"))
    with pytest.raises(InputError) as error:
        read_pair(sgml_pair[0], changed, fmt="sgml")
    # "would leave" is line 12 of both files; the first differing character ("l" of leave) is on it.
    assert (error.value.file, error.value.line) == (str(changed), 12)
    assert f"{sgml_pair[0]}:12" in error.value.message and "'leave her" in error.value.message


BAD_CONLL = [
    ("close without open", "#begin document (d); part 0\nd 0 0 w 1)\n#end document\n", 2, "not opened"),
    (
        "never closed",
        "#begin document (d); part 0\nd 0 0 w (1\nd 0 1 w -\n#end document\n",
        2,
        "never closed",
    ),
    ("garbage", "#begin document (d); part 0\nd 0 0 w (x)\n#end document\n", 2, "coreference column"),
    ("no end", "#begin document (d); part 0\nd 0 0 w (1)\n", 1, "no #end document"),
    (
        "key duplicate",
        "#begin document (d); part 0\nd 0 0 w -\nd 0 1 w (1)|(2)\n#end document\n",
        3,
        "two mentions",
    ),
]


@pytest.mark.parametrize(("name", "text", "line", "words"), BAD_CONLL, ids=[b[0] for b in BAD_CONLL])
def test_bad_conll(tmp_path: Path, name: str, text: str, line: int, words: str) -> None:
    path = tmp_path / "bad.conll"
    path.write_text(text)
    with pytest.raises(InputError) as error:
        read_conll(path)
    assert (error.value.file, error.value.line) == (str(path), line)
    assert words in error.value.message


# --- the command line -------------------------------------------------------------------------------------


@needs_shared
def test_cli_conll_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = COREF / "datafiles"
    out = tmp_path / "scores.json"
    status = main(
        [
            "coref",
            "--key",
            str(data / "TC-A.key"),
            "--response",
            str(data / "TC-A-4.response"),
            "--json",
            str(out),
            "--partitions",
            str(tmp_path / "p.txt"),
            "--summary",
            str(tmp_path / "s.txt"),
        ]
    )
    printed = capsys.readouterr().out
    assert status == 0
    assert "TOTALS:" in printed and "1 / 3" in printed
    scores = json.loads(out.read_text())
    # TC-A-4 (TestCases.README): MUC recall 1/3, precision 1/3; B3 recall 5/9, precision 17/42 (the JSON
    # gives percentages, as the report prints them).
    assert scores["muc"]["recall"] == pytest.approx(100 / 3) and scores["muc"]["precision"] == pytest.approx(
        100 / 3
    )
    assert scores["b3"]["recall"] == pytest.approx(500 / 9) and scores["b3"]["precision"] == pytest.approx(
        1700 / 42
    )
    assert scores["ceafe"]["f1"] == pytest.approx(100 * float(exact("2*(2.2/3)*(2.2/4)/(2.2/3+2.2/4)")))
    assert [d["id"] for d in scores["documents"]] == ["(LuoTestCase);"]
    assert set(scores["documents"][0]) >= {"id", "muc", "b3", "ceafe"}
    assert (tmp_path / "p.txt").read_text().startswith("Document (LuoTestCase);\n" + "*" * 52)
    assert 'SPU "" "x"' in (tmp_path / "s.txt").read_text()


def test_cli_sgml_and_null_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key, response = tmp_path / "k.sgml", tmp_path / "r.sgml"
    key.write_text('<DOC>\n<DOCNO> S </DOCNO>\n<COREF ID="1">a</COREF> <COREF ID="2">b</COREF>\n</DOC>\n')
    response.write_text("<DOC>\n<DOCNO> S </DOCNO>\na b\n</DOC>\n")
    out = tmp_path / "s.json"
    assert (
        main(["coref", "-f", "sgml", "--key", str(key), "--response", str(response), "--json", str(out)]) == 0
    )
    scores = json.loads(out.read_text())
    # two key singletons, no response: MUC 0/0 both ways (undefined); B3 recall 0/2, precision 0/0.
    assert scores["muc"]["recall"] is None and scores["muc"]["f1"] is None
    assert scores["b3"]["recall"] == 0 and scores["b3"]["precision"] is None
    capsys.readouterr()


def test_cli_bad_input_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key, response = tmp_path / "k.sgml", tmp_path / "r.sgml"
    key.write_text('<DOC>\n<DOCNO> S </DOCNO>\n<COREF ID="1">a</COREF>\n</DOC>\n')
    response.write_text('<DOC>\n<DOCNO> S </DOCNO>\n<COREF ID="1" REF="7">a</COREF>\n</DOC>\n')
    status = main(["coref", "-f", "sgml", "--key", str(key), "--response", str(response)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(f"iescore: {response}:3: ") and "REF '7'" in err
    assert main(["coref", "--key", str(tmp_path / "none"), "--response", str(response)]) == 2
    assert f"{tmp_path / 'none'}: file not found (--key)" in capsys.readouterr().err


def test_cli_response_document_not_in_key_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key, response = tmp_path / "k.conll", tmp_path / "r.conll"
    key.write_text("#begin document (a); part 0\na 0 0 w (1)\n#end document\n")
    response.write_text(
        "#begin document (a); part 0\na 0 0 w (1)\n#end document\n#begin document (b); part 0\nb 0 0 w -\n"
        "#end document\n"
    )
    assert main(["coref", "--key", str(key), "--response", str(response), "--strict"]) == 2
    assert f"{response}:4: document '(b); part 0' is not in the key" in capsys.readouterr().err
