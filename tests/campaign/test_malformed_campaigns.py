"""Malformed campaign files of every kind (issue 25): types, missing keys, bad paths, user regular
expressions, bounds, stores, duplicate system names, outputs inside inputs. Each is exit status 2 with one
message naming the campaign file and the line (or the key) and what was expected, before any work:
nothing is written next to the campaign.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"

TREC = """scorer = "trec"
store = "store"

[reference]
qrels = "trec-sample/qrels.txt"

[options]
resamples = 1000

[systems.a]
run = "trec-sample/teamA_run1.txt"

[systems.b]
run = "trec-sample/teamA_run2.txt"
"""

MAT = """scorer = "mat"
store = "store"

[reference]
path = "mat-sample/ref"

[options]
token_annotations = ["lex"]

[systems.good]
path = "mat-sample/good"
file_re = ".*"
"""

CLEF = """scorer = "clef"
store = "store"

[reference]
gold = "clef-sample/gold"

[options]
seed = 1

[systems.run1]
input = "clef-sample/run1"
"""

SENSEVAL = """scorer = "senseval"
store = "store"

[reference]
key = "senseval-sample/key.txt"
sense_map = "senseval-sample/senses.map"

[options]
granularity = "fine"

[systems.a]
answers = "senseval-sample/system-a.answers"
"""

BASES = {"trec": TREC, "mat": MAT, "clef": CLEF, "senseval": SENSEVAL}
# Line numbers of the bases: 2 store, 5 the reference's first key, 8 the first option (9 in SENSEVAL's),
# 10 the first system's header, 11 its first key, 12 MAT's file_re.

# (id, base, (text replaced, its replacement), the error's line (0: the key is named instead), pieces of the
# message)
CASES = [
    # Counts and their bounds, the command line's.
    (
        "resamples-zero",
        "trec",
        ("resamples = 1000", "resamples = 0"),
        8,
        ["options.resamples", "from 1 to 100000"],
    ),
    ("resamples-huge", "trec", ("resamples = 1000", "resamples = 100001"), 8, ["from 1 to 100000"]),
    ("resamples-float", "trec", ("resamples = 1000", "resamples = 10.0"), 8, ["a whole number"]),
    (
        "seed-negative",
        "clef",
        ("seed = 1", "seed = -1"),
        8,
        ["options.seed", "from 0 to 9223372036854775807"],
    ),
    ("seed-string", "clef", ("seed = 1", 'seed = "1"'), 8, ["options.seed", 'found the string "1"']),
    (
        "html-documents-zero",
        "trec",
        ("resamples = 1000", "html_documents = 0"),
        8,
        ["options.html_documents"],
    ),
    (
        "max-docs-past-int64",
        "trec",
        ("resamples = 1000", "max_docs = 9223372036854775808"),
        8,
        ["options.max_docs"],
    ),
    (
        "level-out-of-range",
        "trec",
        ("resamples = 1000", "level = 5000"),
        8,
        ["options.level", "from -1000 to 1000"],
    ),
    # Types and choices.
    (
        "granularity-unknown",
        "senseval",
        ('granularity = "fine"', 'granularity = "x"'),
        9,
        ["options.granularity"],
    ),
    (
        "encoding-base64",
        "senseval",
        ('granularity = "fine"', 'encoding = "base64"'),
        9,
        ["not a text encoding"],
    ),
    ("encoding-unknown", "senseval", ('granularity = "fine"', 'encoding = "nope"'), 9, ["unknown encoding"]),
    (
        "baseline-string",
        "trec",
        ('run = "trec-sample/teamA_run1.txt"', 'run = "trec-sample/teamA_run1.txt"\nbaseline = "yes"'),
        12,
        ["systems.a.baseline: true or false"],
    ),
    (
        "token-annotations-string",
        "mat",
        ('token_annotations = ["lex"]', 'token_annotations = "lex"'),
        8,
        ["options.token_annotations: an array of strings"],
    ),
    ("scorer-unknown", "trec", ('scorer = "trec"', 'scorer = "bleu"'), 1, ["scorer: one of"]),
    (
        "key-of-another-kind",
        "trec",
        ("resamples = 1000", 'granularity = "fine"'),
        8,
        ["a key of senseval campaigns"],
    ),
    # Missing keys and bad paths.
    ("qrels-missing", "trec", ('qrels = "trec-sample/qrels.txt"', ""), 4, ["reference.qrels = ... expected"]),
    (
        "run-missing",
        "trec",
        ('run = "trec-sample/teamA_run2.txt"', 'run = "nope.txt"'),
        14,
        ["file 'nope.txt' not found"],
    ),
    (
        "run-directory",
        "trec",
        ('run = "trec-sample/teamA_run2.txt"', 'run = "trec-sample"'),
        14,
        ["is a directory"],
    ),
    (
        "gold-missing",
        "clef",
        ('gold = "clef-sample/gold"', 'gold = "nowhere"'),
        5,
        ["reference.gold", "not found"],
    ),
    (
        "system-without-run",
        "trec",
        ('run = "trec-sample/teamA_run2.txt"', ""),
        13,
        ["systems.b.run = ... expected"],
    ),
    # User regular expressions: checked at their line, never run by a backtracking engine.
    (
        "file-re-lookahead",
        "mat",
        ('file_re = ".*"', 'file_re = "(?=a).*"'),
        12,
        ["systems.good.file_re", "RE2"],
    ),
    ("file-re-unbalanced", "mat", ('file_re = ".*"', 'file_re = "("'), 12, ["a regular expression expected"]),
    (
        "file-re-number",
        "mat",
        ('file_re = ".*"', "file_re = 5"),
        12,
        ["a regular expression (a string) expected"],
    ),
    (
        "file-re-matches-nothing",
        "mat",
        ('file_re = ".*"', 'file_re = "(a+)+b"'),
        12,
        ["systems.good.file_re:", "matches no file name (systems.good.file_re '(a+)+b')"],
    ),
    # Errors of the family's rules, named by the campaign key (not MATScore's --equivalence_class).
    (
        "equivalence-class-without-members",
        "mat",
        ('token_annotations = ["lex"]', 'equivalence_classes = ["PLACE"]'),
        8,
        ['options.equivalence_classes: "CLASS=a,b" expected'],
    ),
    (
        "label-in-two-classes",
        "mat",
        ('token_annotations = ["lex"]', 'equivalence_classes = ["A=x", "B=x"]'),
        8,
        ["options.equivalence_classes: label 'x' is in two classes"],
    ),
    # Stores.
    (
        "store-one-slash",
        "trec",
        ('store = "store"', 'store = "s3:/bucket"'),
        2,
        ["store: a directory name or s3://"],
    ),
    (
        "store-other-scheme",
        "trec",
        ('store = "store"', 'store = "gs://bucket/x"'),
        2,
        ["store: a directory name"],
    ),
    (
        "store-bad-bucket",
        "trec",
        ('store = "store"', 'store = "s3://Bad_Bucket/x"'),
        2,
        ["valid bucket name"],
    ),
    (
        "store-number",
        "trec",
        ('store = "store"', "store = 5"),
        2,
        ["store: a directory name (a string) expected"],
    ),
    # Duplicate system names (TOML refuses a table declared twice) and duplicate keys.
    ("duplicate-system", "trec", ("[systems.b]", "[systems.a]"), 13, ["Cannot declare"]),
    (
        "duplicate-key",
        "trec",
        ("resamples = 1000", "resamples = 1000\nresamples = 10"),
        9,
        ["Cannot overwrite"],
    ),
    # Outputs inside what the campaign reads.
    (
        "output-inside-gold",
        "clef",
        ('store = "store"', 'store = "store"\noutput = "clef-sample/gold/out"'),
        0,
        ["is inside the input directory", "(reference.gold in campaign.toml)", "(output in campaign.toml:3)"],
    ),
    (
        "store-inside-run",
        "clef",
        ('store = "store"', 'store = "clef-sample/run1/store"'),
        0,
        ["(systems.run1.input in campaign.toml)", "(store in campaign.toml:2)"],
    ),
]


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under ``folder`` with its size and modification time."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


@pytest.fixture(scope="module")
def data_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("malformed") / "data"
    # Not the stores a run of the samples left in data/ (their folders' times are what the test watches).
    shutil.copytree(DATA, folder, ignore=shutil.ignore_patterns("store", "iescore-store"))
    return folder


@pytest.mark.parametrize(
    ("base", "edit", "line", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_malformed_campaigns(
    data_copy: Path,
    capsys: pytest.CaptureFixture[str],
    base: str,
    edit: tuple[str, str],
    line: int,
    expected: list[str],
) -> None:
    text = BASES[base]
    assert edit[0] in text
    campaign_file = data_copy / "campaign.toml"
    campaign_file.write_text(text.replace(edit[0], edit[1], 1), encoding="utf-8")
    before = snapshot(data_copy)
    status = main(["campaign", str(campaign_file)])
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err
    if line:
        assert err.startswith(f"iescore: {campaign_file}:{line}: "), err
    for piece in expected:
        assert piece in err, err
    assert snapshot(data_copy) == before  # no store, no output: nothing written


@pytest.mark.parametrize("base", sorted(BASES))
def test_the_bases_are_valid(data_copy: Path, capsys: pytest.CaptureFixture[str], base: str) -> None:
    """Each case above fails for its edit only."""
    campaign_file = data_copy / f"{base}-valid.toml"
    campaign_file.write_text(BASES[base], encoding="utf-8")
    assert main(["campaign", str(campaign_file), "--dry-run"]) == 0, capsys.readouterr().err


def test_system_names_never_leave_the_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A system named like a path is a label: its files go under the output's ``systems/``, nowhere else."""
    shutil.copytree(DATA / "trec-sample", tmp_path / "campaign" / "trec-sample")
    text = TREC.replace("[systems.b]", '[systems."../../escaped"]').replace("[systems.a]", '[systems."/abs"]')
    campaign_file = tmp_path / "campaign" / "campaign.toml"
    campaign_file.write_text(text, encoding="utf-8")
    status = main(["campaign", str(campaign_file), "--out", str(tmp_path / "campaign" / "out")])
    assert status == 0, capsys.readouterr().err
    written = {p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()}
    assert all(p.parts[:2] in (("campaign", "out"), ("campaign", "store"), ("campaign", "trec-sample"))
               or p == Path("campaign/campaign.toml") for p in written), written  # fmt: skip
    assert not (tmp_path / "escaped").exists() and not Path("/abs").exists()
