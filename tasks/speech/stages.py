"""The WER campaign's stage: AlignSpeech aligns one system with the reference as ``iescore sclite``
does (``pipeline.speech.wer.align_system``) and writes the alignment (``WER_ALIGNMENT``: every word
pair, the artifact an organiser audits, sclite's warnings in its metadata) and the family's statistics
(``STATISTICS``, one unit per utterance, the signature in its metadata). Its key holds the two files'
digests, the alignment options and the signature (with the campaign's resamples and seed), so a
campaign whose one system changed aligns that system alone."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
from iescore.pipeline.core.signature import SIGNATURE_KEY, make_signature
from iescore.pipeline.speech.wer import align_system, alignment_table, wer_statistics
from iescore.tasks.core.base import Stage, file_spec, stage_spec

#: The metadata key of sclite's warnings about the alignment (JSON list), kept with it.
WARNINGS_KEY = b"iescore.wer.warnings"

#: The alignment options of a WER campaign, as ``align_system`` takes them.
ALIGNMENT_OPTIONS = (
    "id_type",
    "case_sensitive",
    "encoding",
    "opt_del",
    "frag_corr",
    "time_mediated",
    "reduce_ref",
    "reduce_hyp",
)


class AlignSpeech(Stage):
    """One system aligned with the reference (``alignment``) and its statistics (``statistics``)."""

    STAGE = "AlignSpeech"
    VERSION = 1
    OUTPUTS = ("alignment", "statistics")

    def produce(self) -> dict[str, pa.Table]:
        options = self.options
        aligned = align_system(
            self.spec["inputs"]["reference"].get("name", self.input_file("reference")),
            options["reference_format"],
            self.spec["inputs"]["hypothesis"].get("name", self.input_file("hypothesis")),
            options["hypothesis_format"],
            **{name: options[name] for name in ALIGNMENT_OPTIONS},
        )
        alignment = alignment_table(aligned)
        warnings = json.dumps(list(aligned.warnings), ensure_ascii=False).encode()
        alignment = alignment.replace_schema_metadata({**alignment.schema.metadata, WARNINGS_KEY: warnings})
        statistics = wer_statistics(aligned.system)
        signed = {**(statistics.schema.metadata or {}), SIGNATURE_KEY: options["signature"].encode()}
        return {"alignment": alignment, "statistics": statistics.replace_schema_metadata(signed)}


def align_spec(
    reference: Path,
    reference_format: str,
    hypothesis: Path,
    hypothesis_format: str,
    options: Mapping[str, Any],
    statistics: Mapping[str, Any],
) -> dict[str, Any]:
    """The AlignSpeech spec of one system (``options``: ``ALIGNMENT_OPTIONS``; ``statistics``: a
    campaign's resamples and seed, part of the signature)."""
    ref_file = {**file_spec(reference), "name": str(reference)}
    hyp_file = {**file_spec(hypothesis), "name": str(hypothesis)}
    settings = {name: options[name] for name in ALIGNMENT_OPTIONS}
    signature = make_signature(
        "wer",
        {"ref": reference_format, "hyp": hypothesis_format, **settings, **statistics},
        {"reference": ref_file["sha256"], "hypothesis": hyp_file["sha256"]},
    )
    return stage_spec(
        "AlignSpeech",
        {
            "reference_format": reference_format,
            "hypothesis_format": hypothesis_format,
            **settings,
            "signature": signature,
        },
        {"reference": ref_file, "hypothesis": hyp_file},
    )
