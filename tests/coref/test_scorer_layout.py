"""``iescore coref <metric> <key> <response> [<doc>|none]`` prints what ``perl scorer.pl`` prints.

The expected outputs are the CoNLL reference scorer's own (v8.01; its LEA branch, 9.0.0-alpha, for
``lea``), run on the reference's test cases and on tests/data/coref's inputs and kept in
tests/data/coref/scorer-pl.json (tests/data/coref/README.md says how). Compared byte for byte, except
for two things the reference cannot fix: the path on its ``version:`` line (its CorScorer.pm, our
module), and the order of documents when every document is shown (a Perl hash's order, which changes
from run to run; ours is the key's), so those outputs are compared document block by document block.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data" / "coref"
SHARED = HERE.parents[2] / "shared" / "external" / "coref"
FIXTURES = json.loads((DATA / "scorer-pl.json").read_text())
# `all` on TC-A-9: the reference counts repeated mentions across the metrics of `all` and refuses to go
# on past 10 (exit 1, after two metrics); iescore scores every metric (docs/coref.md).
REFUSED = {name for name, result in FIXTURES.items() if result["status"] != 0}


def _arguments(name: str) -> list[str]:
    metric, key, response, *document = name.split(" ", 3)
    paths = [str(SHARED / p[7:]) if p.startswith("shared:") else str(DATA / p) for p in (key, response)]
    return [metric, *paths, *(eval(d) for d in document)]  # noqa: S307 - the fixture's repr of a name


def _normalized(text: str) -> list[object]:
    """The output with its version line's path cut, and each metric's per-document blocks sorted."""
    first, _, rest = text.partition("\n")
    version = re.sub(r"^(version: \S+) .*$", r"\1", first)
    sections = []
    for section in re.split(r"(?m)^(?=\nMETRIC |METRIC )", rest):
        body, totals, tail = section.partition("\n====== TOTALS =======\n")
        chunks = re.split(r"(?m)^(?=====> )", body)
        head, chunks = chunks[0], chunks[1:]
        blocks = sorted(chunks[i] + chunks[i + 1] for i in range(0, len(chunks) - 1, 2))
        if not chunks:  # `none`: only the repeated-mention lines, per document
            head = "".join(sorted(head.splitlines(keepends=True)))
        sections.append((head, blocks, totals, tail))
    return [version, sections]


def test_fixtures_cover_every_metric_and_form() -> None:
    names = [name.split(" ") for name in FIXTURES]
    assert {n[0] for n in names} == {"muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "all"}
    assert sum(len(n) == 3 for n in names) and sum(n[3:] == ["'none'"] for n in names)
    assert len(FIXTURES) > 800


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/external/coref is not beside the checkout")
@pytest.mark.parametrize("name", sorted(set(FIXTURES) - REFUSED))
def test_same_output_as_scorer_pl(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["coref", *_arguments(name)]) == 0
    out = capsys.readouterr().out
    expected = FIXTURES[name]["stdout"]
    if len(_arguments(name)) == 4:  # one document, or totals only: byte for byte but the path
        assert out.split("\n", 1)[1] == expected.split("\n", 1)[1]
    assert _normalized(out) == _normalized(expected)
