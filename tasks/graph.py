"""The stage graph: which stages build a score, as specs (see ``tasks.base``).

One function per shape: ``templette_spec`` for one hypothesis, ``campaign_spec`` for many systems
scored against one reference in a single graph (shared reference stages are one task).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from pipeline.campaign import Campaign
from pipeline.errors import InputError
from pipeline.removal import DEFAULT_PREMODIFIERS, DEFAULT_PUNCTUATION
from pipeline.signature import make_signature
from tasks import align, ingest, normalize, remove, report, score  # noqa: F401 - registers the stages
from tasks.base import file_spec, input_key, stage_spec
from tasks.muc import coref_response_spec, muc_spec


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
    if options.get("unsegmented") and hyp_texts is None:
        raise InputError(
            str(hyp_templates), 0, "an unsegmented hypothesis needs its word stream (--hyp-texts / texts)"
        )
    unsegmented = bool(options.get("unsegmented"))
    ref_corpus = _corpus(ref_texts, encoding)
    hyp_corpus = _corpus(hyp_texts, encoding, unsegmented) if hyp_texts else ref_corpus
    # Speech input: hypothesis texts whose bytes differ from the reference texts (a byte-identical
    # copy is the same text, whatever its path).
    speech = hyp_corpus is not None and (ref_corpus is None or input_key(hyp_corpus) != input_key(ref_corpus))
    glm = file_spec(options["glm"]) if options.get("glm") else None
    alignment = stage_spec(
        "AlignCorpora",
        {"cost": options.get("cost", "phonetic"), "unsegmented": unsegmented, "encoding": encoding}
        if speech
        else {},
        {"ref": ref_corpus, "hyp": hyp_corpus, "glm": glm if speech else None},
    )
    ref_file, hyp_file = file_spec(ref_templates), file_spec(hyp_templates)
    removal = {
        "premodifiers": list(options.get("premodifiers", DEFAULT_PREMODIFIERS)),
        "punctuation": DEFAULT_PUNCTUATION if options.get("punctuation") is None else options["punctuation"],
    }
    sides = {
        role: _side(
            role,
            templates,
            corpus,
            ref_corpus,
            alignment,
            glm,
            removal,
            {"unit": "column" if speech else "character", "unsegmented": unsegmented},
            encoding,
        )
        for role, templates, corpus in (("ref", ref_file, ref_corpus), ("hyp", hyp_file, hyp_corpus))
    }
    scoring_options = {
        "compare": options["compare"],
        "unscored": sorted({s.upper() for s in options["unscored"]}),
        "case_sensitive": bool(options["case_sensitive"]),
        "noisy": speech,
        "instance_sets": "overlap" if unsegmented else "document",
        "alternatives": glm is not None,
    }
    if unsegmented:
        sides["alignment"] = alignment
    scored = stage_spec("MapAndScore", scoring_options, sides)
    signature = make_signature(
        "templette",
        {
            "compare": scoring_options["compare"],
            "case": "sensitive" if scoring_options["case_sensitive"] else "insensitive",
            "unscored": scoring_options["unscored"],
            "premod": removal["premodifiers"],
            "punct": removal["punctuation"],
            "align": (options.get("cost", "phonetic") + ("+unsegmented" if unsegmented else ""))
            if speech
            else "identity",
            "beta": float(options["beta"]),
            # Campaigns report bootstrap intervals and significance: their settings are part of the
            # numbers printed beside this score.
            **(
                {"resamples": int(options["resamples"]), "seed": int(options["seed"])}
                if options.get("statistics")
                else {}
            ),
        },
        {
            "ref": ref_file["sha256"],
            "hyp": hyp_file["sha256"],
            "texts": ref_corpus["inputs"]["texts"]["sha256"] if ref_corpus else None,
            "hyptexts": hyp_corpus["inputs"]["texts"]["sha256"] if hyp_corpus else None,
            "glm": glm["sha256"] if glm else None,
        },
    )
    return stage_spec("Report", {"beta": float(options["beta"]), "signature": signature}, {"scored": scored})


def campaign_spec(campaign: Campaign) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The summary spec and each system's spec: a templette or MUC campaign's CampaignSummary and each
    system's Report, a coreference campaign's CorefCampaignSummary and each system's ScoreCorefResponse."""
    if campaign.scorer == "muc":
        return _muc_campaign_spec(campaign)
    if campaign.scorer == "coref":
        return _coref_campaign_spec(campaign)
    reports = {
        system.name: templette_spec(
            campaign.reference_templates,
            system.templates,
            campaign.reference_texts,
            system.texts,
            {**campaign.options, "unsegmented": system.unsegmented, "statistics": True},
        )
        for system in campaign.systems
    }
    options = campaign.options
    inputs: dict[str, Any] = {}
    for name, system_report in reports.items():
        inputs[f"scores/{name}"] = system_report
        inputs[f"tallies/{name}"] = system_report["inputs"]["scored"]
    statistics = {
        "resamples": int(options["resamples"]),
        "seed": int(options["seed"]),
        "beta": float(options["beta"]),
    }
    return stage_spec("CampaignSummary", statistics, inputs), reports


def _muc_campaign_spec(campaign: Campaign) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Each system is the MUC scorer's chain (``tasks.muc.muc_spec``) with its response in place of the
    configuration's :response_file; the key's side is one task chain shared by every system."""
    config = campaign.muc_config
    if config is None:  # read_campaign parses the configuration of every MUC campaign
        raise RuntimeError(f"{campaign.source}: a MUC campaign without its parsed configuration")
    encoding = campaign.options["encoding"]
    settings = {"resamples": int(campaign.options["resamples"]), "seed": int(campaign.options["seed"])}
    reports = {
        system.name: muc_spec(
            replace(config, response_file=system.templates), campaign.reference_templates, encoding, settings
        )
        for system in campaign.systems
    }
    inputs: dict[str, Any] = {}
    for name, system_report in reports.items():
        inputs[f"scores/{name}"] = system_report
        inputs[f"tallies/{name}"] = system_report["inputs"]["scored"]
    statistics = {
        "resamples": int(campaign.options["resamples"]),
        "seed": int(campaign.options["seed"]),
        "beta": float(config.beta),
        "family": "muc",
    }
    return stage_spec("CampaignSummary", statistics, inputs), reports


def _coref_campaign_spec(campaign: Campaign) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Each system one ScoreCorefResponse against the key; the summary ranks them by CoNLL F1."""
    statistics = {"resamples": int(campaign.options["resamples"]), "seed": int(campaign.options["seed"])}
    scored = {
        system.name: coref_response_spec(
            campaign.reference_templates, system.templates, campaign.options, statistics
        )
        for system in campaign.systems
    }
    inputs = {f"statistics/{name}": spec for name, spec in scored.items()}
    return stage_spec("CorefCampaignSummary", statistics, inputs), scored


def _corpus(texts: Path | None, encoding: str, unsegmented: bool = False) -> dict[str, Any] | None:
    if texts is None:
        return None
    options: dict[str, Any] = {"encoding": encoding, "extractable": ["TEXT"]}
    if unsegmented:
        options["unsegmented"] = True
    return stage_spec("IngestCorpus", options, {"texts": file_spec(texts)})


def _side(
    role: str,
    templates: dict[str, Any],
    corpus: dict | None,
    ref_corpus: dict | None,
    alignment: dict,
    glm: dict | None,
    removal: dict[str, Any],
    extent_options: dict[str, Any],
    encoding: str,
) -> dict[str, Any]:
    """One side's chain: ingest, normalize contents, remove non-evaluated text, normalize extents.

    Removal works in characters of the side's own text, so it comes before extents become
    alignment columns (DESIGN lists it after; the order matters only for the unit it adjusts).
    """
    ingested = stage_spec(
        "IngestTemplates",
        {
            "encoding": encoding,
            "role": "reference" if role == "ref" else "hypothesis",
            **({"unsegmented": True} if extent_options["unsegmented"] and role == "hyp" else {}),
        },
        {"templates": templates, "corpus": corpus},
    )
    normalized = stage_spec(
        "NormalizeContent", {"encoding": encoding} if glm else {}, {"fills": ingested, "glm": glm}
    )
    removed = stage_spec("RemoveNonEvaluated", removal, {"fills": normalized, "corpus": corpus})
    options = {"side": role, "unit": extent_options["unit"]}
    if extent_options["unsegmented"]:
        options["unsegmented"] = True
    return stage_spec(
        "NormalizeExtents",
        options,
        {
            "fills": removed,
            # The identity alignment too is an input, so the chain keeps one shape (DESIGN).
            "alignment": alignment,
            "corpus": ref_corpus if extent_options["unsegmented"] and role == "ref" else None,
        },
    )
