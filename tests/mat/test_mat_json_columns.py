"""Reading a side's MAT JSON files together (``pipeline.mat.readers.read_documents``).

Plain files (one object on one line, spans ``[start, end]``) are parsed together by Arrow; any other
file sends the side to the file-by-file reader. Either way the columns must be what the file-by-file
reader (``read_document``, the oracle here) gives, and bad input the same error with its file and line.
Expected labels and offsets of the plain case are written out by hand from the files' text.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.mat import readers
from iescore.pipeline.mat.readers import DocumentColumns, read_document, read_documents

PLAIN = {
    "signal": "Ann saw Bo in Rome",
    "metadata": {"tool": "x"},
    "version": 2,
    "asets": [
        {"type": "PERSON", "hasSpan": True, "attrs": [], "annots": [[0, 3], [8, 10]]},
        {"type": "LOCATION", "hasSpan": True, "attrs": ["certain"], "annots": [[14, 18]]},
        {"type": "lex", "hasSpan": True, "attrs": [], "annots": [[0, 3], [4, 7]]},
        {"type": "SEGMENT", "hasSpan": False, "attrs": [], "annots": []},
    ],
}
OTHER = {
    "signal": "Bo",
    "version": 2,
    "asets": [{"type": "PERSON", "hasSpan": True, "attrs": [], "annots": [[0, 2]]}],
}


def _write(folder: Path, documents: dict[str, str]) -> list[tuple[str, Path]]:
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for name, text in documents.items():
        (folder / name).write_text(text, encoding="utf-8")
        files.append((name, folder / name))
    return files


def _same(a: DocumentColumns, b: DocumentColumns) -> None:
    assert a.keys == b.keys and a.sources == b.sources
    assert a.signals.to_pylist() == b.signals.to_pylist()
    assert a.labels.to_pylist() == b.labels.to_pylist()
    assert a.sizes.tolist() == b.sizes.tolist()
    assert a.starts.tolist() == b.starts.tolist() and a.ends.tolist() == b.ends.tolist()
    assert (a.attributes or ({},) * len(a.starts)) == (b.attributes or ({},) * len(b.starts))


def test_plain_files_are_read_together(tmp_path, monkeypatch):
    files = _write(tmp_path, {"b.json": json.dumps(OTHER), "a.json": json.dumps(PLAIN) + "\n"})

    def refuse(*args, **kwargs):
        raise AssertionError("plain files need no file-by-file reading")

    monkeypatch.setattr(readers, "read_document", refuse)
    columns = read_documents(files, "mat-json")
    # Key order: a.json, then b.json. a.json's spanful sets in file order: PERSON x2, LOCATION, lex x2;
    # the spanless SEGMENT set is not read. b.json: one PERSON.
    assert columns.keys == ("a.json", "b.json")
    assert columns.labels.to_pylist() == ["PERSON", "PERSON", "LOCATION", "lex", "lex", "PERSON"]
    assert columns.starts.tolist() == [0, 8, 14, 0, 4, 0]
    assert columns.ends.tolist() == [3, 10, 18, 3, 7, 2]
    assert columns.sizes.tolist() == [5, 1]
    assert columns.signals.to_pylist() == ["Ann saw Bo in Rome", "Bo"]
    assert columns.attributes is None


def _variant(name: str) -> str:
    document = json.loads(json.dumps(PLAIN))
    if name == "pretty":
        return json.dumps(document, indent=2)
    if name == "no version":
        del document["version"]
    elif name == "attribute values":
        document["asets"][1]["annots"] = [[14, 18, "yes"]]
    elif name == "attribute objects":
        document["asets"][1]["attrs"] = [{"name": "certain"}]
    elif name == "null hasSpan":
        document["asets"][0]["hasSpan"] = None
    elif name == "no asets":
        del document["asets"]
    elif name == "non-ASCII":
        document["signal"] = "Ånn saw Bø in Rome \U0001f600"
    text = json.dumps(document)
    if name == "duplicate key":
        text = text.replace('"version": 2', '"version": 2, "signal": "Ann saw Bo in Rome, twice"')
    return text


@pytest.mark.parametrize(
    "variant",
    [
        "pretty",
        "no version",
        "attribute values",
        "attribute objects",
        "null hasSpan",
        "no asets",
        "non-ASCII",
        "duplicate key",
    ],
)
def test_any_file_reads_as_the_file_by_file_reader_reads_it(tmp_path, variant):
    files = _write(tmp_path, {"a.json": _variant(variant), "b.json": json.dumps(OTHER)})
    oracle = DocumentColumns.of({key: read_document(path, "mat-json") for key, path in files})
    _same(read_documents(files, "mat-json"), oracle)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("\ufeff" + json.dumps(OTHER), r"a\.json:1: malformed JSON"),
        (json.dumps(OTHER) + " " + json.dumps(OTHER), r"a\.json:1: malformed JSON at column \d+: Extra data"),
        ("", r"a\.json:1: malformed JSON"),
        (
            json.dumps(OTHER).replace("[0, 2]", "[0, 3]"),
            r"a\.json:1: .*ends outside the signal \(2 characters\)",
        ),
        (json.dumps(OTHER).replace("[0, 2]", "[0, 2.0]"), r"a\.json:1: .*expected \[start, end"),
        (json.dumps(OTHER).replace('"version": 2', '"version": 3'), r"a\.json:1: MAT JSON version 3"),
    ],
)
def test_bad_files_are_refused_with_their_file_and_line(tmp_path, text, message):
    files = _write(tmp_path, {"a.json": text, "b.json": json.dumps(OTHER)})
    with pytest.raises(InputError, match=message):
        read_documents(files, "mat-json")


def test_columns_of_no_span_at_all(tmp_path):
    empty = {"signal": "x", "version": 2, "asets": []}
    columns = read_documents(_write(tmp_path, {"a.json": json.dumps(empty)}), "mat-json")
    assert columns.sizes.tolist() == [0] and len(columns.labels) == 0
    assert columns.starts.dtype == np.int64
