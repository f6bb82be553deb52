"""The MUC scorer's rules on top of the templette machinery (seed 001).

A MUC configuration (``pipeline.muc.config``) says which task is scored and how: the classes and
their mapping thresholds, the slots with their weights and whether they are scored. This module turns
it into the options of the shared greedy scorer and normalizes string fills the way the configuration's
premodifier, postmodifier and corporate designator lists ask.

Template element, template relation and scenario template objects are compared by content only: seed
001 says the offsets after a fill are read but "not used in scoring". Named entity objects pair only
when they come from the same SGML element of the text (see ``tasks.muc.stages``); their TEXT and TYPE slots
are compared by content.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.muc.config import MucConfig
from iescore.pipeline.muc.named_entity import NamedEntities
from iescore.pipeline.templette import Instance, Pointer, TemplateSet, TextFill

TEMPLATE_TASKS = {"template_element": None, "template_relation": "relation", "scenario_template": "scenario"}
NAMED_ENTITY, COREFERENCE = "named_entity", "coreference"
TASKS = (*TEMPLATE_TASKS, NAMED_ENTITY, COREFERENCE)


def task_of(config: MucConfig) -> str:
    """The configured scoring task; an error naming the file when it is missing or unknown."""
    if config.task not in TASKS:
        raise InputError(config.source, 0, f":scoring_task expected, one of {', '.join(TASKS)}")
    return config.task


def scoring_options(config: MucConfig) -> dict[str, Any]:
    """The MapAndScore options (plain JSON values) of a MUC configuration.

    Unscored slots: every slot def marked ``unscored`` and every slot of an ``unscored`` class. The
    shared scorer knows a slot's score setting by its name, so a name that is scored in one class and
    unscored in another is an error.
    """
    task = task_of(config)
    unscored: dict[str, bool] = {}
    for slot in config.slots:
        class_def = config.class_def(slot.class_name)
        scored = slot.scored and (class_def is None or class_def.scored)
        name = slot.name.upper()
        if unscored.setdefault(name, not scored) != (not scored):
            raise InputError(
                config.source,
                slot.line,
                f"slot {slot.name} is scored in one class and unscored in another; iescore needs one "
                "setting per slot name",
            )
    options: dict[str, Any] = {
        "compare": "content",
        "unscored": sorted(name for name, off in unscored.items() if off),
        "case_sensitive": False,
        "thresholds": config.thresholds(),
        "slot_weights": config.slot_weights(),
        "noncommittal_alternatives": True,
    }
    if task in TEMPLATE_TASKS and TEMPLATE_TASKS[task]:
        options["implicit"] = TEMPLATE_TASKS[task]
    return options


def normalize_strings(
    template_set: TemplateSet,
    premodifiers: Sequence[str],
    postmodifiers: Sequence[str],
    designators: Sequence[str],
) -> TemplateSet:
    """String fills with leading premodifiers and trailing postmodifiers or corporate designators
    removed from the compared content (``"the Evergreen Co."`` -> ``"Evergreen"``).

    Words are compared case-insensitively and removed one at a time from each end while they match,
    never removing a fill's last word. Minimal strings are normalized the same way.
    """
    leading = {w.lower() for w in premodifiers}
    trailing = {w.lower() for w in (*postmodifiers, *designators)}
    if not leading and not trailing:
        return template_set

    def strip(text: str) -> str:
        words = text.split()
        while len(words) > 1 and words[0].lower() in leading:
            words.pop(0)
        while len(words) > 1 and (
            words[-1].lower() in trailing or words[-1].lower().rstrip(",.") in trailing
        ):
            words.pop()
        return " ".join(words)

    def change(_: Instance, fill: TextFill) -> TextFill:
        return dataclasses.replace(
            fill,
            content=strip(fill.content or ""),
            minimal_contents=tuple(strip(m) for m in fill.minimal_contents or ()),
        )

    return template_set.map_text_fills(change)


def element_regions(entities: NamedEntities) -> dict[Pointer, tuple[int, int]]:
    """Each named entity object's region: the extent of the innermost other SGML element around it
    (a sentence, paragraph, headline), or its whole document.

    Seed 001: objects are aligned only when they "come from SGML elements in the same position of the
    original text file" -- a name tagged in the first paragraph of the key and the tenth of the
    response is not aligned. Its own report summary pairs ``"John Dingell"`` with ``"Washington"``,
    texts that cannot overlap, so the position is the enclosing element, not the tag's own extent.
    """
    documents = {document.doc_id: document for document in entities.corpus.documents}
    regions = {}
    for pointer, (start, end) in entities.positions.items():
        document = documents[pointer.doc_id]
        enclosing = [
            (section.start, section.end)
            for section in document.sections
            if section.start <= start and end <= section.end
        ]
        regions[pointer] = max(enclosing, key=lambda span: (span[0], -span[1])) if enclosing else (
            0, len(document.text))  # fmt: skip
    return regions


def template_class(config: MucConfig, *template_sets: TemplateSet) -> str:
    """A scenario's top-level class (text filtering): the last in alignment order, the class that
    points to the others and that nothing points to."""
    order = config.pointer_order(*template_sets)
    if not order:
        raise InputError(config.source, 0, ":class_defs expected")
    return order[-1].key_name
