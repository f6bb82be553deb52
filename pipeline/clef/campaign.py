"""CLEF eHealth campaigns: ``scorer = "clef"`` (Task 1: disorder spans, and their CUIs) and ``scorer =
"clef-2"`` (Task 2: abbreviations), declared for the campaign engine (``pipeline.core.kinds``).

A campaign file names the gold standard directory and each run's directory; ``additional_annotations``
(eval.pl's ``-a``: the run used annotations beyond the lab's, and is ranked apart in the lab's tables) and
``run`` (the team's run, 1 or 2) are shown on the leaderboard beside the run's name::

    scorer = "clef"

    [reference]
    gold = "gold"

    [systems.team-a-1]
    input = "team-a/run1"

    [systems.team-a-2]
    input = "team-a/run2"
    run = 2
    additional_annotations = true

Task 1's leaderboard ranks by the strict F of Task 1a (the evaluation every Task 1 team took part in) and
shows precision, recall, the relaxed (eval.pl's) and one-to-one overlap F, and Task 1b's accuracies.
"""

from __future__ import annotations

from iescore.pipeline.clef.family import CLEF_1A, CLEF_2
from iescore.pipeline.core.kinds import CampaignKind, Field

_REFERENCE = {
    "gold": Field("directory", "the gold standard directory (one pipe file per report)", required=True)
}
_SYSTEM = {
    "input": Field("directory", "the run's directory (one pipe file per report)", required=True),
    "run": Field("int", "the team's run number (eval.pl's -r)", default=1, low=1, high=2),
    "additional_annotations": Field(
        "bool", "the run used annotations beyond the lab's (eval.pl's -a)", default=False
    ),
}

CLEF_CAMPAIGN = CampaignKind(
    name="clef",
    family=CLEF_1A,
    reference=_REFERENCE,
    system=_SYSTEM,
    board=(
        "strict_P",
        "strict_R",
        "strict_F",
        "relaxed_F",
        "one_to_one_F",
        "strict_accuracy",
        "relaxed_accuracy",
    ),  # fmt: skip
    headline_label="Task 1a strict F",
    unit="fraction",  # as eval.pl prints its measures
    ranking_note="ranked by Task 1a strict F (exact spans), as the CLEF eHealth 2013 lab ranked runs",
    attributes=("run", "additional_annotations"),
)
CLEF_2_CAMPAIGN = CampaignKind(
    name="clef-2",
    family=CLEF_2,
    reference=_REFERENCE,
    system=_SYSTEM,
    board=("strict_accuracy", "relaxed_accuracy"),
    headline_label="Task 2 strict accuracy",
    unit="fraction",  # as eval.pl prints its measures
    ranking_note="ranked by Task 2 strict accuracy (the annotators' top code)",
    attributes=("run", "additional_annotations"),
)
