"""The scored alignments that ``iescore sclite``'s reports are written from.

One :class:`ScoredSystem` per hypothesis (``-h``): its segments (trn utterances or stm segments) in
the order sclite reports them, and every segment's aligned word pairs as columns (numpy arrays, one
entry per pair, segment ``k``'s pairs at ``bounds[k]:bounds[k + 1]``), so that reports are rendered
from columns rather than from an object per word. Readers (trn here, stm/ctm/txt in ``stmctm``) build
it; reports (``pipeline.speech.sclite.reports``) only read it. See SCLITE-MODEL.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from iescore.pipeline.speech.sgml import SgmlPath

# The eval codes of a pair, as sclite prints them in its sgml (and, but for C, in the .pra's Eval line).
OPS = b"CSDI"


@dataclass(frozen=True)
class LabelDef:
    """A stm ``;; LABEL "id" "title" "description"`` header (the lur's groups and the sgml's LABELs)."""

    id: str
    title: str
    description: str


@dataclass(frozen=True)
class CategoryDef:
    """A stm ``;; CATEGORY "n" "title" "description"`` header."""

    id: str
    title: str
    description: str


@dataclass(frozen=True)
class Segment:
    """One scored utterance or segment.

    ``id`` as sclite prints it, parentheses included (trn: ``(4t0c0201)``, folded; stm:
    ``(spka-000)``); ``speaker`` as sclite names it in ``.spk.SPEAKER`` files; ``file``,
    ``channel``, ``begin``, ``end`` (stm: the segment's times, None for trn); ``labels``: the
    segment's stm labels as sclite prints them (``("o", "f", "s1")``), empty for trn; ``sequence``:
    the segment's rank in sclite's reading order (the sgml's ``sequence``; trn: its rank in the
    hypothesis file, counted on across the systems of a run). Texts hold one character a byte
    (``pipeline.speech.sclite.trn.decode_bytes``: widths count bytes, as sclite's do).
    """

    id: str
    speaker: str
    file: str = ""
    channel: str = ""
    begin: float | None = None
    end: float | None = None
    labels: tuple[str, ...] = ()
    sequence: int = 0


@dataclass
class ScoredSystem:
    """One hypothesis scored against the reference: segments and their aligned pairs as columns.

    Columns (length = number of pairs): ``ref``, ``hyp`` index ``texts`` (-1: no word on that side);
    ``ops`` the eval code as sclite counts it, one byte of ``OPS`` (alternations resolved: ``ref``
    is the alternative sclite chose; a deleted optionally deletable word under ``-D`` and a fragment
    matched under ``-F`` are already ``C``). ``texts`` are the words as sclite holds them after
    reading (case folded unless ``-s``, ``(uh)`` parentheses kept); reports apply sclite's display
    case (lower when correct, upper when in error). Times and confidences are float64 columns, NaN
    where absent, or None when the input has none at all (trn).
    """

    title: str  # the system's title: -h TITLE, else the hypothesis path as given
    ref_file: str  # the -r path as given
    hyp_file: str  # the -h path as given
    ref_format: str  # trn, stm, ctm
    hyp_format: str  # trn, ctm, txt
    segments: list[Segment]
    bounds: np.ndarray  # int64, len(segments) + 1
    ref: np.ndarray  # int64
    hyp: np.ndarray  # int64
    ops: np.ndarray  # uint8
    texts: list[str]
    ref_t1: np.ndarray | None = None
    ref_t2: np.ndarray | None = None
    hyp_t1: np.ndarray | None = None
    hyp_t2: np.ndarray | None = None
    hyp_conf: np.ndarray | None = None
    labels: list[LabelDef] = field(default_factory=list)
    categories: list[CategoryDef] = field(default_factory=list)
    frag_corr: bool = False  # -F
    opt_del: bool = False  # -D
    # int64 into ``texts``: the sgml form of a word read with ``;tags`` (``pride;tag1;tag2``), -1 where
    # the word has none; None when no word has tags (stm/ctm input, pipeline.speech.ctm.parse_token).
    ref_tagged: np.ndarray | None = None
    hyp_tagged: np.ndarray | None = None
    case_sensitive: bool = False  # -s: texts not folded, errors not shown in upper case
    char_align: bool = False  # -c: the pairs are characters
    # -w: each pair's reference and hypothesis word weights (float64, NaN where the side has no word,
    # 0 for sclite's empty word), and the weights' ``FILE Column "HEADING"``; None without -w.
    ref_weight: np.ndarray | None = None
    hyp_weight: np.ndarray | None = None
    weight_file: str | None = None

    def counts(self) -> np.ndarray:
        """C, S, D, I of each segment (rows), counted from ``ops``."""
        kind = np.full(256, 4, np.int64)
        kind[list(OPS)] = [0, 1, 2, 3]
        segment = np.repeat(np.arange(len(self.segments)), np.diff(self.bounds))
        table = np.bincount(segment * 5 + kind[self.ops], minlength=5 * len(self.segments)).reshape(-1, 5)
        return table[:, :4]

    def speakers(self) -> list[str]:
        """The speakers in sclite's order: first appearance among ``segments``."""
        return list(dict.fromkeys(s.speaker for s in self.segments))


# The float columns a builder row may give after ``(ref, hyp, op)``, in order.
_FLOATS = ("ref_t1", "ref_t2", "hyp_t1", "hyp_t2", "hyp_conf", "ref_weight", "hyp_weight")


@dataclass
class SystemBuilder:
    """Builds a :class:`ScoredSystem` one segment at a time (for readers that align segment by
    segment, such as stm/ctm with time-mediated alignment)."""

    texts: list[str] = field(default_factory=list)
    _index: dict[str, int] = field(default_factory=dict)
    _segments: list[Segment] = field(default_factory=list)
    _bounds: list[int] = field(default_factory=lambda: [0])
    _columns: dict[str, list] = field(
        default_factory=lambda: {k: [] for k in ("ref", "hyp", "ops", *_FLOATS)}
    )

    def word(self, text: str | None) -> int:
        """The number of ``text`` in ``texts`` (-1 for None: no word)."""
        if text is None:
            return -1
        number = self._index.get(text)
        if number is None:
            number = self._index[text] = len(self.texts)
            self.texts.append(text)
        return number

    def add(self, segment: Segment, pairs: list[tuple]) -> None:
        """One segment and its pairs, each ``(ref, hyp, op)`` or ``(ref, hyp, op, ref_t1, ref_t2,
        hyp_t1, hyp_t2, hyp_conf)``, and then ``ref_weight, hyp_weight`` under ``-w``: texts or None,
        op one of ``"CSDI"``, times, confidence and weights float or None."""
        c = self._columns
        for pair in pairs:
            c["ref"].append(self.word(pair[0]))
            c["hyp"].append(self.word(pair[1]))
            c["ops"].append(ord(pair[2]))
            extra = pair[3:] + (None,) * (len(_FLOATS) + 3 - len(pair))
            for name, value in zip(_FLOATS, extra, strict=True):
                c[name].append(np.nan if value is None else value)
        self._segments.append(segment)
        self._bounds.append(len(c["ops"]))

    def build(self, **fields: object) -> ScoredSystem:
        """The system (``fields``: title, ref_file, hyp_file, ref_format, hyp_format and any optional
        field of :class:`ScoredSystem`); a time or confidence column that is all NaN becomes None."""
        c = self._columns

        def floats(name: str) -> np.ndarray | None:
            values = np.asarray(c[name], np.float64)
            return None if not len(values) or np.isnan(values).all() else values

        return ScoredSystem(
            segments=self._segments,
            bounds=np.asarray(self._bounds, np.int64),
            ref=np.asarray(c["ref"], np.int64),
            hyp=np.asarray(c["hyp"], np.int64),
            ops=np.asarray(c["ops"], np.uint8),
            texts=self.texts,
            **{name: floats(name) for name in _FLOATS},
            **fields,
        )


def from_sgml(paths: Sequence[SgmlPath], **fields: object) -> ScoredSystem:
    """A system of sclite sgml paths (``pipeline.speech.sgml``), as ``sclite -P`` reads them;
    ``fields`` as :meth:`SystemBuilder.build` takes them."""
    builder = SystemBuilder()
    for path in paths:
        segment = Segment(
            id=path.id,
            speaker=path.speaker,
            file=path.file,
            channel=path.channel,
            begin=path.r_t1,
            end=path.r_t2,
            labels=path.label_ids,
            sequence=path.sequence,
        )
        builder.add(segment, path.pairs())
    return builder.build(**fields)
