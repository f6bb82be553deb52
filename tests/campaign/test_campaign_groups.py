"""A campaign's systems grouped into fewer Luigi tasks (``tasks.campaign.graph.campaign_groups``,
``tasks.core.task.StageGroup``): every stage runs, and is reported, as without groups; the outputs are the
same files; a changed system reruns its own chain alone; a failing member is explained."""

from __future__ import annotations

import json
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from iescore.pipeline.campaign.engine import read_campaign
from iescore.tasks.campaign import graph
from iescore.tasks.campaign.run import CampaignRequest, campaign_graph
from iescore.tasks.core.task import StageGroup
from test_campaign import ONE_SYSTEM, big_campaign, cli, families, two_clients


def outputs(folder: Path) -> dict[str, bytes]:
    """Every output file by its path in ``folder``, the page's stamp left out (it names the store's key,
    which is the same: kept all the same)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def run(capsys: pytest.CaptureFixture[str], campaign: Path, store: Path, out: Path, log: Path) -> dict:
    status, _, err = cli(
        capsys, "campaign", campaign, "--store", store, "--out", out, "--workers", 2, "--tasks-log", log
    )
    assert status == 0, err
    return json.loads(log.read_text())


def test_groups_of_consecutive_systems() -> None:
    specs = {f"s{i}": {"stage": "x", "file": f"/f{i}", "sha256": f"{i:064x}"} for i in range(7)}
    assert graph.campaign_groups(specs) is None  # up to GROUPS systems: a task each
    keys = [f"{i:064x}" for i in range(graph.GROUPS * 2 + 3)]
    many = {f"s{i}": {"file": f"/f{i}", "sha256": key} for i, key in enumerate(keys)}
    groups = graph.campaign_groups(many)
    # 131 systems in 64 groups: 3 groups of 3, then 61 of 2, in campaign order.
    assert len(groups) == graph.GROUPS and [len(g) for g in groups[:4]] == [3, 3, 3, 2]
    assert [key for group in groups for key in group] == keys


def test_a_task_of_a_large_cut_is_written_out_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Luigi writes every parameter of a task into a string each time it makes the task or its repr
    # (tasks.core.task.StageKeys): a cut or groups of a thousand keys must not be written out key by key.
    campaign = big_campaign(tmp_path, copies=5)  # 20 systems
    monkeypatch.setattr(graph, "GROUPS", 4)
    root = campaign_graph(read_campaign(campaign), CampaignRequest(store=str(tmp_path / "g"))).luigi_root
    assert len(root.cut) > 20 and len(root.groups) == 4
    assert repr(root.cut) == f"StageKeys({len(root.cut)} keys)"
    assert repr(root.groups) == "StageGroups(4 groups of 20 keys)"
    group = next(task for task in root.requires().values() if isinstance(task, StageGroup))
    # What Luigi writes of a task's parameters (``Task.get_param_values``' message): no key of the cut.
    for task in (root, group, *group.members):
        assert len(repr(task.param_kwargs)) < 1500, repr(task.param_kwargs)
    assert root.param_kwargs["cut"] == frozenset(root.cut)  # the values themselves are whole


def test_grouped_campaign_runs_reruns_and_writes_as_ungrouped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    campaign = big_campaign(tmp_path, copies=2)  # 8 systems
    monkeypatch.setattr(graph, "GROUPS", 3)
    root = campaign_graph(read_campaign(campaign), CampaignRequest(store=str(tmp_path / "g"))).luigi_root
    groups = [task for task in root.requires().values() if isinstance(task, StageGroup)]
    assert [len(group.members) for group in groups] == [3, 3, 2]
    assert len(root.requires()) == 3  # the reference's stages are the groups' requirements
    grouped = run(capsys, campaign, tmp_path / "g", tmp_path / "g-out", tmp_path / "g.json")

    monkeypatch.setattr(graph, "GROUPS", 64)
    plain = run(capsys, campaign, tmp_path / "p", tmp_path / "p-out", tmp_path / "p.json")
    # Every stage ran, listed by its own id, as without groups (no group is listed).
    assert grouped["ran"] == plain["ran"] and len(grouped["ran"]) == 8 * 6 + 6 + 1
    assert outputs(tmp_path / "g-out") == outputs(tmp_path / "p-out")

    # One system edited: its chain and the summary run; its group's other members are found built.
    monkeypatch.setattr(graph, "GROUPS", 3)
    edited = campaign.parent / "sloppy1.tpl"
    edited.write_text(edited.read_text() + "\n")
    rerun = run(capsys, campaign, tmp_path / "g", tmp_path / "g-out", tmp_path / "g2.json")
    assert families(rerun["ran"]) == ONE_SYSTEM + Counter(CampaignSummary=1)
    reports = [task_id for task_id in rerun["reused"] if task_id.startswith("Report_")]
    assert len(reports) == 7


def test_a_failing_member_is_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    campaign = big_campaign(tmp_path, copies=2)
    monkeypatch.setattr(graph, "GROUPS", 3)
    broken = campaign.parent / "eager1.tpl"
    broken.write_text('<TEMPLATE-9-1> :=\n    WINNER "x"\n')
    status, _, err = cli(
        capsys, "campaign", campaign, "--store", tmp_path / "s", "--out", tmp_path / "o", "--workers", 2
    )
    assert status == 2 and "eager1.tpl:" in err and "internal error" not in err
    assert not (tmp_path / "o" / "leaderboard.txt").exists()


def test_two_clients_against_luigid_share_the_groups(tmp_path: Path) -> None:
    # 68 systems: 64 groups, 4 of two systems (Luigi tasks of their own) and 60 of one (the system's
    # task itself). Each client makes the same groups; every stage runs once, in one client or the other.
    with two_clients(tmp_path, big_campaign(tmp_path, copies=17)) as (port, ran_a, ran_b):
        assert len(ran_a | ran_b) == 68 * 6 + 6 + 1
        api = f"http://127.0.0.1:{port}/api/"
        done = json.loads(urllib.request.urlopen(api + 'task_list?data={"status":"DONE"}').read())["response"]
        assert len(done) == 60 + 4 + 6 + 1
        assert sum(task_id.startswith("StageGroup_") for task_id in done) == 4
        assert all(task["status_message"].endswith(": done") for task in done.values())
