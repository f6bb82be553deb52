"""Coreference scoring: MUC (Vilain et al. 1995), B3 and CEAF-e over equivalence classes of mentions.

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

Mention matching (:func:`align_documents`): a key and a response mention match when their extents are
equal (the MUC scorer aligned COREF objects by position). With ``match="min"`` (SGML only) a response
mention left unmatched may also match an unmatched key mention whose extent contains it and whose
``MIN`` string it contains, the MUC-6/7 coreference rule; the innermost such key mention wins, ties by
key order, response mentions taken in document order.

Duplicates follow the CoNLL reference scorer (its test cases TC-A-7 to TC-A-9): a response mention
whose extent already occurs in an earlier chain (chains in order of first appearance) or earlier in the
same chain is removed, and counted in :attr:`CorefDocument.duplicates`. The reference scorer removes
only duplicates of key mentions; this module removes every duplicate. A duplicate extent in the key is
an :class:`InputError` (the key would be ambiguous).

Optional key mentions (``STATUS="OPT"`` in SGML): when the response has a matching mention they are
scored like any other; when it has none they are left out of the key before scoring (no penalty) and
reported as ``OPT``.

Measures (all from exact numerators and denominators, summed over documents for the totals, i.e.
micro-averaged exactly as both reference scorers do):

- MUC: recall = sum(|K| - |p(K)|) / sum(|K| - 1), p(K) the partition of key chain K by the response
  chains, a key mention absent from the response being a singleton cell; precision symmetric.
- B3: recall = sum over key mentions m of |K(m) & R(m)| / |K(m)| over the number of key mentions
  (R(m) empty when m is not in the response); precision symmetric.
- CEAF-e: phi4(K, R) = 2 |K & R| / (|K| + |R|), the optimal one-to-one assignment of key to response
  chains (:func:`max_weight_assignment`, Kuhn-Munkres); recall = sum of phi4 / number of key chains,
  precision = sum / number of response chains.
- CEAF-m: the same with phi3(K, R) = |K & R| (its own optimal assignment); recall = sum of phi3 / number
  of key mentions, precision = sum / number of response mentions.
- BLANC (Recasens and Hovy 2011, for imperfect mentions as Luo et al. 2014 and the CoNLL scorer v8.01):
  the coreference links of a side are its pairs of mentions in one chain, its non-coreference links its
  pairs of mentions in two chains; per link type recall = common links / key links, precision = common
  links / response links (:class:`BlancCounts`). BLANC averages the two types' recalls, precisions and
  F's, over the types the key has links of: a key with no coreference link (all singletons) is scored
  on non-coreference links alone, a key with one chain on coreference links alone, and a key with no
  link at all (at most one mention) leaves BLANC undefined. The six link counts are sums over
  documents; BLANC is computed from the summed counts, as the reference scorer does.
- LEA (Moosavi and Strube 2016): recall = sum over key chains K of |K| * resolved(K) / links(K) over the
  number of key mentions, links(K) = |K| (|K| - 1) / 2 and resolved(K) the number of those links whose
  two mentions share a response chain; a singleton has one self-link, resolved when its mention is a
  singleton of the response too (the paper, and the reference scorer's LEA). Precision symmetric.

Singletons are kept on both sides in every measure, as the CoNLL reference scorer (v8) does and as
``expected.json`` implies: a singleton chain adds nothing to MUC's links but counts as a mention in B3
and as an entity in CEAF-e's denominators. A ratio with a zero denominator is undefined (``None``) by
default; with ``zero_division=0`` it is 0 (and F is computed from those zeros: 0), which is what the
reference scorers print (:func:`rates`).

:func:`score_chains` is the slow, obviously correct per-document path (exact :class:`~fractions.Fraction`
values); :func:`score_batch` scores many documents at once with numpy from mention -> chain arrays, and
:func:`score_documents` applies it to aligned documents. Renderers give the seed-001 coreference score
report, the partitions file and the coreference report summary.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.core.corpus import read_input
from pipeline.core.errors import InputError
from pipeline.core.lazy import pd
from schemas import COREF_MENTIONS

METRICS = ("muc", "b3", "ceafe", "ceafm", "blanc", "lea")  # every measure, in report order
DEFAULT_METRICS = ("muc", "b3", "ceafe")  # what the scoring functions compute unless asked for more
METRIC_NAMES = {
    "muc": "MUC",
    "b3": "B3",
    "ceafe": "CEAF-e",
    "ceafm": "CEAF-m",
    "blanc": "BLANC",
    "lea": "LEA",
}
ZERO_DIVISION = ("undefined", "0")  # a ratio x / 0 is None, or 0 as the reference scorers print it
MATCH_MODES = ("exact", "min")
FORMATS = ("conll", "sgml")

Number = int | float | Fraction


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
    differing_words: int = 0  # CoNLL response: tokens whose word differs from the key's (same positions)
    first_differing_word: str = ""  # the first of them, ``file:line: token 'w' expected (...), found 'v'``


@dataclass(frozen=True)
class Counts:
    """Numerators and denominators of recall and precision; sums of these are the micro-averages."""

    recall_num: Number
    recall_den: int
    precision_num: Number
    precision_den: int

    @property
    def recall(self) -> float | None:
        return None if self.recall_den == 0 else float(self.recall_num) / self.recall_den

    @property
    def precision(self) -> float | None:
        return None if self.precision_den == 0 else float(self.precision_num) / self.precision_den

    @property
    def f1(self) -> float | None:
        """Harmonic mean; undefined when recall or precision is, 0 when both are 0."""
        r, p = self.recall, self.precision
        if r is None or p is None:
            return None
        return 0.0 if r + p == 0 else 2 * r * p / (r + p)

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.recall_num + other.recall_num,
            self.recall_den + other.recall_den,
            self.precision_num + other.precision_num,
            self.precision_den + other.precision_den,
        )


ZERO = Counts(0, 0, 0, 0)


@dataclass(frozen=True)
class BlancCounts:
    """BLANC's link counts: for each link type, common links over key links and over response links.

    ``coreference.recall_num`` = ``coreference.precision_num`` = coreference links of both sides,
    ``recall_den`` the key's coreference links, ``precision_den`` the response's; the same for
    ``non_coreference``. Sums of these are the totals; the measures come from :func:`rates`.
    """

    coreference: Counts
    non_coreference: Counts

    @property
    def recall(self) -> float | None:
        return rates(self)[0]

    @property
    def precision(self) -> float | None:
        return rates(self)[1]

    @property
    def f1(self) -> float | None:
        return rates(self)[2]

    def __add__(self, other: BlancCounts) -> BlancCounts:
        return BlancCounts(self.coreference + other.coreference, self.non_coreference + other.non_coreference)


BLANC_ZERO = BlancCounts(ZERO, ZERO)

MetricCounts = Counts | BlancCounts


def rates(
    counts: MetricCounts, zero_division: str | int = "undefined"
) -> tuple[float | None, float | None, float | None]:
    """Recall, precision and F1 of a measure's counts.

    ``zero_division="undefined"`` (the default): a ratio with a zero denominator is ``None`` and so is
    F1 when recall or precision is; ``zero_division=0`` (or ``"0"``): such a ratio is 0 and F1 is 0
    when recall + precision is 0, the CoNLL reference scorer's convention (``ShowRPF``). BLANC (a
    :class:`BlancCounts`) averages each of the three over the link types the key has links of (see
    the module doc); with no key link at all it is undefined, or 0.
    """
    zero = _zero_value(zero_division)
    if isinstance(counts, BlancCounts):
        types = [c for c in (counts.coreference, counts.non_coreference) if c.recall_den > 0]
        if not types:
            return zero, zero, zero
        values = [rates(c, zero_division) for c in types]
        return tuple(_mean([v[i] for v in values]) for i in range(3))  # type: ignore[return-value]
    recall = zero if counts.recall_den == 0 else float(counts.recall_num) / counts.recall_den
    precision = zero if counts.precision_den == 0 else float(counts.precision_num) / counts.precision_den
    if recall is None or precision is None:
        return recall, precision, None
    return (
        recall,
        precision,
        (0.0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)),
    )


def zero_counts(metric: str) -> MetricCounts:
    """The counts of a measure over no document (the start of a sum)."""
    return BLANC_ZERO if metric == "blanc" else ZERO


@dataclass(frozen=True)
class AlignedDocument:
    """A key document and its response, with the mention pairing used by every measure and report."""

    doc_id: str
    key: CorefDocument
    response: CorefDocument
    key_match: tuple[int, ...]  # per key mention: index of its response mention, or -1
    response_match: tuple[int, ...]  # per response mention: index of its key mention, or -1

    def scored_key(self, index: int) -> bool:
        """False for an optional key mention the response left out (it is not scored)."""
        return self.key_match[index] >= 0 or not self.key.mentions[index].optional


@dataclass(frozen=True)
class DocumentScores:
    doc_id: str
    key_classes: int
    response_classes: int
    scores: dict[str, MetricCounts]


@dataclass(frozen=True)
class CorefScores:
    """Per-document counts and their sums (the totals) for every measure."""

    documents: list[DocumentScores]
    totals: dict[str, MetricCounts]
    key_classes: int
    response_classes: int
    duplicates: int = 0
    differing_words: int = 0
    first_differing_word: str = ""


@dataclass(frozen=True)
class ConllTokens:
    """The tokens of one CoNLL document: each token's word and line, and where sentences start."""

    name: str
    line: int  # the '#begin document' line
    end_line: int  # the '#end document' line
    words: tuple[str, ...]
    lines: tuple[int, ...]
    breaks: tuple[int, ...]  # indices of the tokens that start a sentence, the first token excepted


@dataclass
class BatchScores:
    """Per-document numerator/denominator arrays for each measure (index = document number).

    Four arrays a measure (recall numerator and denominator, precision numerator and denominator);
    eight for BLANC (those of the coreference links, then those of the non-coreference links).
    """

    arrays: dict[str, tuple[np.ndarray, ...]] = field(default_factory=dict)

    def document(self, index: int) -> dict[str, MetricCounts]:
        return {metric: _counts_of([a[index] for a in arrays]) for metric, arrays in self.arrays.items()}

    def totals(self) -> dict[str, MetricCounts]:
        return {metric: _counts_of([a.sum() for a in arrays]) for metric, arrays in self.arrays.items()}


# --- reading -------------------------------------------------------------------------------------------


def read_pair(
    key_path: str | Path, response_path: str | Path, fmt: str = "conll", encoding: str = "utf-8"
) -> tuple[dict[str, CorefDocument], dict[str, CorefDocument]]:
    """Read a key and a response file of the same format and check that they hold the same text.

    SGML: the response with its COREF tags removed must equal the key with its tags removed. CoNLL:
    the response must hold the key's documents, each with the key's sentences and tokens (see
    :func:`check_same_tokens`). A key without any mention is bad input (nothing to score against).
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
    key_file = _parse_sgml(str(key_path), _read_text(key_path, encoding), response=False)
    _check_key_not_empty(str(key_path), key_file.documents)
    response_file = _parse_sgml(str(response_path), _read_text(response_path, encoding), response=True)
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
    """Check that a CoNLL response holds the key's documents, sentences and tokens; return word notes.

    CoNLL mentions are token positions, so a response with one token line missing or added would
    shift every later mention and score them all wrong without a word. Every key document must be
    in the response and every response document in the key (in any order); within a document the
    sentences (runs of token lines between blank lines) must have the key's lengths. At the first
    place they do not, the :class:`InputError` names the response line and what the key has there:
    the first token whose word differs from the key's, else the first sentence break that differs,
    else where one document ends before the other.

    When the sentences agree, words that differ are not an error: the CoNLL reference scorer ignores
    the word column, and its own test cases (TC-A-3 to TC-A-13) write their responses' spurious
    mentions on words renamed ``x``, ``y``, ``z``. They are returned per document as (number of
    differing words, the first one described), which the score report prints as a note.
    """
    for doc_id, tokens in response.items():
        if doc_id not in key:
            raise InputError(
                response_source,
                tokens.line,
                f"document {doc_id!r} is not in the key {key_source}: '#begin document' of a key "
                "document expected",
            )
    notes: dict[str, tuple[int, str]] = {}
    for doc_id, expected in key.items():
        found = response.get(doc_id)
        if found is None:
            raise InputError(
                response_source,
                0,
                f"document {doc_id!r} of the key ({key_source}:{expected.line}) is missing: "
                f"'#begin document {doc_id}' expected",
            )
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
    text = _read_text(path, encoding)
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
            current = _ConllDocument(begin.group(1), number)
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
    return _parse_sgml(str(path), _read_text(path, encoding), response).documents


# --- aligning and scoring ------------------------------------------------------------------------------


def align_documents(
    key: dict[str, CorefDocument],
    response: dict[str, CorefDocument],
    match: str = "exact",
    response_source: str = "response",
) -> list[AlignedDocument]:
    """Pair the documents by id (key order) and their mentions by extent (or MIN, see the module doc).

    A key document the response lacks is scored against an empty response; a response document the
    key lacks is an :class:`InputError`.
    """
    if match not in MATCH_MODES:
        raise ValueError(f"match must be one of {MATCH_MODES}, not {match!r}")
    for doc_id, document in response.items():
        if doc_id not in key:
            raise InputError(response_source, document.line, f"document {doc_id!r} is not in the key")
    aligned = []
    for doc_id, key_doc in key.items():
        rsp_doc = response.get(doc_id) or CorefDocument(doc_id, (), 0, 0)
        key_match, response_match = _match_mentions(key_doc.mentions, rsp_doc.mentions, match)
        aligned.append(AlignedDocument(doc_id, key_doc, rsp_doc, key_match, response_match))
    return aligned


def mention_table(aligned: Sequence[AlignedDocument]) -> pd.DataFrame:
    """One row per mention of either side (the natural artifact of a coreference stage).

    Columns: ``doc_id``, ``doc`` (document number), ``key_mention``/``response_mention`` (index in
    the document's mentions, -1 when absent), ``key_chain``/``response_chain`` (-1 when absent),
    ``start``, ``end`` (half-open, the key's extent when matched), ``status`` (COR, MIS, SPU, OPT),
    ``scored`` (False for OPT), ``key_text``, ``response_text``.
    """
    rows: dict[str, list[Any]] = {name: [] for name in _TABLE_COLUMNS}
    for number, doc in enumerate(aligned):
        for index, mention in enumerate(doc.key.mentions):
            partner = doc.key_match[index]
            other = doc.response.mentions[partner] if partner >= 0 else None
            status = "COR" if other else ("OPT" if mention.optional else "MIS")
            _append(
                rows,
                doc.doc_id,
                number,
                index,
                partner,
                mention.chain,
                other.chain if other else -1,
                mention.start,
                mention.end,
                status,
                status != "OPT",
                mention.text,
                other.text if other else "",
            )
        for index, mention in enumerate(doc.response.mentions):
            if doc.response_match[index] < 0:
                _append(
                    rows,
                    doc.doc_id,
                    number,
                    -1,
                    index,
                    -1,
                    mention.chain,
                    mention.start,
                    mention.end,
                    "SPU",
                    True,
                    "",
                    mention.text,
                )
    return pd.DataFrame(rows)


def scores_from_table(
    table: pd.DataFrame, duplicates: int = 0, metrics: Iterable[str] = DEFAULT_METRICS
) -> CorefScores:
    """:func:`score_documents` from a :func:`mention_table` (the coreference stage's artifact).

    A document's key classes are the chains of its scored key mentions; its response classes the
    chains of its response mentions.
    """
    ordered = table.sort_values("doc", kind="stable")
    doc_ids = list(dict.fromkeys(zip(ordered["doc"].tolist(), ordered["doc_id"].tolist(), strict=True)))
    scored = table[table["scored"]]
    batch = score_batch(
        scored["doc"].to_numpy(),
        scored["key_chain"].to_numpy(),
        scored["response_chain"].to_numpy(),
        docs=(max(d for d, _ in doc_ids) + 1) if doc_ids else 0,
        metrics=metrics,
    )
    key_rows = scored[scored["key_mention"] >= 0]
    key_classes = key_rows.groupby("doc")["key_chain"].nunique().to_dict()
    response_rows = table[table["response_mention"] >= 0]
    response_classes = response_rows.groupby("doc")["response_chain"].nunique().to_dict()
    documents = [
        DocumentScores(doc_id, int(key_classes.get(number, 0)), int(response_classes.get(number, 0)),
                       batch.document(number))
        for number, doc_id in doc_ids
    ]  # fmt: skip
    totals = {metric: _sum_counts(metric, (d.scores[metric] for d in documents)) for metric in batch.arrays}
    return CorefScores(
        documents,
        totals,
        sum(d.key_classes for d in documents),
        sum(d.response_classes for d in documents),
        duplicates,
    )


def score_documents(
    aligned: Sequence[AlignedDocument], metrics: Iterable[str] = DEFAULT_METRICS
) -> CorefScores:
    """Score aligned documents with :func:`score_batch`; totals are sums of the per-document counts."""
    table = mention_table(aligned)
    table = table[table["scored"]]
    batch = score_batch(
        table["doc"].to_numpy(),
        table["key_chain"].to_numpy(),
        table["response_chain"].to_numpy(),
        docs=len(aligned),
        metrics=metrics,
    )
    documents = []
    for number, doc in enumerate(aligned):
        key_classes = len({m.chain for i, m in enumerate(doc.key.mentions) if doc.scored_key(i)})
        documents.append(DocumentScores(doc.doc_id, key_classes, doc.response.chains, batch.document(number)))
    totals = {metric: _sum_counts(metric, (d.scores[metric] for d in documents)) for metric in batch.arrays}
    differing = [doc.response for doc in aligned if doc.response.differing_words]
    return CorefScores(
        documents,
        totals,
        sum(d.key_classes for d in documents),
        sum(d.response_classes for d in documents),
        sum(doc.response.duplicates for doc in aligned),
        sum(doc.differing_words for doc in differing),
        differing[0].first_differing_word if differing else "",
    )


def score_chains(
    key_chains: Iterable[Iterable[Hashable]], response_chains: Iterable[Iterable[Hashable]]
) -> dict[str, MetricCounts]:
    """The per-document reference path: every measure from its definition, with exact fractions.

    Mentions are any hashable values; a mention in two chains of one side is a :class:`ValueError`.
    BLANC and LEA enumerate their links (quadratic in a document's mentions: for tests and checks).
    """
    key = [frozenset(c) for c in key_chains]
    response = [frozenset(c) for c in response_chains]
    key, response = [c for c in key if c], [c for c in response if c]
    key_of, response_of = _chain_index(key), _chain_index(response)

    def muc_side(chains: list[frozenset], other_of: dict) -> tuple[int, int]:
        num = den = 0
        for chain in chains:
            cells = {other_of[m] for m in chain if m in other_of}
            partition_size = len(cells) + sum(1 for m in chain if m not in other_of)
            num += len(chain) - partition_size
            den += len(chain) - 1
        return num, den

    def b3_side(chains: list[frozenset], others: list[frozenset], other_of: dict) -> Fraction:
        total = Fraction(0)
        for chain in chains:
            for m in chain:
                if m in other_of:
                    total += Fraction(len(chain & others[other_of[m]]), len(chain))
        return total

    def coreference_links(chains: list[frozenset]) -> set[frozenset]:
        return {frozenset(pair) for chain in chains for pair in itertools.combinations(chain, 2)}

    def non_coreference_links(chains: list[frozenset]) -> set[frozenset]:
        return {
            frozenset((a, b)) for one, other in itertools.combinations(chains, 2) for a in one for b in other
        }

    def lea_links(chain: frozenset) -> set[frozenset]:
        # a singleton's one link is its self-link (Moosavi and Strube 2016)
        return {chain} if len(chain) == 1 else {frozenset(p) for p in itertools.combinations(chain, 2)}

    def lea_side(chains: list[frozenset], others: list[frozenset]) -> Fraction:
        other_links = set().union(*(lea_links(c) for c in others))
        total = Fraction(0)
        for chain in chains:
            links = lea_links(chain)
            total += len(chain) * Fraction(len(links & other_links), len(links))
        return total

    muc_r, muc_rd = muc_side(key, response_of)
    muc_p, muc_pd = muc_side(response, key_of)
    similarity = [[Fraction(2 * len(k & r), len(k) + len(r)) for r in response] for k in key]
    ceaf = sum((similarity[i][j] for i, j in max_weight_assignment(similarity)), Fraction(0))
    common = [[len(k & r) for r in response] for k in key]
    ceafm = sum((common[i][j] for i, j in max_weight_assignment(common)), 0)
    key_mentions, response_mentions = sum(map(len, key)), sum(map(len, response))
    key_c, response_c = coreference_links(key), coreference_links(response)
    key_n, response_n = non_coreference_links(key), non_coreference_links(response)
    return {
        "muc": Counts(muc_r, muc_rd, muc_p, muc_pd),
        "b3": Counts(
            b3_side(key, response, response_of),
            key_mentions,
            b3_side(response, key, key_of),
            response_mentions,
        ),
        "ceafe": Counts(ceaf, len(key), ceaf, len(response)),
        "ceafm": Counts(ceafm, key_mentions, ceafm, response_mentions),
        "blanc": BlancCounts(
            Counts(len(key_c & response_c), len(key_c), len(key_c & response_c), len(response_c)),
            Counts(len(key_n & response_n), len(key_n), len(key_n & response_n), len(response_n)),
        ),
        "lea": Counts(lea_side(key, response), key_mentions, lea_side(response, key), response_mentions),
    }


def score_batch(
    doc: np.ndarray,
    key_chain: np.ndarray,
    response_chain: np.ndarray,
    docs: int | None = None,
    metrics: Iterable[str] = DEFAULT_METRICS,
) -> BatchScores:
    """Score many documents at once from one row per mention (of either side).

    ``doc`` numbers the documents from 0; ``key_chain`` and ``response_chain`` give each mention's chain
    within its document and side, -1 when the mention is not on that side. Rows may come in any order.
    MUC, B3, BLANC and LEA are pure counting (sorting the (key chain, response chain) pairs: no link is
    enumerated); CEAF-e and CEAF-m solve the assignment per connected component of the chain-overlap
    graph, directly when one side of the component has one chain, with
    ``scipy.optimize.linear_sum_assignment`` otherwise.
    """
    metrics = tuple(metrics)
    for metric in metrics:
        if metric not in METRICS:
            raise ValueError(f"unknown coreference measure {metric!r}")
    doc = np.asarray(doc, dtype=np.int64)
    key_chain = np.asarray(key_chain, dtype=np.int64)
    response_chain = np.asarray(response_chain, dtype=np.int64)
    n_docs = int(docs if docs is not None else (doc.max() + 1 if doc.size else 0))
    in_key, in_rsp = key_chain >= 0, response_chain >= 0

    # Global chain numbers: dense over (document, chain) on each side.
    k_code, k_doc = _global_chains(doc[in_key], key_chain[in_key])
    r_code, r_doc = _global_chains(doc[in_rsp], response_chain[in_rsp])
    k_size = np.bincount(k_code, minlength=len(k_doc))
    r_size = np.bincount(r_code, minlength=len(r_doc))
    k_mentions = np.bincount(doc[in_key], minlength=n_docs)
    r_mentions = np.bincount(doc[in_rsp], minlength=n_docs)
    k_chains = np.bincount(k_doc, minlength=n_docs)
    r_chains = np.bincount(r_doc, minlength=n_docs)

    # Mentions on both sides: count each (key chain, response chain) pair once.
    both = in_key & in_rsp
    k_of_both = np.full(len(doc), -1, dtype=np.int64)
    k_of_both[in_key] = k_code
    r_of_both = np.full(len(doc), -1, dtype=np.int64)
    r_of_both[in_rsp] = r_code
    pair_code = k_of_both[both] * max(len(r_doc), 1) + r_of_both[both]
    pairs, overlap = np.unique(pair_code, return_counts=True)
    pair_k = pairs // max(len(r_doc), 1)
    pair_r = pairs % max(len(r_doc), 1)
    pair_doc = k_doc[pair_k]

    result = BatchScores()
    if "muc" in metrics:
        # sum over pairs of (n_kr - 1) = |K| - |p(K)| summed over key chains, and the same for R.
        correct = np.bincount(pair_doc, weights=overlap - 1, minlength=n_docs)
        result.arrays["muc"] = (correct, k_mentions - k_chains, correct.copy(), r_mentions - r_chains)
    if "b3" in metrics:
        square = overlap.astype(np.float64) ** 2
        recall = np.bincount(pair_doc, weights=square / k_size[pair_k], minlength=n_docs)
        precision = np.bincount(pair_doc, weights=square / r_size[pair_r], minlength=n_docs)
        result.arrays["b3"] = (recall, k_mentions.copy(), precision, r_mentions.copy())
    if "ceafe" in metrics:
        phi = 2.0 * overlap / (k_size[pair_k] + r_size[pair_r])
        total = _ceaf_total(pair_k, pair_r, phi, pair_doc, len(k_doc), n_docs)
        result.arrays["ceafe"] = (total, k_chains.copy(), total.copy(), r_chains.copy())
    if "ceafm" in metrics:
        total = _ceaf_total(pair_k, pair_r, overlap.astype(np.float64), pair_doc, len(k_doc), n_docs)
        result.arrays["ceafm"] = (total, k_mentions.copy(), total.copy(), r_mentions.copy())
    if "blanc" in metrics:
        # Links counted, never listed: a side's coreference links are sum C(|chain|, 2), its
        # non-coreference links C(mentions, 2) minus those. Common coreference links: sum over the
        # (key chain, response chain) pairs of C(n_kr, 2). Common non-coreference links: pairs of
        # mentions on both sides, minus those sharing a key chain or a response chain (inclusion-
        # exclusion: those sharing both are the common coreference links).
        key_c = _sum_by(k_doc, _pairs_of(k_size), n_docs)
        rsp_c = _sum_by(r_doc, _pairs_of(r_size), n_docs)
        common_c = _sum_by(pair_doc, _pairs_of(overlap), n_docs)
        key_n = _pairs_of(k_mentions) - key_c
        rsp_n = _pairs_of(r_mentions) - rsp_c
        shared_k = _sum_by(k_doc, _pairs_of(np.bincount(pair_k, overlap, len(k_doc))), n_docs)
        shared_r = _sum_by(r_doc, _pairs_of(np.bincount(pair_r, overlap, len(r_doc))), n_docs)
        common_n = _pairs_of(np.bincount(doc[both], minlength=n_docs)) - shared_k - shared_r + common_c
        result.arrays["blanc"] = (
            common_c,
            key_c,
            common_c.copy(),
            rsp_c,
            common_n,
            key_n,
            common_n.copy(),
            rsp_n,
        )
    if "lea" in metrics:
        # A chain of n > 1 mentions has C(n, 2) links; the pair (K, R) resolves C(n_kr, 2) of K's. A
        # singleton's self-link is resolved when its one pair is with a singleton of the other side.
        ks, rs = k_size[pair_k], r_size[pair_r]
        resolved = _pairs_of(overlap).astype(np.float64)
        recall = np.where(ks == 1, rs == 1, ks * resolved / np.maximum(_pairs_of(ks), 1))
        precision = np.where(rs == 1, ks == 1, rs * resolved / np.maximum(_pairs_of(rs), 1))
        result.arrays["lea"] = (
            np.bincount(pair_doc, weights=recall, minlength=n_docs),
            k_mentions.copy(),
            np.bincount(pair_doc, weights=precision, minlength=n_docs),
            r_mentions.copy(),
        )
    return result


def max_weight_assignment(weights: Sequence[Sequence[Number]]) -> list[tuple[int, int]]:
    """A one-to-one assignment of rows to columns with the largest total weight (Kuhn-Munkres).

    Works on rectangular matrices (the smaller side is assigned completely) and on exact fractions
    as well as floats. Returns (row, column) pairs sorted by row. O(n^2 m) for n <= m.
    """
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if rows == 0 or cols == 0:
        return []
    transposed = rows > cols
    if transposed:
        weights = [[weights[i][j] for i in range(rows)] for j in range(cols)]
        rows, cols = cols, rows
    # Shortest augmenting paths with potentials, minimising the negated weights (1-based arrays).
    u = [0] * (rows + 1)
    v = [0] * (cols + 1)
    owner = [0] * (cols + 1)  # owner[j] = row assigned to column j (0: none)
    way = [0] * (cols + 1)
    for i in range(1, rows + 1):
        owner[0] = i
        j0 = 0
        min_to = [None] * (cols + 1)
        used = [False] * (cols + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            row = weights[i0 - 1]
            delta = None
            j1 = 0
            for j in range(1, cols + 1):
                if not used[j]:
                    reduced = -row[j - 1] - u[i0] - v[j]
                    if min_to[j] is None or reduced < min_to[j]:
                        min_to[j] = reduced
                        way[j] = j0
                    if delta is None or min_to[j] < delta:
                        delta = min_to[j]
                        j1 = j
            for j in range(cols + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    min_to[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    pairs = [(owner[j] - 1, j - 1) for j in range(1, cols + 1) if owner[j]]
    if transposed:
        pairs = [(j, i) for i, j in pairs]
    return sorted(pairs)


# --- reports -------------------------------------------------------------------------------------------


def score_report(
    scores: CorefScores, title: str = "iescore coref", zero_division: str | int = "undefined"
) -> str:
    """The seed-001 coreference score report (MUC), then the totals of every measure scored.

    An undefined ratio prints as ``-`` (``zero_division="undefined"``) or as 0 (``zero_division=0``,
    the reference scorers' way). BLANC's line is followed by those of its two link types.
    """
    width = max([len("Document No."), len("TOTALS:")] + [len(_printable(d.doc_id)) for d in scores.documents])
    lines = [
        title,
        "",
        f"{'':{width}}  {'Key':>5} {'Rsp':>5}",
        f"{'Document No.':{width}}  {'Cls':>5} {'Cls':>5}  {'Recall':^22} {'Precision':^22} {'f':>6}",
    ]
    for d in scores.documents:
        muc = d.scores.get("muc", ZERO)
        lines.append(
            _report_line(
                _printable(d.doc_id), width, d.key_classes, d.response_classes, muc, "", zero_division
            )
        )
    muc = scores.totals.get("muc", ZERO)
    lines.append(
        _report_line("TOTALS:", width, scores.key_classes, scores.response_classes, muc, "%", zero_division)
    )
    lines.append("")
    for metric, counts in scores.totals.items():
        if isinstance(counts, BlancCounts):
            recall, precision, f1 = rates(counts, zero_division)
            lines.append(
                f"{METRIC_NAMES[metric] + ':':8} recall {_pct(recall)}%   precision {_pct(precision)}%   "
                f"F {_pct(f1)}%"
            )
            lines.append("  " + _totals_line("coreference links:", counts.coreference, zero_division))
            lines.append("  " + _totals_line("non-coreference links:", counts.non_coreference, zero_division))
        else:
            lines.append(_totals_line(f"{METRIC_NAMES[metric] + ':':8}", counts, zero_division))
    if scores.duplicates:
        lines.append(f"note: {scores.duplicates} duplicate response mention(s) removed before scoring")
    if scores.differing_words:
        lines.append(
            f"note: {scores.differing_words} response token(s) have another word than the key's; "
            f"mentions are token positions, compared as such (first: {scores.first_differing_word})"
        )
    return "\n".join(lines) + "\n"


def scores_json(scores: CorefScores, zero_division: str | int = "undefined") -> dict[str, Any]:
    """``{"muc", "b3", "ceafe", ..., "zero_division", "documents": [{"id", "muc", ...}]}``.

    Recall, precision and F1 in percent (0-100, as the report prints them and as every iescore JSON
    output gives measures); an undefined one is None, or 0 with ``zero_division=0`` (``"zero_division"``
    says which: ``"undefined"`` or ``0``). BLANC holds its recall, precision and F1 and the counts of
    its two link types under ``coreference`` and ``non_coreference``.
    """
    _zero_value(zero_division)
    out: dict[str, Any] = {metric: _counts_json(c, zero_division) for metric, c in scores.totals.items()}
    out["zero_division"] = "undefined" if str(zero_division) == "undefined" else 0
    out["documents"] = [
        {
            "id": d.doc_id,
            "key_classes": d.key_classes,
            "response_classes": d.response_classes,
            **{metric: _counts_json(c, zero_division) for metric, c in d.scores.items()},
        }
        for d in scores.documents
    ]
    return out


def partitions_report(aligned: Sequence[AlignedDocument]) -> str:
    """The seed-001 "partitions" file: key classes framed by ``*``, response classes by ``=``.

    Key class lines: ``C start last ID REF RSP_ID "text"`` for mentions the response has, grouped by
    the response class they fall in (partition cells, in the order of their first mention, separated
    by a line of ``-``), then ``M start last ID REF "text"`` for missing mentions and ``O ...`` for
    optional ones the response left out (not scored). Response class lines: ``C start last RSP_ID
    RSP_REF KEY_ID "text"`` grouped by key class the same way, then ``S start last RSP_ID RSP_REF
    "text"`` for spurious mentions. ``last`` is the last character (or token) of the extent, inclusive,
    as in the seed's example; REF is ``NULL`` when there is none.
    """
    lines: list[str] = []
    for doc in aligned:
        lines.append(f"Document {_printable(doc.doc_id)}")
        lines.extend(
            _class_blocks(doc.key.mentions, doc.response.mentions, doc.key_match, "*", key_side=True)
        )
        lines.extend(
            _class_blocks(doc.response.mentions, doc.key.mentions, doc.response_match, "=", key_side=False)
        )
        lines.append("")
    return "\n".join(lines) + ("\n" if lines else "")


def summary_report(aligned: Sequence[AlignedDocument]) -> str:
    """The seed-001 coreference report summary: per document, COR, MIS, SPU then OPT lines.

    ``COR "key text" "response text"``, ``MIS "key text" ""``, ``SPU "" "response text"`` and ``OPT
    "key text" ""`` (an optional key mention the response left out), each group in document order;
    whitespace runs in texts are shown as one space.
    """
    lines: list[str] = []
    for doc in aligned:
        lines.append(f"Document {_printable(doc.doc_id)}")
        groups: dict[str, list[str]] = {"COR": [], "MIS": [], "SPU": [], "OPT": []}
        for index, mention in enumerate(doc.key.mentions):
            partner = doc.key_match[index]
            if partner >= 0:
                groups["COR"].append(
                    f'COR "{_show(mention.text)}" "{_show(doc.response.mentions[partner].text)}"'
                )
            else:
                tag = "OPT" if mention.optional else "MIS"
                groups[tag].append(f'{tag} "{_show(mention.text)}" ""')
        for index, mention in enumerate(doc.response.mentions):
            if doc.response_match[index] < 0:
                groups["SPU"].append(f'SPU "" "{_show(mention.text)}"')
        for group in groups.values():
            lines.extend(group)
        lines.append("")
    return "\n".join(lines) + ("\n" if lines else "")


# --- helpers: CoNLL ------------------------------------------------------------------------------------

_BEGIN = re.compile(r"^#\s*begin document\s*(.*?)\s*$")
_END = re.compile(r"^#\s*end document")
_CLUSTER_FIELD = re.compile(r"(?:\(\d+\)|\(\d+|\d+\)|\|)+")
_CLUSTER_PART = re.compile(r"\((\d+)\)|\((\d+)|(\d+)\)")


class _ConllDocument:
    """Mentions of one CoNLL document as its lines are read (the reference scorer's bracket rules)."""

    def __init__(self, name: str, line: int) -> None:
        self.name = name
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
        kept, duplicates = _dedupe(chains, source, response)
        mentions = []
        for chain_number, chain in enumerate(kept):
            previous = None
            for start, end, line, _, _ in sorted(chain):
                ident = f"{start}-{end - 1}"
                text = " ".join(self.words[start:end])
                mentions.append(Mention(start, end, chain_number, ident, previous, text, line))
                previous = ident
        mentions.sort(key=lambda m: (m.start, -m.end, m.chain))
        return CorefDocument(self.name, tuple(mentions), self.line, len(kept), duplicates)


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


# --- helpers: SGML -------------------------------------------------------------------------------------

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
    kept, duplicates = _dedupe(chains, source, response)
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
                        f"MIN {min_text!r} does not occur in the COREF's text {_show(mention_text)!r}",
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
    return CorefDocument(doc["docno"], tuple(mentions), doc["line"], len(kept), duplicates)


def _check_same_text(key: _SgmlFile, response: _SgmlFile) -> None:
    """The seed's ``sed 's/<COREF[^>]*>//g' rsp | diff texts -`` check: the response may only add tags."""
    if key.plain == response.plain:
        return
    shorter = min(len(key.plain), len(response.plain))
    index = next((i for i in range(shorter) if key.plain[i] != response.plain[i]), shorter)
    key_line = key.line_of_plain(index)
    expected = _show(key.plain[index : index + 20]) or "the end of the file"
    found = _show(response.plain[index : index + 20]) or "the end of the file"
    raise InputError(
        response.source,
        response.line_of_plain(index),
        f"text differs from the key's ({key.source}:{key_line}) once COREF tags are removed: "
        f"key has {expected!r}, response has {found!r}",
    )


# --- helpers: matching and scoring ---------------------------------------------------------------------


def _dedupe(
    chains: list[list[tuple[int, int, int, Any, bool]]], source: str, response: bool
) -> tuple[list[list[tuple[int, int, int, Any, bool]]], int]:
    """Remove repeated extents (response) or reject them (key); chains left empty disappear."""
    seen: dict[tuple[int, int], tuple[int, int]] = {}
    kept = []
    removed = 0
    for number, chain in enumerate(chains):
        survivors = []
        for item in chain:
            extent = (item[0], item[1])
            if extent in seen:
                if not response:
                    raise InputError(
                        source,
                        item[2],
                        f"the key has two mentions with extent {extent[0]}-"
                        f"{extent[1]} (first at line {seen[extent][1]})",
                    )
                removed += 1
                continue
            seen[extent] = (number, item[2])
            survivors.append(item)
        if survivors:
            kept.append(survivors)
    return kept, removed


def _match_mentions(
    key: Sequence[Mention], response: Sequence[Mention], match: str
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    key_match = [-1] * len(key)
    response_match = [-1] * len(response)
    by_extent = {(m.start, m.end): i for i, m in enumerate(key)}
    for j, mention in enumerate(response):
        i = by_extent.get((mention.start, mention.end))
        if i is not None:
            key_match[i], response_match[j] = j, i
    if match == "min":
        for j, mention in enumerate(response):
            if response_match[j] >= 0:
                continue
            best = None
            for i, candidate in enumerate(key):
                if key_match[i] >= 0 or candidate.min_span is None:
                    continue
                inside = candidate.start <= mention.start and mention.end <= candidate.end
                has_min = mention.start <= candidate.min_span[0] and candidate.min_span[1] <= mention.end
                if (
                    inside
                    and has_min
                    and (best is None or candidate.end - candidate.start < key[best].end - key[best].start)
                ):
                    best = i
            if best is not None:
                key_match[best], response_match[j] = j, best
    return tuple(key_match), tuple(response_match)


def _chain_index(chains: list[frozenset]) -> dict[Hashable, int]:
    index: dict[Hashable, int] = {}
    for number, chain in enumerate(chains):
        for mention in chain:
            if mention in index:
                raise ValueError(f"mention {mention!r} is in two chains")
            index[mention] = number
    return index


def _global_chains(doc: np.ndarray, chain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense numbers for (document, chain) pairs, and the document of each number."""
    if doc.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    width = int(chain.max()) + 1
    combined = doc * width + chain
    unique, code = np.unique(combined, return_inverse=True)
    return code.reshape(-1), unique // width


def _ceaf_total(
    pair_k: np.ndarray, pair_r: np.ndarray, phi: np.ndarray, pair_doc: np.ndarray, n_key: int, n_docs: int
) -> np.ndarray:
    """Sum per document of phi4 over the optimal assignment, component by component."""
    total = np.zeros(n_docs, dtype=np.float64)
    if phi.size == 0:
        return total
    # Connected components of the overlap graph (key chains 0..n_key-1, response chains after them) by
    # label propagation with pointer jumping; components are small and shallow in practice.
    a, b = pair_k, pair_r + n_key
    label = np.arange(n_key + int(pair_r.max()) + 1, dtype=np.int64)
    while True:
        low = np.minimum(label[a], label[b])
        before = label.copy()
        np.minimum.at(label, a, low)
        np.minimum.at(label, b, low)
        label = label[label]
        if np.array_equal(label, before):
            break
    component = label[a]
    order = np.argsort(component, kind="stable")
    component, a, b, phi, pair_doc = component[order], a[order], b[order], phi[order], pair_doc[order]
    starts = np.flatnonzero(np.r_[True, component[1:] != component[:-1]])
    ends = np.r_[starts[1:], len(component)]
    # Components with one key chain or one response chain: the best pair is the assignment.
    group = np.repeat(np.arange(len(starts)), ends - starts)
    best = np.maximum.reduceat(phi, starts)
    row = _rank_in_group(group, a)
    col = _rank_in_group(group, b)
    rows = np.maximum.reduceat(row, starts) + 1
    cols = np.maximum.reduceat(col, starts) + 1
    simple = (rows == 1) | (cols == 1)
    value = np.where(simple, best, 0.0)
    # The others: scipy's Hungarian algorithm on the component's small dense matrix; the assigned
    # weights are summed in row order, as the per-document path sums them.
    from scipy.optimize import linear_sum_assignment  # imported here: only tangled responses need it

    for g in np.flatnonzero(~simple).tolist():
        matrix = np.zeros((int(rows[g]), int(cols[g])))
        inside = slice(int(starts[g]), int(ends[g]))
        matrix[row[inside], col[inside]] = phi[inside]
        assigned_rows, assigned_cols = linear_sum_assignment(matrix, maximize=True)
        value[g] = sum(matrix[assigned_rows, assigned_cols].tolist())
    np.add.at(total, pair_doc[starts], value)
    return total


def _pairs_of(n: np.ndarray) -> np.ndarray:
    """n (n - 1) / 2, elementwise, as integers."""
    n = np.asarray(n, dtype=np.int64)
    return n * (n - 1) // 2


def _sum_by(index: np.ndarray, values: np.ndarray, length: int) -> np.ndarray:
    """Integer sums of ``values`` grouped by ``index`` (0 .. length - 1)."""
    total = np.zeros(length, dtype=np.int64)
    np.add.at(total, index, np.asarray(values, dtype=np.int64))
    return total


def _counts_of(values: Sequence[Any]) -> MetricCounts:
    def counts(rn: Any, rd: Any, pn: Any, pd_: Any) -> Counts:
        return Counts(float(rn), int(rd), float(pn), int(pd_))

    if len(values) == 8:
        return BlancCounts(counts(*values[:4]), counts(*values[4:]))
    return counts(*values)


def _sum_counts(metric: str, counts: Iterable[MetricCounts]) -> MetricCounts:
    total = zero_counts(metric)
    for c in counts:
        total = total + c
    return total


def _zero_value(zero_division: str | int) -> float | None:
    if str(zero_division) not in ZERO_DIVISION:
        raise ValueError(f"zero_division must be one of {ZERO_DIVISION}, not {zero_division!r}")
    return None if str(zero_division) == "undefined" else 0.0


def _mean(values: Sequence[float | None]) -> float | None:
    return None if any(v is None for v in values) else sum(values) / len(values)  # type: ignore[arg-type]


def _rank_in_group(group: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each element, the rank of its value among the distinct values of its group (0, 1, ...)."""
    order = np.lexsort((values, group))
    v, g = values[order], group[order]
    new_value = np.r_[True, (v[1:] != v[:-1]) | (g[1:] != g[:-1])]
    new_group = np.r_[True, g[1:] != g[:-1]]
    running = np.cumsum(new_value) - 1
    at_group_start = np.maximum.accumulate(np.where(new_group, running, 0))
    rank = np.empty_like(running)
    rank[order] = running - at_group_start
    return rank


_TABLE_COLUMNS = tuple(COREF_MENTIONS.names)  # the artifact's columns, documented in schemas/


def _append(rows: dict[str, list[Any]], *values: Any) -> None:
    for name, value in zip(_TABLE_COLUMNS, values, strict=True):
        rows[name].append(value)


def _read_text(path: str | Path, encoding: str) -> str:
    return read_input(path, encoding, "coreference file")


# --- helpers: rendering --------------------------------------------------------------------------------


def _class_blocks(
    mentions: Sequence[Mention], others: Sequence[Mention], match: Sequence[int], frame: str, key_side: bool
) -> list[str]:
    lines: list[str] = []
    chains: dict[int, list[int]] = {}
    for index, mention in enumerate(mentions):
        chains.setdefault(mention.chain, []).append(index)
    for chain in sorted(chains):
        lines.append(frame * 52)
        cells: dict[int, list[int]] = {}
        alone: list[int] = []
        for index in chains[chain]:
            if match[index] >= 0:
                cells.setdefault(others[match[index]].chain, []).append(index)
            else:
                alone.append(index)
        for number, cell in enumerate(cells.values()):
            if number:
                lines.append("-" * 52)
            for index in cell:
                m, other = mentions[index], others[match[index]]
                lines.append(
                    f'C {m.start} {m.end - 1} {m.ident} {m.ref or "NULL"} {other.ident} "{_show(m.text)}"'
                )
        for index in alone:
            m = mentions[index]
            tag = ("O" if m.optional else "M") if key_side else "S"
            lines.append(f'{tag} {m.start} {m.end - 1} {m.ident} {m.ref or "NULL"} "{_show(m.text)}"')
        lines.append(frame * 52)
    return lines


def _report_line(
    label: str, width: int, key_classes: int, rsp_classes: int, c: Counts, unit: str, zero_division: str | int
) -> str:
    recall, precision, f1 = rates(c, zero_division)
    return (
        f"{label:{width}}  {key_classes:>5} {rsp_classes:>5}  "
        f"{_num(c.recall_num):>7} / {c.recall_den:<7}{_pct(recall):>5}{unit or ' '} "
        f"{_num(c.precision_num):>7} / {c.precision_den:<7}{_pct(precision):>5}{unit or ' '} "
        f"{_pct(f1):>6}{unit}"
    ).rstrip()


def _totals_line(label: str, c: Counts, zero_division: str | int) -> str:
    recall, precision, f1 = rates(c, zero_division)
    return (
        f"{label} recall {_num(c.recall_num)} / {c.recall_den} {_pct(recall)}%   "
        f"precision {_num(c.precision_num)} / {c.precision_den} {_pct(precision)}%   F {_pct(f1)}%"
    )


def _num(value: Number) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.2f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _counts_json(counts: MetricCounts, zero_division: str | int = "undefined") -> dict[str, Any]:
    recall, precision, f1 = (_percent(value) for value in rates(counts, zero_division))
    if isinstance(counts, BlancCounts):
        return {
            "recall": recall,
            "precision": precision,
            "f1": f1,
            "coreference": _counts_json(counts.coreference, zero_division),
            "non_coreference": _counts_json(counts.non_coreference, zero_division),
        }
    return {
        "recall": recall,
        "precision": precision,
        "f1": f1,
        "recall_num": float(counts.recall_num),
        "recall_den": counts.recall_den,
        "precision_num": float(counts.precision_num),
        "precision_den": counts.precision_den,
    }


def _percent(value: float | None) -> float | None:
    """A ratio as a percentage (0-100, 6 decimals), as the text report and every other JSON output."""
    return None if value is None else round(value * 100.0, 6)


def _show(text: str) -> str:
    return _printable(" ".join(text.split()))


def _printable(text: str) -> str:
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text)
