"""The one runner: a spec's stages computed in this process without a store (``tasks.core.compute``, what
commands without ``--store`` run), against the same spec run by Luigi into a store."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from iescore.tasks.cli.common import run_stages
from iescore.tasks.core.base import Stage, file_spec, stage_spec
from iescore.tasks.core.compute import compute

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


def test_compute_gives_the_stored_artifacts_and_computes_each_stage_once(tmp_path):
    spec = _spec(tmp_path)
    CALLS.clear()
    done: dict = {}
    here = compute(spec, done)
    # a: the cat sat on the mat; b: a cat on a mat -> common words of a in b, in a's order: cat on mat;
    # a's word lengths 3+3+3+2+3+3 = 17.
    assert here["common"].to_pydict() == {"word": ["cat", "on", "mat"], "left_total": [17, 17, 17]}
    assert sorted(CALLS) == ["ToyJoin", "ToyJoin", "ToyWords", "ToyWords"]
    assert len(done) == 4
    assert compute(spec, done) is here
    assert len(CALLS) == 4  # nothing computed again


def test_the_same_artifacts_with_and_without_a_store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = _spec(tmp_path)
    CALLS.clear()
    status, here = run_stages([spec], None)
    assert status == 0 and len(CALLS) == 4
    assert list(tmp_path.rglob("*.parquet")) == []  # nothing written without a store
    store = tmp_path / "store"
    status, stored = run_stages([spec], str(store))
    assert status == 0 and len(CALLS) == 8  # Luigi ran the same four stages
    assert len(list(store.rglob("*.parquet"))) == 6  # two ToyWords (two outputs each), two ToyJoin
    assert stored.table(spec, "common").equals(here.table(spec, "common"))
    first = spec["inputs"]["extra"]
    assert stored.table(first, "common").equals(here.table(first, "common"))
    words = spec["inputs"]["left"]
    assert stored.table(words, "lengths").equals(here.table(words, "lengths"))
