"""A campaign's stage graph: each system's stage (its kind's ``TaskKind.system_spec``) and the
CampaignSummary over all of them; shared reference stages are one task.

Luigi runs it coarse (``campaign_cut``): one task per system, which builds that system's whole chain of
stages in one process, one task per stage that systems share, and the summary. Luigi's scheduling costs
per task, and a thousand systems of eight stages each are more tasks than it schedules quickly; every
stage's artifact is written all the same. Past ``GROUPS`` systems, the systems' tasks are grouped
(``campaign_groups``): at most ``GROUPS`` Luigi tasks (a process each on several workers) build them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from iescore.pipeline.campaign.engine import Campaign, System, campaign_error
from iescore.pipeline.core.errors import InputError
from iescore.tasks.campaign import summary  # noqa: F401 - registers the summary stage
from iescore.tasks.campaign.kinds import task_kind
from iescore.tasks.core.base import KeyMemo, freeze_spec, input_key, prefetch_digests, stage_spec


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


def campaign_cut(scored: Mapping[str, Mapping[str, Any]]) -> frozenset[str]:
    """The keys of the stages that are Luigi tasks of their own (``tasks.core.task``'s cut), given each
    system's spec: each system's stage, and every stage two or more systems need (the reference's). A
    system's other stages are its own, built in its system's task."""
    memo: KeyMemo = {}
    users: Counter[str] = Counter()
    for spec in scored.values():
        users.update(set(_stage_keys(spec, memo)))
    shared = {key for key, count in users.items() if count > 1}
    return frozenset(shared | {input_key(spec, memo) for spec in scored.values()})


#: The most Luigi tasks a campaign's systems are run as: past this many systems, consecutive systems (in
#: campaign order) share one task (``tasks.core.task.StageGroup``), enough of them for the workers of
#: one machine or of several (a luigid) to share out.
GROUPS = 64


def campaign_groups(scored: Mapping[str, Mapping[str, Any]]) -> tuple[tuple[str, ...], ...] | None:
    """The keys of each system's stage (``scored``: each system's spec, in campaign order) in groups of
    consecutive systems, at most ``GROUPS`` groups of sizes differing by one at most; None (no groups) up
    to ``GROUPS`` systems. The groups depend on the campaign alone: every client of a luigid makes them
    alike."""
    memo: KeyMemo = {}
    keys = list(dict.fromkeys(input_key(spec, memo) for spec in scored.values()))
    if len(keys) <= GROUPS:
        return None
    size, extra = divmod(len(keys), GROUPS)
    groups, start = [], 0
    for number in range(GROUPS):
        end = start + size + (1 if number < extra else 0)
        groups.append(tuple(keys[start:end]))
        start = end
    return tuple(groups)


def _stage_keys(spec: Mapping[str, Any], memo: KeyMemo) -> Iterator[str]:
    """The keys of ``spec`` and of every stage it needs (a stage reached twice is given twice)."""
    stack = [spec]
    while stack:
        spec = stack.pop()
        yield input_key(spec, memo)
        stack.extend(sub for sub in spec.get("inputs", {}).values() if "stage" in sub)


def _system_spec(
    system_spec: Callable[[Campaign, System], dict[str, Any]], campaign: Campaign, system: System
) -> dict[str, Any]:
    """One system's spec; an error its kind's code raises naming a command-line option is told as the
    campaign file's line (``campaign_error``)."""
    try:
        return system_spec(campaign, system)
    except InputError as error:
        raise campaign_error(campaign, system.name, error) from None
