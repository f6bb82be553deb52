"""The SENSEVAL campaign kind: ``scorer = "senseval"`` campaign files (``pipeline.core.kinds``).

``[reference]``: ``key`` (the answer key), ``sense_map`` (needed for coarse and mixed), and the seed's
filters ``instances`` and ``senses``; ``[systems.NAME]``: ``answers``; ``[options]``: what ``iescore
senseval`` takes (``granularity``, ``minimal``, ``policy``, ``unknown_senses``, ``strict``, ``encoding``).
The leaderboard shows precision, recall and attempted and ranks by recall, the SENSEVAL ranking measure.
"""

from __future__ import annotations

from iescore.pipeline.core.kinds import CampaignKind, Field
from iescore.pipeline.senseval.family import SENSEVAL
from iescore.pipeline.senseval.scoring import GRANULARITIES, POLICIES, UNKNOWN_SENSES

SENSEVAL_CAMPAIGN = CampaignKind(
    name="senseval",
    family=SENSEVAL,
    reference={
        "key": Field("file", "the answer key ('item instance tag [tag ...]')", required=True),
        "sense_map": Field("file", "the sense map (needed for coarse and mixed scoring)"),
        "instances": Field("file", "score only the instances listed ('item instance' lines)"),
        "senses": Field("file", "keep only the key tags listed; drop instances left with none"),
    },
    system={
        "answers": Field("file", "the system's answers ('item instance tag[/weight] ...')", required=True)
    },
    options={
        "granularity": Field("choice", "fine, coarse or mixed", default="fine", choices=GRANULARITIES),
        "minimal": Field("bool", "leave out instances whose key has more than one tag (-m)", default=False),
        "policy": Field(
            "choice", "disjunctive, coverage or conjunctive", default="disjunctive", choices=POLICIES
        ),
        "unknown_senses": Field(
            "choice",
            "an answer tag the sense map lacks: wrong or unattempted",
            default="wrong",
            choices=UNKNOWN_SENSES,
        ),
        "strict": Field("bool", "a warning about an answer line is an error", default=False),
        "encoding": Field("encoding", "encoding of the input files", default="utf-8"),
    },
    board=("precision", "recall", "attempted"),
    headline_label="Recall",
    unit="fraction",  # as scorer2 prints its measures
    ranking_note="ranked by recall, the SENSEVAL ranking measure (precision rewards leaving instances out)",
)
