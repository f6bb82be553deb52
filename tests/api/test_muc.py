"""iescore.muc against ``iescore muc``: the same numbers on the samples, in-memory = path.

The expected values are read from the command's own report (tests/muc checks the command against the
seed's examples): these tests pin that the library and the command are one computation.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from iescore.pipeline.core.errors import InputError
from iescore.tasks.cli.main import main

from iescore.coref import CorefScores
from iescore.muc import MucScores, score

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "data"
COUNTS = ("POS", "ACT", "COR", "PAR", "INC", "MIS", "SPU", "NON")
MEASURES = ("REC", "PRE", "UND", "OVG", "SUB", "ERR")


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    """The configurations and their inputs, copied: the command writes the outputs they name beside them."""
    shutil.copytree(ROOT / "data" / "muc-te", tmp_path / "muc-te")
    for task in ("te", "st", "ne", "co"):
        shutil.copytree(FIXTURES / f"muc_{task}", tmp_path / f"muc_{task}")
    return tmp_path


def command_report(config: Path, capsys) -> str:
    assert main(["muc", str(config)]) == 0
    return capsys.readouterr().out


def all_slots(report: str) -> dict[str, str]:
    """The ALL SLOTS line of a score page: POS ACT | COR PAR INC | MIS SPU NON | REC PRE UND OVG SUB ERR."""
    line = next(line for line in report.splitlines() if line.startswith("ALL SLOTS"))
    values = line[len("ALL SLOTS") :].replace("|", " ").split()
    f_line = next(line for line in report.splitlines() if line.startswith("F-MEASURES"))
    return {**dict(zip(COUNTS + MEASURES, values, strict=True)), "F": f_line.split()[1]}


def as_printed(value: float | None) -> str:
    return "-" if value is None or value != value else str(int(100 * value + 0.5))


@pytest.mark.parametrize(
    "config", ["muc-te/te.config", "muc_te/te.config", "muc_st/st.config", "muc_ne/ne.config"]
)
def test_template_and_named_entity_tasks_give_the_commands_numbers(
    samples: Path, capsys, config: str
) -> None:
    printed = all_slots(command_report(samples / config, capsys))
    result = score(samples / config)
    assert isinstance(result, MucScores)
    totals = result.totals.iloc[0]
    assert {k: str(int(totals[k])) for k in COUNTS} == {k: printed[k] for k in COUNTS}
    assert {k: as_printed(totals[k]) for k in MEASURES} == {k: printed[k] for k in MEASURES}
    assert f"{100 * totals['F']:.2f}" == printed["F"]
    assert result.signature.startswith("scorer:muc|")
    assert set(result.tallies["doc_id"]) == set(result.by_document["doc_id"])


def test_coreference_task_gives_the_commands_numbers(samples: Path, capsys) -> None:
    report = command_report(samples / "muc_co" / "co.config", capsys)
    result = score(samples / "muc_co" / "co.config")
    assert isinstance(result, CorefScores)
    totals = {row["metric"]: row for row in result.totals.to_dict("records")}
    # The metrics the MUC scorer's coreference report prints.
    for label, metric in (("MUC", "muc"), ("B3", "b3"), ("CEAF-e", "ceafe")):
        match = re.search(rf"^{label}:\s+recall (\S+) / (\d+) .*precision (\S+) / (\d+) ", report, re.M)
        row = totals[metric]
        assert match.groups() == (
            _number(row["recall_num"]), str(int(row["recall_den"])), _number(row["precision_num"]),
            str(int(row["precision_den"])),
        ), metric  # fmt: skip


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def test_text_gives_what_the_files_give(samples: Path) -> None:
    folder = samples / "muc-te"
    from_paths = score(folder / "te.config", response=folder / "partial.tpl")
    from_text = score(
        (folder / "te.config").read_text(),
        key=(folder / "key.tpl").read_text(),
        response=(folder / "partial.tpl").read_text(),
    )
    assert from_text.signature == from_paths.signature
    for name in from_paths.names:
        assert from_text.arrow(name).equals(from_paths.arrow(name)), name


def test_bad_input_raises_input_error_naming_the_argument(samples: Path) -> None:
    folder = samples / "muc-te"
    text = (folder / "te.config").read_text()
    with pytest.raises(InputError) as raised:
        score(text + "scoring_task te\n", key=folder / "key.tpl", response=folder / "given.tpl")
    assert str(raised.value).startswith("<config>:")
    broken = (folder / "given.tpl").read_text().replace("<ORGANIZATION-", "<", 1)
    with pytest.raises(InputError) as raised:
        score(folder / "te.config", response=broken)
    assert str(raised.value).startswith("<response>:")
    with pytest.raises(InputError, match="key_file"):
        score(text.replace(":key_file key.tpl", ":key_file no-such.tpl"), response=folder / "given.tpl")
