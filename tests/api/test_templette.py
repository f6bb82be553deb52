"""iescore.templette against ``iescore templette``: the same numbers on the samples, in-memory = path.

The expected values are the command's own --json (tests/templette checks the command against the
seed's worked examples): these tests pin that the library and the command are one computation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.templette.report import scores_json
from iescore.tasks.cli.main import main

from iescore.templette import score

ROOT = Path(__file__).resolve().parents[2]
SPORTS = ROOT / "data" / "hub4-sports"
SPEECH = ROOT / "data" / "hub4-speech"


def command_json(tmp_path: Path, *argv: str) -> dict:
    out = tmp_path / "scores.json"
    assert main(["templette", *argv, "--json", str(out)]) == 0
    return json.loads(out.read_text())


def same_as_command(tmp_path: Path, argv: list[str], **kwargs) -> None:
    expected = command_json(tmp_path, *argv)
    result = score(**kwargs)
    assert scores_json(result.arrow("scores"), result.signature) == expected
    # The typed tables are the scopes of the scores table; the slots' tallies sum to the totals.
    totals, tallies = result.totals.iloc[0], result.tallies
    slot_points = tallies[tallies["slot"].notna()]
    assert totals["COR"] == expected["totals"]["COR"] == (slot_points["category"] == "COR").sum()
    assert len(result.by_document) == len(expected["by_document"])
    assert len(result.by_slot) == len(expected["by_slot"])
    assert result.by_type["instance_type"].tolist() == [t["instance_type"] for t in expected["by_type"]]
    assert len(result.mapping) > 0


@pytest.mark.parametrize("system", ["perfect", "sloppy", "forgetful", "eager", "hyp"])
def test_sports_systems_give_the_commands_numbers(tmp_path: Path, system: str) -> None:
    ref, hyp, texts = SPORTS / "ref.tpl", SPORTS / f"{system}.tpl", SPORTS / "texts.sgml"
    argv = ["--ref", str(ref), "--hyp", str(hyp), "--texts", str(texts)]
    same_as_command(tmp_path, argv, ref=ref, hyp=hyp, texts=texts)


def test_options_give_the_commands_numbers(tmp_path: Path) -> None:
    ref, hyp, texts = SPORTS / "ref.tpl", SPORTS / "sloppy.tpl", SPORTS / "texts.sgml"
    options = ["--compare", "content", "--case-sensitive", "--beta", "2", "--unscored", "COMMENT,DOC_NR"]
    same_as_command(
        tmp_path,
        ["--ref", str(ref), "--hyp", str(hyp), "--texts", str(texts), *options, "--premodifiers", ""],
        ref=ref,
        hyp=str(hyp),
        texts=texts,
        compare="content",
        case_sensitive=True,
        beta=2,
        unscored="COMMENT,DOC_NR",
        premodifiers="",
    )


def test_speech_input_gives_the_commands_numbers(tmp_path: Path) -> None:
    ref, texts = SPEECH / "ref.tpl", SPEECH / "texts.sgml"
    argv = ["--ref", str(ref), "--texts", str(texts)]
    hyp, hyp_texts = SPEECH / "asr.tpl", SPEECH / "asr.sgml"
    same_as_command(
        tmp_path, [*argv, "--hyp", str(hyp), "--hyp-texts", str(hyp_texts)], ref=ref, hyp=hyp, texts=texts,
        hyp_texts=hyp_texts,
    )  # fmt: skip
    hyp, hyp_texts = SPEECH / "asr-stream.tpl", SPEECH / "asr-stream.txt"
    same_as_command(
        tmp_path,
        [*argv, "--hyp", str(hyp), "--hyp-texts", str(hyp_texts), "--unsegmented", "--cost", "levenshtein"],
        ref=ref, hyp=hyp, texts=texts, hyp_texts=hyp_texts, unsegmented=True, cost="levenshtein",
    )  # fmt: skip


def test_text_gives_what_the_file_gives() -> None:
    paths = {"ref": SPEECH / "ref.tpl", "hyp": SPEECH / "asr.tpl"}
    corpora = {"texts": SPEECH / "texts.sgml", "hyp_texts": SPEECH / "asr.sgml"}
    from_paths = score(**paths, **corpora)
    from_text = score(**{k: v.read_text() for k, v in {**paths, **corpora}.items()})
    assert from_text.signature == from_paths.signature  # the signature holds the contents' digests
    for name in from_paths.names:
        assert from_text.arrow(name).equals(from_paths.arrow(name)), name


def test_bad_input_raises_input_error_naming_the_argument() -> None:
    broken = (SPORTS / "sloppy.tpl").read_text().replace("<TEMPLATE-", "<", 1)
    with pytest.raises(InputError) as raised:
        score(SPORTS / "ref.tpl", broken, texts=SPORTS / "texts.sgml")
    assert str(raised.value).startswith("<hyp>:")
    with pytest.raises(InputError, match="ref.tpl"):
        score(SPORTS / "missing-ref.tpl", SPORTS / "sloppy.tpl")
    with pytest.raises(ValueError, match="compare"):
        score(SPORTS / "ref.tpl", SPORTS / "sloppy.tpl", compare="everything")
