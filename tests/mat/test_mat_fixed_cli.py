"""``iescore mat`` with the fixed-span tables, confidence data and CSV files (issue 12, points 5, 8, 9).

Expected numbers are worked out by hand below from ``data/mat-sample`` (signals, annotations and
tokens in ``data/mat-sample/README.md`` and the JSON files):

a: ``John Smith met Mary Jones in Paris on Monday.\\n`` (46 characters, 10 tokens); reference PERSON
[0,10) [15,25), LOCATION [29,34), DATE [38,44); "good" hypothesis PERSON [0,10) [15,19), LOCATION
[29,34). b: ``AT&T hired Bob Lee in New York.\\n`` (32 characters, 8 tokens); reference ORGANIZATION
[0,4), PERSON [11,18), LOCATION [22,30); "good" ORGANIZATION [0,4) [22,30), PERSON [11,18).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "mat-sample"
GOOD = ["--dir", str(SAMPLE / "good"), "--ref_dir", str(SAMPLE / "ref")]
ROUGH = [
    "--dir",
    str(SAMPLE / "rough"),
    "--ref_dir",
    str(SAMPLE / "ref"),
    "--file_type",
    "xml-inline",
    "--ref_fsuff_off",
    ".xml",
    "--ref_fsuff_on",
    ".json",
]
COUNTS = ("match", "refclash", "missing", "hypclash", "spurious")


def _run(capsys: pytest.CaptureFixture, tmp_path: Path, *argv: str) -> tuple[int, str, str]:
    status = main(["mat", *argv, "--store", str(tmp_path / "store")])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _corpus(result: dict, table: str) -> dict[str, dict]:
    return {row["tag"]: row for row in result["tables"][table] if row["file"] == "<all>"}


def _counts(row: dict) -> tuple[int, ...]:
    return tuple(row[name] for name in COUNTS)


# Tokens, hand-worked: a: John Smith (PERSON both: 2 match), Mary (match), Jones (ref PERSON only:
# missing), Paris (LOCATION match), Monday (DATE missing). b: AT&T (ORGANIZATION match), Bob Lee (2
# PERSON match), New York (LOCATION vs ORGANIZATION: refclash LOCATION 2, hypclash ORGANIZATION 2).
TOKENS = {
    "DATE": (0, 0, 1, 0, 0),
    "LOCATION": (1, 2, 0, 0, 0),
    "ORGANIZATION": (1, 0, 0, 2, 0),
    "PERSON": (5, 0, 1, 0, 0),
    "<all>": (7, 2, 2, 2, 0),
}
# Characters: PERSON matches 10 + 4 + 7 = 21, missing [19,25) = 6; LOCATION match 5, refclash 8 (New
# York); ORGANIZATION match 4, hypclash 8; DATE missing 6.
CHARACTERS = {
    "DATE": (0, 0, 6, 0, 0),
    "LOCATION": (5, 8, 0, 0, 0),
    "ORGANIZATION": (4, 0, 0, 8, 0),
    "PERSON": (21, 0, 6, 0, 0),
    "<all>": (30, 8, 12, 8, 0),
}


def test_fixed_span_tables_of_the_sample(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out_json = tmp_path / "out.json"
    status, out, err = _run(
        capsys, tmp_path, *GOOD, "--by_token", "--by_pseudo_token", "--by_character", "--json", str(out_json)
    )
    assert status == 0, err
    result = json.loads(out_json.read_text())
    assert list(result["tables"]) == ["tag", "token", "pseudo_token", "character"]
    token = _corpus(result, "token")
    assert {tag: _counts(row) for tag, row in token.items()} == TOKENS
    assert token["<all>"]["test_units"] == 18 and token["<all>"]["test_docs"] == 2
    # <all>: P = 7 / (7 + 2) = 7/9, R = 7 / (7 + 2 + 2) = 7/11, F = 2PR / (P + R) = 0.7;
    # tag-sensitive accuracy (18 - 2 - 2 - 0) / 18 = 7/9, tag-blind (18 - 2 - 0) / 18 = 8/9.
    row = token["<all>"]
    assert (row["precision"], row["recall"], row["fmeasure"]) == pytest.approx((7 / 9, 7 / 11, 0.7))
    assert row["tag_sensitive_accuracy"] == pytest.approx(7 / 9)
    assert row["tag_sensitive_error_rate"] == pytest.approx(2 / 9)
    assert row["tag_blind_accuracy"] == pytest.approx(8 / 9)
    assert row["tag_blind_error_rate"] == pytest.approx(1 / 9)
    # Pseudo-tokens: a is cut at 0, 10, 15, 19, 25, 29, 34, 38, 44, 46 into "John Smith" (2), " met ",
    # "Mary", " Jones", " in ", "Paris", " on ", "Monday", ".\n" (1 each): 10; b at 0, 4, 11, 18, 22, 30,
    # 32 into "AT&T", " hired ", "Bob Lee" (2), " in ", "New York" (2), ".\n": 8. The same labels as the
    # tokens, so the same counts.
    pseudo = _corpus(result, "pseudo_token")
    assert {tag: _counts(row) for tag, row in pseudo.items()} == TOKENS
    assert pseudo["<all>"]["test_units"] == 18
    chars = _corpus(result, "character")
    assert {tag: _counts(row) for tag, row in chars.items()} == CHARACTERS
    assert chars["<all>"]["test_units"] == 46 + 32
    # (78 - 8 - 12 - 0) / 78 = 58/78.
    assert chars["<all>"]["tag_sensitive_accuracy"] == pytest.approx(58 / 78)
    # Per-file rows too: b's token <all> has 8 test toks, match 3, refclash 2.
    b_all = next(r for r in result["tables"]["token"] if r["file"] == "b.json" and r["tag"] == "<all>")
    assert (b_all["test_units"], b_all["match"], b_all["refclash"], b_all["test_docs"]) == (8, 3, 2, 1)
    # Text: the four blocks in MATScore's order, with its column names.
    titles = [block.splitlines()[0] for block in out.split("\n\n")]
    assert titles[:4] == ["By tag", "By token", "By pseudo-token", "By character"]
    assert "test pseudo-toks" in out and "test chars" in out and "tag_sensitive_accuracy" in out
    char_all = next(
        line for line in out.split("By character")[1].splitlines() if line.strip().startswith("<all>")
    )
    assert char_all.split()[-4:] == ["0.744", "0.256", "0.846", "0.154"]  # 58/78, 20/78, 66/78, 12/78


def test_no_token_table_without_tokens_and_the_rest_is_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    # The "rough" system is inline XML: no token annotations.
    out_json = tmp_path / "out.json"
    status, out, err = _run(capsys, tmp_path, *ROUGH, "--by_token", "--by_character", "--json", str(out_json))
    assert status == 0, err
    assert "no token table: hypothesis 'a.xml' has no token annotations" in err
    result = json.loads(out_json.read_text())
    assert list(result["tables"]) == ["tag", "character"]
    notes = [line.removeprefix("iescore mat: ") for line in err.splitlines() if "no token table" in line]
    assert result["notes"] == notes and len(notes) == 1
    assert "By token" not in out and "By character" in out
    # rough a: DATE "Monday." [38,45) over "Monday" [38,44): 6 match, 1 spurious character.
    date_a = next(r for r in result["tables"]["character"] if r["file"] == "a.xml" and r["tag"] == "DATE")
    assert _counts(date_a) == (6, 0, 0, 0, 1)


def test_content_boundary_inside_a_token_leaves_the_token_table_out(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    signal = "New Yorkers cheer\n"
    tokens = [[0, 3], [4, 11], [12, 17]]

    def document(spans: list[list[int]]) -> dict:
        return {
            "signal": signal,
            "metadata": {},
            "version": 2,
            "asets": [
                {"type": "GPE", "hasSpan": True, "attrs": [], "annots": spans},
                {"type": "lex", "hasSpan": True, "attrs": [], "annots": tokens},
            ],
        }

    (tmp_path / "ref.json").write_text(json.dumps(document([[0, 8]])), encoding="utf-8")  # "New York"
    (tmp_path / "hyp.json").write_text(json.dumps(document([[0, 11]])), encoding="utf-8")
    files = ["--file", str(tmp_path / "hyp.json"), "--ref_file", str(tmp_path / "ref.json")]
    status, out, err = _run(capsys, tmp_path, *files, "--by_token", "--by_pseudo_token")
    assert status == 0, err
    assert "no token table: in 'hyp.json' the ref annotation GPE [0, 8) ends inside the token [4, 11)" in err
    assert "By token" not in out and "By pseudo-token" in out


def test_confidence_data_is_seeded_and_in_the_signature(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out_json = tmp_path / "out.json"
    status, out, err = _run(capsys, tmp_path, *GOOD, "--compute_confidence_data", "--json", str(out_json))
    assert status == 0, err
    result = json.loads(out_json.read_text())
    assert "confidence_seed:12345|confidence_resamples:1000" in result["signature"]
    row = _corpus(result, "tag")["<all>"]
    # Tag level, per file (data/mat-sample/README.md, "good"): a: match 2, reftotal 4, hyptotal 3;
    # b: match 2, reftotal 3, hyptotal 3. A score set with k copies of a (of 2 draws) has precision
    # 4/6 = 2/3 whatever k (variance 0) and recall 4 / (4k + 3(2 - k)): 4/6, 4/7 or 4/8.
    assert row["precision_mean"] == pytest.approx(2 / 3) and row["precision_variance"] == pytest.approx(0)
    draws = np.random.default_rng(12345).integers(0, 2, size=(1000, 2))  # files a.json, b.json
    copies_of_a = (draws == 0).sum(axis=1)
    recalls = 4 / (4 * copies_of_a + 3 * (2 - copies_of_a))
    assert row["recall_mean"] == pytest.approx(recalls.mean())
    assert row["recall_variance"] == pytest.approx(recalls.var())  # population variance
    assert row["recall_stddev"] == pytest.approx(recalls.std())
    keys = list(row)
    assert keys[keys.index("recall") + 1 : keys.index("recall") + 4] == [
        "recall_mean",
        "recall_variance",
        "recall_stddev",
    ]
    # Per-file rows carry no confidence data.
    assert all(r["precision_mean"] is None for r in result["tables"]["tag"] if r["file"] != "<all>")
    # Another seed: other draws, another signature.
    status, _, err = _run(
        capsys,
        tmp_path,
        *GOOD,
        "--compute_confidence_data",
        "--seed",
        "7",
        "--resamples",
        "50",
        "--json",
        str(out_json),
    )
    assert status == 0, err
    other = json.loads(out_json.read_text())
    assert "confidence_seed:7|confidence_resamples:50" in other["signature"]
    draws = np.random.default_rng(7).integers(0, 2, size=(50, 2))
    copies_of_a = (draws == 0).sum(axis=1)
    recalls = 4 / (4 * copies_of_a + 3 * (2 - copies_of_a))
    assert _corpus(other, "tag")["<all>"]["recall_mean"] == pytest.approx(recalls.mean())


def _read_csv(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_csv_output_dir_writes_matscores_files(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "csv"
    status, stdout, err = _run(
        capsys,
        tmp_path,
        *ROUGH,
        "--by_character",
        "--by_pseudo_token",
        "--details",
        "--confusability",
        "--csv_output_dir",
        str(out),
        "--no_csv_formulas",
    )
    assert status == 0, err
    assert stdout == ""  # MATScore: no table on standard output with --csv_output_dir
    assert sorted(p.name for p in out.iterdir()) == [
        "bychar.csv",
        "bypseudotoken.csv",
        "bytag.csv",
        "confusability.csv",
        "details.csv",
    ]
    bytag = _read_csv(out / "bytag.csv")
    assert bytag[0][:4] == ["file", "tag", "test docs", "test toks"]
    assert [row[:2] for row in bytag[1:]][:5] == [
        ["a.xml", "DATE"],
        ["a.xml", "LOCATION"],
        ["a.xml", "ORGANIZATION"],
        ["a.xml", "PERSON"],
        ["a.xml", "<all>"],
    ]
    rows = {(r[0], r[1]): dict(zip(bytag[0], r, strict=True)) for r in bytag[1:]}
    # data/mat-sample/README.md, "rough" <all>: match 2, refclash 5, missing 0, hypclash 5, spurious 1;
    # P = 2/8, R = 2/7.
    total = rows["<all>", "<all>"]
    assert [total[name] for name in COUNTS] == ["2", "5", "0", "5", "1"]
    assert float(total["precision"]) == pytest.approx(2 / 8) and float(total["recall"]) == pytest.approx(
        2 / 7
    )
    assert total["test docs"] == "2" and rows["a.xml", "<all>"]["test docs"] == "1"
    assert _read_csv(out / "bychar.csv")[0][3] == "test chars"
    assert _read_csv(out / "bypseudotoken.csv")[0][3] == "test pseudo-toks"
    details = _read_csv(out / "details.csv")
    assert details[0] == [
        "file",
        "type",
        "reflabel",
        "refstart",
        "refend",
        "hyplabel",
        "hypstart",
        "hypend",
        "refcontent",
        "hypcontent",
    ]
    # b: "hired" spurious DATE; b: AT&T decoded from &amp;.
    assert ["b.xml", "spurious", "", "", "", "DATE", "5", "10", "", "hired"] in details
    assert ["b.xml", "match", "ORGANIZATION", "0", "4", "ORGANIZATION", "0", "4", "AT&T", "AT&T"] in details
    confusion = _read_csv(out / "confusability.csv")
    assert confusion[0] == ["file", "reference", "DATE", "LOCATION", "ORGANIZATION", "PERSON", "null"]
    corpus = {r[1]: r[2:] for r in confusion if r[0] == "<all>"}
    # Matches and tag clashes: PERSON-PERSON 1 (Mary Jones), ORGANIZATION 1 (AT&T), LOCATION->PERSON 1
    # (Paris); unpaired: null->DATE 1 ("hired"). Undermarks and overmarks are not counted.
    assert corpus == {
        "DATE": ["0", "0", "0", "0", "0"],
        "LOCATION": ["0", "0", "0", "1", "0"],
        "ORGANIZATION": ["0", "0", "1", "0", "0"],
        "PERSON": ["0", "0", "0", "1", "0"],
        "null": ["1", "0", "0", "0", "0"],
    }
    assert [r[:2] for r in confusion[1:6]] == [["a.xml", label] for label in corpus]


def test_csv_formulas_and_separators(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    for flag, separator in (([], ","), (["--oo_separator"], ";")):
        out = tmp_path / f"csv{separator}"
        status, _, err = _run(capsys, tmp_path, *GOOD, "--csv_output_dir", str(out), *flag)
        assert status == 0, err
        header, first = _read_csv(out / "bytag.csv")[:2]
        row = dict(zip(header, first, strict=True))
        # Columns: A file, B tag, C test docs, D test toks, E match, ..., I reftotal, M hyptotal.
        assert row["precision"] == f"=IF(M2=0{separator}1{separator}E2/M2)"
        assert row["match"].isdigit()


def test_csv_options_without_a_directory_and_a_bad_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    status, out, err = _run(capsys, tmp_path, *GOOD, "--no_csv_formulas", "--oo_separator")
    assert status == 0
    assert "--no_csv_formulas has no effect without --csv_output_dir" in err
    assert "--oo_separator has no effect without --csv_output_dir" in err
    assert out.startswith("By tag\n")
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    status, out, err = _run(capsys, tmp_path, *GOOD, "--csv_output_dir", str(blocker))
    assert status == 2 and out == ""
    assert str(blocker) in err and "--csv_output_dir" in err
