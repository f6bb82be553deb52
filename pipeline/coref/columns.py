"""A key and a response file read into their mention table (:func:`read_mentions`, the wing's reader):
CoNLL as columns, without a Python object per token or mention, where it can.

For well-formed CoNLL matched exactly, the columns give what
``aligned_mentions(read_aligned(key, response)[1])`` gives (the same rows in the same
order, the same dtypes, the same notes), and so the same scores. The lines are
split and classified with pyarrow's string kernels; the coreference column is parsed on its bytes with
numpy (digit runs, the bracket before and after each); brackets are matched per (document, chain
label) by nesting depth, which is the reference scorer's stack; under ``strict`` duplicate response
extents are removed in the order :func:`~pipeline.coref.pairing.pair_documents` removes them.

Everything else is read by the line-by-line reader (:mod:`pipeline.coref.readers`, the specification of
the formats), which gives the same result or raises the :class:`InputError` the input deserves (file,
line, what was expected): SGML, MIN matching, and in CoNLL a structural problem (``#begin document``
inside a document, a token line outside one, a document twice or never ended), a malformed coreference
column, a bracket never opened or never closed, a duplicate key extent, a key without mentions, documents
one side lacks or a response extent written twice (unless ``strict``; :mod:`pipeline.coref.pairing`),
sentences that differ between the key and the response, chain labels with leading zeros (the reader
keys chains by the label as written), and text holding a character Python's ``str.split`` treats as
whitespace but pyarrow's ASCII split does not (``\\v``, ``\\x1c``-``\\x1f``, non-ASCII spaces).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.coref.alignment import MentionTable, aligned_mentions
from iescore.pipeline.coref.metrics import METRICS, CorefScores, score_mentions
from iescore.pipeline.coref.pairing import read_aligned
from iescore.pipeline.coref.readers import read_text

# Characters Python's str.split() splits on that pyarrow's ascii_split_whitespace keeps: with any of
# them in a file, the columns could disagree with the line-by-line reader, so that reader is used.
_ODD_SPACE = re.compile("[\x0b\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_BEGIN = re.compile(r"^#\s*begin document\s*(.*?)\s*$")
_CLUSTER_FIELD = r"^(?:\(\d+\)|\(\d+|\d+\)|\|)+$"  # the line reader's _CLUSTER_FIELD, anchored (RE2)
_MAX_LABEL_DIGITS = 9  # longer labels are left to the line reader (codes of (document, label) fit int64)

_OPEN, _CLOSE, _PIPE = ord("("), ord(")"), ord("|")


@dataclass
class ConllColumns:
    """One CoNLL file as columns: documents in file order, tokens, and mentions after deduplication."""

    names: list[str]  # document ids, file order
    doc_lines: np.ndarray  # the '#begin document' line of each document
    token_doc: np.ndarray  # per token: its document
    token_line: np.ndarray  # per token: its line in the file (1-based)
    token_break: np.ndarray  # per token: starts a sentence (the first token of a document excepted)
    words: pa.Array  # per token: its word (the line reader's choice of column)
    mention_doc: np.ndarray  # per mention, documents in order, then (start, -end, chain)
    mention_chain: np.ndarray  # dense chain number in the document, in order of first appearance
    mention_start: np.ndarray  # first token, counted from 0 in the document
    mention_end: np.ndarray  # last token + 1
    chains: np.ndarray  # per document: number of chains left after deduplication
    duplicates: np.ndarray  # per document: response mentions removed as duplicates


def read_mentions(
    key_path: str | Path,
    response_path: str | Path,
    fmt: str = "conll",
    match: str = "exact",
    encoding: str = "utf-8",
    strict: bool = False,
) -> MentionTable:
    """The :class:`~pipeline.coref.alignment.MentionTable` of a key and a response file (``fmt``:
    conll or sgml; ``match``: exact or min, see :func:`~pipeline.coref.alignment.align_documents`).

    Read as columns when the files are CoNLL matched exactly and the columns can take them (see the
    module's text), by :func:`~pipeline.coref.readers.read_pair` and
    :func:`~pipeline.coref.alignment.align_documents` otherwise; documents and repeated mentions are
    paired by :func:`~pipeline.coref.pairing.pair_documents` (``strict``: refuse what it announces).
    Raises InputError on bad input.
    """
    if fmt == "conll" and match == "exact":
        columns = _conll_mention_table(key_path, response_path, encoding, strict)
        if columns is not None:
            return columns
    paired, aligned = read_aligned(key_path, response_path, fmt, match, encoding, strict)
    return replace(aligned_mentions(aligned), notices=paired.notices)


def score_files(
    key_path: str | Path,
    response_path: str | Path,
    fmt: str = "conll",
    match: str = "exact",
    encoding: str = "utf-8",
    strict: bool = False,
) -> tuple[MentionTable, CorefScores]:
    """A key and a response file read (:func:`read_mentions`) and scored with every metric
    (:func:`~pipeline.coref.metrics.score_mentions`): what ``iescore coref`` and ``iescore.coref`` report.

    MIN matching needs SGML input (CoNLL mentions have no MIN): an :class:`InputError` naming ``--match``.
    """
    if match == "min" and fmt != "sgml":
        raise InputError("--match", 0, "MIN matching needs SGML input (-f sgml); CoNLL mentions have no MIN")
    mentions = read_mentions(key_path, response_path, fmt, match, encoding, strict=strict)
    return mentions, score_mentions(mentions, METRICS)


def _conll_mention_table(
    key_path: str | Path, response_path: str | Path, encoding: str = "utf-8", strict: bool = False
) -> MentionTable | None:
    """:func:`read_mentions` of a CoNLL key and response on columns, or ``None`` where the line reader
    must read them (it raises the :class:`InputError` the input deserves, or handles a rare case this
    path leaves to it)."""
    key = _read_conll_columns(key_path, encoding, response=False)
    if key is None or not key.names or len(key.mention_doc) == 0:
        return None
    # A response extent written twice is removed when it is a key extent (or under strict); a repeat
    # of another extent is kept, with a notice, by the line reader's path (pipeline.coref.pairing).
    extents = None if strict else _extents(key)
    response = _read_conll_columns(response_path, encoding, response=True, key_extents=extents)
    if response is None or sorted(response.names) != sorted(key.names):
        return None  # documents one side lacks: paired (and announced) by the line reader's path
    # The response's documents in key order; every document must have the key's tokens and sentences.
    position = {name: i for i, name in enumerate(response.names)}
    order = np.array([position[name] for name in key.names], dtype=np.int64)  # key doc -> response doc
    key_of_response = np.empty_like(order)
    key_of_response[order] = np.arange(len(order))
    k_tokens = np.bincount(key.token_doc, minlength=len(key.names))
    r_tokens = np.bincount(response.token_doc, minlength=len(response.names))
    if not np.array_equal(k_tokens, r_tokens[order]):
        return None
    # Response tokens in key document order (stable within a document: tokens stay in file order).
    r_order = np.argsort(key_of_response[response.token_doc], kind="stable")
    if not np.array_equal(key.token_break, response.token_break[r_order]):
        return None
    r_words = response.words.take(pa.array(r_order))
    differ = np.flatnonzero(pc.not_equal(key.words, r_words).to_numpy(zero_copy_only=False))
    first = ""
    if len(differ):
        i = int(differ[0])
        first = (
            f"{response_path}:{int(response.token_line[r_order[i]])}: token {key.words[i].as_py()!r} "
            f"expected ({key_path}:{int(key.token_line[i])}), found {r_words[i].as_py()!r}"
        )

    # Response mentions renumbered to key documents and sorted like the key's (doc, start, -end, chain).
    r_doc = key_of_response[response.mention_doc]
    r_sort = np.lexsort((response.mention_chain, -response.mention_end, response.mention_start, r_doc))
    r_doc = r_doc[r_sort]
    r_chain, r_start, r_end = (a[r_sort] for a in (response.mention_chain, response.mention_start,
                                                   response.mention_end))  # fmt: skip
    k_doc, k_chain = key.mention_doc, key.mention_chain
    k_start, k_end = key.mention_start, key.mention_end
    k_index = _rank_in_doc(k_doc)
    r_index = _rank_in_doc(r_doc)

    # Exact matching: equal (document, start, end); extents are unique on each side.
    width = int(max(k_end.max(initial=0), r_end.max(initial=0))) + 1
    k_code = (k_doc * width + k_start) * width + k_end
    r_code = (r_doc * width + r_start) * width + r_end
    common, k_at, r_at = np.intersect1d(k_code, r_code, assume_unique=True, return_indices=True)
    k_partner = np.full(len(k_doc), -1, dtype=np.int64)
    k_partner[k_at] = r_at
    r_matched = np.zeros(len(r_doc), dtype=bool)
    r_matched[r_at] = True

    # Texts: the words of each extent joined by spaces (each side its own words).
    k_text = _extent_texts(key.words, _doc_token_base(key.token_doc, len(key.names)), k_doc, k_start, k_end)
    r_base = _doc_token_base(response.token_doc, len(response.names))[order]
    r_text = _extent_texts(response.words, r_base, r_doc, r_start, r_end)

    matched = k_partner >= 0
    partner = np.where(matched, k_partner, 0)
    spurious = np.flatnonzero(~r_matched)
    n_key, n_spu = len(k_doc), len(spurious)
    doc = np.concatenate([k_doc, r_doc[spurious]])
    side = np.concatenate([np.zeros(n_key, dtype=np.int8), np.ones(n_spu, dtype=np.int8)])
    rows = np.lexsort((np.concatenate([k_index, r_index[spurious]]), side, doc))
    names = np.array(key.names, dtype=object)
    k_rsp_text = np.where(matched, r_text[partner] if len(r_text) else "", "")
    columns = {
        "doc_id": names[doc],
        "doc": doc,
        "key_mention": np.concatenate([k_index, np.full(n_spu, -1, dtype=np.int64)]),
        "response_mention": np.concatenate(
            [np.where(matched, r_index[partner] if len(r_index) else -1, -1), r_index[spurious]]
        ),
        "key_chain": np.concatenate([k_chain, np.full(n_spu, -1, dtype=np.int64)]),
        "response_chain": np.concatenate(
            [np.where(matched, r_chain[partner] if len(r_chain) else -1, -1), r_chain[spurious]]
        ),
        "start": np.concatenate([k_start, r_start[spurious]]),
        "end": np.concatenate([k_end, r_end[spurious]]),
        "status": np.concatenate(
            [np.where(matched, "COR", "MIS").astype(object), np.full(n_spu, "SPU", dtype=object)]
        ),
        "scored": np.ones(n_key + n_spu, dtype=bool),
        "key_text": np.concatenate([k_text, np.full(n_spu, "", dtype=object)]),
        "response_text": np.concatenate([k_rsp_text.astype(object), r_text[spurious]]),
    }
    table = pd.DataFrame({name: values[rows] for name, values in columns.items()})
    for name in ("doc", "key_mention", "response_mention", "key_chain", "response_chain", "start", "end"):
        table[name] = table[name].astype(np.int64)
    return MentionTable(
        table,
        key.names,
        key.chains,
        response.chains[order],
        int(response.duplicates.sum()),
        len(differ),
        first,
    )


def _read_conll_columns(
    path: str | Path,
    encoding: str = "utf-8",
    response: bool = False,
    key_extents: set[tuple[str, int, int]] | None = None,
) -> ConllColumns | None:
    """One CoNLL file as :class:`ConllColumns`, or ``None`` where the line reader must decide.

    A response's repeated extents are removed; with ``key_extents`` (document, start, end), ``None``
    is returned instead when a repeated extent is not among them.
    """
    text = read_text(path, encoding)
    if _ODD_SPACE.search(text):
        return None
    lines = pc.utf8_rtrim(pc.split_pattern(pa.array([text], pa.large_string()), "\n").flatten(), "\r")
    del text
    stripped = pc.ascii_trim_whitespace(lines)  # arrow's split keeps empty pieces at the ends
    fields = pc.ascii_split_whitespace(stripped)
    empty = pc.binary_length(stripped).to_numpy() == 0
    n_fields = np.where(empty, 0, pc.list_value_length(fields).to_numpy())
    begin = pc.match_substring_regex(lines, r"^#\s*begin document").to_numpy(zero_copy_only=False)
    end = pc.match_substring_regex(lines, r"^#\s*end document").to_numpy(zero_copy_only=False) & ~begin
    blank = n_fields == 0
    comment = pc.starts_with(lines, "#").to_numpy(zero_copy_only=False) & ~begin & ~end & ~blank
    token = ~(begin | end | blank | comment)

    # Document structure: markers must alternate begin, end; names unique; tokens inside documents.
    markers = np.flatnonzero(begin | end)
    is_begin = begin[markers]
    if len(markers) % 2 or not (is_begin[0::2].all() and not is_begin[1::2].any()):
        return None
    begins = markers[0::2]
    names = [_BEGIN.match(lines[int(i)].as_py()).group(1) for i in begins]  # type: ignore[union-attr]
    if len(set(names)) != len(names):
        return None
    token_rows = np.flatnonzero(token)
    slot = np.searchsorted(markers, token_rows, side="right") - 1  # last marker before each token
    if len(token_rows) and ((slot < 0).any() or (slot % 2).any()):
        return None
    token_doc = (slot // 2).astype(np.int64)
    n_docs = len(names)

    # Words and coreference values: the line reader's columns (word: 4th of 5+, else next to last).
    offsets = fields.offsets.to_numpy()[token_rows]
    count = n_fields[token_rows]
    values = fields.values
    word_at = np.where(count >= 5, offsets + 3, offsets + count - 2)
    words = values.take(pa.array(np.where(count >= 2, word_at, 0)))
    words = pc.if_else(pa.array(count >= 2), words, "")
    coref = values.take(pa.array(offsets + count - 1))

    # Sentences: a token starts one when a blank line lies between it and the previous token of its doc.
    blanks_before = np.cumsum(blank)[token_rows]
    first_of_doc = np.r_[True, token_doc[1:] != token_doc[:-1]] if len(token_rows) else np.zeros(0, bool)
    token_break = ~first_of_doc & (blanks_before - np.r_[0, blanks_before[:-1]] > 0)

    # Mentions from the coreference column.
    has = ~pc.is_in(coref, pa.array(["-", "_"])).to_numpy(zero_copy_only=False)
    marked = np.flatnonzero(has)
    marks = coref.filter(pa.array(has))
    if len(marks) and not pc.all(pc.match_substring_regex(marks, _CLUSTER_FIELD)).as_py():
        return None
    parsed = _parse_marks(marks)
    if parsed is None:
        return None
    owner, label, kind, part = parsed  # per item: index into marks, label, 0 single 1 opening 2 closing
    tok = marked[owner]  # token of each item (global token index)
    doc = token_doc[tok]
    doc_first_token = _doc_token_base(token_doc, n_docs)
    local = tok - doc_first_token[doc]
    line = token_rows[tok] + 1

    # Chains: numbered per document in order of first appearance (singles, then openings, then closings
    # of a token, each in the column's order).
    appearance = np.lexsort((part, kind, tok))
    seen_doc, seen_label = doc[appearance], label[appearance]
    first_code, first_at = np.unique(
        seen_doc.astype(np.int64) * (int(label.max(initial=0)) + 1) + seen_label, return_index=True
    )
    width = int(label.max(initial=0)) + 1
    chain_doc = first_code // width
    chain_rank = np.empty(len(first_code), dtype=np.int64)
    by_appearance = np.lexsort((first_at, chain_doc))
    chain_rank[by_appearance] = _rank_in_doc(chain_doc[by_appearance])
    chain = chain_rank[np.searchsorted(first_code, doc.astype(np.int64) * width + label)]

    # Brackets: per (document, chain), openings pushed and closings popped in reading order.
    brackets = np.flatnonzero(kind > 0)
    b_order = brackets[np.lexsort((part[brackets], kind[brackets], tok[brackets], chain[brackets],
                                   doc[brackets]))]  # fmt: skip
    step = np.where(kind[b_order] == 1, 1, -1)
    group = doc[b_order].astype(np.int64) * (int(chain.max(initial=0)) + 1) + chain[b_order]
    new_group = np.r_[True, group[1:] != group[:-1]] if len(b_order) else np.zeros(0, bool)
    running = np.cumsum(step)
    base = np.maximum.accumulate(np.where(new_group, np.arange(len(step)), 0)) if len(step) else step
    depth = running - (running[base] - step[base])  # depth after each bracket, within its group
    if len(step):
        group_end = np.r_[np.flatnonzero(new_group)[1:] - 1, len(step) - 1]
        if (depth < 0).any() or (depth[group_end] != 0).any():
            return None
    level = np.where(step > 0, depth, depth + 1)
    pairing = np.lexsort((np.arange(len(b_order)), level, group))
    if len(pairing) % 2 or (step[pairing[0::2]] != 1).any() or (step[pairing[1::2]] != -1).any():
        return None
    opening, closing = b_order[pairing[0::2]], b_order[pairing[1::2]]

    singles = np.flatnonzero(kind == 0)
    m_doc = np.concatenate([doc[singles], doc[closing]]).astype(np.int64)
    m_chain = np.concatenate([chain[singles], chain[closing]])
    m_start = np.concatenate([local[singles], local[opening]])
    m_end = np.concatenate([local[singles] + 1, local[closing] + 1])
    m_line = np.concatenate([line[singles], line[opening]])
    # The order mentions join their chain: at their (closing) token, singles before closings.
    m_tok = np.concatenate([tok[singles], tok[closing]])
    m_kind = np.concatenate([kind[singles], kind[closing]])
    m_part = np.concatenate([part[singles], part[closing]])

    # Duplicates: an extent seen before (chains in order, each chain's mentions in joining order).
    joined = np.lexsort((m_part, m_kind, m_tok, m_chain, m_doc))
    m_doc, m_chain, m_start, m_end, m_line = (a[joined] for a in (m_doc, m_chain, m_start, m_end, m_line))
    span = int(m_end.max(initial=0)) + 1
    if (n_docs + 1) * span * span >= 2**62:
        return None  # (document, start, end) codes would overflow: left to the line reader
    extent = (m_doc * span + m_start) * span + m_end
    _, first_index = np.unique(extent, return_index=True)
    keep = np.zeros(len(extent), dtype=bool)
    keep[first_index] = True
    if not response and not keep.all():
        return None
    if key_extents is not None and not keep.all():
        repeats = zip(m_doc[~keep].tolist(), m_start[~keep].tolist(), m_end[~keep].tolist(), strict=True)
        if any((names[d], s, e) not in key_extents for d, s, e in repeats):
            return None
    duplicates = np.bincount(m_doc[~keep], minlength=n_docs)
    m_doc, m_chain, m_start, m_end = m_doc[keep], m_chain[keep], m_start[keep], m_end[keep]
    # Chains left empty disappear: renumber the rest densely, in order.
    chain_code = m_doc * (int(m_chain.max(initial=0)) + 1) + m_chain
    unique_chains, dense = np.unique(chain_code, return_inverse=True)
    chain_docs = unique_chains // (int(m_chain.max(initial=0)) + 1)
    m_chain = dense.reshape(-1) - _doc_token_base(chain_docs, n_docs)[m_doc]
    chains = np.bincount(chain_docs, minlength=n_docs)

    final = np.lexsort((m_chain, -m_end, m_start, m_doc))
    return ConllColumns(
        names,
        begins + 1,
        token_doc,
        token_rows + 1,
        token_break,
        words,
        m_doc[final],
        m_chain[final],
        m_start[final],
        m_end[final],
        chains,
        duplicates,
    )


# --- helpers -------------------------------------------------------------------------------------


def _extents(columns: ConllColumns) -> set[tuple[str, int, int]]:
    """The (document, start, end) of every mention of a file read as columns."""
    names = columns.names
    return {
        (names[d], s, e)
        for d, s, e in zip(
            columns.mention_doc.tolist(),
            columns.mention_start.tolist(),
            columns.mention_end.tolist(),
            strict=True,
        )
    }


def _parse_marks(marks: pa.Array) -> tuple[np.ndarray, ...] | None:
    """The items of coreference values already checked against the column's grammar.

    Per item (a run of digits): the value it is in, its label, its kind (0 ``(N)``, 1 ``(N``, 2 ``N)``)
    and its place in the value. ``None`` when a label has a leading zero or too many digits.
    """
    marks = marks.cast(pa.large_string()) if marks.type != pa.large_string() else marks
    if len(marks) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    buffers = marks.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64)[marks.offset : marks.offset + len(marks) + 1]
    data = np.frombuffer(buffers[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    offsets = offsets - offsets[0]
    size = len(data)
    owner = np.repeat(np.arange(len(marks)), np.diff(offsets))
    digit = (data >= 48) & (data <= 57)
    value_start = np.zeros(size, dtype=bool)
    value_start[offsets[:-1][np.diff(offsets) > 0]] = True
    previous_digit = np.r_[False, digit[:-1]] & ~value_start
    run_start = np.flatnonzero(digit & ~previous_digit)
    next_digit = np.r_[digit[1:], False]
    value_last = np.zeros(size, dtype=bool)
    value_last[offsets[1:][np.diff(offsets) > 0] - 1] = True
    run_end = np.flatnonzero(digit & (~next_digit | value_last)) + 1  # exclusive
    length = run_end - run_start
    if (length > _MAX_LABEL_DIGITS).any() or ((data[run_start] == 48) & (length > 1)).any():
        return None
    label = np.zeros(len(run_start), dtype=np.int64)
    for k in range(int(length.max())):
        inside = k < length
        at = np.minimum(run_start + k, size - 1)
        label = np.where(inside, label * 10 + (data[at].astype(np.int64) - 48), label)
    before = np.where(value_start[run_start], 0, data[np.maximum(run_start - 1, 0)])
    after = np.where(value_last[run_end - 1], 0, data[np.minimum(run_end, size - 1)])
    opens, closes = before == _OPEN, after == _CLOSE
    kind = np.where(opens & closes, 0, np.where(opens, 1, 2))
    item_owner = owner[run_start]
    part = _rank_in_doc(item_owner)
    return item_owner, label, kind, part


def _rank_in_doc(doc: np.ndarray) -> np.ndarray:
    """0, 1, 2 ... within each run of equal values of a sorted array."""
    if len(doc) == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.r_[True, doc[1:] != doc[:-1]]
    index = np.arange(len(doc))
    return index - np.maximum.accumulate(np.where(starts, index, 0))


def _doc_token_base(token_doc: np.ndarray, n_docs: int) -> np.ndarray:
    """Per document: the index of its first element in an array sorted by document."""
    counts = np.bincount(token_doc, minlength=n_docs) if len(token_doc) else np.zeros(n_docs, np.int64)
    return np.r_[0, np.cumsum(counts)[:-1]].astype(np.int64)


def _extent_texts(
    words: pa.Array,
    base: np.ndarray,
    doc: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
) -> np.ndarray:
    """``" ".join(words[start:end])`` of each extent, tokens counted from ``base[doc]``."""
    if len(doc) == 0:
        return np.zeros(0, dtype=object)
    first = base[doc] + start
    length = end - start
    index = np.repeat(first - np.r_[0, np.cumsum(length)[:-1]], length) + np.arange(int(length.sum()))
    lists = pa.LargeListArray.from_arrays(pa.array(np.r_[0, np.cumsum(length)]), words.take(pa.array(index)))
    joined = pc.binary_join(lists, pa.scalar(" ", pa.large_string()))
    return np.asarray(joined.to_numpy(zero_copy_only=False), dtype=object)
