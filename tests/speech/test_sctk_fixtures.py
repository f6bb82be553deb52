"""The SCTK reference fixtures (``tests/data/speech/sctk``) are complete and agree with their manifest.

The files are sclite 2.10's and sc_stats 1.3's own outputs (the folder's README gives the build and
commands); these checks keep the set usable by the equality tests of ``iescore sclite`` and
``iescore sc_stats``: every case's folder holds exactly the outputs the manifest lists, every input
a case names is committed, every committed input is used, and the README lists every case.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "speech" / "sctk"
MANIFEST = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
CASES = MANIFEST["cases"]
FILE_OPTIONS = {"-r", "-h", "-w"}  # sclite's options whose next argument is an input file (-w unity: none)


def _input_files(case: dict) -> list[str]:
    """The input files a case reads, relative to its working directory (sc_stats reads stdin only)."""
    argv = case["argv"] if case["program"] == "sclite" else []
    named = [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg in FILE_OPTIONS and argv[i + 1] != "unity"]
    if "-S" in argv:
        named.append(argv[argv.index("-S") + 2])  # -S algo1 LEXICON
    return named + list(case["stdin"] or [])


def test_case_names_are_unique_and_every_folder_is_a_case() -> None:
    names = [case["name"] for case in CASES]
    assert len(names) == len(set(names))
    assert sorted(p.name for p in (DATA / "cases").iterdir()) == sorted(names)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_case_folder_holds_exactly_the_recorded_outputs(case: dict) -> None:
    folder = DATA / "cases" / case["name"]
    assert sorted(p.name for p in folder.iterdir()) == case["outputs"]
    assert {"stdout.txt", "stderr.txt"} <= set(case["outputs"])
    assert case["program"] in {"sclite", "sc_stats"}
    assert isinstance(case["exit_status"], int)
    if case["argv"][-2:] != ["-n", "-"]:
        assert case["argv"][case["argv"].index("-O") + 1] == f"../cases/{case['name']}"


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_case_inputs_exist(case: dict) -> None:
    cwd = DATA / case["cwd"]
    missing = [f for f in _input_files(case) if not (cwd / f).is_file()]
    assert missing == {"err_missing_file": ["nonexistent.ref"], "err_S_no_lexicon": ["nonexistent.lex"]}.get(
        case["name"], []
    )


def test_every_committed_input_is_used() -> None:
    used = {(DATA / case["cwd"] / f).resolve() for case in CASES for f in _input_files(case)}
    unused = [p.name for p in (DATA / "inputs").iterdir() if p.resolve() not in used]
    assert unused == []


def test_readme_lists_every_case_with_its_command() -> None:
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^- `([^`]+)` \(exit (-?\d+)", readme, flags=re.MULTILINE)
    assert listed == [(case["name"], str(case["exit_status"])) for case in CASES]


def test_volatile_patterns_match_only_dates() -> None:
    """Every blanked part of every output is a date, so a comparison that skips them checks the rest."""
    rxs = [re.compile(v["pattern"].encode()) for v in MANIFEST["volatile"]]
    date = re.compile(rb"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}")
    blanked = 0
    for path in (DATA / "cases").glob("*/*"):
        for rx in rxs:
            for found in rx.findall(path.read_bytes()):
                assert date.search(found), (path, found)
                blanked += 1
    assert blanked > 0
