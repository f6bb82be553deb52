"""The campaign page made by a process of its own (``tasks.campaign.outputs.page_process``): forked
before the run, it reads the systems the run does not change while the run goes on, and writes the page
once told the run is done; its failure is the command's, and a failed run stops it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pipeline.core.errors import InputError
from tasks.campaign import outputs
from tests.campaign.test_campaign import cli, copy_campaign


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
