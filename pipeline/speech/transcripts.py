"""Word error counts of transcripts, as NIST's sclite prints them (``iescore align``).

Two inputs: ``trn`` transcripts (one utterance a line, the id in parentheses at the end) or two SGML
text corpora (documents matched by id). Each reference utterance is aligned with the hypothesis
utterance of the same id by :func:`pipeline.speech.dp.align`; the report shows each alignment in sclite's
``.pra`` layout and totals in percent of the reference words, as sclite's ``.sys`` does.

Conventions taken from sclite (SCTK ``src/sclite``): words compare case-insensitively and the whole
line is lower-cased; correct words print in lower case, errors in upper case; a missing word prints as
``*`` as long as the word opposite; a reference word counts when it is on the chosen path, so the
reference word count is C + S + D, and an empty alternative ``@`` counts as nothing. With phonetic
costs, fillers and fragments are optional: left out of the hypothesis they count as correct, as
sclite counts its optionally deletable words under ``-D``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import ranges, slices, to_arrow, to_numpy
from iescore.pipeline.core.corpus import parse_corpus
from iescore.pipeline.core.documents import Corpus
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.align import AlignOptions, costs_for, document_items, reference_items, word_key
from iescore.pipeline.speech.dp import Alignment, Vocabulary, align, align_joined
from iescore.pipeline.speech.glm import GlobalMap, filter_lines
from iescore.pipeline.speech.words import Item, Word, flatten, parse_items, speech_optional, word_graph
from iescore.schemas import SPEECH_SEGMENTS, SPEECH_TOTALS, SPEECH_WORDS

_TRN_LINE = re.compile(r"^(?P<words>.*)\((?P<id>[^()]*)\)\s*$")
_TOKEN = re.compile(r"[{}]|[^\s{}]+")  # as pipeline.speech.words reads an alternation


@dataclass(frozen=True)
class Segment:
    """One utterance (trn) or document (sgml): its id, its words or choices, its line."""

    id: str
    items: tuple[Item, ...]
    line: int


@dataclass(frozen=True)
class AlignedSegment:
    id: str
    alignment: Alignment
    ref_words: tuple[Word, ...]
    hyp_words: tuple[Word, ...]
    missing: bool = False  # no hypothesis utterance (``--allow-missing``): every word deleted

    def counts(self) -> dict[str, int]:
        """C, S, D, I; an optional reference word left out counts as correct and an optional
        hypothesis word inserted counts as nothing (sclite's convention for optionally deletable
        words); the alignment keeps their D and I columns, at cost 0."""
        counts = {"C": 0, "S": 0, "D": 0, "I": 0}
        a = self.alignment
        for r, h, op in zip(a.ref, a.hyp, a.ops.decode("ascii"), strict=True):
            if op == "D" and self.ref_words[r].optional:
                counts["C"] += 1
            elif not (op == "I" and self.hyp_words[h].optional):
                counts[op] += 1
        return counts


def parse_trn(text: str, source: str, optional_words: bool = False) -> list[Segment]:
    """Utterances of a trn file; blank lines and ``;;`` comment lines are skipped.

    sclite lower-cases the whole line, id included. Each of these is an InputError naming the line:
    no trailing ``(id)``, an empty ``()``, a repeated id, an unbalanced ``{ / }`` alternation, an
    empty alternative (``{ a / }``: sclite writes ``@`` for no word).
    """
    _refuse_nul(text, source)
    segments: list[Segment] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith(";;"):
            continue
        match = _TRN_LINE.match(line)
        if match is None:
            raise InputError(source, number, "utterance id '(ID)' expected at the end of the line")
        uid = match.group("id").lower()
        if not uid.strip():
            raise InputError(
                source, number, "empty utterance id '()': '(ID)' expected at the end of the line"
            )
        if uid in seen:
            raise InputError(source, number, f"utterance id ({uid}) already on line {seen[uid]}")
        seen[uid] = number
        optional = speech_optional if optional_words else None
        words = match.group("words")
        items = parse_items(words.lower(), 0, optional, source=source, line=number)
        empty = _empty_alternative(words)
        if empty is not None:
            raise InputError(source, number, f"empty alternative at column {empty}: write '@' for no word")
        segments.append(Segment(uid, tuple(items), number))
    return segments


def _empty_alternative(words: str) -> int | None:
    """The column of the first alternative with nothing in it (``{ }``, ``{ a / }``), or None.

    Braces are balanced (checked by :func:`pipeline.speech.words.parse_items` first); ``/`` separates
    alternatives only inside braces, as a token of its own.
    """
    depth = 0
    previous = ""
    for match in _TOKEN.finditer(words):
        token = match.group()
        if depth and token in ("/", "}") and previous in ("{", "/"):
            return match.start() + 1
        depth += (token == "{") - (token == "}")
        previous = token
    return None


def corpus_segments(corpus: Corpus, options: AlignOptions, reference: bool = False) -> list[Segment]:
    """One segment per document of an SGML corpus: the words of its evaluated text.

    On the ``reference`` side a document without words is an InputError at the line of its start
    (:func:`pipeline.speech.align.reference_items`): scoring it would report 0 words and no error. A
    hypothesis document without words is aligned as all deletions, like a missing one.
    """
    source = corpus.source
    return [
        Segment(
            d.doc_id,
            tuple(
                reference_items(d, source, options)
                if reference
                else document_items(d, options.glm, options.optional, source)
            ),
            d.line,
        )
        for d in corpus.documents
    ]


def align_segments(
    references: Sequence[Segment],
    hypotheses: Sequence[Segment],
    options: AlignOptions,
    ref_source: str,
    hyp_source: str,
    allow_missing: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> list[AlignedSegment]:
    """Align each hypothesis segment with the reference segment of the same id, in hypothesis order.

    InputErrors (sclite refuses both too): a reference without any segment; a hypothesis id the
    reference lacks (nothing is scored against nothing silently); a reference segment the
    hypothesis lacks, naming the first one, unless ``allow_missing``: then each missing segment is
    aligned with an empty hypothesis (all deletions), after the others, and marked ``missing``.
    ``progress(done, total)`` is called after each segment.
    """
    if not references:
        raise InputError(ref_source, 0, "no utterances or documents: the reference is empty")
    vocabulary = Vocabulary()
    costs = costs_for(options, vocabulary)
    by_id = {segment.id: segment for segment in references}
    hyp_ids = {segment.id for segment in hypotheses}
    for segment in hypotheses:
        if segment.id not in by_id:
            raise InputError(hyp_source, segment.line, f"({segment.id}) is not in the reference {ref_source}")
    missing = [s for s in references if s.id not in hyp_ids]
    if missing and not allow_missing:
        first = missing[0]
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise InputError(
            hyp_source,
            0,
            f"({first.id}) of the reference {ref_source}:{first.line} has no hypothesis{more}; "
            "--allow-missing scores missing utterances as deletions",
        )
    missing_ids = {s.id for s in missing}
    ordered = list(hypotheses) + [Segment(s.id, (), 0) for s in missing]
    result = []
    for done, hyp in enumerate(ordered, 1):
        ref = by_id[hyp.id]
        graph, ref_words = word_graph(ref.items, vocabulary, key=word_key)
        hyp_words = flatten(hyp.items)
        ids = vocabulary.ids([word_key(w.text) for w in hyp_words])
        optional = [w.optional for w in hyp_words]
        alignment = align(graph, ids, costs, optional if any(optional) else None)
        result.append(
            AlignedSegment(hyp.id, alignment, tuple(ref_words), tuple(hyp_words), hyp.id in missing_ids)
        )
        if progress is not None:
            progress(done, len(ordered))
    return result


def totals(segments: Iterable[AlignedSegment]) -> dict[str, float | int]:
    """Counts and sclite's percentages of the reference words (C + S + D), one decimal, and the
    number of segments without a hypothesis (``missing``, scored as deletions)."""
    counts = {"C": 0, "S": 0, "D": 0, "I": 0}
    missing = 0
    for segment in segments:
        for op, n in segment.counts().items():
            counts[op] += n
        missing += segment.missing
    return _totals_of(counts["C"], counts["S"], counts["D"], counts["I"], missing)


def _totals_of(c: int, s: int, d: int, i: int, missing: int) -> dict[str, float | int]:
    counts = {"C": c, "S": s, "D": d, "I": i}
    words = c + s + d

    def percent(n: int) -> float:
        # sclite's F_ROUND: halves round away from zero.
        return float(int(1000 * n / words + 0.5)) / 10 if words else 0.0

    return {
        **counts,
        "Corr": percent(counts["C"]),
        "Sub": percent(counts["S"]),
        "Del": percent(counts["D"]),
        "Ins": percent(counts["I"]),
        "Err": percent(counts["S"] + counts["D"] + counts["I"]),
        "missing": missing,
    }


def report_json(segments: Sequence[AlignedSegment]) -> dict:
    """Totals, each segment's counts, and the ids of the segments without a hypothesis."""
    return {
        "totals": totals(segments),
        "segments": [{"id": s.id, **s.counts()} for s in segments],
        "missing": [s.id for s in segments if s.missing],
    }


def render_segment(segment: AlignedSegment) -> str:
    """sclite's ``.pra`` block: id, Scores, REF, HYP and Eval lines (every column ends with a space)."""
    ref_line, hyp_line, eval_line = ["REF:  "], ["HYP:  "], ["Eval: "]
    a = segment.alignment
    for r, h, op in zip(a.ref, a.hyp, a.ops.decode("ascii"), strict=True):
        ref = segment.ref_words[r].text if r >= 0 else ""
        hyp = segment.hyp_words[h].text if h >= 0 else ""
        # sclite prints correct words in lower case, errors in upper case.
        ref, hyp = (ref.lower(), hyp.lower()) if op == "C" else (ref.upper(), hyp.upper())
        width = max(len(ref) or 1, len(hyp) or 1)
        ref = ref or "*" * width
        hyp = hyp or "*" * width
        ref_line.append(f"{ref:<{width}} ")
        hyp_line.append(f"{hyp:<{width}} ")
        eval_line.append(f"{'' if op == 'C' else op:<{width}} ")
    c = segment.counts()
    return (
        f"id: ({segment.id})\n"
        f"Scores: (#C #S #D #I) {c['C']} {c['S']} {c['D']} {c['I']}\n"
        f"{''.join(ref_line)}\n{''.join(hyp_line)}\n{''.join(eval_line)}\n"
    )


def render_report(segments: Sequence[AlignedSegment], system: str) -> str:
    """Every segment's block, then the totals line in sclite's percentages."""
    blocks = [render_segment(s) for s in segments]
    t = totals(segments)
    words = t["C"] + t["S"] + t["D"]
    summary = (
        f"System: {system}   segments: {len(segments)}   reference words: {words}\n"
        + "  ".join(f"{name} {t[name]:.1f}" for name in ("Corr", "Sub", "Del", "Ins", "Err"))
        + "\n"
    )
    if t["missing"]:
        summary += f"missing hypothesis utterances: {t['missing']} (scored as deletions)\n"
    return "\n".join(blocks) + "\n" + summary


# -- the batch path: whole transcripts as columns ------------------------------------------------
#
# ``iescore align`` on many short utterances spends its time per utterance and per word unless the
# work is done in bulk: :func:`read_trn` keeps each side as one list of word numbers (no object per
# word), :func:`align_transcripts` aligns every plain utterance in one call of
# :func:`pipeline.speech.dp.align_batch` (reference alternations go through the word-graph aligner one
# utterance each, as before), and the report and JSON are written from the columns
# (:func:`render_columns`, :func:`columns_report_json`). The result is the same, column for column, as
# :func:`align_segments` with :func:`render_report` and :func:`report_json`, which stay as the
# per-utterance reference (the tests compare the two on random data).


@dataclass
class Lexicon:
    """The distinct word texts of a comparison (both sides), numbered in order of first sight."""

    texts: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)

    def numbers(self, words: Sequence[str] | pa.Array) -> np.ndarray:
        """The numbers of ``words`` (a sequence or an Arrow string array), new texts numbered on the
        way, in order of first sight.

        The words are hashed in bulk (Arrow's dictionary encoding); only their distinct texts are
        looked up one by one.
        """
        if len(words) == 0:
            return np.zeros(0, np.int64)
        if not isinstance(words, pa.Array):
            words = arrow_strings(words)
        encoded = words.dictionary_encode()
        index, texts = self.index, self.texts
        mapping = []
        for text in encoded.dictionary.to_pylist():  # in order of first sight
            number = index.get(text)
            if number is None:
                number = index[text] = len(texts)
                texts.append(text)
            mapping.append(number)
        return np.asarray(mapping, np.int64)[to_numpy(encoded.indices)]


# Arrow arrays from Python strings without pyarrow's conversions (``pipeline.core.arrays`` for numbers):
# the first of those imports pandas (about a quarter of a second), which nothing here needs.


def arrow_strings(texts: Sequence[str]) -> pa.Array:
    """``texts`` as an Arrow string array, built from its buffers (offsets and UTF-8 bytes).

    The array is made whole, not as a slice of another: Arrow's whitespace split was seen to give
    words with a blank inside on a slice (the values of a list array) when earlier work had left
    other bytes in its memory pool.
    """
    encoded = [t.encode("utf-8") for t in texts]
    offsets = np.zeros(len(encoded) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, encoded), np.int64, len(encoded)), out=offsets[1:])
    return pa.Array.from_buffers(
        pa.large_string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )


def arrow_text(strings: pa.Array) -> str:
    """The concatenation of an Arrow string array's values (decoded from its buffer in place)."""
    offsets = np.frombuffer(strings.buffers()[1], np.int64)[
        strings.offset : strings.offset + len(strings) + 1
    ]
    if len(strings) == 0:
        return ""
    return str(memoryview(strings.buffers()[2])[offsets[0] : offsets[-1]], "utf-8")


@dataclass
class Transcript:
    """One side's utterances (or documents) as columns.

    ``words`` holds the lexicon numbers of every utterance's words, one utterance after the other;
    utterance ``k``'s are ``words[bounds[k]:bounds[k + 1]]``. An utterance with a ``{ a / b }``
    alternation is in ``graphs`` (its items) and has no words in ``words`` on the reference side; on
    the hypothesis side its words are those of the first alternatives (as :func:`flatten`).
    """

    ids: list[str]
    lines: list[int]
    words: np.ndarray
    bounds: np.ndarray
    graphs: dict[int, tuple[Item, ...]] = field(default_factory=dict)


def _refuse_nul(text: str, source: str) -> None:
    """A NUL character is no transcript's: the file is in another encoding (UTF-16 read as UTF-8 decodes
    to letters and NULs), said at its first line rather than as words or a missing id."""
    nul = text.find("\x00")
    if nul >= 0:
        raise InputError(
            source,
            text.count("\n", 0, nul) + 1,
            "a NUL character: expected trn text in the declared encoding (--encoding; a UTF-16 file?)",
        )


# Line breaks of ``str.splitlines`` other than "\n" (a text without them splits at "\n" alone).
_OTHER_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
# The UTF-8 bytes of the characters ``str.isspace`` calls blank: one table for ASCII, the sequences
# of the others (none is above U+3000).
_ASCII_BLANK = np.zeros(256, bool)
_ASCII_BLANK[[c for c in range(128) if chr(c).isspace()]] = True
_WIDE_BLANKS = [chr(c).encode("utf-8") for c in range(0x80, 0x3001) if chr(c).isspace()]


def blanks(data: bytes) -> np.ndarray:
    """Which bytes of UTF-8 ``data`` belong to a blank character (``str.isspace``)."""
    raw = np.frombuffer(data, np.uint8)
    blank = raw <= 32  # every ASCII blank is a byte up to the space; those bytes looked up
    at = np.flatnonzero(blank)
    blank[at] = _ASCII_BLANK[raw[at]]
    if not data.isascii():
        for lead in {b[0] for b in _WIDE_BLANKS}:
            at = np.flatnonzero(raw == lead)
            for sequence in (b for b in _WIDE_BLANKS if b[0] == lead):
                here = at[at + len(sequence) <= len(raw)]
                for k in range(1, len(sequence)):
                    here = here[raw[here + k] == sequence[k]]
                for k in range(len(sequence)):
                    blank[here + k] = True
    return blank


def read_trn(
    text: str,
    source: str,
    lexicon: Lexicon,
    reference: bool = True,
    optional_words: bool = False,
    fold: Callable[[str], str] | None = str.lower,
) -> Transcript:
    """:func:`parse_trn` as columns: the same utterances, ids, lines and InputErrors.

    ``fold`` folds the case of each line, id included (``iescore sclite`` folds ASCII letters only,
    as sclite 2.10); None: the text is folded already.

    The lines (Python's ``splitlines``, so that line numbers agree) are read as columns of one
    UTF-8 buffer with numpy: blanks (``str.isspace``'s) trimmed, the id cut from a line's last
    ``(`` to its final ``)``, the words split at blanks before it. Only a line with a ``{`` or
    ``}`` goes through :func:`parse_items`.
    """
    _refuse_nul(text, source)
    if any(character in text for character in _OTHER_BREAKS):
        text = "\n".join(text.splitlines())
    written = text  # before folding (an error's column counts in its lines); folding keeps the lines
    written_lines: list[str] = []  # its lines, split at the first line that needs one
    if fold is not None:
        text = fold(text)
    data = text.encode("utf-8")
    raw = np.frombuffer(data, np.uint8)
    blank = blanks(data)
    breaks = np.flatnonzero(raw == 10)
    starts = np.concatenate(([0], breaks + 1)).astype(np.int64)
    ends = np.concatenate((breaks, [len(raw)])).astype(np.int64)
    # Trailing blanks trimmed, a byte at a time on the lines that still end in one.
    ending = np.flatnonzero(ends > starts)
    while len(ending):
        ending = ending[blank[ends[ending] - 1]]
        ends[ending] -= 1
        ending = ending[ends[ending] > starts[ending]]
    kept = ends > starts
    if b";;" in data:  # a line whose first non-blank characters are ";;"
        lines = slices(pa.py_buffer(data), starts[kept], ends[kept])
        comment = to_numpy(pc.match_substring(lines, ";;"))
        lead = pc.utf8_ltrim_whitespace(lines.filter(to_arrow(comment)))
        kept[np.flatnonzero(kept)[np.flatnonzero(comment)[to_numpy(pc.starts_with(lead, ";;"))]]] = False
    rows = np.flatnonzero(kept)
    starts, ends = starts[rows], ends[rows]
    numbers = rows + 1
    buffer = pa.py_buffer(data)
    # The id: from the line's last "(" to a final ")" with no parenthesis inside (as _TRN_LINE).
    opens = np.flatnonzero(raw == ord("("))
    closes = np.flatnonzero(raw == ord(")"))
    last_char = ends - 1
    last = np.searchsorted(opens, last_char) - 1
    paren = opens[np.maximum(last, 0)] if len(opens) else np.zeros(len(rows), np.int64)
    valid = (raw[last_char] == ord(")")) & (last >= 0) & (paren >= starts)
    paren = np.where(valid, paren, last_char)
    valid &= np.searchsorted(closes, last_char) == np.searchsorted(closes, paren + 1)
    first_error: tuple[int, str] | None = None
    bad = np.flatnonzero(~valid)
    if len(bad):
        first_error = (int(numbers[bad[0]]), "utterance id '(ID)' expected at the end of the line")
    uids = slices(buffer, paren + 1, np.maximum(last_char, paren + 1))
    empty = valid & (to_numpy(pc.binary_length(pc.utf8_trim_whitespace(uids))) == 0)
    empty_rows = np.flatnonzero(empty)
    if len(empty_rows) and (first_error is None or numbers[empty_rows[0]] < first_error[0]):
        first_error = (
            int(numbers[empty_rows[0]]),
            "empty utterance id '()': '(ID)' expected at the end of the line",
        )
    # Each id's first row (ids are numbered in order of first sight): a later row with it repeats it.
    id_numbers = to_numpy(uids.dictionary_encode().indices).astype(np.int64)
    new = np.ones(len(id_numbers), bool)
    new[1:] = id_numbers[1:] > np.maximum.accumulate(id_numbers)[:-1]
    seen_first = np.flatnonzero(new)
    repeated = np.flatnonzero(~new)
    if len(repeated) and (first_error is None or numbers[repeated[0]] < first_error[0]):
        row = int(repeated[0])
        first_error = (
            int(numbers[row]),
            f"utterance id ({uids[row].as_py()}) already on line {numbers[seen_first[id_numbers[row]]]}",
        )
    braced = np.zeros(0, np.int64)
    if b"{" in data or b"}" in data:
        braces = np.flatnonzero((raw == ord("{")) | (raw == ord("}")))
        braced = np.flatnonzero(np.searchsorted(braces, paren) > np.searchsorted(braces, starts))
    graphs: dict[int, tuple[Item, ...]] = {}
    replaced: list[list[str]] = []
    optional = speech_optional if optional_words else None
    for row in braced.tolist():
        number = int(numbers[row])
        if first_error is not None and number >= first_error[0]:
            break
        words = data[starts[row] : paren[row]].decode("utf-8")
        items = parse_items(words, 0, optional, source=source, line=number)
        if fold is not None:
            written_lines = written_lines or written.split("\n")
            line = written_lines[number - 1].rstrip()
            empty_at = _empty_alternative(line[: line.rfind("(")])
        else:
            empty_at = _empty_alternative(words)
        if empty_at is not None:
            raise InputError(source, number, f"empty alternative at column {empty_at}: write '@' for no word")
        if reference and not all(isinstance(item, Word) for item in items):
            graphs[row] = tuple(items)
            replaced.append([])
        else:
            replaced.append([w.text for w in flatten(items)])
    if first_error is not None:
        raise InputError(source, *first_error)
    # Words: runs of non-blank bytes before each kept line's id ("(" counts as a blank here).
    blank[paren] = True
    edge = np.diff(blank.view(np.int8), prepend=np.int8(1), append=np.int8(1))
    del blank
    word_starts, word_ends = np.flatnonzero(edge == -1), np.flatnonzero(edge == 1)
    del edge
    # Each word's kept line (-1: a comment or blank line), from where each line's words begin.
    row_of_line = np.full(len(breaks) + 1, -1, np.int64)
    row_of_line[rows] = np.arange(len(rows))
    first_words = np.searchsorted(word_starts, np.concatenate(([0], breaks + 1)))
    owner = np.repeat(row_of_line, np.diff(first_words, append=len(word_starts)))
    inside = owner >= 0
    inside[inside] = word_starts[inside] < paren[owner[inside]]
    if len(braced):
        is_braced = np.zeros(len(rows), bool)
        is_braced[braced] = True
        inside[inside] = ~is_braced[owner[inside]]
    words_array = slices(buffer, word_starts[inside], word_ends[inside])
    owner = owner[inside]
    if len(braced):
        extra = [w for words in replaced for w in words]
        owner = np.concatenate((owner, np.repeat(braced, [len(words) for words in replaced])))
        order = np.argsort(owner, kind="stable")
        words_array = pa.concat_arrays([words_array, arrow_strings(extra).cast(pa.string())]).take(
            to_arrow(order)
        )
        owner = owner[order]
    bounds = np.concatenate(([0], np.cumsum(np.bincount(owner, minlength=len(rows))))).astype(np.int64)
    return Transcript(uids.to_pylist(), numbers.tolist(), lexicon.numbers(words_array), bounds, graphs)


def segments_transcript(segments: Sequence[Segment], lexicon: Lexicon, reference: bool = True) -> Transcript:
    """Segments read otherwise (SGML documents) as a :class:`Transcript`."""
    tokens: list[str] = []
    ends = [0]
    graphs: dict[int, tuple[Item, ...]] = {}
    for k, segment in enumerate(segments):
        if reference and not all(isinstance(item, Word) for item in segment.items):
            graphs[k] = segment.items
        else:
            tokens.extend(w.text for w in flatten(segment.items))
        ends.append(len(tokens))
    return Transcript(
        [s.id for s in segments],
        [s.line for s in segments],
        lexicon.numbers(tokens),
        np.asarray(ends, np.int64),
        graphs,
    )


# Where each op counts (C, S, D, I: 0 to 3); an optional word's deletion and insertion are set apart.
_COUNTED_AS = np.full(256, 4, np.int64)
_COUNTED_AS[[ord(op) for op in "CSDI"]] = [0, 1, 2, 3]


@dataclass
class AlignedColumns:
    """Every segment's alignment, one column after the other (see :class:`AlignedSegment`).

    Segment ``k`` (``ids[k]``) has the columns ``bounds[k]:bounds[k + 1]``; ``ref`` and ``hyp`` are
    the lexicon numbers of each column's words (-1: none), ``ops`` the ops (``C S D I``), and
    ``ref_optional``, ``hyp_optional`` whether the column's word is optional.
    """

    ids: list[str]
    missing: np.ndarray
    bounds: np.ndarray
    ref: np.ndarray
    hyp: np.ndarray
    ops: np.ndarray
    ref_optional: np.ndarray
    hyp_optional: np.ndarray
    texts: list[str]
    _counts: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)

    def counts(self) -> np.ndarray:
        """C, S, D, I of each segment (rows), as :meth:`AlignedSegment.counts` counts them; counted
        once (the report, its totals and the JSON all read them)."""
        if self._counts is None:
            self._counts = self._count()
        return self._counts

    def _count(self) -> np.ndarray:
        ops = self.ops
        kind = _COUNTED_AS[ops]  # 4: counts nothing (an optional word inserted)
        if self.ref_optional.any():
            kind[(ops == ord("D")) & self.ref_optional] = 0
        if self.hyp_optional.any():
            kind[(ops == ord("I")) & self.hyp_optional] = 4
        segment = np.repeat(np.arange(len(self.ids)), np.diff(self.bounds))
        table = np.bincount(segment * 5 + kind, minlength=5 * len(self.ids)).reshape(-1, 5)
        return table[:, :4]


def align_transcripts(
    references: Transcript,
    hypotheses: Transcript,
    lexicon: Lexicon,
    options: AlignOptions,
    ref_source: str,
    hyp_source: str,
    allow_missing: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> AlignedColumns:
    """:func:`align_segments` on whole transcripts; the same alignments, as columns.

    The same InputErrors, in the same order. ``progress(done, total)`` is called as segments are
    done (after all the plain ones, then after each one with an alternation).
    """
    if not references.ids:
        raise InputError(ref_source, 0, "no utterances or documents: the reference is empty")
    by_id = {uid: k for k, uid in enumerate(references.ids)}
    hyp_ids = set(hypotheses.ids)
    if not hyp_ids <= by_id.keys():
        for uid, line in zip(hypotheses.ids, hypotheses.lines, strict=True):
            if uid not in by_id:
                raise InputError(hyp_source, line, f"({uid}) is not in the reference {ref_source}")
    missing = (
        [k for k, uid in enumerate(references.ids) if uid not in hyp_ids] if len(hyp_ids) < len(by_id) else []
    )
    if missing and not allow_missing:
        first = missing[0]
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise InputError(
            hyp_source,
            0,
            f"({references.ids[first]}) of the reference {ref_source}:{references.lines[first]} has no "
            f"hypothesis{more}; --allow-missing scores missing utterances as deletions",
        )
    ids = hypotheses.ids + [references.ids[k] for k in missing]
    total = len(ids)
    ref_of = np.fromiter(map(by_id.__getitem__, ids), np.int64, total)
    # An utterance without a hypothesis (--allow-missing) has no words.
    no_words = np.zeros(len(missing), np.int64)
    hyp_starts = np.concatenate((hypotheses.bounds[:-1], no_words))
    hyp_ends = np.concatenate((hypotheses.bounds[1:], no_words))
    ref_starts, ref_ends = references.bounds[ref_of], references.bounds[ref_of + 1]

    vocabulary = Vocabulary()
    costs = costs_for(options, vocabulary)
    key = options.key or word_key
    is_graph = np.zeros(total, bool)
    if references.graphs:
        is_graph = np.isin(ref_of, np.fromiter(references.graphs, np.int64, len(references.graphs)))
    # Graph utterances' words join the lexicon before the keys are made.
    graph_parts = {}
    for k in np.flatnonzero(is_graph).tolist():
        graph_parts[k] = word_graph(references.graphs[int(ref_of[k])], vocabulary, key=key)
    texts = lexicon.texts
    key_of = np.asarray(vocabulary.ids([key(t) for t in texts]), np.int64)
    optional_of = (
        np.fromiter(map(options.optional, texts), bool, len(texts))
        if options.optional is not None
        else np.zeros(len(texts), bool)
    )
    ref_words, hyp_words = references.words, hypotheses.words
    identity = len(key_of) == 0 or bool((key_of == np.arange(len(key_of))).all())

    plain = np.flatnonzero(~is_graph)
    pieces: list[tuple[np.ndarray, ...]] = []  # per source: columns (ref, hyp, ops, ref opt, hyp opt), bounds
    if len(plain):
        r_from, r_to = ref_starts[plain], ref_ends[plain]
        h_from, h_to = hyp_starts[plain], hyp_ends[plain]
        ref_flat = ref_words[ranges(r_from, r_to - r_from)]
        hyp_flat = hyp_words[ranges(h_from, h_to - h_from)]
        if identity:
            ref_keys, hyp_keys = ref_flat, hyp_flat
        else:
            ref_keys, hyp_keys = key_of[ref_flat], key_of[hyp_flat]
        ref_flags = optional_of[ref_flat] if options.optional is not None else None
        hyp_flags = optional_of[hyp_flat] if options.optional is not None else None
        batch = align_joined(ref_keys, r_to - r_from, hyp_keys, h_to - h_from, costs, ref_flags, hyp_flags)
        ref_col = _take(ref_flat, batch.ref)
        hyp_col = _take(hyp_flat, batch.hyp)
        ref_opt = (
            _take(optional_of, ref_col, False) if ref_flags is not None else np.zeros(len(ref_col), bool)
        )
        pieces.append((plain, batch.bounds, ref_col, hyp_col, batch.ops, ref_opt))
        if progress is not None:
            progress(len(plain), total)
    done = len(plain)
    for k, (graph, nodes) in graph_parts.items():
        hyp_numbers = hyp_words[hyp_starts[k] : hyp_ends[k]]
        hyp_keys_k = (hyp_numbers if identity else key_of[hyp_numbers]).tolist()
        hyp_flags_k = optional_of[hyp_numbers].tolist() if options.optional is not None else None
        alignment = align(graph, hyp_keys_k, costs, hyp_flags_k if hyp_flags_k and any(hyp_flags_k) else None)
        node_numbers = np.asarray(lexicon.numbers([w.text for w in nodes]), np.int64)
        refs_k = np.frombuffer(alignment.ref, np.int64)
        hyps_k = np.frombuffer(alignment.hyp, np.int64)
        ref_col = _take(node_numbers, refs_k)
        hyp_col = _take(hyp_numbers, hyps_k)
        ref_opt = _take(np.fromiter((w.optional for w in nodes), bool, len(nodes)), refs_k, False)
        ops = np.frombuffer(bytes(alignment.ops), np.uint8)
        pieces.append((np.array([k]), np.array([0, len(ops)], np.int64), ref_col, hyp_col, ops, ref_opt))
        done += 1
        if progress is not None:
            progress(done, total)
    return _join_columns(ids, pieces, total, len(hypotheses.ids), lexicon, optional_of)


def _take(values: np.ndarray, index: np.ndarray, none: object = -1) -> np.ndarray:
    """``values[index]``, ``none`` where the index is -1 (no word)."""
    if not len(values):  # every index is -1
        return np.full(len(index), none, values.dtype)
    return np.where(index >= 0, values[index], none).astype(values.dtype, copy=False)


def _join_columns(
    ids: list[str],
    pieces: list[tuple[np.ndarray, ...]],
    total: int,
    present: int,
    lexicon: Lexicon,
    optional_of: np.ndarray,
) -> AlignedColumns:
    """The pieces' columns in segment order.

    Each piece: its segments, their column bounds, then its columns (reference, hypothesis, op,
    reference word optional).
    """
    sizes = np.zeros(total, np.int64)
    source_piece = np.zeros(total, np.int64)
    source_start = np.zeros(total, np.int64)
    piece_offsets = [0]
    for p, piece in enumerate(pieces):
        segments, bounds = piece[0], piece[1]
        sizes[segments] = np.diff(bounds)
        source_piece[segments] = p
        source_start[segments] = bounds[:-1] + piece_offsets[-1]
        piece_offsets.append(piece_offsets[-1] + int(bounds[-1]))
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.uint8), np.zeros(0, bool))
    if len(pieces) == 1 and len(pieces[0][0]) == total:  # one piece of every segment, in order
        ref, hyp, ops, ref_optional = pieces[0][2:6]
    else:
        order = ranges(source_start, sizes)
        ref, hyp, ops, ref_optional = (
            np.concatenate([piece[c] for piece in pieces])[order] if pieces else empty[c - 2]
            for c in (2, 3, 4, 5)
        )
    ops = ops.astype(np.uint8, copy=False)
    hyp_optional = _take(optional_of, hyp, False) if optional_of.any() else np.zeros(len(hyp), bool)
    missing = np.zeros(total, bool)
    missing[present:] = True
    return AlignedColumns(
        ids,
        missing,
        np.concatenate(([0], np.cumsum(sizes))),
        ref,
        hyp,
        ops,
        ref_optional,
        hyp_optional,
        lexicon.texts,
    )


def columns_totals(aligned: AlignedColumns) -> dict[str, float | int]:
    """:func:`totals` of the columns."""
    counts = aligned.counts()
    c, s, d, i = (int(n) for n in counts.sum(axis=0)) if len(counts) else (0, 0, 0, 0)
    return _totals_of(c, s, d, i, int(aligned.missing.sum()))


# Segments rendered at a time: the text of about this many is built in one piece.
RENDER_SEGMENTS = 20_000


def render_columns(aligned: AlignedColumns, system: str) -> Iterator[str]:
    """:func:`render_report` of the columns: the same text, in pieces (a run of segments each, then
    the totals; a caller writes them as they come rather than joining megabytes), built with array
    operations.

    The report is a sequence of pieces taken from one table of strings: the fixed parts of a block
    (``id: (``, ``Scores: ...``, ``REF:  ``), the ids, the counts, each word in its two cases, runs
    of ``*`` and of blanks, and the eval cells. Each column gives five pieces: its reference word
    (or a run of ``*``) and the blanks after it to the column's width and one more, the same for the
    hypothesis, and its eval cell. The index of every piece is computed with numpy, a run of
    segments at a time, and Arrow's ``take`` gathers the text.
    """
    texts = aligned.texts
    counts = aligned.counts()
    shown = [w for t in texts for w in (t.lower(), t.upper())]
    shown_length = np.fromiter(map(len, shown), np.int64, len(shown))
    widest = int(shown_length.max(initial=1))
    fixed = [")\nScores: (#C #S #D #I) ", " ", "\nREF:  ", "\nHYP:  ", "\nEval: ", "\n\n", "id: ("]
    # The table: fixed parts, words (2 each), runs of * (1..widest), runs of blanks (0..widest+1),
    # eval cells (op x width), numbers (0..largest count), then the ids.
    stars_at = len(fixed) + len(shown) - 1  # + width
    blanks_at = stars_at + 1 + widest  # + count
    evals_at = blanks_at + widest + 2  # + op * (widest + 1) + width
    numbers_at = evals_at + 4 * (widest + 1)
    largest = int(counts.max(initial=0))
    ids_at = numbers_at + largest + 1
    table = arrow_strings(
        fixed
        + shown
        + ["*" * n for n in range(1, widest + 1)]
        + [" " * n for n in range(widest + 2)]
        + [
            letter + " " * (width + 1 - len(letter))
            for letter in ("", "S", "D", "I")
            for width in range(widest + 1)
        ]
        + [str(n) for n in range(largest + 1)]
        + aligned.ids
    )
    op_row = np.zeros(256, np.int64)
    op_row[[ord("S"), ord("D"), ord("I")]] = [1, 2, 3]
    n = len(aligned.ids)
    for first in range(0, n, RENDER_SEGMENTS):
        last = min(first + RENDER_SEGMENTS, n)
        a, b = int(aligned.bounds[first]), int(aligned.bounds[last])
        ops = aligned.ops[a:b]
        wrong = ops != ord("C")
        cells = []
        lengths = []
        for numbers in (aligned.ref[a:b], aligned.hyp[a:b]):
            present = numbers >= 0
            index = 2 * np.maximum(numbers, 0) + wrong
            length = np.where(present, shown_length[index] if len(shown_length) else 0, 0)
            cells.append((present, index))
            lengths.append(length)
        width = np.maximum(np.maximum(lengths[0], 1), np.maximum(lengths[1], 1))
        columns = np.diff(aligned.bounds[first : last + 1])
        # Pieces of segment k: 11 before its REF cells, 2 a column, 1, 2 a column, 1, 1 a column, 1.
        base = np.concatenate(([0], np.cumsum(14 + 5 * columns)))
        index = np.empty(int(base[-1]), np.int64)
        head = base[:-1]
        segment_counts = counts[first:last]
        for offset, piece in enumerate(
            (6, None, 0, "C", 1, "S", 1, "D", 1, "I", 2)
        ):  # id: (ID)\nScores: (#C #S #D #I) C S D I\nREF:
            if piece is None:
                index[head + offset] = ids_at + np.arange(first, last)
            elif isinstance(piece, str):
                index[head + offset] = numbers_at + segment_counts[:, "CSDI".index(piece)]
            else:
                index[head + offset] = piece
        index[head + 11 + 2 * columns] = 3
        index[head + 12 + 4 * columns] = 4
        index[head + 13 + 5 * columns] = 5
        within = np.arange(b - a) - np.repeat(aligned.bounds[first:last] - a, columns)
        column_head = np.repeat(head, columns)
        column_count = np.repeat(columns, columns)
        for side, at in (
            (0, column_head + 11 + 2 * within),
            (1, column_head + 12 + 2 * column_count + 2 * within),
        ):
            present, word = cells[side]
            index[at] = np.where(present, len(fixed) + word, stars_at + width)
            index[at + 1] = blanks_at + width - np.where(present, lengths[side], width) + 1
        index[column_head + 13 + 4 * column_count + within] = evals_at + op_row[ops] * (widest + 1) + width
        yield arrow_text(table.take(to_arrow(index, pa.int64())))
    t = columns_totals(aligned)
    words = t["C"] + t["S"] + t["D"]
    summary = (
        f"System: {system}   segments: {n}   reference words: {words}\n"
        + "  ".join(f"{name} {t[name]:.1f}" for name in ("Corr", "Sub", "Del", "Ins", "Err"))
        + "\n"
    )
    if t["missing"]:
        summary += f"missing hypothesis utterances: {t['missing']} (scored as deletions)\n"
    yield ("" if n else "\n") + summary


def columns_report_json(aligned: AlignedColumns) -> dict:
    """:func:`report_json` of the columns: totals, each segment's counts, the ids without a hypothesis."""
    counts = aligned.counts()
    return {
        "totals": columns_totals(aligned),
        "segments": [
            {"id": uid, "C": c, "S": s, "D": d, "I": i}
            for uid, (c, s, d, i) in zip(aligned.ids, counts.tolist(), strict=True)
        ],
        "missing": [aligned.ids[k] for k in np.flatnonzero(aligned.missing).tolist()],
    }


def align_options(cost: str = "levenshtein", glm: GlobalMap | None = None) -> AlignOptions:
    """The options of ``iescore align``: plain sclite (levenshtein) counts every word; with phonetic
    costs fillers and fragments are optional words (seed 000, noisy data)."""
    return AlignOptions(cost, glm, speech_optional if cost == "phonetic" else None)


def align_texts(
    ref_text: str,
    hyp_text: str,
    ref_source: str,
    hyp_source: str,
    options: AlignOptions,
    input_format: str = "trn",
    allow_missing: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> AlignedColumns:
    """Align a reference and a hypothesis given as text (``input_format``: trn transcripts, or sgml
    text corpora whose documents are the segments), as ``iescore align`` does.

    On trn text the GLM of ``options`` rewrites each line, utterance ids untouched (as ``csrfilt -i
    trn``); on SGML corpora it applies to each document's words. Errors name ``ref_source`` and
    ``hyp_source``. ``progress(done, total)`` is called with 0 once the inputs are read, then as
    :func:`align_transcripts` calls it.
    """
    lexicon = Lexicon()
    if input_format == "trn":
        refs, hyps = (
            read_trn(
                _glm_lines(text, options.glm, source),
                source,
                lexicon,
                reference=reference,
                optional_words=options.optional is not None,
            )
            for text, source, reference in ((ref_text, ref_source, True), (hyp_text, hyp_source, False))
        )
    elif input_format == "sgml":
        refs = segments_transcript(
            corpus_segments(parse_corpus(ref_text, ref_source), options, reference=True), lexicon
        )
        hyps = segments_transcript(
            corpus_segments(parse_corpus(hyp_text, hyp_source), options), lexicon, reference=False
        )
    else:
        raise ValueError(f"input_format must be trn or sgml, not {input_format!r}")
    if progress is not None:
        progress(0, len(refs.ids))
    return align_transcripts(refs, hyps, lexicon, options, ref_source, hyp_source, allow_missing, progress)


def aligned_tables(aligned: AlignedColumns) -> dict[str, pa.Table]:
    """An alignment as tables: ``segments`` (each segment's counts, ``schemas.SPEECH_SEGMENTS``),
    ``words`` (each alignment column, ``schemas.SPEECH_WORDS``) and ``totals`` (one row,
    ``schemas.SPEECH_TOTALS``), the numbers :func:`render_columns` prints."""
    counts = aligned.counts().reshape(-1, 4)
    texts = arrow_strings(aligned.texts)
    columns = np.diff(aligned.bounds)

    def words(numbers: np.ndarray) -> pa.Array:
        # -1 (no word) becomes a null: a null index takes a null.
        return texts.take(pa.array(numbers, pa.int64(), mask=numbers < 0)).cast(pa.string())

    ids = pa.array(aligned.ids, pa.string())
    segments = pa.Table.from_arrays(
        [ids, *(pa.array(counts[:, k], pa.int64()) for k in range(4)),
         pa.array(aligned.missing, pa.bool_())],
        schema=SPEECH_SEGMENTS,
    )  # fmt: skip
    alignment = pa.Table.from_arrays(
        [
            ids.take(to_arrow(np.repeat(np.arange(len(aligned.ids)), columns), pa.int64())),
            pa.array(np.arange(len(aligned.ops)) - np.repeat(aligned.bounds[:-1], columns), pa.int64()),
            words(aligned.ref),
            words(aligned.hyp),
            pa.array(aligned.ops.astype(np.uint8).view("S1"), pa.binary(1)).cast(pa.string()),
            pa.array(aligned.ref_optional, pa.bool_()),
            pa.array(aligned.hyp_optional, pa.bool_()),
        ],
        schema=SPEECH_WORDS,
    )  # fmt: skip
    totals = pa.Table.from_pylist([columns_totals(aligned)], schema=SPEECH_TOTALS)
    return {"segments": segments, "words": alignment, "totals": totals}


def _glm_lines(text: str, glm: GlobalMap | None, source: str) -> str:
    """The trn text ``source`` rewritten by the GLM line by line, utterance ids untouched (as csrfilt
    -i trn); its errors name ``source``."""
    if glm is None:
        return text
    return "".join(filter_lines(glm, text.splitlines(keepends=True), input_format="trn", source=source))
