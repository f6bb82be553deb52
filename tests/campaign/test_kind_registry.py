"""The campaign-kind registry (``pipeline.campaign.kinds``, ``tasks.campaign.kinds``): a family that
declares a CampaignKind and a TaskKind gets campaigns (typed campaign-file keys, leaderboard, intervals,
significance, outputs, HTML page) with no other change to the engine. A toy family here: per document,
``correct`` of ``total`` decisions, measure ``accuracy`` = correct / total, categories are labels."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from iescore.pipeline.campaign.engine import Campaign, System, plural, read_campaign
from iescore.pipeline.campaign.kinds import KINDS, register_kind
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.family import Family, statistics_table
from iescore.pipeline.core.kinds import CampaignKind, Field
from iescore.pipeline.core.signature import SIGNATURE_KEY
from iescore.tasks.campaign.kinds import TASK_KINDS, TaskKind, register_task_kind
from iescore.tasks.cli.main import main
from iescore.tasks.core.base import Stage, file_spec, stage_spec
from significance_file import json_pairs

ROOT = Path(__file__).resolve().parents[2]


def _accuracy(sums: np.ndarray, options: Mapping[str, Any]) -> np.ndarray:
    correct, total = sums[..., 0], sums[..., 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(total > 0, correct / np.where(total > 0, total, 1), np.nan)
        errors = np.where(total > 0, (total - correct) / np.where(total > 0, total, 1), np.nan)
    return np.stack([accuracy, errors], axis=-1)


TOY = Family(
    name="toy",
    unit="documents",
    statistic_names=("correct", "total"),
    measure_names=("accuracy", "error_rate"),
    headline="accuracy",
    categories="label",
    formula=_accuracy,
    counts=("correct", "total"),
)
TOY_CAMPAIGN = CampaignKind(
    name="toy",
    family=TOY,
    reference={"key": Field("file", "the toy key", required=True)},
    system={
        "answers": Field("file", "the system's answers", required=True),
        "additional": Field("bool", "trained with additional data", default=False),
    },
    options={"weight": Field("number", "a toy option", default=1.0, low=0.0)},
    board=("accuracy", "error_rate"),
    headline_label="Accuracy",
    ranking_note="ranked by accuracy",
    attributes=("additional",),
)


class ToyScore(Stage):
    """A system's answers (lines ``doc label correct total``) as the toy family's statistics."""

    STAGE = "ToyScore"
    VERSION = 1
    OUTPUTS = ("statistics",)

    def produce(self) -> dict[str, pa.Table]:
        rows = [line.split() for line in Path(self.input_file("answers")).read_text().splitlines() if line]
        units = [r[0] for r in rows for _ in range(2)]
        categories = [r[1] for r in rows for _ in range(2)]
        names = [n for _ in rows for n in ("correct", "total")]
        values = [float(v) for r in rows for v in (r[2], r[3])]
        table = statistics_table(units, categories, names, values)
        return {"statistics": table.replace_schema_metadata({SIGNATURE_KEY: self.options["signature"]})}


def _toy_spec(campaign: Campaign, system: System) -> dict[str, Any]:
    return stage_spec(
        "ToyScore",
        {"signature": f"toy|{system.name}"},
        {"key": file_spec(campaign.reference_values["key"]), "answers": file_spec(system.values["answers"])},
    )


def _write_toy_files(folder: Path, task: Stage) -> None:
    (folder / "toy.txt").write_text("toy report\n", encoding="utf-8")


@pytest.fixture
def toy_kind() -> Iterator[None]:
    register_kind(TOY_CAMPAIGN)
    register_task_kind(TaskKind("toy", "ToyScore", _toy_spec, ("toy.txt",), _write_toy_files))
    yield
    KINDS.pop("toy", None)
    TASK_KINDS.pop("toy", None)


def write_campaign(tmp_path: Path, extra: str = "", systems: str | None = None) -> Path:
    (tmp_path / "key.txt").write_text("key\n", encoding="utf-8")
    # Hand counts, by document (correct of total) and label:
    #   good:  d1 A 9/10, d2 B 8/10, d3 A 10/10  -> 27/30 = 0.9
    #   weak:  d1 A 5/10, d2 B 6/10, d3 A 4/10   -> 15/30 = 0.5
    (tmp_path / "good.txt").write_text("d1 A 9 10\nd2 B 8 10\nd3 A 10 10\n", encoding="utf-8")
    (tmp_path / "weak.txt").write_text("d1 A 5 10\nd2 B 6 10\nd3 A 4 10\n", encoding="utf-8")
    if systems is None:
        systems = (
            '[systems.weak]\nanswers = "weak.txt"\n\n'
            '[systems."<b>good</b>"]\nanswers = "good.txt"\nadditional = true\n'
        )
    path = tmp_path / "toy.toml"
    path.write_text(
        f'scorer = "toy"\nstore = "store"\n\n[reference]\nkey = "key.txt"\n\n'
        f"[options]\nresamples = 200\nseed = 7\n{extra}\n{systems}",
        encoding="utf-8",
    )
    return path


def test_a_registered_kind_runs_a_whole_campaign(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], toy_kind: None
) -> None:
    campaign = write_campaign(tmp_path)
    out_dir, page = tmp_path / "out", tmp_path / "page.html"
    status = main(["campaign", str(campaign), "--out", str(out_dir), "--html", str(page)])
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:6] == ["rank", "system", "additional", "accuracy", "error_rate", "accuracy"]
    # Best first: <b>good</b> accuracy 27/30 = 0.9000 (error 0.1000), weak 15/30 = 0.5000.
    assert lines[2].split()[:5] == ["1", "<b>good</b>", "yes", "0.9000", "0.1000"]
    assert lines[3].split()[:5] == ["2", "weak", "no", "0.5000", "0.5000"]
    assert "ranked by accuracy" in out
    board = json.loads((out_dir / "leaderboard.json").read_text())
    rows = {row["system"]: row for row in board["leaderboard"]}
    assert rows["weak"]["accuracy"] == pytest.approx(0.5)
    assert rows["<b>good</b>"]["additional"] is True
    for row in rows.values():  # every interval contains its estimate
        assert row["accuracy_low"] <= row["accuracy"] <= row["accuracy_high"]
    (pair,) = json_pairs(out_dir / "leaderboard.json")
    # The delta is the difference the board prints: 0.9 - 0.5.
    assert pair["system_a"] == "<b>good</b>" and pair["delta"] == pytest.approx(0.4)
    assert (out_dir / "leaderboard.csv").read_text().splitlines()[0].startswith("rank,system,additional,")
    index = (out_dir / "systems" / "index.csv").read_text().splitlines()
    folder = out_dir / index[1].split(",")[-1]
    assert (folder / "toy.txt").read_text() == "toy report\n"
    statistics = (folder / "statistics.csv").read_text().splitlines()
    assert statistics[0] == "unit,category,statistic,value" and len(statistics) == 7
    html = page.read_text()
    assert "<b>good</b>" not in html and "&lt;b&gt;good&lt;/b&gt;" in html
    # The page's only script is its own (the leaderboard's sort and filter, the matrix), with its data.
    assert re.findall(r"<script\b[^>]*>", html) == [
        '<script type="application/json" id="board-data">',
        "<script>",
    ]
    assert "&lt;b&gt;good&lt;/b&gt; (additional: yes)" in html
    # The heat map shows accuracy by label (a fraction of 1, the kind's unit): good A = 19/20, B = 8/10.
    assert "Accuracy 0.9500" in html and "Accuracy 0.8000" in html


@pytest.mark.parametrize(
    ("extra", "systems", "line", "message"),
    [
        (
            "weight = -1\n",
            None,
            10,
            "options.weight: a number >= 0.0 expected, found the whole number -1",
        ),
        ('weight = "2"\n', None, 10, "options.weight: a finite number expected"),
        ('compare = "both"\n', None, 10, "options.compare is a key of templette campaigns"),
        ("", '[systems.a]\nanswers = "missing.txt"\n', 12, "file 'missing.txt' not found"),
        ("", '[systems.a]\nanswers = "good.txt"\nadditional = "yes"\n', 13, "true or false expected"),
        ("", '[systems.a]\nresponse = "good.txt"\n', 12, "systems.a.response is a key of muc and coref"),
        ("", "[systems.a]\n", 11, "systems.a.answers = ... expected"),
    ],
)
def test_a_registered_kinds_keys_are_typed(
    tmp_path: Path, toy_kind: None, extra: str, systems: str | None, line: int, message: str
) -> None:
    campaign = write_campaign(tmp_path, extra, systems)
    with pytest.raises(InputError) as error:
        read_campaign(campaign)
    assert message in str(error.value)
    assert error.value.line == line, str(error.value)


@pytest.mark.parametrize(
    ("unit", "shown"),
    [("document", "documents"), ("query", "queries"), ("day", "days"), ("documents", "documents")],
)
def test_units_read_in_the_plural(unit: str, shown: str) -> None:
    assert plural(unit) == shown


def test_a_directory_input_digest_follows_its_files(tmp_path: Path) -> None:
    folder = tmp_path / "system"
    folder.mkdir()
    (folder / "a.txt").write_text("one", encoding="utf-8")
    first = file_spec(folder)["sha256"]
    (folder / "b.txt").write_text("two", encoding="utf-8")
    second = file_spec(folder)["sha256"]
    (folder / "b.txt").rename(folder / "c.txt")
    third = file_spec(folder)["sha256"]
    assert len({first, second, third}) == 3


# --- the ranking measure and the t-test (issue 15, points 4 and 5, for every kind) -----------------------


def _means(sums: np.ndarray, options: Mapping[str, Any]) -> np.ndarray:
    units = sums[..., :1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(units > 0, sums[..., 1:] / np.where(units > 0, units, 1), np.nan)


# Per document: ``units`` = 1 and two scores; ``mean_a``, ``mean_b`` are their means over documents.
MEAN_TOY = Family(
    name="meantoy",
    unit="documents",
    statistic_names=("units", "a", "b"),
    measure_names=("mean_a", "mean_b"),
    headline="mean_a",
    categories=None,
    formula=_means,
    counts=("units",),
)
MEAN_TOY_CAMPAIGN = CampaignKind(
    name="meantoy",
    family=MEAN_TOY,
    reference={"key": Field("file", "the toy key", required=True)},
    system={"answers": Field("file", "the system's scores", required=True)},
    board=("mean_a",),
    measure_option="measure",
    per_unit_mean=True,
)


class MeanToyScore(Stage):
    """A system's scores (lines ``doc a b``) as the mean toy family's statistics."""

    STAGE = "MeanToyScore"
    VERSION = 1
    OUTPUTS = ("statistics",)

    def produce(self) -> dict[str, pa.Table]:
        rows = [line.split() for line in Path(self.input_file("answers")).read_text().splitlines() if line]
        units = [r[0] for r in rows for _ in range(3)]
        names = [n for _ in rows for n in ("units", "a", "b")]
        values = [float(v) for r in rows for v in ("1", r[1], r[2])]
        table = statistics_table(units, [None] * len(units), names, values)
        return {"statistics": table.replace_schema_metadata({SIGNATURE_KEY: self.options["signature"]})}


def _mean_toy_spec(campaign: Campaign, system: System) -> dict[str, Any]:
    return stage_spec(
        "MeanToyScore",
        {"signature": f"meantoy|{system.name}"},
        {"key": file_spec(campaign.reference_values["key"]), "answers": file_spec(system.values["answers"])},
    )


@pytest.fixture
def mean_toy_kind() -> Iterator[None]:
    register_kind(MEAN_TOY_CAMPAIGN)
    register_task_kind(TaskKind("meantoy", "MeanToyScore", _mean_toy_spec, ()))
    yield
    KINDS.pop("meantoy", None)
    TASK_KINDS.pop("meantoy", None)


def _two_sided_t_p(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's t with 3 degrees of freedom, in closed form (Abramowitz and Stegun
    26.7.3, odd df): with theta = atan(|t| / sqrt(3)), P(|T| < t) = (2 / pi) (theta + sin theta cos theta).
    scipy-independent, to check the engine's p-values."""
    assert df == 3
    theta = math.atan(abs(t) / math.sqrt(3))
    return 1 - 2 / math.pi * (theta + math.sin(theta) * math.cos(theta))


def write_mean_campaign(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "key.txt").write_text("key\n", encoding="utf-8")
    # Scores a (and b) of documents d1..d4:
    #   good: a 0.5 0.6 0.7 0.4 (mean 0.55)   b 0.1 0.1 0.1 0.1 (mean 0.1)
    #   mid:  a 0.5 0.5 0.5 0.5 (mean 0.50)   b 0.2 0.2 0.2 0.2 (mean 0.2)
    #   weak: a 0.4 0.4 0.4 0.2 (mean 0.35)   b 0.3 0.3 0.3 0.3 (mean 0.3)
    scores = {
        "good": ((0.5, 0.6, 0.7, 0.4), 0.1),
        "mid": ((0.5, 0.5, 0.5, 0.5), 0.2),
        "weak": ((0.4, 0.4, 0.4, 0.2), 0.3),
    }
    systems = ""
    for name, (a, b) in scores.items():
        lines = "".join(f"d{i} {value} {b}\n" for i, value in enumerate(a, start=1))
        (tmp_path / f"{name}.txt").write_text(lines, encoding="utf-8")
        systems += f'[systems.{name}]\nanswers = "{name}.txt"\n\n'
    path = tmp_path / "meantoy.toml"
    path.write_text(
        f'scorer = "meantoy"\nstore = "store"\n\n[reference]\nkey = "key.txt"\n\n'
        f"[options]\nresamples = 200\nseed = 7\n{extra}\n{systems}",
        encoding="utf-8",
    )
    return path


def test_a_kind_campaign_has_the_t_test_and_holm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mean_toy_kind: None
) -> None:
    campaign = write_mean_campaign(tmp_path)
    out_dir, page = tmp_path / "out", tmp_path / "page.html"
    status = main(["campaign", str(campaign), "--out", str(out_dir), "--html", str(page)])
    out, err = capsys.readouterr()
    assert status == 0, err
    pairs = json_pairs(out_dir / "leaderboard.json")
    by_pair = {(p["system_a"], p["system_b"]): p for p in pairs}
    assert list(by_pair) == [("good", "mid"), ("good", "weak"), ("mid", "weak")]
    # Paired t-tests over the 4 documents, by hand (differences d, sample sd with n - 1 = 3, t = mean(d) /
    # (sd / 2)):
    #   good - mid:  d = 0, .1, .2, -.1: mean .05, sd sqrt(.05 / 3) = .1291, t = .05 / .06455 = sqrt(0.6)
    #   good - weak: d = .1, .2, .3, .2: mean .2, sd sqrt(.02 / 3) = .08165, t = .2 / .04082 = sqrt(24)
    #   mid - weak:  d = .1, .1, .1, .3: mean .15, sd sqrt(.03 / 3) = .1, t = .15 / .05 = 3
    # Two-sided p (3 df): sqrt(0.6) -> 0.49502; sqrt(24) -> 0.016282; 3 -> 1/3 - sqrt(3) / (2 pi) = 0.057669.
    expected = {
        ("good", "mid"): _two_sided_t_p(math.sqrt(0.6), 3),
        ("good", "weak"): _two_sided_t_p(math.sqrt(24), 3),
        ("mid", "weak"): _two_sided_t_p(3.0, 3),
    }
    assert expected[("mid", "weak")] == pytest.approx(1 / 3 - math.sqrt(3) / (2 * math.pi))
    for pair, p in expected.items():
        assert by_pair[pair]["t_test_p"] == pytest.approx(p, rel=1e-9)
    # Holm over m = 3: sorted 0.016282 x 3 = 0.048846, 0.057669 x 2 = 0.115338, 0.49502 x 1 = 0.49502
    # (running maximum: unchanged).
    assert by_pair[("good", "weak")]["t_test_p_holm"] == pytest.approx(3 * expected[("good", "weak")])
    assert by_pair[("mid", "weak")]["t_test_p_holm"] == pytest.approx(2 * expected[("mid", "weak")])
    assert by_pair[("good", "mid")]["t_test_p_holm"] == pytest.approx(expected[("good", "mid")])
    # The randomization p-values, adjusted the same way: smallest x 3, then x 2 (at least the first), then
    # x 1 (at least the second), each at most 1.
    ordered = sorted(by_pair, key=lambda pair: by_pair[pair]["randomization_p"])
    running = 0.0
    for rank, pair in enumerate(ordered):
        running = max(running, min(1.0, (3 - rank) * by_pair[pair]["randomization_p"]))
        assert by_pair[pair]["randomization_p_holm"] == pytest.approx(running)
    assert "t p(next)" in out.splitlines()[0] and "t Holm" in out.splitlines()[0]
    assert "Holm's correction for multiple comparisons over all 3 pairs" in out
    header = (out_dir / "significance.csv").read_text().splitlines()[0]
    assert header.endswith("t_test_p,randomization_p_holm,t_test_p_holm")
    html = page.read_text()
    assert "Holm&#8217;s correction</b> for multiple comparisons over all 3 pairs" in html
    assert "paired t-test" in html and '"labels":["bs","ar","ar Holm","t","t Holm"]' in html


def test_a_kind_campaign_ranks_by_the_measure_its_options_choose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mean_toy_kind: None
) -> None:
    campaign = write_mean_campaign(tmp_path, 'measure = "mean_b"\n')
    out_dir, page = tmp_path / "out", tmp_path / "page.html"
    status = main(["campaign", str(campaign), "--out", str(out_dir), "--html", str(page)])
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = out.splitlines()
    # Ranked by mean_b: weak 0.3, mid 0.2, good 0.1; the board shows mean_b beside mean_a, and its interval.
    assert lines[0].split()[:4] == ["rank", "system", "mean_a", "mean_b"] and "mean_b 95% CI" in lines[0]
    assert [line.split()[:4] for line in lines[2:5]] == [
        ["1", "weak", "0.3500", "0.3000"],
        ["2", "mid", "0.5000", "0.2000"],
        ["3", "good", "0.5500", "0.1000"],
    ]
    assert "ranked by mean_b" in out
    board = json.loads((out_dir / "leaderboard.json").read_text())
    rows = {row["system"]: row for row in board["leaderboard"]}
    assert rows["weak"]["mean_b_low"] == pytest.approx(0.3) == rows["weak"]["mean_b_high"]  # b is constant
    pair = json_pairs(out_dir / "leaderboard.json")[0]
    # weak - mid on mean_b: 0.3 - 0.2; the differences are all 0.1, so no t-test.
    assert (pair["system_a"], pair["system_b"], pair["measure"]) == ("weak", "mid", "mean_b")
    assert pair["delta"] == pytest.approx(0.1) and pair["t_test_p"] is None
    html = page.read_text()
    assert "Significance of differences in mean_b" in html and "mean_b by measure" in html


def test_a_ranking_measure_the_family_lacks_is_refused_with_its_line(
    tmp_path: Path, mean_toy_kind: None
) -> None:
    campaign = write_mean_campaign(tmp_path, 'measure = "mean_c"\n')
    with pytest.raises(InputError) as error:
        read_campaign(campaign)
    assert error.value.line == 10, str(error.value)
    assert 'options.measure: one of "mean_a", "mean_b" expected' in str(error.value)


def test_a_kind_without_a_measure_option_ranks_by_its_headline_only(tmp_path: Path, toy_kind: None) -> None:
    campaign = write_campaign(tmp_path, 'measure = "error_rate"\n')
    with pytest.raises(InputError, match="options.measure"):
        read_campaign(campaign)
    with pytest.raises(ValueError, match="ranks by one of"):
        MEAN_TOY_CAMPAIGN.ranked_by("accuracy")


def test_each_declared_kind_is_the_one_its_name_says() -> None:
    for name in list(KINDS):
        assert KINDS[name].name == name
        assert TASK_KINDS[name].name == name
    assert set(KINDS) == set(TASK_KINDS)


def test_a_campaign_imports_its_own_family_alone(tmp_path: Path) -> None:
    # A fresh process reads the sample MAT campaign and builds its graph: no other family's campaign
    # module is imported (the registry imports a kind when it is asked for).
    script = (
        "import sys\n"
        "from iescore.pipeline.campaign.engine import read_campaign\n"
        "from iescore.tasks.campaign.run import CampaignRequest, campaign_graph\n"
        f"campaign_graph(read_campaign({str(ROOT / 'data' / 'mat-campaign.toml')!r}), "
        f"CampaignRequest(store={str(tmp_path / 'store')!r}))\n"
        "print(' '.join(m for m in sys.modules if m.startswith('iescore.') and m.endswith('.campaign')))\n"
    )
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    families = {module.split(".")[2] for module in found.stdout.split()}
    assert families == {"campaign", "mat"}, found.stdout
