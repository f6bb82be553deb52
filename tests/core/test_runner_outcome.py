"""What ``tasks.core.runner.run`` says of a run, in this process and with forked workers: which tasks ran,
which were reused, and each failure's explanation (bad input as its ``file:line: message``)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from iescore.pipeline.core.errors import InputError
from iescore.tasks.core import runner
from iescore.tasks.core.base import Stage, file_spec, stage_spec, task_for


class CountWords(Stage):
    """The number of words of a file; a file starting with ``bad`` is bad input, ``crash`` a bug."""

    STAGE = "CountWords"
    VERSION = 1
    OUTPUTS = ("count",)

    def produce(self) -> dict[str, pa.Table]:
        path = self.input_file("text")
        words = Path(path).read_text().split()
        if words[:1] == ["bad"]:
            raise InputError(path, 1, "a word other than 'bad' expected")
        if words[:1] == ["crash"]:
            raise RuntimeError("a bug in the stage")
        return {"count": pa.table({"words": [len(words)]})}


class AddCounts(Stage):
    """The sum of its inputs' counts."""

    STAGE = "AddCounts"
    VERSION = 1
    OUTPUTS = ("total",)

    def produce(self) -> dict[str, pa.Table]:
        total = sum(self.input_table(role).column("words")[0].as_py() for role in ("left", "right"))
        return {"total": pa.table({"words": [total]})}


def graph(tmp_path: Path, left: str, right: str) -> tuple[Stage, Stage, Stage]:
    store = str(tmp_path / "store")
    specs = []
    for name, text in (("left", left), ("right", right)):
        (tmp_path / f"{name}.txt").write_text(text)
        specs.append(stage_spec("CountWords", {}, {"text": file_spec(tmp_path / f"{name}.txt")}))
    total = stage_spec("AddCounts", {}, {"left": specs[0], "right": specs[1]})
    return task_for(total, store), task_for(specs[0], store), task_for(specs[1], store)


@pytest.mark.parametrize("workers", [1, 2])
def test_what_ran_and_what_was_reused(tmp_path: Path, workers: int) -> None:
    total, left, right = graph(tmp_path, "one two", "three")
    first = runner.run([total], workers=workers)
    assert first.ok and first.errors == first.input_errors == []
    assert first.ran == sorted([total.task_id, left.task_id, right.task_id]) and first.reused == []
    again = runner.run([total], workers=workers)
    assert again.ok and again.ran == [] and again.reused == [total.task_id]
    # One input changed: its count and the total run again; the other count is reused.
    total, left, right = graph(tmp_path, "one two", "three four")
    edited = runner.run([total], workers=workers)
    assert edited.ran == sorted([total.task_id, right.task_id]) and edited.reused == [left.task_id]


@pytest.mark.parametrize("workers", [1, 2])
def test_failures_are_explained(tmp_path: Path, workers: int) -> None:
    total, left, right = graph(tmp_path, "bad words", "crash now")
    outcome = runner.run([total], workers=workers)
    assert not outcome.ok and outcome.ran == []
    assert outcome.input_errors == [f"{tmp_path / 'left.txt'}:1: a word other than 'bad' expected"]
    [error] = outcome.errors
    assert error.startswith("Traceback") and "RuntimeError: a bug in the stage" in error
