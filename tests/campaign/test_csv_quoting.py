"""Every CSV file quotes what must be quoted (issue 25): a system name holding a carriage return, a line
feed, a comma or a quote reads back whole with pandas and with Python's csv module. Python's csv writer
quotes a lone carriage return only when it is part of the row end, so such a file's rows end in CRLF."""

from __future__ import annotations

import csv
import io

import pandas as pd
import pyarrow as pa
import pytest
from iescore.pipeline.mat.csv_output import text_csv
from iescore.tasks.campaign.csvfile import csv_text, frame_csv

NAMES = ["carriage\rreturn", "line\nfeed", "comma,name", 'quote"name', "plain"]


def read_back(text: str) -> tuple[list[str], list[list[str]]]:
    """The first column as pandas reads it, and every row as the csv module reads it."""
    frame = pd.read_csv(io.StringIO(text, newline=""), keep_default_na=False)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return frame.iloc[:, 0].tolist(), rows


@pytest.mark.parametrize(
    "write", [csv_text, lambda table: frame_csv(table.to_pandas())], ids=["arrow", "frame"]
)
def test_names_that_must_be_quoted_read_back_whole(write) -> None:  # noqa: ANN001 - a writer
    table = pa.table({"system": NAMES, "F": [1.5, 2.0, None, 4.0, 5.0]})
    names, rows = read_back(write(table))
    assert names == NAMES
    assert rows[0] == ["system", "F"] and [row[0] for row in rows[1:]] == NAMES
    assert all(len(row) == 2 for row in rows)


def test_a_file_without_carriage_returns_is_unchanged() -> None:
    # pandas' own layout: rows end in \n, only the comma, quote and line feed cells quoted.
    table = pa.table({"system": ["a", "b,c", 'd"e', "f\ng"], "n": [1, None, 3, 4]})
    assert csv_text(table) == 'system,n\na,1\n"b,c",\n"d""e",3\n"f\ng",4\n'


def test_mat_csv_quotes_a_carriage_return() -> None:
    frame = pd.DataFrame({"tag": ["PER\rSON", "LOC"], "match": [1, 2]})
    tags, rows = read_back(text_csv(frame, formulas=False, text_columns=["tag"]))
    assert tags == ["PER\rSON", "LOC"] and all(len(row) == 2 for row in rows)
