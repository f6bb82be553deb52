"""Speech input: GLM filtering (csrfilt), words of a text, word alignment (sclite's DP and phonetic costs),
transcripts.

What other wings may use (the templette scorer normalizes contents with the GLM and treats fillers and
fragments as optional words; a templette campaign chooses among its alignment cost models); everything
else here is the wing's own.
"""

from iescore.pipeline.speech.align import COST_MODELS
from iescore.pipeline.speech.glm import GlobalMap, apply_glm, ascii_upper, expand_alternatives
from iescore.pipeline.speech.words import speech_optional

__all__ = ["COST_MODELS", "GlobalMap", "apply_glm", "ascii_upper", "expand_alternatives", "speech_optional"]
