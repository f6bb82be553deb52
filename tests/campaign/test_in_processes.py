"""``in_processes``: a campaign's page and changed systems' files written by forked processes and this
one, once it has written the leaderboard's files."""

from __future__ import annotations

import os
import pickle
import time
from pathlib import Path

import pytest

from pipeline.core.errors import InputError
from tasks.campaign.outputs import in_processes


def _mark(path: Path) -> None:
    path.write_text(str(os.getpid()))


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never came"
        time.sleep(0.01)


def test_with_two_workers_a_forked_process_starts_at_once_and_this_one_helps_after_the_block(
    tmp_path: Path,
) -> None:
    marks = [tmp_path / f"job{n}" for n in range(6)]
    with in_processes([(_mark, path) for path in marks], workers=2):
        _wait_for(marks[0])  # the first job is the forked process's, while the block still runs
        block_pid = str(os.getpid())
    pids = [path.read_text() for path in marks]  # every job done by the time the block has ended
    assert pids[0] != block_pid
    assert set(pids) <= {pids[0], block_pid}


def test_with_one_worker_the_jobs_run_here_after_the_block() -> None:
    order: list[str] = []
    with in_processes([(order.append, "first"), (order.append, "second")], workers=1):
        order.append("block")
    assert order == ["block", "first", "second"]


def test_one_job_is_done_here_after_the_block() -> None:
    # No process is forked for it: this one is free once the block has run.
    order: list[str] = []
    with in_processes([(order.append, f"job {os.getpid()}")], workers=2):
        order.append("block")
    assert order == ["block", f"job {os.getpid()}"]


def test_no_jobs_no_processes() -> None:
    with in_processes([], workers=2):
        pass


def _mark_then_fail(path: Path, error: BaseException) -> None:
    path.write_text("taken")
    raise error


def test_an_input_error_of_a_forked_job_is_raised_here_as_it_was(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    job = (_mark_then_fail, taken, InputError("ref.tpl", 7, "no such slot"))
    with pytest.raises(InputError) as raised, in_processes([job, (_mark, tmp_path / "b")], workers=2):
        _wait_for(taken)  # the forked process has it
    error = raised.value
    assert (error.file, error.line, str(error)) == ("ref.tpl", 7, "ref.tpl:7: no such slot")


def test_a_forked_failure_too_big_for_the_pipe_comes_as_its_traceback(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    job = (_mark_then_fail, taken, ValueError("x" * 100_000))
    jobs = [job, (_mark, tmp_path / "b")]
    with pytest.raises(RuntimeError, match="Traceback") as raised, in_processes(jobs, workers=2):
        _wait_for(taken)
    assert "_mark_then_fail" in str(raised.value) and len(str(raised.value)) < 10_000


def test_an_error_of_the_block_is_not_hidden_by_the_jobs(tmp_path: Path) -> None:
    jobs = [(_mark, tmp_path / "a"), (_mark, tmp_path / "b")]
    with pytest.raises(KeyError, match="block"), in_processes(jobs, workers=2):
        raise KeyError("block")


def test_an_input_error_survives_pickling() -> None:
    # What a forked worker sends its parent; the constructor's three arguments come back.
    error = pickle.loads(pickle.dumps(InputError("a.tpl", 0, "empty")))
    assert (error.file, error.line, error.message, str(error)) == ("a.tpl", 0, "empty", "a.tpl: empty")
