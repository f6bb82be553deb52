"""WER campaigns (``scorer = "wer"``): sclite's alignment per system on the one campaign engine, ranked by
WER (lowest first), sc_stats' MAPSSWE and sign test beside the bootstrap and randomization, the page's
label heat map and alignments by utterance, reruns that align only the changed system, and bad input.

Expected numbers come from a hand calculation (the tiny campaign below) or from sclite 2.10 and
sc_stats 1.3's own outputs committed under tests/data/speech/sctk (see its README)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from iescore.pipeline.campaign.engine import read_campaign
from iescore.pipeline.campaign.kinds import KINDS
from iescore.schemas import WER_ALIGNMENT
from iescore.tasks.campaign.graph import campaign_spec
from iescore.tasks.cli.main import main
from iescore.tasks.core import runner
from iescore.tasks.core.base import task_for
from significance_file import json_pairs

ROOT = Path(__file__).resolve().parents[2]
SCTK = ROOT / "tests" / "data" / "speech" / "sctk"
INPUTS = SCTK / "inputs"
CASES = SCTK / "cases"

# A tiny campaign worked by hand (-i spu_id: the speaker is the id before "_").
REFERENCE = "the cat sat (spk1_1)\non the mat (spk1_2)\nhello world (spk2_1)\n"
SYSTEM_A = "the cat sat (spk1_1)\non a mat (spk1_2)\nhello (spk2_1)\n"
SYSTEM_B = "a cat sat down (spk1_1)\non the mat (spk1_2)\nhello there world (spk2_1)\n"


def tiny(tmp_path: Path, options: str = "", names: tuple[str, str] = ("A", "B")) -> Path:
    (tmp_path / "ref.trn").write_text(REFERENCE)
    (tmp_path / "a.trn").write_text(SYSTEM_A)
    (tmp_path / "b.trn").write_text(SYSTEM_B)
    campaign = tmp_path / "wer.toml"
    campaign.write_text(
        'scorer = "wer"\n\n[reference]\ntranscript = "ref.trn"\nformat = "trn"\n\n'
        f'[options]\nid_type = "spu_id"\n{options}\n'
        f'[systems."{names[0]}"]\nhypothesis = "a.trn"\n\n[systems."{names[1]}"]\nhypothesis = "b.trn"\n'
    )
    return campaign


def cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_tiny_campaign_is_ranked_by_wer_lowest_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    campaign = tiny(tmp_path)
    status, out, err = cli(
        capsys, "campaign", campaign, "--json", tmp_path / "b.json", "--out", tmp_path / "out"
    )
    assert status == 0, err
    # By hand, 8 reference words:
    # - A: spk1_1 C C C; spk1_2 C S("the"->"a") C; spk2_1 C D("world"): C 6 S 1 D 1 I 0,
    #   WER 2/8 = 25.00, Corr 75.00, Sub 12.50, Del 12.50, Ins 0, S.Err 2 of 3 utterances = 66.67.
    # - B: spk1_1 S("the"->"a") C C I("down"); spk1_2 C C C; spk2_1 C I("there") C: C 7 S 1 D 0 I 2,
    #   WER 3/8 = 37.50, Corr 87.50, Sub 12.50, Del 0, Ins 25.00, S.Err 2/3 = 66.67.
    # A ranks first although B has more words right: lower WER is better.
    lines = out.splitlines()
    assert lines[2].split()[:10] == ["1", "A", "3", "8", "75.00", "12.50", "12.50", "0.00", "25.00", "66.67"]
    assert lines[3].split()[:10] == ["2", "B", "3", "8", "87.50", "12.50", "0.00", "25.00", "37.50", "66.67"]
    board = json.loads((tmp_path / "b.json").read_text())
    assert [row["system"] for row in board["leaderboard"]] == ["A", "B"]
    assert board["leaderboard"][0]["wer"] == pytest.approx(25.0)
    (pair,) = json_pairs(tmp_path / "b.json", "wer")
    assert pair["measure"] == "wer" and pair["delta"] == pytest.approx(25.0 - 37.5)
    # Sign test by hand on the speakers' WER: A (1/6, 1/2), B (2/6, 1/2): spk2 equal, spk1 B higher:
    # one each side after the tie is split, p = 1.
    assert pair["sign_p"] == pytest.approx(1.0) and pair["sign_p_holm"] == pytest.approx(1.0)
    assert pair["mapsswe_p"] is not None and pair["mapsswe_p_holm"] == pair["mapsswe_p"]  # one pair
    for row in board["leaderboard"]:
        assert row["wer_low"] - 1e-6 <= row["wer"] <= row["wer_high"] + 1e-6
    # Every pair-test column is named in the one significance schema.
    header = next(csv.reader(io.StringIO((tmp_path / "out" / "significance.csv").read_text())))
    assert {"mapsswe_p", "mapsswe_p_holm", "sign_p", "sign_p_holm"} <= set(header)
    # The per-speaker heat map: A spk1 1/6 = 16.7, spk2 1/2 = 50.0; B spk1 2/6 = 33.3, spk2 50.0.
    page = (tmp_path / "out" / "report.html").read_text()
    for system, speaker, value in (("A", "spk1", "16.7"), ("A", "spk2", "50.0"), ("B", "spk1", "33.3")):
        assert f'title="{system}, {speaker}: WER {value} %"' in page
    # Each system's alignment as sclite's .pra blocks, errors in upper case.
    pra = next((tmp_path / "out" / "systems").glob("B-*")) / "alignment.pra"
    block = "REF:  THE cat sat **** \nHYP:  A   cat sat DOWN \nEval: S           I    \n"
    assert block in pra.read_text()
    assert block in page


def test_a_campaigns_wer_is_sclites_and_its_pair_tests_are_sc_stats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # SCTK's csrnab set with the three systems of the fixtures' multi_trn case (sclite -i wsj).
    campaign = tmp_path / "trn.toml"
    campaign.write_text(
        f'scorer = "wer"\n[reference]\ntranscript = "{INPUTS / "csrnab.ref"}"\n[options]\nid_type = "wsj"\n'
        + "".join(
            f'[systems.{name}]\nhypothesis = "{INPUTS / file}"\n'
            for name, file in (
                ("sysA", "csrnab.hyp"),
                ("sysB", "csrnab.sysB.hyp"),
                ("sysC", "csrnab.sysC.hyp"),
            )
        )
    )
    status, _, err = cli(capsys, "campaign", campaign, "--json", tmp_path / "b.json")
    assert status == 0, err
    board = json.loads((tmp_path / "b.json").read_text())
    wer = {row["system"]: row for row in board["leaderboard"]}
    # sclite's .sys Sum/Avg rows (cases/multi_trn): # Wrd and Err %; its .raw: 169 errors of 1406 words.
    for name, file in (("sysA", "csrnab.hyp"), ("sysB", "csrnab.sysB.hyp"), ("sysC", "csrnab.sysC.hyp")):
        (line,) = [
            x for x in (CASES / "multi_trn" / f"{file}.sys").read_text().splitlines() if "Sum/Avg" in x
        ]
        cells = line.replace("|", " ").split()
        assert wer[name]["Wrd"] == int(cells[2])
        assert round(wer[name]["wer"], 1) == float(cells[7]), name
        assert round(wer[name]["ser"], 1) == float(cells[8]), name
    assert wer["sysA"]["wer"] == pytest.approx(100 * 169 / 1406, abs=1e-6)
    assert [row["system"] for row in board["leaderboard"]] == ["sysB", "sysA", "sysC"]
    # sc_stats' unified report (cases/stats_trn_unified): MP sysA-sysB <0.001, sysA-sysC 0.184,
    # sysB-sysC <0.001; SI 0.250, 1.000, 0.250.
    significance = json_pairs(tmp_path / "b.json", "wer")
    pairs = {frozenset((p["system_a"], p["system_b"])): p for p in significance}
    unified = (CASES / "stats_trn_unified" / "stats_trn_unified.stats.unified").read_text()
    assert "| sysB   <0.001   *** |    ~    0.184       |" in unified
    assert "|    ~    0.250       |    ~    1.000       |" in unified
    assert pairs[frozenset(("sysA", "sysB"))]["mapsswe_p"] < 0.001
    assert round(pairs[frozenset(("sysA", "sysC"))]["mapsswe_p"], 3) == 0.184
    assert pairs[frozenset(("sysB", "sysC"))]["mapsswe_p"] < 0.001
    assert round(pairs[frozenset(("sysA", "sysB"))]["sign_p"], 3) == 0.250
    assert round(pairs[frozenset(("sysA", "sysC"))]["sign_p"], 3) == 1.000
    assert round(pairs[frozenset(("sysB", "sysC"))]["sign_p"], 3) == 0.250
    # Holm over the three pairs: the smallest p times 3, then running maxima.
    raw = sorted(p["sign_p"] for p in significance)
    holm = sorted(p["sign_p_holm"] for p in significance)
    assert holm[0] == pytest.approx(min(1.0, 3 * raw[0]))


def test_the_sample_stm_campaign_matches_sclites_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(ROOT / "data" / "wer-sample", tmp_path / "wer-sample")
    shutil.copy(ROOT / "data" / "wer-campaign.toml", tmp_path / "wer-campaign.toml")
    status, _, err = cli(
        capsys,
        "campaign",
        tmp_path / "wer-campaign.toml",
        "--out",
        tmp_path / "out",
        "--json",
        tmp_path / "b.json",
    )
    assert status == 0, err
    board = json.loads((tmp_path / "b.json").read_text())
    wer = {row["system"]: row["wer"] for row in board["leaderboard"]}
    # sclite's .raw Sum rows (cases/multi_stm): sysA 937 errors of 1779 words; its .sys: sysB 56.4,
    # sysC 58.7 (Err %).
    assert wer["sysA"] == pytest.approx(100 * 937 / 1779, abs=1e-6)
    assert round(wer["sysB"], 1) == 56.4 and round(wer["sysC"], 1) == 58.7
    # The label heat map is sclite's .lur (cases/multi_stm/lvc_hyp.ctm.lur, sysA): Overall 52.7,
    # With Alt 49.7, NO Alt 60.9, columns named by the labels' titles.
    page = (tmp_path / "out" / "report.html").read_text()
    for label, value in (("Overall", "52.7"), ("With Alt", "49.7"), ("NO Alt", "60.9")):
        assert f'title="sysA, {label}: WER {value} %"' in page
    lur = (CASES / "multi_stm" / "lvc_hyp.ctm.lur").read_text()
    assert "| Set Sum/Avg | [1779]     52.7 || [1309]     49.7 | [470]     60.9 |" in lur
    # The alignment block of a segment is sclite's (cases/multi_stm/lvc_hyp.ctm.pra, without the File
    # and Channel lines).
    pra = next((tmp_path / "out" / "systems").glob("sysA-*")) / "alignment.pra"
    block = (
        "REF:  **** I'VE  UM    a;s far as i'm CONCERNED \n"
        "HYP:  THEY PRIDE ABOUT a;s far as i'm I         \n"
        "Eval: I    S     S                    S         \n"
    )
    assert block in (CASES / "multi_stm" / "lvc_hyp.ctm.pra").read_text()
    assert block in pra.read_text()


def test_a_rerun_after_one_system_changed_aligns_only_that_system(tmp_path: Path) -> None:
    campaign = tiny(tmp_path)
    store = tmp_path / "store"

    def run() -> runner.Outcome:
        summary, _ = campaign_spec(read_campaign(campaign))
        outcome = runner.run([task_for(summary, str(store))])
        assert outcome.ok, outcome.errors + outcome.input_errors
        return outcome

    def families(task_ids: list[str]) -> Counter[str]:
        return Counter(task_id.split("_", 1)[0] for task_id in task_ids)

    assert families(run().ran) == Counter(AlignSpeech=2, CampaignSummary=1)
    assert run().ran == []
    (tmp_path / "b.trn").write_text(SYSTEM_B.replace("down", "up"))
    assert families(run().ran) == Counter(AlignSpeech=1, CampaignSummary=1)
    # The alignment is an artifact an organiser can read: every word pair with its utterance and speaker.
    paths = sorted(store.rglob("AlignSpeech/**/*.alignment.parquet"))
    assert len(paths) == 3  # A, and B before and after its change
    table = pq.read_table(paths[0])
    assert table.schema.names == WER_ALIGNMENT.names
    assert set(table.column("op").to_pylist()) <= {"C", "S", "D", "I"}


def test_the_page_escapes_inputs_and_bounds_its_alignments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    campaign = tiny(tmp_path, "html_documents = 2\n", names=("<b>A</b>", "B"))
    (tmp_path / "a.trn").write_text(SYSTEM_A.replace("on a mat", "on <i>a</i> mat"))
    status, _, err = cli(capsys, "campaign", campaign, "--html", tmp_path / "page.html")
    assert status == 0, err
    page = (tmp_path / "page.html").read_text()
    assert "<b>A</b>" not in page and "<i>" not in page
    assert "&lt;b&gt;A&lt;/b&gt;" in page and "&lt;I&gt;A&lt;/I&gt;" in page
    # html_documents = 2: two utterances of each system, of the three.
    assert page.count("utterances)</summary>") == 2 and page.count("<pre>id: (") == 2 * 2
    assert "first 2 of the 3 utterances" in page


def test_the_kind_ranks_lower_first_and_declares_its_pair_tests() -> None:
    kind = KINDS["wer"]
    assert kind.family.sign("wer") == -1.0 and kind.family.sign("corr") == 1.0
    assert [test.columns for test in kind.pair_tests] == [
        ("mapsswe_p", "mapsswe_p_holm"),
        ("sign_p", "sign_p_holm"),
    ]


BAD = [
    ("missing reference", "ref.trn", "nope.trn", 4, "reference.transcript: file 'nope.trn' not found"),
    (
        "unknown format",
        'hypothesis = "b.trn"',
        'hypothesis = "b.trn"\nformat = "txt"',
        15,
        'one of "trn", "ctm"',
    ),
    (
        "unknown id type",
        '"spu_id"',
        '"bogus"',
        8,
        'options.id_type: one of "swb", "rm", "wsj", "spu_id", "sp"',
    ),
    (
        "unknown encoding",
        'id_type = "spu_id"',
        'id_type = "spu_id"\nencoding = "latin-1"',
        9,
        "options.encoding",
    ),
    (
        "ctm system for a trn reference",
        'hypothesis = "b.trn"',
        'hypothesis = "b.trn"\nformat = "ctm"',
        15,
        "ctm hypotheses against a trn reference are not scored; systems.B.format must be trn",
    ),
]


@pytest.mark.parametrize(("case", "old", "new", "line", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_campaign_inputs_exit_2_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, old: str, new: str, line: int, message: str
) -> None:
    campaign = tiny(tmp_path)
    text = campaign.read_text()
    assert old in text, case
    campaign.write_text(text.replace(old, new, 1))
    status, out, err = cli(capsys, "campaign", campaign, "--out", tmp_path / "out")
    assert status == 2, (case, err)
    assert f"wer.toml:{line}:" in err and message in err, err
    assert not (tmp_path / "out").exists() and not (tmp_path / "iescore-store").exists()


def test_a_bad_hypothesis_line_exits_2_naming_its_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    campaign = tiny(tmp_path)
    (tmp_path / "b.trn").write_text("on the mat (spk1_2)\nhello world\n")
    status, _, err = cli(capsys, "campaign", campaign, "--out", tmp_path / "out")
    assert status == 2
    assert "b.trn:2:" in err and "utterance id" in err, err
    assert not (tmp_path / "out").exists()


def test_only_a_kind_with_pair_tests_shows_their_columns() -> None:
    from iescore.pipeline.campaign.engine import significance_rows
    from iescore.schemas import SIGNIFICANCE

    empty = SIGNIFICANCE.empty_table()
    assert "mapsswe_p" not in significance_rows(KINDS["trec"], empty).column_names
    assert "sign_p_holm" not in significance_rows(KINDS["templette"], empty).column_names
    assert significance_rows(KINDS["wer"], empty).column_names == SIGNIFICANCE.names


def test_a_family_names_only_its_measures_as_lower_is_better() -> None:
    from dataclasses import replace

    with pytest.raises(ValueError, match="lower_better"):
        replace(KINDS["wer"].family, lower_better=("nonsense",))
