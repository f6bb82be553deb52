"""trn reference and hypotheses scored as sclite 2.10 scores them (``-r FILE trn -h FILE trn``).

Text is held as sclite holds it: bytes, one character a byte (:func:`decode_bytes`; column widths
count bytes, as sclite's do), written back unchanged (:func:`encode_text`). Bytes from 0x80 become
letters of U+0180..U+01FF, never blanks, so that words split at ASCII blanks only, as sclite's.
Case folding is sclite's:
ASCII letters only unless a localization (``-e utf-8 babel_turkish``...) says otherwise, and none
under ``-s``. The hypothesis drives: its utterances are scored in its order, grouped by speaker in
order of first appearance; reference utterances without a hypothesis are not scored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from iescore.pipeline.core.arrays import ranges
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.align import AlignOptions
from iescore.pipeline.speech.sclite.model import ScoredSystem, Segment
from iescore.pipeline.speech.transcripts import Lexicon, align_transcripts, read_trn

if TYPE_CHECKING:
    from iescore.pipeline.speech.sclite.segmentation import Segmentation
    from iescore.pipeline.speech.sclite.weights import WordWeights

_HIGH = {b: 0x100 + b for b in range(0x80, 0x100)}
_BACK = {0x100 + b: b for b in range(0x80, 0x100)}


def decode_bytes(data: bytes) -> str:
    """File bytes as text, one character a byte (see the module's docstring)."""
    return data.decode("latin-1").translate(_HIGH)


def encode_text(text: str) -> bytes:
    """The bytes of text made by :func:`decode_bytes`."""
    return text.translate(_BACK).encode("latin-1")


def shown(text: str) -> str:
    """Text made by :func:`decode_bytes` as a message shows it: its bytes read as UTF-8."""
    return encode_text(text).decode("utf-8", errors="replace")


_ASCII_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz").decode("latin-1")
_ASCII_UPPER = bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ").decode("latin-1")
_LOWER_TABLE = {i: ord(_ASCII_LOWER[i]) for i in range(65, 91)}
_UPPER_TABLE = {i: ord(_ASCII_UPPER[i]) for i in range(97, 123)}


def ascii_lower(text: str) -> str:
    return text.translate(_LOWER_TABLE)


def ascii_upper(text: str) -> str:
    return text.translate(_UPPER_TABLE)


@dataclass(frozen=True)
class Encoding:
    """``-e ENCODING [LOCALIZATION]``: how case folds (text stays bytes)."""

    name: str = ""  # "" (8-bit ASCII), utf-8, gb, euc
    localization: str = ""  # generic, babel_turkish, babel_vietnamese, ukrainian

    def lower(self, text: str) -> str:
        if self.name != "utf-8" or self.localization in ("", "generic"):
            return ascii_lower(text)
        return _unicode_case(text, self.localization, upper=False)

    def upper(self, text: str) -> str:
        if self.name != "utf-8" or self.localization in ("", "generic"):
            return ascii_upper(text)
        return _unicode_case(text, self.localization, upper=True)


# sclite 2.10's case pairs (upper, lower) beyond ASCII for each localization of ``-e utf-8``; any other
# character keeps its case, but for ASCII letters.
_VIETNAMESE_UPPER = "ĐÁÀẢÃẠĂẮẰẲẴẶÂẤẦẨẪẬÉÈẺẼẸÊẾỀỂỄỆÍÌỈĨỊÓÒỎÕỌƠỚỜỞỠỢÔỐỒỔỖỘÚÙỦŨỤƯỨỪỬỮỰÝỲỶỸỴ"
_PAIRS = {
    "babel_turkish": [("Ç", "ç"), ("Ö", "ö"), ("Ü", "ü"), ("İ", "i"), ("I", "ı"), ("Ğ", "ğ"), ("Ş", "ş")],
    "babel_vietnamese": [(c, c.lower()) for c in _VIETNAMESE_UPPER],
    "ukrainian": [
        (chr(c), chr(c).lower()) for c in range(0x400, 0x500) if chr(c).isupper() and len(chr(c).lower()) == 1
    ],
}
_PAIRS["ukranian"] = _PAIRS["ukrainian"]
_TO_LOWER = {name: {u: lo for u, lo in pairs} for name, pairs in _PAIRS.items()}
_TO_UPPER = {name: {lo: u for u, lo in pairs} for name, pairs in _PAIRS.items()}


def _unicode_case(text: str, localization: str, upper: bool) -> str:
    """Case change of UTF-8 text (held one character a byte) under a localization, as sclite:
    the localization's pairs first, then ASCII letters; anything else unchanged."""
    try:
        decoded = encode_text(text).decode("utf-8")
    except UnicodeDecodeError:
        return ascii_upper(text) if upper else ascii_lower(text)
    table = (_TO_UPPER if upper else _TO_LOWER).get(localization, {})
    ascii_case = ascii_upper if upper else ascii_lower
    changed = "".join(table.get(ch) or (ascii_case(ch) if ch < "\x80" else ch) for ch in decoded)
    return decode_bytes(changed.encode("utf-8"))


ASCII = Encoding()  # sclite's default: 8-bit text, ASCII letters fold


@dataclass(frozen=True)
class TrnOptions:
    """What changes how trn text is scored: ``id_type`` (-i), ``case_sensitive`` (-s),
    ``encoding`` (-e), ``opt_del`` (-D), ``frag_corr`` (-F), ``char_align`` and its two flags (-c),
    ``weights`` (-w), ``segmentation`` (-S)."""

    id_type: str = "wsj"
    case_sensitive: bool = False
    encoding: Encoding = ASCII
    opt_del: bool = False
    frag_corr: bool = False
    char_align: bool = False  # -c: words split into characters (all utterances go to the network aligner)
    char_no_ascii: bool = False  # -c NOASCII
    char_del_hyphen: bool = False  # -c DH
    weights: WordWeights | None = None  # -w: word-weight mediated alignment (every utterance a network)
    segmentation: Segmentation | None = None  # -S: inferred word segmentation (every utterance a network)

    def fold(self, text: str) -> str:
        return text if self.case_sensitive else self.encoding.lower(text)

    @property
    def fold_by_character(self) -> bool:
        """Whether folding a text folds each character alone (ASCII letters), so that a whole
        file folds as its lines do."""
        return (
            self.case_sensitive
            or self.encoding.name != "utf-8"
            or self.encoding.localization in ("", "generic")
        )


def speaker_of(uid: str, id_type: str, source: str, line: int) -> str:
    """The speaker of utterance id ``uid`` (without parentheses) as sclite's ``-i`` reads it."""
    if id_type == "sp":
        return "(" + uid + ")"
    if id_type in ("wsj", "atis"):
        return uid[:3]
    cut = uid.find("-")
    if cut < 0:
        cut = uid.find("_")
    if cut < 0:
        raise InputError(
            source, line, f"utterance id ({uid}): expected a speaker before '-' or '_' (-i {id_type})"
        )
    return uid[:cut]


def read_text(path: str) -> str:
    """A file's bytes as text, one character a byte (:func:`decode_bytes`)."""
    with open(encode_text(path), "rb") as handle:
        return decode_bytes(handle.read())


def score_trn(
    ref_path: str,
    hyp_path: str,
    title: str,
    options: TrnOptions,
    ref_text: str | None = None,
    hyp_text: str | None = None,
    sequence_start: int = 0,
) -> ScoredSystem:
    """Align the hypothesis ``hyp_path`` with the reference ``ref_path`` (both trn). Segments are
    numbered (``Segment.sequence``) from ``sequence_start``: sclite numbers the segments of all the
    systems of a run in one sequence."""
    ref_text = read_text(ref_path) if ref_text is None else ref_text
    hyp_text = read_text(hyp_path) if hyp_text is None else hyp_text
    lexicon = Lexicon()
    fold: Callable[[str], str] | None = options.fold
    if options.fold_by_character:  # folded whole, once, as line by line
        ref_text, hyp_text, fold = options.fold(ref_text), options.fold(hyp_text), None
    refs = read_trn(ref_text, ref_path, lexicon, reference=True, fold=fold)
    hyps = read_trn(hyp_text, hyp_path, lexicon, reference=False, fold=fold)
    align_options = AlignOptions("levenshtein", None, None, key=_identity)
    aligned = align_transcripts(refs, hyps, lexicon, align_options, ref_path, hyp_path, allow_missing=True)
    present = len(hyps.ids)
    speakers: dict[str, int] = {}
    groups: list[list[int]] = []
    for k, (uid, line) in enumerate(zip(hyps.ids, hyps.lines, strict=True)):
        speaker = speaker_of(uid, options.id_type, hyp_path, line)
        if speaker not in speakers:
            speakers[speaker] = len(groups)
            groups.append([])
        groups[speakers[speaker]].append(k)
    order = np.fromiter((k for group in groups for k in group), np.int64, present)
    names = list(speakers)
    speaker_of_utt = [""] * present
    for g, group in enumerate(groups):
        for k in group:
            speaker_of_utt[k] = names[g]
    # Each utterance's columns: its bulk alignment's, or (aligned as networks) columns appended.
    starts = aligned.bounds[:present].copy()
    sizes = aligned.bounds[1 : present + 1] - starts
    none = np.full(len(aligned.ops), -1, np.int64)
    columns = [[aligned.ref], [aligned.hyp], [aligned.ops], [none], [none]]
    weighted = options.weights is not None
    if weighted:  # every utterance is aligned as a network: no bulk column is taken
        columns += [[np.full(len(aligned.ops), np.nan)], [np.full(len(aligned.ops), np.nan)]]
    appended = len(aligned.ops)
    special = _network_utterances(ref_text, hyp_text, hyps.ids, options)
    for k, uid in enumerate(hyps.ids):
        words = special.get(uid)
        if words is not None:
            piece = _network_columns(*words, options, lexicon)
            piece = piece if weighted else piece[:5]
            starts[k], sizes[k] = appended, len(piece[2])
            appended += len(piece[2])
            for column, values in zip(columns, piece, strict=True):
                column.append(values)
    taken = ranges(starts[order], sizes[order])
    ref, hyp, ops, ref_tags, hyp_tags, *weight_columns = (np.concatenate(column)[taken] for column in columns)
    tagged = bool((ref_tags >= 0).any() or (hyp_tags >= 0).any())
    segments = [
        Segment(id="(" + hyps.ids[k] + ")", speaker=speaker_of_utt[k], sequence=sequence_start + k)
        for k in order.tolist()
    ]
    return ScoredSystem(
        title=title,
        ref_file=ref_path,
        hyp_file=hyp_path,
        ref_format="trn",
        hyp_format="trn",
        case_sensitive=options.case_sensitive,
        segments=segments,
        bounds=np.concatenate(([0], np.cumsum(sizes[order]))).astype(np.int64),
        ref=ref,
        hyp=hyp,
        ops=ops,
        texts=lexicon.texts,
        frag_corr=options.frag_corr,
        opt_del=options.opt_del,
        ref_tagged=ref_tags if tagged else None,
        hyp_tagged=hyp_tags if tagged else None,
        ref_weight=weight_columns[0] if weighted else None,
        hyp_weight=weight_columns[1] if weighted else None,
        weight_file=options.weights.description if options.weights is not None else None,
    )


def _words_by_id(text: str, fold: Callable[[str], str]) -> dict[str, str]:
    """Each utterance's words (folded) by its id, for the utterances aligned as networks."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        end = line.rstrip()
        if not end or end.lstrip().startswith(";;") or end[-1] != ")":
            continue
        k = end.rfind("(")
        if k >= 0:
            out.setdefault(fold(end[k + 1 : -1]), fold(end[:k]))
    return out


def _needs_network(words: str, options: TrnOptions) -> bool:
    return (
        "{" in words
        or ";" in words
        or "@" in words
        or (options.opt_del and "(" in words)
        or (options.frag_corr and "-" in words)
        or options.char_align
        or options.weights is not None
        or options.segmentation is not None
    )


def _network_utterances(
    ref_text: str, hyp_text: str, ids: list[str], options: TrnOptions
) -> dict[str, tuple[str, str]]:
    """The utterances sclite's network alignment must align (alternations on either side, the
    empty word ``@``, ``;`` word tags, ``(word)`` under -D, fragments under -F): their reference
    and hypothesis words by id; under -w and -S every utterance. The others are aligned in bulk, with the
    same result."""
    if not any(c in ref_text or c in hyp_text for c in "{;@") and not (
        options.opt_del
        or options.frag_corr
        or options.char_align
        or options.weights is not None
        or options.segmentation is not None
    ):
        return {}
    refs = _words_by_id(ref_text, options.fold)
    hyps = _words_by_id(hyp_text, options.fold)
    out = {}
    for uid in ids:
        ref_words, hyp_words = refs.get(uid, ""), hyps.get(uid, "")
        if _needs_network(ref_words, options) or _needs_network(hyp_words, options):
            out[uid] = (ref_words, hyp_words)
    return out


def _network_columns(
    ref_words: str, hyp_words: str, options: TrnOptions, lexicon: Lexicon
) -> tuple[np.ndarray, ...]:
    """One utterance aligned by ``pipeline.speech.netdp`` (sclite's network alignment), as columns:
    reference, hypothesis, op, the sgml form of words read with ``;`` tags (-1: none), and the
    reference and hypothesis words' weights (NaN: no word; 0 for sclite's empty word)."""
    from iescore.pipeline.speech.stm_score import StmOptions, align_unit, byte_characters, text_items

    net_options = StmOptions(
        opt_del=options.opt_del,
        frag_corr=options.frag_corr,
        char_align=options.char_align,
        characters=byte_characters(options.encoding.name),
        char_no_ascii=options.char_no_ascii,
        char_del_hyphen=options.char_del_hyphen,
    )
    if options.segmentation is not None:  # -S splits words itself, whatever -c says
        net_options = replace(net_options, char_align=False)
    pairs = align_unit(
        text_items(ref_words, net_options),
        text_items(hyp_words, net_options),
        False,
        options.weights,
        options.segmentation,
    )
    texts = [p.ref.text if p.ref is not None else "" for p in pairs] + [
        p.hyp.text if p.hyp is not None else "" for p in pairs
    ]
    numbers = lexicon.numbers(texts) if texts else np.zeros(0, np.int64)
    n = len(pairs)
    # A side with no word is -1 in an insertion or deletion; a word left out at no cost (``(uh)``
    # under -D) is correct against sclite's empty word, the text "".
    ref = np.where([p.ref is None and p.op == "I" for p in pairs], -1, numbers[:n]).astype(np.int64)
    hyp = np.where([p.hyp is None and p.op == "D" for p in pairs], -1, numbers[n:]).astype(np.int64)
    ops = np.frombuffer("".join(p.op for p in pairs).encode("ascii"), np.uint8).copy()
    tags = [(p.ref.tagged or "") if p.ref is not None else "" for p in pairs] + [
        (p.hyp.tagged or "") if p.hyp is not None else "" for p in pairs
    ]
    tag_numbers = lexicon.numbers(tags) if any(tags) else np.zeros(2 * n, np.int64)
    has = np.fromiter((bool(t) for t in tags), bool, 2 * n)
    tag_numbers = np.where(has, tag_numbers, -1).astype(np.int64)
    ref_weight = np.fromiter(
        (p.ref.weight if p.ref is not None else 0.0 if p.op == "C" else np.nan for p in pairs), np.float64, n
    )
    hyp_weight = np.fromiter(
        (p.hyp.weight if p.hyp is not None else 0.0 if p.op == "C" else np.nan for p in pairs), np.float64, n
    )
    return ref, hyp, ops, tag_numbers[:n], tag_numbers[n:], ref_weight, hyp_weight


def _identity(word: str) -> str:
    return word
