"""CampaignSummary: a campaign's leaderboard, intervals and significance, for every kind.

A CampaignSummary reuses what it can of an earlier summary of the same campaign settings in the store
(``previous_record``: the rules are ``pipeline.campaign.reuse``'s), so a rerun after one system changed
reads and recomputes that system, not the campaign.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pyarrow as pa
from iescore.pipeline.campaign import reuse
from iescore.pipeline.campaign.engine import campaign_summary, previous_summary
from iescore.pipeline.campaign.kinds import KINDS
from iescore.pipeline.core.kinds import CampaignKind
from iescore.pipeline.core.signature import SIGNATURE_KEY
from iescore.tasks.core import files
from iescore.tasks.core import store as artifacts
from iescore.tasks.core.base import Stage, input_key


class CampaignSummary(Stage):
    """The leaderboard (``LEADERBOARD``) and pairwise significance (``SIGNIFICANCE``) of a campaign (option
    ``kind``), from every system's ``statistics/NAME`` (the stage its TaskKind gives it). Option
    ``attributes``: system -> the attributes the leaderboard shows beside its name; option ``measure``: the
    measure that ranks (``CampaignKind.ranked_by``; absent: the family's headline); option ``family``: the
    family's options (templette's beta). Outputs ``units`` and ``systems`` are the record a later summary
    reuses (``pipeline.campaign.reuse``); ``categories``, each system's statistics summed by category, is
    what the page's heat map shows (and a later summary reuses too); ``ranks`` (``RANKS``) each system's
    rank range and rank cluster. A kind with pair tests of its own (``CampaignKind.pair_tests``) reads
    every system's ``CampaignKind.evidence`` output too."""

    STAGE = "CampaignSummary"
    VERSION = 8
    OUTPUTS = ("leaderboard", "significance", "ranks", "units", "systems", "categories")

    def produce(self) -> dict[str, pa.Table]:
        names = [role.split("/", 1)[1] for role in self.spec["inputs"] if role.startswith("statistics/")]
        kind = summary_kind(self.options)
        resamples, seed = int(self.options["resamples"]), int(self.options["seed"])
        previous = previous_record(
            self,
            {name: (f"statistics/{name}",) for name in names},
            lambda settings, tables, unchanged: previous_summary(
                summary_kind(settings),
                int(settings["resamples"]),
                int(settings["seed"]),
                settings.get("family"),
                tables,
                unchanged,
            ),
        )
        unchanged = previous.unchanged if previous is not None else frozenset()
        fresh = [name for name in names if name not in unchanged]
        tables = {name: self.input_table(f"statistics/{name}", "statistics") for name in fresh}
        signatures = {name: table.schema.metadata[SIGNATURE_KEY].decode() for name, table in tables.items()}
        # The kind's own pair tests (WER's MAPSSWE and sign test) read every system's evidence.
        evidence = (
            {name: self.input_table(f"statistics/{name}", kind.evidence) for name in names}
            if kind.pair_tests
            else None
        )
        return campaign_summary(
            kind,
            names,
            tables,
            signatures,
            self.options.get("attributes", {}),
            resamples,
            seed,
            self.options.get("family"),
            previous=previous,
            evidence=evidence,
        )


def summary_kind(options: Mapping[str, Any]) -> CampaignKind:
    """The kind a summary's options name, ranked by the measure they choose."""
    return KINDS[options["kind"]].ranked_by(options.get("measure"))


def previous_record(
    task: Stage,
    roles: Mapping[str, Sequence[str]],
    read: Callable[[dict[str, Any], dict[str, pa.Table], set[str]], reuse.Previous],
) -> reuse.Previous | None:
    """What ``task`` may reuse of the earlier summary :func:`previous_summary_tables` finds, or None.

    ``roles``: each system's input roles; a system is unchanged when all of them have the keys the
    earlier summary read. ``read(settings, tables, unchanged)`` applies ``pipeline.campaign.reuse``'s
    rules to the earlier tables with the earlier summary's own settings (its provenance's options),
    which the rules compare with today's; a record it cannot read is no record (everything is computed).
    """
    found = previous_summary_tables(task)
    if found is None:
        return None
    tables, provenance = found
    inputs, old = input_keys(task), provenance.get("inputs", {})
    unchanged = {name for name, keys in roles.items() if all(old.get(r) == inputs[r] for r in keys)}
    try:
        return read(provenance["options"], tables, unchanged)
    except (ValueError, KeyError, pa.ArrowException):
        return None


def input_keys(task: Stage) -> dict[str, str]:
    """Every input's key of ``task``, by role (as its provenance records them)."""
    return {role: input_key(sub) for role, sub in task.spec.get("inputs", {}).items()}


def previous_summary_tables(task: Stage) -> tuple[dict[str, pa.Table], dict[str, Any]] | None:
    """The outputs and provenance of the earlier summary in ``task``'s store that ``task`` can reuse most
    of: the same stage, VERSION and options, the most inputs in common (ties: the smallest key); None
    when there is none, or it cannot be read whole (then nothing is reused).

    Finding it is a look at the store's provenances (footers only); whether its results apply is
    ``pipeline.campaign.reuse``'s rule, checked on the content.
    """
    if not task.store or task.__dict__.get("_memory") is not None:
        return None
    options = json.loads(json.dumps(files.plain(task.options), sort_keys=True, default=str))
    inputs = input_keys(task)
    best: tuple[int, str, dict[str, Any]] | None = None
    try:
        provenances = artifacts.stage_provenances(task.store, task.STAGE, task.OUTPUTS[0])
    except OSError:
        return None
    for provenance in provenances:
        key = provenance.get("key")
        same = provenance.get("version") == task.VERSION and provenance.get("options") == options
        if not same or key == task.key:
            continue
        shared = sum(1 for role, old in provenance.get("inputs", {}).items() if inputs.get(role) == old)
        if best is None or (-shared, key) < (-best[0], best[1]):
            best = (shared, key, provenance)
    if best is None:
        return None
    try:
        tables = {
            name: artifacts.read_table(artifacts.artifact_target(task.store, task.STAGE, best[1], name))
            for name in task.OUTPUTS
        }
    except (OSError, pa.ArrowException, ValueError):
        return None
    return tables, best[2]
