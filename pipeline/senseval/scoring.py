"""scorer2's rules (seed 003), vectorised: a key, a sense map and one system's answers -> per-instance credit.

The rules, as scorer2 applies them (facts about the reference program, checked against its output in
``tests/data/senseval``):

- **Weights.** If any tag of an answer has no ``/weight``, every tag of it weighs 1. Weights summing to
  more than 1 are divided by their sum; a sum below 1 is kept and is a partial attempt (``x/0.5`` right:
  0.5 correct of 0.5 attempted). Only the first answer for an instance that has a tag counts; a later one
  is "Excluded or already scored.".
- **Coarse.** Every tag, in the key and in the answer, becomes the top ancestor on its sense-map line
  (a tag the map lacks stays as it is); key tags that become equal are one tag, answer tags that become
  equal are one tag with the sum of their weights.
- **Minimal** (``-m``) drops the instances whose key has more than one tag after that conversion.
- **Mixed.** An answer tag equal to a key tag, or below it in the map, gets 1 from it; an answer tag above
  a key tag gets 1 / (the product of the branching factors from the key tag up to it).
- **Credit.** An answer tag's credit is the sum over the key tags, capped at 1; the instance's, the sum of
  its tags' credit times their weights, capped at 1. Weights and credits are single-precision floats,
  as scorer2's C floats (a score on a decimal tie prints as scorer2 prints it). Precision = credit /
  attempted, recall = credit / instances of the key, attempted = attempted / instances.

The seed's other policies (``POLICIES``): ``coverage`` multiplies each answer tag's credit by the fraction
of the key's tags it covers (the seed's amended rows 4, 9 and 21); ``conjunctive`` makes each key tag a
separate item: weights are probabilities of appearance (not normalised, capped at 1), a key tag's credit
is the sum of the weights of the answer tags that match it (capped at 1), the instance's the sum over its
key tags, attempted the sum of the weights (the expected number of tags returned) and the total the
number of key tags. Both apply after the coarse conversion; with mixed, a tag above a key tag matches it
for 1 / (product of branching factors), as in the disjunctive policy.

``unknown_senses``: ``"wrong"`` (scorer2's default) scores an answer tag the sense map lacks as a wrong
attempted tag; ``"unattempted"`` (the seed's text, and scorer2's original, since disabled, code) makes an
answer with such a tag, when there is a sense map, an "Invalid answer." that is not attempted. The tags
``U`` (unassignable), ``P`` (proper noun) and ``TYPO`` are always known.

Filters: ``instances`` keeps only the listed instances (key and answers); ``senses`` deletes the key tags
not on the list (before the coarse conversion) and drops the instances left without a key tag. Answers
for a dropped instance are "Excluded or already scored.", like those for an instance ``-m`` drops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import filled, scalar, strings, to_arrow, to_numpy, whole
from iescore.schemas import SENSE_INSTANCES, SENSE_UNSCORED

GRANULARITIES = ("fine", "coarse", "mixed")
POLICIES = ("disjunctive", "coverage", "conjunctive")
UNKNOWN_SENSES = ("wrong", "unattempted")
#: Tags scorer2's original check let through without a sense-map line.
ALWAYS_KNOWN = ("U", "P", "TYPO")

DOES_NOT_EXIST = "Does not exist."
INVALID_ANSWER = "Invalid answer."
EXCLUDED = "Excluded or already scored."
REASONS = (DOES_NOT_EXIST, INVALID_ANSWER, EXCLUDED)
#: Sense maps whose lines name at most this many ancestors are looked up by depth (else by search).
_MAX_TABLE_DEPTH = 8


@dataclass(frozen=True)
class SenseOptions:
    """How to score: ``granularity`` (GRANULARITIES), ``minimal`` (``-m``), ``policy`` (POLICIES),
    ``unknown_senses`` (UNKNOWN_SENSES)."""

    granularity: str = "fine"
    minimal: bool = False
    policy: str = "disjunctive"
    unknown_senses: str = "wrong"

    def __post_init__(self) -> None:
        for name, allowed in (
            ("granularity", GRANULARITIES),
            ("policy", POLICIES),
            ("unknown_senses", UNKNOWN_SENSES),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, not {getattr(self, name)!r}")


@dataclass(frozen=True)
class ScoredSenses:
    """``instances`` (``SENSE_INSTANCES``, key order) and ``unscored`` (``SENSE_UNSCORED``, file order)."""

    instances: pa.Table
    unscored: pa.Table


def effective_granularity(granularity: str, has_sense_map: bool) -> tuple[str, str | None]:
    """The granularity used, and scorer2's message when coarse or mixed falls back to fine (no map)."""
    if granularity != "fine" and not has_sense_map:
        return "fine", "Fine-grained scoring will be used since no sense map was given"
    return granularity, None


def score_senses(
    key: pa.Table,
    answers: pa.Table,
    sense_map: pa.Table | None,
    options: SenseOptions,
    instance_filter: pa.Table | None = None,
    sense_filter: pa.Array | None = None,
    tags: bool = True,
) -> ScoredSenses:
    """Score one system's answers (``SENSE_ANSWERS``) against a key (``SENSE_KEY``) and sense map
    (``SENSE_MAP`` or None: then only fine-grained scoring is possible, and coarse or mixed is an error
    here; see :func:`effective_granularity`). Whatever the order of the lines, the result is the same,
    but for which of two answers to one instance is first (file order). ``tags=False``: the instances'
    lists of key tags, answer tags and weights are left empty (the scores need them not; the audit and
    ``-v`` do)."""
    if options.granularity != "fine" and sense_map is None:
        raise ValueError(f"{options.granularity}-grained scoring needs a sense map")
    vocabulary = _Vocabulary(key, answers, sense_map)
    n_key = key.num_rows

    # Key tags, one row each: (instance row, tag code), in written order.
    key_tags = whole(key.column("key_tags"))
    tag_instance = to_numpy(pc.list_parent_indices(key_tags))
    tag_code = vocabulary.key_codes
    excluded = np.zeros(n_key, dtype=bool)
    if instance_filter is not None:
        listed = pc.is_in(_pair_labels(key), value_set=_pair_labels(instance_filter))
        excluded |= ~to_numpy(listed)
    if sense_filter is not None:
        kept = to_numpy(pc.is_in(pc.list_flatten(key_tags), value_set=sense_filter))
        tag_instance, tag_code = tag_instance[kept], tag_code[kept]
        excluded |= np.bincount(tag_instance, minlength=n_key) == 0
    if options.granularity == "coarse":
        tag_code = vocabulary.top[tag_code]
        tag_instance, tag_code = _first_of_each(tag_instance, tag_code, vocabulary.size)
    key_size = np.bincount(tag_instance, minlength=n_key)
    if options.minimal:
        excluded |= key_size > 1
    included = ~excluded & (key_size > 0)

    # Answer tags, one row each: (answer row, tag code, weight).
    row, code, weight, attempted, invalid = _answer_weights(
        answers, vocabulary, sense_map is not None, options
    )

    # Which answer scores which instance: scorer2's checks, in its order, in file order.
    target = _targets(key, answers)
    reason, scoring = _reasons(target, invalid, included)

    # Credit of each scoring answer: every (answer tag, key tag) pair of its instance.
    credit = _credit(
        row, code, weight, scoring, target, tag_instance, tag_code, key_size, vocabulary, options
    )
    answered_by = np.full(n_key, -1, dtype=np.int32)
    answered_by[target[scoring]] = np.flatnonzero(scoring)
    instance_credit = np.zeros(n_key)
    instance_attempted = np.zeros(n_key)
    instance_credit[target[scoring]] = credit[scoring]
    instance_attempted[target[scoring]] = attempted[scoring]
    total = key_size.astype(np.float64) if options.policy == "conjunctive" else np.ones(n_key)

    instances = _instances_table(
        key, included, tag_instance, tag_code, row, code, weight, answered_by, answers,
        instance_credit, instance_attempted, total, vocabulary, options.granularity, tags,
    )  # fmt: skip
    unscored_rows = to_arrow(np.flatnonzero(~scoring))
    unscored = pa.Table.from_arrays(
        [
            answers.column("line").take(unscored_rows),
            _names(answers.select(["item", "instance"]).take(unscored_rows)).cast(pa.string()),
            strings(list(REASONS)).take(to_arrow(reason[~scoring].astype(np.int32))),
        ],
        schema=SENSE_UNSCORED,
    )
    return ScoredSenses(instances, unscored)


def _answer_weights(
    answers: pa.Table, vocabulary: _Vocabulary, has_map: bool, options: SenseOptions
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The answer tags as scored, one row each (answer row, tag code, weight), each answer's attempted
    weight, and which answers are invalid (no tag; with ``unattempted``, a tag the map lacks)."""
    n_answers = answers.num_rows
    answer_tags = whole(answers.column("answer_tags"))
    weights_column = whole(answers.column("answer_weights"))
    row = to_numpy(pc.list_parent_indices(answer_tags))
    code = vocabulary.answer_codes
    raw = filled(pc.list_flatten(weights_column), np.nan)
    unweighted = np.bincount(row, weights=np.isnan(raw), minlength=n_answers) > 0
    # scorer2 keeps weights and scores in C floats (single precision); so do we, per instance, so that a
    # score on a decimal tie (0.0375) prints as scorer2 prints it. Sums over instances are in double.
    weight = np.where(unweighted[row], 1.0, raw).astype(np.float32)
    del raw, unweighted
    invalid = np.bincount(row, minlength=n_answers) == 0
    if options.unknown_senses == "unattempted" and has_map:
        invalid |= np.bincount(row, weights=~vocabulary.known[code], minlength=n_answers) > 0
    if options.granularity == "coarse":
        code = vocabulary.top[code]
        combine = "appearance" if options.policy == "conjunctive" else "sum"
        row, code, weight = _merge_answer_tags(row, code, weight, vocabulary.size, combine)
    if options.policy == "conjunctive":
        weight = np.minimum(weight, np.float32(1.0))
        return row, code, weight, _single(np.bincount(row, weights=weight, minlength=n_answers)), invalid
    total_weight = _single(np.bincount(row, weights=weight, minlength=n_answers))
    over = total_weight > 1.0
    divisor = np.where(over, total_weight, np.float32(1.0)).astype(np.float32)
    weight = np.where(over[row], weight / divisor[row], weight).astype(np.float32)
    return row, code, weight, np.where(over, np.float32(1.0), total_weight), invalid


def _reasons(target: np.ndarray, invalid: np.ndarray, included: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Why each answer is not scored (an index into REASONS, -1 for those scoring) and which score:
    scorer2's checks in its order (no such instance, invalid, excluded), then the first answer in file
    order for each instance."""
    reason = np.full(len(target), -1, dtype=np.int8)
    reason[target < 0] = 0
    reason[(reason < 0) & invalid] = 1
    reason[(reason < 0) & ~included[np.maximum(target, 0)]] = 2
    candidates = np.flatnonzero(reason < 0)
    _, first = np.unique(target[candidates], return_index=True)
    scoring = np.zeros(len(target), dtype=bool)
    scoring[candidates[first]] = True
    reason[(reason < 0) & ~scoring] = 2
    return reason, scoring


def _credit(
    row: np.ndarray,
    code: np.ndarray,
    weight: np.ndarray,
    scoring: np.ndarray,
    target: np.ndarray,
    tag_instance: np.ndarray,
    tag_code: np.ndarray,
    key_size: np.ndarray,
    vocabulary: _Vocabulary,
    options: SenseOptions,
) -> np.ndarray:
    """Each answer's credit (0 for those not scoring), from the pairs of its tags and its key's tags."""
    n_answers = len(scoring)
    answer_tag = np.flatnonzero(scoring[row]).astype(np.int32)
    # Key tags are grouped by instance (rows in key order): instance i's are first[i] .. first[i] + size.
    instance = target[row[answer_tag]]
    first_key_tag = np.zeros(len(key_size), np.int32)
    np.cumsum(key_size[:-1], out=first_key_tag[1:])
    per = key_size[instance]
    pair_start = np.zeros(len(per), np.int32)  # each answer tag's first pair
    np.cumsum(per[:-1], out=pair_start[1:])
    a = np.repeat(answer_tag, per)
    # Pair j of answer tag t pairs it with key tag first_key_tag[instance] + (j - pair_start[t]).
    k = np.repeat(first_key_tag[instance] - pair_start, per)
    k += np.arange(len(a), dtype=np.int32)
    del instance, per, pair_start
    answer_code, key_code = code[a], tag_code[k]
    equal = answer_code == key_code
    if options.granularity != "mixed" and options.policy == "disjunctive":
        # An answer tag matches at most one key tag (a key line names each tag once): its credit is
        # 1 or 0, counted without weights.
        per_tag = np.minimum(np.bincount(a[equal], minlength=len(row)), 1).astype(np.float32)
        return _answer_credit(row, per_tag, weight, n_answers)
    matched = equal.astype(np.float64)
    if options.granularity == "mixed":
        below = vocabulary.subsumption(answer_code, key_code) > 0  # the key tag is an ancestor
        above = vocabulary.subsumption(key_code, answer_code)  # the answer tag is an ancestor
        matched = np.where(matched > 0, 1.0, np.where(below, 1.0, above))
    if options.policy == "conjunctive":
        per_key = np.minimum(np.bincount(k, weights=weight[a] * matched, minlength=len(tag_instance)), 1.0)
        by_instance = np.bincount(tag_instance, weights=per_key, minlength=len(key_size))
        credit = np.zeros(n_answers)
        credit[scoring] = by_instance[target[scoring]]
        return credit
    if options.policy == "coverage":
        matched = matched / key_size[tag_instance[k]]
    per_tag = np.minimum(_single(np.bincount(a, weights=matched, minlength=len(row))), np.float32(1.0))
    return _answer_credit(row, per_tag, weight, n_answers)


def _answer_credit(row: np.ndarray, per_tag: np.ndarray, weight: np.ndarray, n_answers: int) -> np.ndarray:
    """Each answer's credit: the sum of its tags' credit (``per_tag``, 0 for the tags of answers not
    scoring) times their weights, in single precision, capped at 1."""
    products = (per_tag * weight).astype(np.float32)
    credit = _single(np.bincount(row, weights=products, minlength=n_answers))
    return np.minimum(credit, np.float32(1.0))


class _Vocabulary:
    """Every tag of the key, the answers and the sense map as one integer code, with the map's
    relations over codes: ``top`` (coarse), ``known`` and :meth:`subsumption` (mixed)."""

    def __init__(self, key: pa.Table, answers: pa.Table, sense_map: pa.Table | None) -> None:
        key_tags = pc.list_flatten(whole(key.column("key_tags")))
        answer_tags = pc.list_flatten(whole(answers.column("answer_tags")))
        pieces = [key_tags, answer_tags]
        if sense_map is not None:
            senses = whole(sense_map.column("sense"))
            ancestors = pc.list_flatten(whole(sense_map.column("ancestors")))
            pieces += [senses, ancestors]
        # Each piece encoded alone, then their (small) dictionaries together: the codes and the labels'
        # order are those of encoding all the pieces end to end (first appearance), without copying them.
        encoded = [pc.dictionary_encode(p.cast(pa.string())) for p in pieces]
        union = pc.dictionary_encode(pa.concat_arrays([e.dictionary for e in encoded]))
        recode = to_numpy(union.indices).astype(np.int32)
        starts = np.cumsum([0] + [len(e.dictionary) for e in encoded])
        codes = np.concatenate(
            [recode[start + to_numpy(e.indices)] for start, e in zip(starts[:-1], encoded, strict=True)]
        )
        self.labels = union.dictionary
        self.size = len(self.labels)
        bounds = np.cumsum([0] + [len(p) for p in pieces])
        self.key_codes = codes[bounds[0] : bounds[1]]
        self.answer_codes = codes[bounds[1] : bounds[2]]
        self.top = np.arange(self.size)
        self.known = to_numpy(pc.is_in(self.labels, value_set=strings(list(ALWAYS_KNOWN)))).copy()
        self._pairs = np.zeros(0, np.int64)  # sorted (sense code * size + ancestor code)
        self._factors = np.zeros(0)  # the product of branching factors of each, in that order
        self._up: np.ndarray | None = None  # see below
        self._up_credit = np.zeros((0, 0))
        if sense_map is None:
            return
        sense_codes = codes[bounds[2] : bounds[3]]
        ancestor_codes = codes[bounds[3] : bounds[4]]
        self.known[sense_codes] = True
        lengths = to_numpy(pc.list_value_length(whole(sense_map.column("ancestors"))))
        owner = np.repeat(np.arange(len(sense_codes)), lengths)
        if len(ancestor_codes):
            last = np.cumsum(lengths) - 1
            has = lengths > 0
            self.top[sense_codes[has]] = ancestor_codes[last[has]]
        # Ancestor pairs (sense, ancestor) with the product of the branching factors on the way.
        factors = to_numpy(pc.list_flatten(whole(sense_map.column("branching"))))
        products = _cumulative_products(factors.astype(np.float64), lengths)
        pair_keys = sense_codes[owner].astype(np.int64) * self.size + ancestor_codes
        order = np.argsort(pair_keys, kind="stable")
        self._pairs = pair_keys[order]
        self._factors = products[order]
        # The same by depth, for maps of short lines (all, in practice): row d holds each sense's d-th
        # ancestor on its line (-1: none) and the credit 1 / product of the branching factors up to it.
        depth = int(lengths.max(initial=0))
        if depth <= _MAX_TABLE_DEPTH:
            position = np.arange(len(owner)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            self._up = np.full((depth, self.size), -1, np.int64)
            self._up_credit = np.zeros((depth, self.size), np.float32)  # single, as by search
            self._up[position, sense_codes[owner]] = ancestor_codes
            self._up_credit[position, sense_codes[owner]] = _single(
                1.0 / _single(products).astype(np.float64)
            )

    def subsumption(self, tag: np.ndarray, subsumer: np.ndarray) -> np.ndarray:
        """1 / (product of branching factors from ``tag`` up to ``subsumer``) where ``subsumer`` is an
        ancestor on ``tag``'s sense-map line, else 0 (elementwise)."""
        if not len(self._pairs):
            return np.zeros(len(tag))
        if self._up is not None:  # one look-up per depth
            credit = np.zeros(len(tag), np.float32)
            for up, up_credit in zip(self._up, self._up_credit, strict=True):
                np.copyto(credit, up_credit[tag], where=up[tag] == subsumer)
            return credit
        wanted = tag.astype(np.int64) * self.size + subsumer
        at = np.minimum(np.searchsorted(self._pairs, wanted), len(self._pairs) - 1)
        found = np.where(self._pairs[at] == wanted, at, -1)
        factor = self._factors[np.maximum(found, 0)].astype(np.float32).astype(np.float64)
        return np.where(found >= 0, _single(1.0 / factor), 0.0)


def _cumulative_products(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The running product of ``values`` within consecutive groups of ``lengths`` (one pass per
    position in a group: a sense map's lines are a few ancestors long)."""
    products = values.copy()
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    for depth in range(1, int(lengths.max(initial=0))):
        rows = starts[lengths > depth] + depth
        products[rows] = products[rows - 1] * values[rows]
    return products


def _single(values: np.ndarray) -> np.ndarray:
    """``values`` rounded to C floats (single precision), as scorer2 holds them."""
    return np.asarray(values, dtype=np.float64).astype(np.float32)


def _first_of_each(group: np.ndarray, code: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows (group, code) without repeats, the first of each kept, in their order."""
    _, first = np.unique(group.astype(np.int64) * size + code, return_index=True)
    first.sort()
    return group[first], code[first]


def _merge_answer_tags(
    row: np.ndarray, code: np.ndarray, weight: np.ndarray, size: int, combine: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Answer tags that became equal: one tag, at the first one's place, with their weights combined
    (``sum``; ``appearance``: the chance that any of them appears, 1 - prod(1 - p))."""
    _, first, inverse = np.unique(row.astype(np.int64) * size + code, return_index=True, return_inverse=True)
    if combine == "sum":
        merged = np.bincount(inverse, weights=weight)
    else:
        with np.errstate(divide="ignore"):
            merged = 1.0 - np.exp(np.bincount(inverse, weights=np.log1p(-np.minimum(weight, 1.0))))
    order = np.argsort(first, kind="stable")
    return row[first[order]], code[first[order]], merged[order]


def _targets(key: pa.Table, answers: pa.Table) -> np.ndarray:
    """The key row of each answer line's instance (same item and instance), -1 where none (a null
    instance, when the line has no space, matches none). When the key's instance names increase
    (sorted, as scorer2 needs its key: then no two are equal), by the instance alone, then the item
    checked; else by the pair, joined."""
    instances = whole(key.column("instance"))
    n = len(instances)
    if n >= 2 and not pc.all(pc.less(instances.slice(0, n - 1), instances.slice(1))).as_py():
        target = pc.index_in(_pair_labels(answers), value_set=_pair_labels(key))
        return filled(target, -1).astype(np.int32)
    target = _sorted_index_in(whole(answers.column("instance")), instances)
    found = np.flatnonzero(target >= 0)
    if len(found):
        key_item = whole(key.column("item")).take(to_arrow(target[found]))
        answer_item = whole(answers.column("item")).take(to_arrow(found))
        same = to_numpy(pc.equal(key_item, answer_item))
        target[found[~same]] = -1
    return target


def _sorted_index_in(queries: pa.StringArray, values: pa.StringArray) -> np.ndarray:
    """The row of each query in ``values`` (increasing, no repeats), -1 where absent or null: the
    strings laid out as fixed-width byte rows and merged with the values by a stable sort (queries in
    order, as sorted answers are, make it one merge of two runs), each query then matched with the
    last value before it. Names with a NUL byte or longer than 64 bytes are looked up by hashing
    instead."""
    width = max(pc.max(pc.binary_length(values)).as_py() or 0, pc.max(pc.binary_length(queries)).as_py() or 0)
    rows_v, rows_q = _fixed_width(values, width), _fixed_width(queries, width)
    if rows_v is None or rows_q is None or not len(values):
        return filled(pc.index_in(queries, value_set=values), -1).astype(np.int32)
    n = len(rows_v)
    order = np.argsort(np.concatenate([rows_v, rows_q]), kind="stable").astype(np.int32)
    # A value sorts before the queries equal to it (stable), with only those between them; values are
    # increasing, so the largest value index seen so far is the last value.
    is_value = order < n
    last_value = np.where(is_value, order, np.int32(-1))
    np.maximum.accumulate(last_value, out=last_value)
    query = order[~is_value] - np.int32(n)
    candidate = last_value[~is_value]
    del order, is_value, last_value
    seen = candidate >= 0
    query, candidate = query[seen], candidate[seen]
    found = rows_v[candidate] == rows_q[query]
    if queries.null_count:
        found &= to_numpy(queries.is_valid())[query]
    target = np.full(len(rows_q), -1, np.int32)
    target[query[found]] = candidate[found]
    return target


def _fixed_width(strings: pa.StringArray, width: int) -> np.ndarray | None:
    """``strings`` as numpy byte strings of ``width`` (zero-padded; numpy compares them as the bytes
    compare), copied row by row from Arrow's buffer; None where padding would make two names equal
    (a NUL byte in one) or the rows too wide to be worth it."""
    n = len(strings)
    offsets = np.frombuffer(strings.buffers()[1], np.int32, count=n + 1, offset=4 * strings.offset)
    data = np.frombuffer(strings.buffers()[2] or b"", np.uint8)[offsets[0] : offsets[-1]]
    if not 0 < width <= 64 or not data.all():
        return None
    if len(data) == n * width:  # every name as wide: the buffer itself is the rows
        return data.view(f"S{width}")
    windows = np.lib.stride_tricks.sliding_window_view(
        np.concatenate([data, np.zeros(width, np.uint8)]), width
    )
    rows = windows[offsets[:-1] - offsets[0]]
    lengths = np.diff(offsets)
    if (lengths != width).any():
        rows[np.arange(width) >= lengths[:, None]] = 0
    return rows.view(f"S{width}").ravel()


def _pair_labels(table: pa.Table) -> pa.Array:
    """``item NUL instance`` of every row (null instance: null): an instance is its item and instance."""
    item = whole(table.column("item"))
    return pc.binary_join_element_wise(item, whole(table.column("instance")), scalar("\x00"))


def _names(answers: pa.Table) -> pa.Array:
    """scorer2's name of each answer line's instance: ``item_instance`` (``item`` with no instance)."""
    joined = pc.binary_join_element_wise(answers.column("item"), answers.column("instance"), scalar("_"))
    return pc.if_else(answers.column("instance").is_null(), answers.column("item"), joined)


def _grouped(groups: np.ndarray, values: pa.Array, count: int) -> pa.ListArray:
    """A list per group ``0..count-1`` of ``values`` (rows ordered by group, stable)."""
    offsets = np.zeros(count + 1, np.int32)
    np.cumsum(np.bincount(groups, minlength=count), out=offsets[1:])
    if len(groups) > 1 and (groups[1:] < groups[:-1]).any():  # rows in key order need no sort
        values = values.take(to_arrow(np.argsort(groups, kind="stable")))
    return pa.ListArray.from_arrays(to_arrow(offsets), values)


def _instances_table(
    key: pa.Table,
    included: np.ndarray,
    tag_instance: np.ndarray,
    tag_code: np.ndarray,
    row: np.ndarray,
    code: np.ndarray,
    weight: np.ndarray,
    answered_by: np.ndarray,
    answers: pa.Table,
    credit: np.ndarray,
    attempted: np.ndarray,
    total: np.ndarray,
    vocabulary: _Vocabulary,
    granularity: str,
    tags: bool,
) -> pa.Table:
    n_key = key.num_rows
    answered = answered_by >= 0
    if tags:
        # Tags not converted (all but coarse) are the files' own strings: the lists share them.
        if granularity == "coarse" or len(tag_code) != len(vocabulary.key_codes):
            key_values = vocabulary.labels.take(to_arrow(tag_code))
        else:
            key_values = pc.list_flatten(whole(key.column("key_tags")))
        key_lists = _grouped(tag_instance, key_values, n_key)
        instance_of_answer = np.full(answers.num_rows, -1, dtype=np.int32)
        instance_of_answer[answered_by[answered]] = np.flatnonzero(answered)
        tag_owner = instance_of_answer[row]
        mine = tag_owner >= 0
        owner = tag_owner[mine]
        if granularity == "coarse":
            answer_values = vocabulary.labels.take(to_arrow(code[mine]))
        else:
            answer_values = pc.list_flatten(whole(answers.column("answer_tags")))
            if not mine.all():
                answer_values = answer_values.filter(to_arrow(mine))
        answer_lists = _grouped(owner, answer_values, n_key)
        weight_lists = _grouped(owner, to_arrow(weight[mine], pa.float64()), n_key)
    else:  # the scores alone: every list empty
        no_lists = to_arrow(np.zeros(n_key + 1, np.int32))
        key_lists = answer_lists = pa.ListArray.from_arrays(no_lists, strings([]))
        weight_lists = pa.ListArray.from_arrays(no_lists, to_arrow(np.zeros(0)))
    lines = to_numpy(answers.column("line"))
    answer_line = np.where(answered, lines[np.maximum(answered_by, 0)] if len(lines) else 0, 0)
    table = pa.Table.from_arrays(
        [
            key.column("item"),
            key.column("instance"),
            key.column("line"),
            key_lists,
            to_arrow(answer_line, pa.int64(), mask=~answered),
            answer_lists,
            weight_lists,
            to_arrow(credit, pa.float64()),
            to_arrow(attempted, pa.float64()),
            to_arrow(total, pa.float64()),
        ],
        schema=SENSE_INSTANCES,
    )
    return table if included.all() else table.filter(to_arrow(included))  # no copy when all are kept
