"""The TREC campaign kind: ``scorer = "trec"`` campaigns rank runs by MAP over the queries, or the measure
their ``[options] measure`` names.

A campaign file names the qrels (``[reference] qrels``) and each run (``[systems.NAME] run``, with
``baseline = true`` for a team's baseline run, shown beside its name as CLEF eHealth Task 3 asks: its
teams submit a baseline first, then up to six more runs). Options: trec_eval's ``level`` (-l),
``complete`` (-c), ``max_docs`` (-M) and ``judged_only`` (-J), and ``measure``: the measure that ranks, one
of the family's (``pipeline.trec.family.CAMPAIGN_MEASURES``, trec_eval's names: ``map`` by default,
``P_10``, ``ndcg_cut_10``, ``recip_rank``, ``bpref``...). The leaderboard shows the board's measures and
the ranking one, ranked by it; intervals and paired significance resample queries; every measure but
``gm_map`` (a geometric mean) is a mean of per-query values, so pairs also have the paired t-test over
queries; every p-value is also adjusted by Holm's correction. The page's heat map shows the ranking
measure by query.
"""

from __future__ import annotations

from iescore.pipeline.core.kinds import CampaignKind, Field
from iescore.pipeline.trec.family import CAMPAIGN_MEASURES, TREC

TREC_CAMPAIGN = CampaignKind(
    name="trec",
    family=TREC,
    reference={"qrels": Field("file", "the relevance judgements (qid iter docno rel)", required=True)},
    system={
        "run": Field("file", "the run in TREC format (qid Q0 docno rank score tag)", required=True),
        "baseline": Field("bool", "the team's baseline run", default=False),
    },
    options={
        "level": Field("int", "lowest relevant grade (trec_eval -l)", default=1, low=-1000, high=1000),
        "complete": Field(
            "bool", "count qrels queries the run does not answer (trec_eval -c)", default=False
        ),
        "max_docs": Field("int", "documents used per query (trec_eval -M)", default=2147483647, low=1),
        "judged_only": Field("bool", "drop unjudged documents first (trec_eval -J)", default=False),
    },
    board=("map", "P_10", "ndcg_cut_10", "bpref", "Rprec", "recip_rank"),
    headline_label="MAP",
    unit="fraction",  # as trec_eval prints its measures
    ranking_note="ranked by MAP (mean average precision over queries, as trec_eval computes it)",
    attributes=("baseline",),
    measure_option="measure",
    # Each is a mean over queries of a per-query value, but gm_map: exp of the mean of log(AP).
    per_unit_mean=tuple(m for m in CAMPAIGN_MEASURES if m != "gm_map"),
)
