"""Score a ctm hypothesis against an stm or a ctm reference as sclite 2.10 does, into ``iescore
sclite``'s model.

stm reference (:func:`score_stm_ctm`): :func:`pipeline.speech.stm.assign` gives each stm segment its
ctm words, all as columns; segments of plain words on both sides are aligned together from the
columns, the others as word networks. ctm reference (:func:`score_ctm_ctm`): both sides are cut into
chunks where both pause, as sclite's ``chop_WTOKE_2`` does. Each segment's two sides become word
networks (alternations and ``<ALT_BEGIN>`` blocks as alternatives) aligned by
:func:`pipeline.speech.netdp.align_networks` with sclite's costs and tie rules (``-T``: its time costs);
the pairs go into a :class:`~pipeline.speech.sclite.model.ScoredSystem` with the words' times and
confidences.

sclite's word rules: ``(word)`` is optionally deletable under ``-D`` (it matches ``word``; left out it
counts as correct); under ``-F`` a fragment (``te-``, ``-tion``) matches a word it begins (ends).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from iescore.pipeline.core.arrays import ranges
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.ctm import (
    WORD,
    Ctm,
    TimedItem,
    TimedWord,
    ascii_lower,
    parse_ctm,
    parse_token,
    read_text,
)
from iescore.pipeline.speech.dp import Vocabulary, align_batch, align_joined
from iescore.pipeline.speech.netdp import NULL_ALT, NetItem, NetWord, Pair, align_networks, network
from iescore.pipeline.speech.sclite.model import CategoryDef, LabelDef, ScoredSystem, Segment, SystemBuilder
from iescore.pipeline.speech.stm import Assignment, Stm, assign, comment_labels, parse_stm

if TYPE_CHECKING:
    from iescore.pipeline.speech.sclite.segmentation import Segmentation
    from iescore.pipeline.speech.sclite.weights import WordWeights


@dataclass(frozen=True)
class StmOptions:
    """The sclite options that change how an stm/ctm pair is scored."""

    opt_del: bool = False  # -D
    frag_corr: bool = False  # -F
    reduce_ref: bool = False  # -m ref
    reduce_hyp: bool = False  # -m hyp
    fold: Callable[[str], str] | None = ascii_lower  # None: -s
    encoding: str = "utf-8"  # of files read here (the command passes texts read as sclite's bytes)
    char_align: bool = False  # -c: every word split into its characters
    characters: Callable[[str], list[str]] = list  # a word's characters (by the encoding, for -c)
    char_no_ascii: bool = False  # -c NOASCII: runs of ASCII characters kept together
    char_del_hyphen: bool = False  # -c DH: hyphens removed
    weights: WordWeights | None = None  # -w: word-weight mediated alignment
    segmentation: Segmentation | None = None  # -S: inferred word segmentation (stm references)


def _float32(value: float | None) -> float | None:
    """A ctm confidence as sclite holds it (a C ``float``)."""
    return None if value is None else float(np.float32(value))


def separate_chars(
    word: str, no_ascii: bool = False, del_hyphen: bool = False, characters: Callable[[str], list[str]] = list
) -> list[str]:
    """sclite's ``TEXT_separate_chars``: the characters of ``word`` (``-c``), ASCII runs together
    under ``NOASCII``, hyphens left out under ``DH``."""
    out: list[str] = []
    last_ascii = False
    for char in characters(word):
        if del_hyphen and char == "-":
            continue
        if no_ascii and char.isascii() and last_ascii and out:
            out[-1] += char
        else:
            out.append(char)
        last_ascii = char.isascii()
    return out


def net_words(
    text: str,
    options: StmOptions,
    word: TimedWord | None = None,
    confidence: bool = False,
    tagged: str | None = None,
) -> list[NetWord]:
    """A word with sclite's flags: ``(x)`` optionally deletable under -D; under -F a fragment is a
    word beginning or ending with ``-`` (or ``(x-)`` under -D). Under -c the characters of the word,
    each with an equal share of its duration, the first at its begin."""
    opt_del = options.opt_del and len(text) > 2 and text[0] == "(" and text[-1] == ")"
    frag = options.frag_corr and (
        (len(text) > 0 and (text[0] == "-" or text[-1] == "-")) or (opt_del and text[-2] == "-")
    )
    conf = None
    if word is not None and confidence:
        conf = _float32(word.confidence) if word.confidence is not None else 0.0
    begin = word.begin if word is not None else None
    end = word.begin + word.duration if word is not None else None
    if options.char_align and len(text) > 1:
        inner = text[1:-1] if opt_del else text
        chars = separate_chars(inner, options.char_no_ascii, options.char_del_hyphen, options.characters)
        if chars != [text]:
            out = []
            step = (end - begin) / len(chars) if begin is not None and end is not None else None
            start = begin
            for char in chars:
                stop = start + step if start is not None and step is not None else None
                out.append(NetWord(f"({char})" if opt_del else char, start, stop, conf, opt_del, False))
                start = stop
            return out
    return [NetWord(text, begin, end, conf, opt_del, frag, tagged if word is None else word.tagged)]


def text_items(text: str, options: StmOptions) -> list[NetItem]:
    """A reference transcript as network items: words, and ``{ a / b / @ }`` as a tuple of
    alternatives (``@`` kept: it is the empty alternative's word)."""
    stack: list[list[list[NetItem]]] = []
    current: list[NetItem] = []
    for token in _alternation_tokens(text):
        if token == "{":
            stack.append([current, []])
            current = stack[-1][1]
        elif token == "/" and stack:
            stack[-1].append([])
            current = stack[-1][-1]
        elif token == "}" and stack:
            outer, *alternatives = stack.pop()
            outer.append(tuple(tuple(a) for a in alternatives))
            current = outer
        else:
            value, tagged = parse_token(token)
            current.extend(net_words(value, options, tagged=tagged))
    return current


def _alternation_tokens(text: str) -> list[str]:
    """The tokens of a transcript as sclite reads them: words, ``{``, ``}``, and inside braces ``/``
    (also when written against a word: ``{e/is}``)."""
    tokens: list[str] = []
    depth = 0
    for token in re.findall(r"[{}]|[^\s{}]+", text):
        if token in "{}":
            depth += 1 if token == "{" else -1
            tokens.append(token)
        elif depth > 0 and "/" in token:
            tokens.extend(piece for piece in re.split(r"(/)", token) if piece)
        else:
            tokens.append(token)
    return tokens


def timed_items(items: Sequence[TimedItem], options: StmOptions, confidence: bool) -> list[NetItem]:
    """Ctm words and ``<ALT_BEGIN>`` blocks as network items (an empty alternative is ``@``)."""
    out: list[NetItem] = []
    for item in items:
        if isinstance(item, TimedWord):
            out.extend(net_words(item.text, options, item, confidence))
        else:
            out.append(
                tuple(
                    tuple(x for w in alternative for x in net_words(w.text, options, w, confidence))
                    or (NetWord(NULL_ALT, 0.0, 0.0, 0.0 if confidence else None),)
                    for alternative in item.alternatives
                )
            )
    return out


def _row(pair: Pair, confidence: bool, weighted: bool = False) -> tuple:
    """A model row (with the words' weights when ``weighted``). An optionally deletable word left
    out (``C`` with one side empty) faces sclite's empty word, whose times, confidence and weight
    are 0."""
    ref, hyp = pair.ref, pair.hyp
    empty_ref = pair.op == "C" and ref is None
    empty_hyp = pair.op == "C" and hyp is None
    weights = ()
    if weighted:
        weights = (
            0.0 if empty_ref else ref.weight if ref is not None else None,
            0.0 if empty_hyp else hyp.weight if hyp is not None else None,
        )
    return (
        ref.text if ref is not None else None,
        hyp.text if hyp is not None else None,
        pair.op,
        0.0 if empty_ref else ref.begin if ref is not None else None,
        0.0 if empty_ref else ref.end if ref is not None else None,
        0.0 if empty_hyp else hyp.begin if hyp is not None else None,
        0.0 if empty_hyp else hyp.end if hyp is not None else None,
        (0.0 if confidence else None) if empty_hyp else hyp.confidence if hyp is not None else None,
        *weights,
    )


def score_stm_ctm(
    ref_path: str,
    hyp_path: str,
    title: str,
    options: StmOptions = StmOptions(),
    ref_text: str | None = None,
    hyp_text: str | None = None,
    sequence_start: int = 0,
) -> tuple[ScoredSystem, list[str]]:
    """One ctm system scored against an stm reference, and sclite's warnings for standard error.

    Paths are named in errors and in the model as given; the texts are read from them (in
    ``options.encoding``) unless given. Segments are numbered from ``sequence_start`` (sclite numbers
    the segments of all the systems of a run in one sequence). Labels and categories come from the
    ``;;`` headers of the reference, then of the hypothesis, each once.

    Segments are reported speaker by speaker (in order of first appearance). A segment whose words
    are plain on both sides (no alternation or ``<ALT_BEGIN>`` block, no ``@``, no optionally
    deletable word under -D, no fragment under -F, no -c) is aligned with the others in one call of
    :func:`pipeline.speech.dp.align_joined`, its columns taken from the readers' columns; the others
    go through :func:`align_all` as word networks.
    """
    ref_text = read_text(ref_path, ref_path, options.encoding) if ref_text is None else ref_text
    hyp_text = read_text(hyp_path, hyp_path, options.encoding) if hyp_text is None else hyp_text
    stm = parse_stm(ref_text, ref_path, options.fold)
    ctm = parse_ctm(hyp_text, hyp_path, options.fold)
    assignment = assign(stm, ctm, options.reduce_ref, options.reduce_hyp)
    hyp_labels, hyp_categories = comment_labels(hyp_text, hyp_path)
    labels = list(dict.fromkeys((x.id, x.title, x.description) for x in stm.labels + hyp_labels))
    categories = list(dict.fromkeys((x.id, x.title, x.description) for x in stm.categories + hyp_categories))
    scored = assignment.segment
    speaker_rank: dict[str, int] = {}
    speaker_code = np.array(
        [speaker_rank.setdefault(stm.speaker[s], len(speaker_rank)) for s in scored.tolist()]
    )
    order = np.argsort(speaker_code, kind="stable") if len(scored) else np.zeros(0, np.int64)
    segments = []
    for k in order.tolist():
        s = int(scored[k])
        label = stm.segment_labels[s]
        segments.append(
            Segment(
                f"({assignment.ids[k]})", stm.speaker[s], stm.file[s], stm.channel[s],
                float(stm.begin[s]), float(stm.end[s]),
                tuple(label[1:-1].split(",")) if label else (), sequence_start + k,
            )
        )  # fmt: skip
    columns = _stm_ctm_columns(stm, ctm, assignment, options)
    system = _system(
        columns,
        order,
        segments,
        title=title,
        ref_file=ref_path,
        hyp_file=hyp_path,
        ref_format="stm",
        hyp_format="ctm",
        labels=[LabelDef(*x) for x in labels],
        categories=[CategoryDef(*x) for x in categories],
        frag_corr=options.frag_corr,
        opt_del=options.opt_del,
    )
    _keep_times(system, ("hyp_t1", "hyp_t2") + (("hyp_conf",) if ctm.has_confidence else ()))
    _keep_weights(system, options.weights)
    return system, list(assignment.warnings)


@dataclass
class _Columns:
    """Every scored segment's pairs, segment ``k``'s at ``bounds[k]:bounds[k + 1]`` (in assignment
    order): words and sgml forms as numbers of ``strings`` (-1: none), times and confidences (NaN:
    none)."""

    strings: list[str]
    bounds: np.ndarray
    ref: np.ndarray
    hyp: np.ndarray
    ops: np.ndarray
    ref_t1: np.ndarray
    ref_t2: np.ndarray
    hyp_t1: np.ndarray
    hyp_t2: np.ndarray
    hyp_conf: np.ndarray
    ref_tagged: np.ndarray
    hyp_tagged: np.ndarray
    ref_weight: np.ndarray  # -w's word weights (NaN: none, or no -w)
    hyp_weight: np.ndarray


def _stm_ctm_columns(stm: Stm, ctm: Ctm, assignment: Assignment, options: StmOptions) -> _Columns:
    """The pairs of every scored segment (see :func:`score_stm_ctm`)."""
    strings: list[str] = []
    index: dict[str, int] = {}

    def number(text: str | None) -> int:
        if text is None:
            return -1
        found = index.get(text)
        if found is None:
            found = index[text] = len(strings)
            strings.append(text)
        return found

    # Reference tokens read once each: the word, its sgml form, whether it is plain.
    read = [parse_token(t) for t in stm.token_texts]
    token_word = np.array([number(v) for v, _ in read], np.int64)
    token_tagged = np.array([number(t) for _, t in read], np.int64)
    token_plain = np.array(
        [
            _plain_text(value, options) and "{" not in token and "}" not in token
            for (value, _), token in zip(read, stm.token_texts, strict=True)
        ],
        bool,
    )
    ctm_number = np.array([number(t) for t in ctm.texts], np.int64)
    ctm_plain = np.array([_plain_text(t, options) for t in ctm.texts], bool)
    n = len(assignment.ids)
    segment = assignment.segment
    token_from = stm.token_bounds[segment]
    token_count = stm.token_bounds[segment + 1] - token_from
    ref_tokens = stm.tokens[ranges(token_from, token_count)]
    item_count = np.diff(assignment.item_bounds)
    item_row = ctm.item_rows[assignment.items]
    row_plain = np.zeros(len(item_row), bool)
    single = ctm.item_rows[assignment.items + 1] - item_row == 1
    row_plain[single] = ctm_plain[np.maximum(ctm.word[item_row[single]], 0)] & (
        ctm.kind[item_row[single]] == WORD
    )
    ref_owner = np.repeat(np.arange(n), token_count)
    hyp_owner = np.repeat(np.arange(n), item_count)
    plain = np.ones(n, bool)
    plain[ref_owner[~token_plain[ref_tokens]]] = False
    plain[hyp_owner[~row_plain]] = False
    if options.char_align or options.weights is not None or options.segmentation is not None:
        plain[:] = False  # -c, -w and -S align every segment as networks
    bulk = np.flatnonzero(plain)
    confidence = ctm.has_confidence
    pieces: list[tuple[np.ndarray, ...]] = []  # per segment group: segments, bounds, then the columns
    if len(bulk):
        in_bulk = plain[ref_owner]
        ref_flat = token_word[ref_tokens[in_bulk]]
        ref_tag_flat = token_tagged[ref_tokens[in_bulk]]
        hyp_rows = item_row[plain[hyp_owner]]
        hyp_flat = ctm_number[ctm.word[hyp_rows]]
        batch = align_joined(ref_flat, token_count[bulk], hyp_flat, item_count[bulk])
        at_ref, at_hyp = batch.ref, batch.hyp
        has_ref, has_hyp = at_ref >= 0, at_hyp >= 0
        rows = np.where(has_hyp, hyp_rows[np.maximum(at_hyp, 0)] if len(hyp_rows) else 0, 0)
        none = np.full(len(at_ref), np.nan)
        begin = np.where(has_hyp, ctm.begin[rows] if len(ctm.begin) else none, np.nan)
        end = np.where(has_hyp, (ctm.begin + ctm.duration)[rows] if len(ctm.begin) else none, np.nan)
        conf = none
        if confidence:
            stated = ctm.confidence[rows] if len(ctm.confidence) else none
            conf = np.where(has_hyp, np.where(np.isnan(stated), 0.0, stated.astype(np.float32)), np.nan)
        pieces.append(
            (
                bulk,
                batch.bounds,
                np.where(has_ref, ref_flat[np.maximum(at_ref, 0)] if len(ref_flat) else -1, -1),
                np.where(has_hyp, hyp_flat[np.maximum(at_hyp, 0)] if len(hyp_flat) else -1, -1),
                batch.ops,
                none,
                none,
                begin,
                end,
                conf,
                np.where(has_ref, ref_tag_flat[np.maximum(at_ref, 0)] if len(ref_tag_flat) else -1, -1),
                _hyp_tagged(ctm, rows, ctm_number, has_hyp),
                none,
                none,
            )
        )
    others = np.flatnonzero(~plain)
    if len(others):
        items = ctm.items(assignment.items[~plain[hyp_owner]])
        bounds = np.concatenate(([0], np.cumsum(item_count[others]))).tolist()
        units = [
            (text_items(stm.text(int(segment[k])), options), timed_items(items[a:b], options, confidence))
            for k, a, b in zip(others.tolist(), bounds[:-1], bounds[1:], strict=True)
        ]
        aligned = align_all(units, weights=options.weights, segmentation=options.segmentation)
        pieces.append(_network_piece(others, aligned, number, confidence, options.weights is not None))
    return _join(pieces, n, strings)


def _plain_text(text: str, options: StmOptions) -> bool:
    """Whether a word is aligned as a plain word (see :func:`_plain`): not the empty alternative
    ``@``, not optionally deletable under -D, not a fragment under -F."""
    return _plain(net_words(text, options))


def _hyp_tagged(ctm: Ctm, rows: np.ndarray, ctm_number: np.ndarray, present: np.ndarray) -> np.ndarray:
    """The string numbers of the sgml forms of the ctm words ``rows`` (-1: none, or no word)."""
    tag = ctm.tagged[rows] if len(ctm.tagged) else np.full(len(rows), -1)
    return np.where(present & (tag >= 0), ctm_number[np.maximum(tag, 0)] if len(ctm_number) else -1, -1)


def _network_piece(
    segments: np.ndarray,
    aligned: list[list[Pair]],
    number: Callable[[str | None], int],
    confidence: bool,
    weighted: bool = False,
) -> tuple[np.ndarray, ...]:
    """The columns of segments aligned as networks (as :func:`_stm_ctm_columns`' pieces)."""
    pairs = [p for one in aligned for p in one]
    rows = [_row(p, confidence, weighted) for p in pairs]

    def floats(i: int) -> np.ndarray:
        return np.array([np.nan if r[i] is None else r[i] for r in rows], np.float64)

    return (
        segments,
        np.concatenate(([0], np.cumsum([len(one) for one in aligned]))).astype(np.int64),
        np.array([number(r[0]) for r in rows], np.int64),
        np.array([number(r[1]) for r in rows], np.int64),
        np.frombuffer("".join(r[2] for r in rows).encode("ascii"), np.uint8),
        *(floats(i) for i in range(3, 8)),
        np.array([number(p.ref.tagged if p.ref else None) for p in pairs], np.int64),
        np.array([number(p.hyp.tagged if p.hyp else None) for p in pairs], np.int64),
        *((floats(8), floats(9)) if weighted else (np.full(len(rows), np.nan),) * 2),
    )


def _join(pieces: list[tuple[np.ndarray, ...]], n: int, strings: list[str]) -> _Columns:
    """The pieces' columns (each: its segments, their bounds, then the columns) in segment order."""
    sizes = np.zeros(n, np.int64)
    start = np.zeros(n, np.int64)
    offset = 0
    for piece in pieces:
        segments, bounds = piece[0], piece[1]
        sizes[segments] = np.diff(bounds)
        start[segments] = bounds[:-1] + offset
        offset += int(bounds[-1])
    taken = ranges(start, sizes)
    kinds = (np.int64, np.int64, np.uint8) + (np.float64,) * 5 + (np.int64, np.int64) + (np.float64,) * 2
    columns = [
        np.concatenate([piece[c] for piece in pieces]).astype(kind, copy=False)[taken]
        if pieces
        else np.zeros(0, kind)
        for c, kind in zip(range(2, 14), kinds, strict=True)
    ]
    return _Columns(strings, np.concatenate(([0], np.cumsum(sizes))).astype(np.int64), *columns)


def _system(columns: _Columns, order: np.ndarray, segments: list[Segment], **fields: object) -> ScoredSystem:
    """The system of ``columns`` with its segments in ``order``. Texts are numbered as
    :class:`SystemBuilder` numbers them: words in order of first sight along the pairs (reference,
    then hypothesis), then the sgml forms (all the reference's, then the hypothesis')."""
    sizes = np.diff(columns.bounds)[order]
    taken = ranges(columns.bounds[:-1][order], sizes)
    c = {
        name: getattr(columns, name)[taken]
        for name in (
            "ref",
            "hyp",
            "ops",
            "ref_t1",
            "ref_t2",
            "hyp_t1",
            "hyp_t2",
            "hyp_conf",
            "ref_tagged",
            "hyp_tagged",
            "ref_weight",
            "hyp_weight",
        )
    }
    renumber = np.full(len(columns.strings) + 1, -1, np.int64)  # the last entry: -1 stays -1
    texts: list[str] = []

    def number_in_order(sequence: np.ndarray) -> None:
        seen = sequence[sequence >= 0]
        seen = seen[renumber[seen] < 0]
        distinct, first = np.unique(seen, return_index=True)
        fresh = distinct[np.argsort(first)]
        renumber[fresh] = len(texts) + np.arange(len(fresh))
        texts.extend(columns.strings[k] for k in fresh.tolist())

    words = np.empty(2 * len(c["ref"]), np.int64)
    words[0::2], words[1::2] = c["ref"], c["hyp"]
    number_in_order(words)
    tagged = bool((c["ref_tagged"] >= 0).any() or (c["hyp_tagged"] >= 0).any())
    if tagged:
        number_in_order(np.concatenate((c["ref_tagged"], c["hyp_tagged"])))

    def floats(values: np.ndarray) -> np.ndarray | None:
        return None if not len(values) or np.isnan(values).all() else values

    return ScoredSystem(
        segments=segments,
        bounds=np.concatenate(([0], np.cumsum(sizes))).astype(np.int64),
        ref=renumber[c["ref"]],
        hyp=renumber[c["hyp"]],
        ops=c["ops"],
        texts=texts,
        ref_t1=floats(c["ref_t1"]),
        ref_t2=floats(c["ref_t2"]),
        hyp_t1=floats(c["hyp_t1"]),
        hyp_t2=floats(c["hyp_t2"]),
        hyp_conf=floats(c["hyp_conf"]),
        ref_tagged=renumber[c["ref_tagged"]] if tagged else None,
        hyp_tagged=renumber[c["hyp_tagged"]] if tagged else None,
        ref_weight=floats(c["ref_weight"]),
        hyp_weight=floats(c["hyp_weight"]),
        **fields,  # type: ignore[arg-type]
    )


def align_all(
    units: Sequence[tuple[list[NetItem], list[NetItem]]],
    time_mediated: bool = False,
    weights: WordWeights | None = None,
    segmentation: Segmentation | None = None,
) -> list[list[Pair]]:
    """Each unit's two sides (network items) aligned as :func:`pipeline.speech.netdp.align_networks`
    aligns them: with the words' ``weights`` (``-w``), with one side segmented by the lexicon
    (``-S``, ``pipeline.speech.sclite.segmentation``). Units of plain words on both sides (no
    alternative, no ``@``, no optionally deletable word, no fragment) and without ``-T``, ``-w`` or
    ``-S`` go together through :func:`pipeline.speech.dp.align_batch`: the same costs (sclite's 4, 3,
    3 with whole words compared) and the same choice among alignments of equal cost."""
    out: list[list[Pair] | None] = [None] * len(units)
    bulk: list[int] = []
    if not time_mediated and weights is None and segmentation is None:
        bulk = [k for k, (ref, hyp) in enumerate(units) if _plain(ref) and _plain(hyp)]
    in_bulk = set(bulk)
    for k, (ref, hyp) in enumerate(units):
        if k not in in_bulk:
            out[k] = align_unit(ref, hyp, time_mediated, weights, segmentation)
    if bulk:
        vocabulary = Vocabulary()
        refs = [vocabulary.ids([w.text for w in units[k][0]]) for k in bulk]
        hyps = [vocabulary.ids([w.text for w in units[k][1]]) for k in bulk]
        batch = align_batch(refs, hyps)
        ref_words = [w for k in bulk for w in units[k][0]]
        hyp_words = [w for k in bulk for w in units[k][1]]
        ops = batch.ops.tobytes().decode("ascii")
        columns = list(zip(batch.ref.tolist(), batch.hyp.tolist(), ops, strict=True))
        bounds = batch.bounds.tolist()
        for d, k in enumerate(bulk):
            out[k] = [
                Pair(ref_words[r] if r >= 0 else None, hyp_words[h] if h >= 0 else None, op)
                for r, h, op in columns[bounds[d] : bounds[d + 1]]
            ]
    return out  # type: ignore[return-value]


def align_unit(
    ref: list[NetItem],
    hyp: list[NetItem],
    time_mediated: bool,
    weights: WordWeights | None,
    segmentation: Segmentation | None,
) -> list[Pair]:
    """One unit's two sides through sclite's network alignment (see :func:`align_all`)."""
    if segmentation is None:
        ref_net, hyp_net = network(ref), network(hyp)
    else:
        from iescore.pipeline.speech.sclite.segmentation import segmented_network

        def split(word: str, keep_ascii_runs: bool) -> list[str]:
            return separate_chars(word, keep_ascii_runs, False, segmentation.characters)

        if segmentation.algorithm == "algo1":
            ref_net, hyp_net = network(ref), segmented_network(hyp, segmentation, split)
        else:
            ref_net, hyp_net = segmented_network(ref, segmentation, split), network(hyp)
    if weights is not None:
        from iescore.pipeline.speech.sclite.weights import weigh

        ref_net, hyp_net = weigh(ref_net, weights), weigh(hyp_net, weights)
    return align_networks(ref_net, hyp_net, time_mediated, weighted=weights is not None)


def _keep_weights(system: ScoredSystem, weights: WordWeights | None) -> None:
    """Under ``-w`` the system names its weights and has its weight columns (all NaN without words)."""
    if weights is None:
        return
    system.weight_file = weights.description
    for name in ("ref_weight", "hyp_weight"):
        if getattr(system, name) is None:
            setattr(system, name, np.full(len(system.ops), np.nan))


def _plain(items: Sequence[NetItem]) -> bool:
    return all(
        isinstance(item, NetWord) and not item.opt_del and not item.frag and item.text != NULL_ALT
        for item in items
    )


def _add_tagged(
    system: ScoredSystem, builder: SystemBuilder, tagged: list[tuple[str | None, str | None]]
) -> None:
    """The sgml forms of the words read with ``;tags`` (``ScoredSystem.ref_tagged``, ``hyp_tagged``)."""
    if not any(r or h for r, h in tagged):
        return
    system.ref_tagged = np.array([builder.word(r) if r else -1 for r, _ in tagged], np.int64)
    system.hyp_tagged = np.array([builder.word(h) if h else -1 for _, h in tagged], np.int64)


def _keep_times(system: ScoredSystem, columns: Sequence[str]) -> None:
    """A side read from a ctm has times (and confidences) even when no word of it was scored:
    sclite then still prints its empty time rows, so the columns stay, all NaN, rather than None."""
    for name in columns:
        if getattr(system, name) is None:
            setattr(system, name, np.full(len(system.ops), np.nan))


# -- ctm reference (sclite's ctm2ctm) ------------------------------------------------------------------


@dataclass(frozen=True)
class _Token:
    """A ctm line as sclite's word table holds it: markers have times 0 and ``alternate`` set, as do
    the words inside a block."""

    t1: float
    dur: float
    alternate: bool
    marker: str = ""  # "<alt_begin>", "<alt>", "<alt_end>" or ""
    word: TimedWord | None = None


def _tokens(items: Sequence[TimedItem]) -> list[_Token]:
    out: list[_Token] = []
    for item in items:
        if isinstance(item, TimedWord):
            out.append(_Token(item.begin, item.duration, False, word=item))
            continue
        out.append(_Token(0.0, 0.0, True, "<alt_begin>"))
        for k, alternative in enumerate(item.alternatives):
            if k:
                out.append(_Token(0.0, 0.0, True, "<alt>"))
            out.extend(_Token(w.begin, w.duration, True, word=w) for w in alternative)
        out.append(_Token(0.0, 0.0, True, "<alt_end>"))
    return out


def _overlap(s1_t1: float, s1_t2: float, s2_t1: float, s2_t2: float) -> float:
    """sclite's ``overlap`` of two time spans as it computes it: only its cases 3 and 4 take effect
    (its disjoint cases are overwritten), so a span before the other gives a negative value only
    through those formulas."""
    if s1_t1 < s2_t1:
        return (s1_t2 - s2_t1) if s1_t2 < s2_t2 else (s2_t2 - s2_t1)
    return (s1_t2 - s1_t1) if s1_t2 < s2_t2 else (s2_t2 - s1_t1)


def _chop(
    ref: list[_Token], hyp: list[_Token], r_start: int, h_start: int, r_conv: int, h_conv: int, max_words: int
) -> tuple[int, int] | None:
    """sclite's ``chop_WTOKE_2``: where the next chunk of a ctm-against-ctm alignment ends (indexes
    into 1-based token lists), cut in a pause common to both sides; None to try longer chunks."""

    def t1(side: list[_Token], i: int) -> float:
        return side[i].t1

    def t2(side: list[_Token], i: int) -> float:
        return side[i].t1 + side[i].dur

    if r_start > r_conv and h_start > h_conv:
        return None
    if r_conv - r_start < max_words and h_conv - h_start < max_words:
        return r_conv, h_conv
    r_end = min(r_start + max_words, r_conv)
    h_end = min(h_start + max_words, h_conv)
    while r_end >= r_start and ref[r_end].alternate:
        r_end -= 1
    skipped = True
    while skipped:
        skipped = False
        if t1(ref, r_end) > t1(hyp, h_end):
            while (
                not skipped
                and r_end >= r_start
                and t1(ref, r_end) > t1(hyp, h_end)
                and _overlap(t1(ref, r_end), t2(ref, r_end), t1(hyp, h_end), t2(hyp, h_end)) < 0.0
            ):
                r_end -= 1
                while r_end >= r_start and ref[r_end].alternate:
                    r_end -= 1
                    skipped = True
        elif t1(ref, r_end) < t1(hyp, h_end):
            while (
                h_end >= h_start
                and t1(ref, r_end) < t1(hyp, h_end)
                and _overlap(t1(ref, r_end), t2(ref, r_end), t1(hyp, h_end), t2(hyp, h_end)) < 0.0
            ):
                h_end -= 1
    while r_end > r_start and h_end > h_start:
        r_gap1 = t2(ref, r_end)
        r_gap2 = 999999.99 if r_end == r_conv else t1(ref, r_end + 1)
        h_gap1 = t2(hyp, h_end)
        h_gap2 = 999999.99 if h_end == h_conv else t1(hyp, h_end + 1)
        if _overlap(r_gap1, r_gap2, h_gap1, h_gap2) >= 0.0:
            return r_end, h_end
        skipped = True
        while skipped:
            skipped = False
            if t1(ref, r_end) > t1(hyp, h_end):
                if r_end > r_start:
                    r_end -= 1
                    while r_end >= r_start and ref[r_end].alternate:
                        r_end -= 1
                        skipped = True
                while (
                    not skipped
                    and h_end >= h_start
                    and t1(ref, r_end) < t1(hyp, h_end)
                    and _overlap(t1(ref, r_end), t2(ref, r_end), t1(hyp, h_end), t2(hyp, h_end)) < 0.0
                ):
                    h_end -= 1
            else:
                if h_end > h_start:
                    h_end -= 1
                while (
                    not skipped
                    and r_end >= r_start
                    and t1(ref, r_end) > t1(hyp, h_end)
                    and _overlap(t1(ref, r_end), t2(ref, r_end), t1(hyp, h_end), t2(hyp, h_end)) < 0.0
                ):
                    r_end -= 1
                    while r_end >= r_start and ref[r_end].alternate:
                        r_end -= 1
                        skipped = True
    if r_end > r_start or h_end > h_start:
        return r_end, h_end
    return None


def _token_items(tokens: Sequence[_Token], options: StmOptions, confidence: bool) -> list[NetItem]:
    """Network items of a run of tokens (sclite's ``Network_create_from_WTOKE``)."""
    out: list[NetItem] = []
    alternatives: list[list[NetItem]] | None = None
    for token in tokens:
        if token.marker == "<alt_begin>":
            alternatives = [[]]
        elif token.marker == "<alt>" and alternatives is not None:
            alternatives.append([])
        elif token.marker == "<alt_end>" and alternatives is not None:
            out.append(
                tuple(
                    tuple(a) or (NetWord(NULL_ALT, 0.0, 0.0, 0.0 if confidence else None),)
                    for a in alternatives
                )
            )
            alternatives = None
        elif token.word is not None:
            words = net_words(token.word.text, options, token.word, confidence)
            (alternatives[-1] if alternatives is not None else out).extend(words)
    if alternatives is not None:  # a block cut by the chunk's end: what was read of it
        out.append(tuple(tuple(a) for a in alternatives if a))
    return out


def _time_of(pair: Pair) -> float:
    word = pair.ref if pair.op == "D" else pair.hyp
    return word.begin if word is not None and word.begin is not None else 0.0


def sort_time_marks(pairs: list[Pair]) -> list[Pair]:
    """sclite's ``sort_PATH_time_marks``: each run of insertions and deletions in time order."""
    out: list[Pair] = []
    run: list[Pair] = []
    for pair in pairs + [Pair(None, None, "C")]:
        if pair.op in "ID":
            run.append(pair)
            continue
        out.extend(sorted(run, key=_time_of))
        run = []
        out.append(pair)
    return out[:-1]


def score_ctm_ctm(
    ref_path: str,
    hyp_path: str,
    title: str,
    options: StmOptions = StmOptions(),
    time_mediated: bool = False,
    ref_text: str | None = None,
    hyp_text: str | None = None,
    sequence_start: int = 0,
) -> ScoredSystem:
    """A ctm system scored against a ctm reference, as sclite does: file by file, channel by
    channel (the first and second run of a file), in chunks cut where both sides pause, each chunk
    one segment ``(file-channel-NNNN)``; ``time_mediated`` is ``-T``.

    InputErrors where sclite stops: the files of the two ctms out of step, a file with a second
    channel on one side only.
    """
    ref_text = read_text(ref_path, ref_path, options.encoding) if ref_text is None else ref_text
    hyp_text = read_text(hyp_path, hyp_path, options.encoding) if hyp_text is None else hyp_text
    ref_ctm = parse_ctm(ref_text, ref_path, options.fold)
    hyp_ctm = parse_ctm(hyp_text, hyp_path, options.fold)
    ref_files = _by_file(ref_ctm.channels)
    hyp_files = _by_file(hyp_ctm.channels)
    builder = SystemBuilder()
    sequence = sequence_start
    tagged: list[tuple[str | None, str | None]] = []
    segments: list[Segment] = []
    units: list[tuple[list[NetItem], list[NetItem]]] = []
    for k in range(max(len(ref_files), len(hyp_files))):
        if k >= len(ref_files) or k >= len(hyp_files):
            longer, path = (hyp_files, hyp_path) if k < len(hyp_files) else (ref_files, ref_path)
            other = ref_path if longer is hyp_files else hyp_path
            raise InputError(
                path, longer[k][0].line, f"file '{longer[k][0].file}' is past the end of {other}"
            )
        ref_channels, hyp_channels = ref_files[k], hyp_files[k]
        if ref_channels[0].file != hyp_channels[0].file:
            raise InputError(
                hyp_path,
                hyp_channels[0].line,
                f"file '{hyp_channels[0].file}' where {ref_path} has '{ref_channels[0].file}' "
                "(the two ctms must list the same files in the same order)",
            )
        if len(ref_channels[:2]) != len(hyp_channels[:2]):
            short, path = (hyp_channels, hyp_path) if len(hyp_channels) < 2 else (ref_channels, ref_path)
            raise InputError(
                path, short[0].line, f"file '{short[0].file}' lacks the second channel of the other ctm"
            )
        for ref_channel, hyp_channel in zip(ref_channels[:2], hyp_channels[:2], strict=True):
            ref_tokens = [_Token(0.0, 0.0, False), *_tokens(ref_channel.items)]
            hyp_tokens = [_Token(0.0, 0.0, False), *_tokens(hyp_channel.items)]
            r_begin, h_begin = 1, 1
            r_end, h_end = len(ref_tokens) - 1, len(hyp_tokens) - 1
            chunk = 0
            speaker = f"{ref_channel.file}-{ref_channel.channel}"
            while r_begin <= r_end or h_begin <= h_end:
                length = 50
                while (cut := _chop(ref_tokens, hyp_tokens, r_begin, h_begin, r_end, h_end, length)) is None:
                    length *= 2
                r_cut, h_cut = cut
                ref_items = _token_items(ref_tokens[r_begin : r_cut + 1], options, ref_ctm.has_confidence)
                hyp_items = _token_items(hyp_tokens[h_begin : h_cut + 1], options, hyp_ctm.has_confidence)
                units.append((ref_items, hyp_items))
                segments.append(
                    Segment(
                        f"({speaker}-{chunk:04d})",
                        speaker,
                        ref_channel.file,
                        ref_channel.channel,
                        sequence=sequence,
                    )
                )
                r_begin, h_begin = r_cut + 1, h_cut + 1
                chunk += 1
                sequence += 1
    # Each channel is one speaker: the segments are in sclite's order.
    weighted = options.weights is not None
    for segment, aligned in zip(segments, align_all(units, time_mediated, options.weights), strict=True):
        pairs = sort_time_marks(aligned)
        builder.add(segment, [_row(p, hyp_ctm.has_confidence, weighted) for p in pairs])
        tagged.extend((p.ref.tagged if p.ref else None, p.hyp.tagged if p.hyp else None) for p in pairs)
    system = builder.build(
        title=title,
        ref_file=ref_path,
        hyp_file=hyp_path,
        ref_format="ctm",
        hyp_format="ctm",
        frag_corr=options.frag_corr,
        opt_del=options.opt_del,
    )
    _keep_times(
        system,
        ("ref_t1", "ref_t2", "hyp_t1", "hyp_t2") + (("hyp_conf",) if hyp_ctm.has_confidence else ()),
    )
    _keep_weights(system, options.weights)
    _add_tagged(system, builder, tagged)
    return system


def _by_file(channels: Sequence) -> list[list]:
    files: list[list] = []
    for channel in channels:
        if files and files[-1][0].file == channel.file:
            files[-1].append(channel)
        else:
            files.append([channel])
    return files


def byte_characters(encoding: str) -> Callable[[str], list[str]]:
    """The characters of a word held one byte a character (``pipeline.speech.sclite.trn``), as
    sclite's ``TEXT_nbytes_of_char`` counts them: UTF-8 by its lead bytes, ``gb`` and ``euc`` two
    bytes from a byte with the high bit set, otherwise one byte each."""

    def size(code: int) -> int:
        byte = code - 0x100 if code >= 0x100 else code
        if byte < 0x80:
            return 1
        if encoding in ("gb", "euc"):
            return 2
        if encoding == "utf-8":
            return 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
        return 1

    def characters(word: str) -> list[str]:
        out, k = [], 0
        while k < len(word):
            n = size(ord(word[k]))
            out.append(word[k : k + n])
            k += n
        return out

    return characters
