"""The MUC scorer's main configuration file (seed 001, "configuration files").

The file is a list of options. Each option starts a line with ``:`` followed immediately by its name
(``:class_defs``), then its values separated by spaces; a value that contains spaces is enclosed in single
or double quotes. Rules the seed leaves open, as chosen here:

* Option names are matched case-insensitively (the seed writes ``:use_IE_report_summary``).
* A line whose first character is whitespace and which is not blank *continues* the values of the option
  above it, so a long ``:slot_defs`` list may be spread over several lines. A quoted value never spans
  lines: its closing quote must come on its own line and be followed by a space or the line's end.
* A blank line, or a line whose first non-blank character is ``#``, is a comment. Any other line that does
  not start with ``:`` is an error naming the file and line: the seed says nothing about such lines and
  silently skipping a mistyped option (``class_defs`` without its colon) would change the score.
* An unknown option, an option given twice, or the wrong number of values is an error naming its line.

The options:

``:class_defs``
    One ``"NAME KEY_NAME scored|unscored THRESHOLD"`` string per class, in the order the classes should be
    aligned. ``NAME`` is the class's name in the configuration (``:slot_defs`` refers to it) and in the
    score report; ``KEY_NAME`` is the object type as the key and response files spell it (the pointer's
    type ``<ENAMEX-...>``, the SGML tag ``<ENAMEX>``), matched case-insensitively. The seed's examples
    have both equal (``"enamex enamex scored 0"``); its ST report abbreviates names (``succession_e``),
    which is what a separate report name is for. ``THRESHOLD`` is the weighted F a pair of objects must
    exceed to be aligned (seed, "Key objects are aligned ...").
``:slot_defs``
    One ``"CLASS SLOT SLOT_NAME scored|unscored WEIGHT string|set|pointer"`` string per slot. ``CLASS`` is
    a class's ``NAME`` (or ``KEY_NAME``); ``SLOT`` is the slot's name in the score report and
    ``SLOT_NAME`` its name in the key and response files (the seed's MUC-6 ST report shows short report
    names such as ``success_org`` and ``vac_reason`` for the files' ``SUCCESSION_ORG`` and
    ``VACANCY_REASON``); ``WEIGHT`` is the slot's mapping weight. Extension: a ``pointer`` slot may name the
    classes it points to after the fill type (``"... 4 pointer person organization"``); otherwise they are
    learnt from the pointer fills of the data (see :meth:`MucConfig.pointer_order`).
``:scoring_task``
    ``named_entity``, ``template_element``, ``template_relation``, ``scenario_template`` or
    ``coreference``; spaces and hyphens count as underscores and the seed's abbreviations NE, TE, TR,
    ST, CO (and ``coref``) are accepted.
``:key_file``, ``:response_file``, ``:text_file`` (or ``:texts_file``)
    Input paths; ``:key_file`` and ``:response_file`` are required.
any other option ending in ``_file``
    An output path (``:score_file``, ``:report_summary_file``, ``:map_history_file``,
    ``:partitions_file``), kept in :attr:`MucConfig.outputs` under the lower-cased option name.
``:premodifiers``, ``:postmodifiers``, ``:corporate_designators``
    Lists of words (none by default).
``:use_IE_report_summary``
    ``yes`` or ``no`` (default ``no``).
``:beta``
    The F-measure's beta, a positive number (default 1).

Relative paths are resolved against the configuration file's directory, so a configuration works from any
working directory. Numbers (thresholds, weights, beta) must be finite and not negative.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from iescore.pipeline.core.corpus import read_input
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.templette import (
    OPTIONAL_STATUS_SLOT,
    OPTIONAL_STATUS_VALUE,
    PointerFill,
    SetFill,
    Slot,
    TemplateSet,
)

FILL_TYPES = ("string", "set", "pointer")

TASKS = ("named_entity", "template_element", "template_relation", "scenario_template", "coreference")

_TASK_ALIASES = {
    "ne": "named_entity",
    "te": "template_element",
    "tr": "template_relation",
    "st": "scenario_template",
    "co": "coreference",
    "coref": "coreference",
}


@dataclass(frozen=True)
class ClassDef:
    """One ``:class_defs`` string: a class of objects, aligned in the order the classes are listed."""

    name: str
    key_name: str
    scored: bool
    threshold: float
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class SlotDef:
    """One ``:slot_defs`` string: a slot of a class (``class_name`` is the class's ``NAME``).

    ``slot`` is the report name, ``name`` the name in the key and response files. ``targets`` are the
    class names a pointer slot was declared to point to (the extension described in the module docstring).
    """

    class_name: str
    slot: str
    name: str
    scored: bool
    weight: float
    fill_type: str
    targets: tuple[str, ...] = ()
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class MucConfig:
    """A parsed configuration file; paths are already resolved against the file's directory."""

    classes: tuple[ClassDef, ...]
    slots: tuple[SlotDef, ...]
    task: str | None
    key_file: Path
    response_file: Path
    text_file: Path | None
    premodifiers: tuple[str, ...] = ()
    postmodifiers: tuple[str, ...] = ()
    corporate_designators: tuple[str, ...] = ()
    use_ie_report_summary: bool = False
    outputs: dict[str, Path] = field(default_factory=dict)
    beta: float = 1.0
    source: str = ""
    # Each option's line in the file (lower-cased name, texts_file as text_file), for errors about paths.
    option_lines: dict[str, int] = field(default_factory=dict, compare=False)

    # --- look-ups (names compared case-insensitively) ---------------------------------------------------

    def class_def(self, class_name: str) -> ClassDef | None:
        """The class whose ``NAME`` is ``class_name``, else the one whose ``KEY_NAME`` is."""
        key = class_name.lower()
        for attribute in ("name", "key_name"):
            for class_def in self.classes:
                if getattr(class_def, attribute).lower() == key:
                    return class_def
        return None

    def class_for_type(self, instance_type: str) -> ClassDef | None:
        """The class of objects of type ``instance_type`` as the key and response files spell it."""
        key = instance_type.lower()
        for class_def in self.classes:
            if class_def.key_name.lower() == key:
                return class_def
        return None

    def slot_def(self, class_name: str, slot: str) -> SlotDef | None:
        """The slot ``slot`` (file name, else report name) of class ``class_name`` (see :meth:`class_def`)."""
        class_def = self.class_def(class_name)
        if class_def is None:
            return None
        key = slot.lower()
        own = [s for s in self.slots if s.class_name.lower() == class_def.name.lower()]
        for slot_def in own:
            if slot_def.name.lower() == key:
                return slot_def
        for slot_def in own:
            if slot_def.slot.lower() == key:
                return slot_def
        return None

    def weights(self, class_name: str) -> dict[str, float]:
        """Mapping weight by slot, keyed by the slot's file name upper-cased (``{"TEXT": 4.0, ...}``)."""
        class_def = self._known(class_name)
        return {
            slot.name.upper(): slot.weight
            for slot in self.slots
            if slot.class_name.lower() == class_def.name.lower()
        }

    def threshold(self, class_name: str) -> float:
        """The weighted F a pair of objects of this class must exceed to be aligned."""
        return self._known(class_name).threshold

    def slot_weights(self) -> dict[str, dict[str, float]]:
        """:meth:`weights` of every class, keyed by the class's ``KEY_NAME`` upper-cased."""
        return {c.key_name.upper(): self.weights(c.name) for c in self.classes}

    def thresholds(self) -> dict[str, float]:
        """:meth:`threshold` of every class, keyed by the class's ``KEY_NAME`` upper-cased."""
        return {c.key_name.upper(): c.threshold for c in self.classes}

    # --- checks against the data --------------------------------------------------------------------------

    def check_template_set(self, template_set: TemplateSet, source: str | None = None) -> None:
        """Raise :class:`InputError` at the first instance or slot the configuration does not define.

        Checked, in file order: the instance's type is a class's ``KEY_NAME``; every slot is one of that
        class's slot defs (``OBJ_STATUS``, the optional-object marker of seed 001's key example, is
        structure and always allowed); a ``pointer`` slot holds only pointer fills and other slots none;
        every pointer names the type of a defined class. ``source`` names the file (default: the template
        set's own source).
        """
        file = source if source is not None else template_set.source
        for instance in template_set.instances:
            class_def = self.class_for_type(instance.pointer.type)
            if class_def is None:
                raise InputError(
                    file,
                    instance.line,
                    f"object type {instance.pointer.type} is not defined in :class_defs of {self.source} "
                    f"(defined: {', '.join(c.key_name for c in self.classes)})",
                )
            for slot in instance.slots:
                if slot.name.upper() == OPTIONAL_STATUS_SLOT:
                    self._check_status(file, slot, instance.line)
                    continue
                line = slot.line or instance.line
                slot_def = self.slot_def(class_def.name, slot.name)
                if slot_def is None or slot_def.name.lower() != slot.name.lower():
                    raise InputError(
                        file,
                        line,
                        f"slot '{slot.name}:' of {instance.pointer.type} is not defined in :slot_defs of "
                        f"{self.source} for class {class_def.name}",
                    )
                for alternative in slot.alternatives:
                    for fill in alternative:
                        self._check_fill(file, fill, slot_def, slot.name, fill.line or line)

    @staticmethod
    def _check_status(file: str, slot: Slot, line: int) -> None:
        """``OBJ_STATUS`` holds ``OPTIONAL`` (the one value seed 001 gives it); any other value would
        leave the object required without a word."""
        fills = [fill for alternative in slot.alternatives for fill in alternative]
        if (
            len(fills) != 1
            or not isinstance(fills[0], SetFill)
            or fills[0].value.upper() != OPTIONAL_STATUS_VALUE
        ):
            found = " / ".join(
                fill.pointer.render()
                if isinstance(fill, PointerFill)
                else getattr(fill, "value", None) or fill.content
                for fill in fills
            )
            raise InputError(
                file, slot.line or line, f"'{slot.name}: {OPTIONAL_STATUS_VALUE}' expected, found {found!r}"
            )

    def pointer_order(self, *template_sets: TemplateSet) -> tuple[ClassDef, ...]:
        """The classes in alignment order: every class after the classes it points to.

        Seed 001: "the aligning should always start with objects that contain no pointer fills, and
        proceed to objects whose only pointer fills reference objects without pointer fills, etc."; "any
        other order would confuse the scorer". Class C points to class D when a ``pointer`` slot of C is
        declared to point to D (extension) or holds, in any of ``template_sets``, a pointer fill of D's
        type. Among the classes whose targets are all placed, the one listed first in ``:class_defs`` comes
        next, so a ``:class_defs`` order that already respects the pointers is kept as it is, and one that
        does not is changed as little as that rule allows (:meth:`order_warnings` says what moved). A
        directed cycle is an :class:`InputError` naming the classes on it, at the first pointer that closes
        it.
        """
        order, _ = self._order(template_sets)
        return order

    def order_warnings(self, *template_sets: TemplateSet) -> tuple[str, ...]:
        """One message per class that ``:class_defs`` lists before classes it points to (directly or not).

        :meth:`pointer_order` aligns such a class after them; an empty tuple means the ``:class_defs``
        order is used as it is.
        """
        _, targets = self._order(template_sets)  # raises on a cycle, as pointer_order does
        listed = [c.name for c in self.classes]
        messages = []
        for name in listed:
            reachable = _reachable(name, targets)
            after = [other for other in listed[listed.index(name) + 1 :] if other in reachable]
            if not after:
                continue
            messages.append(
                f"{self.source}: :class_defs lists {name} before {', '.join(after)}, which it points to "
                f"(directly or not); aligning {name} after {'it' if len(after) == 1 else 'them'}"
            )
        return tuple(messages)

    def _order(
        self, template_sets: Iterable[TemplateSet]
    ) -> tuple[tuple[ClassDef, ...], dict[str, set[str]]]:
        """The alignment order and, per class name, the names of the classes it points to."""
        edges = self._pointer_edges(template_sets)
        targets: dict[str, set[str]] = {c.name: set() for c in self.classes}
        for source_class, target_class in edges:
            targets[source_class].add(target_class)
        placed: list[str] = []
        done: set[str] = set()
        waiting = [c.name for c in self.classes]
        while waiting:
            # The earliest-listed class whose targets are all placed: Kahn's algorithm with the
            # :class_defs order as the tie-break, so the result never depends on anything else.
            ready = next((name for name in waiting if targets[name] <= done), None)
            if ready is None:
                raise self._cycle_error(waiting, targets, edges)
            waiting.remove(ready)
            placed.append(ready)
            done.add(ready)
        by_name = {c.name: c for c in self.classes}
        return tuple(by_name[name] for name in placed), targets

    # --- helpers ------------------------------------------------------------------------------------------

    def _known(self, class_name: str) -> ClassDef:
        class_def = self.class_def(class_name)
        if class_def is None:
            raise KeyError(f"class {class_name!r} is not defined in :class_defs of {self.source}")
        return class_def

    def _check_fill(self, file: str, fill: object, slot_def: SlotDef, slot_name: str, line: int) -> None:
        if isinstance(fill, PointerFill):
            if slot_def.fill_type != "pointer":
                raise InputError(
                    file,
                    line,
                    f"pointer {fill.target.render()} in slot '{slot_name}:', which {self.source} defines "
                    f"as a {slot_def.fill_type} slot: expected a {slot_def.fill_type} fill",
                )
            if self.class_for_type(fill.target.type) is None:
                raise InputError(
                    file,
                    line,
                    f"pointer {fill.target.render()} names type {fill.target.type}, which is not defined in "
                    f":class_defs of {self.source}",
                )
        elif slot_def.fill_type == "pointer":
            raise InputError(
                file,
                line,
                f"slot '{slot_name}:' is a pointer slot in {self.source}: expected pointer fills such as "
                "<TYPE-DOCID-N>",
            )

    def _pointer_edges(self, template_sets: Iterable[TemplateSet]) -> dict[tuple[str, str], tuple[str, int]]:
        """``(pointing class, pointed-to class) -> (file, line)`` where the edge was first seen."""
        edges: dict[tuple[str, str], tuple[str, int]] = {}
        for slot_def in self.slots:
            if slot_def.fill_type == "pointer":
                owner = self._known(slot_def.class_name).name
                for target in slot_def.targets:
                    edges.setdefault((owner, self._known(target).name), (self.source, slot_def.line))
        for template_set in template_sets:
            for instance in template_set.instances:
                owner_def = self.class_for_type(instance.pointer.type)
                for slot in instance.slots:
                    for alternative in slot.alternatives:
                        for fill in alternative:
                            if not isinstance(fill, PointerFill):
                                continue
                            target_def = self.class_for_type(fill.target.type)
                            if owner_def is None or target_def is None:
                                # check_template_set reports these; an order needs defined classes.
                                missing = instance.pointer.type if owner_def is None else fill.target.type
                                raise InputError(
                                    template_set.source,
                                    fill.line or slot.line or instance.line,
                                    f"object type {missing} is not defined in :class_defs of {self.source}",
                                )
                            where = (template_set.source, fill.line or slot.line or instance.line)
                            edges.setdefault((owner_def.name, target_def.name), where)
        return edges

    def _cycle_error(
        self,
        waiting: list[str],
        targets: dict[str, set[str]],
        edges: dict[tuple[str, str], tuple[str, int]],
    ) -> InputError:
        """Walk from the first waiting class along pointers to waiting classes until one repeats."""
        remaining = set(waiting)
        path = [waiting[0]]
        seen = {waiting[0]: 0}
        while True:
            # Every waiting class points to at least one other waiting class, so the walk never stops;
            # the earliest-listed target keeps the message deterministic.
            step = next(name for name in waiting if name in targets[path[-1]] and name in remaining)
            if step in seen:
                cycle = path[seen[step] :] + [step]
                break
            seen[step] = len(path)
            path.append(step)
        file, line = edges[(cycle[-2], cycle[-1])]
        return InputError(
            file,
            line,
            f"pointer cycle between classes: {' -> '.join(cycle)} (each points to the next); the classes "
            "cannot be aligned pointed-to first, as seed 001 requires",
        )


def read_config(path: str | Path, encoding: str = "utf-8") -> MucConfig:
    """Read and parse a configuration file; relative paths in it count from its directory.

    Whether the files it names can be read (or written) is checked by the command that uses them,
    before any work, at the line of each option (``tasks.cli.muc.check_config_paths``).
    """
    return parse_config(read_input(path, encoding, "configuration file"), str(path))


def parse_config(text: str, source: str = "<string>", base_dir: str | Path | None = None) -> MucConfig:
    """Parse the text of a configuration file named ``source``.

    Relative paths are resolved against ``base_dir``, by default the directory of ``source``.
    """
    base = Path(base_dir) if base_dir is not None else Path(source).parent
    return _Builder(source, base).build(_options(text.removeprefix("\ufeff"), source))


# --- tokenizer -----------------------------------------------------------------------------------------


class _Value(NamedTuple):
    text: str
    line: int


class _Option(NamedTuple):
    name: str  # lower-cased
    spelled: str
    line: int
    values: list[_Value]


_OPTION_NAME = re.compile(r":([A-Za-z][A-Za-z0-9_]*)(?=\s|$)")
_SPACES = re.compile(r"\s+")


def _options(text: str, source: str) -> Iterator[_Option]:
    """The options of the file in order, each with its values (continuation lines included)."""
    current: _Option | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if line.startswith(":"):
            match = _OPTION_NAME.match(line)
            if match is None:
                raise InputError(
                    source,
                    number,
                    f"expected an option name right after ':' (such as :class_defs), found {line!r}",
                )
            if current is not None:
                yield current
            current = _Option(match.group(1).lower(), match.group(1), number, [])
            current.values.extend(_values(line, match.end(), number, source))
        elif line[0].isspace():
            if current is None:
                raise InputError(
                    source, number, "continuation line before any option: expected ':NAME values'"
                )
            current.values.extend(_values(line, 0, number, source))
        else:
            raise InputError(
                source,
                number,
                f"expected an option (':' then its name, as in ':class_defs'), a continuation line starting "
                f"with a space, or a comment starting with '#'; found {stripped[:40]!r}",
            )
    if current is not None:
        yield current


def _values(line: str, pos: int, number: int, source: str) -> Iterator[_Value]:
    """Split ``line[pos:]`` into values: bare words, or strings in matching single or double quotes."""
    while True:
        space = _SPACES.match(line, pos)
        if space is not None:
            pos = space.end()
        if pos >= len(line):
            return
        quote = line[pos]
        if quote in "\"'":
            close = line.find(quote, pos + 1)
            if close < 0:
                raise InputError(
                    source, number, f"unclosed {quote} in {line[pos:][:40]!r}: expected a closing {quote}"
                )
            end = close + 1
            if end < len(line) and not line[end].isspace():
                raise InputError(
                    source,
                    number,
                    f"expected a space after the closing {quote} of {line[pos:end]!r}, found {line[end]!r}",
                )
            yield _Value(line[pos + 1 : close], number)
        else:
            space = _SPACES.search(line, pos)
            end = space.start() if space is not None else len(line)
            yield _Value(line[pos:end], number)
        pos = end


# --- building the configuration ------------------------------------------------------------------------

_LIST_OPTIONS = ("premodifiers", "postmodifiers", "corporate_designators")


class _Builder:
    def __init__(self, source: str, base: Path) -> None:
        self.source = source
        self.base = base
        self.seen: dict[str, int] = {}
        self.classes: list[ClassDef] = []
        self.slot_values: list[_Value] = []
        self.task: str | None = None
        self.inputs: dict[str, Path] = {}
        self.outputs: dict[str, Path] = {}
        self.lists: dict[str, tuple[str, ...]] = {}
        self.report_summary = False
        self.beta = 1.0

    def build(self, options: Iterable[_Option]) -> MucConfig:
        for option in options:
            self._option(option)
        for name in ("class_defs", "key_file", "response_file"):
            if name not in self.seen:
                raise InputError(self.source, 0, f"missing required option :{name}")
        # Slot defs are read after all options so that :slot_defs may come before :class_defs.
        slots = self._slot_defs()
        return MucConfig(
            classes=tuple(self.classes),
            slots=slots,
            task=self.task,
            key_file=self.inputs["key_file"],
            response_file=self.inputs["response_file"],
            text_file=self.inputs.get("text_file"),
            premodifiers=self.lists.get("premodifiers", ()),
            postmodifiers=self.lists.get("postmodifiers", ()),
            corporate_designators=self.lists.get("corporate_designators", ()),
            use_ie_report_summary=self.report_summary,
            outputs=dict(self.outputs),
            beta=self.beta,
            source=self.source,
            option_lines=dict(self.seen),
        )

    def _option(self, option: _Option) -> None:
        name = "text_file" if option.name == "texts_file" else option.name
        if name in self.seen:
            raise InputError(
                self.source,
                option.line,
                f"option :{option.spelled} given twice (first at line {self.seen[name]})",
            )
        self.seen[name] = option.line
        values = option.values
        if name == "class_defs":
            if not values:
                raise self._error(option.line, ":class_defs needs at least one class def string")
            self.classes = self._class_defs(values)
        elif name == "slot_defs":
            self.slot_values = values
        elif name in _LIST_OPTIONS:
            self.lists[name] = tuple(value.text for value in values)
        elif name == "scoring_task":
            self.task = self._task(self._single(option))
        elif name == "use_ie_report_summary":
            value = self._single(option)
            answer = value.text.lower()
            if answer not in ("yes", "no"):
                raise self._error(value.line, f":{option.spelled} expects yes or no, found {value.text!r}")
            self.report_summary = answer == "yes"
        elif name == "beta":
            value = self._single(option)
            self.beta = self._number(value, "beta", value.text)
            if self.beta == 0:
                raise self._error(value.line, "beta must be positive, found 0")
            if not math.isfinite(self.beta * self.beta):
                raise self._error(
                    value.line,
                    f"beta {value.text} is too large: F weighs by its square, which must be finite",
                )
        elif name.endswith("_file"):
            value = self._single(option)
            path = Path(value.text)
            resolved = path if path.is_absolute() else self.base / path
            if name in ("key_file", "response_file", "text_file"):
                self.inputs[name] = resolved
            else:
                self.outputs[name] = resolved
        else:
            raise self._error(
                option.line,
                f"unknown option :{option.spelled}; expected one of :class_defs :slot_defs :scoring_task "
                ":key_file :response_file :text_file :premodifiers :postmodifiers :corporate_designators "
                ":use_IE_report_summary :beta or an output file option ending in _file",
            )

    def _single(self, option: _Option) -> _Value:
        if len(option.values) != 1:
            raise self._error(
                option.line, f":{option.spelled} takes exactly one value, found {len(option.values)}"
            )
        return option.values[0]

    def _task(self, value: _Value) -> str:
        key = re.sub(r"[\s-]+", "_", value.text.strip().lower())
        task = _TASK_ALIASES.get(key, key)
        if task not in TASKS:
            raise self._error(
                value.line,
                f"unknown scoring task {value.text!r}: expected one of {', '.join(TASKS)} "
                "(or NE TE TR ST CO)",
            )
        return task

    def _class_defs(self, values: list[_Value]) -> list[ClassDef]:
        classes: list[ClassDef] = []
        for value in values:
            fields = value.text.split()
            if len(fields) != 4:
                raise self._error(
                    value.line,
                    f"class def {value.text!r} has {len(fields)} fields: expected 4, "
                    '"NAME KEY_NAME scored|unscored THRESHOLD"',
                )
            name, key_name, scored, threshold = fields
            for other in classes:
                if other.name.lower() == name.lower() or other.key_name.lower() == key_name.lower():
                    raise self._error(
                        value.line, f"class def {value.text!r} repeats class {other.name} (line {other.line})"
                    )
            classes.append(
                ClassDef(
                    name,
                    key_name,
                    self._scored(value, scored),
                    self._number(value, "threshold", threshold),
                    value.line,
                )
            )
        return classes

    def _slot_defs(self) -> tuple[SlotDef, ...]:
        known = {c.name.lower(): c.name for c in self.classes}
        known.update({c.key_name.lower(): c.name for c in self.classes if c.key_name.lower() not in known})
        slots: list[SlotDef] = []
        for value in self.slot_values:
            fields = value.text.split()
            if len(fields) < 6 or (len(fields) > 6 and fields[5].lower() != "pointer"):
                raise self._error(
                    value.line,
                    f"slot def {value.text!r} has {len(fields)} fields: expected 6, "
                    '"CLASS SLOT SLOT_NAME scored|unscored WEIGHT string|set|pointer"',
                )
            class_name, slot, name, scored, weight, fill_type = fields[:6]
            owner = known.get(class_name.lower())
            if owner is None:
                raise self._error(
                    value.line,
                    f"slot def {value.text!r}: class {class_name} is not defined in :class_defs "
                    f"(defined: {', '.join(c.name for c in self.classes)})",
                )
            if fill_type.lower() not in FILL_TYPES:
                raise self._error(
                    value.line,
                    f"slot def {value.text!r}: fill type {fill_type!r} is not string, set or pointer",
                )
            targets = []
            for target in fields[6:]:
                if target.lower() not in known:
                    raise self._error(
                        value.line,
                        f"slot def {value.text!r}: pointer target {target} is not defined in :class_defs",
                    )
                targets.append(known[target.lower()])
            for other in slots:
                if other.class_name == owner and (
                    other.slot.lower() == slot.lower() or other.name.lower() == name.lower()
                ):
                    raise self._error(
                        value.line,
                        f"slot def {value.text!r} repeats slot {other.slot} of class {owner} "
                        f"(line {other.line})",
                    )
            slots.append(
                SlotDef(
                    owner,
                    slot,
                    name,
                    self._scored(value, scored),
                    self._number(value, "weight", weight),
                    fill_type.lower(),
                    tuple(targets),
                    value.line,
                )
            )
        return tuple(slots)

    def _scored(self, value: _Value, word: str) -> bool:
        if word.lower() not in ("scored", "unscored"):
            raise self._error(value.line, f"in {value.text!r}: expected scored or unscored, found {word!r}")
        return word.lower() == "scored"

    def _number(self, value: _Value, what: str, word: str) -> float:
        try:
            number = float(word)
        except ValueError:
            number = math.nan
        if not math.isfinite(number) or number < 0:
            raise self._error(
                value.line, f"in {value.text!r}: the {what} must be a number, 0 or more; found {word!r}"
            )
        return number

    def _error(self, line: int, message: str) -> InputError:
        return InputError(self.source, line, message)


def _reachable(name: str, targets: dict[str, set[str]]) -> set[str]:
    """The classes ``name`` points to, directly or through other classes."""
    found: set[str] = set()
    todo = list(targets[name])
    while todo:
        current = todo.pop()
        if current not in found:
            found.add(current)
            todo.extend(targets[current])
    return found
