"""Campaigns at scale (issue 4): rerunning only what changed, dry runs, progress, statistics, outputs,
a central scheduler, killed runs, shared stores and names that must not become paths."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from iescore.pipeline.campaign.engine import output_name, read_campaign
from iescore.tasks.campaign.graph import campaign_spec
from iescore.tasks.cli.main import main
from iescore.tasks.core import runner
from iescore.tasks.core.base import task_for
from iescore.tasks.core.files import TEMPORARY_MARK
from iescore.tasks.core.store import sweep_temporaries
from iescore.tasks.templette.remove import RemoveNonEvaluated
from significance_file import json_pairs, json_results

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
SYSTEMS = ("perfect", "sloppy", "forgetful", "eager")
# The GLM used by these tests: any rule will do; what matters is which tasks its edit reruns.
GLM = "* name \"test\"\n* desc \"test\"\n* format = 'NIST1'\n* max_nrules = '100'\n* copy_no_hit = 'T'\n"
GLM += "* case_sensitive = 'F'\nCUP => CUP / [ ] __ [ ]\n"


def copy_campaign(tmp_path: Path, extra_options: str = "", systems: str | None = None) -> Path:
    """The sample campaign copied into ``tmp_path/data`` (files editable), store beside it."""
    target = tmp_path / "data"
    shutil.copytree(DATA / "hub4-sports", target / "hub4-sports")
    (target / "rules.glm").write_text(GLM, encoding="utf-8")
    text = (DATA / "campaign.toml").read_text(encoding="utf-8")
    text = text.replace("beta = 1.0\n", f"beta = 1.0\n{extra_options}")
    if systems is not None:
        text = text[: text.index("[systems.")] + systems
    (target / "campaign.toml").write_text(text, encoding="utf-8")
    return target / "campaign.toml"


def run_campaign(campaign_file: Path, store: Path) -> runner.Outcome:
    summary, _ = campaign_spec(read_campaign(campaign_file))
    outcome = runner.run([task_for(summary, str(store))])
    assert outcome.ok, outcome.errors + outcome.input_errors
    return outcome


def families(task_ids: list[str]) -> Counter[str]:
    return Counter(task_id.split("_", 1)[0] for task_id in task_ids)


def cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --- rerun only what changed ---------------------------------------------------------------------

# Per system: IngestTemplates NormalizeContent RemoveNonEvaluated NormalizeExtents MapAndScore Report;
# the reference side once: IngestCorpus AlignCorpora IngestTemplates NormalizeContent RemoveNonEvaluated
# NormalizeExtents; and the CampaignSummary.
ONE_SYSTEM = Counter(
    IngestTemplates=1,
    NormalizeContent=1,
    RemoveNonEvaluated=1,
    NormalizeExtents=1,
    MapAndScore=1,
    Report=1,
)
ALL_TASKS = 4 * 6 + 6 + 1


def test_rerun_what_changed(tmp_path: Path) -> None:
    campaign_file = copy_campaign(tmp_path, 'glm = "rules.glm"\n')
    store = tmp_path / "store"
    first = run_campaign(campaign_file, store)
    assert len(first.ran) == ALL_TASKS
    board = (store / "CampaignSummary").glob("*/*.leaderboard.parquet")
    original = {path.name for path in board}

    # Nothing changed: nothing runs.
    assert run_campaign(campaign_file, store).ran == []

    # A file touched but unchanged: nothing runs.
    eager = campaign_file.parent / "hub4-sports" / "eager.tpl"
    text = eager.read_text(encoding="utf-8")
    os.utime(eager, (time.time() + 10, time.time() + 10))
    assert run_campaign(campaign_file, store).ran == []

    # One system's file edited: that system's chain and the campaign summary.
    eager.write_text(text.replace('DATE: "1986" ##442#446#', 'DATE: "12 years" ##259#267#'), encoding="utf-8")
    edited = run_campaign(campaign_file, store)
    assert families(edited.ran) == ONE_SYSTEM + Counter(CampaignSummary=1)

    # Reverted: its old artifacts (and the old summary) are reused, nothing runs.
    eager.write_text(text, encoding="utf-8")
    assert run_campaign(campaign_file, store).ran == []

    # The GLM edited: normalization onward for the reference and every system; ingestion reused.
    glm = campaign_file.parent / "rules.glm"
    glm.write_text(GLM + "GOAL => GOAL / [ ] __ [ ]\n", encoding="utf-8")
    after_glm = run_campaign(campaign_file, store)
    assert families(after_glm.ran) == Counter(
        NormalizeContent=5,
        RemoveNonEvaluated=5,
        NormalizeExtents=5,
        MapAndScore=4,
        Report=4,
        CampaignSummary=1,
    )
    assert not families(after_glm.ran) & Counter(IngestTemplates=1, IngestCorpus=1, AlignCorpora=1)
    assert families(after_glm.reused)["IngestTemplates"] == 5

    # The GLM reverted: everything is reused.
    glm.write_text(GLM, encoding="utf-8")
    assert run_campaign(campaign_file, store).ran == []
    assert original <= {p.name for p in (store / "CampaignSummary").glob("*/*.leaderboard.parquet")}


def test_version_bump_reruns_that_stage_onward(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    campaign_file = copy_campaign(tmp_path)
    store = tmp_path / "store"
    run_campaign(campaign_file, store)
    monkeypatch.setattr(RemoveNonEvaluated, "VERSION", RemoveNonEvaluated.VERSION + 1)
    bumped = run_campaign(campaign_file, store)
    assert families(bumped.ran) == Counter(
        RemoveNonEvaluated=5,
        NormalizeExtents=5,
        MapAndScore=4,
        Report=4,
        CampaignSummary=1,
    )


def test_statistics_settings_rerun_only_reports_and_summary(tmp_path: Path) -> None:
    campaign_file = copy_campaign(tmp_path, "seed = 7\n")
    store = tmp_path / "store"
    run_campaign(campaign_file, store)
    campaign_file.write_text(campaign_file.read_text().replace("seed = 7", "seed = 8"))
    # The seed is in every score's signature (the intervals printed beside it depend on it).
    assert families(run_campaign(campaign_file, store).ran) == Counter(Report=4, CampaignSummary=1)


def test_frozen_spec_keys_like_the_spec_it_came_from(tmp_path: Path) -> None:
    # Luigi hands a parent's spec to its inputs frozen (FrozenOrderedDict, tuples); the key of a system's
    # task built as a root must equal the key of the same task reached through the campaign summary.
    summary_spec, reports = campaign_spec(read_campaign(copy_campaign(tmp_path)))
    summary = task_for(summary_spec, str(tmp_path / "store"))
    for name, spec in reports.items():
        assert task_for(spec, str(tmp_path / "store")).key == summary.requires()[f"statistics/{name}"].key


# --- dry run -------------------------------------------------------------------------------------


def store_files(store: Path) -> set[str]:
    return {str(p.relative_to(store)) for p in store.rglob("*") if p.is_file()}


def test_dry_run_lists_what_would_run_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign_file = copy_campaign(tmp_path, 'glm = "rules.glm"\n')
    store = tmp_path / "store"
    status, out, _ = cli(capsys, "campaign", campaign_file, "--store", store, "--dry-run")
    assert status == 0 and out.startswith(f"would run {ALL_TASKS} of {ALL_TASKS} tasks")
    assert not store.exists()  # a dry run builds nothing
    assert "IngestCorpus" in out and "not built before" in out

    run_campaign(campaign_file, store)
    before = store_files(store)
    status, out, _ = cli(capsys, "campaign", campaign_file, "--store", store, "--dry-run")
    assert out == f"would run 0 of {ALL_TASKS} tasks\n"

    eager = campaign_file.parent / "hub4-sports" / "eager.tpl"
    eager.write_text(eager.read_text().replace('"1986" ##442#446#', '"12 years" ##259#267#'))
    status, out, _ = cli(capsys, "campaign", campaign_file, "--store", store, "--dry-run")
    lines = out.splitlines()
    assert lines[0] == f"would run 7 of {ALL_TASKS} tasks"
    assert "IngestTemplates" in lines[1] and "eager: file changed: templates" in lines[1]
    assert lines[1].endswith(str(eager.resolve()))
    chain = [
        "NormalizeContent",
        "RemoveNonEvaluated",
        "NormalizeExtents",
        "MapAndScore",
        "Report",
    ]
    assert [line.split()[0] for line in lines[2:]] == [*chain, "CampaignSummary"]
    assert all(": after " in line for line in lines[2:])
    assert store_files(store) == before

    eager.write_text((DATA / "hub4-sports" / "eager.tpl").read_text())
    (campaign_file.parent / "rules.glm").write_text(GLM + "GOAL => GOAL / [ ] __ [ ]\n")
    status, out, _ = cli(capsys, "campaign", campaign_file, "--store", store, "--dry-run")
    first_causes = [line for line in out.splitlines()[1:] if ": after " not in line]
    assert len(first_causes) == 5 and all("NormalizeContent" in line for line in first_causes)
    assert all("file changed: glm" in line for line in first_causes)

    (campaign_file.parent / "rules.glm").write_text(GLM)
    monkeypatch.setattr(RemoveNonEvaluated, "VERSION", RemoveNonEvaluated.VERSION + 1)
    status, out, _ = cli(capsys, "campaign", campaign_file, "--store", store, "--dry-run")
    first_causes = [line for line in out.splitlines()[1:] if ": after " not in line]
    version = RemoveNonEvaluated.VERSION
    assert len(first_causes) == 5
    assert all(f"RemoveNonEvaluated VERSION {version - 1} -> {version}" in line for line in first_causes)


def test_dry_run_lists_only_what_luigi_would_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # An intermediate artifact gone while what was made from it is still there: Luigi does not look
    # under a complete task, so nothing runs; the plan (and the progress bar) count nothing either.
    campaign_file = copy_campaign(tmp_path)
    store = tmp_path / "store"
    run_campaign(campaign_file, store)
    removed = sorted((store / "NormalizeContent").rglob("*.parquet"))
    for path in removed:
        path.unlink()
    status, out, _ = cli(capsys, "campaign", campaign_file, "--store", store, "--dry-run")
    assert status == 0 and out == f"would run 0 of {ALL_TASKS} tasks\n"
    log = tmp_path / "tasks.json"
    status, _, _ = cli(capsys, "campaign", campaign_file, "--store", store, "--tasks-log", log)
    assert status == 0 and json.loads(log.read_text())["ran"] == []
    assert not any(path.exists() for path in removed)


REFERENCE_CHAIN = Counter(
    IngestCorpus=1,
    AlignCorpora=1,
    IngestTemplates=1,
    NormalizeContent=1,
    RemoveNonEvaluated=1,
    NormalizeExtents=1,
)


def test_dry_run_labels_the_reference_by_its_users(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference's tasks read "reference (shared by N)", not the first system's name; a system's
    own tasks carry its name alone; the summary is "campaign"."""
    campaign_file = copy_campaign(tmp_path)
    status, out, _ = cli(capsys, "campaign", campaign_file, "--store", tmp_path / "store", "--dry-run")
    assert status == 0
    labels: dict[str, Counter[str]] = {}
    for line in out.splitlines()[1:]:
        stage, _key, rest = line.split(maxsplit=2)
        labels.setdefault(rest.split(":")[0], Counter())[stage] += 1
    assert labels == {
        "reference (shared by 4)": REFERENCE_CHAIN,
        **{name: ONE_SYSTEM for name in SYSTEMS},
        "campaign": Counter(CampaignSummary=1),
    }
    # "speech" has its own (hypothesis) texts: the reference texts, templates and their chain up to
    # removal serve both systems; the identity alignment and the extents built on it serve "clean"
    # only; speech's alignment, and the reference extents in its columns, are its own.
    two = (
        '[systems.clean]\ntemplates = "hub4-sports/perfect.tpl"\n\n'
        '[systems.speech]\ntemplates = "hub4-sports/perfect.tpl"\ntexts = "asr.sgml"\n'
    )
    campaign_file = copy_campaign(tmp_path / "two", systems=two)
    texts = (campaign_file.parent / "hub4-sports" / "texts.sgml").read_text()
    (campaign_file.parent / "asr.sgml").write_text(texts.replace("the", "teh", 1))  # differs: speech input
    status, out, _ = cli(capsys, "campaign", campaign_file, "--store", tmp_path / "store2", "--dry-run")
    found = Counter(
        (line.split()[0], line.split(maxsplit=2)[2].split(":")[0]) for line in out.splitlines()[1:]
    )
    assert found == Counter(
        {
            ("IngestCorpus", "reference (shared by 2)"): 1,
            ("IngestTemplates", "reference (shared by 2)"): 1,
            ("NormalizeContent", "reference (shared by 2)"): 1,
            ("RemoveNonEvaluated", "reference (shared by 2)"): 1,
            ("AlignCorpora", "reference (for clean)"): 1,
            ("NormalizeExtents", "reference (for clean)"): 1,
            **{(stage, "clean"): 1 for stage in ONE_SYSTEM},
            # speech: its texts, its alignment, both sides' extents in its columns, and its own chain.
            ("IngestCorpus", "speech"): 1,
            ("AlignCorpora", "speech"): 1,
            **{(stage, "speech"): 1 for stage in ONE_SYSTEM if stage != "NormalizeExtents"},
            ("NormalizeExtents", "speech"): 2,
            ("CampaignSummary", "campaign"): 1,
        }
    )


# --- progress ------------------------------------------------------------------------------------


def test_progress_lines_and_bar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    campaign_file = copy_campaign(tmp_path)
    status, _, err = cli(capsys, "campaign", campaign_file, "--store", tmp_path / "a", "--progress", "lines")
    assert status == 0
    lines = [line for line in err.splitlines() if line.startswith("iescore: [")]
    assert len(lines) == ALL_TASKS
    assert lines[0].startswith(f"iescore: [1/{ALL_TASKS}] ") and lines[-1].startswith(
        f"iescore: [{ALL_TASKS}/{ALL_TASKS}] CampaignSummary"
    )
    # Labelled as in the dry run: the reference's six tasks by their users, each system's six by its name.
    assert sum("[reference (shared by 4)] done" in line for line in lines) == 6
    assert all(sum(f"[{name}] done" in line for line in lines) == 6 for name in SYSTEMS)
    status, _, err = cli(capsys, "campaign", campaign_file, "--store", tmp_path / "b", "--progress", "bar")
    assert status == 0
    assert "\r[" in err and f"{ALL_TASKS}/{ALL_TASKS} 100% finished" in err
    # Nothing pending: an empty bar, and nothing at all when not asked (stderr is not a terminal).
    status, _, err = cli(capsys, "campaign", campaign_file, "--store", tmp_path / "b")
    assert status == 0 and err == ""


def test_a_new_store_is_announced_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """campaign, templette and muc say once on stderr that they created their store, never after (a
    failed run says only what failed: its error stays the one line on stderr)."""
    campaign_file = copy_campaign(
        tmp_path, systems='[systems.perfect]\ntemplates = "hub4-sports/perfect.tpl"\n'
    )
    sample = campaign_file.parent / "hub4-sports"
    shutil.copytree(ROOT / "tests" / "data" / "muc_te", tmp_path / "te")
    commands = {
        "campaign": ["campaign", campaign_file, "--progress", "none", "--store"],
        "templette": ["templette", "--ref", sample / "ref.tpl", "--hyp", sample / "perfect.tpl", "--store"],
        "muc": ["muc", tmp_path / "te" / "te.config", "--store"],
    }
    for name, argv in commands.items():
        store = tmp_path / "stores" / name / "nested"  # parents made too
        status, _, err = cli(capsys, *argv, store)
        assert status == 0, err
        assert err.splitlines().count(f"iescore: created artifact store {store}") == 1
        assert store.is_dir()
        status, _, err = cli(capsys, *argv, store)
        assert status == 0 and "created artifact store" not in err
    # A store path that is a file: bad input, nothing created.
    taken = tmp_path / "taken"
    taken.write_text("not a store\n")
    status, _, err = cli(capsys, *commands["templette"], taken)
    assert (
        status == 2 and err.startswith(f"iescore: {taken}: ") and "directory" in err and err.count("\n") == 1
    )


# --- statistics and outputs -----------------------------------------------------------------------


def test_outputs_intervals_and_significance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    campaign_file = copy_campaign(tmp_path, "resamples = 200\n")
    out, board_json = tmp_path / "out", tmp_path / "board.json"
    status, stdout, err = cli(
        capsys, "campaign", campaign_file, "--store", tmp_path / "store", "--out", out, "--json", board_json
    )
    assert status == 0, err
    result = json.loads(board_json.read_text())
    rows = {row["system"]: row for row in result["leaderboard"]}
    # perfect: every point of every document is COR, so every resample has F = 100 % (hand).
    assert rows["perfect"]["F_low"] == rows["perfect"]["F_high"] == 100.0
    for row in rows.values():
        assert row["F_low"] <= row["F"] <= row["F_high"]
        assert "resamples:200|seed:12345" in row["signature"]
    pairs = json_pairs(board_json, "templette")
    assert len(pairs) == 6  # 4 systems: 4 * 3 / 2 pairs
    assert all(0 < pair["randomization_p"] <= 1 and 0 < pair["paired_bootstrap_p"] <= 1 for pair in pairs)
    assert {(p["system_a"], p["system_b"]) for p in pairs} >= {("perfect", "sloppy"), ("forgetful", "eager")}
    assert "F 95% CI" in stdout and "p(next)" in stdout
    for name in ("leaderboard.txt", "leaderboard.csv", "leaderboard.json", "significance.csv", "report.html"):
        assert (out / name).is_file(), name
    for system in SYSTEMS:
        folder = out / "systems" / output_name(system)
        assert {p.name for p in folder.iterdir()} == {
            ".iescore-source",
            "report.txt", "scores.json", "totals.csv", "by_type.csv", "by_slot.csv", "by_document.csv",
            "objects.csv", "mapping.csv",
        }  # fmt: skip
        assert json.loads((folder / "scores.json").read_text())["totals"]["COR"] == rows[system]["COR"]


# --- names never become paths -------------------------------------------------------------------

NASTY = ["../../escape", "a/b", "with space", "naïve système", "<script>alert(1)</script>", "..", "/etc/x"]


def test_system_names_cannot_write_outside_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    systems = "".join(
        f'[systems.{json.dumps(name)}]\ntemplates = "hub4-sports/{file}.tpl"\n\n'
        for name, file in zip(NASTY, SYSTEMS + SYSTEMS, strict=False)
    )
    work = tmp_path / "work"
    work.mkdir()
    campaign_file = copy_campaign(work, systems=systems)
    before = {p for p in tmp_path.rglob("*")}
    store, out = work / "store", work / "out"
    status, stdout, err = cli(
        capsys, "campaign", campaign_file, "--store", store, "--out", out, "--html", out / "page.html"
    )
    assert status == 0, err
    created = {p for p in tmp_path.rglob("*")} - before
    assert created and all(p.is_relative_to(store) or p.is_relative_to(out) for p in created)
    assert not (tmp_path / "escape").exists() and not Path("/etc/x").exists()
    folders = {p.name for p in (out / "systems").iterdir() if p.is_dir()}
    assert folders == {output_name(name) for name in NASTY}
    assert all("/" not in name and not name.startswith(".") for name in folders)
    page = (out / "page.html").read_text()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    index = (out / "systems" / "index.csv").read_text()
    assert "naïve système" in index and "../../escape" in index


def test_terminal_output_escapes_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    systems = '[systems."evil\\u001b[31mred"]\ntemplates = "hub4-sports/perfect.tpl"\n'
    campaign_file = copy_campaign(tmp_path, systems=systems)
    status, stdout, _ = cli(capsys, "campaign", campaign_file, "--store", tmp_path / "store")
    assert status == 0 and "\x1b" not in stdout and "evil\\x1b[31mred" in stdout


# --- killed runs, temporary files, shared stores ----------------------------------------------


def test_sweep_removes_only_dead_writers_temporaries(tmp_path: Path) -> None:
    folder = tmp_path / "Report" / "ab"
    folder.mkdir(parents=True)
    host = socket.gethostname()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    stale = folder / f".k.scores.parquet{TEMPORARY_MARK}{host}.{int(dead.stdout)}.abc"
    live = folder / f".k.scores.parquet{TEMPORARY_MARK}{host}.{os.getpid()}.def"
    foreign_old = folder / f".k.scores.parquet{TEMPORARY_MARK}elsewhere.1.ghi"
    foreign_new = folder / f".k.scores.parquet{TEMPORARY_MARK}elsewhere.2.jkl"
    for path in (stale, live, foreign_old, foreign_new):
        path.write_bytes(b"partial")
    os.utime(foreign_old, (time.time() - 3 * 86400, time.time() - 3 * 86400))
    assert set(sweep_temporaries(tmp_path)) == {stale, foreign_old}
    assert live.exists() and foreign_new.exists()


def test_sweep_removes_a_zombie_writers_temporaries(tmp_path: Path) -> None:
    # A writer killed with its parent may stay a zombie (a container's first process may never reap it):
    # it has ended, so its temporary file is stale although a signal to its pid still succeeds.
    folder = tmp_path / "Report" / "ab"
    folder.mkdir(parents=True)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.time() + 30
    stat = Path(f"/proc/{child.pid}/stat")
    while time.time() < deadline and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":
        time.sleep(0.02)  # not waited for: a zombie once it exits
    stale = folder / f".k.scores.parquet{TEMPORARY_MARK}{socket.gethostname()}.{child.pid}.abc"
    stale.write_bytes(b"partial")
    try:
        assert sweep_temporaries(tmp_path) == [stale]
    finally:
        child.wait()


def big_campaign(tmp_path: Path, copies: int) -> Path:
    """The sample with ``copies`` variants of each system (distinct bytes, so distinct chains: each copy
    ends in a different number of blank lines)."""
    folder = tmp_path / "data"
    campaign_file = copy_campaign(tmp_path, systems="")
    lines = []
    for copy in range(copies):
        for system in SYSTEMS:
            source = (DATA / "hub4-sports" / f"{system}.tpl").read_text(encoding="utf-8")
            (folder / f"{system}{copy}.tpl").write_text(source + "\n" * (copy + 1), encoding="utf-8")
            lines.append(f'[systems.{system}{copy}]\ntemplates = "{system}{copy}.tpl"\n')
    campaign_file.write_text(campaign_file.read_text() + "\n".join(lines))
    return campaign_file


def iescore(*argv: object, **kwargs: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "iescore", *map(str, argv)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        **kwargs,  # type: ignore[arg-type]
    )


def group_ends(group: int, within: float) -> bool:
    """Whether every live process of process group ``group`` is gone within ``within`` seconds (zombies,
    which the container's init may never reap, count as gone)."""
    deadline = time.time() + within
    while time.time() < deadline:
        states = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == group:  # state, parent, process group
                states.append(fields[0])
        if all(state == "Z" for state in states):
            return True
        time.sleep(0.05)
    return False


def finish(process: subprocess.Popen[str], timeout: float = 300) -> str:
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err
    return out


def test_killed_campaign_restarts_to_identical_results(tmp_path: Path) -> None:
    campaign_file = big_campaign(tmp_path, copies=8)
    reference_json, killed_json = tmp_path / "ref.json", tmp_path / "killed.json"
    finish(iescore("campaign", campaign_file, "--store", tmp_path / "ref", "--json", reference_json))

    store = tmp_path / "killed"
    process = iescore("campaign", campaign_file, "--store", store, "--workers", "2", start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list(store.glob("*/*/*.parquet"))) < 40:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL
    # Its task processes end on their own once it is gone (tasks.core.orphans); the rerun starts after
    # they have, or one of them could still be writing a temporary file after the rerun swept them.
    assert group_ends(process.pid, within=60)
    written = list(store.glob("*/*/*.parquet"))
    assert len(written) >= 40 and not (store / "CampaignSummary").exists()
    for path in written:  # anything that looks complete is complete
        pq.read_table(path)

    finish(iescore("campaign", campaign_file, "--store", store, "--json", killed_json))
    assert json_results(killed_json) == json_results(reference_json)
    assert not list(store.rglob(f"*{TEMPORARY_MARK}*"))


def test_two_campaigns_share_one_store(tmp_path: Path) -> None:
    campaign_file = big_campaign(tmp_path, copies=4)
    finish(
        iescore("campaign", campaign_file, "--store", tmp_path / "alone", "--json", tmp_path / "alone.json")
    )
    shared = tmp_path / "shared"
    runs = [
        iescore("campaign", campaign_file, "--store", shared, "--json", tmp_path / f"{n}.json") for n in "ab"
    ]
    for process in runs:
        finish(process)
    expected = json_results(tmp_path / "alone.json")
    assert json_results(tmp_path / "a.json") == expected
    assert json_results(tmp_path / "b.json") == expected
    for path in shared.glob("*/*/*.parquet"):
        pq.read_table(path)
    assert not list(shared.rglob(f"*{TEMPORARY_MARK}*"))


# --- central scheduler ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def luigid(tmp_path: Path, config: str | None = None) -> Iterator[int]:
    """A central scheduler on 127.0.0.1 at a free port, answering before this yields its port, stopped
    by its process id afterwards (state and logs under ``tmp_path``). ``config``: its luigi.cfg (it
    then runs in ``tmp_path/logs`` with ``LUIGI_CONFIG_PATH`` naming that file and nothing else)."""
    port = free_port()
    (tmp_path / "logs").mkdir()
    env, cwd = None, None
    if config is not None:
        (tmp_path / "logs" / "luigi.cfg").write_text(config)
        env = {**os.environ, "LUIGI_CONFIG_PATH": str(tmp_path / "logs" / "luigi.cfg")}
        cwd = tmp_path / "logs"
    server = subprocess.Popen(
        [sys.executable, "-c", "import sys; from luigi.cmdline import luigid; luigid(sys.argv[1:])",
         "--address", "127.0.0.1", "--port", str(port), "--logdir", str(tmp_path / "logs"),
         "--state-path", str(tmp_path / "luigi-state.pickle")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd,
    )  # fmt: skip
    try:
        deadline = time.time() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/task_list?data={{}}", timeout=1).read()
                break
            except OSError:
                assert time.time() < deadline, "luigid did not start"
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


@contextlib.contextmanager
def two_clients(tmp_path: Path, campaign_file: Path) -> Iterator[tuple[int, set[str], set[str]]]:
    """Runs ``campaign_file`` on a local store (``local.json``), then by two clients at once against one
    luigid and one shared store; checks that each client's results equal the local run's and that no
    task ran in both. Gives luigid's port (serving while the block runs) and the tasks each client ran."""
    finish(
        iescore("campaign", campaign_file, "--store", tmp_path / "local", "--json", tmp_path / "local.json")
    )
    with luigid(tmp_path) as port:
        clients = [
            iescore(
                "campaign",
                campaign_file,
                "--store",
                tmp_path / "shared",
                "--scheduler-host",
                "127.0.0.1",
                "--scheduler-port",
                port,
                "--json",
                tmp_path / f"{n}.json",
                "--tasks-log",
                tmp_path / f"{n}.log",
            )  # fmt: skip
            for n in "ab"
        ]
        for client in clients:
            finish(client)
        logs = [json.loads((tmp_path / f"{n}.log").read_text()) for n in "ab"]
        ran_a, ran_b = set(logs[0]["ran"]), set(logs[1]["ran"])
        assert not ran_a & ran_b  # every task ran once
        expected = json_results(tmp_path / "local.json")
        for n in "ab":
            assert json_results(tmp_path / f"{n}.json") == expected
        yield port, ran_a, ran_b


def test_two_clients_against_luigid(tmp_path: Path) -> None:
    with two_clients(tmp_path, big_campaign(tmp_path, copies=3)) as (port, ran_a, ran_b):
        api = f"http://127.0.0.1:{port}/api/"
        total = 3 * 4 * 6 + 6 + 1
        assert len(ran_a | ran_b) == total
        # luigid's web page shows each task's status message and progress percentage. It schedules one
        # task per system (its six stages built in one process), the reference's six and the summary.
        done = json.loads(urllib.request.urlopen(api + 'task_list?data={"status":"DONE"}').read())["response"]
        assert len(done) == 3 * 4 + 6 + 1
        assert all(task["status_message"].endswith(": done") for task in done.values())
        assert all(task["progress_percentage"] == 100 for task in done.values())


# --- the campaign's HTML page in a browser ----------------------------------------------------


def test_campaign_page_in_headless_chromium(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_html_report import chromium, console_lines, find_browser

    browser = find_browser()
    systems = "".join(
        f'[systems.{json.dumps(name)}]\ntemplates = "hub4-sports/{file}.tpl"\n\n'
        for name, file in (("<script>alert(1)</script>", "sloppy"), ("perfect", "perfect"))
    )
    campaign_file = copy_campaign(tmp_path, systems=systems)
    texts = campaign_file.parent / "hub4-sports" / "texts.sgml"
    html = tmp_path / "campaign.html"
    status, _, err = cli(capsys, "campaign", campaign_file, "--store", tmp_path / "store", "--html", html)
    assert status == 0, err
    page = html.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in page
    screenshot = tmp_path / "page.png"
    result = chromium(
        browser, html.as_uri(), tmp_path / "profile", f"--screenshot={screenshot}", "--window-size=1280,2000"
    )
    assert console_lines(result.stderr) == [] and screenshot.stat().st_size > 20_000
    # The per-document view shows the first document's text, escaped, with the sloppy fills listed.
    dom = chromium(browser, html.as_uri(), tmp_path / "profile", "--dump-dom")
    assert console_lines(dom.stderr) == []
    first_words = texts.read_text(encoding="utf-8").split("<TEXT>", 1)[1].split()[:3]
    assert " ".join(first_words) in dom.stdout
    assert "<script>alert(1)" not in dom.stdout and "&lt;script&gt;alert(1)&lt;/script&gt;" in dom.stdout


def test_outputs_rewrite_only_what_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    campaign_file = copy_campaign(tmp_path)
    out, store = tmp_path / "out", tmp_path / "store"
    assert cli(capsys, "campaign", campaign_file, "--store", store, "--out", out)[0] == 0

    def written() -> dict[str, int]:
        return {str(p.relative_to(out)): p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}

    first = written()
    time.sleep(0.05)
    assert cli(capsys, "campaign", campaign_file, "--store", store, "--out", out)[0] == 0
    second = written()
    unchanged = {name for name in first if first[name] == second[name]}
    # Rerun with nothing changed: the leaderboard files are rewritten, no system's tables, no page.
    assert {n for n in first if n.startswith("systems/") and n != "systems/index.csv"} <= unchanged
    assert "report.html" in unchanged
    eager = campaign_file.parent / "hub4-sports" / "eager.tpl"
    eager.write_text(eager.read_text().replace('"03/02/1998" ##89#99#', '"12 years" ##259#267#'))
    time.sleep(0.05)
    assert cli(capsys, "campaign", campaign_file, "--store", store, "--out", out)[0] == 0
    third = written()
    rewritten = {name for name in second if second[name] != third[name]}
    assert f"systems/{output_name('eager')}/scores.json" in rewritten and "report.html" in rewritten
    assert not any(output_name(s) in name for s in ("perfect", "sloppy", "forgetful") for name in rewritten)
    scores = json.loads((out / "systems" / output_name("eager") / "scores.json").read_text())
    # Hand: eager's DATE of the reference's event, "03/02/1998" (content and extent COR), became
    # "12 years" elsewhere: both points INC, so COR 19 - 2 = 17 and INC 0 + 2.
    assert (scores["totals"]["COR"], scores["totals"]["INC"]) == (17, 2)
