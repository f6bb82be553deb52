"""Readers of span-annotated documents for the MAT family (issue 12, point 2).

Each reader turns one file into a :class:`Document`: its signal (the text offsets count in) and its
span annotations ``(label, start, end, attributes)`` in file order, offsets in characters of the
signal, half-open. Which labels are content and which are tokens is decided later
(:mod:`pipeline.mat.labels`); readers only read, and refuse bad input with
:class:`~pipeline.core.errors.InputError` naming the file and the position.

- ``mat-json`` (MAT's own format, always UTF-8): ``{"signal", "metadata", "version" <= 2, "asets":
  [{"type", "hasSpan", "attrs", "annots": [[start, end, attribute values...]]}]}``. Spanless
  annotation sets (``hasSpan`` false) carry no span to score and are not read.
- ``xml-inline``: one root element; the character data (entities decoded) is the signal, every element
  below the root an annotation over the text it encloses, its XML attributes its attributes. The root is
  the document's container, not an annotation (unless its name is one of the ``known`` labels). With
  ``overlay``, only the ``known`` labels' tags are annotations; every other tag, comment, declaration and
  escape stays in the signal as written (``&amp;`` is five characters), and the file need not be XML.
- ``brat``: standoff ``NAME.ann`` beside ``NAME.txt`` (the signal). ``T`` lines are span annotations; a
  discontinuous one (``T1<TAB>Disorder 0 5;10 15<TAB>...``) is one annotation per fragment, each with
  the brat id in its attributes (``{"id": "T1", "fragment": 0}``); ``A``/``M`` lines add an attribute to
  their ``T``. Other lines (relations, events, notes) are not spans and are not read.
- ``conll``: seqeval's column format: a token and its BIO/BIOES tag in the last column per line, blank
  lines between sentences, ``-DOCSTART-`` lines skipped. The signal is the tokens joined by one space,
  sentences by a newline; every token is a token annotation (label ``lex``), chunks are read as seqeval
  does by default (an ``I-X`` after ``O`` or another type starts a chunk).
"""

from __future__ import annotations

import itertools
import json
import re
import xml.parsers.expat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json
from iescore.pipeline.core.arrays import to_arrow, to_numpy
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.filebytes import read_bytes

#: The file types, MATScore's first (its default first).
FILE_TYPES = ("mat-json", "xml-inline", "brat", "conll")
#: The label of the token annotations a CoNLL file gives (MAT's default token annotation).
CONLL_TOKEN_LABEL = "lex"
MAX_MAT_JSON_VERSION = 2


@dataclass(frozen=True)
class Span:
    """One span annotation as read: label, [start, end) in the signal, attributes (name -> value)."""

    label: str
    start: int
    end: int
    attributes: dict = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class Document:
    """One file read: where from, its signal, its span annotations in file order as columns (labels,
    starts, ends, attributes: one entry per span), and which labels the file itself says are tokens
    (CoNLL) or content (none of the other formats do)."""

    source: str
    signal: str
    labels: tuple[str, ...]
    starts: np.ndarray = field(compare=False)
    ends: np.ndarray = field(compare=False)
    attributes: tuple[dict, ...] = ()
    token_labels: frozenset[str] = frozenset()

    @property
    def spans(self) -> tuple[Span, ...]:
        """The annotations as :class:`Span` objects, in file order."""
        return tuple(
            Span(label, int(start), int(end), attributes)
            for label, start, end, attributes in zip(
                self.labels, self.starts, self.ends, self.attributes, strict=True
            )
        )


def document_of(
    source: str, signal: str, spans: Iterable[Span], token_labels: frozenset[str] = frozenset()
) -> Document:
    """A :class:`Document` from spans read one by one (the readers other than mat-json)."""
    spans = list(spans)
    return Document(
        source,
        signal,
        tuple(span.label for span in spans),
        np.fromiter((span.start for span in spans), np.int64, len(spans)),
        np.fromiter((span.end for span in spans), np.int64, len(spans)),
        tuple(span.attributes for span in spans),
        token_labels,
    )


@dataclass(frozen=True)
class DocumentColumns:
    """The documents of one side as columns, in key order: each document's key, source, signal and
    token labels (as :class:`Document` has them), and every span's label (a string or a dictionary
    array), start, end and attributes, document after document in file order (``sizes``: how many spans
    each document has). ``attributes``
    None: every span's are empty (the common case, kept without a dict per span)."""

    keys: tuple[str, ...]
    sources: tuple[str, ...]
    signals: pa.Array
    sizes: np.ndarray
    labels: pa.Array
    starts: np.ndarray
    ends: np.ndarray
    attributes: tuple[dict, ...] | None = None
    token_labels: tuple[frozenset[str], ...] = ()

    @classmethod
    def of(cls, documents: Mapping[str, Document]) -> DocumentColumns:
        """The columns of documents read one by one (document key -> document), in key order."""
        keys = sorted(documents)
        docs = [documents[key] for key in keys]
        attributes = tuple(itertools.chain.from_iterable(d.attributes for d in docs))
        return cls(
            tuple(keys),
            tuple(d.source for d in docs),
            pa.array([d.signal for d in docs], type=pa.string()),
            np.array([len(d.labels) for d in docs], dtype=np.int64),
            pa.array(list(itertools.chain.from_iterable(d.labels for d in docs)), type=pa.string()),
            np.concatenate([d.starts for d in docs]).astype(np.int64) if docs else np.zeros(0, np.int64),
            np.concatenate([d.ends for d in docs]).astype(np.int64) if docs else np.zeros(0, np.int64),
            attributes if any(attributes) else None,
            tuple(d.token_labels for d in docs),
        )


def read_documents(
    files: Sequence[tuple[str, str | Path]],
    file_type: str,
    encoding: str | None = None,
    overlay: bool = False,
    known: Iterable[str] = (),
) -> DocumentColumns:
    """Read the files ``(key, path)`` of one side (as :func:`read_document` reads each) into columns.

    MAT JSON files are parsed together by Arrow's JSON reader when every one has the plain shape (one
    object per file on one line, spans ``[start, end]`` without attribute values, attribute names as
    strings, every span inside its signal: what MAT and the benchmarks write); otherwise, and for the
    other types, file by file, so that a bad file is refused with its line and what was expected."""
    ordered = sorted(files, key=lambda item: item[0])
    if file_type == "mat-json" and not overlay:
        columns = _plain_mat_json(ordered)
        if columns is not None:
            return columns
    return DocumentColumns.of(
        {key: read_document(path, file_type, encoding, overlay, known) for key, path in ordered}
    )


def read_document(
    path: str | Path,
    file_type: str,
    encoding: str | None = None,
    overlay: bool = False,
    known: Iterable[str] = (),
) -> Document:
    """Read one file of ``file_type`` (see the module doc); ``encoding`` None: the type's default (UTF-8;
    mat-json is always UTF-8). ``known``: the labels an XML overlay treats as annotations."""
    if file_type not in FILE_TYPES:
        raise InputError(
            str(path), 0, f"unknown file type {file_type!r}; expected one of {', '.join(FILE_TYPES)}"
        )
    if overlay and file_type != "xml-inline":
        raise InputError(str(path), 0, "--xml_input_is_overlay applies to xml-inline files only")
    path = Path(path)
    if file_type == "mat-json":
        return read_mat_json(path)
    if file_type == "xml-inline":
        return read_xml_inline(path, encoding, overlay, frozenset(known))
    if file_type == "brat":
        return read_brat(path, encoding or "utf-8")
    return read_conll(path, encoding or "utf-8")


# --- mat-json -----------------------------------------------------------------------------------


def read_mat_json(path: Path) -> Document:
    """A MAT JSON document (always UTF-8)."""
    text = _read_text(path, "utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            str(path), error.lineno, f"malformed JSON at column {error.colno}: {error.msg}"
        ) from None
    except RecursionError:
        raise InputError(str(path), 0, "malformed JSON: arrays or objects nested too deeply") from None

    def line(*where: str | int) -> int:
        return _json_line(text, where)

    if not isinstance(data, dict):
        raise InputError(str(path), line(), "expected a JSON object with 'signal' and 'asets'")
    signal = data.get("signal")
    if not isinstance(signal, str):
        raise InputError(str(path), line("signal"), "expected a string 'signal' (the document's text)")
    version = data.get("version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version > MAX_MAT_JSON_VERSION:
        raise InputError(
            str(path),
            line("version"),
            f"MAT JSON version {version!r} is not supported; expected 1 or 2 (version <= 2)",
        )
    asets = data.get("asets", [])
    if not isinstance(asets, list):
        raise InputError(str(path), line("asets"), "expected 'asets' to be a list of annotation sets")
    spanful: list[tuple[str, list, list[str], int]] = []  # (label, annots, attribute names, aset index)
    for a, aset in enumerate(asets):
        where = f"asets[{a}]"
        if not isinstance(aset, dict) or not isinstance(aset.get("type"), str):
            raise InputError(str(path), line("asets", a), f"{where}: expected an object with a string 'type'")
        label = aset["type"]
        if not aset.get("hasSpan", True):
            continue
        attrs = aset.get("attrs", [])
        if not isinstance(attrs, list):
            raise InputError(
                str(path), line("asets", a, "attrs"), f"{where} ({label}): expected 'attrs' to be a list"
            )
        names = [
            _attribute_name(path, line("asets", a, "attrs", k), f"{where}.attrs[{k}]", x)
            for k, x in enumerate(attrs)
        ]
        annots = aset.get("annots", [])
        if not isinstance(annots, list):
            raise InputError(
                str(path), line("asets", a, "annots"), f"{where} ({label}): expected 'annots' to be a list"
            )
        spanful.append((label, annots, names, a))
    every = list(itertools.chain.from_iterable(annots for _, annots, _, _ in spanful))
    offsets = _plain_offsets(every, len(signal))
    if offsets is not None:  # every annotation [start, end] in the signal, checked as one array
        return Document(
            str(path),
            signal,
            tuple(itertools.chain.from_iterable([label] * len(annots) for label, annots, _, _ in spanful)),
            offsets[:, 0].copy(),
            offsets[:, 1].copy(),
            ({},) * len(every),
        )
    labels: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    attribute_rows: list[dict] = []
    for label, annots, names, a in spanful:
        for k, annot in enumerate(annots):
            place = f"asets[{a}] ({label}) annots[{k}]"
            if (
                not isinstance(annot, list)
                or len(annot) < 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in annot[:2])
            ):
                raise InputError(
                    str(path),
                    line("asets", a, "annots", k),
                    f"{place}: expected [start, end, attribute values...]",
                )
            start, end = annot[0], annot[1]
            _check_span(path, line("asets", a, "annots", k), place, start, end, len(signal))
            values = annot[2:]
            if len(values) > len(names):
                raise InputError(
                    str(path),
                    line("asets", a, "annots", k),
                    f"{place}: {len(values)} attribute values for {len(names)} attributes",
                )
            labels.append(label)
            starts.append(start)
            ends.append(end)
            attribute_rows.append({n: v for n, v in zip(names, values, strict=False) if v is not None})
    return Document(
        str(path),
        signal,
        tuple(labels),
        np.array(starts, np.int64),
        np.array(ends, np.int64),
        tuple(attribute_rows),
    )


#: The shape of a plain MAT JSON file as Arrow reads it (other fields are not read).
_PLAIN_MAT_JSON = pa.schema(
    [
        ("signal", pa.string()),
        ("version", pa.int64()),
        (
            "asets",
            pa.list_(
                pa.struct(
                    [
                        ("type", pa.string()),
                        ("hasSpan", pa.bool_()),
                        ("attrs", pa.list_(pa.string())),
                        ("annots", pa.list_(pa.list_(pa.int64()))),
                    ]
                )
            ),
        ),
    ]
)
_BOM = b"\xef\xbb\xbf"


def _plain_mat_json(files: Sequence[tuple[str, str | Path]]) -> DocumentColumns | None:
    """The MAT JSON files ``(key, path)`` as columns when all are plain (see :func:`read_documents`),
    parsed as one newline-delimited JSON text by Arrow; None when any is not (or cannot be read), for
    the file-by-file reader to read or refuse.

    What Arrow reads differently from ``json.loads`` sends the files to the file-by-file reader: a file
    on several lines or empty, a byte-order mark, bytes that are not UTF-8, a missing or null field
    whose absence has a meaning (``version``, ``asets``, ``hasSpan``, ``attrs``, ``annots``), a
    duplicate key, a number that is not a plain integer."""
    try:
        datas = [read_bytes(str(path)).rstrip(b" \t\r\n") for _, path in files]
    except OSError:
        return None
    if not datas or any(
        not data or b"\n" in data or b"\r" in data or data.startswith(_BOM) for data in datas
    ):
        return None
    joined = b"\n".join(datas)
    try:
        whole = np.array([0, len(joined)], dtype=np.int64)
        pa.Array.from_buffers(
            pa.large_string(), 1, [None, pa.py_buffer(whole), pa.py_buffer(joined)]
        ).validate(full=True)
        table = pa_json.read_json(
            pa.py_buffer(joined),
            read_options=pa_json.ReadOptions(use_threads=False, block_size=min(len(joined) + 1, 1 << 30)),
            parse_options=pa_json.ParseOptions(
                explicit_schema=_PLAIN_MAT_JSON, unexpected_field_behavior="ignore"
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if table.num_rows != len(files):
        return None
    table = table.combine_chunks()
    signals, versions, asets = (table.column(name).chunk(0) for name in ("signal", "version", "asets"))
    if signals.null_count or versions.null_count or asets.null_count:
        return None
    if (to_numpy(versions) > MAX_MAT_JSON_VERSION).any():
        return None
    sets = asets.flatten()
    if sets.null_count:
        return None
    types, spanful, attrs, annots = (sets.field(name) for name in ("type", "hasSpan", "attrs", "annots"))
    if types.null_count or spanful.null_count or attrs.null_count or annots.null_count:
        return None
    if attrs.flatten().null_count:
        return None
    set_document = to_numpy(pc.list_parent_indices(asets)).astype(np.int64)
    keep = to_numpy(spanful)
    spans_per_set = to_numpy(pc.list_value_length(annots)).astype(np.int64) * keep
    pairs = annots.flatten()  # spanless sets' spans included: dropped below
    if pairs.null_count or (to_numpy(pc.list_value_length(pairs)) != 2).any():
        return None
    values = pairs.flatten()
    if values.null_count:
        return None
    offsets = to_numpy(values).reshape(-1, 2)[np.repeat(keep, to_numpy(pc.list_value_length(annots)))]
    span_set = np.repeat(np.arange(len(sets), dtype=np.int64), spans_per_set)
    span_document = set_document[span_set]
    starts, ends = offsets[:, 0].copy(), offsets[:, 1].copy()
    lengths = to_numpy(pc.utf8_length(signals)).astype(np.int64)
    label_codes = types.dictionary_encode()
    if not ((starts >= 0) & (starts <= ends) & (ends <= lengths[span_document])).all():
        return None
    return DocumentColumns(
        tuple(key for key, _ in files),
        tuple(str(path) for _, path in files),
        signals,
        np.bincount(span_document, minlength=len(files)).astype(np.int64),
        pa.DictionaryArray.from_arrays(label_codes.indices.take(to_arrow(span_set)), label_codes.dictionary),
        starts,
        ends,
        None,
        (frozenset(),) * len(files),
    )


def _plain_offsets(annots: list, length: int) -> np.ndarray | None:
    """``annots`` as an (n, 2) array when every one is ``[start, end]`` of plain integers (no attribute
    values, no booleans) with 0 <= start <= end <= ``length``; None otherwise (the caller then checks
    them one by one, to name the first bad one)."""
    if not annots:
        return np.zeros((0, 2), np.int64)
    if (
        set(map(type, annots)) != {list}
        or set(map(len, annots)) != {2}
        or set(map(type, itertools.chain.from_iterable(annots))) != {int}
    ):
        return None
    try:
        offsets = np.array(annots, dtype=np.int64)
    except OverflowError:
        return None
    start, end = offsets[:, 0], offsets[:, 1]
    if not ((start >= 0) & (start <= end) & (end <= length)).all():
        return None
    return offsets


def _attribute_name(path: Path, line: int, where: str, attr: object) -> str:
    # MAT JSON version 1 lists names; version 2 lists objects with a "name".
    if isinstance(attr, str):
        return attr
    if isinstance(attr, dict) and isinstance(attr.get("name"), str):
        return attr["name"]
    raise InputError(str(path), line, f"{where}: expected an attribute name or an object with a 'name'")


def _json_line(text: str, where: Sequence[str | int]) -> int:
    """The line of the value at ``where`` (object keys and array indices from the top) in the JSON
    ``text``, already known to be valid; the line of the deepest value found when the path stops early
    (a missing key: its object). Only called on the way to an error, so it may re-read the text."""
    decoder = json.JSONDecoder()
    position = _skip_blank(text, 0)
    for step in where:
        opening = text[position : position + 1]
        if opening not in ("{", "[") or isinstance(step, str) != (opening == "{"):
            break
        cursor, index, found = _skip_blank(text, position + 1), 0, None
        while text[cursor : cursor + 1] not in ("}", "]", ""):
            if opening == "{":
                key, cursor = json.decoder.scanstring(text, cursor + 1)
                cursor = _skip_blank(text, _skip_blank(text, cursor) + 1)  # past the ':'
                here = key == step
            else:
                here = index == step
            if here:
                found = cursor
                break
            _, cursor = decoder.raw_decode(text, cursor)
            cursor = _skip_blank(text, cursor)
            if text[cursor : cursor + 1] == ",":
                cursor = _skip_blank(text, cursor + 1)
            index += 1
        if found is None:
            break
        position = found
    return text.count("\n", 0, position) + 1


def _skip_blank(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


# --- xml-inline ---------------------------------------------------------------------------------


def read_xml_inline(path: Path, encoding: str | None, overlay: bool, known: frozenset[str]) -> Document:
    """An inline XML document, parsed as XML, or as an overlay of ``known`` tags on any text."""
    if overlay:
        if not known:
            raise InputError(
                str(path),
                0,
                "an XML overlay needs the annotation labels (--content_annotations, --token_annotations "
                "or --task): every other tag stays in the signal",
            )
        return _read_overlay(path, _read_text(path, encoding or "utf-8"), known)
    raw = read_bytes(str(path)) if encoding is None else _read_text(path, encoding).encode("utf-8")
    parser = xml.parsers.expat.ParserCreate(encoding=None if encoding is None else "utf-8")
    pieces: list[str] = []
    length = 0
    open_elements: list[tuple[str, int, dict, int]] = []
    spans: list[tuple[int, Span]] = []
    depth = 0

    def start(name: str, attrs: dict) -> None:
        nonlocal depth
        open_elements.append((name, length, dict(attrs), parser.CurrentLineNumber))
        depth += 1

    def end(name: str) -> None:
        nonlocal depth
        depth -= 1
        opened, begin, attrs, line = open_elements.pop()
        if depth > 0 or opened in known:
            spans.append((len(spans), Span(opened, begin, length, attrs)))

    def data(text: str) -> None:
        nonlocal length
        if depth > 0:
            pieces.append(text)
            length += len(text)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    parser.buffer_text = True
    try:
        parser.Parse(raw, True)
    except xml.parsers.expat.ExpatError as error:
        message = xml.parsers.expat.ErrorString(error.code)
        raise InputError(
            str(path), error.lineno, f"invalid XML at column {error.offset + 1}: {message}"
        ) from None
    # Elements close inner-first; file order is the order they open.
    ordered = sorted((span for _, span in spans), key=lambda s: (s.start, -s.end))
    return document_of(str(path), "".join(pieces), ordered)


_TAG = re.compile(r"<(/?)([A-Za-z_][\w.\-:]*)((?:\s+[^<>]*?)?)\s*(/?)>")
_ATTRIBUTE = re.compile(r"""([A-Za-z_][\w.\-:]*)\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def _read_overlay(path: Path, text: str, known: frozenset[str]) -> Document:
    """Tags of ``known`` labels are annotations; everything else is the signal, as written."""
    pieces: list[str] = []
    length = 0
    cursor = 0
    stack: list[tuple[str, int, dict, int]] = []
    spans: list[Span] = []
    for match in _TAG.finditer(text):
        closing, name, attrs_text, empty = match.groups()
        if name not in known:
            continue
        pieces.append(text[cursor : match.start()])
        length += match.start() - cursor
        cursor = match.end()
        line = text.count("\n", 0, match.start()) + 1
        attributes = {
            m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
            for m in _ATTRIBUTE.finditer(attrs_text)
        }
        if closing:
            if not stack or stack[-1][0] != name:
                expected = f"</{stack[-1][0]}>" if stack else "no closing tag"
                raise InputError(
                    str(path), line, f"</{name}> does not close an open <{name}>; expected {expected}"
                )
            opened, begin, attrs, _ = stack.pop()
            spans.append(Span(opened, begin, length, attrs))
        elif empty:
            spans.append(Span(name, length, length, attributes))
        else:
            stack.append((name, length, attributes, line))
    if stack:
        name, _, _, line = stack[-1]
        raise InputError(str(path), line, f"<{name}> is never closed")
    pieces.append(text[cursor:])
    ordered = sorted(spans, key=lambda s: (s.start, -s.end))
    return document_of(str(path), "".join(pieces), ordered)


# --- brat standoff ------------------------------------------------------------------------------


def read_brat(path: Path, encoding: str) -> Document:
    """``NAME.ann`` with its signal in ``NAME.txt`` beside it."""
    text_path = path.with_suffix(".txt")
    if not text_path.is_file():
        raise InputError(str(path), 0, f"brat annotations need their text beside them: {text_path} not found")
    signal = _read_text(text_path, encoding)
    spans: list[Span] = []
    by_id: dict[str, list[int]] = {}
    for number, line in enumerate(_read_text(path, encoding).splitlines(), start=1):
        if not line.strip():
            continue
        kind = line[0]
        if kind == "T":
            fields = line.split("\t")
            if len(fields) < 2:
                raise InputError(
                    str(path), number, "expected 'T<id><TAB>Label start end[;start end...]<TAB>text'"
                )
            ident, middle = fields[0], fields[1]
            parts = middle.split(" ", 1)
            if len(parts) != 2:
                raise InputError(
                    str(path), number, f"{ident}: expected a label and offsets, found {middle!r}"
                )
            label, offsets = parts
            fragments = []
            for fragment in offsets.split(";"):
                numbers = fragment.split()
                if len(numbers) != 2 or not all(n.isdigit() for n in numbers):
                    raise InputError(
                        str(path), number, f"{ident}: expected 'start end' offsets, found {fragment!r}"
                    )
                start, end = int(numbers[0]), int(numbers[1])
                _check_span(path, number, ident, start, end, len(signal))
                fragments.append((start, end))
            if len(fields) > 2:
                expected = " ".join(signal[s:e] for s, e in fragments)
                if fields[2] != expected and fields[2].replace("\n", " ") != expected.replace("\n", " "):
                    raise InputError(
                        str(path),
                        number,
                        f"{ident}: its text {fields[2]!r} is not the signal's {expected!r} at {offsets}",
                    )
            for k, (start, end) in enumerate(fragments):
                attributes = {"id": ident} if len(fragments) == 1 else {"id": ident, "fragment": k}
                by_id.setdefault(ident, []).append(len(spans))
                spans.append(Span(label, start, end, attributes))
        elif kind in "AM":
            fields = line.split("\t")
            words = fields[1].split() if len(fields) > 1 else []
            if len(words) not in (2, 3):
                raise InputError(str(path), number, "expected 'A<id><TAB>Name T<id> [value]'")
            name, target = words[0], words[1]
            if target not in by_id:
                raise InputError(str(path), number, f"attribute of {target}, which no earlier T line defines")
            for index in by_id[target]:
                spans[index].attributes[name] = words[2] if len(words) == 3 else True
    return document_of(str(path), signal, spans)


# --- CoNLL BIO / BIOES --------------------------------------------------------------------------


def read_conll(path: Path, encoding: str) -> Document:
    """seqeval's column format (see the module doc)."""
    tokens: list[Span] = []
    chunks: list[Span] = []
    pieces: list[str] = []
    length = 0
    sentence_open = False
    previous_tag, previous_type = "O", ""
    chunk_start = -1
    chunk_type = ""
    last_end = 0

    def close_chunk() -> None:
        nonlocal chunk_start
        if chunk_start >= 0:
            chunks.append(Span(chunk_type, chunk_start, last_end, {}))
            chunk_start = -1

    for number, line in enumerate(_read_text(path, encoding).splitlines(), start=1):
        columns = line.split()
        if not columns or columns[0] == "-DOCSTART-":
            if columns and not sentence_open:
                continue
            close_chunk()
            previous_tag, previous_type = "O", ""
            if sentence_open:
                pieces.append("\n")
                length += 1
                sentence_open = False
            continue
        if len(columns) < 2:
            raise InputError(str(path), number, f"expected a token and its tag, found {line!r}")
        token, tag = columns[0], columns[-1]
        if tag == "O":
            prefix, type_ = "O", ""
        else:
            prefix, dash, type_ = tag.partition("-")
            if dash != "-" or prefix not in ("B", "I", "E", "S") or not type_:
                raise InputError(
                    str(path), number, f"expected a BIO/BIOES tag (O, B-X, I-X, E-X, S-X), found {tag!r}"
                )
        if sentence_open:
            pieces.append(" ")
            length += 1
        start = length
        pieces.append(token)
        length += len(token)
        sentence_open = True
        if _chunk_ends(previous_tag, prefix, previous_type, type_):
            close_chunk()
        if _chunk_starts(previous_tag, prefix, previous_type, type_):
            chunk_start, chunk_type = start, type_
        tokens.append(Span(CONLL_TOKEN_LABEL, start, length, {}))
        last_end = length
        previous_tag, previous_type = prefix, type_
    close_chunk()
    signal = "".join(pieces)
    ordered = sorted([*chunks, *tokens], key=lambda s: (s.start, -s.end, s.label == CONLL_TOKEN_LABEL))
    return document_of(str(path), signal, ordered, frozenset({CONLL_TOKEN_LABEL}))


def _chunk_ends(previous: str, tag: str, previous_type: str, type_: str) -> bool:
    # seqeval's end_of_chunk (default, non-strict mode).
    if previous in ("E", "S"):
        return True
    if previous in ("B", "I") and tag in ("B", "S", "O"):
        return True
    return previous != "O" and previous_type != type_


def _chunk_starts(previous: str, tag: str, previous_type: str, type_: str) -> bool:
    # seqeval's start_of_chunk (default, non-strict mode).
    if tag in ("B", "S"):
        return True
    if previous in ("E", "S", "O") and tag in ("E", "I"):
        return True
    return tag != "O" and previous_type != type_


# --- helpers ------------------------------------------------------------------------------------


def _read_text(path: Path, encoding: str) -> str:
    try:
        data = read_bytes(str(path))
    except OSError as error:
        raise InputError(str(path), 0, f"cannot read the file: {error.strerror or error}") from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(str(path), line, f"bytes that are not {encoding} at byte {error.start}") from None
    except LookupError:
        raise InputError(str(path), 0, f"unknown encoding {encoding!r}") from None


def _check_span(path: Path, line: int, where: str, start: int, end: int, length: int) -> None:
    if start < 0 or start > end:
        raise InputError(str(path), line, f"{where}: span [{start}, {end}) starts after it ends or before 0")
    if end > length:
        raise InputError(
            str(path), line, f"{where}: span [{start}, {end}) ends outside the signal ({length} characters)"
        )
