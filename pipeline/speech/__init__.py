"""Speech input: GLM filtering (csrfilt), words of a text, word alignment (sclite's DP and phonetic costs),
transcripts.

What other wings may use (the templette scorer normalizes contents with the GLM and treats fillers and
fragments as optional words; a templette campaign chooses among its alignment cost models; the campaign
engine registers the WER campaign kind, ``WER_CAMPAIGN``); everything else here is the wing's own.
"""

from iescore.pipeline.speech.align import COST_MODELS
from iescore.pipeline.speech.glm import GlobalMap, apply_glm, ascii_upper, expand_alternatives
from iescore.pipeline.speech.words import speech_optional

__all__ = [
    "COST_MODELS",
    "WER_CAMPAIGN",
    "GlobalMap",
    "apply_glm",
    "ascii_upper",
    "expand_alternatives",
    "speech_optional",
]


def __getattr__(name: str):  # the WER kind (sclite, sc_stats, the family) only when asked for
    if name == "WER_CAMPAIGN":
        from iescore.pipeline.speech.campaign import WER_CAMPAIGN

        return WER_CAMPAIGN
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
