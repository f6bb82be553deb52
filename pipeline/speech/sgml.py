"""Reader of sclite's alignment sgml (``sclite -o sgml``, ``sclite -p``): what ``sc_stats -p`` and
``sclite -P`` take on standard input.

The format, line by line (one tag a line, as sclite writes it)::

    <SYSTEM title="sysA" ref_fname="..." hyp_fname="..." creation_date="..." format="2.4"
            frag_corr="FALSE" opt_del="FALSE" weight_ali="FALSE" weight_filename="">
    <LABEL id="O" title="Overall" desc="Overall Scores">      (stm label and category headers)
    </LABEL>
    <SPEAKER id="4t0">
    <PATH id="(4t0c0201)" word_cnt="25" labels="<o,wa>" file="2347" channel="a" sequence="0"
          R_T1="1.060" R_T2="3.470" word_aux="h_t1+t2,h_conf">
    C,"as","as",1.0+1.2,0.9:D,"how",,,:I,,"s.",3.1+3.2,0.5:S,"do","but"
    </PATH>
    </SPEAKER>
    </SYSTEM>

A data line holds the path's word pairs separated by ``:``: the evaluation (``C`` correct, ``S``
substitution, ``D`` deletion, ``I`` insertion; ``M``/``T`` merge and split, kept as read), the
reference word in quotes (empty for ``I``), the hypothesis word in quotes (empty for ``D``), then the
auxiliary values named by the path's ``word_aux`` (``r_t1+t2``/``h_t1+t2`` times as ``T1+T2``,
``r_conf``/``h_conf``, ``r_weight``/``h_weight``; others are skipped), each possibly empty.

What :func:`read_sgml` returns is plain data, documented here so that every consumer (``sc_stats``,
``sclite -P``) reads the same structure:

- a list of :class:`SgmlSystem`, one per ``<SYSTEM>``, in input order;
- ``SgmlSystem.speakers``: speaker ids in order of first appearance (two ``<SPEAKER>`` blocks with one
  id are one speaker, as sclite merges them), ``SgmlSystem.paths``: every :class:`SgmlPath` in input
  order, each naming its ``speaker``;
- an :class:`SgmlPath` holds the ``<PATH>`` attributes and its pairs as parallel tuples ``evals``
  (a ``str``, one letter a pair), ``refs`` and ``hyps`` (``None`` where the side is empty), and the
  auxiliary columns ``ref_times``/``hyp_times`` (``(t1, t2)`` or ``None``) and ``ref_conf``/
  ``hyp_conf`` (``float`` or ``None``), each as long as ``evals``; ``SgmlPath.pairs()`` gives them
  row-wise in the order the sclite model's builder takes, ``SgmlPath.label_ids`` the segment labels;
- ``SgmlSystem.letters`` and ``SgmlSystem.bounds``: every path's evaluation letters as one byte array
  (path ``k``: ``letters[bounds[k]:bounds[k+1]]``), what sc_stats' tests work on.

A data line as sclite writes it (each pair ``EVAL,"REF","HYP"`` and the auxiliary values of
``word_aux``, times and confidences as plain decimals) is checked by one regular expression and its
letters found for the whole system in one pass over its bytes; its words and values are parsed when
first asked for. Any other line is parsed in full as it is read.

Malformed input raises :class:`~iescore.pipeline.core.errors.InputError` naming the file, the line and
what was expected there.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from iescore.pipeline.core.errors import InputError

EVALS = "CSDIMT"
_ATTRIBUTE = re.compile(r'\s*([^=\s>]+)="([^"]*)"')
_PAIR = re.compile(r'([A-Za-z]),(?:"([^"]*)")?,?(?:"([^"]*)")?(.*)\Z', re.S)


@dataclass(frozen=True)
class SgmlLabel:
    """A ``<LABEL>`` or ``<CATEGORY>`` of an stm reference (``kind`` is the tag name)."""

    kind: str
    id: str
    title: str
    desc: str


@dataclass(eq=False, slots=True)
class SgmlPath:
    """One aligned segment (``<PATH>``): attributes as read, pairs as parallel tuples.

    ``evals`` is read with the path; the other columns (``refs``, ``hyps``, times, confidences) are
    parsed from the path's data lines when first asked for (sc_stats' tests need the letters only),
    every line having been checked when read."""

    id: str
    speaker: str
    word_cnt: int
    labels: str = ""
    file: str = ""
    channel: str = ""
    sequence: int = -1
    r_t1: float | None = None
    r_t2: float | None = None
    word_aux: tuple[str, ...] = ()
    evals: str = ""
    line: int = 0
    source: str = "<stdin>"
    data: str = ""  # the data lines, joined by newlines (they follow the <PATH> line)
    _columns: list[tuple] | None = field(default=None, repr=False)

    def _column(self, k: int) -> tuple:
        if self._columns is None:
            aux, source, lines = self.word_aux, self.source, self.data.split("\n") if self.data else []
            pairs = [p for n, text in enumerate(lines, self.line + 1) for p in _pairs(text, aux, source, n)]
            self._columns = list(zip(*pairs, strict=True)) if pairs else [()] * 7
        return tuple(self._columns[k])

    @property
    def refs(self) -> tuple[str | None, ...]:
        return self._column(1)

    @property
    def hyps(self) -> tuple[str | None, ...]:
        return self._column(2)

    @property
    def ref_times(self) -> tuple[tuple[float, float] | None, ...]:
        return self._column(3)

    @property
    def hyp_times(self) -> tuple[tuple[float, float] | None, ...]:
        return self._column(4)

    @property
    def ref_conf(self) -> tuple[float | None, ...]:
        return self._column(5)

    @property
    def hyp_conf(self) -> tuple[float | None, ...]:
        return self._column(6)

    def counts(self) -> dict[str, int]:
        """How many pairs of each evaluation letter."""
        return {letter: self.evals.count(letter) for letter in EVALS}

    @property
    def label_ids(self) -> tuple[str, ...]:
        """The segment's labels as ids: ``<o,wa>`` gives ``("o", "wa")``."""
        return tuple(part for part in self.labels.strip("<>").split(",") if part)

    def pairs(self) -> list[tuple]:
        """The pairs as ``(ref, hyp, eval, ref_t1, ref_t2, hyp_t1, hyp_t2, hyp_conf)`` (``None`` where
        absent): the tuple the sclite model's ``SystemBuilder.add`` takes, so that ``sclite -P`` builds
        its systems from this reader."""
        return [
            (ref, hyp, letter, *(rt or (None, None)), *(ht or (None, None)), conf)
            for letter, ref, hyp, rt, ht, conf in zip(
                self.evals, self.refs, self.hyps, self.ref_times, self.hyp_times, self.hyp_conf, strict=True
            )
        ]


@dataclass
class SgmlSystem:
    """One ``<SYSTEM>``: its attributes, speakers, paths and stm labels."""

    title: str
    ref_fname: str = ""
    hyp_fname: str = ""
    creation_date: str = ""
    format: str = ""
    frag_corr: bool = False
    opt_del: bool = False
    weight_ali: bool = False
    weight_filename: str = ""
    speakers: list[str] = field(default_factory=list)
    paths: list[SgmlPath] = field(default_factory=list)
    labels: list[SgmlLabel] = field(default_factory=list)
    # every path's evaluation letters, one byte each, in path order (path k: letters[bounds[k]:bounds[k+1]])
    letters: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8))
    bounds: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))

    def speaker_paths(self) -> dict[str, list[SgmlPath]]:
        """The paths of each speaker, speakers in order of first appearance."""
        grouped: dict[str, list[SgmlPath]] = {name: [] for name in self.speakers}
        for path in self.paths:
            grouped[path.speaker].append(path)
        return grouped


_TAG = re.compile(r'<([A-Za-z_]+)((?:\s*[^=\s>]+="[^"]*")*)\s*>')


def _tag(text: str, file: str, line: int) -> tuple[str, dict[str, str]]:
    """The name and attributes of a start tag line ``<NAME a="v" ...>``."""
    body = text.rstrip("\r\n")
    whole = _TAG.fullmatch(body)
    if whole:
        return whole.group(1), dict(_ATTRIBUTE.findall(whole.group(2)))
    match = re.match(r"<([A-Za-z_]+)", body)
    if not match or not body.endswith(">"):
        raise InputError(file, line, f'expected a tag <NAME attribute="value" ...>, got {body[:60]!r}')
    attributes: dict[str, str] = {}
    rest = body[match.end() : -1]
    position = 0
    while rest[position:].strip():
        found = _ATTRIBUTE.match(rest, position)
        if not found:
            raise InputError(
                file, line, f'expected attribute="value" in <{match.group(1)}>, got {rest[position:][:40]!r}'
            )
        attributes[found.group(1)] = found.group(2)
        position = found.end()
    return match.group(1), attributes


def _number(value: str, file: str, line: int, what: str, kind: type = float) -> float:
    try:
        return kind(value)
    except ValueError:
        raise InputError(file, line, f"expected a number for {what}, got {value!r}") from None


def _pairs(text: str, aux: tuple[str, ...], file: str, line: int) -> list[tuple]:
    """The word pairs of a data line: ``(eval, ref, hyp, ref_times, hyp_times, ref_conf, hyp_conf)``."""
    pairs = []
    for token in _split_pairs(text):
        match = _PAIR.match(token)
        letter = token[:1]
        if not match or letter not in EVALS:
            raise InputError(
                file,
                line,
                f'expected a word pair EVAL,"REF","HYP" with EVAL one of {EVALS}, got {token[:40]!r}',
            )
        ref, hyp = match.group(2), match.group(3)
        if (letter == "I") != (ref is None) or (letter == "D") != (hyp is None):
            raise InputError(
                file,
                line,
                f"expected {letter} to have "
                + {
                    "I": "no reference word and a hypothesis word",
                    "D": "a reference word and no hypothesis word",
                }.get(letter, "both words")
                + f", got {token[:40]!r}",
            )
        values = match.group(4).split(",")[1:] if match.group(4) else []
        if match.group(4) and not match.group(4).startswith(","):
            raise InputError(file, line, f"expected ',' after the words of {token[:40]!r}")
        ref_times = hyp_times = ref_conf = hyp_conf = None
        for name, value in zip(aux, values, strict=False):
            if not value:
                continue
            if name in ("r_t1+t2", "h_t1+t2"):
                t1, plus, t2 = value.partition("+")
                if not plus:
                    raise InputError(file, line, f"expected a time T1+T2 for {name}, got {value!r}")
                times = (_number(t1, file, line, name), _number(t2, file, line, name))
                if name == "r_t1+t2":
                    ref_times = times
                else:
                    hyp_times = times
            elif name == "r_conf":
                ref_conf = _number(value, file, line, name)
            elif name == "h_conf":
                hyp_conf = _number(value, file, line, name)
        pairs.append((letter, ref, hyp, ref_times, hyp_times, ref_conf, hyp_conf))
    return pairs


def _split_pairs(text: str) -> list[str]:
    """``text`` cut at the ``:`` outside quotes (words may hold a colon)."""
    tokens, start, quoted = [], 0, False
    for index, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif char == ":" and not quoted:
            tokens.append(text[start:index])
            start = index + 1
    tokens.append(text[start:])
    return [token for token in tokens if token]


@functools.lru_cache(maxsize=64)
def _aux(word_aux: str) -> tuple[str, ...]:
    return tuple(a for a in word_aux.split(",") if a)


def read_sgml(lines: Iterable[str], file: str = "<stdin>") -> list[SgmlSystem]:
    """Every system of sclite alignment sgml ``lines`` (several documents may follow one another, as
    when files are concatenated onto standard input); see the module docstring for the structure."""
    systems: list[SgmlSystem] = []
    stack: list[tuple[str, int]] = []
    system: SgmlSystem | None = None
    speaker: str | None = None
    # the open <PATH>: its attributes and line, data lines, pairs (when read in full), line pattern
    attributes: dict[str, str] = {}
    path_line = 0
    data: list[str] | None = None
    pairs: list[tuple] | None = None
    aux: tuple[str, ...] = ()
    pattern = _line_pattern(())
    pending: list = []  # the current system's paths' data lines (None: read in full)
    number = 0
    for number, raw in enumerate(lines, 1):
        text = raw.rstrip("\r\n")
        if text.startswith("</"):
            name = text[2:].rstrip().rstrip(">")
            if not stack or stack[-1][0] != name:
                opened = (
                    f"</{stack[-1][0]}> for <{stack[-1][0]}> of line {stack[-1][1]}"
                    if stack
                    else "no end tag"
                )
                raise InputError(file, number, f"expected {opened}, got {text[:40]!r}")
            stack.pop()
            if name == "PATH" and data is not None:
                assert system is not None and speaker is not None
                system.paths.append(_make_path(attributes, speaker, path_line, file, aux, data, pairs))
                pending.append(data if pairs is None else None)
                data = pairs = None
            elif name == "SYSTEM":
                assert system is not None
                _finish(system, pending)
                system, speaker, pending = None, None, []
            elif name == "SPEAKER":
                speaker = None
        elif text.startswith("<"):
            name, tag = _tag(text, file, number)
            stack.append((name, number))
            if name == "PATH":
                if system is None or speaker is None:
                    raise InputError(file, number, "expected <PATH> inside a <SPEAKER>")
                if "id" not in tag:
                    raise InputError(file, number, 'expected an id="..." attribute in <PATH>')
                attributes, path_line, data, pairs = tag, number, [], None
                aux = _aux(tag.get("word_aux", ""))
                pattern = _line_pattern(aux)
            elif name == "SPEAKER":
                if system is None:
                    raise InputError(file, number, "expected <SPEAKER> inside a <SYSTEM>")
                speaker = tag.get("id", "")
                if speaker not in system.speakers:
                    system.speakers.append(speaker)
            elif name == "SYSTEM":
                if system is not None:
                    raise InputError(file, number, "expected </SYSTEM> before another <SYSTEM>")
                system = SgmlSystem(
                    title=tag.get("title", ""),
                    ref_fname=tag.get("ref_fname", ""),
                    hyp_fname=tag.get("hyp_fname", ""),
                    creation_date=tag.get("creation_date", ""),
                    format=tag.get("format", ""),
                    frag_corr=tag.get("frag_corr") == "TRUE",
                    opt_del=tag.get("opt_del") == "TRUE",
                    weight_ali=tag.get("weight_ali") == "TRUE",
                    weight_filename=tag.get("weight_filename", ""),
                )
                systems.append(system)
            elif name in ("LABEL", "CATEGORY") and system is not None:
                system.labels.append(
                    SgmlLabel(name, tag.get("id", ""), tag.get("title", ""), tag.get("desc", ""))
                )
        elif data is not None:
            data.append(text)
            if pairs is not None or not pattern.fullmatch(text):
                # not as sclite writes it: read in full now (an error names this line)
                if pairs is None:
                    first = number - len(data) + 1
                    pairs = [p for n, t in enumerate(data[:-1], first) for p in _pairs(t, aux, file, n)]
                pairs.extend(_pairs(text, aux, file, number))
        elif text.strip():
            raise InputError(file, number, f"expected a tag or a <PATH>'s word pairs, got {text[:40]!r}")
    if stack:
        name, opened = stack[-1]
        raise InputError(
            file, number, f"expected </{name}> for <{name}> of line {opened} before the end of the input"
        )
    return systems


_NUMBER = r"-?[0-9]+(?:\.[0-9]*)?"


def _finish(system: SgmlSystem, pending: list) -> None:
    """Set the evaluation letters of the system's paths whose data lines are as sclite writes them
    (``pending``: each path's lines, None for a path read in full), and the system's ``letters``
    and ``bounds``. In those lines a pair's letter is the line's first character or follows a ':'
    outside quotes: one pass over all the lines' bytes."""
    texts = [text for lines in pending if lines for text in lines]
    if texts:
        data = np.frombuffer(("\n".join(texts) + "\n").encode("latin-1"), np.uint8)
        quoted = np.bitwise_xor.accumulate(data == ord('"'))
        newline = np.flatnonzero(data == ord("\n"))
        after = np.flatnonzero((data[:-1] == ord(":")) & ~quoted[:-1]) + 1
        position = np.sort(np.concatenate(([0], newline[:-1] + 1, after)))
        letters = data[position].tobytes().decode("latin-1")
        per_line = np.bincount(np.searchsorted(newline, position), minlength=len(texts))
        ends = np.cumsum(per_line).tolist()
        k = 0  # lines taken
        start = 0
        for path, lines in zip(system.paths, pending, strict=True):
            if lines:
                k += len(lines)
                end = ends[k - 1]
                path.evals = letters[start:end]
                start = end
    joined = "".join(path.evals for path in system.paths)
    system.letters = np.frombuffer(joined.encode("latin-1"), np.uint8).copy()
    system.bounds = np.concatenate(([0], np.cumsum([len(path.evals) for path in system.paths]))).astype(
        np.int64
    )


@functools.lru_cache(maxsize=64)
def _line_pattern(aux: tuple[str, ...]) -> re.Pattern:
    """The data lines as sclite writes them for a path with auxiliary values ``aux``: each pair
    ``EVAL,"REF","HYP"`` (no REF for I, no HYP for D) and one value a name, times as ``T1+T2`` and
    confidences as plain decimals. A line of this form reads as :func:`_pairs` reads it; any other
    line is read by :func:`_pairs` at once (which accepts it or names what is wrong)."""
    values = ""
    for name in aux:
        if name in ("r_t1+t2", "h_t1+t2"):
            values += f",(?:{_NUMBER}\\+{_NUMBER})?"
        elif name in ("r_conf", "h_conf"):
            values += f",(?:{_NUMBER})?"
        else:
            values += ',[^:,"]*'
    token = f'(?:[CSMT],"[^"]*","[^"]*"|D,"[^"]*",|I,,"[^"]*"){values}'
    return re.compile(f"{token}(?::{token})*")


def _make_path(
    attributes: dict[str, str],
    speaker: str,
    line: int,
    file: str,
    aux: tuple[str, ...],
    data: list[str],
    pairs: list[tuple] | None,
) -> SgmlPath:
    columns = None
    evals = ""  # lines as sclite writes them: letters set by _finish, for all the system's paths at once
    if pairs is not None:
        columns = list(zip(*pairs, strict=True)) if pairs else [()] * 7
        evals = "".join(columns[0])
    get = attributes.get
    r_t1, r_t2, word_cnt, sequence = get("R_T1"), get("R_T2"), get("word_cnt"), get("sequence")
    return SgmlPath(
        id=attributes["id"],
        speaker=speaker,
        word_cnt=int(_number(word_cnt, file, line, "word_cnt")) if word_cnt else 0,
        labels=get("labels", ""),
        file=get("file", ""),
        channel=get("channel", ""),
        sequence=int(_number(sequence, file, line, "sequence")) if sequence else -1,
        r_t1=_number(r_t1, file, line, "R_T1") if r_t1 else None,
        r_t2=_number(r_t2, file, line, "R_T2") if r_t2 else None,
        word_aux=aux,
        evals=evals,
        line=line,
        source=file,
        data="\n".join(data),
        _columns=columns,
    )
