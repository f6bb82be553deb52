"""Map and score two ``fills`` tables: MapAndScore's rule, one function (:func:`score_fills`).

The rules are those of :class:`pipeline.templette.scoring._Scorer`, which stays their statement (the
template sets' scorer). :func:`score_fills` applies them to whole columns instead of one dataclass
per fill for the case most runs are, and hands every other case to the template sets' scorer: an
option of the MUC scorer (thresholds, implicit optionality, non-committal alternatives), named entity
regions, noisy contents, instance sets mapped by overlap (unsegmented hypothesis texts), an empty
reference, and a table the columns cannot take exactly as the scorer would (an instance's rows not
together, alternatives or fills out of order, a hypothesis slot with alternatives, a pointer to no
instance, a cycle of pointers, a compared text fill without extents, GLM alternatives in a
content...; every input the scorer refuses, so that its errors are raised by it).

How the work is done: instance types are taken in mapping order; for one type, every candidate pair
(a reference and a hypothesis instance of one document) is listed at once; its counts are the missing
points of the reference's slots plus the spurious points of the hypothesis's, corrected slot by slot
where both have the slot (a slot with one fill a side compared on arrays, one with several mapped by
the greedy algorithm on its few fills; once per reference fill-alternative, the best one kept). The
greedy choice sweeps the candidates in rank order; the chosen pairs' pointers are then known to the
next types. The ``mapping`` and ``tallies`` rows are
built as index arrays into the two tables and taken a column at a time.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import ranges
from iescore.pipeline.templette.extents import document_extents
from iescore.pipeline.templette.model import (
    OPTIONAL_STATUS_SLOT,
    OPTIONAL_STATUS_VALUE,
    Extent,
    Pointer,
    PointerFill,
    SetFill,
    TextFill,
)
from iescore.pipeline.templette.scoring import ScoringOptions, fold, score_template_sets, types_in_order
from iescore.pipeline.templette.tables import scoring_to_tables, template_set_from_table
from iescore.pipeline.templette.templates import render_fill
from iescore.schemas import MAPPING, TALLIES, C

TEXT, POINTER, SET = 0, 1, 2
_KINDS = {"text": TEXT, "pointer": POINTER, "set": SET}
_KIND_NAMES = ("text", "pointer", "set")
COR, INC, PAR, MIS, SPU, NON = range(6)
_CATEGORY_NAMES = ("COR", "INC", "PAR", "MIS", "SPU", "NON")
_REASONS = ("", "optional-slot", "removed", "optional-instance")
_OPTIONAL_SLOT, _REMOVED, _OPTIONAL_INSTANCE = 1, 2, 3
_NONE = -1


def score_fills(
    ref: pa.Table,
    hyp: pa.Table,
    options: ScoringOptions,
    alignment: pa.Table | None = None,
    regions: tuple[Mapping[str, Hashable], Mapping[str, Hashable]] | None = None,
) -> tuple[pa.Table, pa.Table]:
    """The ``mapping`` and ``tallies`` tables of scoring the ``hyp`` fills against the ``ref`` fills.

    ``alignment`` (the ``alignment`` table, when the corpora were aligned) gives the reference
    instance sets' extents for ``options.instance_sets == "overlap"``; ``regions`` the named entity
    objects' regions (see :func:`~pipeline.templette.scoring.score_template_sets`). The columns do
    the work where they can (see the module's text); the template sets' scorer everywhere else, with
    the same tables as the result. Raises InputError as the scorer does.
    """
    tables = _score_in_bulk(ref, hyp, options) if regions is None else None
    if tables is not None:
        return tables
    scoring = score_template_sets(
        template_set_from_table(ref),
        template_set_from_table(hyp),
        options,
        document_extents(alignment) if alignment is not None else None,
        regions,
    )
    return scoring_to_tables(scoring)


def _applies(options: ScoringOptions) -> bool:
    """Whether the options are those the columns serve (the tables are checked by :func:`_score_in_bulk`)."""
    return (
        options.instance_sets == "document"
        and not options.noisy
        and options.thresholds is None
        and options.implicit is None
        and not options.noncommittal_alternatives
    )


def _score_in_bulk(ref: pa.Table, hyp: pa.Table, options: ScoringOptions) -> tuple[pa.Table, pa.Table] | None:
    """:func:`score_fills` on the columns, or ``None`` when the template sets' scorer must do it."""
    if not _applies(options) or ref.num_rows == 0:
        return None
    folded: dict[str, int] = {}
    sides = _Side.of(ref, options, folded, is_reference=True), _Side.of(hyp, options, folded, False)
    if sides[0] is None or sides[1] is None:
        return None
    run = _Run(sides[0], sides[1], options, folded)
    if not run.prepare():
        return None
    run.run()
    return run.tables()


# --- one side: its instances, slots and fills as arrays ------------------------------------------


@dataclass
class _Side:
    """A ``fills`` table as arrays: instances, scored slot groups (an instance's fills of one slot) and
    the fills' columns the rules compare."""

    table: pa.Table
    n_inst: int
    inst_type: list[str]
    inst_doc: list[str]
    inst_one_up: list[str]
    inst_optional: np.ndarray
    # Scored slot groups, in row order (an instance's groups are contiguous, in its slot order).
    group_inst: np.ndarray
    group_slot: pa.Array
    group_first: np.ndarray
    group_count: np.ndarray  # every alternative's fills (one alternative: hypotheses)
    group_subs: np.ndarray  # group -> [start, end) of its alternatives
    # The alternatives of the scored groups (subgroups): first row, fills, index, group.
    sub_first: np.ndarray
    sub_count: np.ndarray
    sub_alt: np.ndarray
    sub_group: np.ndarray
    group_optional: np.ndarray
    inst_groups: np.ndarray  # inst -> [start, end) of its groups
    # Fills (every row; meaningful on the rows of scored groups).
    kind: np.ndarray
    aspects: np.ndarray  # points a fill earns alone: text 1 or 2, pointer and set 1
    content: np.ndarray  # folded content (text) or value (set), as a code shared by both sides
    has_minimal: np.ndarray  # text: minimal strings given
    start: np.ndarray
    end: np.ndarray
    has_min_extents: np.ndarray
    target: np.ndarray  # pointer: the instance of this side pointed at
    line: np.ndarray
    row_inst: np.ndarray

    @cached_property
    def names(self) -> pa.Array:
        """Every instance's pointer as written, ``<TYPE-DOCID-ONEUP>``."""
        parts = [
            pa.array(values, pa.string()) for values in (self.inst_type, self.inst_doc, self.inst_one_up)
        ]
        return pc.binary_join_element_wise("<", parts[0], "-", parts[1], "-", parts[2], ">", "")

    @classmethod
    def of(
        cls, table: pa.Table, options: ScoringOptions, folded: dict[str, int], is_reference: bool
    ) -> _Side | None:
        n = table.num_rows
        col = {name: table.column(name).combine_chunks() for name in table.column_names}
        type_, doc, one_up = col[C.instance_type], col[C.doc_id], col[C.one_up]
        keys = pc.binary_join_element_wise(type_, doc, one_up, "\x1f")
        encoded = keys.dictionary_encode()
        row_inst = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        if n and np.any(np.diff(row_inst) < 0):
            return None  # an instance's rows are not together: left to the template sets' scorer
        n_inst = len(encoded.dictionary)
        first = np.searchsorted(row_inst, np.arange(n_inst))
        take = pa.array(first)
        inst_type = type_.take(take).to_pylist()
        inst_doc = doc.take(take).to_pylist()
        inst_one_up = one_up.take(take).to_pylist()

        slot = col[C.slot]
        has_slot = slot.is_valid().to_numpy(zero_copy_only=False)
        alternative = _ints(col[C.alternative], -1)
        fill_index = _ints(col[C.fill_index], -1)
        if not is_reference and np.any(alternative[has_slot] != 0):
            return None  # a hypothesis's alternatives: refused by the template sets' scorer
        # Slot groups over every slotted row: a new group where the instance or the slot name changes;
        # within one, an alternative (subgroup) where the alternative's index changes.
        slot_codes = _codes(slot)
        starts = np.ones(n, dtype=bool)
        alt_starts = np.zeros(n, dtype=bool)
        if n:
            starts[1:] = (row_inst[1:] != row_inst[:-1]) | (slot_codes[1:] != slot_codes[:-1])
            alt_starts[1:] = alternative[1:] != alternative[:-1]
        alt_starts = (alt_starts & ~starts) & has_slot
        boundaries = np.append(
            np.flatnonzero(starts | alt_starts), n
        )  # where a subgroup (or slotless row) starts
        starts &= has_slot
        group_first_all = np.flatnonzero(starts)
        # A slot name twice in an instance, alternatives or fills out of order: the template sets' scorer's.
        pairs = row_inst[group_first_all] * (int(slot_codes.max(initial=0)) + 1) + slot_codes[group_first_all]
        pairs = np.sort(pairs)
        if np.any(pairs[1:] == pairs[:-1]):
            return None
        if np.any(alternative[group_first_all] != 0):
            return None
        step = np.diff(alternative, prepend=0)
        if np.any(step[alt_starts] != 1):
            return None
        sub_first_all = np.flatnonzero(starts | alt_starts)
        sub_of_row = np.cumsum(starts | alt_starts) - 1
        position = np.arange(n) - sub_first_all[np.maximum(sub_of_row, 0)] if len(sub_first_all) else None
        if position is not None and np.any(fill_index[has_slot] != position[has_slot]):
            return None

        kinds = col[C.kind].dictionary_encode()
        kind_of = np.array([_KINDS.get(k, _NONE) for k in kinds.dictionary.to_pylist()] + [_NONE], np.int8)
        kind = kind_of[_ints(kinds.indices, len(kinds.dictionary))]
        names = slot.dictionary_encode()
        scored_of = np.array([options.is_scored(name) for name in names.dictionary.to_pylist()] + [False])
        scored_row = has_slot & scored_of[_ints(names.indices, len(names.dictionary))]
        start = _ints(col[C.max_start], _NONE)
        end = _ints(col[C.max_end], _NONE)
        is_text = kind == TEXT
        if "extent" in options.text_aspects and np.any(scored_row & is_text & (start == _NONE)):
            return None  # a compared text fill without extents: the template sets' scorer says where

        # Contents: text fills compare their normalized content, set fills their value, folded.
        norm = col[C.norm_content]
        if np.any(is_text & ~norm.is_valid().to_numpy(zero_copy_only=False)):
            return None
        raw = col[C.content]
        # (Only text and set rows: a pointer's content is its target, resolved below.)
        compared = pc.if_else(pa.array(is_text), norm, pc.if_else(pa.array(kind == SET), raw, None))
        case = options.case_sensitive
        if options.alternatives and pc.any(pc.match_substring(compared, "{")).as_py():
            return None  # GLM alternatives in a content: the template sets' scorer expands them
        codes = compared.dictionary_encode()
        distinct = codes.dictionary.to_pylist()
        mapped_codes = np.array([_code(folded, fold(s, case)) for s in distinct] + [_NONE], dtype=np.int64)
        content = mapped_codes[_ints(codes.indices, len(distinct))]
        minimal = col[C.norm_min_contents]
        has_minimal = (
            pc.list_value_length(minimal).fill_null(0).to_numpy(zero_copy_only=False) > 0
        ) & is_text
        if options.alternatives and any(
            "{" in s for values in minimal.filter(pa.array(has_minimal)).to_pylist() for s in values
        ):
            return None
        has_min_extents = (
            pc.list_value_length(col[C.min_extents]).fill_null(0).to_numpy(zero_copy_only=False) > 0
        )

        # Pointers: the instance of this side each points at (a missing one: the scorer's error).
        target = np.full(n, _NONE, dtype=np.int64)
        is_pointer = kind == POINTER
        if np.any(is_pointer):
            rows = np.flatnonzero(is_pointer)
            t = pa.array(rows)
            target_keys = pc.binary_join_element_wise(
                col[C.target_type].take(t), col[C.target_doc_id].take(t), col[C.target_one_up].take(t), "\x1f"
            )
            found = pc.index_in(target_keys, value_set=encoded.dictionary)
            if found.null_count:
                return None
            target[rows] = found.to_numpy(zero_copy_only=False)

        # OBJ_STATUS: OPTIONAL marks an instance optional (``Instance.optional``), on the reference side.
        inst_optional = np.zeros(n_inst, dtype=bool)
        if is_reference:
            status = [
                i
                for i, name in enumerate(names.dictionary.to_pylist())
                if name.upper() == OPTIONAL_STATUS_SLOT
            ]
            for i in np.flatnonzero(np.isin(_ints(names.indices, _NONE), status)):
                value = raw[i].as_py() if kind[i] == SET else (norm[i].as_py() if kind[i] == TEXT else "")
                if (value or "").strip().upper() == OPTIONAL_STATUS_VALUE:
                    inst_optional[row_inst[i]] = True

        aspects = np.where(is_text, len(options.text_aspects), 1).astype(np.int64)
        scored_groups = (
            group_first_all[scored_row[group_first_all]] if len(group_first_all) else group_first_all
        )
        # A group runs to the next group (or slotless row, or the end); an alternative to the next
        # boundary.
        group_bounds = np.append(np.flatnonzero(starts | ~has_slot), n)
        group_end = group_bounds[np.searchsorted(group_bounds, scored_groups, "right")]
        group_count = group_end - scored_groups
        group_inst = row_inst[scored_groups]
        # Alternatives of the scored groups, in order.
        sub_group_all = np.searchsorted(scored_groups, sub_first_all, "right") - 1
        in_scored = (sub_group_all >= 0) & (
            _gather(scored_groups, sub_group_all, _NONE) + _gather(group_count, sub_group_all, 0)
            > sub_first_all
        )
        sub_first = sub_first_all[in_scored]
        sub_group = sub_group_all[in_scored]
        sub_count = boundaries[np.searchsorted(boundaries, sub_first, "right")] - sub_first
        group_subs = _spans(sub_group, len(scored_groups))
        slot_optional = col[C.slot_optional].fill_null(False).to_numpy(zero_copy_only=False)
        inst_groups = _spans(group_inst, n_inst)
        return cls(
            table=table,
            n_inst=n_inst,
            inst_type=inst_type,
            inst_doc=inst_doc,
            inst_one_up=inst_one_up,
            inst_optional=inst_optional,
            group_inst=group_inst,
            group_slot=slot.take(pa.array(scored_groups)),
            group_first=scored_groups,
            group_count=group_count,
            group_subs=group_subs,
            sub_first=sub_first,
            sub_count=sub_count,
            sub_alt=alternative[sub_first],
            sub_group=sub_group,
            group_optional=slot_optional[scored_groups].astype(bool),
            inst_groups=inst_groups,
            kind=kind,
            aspects=aspects,
            content=content,
            has_minimal=has_minimal,
            start=start,
            end=end,
            has_min_extents=has_min_extents,
            target=target,
            line=_ints(col[C.line], _NONE),
            row_inst=row_inst,
        )


def _spans(owners: np.ndarray, count: int) -> np.ndarray:
    """For each owner ``0 .. count - 1``, the ``[start, end)`` of its entries in ``owners`` (sorted)."""
    keys = np.arange(count)
    return np.stack([np.searchsorted(owners, keys, "left"), np.searchsorted(owners, keys, "right")], axis=1)


def _ints(array: pa.Array, null: int) -> np.ndarray:
    return array.fill_null(null).to_numpy(zero_copy_only=False).astype(np.int64)


def _gather(values: np.ndarray, index: np.ndarray, default: object = _NONE) -> np.ndarray:
    """``values[index]`` where ``index >= 0``, ``default`` elsewhere (``values`` may be empty)."""
    out = np.full(len(index), default, dtype=values.dtype)
    valid = index >= 0
    out[valid] = values[index[valid]]
    return out


def _codes(array: pa.Array) -> np.ndarray:
    """Integer codes of a string column (nulls -1): equal strings, equal codes."""
    encoded = array.dictionary_encode()
    return _ints(encoded.indices, _NONE)


def _code(codes: dict[str, int], text: str) -> int:
    code = codes.get(text)
    if code is None:
        code = codes[text] = len(codes)
    return code


# --- the run: types in mapping order, candidates in bulk, the greedy sweep ------------------------


def _tally(index: np.ndarray, cats: np.ndarray, n: int) -> np.ndarray:
    """Counts (n x 6) of the categories ``cats`` (n_points x 2, -1 for none) of rows ``index``."""
    out = np.zeros(n * 6, dtype=np.int64)
    for column in range(cats.shape[1]):
        valid = cats[:, column] >= 0
        out += np.bincount(index[valid] * 6 + cats[valid, column], minlength=n * 6)
    return out.reshape(n, 6)


def _f(counts: np.ndarray) -> np.ndarray:
    """``f_measure`` at beta 1 of each row of counts, 0 where undefined (the same float operations)."""
    cor, inc, par, mis, spu = (counts[:, i].astype(np.float64) for i in range(5))
    denominator = 1.0 * (cor + inc + par + mis) + (cor + inc + par + spu)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (2.0 * (cor + 0.5 * par)) / denominator
    return np.where(denominator != 0, f, 0.0)


def _best(owner: np.ndarray, counts: np.ndarray, alternative: np.ndarray) -> np.ndarray:
    """For each distinct ``owner`` (ascending), the entry of the best alternative: ``_Scorer._score_slot``'s
    rank, the highest F, then the fewest wrong points (INC + MIS + SPU), then the first listed."""
    wrong = counts[:, INC] + counts[:, MIS] + counts[:, SPU]
    order = np.lexsort((alternative, wrong, -_f(counts), owner))
    first = np.ones(len(order), dtype=bool)
    first[1:] = owner[order][1:] != owner[order][:-1]
    return order[first]


def _natural_ranks(one_ups: Sequence[str]) -> np.ndarray:
    """Each instance's rank in the order of ``scoring._natural`` (numbers by value, then names)."""
    values = pa.array(one_ups, pa.string())
    digits = pc.match_substring_regex(values, "^[0-9]{1,18}$").to_numpy(zero_copy_only=False)
    if np.all(digits):  # the usual case: numbers, ranked by value (ties cannot occur within a type)
        numbers = pc.cast(values, pa.int64()).to_numpy()
        order = np.lexsort((np.arange(len(numbers)), numbers))
    else:
        keys = [(0, int(o), "") if o.isdigit() else (1, 0, o) for o in one_ups]
        order = sorted(range(len(keys)), key=keys.__getitem__)
    ranks = np.empty(len(one_ups), dtype=np.int64)
    ranks[order] = np.arange(len(one_ups))
    return ranks


@dataclass
class _Rows:
    """Output fill pairings of one batch: pairing, slot position, position within the slot, the two
    fill rows (-1 for none), the slot's reference alternative (-1: none) and up to two points."""

    pairing: np.ndarray
    slot_pos: np.ndarray
    sub_pos: np.ndarray
    ref_row: np.ndarray
    hyp_row: np.ndarray
    alternative: np.ndarray
    cats: np.ndarray
    reasons: np.ndarray

    @classmethod
    def concat(cls, parts: list[_Rows]) -> _Rows:
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in cls.__dataclass_fields__))

    @classmethod
    def empty(cls) -> _Rows:
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, z, z, z, z, np.zeros((0, 2), np.int64), np.zeros((0, 2), np.int64))


class _Run:
    def __init__(self, ref: _Side, hyp: _Side, options: ScoringOptions, codes: dict[str, int]) -> None:
        self.ref, self.hyp, self.options, self.codes = ref, hyp, options, codes
        self.text_aspects = options.text_aspects
        self.case = options.case_sensitive

    # -- set-up ------------------------------------------------------------------------------------

    def prepare(self) -> bool:
        ref, hyp = self.ref, self.hyp
        docs = pa.array(sorted({*ref.inst_doc, *hyp.inst_doc}), pa.string())
        self.docs = docs
        self.ref_doc = _ints(pc.index_in(pa.array(ref.inst_doc, pa.string()), value_set=docs), _NONE)
        self.hyp_doc = _ints(pc.index_in(pa.array(hyp.inst_doc, pa.string()), value_set=docs), _NONE)
        order = self._mapping_order()
        if order is None:
            return False
        self.order = order
        type_rank = {t: i for i, t in enumerate(order)}
        self.ref_type = np.array([type_rank[t] for t in ref.inst_type], dtype=np.int64)
        self.hyp_type = np.array([type_rank[t] for t in hyp.inst_type], dtype=np.int64)
        self.ref_rank = _natural_ranks(ref.inst_one_up)
        self.hyp_rank = _natural_ranks(hyp.inst_one_up)
        self.mapped = np.full(ref.n_inst, _NONE, dtype=np.int64)
        # A reference pointer to another document's instance is never mapped within its instance set.
        rows = np.flatnonzero(ref.kind == POINTER)
        self.ref_same_doc = np.zeros(len(ref.kind), dtype=bool)
        self.ref_same_doc[rows] = self.ref_doc[ref.target[rows]] == self.ref_doc[ref.row_inst[rows]]
        slots = pa.chunked_array([ref.group_slot, hyp.group_slot], pa.string()).combine_chunks()
        slot_codes = _codes(slots)
        self.ref_group_slot = slot_codes[: len(ref.group_slot)]
        self.hyp_group_slot = slot_codes[len(ref.group_slot) :]
        self.n_slots = int(slot_codes.max(initial=0)) + 1
        keys = hyp.group_inst * self.n_slots + self.hyp_group_slot
        self.hyp_key_order = np.argsort(keys, kind="stable")
        self.hyp_keys = keys[self.hyp_key_order]
        # Spurious points of every hypothesis group and instance.
        cum = np.concatenate([[0], np.cumsum(hyp.aspects)])
        self.hyp_group_spu = cum[hyp.group_first + hyp.group_count] - cum[hyp.group_first]
        gcum = np.concatenate([[0], np.cumsum(self.hyp_group_spu)])
        self.hyp_inst_spu = gcum[hyp.inst_groups[:, 1]] - gcum[hyp.inst_groups[:, 0]]
        self.folded = None
        self.pairings: list[tuple[np.ndarray, ...]] = []
        self.rows: list[_Rows] = []
        self.n_pairings = 0
        return True

    def _mapping_order(self) -> list[str] | None:
        """``scoring.mapping_order`` on the columns; None for a cycle (the scorer reports it)."""
        types = sorted({*self.ref.inst_type, *self.hyp.inst_type})
        code = {t: i for i, t in enumerate(types)}
        edges: dict[str, set[str]] = {}
        for side in (self.ref, self.hyp):
            rows = np.flatnonzero(side.kind == POINTER)
            type_of = np.array([code[t] for t in side.inst_type], dtype=np.int64)
            seen = np.zeros(len(types) * len(types), dtype=bool)
            seen[type_of[side.row_inst[rows]] * len(types) + type_of[side.target[rows]]] = True
            for pair in np.flatnonzero(seen).tolist():
                edges.setdefault(types[pair // len(types)], set()).add(types[pair % len(types)])
        order, remaining = types_in_order(types, edges)
        return None if remaining else order

    # -- the rules on rows -------------------------------------------------------------------------

    def _effective_target(self, rows: np.ndarray) -> np.ndarray:
        """The hypothesis instance a reference pointer's target is mapped to (-1: none)."""
        mapped = _gather(self.mapped, self.ref.target[rows])
        return np.where(self.ref_same_doc[rows] & (self.ref.target[rows] >= 0), mapped, _NONE)

    def _missing(self, rows: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Points (n x 2 categories, reasons) of reference fills mapped to nothing (``_Scorer._missing``)."""
        ref = self.ref
        optional_slot = ref.group_optional[groups]
        removed = (
            (ref.kind[rows] == POINTER)
            & _gather(ref.inst_optional, ref.target[rows], False)
            & (self._effective_target(rows) == _NONE)
        )
        cat = np.where(optional_slot | removed, NON, MIS)
        reason = np.where(optional_slot, _OPTIONAL_SLOT, np.where(removed, _REMOVED, 0))
        two = ref.aspects[rows] == 2
        cats = np.stack([cat, np.where(two, cat, _NONE)], axis=1)
        reasons = np.stack([reason, np.where(two, reason, 0)], axis=1)
        return cats, reasons

    def _spurious(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        two = self.hyp.aspects[rows] == 2
        cats = np.stack([np.full(len(rows), SPU), np.where(two, SPU, _NONE)], axis=1)
        return cats, np.zeros_like(cats)

    def _judge(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Categories (n x 2) of pairing reference fills ``a`` with hypothesis fills ``b`` of the same
        kind, one fill a side (``_Scorer._judge``)."""
        ref, hyp = self.ref, self.hyp
        kind = ref.kind[a]
        cats = np.full((len(a), 2), _NONE, dtype=np.int64)
        same = ref.content[a] == hyp.content[b]
        pointer = kind == POINTER
        cats[pointer, 0] = np.where(self._effective_target(a[pointer]) == hyp.target[b[pointer]], COR, INC)
        set_ = kind == SET
        cats[set_, 0] = np.where(same[set_], COR, INC)
        text = np.flatnonzero(kind == TEXT)
        for column, aspect in enumerate(self.text_aspects):
            ta, tb = a[text], b[text]
            if aspect == "content":
                correct = same[text].copy()
                for k in np.flatnonzero(ref.has_minimal[ta]):
                    correct[k] = self._content_matches(int(ta[k]), int(tb[k]))
            else:
                correct = self._encloses(ta, tb)
                for k in np.flatnonzero(ref.has_min_extents[ta] & correct):
                    correct[k] = self._touches_minimal(int(ta[k]), int(tb[k]))
            cats[text, column] = np.where(correct, COR, INC)
        return cats

    def _encloses(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        ref, hyp = self.ref, self.hyp
        first, last = ref.start[a], ref.end[a] - 1
        c, d = hyp.start[b], hyp.end[b] - 1
        present = (ref.start[a] != _NONE) & (hyp.start[b] != _NONE)
        return present & (first <= c) & (c <= last) & (first <= d) & (d <= last)

    def _touches_minimal(self, a: int, b: int) -> bool:
        """A hypothesis extent (already enclosed) overlaps some minimal extent of the reference."""
        c, d = int(self.hyp.start[b]), int(self.hyp.end[b]) - 1
        for extent in self.ref.table.column(C.min_extents)[a].as_py():
            e, f = extent["start"], extent["end"] - 1
            if e <= c <= f or e <= d <= f or c <= e <= d or c <= f <= d:
                return True
        return False

    def _folded(self) -> list[str]:
        if self.folded is None:
            self.folded = [""] * len(self.codes)
            for text, code in self.codes.items():
                self.folded[code] = text
        return self.folded

    def _content_matches(self, a: int, b: int) -> bool:
        folded = self._folded()
        ref_content, hyp_content = folded[self.ref.content[a]], folded[self.hyp.content[b]]
        minimals = self.ref.table.column(C.norm_min_contents)[a].as_py()
        return hyp_content in ref_content and any(fold(m, self.case) in hyp_content for m in minimals)

    def _fill_ranks(self, side: _Side, rows: np.ndarray) -> np.ndarray:
        """Each row's rank by ``_Scorer._fill_key``: kind, then the folded content (text, set) or the
        pointer as written, then the extents; equal keys, equal ranks (the tie-break among fills)."""
        if len(rows) == 0:
            return np.zeros(0, dtype=np.int64)
        table, kind, index = side.table, side.kind[rows], pa.array(rows)
        written = pc.if_else(
            pa.array(kind == SET),
            table.column(C.content).take(index),
            table.column(C.norm_content).take(index),
        )
        encoded = written.combine_chunks().dictionary_encode()
        folded = pa.array([fold(text) for text in encoded.dictionary.to_pylist()], pa.string())
        strings = pc.if_else(
            pa.array(kind == POINTER),
            side.names.take(pa.array(np.maximum(side.target[rows], 0))),
            folded.take(encoded.indices),
        )
        string_rank = pc.rank(strings, tiebreaker="dense").to_numpy().astype(np.int64)
        # Extents (text fills): none before any, then (start, end) pairs in order.
        extent_rank = np.zeros(len(rows), dtype=np.int64)
        text = np.flatnonzero(kind == TEXT)
        if len(text):
            minimal = table.column(C.min_extents).take(pa.array(rows[text])).to_pylist()
            keys = [
                ()
                if side.start[row] == _NONE
                else (
                    (int(side.start[row]), int(side.end[row])),
                    *((e["start"], e["end"]) for e in extra or ()),
                )
                for row, extra in zip(rows[text].tolist(), minimal, strict=True)
            ]
            ranks = {key: i for i, key in enumerate(sorted(set(keys)))}
            extent_rank[text] = [ranks[key] for key in keys]
        order_of_kind = np.array([2, 0, 1])[kind]  # "pointer" < "set" < "text"
        order = np.lexsort((extent_rank, string_rank, order_of_kind))
        keys = np.stack([order_of_kind, string_rank, extent_rank], axis=1)[order]
        new = np.ones(len(rows), dtype=bool)
        new[1:] = np.any(keys[1:] != keys[:-1], axis=1)
        dense = np.empty(len(rows), dtype=np.int64)
        dense[order] = np.cumsum(new) - 1
        return dense

    def _map_groups(self, sr: np.ndarray, gh: np.ndarray) -> _Rows:
        """``_Scorer._map_fills`` of reference alternatives and hypothesis slot groups, pair by pair:
        every fill pair of one kind judged on arrays, then the greedy sweep (by F, correct points, the
        fills' keys, their order). Rows: ``pairing`` is the index of the pair; the reference's fills in
        order (paired or missing), then the hypothesis's unpaired fills."""
        ref, hyp = self.ref, self.hyp
        n = len(sr)
        if n == 0:
            return _Rows.empty()
        cr, ch = ref.sub_count[sr], hyp.group_count[gh]
        # Every (reference fill, hypothesis fill) of each group pair, in (i, j) order.
        per = cr * ch
        pair = np.repeat(np.arange(n), per)
        within = np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per)
        i, j = within // ch[pair], within % ch[pair]
        a, b = ref.sub_first[sr][pair] + i, hyp.group_first[gh][pair] + j
        ok = ref.kind[a] == hyp.kind[b]
        pair, i, j, a, b = pair[ok], i[ok], j[ok], a[ok], b[ok]
        judged = self._judge(a, b)
        counts = _tally(np.arange(len(a)), judged, len(a))
        ref_rank, hyp_rank = self._fill_ranks(ref, a), self._fill_ranks(hyp, b)
        order = np.lexsort((hyp_rank, ref_rank, -counts[:, COR], -_f(counts), pair))
        chosen_j = np.full(int(cr.sum()), _NONE, dtype=np.int64)  # per reference fill: its partner
        chosen_k = np.full(int(cr.sum()), _NONE, dtype=np.int64)  # the candidate it came from
        ref_base = np.cumsum(cr) - cr
        hyp_used = np.zeros(int(ch.sum()), dtype=bool)
        hyp_base = np.cumsum(ch) - ch
        current, used_i, used_j = -1, set(), set()
        pairs, is_, js = pair.tolist(), i.tolist(), j.tolist()
        for k in order.tolist():
            p = pairs[k]
            if p != current:
                current, used_i, used_j = p, set(), set()
            if is_[k] in used_i or js[k] in used_j:
                continue
            used_i.add(is_[k])
            used_j.add(js[k])
            chosen_j[ref_base[p] + is_[k]] = js[k]
            chosen_k[ref_base[p] + is_[k]] = k
            hyp_used[hyp_base[p] + js[k]] = True
        # Reference fills: paired (the judged points) or missing.
        r_pair = np.repeat(np.arange(n), cr)
        r_i = np.arange(int(cr.sum())) - ref_base[r_pair]
        r_rows = ref.sub_first[sr][r_pair] + r_i
        missing_cats, missing_reasons = self._missing(r_rows, ref.sub_group[sr][r_pair])
        paired = chosen_k >= 0
        cats = missing_cats.copy()
        reasons = missing_reasons.copy()
        cats[paired] = judged[chosen_k[paired]]
        reasons[paired] = 0
        h_rows = np.where(paired, hyp.group_first[gh][r_pair] + chosen_j, _NONE)
        # Hypothesis fills left alone: spurious, after the reference's.
        h_pair = np.repeat(np.arange(n), ch)
        h_j = np.arange(int(ch.sum())) - hyp_base[h_pair]
        lone = ~hyp_used
        lone_rows = hyp.group_first[gh][h_pair[lone]] + h_j[lone]
        spu_cats, spu_reasons = self._spurious(lone_rows)
        z_r, z_h = np.zeros(len(r_rows), np.int64), np.zeros(len(lone_rows), np.int64)
        return _Rows.concat(
            [
                _Rows(r_pair, z_r, r_i, r_rows, h_rows, z_r, cats, reasons),
                _Rows(
                    h_pair[lone],
                    z_h,
                    cr[h_pair[lone]] + h_j[lone],
                    np.full(len(lone_rows), _NONE),
                    lone_rows,
                    z_h,
                    spu_cats,
                    spu_reasons,
                ),  # fmt: skip
            ]
        )

    # -- one instance type -------------------------------------------------------------------------

    def run(self) -> None:
        ref_by_type = np.argsort(self.ref_type, kind="stable")
        hyp_by_type = np.argsort(self.hyp_type, kind="stable")
        ref_bounds = np.searchsorted(self.ref_type[ref_by_type], np.arange(len(self.order) + 1))
        hyp_bounds = np.searchsorted(self.hyp_type[hyp_by_type], np.arange(len(self.order) + 1))
        for t in range(len(self.order)):
            self._map_type(
                t,
                ref_by_type[ref_bounds[t] : ref_bounds[t + 1]],
                hyp_by_type[hyp_bounds[t] : hyp_bounds[t + 1]],
            )

    def _map_type(self, t: int, refs: np.ndarray, hyps: np.ndarray) -> None:
        ref, hyp = self.ref, self.hyp
        # Candidate pairs: every reference and hypothesis instance of one document.
        hyps = hyps[np.argsort(self.hyp_doc[hyps], kind="stable")]
        hyp_docs = self.hyp_doc[hyps]
        lo = np.searchsorted(hyp_docs, self.ref_doc[refs], "left")
        many = np.searchsorted(hyp_docs, self.ref_doc[refs], "right") - lo
        cand_r = np.repeat(refs, many)
        cand_h = hyps[ranges(lo, many)]
        n = len(cand_r)

        # Missing points of the reference alternatives of this type (pointers' targets are mapped by
        # now); a slot the hypothesis lacks counts its best alternative's (``_Scorer._score_slot``).
        ref_groups = ranges(ref.inst_groups[refs, 0], ref.inst_groups[refs, 1] - ref.inst_groups[refs, 0])
        ref_subs = ranges(
            ref.group_subs[ref_groups, 0], ref.group_subs[ref_groups, 1] - ref.group_subs[ref_groups, 0]
        )
        rows = ranges(ref.sub_first[ref_subs], ref.sub_count[ref_subs])
        owner = np.repeat(ref_subs, ref.sub_count[ref_subs])
        missing_cats, missing_reasons = self._missing(rows, ref.sub_group[owner])
        sub_missing = _tally(np.searchsorted(ref_subs, owner), missing_cats, len(ref_subs))
        best_empty = np.full(len(ref.group_inst), _NONE, dtype=np.int64)
        best = _best(ref.sub_group[ref_subs], sub_missing, ref.sub_alt[ref_subs])
        best_empty[ref.sub_group[ref_subs[best]]] = ref_subs[best]
        group_missing = np.zeros((len(ref.group_inst), 6), dtype=np.int64)
        group_missing[ref.sub_group[ref_subs[best]]] = sub_missing[best]
        gcum = np.concatenate([np.zeros((1, 6), np.int64), np.cumsum(group_missing, axis=0)])
        inst_missing = gcum[ref.inst_groups[:, 1]] - gcum[ref.inst_groups[:, 0]]

        # Each candidate's reference groups, and the hypothesis group of the same slot.
        per = ref.inst_groups[cand_r, 1] - ref.inst_groups[cand_r, 0]
        e_c = np.repeat(np.arange(n), per)
        e_gr = ranges(ref.inst_groups[cand_r, 0], per)
        keys = cand_h[e_c] * self.n_slots + self.ref_group_slot[e_gr]
        at = np.searchsorted(self.hyp_keys, keys)
        found = at < len(self.hyp_keys)
        found[found] = self.hyp_keys[at[found]] == keys[found]
        e_c, e_gr = e_c[found], e_gr[found]
        e_gh = self.hyp_key_order[at[found]]
        # Each such slot pair once per reference alternative: one fill a side of one kind judged on
        # arrays, the others mapped fill by fill; the best alternative kept.
        alts = ref.group_subs[e_gr, 1] - ref.group_subs[e_gr, 0]
        x_m = np.repeat(np.arange(len(e_c)), alts)
        x_sr = ranges(ref.group_subs[e_gr, 0], alts)
        x_gh = e_gh[x_m]
        a, b = ref.sub_first[x_sr], hyp.group_first[x_gh]
        simple = (ref.sub_count[x_sr] == 1) & (hyp.group_count[x_gh] == 1) & (ref.kind[a] == hyp.kind[b])
        judged = np.full((len(x_m), 2), _NONE, dtype=np.int64)
        judged[simple] = self._judge(a[simple], b[simple])
        x_counts = _tally(np.flatnonzero(simple), judged[simple], len(x_m))
        complex_ = np.flatnonzero(~simple)
        mapped_groups = self._map_groups(x_sr[complex_], x_gh[complex_])
        x_counts += _tally(complex_[mapped_groups.pairing], mapped_groups.cats, len(x_m))
        best_x = _best(x_m, x_counts, ref.sub_alt[x_sr])  # one per slot pair, in order
        # A candidate's counts: its reference's missing and its hypothesis's spurious points, with
        # each slot both have counted as the pair's best alternative instead.
        counts = inst_missing[cand_r].copy()
        counts[:, SPU] += self.hyp_inst_spu[cand_h]
        np.add.at(counts, e_c, x_counts[best_x] - group_missing[e_gr])
        counts[:, SPU] -= np.bincount(e_c, weights=self.hyp_group_spu[e_gh], minlength=n).astype(np.int64)

        # The greedy choice: by F, then correct points, then the references' and hypotheses' order.
        f = _f(counts)
        order = np.lexsort(
            (self.hyp_rank[cand_h], self.ref_rank[cand_r], -counts[:, COR], -f, self.ref_doc[cand_r])
        )
        used_r: set[int] = set()
        used_h: set[int] = set()
        chosen_list = []
        r_list, h_list = cand_r.tolist(), cand_h.tolist()
        for k in order.tolist():
            r, h = r_list[k], h_list[k]
            if r in used_r or h in used_h:
                continue
            used_r.add(r)
            used_h.add(h)
            chosen_list.append(k)
        chosen = np.zeros(n, dtype=bool)
        chosen[chosen_list] = True
        mapped_r, mapped_h = cand_r[chosen], cand_h[chosen]

        # Pairings: chosen pairs, then unmapped references, then unmapped hypotheses.
        is_mapped_r = np.zeros(ref.n_inst, dtype=bool)
        is_mapped_r[mapped_r] = True
        is_mapped_h = np.zeros(hyp.n_inst, dtype=bool)
        is_mapped_h[mapped_h] = True
        lone_r, lone_h = refs[~is_mapped_r[refs]], hyps[~is_mapped_h[hyps]]
        base = self.n_pairings
        pair_of_cand = np.full(n, _NONE, dtype=np.int64)
        pair_of_cand[chosen] = base + np.arange(len(mapped_r))
        pair_r = np.concatenate([mapped_r, lone_r, np.full(len(lone_h), _NONE)])
        pair_h = np.concatenate([mapped_h, np.full(len(lone_r), _NONE), lone_h])
        group = np.concatenate([np.zeros(len(mapped_r)), np.ones(len(lone_r)), np.full(len(lone_h), 2)])
        doc = np.concatenate([self.ref_doc[mapped_r], self.ref_doc[lone_r], self.hyp_doc[lone_h]])
        rank = np.concatenate([self.ref_rank[mapped_r], self.ref_rank[lone_r], self.hyp_rank[lone_h]])
        self.pairings.append((doc, np.full(len(doc), t), group, rank, pair_r, pair_h))
        self.n_pairings += len(doc)
        self.mapped[mapped_r] = mapped_h

        parts: list[_Rows] = []
        # Chosen pairs, slots both have, their best alternative: one fill a side of one kind ...
        keep = chosen[e_c]
        entry = best_x[keep]
        pick = entry[simple[entry]]
        slot_pair = x_m[pick]
        z = np.zeros(len(pick), dtype=np.int64)
        parts.append(
            _Rows(
                pair_of_cand[e_c[slot_pair]],
                e_gr[slot_pair] - ref.inst_groups[cand_r[e_c[slot_pair]], 0],
                z,
                a[pick],
                b[pick],
                ref.sub_alt[x_sr[pick]],
                judged[pick],
                np.zeros_like(judged[pick]),
            )
        )
        # ... or the greedy mapping of the fills.
        is_entry = np.zeros(len(x_m), dtype=bool)
        is_entry[entry] = True
        take = is_entry[complex_[mapped_groups.pairing]]
        picked = complex_[mapped_groups.pairing[take]]
        slot_pair = x_m[picked]
        parts.append(
            _Rows(
                pair_of_cand[e_c[slot_pair]],
                e_gr[slot_pair] - ref.inst_groups[cand_r[e_c[slot_pair]], 0],
                mapped_groups.sub_pos[take],
                mapped_groups.ref_row[take],
                mapped_groups.hyp_row[take],
                ref.sub_alt[x_sr[picked]],
                mapped_groups.cats[take],
                mapped_groups.reasons[take],
            )
        )
        # Reference slots without a hypothesis group: every fill of the best alternative missing
        # (chosen pairs and unmapped references alike; an optional instance's points are unscored).
        matched_gr = np.zeros(len(ref.group_inst), dtype=bool)
        matched_gr[e_gr[keep]] = True
        pairing_of_ref = np.full(ref.n_inst, _NONE, dtype=np.int64)
        pairing_of_ref[mapped_r] = base + np.arange(len(mapped_r))
        pairing_of_ref[lone_r] = base + len(mapped_r) + np.arange(len(lone_r))
        owner_group = ref.sub_group[owner]
        alone = ~matched_gr[owner_group] & (best_empty[owner_group] == owner)
        r_rows, r_owner, r_group = rows[alone], owner[alone], owner_group[alone]
        r_inst = ref.group_inst[r_group]
        r_cats, r_reasons = missing_cats[alone].copy(), missing_reasons[alone].copy()
        unscore = ~is_mapped_r[r_inst] & ref.inst_optional[r_inst]
        if np.any(unscore):
            change = unscore[:, None] & np.isin(r_cats, (MIS, COR, INC))
            r_cats[change] = NON
            r_reasons[change] = _OPTIONAL_INSTANCE
        parts.append(
            _Rows(
                pairing_of_ref[r_inst],
                r_group - ref.inst_groups[r_inst, 0],
                r_rows - ref.sub_first[r_owner],
                r_rows,
                np.full(len(r_rows), _NONE),
                ref.sub_alt[r_owner],
                r_cats,
                r_reasons,
            )
        )
        # Hypothesis groups without a reference group: every fill spurious, after the reference's
        # slots (chosen pairs) or alone (unmapped hypotheses).
        pairing_of_hyp = np.full(hyp.n_inst, _NONE, dtype=np.int64)
        pairing_of_hyp[mapped_h] = base + np.arange(len(mapped_h))
        pairing_of_hyp[lone_h] = base + len(mapped_r) + len(lone_r) + np.arange(len(lone_h))
        ref_of_hyp = np.full(hyp.n_inst, _NONE, dtype=np.int64)
        ref_of_hyp[mapped_h] = mapped_r
        hyp_groups = ranges(hyp.inst_groups[hyps, 0], hyp.inst_groups[hyps, 1] - hyp.inst_groups[hyps, 0])
        matched_gh = np.zeros(len(hyp.group_inst), dtype=bool)
        matched_gh[e_gh[keep]] = True
        hyp_groups = hyp_groups[~matched_gh[hyp_groups]]
        h_rows = ranges(hyp.group_first[hyp_groups], hyp.group_count[hyp_groups])
        h_owner = np.repeat(hyp_groups, hyp.group_count[hyp_groups])
        h_inst = hyp.group_inst[h_owner]
        partner = ref_of_hyp[h_inst]
        ref_slots = _gather(ref.inst_groups[:, 1], partner, 0) - _gather(ref.inst_groups[:, 0], partner, 0)
        h_cats, h_reasons = self._spurious(h_rows)
        parts.append(
            _Rows(
                pairing_of_hyp[h_inst],
                ref_slots + h_owner - hyp.inst_groups[h_inst, 0],
                h_rows - hyp.group_first[h_owner],
                np.full(len(h_rows), _NONE),
                h_rows,
                np.full(len(h_rows), _NONE),  # no reference slot: no alternative
                h_cats,
                h_reasons,
            )
        )
        self.rows.extend(parts)

    # -- the tables --------------------------------------------------------------------------------

    def tables(self) -> tuple[pa.Table, pa.Table]:
        """The ``mapping`` and ``tallies`` tables, rows in ``scoring_to_tables``'s order."""
        if not self.n_pairings:
            return MAPPING.empty_table(), TALLIES.empty_table()
        ref, hyp = self.ref, self.hyp
        doc, type_, group, rank, pair_r, pair_h = (
            np.concatenate(part) for part in zip(*self.pairings, strict=True)
        )
        n_pairings = len(doc)
        pairing_order = np.lexsort((rank, group, type_, doc))
        position = np.empty(n_pairings, dtype=np.int64)
        position[pairing_order] = np.arange(n_pairings)
        fills = _Rows.concat(self.rows) if self.rows else _Rows.empty()
        fill_order = np.lexsort((fills.sub_pos, fills.slot_pos, position[fills.pairing]))
        fills = _Rows(*(getattr(fills, f)[fill_order] for f in _Rows.__dataclass_fields__))
        n_fill = len(fills.pairing)
        # Mapping rows: each pairing's instance row, then its fill rows.
        per_pairing = np.bincount(position[fills.pairing], minlength=n_pairings) + 1
        starts = np.cumsum(per_pairing) - per_pairing
        total = n_pairings + n_fill
        is_instance = np.zeros(total, dtype=bool)
        is_instance[starts] = True
        pairing = np.empty(total, dtype=np.int64)
        pairing[starts] = pairing_order
        fill_at = np.flatnonzero(~is_instance)
        pairing[fill_at] = fills.pairing

        def spread(values: np.ndarray, instance_value: int = _NONE) -> np.ndarray:
            out = np.full(total, instance_value, dtype=np.int64)
            out[fill_at] = values
            return out

        ref_row, hyp_row = spread(fills.ref_row), spread(fills.hyp_row)
        cats = np.full((total, 2), _NONE, dtype=np.int64)
        reasons = np.zeros((total, 2), dtype=np.int64)
        cats[fill_at], reasons[fill_at] = fills.cats, fills.reasons
        # Fill rows' counts; an instance row counts its pairing's fill points.
        counts = _tally(np.arange(total), cats, total)
        sums = np.zeros((n_pairings, 6), dtype=np.int64)
        np.add.at(sums, pairing[fill_at], counts[fill_at])
        counts[starts] = sums[pairing_order]
        # The object point of each pairing.
        c = counts[starts]
        pos, act = (
            c[:, COR] + c[:, INC] + c[:, PAR] + c[:, MIS],
            c[:, COR] + c[:, INC] + c[:, PAR] + c[:, SPU],
        )
        g = group[pairing_order]
        lone_optional = (g == 1) & _gather(ref.inst_optional, pair_r[pairing_order], False)
        cats[starts, 0] = np.select(
            [g == 0, lone_optional, g == 1],
            [np.where((pos + act > 0) & (c[:, COR] + c[:, PAR] == 0), INC, COR), NON, MIS],
            SPU,
        )
        reasons[starts, 0] = np.where(lone_optional, _OPTIONAL_INSTANCE, 0)
        # Aspects: object for instance rows, the fill kind's otherwise.
        kind = np.where(ref_row >= 0, _gather(ref.kind, ref_row), _gather(hyp.kind, hyp_row))
        aspect_names = [*self.text_aspects, "pointer", "set", "object"]
        text_code = [aspect_names.index(a) for a in self.text_aspects]
        aspects = np.empty((total, 2), dtype=np.int64)
        aspects[:, 0] = np.select(
            [kind == TEXT, kind == POINTER], [text_code[0], len(text_code)], len(text_code) + 1
        )
        aspects[:, 1] = text_code[-1]
        aspects[starts, 0] = len(text_code) + 2

        def take(values: pa.Array, index: np.ndarray) -> pa.Array:
            return values.take(pa.array(index, mask=index < 0))

        def ints(values: np.ndarray, type_: pa.DataType) -> pa.Array:
            return pa.array(values, type=type_, mask=values < 0)

        docs = self.docs
        ref_names = ref.names
        hyp_names = hyp.names
        slot = pc.coalesce(
            take(ref.table.column(C.slot).combine_chunks(), ref_row),
            take(hyp.table.column(C.slot).combine_chunks(), hyp_row),
        )
        ref_text = (ref_row >= 0) & (kind == TEXT)
        hyp_text = (hyp_row >= 0) & (kind == TEXT)
        ref_start = np.where(ref_text, _gather(ref.start, ref_row), _NONE)
        ref_end = np.where(ref_text & (ref_start != _NONE), _gather(ref.end, ref_row), _NONE)
        hyp_start = np.where(hyp_text, _gather(hyp.start, hyp_row), _NONE)
        hyp_end = np.where(hyp_text & (hyp_start != _NONE), _gather(hyp.end, hyp_row), _NONE)
        levels = pa.array(["instance", "fill"], pa.string())
        point_valid = (cats >= 0).ravel()
        flat_aspects = pa.array(aspect_names, pa.string()).take(pa.array(aspects.ravel()[point_valid]))
        flat_cats = pa.array(_CATEGORY_NAMES, pa.string()).take(pa.array(cats.ravel()[point_valid]))
        flat_reasons = pa.array(_REASONS, pa.string()).take(pa.array(reasons.ravel()[point_valid]))
        points_type = MAPPING.field(C.points).type
        n_points = (cats >= 0).sum(axis=1)
        offsets = np.concatenate([[0], np.cumsum(n_points)]).astype(np.int32)
        points = pa.ListArray.from_arrays(
            pa.array(offsets, pa.int32()),
            pa.StructArray.from_arrays(
                [flat_aspects, flat_cats, flat_reasons], fields=list(points_type.value_type)
            ),
            type=points_type,
        )
        arrays = {
            C.level: levels.take(pa.array((~is_instance).astype(np.int64))),
            C.doc_id: docs.take(pa.array(doc[pairing])),
            C.instance_type: pa.array(self.order, pa.string()).take(pa.array(type_[pairing])),
            C.slot: slot,
            C.ref_instance: take(ref_names, pair_r[pairing]),
            C.hyp_instance: take(hyp_names, pair_h[pairing]),
            C.ref_alternative: ints(spread(fills.alternative), pa.int32()),
            C.ref_line: ints(_gather(ref.line, ref_row), pa.int32()),
            C.hyp_line: ints(_gather(hyp.line, hyp_row), pa.int32()),
            C.kind: take(pa.array(_KIND_NAMES, pa.string()), np.where(is_instance, _NONE, kind)),
            C.ref_fill: take(_rendered(ref, fills.ref_row), ref_row),
            C.hyp_fill: take(_rendered(hyp, fills.hyp_row), hyp_row),
            C.ref_start: ints(ref_start, pa.int64()),
            C.ref_end: ints(ref_end, pa.int64()),
            C.hyp_start: ints(hyp_start, pa.int64()),
            C.hyp_end: ints(hyp_end, pa.int64()),
            C.points: points,
        }
        for index, name in enumerate(_CATEGORY_NAMES):
            if name != "PAR":
                arrays[name] = pa.array(counts[:, index], pa.int32())
        mapping = pa.Table.from_arrays([arrays[name] for name in MAPPING.names], schema=MAPPING)
        parents = pa.array(np.repeat(np.arange(total), n_points))
        inherited = (
            C.doc_id,
            C.instance_type,
            C.slot,
            C.ref_instance,
            C.hyp_instance,
            C.ref_line,
            C.hyp_line,
        )
        tally = {name: arrays[name].take(parents) for name in inherited}
        tally[C.aspect] = flat_aspects
        tally[C.category] = flat_cats
        tally[C.reason] = pc.if_else(pc.equal(flat_reasons, ""), pa.scalar(None, pa.string()), flat_reasons)
        return mapping, pa.Table.from_arrays([tally[name] for name in TALLIES.names], schema=TALLIES)


# Pointers that surely write back as themselves: printable ASCII, no '<' or '>', no '-' in the type or
# one-up (``templates._pointer_text`` refuses the rest, which go through it).
_SAFE_TYPE = "^[!-,.-;=?-~]+$"
_SAFE_DOC = "^[!-;=?-~]+$"
# An unquoted text that surely reads back as one bare run: ASCII words and single spaces.
_SAFE_BARE = "^[A-Za-z0-9_]+( [A-Za-z0-9_]+)*$"


def _rendered(side: _Side, used: np.ndarray) -> pa.Array:
    """Every used row's fill as written in template syntax (``render_fill``; null for other rows):
    plain texts and pointers on columns, the others one by one."""
    table, n = side.table, side.table.num_rows
    wanted = np.zeros(n, dtype=bool)
    wanted[used[used >= 0]] = True
    column = {
        name: table.column(name).combine_chunks() for name in (C.content, C.quoted, C.max_start, C.max_end)
    }
    raw = column[C.content]
    quoted = column[C.quoted].fill_null(False).to_numpy(zero_copy_only=False)

    def matches(pattern: str, values: pa.Array = raw) -> np.ndarray:
        return pc.match_substring_regex(values, pattern).fill_null(False).to_numpy(zero_copy_only=False)

    plain_raw = ~matches('["\n]') & raw.is_valid().to_numpy(zero_copy_only=False)
    text = (side.kind == TEXT) & wanted & ~side.has_min_extents
    extent = side.start != _NONE
    # Quoted (or without extents, when render_fill quotes it), bare with extents.
    quote = text & plain_raw & (quoted | ~extent)
    bare = text & ~quoted & extent & matches(_SAFE_BARE)
    with_extent = (quote | bare) & extent
    pieces = []
    if np.any(with_extent):
        index = pa.array(np.flatnonzero(with_extent))
        opening = pc.if_else(pa.array(quote[with_extent]), '"', "")
        joined = pc.binary_join_element_wise(
            opening, raw.take(index), opening, " ##", pc.cast(column[C.max_start].take(index), pa.string()),
            "#", pc.cast(column[C.max_end].take(index), pa.string()), "#", "",
        )  # fmt: skip
        pieces.append((with_extent, joined))
    without_extent = quote & ~extent
    if np.any(without_extent):
        index = pa.array(np.flatnonzero(without_extent))
        pieces.append((without_extent, pc.binary_join_element_wise('"', raw.take(index), '"', "")))
    pointer = (side.kind == POINTER) & wanted
    if np.any(pointer):
        parts = [
            pa.array(values, pa.string()) for values in (side.inst_type, side.inst_doc, side.inst_one_up)
        ]
        safe = matches(_SAFE_TYPE, parts[0]) & matches(_SAFE_DOC, parts[1]) & matches(_SAFE_TYPE, parts[2])
        pointer &= _gather(safe, side.target, False)
        index = pa.array(side.target[pointer])
        pieces.append((pointer, side.names.take(index)))
    others = wanted & ~with_extent & ~without_extent & ~pointer
    if np.any(others):
        index = np.flatnonzero(others)
        rest = table.take(pa.array(index)).to_pylist()
        pieces.append((others, pa.array([render_fill(_fill_of_row(row)) for row in rest], pa.string())))
    if not pieces:
        return pa.nulls(n, pa.string())
    # Scatter the pieces into one array of n rows.
    source = np.full(n, _NONE, dtype=np.int64)
    chunks = []
    offset = 0
    for mask, values in pieces:
        source[np.flatnonzero(mask)] = offset + np.arange(len(values))
        chunks.append(values)
        offset += len(values)
    return pa.concat_arrays(chunks).take(pa.array(source, mask=source < 0))


def _fill_of_row(row: dict) -> object:
    """The dataclass of one ``fills`` row, as ``template_set_from_table`` builds it (rendering only)."""
    kind, line = row[C.kind], row[C.line]
    if kind == "pointer":
        return PointerFill(Pointer(row[C.target_type], row[C.target_doc_id], row[C.target_one_up]), line)
    if kind == "set":
        return SetFill(row[C.content], bool(row[C.quoted]), line)
    extents: tuple[Extent, ...] = ()
    if row[C.max_start] is not None:
        extents = (Extent(row[C.max_start], row[C.max_end]),)
        extents += tuple(Extent(e["start"], e["end"]) for e in row[C.min_extents] or ())
    return TextFill(
        row[C.content],
        extents,
        bool(row[C.quoted]),
        line,
        row[C.norm_content],
        tuple(row[C.norm_min_contents] or ()),
    )
