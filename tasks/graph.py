"""The stage graph: which stages build a score, as specs (see ``tasks.base``).

One function per shape: ``templette_spec`` for one hypothesis, ``campaign_spec`` for many systems
scored against one reference in a single graph (shared reference stages are one task).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pipeline.campaign import Campaign
from pipeline.errors import InputError
from pipeline.signature import make_signature
from tasks import align, ingest, normalize, remove, report, score  # noqa: F401 - registers the stages
from tasks.base import file_spec, stage_spec


def templette_spec(
    ref_templates: Path,
    hyp_templates: Path,
    ref_texts: Path | None,
    hyp_texts: Path | None,
    options: Mapping[str, Any],
) -> dict[str, Any]:
    """The spec of the Report stage scoring ``hyp_templates`` against ``ref_templates``."""
    if hyp_texts and not ref_texts:
        raise InputError(
            str(hyp_texts), 0, "hypothesis texts need the reference texts to align against (--texts)"
        )
    encoding = options.get("encoding", "utf-8")
    ref_corpus = _corpus(ref_texts, encoding)
    hyp_corpus = _corpus(hyp_texts, encoding) if hyp_texts else ref_corpus
    alignment = stage_spec("AlignCorpora", {}, {"ref": ref_corpus, "hyp": hyp_corpus})
    ref_file, hyp_file = file_spec(ref_templates), file_spec(hyp_templates)
    sides = {
        role: _side(role, templates, corpus, alignment, encoding)
        for role, templates, corpus in (("ref", ref_file, ref_corpus), ("hyp", hyp_file, hyp_corpus))
    }
    scoring_options = {
        "compare": options["compare"],
        "unscored": sorted({s.upper() for s in options["unscored"]}),
        "case_sensitive": bool(options["case_sensitive"]),
    }
    scored = stage_spec("MapAndScore", scoring_options, sides)
    signature = make_signature(
        "templette",
        {
            "compare": scoring_options["compare"],
            "case": "sensitive" if scoring_options["case_sensitive"] else "insensitive",
            "unscored": scoring_options["unscored"],
            "beta": float(options["beta"]),
        },
        {
            "ref": ref_file["sha256"],
            "hyp": hyp_file["sha256"],
            "texts": ref_corpus["inputs"]["texts"]["sha256"] if ref_corpus else None,
            "hyptexts": hyp_corpus["inputs"]["texts"]["sha256"] if hyp_corpus else None,
        },
    )
    return stage_spec("Report", {"beta": float(options["beta"]), "signature": signature}, {"scored": scored})


def campaign_spec(campaign: Campaign) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The CampaignSummary spec and each system's Report spec."""
    reports = {
        system.name: templette_spec(
            campaign.reference_templates,
            system.templates,
            campaign.reference_texts,
            system.texts,
            campaign.options,
        )
        for system in campaign.systems
    }
    return stage_spec("CampaignSummary", {}, reports), reports


def _corpus(texts: Path | None, encoding: str) -> dict[str, Any] | None:
    if texts is None:
        return None
    return stage_spec(
        "IngestCorpus", {"encoding": encoding, "extractable": ["TEXT"]}, {"texts": file_spec(texts)}
    )


def _side(
    role: str, templates: dict[str, Any], corpus: dict | None, alignment: dict, encoding: str
) -> dict[str, Any]:
    ingested = stage_spec(
        "IngestTemplates",
        {"encoding": encoding, "role": "reference" if role == "ref" else "hypothesis"},
        {"templates": templates, "corpus": corpus},
    )
    normalized = stage_spec("NormalizeContent", {}, {"fills": ingested})
    extents = stage_spec("NormalizeExtents", {"side": role}, {"fills": normalized, "alignment": alignment})
    return stage_spec("RemoveNonEvaluated", {}, {"fills": extents, "corpus": corpus})
