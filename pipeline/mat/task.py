"""MAT tasks: which labels are content and token annotations, and their aliases (seed 002, ``--task``).

MATScore's ``--task`` names a task: one that a MAT ``task.xml`` declares (MAT loads the ``task.xml`` of
every installed task directory and picks the task by its ``name``), such as the sample task
``Named Entity``. A :class:`MatTask` is what iescore keeps of one: its name, its content labels, its
token labels and its aliases (a label with attribute values reported under another name). It comes
from one of three places, all read here:

- a MAT ``task.xml`` (:func:`read_task_xml`): a ``<task>`` or a ``<tasks>`` holding several. Each task's
  annotations are read from whichever of MAT's three declarations it uses:

  - MAT 1.3's ``<tags>``: ``<tag name= category="content|token|zone">``; an ``<attr_set name=>`` of a
    content tag, with its ``<attr name= value=>`` pairs, is an alias (the seed's "ENAMEX with
    type=PERSON, alias PERSON"); ``inherit_structure="yes"`` brings MAT's token annotation ``lex``;
  - MAT 2's ``<annotation_set_descriptors>``: each ``<annotation_set_descriptor category= name=>``
    (``category`` content or token; any other category, zone or admin, is not scored) declares
    ``<annotation label=>`` (``span="no"``: spanless, nothing to score) and ``<attribute of_annotation=
    name=>`` whose ``<choice effective_label=X>VALUE</choice>`` is an alias; ``inherit`` naming
    ``category:token`` brings ``lex``;
  - MAT 3's ``<annotations>``: ``<span label=>`` (category ``of_category``, else its enclosing
    ``<annotation_set category=>``'s, else content; ``<spanless>`` is not scored) with ``<string
    name=>`` attributes whose ``<choice effective_label=>`` is an alias; ``inherit`` as above.

  Every other element of a task (workflows, engines, display, similarity profiles) says nothing about
  what is scored and is not read.
- a TOML task file (:func:`read_task_toml`), iescore's own short form::

      content = ["ENAMEX", "NUMEX"]        # content labels
      token = ["lex"]                      # token labels (default ["lex"])

      [[alias]]                            # ENAMEX with type = "PERSON" is scored as PERSON
      label = "ENAMEX"
      attributes = { type = "PERSON" }
      name = "PERSON"

- a name (:func:`find_task`): a task of the ``task.xml`` files given (``--task_xml``), else one of
  :data:`BUILT_IN_TASKS`, the MAT distributions' sample tasks whose definitions are public.

Errors are :class:`InputError` naming the file and line and what was expected there.
"""

from __future__ import annotations

import re
import tomllib
import xml.parsers.expat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from iescore.pipeline.core.errors import InputError

#: MAT's token annotation (its root task's ``category:token`` set), also the TOML form's default.
MAT_TOKEN_LABEL = "lex"


@dataclass(frozen=True)
class Alias:
    """A label with attribute values, reported under ``name``."""

    label: str
    attributes: tuple[tuple[str, str], ...]
    name: str


@dataclass(frozen=True)
class MatTask:
    """One task: its name, content and token labels, aliases in declaration order, where it was read
    (a file and the line its ``<task>`` starts on, or what a built-in definition comes from) and
    whether MAT lists it (``visible='no'``: a parent task that is seldom scored itself)."""

    name: str
    content: frozenset[str]
    token: frozenset[str]
    aliases: tuple[Alias, ...] = ()
    source: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)
    visible: bool = field(default=True, compare=False)


#: The MAT sample task whose definition is public and carried here, by name. "Named Entity" is the same
#: in MAT 1.3 (``sample/ne/task.xml``: ``<tags inherit_structure="yes">`` with content tags PERSON,
#: LOCATION, ORGANIZATION; mist-deid.sourceforge.net/docs_1_3/html/sample_task.html) and MAT 2 and 3
#: (``<annotation_set_descriptors inherit='category:zone,category:token'>`` with the same three content
#: annotations; mist-deid.sourceforge.net/docs_2_0_4/html/sample_task.html,
#: mat-annotation.sourceforge.net/current_docs/html/sample_task.html).
BUILT_IN_TASKS = {
    "Named Entity": MatTask(
        "Named Entity",
        frozenset({"PERSON", "LOCATION", "ORGANIZATION"}),
        frozenset({MAT_TOKEN_LABEL}),
        (),
        "MAT's sample task (MAT_PKG_HOME/sample/ne/task.xml, as MAT's sample_task.html documents it)",
    ),
}

#: The other sample tasks of the MAT distributions, which iescore does not carry: their annotation
#: structure (spanless annotations, annotation-valued attributes, several content sets) is only partly
#: shown in MAT's documentation, so their users pass the distribution's ``task.xml``.
SAMPLE_TASKS_NOT_BUILT_IN = {
    "Enhanced Named Entity": "sample/ne/task.xml",
    "Sample Relations": "sample/ne/task.xml",
    "Sample Sentiment": "sample/classification/task.xml",
}


def read_task_file(path: str | Path, name: str | None = None) -> MatTask:
    """The task of a task file: a MAT ``task.xml`` (the task called ``name``, or its only task; a
    directory stands for the ``task.xml`` in it, as a MAT task directory holds one) or a TOML task file
    (``name`` must then be None). A file whose first non-blank character is ``<`` is read as XML."""
    path = _task_xml_path(Path(path))
    data = _read_bytes(path)
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return select_task(read_task_xml(path, data), name, path)
    if name is not None:
        raise InputError(str(path), 0, f"a TOML task file holds one task; it cannot pick the task {name!r}")
    return read_task_toml(path, _utf8(path, data))


def find_task(name: str, task_xml_files: Sequence[str | Path] = ()) -> MatTask:
    """The task called ``name`` among the tasks of ``task_xml_files`` (MAT's installed task
    directories), else among :data:`BUILT_IN_TASKS`. An unknown name is an :class:`InputError` naming
    ``--task`` and saying how to pass a task.xml."""
    known: dict[str, MatTask] = {}
    for given in task_xml_files:
        path = _task_xml_path(Path(given))
        for task in read_task_xml(path, _read_bytes(path)):
            known.setdefault(task.name, task)
    if name in known:
        return known[name]
    if name in BUILT_IN_TASKS:
        return BUILT_IN_TASKS[name]
    how = f"give its task.xml: --task {name!r} --task_xml PATH/task.xml (or --task PATH/task.xml)"
    if name in SAMPLE_TASKS_NOT_BUILT_IN:
        raise InputError(
            "--task",
            0,
            f"{name!r} is a MAT sample task whose definition iescore does not carry; {how}, "
            f"the task.xml being $MAT_PKG_HOME/{SAMPLE_TASKS_NOT_BUILT_IN[name]} of your MAT distribution",
        )
    listed = ", ".join(repr(n) for n in [*known, *(n for n in BUILT_IN_TASKS if n not in known)])
    raise InputError("--task", 0, f"unknown task {name!r} (known: {listed}); {how}, or a TOML task file")


def resolve_task(value: str, task_xml_files: Sequence[str | Path] = ()) -> MatTask:
    """``--task VALUE`` as MATScore's users give it: a task file or task directory when ``value``
    names an existing path, else a task name (:func:`find_task`)."""
    if Path(value).exists():
        if task_xml_files:
            raise InputError(
                "--task_xml",
                0,
                f"--task_xml gives the tasks a --task NAME picks from; --task {value} is already a file",
            )
        return read_task_file(value)
    return find_task(value, task_xml_files)


def looks_like_a_path(value: str) -> bool:
    """Whether ``--task VALUE`` is meant as a file (it has a directory part or a task file's suffix)
    rather than a task name: a missing file is then reported as such, not as an unknown task."""
    return "/" in value or "\\" in value or Path(value).suffix.lower() in (".xml", ".toml")


def select_task(tasks: Sequence[MatTask], name: str | None, path: Path) -> MatTask:
    """The task called ``name`` among ``tasks`` (read from ``path``), or the only one MAT lists (tasks
    marked ``visible='no'`` are passed over when one other remains)."""
    if name is not None:
        for task in tasks:
            if task.name == name:
                return task
        names = ", ".join(repr(t.name) for t in tasks)
        raise InputError(str(path), 0, f"declares no task named {name!r}; its tasks: {names}")
    listed = [task for task in tasks if task.visible] or list(tasks)
    if len(listed) != 1:
        names = ", ".join(repr(t.name) for t in tasks)
        raise InputError(
            str(path),
            0,
            f"declares several tasks ({names}); pick one by name: --task NAME --task_xml {path}",
        )
    return listed[0]


# --- task.xml -----------------------------------------------------------------------------------------


@dataclass
class _Element:
    """An XML element with the line it starts on."""

    tag: str
    attrs: dict[str, str]
    line: int
    children: list[_Element] = field(default_factory=list)
    text: str = ""

    def find_all(self, tag: str) -> list[_Element]:
        return [child for child in self.children if child.tag == tag]


def read_task_xml(path: Path, data: bytes | None = None) -> list[MatTask]:
    """Every task a MAT ``task.xml`` declares, in file order (see the module doc). Tasks that declare
    no content annotation are kept (a parent task may declare none); :func:`select_task` and
    :func:`find_task` hand them out all the same, and the label rules refuse an empty one."""
    root = _parse_xml(path, data if data is not None else _read_bytes(path))
    if root.tag == "task":
        elements = [root]
    elif root.tag == "tasks":
        elements = []
        for child in root.children:
            if child.tag != "task":
                raise InputError(
                    str(path), child.line, f"expected <task> inside <tasks>, found <{child.tag}>"
                )
            elements.append(child)
        if not elements:
            raise InputError(str(path), root.line, "<tasks> holds no <task>")
    else:
        raise InputError(
            str(path),
            root.line,
            f"expected <task> or <tasks> as the root of a MAT task.xml, found <{root.tag}>",
        )
    tasks: list[MatTask] = []
    lines: dict[str, int] = {}
    for element in elements:
        name = element.attrs.get("name", "").strip()
        if not name:
            raise InputError(str(path), element.line, "<task> needs a name (<task name='...'>)")
        if name in lines:
            raise InputError(
                str(path), element.line, f"a second task named {name!r} (the first is at line {lines[name]})"
            )
        lines[name] = element.line
        tasks.append(_task_of(path, element, name))
    return tasks


def _task_of(path: Path, element: _Element, name: str) -> MatTask:
    content: list[str] = []
    token: list[str] = []
    aliases: list[tuple[Alias, int]] = []
    for tags in element.find_all("tags"):
        _read_tags(path, tags, content, token, aliases)
    for descriptors in element.find_all("annotation_set_descriptors"):
        _read_descriptors(path, descriptors, content, token, aliases)
    for declarations in element.find_all("annotations"):
        _read_annotations(path, declarations, "content", content, token, aliases)
    declared = set(content)
    for alias, line in aliases:
        if alias.label not in declared:
            raise InputError(
                str(path),
                line,
                f"the alias {alias.name!r} is for {alias.label!r}, which task {name!r} does not declare "
                "as a content annotation",
            )
    return MatTask(
        name,
        frozenset(content),
        frozenset(token),
        tuple(alias for alias, _ in aliases),
        str(path),
        element.line,
        element.attrs.get("visible") != "no",
    )


def _read_tags(path: Path, tags: _Element, content: list, token: list, aliases: list) -> None:
    # MAT 1.3: <tags inherit_structure="yes"><tag name= category=><attr_set name=><attr name= value=/>
    if tags.attrs.get("inherit_structure") == "yes":
        token.append(MAT_TOKEN_LABEL)
    for tag in tags.find_all("tag"):
        label = _required(path, tag, "name")
        category = _required(path, tag, "category")
        if category not in ("content", "token", "zone"):
            raise InputError(
                str(path),
                tag.line,
                f"<tag name={label!r}>: category {category!r}; expected content, token or zone",
            )
        if category == "token":
            token.append(label)
        elif category == "content":
            content.append(label)
        for attr_set in tag.find_all("attr_set"):
            alias_name = _required(path, attr_set, "name")
            pairs = [
                (_required(path, attr, "name"), _required(path, attr, "value", empty=True))
                for attr in attr_set.find_all("attr")
            ]
            if not pairs:
                raise InputError(
                    str(path),
                    attr_set.line,
                    f"<attr_set name={alias_name!r}> needs <attr name= value=> pairs",
                )
            if category == "content":
                aliases.append((Alias(label, tuple(sorted(pairs)), alias_name), attr_set.line))


def _read_descriptors(path: Path, descriptors: _Element, content: list, token: list, aliases: list) -> None:
    # MAT 2: <annotation_set_descriptors inherit=><annotation_set_descriptor category= name=>
    if "category:token" in _words(descriptors.attrs.get("inherit", "")):
        token.append(MAT_TOKEN_LABEL)
    for descriptor in descriptors.children:
        if descriptor.tag != "annotation_set_descriptor":
            raise InputError(
                str(path),
                descriptor.line,
                "expected <annotation_set_descriptor> inside <annotation_set_descriptors>, "
                f"found <{descriptor.tag}>",
            )
        set_name = _required(path, descriptor, "name")
        category = descriptor.attrs.get("category", set_name)
        for annotation in descriptor.find_all("annotation"):
            label = _required(path, annotation, "label")
            if annotation.attrs.get("span", "yes") == "no":
                continue
            if category == "token":
                token.append(label)
            elif category == "content":
                content.append(label)
        if category != "content":
            continue
        for attribute in descriptor.find_all("attribute"):
            owners = _words(_required(path, attribute, "of_annotation"))
            attribute_name = _required(path, attribute, "name")
            for choice in attribute.find_all("choice"):
                effective = choice.attrs.get("effective_label")
                if effective is None:
                    continue
                value = _choice_value(path, choice, effective)
                aliases += [
                    (Alias(owner, ((attribute_name, value),), effective), choice.line) for owner in owners
                ]


def _read_annotations(
    path: Path, annotations: _Element, category: str, content: list, token: list, aliases: list
) -> None:
    # MAT 3: <annotations inherit=><annotation_set category=><span label= of_category=><string name=><choice>
    if "category:token" in _words(annotations.attrs.get("inherit", "")):
        token.append(MAT_TOKEN_LABEL)
    for child in annotations.children:
        if child.tag in ("annotation_set", "display_group"):
            _read_annotations(path, child, child.attrs.get("category", category), content, token, aliases)
        elif child.tag == "span":
            label = _required(path, child, "label")
            span_category = child.attrs.get("of_category", category)
            if span_category == "token":
                token.append(label)
            elif span_category == "content":
                content.append(label)
                for attribute in child.find_all("string"):
                    attribute_name = _required(path, attribute, "name")
                    for choice in attribute.find_all("choice"):
                        effective = choice.attrs.get("effective_label")
                        if effective is not None:
                            value = _choice_value(path, choice, effective)
                            aliases.append((Alias(label, ((attribute_name, value),), effective), choice.line))


def _choice_value(path: Path, choice: _Element, effective: str) -> str:
    value = choice.text.strip()
    if not effective.strip() or not value:
        raise InputError(
            str(path),
            choice.line,
            "expected <choice effective_label='LABEL'>VALUE</choice> with a label and a value",
        )
    return value


def _required(path: Path, element: _Element, attribute: str, empty: bool = False) -> str:
    value = element.attrs.get(attribute)
    if value is None or (not empty and not value.strip()):
        raise InputError(str(path), element.line, f"<{element.tag}> needs a {attribute}= attribute")
    return value if empty else value.strip()


def _words(text: str) -> list[str]:
    return [word.strip() for word in text.split(",") if word.strip()]


def _parse_xml(path: Path, data: bytes) -> _Element:
    """The document as :class:`_Element` objects with their lines (the bytes decoded as the XML
    declaration says, UTF-8 by default); malformed XML is an InputError."""
    parser = xml.parsers.expat.ParserCreate()
    stack: list[_Element] = []
    roots: list[_Element] = []

    def start(tag: str, attrs: dict[str, str]) -> None:
        element = _Element(tag, dict(attrs), parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(element)
        stack.append(element)

    def end(tag: str) -> None:
        stack.pop()

    def characters(text: str) -> None:
        if stack:
            stack[-1].text += text

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as error:
        raise InputError(
            str(path),
            error.lineno,
            f"not well-formed XML at column {error.offset + 1}: {xml.parsers.expat.ErrorString(error.code)}",
        ) from None
    return roots[0]


# --- TOML ---------------------------------------------------------------------------------------------


def read_task_toml(path: Path, text: str | None = None) -> MatTask:
    """A TOML task file (see the module doc); the task's name is the file's stem."""
    text = text if text is not None else _utf8(path, _read_bytes(path))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(str(path), _toml_error_line(str(error), text), f"malformed TOML: {error}") from None
    unknown = sorted(set(data) - {"content", "token", "alias"})
    if unknown:
        raise InputError(
            str(path),
            _key_line(text, unknown[0]),
            f"unknown key {unknown[0]!r}; expected content, token and [[alias]] tables",
        )
    content = data.get("content")
    if not _labels(content):
        raise InputError(
            str(path),
            _key_line(text, "content"),
            "expected 'content' to be a non-empty list of labels (the content annotations)",
        )
    token = data.get("token", [MAT_TOKEN_LABEL])
    if not _labels(token, empty=True):
        raise InputError(
            str(path),
            _key_line(text, "token"),
            "expected 'token' to be a list of labels (the token annotations)",
        )
    entries = data.get("alias", [])
    if not isinstance(entries, list):
        raise InputError(str(path), _key_line(text, "alias"), "expected [[alias]] tables")
    aliases = []
    for k, entry in enumerate(entries):
        line = _table_line(text, "alias", k)
        where = f"alias {k + 1}"
        if not isinstance(entry, dict) or set(entry) - {"label", "attributes", "name"}:
            raise InputError(str(path), line, f"{where}: expected the keys label, attributes and name")
        label, name, attributes = entry.get("label"), entry.get("name"), entry.get("attributes", {})
        if not isinstance(label, str) or not isinstance(name, str) or not label or not name:
            raise InputError(str(path), line, f"{where}: expected 'label' and 'name' to be labels")
        if not isinstance(attributes, dict) or not all(
            isinstance(v, str | int | bool) for v in attributes.values()
        ):
            raise InputError(
                str(path), line, f"{where}: expected 'attributes' to map attribute names to values"
            )
        if label not in content:
            raise InputError(str(path), line, f"{where}: label {label!r} is not among the content labels")
        aliases.append(Alias(label, tuple(sorted((str(a), str(v)) for a, v in attributes.items())), name))
    return MatTask(path.stem, frozenset(content), frozenset(token), tuple(aliases), str(path))


def _labels(value: object, empty: bool = False) -> bool:
    return (
        isinstance(value, list)
        and (empty or bool(value))
        and all(isinstance(x, str) and x.strip() for x in value)
    )


def _key_line(text: str, key: str) -> int:
    """The line where the top-level ``key`` is set (0 when not found)."""
    pattern = re.compile(rf"^\s*(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')\s*=")
    table = re.compile(rf"^\s*\[\[?\s*{re.escape(key)}\s*\]\]?")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line) or table.match(line):
            return number
    return 0


def _table_line(text: str, key: str, index: int) -> int:
    """The line of the ``index``-th ``[[key]]`` header (0 when not found: an inline array)."""
    header = re.compile(rf"^\s*\[\[\s*{re.escape(key)}\s*\]\]")
    found = [number for number, line in enumerate(text.splitlines(), start=1) if header.match(line)]
    return found[index] if index < len(found) else _key_line(text, key)


def _toml_error_line(message: str, text: str) -> int:
    # tomllib says where in its message: "(at line 2, column 5)" or "(at end of document)".
    match = re.search(r"line (\d+)", message)
    if match:
        return int(match.group(1))
    return max(len(text.splitlines()), 1) if "end of document" in message else 0


def _task_xml_path(path: Path) -> Path:
    return path / "task.xml" if path.is_dir() else path


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise InputError(str(path), 0, f"cannot read the task file: {error.strerror or error}") from None


def _utf8(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(str(path), line, f"expected UTF-8; byte {error.start} is not") from None
