"""Words of a text with their character spans, alternatives and optional words, as a word graph.

Both sides of an alignment are read into *items*: a :class:`Word` (text, ``[start, end)`` span,
optional flag) or a :class:`Choice` between alternative item sequences, written ``{ A / B C / @ }``
(sclite reference alternations and GLM ``{a / b}`` replacements; ``@`` is the empty alternative).
:func:`word_graph` turns items into the :class:`~pipeline.speech.dp.WordGraph` the aligner takes, with one
node per word of every alternative.

Which words are optional depends on the input: in an sclite reference a word in parentheses
``(UH)`` is optionally deletable; in speech transcripts fillers (``uh``, ``um``, ``%HESITATION``)
and fragments (``h-``, ``-tion``) are (seed 000, "Comparison of Text Fills for Content (Noisy Data)").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.dp import Vocabulary, WordGraph

# Pause fillers treated as optional words (seed 000 names "uh"; the others are the usual HUB-4 set).
FILLERS = frozenset({"uh", "um", "er", "ah", "eh", "hm", "hmm", "mm", "uh-huh", "%hesitation"})


@dataclass(frozen=True)
class Word:
    text: str
    start: int
    end: int
    optional: bool = False


@dataclass(frozen=True)
class Choice:
    alternatives: tuple[tuple[Word | Choice, ...], ...]
    start: int
    end: int


Item = Word | Choice

_TOKEN = re.compile(r"[{}]|[^\s{}]+")
_BLANK_SEPARATED = re.compile(r"\S+")


def is_filler(word: str) -> bool:
    return word.casefold() in FILLERS


def is_fragment(word: str) -> bool:
    """An incomplete word: ``h-``, ``Buni-`` or ``-tion`` (a hyphen at one end, a letter inside)."""
    return len(word) > 1 and (word.endswith("-") or word.startswith("-")) and any(c.isalnum() for c in word)


def speech_optional(word: str) -> bool:
    """Fillers and fragments are optional in speech transcripts (seed 000, noisy data)."""
    return is_filler(word) or is_fragment(word)


def parse_items(
    text: str,
    offset: int = 0,
    optional: Callable[[str], bool] | None = None,
    parenthesized_optional: bool = False,
    source: str = "<text>",
    line: int = 0,
    choices: bool = True,
) -> list[Item]:
    """Split ``text`` into words and ``{ a / b }`` choices; spans are ``offset`` + index in ``text``.

    ``optional(word)`` says which words are optional; with ``parenthesized_optional`` a word written
    ``(WORD)`` is optional and its parentheses are dropped (sclite's optionally deletable words).
    Without ``choices`` (plain text, not sclite or GLM syntax) braces are ordinary characters and the
    text is split at whitespace only. Unbalanced braces are an InputError at ``source:line``.
    """
    if not choices:
        return [
            Word(
                m.group(), offset + m.start(), offset + m.end(), optional is not None and optional(m.group())
            )
            for m in _BLANK_SEPARATED.finditer(text)
        ]
    stack: list[tuple[int, list[list[Item]]]] = []
    current: list[Item] = []
    for match in _TOKEN.finditer(text):
        token, start, end = match.group(), offset + match.start(), offset + match.end()
        if token == "{":
            stack.append((start, [current]))
            current = []
            stack[-1][1].append(current)
            continue
        if token == "/" and stack:
            current = []
            stack[-1][1].append(current)
            continue
        if token == "}":
            if not stack:
                raise InputError(source, line, f"'}}' without '{{' at column {match.start() + 1}")
            group_start, lists = stack.pop()
            outer, alternatives = lists[0], lists[1:]
            alternatives_tuple = tuple(tuple(a) for a in alternatives)
            outer.append(Choice(alternatives_tuple, group_start, end))
            current = outer
            continue
        if token == "@" and stack:
            continue  # the empty alternative
        is_optional = False
        if parenthesized_optional and len(token) > 2 and token[0] == "(" and token[-1] == ")":
            token, start, end, is_optional = token[1:-1], start + 1, end - 1, True
        elif optional is not None:
            is_optional = optional(token)
        current.append(Word(token, start, end, is_optional))
    if stack:
        raise InputError(source, line, "'{' without a closing '}'")
    return current


def flatten(items: Iterable[Item]) -> list[Word]:
    """The words of ``items`` taking the first alternative of every choice (for display)."""
    words: list[Word] = []
    for item in items:
        if isinstance(item, Word):
            words.append(item)
        elif item.alternatives:
            words.extend(flatten(item.alternatives[0]))
    return words


def word_graph(
    items: Sequence[Item], vocabulary: Vocabulary, key: Callable[[str], str] = str.casefold
) -> tuple[WordGraph, list[Word]]:
    """The aligner's word graph for ``items``, and the word of each node.

    A choice's alternatives become parallel branches; each word in them is a node whose span is the
    span of that word. Words are compared by ``key`` (case-folded by default, as sclite does).
    """
    if all(isinstance(item, Word) for item in items):
        words = list(items)  # type: ignore[arg-type]
        ids = vocabulary.ids([key(w.text) for w in words])
        optional = [w.optional for w in words]
        return WordGraph(ids, optional if any(optional) else None), words
    words = []
    preds: list[tuple[int, ...]] = []
    groups: list[tuple[int, int]] = []

    def build(sequence: Sequence[Item], before: frozenset[int], top: bool) -> frozenset[int]:
        for item in sequence:
            if isinstance(item, Word):
                preds.append(tuple(sorted(before)))
                words.append(item)
                before = frozenset({len(words) - 1})
                continue
            first = len(words)
            after: set[int] = set()
            for alternative in item.alternatives:
                after |= build(alternative, before, False)
            if not item.alternatives:
                after |= before
            if top and len(words) > first or top and before & after:
                groups.append((first, len(words)))
            before = frozenset(after)
        return before

    finals = build(items, frozenset({-1}), True)
    ids = vocabulary.ids([key(w.text) for w in words])
    optional = [w.optional for w in words]
    return (
        WordGraph(ids, optional if any(optional) else None, preds, frozenset(finals), _merge(groups)),
        words,
    )


def _merge(groups: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Adjacent or empty group ranges become one range of nodes (a single never-matching item)."""
    merged: list[tuple[int, int]] = []
    for start, end in groups:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
