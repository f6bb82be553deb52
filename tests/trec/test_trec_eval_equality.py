"""``iescore trec`` prints what trec_eval 10.0 prints, byte for byte (issue 15, points 1-3).

Every expected output is trec_eval 10.0's own (``tests/data/trec/README.md`` gives the build and the
exact commands; ``cases.txt`` the arguments), and the shared external copy of trec_eval's test files
(``../shared/external/trec_eval``: ``trec_eval qrels.test results.test`` prints ``out.test``).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "trec"
EXTERNAL = ROOT.parent / "shared" / "external" / "trec_eval"


def _cases() -> list[tuple[str, str, list[str]]]:
    cases = []
    for line in (DATA / "cases.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        identifier, directory, arguments = (part.strip() for part in line.split("|"))
        cases.append((identifier, directory, shlex.split(arguments)))
    return cases


CASES = _cases()


def _run(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    status = main(["trec", *arguments])
    assert status == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(("identifier", "directory", "arguments"), CASES, ids=[c[0] for c in CASES])
def test_equal_to_trec_eval(
    identifier: str, directory: str, arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = DATA / directory
    *options, qrels, run = arguments
    printed = _run([*options, str(folder / qrels), str(folder / run)], capsys)
    assert printed == (folder / identifier).read_text()


def test_cases_cover_the_options() -> None:
    """The fixtures exercise every option of point 1 and graded qrels, ties, -c with a missing query."""
    flags = " ".join(" ".join(arguments) for _, _, arguments in CASES)
    for flag in ("-q", "-c", "-m all_trec", "-l2", "-M", "-J", "-N", "-n", "relstring.20", "P.5,7,3"):
        assert flag in flags


@pytest.mark.skipif(not EXTERNAL.is_dir(), reason="../shared/external/trec_eval not present")
def test_shared_external_trec_eval_test(capsys: pytest.CaptureFixture[str]) -> None:
    printed = _run([str(EXTERNAL / "qrels.test"), str(EXTERNAL / "results.test")], capsys)
    assert printed == (EXTERNAL / "out.test").read_text()
    # The headline figures the external README quotes.
    assert "map                   \tall\t0.1785\n" in printed
    assert "P_10                  \tall\t0.3000\n" in printed
