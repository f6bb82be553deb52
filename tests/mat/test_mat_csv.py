"""CSV outputs (issue 12, point 9): layout, formulas, separators, and a real spreadsheet engine.

The LibreOffice test opens formula CSVs with LibreOffice headless (Debian's ``libreoffice-calc``),
lets it compute every formula, and checks the numbers equal those of ``--no_csv_formulas``. It is
skipped only when ``soffice`` is absent and ``IESCORE_REQUIRE_LIBREOFFICE`` is not set (CI sets it).
"""

from __future__ import annotations

import csv
import io
import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from iescore.pipeline.mat.confidence import confidence_data
from iescore.pipeline.mat.csv_output import CSV_FILES, score_csv, text_csv
from iescore.pipeline.mat.fixed import DETAIL_COLUMNS
from iescore.pipeline.mat.measures import score_table
from iescore.pipeline.mat.tables import report_rows


def _rows(counts: pd.DataFrame, table: str, **options: object) -> pd.DataFrame:
    scores = score_table(pa.Table.from_pandas(counts, preserve_index=False), by_file=True)
    return report_rows(scores, table, **options).to_pandas()


def _prf(sums: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Precision, recall, fmeasure with MATScore's conventions (P = 1 when hyptotal is 0, R = 1 when
    reftotal is 0, F = 0 when P + R = 0)."""
    hyptotal = sums["match"] + sums["hypclash"] + sums["spurious"]
    reftotal = sums["match"] + sums["refclash"] + sums["missing"]
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(hyptotal > 0, sums["match"] / hyptotal, 1.0)
        recall = np.where(reftotal > 0, sums["match"] / reftotal, 1.0)
        fmeasure = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    return {"precision": precision, "recall": recall, "fmeasure": fmeasure}


def _counts(table: str, rows: list[tuple]) -> pd.DataFrame:
    columns = ["file", "tag", "match", "refclash", "missing", "hypclash", "spurious", "test_units"]
    frame = pd.DataFrame(rows, columns=columns)
    frame["table"] = table
    for name in DETAIL_COLUMNS:
        frame[name] = 0
    return frame


# Two files, two tags, by character. File "b.json" has no character (test chars 0): its accuracy is
# undefined, an empty cell in both modes.
CHAR_COUNTS = _counts(
    "character",
    [
        ("a.json", "PER", 6, 2, 1, 0, 3, 40),
        ("a.json", "ORG", 0, 0, 0, 2, 0, 40),
        ("b.json", "PER", 0, 0, 0, 0, 0, 0),
        ("b.json", "ORG", 0, 0, 0, 0, 0, 0),
    ],
)


def _read(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _by_key(table: list[list[str]]) -> dict[tuple[str, str], dict[str, str]]:
    header = table[0]
    return {(row[0], row[1]): dict(zip(header, row, strict=True)) for row in table[1:]}


def test_values_layout_per_file_rows_then_corpus_rows() -> None:
    rows = _rows(CHAR_COUNTS, "character")
    table = _read(score_csv(rows, "character", formulas=False))
    assert table[0] == [
        "file",
        "tag",
        "test docs",
        "test chars",
        "match",
        "refclash",
        "missing",
        "refonly",
        "reftotal",
        "hypclash",
        "spurious",
        "hyponly",
        "hyptotal",
        "precision",
        "recall",
        "fmeasure",
        "tag_sensitive_accuracy",
        "tag_sensitive_error_rate",
        "tag_blind_accuracy",
        "tag_blind_error_rate",
    ]
    assert [row[:2] for row in table[1:]] == [
        ["a.json", "ORG"],
        ["a.json", "PER"],
        ["a.json", "<all>"],
        ["b.json", "ORG"],
        ["b.json", "PER"],
        ["b.json", "<all>"],
        ["<all>", "ORG"],
        ["<all>", "PER"],
        ["<all>", "<all>"],
    ]
    rows_by = _by_key(table)
    # a.json PER: refonly 2 + 1 = 3, reftotal 9, hyponly 0 + 3 = 3, hyptotal 9; P = R = 6/9; F = 6/9.
    # Accuracy: (40 - 2 - 1 - 3) / 40 = 0.85, blind (40 - 1 - 3) / 40 = 0.9.
    per = rows_by["a.json", "PER"]
    assert (per["test docs"], per["test chars"], per["refonly"], per["reftotal"]) == ("1", "40", "3", "9")
    assert (per["hyponly"], per["hyptotal"]) == ("3", "9")
    assert float(per["precision"]) == pytest.approx(6 / 9)
    assert float(per["fmeasure"]) == pytest.approx(6 / 9)
    assert float(per["tag_sensitive_accuracy"]) == pytest.approx(0.85)
    assert float(per["tag_blind_error_rate"]) == pytest.approx(0.1)
    # a.json ORG: hypclash 2, nothing in the reference: P = 0/2 = 0, R = 1 (reftotal 0), F = 2*0/1 = 0.
    org = rows_by["a.json", "ORG"]
    assert (float(org["precision"]), float(org["recall"]), float(org["fmeasure"])) == (0.0, 1.0, 0.0)
    # b.json: no unit, nothing tagged: P = R = 1, F = 1, accuracy undefined (empty).
    empty = rows_by["b.json", "<all>"]
    assert (empty["precision"], empty["recall"], empty["fmeasure"]) == ("1", "1", "1")
    assert empty["tag_sensitive_accuracy"] == "" and empty["tag_blind_error_rate"] == ""
    # Corpus <all>: 2 docs, 40 chars, match 6, refclash 2, missing 1, hypclash 2, spurious 3:
    # P = 6/11, R = 6/9, accuracy (40 - 2 - 1 - 3) / 40 = 0.85.
    total = rows_by["<all>", "<all>"]
    assert (total["test docs"], total["test chars"], total["hyptotal"], total["reftotal"]) == (
        "2",
        "40",
        "11",
        "9",
    )
    assert float(total["precision"]) == pytest.approx(6 / 11)
    assert float(total["tag_sensitive_accuracy"]) == pytest.approx(0.85)


def test_formulas_refer_to_the_count_cells_with_either_separator() -> None:
    rows = _rows(CHAR_COUNTS, "character")
    excel = _by_key(_read(score_csv(rows, "character")))
    # Columns: A file, B tag, C test docs, D test chars, E match, F refclash, G missing, H refonly,
    # I reftotal, J hypclash, K spurious, L hyponly, M hyptotal, N precision, O recall, P fmeasure,
    # Q tag_sensitive_accuracy, R ..._error_rate, S tag_blind_accuracy, T ..._error_rate. Row 3 is
    # a.json PER.
    per = excel["a.json", "PER"]
    assert per["refonly"] == "=F3+G3"
    assert per["reftotal"] == "=H3+E3"
    assert per["hyptotal"] == "=L3+E3"
    assert per["precision"] == "=IF(M3=0,1,E3/M3)"
    assert per["recall"] == "=IF(I3=0,1,E3/I3)"
    assert per["fmeasure"] == "=IF(N3+O3=0,0,2*((N3*O3)/(N3+O3)))"
    assert per["tag_sensitive_accuracy"] == '=IF(D3=0,"",(D3-F3-G3-K3)/D3)'
    assert per["tag_blind_error_rate"] == '=IF(D3=0,"",1-S3)'
    assert per["match"] == "6"  # counts stay values
    oo = _by_key(_read(score_csv(rows, "character", separator=";")))
    assert oo["a.json", "PER"]["precision"] == "=IF(M3=0;1;E3/M3)"
    with pytest.raises(ValueError, match="separator"):
        score_csv(rows, "character", separator=":")


def test_tag_span_details_and_confidence_columns() -> None:
    counts = _counts("tag", [("a", "X", 1, 1, 0, 1, 0, 5), ("b", "X", 0, 0, 1, 0, 1, 7)])
    counts["refovermark"] = [1, 0]
    counts["hypundermark"] = [1, 0]
    confidence = confidence_data(counts, _prf, fixed_span=False, weights=np.array([[2, 0], [0, 2]]))
    rows = _rows(counts, "tag", tag_span_details=True, confidence=confidence)
    header = list(rows.columns)
    assert header[:5] == ["file", "tag", "test_docs", "test_units", "match"]
    assert header[5:12] == [name for name in DETAIL_COLUMNS if name.startswith("ref")]
    assert header[12:16] == ["refclash", "missing", "refonly", "reftotal"]
    assert header[16:23] == [name for name in DETAIL_COLUMNS if name.startswith("hyp")]
    assert header[header.index("precision") + 1 : header.index("recall")] == [
        "precision_mean",
        "precision_variance",
        "precision_stddev",
    ]
    table = _by_key(_read(score_csv(rows, "tag", formulas=False)))
    # Score sets {a, a}: P = 2/4 = 0.5; {b, b}: match 0, hyptotal 2 -> P = 0. Mean 0.25, population
    # variance 0.0625. Confidence only on corpus rows.
    assert float(table["<all>", "X"]["precision_mean"]) == pytest.approx(0.25)
    assert float(table["<all>", "<all>"]["precision_variance"]) == pytest.approx(0.0625)
    assert table["a", "X"]["precision_mean"] == ""
    assert table["a", "X"]["refovermark"] == "1" and table["<all>", "X"]["hypundermark"] == "1"


def test_input_text_cannot_become_a_formula() -> None:
    counts = _counts(
        "tag", [("=cmd|' /C calc'!A0", "=1+1", 1, 0, 0, 0, 0, 1), ("ok", "-x", 0, 0, 0, 0, 0, 1)]
    )
    rows = _rows(counts, "tag")
    formula_rows = _read(score_csv(rows, "tag"))
    assert formula_rows[1][:2] == ["'=cmd|' /C calc'!A0", "'=1+1"]
    assert ["ok", "'-x"] in [row[:2] for row in formula_rows]
    value_rows = _read(score_csv(rows, "tag", formulas=False))
    assert ["=cmd|' /C calc'!A0", "=1+1"] in [row[:2] for row in value_rows]
    details = pd.DataFrame({"file": ["d"], "type": ["missing"], "refcontent": ["=2*3"], "refstart": [4]})
    assert _read(text_csv(details, text_columns=("file", "type", "refcontent")))[1] == [
        "d",
        "missing",
        "'=2*3",
        "4",
    ]
    assert _read(text_csv(details, formulas=False, text_columns=("refcontent",)))[1][2] == "=2*3"


def test_file_names_are_matscores() -> None:
    assert CSV_FILES == {
        "tag": "bytag.csv",
        "token": "bytoken.csv",
        "pseudo_token": "bypseudotoken.csv",
        "character": "bychar.csv",
        "details": "details.csv",
        "confusability": "confusability.csv",
    }


# --- LibreOffice headless computes the formulas ---------------------------------------------------

_SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")


def _require_libreoffice() -> str:
    if _SOFFICE:
        return _SOFFICE
    if os.environ.get("IESCORE_REQUIRE_LIBREOFFICE"):
        pytest.fail(
            "IESCORE_REQUIRE_LIBREOFFICE is set but soffice is missing (apt-get install libreoffice-calc)"
        )
    pytest.skip(
        "LibreOffice (soffice) is not installed; set IESCORE_REQUIRE_LIBREOFFICE to make this a failure"
    )


def _libreoffice_values(soffice: str, sources: list[Path], work: Path) -> dict[str, list[list[str]]]:
    """Open each CSV in LibreOffice Calc (UTF-8, formulas evaluated) and save it as CSV of values."""
    out = work / "computed"
    out.mkdir()
    # 44 = comma, 34 = double quote, 76 = UTF-8, 1 = first line; on export, the formula results with
    # full precision (not "as shown").
    export = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false"
    command = [
        soffice,
        f"-env:UserInstallation={(work / 'profile').as_uri()}",
        "--headless",
        "--norestore",
        "--infilter=CSV:44,34,76,1",
        "--convert-to",
        export,
        "--outdir",
        str(out),
        *map(str, sources),
    ]
    subprocess.run(command, check=True, capture_output=True, timeout=240)
    return {path.name: _read((out / path.name).read_text(encoding="utf-8")) for path in sources}


def _same_cell(computed: str, value: str) -> bool:
    # A label that looks like a formula is protected by a leading ' (never evaluated).
    if computed in (value, "'" + value):
        return True
    try:
        return math.isclose(float(computed), float(value), rel_tol=1e-12, abs_tol=1e-12)
    except ValueError:
        return False


def test_libreoffice_computes_the_same_numbers_as_no_csv_formulas(tmp_path: Path) -> None:
    soffice = _require_libreoffice()
    tag_counts = _counts(
        "tag",
        [
            ("doc1.json", "PERSON", 7, 2, 1, 1, 2, 120),
            ("doc1.json", "LOCATION", 0, 0, 3, 0, 0, 120),
            ("doc1.json", "ORGANIZATION", 0, 0, 0, 0, 4, 120),
            ("données.json", "PERSON", 3, 0, 0, 1, 0, 0),
            ("données.json", "LOCATION", 0, 0, 0, 0, 0, 0),
            ("données.json", "ORGANIZATION", 5, 1, 0, 0, 0, 0),
            ("données.json", "=1+1", 0, 0, 0, 0, 1, 0),
        ],
    )
    tag_counts["reftagclash"] = [1, 0, 0, 0, 0, 1, 0]
    tag_counts["refoverlap"] = [1, 0, 0, 0, 0, 0, 0]
    char_counts = tag_counts.assign(table="character", test_units=[80, 80, 80, 0, 0, 0, 0])
    for name in DETAIL_COLUMNS:
        char_counts[name] = 0
    tables = {
        "bytag": (
            "tag",
            _rows(
                tag_counts,
                "tag",
                tag_span_details=True,
                confidence=confidence_data(tag_counts, fixed_span=False, resamples=100, seed=5),
            ),
        ),
        "bychar": (
            "character",
            _rows(
                char_counts,
                "character",
                confidence=confidence_data(char_counts, fixed_span=True, resamples=100, seed=5),
            ),
        ),
    }
    sources = []
    expected = {}
    for name, (table_name, rows) in tables.items():
        for separator, suffix in ((",", "excel"), (";", "oo")):
            path = tmp_path / f"{name}_{suffix}.csv"
            path.write_text(score_csv(rows, table_name, separator=separator), encoding="utf-8")
            sources.append(path)
            expected[path.name] = _read(score_csv(rows, table_name, formulas=False))
    computed = _libreoffice_values(soffice, sources, tmp_path)
    for name, table in computed.items():
        values = expected[name]
        assert len(table) == len(values), name
        assert any(
            cell.startswith("=") for row in _read((tmp_path / name).read_text("utf-8")) for cell in row
        )
        for line, (got, want) in enumerate(zip(table, values, strict=True), start=1):
            assert len(got) == len(want), (name, line)
            for column, (cell, value) in enumerate(zip(got, want, strict=True)):
                assert _same_cell(cell, value), (name, line, values[0][column], cell, value)
        assert [row[1] for row in table if row[1].endswith("=1+1")] == ["'=1+1"] * 2, name


def test_libreoffice_computes_the_commands_formula_files(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """The same through ``iescore mat``: every score CSV of a formula run, opened in LibreOffice,
    equals the ``--no_csv_formulas`` run's (details and confusability have no formula: equal as text)."""
    soffice = _require_libreoffice()
    from iescore.tasks.cli.main import main

    sample = Path(__file__).resolve().parents[2] / "data" / "mat-sample"
    common = ["--dir", str(sample / "good"), "--ref_dir", str(sample / "ref"), "--store", str(tmp_path / "s")]
    common += ["--by_token", "--by_pseudo_token", "--by_character", "--tag_span_details"]
    common += ["--compute_confidence_data", "--resamples", "100", "--details", "--confusability"]
    runs = {"values": ["--no_csv_formulas"], "excel": [], "oo": ["--oo_separator"]}
    for name, extra in runs.items():
        assert main(["mat", *common, "--csv_output_dir", str(tmp_path / name), *extra]) == 0
    capsys.readouterr()
    names = sorted(path.name for path in (tmp_path / "values").iterdir())
    assert names == [
        "bychar.csv",
        "bypseudotoken.csv",
        "bytag.csv",
        "bytoken.csv",
        "confusability.csv",
        "details.csv",
    ]
    for name in ("excel", "oo"):
        sources = []
        for csv_name in names:
            source = tmp_path / f"{name}_{csv_name}"
            source.write_bytes((tmp_path / name / csv_name).read_bytes())
            sources.append(source)
        work = tmp_path / f"lo_{name}"
        work.mkdir()
        computed = _libreoffice_values(soffice, sources, work)
        for csv_name in names:
            got = computed[f"{name}_{csv_name}"]
            want = _read((tmp_path / "values" / csv_name).read_text(encoding="utf-8"))
            assert len(got) == len(want), (name, csv_name)
            for line, (got_row, want_row) in enumerate(zip(got, want, strict=True), start=1):
                assert len(got_row) == len(want_row), (name, csv_name, line)
                for column, (cell, value) in enumerate(zip(got_row, want_row, strict=True)):
                    assert _same_cell(cell, value), (name, csv_name, line, want[0][column], cell, value)
