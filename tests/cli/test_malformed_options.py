"""The options every command shares, given wrong (issue 25): counts out of range, codecs that are not text
encodings, stores that are not a directory or an S3 URL, user regular expressions RE2 cannot run, outputs
inside an input directory or where nothing can be written. Each is exit status 2 with one message naming
the option (or the file) and what was expected, before any work: nothing is written.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"

TREC = ["trec", "trec-sample/qrels.txt", "trec-sample/teamA_run1.txt"]
MAT = ["mat", "--dir", "mat-sample/good", "--ref_dir", "mat-sample/ref"]
TEMPLETTE = ["templette", "--ref", "hub4-sports/ref.tpl", "--hyp", "hub4-sports/sloppy.tpl"]
SENSEVAL = ["senseval", "senseval-sample/system-a.answers", "senseval-sample/key.txt"]
CLEF = ["clef", "-input", "clef-sample/run1", "-gold", "clef-sample/gold", "-n", "x", "-r", "1", "-t", "1a"]
COREF = ["coref", "--key", "coref-sample/key.conll", "--response", "coref-sample/merged.conll"]
ALIGN = ["align", "--ref", "hub4-speech/texts.sgml", "--hyp", "hub4-speech/asr.sgml", "-i", "sgml"]
MUC = ["muc", "muc-te/te.config"]
CAMPAIGN = ["campaign", "trec-campaign.toml"]
COUNT = "a whole number from"
ENCODING = "the name of a text encoding expected"
STORE = "a directory or s3://BUCKET/PREFIX expected"
INSIDE = "an output there would be read back as input"
S3_KEYS = {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "y"}

# (id, command line, environment, what the message says: each piece must be there)
CASES = [
    # Counts: one range a count, on every command as in campaign files (pipeline.core.settings).
    ("trec-seed-negative", [*TREC, "--seed", "-1"], {}, ["argument --seed:", f"{COUNT} 0 to", "'-1'"]),
    ("trec-seed-past-int64", [*TREC, "--seed", str(2**63)], {}, ["argument --seed:", COUNT]),
    (
        "trec-resamples-zero",
        [*TREC, "--resamples", "0"],
        {},
        ["argument --resamples:", f"{COUNT} 1 to 100000"],
    ),
    ("trec-resamples-huge", [*TREC, "--resamples", "10000000000"], {}, ["argument --resamples:", "100000"]),
    ("trec-max-documents-huge", [*TREC, "-M", "99999999999999999999"], {}, ["argument -M:", COUNT]),
    ("mat-seed-negative", [*MAT, "--seed", "-1"], {}, ["argument --seed:", COUNT]),
    ("mat-resamples-huge", [*MAT, "--resamples", "1000001"], {}, ["argument --resamples:", COUNT]),
    (
        "templette-workers-zero",
        [*TEMPLETTE, "--workers", "0"],
        {},
        ["argument --workers:", f"{COUNT} 1 to 256"],
    ),
    ("clef-workers-huge", [*CLEF, "--workers", "100000"], {}, ["argument --workers:", COUNT]),
    ("campaign-workers-huge", [*CAMPAIGN, "--workers", "257"], {}, ["argument --workers:", COUNT]),
    # Encodings: codecs Python knows that are not text encodings, and unknown names.
    ("templette-base64", [*TEMPLETTE, "--encoding", "base64"], {}, ["argument --encoding:", ENCODING]),
    ("align-hex", [*ALIGN, "--encoding", "hex"], {}, ["argument --encoding:", "not a text encoding"]),
    ("coref-rot13", [*COREF, "--encoding", "rot13"], {}, ["argument --encoding:", "not a text encoding"]),
    ("muc-unknown", [*MUC, "--encoding", "nope"], {}, ["argument --encoding:", "unknown encoding"]),
    ("senseval-base64", [*SENSEVAL, "--encoding", "base64"], {}, ["argument --encoding:", ENCODING]),
    ("mat-hyp-base64", [*MAT, "--encoding", "base64"], {}, ["argument --encoding:", ENCODING]),
    ("mat-ref-base64", [*MAT, "--ref_encoding", "base64"], {}, ["argument --ref_encoding:", ENCODING]),
    ("glm-base64", ["glm", "x.glm", "--encoding", "base64"], {}, ["argument --encoding:", ENCODING]),
    # Stores: a scheme that is not s3:// never becomes a local folder; a bad endpoint is named.
    ("templette-s3-one-slash", [*TEMPLETTE, "--store", "s3:/bucket"], {}, ["--store:", STORE]),
    ("senseval-s3-no-slash", [*SENSEVAL, "--store", "s3:bucket"], {}, ["--store:", STORE]),
    ("campaign-gs", [*CAMPAIGN, "--store", "gs://bucket/x"], {}, ["--store:", STORE]),
    (
        "campaign-endpoint-not-a-url",
        [*CAMPAIGN, "--store", "s3://bucket/x"],
        {**S3_KEYS, "AWS_ENDPOINT_URL_S3": "not a url"},
        ["--store:", "Invalid endpoint: not a url", "AWS_ENDPOINT_URL_S3"],
    ),
    ("mat-s3-one-slash", [*MAT, "--store", "s3:/bucket"], {}, ["--store:", STORE]),
    # User regular expressions: Python's syntax, RE2's engine.
    (
        "mat-file-re-lookahead",
        [*MAT, "--file_re", "(?=a).*"],
        {},
        ["argument --file_re:", "look-arounds", "RE2"],
    ),
    (
        "mat-file-re-backreference",
        [*MAT, "--file_re", r"(a)\1"],
        {},
        ["argument --file_re:", "back-references"],
    ),
    ("mat-file-re-unbalanced", [*MAT, "--file_re", "a)|(b"], {}, ["argument --file_re:", "unbalanced"]),
    # Outputs inside an input directory, and where nothing can be written.
    (
        "clef-out-is-gold",
        [*CLEF, "--out", "clef-sample/gold"],
        {},
        ["is the input directory", "(-gold)", INSIDE],
    ),
    ("clef-json-in-run", [*CLEF, "--json", "clef-sample/run1/x.json"], {}, ["(-input)", "(--json)", INSIDE]),
    (
        "mat-csv-in-hyp",
        [*MAT, "--csv_output_dir", "mat-sample/good/csv"],
        {},
        ["(--dir)", "(--csv_output_dir)"],
    ),
    (
        "campaign-html-in-run",
        ["campaign", "clef-campaign.toml", "--html", "clef-sample/run2/page.html"],
        {},
        ["systems.run2.input in clef-campaign.toml", "(--html)", INSIDE],
    ),
    (
        "campaign-store-in-gold",
        ["campaign", "clef-campaign.toml", "--store", "clef-sample/gold/store"],
        {},
        ["reference.gold in clef-campaign.toml", "(--store)", INSIDE],
    ),
    ("clef-store-in-gold", [*CLEF, "--store", "clef-sample/gold/st"], {}, ["(-gold)", "(--store)", INSIDE]),
    ("mat-store-in-ref", [*MAT, "--store", "mat-sample/ref/st"], {}, ["(--ref_dir)", "(--store)", INSIDE]),
    ("coref-json-in-proc", [*COREF, "--json", "/proc/x.json"], {}, ["/proc takes no new files", "(--json)"]),
]


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under ``folder`` with its size and modification time."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


@pytest.fixture
def data_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(DATA, tmp_path / "data")
    monkeypatch.chdir(tmp_path / "data")
    return tmp_path / "data"


@pytest.mark.parametrize(
    ("argv", "environment", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_malformed_generic_options(
    data_copy: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    environment: dict[str, str],
    expected: list[str],
) -> None:
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    before = snapshot(data_copy)
    try:
        status = main(argv)
    except SystemExit as stop:  # argparse's own errors
        status = stop.code
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err
    for piece in expected:
        assert piece in err, err
    assert snapshot(data_copy) == before  # nothing written, no folder made (a local "s3:" above all)


def test_a_corrupt_store_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "store" / "Stage" / "ab" / "ab.table.parquet"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"not parquet at all")
    status = main(["artifacts", str(tmp_path / "store")])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith(f"iescore: {broken}: not a readable Parquet file")


# ``(a+)+b`` against a name of 40 ``a``s: Python's backtracking engine tries about 2**40 ways (hours);
# RE2's automaton answers at once. The subprocess's timeout only keeps a regression from hanging the suite.
CATASTROPHIC = "(a+)+b"


def test_a_pathological_file_re_cannot_hang_the_run(tmp_path: Path) -> None:
    hypotheses, references = tmp_path / "hyp", tmp_path / "ref"
    shutil.copytree(DATA / "mat-sample" / "good", hypotheses)
    shutil.copytree(DATA / "mat-sample" / "ref", references)
    long_name = "a" * 40
    for folder in (hypotheses, references):
        shutil.copy(folder / "a.json", folder / long_name)
    run = subprocess.run(
        [sys.executable, "-m", "iescore", "mat", "--dir", str(hypotheses),
         "--ref_dir", str(references), "--file_re", CATASTROPHIC],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert f"matches no file name (--file_re '{CATASTROPHIC}')" in run.stderr
