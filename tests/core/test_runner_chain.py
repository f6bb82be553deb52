"""Several workers, one chain: a run whose pending tasks each need the one before runs in this process
(no two of them could run at once, and a fork per task costs start-up); any other run forks as before."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
from iescore.tasks.core import runner
from iescore.tasks.core.base import Stage, file_spec, freeze_spec, input_key, stage_spec, task_for
from iescore.tasks.core.files import plain
from iescore.tasks.core.store import read_table


class PidWords(Stage):
    """The words of a file, and the process that read them."""

    STAGE = "PidWords"
    VERSION = 1
    OUTPUTS = ("words",)

    def produce(self) -> dict[str, pa.Table]:
        words = Path(self.input_file("text")).read_text().split()
        return {"words": pa.table({"word": words, "pid": [os.getpid()] * len(words)})}


class PidJoin(Stage):
    """Words of ``left`` also in ``right`` (and ``extra``'s, when given), and the process that joined them."""

    STAGE = "PidJoin"
    VERSION = 1
    OUTPUTS = ("common",)

    def produce(self) -> dict[str, pa.Table]:
        right = set(self.input_table("right").column("word").to_pylist())
        common = [w for w in self.input_table("left").column("word").to_pylist() if w in right]
        return {"common": pa.table({"word": common, "pid": [os.getpid()] * len(common)})}


def _words(path: Path, text: str) -> dict:
    path.write_text(text)
    return stage_spec("PidWords", {}, {"text": file_spec(path)})


def _pids(task: Stage) -> set[int]:
    return set(read_table(next(iter(task.output().values()))).column("pid").to_pylist())


def test_a_chain_runs_here_with_two_workers(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    words = task_for(_words(tmp_path / "a.txt", "the cat sat on the mat"), store)
    # The join needs the same words task twice (two roles): still one chain, words then join.
    join = task_for(stage_spec("PidJoin", {}, {"left": words.spec, "right": words.spec}), store)
    assert runner.one_chain([join])
    outcome = runner.run([join], workers=2)
    assert outcome.ok and len(outcome.ran) == 2
    assert _pids(words) == _pids(join) == {os.getpid()}


def test_two_tasks_that_can_run_at_once_are_forked(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    left = task_for(_words(tmp_path / "a.txt", "the cat sat on the mat"), store)
    right = task_for(_words(tmp_path / "b.txt", "a cat on a mat"), store)
    join = task_for(stage_spec("PidJoin", {}, {"left": left.spec, "right": right.spec}), store)
    assert not runner.one_chain([join])  # left and right need nothing of each other
    outcome = runner.run([join], workers=2)
    assert outcome.ok and len(outcome.ran) == 3
    assert os.getpid() not in _pids(left) | _pids(right) | _pids(join)
    assert read_table(join.output()["common"]).column("word").to_pylist() == ["cat", "on", "mat"]


def test_a_rerun_after_one_input_changed_is_a_chain(tmp_path: Path) -> None:
    # The same graph as above, built; then one file changes: its words and the join run again, here.
    store = str(tmp_path / "store")
    right = task_for(_words(tmp_path / "b.txt", "a cat on a mat"), store)
    first = task_for(_words(tmp_path / "a.txt", "the cat sat on the mat"), store)
    before = task_for(stage_spec("PidJoin", {}, {"left": first.spec, "right": right.spec}), store)
    assert runner.run([before], workers=2).ok
    left = task_for(_words(tmp_path / "a.txt", "the dog sat on the mat"), store)
    join = task_for(stage_spec("PidJoin", {}, {"left": left.spec, "right": right.spec}), store)
    assert runner.one_chain([join])
    outcome = runner.run([join], workers=2)
    assert sorted(task_id.split("_")[0] for task_id in outcome.ran) == ["PidJoin", "PidWords"]
    assert _pids(left) == _pids(join) == {os.getpid()}
    assert read_table(join.output()["common"]).column("word").to_pylist() == ["on", "mat"]


def test_past_the_limit_it_is_not_taken_for_a_chain(tmp_path: Path, monkeypatch) -> None:
    store = str(tmp_path / "store")
    words = task_for(_words(tmp_path / "a.txt", "x y"), store)
    join = task_for(stage_spec("PidJoin", {}, {"left": words.spec, "right": words.spec}), store)
    monkeypatch.setattr(runner, "CHAIN_LIMIT", 1)
    assert not runner.one_chain([join])
    monkeypatch.setattr(runner, "CHAIN_LIMIT", 2)
    assert runner.one_chain([join])


def test_the_scheduler_is_given_the_key_and_store_not_the_spec(tmp_path: Path) -> None:
    # A campaign summary's spec holds every system's chain: Luigi would write it out each time it adds
    # the task (and send it to a central scheduler); the key names the task.
    words = task_for(_words(tmp_path / "a.txt", "x y"), str(tmp_path / "store"))
    join = task_for(
        stage_spec("PidJoin", {}, {"left": words.spec, "right": words.spec}), str(tmp_path / "store")
    )
    assert set(join.to_str_params()) == {"key", "store"}
    assert join.to_str_params()["key"] == join.key
    assert runner.run([join], workers=1).ok


def test_pending_tasks_found_already_are_not_looked_for_again(tmp_path: Path, monkeypatch) -> None:
    # The campaign command finds them for its progress count: the runner takes them as they are.
    store = str(tmp_path / "store")
    left = task_for(_words(tmp_path / "a.txt", "the cat"), store)
    right = task_for(_words(tmp_path / "b.txt", "a cat"), store)
    join = task_for(stage_spec("PidJoin", {}, {"left": left.spec, "right": right.spec}), store)

    def no_look(self: object) -> bool:
        raise AssertionError("looked at the store")

    monkeypatch.setattr(type(left), "complete", no_look)
    monkeypatch.setattr(type(join), "complete", no_look)
    assert runner.one_chain([join], [left, join])
    assert not runner.one_chain([join], [left, right, join])
    monkeypatch.setattr(runner, "CHAIN_LIMIT", 1)
    assert not runner.one_chain([join], [left, join])


def test_a_stage_spec_is_hashed_and_written_by_its_key(tmp_path: Path) -> None:
    # Luigi hashes every task's parameters and writes them into a message each time it makes a task: a
    # campaign summary's spec holds the whole graph, so its stage and key stand for it.
    store = str(tmp_path / "store")
    words = task_for(_words(tmp_path / "a.txt", "x y"), store)
    spec = stage_spec("PidJoin", {"n": 1}, {"left": words.spec, "right": words.spec})
    first, again = freeze_spec(spec), freeze_spec(plain(spec))
    assert first is not again and first == again and hash(first) == hash(again)
    other = freeze_spec(stage_spec("PidJoin", {"n": 2}, {"left": words.spec, "right": words.spec}))
    assert other != first and hash(other) != hash(first)
    assert repr(first) == f"FrozenSpec(stage='PidJoin', key={input_key(first)!r})"
    assert "sha256" in repr(first["inputs"]["left"]["inputs"]["text"])  # other parts written whole
    assert task_for(spec, store) is task_for(plain(spec), store)  # one task object
