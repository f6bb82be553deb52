"""``iescore clef`` against eval.pl's own output files (tests/data/clef/README.md) and hand calculations.

The sample (data/clef-sample) by hand, gold 11 mentions in three reports:

run1 (11 predictions): exact offsets: chest pain, shortness of breath, left atrium+dilated, acute renal
failure, hyperkalemia, HTN, acute distress, SOB = 8; not exact: "diabetes" (inside "diabetes
mellitus"), "patient" (no gold), "renal failure" (inside "acute renal failure").
  strict:  TP 8, FP 3, FN 3 (diabetes mellitus, fever, CHF): P = R = F = 8/11 = 0.727
  relaxed: TP 10 predictions overlap a gold mention (all but "patient"), FP 1; FN 2 gold mentions
           overlapped by nothing (fever, CHF): P = 10/11 = 0.909, R = 10/12 = 0.833,
           F = 2(0.90909)(0.83333)/1.74242 = 0.870
  one-to-one: "acute renal failure" pairs with the exact prediction (19 shared characters against 13),
           "renal failure" stays unpaired: TP 9, FP 2, FN 2: P = R = F = 9/11 = 0.818
  1b: of the 8 exact, the CUI is right for 7 (acute renal failure has C0035078 for C0022660; c0013404
      equals C0013404, case aside): strict 7/11 = 0.636, relaxed 7/8 = 0.875
run2 (7 predictions): exact fever, CHF, HTN = 3; "chest pain and shortness of breath" overlaps two gold
mentions; "left atrium" overlaps the first piece of "left atrium ... dilated"; "History: " ends where
"diabetes" starts (touches, no overlap); report-04 has no gold.
  strict:  TP 3, FP 4, FN 8: P = 3/7 = 0.429, R = 3/11 = 0.273, F = 2(3/7)(3/11)/(3/7 + 3/11) = 0.333
  relaxed: TP 5 (long span, fever, left atrium, CHF, HTN), FP 2; FN 5 (diabetes mellitus, acute renal
           failure, hyperkalemia, acute distress, SOB): P = 5/7 = 0.714, R = 5/10 = 0.500, F = 0.588
  one-to-one: the long span pairs with "shortness of breath" (19 characters against 10 for "chest
           pain"): TP 5, FP 2, FN 6: P = 5/7 = 0.714, R = 5/11 = 0.455, F = 2(0.71429)(0.45455)/1.16883
           = 0.556
  1b: fever, CHF, HTN (c0020538) all right: strict 3/11 = 0.273, relaxed 3/3 = 1.000
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "clef-sample"
FIXTURES = ROOT / "tests" / "data" / "clef"
EVALPL = FIXTURES / "evalpl-output"


def clef(tmp_path: Path, system: Path, gold: Path, *options: str, name: str = "x", run: str = "1",
         task: str = "A") -> tuple[int, str]:  # fmt: skip
    """Run ``iescore clef`` writing into tmp_path/out; the status and the output file's text (or '')."""
    out = tmp_path / "out"
    out.mkdir(parents=True, exist_ok=True)
    argv = ["clef", "-input", str(system), "-gold", str(gold), "-n", name, "-r", run, "-t", task,
            "--out", str(out), *options]  # fmt: skip
    status = main(argv)
    files = [p for p in out.iterdir() if p.is_file()]
    return status, (files[0].read_text(encoding="utf-8") if len(files) == 1 else "")


@pytest.mark.parametrize(
    ("case", "system", "gold", "run", "task", "additional"),
    [
        ("sample", SAMPLE / "run1", SAMPLE / "gold", "1", "A", False),
        ("sample", SAMPLE / "run1", SAMPLE / "gold", "1", "B", False),
        ("sample", SAMPLE / "run2", SAMPLE / "gold", "2", "A", True),
        ("sample", SAMPLE / "run2", SAMPLE / "gold", "2", "B", True),
        ("edge", FIXTURES / "edge" / "system", FIXTURES / "edge" / "gold", "1", "A", False),
        ("edge", FIXTURES / "edge" / "system", FIXTURES / "edge" / "gold", "1", "B", False),
    ],
)
def test_output_file_is_eval_pl_s_byte_for_byte(
    tmp_path: Path, case: str, system: Path, gold: Path, run: str, task: str, additional: bool
) -> None:
    options = ("-a",) if additional else ()
    status, text = clef(tmp_path, system, gold, *options, name=case, run=run, task=task)
    name = f"{case}.{run}.{task}.{'add' if additional else 'noadd'}"
    assert status == 0
    assert (tmp_path / "out" / name).exists()
    assert text == (EVALPL / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(("ours", "theirs"), [("1a", "A"), ("1b", "B")])
def test_2013_task_names_print_under_their_own_heading(tmp_path: Path, ours: str, theirs: str) -> None:
    status, text = clef(tmp_path, SAMPLE / "run1", SAMPLE / "gold", name="sample", task=ours)
    assert status == 0 and (tmp_path / "out" / f"sample.1.{ours}.noadd").exists()
    expected = (EVALPL / f"sample.1.{theirs}.noadd").read_text(encoding="utf-8")
    assert text == expected.replace(f"* Task {theirs} ", f"* Task {ours} ")
    assert text.startswith(f"\n* Task {ours} Strict:\n")


def test_layout_blank_first_line_tab_three_decimals(tmp_path: Path) -> None:
    # By hand (module doc): run1 strict 8/11, relaxed 10/11, 10/12, 0.870.
    _, text = clef(tmp_path, SAMPLE / "run1", SAMPLE / "gold", task="1a")
    assert text == (
        "\n* Task 1a Strict:\nPrecision: \t0.727\nRecall: \t0.727\nF-score: \t0.727\n"
        "\n* Task 1a Relaxed:\nPrecision: \t0.909\nRecall: \t0.833\nF-score: \t0.870\n"
    )
    _, text = clef(tmp_path / "b", SAMPLE / "run1", SAMPLE / "gold", task="1b")
    assert text == "\n* Task 1b Strict:\nAccuracy: \t0.636\n\n* Task 1b Relaxed:\nAccuracy: \t0.875\n"


def test_stdout_adds_the_one_to_one_measure_and_signature(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # By hand (module doc): one-to-one run1 9/11 = 0.818; run2 P 5/7, R 5/11, F 0.556.
    clef(tmp_path, SAMPLE / "run1", SAMPLE / "gold", task="1a")
    out = capsys.readouterr().out
    assert (
        "* Task 1a Overlap one-to-one (iescore, not eval.pl):\nPrecision: \t0.818\nRecall: \t0.818\n" in out
    )
    assert "scorer:clef|task:1a|gold:" in out
    clef(tmp_path / "2", SAMPLE / "run2", SAMPLE / "gold", task="A", run="2")
    out = capsys.readouterr().out
    assert "Precision: \t0.714\nRecall: \t0.455\nF-score: \t0.556\n" in out.split("one-to-one")[1]


def test_edge_cases_by_hand_and_the_one_to_one_measure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tests/data/clef/edge by hand. Gold: r1 g1 [0,10), g2 [20,30)+[40,45), g3 [50,60), g4 [62,70),
    g5 [80,90); r2 g6 [5,15), g7 [100,110). System (all.txt, both reports; the second 20..45 line, CUI
    C0000099, replaces the first; .hidden and backup~ unread): [0,10) c0000001, 20..45 C0000099,
    [41,44), [55,65), [70,80) (touches g4 and g5), [85,95)+[96,97), [86,88), r2 [5,15) cui-less.
    strict: TP 3 (0-10, 20..45, 5-15), FP 5, FN 4: P 3/8 = 0.375, R 3/7 = 0.429, F 0.400.
    relaxed: TP 7 (all but [70,80)), FP 1; FN 1 (g7; g3 and g4 both by [55,65)): 0.875 each.
    one-to-one, by shared characters: g2-20..45 15, g1-0..10 10, g6-5..15 10, g3-55..65 5, g5-85..97 5
    taken; g4-55..65 (3), g2-41..44 (3), g5-86..88 (2) refused: TP 5, FP 3, FN 2:
    P 5/8 = 0.625, R 5/7 = 0.714, F 2(0.625)(0.71429)/1.33929 = 0.667.
    1b: right CUI for 0-10 (case aside) and 5-15 (cui-less), not 20..45: strict 2/7 = 0.286, relaxed 2/3.
    """
    edge = FIXTURES / "edge"
    json_path = tmp_path / "edge.json"
    status, _ = clef(tmp_path, edge / "system", edge / "gold", "--json", str(json_path), "--by-report")
    assert status == 0
    data = json.loads(json_path.read_text())
    assert data["counts"] == {
        "strict_tp": 3, "strict_fp": 5, "strict_fn": 4, "relaxed_tp": 7, "relaxed_fp": 1, "relaxed_fn": 1,
        "one_to_one_tp": 5, "one_to_one_fp": 3, "one_to_one_fn": 2, "correct": 2, "nbest_correct": 2,
    }  # fmt: skip
    measures = data["measures"]
    assert round(measures["one_to_one_P"], 3) == 0.625 and round(measures["one_to_one_R"], 3) == 0.714
    assert round(measures["one_to_one_F"], 3) == 0.667
    # Per report: r1 has 7 predictions (2 strict TP: 0-10, 20..45), r2 one (TP) and g7 missed.
    by_report = {row["report"]: row for row in data["by_report"]}
    assert (by_report["r1"]["strict_tp"], by_report["r1"]["strict_fp"], by_report["r1"]["strict_fn"]) == (
        2,
        5,
        3,
    )
    assert (by_report["r2"]["strict_tp"], by_report["r2"]["strict_fp"], by_report["r2"]["strict_fn"]) == (
        1,
        0,
        1,
    )
    out, err = capsys.readouterr()
    assert "TOTAL" in out and "r2 " in out
    # The replaced line is said, with both places.
    assert "all.txt:2: replaced by all.txt:10" in err


def test_zero_length_spans_overlap_nothing_unlike_eval_pl(tmp_path: Path) -> None:
    """Gold [10,20); predictions [15,15) and [20,20). Ours: no character is shared, so relaxed TP 0, FP 2,
    FN 1 and everything 0. eval.pl (evalpl-output/zero-length.1.A.noadd) takes [15,15) for an overlap:
    relaxed P 0.500, R 1.000, F 0.667. The issue's rule (zero-length spans overlap nothing) is ours."""
    case = FIXTURES / "zero-length"
    _, text = clef(tmp_path, case / "system", case / "gold")
    assert "* Task A Relaxed:\nPrecision: \t0.000\nRecall: \t0.000\nF-score: \t0.000\n" in text
    theirs = (EVALPL / "zero-length.1.A.noadd").read_text()
    assert "* Task A Relaxed:\nPrecision: \t0.500\nRecall: \t1.000\nF-score: \t0.667\n" in theirs


def test_crlf_is_read_as_line_ends_and_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The system file of tests/data/clef/crlf has the gold's two lines with CRLF ends: both match
    exactly (strict P = R = F = 1, 1b 2/2). eval.pl keeps the CR and finds no exact match (its output
    file says 0.000), which we never do; we say it on stderr."""
    case = FIXTURES / "crlf"
    _, text = clef(tmp_path, case / "system", case / "gold")
    assert "* Task A Strict:\nPrecision: \t1.000\nRecall: \t1.000\nF-score: \t1.000\n" in text
    assert "Precision: \t0.000" in (EVALPL / "crlf.1.A.noadd").read_text()
    err = capsys.readouterr().err
    assert "r1.pipe:1: CRLF line ends" in err
    _, text = clef(tmp_path / "b", case / "system", case / "gold", task="B")
    assert text == "\n* Task B Strict:\nAccuracy: \t1.000\n\n* Task B Relaxed:\nAccuracy: \t1.000\n"


def test_task_2_strict_and_relaxed_accuracy(tmp_path: Path) -> None:
    """data/clef-sample/task2 by hand: 4 pre-annotated abbreviations. HTN: system C0020538 = the top code
    (strict and relaxed); CHF: C0018801, second of the n-best (relaxed only); Pt: c0030705 = top (case
    aside); SOB: no answer. Strict 2/4 = 0.500, relaxed 3/4 = 0.750."""
    task2 = SAMPLE / "task2"
    status, text = clef(tmp_path, task2 / "run1", task2 / "gold", task="2")
    assert status == 0
    assert text == "\n* Task 2 Strict:\nAccuracy: \t0.500\n\n* Task 2 Relaxed:\nAccuracy: \t0.750\n"


def test_same_files_in_any_order_and_names_score_the_same(tmp_path: Path) -> None:
    """Shuffled lines and renamed files (reports come from the first field) change nothing."""
    shuffled = tmp_path / "shuffled"
    shuffled.mkdir()
    lines = [line for path in sorted((SAMPLE / "run1").iterdir()) for line in path.read_text().splitlines()]
    random.Random(7).shuffle(lines)
    (shuffled / "z").write_text("\n".join(lines[:5]) + "\n")
    (shuffled / "a.pipe").write_text("\n".join(lines[5:]) + "\n")
    json_a, json_b = tmp_path / "a.json", tmp_path / "b.json"
    clef(tmp_path / "1", SAMPLE / "run1", SAMPLE / "gold", "--json", str(json_a))
    clef(tmp_path / "2", shuffled, SAMPLE / "gold", "--json", str(json_b))
    a, b = json.loads(json_a.read_text()), json.loads(json_b.read_text())
    assert a["counts"] == b["counts"] and a["counts"]["one_to_one_tp"] == 9


def test_store_keeps_the_stages_and_reuses_them(tmp_path: Path) -> None:
    store = tmp_path / "store"
    clef(tmp_path / "a", SAMPLE / "run1", SAMPLE / "gold", "--store", str(store))
    stages = sorted(p.name for p in store.iterdir() if p.is_dir())
    assert stages == ["ClefReport", "IngestMentions", "MatchMentions", "TallyMentions"]
    before = sorted(str(p) for p in store.rglob("*.parquet"))
    assert len(before) == 5  # two sides ingested, matches, statistics, scores
    # A second run of the same inputs builds nothing new; another system adds its own chain only.
    clef(tmp_path / "b", SAMPLE / "run1", SAMPLE / "gold", "--store", str(store))
    assert sorted(str(p) for p in store.rglob("*.parquet")) == before
    copy = tmp_path / "run1-copy"
    shutil.copytree(SAMPLE / "run1", copy)
    (copy / "report-03.pipe.txt").write_text("report-03||Disease_Disorder||CUI-less||3||17\n")
    clef(tmp_path / "c", copy, SAMPLE / "gold", "--store", str(store))
    after = sorted(str(p) for p in store.rglob("*.parquet"))
    assert len(after) == len(before) + 4  # the gold's ingest is reused


def test_output_file_goes_to_the_current_directory_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["clef", "-input", str(SAMPLE / "run2"), "-gold", str(SAMPLE / "gold"), "-n", "team", "-r", "2",
            "-t", "B", "-a", "--workers", "2"]  # fmt: skip
    assert main(argv) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["team.2.B.add"]
    assert (tmp_path / "team.2.B.add").read_text() == (EVALPL / "sample.2.B.add").read_text()


@pytest.mark.parametrize("task", ["A", "B"])
def test_a_clef_run_imports_no_pandas(tmp_path: Path, task: str) -> None:
    # ``iescore clef`` builds and reads its columns through ``pipeline.core.arrays``: pyarrow's own
    # conversions import pandas (a tenth of the command's time on 10,000 reports), which it needs not.
    program = (
        "import sys\n"
        "from iescore.tasks.cli.main import main\n"
        f"status = main(['clef', '-input', {str(SAMPLE / 'run2')!r}, '-gold', {str(SAMPLE / 'gold')!r},"
        f" '-n', 'x', '-r', '2', '-t', {task!r}, '--out', {str(tmp_path)!r}])\n"
        "print(status, 'pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-2:] == ["0", "False"]
