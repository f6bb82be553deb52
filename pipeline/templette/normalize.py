"""Content normalization with a global mapping file (seed 000, "Content Normalization").

Every text fill's maximal and minimal content strings are rewritten by the GLM, as NIST's csrfilt
rewrites a transcript, so that valid spelling variants ("OK" and "OKAY") compare equal. A rule whose
replacement offers alternatives (``{ S.'S / S. IS / S. HAS }``) keeps them in the normalized
content; comparison accepts any of them (:func:`pipeline.templette.scoring.content_matches`).
"""

from __future__ import annotations

import dataclasses

from iescore.pipeline.speech import GlobalMap, apply_glm, ascii_upper
from iescore.pipeline.templette.model import Instance, TemplateSet, TextFill


def normalize_text(glm: GlobalMap, text: str) -> str:
    """``text`` rewritten by ``glm``, whitespace folded.

    As csrfilt does with a text transcript: the rules for input type ``text`` apply (a GLM may keep
    some for ctm files only), to the text upper-cased (ASCII letters), padded with one space on each
    side so that rules with word-boundary contexts (``/ [ ] __ [ ]``) apply at its ends too.
    """
    return " ".join(apply_glm(glm.for_input("text"), ascii_upper(f" {text} ")).split())


def normalize_contents(template_set: TemplateSet, glm: GlobalMap) -> TemplateSet:
    """The template set with every text fill's contents rewritten by ``glm``."""

    def rewrite(_: Instance, fill: TextFill) -> TextFill:
        return dataclasses.replace(
            fill,
            content=normalize_text(glm, fill.content or ""),
            minimal_contents=tuple(normalize_text(glm, m) for m in fill.minimal_contents or ()),
        )

    return template_set.map_text_fills(rewrite)
