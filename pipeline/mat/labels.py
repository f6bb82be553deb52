"""Which annotations are scored, and under which label (issue 12, point 7; seed 002 "Core options").

A :class:`LabelRules` says which labels are **content** (scored) and which are **tokens** (the units of
``test toks`` and of the by-token table), the task's **aliases** (a label plus attribute values
reported under another name: ENAMEX with type=PERSON as PERSON), the **equivalence classes**
(``--equivalence_class CLASS a,b``: members reported under the class) and the **ignored** labels
(``--ignore a,b``). They apply in that order: alias, then class, then ignore, where an annotation is
dropped when its label before the class (a member) or after it (the class) is ignored; so ignoring a
member drops that member only and ignoring the class drops all its members.

Content and token labels, in order of precedence: a task (``--task``, a :class:`~pipeline.mat.task.MatTask`
read by :mod:`pipeline.mat.task` from a MAT task.xml, a TOML task file or a built-in task's name), then
``--content_annotations`` / ``--token_annotations``, then the defaults: tokens are ``lex`` (MAT's token
annotation) plus what the file format itself says are tokens (CoNLL), content is every other label.
With a task, a label the task lists neither as content nor as token is not scored (MATScore: "use the
tags specified in the named task").

The first alias (in the task's order) whose label and every attribute value match wins; an annotation
no alias matches keeps its label.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
from iescore.pipeline.core.arrays import strings, to_arrow, to_numpy
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.mat.readers import DocumentColumns
from iescore.pipeline.mat.task import MAT_TOKEN_LABEL, Alias, MatTask
from iescore.schemas import MAT_ANNOTATIONS

DEFAULT_TOKEN_LABELS = (MAT_TOKEN_LABEL,)


@dataclass(frozen=True)
class LabelRules:
    """What is scored and under which label (see the module doc). ``content`` None: every label that is
    not a token label."""

    content: frozenset[str] | None = None
    token: frozenset[str] = frozenset(DEFAULT_TOKEN_LABELS)
    aliases: tuple[Alias, ...] = ()
    classes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    ignore: frozenset[str] = frozenset()
    from_task: bool = False

    def known_labels(self) -> frozenset[str]:
        """The labels an XML overlay must treat as tags (content, tokens, alias sources)."""
        return frozenset(self.content or ()) | self.token | {a.label for a in self.aliases}

    def signature(self) -> dict[str, object]:
        """The rules as signature options (everything that changes a number)."""
        return {
            "content": sorted(self.content) if self.content is not None else "all",
            "token": sorted(self.token),
            "aliases": [
                f"{a.label}[{','.join(f'{k}={v}' for k, v in a.attributes)}]={a.name}" for a in self.aliases
            ]
            or "none",
            "classes": [f"{c}={'+'.join(m)}" for c, m in self.classes] or "none",
            "ignore": sorted(self.ignore) or "none",
        }


def label_rules(
    content_annotations: str | None = None,
    token_annotations: str | None = None,
    equivalence_classes: Sequence[Sequence[str]] = (),
    ignore: str | None = None,
    task: MatTask | None = None,
) -> LabelRules:
    """Rules from the command line's options (``equivalence_classes``: pairs ``(CLASS, "a,b")``).

    A label in two classes, or a class with no members, is an :class:`InputError` naming the option; a
    task that declares no content annotation is one naming the task's file and line.
    """
    classes: list[tuple[str, tuple[str, ...]]] = []
    seen: dict[str, str] = {}
    for name, members_text in equivalence_classes:
        members = tuple(m for m in members_text.split(",") if m)
        if not name or not members:
            raise InputError(
                "--equivalence_class",
                0,
                f"expected a class label and members a,b,...; found {name!r} {members_text!r}",
            )
        for member in members:
            if member in seen and seen[member] != name:
                raise InputError(
                    "--equivalence_class",
                    0,
                    f"label {member!r} is in two classes ({seen[member]!r}, {name!r})",
                )
            seen[member] = name
        classes.append((name, members))
    ignored = frozenset(x for x in (ignore or "").split(",") if x)
    if task is not None:
        if not task.content:
            raise InputError(
                task.source,
                task.line,
                f"task {task.name!r} declares no content annotation (expected a content <tag>, "
                "<annotation> of a content <annotation_set_descriptor>, or <span>)",
            )
        return LabelRules(task.content, task.token, task.aliases, tuple(classes), ignored, from_task=True)
    content = frozenset(x for x in content_annotations.split(",") if x) if content_annotations else None
    token = (
        frozenset(x for x in token_annotations.split(",") if x)
        if token_annotations
        else frozenset(DEFAULT_TOKEN_LABELS)
    )
    return LabelRules(content, token, (), tuple(classes), ignored)


def annotation_table(documents: DocumentColumns, side: str, rules: LabelRules) -> pa.Table:
    """The annotations of one side (``documents``: its documents as columns) under ``rules``.

    A ``schemas.MAT_ANNOTATIONS`` table; ``index`` is the annotation's position among the spans of its
    file as read (before anything is dropped), so rows can be traced to the input. The rules are worked
    out once per distinct label (and token set), then applied to every row through its label's code.
    """
    sizes = documents.sizes
    n = int(sizes.sum())
    labels = documents.labels
    encoded = labels if pa.types.is_dictionary(labels.type) else labels.dictionary_encode()
    label_code = to_numpy(encoded.indices).astype(np.int64)
    source_names = encoded.dictionary.to_pylist()
    # Which labels are tokens depends on the document (a CoNLL file names its own), so the kind of a
    # row is looked up by (token set of its document, label): a small table over distinct values.
    token_sets = [
        rules.token | (tokens if not rules.from_task else frozenset())
        for tokens in documents.token_labels or (frozenset(),) * len(sizes)
    ]
    distinct_sets = list(dict.fromkeys(token_sets))
    set_code = np.array([distinct_sets.index(tokens) for tokens in token_sets], dtype=np.int64)
    kinds = np.array(
        [[_KIND_CODES[_kind(label, rules, tokens)] for label in source_names] for tokens in distinct_sets],
        dtype=np.int64,
    ).reshape(len(distinct_sets), len(source_names))
    kind = kinds[np.repeat(set_code, sizes), label_code] if n else np.zeros(0, np.int64)
    content = kind == _KIND_CODES["content"]
    # Labels after aliases: names beyond the source labels are appended as they are met.
    names = list(source_names)
    label = label_code.copy()
    aliased = {alias.label for alias in rules.aliases}
    alias_rows = np.flatnonzero(
        content & np.isin(label_code, [k for k, x in enumerate(names) if x in aliased])
    )
    if len(alias_rows) and documents.attributes is None:  # no attributes: one answer per label
        code_of = {name: k for k, name in enumerate(names)}
        alias_code = np.arange(len(names))
        for code in np.unique(label_code[alias_rows]):
            name = _alias(names[code], {}, rules.aliases)
            if name not in code_of:
                code_of[name] = len(names)
                names.append(name)
            alias_code[code] = code_of[name]
        label[alias_rows] = alias_code[label_code[alias_rows]]
    elif len(alias_rows):
        code_of = {name: k for k, name in enumerate(names)}
        for row in alias_rows:
            attributes = documents.attributes[row] if documents.attributes is not None else {}
            name = _alias(names[label_code[row]], attributes, rules.aliases)
            if name not in code_of:
                code_of[name] = len(names)
                names.append(name)
            label[row] = code_of[name]
    # Equivalence classes (content rows only), then --ignore on the label before or after its class.
    member_class = {member: name for name, members in rules.classes for member in members}
    classed = [member_class.get(name, name) for name in names]
    code_of = {name: k for k, name in enumerate(names)}
    for name in classed:
        if name not in code_of:
            code_of[name] = len(names)
            names.append(name)
    class_code = np.array(
        [code_of[name] for name in classed] + list(range(len(classed), len(names))), dtype=np.int64
    )
    ignored = np.array([name in rules.ignore for name in names], dtype=bool)
    dropped = content & (ignored[label] | ignored[class_code[label]])
    label = np.where(content, class_code[label], label)
    kept = np.flatnonzero((kind != _KIND_CODES[None]) & ~dropped)
    attribute_text: pa.Array
    if documents.attributes is None:
        attribute_text = strings(["{}"]).take(to_arrow(np.zeros(len(kept), np.int64)))
    else:
        texts = [
            json.dumps(documents.attributes[row], sort_keys=True, ensure_ascii=False, default=str)
            if documents.attributes[row]
            else "{}"
            for row in kept
        ]
        attribute_text = pa.array(texts, type=pa.string())
    file_index = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    first = np.cumsum(sizes) - sizes
    position = np.arange(n, dtype=np.int64) - np.repeat(first, sizes)
    return pa.Table.from_arrays(
        [
            strings(list(documents.keys)).take(to_arrow(file_index[kept])),
            strings([side]).take(to_arrow(np.zeros(len(kept), np.int64))),
            strings(["", "content", "token"]).take(to_arrow(kind[kept])),
            strings(names).take(to_arrow(label[kept])),
            to_arrow(documents.starts[kept].astype(np.int64)),
            to_arrow(documents.ends[kept].astype(np.int64)),
            attribute_text,
            to_arrow(position[kept]),
            encoded.take(to_arrow(kept)).cast(pa.string()),
        ],
        schema=MAT_ANNOTATIONS,
    )


#: A row's kind as a code: not scored, content, token.
_KIND_CODES = {None: 0, "content": 1, "token": 2}


def _kind(label: str, rules: LabelRules, tokens: Iterable[str]) -> str | None:
    if label in tokens:
        return "token"
    if rules.content is None or label in rules.content:
        return "content"
    return None


def _alias(label: str, attributes: Mapping[str, object], aliases: Sequence[Alias]) -> str:
    for alias in aliases:
        if alias.label == label and all(
            str(attributes.get(k)) == v and k in attributes for k, v in alias.attributes
        ):
            return alias.name
    return label


def rules_from_options(options: Mapping[str, object]) -> LabelRules:
    """Label rules from their plain form (``tasks.mat.stages.rules_options`` writes it)."""
    content = options.get("content")
    return LabelRules(
        frozenset(content) if content is not None else None,
        frozenset(options["token"]),
        tuple(
            Alias(label, tuple(tuple(x) for x in attributes), name)
            for label, attributes, name in options["aliases"]
        ),
        tuple((name, tuple(members)) for name, members in options["classes"]),
        frozenset(options["ignore"]),
        from_task=bool(options["from_task"]),
    )
