"""The campaign kinds a campaign file can name (``scorer = "NAME"``), one list: every family's
``pipeline.core.kinds.CampaignKind``, declared in its own wing. A new family is one more line here (and
its tasks side in ``tasks.campaign.kinds``). Everything else (reading the campaign file, the summary
stage, the leaderboard, significance, output files and the HTML page) is shared: see
``pipeline.campaign.engine``.
"""

from __future__ import annotations

from iescore.pipeline.clef import CLEF_2_CAMPAIGN, CLEF_CAMPAIGN
from iescore.pipeline.core.kinds import CampaignKind
from iescore.pipeline.coref import COREF_CAMPAIGN
from iescore.pipeline.mat import MAT_CAMPAIGN
from iescore.pipeline.muc import MUC_CAMPAIGN
from iescore.pipeline.senseval import SENSEVAL_CAMPAIGN
from iescore.pipeline.speech import WER_CAMPAIGN
from iescore.pipeline.templette import TEMPLETTE_CAMPAIGN
from iescore.pipeline.trec import TREC_CAMPAIGN

#: Campaign kinds by name (``scorer = "NAME"``; absent: templette).
KINDS: dict[str, CampaignKind] = {
    kind.name: kind
    for kind in (
        TEMPLETTE_CAMPAIGN,
        MUC_CAMPAIGN,
        COREF_CAMPAIGN,
        MAT_CAMPAIGN,
        SENSEVAL_CAMPAIGN,
        CLEF_CAMPAIGN,
        CLEF_2_CAMPAIGN,
        TREC_CAMPAIGN,
        WER_CAMPAIGN,
    )
}


def register_kind(kind: CampaignKind) -> CampaignKind:
    """Add ``kind`` to ``KINDS`` (tests declare kinds of their own); two kinds of one name are an error."""
    if kind.name in KINDS and KINDS[kind.name] is not kind:
        raise ValueError(f"campaign kind {kind.name!r} is registered twice")
    KINDS[kind.name] = kind
    return kind
