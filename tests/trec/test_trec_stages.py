"""The TREC stages and ``scorer = "trec"`` campaigns (issue 15, point 5).

Expected values are trec_eval 10.0's outputs in ``tests/data/trec/graded`` (see the README there).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import luigi
import pytest
from iescore.pipeline.campaign.engine import read_campaign
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.trec.family import CAMPAIGN_REQUEST
from iescore.pipeline.trec.report import text_of_table
from iescore.tasks.cli.main import main
from iescore.tasks.core import store as artifacts
from iescore.tasks.core.base import task_for
from iescore.tasks.trec.stages import campaign_run_spec, evaluate_spec, report_spec, statistics_spec
from significance_file import json_pairs

ROOT = Path(__file__).resolve().parents[2]
GRADED = ROOT / "tests" / "data" / "trec" / "graded"
OPTIONS = {"level": 1, "complete": False, "max_docs": 2147483647, "judged_only": False, "num_docs": 0}


def _build(tasks: list, expect_success: bool = True) -> luigi.execution_summary.LuigiRunResult:
    result = luigi.build(tasks, local_scheduler=True, detailed_summary=True, log_level="WARNING")
    assert (result.status == luigi.execution_summary.LuigiStatusCode.SUCCESS) == expect_success
    return result


def test_evaluate_run_is_trec_eval_q_output(tmp_path: Path) -> None:
    spec = evaluate_spec(GRADED / "qrels.txt", GRADED / "runA.txt", OPTIONS, measures=("all_trec",))
    evaluate = task_for(spec, str(tmp_path / "store"))
    report = task_for(report_spec(spec), str(tmp_path / "store"))
    _build([report])
    assert evaluate.complete()
    evaluation = artifacts.read_table(evaluate.output()["evaluation"])
    expected = (GRADED / "out.A.aq").read_text()
    # One row per printed value: the -q output, byte for byte, and the summary in the Report.
    assert text_of_table(evaluation, per_query=True) == expected
    summary = artifacts.read_table(report.output()["report"])
    assert text_of_table(summary) == "".join(line for line in expected.splitlines(True) if "\tall\t" in line)
    assert summary.num_rows == expected.count("\tall\t")
    # Statistics: one unit a query, each query its own category (the heat map's rows).
    stats = task_for(
        campaign_run_spec(GRADED / "qrels.txt", GRADED / "runA.txt", OPTIONS, {}), str(tmp_path / "store")
    )
    _build([stats])
    statistics = artifacts.read_table(stats.output()["statistics"])
    assert set(statistics.column("unit").to_pylist()) == {"q1", "q10", "q2", "q3", "q4", "q5", "q6"}
    assert statistics.column("unit").to_pylist() == statistics.column("category").to_pylist()


def test_the_qrels_stage_is_shared_and_nothing_reruns(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    a = task_for(
        statistics_spec(evaluate_spec(GRADED / "qrels.txt", GRADED / "runA.txt", OPTIONS, CAMPAIGN_REQUEST)),
        store,
    )
    b = task_for(
        statistics_spec(evaluate_spec(GRADED / "qrels.txt", GRADED / "runB.txt", OPTIONS, CAMPAIGN_REQUEST)),
        store,
    )
    evaluations = [task.requires()["evaluation"] for task in (a, b)]
    assert evaluations[0].requires()["qrels"].key == evaluations[1].requires()["qrels"].key
    _build([a, b])
    # One IngestQrels, two IngestRun, two EvaluateRun and two TrecStatistics: 7 artifacts.
    assert len(list((tmp_path / "store").rglob("*.parquet"))) == 7
    again = task_for(
        evaluate_spec(GRADED / "qrels.txt", GRADED / "runA.txt", OPTIONS, CAMPAIGN_REQUEST), store
    )
    assert again.complete()


def test_bad_run_fails_the_stage_with_file_and_line(tmp_path: Path) -> None:
    run = tmp_path / "bad.txt"
    run.write_text("q1 Q0 D001 1 1.0 r\nq1 Q0 D002 2 x r\n")
    task = task_for(evaluate_spec(GRADED / "qrels.txt", run, OPTIONS, ["map"]), str(tmp_path / "store"))
    _build([task], expect_success=False)
    assert not task.complete()


@pytest.fixture
def campaign_dir(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "data" / "trec-sample", tmp_path / "trec-sample")
    shutil.copy(ROOT / "data" / "trec-campaign.toml", tmp_path / "trec-campaign.toml")
    return tmp_path


def test_trec_campaign_ranks_runs_by_map(campaign_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir, page = campaign_dir / "out", campaign_dir / "page.html"
    campaign = str(campaign_dir / "trec-campaign.toml")
    status = main(["campaign", campaign, "--out", str(out_dir), "--html", str(page)])
    printed, err = capsys.readouterr()
    assert status == 0, err
    board = json.loads((out_dir / "leaderboard.json").read_text())
    rows = {row["system"]: row for row in board["leaderboard"]}
    # MAP as trec_eval prints it: runA 0.1253 (out.A.aq), runB without q6 0.1304 (out.B.without-q6:
    # trec_eval on the qrels without the query runB does not answer), runC 0.1245 (out.C.aq).
    assert round(rows["teamA_run1"]["map"], 4) == 0.1253
    assert round(rows["teamA_run2"]["map"], 4) == 0.1304
    assert round(rows["teamB_run1"]["map"], 4) == 0.1245
    assert [row["system"] for row in sorted(board["leaderboard"], key=lambda r: r["rank"])] == [
        "teamA_run2",
        "teamA_run1",
        "teamB_run1",
    ]
    assert rows["teamA_run1"]["baseline"] is True and rows["teamA_run2"]["baseline"] is False
    assert "ranked by MAP" in printed
    for row in rows.values():
        assert row["map_low"] <= row["map"] <= row["map_high"]
    assert len(json_pairs(out_dir / "leaderboard.json")) == 3
    # Each run's folder has trec_eval's output for it.
    index = (out_dir / "systems" / "index.csv").read_text().splitlines()
    folders = {line.split(",")[0]: out_dir / line.split(",")[-1] for line in index[1:]}
    # Every line it prints is trec_eval's (out.A.aq measures all_trec, a superset of the campaign's).
    reference = set((GRADED / "out.A.aq").read_text().splitlines())
    lines = (folders["teamA_run1"] / "trec_eval_q.txt").read_text().splitlines()
    assert len(lines) > 100 and all(line in reference for line in lines if not line.startswith("gm_"))
    summary = (folders["teamA_run1"] / "trec_eval.txt").read_text()
    assert "map                   \tall\t0.1253\n" in summary
    html = page.read_text()
    assert "q10" in html and "teamA_run1" in html  # the per-query heat map's rows and the runs


def _per_query(path: Path, measure: str) -> dict[str, float]:
    """trec_eval's per-query values of ``measure`` in its ``-q`` output ``path``."""
    values = {}
    for line in path.read_text().splitlines():
        name, qid, value = line.split("\t")
        if name.strip() == measure and qid != "all":
            values[qid] = float(value)
    return values


def _t_p(a: dict[str, float], b: dict[str, float]) -> tuple[float, int]:
    """Student's paired t-test over the queries of both, scipy-independent: t by its formula, then the
    two-sided p in closed form (Abramowitz and Stegun 26.7.3 and 26.7.4, theta = atan(|t| / sqrt(df))):
    df 5: P(|T| < t) = (2 / pi) (theta + sin cos (1 + 2/3 cos^2)); df 6: sin (1 + cos^2 / 2 + 3/8 cos^4)."""
    common = sorted(set(a) & set(b))
    d = [a[q] - b[q] for q in common]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    theta = math.atan(abs(mean / (sd / math.sqrt(n))) / math.sqrt(n - 1))
    s, c = math.sin(theta), math.cos(theta)
    inside = {5: 2 / math.pi * (theta + s * c * (1 + 2 / 3 * c**2)), 6: s * (1 + c**2 / 2 + 3 / 8 * c**4)}
    return 1 - inside[n - 1], n


def test_trec_campaign_ranks_by_the_measure_it_chooses_with_t_tests(
    campaign_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toml = campaign_dir / "trec-campaign.toml"
    toml.write_text(toml.read_text().replace("seed = 12345\n", 'seed = 12345\nmeasure = "P_10"\n'))
    out_dir, page = campaign_dir / "out", campaign_dir / "page.html"
    status = main(["campaign", str(toml), "--out", str(out_dir), "--html", str(page)])
    printed, err = capsys.readouterr()
    assert status == 0, err
    board = json.loads((out_dir / "leaderboard.json").read_text())
    rows = {row["system"]: row for row in board["leaderboard"]}
    # P_10 as trec_eval prints it (all): runA 0.1714 (out.A.aq), runC 0.1571 (out.C.aq), runB 0.1500 over
    # its six queries (out.B.without-q6): that order, where MAP ranks runB first.
    assert [round(rows[name]["P_10"], 4) for name in ("teamA_run1", "teamB_run1", "teamA_run2")] == [
        0.1714,
        0.1571,
        0.15,
    ]
    assert [row["system"] for row in sorted(board["leaderboard"], key=lambda r: r["rank"])] == [
        "teamA_run1",
        "teamB_run1",
        "teamA_run2",
    ]
    assert "ranked by P_10; 95% CI: bootstrap over queries" in printed
    assert "P_10 95% CI" in printed.splitlines()[0]
    for row in rows.values():
        assert row["P_10_low"] <= row["P_10"] <= row["P_10_high"]
    # The t-test pairs the queries both runs answer, on trec_eval's per-query P_10:
    #   A - C, 7 queries: d = .1 0 -.1 .1 0 0 0, mean 1/70, sd sqrt(.028571 / 6) = .06901, t = sqrt(0.3),
    #   p (6 df) = 0.6036;  A - B, 6 queries (not q6): d = .1 .1 -.1 .2 -.2 0, mean 1/60,
    #   sd sqrt(.108333 / 5) = .1472, t = sqrt(1/13), p (5 df) = 0.7926;  C - B: mean 0, t = 0, p = 1.
    values = {
        "teamA_run1": _per_query(GRADED / "out.A.aq", "P_10"),
        "teamA_run2": _per_query(GRADED / "out.B.without-q6", "P_10"),
        "teamB_run1": _per_query(GRADED / "out.C.aq", "P_10"),
    }
    pairs = {(p["system_a"], p["system_b"]): p for p in json_pairs(out_dir / "leaderboard.json")}
    assert list(pairs) == [
        ("teamA_run1", "teamB_run1"),
        ("teamA_run1", "teamA_run2"),
        ("teamB_run1", "teamA_run2"),
    ]
    for (a, b), pair in pairs.items():
        assert pair["measure"] == "P_10"
        if (a, b) == ("teamB_run1", "teamA_run2"):
            assert pair["t_test_p"] == pytest.approx(1.0)
            continue
        p, n = _t_p(values[a], values[b])
        assert n == (7 if b == "teamB_run1" else 6)
        assert pair["t_test_p"] == pytest.approx(p, rel=1e-9)
    assert pairs[("teamA_run1", "teamB_run1")]["t_test_p"] == pytest.approx(0.6036, abs=1e-4)
    assert pairs[("teamA_run1", "teamA_run2")]["t_test_p"] == pytest.approx(0.7926, abs=1e-4)
    # Holm over 3 pairs: 0.6036 x 3, 0.7926 x 2 and 1 x 1 are all capped at 1.
    assert [pair["t_test_p_holm"] for pair in pairs.values()] == [1.0, 1.0, 1.0]
    assert "Holm" in printed and "t p(next)" in printed
    html = page.read_text()
    assert "Significance of differences in P_10" in html and "Holm&#8217;s correction" in html


def test_trec_campaign_refuses_a_measure_the_family_lacks(campaign_dir: Path) -> None:
    toml = campaign_dir / "trec-campaign.toml"
    text = toml.read_text().replace("seed = 12345\n", 'seed = 12345\nmeasure = "P@10"\n')
    toml.write_text(text)
    line = text.splitlines().index('measure = "P@10"') + 1
    with pytest.raises(InputError) as error:
        read_campaign(toml)
    assert error.value.line == line and 'options.measure: one of "map", "gm_map"' in str(error.value)
    assert 'found the string "P@10"' in str(error.value) or "P@10" in str(error.value)


def test_trec_campaign_by_map_names_its_correction(
    campaign_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["campaign", str(campaign_dir / "trec-campaign.toml"), "--out", str(campaign_dir / "out")])
    printed, err = capsys.readouterr()
    assert status == 0, err
    assert "ranked by MAP (mean average precision" in printed and "MAP against the next system's" in printed
    significance = (campaign_dir / "out" / "significance.csv").read_text().splitlines()
    header = significance[0].split(",")
    assert header[2] == "measure" and significance[1].split(",")[2] == "map"
    assert header[-3:] == ["t_test_p", "randomization_p_holm", "t_test_p_holm"]
    t_test = header.index("t_test_p")
    assert all(line.split(",")[t_test] != "" for line in significance[1:])  # a t-test p for every pair
    assert "Holm's correction for multiple comparisons over all 3 pairs" in printed
