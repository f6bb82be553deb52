"""What keeps a campaign's work around the systems' chains small (issue 16, point 5): specs frozen and keyed
once, the page's pairings read column by column, systems' files written by several processes, the same
results whichever way."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
from iescore.pipeline.campaign.engine import point_categories, read_campaign
from iescore.schemas import POINT
from iescore.tasks.campaign.graph import campaign_spec
from iescore.tasks.campaign.outputs import run_jobs, write_campaign_outputs
from iescore.tasks.core import runner
from iescore.tasks.core.base import FrozenSpec, freeze_spec, input_key, task_for

ROOT = Path(__file__).resolve().parents[2]


def copy_campaign(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "data" / "hub4-sports", tmp_path / "data" / "hub4-sports")
    campaign = tmp_path / "data" / "campaign.toml"
    campaign.write_text((ROOT / "data" / "campaign.toml").read_text(encoding="utf-8"), encoding="utf-8")
    return campaign


def test_an_input_task_takes_its_spec_from_its_parent_as_it_is(tmp_path: Path) -> None:
    summary_spec, _ = campaign_spec(read_campaign(copy_campaign(tmp_path)))
    summary = task_for(summary_spec, str(tmp_path / "store"))
    assert isinstance(summary.spec, FrozenSpec)
    stack, seen = [summary], set()
    while stack:
        task = stack.pop()
        for role, sub in task.requires().items():
            # The very object of the first parent's spec: not walked and copied again for each task (a
            # shared task, reached again from another parent, is Luigi's one instance of it).
            assert sub.spec == task.spec["inputs"][role]
            if sub.task_id not in seen:
                assert sub.spec is task.spec["inputs"][role]
                seen.add(sub.task_id)
                stack.append(sub)
            assert sub.key == input_key(sub.spec) == sub.spec.stage_key


def test_a_frozen_spec_keys_and_reads_like_the_plain_one() -> None:
    plain = {"stage": "CampaignSummary", "options": {"seed": 1, "list": [1, [2, 3]]}, "inputs": {}}
    frozen = freeze_spec(plain)
    assert freeze_spec(frozen) is frozen
    assert frozen["options"]["list"] == (1, (2, 3))  # as Luigi's own DictParameter freezes it
    assert input_key(frozen) == input_key(plain) == frozen.stage_key
    # A part reads as the plain one; a stage's whole spec as its stage and key (what names it).
    assert repr(frozen["options"]) == repr(plain["options"]).replace("[1, [2, 3]]", "(1, (2, 3))")
    assert repr(frozen) == f"FrozenSpec(stage='CampaignSummary', key={input_key(plain)!r})"


def test_point_categories_join_each_pairings_points_in_order() -> None:
    cor = {"aspect": "content", "category": "COR", "reason": None}
    inc = {"aspect": "extent", "category": "INC", "reason": None}
    non = {"aspect": "content", "category": "NON", "reason": "optional-slot"}
    rows = [[cor, inc], [], [non], [inc]]
    chunked = pa.chunked_array([pa.array(rows[:2], pa.list_(POINT)), pa.array(rows[2:], pa.list_(POINT))])
    table = pa.table({"points": chunked, "n": [0, 1, 2, 3]})
    assert point_categories(table.column("points")) == [
        "content:COR extent:INC",
        "",
        "content:NON",
        "extent:INC",
    ]
    # A filtered (offset) selection, as the page reads the documents it shows.
    odd = table.filter(pa.array([False, True, False, True]))
    assert point_categories(odd.column("points")) == ["", "extent:INC"]


@pytest.mark.parametrize("workers", [2])
def test_systems_files_are_the_same_written_by_several_processes(tmp_path: Path, workers: int) -> None:
    campaign = read_campaign(copy_campaign(tmp_path))
    summary_spec, report_specs = campaign_spec(campaign)
    store = str(tmp_path / "store")
    summary = task_for(summary_spec, store)
    assert runner.run([summary]).ok
    reports = {name: task_for(spec, store) for name, spec in report_specs.items()}
    one, several = tmp_path / "one", tmp_path / "several"
    write_campaign_outputs(one, campaign, summary, reports, pages=[one / "report.html"])
    write_campaign_outputs(several, campaign, summary, reports, workers, pages=[several / "report.html"])
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(several) for p in several.rglob("*") if p.is_file())
    assert len([f for f in files if f.name == "mapping.csv"]) == len(reports) == 4
    assert Path("report.html") in files
    for name in files:
        assert (one / name).read_bytes() == (several / name).read_bytes(), name


@pytest.mark.parametrize(
    ("jobs", "workers", "here"), [(2, 2, True), (1, 2, True), (3, 2, False), (3, 1, True)]
)
def test_output_jobs_fork_only_when_they_outnumber_the_workers(jobs: int, workers: int, here: bool) -> None:
    # A job run in this process appends to this list; one run in a forked process appends to its copy.
    ran: list[int] = []
    run_jobs([functools.partial(ran.append, number) for number in range(jobs)], workers)
    assert ran == (list(range(jobs)) if here else [])
