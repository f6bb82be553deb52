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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from pipeline.core.documents import Corpus
from pipeline.core.errors import InputError
from pipeline.speech.align import AlignOptions, costs_for, document_items, reference_items, word_key
from pipeline.speech.dp import Alignment, Vocabulary, align
from pipeline.speech.words import Item, Word, flatten, parse_items, speech_optional, word_graph

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
    words = counts["C"] + counts["S"] + counts["D"]

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
