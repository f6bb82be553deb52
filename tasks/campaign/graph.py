"""A campaign's stage graph: each system's chain and the summary over all of them, for any family.

Templette campaigns use ``tasks.templette.graph.templette_spec`` per system, MUC campaigns the MUC
scorer's chain (``tasks.muc.stages.muc_spec``), coreference campaigns ``ScoreCorefResponse``; shared
reference stages are one task.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pipeline.campaign.engine import Campaign
from tasks.campaign import summary  # noqa: F401 - registers the summary stages
from tasks.campaign.kinds import task_kind
from tasks.core.base import freeze_spec, prefetch_digests, stage_spec
from tasks.coref.stages import coref_response_spec
from tasks.muc.stages import muc_spec
from tasks.templette import (
    align,  # noqa: F401 - registers the stages
    ingest,  # noqa: F401 - registers the stages
    normalize,  # noqa: F401 - registers the stages
    remove,  # noqa: F401 - registers the stages
    report,  # noqa: F401 - registers the stages
    score,  # noqa: F401 - registers the stages
)
from tasks.templette.graph import templette_spec


def campaign_spec(campaign: Campaign) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The summary spec and each system's spec: a templette or MUC campaign's CampaignSummary and each
    system's Report, a coreference campaign's CorefCampaignSummary and each system's ScoreCorefResponse."""
    # Every file the specs name is hashed; two at a time first (each file once, whatever names it).
    named = [path for system in campaign.systems for path in (system.templates, system.texts) if path]
    prefetch_digests([*campaign.reference_files, *named])
    if campaign.kind is not None:
        return _kind_campaign_spec(campaign)
    if campaign.scorer == "muc":
        return _muc_campaign_spec(campaign)
    if campaign.scorer == "coref":
        return _coref_campaign_spec(campaign)
    # Frozen now (``freeze_spec``), so the summary's spec holds these very objects: each stage's spec is
    # frozen and keyed once, not again inside the summary's.
    reports = {
        system.name: freeze_spec(
            templette_spec(
                campaign.reference_templates,
                system.templates,
                campaign.reference_texts,
                system.texts,
                {**campaign.options, "unsegmented": system.unsegmented, "statistics": True},
            )
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
    """Each system is the MUC scorer's chain (``tasks.muc.stages.muc_spec``) with its response in place of the
    configuration's :response_file; the key's side is one task chain shared by every system."""
    config = campaign.muc_config
    if config is None:  # read_campaign parses the configuration of every MUC campaign
        raise RuntimeError(f"{campaign.source}: a MUC campaign without its parsed configuration")
    encoding = campaign.options["encoding"]
    settings = {"resamples": int(campaign.options["resamples"]), "seed": int(campaign.options["seed"])}
    reports = {
        system.name: freeze_spec(
            muc_spec(
                replace(config, response_file=system.templates),
                campaign.reference_templates,
                encoding,
                settings,
            )
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


def _kind_campaign_spec(campaign: Campaign) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """A registered kind: each system the stage its TaskKind gives (``tasks.campaign.kinds``); the summary
    ranks them by the family's headline, or the measure the campaign's options choose (``campaign.kind``
    is already ranked by it)."""
    kind = campaign.kind
    assert kind is not None
    system_spec = task_kind(campaign).system_spec
    scored = {system.name: system_spec(campaign, system) for system in campaign.systems}
    attributes = {
        system.name: {key: system.values.get(key) for key in kind.attributes} for system in campaign.systems
    }
    options = {
        "kind": kind.name,
        "measure": kind.family.headline,
        "resamples": int(campaign.options["resamples"]),
        "seed": int(campaign.options["seed"]),
        "attributes": attributes,
    }
    inputs = {f"statistics/{name}": spec for name, spec in scored.items()}
    return stage_spec("KindCampaignSummary", options, inputs), scored
