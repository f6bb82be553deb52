"""``in_processes``: a campaign's page and changed systems' files written by forked processes while this
one writes the leaderboard's files."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from pipeline.core.errors import InputError
from tasks.campaign.outputs import in_processes


def _mark(path: Path) -> None:
    path.write_text(str(os.getpid()))


def test_with_two_workers_the_jobs_run_in_other_processes_during_the_block(tmp_path: Path) -> None:
    marks = [tmp_path / f"job{n}" for n in range(3)]
    with in_processes([(_mark, path) for path in marks], workers=2):
        (tmp_path / "block").write_text(str(os.getpid()))
    # Every job done by the time the block has ended, none by this process.
    pids = {path.read_text() for path in marks}
    assert str(os.getpid()) not in pids and 1 <= len(pids) <= 2
    assert (tmp_path / "block").read_text() == str(os.getpid())


def test_with_one_worker_the_jobs_run_here_after_the_block() -> None:
    order: list[str] = []
    with in_processes([(order.append, "first"), (order.append, "second")], workers=1):
        order.append("block")
    assert order == ["block", "first", "second"]


def test_no_jobs_no_processes() -> None:
    with in_processes([], workers=2):
        pass


def test_an_input_error_of_a_job_is_raised_here_as_it_was(tmp_path: Path) -> None:
    def bad() -> None:
        raise InputError("ref.tpl", 7, "no such slot")

    with pytest.raises(InputError) as raised, in_processes([(_mark, tmp_path / "ok"), (bad,)], workers=2):
        pass
    error = raised.value
    assert (error.file, error.line, str(error)) == ("ref.tpl", 7, "ref.tpl:7: no such slot")


def test_an_error_of_the_block_is_not_hidden_by_the_jobs() -> None:
    with pytest.raises(KeyError, match="block"), in_processes([(print,)], workers=2):
        raise KeyError("block")


def test_an_input_error_survives_pickling() -> None:
    # What a forked worker sends its parent; the constructor's three arguments come back.
    error = pickle.loads(pickle.dumps(InputError("a.tpl", 0, "empty")))
    assert (error.file, error.line, error.message, str(error)) == ("a.tpl", 0, "empty", "a.tpl: empty")
