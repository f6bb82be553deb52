"""CampaignSummary and CorefCampaignSummary: a campaign's leaderboard, intervals and significance.

A CampaignSummary reuses what it can of an earlier summary of the same campaign settings in the store
(``previous_summary``: the rules are ``pipeline.campaign.reuse``'s), so a rerun after one system changed
reads and recomputes that system, not the campaign.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pyarrow as pa

from pipeline.campaign import reuse
from pipeline.campaign.engine import (
    FAMILIES,
    campaign_summary,
    coref_campaign_statistics,
    kind_summary,
    previous_kind_summary,
    previous_summary,
)
from pipeline.campaign.kinds import KINDS
from pipeline.core.signature import SIGNATURE_KEY
from schemas import C
from tasks.core import store as artifacts
from tasks.core.base import Stage, input_key

#: The columns of a system's ``tallies`` its statistics count (``pipeline.templette.templette_statistics``).
TALLY_COLUMNS = [C.doc_id, C.instance_type, C.slot, C.aspect, C.category]


class CampaignSummary(Stage):
    """Leaderboard with bootstrap intervals, and pairwise significance, from every system's tallies.

    The statistics are the templette family's (``pipeline.campaign.families.TEMPLETTE``: ALL SLOTS points by
    document), built from the tallies as ``STATISTICS`` tables by ``campaign_statistics``.

    Its inputs are ``scores/NAME`` (the Report) and ``tallies/NAME`` (MapAndScore) per system: names
    are labels in the spec, never paths. Option ``family`` (absent: templette) is "muc" for a MUC
    campaign: the same points, the MUC family. Outputs ``units`` and ``systems`` are the record a later
    summary reuses (``pipeline.campaign.reuse``): a system whose two inputs are the artifacts an earlier
    summary of the same options read is not read again.
    """

    STAGE = "CampaignSummary"
    VERSION = 3
    OUTPUTS = ("leaderboard", "significance", "units", "systems")

    def produce(self) -> dict[str, pa.Table]:
        names = [role.split("/", 1)[1] for role in self.spec["inputs"] if role.startswith("scores/")]
        family = FAMILIES[self.options.get("family", "templette")]
        resamples, seed = int(self.options["resamples"]), int(self.options["seed"])
        beta = float(self.options["beta"])
        previous = previous_record(
            self,
            {name: (f"scores/{name}", f"tallies/{name}") for name in names},
            lambda settings, tables, unchanged: previous_summary(
                FAMILIES[settings.get("family", "templette")],
                int(settings["resamples"]),
                int(settings["seed"]),
                float(settings["beta"]),
                tables,
                unchanged,
            ),
        )
        unchanged = previous.unchanged if previous is not None else frozenset()
        fresh = [name for name in names if name not in unchanged]
        scores = {name: self.input_table(f"scores/{name}") for name in fresh}
        # Only the columns the statistics count (``templette_statistics``), not the whole table.
        tallies = {name: self.input_table(f"tallies/{name}", "tallies", TALLY_COLUMNS) for name in fresh}
        signatures = {name: table.schema.metadata[SIGNATURE_KEY].decode() for name, table in scores.items()}
        return campaign_summary(
            names, scores, signatures, tallies, resamples, seed, beta, family=family, previous=previous
        )


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
    options = json.loads(json.dumps(artifacts.plain(task.options), sort_keys=True, default=str))
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


class CorefCampaignSummary(Stage):
    """A coreference campaign's leaderboard (``COREF_LEADERBOARD``: MUC, B3, CEAF-e, CoNLL F1 and its
    interval) and pairwise significance on CoNLL F1, from every system's ``statistics/NAME`` (its
    ScoreCorefResponse)."""

    STAGE = "CorefCampaignSummary"
    VERSION = 1
    OUTPUTS = ("leaderboard", "significance")

    def produce(self) -> dict[str, pa.Table]:
        names = [role.split("/", 1)[1] for role in self.spec["inputs"] if role.startswith("statistics/")]
        tables = {name: self.input_table(f"statistics/{name}", "statistics") for name in names}
        signatures = {name: table.schema.metadata[SIGNATURE_KEY].decode() for name, table in tables.items()}
        board, significance = coref_campaign_statistics(
            tables, signatures, resamples=int(self.options["resamples"]), seed=int(self.options["seed"])
        )
        return {"leaderboard": board, "significance": significance}


class KindCampaignSummary(Stage):
    """The leaderboard (``FAMILY_LEADERBOARD``) and pairwise significance of a campaign of a registered
    kind (option ``kind``), from every system's ``statistics/NAME`` (the stage its TaskKind gives it).
    Option ``attributes``: system -> the attributes the leaderboard shows beside its name; option
    ``measure``: the measure that ranks (``CampaignKind.ranked_by``; absent: the family's headline), which
    the board, intervals and significance (``FAMILY_SIGNIFICANCE``, with its t-test and Holm columns)
    follow. Outputs ``units`` and ``systems`` are the record a later summary reuses, as CampaignSummary's
    (``pipeline.campaign.reuse``: only for a family whose statistics are all counts)."""

    STAGE = "KindCampaignSummary"
    VERSION = 3
    OUTPUTS = ("leaderboard", "significance", "units", "systems")

    def produce(self) -> dict[str, pa.Table]:
        names = [role.split("/", 1)[1] for role in self.spec["inputs"] if role.startswith("statistics/")]
        kind = KINDS[self.options["kind"]].ranked_by(self.options.get("measure"))
        resamples, seed = int(self.options["resamples"]), int(self.options["seed"])
        previous = previous_record(
            self,
            {name: (f"statistics/{name}",) for name in names},
            lambda settings, tables, unchanged: previous_kind_summary(
                KINDS[settings["kind"]].ranked_by(settings.get("measure")),
                int(settings["resamples"]),
                int(settings["seed"]),
                tables,
                unchanged,
            ),
        )
        unchanged = previous.unchanged if previous is not None else frozenset()
        fresh = [name for name in names if name not in unchanged]
        tables = {name: self.input_table(f"statistics/{name}", "statistics") for name in fresh}
        signatures = {name: table.schema.metadata[SIGNATURE_KEY].decode() for name, table in tables.items()}
        return kind_summary(
            kind,
            names,
            tables,
            signatures,
            self.options.get("attributes", {}),
            resamples,
            seed,
            previous=previous,
        )
