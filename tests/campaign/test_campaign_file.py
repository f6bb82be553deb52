"""Campaign files (issue 10): every value's type and range is checked, and every problem is one line
``FILE:LINE: what was expected`` with exit status 2, the line being the offending key's own."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from iescore.pipeline.campaign.engine import read_campaign
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"

# The numbered lines the cases below edit: line numbers in the expectations count in this text.
BASE = [
    "# a campaign for the tests",  # 1
    'store = "store"',  # 2
    "",  # 3
    "[reference]",  # 4
    'templates = "hub4-sports/ref.tpl"',  # 5
    'texts = "hub4-sports/texts.sgml"',  # 6
    "",  # 7
    "[options]",  # 8
    "beta = 1.0",  # 9
    "",  # 10
    "[systems.alpha]",  # 11
    'templates = "hub4-sports/perfect.tpl"',  # 12
    "",  # 13
    '[systems."beta / b"]',  # 14
    'templates = "hub4-sports/eager.tpl"',  # 15
]


def campaign_text(replace: dict[int, str] | None = None, upto: int | None = None) -> str:
    """BASE with some lines replaced (a replacement may hold several lines), cut after line ``upto``."""
    lines = [(replace or {}).get(number, line) for number, line in enumerate(BASE, 1)]
    return "\n".join(lines[:upto]) + "\n"


EAGER = 'templates = "hub4-sports/eager.tpl"'
PERFECT = 'templates = "hub4-sports/perfect.tpl"'

# (id, edits, upto, line of the error (0: none), what the message says)
CASES = [
    # Option values: nothing is coerced.
    ("case-sensitive-string", {9: 'case_sensitive = "no"'}, None, 9, "options.case_sensitive: true or false"),
    ("unscored-string", {9: 'unscored = "COMMENT"'}, None, 9, "options.unscored: an array of strings"),
    ("unscored-numbers", {9: "unscored = [1, 2]"}, None, 9, "options.unscored: an array of strings"),
    (
        "beta-string",
        {9: 'beta = "x"'},
        None,
        9,
        'options.beta: a finite number > 0 whose square is finite and > 0 expected, found the string "x"',
    ),
    ("beta-negative", {9: "beta = -1"}, None, 9, "options.beta: a finite number > 0"),
    ("beta-zero", {9: "beta = 0.0"}, None, 9, "options.beta: a finite number > 0"),
    ("beta-nan", {9: "beta = nan"}, None, 9, "found the number nan"),
    ("beta-inf", {9: "beta = inf"}, None, 9, "found the number inf"),
    (
        "beta-boolean",
        {9: "beta = true"},
        None,
        9,
        "options.beta: a finite number > 0 whose square is finite and > 0 expected, found true",
    ),
    # 1e200 squared is infinity: F would be undefined for every system.
    ("beta-square-overflows", {9: "beta = 1e200"}, None, 9, "options.beta: a finite number > 0 whose square"),
    ("premodifiers-number", {9: "premodifiers = 5"}, None, 9, "options.premodifiers: an array of strings"),
    ("punctuation-array", {9: 'punctuation = [","]'}, None, 9, "options.punctuation: a string"),
    (
        "resamples-huge",
        {9: "resamples = 1000000000000"},
        None,
        9,
        "options.resamples: a whole number from 1 to 100000",
    ),
    ("resamples-zero", {9: "resamples = 0"}, None, 9, "options.resamples: a whole number from 1 to 100000"),
    ("resamples-negative", {9: "resamples = -5"}, None, 9, "options.resamples: a whole number"),
    ("resamples-fraction", {9: "resamples = 1.5"}, None, 9, "options.resamples: a whole number"),
    ("seed-string", {9: 'seed = "12345"'}, None, 9, "options.seed: a whole number from 0"),
    ("seed-negative", {9: "seed = -1"}, None, 9, "options.seed: a whole number from 0"),
    ("seed-past-int64", {9: "seed = 9223372036854775808"}, None, 9, "options.seed: a whole number from 0"),
    (
        "html-documents-negative",
        {9: "html_documents = -1"},
        None,
        9,
        "options.html_documents: a whole number from 1 to 9223372036854775807",
    ),
    ("compare-unknown", {9: 'compare = "x"'}, None, 9, 'options.compare: one of "content", "extent", "both"'),
    ("cost-unknown", {9: 'cost = "x"'}, None, 9, 'options.cost: one of "phonetic", "levenshtein"'),
    ("encoding-unknown", {9: 'encoding = "nope"'}, None, 9, "options.encoding: the name of a text encoding"),
    (
        "encoding-not-text",
        {9: 'encoding = "rot13"'},
        None,
        9,
        "options.encoding: the name of a text encoding",
    ),
    ("encoding-number", {9: "encoding = 8"}, None, 9, "options.encoding: the name of a text encoding"),
    ("glm-missing", {9: 'glm = "rules.glm"'}, None, 9, "options.glm: file 'rules.glm' not found"),
    ("glm-directory", {9: 'glm = "hub4-sports"'}, None, 9, "options.glm: 'hub4-sports' is a directory"),
    ("option-unknown", {9: "betta = 2"}, None, 9, "unknown key options.betta"),
    # Tables and paths.
    ("store-number", {2: "store = 5"}, None, 2, "store: a directory name (a string) expected"),
    ("store-empty", {2: 'store = ""'}, None, 2, "store: a directory name (a string) expected"),
    ("output-number", {2: 'store = "store"\noutput = 5'}, None, 3, "output: a directory name"),
    (
        "options-not-a-table",
        {2: "options = 3", 8: "[systems.gamma]", 9: 'templates = "hub4-sports/sloppy.tpl"'},
        None,
        2,
        "options: a table [options] expected, found the whole number 3",
    ),
    (
        "reference-missing",
        {4: "", 5: "", 6: ""},
        None,
        0,
        "a [reference] table with templates = ... expected",
    ),
    (
        "reference-templates-missing",
        {5: ""},
        None,
        4,
        "reference.templates = ... expected (the reference template set)",
    ),
    (
        "reference-texts-missing",
        {6: 'texts = "nope.sgml"'},
        None,
        6,
        "reference.texts: file 'nope.sgml' not found",
    ),
    (
        "reference-not-a-table",
        {1: 'reference = "ref.tpl"', 4: "", 5: "", 6: ""},
        None,
        1,
        "reference: a table",
    ),
    ("systems-missing", {}, 10, 0, "a [systems.NAME] table with templates = ... for each system expected"),
    ("systems-not-a-table", {1: 'systems = "alpha"'}, 10, 1, "systems: a table [systems] expected"),
    ("systems-empty", {10: "[systems]"}, 10, 10, "at least one system expected"),
    (
        "system-not-a-table",
        {10: '[systems]\nalpha = "hub4-sports/perfect.tpl"'},
        10,
        11,
        "systems.alpha: a table [systems.alpha] with templates = ... expected, found the string",
    ),
    (
        "system-without-templates",
        {12: 'texts = "hub4-sports/texts.sgml"'},
        None,
        11,
        "systems.alpha.templates = ... expected (the system's template set)",
    ),
    # The second system's templates (line 15), not the first occurrence of the key (line 12).
    (
        "templates-missing",
        {15: 'templates = "nope.tpl"'},
        None,
        15,
        "systems.\"beta / b\".templates: file 'nope.tpl'",
    ),
    ("templates-directory", {15: 'templates = "hub4-sports"'}, None, 15, "'hub4-sports' is a directory"),
    ("templates-number", {15: "templates = 5"}, None, 15, "a file name (a string) expected"),
    ("templates-first-system", {12: 'templates = "nope.tpl"'}, None, 12, "systems.alpha.templates: file"),
    (
        "unsegmented-string",
        {12: PERFECT + "\nunsegmented = false", 15: EAGER + '\nunsegmented = "false"'},
        None,
        17,
        'systems."beta / b".unsegmented: true or false expected, found the string "false"',
    ),
    ("unknown-system-key", {15: EAGER + '\ntext = "x"'}, None, 16, 'unknown key systems."beta / b".text'),
    ("unknown-subtable", {13: "[systems.alpha.extra]"}, None, 13, "unknown key systems.alpha.extra"),
    (
        "dotted-key",
        {12: PERFECT + "\nsystems.x = 1"},
        None,
        13,
        "unknown key systems.alpha.systems",
    ),
    # TOML syntax errors, with the line whether or not tomllib gives one.
    ("syntax-bad-number", {9: "beta = 1.0.0"}, None, 9, "TOML syntax error"),
    ("syntax-no-value", {9: "beta ="}, None, 9, "TOML syntax error: Invalid value"),
    ("syntax-no-key", {9: "= 2"}, None, 9, "TOML syntax error: Invalid statement"),
    (
        "syntax-duplicate-key",
        {9: "beta = 1\nbeta = 2"},
        None,
        10,
        "TOML syntax error: Cannot overwrite a value",
    ),
    ("syntax-duplicate-table", {14: "[systems.alpha]"}, None, 14, "TOML syntax error: Cannot declare"),
    ("syntax-unclosed-header", {8: "[options"}, None, 8, "TOML syntax error"),
    ("syntax-unclosed-string", {15: 'templates = "hub4-sports/eager.tpl'}, None, 15, "TOML syntax error"),
    ("syntax-control-character", {6: 'texts = "a\x01"'}, None, 6, "TOML syntax error: Illegal character"),
    # Never closed: tomllib says "at end of document" (no line), or names a later line.
    ("syntax-unclosed-array-at-end", {15: "templates = [1,"}, None, 15, "is never closed"),
    ("syntax-unclosed-array", {9: "premodifiers = [1, 2"}, None, 9, "is never closed (Unclosed array"),
    ("syntax-unclosed-multiline-string", {9: 'punctuation = """,.'}, None, 9, "Unterminated string"),
    (
        "syntax-unclosed-inline-table",
        {15: "templates = {a = 1"},
        None,
        15,
        "is never closed (Unclosed inline table",
    ),
    # A multi-line string holding '[' and '#' and a multi-line array before the error: lines still count.
    (
        "syntax-after-multiline-values",
        {9: 'punctuation = """\n[x] # y\n"""\npremodifiers = [\n  "a", # the\n]\nbeta = [1,'},
        None,
        15,
        "is never closed (Invalid value at line 17",
    ),
    # An error inside a multi-line array that is closed: tomllib's own line (11), not the statement's.
    ("syntax-inside-array", {9: 'premodifiers = [\n  "a",\n  1.0.0,\n]'}, None, 11, "TOML syntax error"),
]


@pytest.fixture
def campaign_dir(tmp_path: Path) -> Path:
    shutil.copytree(DATA / "hub4-sports", tmp_path / "hub4-sports")
    return tmp_path


@pytest.mark.parametrize(
    ("edits", "upto", "line", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_malformed_campaign_files(
    campaign_dir: Path,
    capsys: pytest.CaptureFixture[str],
    edits: dict[int, str],
    upto: int | None,
    line: int,
    message: str,
) -> None:
    campaign_file = campaign_dir / "campaign.toml"
    campaign_file.write_text(campaign_text(edits, upto), encoding="utf-8")
    status = main(["campaign", str(campaign_file), "--dry-run"])
    err = capsys.readouterr().err
    assert status == 2
    where = f"iescore: {campaign_file}:{line}: " if line else f"iescore: {campaign_file}: "
    assert err.startswith(where), err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_the_base_campaign_is_valid(campaign_dir: Path) -> None:
    """The cases above fail for their edit only: the unedited text reads, with the defaults."""
    campaign_file = campaign_dir / "campaign.toml"
    campaign_file.write_text(campaign_text(), encoding="utf-8")
    campaign = read_campaign(campaign_file)
    assert [s.name for s in campaign.systems] == ["alpha", "beta / b"]
    assert campaign.options["unscored"] == ["COMMENT"] and campaign.options["beta"] == 1.0


def test_well_typed_values_are_taken(campaign_dir: Path) -> None:
    """A beta other than 1, an integer beta, and every option of the right type are kept as given."""
    campaign_file = campaign_dir / "campaign.toml"
    options = (
        'beta = 2\ncase_sensitive = true\nunscored = []\npremodifiers = ["the"]\npunctuation = ","\n'
        'compare = "extent"\ncost = "levenshtein"\nencoding = "latin-1"\nresamples = 100000\nseed = 0\n'
        "html_documents = 1"
    )
    campaign_file.write_text(
        campaign_text({9: options, 15: EAGER + "\nunsegmented = false"}), encoding="utf-8"
    )
    got = read_campaign(campaign_file).options
    assert got["beta"] == 2.0 and isinstance(got["beta"], float)
    assert got["case_sensitive"] is True and got["unscored"] == [] and got["premodifiers"] == ["the"]
    assert (got["compare"], got["cost"], got["encoding"]) == ("extent", "levenshtein", "latin-1")
    assert (got["resamples"], got["seed"], got["html_documents"]) == (100000, 0, 1)


def test_campaign_path_is_a_directory(tmp_path: Path) -> None:
    """Through the command itself: exit 2, one line naming the path, no traceback."""
    result = subprocess.run(
        [sys.executable, "-m", "iescore", "campaign", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 2
    assert result.stderr.startswith(f"iescore: {tmp_path}: is a directory") and result.stderr.count("\n") == 1
    with pytest.raises(InputError, match="is a directory"):  # whoever calls the reader directly
        read_campaign(tmp_path)


def test_campaign_file_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.toml"
    assert main(["campaign", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"iescore: {missing}: ") and "not found" in err and err.count("\n") == 1
    with pytest.raises(InputError, match="campaign file not found"):
        read_campaign(missing)


def test_campaign_file_not_utf8(campaign_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """TOML is UTF-8: a Latin-1 byte (0xe9, 'é') on line 12 is reported at line 12."""
    campaign_file = campaign_dir / "campaign.toml"
    text = campaign_text({12: 'templates = "hub4-sports/perfect.tpl" # d\u00e9j\u00e0'})
    campaign_file.write_bytes(text.encode("latin-1"))
    assert main(["campaign", str(campaign_file)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"iescore: {campaign_file}:12: UTF-8 text expected") and "0xe9" in err
