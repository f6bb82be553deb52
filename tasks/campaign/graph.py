"""A campaign's stage graph: each system's stage (its kind's ``TaskKind.system_spec``) and the
CampaignSummary over all of them; shared reference stages are one task."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from iescore.pipeline.campaign.engine import Campaign, System, campaign_error
from iescore.pipeline.core.errors import InputError
from iescore.tasks.campaign import summary  # noqa: F401 - registers the summary stage
from iescore.tasks.campaign.kinds import task_kind
from iescore.tasks.core.base import freeze_spec, prefetch_digests, stage_spec


def campaign_spec(campaign: Campaign) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The summary spec and each system's spec: the stage its kind's TaskKind gives; the summary ranks them
    by the family's headline, or the measure the campaign's options choose (``campaign.kind`` is already
    ranked by it)."""
    # Every file the specs name is hashed; two at a time first (each file once, whatever names it).
    named = [path for system in campaign.systems for path in (system.templates, system.texts) if path]
    prefetch_digests([*campaign.reference_files, *named])
    kind = campaign.kind
    system_spec = task_kind(campaign).system_spec
    # Frozen now (``freeze_spec``), so the summary's spec holds these very objects: each stage's spec is
    # frozen and keyed once, not again inside the summary's.
    scored = {
        system.name: freeze_spec(_system_spec(system_spec, campaign, system)) for system in campaign.systems
    }
    attributes = {
        system.name: {key: system.values.get(key) for key in kind.attributes} for system in campaign.systems
    }
    options = {
        "kind": kind.name,
        "measure": kind.family.headline,
        "resamples": int(campaign.options["resamples"]),
        "seed": int(campaign.options["seed"]),
        "attributes": attributes,
        "family": campaign.family_options,
    }
    inputs = {f"statistics/{name}": spec for name, spec in scored.items()}
    return stage_spec("CampaignSummary", options, inputs), scored


def _system_spec(
    system_spec: Callable[[Campaign, System], dict[str, Any]], campaign: Campaign, system: System
) -> dict[str, Any]:
    """One system's spec; an error its kind's code raises naming a command-line option is told as the
    campaign file's line (``campaign_error``)."""
    try:
        return system_spec(campaign, system)
    except InputError as error:
        raise campaign_error(campaign, system.name, error) from None
