"""The campaign page made by a process of its own (``tasks.campaign.outputs.page_process``): forked
before the run, it reads the systems the run does not change while the run goes on, and writes the page
once told the run is done; its failure is the command's, and a failed run stops it."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from test_campaign import cli, copy_campaign

from pipeline.campaign import html_report
from pipeline.campaign.engine import read_campaign
from pipeline.core.errors import InputError
from tasks.campaign import outputs
from tasks.campaign.graph import campaign_spec
from tasks.campaign.summary import CampaignSummary
from tasks.core.base import task_for


def _change_eager(campaign_file: Path) -> None:
    eager = campaign_file.parent / "hub4-sports" / "eager.tpl"
    eager.write_text(eager.read_text().replace('"1986" ##442#446#', '"12 years" ##259#267#'))


def test_the_page_process_reads_the_unchanged_systems_before_the_run_is_done(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign_file = copy_campaign(tmp_path)
    argv = ("campaign", campaign_file, "--store", tmp_path / "store", "--out", tmp_path / "out")
    assert cli(capsys, *argv, "--workers", "2")[0] == 0
    _change_eager(campaign_file)
    calls = tmp_path / "calls.jsonl"
    read = outputs.PageSources.read

    def spy(self: outputs.PageSources, names: list[str]) -> None:
        # Which process read which systems, and whether the summary (the run's last task) was done.
        done = self.summary.complete()
        with calls.open("a") as log:
            log.write(json.dumps({"pid": os.getpid(), "names": names, "summary": done}) + "\n")
        read(self, names)

    monkeypatch.setattr(outputs.PageSources, "read", spy)
    status, _, err = cli(capsys, *argv, "--workers", "2")
    assert status == 0, err
    first, *rest, last = [json.loads(line) for line in calls.read_text().splitlines()]
    assert first["pid"] != os.getpid()
    assert sorted(first["names"]) == ["forgetful", "perfect", "sloppy"]  # eager's report was not done
    assert first["summary"] is False
    # Eager's part once its chain is done (the summary then still running, as a rule), the rest after.
    assert all(call["names"] == ["eager"] and not call["summary"] for call in rest)
    assert last["summary"] and {call["pid"] for call in [*rest, last]} == {first["pid"]}
    warm = (tmp_path / "out" / "report.html").read_bytes()
    # The same page as one worker makes, reading everything after the run.
    assert cli(capsys, *argv[:-2], "--out", tmp_path / "one", "--workers", "1")[0] == 0
    assert (tmp_path / "one" / "report.html").read_bytes() == warm


def test_a_failure_of_the_page_process_is_the_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign_file = copy_campaign(tmp_path)

    def refuse(self: outputs.PageSources) -> str:
        raise InputError("page.tpl", 3, "cannot show this")

    monkeypatch.setattr(outputs.PageSources, "render", refuse)
    out = tmp_path / "out"
    status, _, err = cli(
        capsys, "campaign", campaign_file, "--store", tmp_path / "store", "--out", out, "--workers", "2"
    )
    assert status == 2 and "page.tpl:3: cannot show this" in err
    assert not (out / "report.html").exists()


def test_a_failed_run_stops_the_page_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    campaign_file = copy_campaign(tmp_path)
    eager = campaign_file.parent / "hub4-sports" / "eager.tpl"
    eager.write_text(eager.read_text() + "<TEMPLATE-broken :=\n")  # not a template: the run fails
    out = tmp_path / "out"
    status, _, err = cli(
        capsys, "campaign", campaign_file, "--store", tmp_path / "store", "--out", out, "--workers", "2"
    )
    assert status == 2 and "eager.tpl" in err
    assert not (out / "report.html").exists()


def test_the_per_document_json_is_made_before_the_summary_in_the_leaderboards_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``PageSources.prepare`` makes the view's JSON from the systems' scores alone (the page's process
    does so while the summary is computed); the page then uses it as it is: the leaderboard ranks the
    systems as their scores do."""
    # Listed worst first: the campaign's order is not the leaderboard's.
    names = ["eager", "forgetful", "sloppy", "perfect"]
    campaign_file = copy_campaign(
        tmp_path, systems="".join(f'[systems.{n}]\ntemplates = "hub4-sports/{n}.tpl"\n\n' for n in names)
    )
    store, out = tmp_path / "store", tmp_path / "out"
    assert cli(capsys, "campaign", campaign_file, "--store", store, "--out", out)[0] == 0
    campaign = read_campaign(str(campaign_file))
    summary_spec, report_specs = campaign_spec(campaign)
    summary = task_for(summary_spec, str(store))
    reports = {name: task_for(spec, str(store)) for name, spec in report_specs.items()}
    sources = outputs.PageSources(campaign, summary, reports)
    sources.read(list(reports))
    sources.prepare()
    assert sources.page is not None and sources.page.embedded is not None
    ranked = [row["system"] for row in json.loads((out / "leaderboard.json").read_text())["leaderboard"]]
    assert list(reports) == names and ranked != names
    assert sources.page.embedded.systems == tuple(ranked)
    made = []
    monkeypatch.setattr(html_report, "embedded_rows", lambda *a: made.append(a))
    assert sources.render() == (out / "report.html").read_text(encoding="utf-8")
    assert made == []  # the JSON made before was the page's


@pytest.mark.parametrize("slow", ["_write_system_folder", "write_pages"])
def test_the_process_free_first_writes_the_campaigns_own_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, slow: str
) -> None:
    """The leaderboard's, significance's and index's files are written once, by the first of the two
    processes to be free: the page's, its page written, or the command's, the systems' files written
    (``slow``: the other one's work made long). The same files as one worker writes."""
    campaign_file = copy_campaign(tmp_path)
    argv = ("campaign", campaign_file, "--store", tmp_path / "store")
    assert cli(capsys, *argv, "--out", tmp_path / "one", "--workers", "1")[0] == 0
    calls = tmp_path / "calls.jsonl"
    for name in ("write_campaign_files", "write_pages", "_write_system_folder"):
        original = getattr(outputs, name)

        def spy(*args: object, name: str = name, original: object = original) -> None:
            if name == slow:
                time.sleep(0.4)
            with calls.open("a") as log:
                log.write(json.dumps({"pid": os.getpid(), "call": name}) + "\n")
            original(*args)  # type: ignore[operator]

        monkeypatch.setattr(outputs, name, spy)
    status, out, err = cli(capsys, *argv, "--out", tmp_path / "two", "--workers", "2")
    assert status == 0, err
    logged = [json.loads(line) for line in calls.read_text().splitlines()]
    page = {call["pid"] for call in logged if call["call"] == "write_pages"}
    assert page and page != {os.getpid()}
    [files] = [call["pid"] for call in logged if call["call"] == "write_campaign_files"]
    assert files == (os.getpid() if slow == "write_pages" else page.pop())
    one = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file())
    two = sorted(p.relative_to(tmp_path / "two") for p in (tmp_path / "two").rglob("*") if p.is_file())
    assert one == two and "leaderboard.json" in {str(p) for p in one}
    for path in one:
        assert (tmp_path / "one" / path).read_bytes() == (tmp_path / "two" / path).read_bytes(), path
    # Without a page to write (it is fresh), this process writes them.
    calls.unlink()
    (tmp_path / "two" / "leaderboard.json").unlink()
    assert cli(capsys, *argv, "--out", tmp_path / "two", "--workers", "2")[0] == 0
    assert [json.loads(line) for line in calls.read_text().splitlines()] == [
        {"pid": os.getpid(), "call": "write_campaign_files"}
    ]
    assert (tmp_path / "two" / "leaderboard.json").read_bytes() == (
        tmp_path / "one" / "leaderboard.json"
    ).read_bytes()


def test_the_view_is_made_during_the_run_only_when_the_run_is_one_chain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-system rerun runs in the command's process: the page's process makes the per-document view
    as soon as it has read every system's part, before it renders the page (while the summary is
    computed). A first run keeps both workers busy: the view is made when the page is rendered, after
    the run (its memory beside the summary's would add to the run's peak)."""
    campaign_file = copy_campaign(tmp_path)
    argv = ("campaign", campaign_file, "--store", tmp_path / "store", "--out", tmp_path / "out")
    calls = tmp_path / "calls.jsonl"
    prepare, render = outputs.PageSources.prepare, outputs.PageSources.render

    def log(event: str) -> None:
        with calls.open("a") as handle:
            handle.write(json.dumps({"pid": os.getpid(), "event": event}) + "\n")

    def spy_prepare(self: outputs.PageSources) -> None:
        if self.page is None:  # the call that makes it
            log("view")
        prepare(self)

    def spy_render(self: outputs.PageSources) -> str:
        log("render")
        return render(self)

    monkeypatch.setattr(outputs.PageSources, "prepare", spy_prepare)
    monkeypatch.setattr(outputs.PageSources, "render", spy_render)
    produce = CampaignSummary.produce

    def slow_summary(self: CampaignSummary) -> dict:
        time.sleep(0.5)  # a summary that takes as long as a real campaign's, not a sample's moment
        return produce(self)

    monkeypatch.setattr(CampaignSummary, "produce", slow_summary)

    def events() -> list[str]:
        logged = [json.loads(line) for line in calls.read_text().splitlines()]
        assert {call["pid"] for call in logged} != {os.getpid()} and len({c["pid"] for c in logged}) == 1
        calls.unlink()
        return [call["event"] for call in logged]

    assert cli(capsys, *argv, "--workers", "2")[0] == 0
    assert events() == ["render", "view"]  # after the run
    _change_eager(campaign_file)
    assert cli(capsys, *argv, "--workers", "2")[0] == 0
    assert events() == ["view", "render"]  # during the run
