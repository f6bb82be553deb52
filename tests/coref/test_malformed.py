"""Malformed coreference inputs and options: each a clean exit 2, one line on stderr naming the file
and line (or the option) and what was expected there, nothing on stdout and nothing written.

A table of variants, as benchmarks/fuzz_readers.py keeps one for the readers: (key text, response
text, extra arguments, where the message must point, words it must hold). ``KEY`` and ``RSP`` in the
arguments stand for the two files, ``OUT`` for an output path that must stay unwritten.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

D = "#begin document (d); part 0\n"
E = "#end document\n"
GOOD = D + "d 0 0 w (1)\nd 0 1 w (1)\n" + E
SGML_KEY = '<DOC>\n<DOCNO> S </DOCNO>\n<COREF ID="1">a</COREF> b\n</DOC>\n'

# name: (key, response, arguments (None: the option form on KEY and RSP with --json OUT), where, words)
CASES: dict[str, tuple[str | bytes, str | bytes, list[str] | None, str, str]] = {
    "key: close without open": (D + "d 0 0 w 1)\n" + E, GOOD, None, "KEY:2", "not opened"),
    "key: never closed": (D + "d 0 0 w (1\nd 0 1 w -\n" + E, GOOD, None, "KEY:2", "never closed"),
    "key: bad column": (D + "d 0 0 w (x)\n" + E, GOOD, None, "KEY:2", "expected (N, N), (N) or - items"),
    "key: no end": (D + "d 0 0 w (1)\n", GOOD, None, "KEY:1", "has no #end document"),
    "key: begin inside": (D + D + E, GOOD, None, "KEY:2", "#begin document inside document"),
    "key: end without begin": (E + GOOD, GOOD, None, "KEY:1", "#end document without #begin document"),
    "key: token outside": ("d 0 0 w (1)\n" + GOOD, GOOD, None, "KEY:1", "#begin document expected"),
    "key: document twice": (GOOD + GOOD, GOOD, None, "KEY:5", "occurs twice"),
    "key: extent twice": (D + "d 0 0 w (1)|(2)\n" + E, GOOD, None, "KEY:2", "two mentions with extent"),
    "key: empty file": ("", GOOD, None, "KEY", "a coreference key with at least one document expected"),
    "key: no mention": (D + "d 0 0 w -\n" + E, GOOD, None, "KEY", "a coreference key marks the mentions"),
    "key: not UTF-8": (D.encode() + b"d 0 0 \xff (1)\n" + E.encode(), GOOD, None, "KEY", "utf-8"),
    "rsp: close without open": (GOOD, D + "d 0 0 w 1)\nd 0 1 w -\n" + E, None, "RSP:2", "not opened"),
    "rsp: never closed": (GOOD, D + "d 0 0 w (1\nd 0 1 w -\n" + E, None, "RSP:2", "never closed"),
    "rsp: bad column": (GOOD, D + "d 0 0 w (1)x\nd 0 1 w -\n" + E, None, "RSP:2", "or - items"),
    "rsp: token missing": (GOOD, D + "d 0 0 w (1)\n" + E, None, "RSP:3", "the key goes on with token 'w'"),
    "rsp: sentence break": (GOOD, D + "d 0 0 w (1)\n\nd 0 1 w -\n" + E, None, "RSP:", "sentence"),
    "rsp: document twice": (GOOD, GOOD + GOOD, None, "RSP:5", "occurs twice"),
    "rsp: not UTF-8": (GOOD, D.encode() + b"d 0 0 \xff (1)\nd 0 1 w -\n" + E.encode(), None, "RSP", "utf-8"),
    "rsp: no end": (GOOD, D + "d 0 0 w (1)\nd 0 1 w -\n", None, "RSP:1", "has no #end document"),
    "rsp: token too many": (
        GOOD,
        D + "d 0 0 w (1)\nd 0 1 w (1)\nd 0 2 w -\n" + E,
        None,
        "RSP:4",
        "one too many",
    ),
    "strict: document missing": (
        GOOD,
        "",
        ["--key", "KEY", "--response", "RSP", "--strict", "--json", "OUT"],
        "RSP",
        "expected",
    ),
    "strict: document not in key": (
        GOOD,
        GOOD + "#begin document (x); part 0\nx 0 0 w -\n" + E,
        ["--key", "KEY", "--response", "RSP", "--strict", "--json", "OUT"],
        "RSP:5",
        "of a key document expected",
    ),
    "sgml: unknown REF": (
        SGML_KEY,
        '<DOC>\n<DOCNO> S </DOCNO>\n<COREF ID="1" REF="7">a</COREF> b\n</DOC>\n',
        ["-f", "sgml", "--key", "KEY", "--response", "RSP", "--json", "OUT"],
        "RSP:3",
        "REF '7'",
    ),
    "sgml: text differs": (
        SGML_KEY,
        '<DOC>\n<DOCNO> S </DOCNO>\n<COREF ID="1">a</COREF> c\n</DOC>\n',
        ["-f", "sgml", "--key", "KEY", "--response", "RSP", "--json", "OUT"],
        "RSP:3",
        "text differs from the key's",
    ),
    "option: --match min on CoNLL": (
        GOOD,
        GOOD,
        ["--key", "KEY", "--response", "RSP", "--match", "min", "--json", "OUT"],
        "--match",
        "SGML",
    ),
    "option: no --key": (GOOD, GOOD, ["--response", "RSP", "--json", "OUT"], "--key", "expected"),
    "option: --json is the key": (
        GOOD,
        GOOD,
        ["--key", "KEY", "--response", "RSP", "--json", "KEY"],
        "KEY",
        "both an input and an output",
    ),
    "option: --json under a file": (
        GOOD,
        GOOD,
        ["--key", "KEY", "--response", "RSP", "--json", "KEY/x.json"],
        "KEY/x.json",
        "(--json)",
    ),
    "option: missing key file": (
        GOOD,
        GOOD,
        ["--key", "KEY.none", "--response", "RSP", "--json", "OUT"],
        "KEY.none",
        "(--key)",
    ),
    "positional: unknown metric": (GOOD, GOOD, ["mucx", "KEY", "RSP"], "<metric>", "muc, bcub"),
    "positional: two words": (GOOD, GOOD, ["muc", "KEY"], "<metric> <key> <response>", "3 or 4 expected"),
    "positional: five words": (GOOD, GOOD, ["muc", "KEY", "RSP", "d", "e"], "<metric>", "3 or 4 expected"),
    "positional: document not in key": (GOOD, GOOD, ["muc", "KEY", "RSP", "zz"], "KEY", "<doc> argument"),
    "positional: with --json": (GOOD, GOOD, ["all", "KEY", "RSP", "--json", "OUT"], "--json", "--key and"),
    "positional: with -f sgml": (GOOD, GOOD, ["muc", "KEY", "RSP", "-f", "sgml"], "-f", "positional form"),
    "positional: missing response": (GOOD, GOOD, ["bcub", "KEY", "RSP.none"], "RSP.none", "(<response>)"),
    "positional: bad response": (
        GOOD,
        D + "d 0 0 w 1)\nd 0 1 w -\n" + E,
        ["lea", "KEY", "RSP"],
        "RSP:2",
        "opened",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key_text, response_text, arguments, where, words = CASES[name]
    key, response, out = tmp_path / "key.conll", tmp_path / "rsp.conll", tmp_path / "out.json"
    for path, text in ((key, key_text), (response, response_text)):
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    names = {"KEY": str(key), "RSP": str(response), "OUT": str(out)}

    def fill(word: str) -> str:
        for placeholder, value in names.items():
            word = word.replace(placeholder, value)
        return word

    argv = [fill(a) for a in (arguments or ["--key", "KEY", "--response", "RSP", "--json", "OUT"])]
    before = sorted(p.name for p in tmp_path.iterdir())
    status = main(["coref", *argv])
    stdout, err = capsys.readouterr()
    assert status == 2, (name, err)
    assert stdout == "", name
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"iescore: {fill(where)}"), (name, err)
    assert words in lines[0], (name, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written
    assert key.read_bytes() == (key_text if isinstance(key_text, bytes) else key_text.encode())


@pytest.mark.parametrize("encoding", ["nope", "base64"])
def test_an_encoding_that_is_not_a_text_encoding_is_refused_naming_the_option(
    encoding: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Checked as the options are read (the shared --encoding type), before any file is opened.
    key = tmp_path / "key.conll"
    key.write_text(GOOD)
    with pytest.raises(SystemExit) as stop:
        main(["coref", "--key", str(key), "--response", str(key), "--encoding", encoding])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --encoding: the name of a text encoding expected" in err and repr(encoding) in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["key.conll"]


def test_at_least_25_variants() -> None:
    assert len(CASES) + 2 >= 25
