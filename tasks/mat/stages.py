"""The MAT family's stages: IngestAnnotations (per side) -> PairSpans -> TallySpans -> Report.

- ``IngestAnnotations``: the files of one side read into ``documents`` (``MAT_DOCUMENTS``: keys, sources,
  signals and their digests) and ``annotations`` (``MAT_ANNOTATIONS``, labels after the label rules);
- ``PairSpans``: both sides' signals checked equal, the content annotations paired (``pairs``,
  ``MAT_PAIRS``: every pair and unpaired annotation with its similarity and detail type, the auditable
  artifact and the ``--details`` sheet);
- ``TallySpans``: per-document counts by table and tag (``counts``, ``MAT_COUNTS``, the family's
  sufficient statistics) and the family's ``statistics`` (``STATISTICS``, with the signature in its
  metadata, for campaigns);
- ``Report``: the reported rows per file and for the corpus (``scores``, ``MAT_SCORES``).

:func:`mat_spec` builds the spec of the MatReport stage of one comparison.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
from iescore.pipeline.core.signature import SIGNATURE_KEY, make_signature
from iescore.pipeline.mat import mat_statistics
from iescore.pipeline.mat.compare import check_signals, ingest
from iescore.pipeline.mat.files import FilePair
from iescore.pipeline.mat.fixed import FIXED_UNITS, TokenTableError, fixed_span_counts
from iescore.pipeline.mat.labels import LabelRules, rules_from_options
from iescore.pipeline.mat.measures import score_table
from iescore.pipeline.mat.pairing import pair_spans
from iescore.pipeline.mat.tally import hypothesis_tokens, tag_counts
from iescore.schemas import MAT_COUNTS, MAT_SCORES, C
from iescore.tasks.core.base import Stage, file_specs, stage_spec

#: Parquet metadata key of the counts' notes (JSON list): fixed-span tables left out, and why.
NOTES_KEY = b"mat_notes"
#: Counts metadata: every document's test toks (JSON), so that a tag table without tags has its rows.
TEST_UNITS_KEY = b"iescore.mat.test_units"


class IngestAnnotations(Stage):
    """One side's files (inputs ``doc0``, ``doc1``... with their keys in the options) read into
    ``documents`` and ``annotations``."""

    STAGE = "IngestMatAnnotations"
    VERSION = 1
    OUTPUTS = ("documents", "annotations")

    def produce(self) -> dict[str, pa.Table]:
        options = self.options
        files = [(key, self.input_file(f"doc{k}")) for k, key in enumerate(options["keys"])]
        documents, annotations = ingest(
            files,
            options["side"],
            options["file_type"],
            rules_from_options(options["rules"]),
            options["encoding"],
            options["overlay"],
        )
        return {"documents": documents, "annotations": annotations}


class PairSpans(Stage):
    """The signals of both sides checked equal, then every content annotation paired or left unpaired."""

    STAGE = "PairMatSpans"
    VERSION = 1
    OUTPUTS = ("pairs",)

    def produce(self) -> dict[str, pa.Table]:
        check_signals(self.input_table("ref", "documents"), self.input_table("hyp", "documents"))
        annotations = pa.concat_tables([self.input_table(role, "annotations") for role in ("ref", "hyp")])
        return {"pairs": pair_spans(annotations)}


class TallySpans(Stage):
    """Per-document counts by table and tag, and the family's statistics (signature in the metadata)."""

    STAGE = "TallyMatSpans"
    VERSION = 3  # 2: every document's test toks in the metadata; 3: fixed-span tables and notes
    OUTPUTS = ("counts", "statistics")

    def produce(self) -> dict[str, pa.Table]:
        documents = self.input_table("hyp", "documents")
        files = documents.column(C.file).to_pylist()
        annotations = pa.concat_tables([self.input_table(role, "annotations") for role in ("ref", "hyp")])
        counts = [tag_counts(annotations, self.input_table("pairs", "pairs"), files)]
        fixed, notes = fixed_span_counts_hook(documents, annotations, self.options.get("fixed_units", []))
        table = pa.concat_tables(counts + fixed).combine_chunks() if fixed else counts[0]
        metadata = {
            SIGNATURE_KEY: self.options["signature"].encode(),
            TEST_UNITS_KEY: json.dumps(
                dict(zip(files, hypothesis_tokens(annotations, files).tolist(), strict=True))
            ).encode(),
            NOTES_KEY: json.dumps(notes).encode(),
        }
        statistics = mat_statistics(table)
        return {
            "counts": table.replace_schema_metadata({**(MAT_COUNTS.metadata or {}), **metadata}),
            "statistics": statistics.replace_schema_metadata(
                {**(statistics.schema.metadata or {}), **metadata}
            ),
        }


class Report(Stage):
    """The reported rows of every table, per file and for the corpus (signature in the metadata)."""

    STAGE = "MatReport"
    VERSION = 1
    OUTPUTS = ("scores",)

    def produce(self) -> dict[str, pa.Table]:
        counts = self.input_table("counts", "counts")
        units = json.loads((counts.schema.metadata or {})[TEST_UNITS_KEY])
        table = score_table(counts, by_file=True, test_units=units)
        return {
            "scores": table.replace_schema_metadata(
                {**(MAT_SCORES.metadata or {}), **(counts.schema.metadata or {})}
            )
        }


def fixed_span_counts_hook(
    documents: pa.Table, annotations: pa.Table, units: Sequence[str]
) -> tuple[list[pa.Table], list[str]]:
    """The ``MAT_COUNTS`` rows of the fixed-span tables named in ``units`` (token, pseudo_token,
    character; ``pipeline.mat.fixed``), and the notes of the tables left out: a token table that cannot
    be computed (no token annotations, a content boundary inside a token) is left out with its reason,
    as MATScore leaves it out, and the other tables are still made."""
    frames: list[pa.Table] = []
    notes: list[str] = []
    wanted = [unit for unit in FIXED_UNITS if unit in units]
    if not wanted:
        return frames, notes
    signals = dict(
        zip(documents.column(C.file).to_pylist(), documents.column(C.signal).to_pylist(), strict=True)
    )
    frame = annotations.to_pandas()
    for unit in wanted:
        try:
            counts = fixed_span_counts(signals, frame, unit)
            frames.append(pa.Table.from_pandas(counts, schema=MAT_COUNTS, preserve_index=False))
        except TokenTableError as error:
            notes.append(str(error))
    return frames, notes


def mat_spec(
    pairs: Sequence[FilePair],
    file_types: Mapping[str, str],
    encodings: Mapping[str, str | None],
    overlays: Mapping[str, bool],
    rules: LabelRules,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The spec of the MatReport stage of one comparison (``file_types``, ``encodings``, ``overlays``:
    by side, "ref" and "hyp"; ``extra``: further TallySpans options, e.g. ``fixed_units``, and signature
    options)."""
    tally = mat_tally_spec(pairs, file_types, encodings, overlays, rules, extra)
    return stage_spec("MatReport", {}, {"counts": tally})


def mat_tally_spec(
    pairs: Sequence[FilePair],
    file_types: Mapping[str, str],
    encodings: Mapping[str, str | None],
    overlays: Mapping[str, bool],
    rules: LabelRules,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The spec of the TallyMatSpans stage of one comparison (arguments as :func:`mat_spec`): what a
    campaign system runs (its ``statistics`` output)."""
    extra = dict(extra or {})
    sides = {}
    digests = {}
    for side in ("ref", "hyp"):
        paths = [pair.ref if side == "ref" else pair.hyp for pair in pairs]
        inputs = {f"doc{k}": spec for k, spec in enumerate(file_specs(paths, keep=True))}
        if file_types[side] == "brat":
            texts = file_specs([Path(path).with_suffix(".txt") for path in paths], keep=True)
            inputs.update({f"txt{k}": spec for k, spec in enumerate(texts)})
        digests[side] = _combined_digest(inputs)
        sides[side] = stage_spec(
            "IngestMatAnnotations",
            {
                "side": side,
                "keys": [pair.key for pair in pairs],
                "file_type": file_types[side],
                "encoding": encodings[side],
                "overlay": bool(overlays[side]),
                "rules": rules_options(rules),
            },
            inputs,
        )
    signature = make_signature(
        "mat",
        {
            "file_type": file_types["hyp"],
            "ref_file_type": file_types["ref"],
            "overlay": bool(overlays["hyp"]),
            "ref_overlay": bool(overlays["ref"]),
            **{k: v for k, v in rules.signature().items()},
            "pairing": "chunks+assignment",
            **{k: v for k, v in extra.items() if k != "fixed_units"},
        },
        digests,
    )
    pairing = stage_spec("PairMatSpans", {}, sides)
    return stage_spec(
        "TallyMatSpans",
        {"signature": signature, "fixed_units": list(extra.get("fixed_units", []))},
        {"pairs": pairing, **sides},
    )


def rules_options(rules: LabelRules) -> dict[str, Any]:
    """Label rules as plain stage options (``pipeline.mat.labels.rules_from_options`` reads them back)."""
    return {
        "content": sorted(rules.content) if rules.content is not None else None,
        "token": sorted(rules.token),
        "aliases": [[a.label, [list(x) for x in a.attributes], a.name] for a in rules.aliases],
        "classes": [[name, list(members)] for name, members in rules.classes],
        "ignore": sorted(rules.ignore),
        "from_task": rules.from_task,
    }


def _combined_digest(inputs: Mapping[str, Mapping[str, str]]) -> str:
    import hashlib

    digest = hashlib.sha256()
    for role in sorted(inputs):
        digest.update(f"{role}:{inputs[role]['sha256']}\n".encode())
    return digest.hexdigest()
