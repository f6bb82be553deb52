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

import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.mat.readers import Document
from iescore.pipeline.mat.task import MAT_TOKEN_LABEL, Alias, MatTask
from iescore.schemas import C

DEFAULT_TOKEN_LABELS = (MAT_TOKEN_LABEL,)
ANNOTATION_COLUMNS = ("file", "side", "kind", "label", "start", "end", "attributes", "index", "source_label")


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


def annotation_frame(documents: Mapping[str, Document], side: str, rules: LabelRules) -> pd.DataFrame:
    """The annotations of one side (``documents``: document key -> document) under ``rules``.

    Columns of ``schemas.MAT_ANNOTATIONS``; ``index`` is the annotation's position among the spans of
    its file as read (before anything is dropped), so rows can be traced to the input.
    """
    docs = [documents[key] for key in sorted(documents)]
    sizes = [len(document.labels) for document in docs]
    source_label = np.array(list(itertools.chain.from_iterable(d.labels for d in docs)), dtype=object)
    attributes = list(itertools.chain.from_iterable(d.attributes for d in docs))
    # Which labels are tokens depends on the document (a CoNLL file names its own), so the kind of a
    # row is looked up by (token set of its document, label): a small table over distinct values.
    token_sets = [rules.token | (d.token_labels if not rules.from_task else frozenset()) for d in docs]
    set_codes, distinct_sets = pd.factorize(pd.Series(token_sets, dtype=object))
    label_codes, distinct_labels = pd.factorize(pd.Series(source_label, dtype=object))
    kinds = np.array(
        [[_kind(label, rules, tokens) or "" for label in distinct_labels] for tokens in distinct_sets],
        dtype=object,
    ).reshape(len(distinct_sets), len(distinct_labels))
    kind = kinds[np.repeat(set_codes, sizes), label_codes] if len(source_label) else source_label
    label = source_label.copy()
    aliased = {alias.label for alias in rules.aliases}
    for row in np.flatnonzero((kind == "content") & np.isin(source_label, list(aliased))):
        label[row] = _alias(source_label[row], attributes[row], rules.aliases)
    attribute_text = np.full(len(attributes), "{}", dtype=object)
    for row in np.flatnonzero(np.fromiter(map(bool, attributes), dtype=bool, count=len(attributes))):
        attribute_text[row] = json.dumps(attributes[row], sort_keys=True, ensure_ascii=False, default=str)
    kept = np.flatnonzero(kind != "")
    # Built as Arrow columns, then one conversion: pandas makes its string columns from Arrow's buffers,
    # not from half a million Python strings each.
    files = pa.array(sorted(documents), type=pa.string())
    file_index = np.repeat(np.arange(len(docs), dtype=np.int64), sizes)[kept]
    empty = np.zeros(0, np.int64)
    table = pa.table(
        {
            C.file: files.take(pa.array(file_index)),
            C.side: pa.array([side], type=pa.string()).take(pa.array(np.zeros(len(kept), np.int64))),
            C.kind: pa.array(kind[kept], type=pa.string()),
            C.label: pa.array(label[kept], type=pa.string()),
            C.start: (np.concatenate([d.starts for d in docs]) if docs else empty)[kept].astype(np.int64),
            C.end: (np.concatenate([d.ends for d in docs]) if docs else empty)[kept].astype(np.int64),
            C.attributes: pa.array(attribute_text[kept], type=pa.string()),
            C.index: (np.concatenate([np.arange(n, dtype=np.int64) for n in sizes]) if docs else empty)[kept],
            C.source_label: pa.array(source_label[kept], type=pa.string()),
        }
    )
    frame = table.select(list(ANNOTATION_COLUMNS)).to_pandas()
    return apply_classes(frame, rules)


def apply_classes(frame: pd.DataFrame, rules: LabelRules) -> pd.DataFrame:
    """Equivalence classes and ignored labels on a frame of annotations (content rows only)."""
    member_class = {member: name for name, members in rules.classes for member in members}
    content = (frame[C.kind] == "content").to_numpy()
    before = frame[C.label]
    after = before.map(member_class).fillna(before) if member_class else before
    dropped = content & (before.isin(rules.ignore) | after.isin(rules.ignore)).to_numpy()
    frame = frame.assign(label=np.where(content, after, before))
    return frame[~dropped].reset_index(drop=True)


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
