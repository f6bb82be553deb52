"""The page's views kept in the store by groups of systems (``tasks.campaign.outputs.page_views``): the
rows are the systems' ``mapping_view`` rows, in campaign order, however they are grouped; a campaign of
more systems than ``PAGE_VIEW_GROUPS`` keeps at most that many files; after one system changed, only that
system's group is made again (the others are read, their mappings are not)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from iescore.pipeline.campaign.engine import mapping_view, views_rows
from iescore.schemas import MAPPING, PAGE_VIEWS
from iescore.tasks.campaign import outputs

DOCUMENTS = ["d1", "d2", "d3"]


class Scored:
    """What ``page_views`` asks of a MapAndScore task: its key and its mapping artifact."""

    def __init__(self, folder: Path, name: str, fills: list[str]) -> None:
        rows = [
            {
                "level": "fill",
                "doc_id": DOCUMENTS[i % 3],
                "instance_type": "EVENT",
                "slot": "WINNER",
                "ref_fill": '"a"',
                "hyp_fill": f'"{fill}"',
                "ref_start": 0,
                "ref_end": 1,
                "hyp_start": 0,
                "hyp_end": 1,
                "points": [
                    {"aspect": "content", "category": "COR" if fill == "a" else "INC", "reason": None}
                ],
                "COR": int(fill == "a"),
                "INC": int(fill != "a"),
                "MIS": 0,
                "SPU": 0,
                "NON": 0,
            }
            for i, fill in enumerate(fills)
        ]
        table = pa.Table.from_pylist(rows, schema=MAPPING)
        self.key = hashlib.sha256(f"{name} {fills}".encode()).hexdigest()
        self.path = folder / f"{self.key}.parquet"
        pq.write_table(table, self.path)

    def output(self) -> dict[str, str]:
        return {"mapping": str(self.path)}


def expected(scored: dict[str, Scored], shown: list[str], spans: dict[str, bool]) -> pa.Table:
    views = {
        name: mapping_view(pq.read_table(task.path), shown, spans.get(name, False), False)
        for name, task in scored.items()
    }
    return views_rows(views)


def kept(store: Path) -> list[Path]:
    return sorted((store / outputs.PAGE_VIEWS_STAGE).glob("*/*.views.parquet"))


@pytest.fixture
def systems(tmp_path: Path) -> dict[str, Scored]:
    folder = tmp_path / "mappings"
    folder.mkdir()
    return {
        f"sys{i:02d}": Scored(folder, f"sys{i:02d}", ["a", f"x{i}", "a", "b"][: 1 + i % 4]) for i in range(10)
    }


def test_groups_keep_the_rows_of_every_system_in_campaign_order(
    tmp_path: Path, systems: dict[str, Scored], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    spans = {"sys03": True}
    monkeypatch.setattr(outputs, "PAGE_VIEW_GROUPS", 4)
    rows = outputs.page_views(str(store), systems, ["d1", "d3"], spans, False)
    assert rows.equals(expected(systems, ["d1", "d3"], spans).cast(PAGE_VIEWS))
    # 10 systems in at most 4 groups: 3 + 3 + 3 + 1.
    assert len(kept(store)) == 4
    # Read back, the same rows; a system a group (up to PAGE_VIEW_GROUPS systems): 9 more files (the
    # fourth group, sys09 alone, is the same group, the same key).
    assert outputs.page_views(str(store), systems, ["d1", "d3"], spans, False).equals(rows)
    monkeypatch.setattr(outputs, "PAGE_VIEW_GROUPS", 64)
    assert outputs.page_views(str(store), systems, ["d1", "d3"], spans, False).equals(rows)
    assert len(kept(store)) == 13


def test_a_changed_system_makes_its_group_alone_again(
    tmp_path: Path, systems: dict[str, Scored], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    monkeypatch.setattr(outputs, "PAGE_VIEW_GROUPS", 4)
    outputs.page_views(str(store), systems, DOCUMENTS, {}, False)
    changed = dict(systems)
    changed["sys04"] = Scored(tmp_path / "mappings", "sys04", ["b", "b", "b"])
    read: list[str] = []
    original = outputs.read_table

    def counting(target, columns=None):
        read.append(str(target))
        return original(target, columns)

    monkeypatch.setattr(outputs, "read_table", counting)
    rows = outputs.page_views(str(store), changed, DOCUMENTS, {}, False)
    assert rows.equals(expected(changed, DOCUMENTS, {}).cast(PAGE_VIEWS))
    # sys04 is in the second group (sys03, sys04, sys05): those three mappings are read, and the
    # three other groups' kept views; one new file.
    mappings = [path for path in read if path.endswith(".parquet") and "PageViews" not in path]
    assert sorted(Path(p).name for p in mappings) == sorted(
        changed[name].path.name for name in ("sys03", "sys04", "sys05")
    )
    assert len([path for path in read if "PageViews" in path]) == 3
    assert len(kept(store)) == 5
