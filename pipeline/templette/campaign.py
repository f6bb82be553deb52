"""The templette campaign kind: ``scorer = "templette"`` (the default) campaign files, text or speech.

```toml
[reference]
templates = "ref.tpl"
texts = "texts.sgml"                 # optional

[options]                            # all optional; these are the defaults
compare = "both"                     # content | extent | both
unscored = ["COMMENT"]
case_sensitive = false
beta = 1.0
encoding = "utf-8"
glm = "rules.glm"                    # content normalization (and the words aligned, for speech)
premodifiers = ["a", "an", "the", "and"]
punctuation = ",.;:!?\\"()'-"        # whited out of contents
cost = "phonetic"                    # or "levenshtein": alignment costs for speech input

[systems.alpha]
templates = "alpha.tpl"
texts = "alpha.sgml"                 # optional: the hypothesis texts when they differ
unsegmented = true                   # optional: the texts are one word stream (speech input)
```

The board shows the ALL SLOTS counts and measures in percent (as the MUC scorer prints them), with
intervals on REC, PRE and F; the page adds the precision-recall plot and the per-document pairings.
"""

from __future__ import annotations

from typing import Any

from iescore.pipeline.core.kinds import CampaignKind, Field
from iescore.pipeline.speech import COST_MODELS
from iescore.pipeline.templette.defaults import DEFAULT_OPTIONS
from iescore.pipeline.templette.family import POINT_MEASURES, TEMPLETTE
from iescore.pipeline.templette.scoring import COMPARE_MODES

#: The board's count columns: each category's points, and POS and ACT (``pipeline.core.measures``).
POINT_COUNTS = {
    "COR": ("COR",),
    "INC": ("INC",),
    "PAR": ("PAR",),
    "MIS": ("MIS",),
    "SPU": ("SPU",),
    "NON": ("NON",),
    "POS": ("COR", "INC", "PAR", "MIS"),
    "ACT": ("COR", "INC", "PAR", "SPU"),
}
#: What the text board and the page's leaderboard show.
POINT_COLUMNS = ("POS", "ACT", "COR", "INC", "MIS", "SPU", "REC", "PRE", "F")
#: How a campaign of points (templette, MUC) shows them: the MUC measures in percent, as the MUC scorer
#: prints them, intervals on REC, PRE and F after the board's columns.
POINT_BOARD: dict[str, Any] = {
    "board": POINT_MEASURES,
    "headline_label": "F",
    "unit": "percent",
    "counts": POINT_COUNTS,
    "interval_measures": ("REC", "PRE", "F"),
    "intervals_last": True,
    "shown": POINT_COLUMNS,
    "text_width": 7,
}


def _words(name: str, doc: str) -> Field:
    return Field("words", doc, default=list(DEFAULT_OPTIONS[name]))


TEMPLETTE_CAMPAIGN = CampaignKind(
    name="templette",
    family=TEMPLETTE,
    reference={
        "templates": Field("file", "the reference template set", required=True),
        "texts": Field("file", "the reference texts (SGML)"),
    },
    system={
        "templates": Field("file", "the system's template set", required=True),
        "texts": Field("file", "the system's texts when they differ from the reference's"),
        "unsegmented": Field("bool", "the texts are one word stream (speech input)", default=False),
    },
    options={
        "compare": Field("choice", "what a fill comparison looks at", default="both", choices=COMPARE_MODES),
        "unscored": _words("unscored", "slots that are not scored"),
        "case_sensitive": Field("bool", "compare contents case-sensitively", default=False),
        "beta": Field("positive", "the F-measure's beta", default=1.0),
        "encoding": Field("encoding", "the input files' encoding", default="utf-8"),
        "glm": Field("file", "a global mapping file (GLM) normalizing contents"),
        "premodifiers": _words("premodifiers", "premodifiers removed from contents"),
        "punctuation": Field("string", "characters whited out of contents"),
        "cost": Field("choice", "alignment costs for speech input", default="phonetic", choices=COST_MODELS),
    },
    **POINT_BOARD,
    sections=("pairings",),
)
