"""A response that does not mirror its key: scored as the CoNLL scorer scores it, announced on stderr,
or refused with ``--strict`` (``pipeline.coref.pairing``).

The expected numbers are the reference scorer's (v8.01) on the same files, kept in
tests/data/coref/scorer-pl.json (its ``none`` runs: totals only); tests/data/coref/README.md says how.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from iescore.pipeline.coref import read_aligned, read_mentions, score_mentions
from iescore.tasks.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "data" / "coref"
FIXTURES = json.loads((DATA / "scorer-pl.json").read_text())
KEY = DATA / "two.key"


def _reference(metric: str, response: str) -> tuple[float, ...]:
    """The (recall num, recall den, precision num, precision den) of scorer.pl's Coreference line."""
    out = FIXTURES[f"{metric} two.key {response}.response 'none'"]["stdout"]
    found = re.search(r"^Coreference: Recall: \((\S+) / (\S+)\) .*?Precision: \((\S+) / (\S+)\)", out, re.M)
    assert found, out
    return tuple(float(x) for x in found.groups())


CASES = {
    # response file: (what the notice says, how many notices)
    "missing": ("is not in the response: scored as an empty response", 1),
    "extra": ("is not in the key", 1),
    "repeat": ("is not a key mention: both copies kept", 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_follows_the_reference_and_says_so(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    response = DATA / f"{name}.response"
    assert main(["coref", "--key", str(KEY), "--response", str(response)]) == 0
    err = capsys.readouterr().err
    said, count = CASES[name]
    notices = [line for line in err.splitlines() if ": warning: " in line]
    assert len(notices) == count and all(said in line for line in notices), err
    assert all(line.startswith(f"iescore: {response}") for line in notices)
    if name != "missing":  # the mention's or the document's line
        assert all(re.match(rf"iescore: {re.escape(str(response))}:\d+: warning: ", line) for line in notices)
    scores = score_mentions(read_mentions(KEY, response), ("muc", "b3", "ceafe", "ceafm", "lea", "blanc"))
    for metric, ours in (
        ("muc", "muc"),
        ("bcub", "b3"),
        ("ceafe", "ceafe"),
        ("ceafm", "ceafm"),
        ("lea", "lea"),
    ):
        c = scores.totals[ours]
        got = (float(c.recall_num), c.recall_den, float(c.precision_num), c.precision_den)
        assert got == pytest.approx(_reference(metric, name), abs=1e-12), metric
    blanc = scores.totals["blanc"]
    out = FIXTURES[f"blanc two.key {name}.response 'none'"]["stdout"]
    links = re.findall(r"links: Recall: \((\d+) / (\d+)\) \S+\tPrecision: \((\d+) / (\d+)\)", out)
    ours = [
        (int(c.recall_num), c.recall_den, int(c.precision_num), c.precision_den)
        for c in (blanc.coreference, blanc.non_coreference)
    ]
    assert ours == [tuple(int(x) for x in group) for group in links]


@pytest.mark.parametrize("name", ["missing", "extra"])
def test_strict_refuses_documents_one_side_lacks(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    response = DATA / f"{name}.response"
    assert main(["coref", "--key", str(KEY), "--response", str(response), "--strict"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"iescore: {response}") and "expected" in err
    assert main(["coref", "muc", str(KEY), str(response), "--strict"]) == 2


def test_strict_removes_every_repeat(capsys: pytest.CaptureFixture[str]) -> None:
    # repeat.response writes 'waved' (5-5, not a key mention) three times, twice in chain 5 and once in
    # chain 6, and 'Mary' (a key mention) twice: strict keeps one copy of each (3 removed).
    paired, _ = read_aligned(KEY, DATA / "repeat.response", strict=True)
    assert not paired.notices
    assert sum(d.duplicates for d in paired.response.values()) == 3
    default, _ = read_aligned(KEY, DATA / "repeat.response")
    assert sum(d.duplicates for d in default.response.values()) == 1  # Mary's repeat only
    assert main(["coref", "--key", str(KEY), "--response", str(DATA / "repeat.response"), "--strict"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_conll_average_in_both_forms(capsys: pytest.CaptureFixture[str]) -> None:
    # two.response against two.key, from scorer.pl's totals (none runs): MUC F1 = 2 (2/3)(2/5) / (2/3 +
    # 2/5) = 0.5; B3 R = 7/8, P = 4.8333.../10; CEAF-e from its line; the CoNLL score is their mean.
    f1 = []
    for metric in ("muc", "bcub", "ceafe"):
        rn, rd, pn, pd = _reference(metric, "two")
        r, p = rn / rd, pn / pd
        f1.append(2 * r * p / (r + p))
    average = 100 * sum(f1) / 3
    assert main(["coref", "--key", str(KEY), "--response", str(DATA / "two.response")]) == 0
    out = capsys.readouterr().out
    assert f"CoNLL:   F {average:.1f}%" in out
    assert main(["coref", "muc", str(KEY), str(DATA / "two.response")]) == 0
    err = capsys.readouterr().err
    assert f"CoNLL score (mean of the MUC, B3 and CEAF-e F1): {average:.2f}" in err


@pytest.mark.parametrize("strict", [False, True])
def test_campaign_kind_pairs_the_same_way(
    tmp_path: Path, strict: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    # One rule for the command and the campaign kind: the response lacking (beta) is scored as the
    # reference scores it, its notice at the end of the system's report.txt; strict = true refuses it.
    campaign = tmp_path / "c.toml"
    campaign.write_text(
        f'scorer = "coref"\n[reference]\nkey = "{KEY}"\n[options]\nstrict = {str(strict).lower()}\n'
        f'resamples = 10\n[systems.missing]\nresponse = "{DATA / "missing.response"}"\n'
    )
    status = main(
        ["campaign", str(campaign), "--out", str(tmp_path / "out"), "--json", str(tmp_path / "b.json")]
    )
    err = capsys.readouterr().err
    if strict:
        assert status == 2 and "is missing: '#begin document (beta); part 000' expected" in err
        assert not (tmp_path / "b.json").exists()
        return
    assert status == 0, err
    (report,) = (tmp_path / "out" / "systems").glob("*/report.txt")
    text = report.read_text()
    assert "is not in the response: scored as an empty response" in text.splitlines()[-1]
    rn, rd, pn, pd = _reference("muc", "missing")
    assert f"MUC:     recall {rn:.0f} / {rd:.0f}" in text and f"precision {pn:.0f} / {pd:.0f}" in text
