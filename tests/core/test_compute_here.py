"""``compute_here``: a spec's stages computed in this process, without a store (what commands without
``--store`` run), against the same spec run by Luigi into a store."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from tasks.cli.common import run_tasks
from tasks.core.base import Stage, compute_here, file_spec, stage_spec, task_for
from tasks.core.store import read_table

CALLS: list[str] = []


class ToyWords(Stage):
    """The words of a file, one row each."""

    STAGE = "ToyWords"
    VERSION = 1
    OUTPUTS = ("words", "lengths")

    def produce(self) -> dict[str, pa.Table]:
        CALLS.append(self.STAGE)
        words = Path(self.input_file("text")).read_text().split()
        return {
            "lengths": pa.table({"length": [len(w) for w in words]}),
            "words": pa.table({"word": words}),
        }


class ToyJoin(Stage):
    """Words of ``left`` also in ``right``, and the total length of ``left``'s words (its second
    output, asked for by name)."""

    STAGE = "ToyJoin"
    VERSION = 1
    OUTPUTS = ("common",)

    def produce(self) -> dict[str, pa.Table]:
        CALLS.append(self.STAGE)
        left = self.input_table("left").column("word").to_pylist()  # first output: "words"
        right = set(self.input_table("right", "words").column("word").to_pylist())
        total = sum(self.input_table("left", "lengths").column("length").to_pylist())
        common = [w for w in left if w in right]
        return {"common": pa.table({"word": common, "left_total": [total] * len(common)})}


def _spec(tmp_path: Path) -> dict:
    (tmp_path / "a.txt").write_text("the cat sat on the mat")
    (tmp_path / "b.txt").write_text("a cat on a mat")
    words_a = stage_spec("ToyWords", {}, {"text": file_spec(tmp_path / "a.txt")})
    words_b = stage_spec("ToyWords", {}, {"text": file_spec(tmp_path / "b.txt")})
    # Two joins over the same upstream stages: each ToyWords is computed once.
    first = stage_spec("ToyJoin", {}, {"left": words_a, "right": words_b})
    return stage_spec("ToyJoin", {"again": True}, {"left": words_a, "right": words_b, "extra": first})


def test_compute_here_gives_the_stored_artifacts_and_computes_each_stage_once(tmp_path):
    spec = _spec(tmp_path)
    CALLS.clear()
    done: dict = {}
    here = compute_here(spec, done)
    # a: the cat sat on the mat; b: a cat on a mat -> common words of a in b, in a's order: cat on mat;
    # a's word lengths 3+3+3+2+3+3 = 17.
    assert here["common"].to_pydict() == {"word": ["cat", "on", "mat"], "left_total": [17, 17, 17]}
    assert sorted(CALLS) == ["ToyJoin", "ToyJoin", "ToyWords", "ToyWords"]
    assert len(done) == 4
    assert compute_here(spec, done) is here
    assert len(CALLS) == 4  # nothing computed again

    store = tmp_path / "store"
    task = task_for(spec, str(store))
    assert run_tasks([task], 1) == 0
    assert read_table(task.output()["common"]).equals(here["common"])
    # Nothing was written by compute_here: the store holds only what Luigi wrote.
    assert not any(tmp_path.glob("iescore-store*"))
