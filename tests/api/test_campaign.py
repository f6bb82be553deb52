"""iescore.campaign gives what ``iescore campaign`` prints and writes; a dict is a campaign file.

The expected values are the command's own (its boards are tested against hand calculations and
reference programs in tests/campaign and each family's folder): the point here is that the library and
the command cannot disagree.
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

import pytest
from iescore.pipeline.campaign.engine import DICT_ORIGIN
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import main
from significance_file import json_pairs

from iescore.campaign import Campaign, artifacts, load_artifact, run

DATA = Path(__file__).resolve().parents[2] / "data"
SAMPLES = sorted(DATA.glob("*campaign.toml"))


def test_every_kind_of_the_brief_has_a_sample() -> None:
    names = {path.name for path in SAMPLES}
    assert {"campaign.toml", "trec-campaign.toml", "mat-campaign.toml"} <= names


@pytest.mark.parametrize("sample", SAMPLES, ids=[path.name for path in SAMPLES])
def test_api_gives_the_command_s_board(
    sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, board_json = tmp_path / "store", tmp_path / "board.json"
    assert main(["campaign", str(sample), "--store", str(store), "--json", str(board_json)]) == 0
    printed = capsys.readouterr().out
    result = run(sample, store=store)
    assert isinstance(result, Campaign)
    assert result.text == printed
    written = json.loads(board_json.read_text())
    board = _plain(result.board.to_dict("records"))
    assert [list(row) for row in board] == [list(row) for row in written["leaderboard"]]
    for row, row_written in zip(board, written["leaderboard"], strict=True):
        for key, value in row.items():
            # The file rounds measures to 6 decimals.
            expected = row_written[key]
            assert value == (pytest.approx(expected, abs=1e-6) if isinstance(expected, float) else expected)
    # The significance of the file is in the kind's unit; the table keeps the stage's fractions.
    written_pairs = json_pairs(board_json, "templette")
    pairs = [(row["system_a"], row["system_b"]) for row in written_pairs]
    assert list(zip(result.significance.system_a, result.significance.system_b, strict=True)) == pairs
    assert result.significance.randomization_p.tolist() == pytest.approx(
        [row["randomization_p"] for row in written_pairs], abs=1e-9
    )
    assert set(result.board.system) == set(result.leaderboard.system)
    assert result.board.system.iloc[0] in result._repr_html_()


def _plain(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """DataFrame records as the JSON file has them (NaN is null, whole numbers are ints)."""
    return [
        {key: None if isinstance(value, float) and math.isnan(value) else value for key, value in row.items()}
        for row in rows
    ]


def test_outputs_are_the_command_s_files(tmp_path: Path) -> None:
    sample = DATA / "trec-campaign.toml"
    store = tmp_path / "store"
    assert main(["campaign", str(sample), "--store", str(store), "--out", str(tmp_path / "command")]) == 0
    result = run(sample, store=store, out=tmp_path / "api", csv=tmp_path / "board.csv")
    for name in ("leaderboard.txt", "leaderboard.csv", "leaderboard.json", "significance.csv"):
        assert (tmp_path / "api" / name).read_bytes() == (tmp_path / "command" / name).read_bytes()
    assert (tmp_path / "board.csv").read_bytes() == (tmp_path / "api" / "leaderboard.csv").read_bytes()
    assert (tmp_path / "api" / "report.html").read_text(encoding="utf-8") == result.html
    page = result.save(tmp_path / "page.html")
    assert page.read_text(encoding="utf-8") == result.html


def test_a_dict_is_its_file(tmp_path: Path) -> None:
    sample = DATA / "trec-campaign.toml"
    data = tomllib.loads(sample.read_text(encoding="utf-8"))
    store = tmp_path / "store"
    from_file = run(sample, store=store)
    from_dict = run(data, base=DATA, store=store)
    # The same graph: the dict's summary is the file's (same key), read from the store.
    assert from_dict._graph.summary.key == from_file._graph.summary.key
    assert from_dict.text == from_file.text
    assert from_dict.board.equals(from_file.board)
    # Paths as os.PathLike and arrays as tuples are taken as TOML's strings and arrays.
    data["reference"]["qrels"] = DATA / data["reference"]["qrels"]
    assert run(data, base=DATA, store=store)._graph.summary.key == from_file._graph.summary.key


def test_a_dict_s_default_store_is_in_base(tmp_path: Path) -> None:
    data = tomllib.loads((DATA / "trec-campaign.toml").read_text(encoding="utf-8"))
    del data["store"]
    for key in ("qrels",):
        data["reference"][key] = str(DATA / data["reference"][key])
    for system in data["systems"].values():
        system["run"] = str(DATA / system["run"])
    result = run(data, base=tmp_path)
    assert Path(result.store) == tmp_path / "iescore-store"


# Each: a change to the TREC sample's dict, and the key the error must name.
BAD_VALUES = [
    (lambda d: d.update(scorer=3), "scorer"),
    (lambda d: d.update(store=7), "store"),
    (lambda d: d.update(systems="teamA"), "systems"),
    (lambda d: d["reference"].update(qrels=5), "reference.qrels"),
    (lambda d: d["options"].update(resamples="1000"), "options.resamples"),
    (lambda d: d["options"].update(seed=1.5), "options.seed"),
    (lambda d: d["systems"]["teamA_run1"].update(baseline="yes"), "systems.teamA_run1.baseline"),
    (lambda d: d["systems"]["teamA_run1"].update(run=["a.txt", 3]), "systems.teamA_run1.run"),
    (lambda d: d["systems"].update(teamC=3), "systems.teamC"),
    (lambda d: d["options"].update(compare="both"), "options.compare"),
]


def test_none_is_no_toml_value(tmp_path: Path) -> None:
    data = tomllib.loads((DATA / "trec-campaign.toml").read_text(encoding="utf-8"))
    data["store"] = None
    with pytest.raises(InputError, match="store: a value expected, found None"):
        run(data, base=DATA)


@pytest.mark.parametrize("change,key", BAD_VALUES, ids=[key for _, key in BAD_VALUES])
def test_a_bad_dict_value_names_its_key_as_the_file_would(change: Any, key: str, tmp_path: Path) -> None:
    data = tomllib.loads((DATA / "trec-campaign.toml").read_text(encoding="utf-8"))
    change(data)
    with pytest.raises(InputError) as from_dict:
        run(data, base=DATA, store=tmp_path / "store")
    assert from_dict.value.file == DICT_ORIGIN
    assert key in from_dict.value.message
    # The same mistake in a campaign file: the same message, with the file and its line.
    campaign_file = tmp_path / "bad.toml"
    campaign_file.write_text(_toml(data, DATA), encoding="utf-8")
    with pytest.raises(InputError) as from_file:
        run(campaign_file, store=tmp_path / "store")
    assert from_file.value.file == str(campaign_file)
    assert from_file.value.line > 0
    assert from_file.value.message == from_dict.value.message
    assert not (tmp_path / "store").exists()


def test_a_stage_s_bad_input_is_an_input_error(tmp_path: Path) -> None:
    data = tomllib.loads((DATA / "trec-campaign.toml").read_text(encoding="utf-8"))
    bad_run = tmp_path / "bad_run.txt"
    bad_run.write_text("q1 Q0 doc1 1\n", encoding="utf-8")  # trec_eval's six columns expected
    data["systems"]["teamA_run1"]["run"] = str(bad_run)
    with pytest.raises(InputError) as error:
        run(data, base=DATA, store=tmp_path / "store")
    assert error.value.file == DICT_ORIGIN
    assert f"{bad_run}:1:" in error.value.message


def test_keys_must_be_strings(tmp_path: Path) -> None:
    data = tomllib.loads((DATA / "trec-campaign.toml").read_text(encoding="utf-8"))
    data["systems"][3] = {"run": "x"}
    with pytest.raises(InputError, match="systems: keys are strings, found 3"):
        run(data, base=DATA, store=tmp_path / "store")


@pytest.mark.parametrize(
    "options,option",
    [
        ({"workers": 0}, "--workers"),
        ({"progress": "loud"}, "--progress"),
        ({"scheduler_port": 0}, "--scheduler-port"),
    ],
)
def test_bad_options_are_input_errors(options: dict[str, Any], option: str, tmp_path: Path) -> None:
    with pytest.raises(InputError) as error:
        run(DATA / "trec-campaign.toml", store=tmp_path / "store", **options)
    assert error.value.file == option


def test_artifacts_as_frames(tmp_path: Path) -> None:
    store = tmp_path / "store"
    result = run(DATA / "trec-campaign.toml", store=store)
    run(DATA / "mat-campaign.toml", store=store)  # another campaign in the same store
    listed = artifacts(store)
    own = result.artifacts()
    assert set(own.key) < set(listed.key)
    assert own.drop(columns="system").equals(listed[listed.key.isin(own.key)].reset_index(drop=True))
    # Each run's chain is its own; the qrels and the summary are shared.
    runs = own[own.stage == "IngestRun"]
    assert sorted(runs.system) == ["teamA_run1", "teamA_run2", "teamB_run1"]
    assert own[own.stage.isin(["IngestQrels", "CampaignSummary"])].system.isna().all()
    statistics = own[(own.stage == "TrecStatistics") & (own.system == "teamA_run1")]
    assert set(load_artifact(statistics.path.iloc[0]).columns) >= {"unit", "statistic", "value"}
    assert set(listed.columns) >= {"stage", "name", "key", "rows", "path", "inputs"}
    assert (listed.path.map(lambda path: Path(path).is_file())).all()
    summary = own[(own.stage == "CampaignSummary") & (own.name == "leaderboard")]
    assert len(summary) == 1
    assert summary.key.iloc[0] == result._graph.summary.key
    assert load_artifact(summary.path.iloc[0]).equals(result.leaderboard)
    with pytest.raises(InputError):
        artifacts(tmp_path / "missing")


def _toml(data: dict[str, Any], base: Path) -> str:
    """``data`` written as a TOML campaign file (the values this test uses: strings, numbers, booleans,
    arrays), its relative paths made absolute against ``base`` so the file may live elsewhere."""

    def value(item: Any, key: str) -> str:
        if isinstance(item, list):
            return "[" + ", ".join(value(part, key) for part in item) + "]"
        if isinstance(item, bool):
            return str(item).lower()
        if isinstance(item, str) and key in ("qrels", "run") and not Path(item).is_absolute():
            return json.dumps(str(base / item))
        return json.dumps(item) if isinstance(item, str) else repr(item)

    def table(name: str, entries: dict[str, Any]) -> list[str]:
        lines = [f"[{name}]"] if name else []
        lines += [
            f"{key} = {value(item, key)}" for key, item in entries.items() if not isinstance(item, dict)
        ]
        for key, item in entries.items():
            if isinstance(item, dict):
                lines += table(f"{name}.{key}" if name else key, item)
        return lines

    return "\n".join(table("", data)) + "\n"
