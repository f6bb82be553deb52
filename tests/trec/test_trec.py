"""TREC evaluation (issue 15): trec_eval's input rules, bad input, measures as values, significance.

Expected numbers come from hand calculations written out here, or from trec_eval 10.0's outputs in
``tests/data/trec`` (see its README).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from iescore.pipeline.campaign.run_comparison import compare_runs
from iescore.pipeline.campaign.stats import holm, paired_t_test
from iescore.pipeline.trec import Options, evaluate, parse_measure, parse_measures, read_qrels, read_run
from iescore.pipeline.trec.family import TREC, trec_family, trec_statistics
from iescore.pipeline.trec.report import trec_eval_text
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
GRADED = ROOT / "tests" / "data" / "trec" / "graded"
TREC_EVAL = ROOT / "tests" / "data" / "trec" / "trec_eval"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def values(tmp_path: Path, qrels: str, run: str, *measures: str, **options) -> dict[str, float]:
    evaluation = evaluate(
        read_qrels(write(tmp_path, "qrels", qrels)),
        read_run(write(tmp_path, "run", run)),
        parse_measures(list(measures)),
        Options(**options),
    )
    return {value.name: evaluation.summary[i] for i, value in enumerate(evaluation.values)}


# --- trec_eval's rules, as facts (point 2) ---------------------------------------------------------

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 d 1\n"


def test_ties_broken_by_docno_descending_and_rank_column_ignored(tmp_path: Path) -> None:
    # Scores tie at 1.0 for a, b, c: docno descending puts c, b, a; d (score 2) first whatever its rank
    # column says. Ranking d c b a, relevances 1 2 0 1 -> relstring '1201'.
    run = "1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n1 Q0 c 3 1.0 r\n1 Q0 d 99 2.0 r\n"
    evaluation = evaluate(
        read_qrels(write(tmp_path, "q", QRELS)),
        read_run(write(tmp_path, "r", run)),
        parse_measures(["relstring"]),
    )
    assert evaluation.relstrings[0] == ["1201"]
    # AP by hand: relevant at ranks 1, 2, 4 of 3 relevant: (1/1 + 2/2 + 3/4) / 3 = 0.91666...
    assert values(tmp_path, QRELS, run, "map")["map"] == pytest.approx((1 + 1 + 0.75) / 3)
    shuffled = "1 Q0 d 1 2.0 r\n1 Q0 b 7 1.0 r\n1 Q0 a 3 1.0 r\n1 Q0 c 2 1.0 r\n"
    assert values(tmp_path, QRELS, shuffled, "map") == values(tmp_path, QRELS, run, "map")


def test_run_tag_is_the_last_lines(tmp_path: Path) -> None:
    run = "1 Q0 a 1 1.0 first\n1 Q0 b 2 0.5 last\n"
    evaluation = evaluate(
        read_qrels(write(tmp_path, "q", QRELS)), read_run(write(tmp_path, "r", run)), parse_measures(None)
    )
    assert evaluation.runid == "last"
    assert "runid                 \tall\tlast\n" in trec_eval_text(evaluation)


def test_precision_divides_by_k_and_run_only_queries_are_ignored(tmp_path: Path) -> None:
    # Two documents retrieved, both relevant: P@5 = 2/5, not 2/2. Query 9 has no judgements: ignored,
    # so num_q is 1.
    run = "1 Q0 a 1 2 r\n1 Q0 c 2 1 r\n9 Q0 x 1 1 r\n"
    got = values(tmp_path, QRELS, run, "P.5", "num_q")
    assert got["P_5"] == pytest.approx(2 / 5)
    assert got["num_q"] == 1


def test_query_without_relevant_documents_counts(tmp_path: Path) -> None:
    # Query 2 is judged, nothing relevant: its AP is 0 and it counts in the mean: (1 + 0) / 2.
    qrels = "1 0 a 1\n2 0 z 0\n"
    run = "1 Q0 a 1 1 r\n2 Q0 z 1 1 r\n"
    got = values(tmp_path, qrels, run, "map", "num_q", "recall.5")
    assert got["num_q"] == 2
    assert got["map"] == pytest.approx(0.5)
    assert got["recall_5"] == pytest.approx(0.5)  # trec_eval: recall 0 when nothing is relevant


def test_missing_query_ignored_unless_complete(tmp_path: Path) -> None:
    # Qrels query 2 has a relevant document; the run has no line for it. Without -c: MAP = AP(1) = 1.
    # With -c it counts as 0: MAP = (1 + 0) / 2, num_ret 1 (query 1's), num_rel 2.
    qrels = "1 0 a 1\n2 0 z 1\n"
    run = "1 Q0 a 1 1 r\n"
    assert values(tmp_path, qrels, run, "map")["map"] == pytest.approx(1.0)
    complete = values(tmp_path, qrels, run, "map", "num_ret", "num_rel", complete=True)
    assert complete == {"map": pytest.approx(0.5), "num_ret": 1, "num_rel": 2}


def test_negative_grade_is_pooled_but_unjudged(tmp_path: Path) -> None:
    # b is judged -1: '.' in relstring, not relevant, not counted as nonrelevant; x is not in the qrels: '-'.
    qrels = "1 0 a 1\n1 0 b -1\n"
    run = "1 Q0 b 1 3 r\n1 Q0 x 2 2 r\n1 Q0 a 3 1 r\n"
    evaluation = evaluate(
        read_qrels(write(tmp_path, "q", qrels)),
        read_run(write(tmp_path, "r", run)),
        parse_measures(["relstring", "num_rel", "num_nonrel_judged_ret"]),
    )
    # trec_eval's order: num_rel, relstring, num_nonrel_judged_ret.
    assert evaluation.relstrings[evaluation.value_index("relstring")] == [".-1"]
    assert evaluation.summary[evaluation.value_index("num_rel")] == 1
    assert evaluation.summary[evaluation.value_index("num_nonrel_judged_ret")] == 0


# --- bad input: exit 2 with file:line and what was expected ------------------------------------------


@pytest.mark.parametrize(
    ("qrels", "run", "where", "message"),
    [
        ("1 0 a\n", "1 Q0 a 1 1 r\n", "qrels:1", "3 field(s); expected 4"),
        ("1 0 a 1\n1 0 b x\n", "1 Q0 a 1 1 r\n", "qrels:2", "relevance 'x' is not an integer"),
        ("1 0 a 1.5\n", "1 Q0 a 1 1 r\n", "qrels:1", "relevance '1.5' is not an integer"),
        ("1 0 a 1\n", "1 Q0 a 1 1 r\n1 Q0 b 2\n", "run:2", "4 field(s); expected at least 6"),
        ("1 0 a 1\n", "1 Q0 a 1 high r\n", "run:1", "score 'high' is not a number"),
        ("1 0 a 1\n", "1 Q0 a 1 nan r\n", "run:1", "score 'nan' is not a number"),
        ("1 0 a 1\n", "1 Q0 a 1 1 r\n1 Q0 b 2 1 r\n1 Q0 a 3 0 r\n", "run:3", "document 'a' is listed again"),
        ("1 0 a 1\n1 0 a 0\n", "1 Q0 a 1 1 r\n", "qrels:2", "document 'a' is listed again"),
        ("1 0 a 1\n", "", "run", "empty run"),
        ("1 0 a 1\n", "# only a comment\n\n", "run", "empty run"),
        ("", "1 Q0 a 1 1 r\n", "qrels", "empty qrels"),
    ],
)
def test_bad_input_exits_2_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], qrels: str, run: str, where: str, message: str
) -> None:
    qrels_path, run_path = write(tmp_path, "qrels", qrels), write(tmp_path, "run", run)
    assert main(["trec", str(qrels_path), str(run_path)]) == 2
    error = capsys.readouterr().err
    assert f"{tmp_path / where}" in error
    assert message in error


@pytest.mark.parametrize(
    "measure", ["nosuch", "P.0", "P.5,5", "utility.1,2", "prefs_simp", "P@", "AP(foo=1)", "RR@5", "ndcg.x"]
)
def test_unknown_or_malformed_measure_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], measure: str
) -> None:
    qrels_path, run_path = write(tmp_path, "qrels", QRELS), write(tmp_path, "run", "1 Q0 a 1 1 r\n")
    assert main(["trec", "-m", measure, str(qrels_path), str(run_path)]) == 2
    assert "iescore: -m: " in capsys.readouterr().err


@pytest.mark.parametrize(("option", "value"), [("-M", "-3"), ("-M", "x"), ("-N", "-1"), ("-N", "1.5")])
def test_negative_or_malformed_counts_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    # trec_eval 10.0 crashes (segmentation fault, status 139) on `-M -3`: we refuse it, exit 2.
    qrels_path, run_path = write(tmp_path, "qrels", QRELS), write(tmp_path, "run", "1 Q0 a 1 1 r\n")
    with pytest.raises(SystemExit) as stop:
        main(["trec", option, value, str(qrels_path), str(run_path)])
    assert stop.value.code == 2
    assert (
        f"argument {option}: a whole number from 0 to 9223372036854775807 expected" in capsys.readouterr().err
    )


def test_no_common_query_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels_path, run_path = write(tmp_path, "qrels", QRELS), write(tmp_path, "run", "7 Q0 a 1 1 r\n")
    assert main(["trec", str(qrels_path), str(run_path)]) == 2
    assert "nothing to evaluate" in capsys.readouterr().err


# --- measures as values (ir_measures spelling) -------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "AP",
        "P@10",
        "nDCG@10",
        "nDCG",
        "RR",
        "Bpref",
        "AP(rel=2)",
        "R@100",
        "map",
        "P.5,10",
        "ndcg_cut.10",
        "ndcg.1=3,2=9",
    ],
)
def test_printed_form_parses_back(text: str) -> None:
    measure = parse_measure(text)
    assert str(measure) == text
    assert parse_measure(str(measure)) == measure


def test_nicknames_and_order() -> None:
    official = [str(m) for m in parse_measures(["official"])]
    assert official[:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    # trec_eval's order whatever the order given; the first parameters given win.
    assert [str(m) for m in parse_measures(["P.5", "map", "P.10"])] == ["map", "P.5"]


def test_ir_measures_equal_their_trec_eval_values(capsys: pytest.CaptureFixture[str]) -> None:
    """AP, P@10, nDCG@10, RR, Bpref equal map, P_10, ndcg_cut_10, recip_rank, bpref of trec_eval's own
    output (out.test.aq), and AP(rel=2) equals map under -l2 (out.test.aql, trec_eval -l2)."""
    qrels, run = str(TREC_EVAL / "qrels.test"), str(TREC_EVAL / "results.test")
    main(["trec", "-m", "AP", "-m", "P@10", "-m", "nDCG@10", "-m", "RR", "-m", "Bpref", qrels, run])
    ours = dict(line.split("\t")[0::2] for line in capsys.readouterr().out.splitlines())
    reference = {
        line.split()[0]: line.split()[2]
        for line in (TREC_EVAL / "out.test.aq").read_text().splitlines()
        if line.split()[1] == "all"
    }
    pairs = {"AP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank", "Bpref": "bpref"}
    for ours_name, theirs in pairs.items():
        assert ours[f"{ours_name:<22s}"] == reference[theirs]
    main(["trec", "-m", "AP(rel=2)", str(TREC_EVAL / "qrels.rel_level"), run])
    printed = capsys.readouterr().out
    level2 = [
        line for line in (TREC_EVAL / "out.test.aql").read_text().splitlines() if line.startswith("map ")
    ]
    assert printed.split("\t")[2].strip() == level2[-1].split("\t")[2]


def test_json_writes_every_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    status = main(
        [
            "trec",
            "-q",
            "-m",
            "all_trec",
            "--json",
            str(out),
            str(GRADED / "qrels.txt"),
            str(GRADED / "runA.txt"),
        ]
    )
    assert status == 0
    printed = capsys.readouterr().out
    document = json.loads(out.read_text())
    run = document["runs"]["runA.txt"]
    assert run["runid"] == "runA"
    assert document["signature"].startswith("scorer:trec|l:1|c:0|M:2147483647|J:0|N:0|m:")
    # Every per-query line printed is in the JSON (numbers as printed to 4 decimals).
    for line in printed.splitlines():
        name, qid, value = (part.strip() for part in line.split("\t"))
        if qid == "all":
            if name != "runid":
                assert f"{document['runs']['runA.txt']['all'][name]:.4f}" == f"{float(value):.4f}"
            continue
        got = run["queries"][qid][name]
        if isinstance(got, str):
            assert f"'{got}'" == value
        else:
            assert f"{got:.4f}" == f"{float(value):.4f}"


# --- significance (point 4) -------------------------------------------------------------------------


def test_holm_by_hand() -> None:
    # m = 3 p-values 0.01, 0.04, 0.03: sorted 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> running max
    # 0.03, 0.06, 0.06; back in the given order: 0.03, 0.06, 0.06. None is not counted.
    assert holm([0.01, 0.04, None, 0.03]) == [
        pytest.approx(0.03),
        pytest.approx(0.06),
        None,
        pytest.approx(0.06),
    ]
    assert holm([0.5, 0.9]) == [1.0, 1.0]


def test_paired_t_test_by_hand() -> None:
    # Differences 0.1, 0.2, 0.3, 0.2: mean 0.2, sample sd sqrt(((.1)^2 + 0 + (.1)^2 + 0) / 3) = 0.08165,
    # t = 0.2 / (0.08165 / 2) = 4.899 with 3 degrees of freedom: two-sided p = 0.01628 (t table:
    # 2 * (1 - F_3(4.899))).
    a = np.array([0.5, 0.6, 0.7, 0.4])
    b = a - np.array([0.1, 0.2, 0.3, 0.2])
    assert paired_t_test(a, b) == pytest.approx(0.01628, abs=2e-5)
    assert paired_t_test(a, a) is None


def _graded(*runs: str, complete: bool = False):
    qrels = read_qrels(GRADED / "qrels.txt")
    measures = parse_measures(["map", "P.10"])
    return {
        name: evaluate(qrels, read_run(GRADED / name), measures, Options(complete=complete)) for name in runs
    }


def test_compare_runs_over_common_queries() -> None:
    evaluations = _graded("runA.txt", "runB.txt", "runC.txt")
    comparison = compare_runs(evaluations, "map", resamples=500, seed=7)
    # runB has no q6: compared over the six queries every run answers.
    assert comparison.queries == ("q1", "q10", "q2", "q3", "q4", "q5")
    assert comparison.correction == "Holm"
    assert [(p.a, p.b) for p in comparison.pairs] == [
        ("runA.txt", "runB.txt"),
        ("runA.txt", "runC.txt"),
        ("runB.txt", "runC.txt"),
    ]
    a = evaluations["runA.txt"]
    common = [a.qids.index(q) for q in comparison.queries]
    mean_a = float(np.mean(a.column("map")[common]))
    assert comparison.runs[0].mean == pytest.approx(mean_a)
    assert comparison.runs[0].low <= mean_a <= comparison.runs[0].high
    for pair in comparison.pairs:
        assert 1 / 501 <= pair.randomization_p <= 1 and pair.randomization_p_holm >= pair.randomization_p
        assert pair.t_p_holm >= pair.t_p
    # Seeded: the same seed gives the same p-values.
    assert compare_runs(evaluations, "map", resamples=500, seed=7) == comparison


def test_identical_runs_are_not_different() -> None:
    evaluations = _graded("runA.txt")
    evaluations["copy"] = evaluations["runA.txt"]
    (pair,) = compare_runs(evaluations, "P_10", resamples=200).pairs
    assert pair.delta == 0 and pair.randomization_p == 1.0 and pair.t_p is None


def test_command_compares_runs(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        [
            "trec",
            "-m",
            "map",
            "--resamples",
            "200",
            str(GRADED / "qrels.txt"),
            str(GRADED / "runA.txt"),
            str(GRADED / "runC.txt"),
        ]
    )
    assert status == 0
    out = capsys.readouterr().out
    assert out.count("map                   \tall\t") == 2
    assert "# significance on map over 7 queries" in out and "Holm's correction over 1 comparisons" in out


# --- the family contract ----------------------------------------------------------------------------


def test_family_statistics_mean_over_queries() -> None:
    qrels = read_qrels(GRADED / "qrels.txt")
    from iescore.pipeline.trec.family import CAMPAIGN_REQUEST

    evaluation = evaluate(qrels, read_run(GRADED / "runA.txt"), parse_measures(list(CAMPAIGN_REQUEST)))
    table = trec_statistics(evaluation)
    from iescore.pipeline.core.family import UnitStatistics

    statistics = UnitStatistics.from_table(TREC, {"A": table})
    measures = TREC.measures(statistics.totals())[0]
    # The family's measures of all queries are trec_eval's summary values (map, gm_map, P_10 ...).
    for position, name in enumerate(TREC.measure_names):
        assert measures[position] == pytest.approx(evaluation.summary[evaluation.value_index(name)])
    single = trec_family(["map"])
    assert math.isnan(single.measures(np.zeros(2))[0])  # no query: undefined, not 0


# --- the two readers and the two sorts agree ---------------------------------------------------------


@pytest.mark.parametrize("separator", [" ", "\t", "  ", " \t"])
def test_fast_and_general_readers_agree(tmp_path: Path, separator: str) -> None:
    """Arrow's CSV reader takes plainly regular files (one space or one tab), the byte tokenizer the
    rest; both give trec_eval's output for runA (out.A.aq)."""
    lines = (GRADED / "runA.txt").read_text().splitlines()
    run = write(tmp_path, "run", "".join(separator.join(line.split()) + "\n" for line in lines))
    qrels = write(
        tmp_path,
        "qrels",
        "".join(
            separator.join(line.split()) + "\n" for line in (GRADED / "qrels.txt").read_text().splitlines()
        ),
    )
    evaluation = evaluate(read_qrels(qrels), read_run(run), parse_measures(["all_trec"]))
    assert trec_eval_text(evaluation, per_query=True) == (GRADED / "out.A.aq").read_text()


def test_plus_signed_grade_is_read_as_trec_eval_reads_it(tmp_path: Path) -> None:
    # atol("+1") = 1: relevant.
    got = values(tmp_path, "1 0 a +1\n", "1 Q0 a 1 1 r\n", "num_rel")
    assert got["num_rel"] == 1


def test_packed_sort_and_lexsort_agree() -> None:
    import importlib

    evaluate_module = importlib.import_module("iescore.pipeline.trec.evaluate")
    rng = np.random.default_rng(3)
    queries = rng.integers(0, 50, 5000)
    scores = np.round(rng.normal(size=5000), 1)
    docs = rng.permutation(5000)
    packed = evaluate_module._ranking_order(queries, scores, docs, 5000)
    assert (packed == np.lexsort((-docs, -scores, queries))).all()
    # Too wide for 63 bits: the lexsort path, same order.
    wide = evaluate_module._ranking_order(queries, scores, docs, 2**60)
    assert (wide == packed).all()


def test_grade_out_of_range_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels_path = write(tmp_path, "qrels", "1 0 a 1\n1 0 b -99999999999999999999\n")
    run_path = write(tmp_path, "run", "1 Q0 a 1 1 r\n")
    assert main(["trec", str(qrels_path), str(run_path)]) == 2
    assert f"{qrels_path}:2: relevance '-99999999999999999999' is out of range" in capsys.readouterr().err


# --- several runs: a heading each, and the comparison's queries said (issue 25, point 3) ------------


def test_several_runs_each_under_its_heading(capsys: pytest.CaptureFixture[str]) -> None:
    # Each block is trec_eval 10.0's own output for that run (out.A.aq, out.C.aq), under "# run NAME";
    # a single run prints trec_eval's bytes alone (test_trec_eval_equality).
    argv = ["trec", "-q", "-m", "all_trec", "--resamples", "100", str(GRADED / "qrels.txt"),
            str(GRADED / "runA.txt"), str(GRADED / "runC.txt")]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    # The heading gives the name the comparison uses, then the path when it is another.
    blocks = f"# run runA.txt: {GRADED / 'runA.txt'}\n" + (GRADED / "out.A.aq").read_text()
    blocks += f"\n# run runC.txt: {GRADED / 'runC.txt'}\n" + (GRADED / "out.C.aq").read_text() + "\n"
    assert out.startswith(blocks)
    # Both runs answer the same 7 queries: the comparison's map is the map printed above; no note.
    assert out[len(blocks) :].startswith("# significance on map over 7 queries")


def test_comparison_over_fewer_queries_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["trec", "-q", "--resamples", "100", str(GRADED / "qrels.txt"), str(GRADED / "runA.txt"),
            str(GRADED / "runB.txt")]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    # runB has no line for q6: runA's map above (0.1253, trec_eval's out.A.aq) is over 7 queries, the
    # comparison's over the 6 both answer: the mean of trec_eval's per-query maps of runA without q6.
    assert "map                   \tall\t0.1253\n" in out
    note = (
        "# map below is over the 6 queries every run answers; the map printed above is over each run's "
        "own queries for runA.txt (7 queries)\n# significance on map over 6 queries"
    )
    assert note in out
    per_query = [
        line.split("\t")
        for line in (GRADED / "out.A.aq").read_text().splitlines()
        if line.startswith("map ") and "\tall\t" not in line
    ]
    common = [float(value) for _, qid, value in per_query if qid != "q6"]
    assert len(common) == 6
    shown = next(line for line in out.splitlines() if line.startswith("runA.txt "))
    assert float(shown.split("\t")[1]) == pytest.approx(sum(common) / 6, abs=1e-4)
    assert shown.split("\t")[1].strip() != "0.1253"
