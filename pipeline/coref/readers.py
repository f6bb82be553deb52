"""Coreference files read line by line: CoNLL columns and MUC SGML, into :class:`CorefDocument` objects.

Two input formats are read into the same model, a :class:`CorefDocument` per document holding its
:class:`Mention` objects, each with the dense number of its chain (equivalence class):

- MUC SGML (seed 001): ``<COREF ID="2" REF="1" TYPE="IDENT" MIN="..." STATUS="OPT">text</COREF>`` tags
  in texts delimited by ``<DOC>``/``</DOC>`` with the id in ``<DOCNO>``. The transitive closure of the
  ``REF`` links forms the chains. A mention's extent is its half-open character span in the document
  with the COREF tags removed, counted from the ``<`` of ``<DOC>`` (DESIGN.md's convention).
- CoNLL columns (the CoNLL-2011/2012 reference scorer's format): ``#begin document (NAME); part N`` ...
  ``#end document``, one token a line, the last column holding ``(7``, ``7)``, ``(7)``, ``-`` or several
  of them (``(1(3|2)``). A mention's extent is half-open in token units (first token, last token + 1),
  tokens counted from 0 within the document part; the document id is the whole name after
  ``#begin document`` (``(NAME); part N``), as the reference scorer keys documents. Since mentions
  are token positions, a response must hold the key's documents, sentences and tokens
  (:func:`check_same_tokens`); a missing token line is an error where it went missing.

A response is read with every mention it writes, repeated extents included: which repeats are removed
depends on the key (:mod:`pipeline.coref.pairing`, the CoNLL reference scorer's rule). A duplicate
extent in the key is an :class:`InputError` (the key would be ambiguous).

These readers are the specification of both formats and of their errors (file, line, what was
expected); well-formed CoNLL is also read as columns (:mod:`pipeline.coref.columns`), with the same
result.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from iescore.pipeline.core.corpus import read_input
from iescore.pipeline.core.errors import InputError

FORMATS = ("conll", "sgml")


@dataclass(frozen=True)
class Mention:
    """One mention: a half-open extent (characters for SGML, tokens for CoNLL) in one chain."""

    start: int
    end: int
    chain: int  # dense chain number within the document and side, in order of first appearance
    ident: str  # SGML ID; CoNLL: the mention's number in the document
    ref: str | None  # SGML REF as written; CoNLL: the previous mention of the chain (None for the first)
    text: str
    line: int  # line of the source file where the mention starts
    min_text: str | None = None
    optional: bool = False
    min_span: tuple[int, int] | None = None  # the MIN string's extent inside the mention (SGML)


@dataclass(frozen=True)
class CorefDocument:
    """The mentions of one document, in document order (start, then longest first)."""

    doc_id: str
    mentions: tuple[Mention, ...]
    line: int  # line of the document's start in its file
    chains: int  # number of chains (equivalence classes), singletons included
    duplicates: int = 0  # response mentions removed because their extent occurred before
    title: str = ""  # CoNLL: the name as the '#begin document' line writes it (the reference's key)
    differing_words: int = 0  # CoNLL response: tokens whose word differs from the key's (same positions)
    first_differing_word: str = ""  # the first of them, ``file:line: token 'w' expected (...), found 'v'``


@dataclass(frozen=True)
class ConllTokens:
    """The tokens of one CoNLL document: each token's word and line, and where sentences start."""

    name: str
    line: int  # the '#begin document' line
    end_line: int  # the '#end document' line
    words: tuple[str, ...]
    lines: tuple[int, ...]
    breaks: tuple[int, ...]  # indices of the tokens that start a sentence, the first token excepted


def read_pair(
    key_path: str | Path, response_path: str | Path, fmt: str = "conll", encoding: str = "utf-8"
) -> tuple[dict[str, CorefDocument], dict[str, CorefDocument]]:
    """Read a key and a response file of the same format and check that they hold the same text.

    SGML: the response with its COREF tags removed must equal the key with its tags removed. CoNLL:
    each response document must have its key document's sentences and tokens (see
    :func:`check_same_tokens`; documents one file lacks are paired by
    :func:`~pipeline.coref.pairing.pair_documents`). A key without any mention is bad input (nothing to
    score against).
    """
    if fmt == "conll":
        key, key_tokens, error = _read_conll(key_path, encoding, response=False)
        if error is not None:
            raise error
        _check_key_not_empty(str(key_path), key)
        response, response_tokens, error = _read_conll(response_path, encoding, response=True)
        # A token line missing or added breaks brackets too; saying where the tokens part comes first.
        notes = check_same_tokens(str(key_path), key_tokens, str(response_path), response_tokens)
        if error is not None:
            raise error
        for doc_id, (count, first) in notes.items():
            response[doc_id] = replace(response[doc_id], differing_words=count, first_differing_word=first)
        return key, response
    if fmt != "sgml":
        raise InputError(str(key_path), 0, f"unknown coreference format {fmt!r} (conll or sgml)")
    key_file = _parse_sgml(str(key_path), read_text(key_path, encoding), response=False)
    _check_key_not_empty(str(key_path), key_file.documents)
    response_file = _parse_sgml(str(response_path), read_text(response_path, encoding), response=True)
    _check_same_text(key_file, response_file)
    return key_file.documents, response_file.documents


def read_conll(path: str | Path, encoding: str = "utf-8", response: bool = False) -> dict[str, CorefDocument]:
    """Read a CoNLL coreference file (documents in file order; see the module doc for the rules)."""
    documents, _, error = _read_conll(path, encoding, response)
    if error is not None:
        raise error
    return documents


def check_same_tokens(
    key_source: str,
    key: dict[str, ConllTokens],
    response_source: str,
    response: dict[str, ConllTokens],
) -> dict[str, tuple[int, str]]:
    """Check that each document of a CoNLL response has its key document's sentences and tokens; return
    word notes.

    CoNLL mentions are token positions, so a response with one token line missing or added would
    shift every later mention and score them all wrong without a word. Within each document both
    files have (documents one file lacks are :func:`~pipeline.coref.pairing.pair_documents`' business)
    the sentences (runs of token lines between blank lines) must have the key's lengths. At the first
    place they do not, the :class:`InputError` names the response line and what the key has there:
    the first token whose word differs from the key's, else the first sentence break that differs,
    else where one document ends before the other.

    When the sentences agree, words that differ are not an error: the CoNLL reference scorer ignores
    the word column, and its own test cases (TC-A-3 to TC-A-13) write their responses' spurious
    mentions on words renamed ``x``, ``y``, ``z``. They are returned per document as (number of
    differing words, the first one described), which the score report prints as a note.
    """
    notes: dict[str, tuple[int, str]] = {}
    for doc_id, expected in key.items():
        found = response.get(doc_id)
        if found is None:
            continue
        count, first = _compare_tokens(key_source, expected, response_source, found)
        if count:
            notes[doc_id] = (count, first)
    return notes


def _read_conll(
    path: str | Path, encoding: str, response: bool
) -> tuple[dict[str, CorefDocument], dict[str, ConllTokens], InputError | None]:
    """The documents of a CoNLL file, per document its tokens and sentences, and a deferred error.

    Errors of the document structure are raised at once. The first error of a coreference column
    (brackets) is returned instead, after every token has been read, so that a caller comparing
    tokens can first say where a line went missing.
    """
    source = str(path)
    text = read_text(path, encoding)
    documents: dict[str, CorefDocument] = {}
    tokens: dict[str, ConllTokens] = {}
    current: _ConllDocument | None = None
    deferred: InputError | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        begin = _BEGIN.match(line)
        if begin:
            if current is not None:
                raise InputError(source, number, f"#begin document inside document {current.name!r}")
            current = _ConllDocument(begin.group(1), number, _title(line))
            if current.name in documents:
                raise InputError(source, number, f"document {current.name!r} occurs twice")
            continue
        if _END.match(line):
            if current is None:
                raise InputError(source, number, "#end document without #begin document")
            tokens[current.name] = current.token_lines(number)
            if deferred is None:
                try:
                    documents[current.name] = current.finish(source, response)
                except InputError as error:
                    deferred = error
            current = None
            continue
        fields = line.split()
        if not fields:
            if current is not None:
                current.sentence_break()  # blank lines separate sentences
            continue
        if line.startswith("#"):
            continue  # other comment lines are not tokens
        if current is None:
            raise InputError(source, number, "token line outside a document (#begin document expected)")
        if deferred is None:
            try:
                current.token(fields, source, number)
            except InputError as error:
                deferred = error
        else:
            current.token_only(fields, number)
    if current is not None:
        raise InputError(source, current.line, f"document {current.name!r} has no #end document")
    return documents, tokens, deferred


def _check_key_not_empty(source: str, documents: dict[str, CorefDocument]) -> None:
    """A key without documents or without any mention is bad input, not an undefined score."""
    if not documents:
        raise InputError(source, 0, "no document: a coreference key with at least one document expected")
    if not any(document.mentions for document in documents.values()):
        raise InputError(
            source, 0, "no mention in any document: a coreference key marks the mentions to score"
        )


def read_muc_sgml(
    path: str | Path, encoding: str = "utf-8", response: bool = False
) -> dict[str, CorefDocument]:
    """Read a MUC coreference file (SGML with COREF tags); see the module doc for the rules."""
    return _parse_sgml(str(path), read_text(path, encoding), response).documents


_BEGIN = re.compile(r"^#\s*begin document\s*(.*?)\s*$")


_PERL_BEGIN = re.compile(r"^#\s*begin document (.*)$")
_END = re.compile(r"^#\s*end document")


_CLUSTER_FIELD = re.compile(r"(?:\(\d+\)|\(\d+|\d+\)|\|)+")


_CLUSTER_PART = re.compile(r"\((\d+)\)|\((\d+)|(\d+)\)")


class _ConllDocument:
    """Mentions of one CoNLL document as its lines are read (the reference scorer's bracket rules)."""

    def __init__(self, name: str, line: int, title: str) -> None:
        self.name = name
        self.title = title
        self.line = line
        self.tokens = 0
        self.words: list[str] = []
        self.lines: list[int] = []
        self.breaks: list[int] = []
        self.in_sentence = False
        self.chain_of_label: dict[str, int] = {}  # in order of first appearance, as the reference's GetIndex
        self.open: dict[str, list[tuple[int, int]]] = {}  # label -> stack of (first token, line)
        self.mentions: list[list[tuple[int, int, int]]] = []  # per chain: (start, end, line)

    def token(self, fields: list[str], source: str, number: int) -> None:
        value = fields[-1]
        t = self.token_only(fields, number)
        if value in ("-", "_"):
            return
        if not _CLUSTER_FIELD.fullmatch(value):
            raise InputError(source, number, f"coreference column {value!r}: expected (N, N), (N) or - items")
        parts = _CLUSTER_PART.findall(value)
        # The reference scorer takes one-token mentions first, then openings, then closings.
        for single, _, _ in parts:
            if single:
                self.mentions[self._chain(single)].append((t, t + 1, number))
        for _, opening, _ in parts:
            if opening:
                self._chain(opening)
                self.open.setdefault(opening, []).append((t, number))
        for _, _, closing in parts:
            if closing:
                stack = self.open.get(closing)
                if not stack:
                    raise InputError(
                        source,
                        number,
                        f"'{closing})' closes a mention of chain {closing} that was not opened",
                    )
                first, line = stack.pop()
                self.mentions[self._chain(closing)].append((first, t + 1, line))

    def token_only(self, fields: list[str], number: int) -> int:
        """Record a token's word, line and sentence, not its mentions; return its index."""
        self.words.append(fields[3] if len(fields) >= 5 else (fields[-2] if len(fields) >= 2 else ""))
        self.lines.append(number)
        t = self.tokens
        if not self.in_sentence and t:
            self.breaks.append(t)
        self.in_sentence = True
        self.tokens += 1
        return t

    def sentence_break(self) -> None:
        """A blank line: the next token starts a sentence (a run of blank lines is one break)."""
        self.in_sentence = False

    def token_lines(self, end_line: int) -> ConllTokens:
        return ConllTokens(
            self.name, self.line, end_line, tuple(self.words), tuple(self.lines), tuple(self.breaks)
        )

    def _chain(self, label: str) -> int:
        if label not in self.chain_of_label:
            self.chain_of_label[label] = len(self.chain_of_label)
            self.mentions.append([])
        return self.chain_of_label[label]

    def finish(self, source: str, response: bool) -> CorefDocument:
        for label, stack in self.open.items():
            if stack:
                raise InputError(
                    source, stack[-1][1], f"mention of chain {label} opened here is never closed"
                )
        chains = [[(s, e, line, None, False) for s, e, line in chain] for chain in self.mentions]
        kept = _reject_key_repeats(chains, source, response)
        mentions = []
        for chain_number, chain in enumerate(kept):
            previous = None
            for start, end, line, _, _ in sorted(chain):
                ident = f"{start}-{end - 1}"
                text = " ".join(self.words[start:end])
                mentions.append(Mention(start, end, chain_number, ident, previous, text, line))
                previous = ident
        mentions.sort(key=lambda m: (m.start, -m.end, m.chain))
        return CorefDocument(self.name, tuple(mentions), self.line, len(kept), title=self.title)


def _compare_tokens(
    key_source: str, key: ConllTokens, response_source: str, response: ConllTokens
) -> tuple[int, str]:
    """Raise at the first place a response document's tokens or sentences leave the key's.

    Returns the number of tokens whose word alone differs and the first one described, when the
    sentences agree (see :func:`check_same_tokens`).
    """
    if len(key.words) == len(response.words) and key.breaks == response.breaks:
        differing = [i for i, (k, r) in enumerate(zip(key.words, response.words, strict=True)) if k != r]
        if not differing:
            return 0, ""
        i = differing[0]
        first = (
            f"{response_source}:{response.lines[i]}: token {key.words[i]!r} expected "
            f"({key_source}:{key.lines[i]}), found {response.words[i]!r}"
        )
        return len(differing), first
    key_breaks, response_breaks = set(key.breaks), set(response.breaks)
    shorter = min(len(key.words), len(response.words))
    for i in range(shorter):
        found, expected = response.words[i], key.words[i]
        where = f"({key_source}:{key.lines[i]})"
        if found != expected:
            message = f"token {expected!r} expected {where}, found {found!r}"
            message += _sentence_lengths(key, response, i)
        elif i in key_breaks and i not in response_breaks:
            message = f"a sentence break (blank line) expected before token {found!r}, as in the key {where}"
        elif i in response_breaks and i not in key_breaks:
            message = f"no sentence break expected before token {found!r}: the key's sentence goes on {where}"
            message += _sentence_lengths(key, response, i)
        else:
            continue
        raise InputError(response_source, response.lines[i], message)
    if len(response.words) < len(key.words):
        raise InputError(
            response_source,
            response.end_line,
            f"document {key.name!r} ends after {shorter} tokens; the key goes on with token "
            f"{key.words[shorter]!r} ({key_source}:{key.lines[shorter]})",
        )
    raise InputError(
        response_source,
        response.lines[shorter],
        f"token {response.words[shorter]!r} is one too many: the key's document {key.name!r} ends after "
        f"{shorter} tokens ({key_source}:{key.end_line})",
    )


def _sentence_lengths(key: ConllTokens, response: ConllTokens, index: int) -> str:
    """`` (sentence N of document D has K tokens in the key, R here)``: N is the key's sentence of token
    ``index``, R the length of the response's sentence N (0 when it has fewer sentences)."""
    number = bisect.bisect_right(key.breaks, index)
    return (
        f" (sentence {number + 1} of document {key.name!r} has {_sentence_length(key, number)} tokens in "
        f"the key, {_sentence_length(response, number)} here)"
    )


def _sentence_length(tokens: ConllTokens, number: int) -> int:
    """The number of tokens of sentence ``number`` (from 0) of a document, 0 if it has no such sentence."""
    starts = (0, *tokens.breaks)
    if number >= len(starts):
        return 0
    end = starts[number + 1] if number + 1 < len(starts) else len(tokens.words)
    return end - starts[number]


_TAG = re.compile(r"<(/?)([A-Za-z][\w.:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")


_ATTRIBUTE = re.compile(r"([A-Za-z_][\w.:-]*)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'>]+)")


@dataclass
class _SgmlFile:
    source: str
    raw: str
    plain: str  # the file with COREF tags removed
    segments: list[tuple[int, int]]  # (plain offset, raw offset) at the start of each kept text run
    documents: dict[str, CorefDocument]

    def line_of_plain(self, offset: int) -> int:
        index = max(bisect.bisect_right([p for p, _ in self.segments], offset) - 1, 0)
        plain_start, raw_start = self.segments[index] if self.segments else (0, 0)
        return self.raw.count("\n", 0, raw_start + offset - plain_start) + 1


@dataclass
class _OpenCoref:
    attributes: dict[str, str]
    start: int  # plain offset
    line: int


def _parse_sgml(source: str, raw: str, response: bool) -> _SgmlFile:
    closed_names = {m.group(2).upper() for m in _TAG.finditer(raw) if m.group(1)}
    plain: list[str] = []
    segments: list[tuple[int, int]] = []
    position = 0  # length of the plain text so far
    raw_at = 0
    line = 1
    documents: dict[str, CorefDocument] = {}
    doc: dict[str, Any] | None = None
    stack: list[tuple[str, Any]] = []  # open elements: (NAME, line) or ("COREF", _OpenCoref)

    def keep(text: str, raw_start: int) -> None:
        nonlocal position
        if text:
            segments.append((position, raw_start))
            plain.append(text)
            position += len(text)

    for tag in _TAG.finditer(raw):
        keep(raw[raw_at : tag.start()], raw_at)
        line += raw.count("\n", raw_at, tag.start())
        closing, name = tag.group(1) == "/", tag.group(2).upper()
        raw_at = tag.end()
        if name == "COREF":
            if doc is None:
                raise InputError(source, line, "COREF tag outside a <DOC>")
            if not closing:
                attributes = {k.upper(): v.strip("\"'") for k, v in _ATTRIBUTE.findall(tag.group(3))}
                if "ID" not in attributes:
                    raise InputError(source, line, "COREF tag without an ID attribute")
                if attributes.get("STATUS", "OPT").upper() != "OPT":
                    raise InputError(
                        source,
                        line,
                        f'STATUS="OPT" (an optional mention) or no STATUS expected, found '
                        f"STATUS={attributes['STATUS']!r}",
                    )
                stack.append(("COREF", _OpenCoref(attributes, position, line)))
            else:
                if not stack or stack[-1][0] != "COREF":
                    open_corefs = [item for item in stack if item[0] == "COREF"]
                    if not open_corefs:
                        raise InputError(source, line, "</COREF> without an open <COREF>")
                    raise InputError(
                        source,
                        line,
                        f"overlapping tags: </COREF> closes a COREF that contains "
                        f"<{stack[-1][0]}> opened at line {stack[-1][1]}, still open",
                    )
                opened = stack.pop()[1]
                doc["mentions"].append((opened, position))
            line += raw.count("\n", tag.start(), tag.end())
            continue
        keep(tag.group(0), tag.start())
        if name == "DOC" and not closing:
            if doc is not None:
                raise InputError(source, line, f"<DOC> inside the document opened at line {doc['line']}")
            doc = {"start": position - len(tag.group(0)), "line": line, "mentions": [], "docno": None}
            stack = [("DOC", line)]
        elif name == "DOC":
            if doc is None:
                raise InputError(source, line, "</DOC> without <DOC>")
            _check_no_open_coref(stack, source, "</DOC>")
            text = "".join(plain)[doc["start"] :]
            document = _sgml_document(source, doc, text, response)
            if document.doc_id in documents:
                raise InputError(source, doc["line"], f"document {document.doc_id!r} occurs twice")
            documents[document.doc_id] = document
            doc, stack = None, []
        elif doc is not None and name == "DOCNO":
            if closing and doc.get("docno_start") is not None:
                doc["docno"] = "".join(plain)[doc["docno_start"] : position - len(tag.group(0))].strip()
            elif not closing:
                doc["docno_start"] = position
        if doc is not None and name not in ("DOC", "COREF") and name in closed_names:
            if not closing:
                stack.append((name, line))
            elif any(item[0] == name for item in stack):
                while stack[-1][0] != name:
                    if stack[-1][0] == "COREF":
                        raise InputError(
                            source,
                            line,
                            f"overlapping tags: </{name}> inside the COREF "
                            f"opened at line {stack[-1][1].line}",
                        )
                    stack.pop()
                stack.pop()
        line += raw.count("\n", tag.start(), tag.end())
    keep(raw[raw_at:], raw_at)
    if doc is not None:
        raise InputError(source, doc["line"], "<DOC> opened here is never closed")
    return _SgmlFile(source, raw, "".join(plain), segments, documents)


def _check_no_open_coref(stack: list[tuple[str, Any]], source: str, closing: str) -> None:
    for name, item in reversed(stack):
        if name == "COREF":
            raise InputError(
                source,
                item.line,
                f'<COREF ID="{item.attributes["ID"]}"> opened here is not closed before {closing}',
            )


def _sgml_document(source: str, doc: dict[str, Any], text: str, response: bool) -> CorefDocument:
    if not doc["docno"]:
        raise InputError(source, doc["line"], "document without a <DOCNO>")
    start = doc["start"]
    by_id: dict[str, tuple[_OpenCoref, int]] = {}
    order = sorted(doc["mentions"], key=lambda item: (item[0].start, -item[1]))
    for opened, end in order:
        ident = opened.attributes["ID"]
        if ident in by_id:
            raise InputError(
                source,
                opened.line,
                f"COREF ID {ident!r} is used twice (first at line {by_id[ident][0].line})",
            )
        by_id[ident] = (opened, end)
    # Chains: the transitive closure of the REF links (union-find over IDs).
    parent = {ident: ident for ident in by_id}

    def root(ident: str) -> str:
        while parent[ident] != ident:
            parent[ident] = parent[parent[ident]]
            ident = parent[ident]
        return ident

    for ident, (opened, _) in by_id.items():
        ref = opened.attributes.get("REF")
        if ref is None or ref == "":
            continue
        if ref not in by_id:
            raise InputError(source, opened.line, f"COREF ID {ident!r} has REF {ref!r}, which no COREF has")
        a, b = root(ident), root(ref)
        if a != b:
            parent[a] = b
    chain_of_root: dict[str, int] = {}
    chains: list[list[tuple[int, int, int, Any, bool]]] = []
    for ident, (opened, end) in by_id.items():  # document order: chains numbered by first mention
        r = root(ident)
        if r not in chain_of_root:
            chain_of_root[r] = len(chains)
            chains.append([])
        chains[chain_of_root[r]].append((opened.start - start, end - start, opened.line, opened, False))
    kept = _reject_key_repeats(chains, source, response)
    mentions = []
    for chain_number, chain in enumerate(kept):
        for s, e, line, opened, _ in chain:
            attributes = opened.attributes
            mention_text = text[s:e]
            min_text = attributes.get("MIN")
            min_span = None
            if min_text:
                found = re.search(r"\s+".join(re.escape(w) for w in min_text.split()), mention_text)
                if found is None:
                    raise InputError(
                        source,
                        line,
                        f"MIN {min_text!r} does not occur in the COREF's text {show_text(mention_text)!r}",
                    )
                min_span = (s + found.start(), s + found.end())
            mentions.append(
                Mention(
                    s,
                    e,
                    chain_number,
                    attributes["ID"],
                    attributes.get("REF") or None,
                    mention_text,
                    line,
                    min_text,
                    attributes.get("STATUS", "").upper() == "OPT",
                    min_span,
                )
            )
    mentions.sort(key=lambda m: (m.start, -m.end, m.chain))
    return CorefDocument(doc["docno"], tuple(mentions), doc["line"], len(kept), title=doc["docno"])


def _check_same_text(key: _SgmlFile, response: _SgmlFile) -> None:
    """The seed's ``sed 's/<COREF[^>]*>//g' rsp | diff texts -`` check: the response may only add tags."""
    if key.plain == response.plain:
        return
    shorter = min(len(key.plain), len(response.plain))
    index = next((i for i in range(shorter) if key.plain[i] != response.plain[i]), shorter)
    key_line = key.line_of_plain(index)
    expected = show_text(key.plain[index : index + 20]) or "the end of the file"
    found = show_text(response.plain[index : index + 20]) or "the end of the file"
    raise InputError(
        response.source,
        response.line_of_plain(index),
        f"text differs from the key's ({key.source}:{key_line}) once COREF tags are removed: "
        f"key has {expected!r}, response has {found!r}",
    )


def _reject_key_repeats(
    chains: list[list[tuple[int, int, int, Any, bool]]], source: str, response: bool
) -> list[list[tuple[int, int, int, Any, bool]]]:
    """The chains that have mentions; a key extent written twice is an :class:`InputError` (a response
    keeps its repeats: which go is the key's business, see :mod:`pipeline.coref.pairing`)."""
    seen: dict[tuple[int, int], int] = {}
    for chain in chains:
        for item in chain:
            extent = (item[0], item[1])
            if not response and extent in seen:
                raise InputError(
                    source,
                    item[2],
                    f"the key has two mentions with extent {extent[0]}-{extent[1]} (first at line "
                    f"{seen[extent]})",
                )
            seen.setdefault(extent, item[2])
    return [chain for chain in chains if chain]


def _title(line: str) -> str:
    """A document's name as the CoNLL reference scorer keys it: all after '#begin document '."""
    perl = _PERL_BEGIN.match(line)
    return perl.group(1) if perl else (_BEGIN.match(line).group(1))  # type: ignore[union-attr]


def read_text(path: str | Path, encoding: str) -> str:
    return read_input(path, encoding, "coreference file")


def show_text(text: str) -> str:
    return printable(" ".join(text.split()))


def printable(text: str) -> str:
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text)
