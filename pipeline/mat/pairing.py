"""Tag-level pairing of reference and hypothesis span annotations (issue 12, point 3; seed 002).

Within each document, the content annotations of both sides are grouped into **chunks** of
transitively overlapping spans (:func:`pipeline.core.spans.overlap_chunks`; spans that only touch do
not overlap, a zero-length span is a chunk of its own). A chunk with one annotation on each side pairs
them. Any other chunk with annotations on both sides pairs them one to one, maximizing the total
similarity ``0.1 x (same label) + 0.9 x |overlap| / |union|`` over pairs that overlap
(``scipy.optimize.linear_sum_assignment``). A pair of similarity 1 (same label, same span) is a
**match**, any other pair a **clash**; an annotation left without a partner is **missing** (reference)
or **spurious** (hypothesis), even when it overlaps something.

A clash is classified from the hypothesis's side as the seed's details sheet says, in this order: same
span with another label ``tagclash``; same label: the hypothesis covers the reference ``overmark``, lies
inside it ``undermark``, otherwise ``overlap``; another label: ``tagplusovermark``,
``tagplusundermark``, ``tagplusoverlap``.

Tie rule (deterministic, independent of input order): in a chunk, reference rows and hypothesis columns
are each sorted by (start, end, label, index in the file); similarities are rounded to 12 decimals; among
assignments of equal total, the one ``linear_sum_assignment`` returns for that canonical matrix is
taken. The same annotations in any order therefore pair the same way.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import scalar, strings, to_arrow, to_numpy
from iescore.pipeline.core.spans import overlap_chunks, overlap_pairs, pair_lengths
from iescore.schemas import MAT_PAIRS, C

LABEL_WEIGHT = 0.1
SPAN_WEIGHT = 0.9
#: Detail types, from the hypothesis's side (seed 002, "Details"), plus tagplusoverlap (the seed's
#: hyptagplusoverlap column has no detail type of its own in its list; we give it one).
CLASH_TYPES = (
    "tagclash",
    "overmark",
    "undermark",
    "overlap",
    "tagplusovermark",
    "tagplusundermark",
    "tagplusoverlap",
)
PAIR_TYPES = ("match", *CLASH_TYPES, "missing", "spurious")
PAIR_COLUMNS = (
    "file",
    "type",
    "ref_index",
    "hyp_index",
    "reflabel",
    "refstart",
    "refend",
    "hyplabel",
    "hypstart",
    "hypend",
    "similarity",
    "chunk",
)


def pair_spans(annotations: pa.Table) -> pa.Table:
    """Pair the content annotations of both sides (a ``schemas.MAT_ANNOTATIONS`` table).

    One row per pair and per unpaired annotation (a ``schemas.MAT_PAIRS`` table): ``ref_index``/
    ``hyp_index`` are the annotations' ``index`` (-1 for none), the absent side's label and offsets
    null. Rows sorted by file, chunk, position, then indices.
    """
    # Only the columns pairing reads (the text columns stay where they are).
    wanted = annotations.select([C.file, C.side, C.label, C.start, C.end, C.index])
    is_content = pc.equal(annotations.column(C.kind), scalar("content"))
    content = wanted if pc.all(is_content).as_py() is not False else wanted.filter(is_content)
    # Files and labels as integer codes of their sorted names (shared by both sides): every comparison
    # below is on integers.
    file_code, file_names = _sorted_codes(content.column(C.file))
    label_code, label_names = _sorted_codes(content.column(C.label))
    is_ref = to_numpy(pc.equal(content.column(C.side), scalar("ref")))
    is_hyp = to_numpy(pc.equal(content.column(C.side), scalar("hyp")))
    starts_all = to_numpy(content.column(C.start)).astype(np.int64, copy=False)
    ends_all = to_numpy(content.column(C.end)).astype(np.int64, copy=False)
    index_all = to_numpy(content.column(C.index)).astype(np.int64, copy=False)
    r_file, h_file = file_code[is_ref], file_code[is_hyp]
    r_start, r_end, h_start, h_end = (
        starts_all[is_ref],
        ends_all[is_ref],
        starts_all[is_hyp],
        ends_all[is_hyp],
    )
    r_label, h_label = label_code[is_ref], label_code[is_hyp]
    r_index, h_index = index_all[is_ref], index_all[is_hyp]
    n_ref, n_hyp = len(r_file), len(h_file)

    chunk = overlap_chunks(
        np.concatenate([r_file, h_file]), np.concatenate([r_start, h_start]), np.concatenate([r_end, h_end])
    )
    ref_chunk, hyp_chunk = chunk[:n_ref], chunk[n_ref:]
    n_chunks = int(chunk.max()) + 1 if len(chunk) else 0
    refs_in = np.bincount(ref_chunk, minlength=n_chunks)
    hyps_in = np.bincount(hyp_chunk, minlength=n_chunks)
    # A chunk of one annotation a side holds one overlapping pair (two spans that did not overlap would
    # be two chunks): its pair is read off the chunk. Overlaps are searched only among the annotations
    # of the chunks with more on one side.
    simple_chunk = (refs_in == 1) & (hyps_in == 1)
    ref_of_chunk = np.full(n_chunks, -1, np.int64)
    ref_of_chunk[ref_chunk] = np.arange(n_ref)
    hyp_of_chunk = np.full(n_chunks, -1, np.int64)
    hyp_of_chunk[hyp_chunk] = np.arange(n_hyp)
    simple_r, simple_h = ref_of_chunk[simple_chunk], hyp_of_chunk[simple_chunk]
    shared = (refs_in > 0) & (hyps_in > 0) & ~simple_chunk
    sub_r, sub_h = np.flatnonzero(shared[ref_chunk]), np.flatnonzero(shared[hyp_chunk])
    found_r, found_h = overlap_pairs(
        r_file[sub_r], r_start[sub_r], r_end[sub_r], h_file[sub_h], h_start[sub_h], h_end[sub_h]
    )
    cand_r = np.concatenate([simple_r, sub_r[found_r]]).astype(np.int64)
    cand_h = np.concatenate([simple_h, sub_h[found_h]]).astype(np.int64)
    overlap, union = pair_lengths(r_start, r_end, h_start, h_end, cand_r, cand_h)
    same_label = r_label[cand_r] == h_label[cand_h]
    similarity = np.round(LABEL_WEIGHT * same_label + SPAN_WEIGHT * overlap / np.maximum(union, 1), 12)

    cand_chunk = ref_chunk[cand_r]
    chosen = [np.arange(len(simple_r))]
    complex_pairs = np.arange(len(simple_r), len(cand_r))
    if len(complex_pairs):
        # Ranks only of the annotations in those chunks (only the order within a chunk matters).
        r_rank = _canonical_rank(np.unique(cand_r[complex_pairs]), r_start, r_end, r_label, r_index)
        h_rank = _canonical_rank(np.unique(cand_h[complex_pairs]), h_start, h_end, h_label, h_index)
        chosen.append(_assign(complex_pairs, cand_chunk, cand_r, cand_h, similarity, r_rank, h_rank))
    picked = np.sort(np.concatenate(chosen))
    pr, ph, ps = cand_r[picked], cand_h[picked], similarity[picked]

    types = _clash_types(r_start[pr], r_end[pr], h_start[ph], h_end[ph], r_label[pr] == h_label[ph])
    paired_r = np.zeros(n_ref, bool)
    paired_r[pr] = True
    paired_h = np.zeros(n_hyp, bool)
    paired_h[ph] = True
    unpaired_ref = np.flatnonzero(~paired_r)
    unpaired_hyp = np.flatnonzero(~paired_h)
    rows_r = np.concatenate([pr, unpaired_ref, np.full(len(unpaired_hyp), -1)]).astype(np.int64)
    rows_h = np.concatenate([ph, np.full(len(unpaired_ref), -1), unpaired_hyp]).astype(np.int64)
    kind = np.concatenate(
        [
            types,
            np.full(len(unpaired_ref), PAIR_TYPES.index("missing")),
            np.full(len(unpaired_hyp), PAIR_TYPES.index("spurious")),
        ]
    )
    sim = np.concatenate([ps, np.zeros(len(unpaired_ref) + len(unpaired_hyp))])
    has_r, has_h = rows_r >= 0, rows_h >= 0

    def pick(values: np.ndarray, rows: np.ndarray, present: np.ndarray, fill: int = 0) -> np.ndarray:
        # ``values[rows]`` where present, ``fill`` elsewhere (row -1), as int64.
        if not len(values):
            return np.full(len(rows), fill, np.int64)
        return np.where(present, values[np.maximum(rows, 0)], fill).astype(np.int64)

    file_of = np.where(has_r, pick(r_file, rows_r, has_r), pick(h_file, rows_h, has_h))
    r_start_at, h_start_at = pick(r_start, rows_r, has_r), pick(h_start, rows_h, has_h)
    chunk_of = np.where(has_r, pick(ref_chunk, rows_r, has_r), pick(hyp_chunk, rows_h, has_h))
    ref_at, hyp_at = pick(r_index, rows_r, has_r, -1), pick(h_index, rows_h, has_h, -1)
    position = np.where(has_r, r_start_at, h_start_at)
    # Order: chunk, position, ref index, hyp index. Chunks are numbered in (file, start) order, so
    # (chunk, position) is one int64 key unless offsets are huge; then the four keys are sorted as such.
    span = int(position.max()) + 1 if len(position) else 1
    if len(position) and int(chunk_of.max()) < 2**62 // span:
        order = np.lexsort((hyp_at, ref_at, chunk_of * span + position))
    else:
        order = np.lexsort((hyp_at, ref_at, position, chunk_of))
    has_r, has_h, rows_r, rows_h = has_r[order], has_h[order], rows_r[order], rows_h[order]

    def names(codes: np.ndarray, table: pa.Array, present: np.ndarray) -> pa.Array:
        # Null where the side is absent; the strings taken from the few distinct names.
        return table.take(to_arrow(codes, mask=~present))

    def nullable(values: np.ndarray, rows: np.ndarray, present: np.ndarray) -> pa.Array:
        return to_arrow(pick(values, rows, present), mask=~present)

    return pa.Table.from_arrays(
        [
            file_names.take(to_arrow(file_of[order])),
            strings(list(PAIR_TYPES)).take(to_arrow(kind[order].astype(np.int64))),
            to_arrow(ref_at[order]),
            to_arrow(hyp_at[order]),
            names(pick(r_label, rows_r, has_r), label_names, has_r),
            nullable(r_start, rows_r, has_r),
            nullable(r_end, rows_r, has_r),
            names(pick(h_label, rows_h, has_h), label_names, has_h),
            nullable(h_start, rows_h, has_h),
            nullable(h_end, rows_h, has_h),
            to_arrow(sim[order].astype(np.float64)),
            to_arrow(chunk_of[order].astype(np.int64)),
        ],
        schema=MAT_PAIRS,
    )


def _sorted_codes(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """Each value's code in the sorted distinct values, and those values (a string array)."""
    encoded = column.combine_chunks().dictionary_encode() if len(column) else None
    if encoded is None:
        return np.zeros(0, np.int64), strings([])
    dictionary = encoded.dictionary
    order = to_numpy(pc.sort_indices(dictionary)).astype(np.int64)
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    return rank[to_numpy(encoded.indices).astype(np.int64)], dictionary.take(to_arrow(order))


def _assign(
    candidates: np.ndarray,
    cand_chunk: np.ndarray,
    cand_r: np.ndarray,
    cand_h: np.ndarray,
    similarity: np.ndarray,
    r_rank: np.ndarray,
    h_rank: np.ndarray,
) -> np.ndarray:
    """The chosen candidates of the chunks with several annotations: one assignment per chunk."""
    # Imported here: scipy's import costs about 0.4 s, and most corpora have no such chunk at all.
    from scipy.optimize import linear_sum_assignment

    candidates = candidates[
        np.lexsort((h_rank[cand_h[candidates]], r_rank[cand_r[candidates]], cand_chunk[candidates]))
    ]
    chunks = cand_chunk[candidates]
    bounds = np.flatnonzero(np.diff(chunks)) + 1
    chosen: list[np.ndarray] = []
    for group in np.split(candidates, bounds):
        rows, row_of = np.unique(r_rank[cand_r[group]], return_inverse=True)
        cols, col_of = np.unique(h_rank[cand_h[group]], return_inverse=True)
        weights = np.zeros((len(rows), len(cols)))
        weights[row_of, col_of] = similarity[group]
        where = np.full((len(rows), len(cols)), -1)
        where[row_of, col_of] = group
        picked_r, picked_c = linear_sum_assignment(weights, maximize=True)
        found = where[picked_r, picked_c]
        chosen.append(found[found >= 0])
    return np.concatenate(chosen) if chosen else np.zeros(0, np.int64)


def _canonical_rank(
    members: np.ndarray, start: np.ndarray, end: np.ndarray, label: np.ndarray, index: np.ndarray
) -> np.ndarray:
    """The rank of each of ``members`` in (start, end, label, index) order, the tie rule's order (labels
    are codes of the sorted label names, so their order is the names'); -1 for the others."""
    order = members[np.lexsort((index[members], label[members], end[members], start[members]))]
    rank = np.full(len(start), -1, np.int64)
    rank[order] = np.arange(len(order))
    return rank


def _clash_types(
    r_start: np.ndarray, r_end: np.ndarray, h_start: np.ndarray, h_end: np.ndarray, same_label: np.ndarray
) -> np.ndarray:
    """The detail type of each pair as its position in :data:`PAIR_TYPES`, from the hypothesis's side
    (see the module doc)."""
    same_span = (r_start == h_start) & (r_end == h_end)
    hyp_covers = (h_start <= r_start) & (r_end <= h_end) & ~same_span
    hyp_inside = (r_start <= h_start) & (h_end <= r_end) & ~same_span
    codes = np.select(
        [
            same_span & same_label,
            same_span,
            same_label & hyp_covers,
            same_label & hyp_inside,
            same_label,
            hyp_covers,
            hyp_inside,
        ],
        [PAIR_TYPES.index(name) for name in ("match", *CLASH_TYPES[:6])],
        default=PAIR_TYPES.index("tagplusoverlap"),
    )
    return codes.astype(np.int64)
