"""Alignment of reference and hypothesis texts (seed 000, "Extent Normalization by Alignment").

The words of each reference document are aligned with the words of its hypothesis document by
:func:`pipeline.speech.dp.align`; every alignment column becomes one row of the ``alignment`` artifact (doc,
column, reference word and span, hypothesis word and span, op, cost), so that any normalized extent
can be traced back to the words it came from.

Which words take part: the words of the evaluated text (:func:`pipeline.core.corpus.evaluated_ranges`: the
innermost element around a word is extractable, e.g. a ``TEXT`` even inside a ``BODY``, but not an
``ANNOTATION`` inside it), outside SGML tags. Punctuation at either end of a word is not part of
it (``Motors,`` is the word ``Motors``, its span without the comma) and a token without a letter or
digit (``--``) is no word. With a global mapping file, the words are those of the GLM-normalized text,
each with the span of the original characters it came from.

When both sides used the same text corpus the alignment is the identity (:func:`identity_alignment`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
from iescore.pipeline.core.corpus import evaluated_ranges
from iescore.pipeline.core.documents import Corpus, Document
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.dp import (
    Alignment,
    BatchAlignment,
    Costs,
    Vocabulary,
    WordGraph,
    align,
    align_batch,
)
from iescore.pipeline.speech.glm import GlobalMap
from iescore.pipeline.speech.words import (
    Choice,
    Item,
    Word,
    flatten,
    parse_items,
    speech_optional,
    word_graph,
)
from iescore.schemas import ALIGNMENT, C

COST_MODELS = ("phonetic", "levenshtein")

_TAG = re.compile(r"<[^<>]*>")  # a stray "<" is text: it must not swallow the words up to the next ">"
_EDGE_PUNCTUATION = '.,;:!?"()[]`'
# Character classes of the ASCII code points, for :func:`_word_spans`: bits for blank, letter or
# digit, edge punctuation.
_SPACE, _ALNUM, _EDGE = 1, 2, 4
_ASCII_CLASS = np.array(
    [
        _SPACE * chr(code).isspace() | _ALNUM * chr(code).isalnum() | _EDGE * (chr(code) in _EDGE_PUNCTUATION)
        for code in range(128)
    ],
    np.uint8,
)


@dataclass(frozen=True)
class AlignOptions:
    """``cost``: phonetic or levenshtein; ``glm``: a global map applied to the words (or None)."""

    cost: str = "phonetic"
    glm: GlobalMap | None = None
    optional: Callable[[str], bool] | None = speech_optional
    key: Callable[[str], str] | None = None  # how words compare; None: :func:`word_key`


def identity_alignment(corpus: Corpus) -> pa.Table:
    """One column per word of each document, reference and hypothesis the same word (op C).

    The words are those of :func:`document_items` without a GLM, found in one pass over the whole
    corpus as arrays (:func:`_word_spans`): every character that is no evaluated text (outside the
    evaluated ranges, or a tag inside them) becomes a blank, so that blank-separated tokens split
    where the runs of :func:`document_items` end.
    """
    pieces: list[str] = []
    starts: list[int] = []
    position = 0
    for document in corpus.documents:
        starts.append(position)
        pieces.append(_evaluated_text(document))
        pieces.append(" ")  # documents never share a token
        position += len(document.text) + 1
    whole = "".join(pieces)
    codes = _code_points(whole)
    begin, end = _word_spans(codes)
    if not len(begin):
        return ALIGNMENT.empty_table()
    document_starts = np.asarray(starts, np.int64)
    # Words come in text order: those of document d start in [starts[d], starts[d + 1]).
    firsts = np.searchsorted(begin, document_starts)
    counts = np.diff(np.append(firsts, len(begin)))
    which = np.repeat(np.arange(len(document_starts)), counts)
    offsets = np.repeat(document_starts, counts)
    # Column numbers restart at 0 in every document: the index less the document's first index.
    columns = np.arange(len(begin), dtype=np.int64) - np.repeat(firsts, counts)
    doc_ids = pa.array([document.doc_id for document in corpus.documents], pa.string()).take(pa.array(which))
    word_array = _substrings(whole, codes, begin, end)
    start_array = pa.array(begin - offsets, pa.int64())
    end_array = pa.array(end - offsets, pa.int64())
    count = len(begin)
    arrays = {
        C.doc_id: doc_ids,
        C.column: pa.array(columns, pa.int64()),
        C.ref_word: word_array,
        C.ref_start: start_array,
        C.ref_end: end_array,
        C.hyp_word: word_array,
        C.hyp_start: start_array,
        C.hyp_end: end_array,
        C.op: pa.array(["C"], pa.string()).take(pa.array(np.zeros(count, np.int64))),
        C.cost: pa.array(np.zeros(count), pa.float64()),
    }
    return pa.table([arrays[name] for name in ALIGNMENT.names], schema=ALIGNMENT)


def _code_points(text: str) -> np.ndarray:
    """The code points of ``text`` as an array (lone surrogates kept as they are)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)


def _substrings(text: str, codes: np.ndarray, begin: np.ndarray, end: np.ndarray) -> pa.Array:
    """``text[b:e]`` for every span, as an Arrow string array built from ``text``'s UTF-8 bytes.

    Every span and every gap between two spans is one element of an array over the whole text (its
    offsets are the spans' byte offsets, in order); the spans are every other element. Spans must be
    in order and not overlap. Text with lone surrogates (no UTF-8) is sliced string by string.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return pa.array([text[b:e] for b, e in zip(begin.tolist(), end.tolist(), strict=True)], pa.string())
    if len(data) == len(text):
        position = np.arange(len(text) + 1, dtype=np.int64)
    else:  # the byte offset of every character: the sum of the UTF-8 lengths before it
        widths = 1 + (codes >= 0x80).astype(np.int64) + (codes >= 0x800) + (codes >= 0x10000)
        position = np.concatenate(([0], np.cumsum(widths)))
    bounds = np.empty(2 * len(begin), np.int64)
    bounds[0::2], bounds[1::2] = position[begin], position[end]
    if bounds[-1] > np.iinfo(np.int32).max:  # beyond 32-bit offsets: string by string
        return pa.array([text[b:e] for b, e in zip(begin.tolist(), end.tolist(), strict=True)], pa.string())
    pieces = pa.StringArray.from_buffers(
        len(bounds) - 1, pa.py_buffer(bounds.astype(np.int32)), pa.py_buffer(data)
    )
    return pieces.take(pa.array(np.arange(0, len(bounds) - 1, 2, dtype=np.int64)))


def _word_spans(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``[start, end)`` of every word of the text whose code points are ``codes``, as
    :func:`_trim` makes them of the blank-separated tokens: a token less its edge punctuation, when
    it holds a letter or digit.

    Computed as arrays: blanks are ``str.isspace``, letters and digits ``str.isalnum`` (a table of
    classes for ASCII, the few other characters looked up one by one). A token's first and last
    characters are nearly always its word's ends; the others step inwards over edge punctuation.
    """
    if not len(codes):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    wide = np.flatnonzero(codes > 127)
    classes = _ASCII_CLASS[np.minimum(codes, 127) if len(wide) else codes]
    if len(wide):
        unique, inverse = np.unique(codes[wide], return_inverse=True)
        characters = [chr(code) for code in unique.tolist()]
        kinds = [_SPACE * ch.isspace() | _ALNUM * ch.isalnum() for ch in characters]
        classes[wide] = np.array(kinds, np.uint8)[inverse]
    solid = (classes & _SPACE) == 0
    change = np.diff(solid.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    token_starts = np.flatnonzero(change == 1)
    token_ends = np.flatnonzero(change == -1)
    # A token holds a letter or digit when one lies between its start and the next token's (the
    # characters after its end are blanks).
    alnum = (classes & _ALNUM) != 0
    keep = np.logical_or.reduceat(alnum, token_starts) if len(token_starts) else np.zeros(0, bool)
    token_starts, token_ends = token_starts[keep], token_ends[keep]
    # A kept token holds a letter or digit, so a core character lies between its ends.
    core = solid & ((classes & _EDGE) == 0)
    first = _step_to_core(core, token_starts, 1)
    last = _step_to_core(core, token_ends - 1, -1) + 1
    return first.astype(np.int64), last.astype(np.int64)


def _step_to_core(core: np.ndarray, positions: np.ndarray, step: int) -> np.ndarray:
    """For each position, the nearest core character at or after it (``step`` 1) or at or before it
    (``step`` -1); one is known to lie inside the token."""
    found = positions.copy()
    pending = np.flatnonzero(~core[found])
    for _ in range(8):
        if not len(pending):
            return found
        found[pending] += step
        pending = pending[~core[found[pending]]]
    if len(pending):  # long runs of edge punctuation: by bisection over every core character
        where = np.flatnonzero(core)
        if step > 0:
            found[pending] = where[np.searchsorted(where, found[pending])]
        else:
            found[pending] = where[np.searchsorted(where, found[pending], "right") - 1]
    return found


def _evaluated_text(document: Document) -> str:
    """``document.text`` with every character that is not evaluated text (nor inside a tag-free run of
    an evaluated range, see :func:`document_items`) turned into a blank; same length."""
    text = document.text
    parts: list[str] = []
    position = 0
    for start, end in evaluated_ranges(document):
        parts.append(" " * (start - position))
        position = start
        for tag in _TAG.finditer(text, start, end):
            parts.append(text[position : tag.start()])
            parts.append(" " * (tag.end() - tag.start()))
            position = tag.end()
        parts.append(text[position:end])
        position = end
    parts.append(" " * (len(text) - position))
    return "".join(parts)


def align_corpora(reference: Corpus, hypothesis: Corpus, options: AlignOptions = AlignOptions()) -> pa.Table:
    """Align every reference document with the hypothesis document of the same id.

    Raises InputError for a hypothesis document the reference lacks, a reference document the
    hypothesis lacks, and a reference document without words (:func:`reference_items`). A hypothesis
    document without words is aligned as all deletions: a recognizer may output nothing for a story.
    """
    ref_ids = {d.doc_id for d in reference.documents}
    hyp_by_id = hypothesis.by_id()
    for document in hypothesis.documents:
        if document.doc_id not in ref_ids:
            raise InputError(
                hypothesis.source,
                document.line,
                f"document {document.doc_id!r} is not in the reference texts",
            )
    vocabulary = Vocabulary()
    costs = costs_for(options, vocabulary)
    plain: list[tuple[str, WordGraph, list[Word], list[Word], list[int], list[bool]]] = []
    pieces: list[tuple[int, pa.Table]] = []
    for order, document in enumerate(reference.documents):
        hyp_document = hyp_by_id.get(document.doc_id)
        if hyp_document is None:
            raise InputError(
                hypothesis.source,
                0,
                f"document {document.doc_id!r} ({reference.source}:{document.line}) is missing; "
                "the hypothesis texts must hold every reference document",
            )
        ref_items = reference_items(document, reference.source, options)
        # A recognizer that heard nothing in a document is scored, not refused: all deletions.
        hyp_words = flatten(document_items(hyp_document, options.glm, options.optional, hypothesis.source))
        graph, ref_words = word_graph(ref_items, vocabulary, key=word_key)
        hyp_ids = vocabulary.ids([word_key(w.text) for w in hyp_words])
        hyp_optional = [w.optional for w in hyp_words]
        if graph.preds is None:
            plain.append((document.doc_id, graph, ref_words, hyp_words, hyp_ids, hyp_optional))
            continue
        alignment = align(graph, hyp_ids, costs, hyp_optional if any(hyp_optional) else None)
        pieces.append((order, alignment_table(document.doc_id, alignment, ref_words, hyp_words)))
    if plain:
        batch = align_batch(
            [p[1].ids for p in plain],
            [p[4] for p in plain],
            costs,
            [p[1].optional for p in plain],
            [p[5] if any(p[5]) else None for p in plain],
        )
        table = batch_table(batch, [p[0] for p in plain], [p[2] for p in plain], [p[3] for p in plain])
        if not pieces:
            return table
        pieces.append((-1, table))
    if not pieces:
        return ALIGNMENT.empty_table()
    # Documents in reference order (the plain documents' table keeps its own order inside).
    rank = {doc.doc_id: k for k, doc in enumerate(reference.documents)}
    joined = pa.concat_tables([t for _, t in pieces])
    joined_ids = joined.column(C.doc_id).to_pylist()
    order = sorted(range(joined.num_rows), key=lambda r: rank[joined_ids[r]])
    return joined.take(pa.array(order, pa.int64()))


def batch_table(
    batch: BatchAlignment,
    doc_ids: Sequence[str],
    ref_words: Sequence[Sequence[Word]],
    hyp_words: Sequence[Sequence[Word]],
) -> pa.Table:
    """The artifact rows of many documents aligned at once (words gathered by global index)."""
    counts = np.diff(batch.bounds)
    ids = pa.array(doc_ids, pa.string()).take(pa.array(np.repeat(np.arange(len(doc_ids)), counts)))
    columns = np.arange(len(batch.ops), dtype=np.int64) - np.repeat(batch.bounds[:-1], counts)

    def gather(words: Sequence[Sequence[Word]], index: np.ndarray) -> tuple[pa.Array, pa.Array, pa.Array]:
        flat = [w for doc in words for w in doc]
        take = pa.array(index, pa.int64(), mask=index < 0)
        texts = pa.array([w.text for w in flat], pa.string())
        starts = pa.array([w.start for w in flat], pa.int64())
        ends = pa.array([w.end for w in flat], pa.int64())
        return texts.take(take), starts.take(take), ends.take(take)

    ref_text, ref_start, ref_end = gather(ref_words, batch.ref)
    hyp_text, hyp_start, hyp_end = gather(hyp_words, batch.hyp)
    ops = pa.array(batch.ops.view("S1").astype(str))
    return pa.table(
        [
            ids,
            pa.array(columns),
            ref_text,
            ref_start,
            ref_end,
            hyp_text,
            hyp_start,
            hyp_end,
            ops,
            pa.array(batch.costs),
        ],
        schema=ALIGNMENT,
    )


def align_stream(
    reference: Corpus, stream: Document, source: str, options: AlignOptions = AlignOptions()
) -> pa.Table:
    """Align the whole reference corpus with an unsegmented hypothesis word stream.

    Seed 000, "Unsegmented Hypothesis Texts": offsets count from the start of the corpus, so the
    reference words get corpus offsets (document offset + offset in the document) and the columns are
    numbered through the whole corpus. A column's doc_id is its reference word's document (for an
    insertion, the document of the reference word before it).
    """
    vocabulary = Vocabulary()
    costs = costs_for(options, vocabulary)
    ref_items: list[Item] = []
    owners: list[tuple[int, str]] = []  # (first corpus offset, doc id), in corpus order
    for document in reference.documents:
        items = reference_items(document, reference.source, options)
        ref_items.extend(_shift(item, document.offset) for item in items)
        owners.append((document.offset, document.doc_id))
    # A stream of time stamps and no words is scored: every reference word deleted.
    hyp_words = flatten(document_items(stream, options.glm, options.optional, source))
    graph, ref_words = word_graph(ref_items, vocabulary, key=word_key)
    hyp_ids = vocabulary.ids([word_key(w.text) for w in hyp_words])
    hyp_optional = [w.optional for w in hyp_words]
    if graph.preds is None and len(graph.ids) * len(hyp_ids) > WHOLE_STREAM_LIMIT:
        alignment = _align_between_unique_words(graph, hyp_ids, costs, hyp_optional)
    else:
        alignment = align(graph, hyp_ids, costs, hyp_optional if any(hyp_optional) else None)
    table = alignment_table("", alignment, ref_words, hyp_words)
    doc_ids = []
    owner = owners[0][1] if owners else ""
    starts = iter(owners)
    upcoming = next(starts, None)
    for start in table.column(C.ref_start).to_pylist():
        while start is not None and upcoming is not None and start >= upcoming[0]:
            owner = upcoming[1]
            upcoming = next(starts, None)
        doc_ids.append(owner)
    return table.set_column(0, ALIGNMENT.field(C.doc_id), pa.array(doc_ids, pa.string()))


# Above this many (reference words x stream words) a stream is cut at words that occur once on each
# side before aligning: rapidfuzz's work grows with the product of the lengths.
WHOLE_STREAM_LIMIT = 25_000_000


def _align_between_unique_words(
    graph: WordGraph, hyp_ids: list[int], costs: Costs, hyp_optional: list[bool]
) -> Alignment:
    """Align a long plain reference with a long stream piece by piece (patience alignment).

    Words that occur exactly once in the reference and once in the stream pair up; the longest run of
    such pairs in the same order on both sides cuts both sequences into pieces, aligned as documents
    of one batch. The pieces partition both sides in order, so the batch's indices are the indices of
    the whole sequences. Like anchoring, this assumes the alignment passes through those pairs, which
    a word said once and recognized once almost always does.
    """
    ref_ids = graph.ids
    ref_count = Counter(ref_ids)
    hyp_count = Counter(hyp_ids)
    optional = graph.optional or [False] * len(ref_ids)
    hyp_position = {h: j for j, h in enumerate(hyp_ids) if hyp_count[h] == 1 and not hyp_optional[j]}
    pairs = [
        (i, hyp_position[r])
        for i, r in enumerate(ref_ids)
        if ref_count[r] == 1 and r in hyp_position and not optional[i]
    ]
    cuts = _longest_increasing(pairs)
    ref_bounds = [0] + [i for i, _ in cuts] + [len(ref_ids)]
    hyp_bounds = [0] + [j for _, j in cuts] + [len(hyp_ids)]
    pieces = list(zip(ref_bounds, ref_bounds[1:], hyp_bounds, hyp_bounds[1:], strict=False))
    batch = align_batch(
        [ref_ids[a:b] for a, b, _, _ in pieces],
        [hyp_ids[c:d] for _, _, c, d in pieces],
        costs,
        [optional[a:b] for a, b, _, _ in pieces] if graph.optional else None,
        [hyp_optional[c:d] for _, _, c, d in pieces] if any(hyp_optional) else None,
    )
    out = Alignment()
    out.ref.frombytes(batch.ref.astype(np.int64).tobytes())
    out.hyp.frombytes(batch.hyp.astype(np.int64).tobytes())
    out.ops.extend(batch.ops.tobytes())
    out.costs.frombytes(batch.costs.astype(np.float64).tobytes())
    return out


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (sorted by first item) increasing in the second item."""
    tails: list[int] = []  # hyp position ending the best run of each length
    tail_index: list[int] = []
    previous = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        length = bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            tail_index.append(k)
        else:
            tails[length] = j
            tail_index[length] = k
        previous[k] = tail_index[length - 1] if length > 0 else -1
    run: list[tuple[int, int]] = []
    k = tail_index[-1] if tail_index else -1
    while k >= 0:
        run.append(pairs[k])
        k = previous[k]
    return run[::-1]


def word_key(word: str) -> str:
    """How words are compared: case-folded (sclite and the seed compare case-insensitively)."""
    return word.casefold()


def document_items(
    document: Document,
    glm: GlobalMap | None,
    optional: Callable[[str], bool] | None = speech_optional,
    source: str = "<text>",
) -> list[Item]:
    """The words (and GLM choices) of the evaluated text of ``document``, spans in document offsets."""
    items: list[Item] = []
    for start, end in evaluated_ranges(document):
        position = start
        text = document.text
        for tag in _TAG.finditer(text, start, end):
            items.extend(_run_items(text, position, tag.start(), glm, optional, source, document.line))
            position = tag.end()
        items.extend(_run_items(text, position, end, glm, optional, source, document.line))
    return items


def reference_items(document: Document, source: str, options: AlignOptions) -> list[Item]:
    """The words of a reference document (:func:`document_items`); none at all is bad input.

    A reference document whose evaluated text is empty (no extractable section with words, or only
    markup and non-extractable sections) has nothing to score against: the error names the line of
    the document's start tag rather than reporting a perfect or an empty score.
    """
    items = document_items(document, options.glm, options.optional, source)
    if not _has_word(items):
        raise InputError(
            source,
            document.line,
            f"reference document {document.doc_id!r} has no words: expected words in its evaluated text "
            "(extractable sections such as <TEXT>, less non-extractable ones such as <ANNOTATION>)",
        )
    return items


def alignment_table(
    doc_id: str, alignment: Alignment, ref_words: Sequence[Word], hyp_words: Sequence[Word]
) -> pa.Table:
    """The artifact rows of one document's alignment (see :func:`batch_table`)."""
    batch = BatchAlignment(
        np.frombuffer(alignment.ref, np.int64),
        np.frombuffer(alignment.hyp, np.int64),
        np.frombuffer(bytes(alignment.ops), np.uint8),
        np.frombuffer(alignment.costs, np.float64),
        np.array([0, len(alignment)], np.int64),
        np.zeros(1, np.int64),
        np.zeros(1, np.int64),
    )
    return batch_table(batch, [doc_id], [ref_words], [hyp_words])


# -- helpers ---------------------------------------------------------------------------------------


def costs_for(options: AlignOptions, vocabulary: Vocabulary) -> Costs:
    if options.cost == "levenshtein":
        return Costs()
    if options.cost != "phonetic":
        raise ValueError(f"cost model {options.cost!r}: expected one of {', '.join(COST_MODELS)}")
    from iescore.pipeline.speech.phonetic import PhoneticDistances, phonetic_distance

    words = vocabulary.words
    distances = PhoneticDistances(words)
    # Phonetic substitution costs run from 1 (homophones: a different spelling of the same sound)
    # to sclite's 4 (nothing in common), always below deletion + insertion (6).
    return Costs(
        substitution=lambda r, h: 1.0 + 3.0 * phonetic_distance(words[r], words[h]),
        substitutions=lambda r, h: 1.0 + 3.0 * distances(r, h),
        substitution_bounds=(1, 4),
    )


def _has_word(items: Sequence[Item]) -> bool:
    """Whether any word is among ``items``, in any alternative of a choice."""
    return any(
        isinstance(item, Word) or any(_has_word(alternative) for alternative in item.alternatives)
        for item in items
    )


def _run_items(
    text: str,
    start: int,
    end: int,
    glm: GlobalMap | None,
    optional: Callable[[str], bool] | None,
    source: str = "<text>",
    line: int = 0,
) -> list[Item]:
    if start >= end or text[start:end].isspace():
        return []
    if glm is None:
        # Plain text: words are what lies between blanks; braces are characters like any other.
        return _trim(parse_items(text[start:end], start, choices=False), optional)
    from iescore.pipeline.speech.glm import apply_glm_pieces, ascii_upper

    # As csrfilt on a text transcript: text-input rules, ASCII upper case (offsets do not move), line
    # breaks as blanks, and one blank of padding at each end so that word-boundary contexts
    # (``/ [ ] __ [ ]``) apply to the first and last words too.
    run = text[start:end].replace("\n", " ").replace("\r", " ").replace("\t", " ")
    pieces = apply_glm_pieces(glm.for_input("text"), ascii_upper(f" {run} "))
    output = "".join(p[0] for p in pieces)
    length = end - start
    starts: list[int] = []
    ends: list[int] = []
    for piece, piece_start, piece_end in pieces:
        first = start + min(max(piece_start - 1, 0), length)
        last = start + min(max(piece_end - 1, 0), length)
        starts.extend([first] * len(piece))
        ends.extend([max(last, first)] * len(piece))
    # Punctuation is trimmed in the rewritten text, then every word takes the span of the original
    # characters its output characters came from.
    items = _trim(parse_items(output, 0, source=source, line=line), optional)
    return [_respan(item, starts, ends) for item in items]


def _respan(item: Item, starts: list[int], ends: list[int]) -> Item:
    """Output offsets of the GLM-rewritten text back to offsets of the original characters."""
    if isinstance(item, Word):
        return Word(item.text, starts[item.start], ends[item.end - 1], item.optional)
    alternatives = tuple(tuple(_respan(i, starts, ends) for i in alt) for alt in item.alternatives)
    return Choice(alternatives, starts[item.start], ends[item.end - 1])


def _trim(items: list[Item], optional: Callable[[str], bool] | None) -> list[Item]:
    """Edge punctuation is not part of a word (nor of its span); a token without a letter or digit
    (``--``, ``...``) is no word.

    Whether a word is optional is decided on the word without its punctuation (``uh,`` is a filler).
    """
    trimmed: list[Item] = []
    for item in items:
        if isinstance(item, Choice):
            alternatives = tuple(tuple(_trim(list(alt), optional)) for alt in item.alternatives)
            trimmed.append(Choice(alternatives, item.start, item.end))
            continue
        text = item.text
        core = text.strip(_EDGE_PUNCTUATION)
        if not any(ch.isalnum() for ch in core):
            continue  # punctuation only, such as a dash "--" (removal whites it out of contents too)
        start = item.start + len(text) - len(text.lstrip(_EDGE_PUNCTUATION))
        trimmed.append(Word(core, start, start + len(core), optional is not None and optional(core)))
    return trimmed


def _shift(item: Item, offset: int) -> Item:
    if isinstance(item, Word):
        return Word(item.text, item.start + offset, item.end + offset, item.optional)
    return Choice(
        tuple(tuple(_shift(i, offset) for i in alt) for alt in item.alternatives),
        item.start + offset,
        item.end + offset,
    )
