"""The domain objects: text corpora and template sets (seed 000, "Scoring Input Formats").

A *template set* is a sequence of *instances*; the instances that share a document id form an
*instance set*. An instance has *slots*; a slot holds one or more *fill-alternatives* (only one in a
hypothesis); an alternative is a tuple of *single fills*, each a pointer, text or set fill.

Offsets are half-open character offsets ``[start, end)`` counted from the ``<`` of the document tag.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

OPTIONAL_STATUS_SLOT = "OBJ_STATUS"
OPTIONAL_STATUS_VALUE = "OPTIONAL"

_BRACKETED = re.compile(r"\[([^\[\]]*)\]")


@dataclass(frozen=True, order=True)
class Extent:
    """A half-open span ``[start, end)`` of a document (characters, or alignment columns later)."""

    start: int
    end: int


@dataclass(frozen=True, order=True)
class Pointer:
    """``<TYPE-DOCID-ONEUP>``: names one instance of one instance set."""

    type: str
    doc_id: str
    one_up: str

    def render(self) -> str:
        return f"<{self.type}-{self.doc_id}-{self.one_up}>"


@dataclass(frozen=True)
class PointerFill:
    """A single fill that refers to another instance."""

    target: Pointer
    line: int = 0

    kind = "pointer"


@dataclass(frozen=True)
class SetFill:
    """A single fill from a closed set of values (a bare word such as ``COMPANY``)."""

    value: str
    quoted: bool = False
    line: int = 0

    kind = "set"


@dataclass(frozen=True)
class TextFill:
    """A single fill copied from the text: a content string and its extents.

    ``raw`` is the content part as written (quotes removed, minimal strings still in ``[brackets]``).
    ``content`` is the maximal content string and ``minimal_contents`` the bracketed ones; both are
    derived from ``raw`` unless given (normalization stages give them). ``extents[0]`` locates the
    maximal string, ``extents[1:]`` the minimal strings in order.
    """

    raw: str
    extents: tuple[Extent, ...] = ()
    quoted: bool = True
    line: int = 0
    content: str | None = None
    minimal_contents: tuple[str, ...] | None = None

    kind = "text"

    def __post_init__(self) -> None:
        if "[" not in self.raw:  # no minimal string: the content is the raw string (most fills)
            if self.content is None:
                object.__setattr__(self, "content", self.raw)
            if self.minimal_contents is None:
                object.__setattr__(self, "minimal_contents", ())
            return
        if self.content is None:
            object.__setattr__(self, "content", _BRACKETED.sub(r"\1", self.raw))
        if self.minimal_contents is None:
            object.__setattr__(self, "minimal_contents", tuple(_BRACKETED.findall(self.raw)))

    @property
    def maximal_extent(self) -> Extent | None:
        return self.extents[0] if self.extents else None

    @property
    def minimal_extents(self) -> tuple[Extent, ...]:
        """The minimal extents; a fill without them is its own minimal extent (MUC convention)."""
        if len(self.extents) > 1:
            return self.extents[1:]
        return self.extents[:1]

    @property
    def minimal_strings(self) -> tuple[str, ...]:
        """The minimal content strings; a fill without brackets is its own minimal string."""
        assert self.content is not None
        return self.minimal_contents or (self.content,)


Fill = PointerFill | SetFill | TextFill
Alternative = tuple[Fill, ...]


@dataclass(frozen=True)
class Slot:
    """A named slot: its fill-alternatives; ``optional`` when marked with ``?`` in the reference."""

    name: str
    alternatives: tuple[Alternative, ...]
    line: int = 0
    optional: bool = False


@dataclass(frozen=True)
class Instance:
    """One instance: a pointer header and its slots, in file order."""

    pointer: Pointer
    slots: tuple[Slot, ...]
    line: int = 0

    @property
    def optional(self) -> bool:
        """Marked optional by ``OBJ_STATUS: OPTIONAL`` (seed 000, "Instance Set")."""
        for slot in self.slots:
            if slot.name.upper() == OPTIONAL_STATUS_SLOT:
                for alternative in slot.alternatives:
                    for fill in alternative:
                        value = fill.value if isinstance(fill, SetFill) else getattr(fill, "content", "")
                        if value.strip().upper() == OPTIONAL_STATUS_VALUE:
                            return True
        return False

    def slot(self, name: str) -> Slot | None:
        for slot in self.slots:
            if slot.name == name:
                return slot
        return None


@dataclass(frozen=True)
class TemplateSet:
    """A whole template file: instances in file order; ``source`` names the file for messages."""

    instances: tuple[Instance, ...]
    source: str = ""

    def instance_sets(self) -> dict[str, tuple[Instance, ...]]:
        """Instances grouped by document id, in order of first appearance."""
        groups: dict[str, list[Instance]] = {}
        for instance in self.instances:
            groups.setdefault(instance.pointer.doc_id, []).append(instance)
        return {doc_id: tuple(items) for doc_id, items in groups.items()}

    def map_text_fills(self, change: Callable[[Instance, TextFill], TextFill]) -> TemplateSet:
        """The same template set with every text fill replaced by ``change(instance, fill)``."""

        def fill_of(instance: Instance, fill: Fill) -> Fill:
            return change(instance, fill) if isinstance(fill, TextFill) else fill

        instances = tuple(
            replace(
                instance,
                slots=tuple(
                    replace(
                        slot,
                        alternatives=tuple(
                            tuple(fill_of(instance, fill) for fill in alternative)
                            for alternative in slot.alternatives
                        ),
                    )
                    for slot in instance.slots
                ),
            )
            for instance in self.instances
        )
        return replace(self, instances=instances)
