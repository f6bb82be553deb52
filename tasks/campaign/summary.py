"""CampaignSummary and CorefCampaignSummary: a campaign's leaderboard, intervals and significance."""

from __future__ import annotations

import pyarrow as pa

from pipeline.campaign.engine import FAMILIES, campaign_statistics, coref_campaign_statistics, kind_statistics
from pipeline.campaign.kinds import KINDS
from schemas import C
from tasks.core.base import Stage
from tasks.templette.report import SIGNATURE_KEY

#: The columns of a system's ``tallies`` its statistics count (``pipeline.templette.templette_statistics``).
TALLY_COLUMNS = [C.doc_id, C.instance_type, C.slot, C.aspect, C.category]


class CampaignSummary(Stage):
    """Leaderboard with bootstrap intervals, and pairwise significance, from every system's tallies.

    The statistics are the templette family's (``pipeline.campaign.families.TEMPLETTE``: ALL SLOTS points by
    document), built from the tallies as ``STATISTICS`` tables by ``campaign_statistics``.

    Its inputs are ``scores/NAME`` (the Report) and ``tallies/NAME`` (MapAndScore) per system: names
    are labels in the spec, never paths. Option ``family`` (absent: templette) is "muc" for a MUC
    campaign: the same points, the MUC family.
    """

    STAGE = "CampaignSummary"
    VERSION = 2
    OUTPUTS = ("leaderboard", "significance")

    def produce(self) -> dict[str, pa.Table]:
        names = [role.split("/", 1)[1] for role in self.spec["inputs"] if role.startswith("scores/")]
        scores = {name: self.input_table(f"scores/{name}") for name in names}
        # Only the columns the statistics count (``templette_statistics``), not the whole table.
        tallies = {name: self.input_table(f"tallies/{name}", "tallies", TALLY_COLUMNS) for name in names}
        signatures = {name: table.schema.metadata[SIGNATURE_KEY].decode() for name, table in scores.items()}
        board, significance = campaign_statistics(
            scores,
            signatures,
            tallies,
            resamples=int(self.options["resamples"]),
            seed=int(self.options["seed"]),
            beta=float(self.options["beta"]),
            family=FAMILIES[self.options.get("family", "templette")],
        )
        return {"leaderboard": board, "significance": significance}


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
    follow."""

    STAGE = "KindCampaignSummary"
    VERSION = 2
    OUTPUTS = ("leaderboard", "significance")

    def produce(self) -> dict[str, pa.Table]:
        names = [role.split("/", 1)[1] for role in self.spec["inputs"] if role.startswith("statistics/")]
        tables = {name: self.input_table(f"statistics/{name}", "statistics") for name in names}
        signatures = {name: table.schema.metadata[SIGNATURE_KEY].decode() for name, table in tables.items()}
        board, significance = kind_statistics(
            KINDS[self.options["kind"]].ranked_by(self.options.get("measure")),
            tables,
            signatures,
            self.options.get("attributes", {}),
            resamples=int(self.options["resamples"]),
            seed=int(self.options["seed"]),
        )
        return {"leaderboard": board, "significance": significance}
