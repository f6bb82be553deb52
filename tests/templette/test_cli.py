"""The command line and the Luigi chain end to end: scores, reports, caching and bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from iescore.pipeline.campaign.engine import read_campaign
from iescore.tasks.campaign.graph import campaign_spec
from iescore.tasks.cli.main import main
from iescore.tasks.core import runner
from iescore.tasks.core.base import task_for

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT.parent / "shared" / "samples" / "hub4-sports"
DATA = ROOT / "data"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("compare", ["content", "extent", "both"])
def test_seed_sample_scores_100(tmp_path: Path, capsys: pytest.CaptureFixture[str], compare: str) -> None:
    out_json = tmp_path / "scores.json"
    status, out, err = run_cli(
        capsys,
        "templette",
        "--ref", SAMPLE / "ref.tpl",
        "--hyp", SAMPLE / "hyp.tpl",
        "--texts", SAMPLE / "texts.sgml",
        "--compare", compare,
        "--store", tmp_path / "store",
        "--json", out_json,
    )  # fmt: skip
    assert status == 0, err
    scores = json.loads(out_json.read_text())
    assert set(scores) == {"signature", "totals", "by_type", "by_slot", "by_document"}
    totals = scores["totals"]
    assert totals["F"] == 100.0 and totals["REC"] == 100.0 and totals["PRE"] == 100.0
    assert totals["INC"] == totals["MIS"] == totals["SPU"] == 0
    assert f"compare:{compare}" in scores["signature"]
    assert "ALL SLOTS" in out and "F-MEASURES" in out and "100.00" in out


def test_json_breakdowns_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # data/hub4-sports/forgetful.tpl against the sample, compare both. By hand (see test_campaign):
    # doc PRI19980317.2000.2025 is missed entirely: its DOC_NR gives MIS 2, POS 2, ACT 0, REC 0,
    # PRE undefined (null). SPORTS_EVENT SCORE: MIS 2.
    out_json, csv_dir, summary = tmp_path / "s.json", tmp_path / "csv", tmp_path / "summary.txt"
    status, out, err = run_cli(
        capsys,
        "templette",
        "--ref", SAMPLE / "ref.tpl",
        "--hyp", DATA / "hub4-sports" / "forgetful.tpl",
        "--texts", SAMPLE / "texts.sgml",
        "--store", tmp_path / "store",
        "--json", out_json, "--csv", csv_dir, "--summary", summary,
    )  # fmt: skip
    assert status == 0, err
    scores = json.loads(out_json.read_text())
    doc = next(d for d in scores["by_document"] if d["doc_id"] == "PRI19980317.2000.2025")
    assert (doc["MIS"], doc["POS"], doc["ACT"], doc["REC"], doc["PRE"]) == (2, 2, 0, 0.0, None)
    score_slot = next(s for s in scores["by_slot"] if s["slot"] == "SCORE")
    assert score_slot["instance_type"] == "SPORTS_EVENT" and score_slot["MIS"] == 2
    assert {p.name for p in csv_dir.iterdir()} >= {
        "totals.csv",
        "by_slot.csv",
        "by_document.csv",
        "mapping.csv",
    }
    text = summary.read_text()
    # Every pairing is listed with both strings: the correct LOSER fill and the missing SCORE fill.
    assert 'cor/cor | LOSER: | "defending champion [south Africa]" ##295#326#314#326# |' in text
    assert 'mis/mis | SCORE: | "2-0" ##327#330# | ' in text


# Hand-worked totals of data/campaign.toml (compare both: a text fill is 2 points, a pointer 1).
# Reference: 19 scored points (3 DOC_NR = 6, EVENT pointer 1, six SPORTS_EVENT text fills = 12).
EXPECTED = {
    # The seed's own hypothesis: all 19 correct.
    "perfect": {"COR": 19, "INC": 0, "MIS": 0, "SPU": 0},
    # sloppy: DOC_NRs 6 + EVENT 1 + SCORE, LOCATION, DATE 6 correct = 13, plus S_EVENT "African cup"
    # ##405#416# against the alternative "the African cup" ##401#416#. The premodifier "the" is
    # removed before mapping (seed 000, "Removal of Non-evaluated Text"): the reference becomes
    # "African cup" ##405#416#, so content and extent are both correct: 15 COR. WINNER "Egypt,
    # which": 2 INC; LOSER "defending champion" ##295#313#: no minimal string, no overlap with
    # 314#326: 2 INC.
    "sloppy": {"COR": 15, "INC": 4, "MIS": 0, "SPU": 0},
    # forgetful: no instance set for PRI19980317 (DOC_NR: 2 MIS); SCORE, LOCATION, DATE absent
    # (6 MIS); the rest correct: 2 + 2 + 1 + S_EVENT 2 + WINNER 2 + LOSER 2 = 11 COR.
    "forgetful": {"COR": 11, "INC": 0, "MIS": 8, "SPU": 0},
    # eager: everything right (SPORTS_EVENT-1 uses the alternative "the African cup"; LOSER "south
    # Africa" is the minimal string) = 19 COR; spurious: the ABC event (3 text fills = 6) and the
    # EVENT pointer to it (1), SPORTS_EVENT-2 of PRI19980302 (3 text fills = 6) and its pointer (1).
    "eager": {"COR": 19, "INC": 0, "MIS": 0, "SPU": 14},
}


def test_campaign_leaderboard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json = tmp_path / "board.json"
    status, out, err = run_cli(capsys, "campaign", DATA / "campaign.toml", "--store", tmp_path / "store",
                               "--json", out_json)  # fmt: skip
    assert status == 0, err
    board = {row["system"]: row for row in json.loads(out_json.read_text())["leaderboard"]}
    for system, counts in EXPECTED.items():
        assert {k: board[system][k] for k in counts} == counts, system
    # F = 2 COR / (POS + ACT), in percent (README, "Units"): perfect 100; sloppy 30/38; forgetful 22/30;
    # eager 38/52.
    assert board["sloppy"]["F"] == pytest.approx(100 * 30 / 38)
    assert board["forgetful"]["F"] == pytest.approx(100 * 22 / 30)
    assert board["eager"]["F"] == pytest.approx(100 * 38 / 52)
    assert [board[s]["rank"] for s in ("perfect", "sloppy", "forgetful", "eager")] == [1, 2, 3, 4]
    assert out.index("perfect") < out.index("sloppy") < out.index("forgetful") < out.index("eager")


def _campaign_tasks(campaign_file: Path, store: Path) -> list:
    summary, _ = campaign_spec(read_campaign(campaign_file))
    return [task_for(summary, str(store))]


def _copy_data(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DATA, target, ignore=shutil.ignore_patterns("store"))
    return target / "campaign.toml"


def _families(task_ids: list[str]) -> list[str]:
    return sorted(task_id.split("_", 1)[0] for task_id in task_ids)


def test_rerun_does_only_what_changed(tmp_path: Path) -> None:
    campaign_file = _copy_data(tmp_path)
    store = tmp_path / "store"
    first = runner.run(_campaign_tasks(campaign_file, store))
    assert first.ok and first.ran
    # 4 systems x (IngestTemplates NormalizeContent NormalizeExtents RemoveNonEvaluated MapAndScore
    # Report) + the reference side once (IngestCorpus IngestTemplates NormalizeContent AlignCorpora
    # NormalizeExtents RemoveNonEvaluated) + CampaignSummary = 24 + 6 + 1.
    assert len(first.ran) == 31

    again = runner.run(_campaign_tasks(campaign_file, store))
    assert again.ok and again.ran == [] and again.reused

    # Touching a file without changing it reruns nothing.
    eager = campaign_file.parent / "hub4-sports" / "eager.tpl"
    eager.touch()
    assert runner.run(_campaign_tasks(campaign_file, store)).ran == []

    # Editing one system's file reruns exactly that system's chain and the campaign summary.
    eager.write_text(eager.read_text().replace('DATE: "1986" ##442#446#', 'DATE: "12 years" ##259#267#'))
    edited = runner.run(_campaign_tasks(campaign_file, store))
    assert edited.ok
    assert _families(edited.ran) == sorted(
        ["IngestTemplates", "NormalizeContent", "NormalizeExtents", "RemoveNonEvaluated", "MapAndScore",
         "Report", "CampaignSummary"]
    )  # fmt: skip
    assert not set(edited.ran) & set(first.ran)


def test_key_is_in_task_id_and_artifact_path(tmp_path: Path) -> None:
    (summary,) = _campaign_tasks(_copy_data(tmp_path), tmp_path / "store")
    for task in [summary, *summary.requires().values()]:
        assert task.key[:16] in task.task_id
        assert all(task.key in target.path for target in task.output().values())


def test_beta_weighs_recall(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # forgetful: COR 11, POS 19, ACT 11. F(beta=2) = 5 * 11 / (4 * 19 + 11) = 55/87 (hand).
    out_json = tmp_path / "s.json"
    status, _, err = run_cli(capsys, "templette", "--ref", SAMPLE / "ref.tpl",
                             "--hyp", DATA / "hub4-sports" / "forgetful.tpl", "--beta", "2",
                             "--store", tmp_path / "store", "--json", out_json)  # fmt: skip
    assert status == 0, err
    scores = json.loads(out_json.read_text())
    assert scores["totals"]["F"] == pytest.approx(100 * 55 / 87)
    assert "beta:2.0" in scores["signature"]


def _bad(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


REF_OK = "<T-PRI19980302.2000.2923-1> :=\n    DOC_NR: PRI19980302.2000.2923 ##14#35#\n"


@pytest.mark.parametrize(
    ("hyp_text", "line", "expected"),
    [
        ("<T-PRI19980302.2000.2923-1> =\n", 1, ":="),
        ('<T-PRI19980302.2000.2923-1> :=\n    DOC_NR: "PRI19980302 ##14#35#\n', 2, "quote"),
        ("<T-PRI19980302.2000.2923-1> :=\n    EVENT: <S-PRI19980302.2000.2923-9>\n", 2, "names no instance"),
        ("<T-PRI19980302.2000.2923-1> :=\n    DOC_NR: x ##14#9999#\n", 2, "outside document"),
        ("<T-PRI19980302.2000.2923-1> :=\n    DOC_NR: x ##35#14#\n", 2, "less than"),
        ("<T-NOSUCHDOC-1> :=\n    DOC_NR: x ##14#35#\n", 1, "not in the text corpus"),
        (
            "<T-PRI19980302.2000.2923-1> :=\n    DOC_NR: x ##14#35#\n<T-PRI19980302.2000.2923-1> :=\n",
            3,
            "uplicate",
        ),
        ("<T-PRI19980302.2000.2923-1> :=\n    WINNER:\n", 2, "WINNER"),
    ],
)
def test_bad_hypothesis_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], hyp_text: str, line: int, expected: str
) -> None:
    ref = _bad(tmp_path, "ref.tpl", REF_OK)
    hyp = _bad(tmp_path, "hyp.tpl", hyp_text)
    texts = SAMPLE / "texts.sgml"
    status, out, err = run_cli(capsys, "templette", "--ref", ref, "--hyp", hyp, "--texts", texts,
                               "--store", tmp_path / "store")  # fmt: skip
    assert status == 2
    assert f"hyp.tpl:{line}:" in err and expected in err
    assert "Traceback" not in err


def test_wrong_encoding_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = _bad(tmp_path, "ref.tpl", REF_OK)
    hyp = _bad(
        tmp_path, "hyp.tpl", '<T-PRI19980302.2000.2923-1> :=\n    DOC_NR: "Citroën" ##14#35#\n', "latin-1"
    )
    status, _, err = run_cli(capsys, "templette", "--ref", ref, "--hyp", hyp, "--compare", "content",
                             "--store", tmp_path / "store")  # fmt: skip
    assert status == 2 and "hyp.tpl:2:" in err and "utf-8" in err
    status, _, err = run_cli(capsys, "templette", "--ref", ref, "--hyp", hyp, "--compare", "content",
                             "--encoding", "latin-1", "--store", tmp_path / "store")  # fmt: skip
    assert status == 0, err


def test_console_script_exit_status_and_no_traceback(tmp_path: Path) -> None:
    hyp = _bad(
        tmp_path, "hyp.tpl", "<T-PRI19980302.2000.2923-1> :=\n    EVENT: <S-PRI19980302.2000.2923-9>\n"
    )
    completed = subprocess.run(
        [sys.executable, "-m", "iescore", "templette",
         "--ref", str(SAMPLE / "ref.tpl"), "--hyp", str(hyp),
         "--store", str(tmp_path / "store")],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert completed.returncode == 2
    assert "hyp.tpl:2:" in completed.stderr and "Traceback" not in completed.stderr


def test_artifacts_lists_provenance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    status, _, err = run_cli(capsys, "templette", "--ref", SAMPLE / "ref.tpl", "--hyp", SAMPLE / "hyp.tpl",
                             "--store", store, "--compare", "content")  # fmt: skip
    assert status == 0, err
    status, out, _ = run_cli(capsys, "artifacts", store)
    assert status == 0
    for stage in ("IngestTemplates", "NormalizeContent", "AlignCorpora", "MapAndScore", "Report"):
        assert stage in out


def test_project_luigi_defaults_load_from_any_directory(tmp_path: Path) -> None:
    # Luigi itself only reads ./luigi.cfg; iescore loads the project's defaults from its package.
    code = (
        "from iescore.tasks.core import runner; runner.configure(); import luigi.configuration as c; "
        "cfg = c.get_config(); print(cfg.get('retcode', 'task_failed'), cfg.get('core', 'log_level'))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert completed.stdout.split() == ["30", "CRITICAL"]


def test_campaign_unknown_key_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A misspelt 'texts' must not be ignored (the system would silently be scored without its texts).
    campaign_file = _copy_data(tmp_path)
    text = campaign_file.read_text().replace(
        'templates = "hub4-sports/eager.tpl"', 'templates = "hub4-sports/eager.tpl"\ntext = "x.sgml"'
    )
    campaign_file.write_text(text)
    line = text.splitlines().index('text = "x.sgml"') + 1
    status, _, err = run_cli(capsys, "campaign", campaign_file, "--store", tmp_path / "store")
    assert status == 2
    assert f"campaign.toml:{line}: unknown key systems.eager.text" in err


def test_hypothesis_texts_without_reference_texts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(capsys, "templette", "--ref", SAMPLE / "ref.tpl", "--hyp", SAMPLE / "hyp.tpl",
                             "--hyp-texts", SAMPLE / "texts.sgml", "--store", tmp_path / "store")  # fmt: skip
    assert status == 2 and "texts.sgml: hypothesis texts need the reference texts" in err


def test_templette_command_does_not_import_other_families(tmp_path: Path) -> None:
    # `iescore templette` (no --csv) needs neither the campaign engine nor its outputs module, which
    # import every family's campaign kind (scipy among them): half a second of the command's start.
    argv = ["templette", "--ref", str(SAMPLE / "ref.tpl"), "--hyp", str(SAMPLE / "hyp.tpl"),
            "--texts", str(SAMPLE / "texts.sgml"), "--store", str(tmp_path / "store"),
            "--json", str(tmp_path / "scores.json")]  # fmt: skip
    program = (
        "import sys; from iescore.tasks.cli.main import main; "
        f"status = main({argv!r}); "
        "print(status, sorted(m for m in sys.modules if m.startswith(('iescore.pipeline.campaign.engine', "
        "'iescore.tasks.campaign', 'scipy', 'iescore.pipeline.mat', 'iescore.pipeline.senseval'))))"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines()[-1] == "0 []"
    assert json.loads((tmp_path / "scores.json").read_text())["totals"]["F"] == 100.0  # the seed sample
