"""Coarse tasks (``tasks.core.task``): a task given a cut builds the stages outside the cut in its own run,
writes each of their artifacts as its own task would, and says what it built, found or failed on."""

from __future__ import annotations

from pathlib import Path

import pytest
from iescore.tasks.core import runner
from iescore.tasks.core.base import file_spec, stage_spec, task_for
from test_runner_outcome import AddCounts, CountWords  # noqa: F401 - registers the two stages


def specs(tmp_path: Path, left: str, right: str) -> tuple[dict, dict, dict]:
    """AddCounts over CountWords(left.txt) and CountWords(right.txt)."""
    counts = []
    for name, text in (("left", left), ("right", right)):
        (tmp_path / f"{name}.txt").write_text(text)
        counts.append(stage_spec("CountWords", {}, {"text": file_spec(tmp_path / f"{name}.txt")}))
    return stage_spec("AddCounts", {}, {"left": counts[0], "right": counts[1]}), counts[0], counts[1]


def artifacts(store: Path) -> dict[str, bytes]:
    return {str(p.relative_to(store)): p.read_bytes() for p in sorted(store.rglob("*.parquet"))}


@pytest.mark.parametrize("workers", [1, 2])
def test_a_coarse_task_builds_its_inner_stages(tmp_path: Path, workers: int) -> None:
    total_spec, left_spec, right_spec = specs(tmp_path, "one two", "three")
    fine_store, coarse_store = str(tmp_path / "fine"), str(tmp_path / "coarse")
    fine = [task_for(spec, fine_store) for spec in (total_spec, left_spec, right_spec)]
    assert runner.run([fine[0]], workers=workers).ok
    # The cut: the total and the right count are tasks; the left count is built inside the total's task.
    right_key = task_for(right_spec, coarse_store).key
    total = task_for(total_spec, coarse_store, frozenset({fine[0].key, right_key}))
    assert [task.STAGE for task in total.requires().values()] == ["CountWords"]
    assert total.requires()["right"].key == right_key
    [left] = total.inner_stages()
    assert left.key == fine[1].key and left.inner_stages() == []
    first = runner.run([total], workers=workers)
    # Every stage is reported as having run (the left count inside the total's task), with its usual id.
    assert first.ok and first.ran == sorted(task.task_id for task in fine) and first.reused == []
    # Each artifact is where, and exactly what, a task of its own writes.
    assert (
        artifacts(Path(coarse_store)) == artifacts(Path(fine_store)) and len(artifacts(Path(fine_store))) == 3
    )
    assert runner.run([total], workers=workers).ran == []
    # The right file changed: the right count and the total run again; the left count, inside the total's
    # task, is found in the store and not built again.
    total_spec, left_spec, right_spec = specs(tmp_path, "one two", "three four")
    right_key = task_for(right_spec, coarse_store).key
    total = task_for(total_spec, coarse_store, frozenset({task_for(total_spec, coarse_store).key, right_key}))
    edited = runner.run([total], workers=workers)
    assert edited.ok and sorted(edited.ran) == sorted([total.task_id, total.requires()["right"].task_id])
    assert edited.reused == [left.task_id]


@pytest.mark.parametrize("workers", [1, 2])
def test_an_inner_stage_failure_is_explained(tmp_path: Path, workers: int) -> None:
    total_spec, _, _ = specs(tmp_path, "bad words", "three")
    store = str(tmp_path / "store")
    total = task_for(total_spec, store, frozenset({task_for(total_spec, store).key}))  # one task: all three
    assert total.requires() == {} and len(total.inner_stages()) == 2
    outcome = runner.run([total], workers=workers)
    assert not outcome.ok and total.task_id not in outcome.ran
    assert outcome.input_errors == [f"{tmp_path / 'left.txt'}:1: a word other than 'bad' expected"]
