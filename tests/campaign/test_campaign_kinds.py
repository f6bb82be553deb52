"""Campaign kinds: ``scorer = "muc"`` and ``scorer = "coref"`` campaigns, their keys, outputs and reruns,
and their HTML pages in headless Chromium."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from iescore.pipeline.campaign import reuse
from iescore.pipeline.campaign.engine import _chain_view, read_campaign
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.coref import align_documents, mention_table, read_conll
from iescore.tasks.campaign.graph import campaign_spec
from iescore.tasks.cli.main import main
from iescore.tasks.core import runner
from iescore.tasks.core.base import task_for
from significance_file import json_pairs

DATA = Path(__file__).resolve().parents[2] / "data"


def copy_kind(tmp_path: Path, campaign: str, folder: str) -> Path:
    shutil.copytree(DATA / folder, tmp_path / folder)
    shutil.copy(DATA / campaign, tmp_path / campaign)
    return tmp_path / campaign


def cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def run(campaign_file: Path, store: Path) -> runner.Outcome:
    summary, _ = campaign_spec(read_campaign(campaign_file))
    outcome = runner.run([task_for(summary, str(store))])
    assert outcome.ok, outcome.errors + outcome.input_errors
    return outcome


def families(task_ids: list[str]) -> Counter[str]:
    return Counter(task_id.split("_", 1)[0] for task_id in task_ids)


# --- MUC campaigns -------------------------------------------------------------------------------


def test_muc_campaign_ranks_by_all_slots_f(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    campaign = copy_kind(tmp_path, "muc-campaign.toml", "muc-te")
    status, out, err = cli(capsys, "campaign", campaign, "--json", tmp_path / "board.json")
    assert status == 0, err
    # By hand (te.config: ORG_NAME and PER_NAME weigh 4, the rest 1; premodifier "the", designators
    # "Inc." "Corp."); three documents, POS 6 + 2 + 2 = 10 for every system:
    # - perfect: every scored slot right: COR 10, F 100.
    # - given: document 9303020074 is tests/data/muc_te's response (test_muc.py: COR 4 INC 1 MIS 1 SPU 1),
    #   9303020075 right (PER_NAME, PER_TITLE: COR 2), 9303020076 right ("Acme" and "Acme Corp." both
    #   normalize to "Acme"; ORG_TYPE: COR 2): COR 8 INC 1 MIS 1 SPU 1, POS 10 ACT 10, F 8/10 = 80.00.
    # - partial: 9303020074 right (COR 6), 9303020075 missing (MIS 2), 9303020076 ORG_TYPE wrong (COR 1
    #   INC 1): COR 7 INC 1 MIS 2, POS 10 ACT 8, REC 70, PRE 87.5, F 2 * 7 / 18 = 77.78.
    lines = out.splitlines()
    assert lines[2].split()[:11] == [
        "1",
        "perfect",
        "10",
        "10",
        "10",
        "0",
        "0",
        "0",
        "100.00",
        "100.00",
        "100.00",
    ]
    assert lines[3].split()[:11] == ["2", "given", "10", "10", "8", "1", "1", "1", "80.00", "80.00", "80.00"]
    assert lines[4].split()[:11] == ["3", "partial", "10", "8", "7", "1", "2", "0", "70.00", "87.50", "77.78"]
    board = json.loads((tmp_path / "board.json").read_text())
    assert [row["system"] for row in board["leaderboard"]] == ["perfect", "given", "partial"]
    significance = json_pairs(tmp_path / "board.json", "muc")
    assert significance[0]["measure"] == "F"
    # Tied to the board: given - partial is 80 - 7/9 * 100 = 2.22 points, and every delta is the printed
    # difference; every interval holds its system's printed F.
    f_of = {row["system"]: row["F"] for row in board["leaderboard"]}
    pairs = {(pair["system_a"], pair["system_b"]): pair["delta"] for pair in significance}
    assert pairs[("given", "partial")] == pytest.approx(80 - 700 / 9, abs=2e-6)
    for (a, b), delta in pairs.items():
        assert delta == pytest.approx(f_of[a] - f_of[b], abs=2e-6)
    for row in board["leaderboard"]:
        assert row["F_low"] - 1e-6 <= row["F"] <= row["F_high"] + 1e-6, row["system"]


def test_muc_campaign_reruns_only_the_edited_system(tmp_path: Path) -> None:
    campaign = copy_kind(tmp_path, "muc-campaign.toml", "muc-te")
    store = tmp_path / "store"
    first = run(campaign, store)
    # Key side once (IngestMucTemplates, NormalizeMucStrings), per system IngestMucTemplates,
    # NormalizeMucStrings, MapAndScore, Report, and the summary.
    assert families(first.ran) == Counter(
        IngestMucTemplates=4,
        NormalizeMucStrings=4,
        MapAndScore=3,
        Report=3,
        CampaignSummary=1,
    )
    assert run(campaign, store).ran == []
    partial = tmp_path / "muc-te" / "partial.tpl"
    partial.write_text(partial.read_text().replace("GOVERNMENT", "COMPANY"))
    assert families(run(campaign, store).ran) == Counter(
        IngestMucTemplates=1,
        NormalizeMucStrings=1,
        MapAndScore=1,
        Report=1,
        CampaignSummary=1,
    )


def test_muc_configuration_of_the_coreference_task_is_refused(tmp_path: Path) -> None:
    shutil.copytree(Path(__file__).parents[1] / "data" / "muc_co", tmp_path / "co")
    campaign = tmp_path / "c.toml"
    campaign.write_text(
        'scorer = "muc"\n\n[reference]\nconfig = "co/co.config"\n\n'
        '[systems.a]\nresponse = "co/response.sgml"\n'
    )
    with pytest.raises(InputError) as error:
        read_campaign(campaign)
    assert error.value.line == 4 and 'scorer = "coref"' in error.value.message


# --- coreference campaigns -----------------------------------------------------------------------


def test_coref_campaign_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    campaign = copy_kind(tmp_path, "coref-campaign.toml", "coref-sample")
    status, out, err = cli(
        capsys, "campaign", campaign, "--json", tmp_path / "b.json", "--csv", tmp_path / "b.csv",
        "--out", tmp_path / "out",
    )  # fmt: skip
    assert status == 0, err
    rows = {row["system"]: row for row in json.loads((tmp_path / "b.json").read_text())["leaderboard"]}
    # merged, by hand. Key d1: K1 = {John, him, he}, K2 = {Mary, she}; response d1: R = all five;
    # d2 right (K = {Ann, she}, {Bob, him}).
    # MUC: recall (3-1) + (2-1) = 3 of 3 in d1, 2 of 2 in d2; precision (5-2) of (5-1) in d1, 2 of 2:
    #   R 5/5, P 5/6, F1 10/11 = 90.909091.
    # B3: recall 1 for every key mention (9/9); precision in d1 3 x 3/5 + 2 x 2/5 = 2.6 of 5, d2 4 of 4:
    #   P 6.6/9 = 11/15, F1 2 (11/15) / (26/15) = 11/13 = 84.615385.
    # CEAF-e (phi4): d1 K1~R 2*3/8 = 0.75 (K2~R 4/7 left unaligned); d2 1 + 1: sum 2.75, R 2.75/4,
    #   P 2.75/3, F1 11/14 = 78.571429.
    # CoNLL F1 = (10/11 + 11/13 + 11/14) / 3 = 84.698635.
    merged = rows["merged"]
    assert merged["MUC_F1"] == pytest.approx(100 * 10 / 11, abs=1e-6)
    assert merged["B3_F1"] == pytest.approx(100 * 11 / 13, abs=1e-6)
    assert merged["CEAFe_F1"] == pytest.approx(100 * 11 / 14, abs=1e-6)
    assert merged["CoNLL_F1"] == pytest.approx(100 * (10 / 11 + 11 / 13 + 11 / 14) / 3, abs=1e-6)
    assert rows["perfect"]["CoNLL_F1"] == 100 and rows["perfect"]["rank"] == 1 and merged["rank"] == 2
    assert merged["CoNLL_F1_low"] <= merged["CoNLL_F1"] <= merged["CoNLL_F1_high"]
    significance = json_pairs(tmp_path / "b.json", "coref")
    assert {pair["measure"] for pair in significance} == {"CoNLL_F1"}
    # Tied to the board: each delta is the printed CoNLL F1 difference (6 decimals each) and each
    # system's interval holds its printed CoNLL F1.
    assert len(significance) == 3
    for pair in significance:
        difference = rows[pair["system_a"]]["CoNLL_F1"] - rows[pair["system_b"]]["CoNLL_F1"]
        assert pair["delta"] == pytest.approx(difference, abs=2e-6), pair
    for row in rows.values():
        assert row["CoNLL_F1_low"] - 1e-6 <= row["CoNLL_F1"] <= row["CoNLL_F1_high"] + 1e-6, row["system"]
    assert out.splitlines()[0].split()[:6] == ["rank", "system", "MUC_F1", "B3_F1", "CEAFe_F1", "CoNLL_F1"]
    assert "84.70" in out.splitlines()[3]
    assert (tmp_path / "b.csv").read_text().splitlines()[0].startswith("rank,system,MUC_R,MUC_P,MUC_F1")
    folders = {
        path.name.split("-")[0]: path for path in (tmp_path / "out" / "systems").iterdir() if path.is_dir()
    }
    assert (
        "MUC:     recall 5 / 5 100.0%   precision 5 / 6 83.3%"
        in (folders["merged"] / "report.txt").read_text()
    )
    assert json.loads((folders["merged"] / "scores.json").read_text())["muc"]["recall"] == 100.0
    assert (tmp_path / "out" / "report.html").is_file()


def test_coref_campaign_reruns_only_the_edited_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign = copy_kind(tmp_path, "coref-campaign.toml", "coref-sample")
    store = tmp_path / "store"
    assert families(run(campaign, store).ran) == Counter(ScoreCorefResponse=3, CampaignSummary=1)
    assert run(campaign, store).ran == []
    split = tmp_path / "coref-sample" / "split.conll"
    split.write_text(split.read_text().replace("d1\t0\t5\the\t(3)", "d1\t0\t5\the\t(1)"))
    read: list[str] = []
    original = reuse.system_values

    def spy(family: object, name: str, table: object) -> object:
        read.append(name)
        return original(family, name, table)  # type: ignore[arg-type]

    monkeypatch.setattr(reuse, "system_values", spy)
    assert families(run(campaign, store).ran) == Counter(ScoreCorefResponse=1, CampaignSummary=1)
    assert read == ["split"]  # the summary read the edited system's statistics only


# --- bad input -----------------------------------------------------------------------------------

BAD = [
    # registered kinds (mat, senseval, clef, trec, ...) follow the three built-in scorers in the list
    ('scorer = "nosuch"\n', 1, 'scorer: one of "templette", "muc", "coref", '),
    (
        'scorer = "coref"\n[reference]\nkey = "coref-sample/key.conll"\n[options]\ncompare = "both"\n'
        '[systems.a]\nresponse = "coref-sample/split.conll"\n',
        5,
        'options.compare is a key of templette campaigns, not of this scorer = "coref" campaign',
    ),
    (
        '[reference]\ntemplates = "coref-sample/key.conll"\n[options]\nformat = "conll"\n'
        '[systems.a]\ntemplates = "coref-sample/split.conll"\n',
        4,
        "options.format is a key of coref campaigns",
    ),
    (
        'scorer = "muc"\n[reference]\nconfig = "coref-sample/key.conll"\n[systems.a]\n'
        'templates = "coref-sample/split.conll"\n',
        5,
        "systems.a.templates is a key of templette campaigns",
    ),
    (
        'scorer = "coref"\n[reference]\nkey = "coref-sample/key.conll"\n[systems.a]\n'
        'response = "coref-sample/missing.conll"\n',
        5,
        "systems.a.response: file 'coref-sample/missing.conll' not found",
    ),
    (
        'scorer = "coref"\n[reference]\nkey = "coref-sample/key.conll"\n[options]\nmatch = "min"\n'
        '[systems.a]\nresponse = "coref-sample/split.conll"\n',
        5,
        'needs format = "sgml"',
    ),
]


@pytest.mark.parametrize(("text", "line", "message"), BAD)
def test_bad_campaign_kinds_exit_2_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: int, message: str
) -> None:
    shutil.copytree(DATA / "coref-sample", tmp_path / "coref-sample")
    campaign = tmp_path / "c.toml"
    campaign.write_text(text)
    status, out, err = cli(
        capsys, "campaign", campaign, "--store", tmp_path / "store", "--out", tmp_path / "out"
    )
    assert status == 2 and f"{campaign}:{line}: " in err and message in err, err
    assert out == "" and not (tmp_path / "store").exists() and not (tmp_path / "out").exists()


def test_chain_view_counts_missing_and_spurious_mentions_as_chains_of_their_own(tmp_path: Path) -> None:
    key_file, response_file = tmp_path / "key.conll", tmp_path / "response.conll"
    # Key: chain A = {t0, t2}, chain B = {t4, t5}. Response: {t0, t6} (t6 spurious), {t4, t5}; t2 missed.
    # By the rule: A is split (t0 in one response chain, t2 in none), B is not; the response chain
    # {t0, t6} is merged (t0 of A, t6 of no key chain), {t4, t5} is not.
    lines = {
        key_file: {0: "(1)", 2: "(1)", 4: "(2)", 5: "(2)"},
        response_file: {0: "(7)", 6: "(7)", 4: "(8)", 5: "(8)"},
    }
    for path, marks in lines.items():
        body = "".join(f"d\t0\t{i}\tw{i}\t{marks.get(i, '-')}\n" for i in range(7))
        path.write_text(f"#begin document (d);\n{body}#end document\n")
    key, response = read_conll(key_file), read_conll(response_file, response=True)
    frame = mention_table(align_documents(key, response))
    view = _chain_view("(d);", {"s": frame})
    assert [[m.text for m in chain] for chain in view.key] == [["w0", "w2"], ["w4", "w5"]]
    assert [[(m.text, m.status) for m in chain] for chain in view.responses["s"]] == [
        [("w0", "COR"), ("w6", "SPU")],
        [("w4", "COR"), ("w5", "COR")],
    ]
    assert view.split == {"s": [0]} and view.merged == {"s": [0]}
