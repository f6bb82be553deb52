"""The tasks side of ``scorer = "wer"`` campaigns (``tasks.campaign.kinds``): each system is one
AlignSpeech stage (its alignment and the family's statistics); its output folder gets ``statistics.csv``
and ``alignment.pra``, sclite's alignment dump of every utterance (errors in upper case)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from iescore.pipeline.campaign.engine import Campaign, System
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.wer import HYPOTHESIS_FORMATS, format_problem, utterance_views
from iescore.tasks.campaign.task_kind import TaskKind
from iescore.tasks.core.base import Stage
from iescore.tasks.core.store import read_table
from iescore.tasks.speech.stages import ALIGNMENT_OPTIONS, align_spec


def wer_system_spec(campaign: Campaign, system: System) -> dict[str, Any]:
    """The AlignSpeech spec of one system; a hypothesis format its reference's format does not take is
    bad input naming the system's ``format`` line."""
    reference, options = campaign.reference_values, campaign.options
    ref_format, hyp_format = reference["format"], system.values["format"]
    if hyp_format not in HYPOTHESIS_FORMATS[ref_format]:
        raise InputError(str(system.values["hypothesis"]), 0, format_problem(ref_format, hyp_format))
    return align_spec(
        Path(reference["transcript"]),
        ref_format,
        Path(system.values["hypothesis"]),
        hyp_format,
        {name: options[name] for name in ALIGNMENT_OPTIONS},
        {"resamples": int(options["resamples"]), "seed": int(options["seed"])},
    )


def write_wer_files(folder: Path, task: Stage) -> None:
    """``alignment.pra``: every utterance's block of the system's alignment, as sclite's ``.pra``."""
    options = task.options
    views = utterance_views(
        read_table(task.output()["alignment"]), None, options["encoding"], bool(options["case_sensitive"])
    )
    text = "".join(view.block + "\n" for view in views)
    (folder / "alignment.pra").write_text(text, encoding="utf-8")


WER_TASKS = TaskKind(
    name="wer",
    stage="AlignSpeech",
    system_spec=wer_system_spec,
    system_files=("alignment.pra",),
    write_system_files=write_wer_files,
)
