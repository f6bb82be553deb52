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
  row-wise in the order the sclite model's builder takes, ``SgmlPath.label_ids`` the segment labels.

Malformed input raises :class:`~iescore.pipeline.core.errors.InputError` naming the file, the line and
what was expected there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

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


@dataclass(frozen=True)
class SgmlPath:
    """One aligned segment (``<PATH>``): attributes as read, pairs as parallel tuples."""

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
    refs: tuple[str | None, ...] = ()
    hyps: tuple[str | None, ...] = ()
    ref_times: tuple[tuple[float, float] | None, ...] = ()
    hyp_times: tuple[tuple[float, float] | None, ...] = ()
    ref_conf: tuple[float | None, ...] = ()
    hyp_conf: tuple[float | None, ...] = ()
    line: int = 0

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

    def speaker_paths(self) -> dict[str, list[SgmlPath]]:
        """The paths of each speaker, speakers in order of first appearance."""
        grouped: dict[str, list[SgmlPath]] = {name: [] for name in self.speakers}
        for path in self.paths:
            grouped[path.speaker].append(path)
        return grouped


def _tag(text: str, file: str, line: int) -> tuple[str, dict[str, str]]:
    """The name and attributes of a start tag line ``<NAME a="v" ...>``."""
    body = text.rstrip("\r\n")
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


def read_sgml(lines: Iterable[str], file: str = "<stdin>") -> list[SgmlSystem]:
    """Every system of sclite alignment sgml ``lines`` (several documents may follow one another, as
    when files are concatenated onto standard input); see the module docstring for the structure."""
    systems: list[SgmlSystem] = []
    stack: list[tuple[str, int]] = []
    system: SgmlSystem | None = None
    speaker: str | None = None
    path: dict | None = None
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
            if name == "SYSTEM":
                system, speaker = None, None
            elif name == "SPEAKER":
                speaker = None
            elif name == "PATH" and path is not None:
                assert system is not None
                system.paths.append(_make_path(path))
                path = None
        elif text.startswith("<"):
            name, attributes = _tag(text, file, number)
            stack.append((name, number))
            if name == "SYSTEM":
                if system is not None:
                    raise InputError(file, number, "expected </SYSTEM> before another <SYSTEM>")
                system = SgmlSystem(
                    title=attributes.get("title", ""),
                    ref_fname=attributes.get("ref_fname", ""),
                    hyp_fname=attributes.get("hyp_fname", ""),
                    creation_date=attributes.get("creation_date", ""),
                    format=attributes.get("format", ""),
                    frag_corr=attributes.get("frag_corr") == "TRUE",
                    opt_del=attributes.get("opt_del") == "TRUE",
                    weight_ali=attributes.get("weight_ali") == "TRUE",
                    weight_filename=attributes.get("weight_filename", ""),
                )
                systems.append(system)
            elif name == "SPEAKER":
                if system is None:
                    raise InputError(file, number, "expected <SPEAKER> inside a <SYSTEM>")
                speaker = attributes.get("id", "")
                if speaker not in system.speakers:
                    system.speakers.append(speaker)
            elif name == "PATH":
                if system is None or speaker is None:
                    raise InputError(file, number, "expected <PATH> inside a <SPEAKER>")
                if "id" not in attributes:
                    raise InputError(file, number, 'expected an id="..." attribute in <PATH>')
                path = {
                    "attributes": attributes,
                    "speaker": speaker,
                    "line": number,
                    "pairs": [],
                    "file": file,
                }
            elif name in ("LABEL", "CATEGORY") and system is not None:
                system.labels.append(
                    SgmlLabel(
                        name,
                        attributes.get("id", ""),
                        attributes.get("title", ""),
                        attributes.get("desc", ""),
                    )
                )
        elif path is not None:
            aux = tuple(a for a in path["attributes"].get("word_aux", "").split(",") if a)
            path["pairs"].extend(_pairs(text, aux, file, number))
        elif text.strip():
            raise InputError(file, number, f"expected a tag or a <PATH>'s word pairs, got {text[:40]!r}")
    if stack:
        name, opened = stack[-1]
        raise InputError(
            file, number, f"expected </{name}> for <{name}> of line {opened} before the end of the input"
        )
    return systems


def _make_path(path: dict) -> SgmlPath:
    attributes, pairs, line, file = path["attributes"], path["pairs"], path["line"], path["file"]
    columns = list(zip(*pairs, strict=True)) if pairs else [()] * 7

    def optional(name: str) -> float | None:
        value = attributes.get(name, "")
        return _number(value, file, line, name) if value else None

    return SgmlPath(
        id=attributes["id"],
        speaker=path["speaker"],
        word_cnt=int(_number(attributes.get("word_cnt", "0") or "0", file, line, "word_cnt")),
        labels=attributes.get("labels", ""),
        file=attributes.get("file", ""),
        channel=attributes.get("channel", ""),
        sequence=int(_number(attributes.get("sequence", "-1") or "-1", file, line, "sequence")),
        r_t1=optional("R_T1"),
        r_t2=optional("R_T2"),
        word_aux=tuple(a for a in attributes.get("word_aux", "").split(",") if a),
        evals="".join(columns[0]),
        refs=tuple(columns[1]),
        hyps=tuple(columns[2]),
        ref_times=tuple(columns[3]),
        hyp_times=tuple(columns[4]),
        ref_conf=tuple(columns[5]),
        hyp_conf=tuple(columns[6]),
        line=line,
    )
