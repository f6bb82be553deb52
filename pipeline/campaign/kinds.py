"""The campaign kinds a campaign file can name (``scorer = "NAME"``), one list: every family's
``pipeline.core.kinds.CampaignKind``, declared in its own wing and named here with its module (imported
when a campaign of that kind is read: ``pipeline.core.registry``). A new family is one more line here
(and its tasks side in ``tasks.campaign.kinds``). Everything else (reading the campaign file, the summary
stage, the leaderboard, significance, output files and the HTML page) is shared: see
``pipeline.campaign.engine``.
"""

from __future__ import annotations

from iescore.pipeline.core.kinds import CampaignKind
from iescore.pipeline.core.registry import Registry

#: Campaign kinds by name (``scorer = "NAME"``; absent: templette), in the order error messages list them.
KINDS: Registry[CampaignKind] = Registry(
    "campaign kind",
    {
        "templette": "iescore.pipeline.templette:TEMPLETTE_CAMPAIGN",
        "muc": "iescore.pipeline.muc:MUC_CAMPAIGN",
        "coref": "iescore.pipeline.coref:COREF_CAMPAIGN",
        "mat": "iescore.pipeline.mat:MAT_CAMPAIGN",
        "senseval": "iescore.pipeline.senseval:SENSEVAL_CAMPAIGN",
        "clef": "iescore.pipeline.clef:CLEF_CAMPAIGN",
        "clef-2": "iescore.pipeline.clef:CLEF_2_CAMPAIGN",
        "trec": "iescore.pipeline.trec:TREC_CAMPAIGN",
        "wer": "iescore.pipeline.speech:WER_CAMPAIGN",
    },
)


def register_kind(kind: CampaignKind) -> CampaignKind:
    """Add ``kind`` to ``KINDS`` (tests declare kinds of their own); two kinds of one name are an error."""
    return KINDS.register(kind.name, kind)
