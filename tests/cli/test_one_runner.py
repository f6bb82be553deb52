"""One way to run a command: its stages computed in its own process without ``--store``, run by Luigi
with it. Every command that has stages prints, writes and exits the same either way; without a store
nothing is written but the command's own outputs, and Luigi is not imported."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
FIXTURES = ROOT / "tests" / "data"

#: Each command on the samples (paths relative to a copy of data/ and tests/data/ as ``tdata``), with
#: every output it can write under ``out/``.
COMMANDS = {
    "mat": "mat --ref_dir mat-sample/ref --dir mat-sample/rough --file_type xml-inline --ref_fsuff_off .xml "
    "--ref_fsuff_on .json --details --confusability --tag_span_details --by_token --by_character "
    "--compute_confidence_data --json out/mat.json",
    "mat-csv": "mat --ref_dir mat-sample/ref --dir mat-sample/good --details --confusability "
    "--by_pseudo_token --csv_output_dir out/csv",
    "senseval": "senseval senseval-sample/system-b.answers senseval-sample/key.txt "
    "senseval-sample/senses.map -g mixed -v --by-item --json out/senseval.json",
    "clef": "clef -input clef-sample/run1 -gold clef-sample/gold -n team -r 1 -t 1a --out out "
    "--json out/clef.json --by-report --workbench out/clef.html --texts clef-sample/texts",
    "templette": "templette --ref hub4-sports/ref.tpl --hyp hub4-sports/sloppy.tpl "
    "--texts hub4-sports/texts.sgml --json out/templette.json --csv out/csv --summary out/summary.txt",
    "templette-speech": "templette --ref hub4-speech/ref.tpl --hyp hub4-speech/asr.tpl "
    "--texts hub4-speech/texts.sgml --hyp-texts hub4-speech/asr.sgml --json out/templette.json",
    "muc-te": "muc tdata/muc_te/te.config",
    "muc-ne": "muc tdata/muc_ne/ne.config",
    "muc-co": "muc tdata/muc_co/co.config",
    "mat-bad": "mat --ref_dir mat-sample/ref --dir mat-sample/rough",  # bad input: exit 2, the same line
    "trec": "trec -q -m all_trec tdata/trec/graded/qrels.txt tdata/trec/graded/runA.txt "
    "tdata/trec/graded/runB.txt --json out/trec.json",
    "trec-sample": "trec -c -m ndcg_cut.10 --significance-measure ndcg_cut_10 trec-sample/qrels.txt "
    "trec-sample/teamA_run1.txt trec-sample/teamA_run2.txt trec-sample/teamB_run1.txt --json out/trec.json",
    "trec-gm": "trec --significance-measure gm_map -m all_trec --resamples 500 trec-sample/qrels.txt "
    "trec-sample/teamA_run1.txt trec-sample/teamA_run2.txt",
    "trec-n": "trec -n -q -m official tdata/trec/trec_eval/qrels.test tdata/trec/trec_eval/results.test",
    "trec-bad": "trec trec-sample/qrels.txt trec-sample/teamA_run1.txt trec-sample/qrels.txt",  # exit 2
}


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch, argv: str, store: bool) -> dict:
    """Run a command in a fresh copy of the samples; its status, stdout, stderr and every file it wrote
    outside the store."""
    work = tmp_path / ("stored" if store else "plain")
    shutil.copytree(DATA, work)
    shutil.copytree(FIXTURES, work / "tdata")
    before = {p for p in work.rglob("*") if p.is_file()}
    (work / "out").mkdir()
    monkeypatch.chdir(work)
    args = argv.split()
    if store:
        (tmp_path / "store").mkdir()
        args += ["--store", str(tmp_path / "store")]
    status = main(args)
    captured = capsys.readouterr()
    files = {
        str(p.relative_to(work)): p.read_bytes().replace(str(work).encode(), b"WORK")
        for p in sorted(work.rglob("*"))
        if p.is_file() and p not in before
    }
    return {
        "status": status,
        "stdout": captured.out.replace(str(work), "WORK"),
        "stderr": captured.err.replace(str(work), "WORK"),
        "files": files,
    }


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_same_outputs_with_and_without_a_store(tmp_path, capsys, monkeypatch, command) -> None:
    plain = _run(tmp_path, capsys, monkeypatch, COMMANDS[command], store=False)
    stored = _run(tmp_path, capsys, monkeypatch, COMMANDS[command], store=True)
    assert plain == stored
    assert not [name for name in plain["files"] if name.endswith(".parquet")]  # no store without --store
    if plain["status"] == 0:
        assert any((tmp_path / "store").rglob("*.parquet"))


#: Commands whose run without a store imports no Luigi (and, for trec, no pandas: trec_eval's users time
#: the whole process).
PLAIN = {
    "mat": ["mat", "--ref_dir", str(DATA / "mat-sample" / "ref"), "--dir", str(DATA / "mat-sample" / "good")],
    "trec": [
        "trec",
        "-m",
        "all_trec",
        str(DATA / "trec-sample" / "qrels.txt"),
        str(DATA / "trec-sample" / "teamA_run1.txt"),
    ],
}


@pytest.mark.parametrize("command", sorted(PLAIN))
def test_without_a_store_luigi_is_not_imported(tmp_path: Path, command: str) -> None:
    unwanted = ("luigi", "pandas") if command == "trec" else ("luigi",)
    code = (
        "import json, sys\n"
        "from iescore.tasks.cli.main import main\n"
        f"status = main({PLAIN[command]!r})\n"
        "assert status == 0, status\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {unwanted!r})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []
    assert list(tmp_path.iterdir()) == []
