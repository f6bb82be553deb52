"""MATScore's CSV outputs (``--csv_output_dir``; seed 002, "Score output options").

Each table becomes one CSV text, UTF-8, comma-delimited, with a ``file`` column first: the hypothesis
basename on the per-file rows, ``<all>`` on the corpus rows, which follow them. Score tables
(``bytag.csv``, ``bytoken.csv``, ``bypseudotoken.csv``, ``bychar.csv``) hold per file one row per tag
and an ``<all>`` row, then the same over the corpus. By default every computed cell (refonly, reftotal,
hyponly, hyptotal, precision, recall, fmeasure and the four accuracy columns) is a spreadsheet formula
over the count cells of its row, with Excel's ``,`` between function arguments, or OpenOffice's ``;``
(``--oo_separator``); with ``--no_csv_formulas`` the cells hold the values (full precision). The
confidence columns (``--compute_confidence_data``) are values in both modes, on the corpus rows only:
they describe resampled corpora, not a row's counts.

In formula mode a text cell that comes from the input (file names, labels, span text) and starts with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return is written with a leading ``'``, so that a
spreadsheet shows it as text instead of evaluating it (a label ``=HYPERLINK(...)`` must not become a
live formula). With ``--no_csv_formulas``, meant for other tools, text is written as it is.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Sequence

import numpy as np
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.core.text import csv_row_end
from iescore.pipeline.mat.tables import headers
from iescore.schemas import C

#: File name of each table in the output directory (seed: bytag.csv, bytoken.csv, ...).
CSV_FILES = {
    "tag": "bytag.csv",
    "token": "bytoken.csv",
    "pseudo_token": "bypseudotoken.csv",
    "character": "bychar.csv",
    "details": "details.csv",
    "confusability": "confusability.csv",
}
EXCEL_SEPARATOR = ","
OPENOFFICE_SEPARATOR = ";"
_UNSAFE_START = ("=", "+", "-", "@", "\t", "\r")


def score_csv(
    rows: pd.DataFrame, table: str, *, formulas: bool = True, separator: str = EXCEL_SEPARATOR
) -> str:
    """The CSV text of a score table's rows (``pipeline.mat.tables.report_rows``), MATScore's headers.

    With ``formulas``, the computed columns (refonly, reftotal, hyponly, hyptotal, precision, recall,
    fmeasure and the accuracy columns) are formulas over their row's count cells, function arguments
    separated by ``separator`` (``,`` Excel, ``;`` OpenOffice); otherwise values. An undefined value (an
    accuracy with no test unit) is an empty cell, and its formula gives the empty text.
    """
    if separator not in (EXCEL_SEPARATOR, OPENOFFICE_SEPARATOR):
        raise ValueError(f"formula separator must be ',' or ';', not {separator!r}")
    columns = list(rows.columns)
    cell = {name: _column_letter(position) for position, name in enumerate(columns)}
    units = "test_units"
    output = io.StringIO()
    writer = csv.writer(output, lineterminator=csv_row_end(rows))
    writer.writerow(headers(columns, table))
    for row_number, record in enumerate(rows.itertuples(index=False, name=None), start=2):
        values = dict(zip(columns, record, strict=True))
        ref = {name: f"{cell[name]}{row_number}" for name in columns}
        line = []
        for name in columns:
            if formulas and name in _FORMULAS:
                line.append(_FORMULAS[name](ref, units, separator))
            elif name in ("file", "tag"):
                line.append(_text(values[name], formulas))
            else:
                line.append(_number(values[name]))
        writer.writerow(line)
    return output.getvalue()


def text_csv(frame: pd.DataFrame, *, formulas: bool = True, text_columns: Sequence[str] = ()) -> str:
    """A table without computed cells (details, confusability) as CSV text, columns as they are.

    Cells of ``text_columns`` and the header (a confusability header holds labels) come from the input
    and are protected in formula mode (module doc); numbers are written in full, missing values as empty
    cells.
    """
    output = io.StringIO()
    writer = csv.writer(output, lineterminator=csv_row_end(frame))
    writer.writerow([_text(name, formulas) for name in frame.columns])
    protected = [name in text_columns for name in frame.columns]
    for record in frame.itertuples(index=False, name=None):
        writer.writerow(
            [
                _text(value, formulas) if text else _number(value)
                for value, text in zip(record, protected, strict=True)
            ]
        )
    return output.getvalue()


def _formula_if(condition: str, then: str, otherwise: str, separator: str) -> str:
    return f"IF({condition}{separator}{then}{separator}{otherwise})"


def _ratio(numerator: str, denominator: str, separator: str) -> str:
    # MATScore's conventions: a ratio over an empty total is 1.0 (precision, recall).
    return "=" + _formula_if(f"{denominator}=0", "1", f"{numerator}/{denominator}", separator)


def _fmeasure(ref: dict[str, str], _units: str, separator: str) -> str:
    p, r = ref[C.precision], ref[C.recall]
    return "=" + _formula_if(f"{p}+{r}=0", "0", f"2*(({p}*{r})/({p}+{r}))", separator)


def _accuracy(*errors: str) -> Callable[[dict[str, str], str, str], str]:
    def formula(ref: dict[str, str], units: str, separator: str) -> str:
        total = ref[units]
        lost = "".join(f"-{ref[name]}" for name in errors)
        return "=" + _formula_if(f"{total}=0", '""', f"({total}{lost})/{total}", separator)

    return formula


def _error_rate(accuracy: str) -> Callable[[dict[str, str], str, str], str]:
    def formula(ref: dict[str, str], units: str, separator: str) -> str:
        return "=" + _formula_if(f"{ref[units]}=0", '""', f"1-{ref[accuracy]}", separator)

    return formula


_FORMULAS: dict[str, Callable[[dict[str, str], str, str], str]] = {
    C.refonly: lambda ref, _u, _s: f"={ref['refclash']}+{ref['missing']}",
    C.reftotal: lambda ref, _u, _s: f"={ref['refonly']}+{ref['match']}",
    C.hyponly: lambda ref, _u, _s: f"={ref['hypclash']}+{ref['spurious']}",
    C.hyptotal: lambda ref, _u, _s: f"={ref['hyponly']}+{ref['match']}",
    C.precision: lambda ref, _u, s: _ratio(ref[C.match], ref[C.hyptotal], s),
    C.recall: lambda ref, _u, s: _ratio(ref[C.match], ref[C.reftotal], s),
    C.fmeasure: _fmeasure,
    "tag_sensitive_accuracy": _accuracy("refclash", "missing", "spurious"),
    "tag_sensitive_error_rate": _error_rate("tag_sensitive_accuracy"),
    "tag_blind_accuracy": _accuracy("missing", "spurious"),
    "tag_blind_error_rate": _error_rate("tag_blind_accuracy"),
}


def _column_letter(position: int) -> str:
    """Spreadsheet column name of a 0-based position: A ... Z, AA ..."""
    letters = ""
    position += 1
    while position:
        position, remainder = divmod(position - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


def _text(value: object, protect: bool) -> str:
    if _missing(value):
        return ""
    text = str(value)
    if protect and text.startswith(_UNSAFE_START):
        return "'" + text
    return text


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float | np.floating) and math.isnan(value))


def _number(value: object) -> str:
    if _missing(value):
        return ""
    if isinstance(value, bool | np.bool_):
        return str(int(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        if math.isnan(value):
            return ""
        if float(value).is_integer():
            return str(int(value))
        return repr(float(value))
    return str(value)
