"""Map a hypothesis template set onto a reference template set and tally its points.

Seed 000, "Scoring Algorithm": instance sets are mapped by document id; within an instance set the
instances of one type are mapped by the general greedy algorithm (:mod:`pipeline.core.greedy`) on F; slots
by name; the hypothesis's one fill-alternative to whichever reference alternative gives the best F;
single fills greedily. Each single-fill pairing (or fill left alone) earns one point per compared
aspect (content, extent, pointer, set value), each correct, incorrect, missing, spurious or unscored.

The result keeps every pairing with its points, so reports can say why every point was given.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.greedy import Chosen, greedy_map
from iescore.pipeline.core.measures import CATEGORIES, Counts, f_measure
from iescore.pipeline.speech import speech_optional
from iescore.pipeline.templette.checks import check_single_alternatives
from iescore.pipeline.templette.model import (
    OPTIONAL_STATUS_SLOT,
    Alternative,
    Fill,
    Instance,
    Pointer,
    PointerFill,
    SetFill,
    Slot,
    TemplateSet,
    TextFill,
)

COMPARE_MODES = ("content", "extent", "both")
INSTANCE_SET_MODES = ("document", "overlap")
DEFAULT_UNSCORED = frozenset({"COMMENT"})


@dataclass(frozen=True)
class ScoringOptions:
    """What changes the points.

    ``compare``: the aspects of text fills compared; ``unscored_slots``; ``case_sensitive``;
    ``noisy``: contents are compared as token strings in which reference fillers and fragments are
    optional (seed 000, "Noisy Data"); ``alternatives``: contents were normalized by a GLM and
    ``{a / b}`` in them offers alternatives (otherwise braces are plain characters);
    ``instance_sets``: ``document`` maps instance sets by document id, ``overlap`` by the greedy
    algorithm restricted to overlapping extents (seed 000, "Unsegmented Hypothesis Texts").
    """

    compare: str = "both"
    unscored_slots: frozenset[str] = DEFAULT_UNSCORED
    case_sensitive: bool = False
    noisy: bool = False
    instance_sets: str = "document"
    alternatives: bool = False
    # MUC (seed 001): a pair of objects is mapped only when its weighted F (the sum over slots of the
    # slot's mapping weight times the slot pair's F) exceeds its class's threshold; ``implicit``
    # names the task whose implicitly optional objects apply ("relation" or "scenario").
    thresholds: Mapping[str, float] | None = None
    slot_weights: Mapping[str, Mapping[str, float]] | None = None
    implicit: str | None = None
    # MUC: the key alternatives the response's multi-fill was not aligned with are tallied as
    # non-committal (seed 001: "Any leftover multi-fills in the key slot ... are tallied as
    # noncommittal"); seed 000 leaves them out.
    noncommittal_alternatives: bool = False

    def __post_init__(self) -> None:
        if self.compare not in COMPARE_MODES:
            raise ValueError(f"compare must be one of {', '.join(COMPARE_MODES)}, not {self.compare!r}")
        if self.instance_sets not in INSTANCE_SET_MODES:
            raise ValueError(f"instance_sets must be one of {', '.join(INSTANCE_SET_MODES)}")
        if self.implicit not in (None, "relation", "scenario"):
            raise ValueError("implicit must be None, 'relation' or 'scenario'")
        object.__setattr__(self, "unscored_slots", frozenset(s.upper() for s in self.unscored_slots))

    def is_scored(self, slot_name: str) -> bool:
        # OBJ_STATUS marks an instance optional; it is structure, never a fill to score.
        name = slot_name.upper()
        return name != OPTIONAL_STATUS_SLOT and name not in self.unscored_slots

    @property
    def text_aspects(self) -> tuple[str, ...]:
        return ("content", "extent") if self.compare == "both" else (self.compare,)


@dataclass(frozen=True)
class Point:
    """One point: the aspect compared, its category (COR INC MIS SPU NON) and why, when unscored."""

    aspect: str
    category: str
    reason: str = ""


@dataclass(frozen=True)
class FillPairing:
    """A reference single fill paired with a hypothesis single fill (either may be None)."""

    doc_id: str
    instance_type: str
    slot: str
    ref_instance: Pointer | None
    hyp_instance: Pointer | None
    ref_alternative: int | None
    ref_fill: Fill | None
    hyp_fill: Fill | None
    points: tuple[Point, ...]

    @cached_property
    def counts(self) -> Counts:  # asked for again and again by the mapping: counted once
        return Counts.of(point.category for point in self.points)


@dataclass(frozen=True)
class InstancePairing:
    """A reference instance mapped to a hypothesis instance (either may be None) and its object point.

    The object point is COR for a mapped pair unless the pair earned scored points and none of them
    correct (then INC); MIS for an unmapped reference instance (NON when it is optional); SPU for an
    unmapped hypothesis instance. ``counts`` are the slot points of the pair.
    """

    doc_id: str
    instance_type: str
    ref: Pointer | None
    hyp: Pointer | None
    counts: Counts
    point: Point
    fills: tuple[FillPairing, ...] = ()


@dataclass(frozen=True)
class Scoring:
    """Every instance pairing (each with its fill pairings), in a canonical order."""

    instances: tuple[InstancePairing, ...]

    @property
    def fills(self) -> tuple[FillPairing, ...]:
        return tuple(fill for instance in self.instances for fill in instance.fills)

    def counts(self) -> Counts:
        """The total of all fill points (what REC, PRE and F are computed from)."""
        return Counts.total(pairing.counts for pairing in self.fills)


def score_template_sets(
    reference: TemplateSet,
    hypothesis: TemplateSet,
    options: ScoringOptions | None = None,
    set_extents: Mapping[str, tuple[int, int]] | None = None,
    regions: tuple[Mapping[str, Hashable], Mapping[str, Hashable]] | None = None,
) -> Scoring:
    """Map ``hypothesis`` onto ``reference`` and return every pairing with its points.

    With ``options.instance_sets == "overlap"``, ``set_extents`` gives each reference document's
    extent ``[start, end)`` in the units of the fills' extents (the whole document, seed 000); a
    hypothesis instance set's extent runs from the smallest to the largest offset of its text fills.

    ``regions`` (reference, hypothesis: rendered instance pointer -> where in the text it comes
    from) restricts
    mapping to instances of the same region: named entity objects must come "from SGML elements in
    the same position of the original text file" (seed 001).

    Raises InputError for a hypothesis slot with more than one alternative, a pointer to an instance
    that does not exist, a scored text fill without extents when extents are compared, and a cycle of
    pointers between instance types.
    """
    return _Scorer(
        reference, hypothesis, options or ScoringOptions(), dict(set_extents or {}), regions=regions
    ).run()


def fold(text: str, case_sensitive: bool = False) -> str:
    """Whitespace runs become one space (seed 000, "Removal of Non-evaluated Text"); case is folded."""
    folded = " ".join(text.split())
    return folded if case_sensitive else folded.casefold()


# ``fold`` of the strings compared again and again (each fill meets several candidates).
_fold = lru_cache(maxsize=1 << 16)(fold)


def content_matches(
    ref: TextFill,
    hyp: TextFill,
    case_sensitive: bool = False,
    noisy: bool = False,
    alternatives: bool = False,
) -> bool:
    """Seed 000: hyp is a substring of the maximal string and contains a minimal string.

    Clean data compares character strings. Noisy data (``noisy``) compares token strings, and the
    reference's fillers and fragments are optional: they may be missing from the hypothesis ("Glen
    Buni- Bunting" matches "Glen Bunting"). With ``alternatives`` (contents normalized by a GLM)
    ``{a / b}`` groups are alternatives; the point is correct when any choice of alternatives on each
    side matches.
    """
    if not alternatives and not noisy:
        # One choice a side: the loop below, with each string folded once per distinct string.
        hyp_content = _fold(hyp.content or "", case_sensitive)
        return hyp_content in _fold(ref.content or "", case_sensitive) and any(
            _fold(minimal, case_sensitive) in hyp_content for minimal in ref.minimal_strings
        )
    for hyp_content in _choices(hyp.content or "", case_sensitive, alternatives):
        for ref_content in _choices(ref.content or "", case_sensitive, alternatives):
            minimals = [
                m for minimal in ref.minimal_strings for m in _choices(minimal, case_sensitive, alternatives)
            ]
            if noisy:
                if _noisy_matches(ref_content, minimals, hyp_content):
                    return True
            elif hyp_content in ref_content and any(m in hyp_content for m in minimals):
                return True
    return False


def _choices(text: str, case_sensitive: bool, alternatives: bool) -> list[str]:
    if not alternatives or "{" not in text:
        return [fold(text, case_sensitive)]
    from iescore.pipeline.speech import expand_alternatives

    try:
        return [fold(choice, case_sensitive) for choice in expand_alternatives(text)]
    except ValueError:  # unbalanced braces: not GLM alternatives, plain characters
        return [fold(text, case_sensitive)]


def _noisy_matches(ref_content: str, minimals: Sequence[str], hyp_content: str) -> bool:
    hyp_tokens = hyp_content.split()
    ref_tokens = ref_content.split()
    if not _window_skipping(ref_tokens, hyp_tokens):
        return False
    for minimal in minimals:
        tokens = minimal.split()
        if any(_prefix_skipping(tokens, hyp_tokens, start) for start in range(len(hyp_tokens) + 1)):
            return True
    return False


def _window_skipping(container: Sequence[str], needle: Sequence[str]) -> bool:
    """``needle`` equals a run of ``container`` from which some optional tokens were left out."""

    @cache
    def match(c: int, n: int) -> bool:
        if n == len(needle):
            return True
        if c == len(container):
            return False
        if container[c] == needle[n] and match(c + 1, n + 1):
            return True
        return speech_optional(container[c]) and n > 0 and match(c + 1, n)

    return any(match(start, 0) for start in range(len(container) + 1))


def _prefix_skipping(pattern: Sequence[str], text: Sequence[str], start: int) -> bool:
    """``pattern`` with some optional tokens left out equals ``text[start:start + k]`` for some k."""
    p, t = 0, start
    while p < len(pattern):
        if t < len(text) and pattern[p] == text[t]:
            p, t = p + 1, t + 1
        elif speech_optional(pattern[p]):
            p += 1
        else:
            return False
    return True


def extent_matches(ref: TextFill, hyp: TextFill) -> bool:
    """Seed 000: hyp extent enclosed in the maximal extent and overlapping some minimal extent.

    The seed states enclose and overlap with inclusive comparisons of the first and last positions;
    our extents are half-open, so ``[start, end)`` is compared as ``(start, end - 1)``. Extents that
    only touch (``[0, 5)`` and ``[5, 9)``) share no character and do not overlap.
    """
    ref_extents, hyp_extents = ref.extents, hyp.extents
    if not ref_extents or not hyp_extents:
        return False
    # The maximal extents as inclusive (first, last) positions (this runs for every candidate pair).
    c, d = hyp_extents[0].start, hyp_extents[0].end - 1
    a, b = ref_extents[0].start, ref_extents[0].end - 1
    if not (a <= c <= b and a <= d <= b):
        return False
    for minimal in ref_extents[1:] if len(ref_extents) > 1 else ref_extents:  # ``minimal_extents``
        e, f = minimal.start, minimal.end - 1
        if e <= c <= f or e <= d <= f or c <= e <= d or c <= f <= d:
            return True
    return False


def mapping_order(*template_sets: TemplateSet) -> list[str]:
    """Instance types in mapping order: pointed-to types before the types that point at them.

    Pointer points depend on how the pointed instances were mapped, so those must be mapped first
    (seed 001, TR and ST tasks). Independent types come in name order. A cycle is an InputError.
    """
    types: set[str] = set()
    edges: dict[str, set[str]] = {}
    where: dict[tuple[str, str], tuple[str, int]] = {}
    for template_set in template_sets:
        for instance in template_set.instances:
            source_type = instance.pointer.type
            types.add(source_type)
            for fill, _ in _fills_of(instance):
                if isinstance(fill, PointerFill):
                    types.add(fill.target.type)
                    edges.setdefault(source_type, set()).add(fill.target.type)
                    where.setdefault((source_type, fill.target.type), (template_set.source, fill.line))
    order, remaining = types_in_order(types, edges)
    if remaining:
        cycle = sorted(remaining)
        source, line = min(where[(a, b)] for a in cycle for b in edges.get(a, ()) if b in remaining)
        raise InputError(source, line, f"pointers between instance types form a cycle: {', '.join(cycle)}")
    return order


def types_in_order(types: Iterable[str], edges: Mapping[str, set[str]]) -> tuple[list[str], set[str]]:
    """The rule of :func:`mapping_order` on its graph (``edges``: type -> the types it points at):
    the types in order, and those a cycle leaves unordered (empty when there is none)."""
    order: list[str] = []
    done: set[str] = set()
    remaining = set(types)
    while remaining:
        ready = sorted(t for t in remaining if edges.get(t, set()) <= done)
        if not ready:
            break
        order.extend(ready)
        done.update(ready)
        remaining.difference_update(ready)
    return order, remaining


def weighted_f(pairings: Iterable[FillPairing], weights: Mapping[str, float]) -> float:
    """MUC's weighted F of an object pair: sum over slots of weight x the slot pair's F (seed 001).

    A slot's F is computed from the points of its fill pairings (undefined counts as 0); a slot
    without a configured weight weighs 1.
    """
    by_slot: dict[str, list[str]] = {}
    for pairing in pairings:
        by_slot.setdefault(pairing.slot, []).extend(p.category for p in pairing.points)
    return sum(
        weights.get(slot, 1.0) * (f_measure(Counts.of(categories)) or 0.0)
        for slot, categories in by_slot.items()
    )


def implicitly_optional(reference: TemplateSet, task: str | None) -> frozenset[Pointer]:
    """Reference instances that are optional: marked ``OBJ_STATUS: OPTIONAL``, or implicitly (seed 001).

    ``relation`` (template relation): an instance pointing to an optional instance is optional.
    ``scenario`` (scenario template): an instance is optional when every pointer to it lies in an
    optional slot, or in one alternative of a slot that has another alternative not pointing to it,
    or in an instance that is itself optional; an instance nothing points to is not made optional.
    Both rules are applied until nothing changes. The pointers are indexed once: each round is
    linear in them.
    """
    optional = {instance.pointer for instance in reference.instances if instance.optional}
    if task is None:
        return frozenset(optional)
    # Every (source, slot) pointing at a target: the source, and whether this pointer binds the
    # target (a non-optional slot whose every alternative points at it).
    pointers: dict[Pointer, list[tuple[Pointer, bool]]] = {}
    for instance in reference.instances:
        for slot in instance.slots:
            alternatives = [
                {fill.target for fill in alternative if isinstance(fill, PointerFill)}
                for alternative in slot.alternatives
            ]
            for target in set().union(*alternatives):
                binding = not slot.optional and all(target in found for found in alternatives)
                pointers.setdefault(target, []).append((instance.pointer, binding))
    changed = True
    while changed:
        changed = False
        for instance in reference.instances:
            if instance.pointer in optional:
                continue
            if task == "relation":
                becomes = any(
                    isinstance(fill, PointerFill) and fill.target in optional
                    for fill, _ in _fills_of(instance)
                )
            else:
                sources = pointers.get(instance.pointer, [])
                becomes = bool(sources) and not any(
                    binding and source not in optional for source, binding in sources
                )
            if becomes:
                optional.add(instance.pointer)
                changed = True
    return frozenset(optional)


# --- helpers -------------------------------------------------------------------------------------


def _set_extent(instances: Iterable[Instance]) -> tuple[int, int] | None:
    """``[smallest start, largest end)`` over the extents of the text fills of an instance set."""
    starts, ends = [], []
    for instance in instances:
        for fill, _ in _fills_of(instance):
            if isinstance(fill, TextFill):
                for extent in fill.extents:
                    starts.append(extent.start)
                    ends.append(extent.end)
    return (min(starts), max(ends)) if starts else None


def _fills_of(instance: Instance) -> Iterable[tuple[Fill, Slot]]:
    for slot in instance.slots:
        for alternative in slot.alternatives:
            for fill in alternative:
                yield fill, slot


def _natural(one_up: str) -> tuple[int, int, str]:
    return (0, int(one_up), "") if one_up.isdigit() else (1, 0, one_up)


def _instance_key(instance: Instance) -> tuple:
    return _natural(instance.pointer.one_up)


@dataclass
class _Context:
    doc_id: str
    instance_type: str
    ref_instance: Pointer | None
    hyp_instance: Pointer | None
    slot: str = ""


# The context of pairings built only to be counted (their other fields are never read).
_COUNTING = _Context("", "", None, None)
_CATEGORY_INDEX = {category: index for index, category in enumerate(CATEGORIES)}
_SPU = _CATEGORY_INDEX["SPU"]


@dataclass
class _Scorer:
    reference: TemplateSet
    hypothesis: TemplateSet
    options: ScoringOptions
    set_extents: dict[str, tuple[int, int]] = field(default_factory=dict)
    mapped: dict[Pointer, Pointer] = field(default_factory=dict)
    regions: tuple[Mapping[str, Hashable], Mapping[str, Hashable]] | None = None
    # Candidate instance pairs ranked by their counts alone (:meth:`_pair_counts`), pairings built for
    # the chosen ones; False builds every candidate's pairings (the plain algorithm, kept for tests).
    counts_first: bool = True

    def __post_init__(self) -> None:
        self.text_aspects = self.options.text_aspects  # asked for every text fill: computed once

    def run(self) -> Scoring:
        self.ref_index = self._check(self.reference, is_reference=True)
        self.hyp_index = self._check(self.hypothesis, is_reference=False)
        self.order = mapping_order(self.reference, self.hypothesis)
        self.optional = implicitly_optional(self.reference, self.options.implicit)
        ref_sets = self.reference.instance_sets()
        hyp_sets = self.hypothesis.instance_sets()
        if self.options.instance_sets == "document":
            # Seed 000, "Segmented Hypothesis Documents": instance sets are mapped by document id.
            pairs = [
                (d if d in ref_sets else None, d if d in hyp_sets else None)
                for d in sorted({*ref_sets, *hyp_sets})
            ]
        else:
            pairs = self._overlapping_sets(ref_sets, hyp_sets)
        instances: list[InstancePairing] = []
        for ref_doc, hyp_doc in pairs:
            mapped, pairings = self._map_set(
                ref_doc or hyp_doc,
                ref_sets.get(ref_doc, ()),
                hyp_sets.get(hyp_doc, ()),  # type: ignore[arg-type]
            )
            self.mapped.update(mapped)
            instances.extend(pairings)
        return Scoring(tuple(instances))

    def _map_set(
        self, doc_id: str, refs: Sequence[Instance], hyps: Sequence[Instance]
    ) -> tuple[dict[Pointer, Pointer], list[InstancePairing]]:
        """Map one reference instance set to one hypothesis instance set, type by type."""
        saved, self.mapped = self.mapped, {}
        instances: list[InstancePairing] = []
        try:
            for type_name in self.order:
                self._map_type(
                    doc_id,
                    type_name,
                    sorted((i for i in refs if i.pointer.type == type_name), key=_instance_key),
                    sorted((i for i in hyps if i.pointer.type == type_name), key=_instance_key),
                    instances,
                )
            return self.mapped, instances
        finally:
            self.mapped = saved

    def _overlapping_sets(
        self, ref_sets: Mapping[str, Sequence[Instance]], hyp_sets: Mapping[str, Sequence[Instance]]
    ) -> list[tuple[str | None, str | None]]:
        """Seed 000, "Unsegmented Hypothesis Texts": the greedy algorithm maps instance sets, but only
        sets whose extents overlap; a set's points are the sum of its instance mappings' points.

        A reference set's extent is its document's (``set_extents``); a hypothesis set's runs from
        the smallest to the largest offset of its text fills (a set without text fills overlaps
        nothing). Extents compare inclusively as everywhere else: ``[s, e)`` is ``(s, e - 1)``.
        """
        ref_docs, hyp_docs = sorted(ref_sets), sorted(hyp_sets)
        hyp_extents = {doc: _set_extent(hyp_sets[doc]) for doc in hyp_docs}

        def score(ref_doc: str, hyp_doc: str) -> tuple[Counts, None] | None:
            ref_extent, hyp_extent = self.set_extents.get(ref_doc), hyp_extents[hyp_doc]
            if ref_extent is None or hyp_extent is None:
                return None
            if ref_extent[0] > hyp_extent[1] - 1 or hyp_extent[0] > ref_extent[1] - 1:
                return None
            _, pairings = self._map_set(ref_doc, ref_sets[ref_doc], hyp_sets[hyp_doc])
            return Counts.total(p.counts for p in pairings), None

        chosen = greedy_map(ref_docs, hyp_docs, score, lambda d: d, lambda d: d)
        pairs: list[tuple[str | None, str | None]] = [(ref_docs[c.ref], hyp_docs[c.hyp]) for c in chosen]
        paired_refs = {c.ref for c in chosen}
        paired_hyps = {c.hyp for c in chosen}
        pairs += [(d, None) for i, d in enumerate(ref_docs) if i not in paired_refs]
        pairs += [(None, d) for j, d in enumerate(hyp_docs) if j not in paired_hyps]
        return pairs

    # -- validation --------------------------------------------------------------------------------

    def _check(self, template_set: TemplateSet, is_reference: bool) -> dict[Pointer, Instance]:
        index = {instance.pointer: instance for instance in template_set.instances}
        if not is_reference:
            check_single_alternatives(template_set)
        for instance in template_set.instances:
            for slot in instance.slots:
                for alternative in slot.alternatives:
                    for fill in alternative:
                        self._check_fill(template_set, index, slot, fill)
        return index

    def _check_fill(self, template_set: TemplateSet, index: dict, slot: Slot, fill: Fill) -> None:
        if isinstance(fill, PointerFill) and fill.target not in index:
            raise InputError(
                template_set.source,
                fill.line,
                f"pointer {fill.target.render()} names no instance of this template set",
            )
        if (
            isinstance(fill, TextFill)
            and "extent" in self.options.text_aspects
            and self.options.is_scored(slot.name)
            and fill.maximal_extent is None
        ):
            raise InputError(
                template_set.source,
                fill.line,
                f"extent part ##start#end# expected after the {slot.name} fill "
                "(extents are compared; use --compare content to score contents only)",
            )

    # -- instances ---------------------------------------------------------------------------------

    def _map_type(
        self,
        doc_id: str,
        type_name: str,
        refs: Sequence[Instance],
        hyps: Sequence[Instance],
        instances: list[InstancePairing],
    ) -> None:
        # Pointers only point at types mapped earlier (mapping_order), so a pair's points are final
        # when it is scored and the payload can be kept as is.
        threshold = (self.options.thresholds or {}).get(type_name)
        weights = (self.options.slot_weights or {}).get(type_name, {})

        regions = self.regions

        def score(
            ref: Instance, hyp: Instance
        ) -> tuple[Counts, tuple[Counts, list[FillPairing]] | None] | None:
            if regions is not None:
                region = regions[0].get(ref.pointer.render())
                if region is None or region != regions[1].get(hyp.pointer.render()):
                    return None  # named entity: not from the same place of the text
            if threshold is None and not self.options.noncommittal_alternatives and self.counts_first:
                # Only the counts rank a pair: tallied without building its pairings, which are
                # built for the chosen pairs alone (below).
                return self._pair_counts(ref, hyp), None
            counts, pairings = self._score_instances(doc_id, ref, hyp)
            if threshold is not None and weighted_f(pairings, weights) <= threshold:
                return None  # MUC: the pair does not exceed its class's mapping threshold
            return counts, (counts, pairings)

        if self.counts_first and len(refs) == 1 and len(hyps) == 1 and threshold is None and regions is None:
            chosen = [Chosen(0, 0, None)]  # one possible pair, never refused: the greedy choice is it
        else:
            chosen = greedy_map(refs, hyps, score, _instance_key, _instance_key)
        mapped_refs = {pair.ref for pair in chosen}
        mapped_hyps = {pair.hyp for pair in chosen}
        # Every chosen pair's pairings before any of them enters ``mapped`` (as when all were scored).
        payloads = [
            pair.payload or self._score_instances(doc_id, refs[pair.ref], hyps[pair.hyp]) for pair in chosen
        ]
        for pair, (counts, pairings) in zip(chosen, payloads, strict=True):
            ref, hyp = refs[pair.ref], hyps[pair.hyp]
            self.mapped[ref.pointer] = hyp.pointer
            wrong = counts.POS + counts.ACT > 0 and counts.COR + counts.PAR == 0
            point = Point("object", "INC" if wrong else "COR")
            instances.append(
                InstancePairing(doc_id, type_name, ref.pointer, hyp.pointer, counts, point, tuple(pairings))
            )
        for i, ref in enumerate(refs):
            if i in mapped_refs:
                continue
            counts, pairings = self._score_instances(doc_id, ref, None)
            if ref.pointer in self.optional:
                pairings = [_unscore(p, "optional-instance") for p in pairings]
                counts = Counts.total(p.counts for p in pairings)
                point = Point("object", "NON", "optional-instance")
            else:
                point = Point("object", "MIS")
            instances.append(
                InstancePairing(doc_id, type_name, ref.pointer, None, counts, point, tuple(pairings))
            )
        for j, hyp in enumerate(hyps):
            if j in mapped_hyps:
                continue
            counts, pairings = self._score_instances(doc_id, None, hyp)
            point = Point("object", "SPU")
            instances.append(
                InstancePairing(doc_id, type_name, None, hyp.pointer, counts, point, tuple(pairings))
            )

    def _score_instances(
        self, doc_id: str, ref: Instance | None, hyp: Instance | None
    ) -> tuple[Counts, list[FillPairing]]:
        """The points of mapping ``ref`` to ``hyp`` (either may be None): the sum over scored slots."""
        type_name = (ref or hyp).pointer.type  # type: ignore[union-attr]
        context = _Context(doc_id, type_name, ref.pointer if ref else None, hyp.pointer if hyp else None)
        names: list[str] = []
        for instance in (ref, hyp):
            for slot in instance.slots if instance else ():
                if self.options.is_scored(slot.name) and slot.name not in names:
                    names.append(slot.name)
        # A slot by its name (the first one of that name, as ``Instance.slot`` finds it).
        ref_slots = {slot.name: slot for slot in reversed(ref.slots)} if ref else {}
        hyp_slots = {slot.name: slot for slot in reversed(hyp.slots)} if hyp else {}
        pairings: list[FillPairing] = []
        for name in names:
            context.slot = name
            pairings.extend(self._score_slot(context, ref_slots.get(name), hyp_slots.get(name)))
        return Counts.total(p.counts for p in pairings), pairings

    # -- slots, alternatives, fills ----------------------------------------------------------------

    def _score_slot(self, context: _Context, ref: Slot | None, hyp: Slot | None) -> list[FillPairing]:
        """The hypothesis alternative goes to the reference alternative with the best F.

        Ties go to fewer wrong points (INC + MIS + SPU), then to the alternative listed first; tied
        alternatives give the same counts, so the score never depends on the listing order.
        """
        hyp_fills: Alternative = hyp.alternatives[0] if hyp and hyp.alternatives else ()
        if ref is None or not ref.alternatives:
            return self._map_fills(context, None, (), hyp_fills, slot_optional=False)
        if self.counts_first and len(ref.alternatives) == 1:
            # One alternative is the best one (and leaves no other to tally as non-committal).
            return self._map_fills(context, 0, ref.alternatives[0], hyp_fills, ref.optional)
        best: tuple | None = None
        for k, alternative in enumerate(ref.alternatives):
            pairings = self._map_fills(context, k, alternative, hyp_fills, ref.optional)
            counts = Counts.total(p.counts for p in pairings)
            rank = (-(f_measure(counts) or 0.0), counts.INC + counts.MIS + counts.SPU, k)
            if best is None or rank < best[0]:
                best = (rank, pairings)
        assert best is not None
        if not self.options.noncommittal_alternatives:
            return best[1]
        chosen = best[0][2]
        leftover = [
            _unscore(pairing, "other-alternative")
            for k, alternative in enumerate(ref.alternatives)
            if k != chosen
            for pairing in self._map_fills(context, k, alternative, (), False)
        ]
        return best[1] + leftover

    def _map_fills(
        self,
        context: _Context,
        alternative_index: int | None,
        ref_fills: Alternative,
        hyp_fills: Alternative,
        slot_optional: bool,
    ) -> list[FillPairing]:
        """Single fills are mapped greedily; a fill may pair only with a fill of its own kind."""

        def pairing(ref: Fill | None, hyp: Fill | None, points: tuple[Point, ...]) -> FillPairing:
            return FillPairing(
                context.doc_id,
                context.instance_type,
                context.slot,
                context.ref_instance,
                context.hyp_instance,
                alternative_index,
                ref,
                hyp,
                points,
            )

        if self.counts_first and len(ref_fills) <= 1 and len(hyp_fills) <= 1:
            # At most one candidate pair: the greedy choice is that pair when the two may pair.
            points = self._compare(ref_fills[0], hyp_fills[0]) if ref_fills and hyp_fills else None
            if points is not None:
                return [pairing(ref_fills[0], hyp_fills[0], points)]
            single = [pairing(ref, None, self._missing(ref, slot_optional)) for ref in ref_fills]
            aspects = self._aspects
            return single + [
                pairing(None, hyp, tuple(Point(a, "SPU") for a in aspects(hyp))) for hyp in hyp_fills
            ]

        def score(ref: Fill, hyp: Fill) -> tuple[Counts, tuple[Point, ...]] | None:
            points = self._compare(ref, hyp)
            return None if points is None else (Counts.of(p.category for p in points), points)

        chosen = greedy_map(ref_fills, hyp_fills, score, self._fill_key, self._fill_key)
        paired_refs = {pair.ref: pair for pair in chosen}
        paired_hyps = {pair.hyp for pair in chosen}
        result = []
        for i, ref in enumerate(ref_fills):
            if i in paired_refs:
                pair = paired_refs[i]
                result.append(pairing(ref, hyp_fills[pair.hyp], pair.payload))
            else:
                result.append(pairing(ref, None, self._missing(ref, slot_optional)))
        for j, hyp in enumerate(hyp_fills):
            if j not in paired_hyps:
                result.append(pairing(None, hyp, tuple(Point(a, "SPU") for a in self._aspects(hyp))))
        return result

    def _compare(self, ref: Fill, hyp: Fill) -> tuple[Point, ...] | None:
        judged = self._judge(ref, hyp)
        return None if judged is None else tuple(Point(aspect, category) for aspect, category in judged)

    def _judge(self, ref: Fill, hyp: Fill) -> tuple[tuple[str, str], ...] | None:
        """The (aspect, category) of each point of pairing two single fills; None when they may not pair."""
        if isinstance(ref, TextFill) and isinstance(hyp, TextFill):
            points = []
            for aspect in self.text_aspects:
                if aspect == "content":
                    correct = content_matches(
                        ref, hyp, self.options.case_sensitive, self.options.noisy, self.options.alternatives
                    )
                else:
                    correct = extent_matches(ref, hyp)
                points.append((aspect, "COR" if correct else "INC"))
            return tuple(points)
        if isinstance(ref, PointerFill) and isinstance(hyp, PointerFill):
            # Correct only when the pointed instances were mapped to each other (seed 000).
            correct = self.mapped.get(ref.target) == hyp.target
            return (("pointer", "COR" if correct else "INC"),)
        if isinstance(ref, SetFill) and isinstance(hyp, SetFill):
            case = self.options.case_sensitive
            correct = fold(ref.value, case) == fold(hyp.value, case)
            return (("set", "COR" if correct else "INC"),)
        return None

    # -- counts only (ranking candidate instance pairs) ---------------------------------------------

    def _pair_counts(self, ref: Instance, hyp: Instance) -> Counts:
        """``self._score_instances(doc_id, ref, hyp)[0]`` without building a pairing or a point.

        The same rules in the same order (slots by name, the best reference alternative, fills
        greedily), tallied as integers; a slot with more than one fill on a side goes through
        :meth:`_map_fills` itself.
        """
        tally = [0, 0, 0, 0, 0, 0]
        ref_slots = {slot.name: slot for slot in reversed(ref.slots)}
        hyp_slots = {slot.name: slot for slot in reversed(hyp.slots)}
        is_scored = self.options.is_scored
        for name in ref_slots.keys() | hyp_slots.keys():
            if is_scored(name):
                self._slot_counts(ref_slots.get(name), hyp_slots.get(name), tally)
        return Counts(*tally)

    def _slot_counts(self, ref: Slot | None, hyp: Slot | None, tally: list[int]) -> None:
        """Add the counts of :meth:`_score_slot` to ``tally`` (noncommittal alternatives aside: not on
        this path)."""
        hyp_fills: Alternative = hyp.alternatives[0] if hyp and hyp.alternatives else ()
        if ref is None or not ref.alternatives:
            self._fills_counts((), hyp_fills, False, tally)
            return
        if len(ref.alternatives) == 1:
            self._fills_counts(ref.alternatives[0], hyp_fills, ref.optional, tally)
            return
        best: tuple | None = None
        for k, alternative in enumerate(ref.alternatives):
            own = [0, 0, 0, 0, 0, 0]
            self._fills_counts(alternative, hyp_fills, ref.optional, own)
            counts = Counts(*own)
            rank = (-(f_measure(counts) or 0.0), counts.INC + counts.MIS + counts.SPU, k)
            if best is None or rank < best[0]:
                best = (rank, own)
        assert best is not None
        for index, value in enumerate(best[1]):
            tally[index] += value

    def _fills_counts(
        self, ref_fills: Alternative, hyp_fills: Alternative, slot_optional: bool, tally: list[int]
    ) -> None:
        """Add the counts of :meth:`_map_fills` to ``tally``: direct for at most one fill a side, else
        by that method."""
        if len(ref_fills) > 1 or len(hyp_fills) > 1:
            for pairing in self._map_fills(_COUNTING, None, ref_fills, hyp_fills, slot_optional):
                for point in pairing.points:
                    tally[_CATEGORY_INDEX[point.category]] += 1
            return
        judged = self._judge(ref_fills[0], hyp_fills[0]) if ref_fills and hyp_fills else None
        if judged is not None:
            for _, category in judged:
                tally[_CATEGORY_INDEX[category]] += 1
            return
        if ref_fills:
            for point in self._missing(ref_fills[0], slot_optional):
                tally[_CATEGORY_INDEX[point.category]] += 1
        if hyp_fills:
            tally[_SPU] += len(self._aspects(hyp_fills[0]))

    def _missing(self, ref: Fill, slot_optional: bool) -> tuple[Point, ...]:
        """Points of a reference fill mapped to nothing (seed 000, "Comparison of Pointer Fills")."""
        if slot_optional:
            return tuple(Point(a, "NON", "optional-slot") for a in self._aspects(ref))
        if isinstance(ref, PointerFill):
            target = self.ref_index.get(ref.target)
            if target is not None and target.pointer in self.optional and ref.target not in self.mapped:
                return (Point("pointer", "NON", "removed"),)
        return tuple(Point(a, "MIS") for a in self._aspects(ref))

    def _aspects(self, fill: Fill) -> tuple[str, ...]:
        if isinstance(fill, TextFill):
            return self.text_aspects
        return (fill.kind,)

    def _fill_key(self, fill: Fill) -> tuple:
        if isinstance(fill, PointerFill):
            return (fill.kind, fill.target.render(), ())
        if isinstance(fill, SetFill):
            return (fill.kind, fold(fill.value), ())
        return (fill.kind, fold(fill.content or ""), fill.extents)


def _unscore(pairing: FillPairing, reason: str) -> FillPairing:
    points = tuple(
        Point(p.aspect, "NON", reason) if p.category in ("MIS", "COR", "INC") else p for p in pairing.points
    )
    return FillPairing(
        pairing.doc_id,
        pairing.instance_type,
        pairing.slot,
        pairing.ref_instance,
        pairing.hyp_instance,
        pairing.ref_alternative,
        pairing.ref_fill,
        pairing.hyp_fill,
        points,
    )
