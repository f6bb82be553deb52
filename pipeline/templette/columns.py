"""A template file read and checked into its ``fills`` table: IngestTemplates' rule, one function
(:func:`read_fills`), on columns where it can and by the parser everywhere else.

The columns (:func:`_fills_table_of_text`) read the lines of six kinds with Arrow's string kernels and
numpy, no token, fill, slot or instance object: an instance header; or an optional slot name followed
by a pointer, a double-quoted string with one extent, one bare word with one extent (the *common
lines* of :mod:`pipeline.templette.templates`), a double-quoted string without extents and without a
quote inside, or one bare word without extents (a set fill). An instance block (from a header line up
to the next) holding a line of any other kind (a ``/``, ``?``, several fills on a line, minimal
strings, a single-quoted string...) is parsed by the parser on its own. The result is exactly the
table ``template_set_to_table(parse_template_set(text, source))`` gives.

The parser (:func:`~pipeline.templette.templates.parse_template_set`, the specification of the
format, which reads the file or raises the error it always raised) reads the whole file instead when
it holds anything the parser refuses (a bad pointer, an extent start not before its end, a fill before
the first slot name, duplicate instances or slots, brackets in a text fill, a refused block), anything
but blank lines before the first header line, no block without other lines, or a whitespace character
other than space, tab, carriage return and form feed (Arrow's regular expressions know only those);
and the template set it gives is checked as IngestTemplates checks it when the checks cannot be told
to pass on the columns (:func:`_checks_hold`: pointers name instances, the role's check, extents
inside their documents), so that the first failing check raises its usual error.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.templette.checks import (
    check_against_corpus,
    check_reference_not_empty,
    check_single_alternatives,
)
from iescore.pipeline.templette.model import OPTIONAL_STATUS_SLOT, OPTIONAL_STATUS_VALUE, TemplateSet
from iescore.pipeline.templette.tables import corpus_from_table, template_set_to_table
from iescore.pipeline.templette.templates import check_pointers, parse_lines, parse_template_set
from iescore.schemas import FILLS, C

# Python's ``\s`` matches these besides space, tab, newline, carriage return and form feed; Arrow's
# (RE2's) ``\s`` does not. A file holding any of them is left to the parser.
ODD_SPACES = (
    "\x0b\x1c\x1d\x1e\x1f\x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000")
)
_ODD_SPACE = re.compile("[" + ODD_SPACES + "]")

# ``_COMMON_LINE`` of ``pipeline.templette.templates`` in RE2's syntax, one anchored expression per
# kind of line: a line matches ``_COMMON_LINE`` when it matches one of these, and then only one (they
# differ in the first character after the slot name, and a slot name is followed by whitespace,
# which no bare word ending in ':' could be), with the same groups. The bare word's "not ending in
# ':'" (a look-behind there) is spelled out. An optional group that does not take part is "".
# A line begins with a slot name, or with '/' and whitespace (a further alternative of the slot, the
# seed's layout of reference alternatives), or with neither (a further fill of the alternative).
_SLOT = r"(?:(?P<slot>[A-Za-z0-9_-]+):\s+|(?P<slash>/)\s+)?"
_EXTENT = r"##(?P<start>[0-9]{1,15})#(?P<end>[0-9]{1,15})#"
_QUOTED_LINE = r"^\s*" + _SLOT + r'"(?P<text>[^"]*)"\s*' + _EXTENT + r"\s*$"
_HEADER_LINE = r"^\s*(?P<header><[^\s<>]*>)\s*:=\s*$"
_POINTER_LINE = r"^\s*" + _SLOT + r"(?P<pointer><[^\s<>]*>)\s*$"
_WORD = r"(?P<text>[^\s<\"'/#?:]|[^\s<\"'/#?]\S*[^\s:])"
_BARE_LINE = r"^\s*" + _SLOT + _WORD + r"\s+" + _EXTENT + r"\s*$"
# Two lines ``_COMMON_LINE`` does not read, read as the tokenizer reads them: a quoted string without
# extents and without a quote inside (a text fill), one bare word without extents (a set fill).
_PLAIN_QUOTED_LINE = r"^\s*" + _SLOT + r'"(?P<text>[^"]*)"\s*$'
_SET_LINE = r"^\s*" + _SLOT + _WORD + r"\s*$"
QUOTED, HEADER, POINTER, BARE, PLAIN_QUOTED, SET = range(6)
# The most frequent first.
_LINES = (_QUOTED_LINE, _HEADER_LINE, _POINTER_LINE, _BARE_LINE, _PLAIN_QUOTED_LINE, _SET_LINE)
# ``<TYPE-DOCID-ONEUP>`` split at the first and last hyphens into three non-empty parts.
_POINTER_PARTS = r"^<(?P<type>[^-]+)-(?P<doc_id>.+)-(?P<one_up>[^-]+)>$"
_BLANK = r"^\s*$"

_KINDS = pa.array(["text", "pointer", "set"], pa.string())


def read_fills(
    text: str, source: str, role: str | None, documents: pa.Table | None, unsegmented: bool
) -> pa.Table:
    """IngestTemplates' work: a template file's text read and checked into its ``fills`` table.

    The columns path (:func:`_fills_table_of_text`, :func:`_checks_hold`) when it answers; else the
    template set, parsed and checked (``check_pointers``, the role's check, ``check_against_corpus``
    with the ``documents`` table), which raise the first failing check's error.
    """
    table = _fills_table_of_text(text, source)
    if table is not None and _checks_hold(table, role, documents, unsegmented):
        return table
    return _fills_by_parser(text, source, role, documents, unsegmented)


def _fills_by_parser(
    text: str, source: str, role: str | None, documents: pa.Table | None, unsegmented: bool
) -> pa.Table:
    """:func:`read_fills` by the parser alone (the specification of the format and its checks)."""
    template_set = parse_template_set(text, source)
    check_pointers(template_set)
    if role == "hypothesis":
        check_single_alternatives(template_set)
    else:
        check_reference_not_empty(template_set)
    if documents is not None:
        check_against_corpus(template_set, corpus_from_table(documents), unsegmented)
    return template_set_to_table(template_set)


def _fills_table_of_text(text: str, source: str) -> pa.Table | None:
    """The ``fills`` table of a template file's text (see the module doc), or None to parse it."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if _has_odd_space(text):
        return None
    split = text.split("\n")
    try:
        lines = pa.array(split, pa.string())
    except (UnicodeError, ValueError, pa.ArrowException):  # e.g. a lone surrogate
        return None
    if not isinstance(lines, pa.StringArray):  # chunked: over 2 GiB of text
        return None
    # Each kind's lines in turn, from those no earlier kind matched; the rest are blank or other lines.
    kinds: list[tuple[np.ndarray, pa.StructArray]] = []
    rest, where = lines, np.arange(len(lines))
    for pattern in _LINES:
        parts = pc.extract_regex(rest, pattern)
        matched = _numpy(parts.is_valid())
        kinds.append((where[matched], parts.filter(pa.array(matched))))
        rest, where = rest.filter(pa.array(~matched)), where[~matched]
    other = where[~_numpy(pc.match_substring_regex(rest, _BLANK))] if len(rest) else where
    if not other.size:
        return _with_source(_common_rows(kinds), source)
    # An instance block (from a header line to the next) holding another line is parsed on its own.
    headers = kinds[HEADER][0]
    if not headers.size or other[0] < headers[0]:
        return None
    blocks = np.unique(np.searchsorted(headers, other, "right") - 1)
    if len(blocks) == len(headers):
        return None
    bounds = np.append(headers, len(split))
    instances = []
    try:
        for block in blocks.tolist():
            low, high = int(bounds[block]), int(bounds[block + 1])
            instances.extend(parse_lines(split[low:high], source, low + 1).instances)
    except InputError:
        return None
    # All parsed blocks' rows as one table (a table per block cost a millisecond each).
    parsed = template_set_to_table(TemplateSet(tuple(instances), source))
    kept = [
        (where[keep], parts.filter(pa.array(keep)))
        for where, parts in kinds
        for keep in [~np.isin(np.searchsorted(headers, where, "right") - 1, blocks)]
    ]
    common = _common_rows(kept)
    if common is None:
        return None
    # Instance headers unique across the two (the common lines' are already unique among themselves).
    named = [instance.pointer.render() for instance in instances]
    if len(set(named)) != len(named) or set(named) & set(kept[HEADER][1].field("header").to_pylist()):
        return None
    # Rows in file order: by the line of their instance block's header.
    keys = [_numpy(pc.fill_null(table.column(C.instance_line), 0)) for table in (common, parsed)]
    order = np.argsort(np.concatenate(keys), kind="stable")
    merged = pa.concat_tables([common, parsed.replace_schema_metadata(FILLS.metadata)])
    return _with_source(merged.take(pa.array(order)), source)


def _common_rows(kinds: list[tuple[np.ndarray, pa.StructArray]]) -> pa.Table | None:
    """The ``fills`` rows of common lines (each kind's line indices and groups), None where the
    parser would refuse them."""
    positions = np.concatenate([where for where, _ in kinds])
    order = np.argsort(positions, kind="stable")
    numbers = (positions[order] + 1).astype(np.int32)
    kind = np.repeat(np.arange(len(kinds)), [len(where) for where, _ in kinds])[order]
    n = len(kind)
    if n == 0 or kind[0] != HEADER:
        return None
    is_header, is_pointer, is_set = kind == HEADER, kind == POINTER, kind == SET
    is_quoted = (kind == QUOTED) | (kind == PLAIN_QUOTED)
    has_extent = (kind == QUOTED) | (kind == BARE)

    def gather(name: str) -> pa.Array:
        """A group of every matched line, in line order (null for a kind without it)."""
        pieces = [p.field(name) if name in _names(p) else pa.nulls(len(p), pa.string()) for _, p in kinds]
        return pa.concat_arrays(pieces).take(pa.array(order))

    slots = gather("slot")
    is_slot = _non_empty(slots)
    is_slash = _non_empty(gather("slash"))
    position = np.arange(n)
    last_header = np.maximum.accumulate(np.where(is_header, position, -1))
    last_slot = np.maximum.accumulate(np.where(is_slot, position, -1))
    # Every slot line holds a fill, so a '/' always follows a fill of its slot: it starts the next
    # alternative (the parser's ``slash``), whose fills are counted from it.
    slashes = np.cumsum(is_slash)
    last_start = np.maximum.accumulate(np.where(is_slot | is_slash, position, -1))
    is_fill = ~is_header
    if (last_slot[is_fill] <= last_header[is_fill]).any():
        return None  # a fill before the instance's first slot name
    instance = np.cumsum(is_header) - 1

    # Pointers: well formed; instance headers unique; slot names unique within their instance.
    headers = kinds[HEADER][1].field("header")
    header_parts = pc.extract_regex(headers, _POINTER_PARTS)
    pointer_lines = gather("pointer")
    pointer_parts = pc.extract_regex(kinds[POINTER][1].field("pointer"), _POINTER_PARTS)
    if header_parts.null_count or pointer_parts.null_count or len(pc.unique(headers)) != len(headers):
        return None
    slot_names = pc.dictionary_encode(slots.filter(pa.array(is_slot)))
    slot_keys = instance[is_slot] * max(len(slot_names.dictionary), 1) + _numpy(slot_names.indices)
    if np.unique(slot_keys).size != slot_keys.size:
        return None

    # Text fills: contents, extents (start before end), no brackets (minimal strings need more extents).
    is_text = is_quoted | has_extent
    text_mask = pa.array(is_text)
    extent_mask = pa.array(has_extent)
    texts = gather("text")
    starts = _numpy(pc.cast(gather("start").filter(extent_mask), pa.int64()))
    ends = _numpy(pc.cast(gather("end").filter(extent_mask), pa.int64()))
    if (starts >= ends).any() or _numpy(pc.match_substring_regex(texts.filter(text_mask), r"[\[\]]")).any():
        return None

    # Rows: every fill line, and every header with no slot before the next header.
    slotless = is_header & np.append(is_header[1:], True)
    rows = np.flatnonzero(is_fill | slotless)
    no_slot = slotless[rows]
    row_instance = instance[rows]
    row_slot = last_slot[rows]
    row_text = is_text[rows]
    row_pointer = is_pointer[rows]
    row_set = is_set[rows]
    row_extent = has_extent[rows]
    extent_index = (np.cumsum(has_extent) - 1)[rows]
    pointer_index = (np.cumsum(is_pointer) - 1)[rows]

    def at(values: pa.Array, index: np.ndarray, valid: np.ndarray) -> pa.Array:
        """``values`` taken at ``index`` where ``valid``, null elsewhere."""
        return values.take(pa.array(np.where(valid, index, 0), pa.int64(), mask=~valid))

    def ints(values: np.ndarray, valid: np.ndarray, kind: pa.DataType) -> pa.Array:
        return pa.array(values, kind, mask=~valid)

    def empty_lists(valid: np.ndarray, kind: pa.DataType) -> pa.Array:
        offsets = pa.array(np.zeros(len(valid) + 1, np.int32))
        return pa.ListArray.from_arrays(
            offsets, pa.array([], kind.value_type), type=kind, mask=pa.array(~valid)
        )

    has_slot = ~no_slot
    text_content = at(texts, rows, row_text)
    values = at(texts, rows, row_text | row_set)
    content = pc.if_else(pa.array(row_pointer), at(pointer_lines, rows, row_pointer), values)
    text_at = np.clip(extent_index, 0, None)
    row_starts = starts[text_at] if len(starts) else np.zeros(len(rows), np.int64)
    row_ends = ends[text_at] if len(ends) else np.zeros(len(rows), np.int64)
    header_rows = np.flatnonzero(is_header)[row_instance]
    columns = {
        C.doc_id: header_parts.field("doc_id").take(pa.array(row_instance)),
        C.instance_type: header_parts.field("type").take(pa.array(row_instance)),
        C.one_up: header_parts.field("one_up").take(pa.array(row_instance)),
        C.instance_line: pa.array(numbers[header_rows], pa.int32()),
        C.instance_optional: _optional(slots, texts, rows, row_slot, row_text | row_set, row_instance),
        C.slot: at(slots, row_slot, has_slot),
        C.slot_line: ints(numbers[np.clip(row_slot, 0, None)], has_slot, pa.int32()),
        C.slot_optional: pa.array(np.zeros(len(rows), bool), pa.bool_(), mask=no_slot),
        C.alternative: ints(
            (slashes[rows] - slashes[np.clip(row_slot, 0, None)]).astype(np.int32), has_slot, pa.int32()
        ),
        C.fill_index: ints((rows - last_start[rows]).astype(np.int32), has_slot, pa.int32()),
        C.kind: at(_KINDS, row_pointer + 2 * row_set, has_slot),
        C.line: ints(numbers[rows], has_slot, pa.int32()),
        C.content: content,
        C.quoted: pa.array(is_quoted[rows], pa.bool_(), mask=~(row_text | row_set)),
        C.max_content: text_content,
        C.min_contents: empty_lists(row_text, FILLS.field(C.min_contents).type),
        C.norm_content: text_content,
        C.norm_min_contents: empty_lists(row_text, FILLS.field(C.norm_min_contents).type),
        C.max_start: ints(row_starts, row_extent, pa.int64()),
        C.max_end: ints(row_ends, row_extent, pa.int64()),
        C.min_extents: empty_lists(row_text, FILLS.field(C.min_extents).type),
        C.target_type: at(pointer_parts.field("type"), pointer_index, row_pointer),
        C.target_doc_id: at(pointer_parts.field("doc_id"), pointer_index, row_pointer),
        C.target_one_up: at(pointer_parts.field("one_up"), pointer_index, row_pointer),
    }
    return pa.Table.from_arrays([columns[name] for name in FILLS.names], schema=FILLS)


def _with_source(table: pa.Table | None, source: str) -> pa.Table | None:
    """The table with ``source`` in its metadata, as ``template_set_to_table`` writes it."""
    if table is None:
        return None
    metadata = dict(FILLS.metadata or {})
    metadata[b"source"] = source.encode()
    return table.replace_schema_metadata(metadata)


def _checks_hold(table: pa.Table, role: str | None, documents: pa.Table | None, unsegmented: bool) -> bool:
    """Whether IngestTemplates' checks pass on a table of :func:`_fills_table_of_text`: every pointer
    fill names an instance (``check_pointers``); a hypothesis slot has one alternative, a reference
    at least one instance; with a ``documents`` table, every instance's document is there (the first
    document when ``unsegmented``) and every extent lies inside it, start before end
    (``check_against_corpus``). False does not mean a check fails, only that this cannot tell."""
    kind = table.column(C.kind)
    is_pointer = _numpy(pc.fill_null(pc.equal(kind, "pointer"), False))
    instances = pc.binary_join_element_wise(
        table.column(C.instance_type), table.column(C.doc_id), table.column(C.one_up), "-"
    )
    if is_pointer.any():
        mask = pa.array(is_pointer)
        targets = pc.binary_join_element_wise(
            table.column(C.target_type).filter(mask),
            table.column(C.target_doc_id).filter(mask),
            table.column(C.target_one_up).filter(mask),
            "-",
        )
        if not _numpy(pc.is_in(targets, value_set=pc.unique(instances))).all():
            return False
    if role == "hypothesis":
        if (pc.max(table.column(C.alternative)).as_py() or 0) > 0:
            return False
    elif table.num_rows == 0:
        return False
    if documents is None:
        return True
    if unsegmented:
        if documents.num_rows == 0:
            return False
        sizes = np.full(table.num_rows, len(documents.column(C.text)[0].as_py()), np.int64)
    else:
        ids = documents.column(C.doc_id)
        if len(pc.unique(ids)) != len(ids):
            return False
        where = pc.index_in(table.column(C.doc_id), value_set=ids)
        if where.null_count:
            return False
        sizes = _numpy(pc.utf8_length(documents.column(C.text)).take(where)).astype(np.int64)
    # Every extent of a text fill: the maximal one (where there is one) and the minimal ones.
    is_text = _numpy(pc.fill_null(pc.equal(kind, "text"), False))
    has_extent = is_text & _numpy(table.column(C.max_start).is_valid())
    if not (has_extent == (is_text & _numpy(table.column(C.max_end).is_valid()))).all():
        return False  # half an extent (not from a template set)
    mask = pa.array(has_extent)
    starts, ends = (_numpy(table.column(name).filter(mask)) for name in (C.max_start, C.max_end))
    size = sizes[has_extent]
    minimal = table.column(C.min_extents).combine_chunks()
    if pc.sum(pc.list_value_length(minimal)).as_py():
        flat = pc.list_flatten(minimal)
        parents = _numpy(pc.list_parent_indices(minimal))
        if flat.null_count or flat.field("start").null_count or flat.field("end").null_count:
            return False
        starts = np.concatenate([starts, _numpy(flat.field("start"))])
        ends = np.concatenate([ends, _numpy(flat.field("end"))])
        size = np.concatenate([size, sizes[parents]])
    return bool(((starts >= 0) & (ends <= size) & (starts < ends)).all())


def _optional(
    slots: pa.Array,
    texts: pa.Array,
    rows: np.ndarray,
    row_slot: np.ndarray,
    row_text: np.ndarray,
    row_instance: np.ndarray,
) -> pa.Array:
    """Each row's ``instance_optional``: its instance has an ``OBJ_STATUS`` text fill reading ``OPTIONAL``
    (slot names here are ASCII, so ``upper`` is ASCII's; the content is tested as ``Instance.optional``
    tests it, in Python, for those fills only)."""
    names = pc.ascii_upper(slots.take(pa.array(np.clip(row_slot, 0, None))))
    candidates = np.flatnonzero(row_text & _numpy(pc.fill_null(pc.equal(names, OPTIONAL_STATUS_SLOT), False)))
    if not candidates.size:
        return pa.array(np.zeros(len(rows), bool))
    values = texts.take(pa.array(rows[candidates])).to_pylist()
    optional = {
        row_instance[row]
        for row, value in zip(candidates, values, strict=True)
        if value.strip().upper() == OPTIONAL_STATUS_VALUE
    }
    return pa.array(np.isin(row_instance, list(optional)) if optional else np.zeros(len(rows), bool))


def _has_odd_space(text: str) -> bool:
    """Whether ``text`` holds one of ``ODD_SPACES`` (the ASCII ones by ``in``, which is quicker)."""
    if any(space in text for space in ODD_SPACES[:5]):
        return True
    return not text.isascii() and _ODD_SPACE.search(text) is not None


def _names(values: pa.StructArray) -> list[str]:
    return [values.type.field(i).name for i in range(values.type.num_fields)]


def _non_empty(values: pa.Array) -> np.ndarray:
    return _numpy(pc.greater(pc.fill_null(pc.binary_length(values), 0), 0))


def _numpy(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(values.to_numpy(zero_copy_only=False))
