"""The scorer's counts-first ranking agrees with scoring every candidate pair (issue 16, point 5).

``_Scorer`` ranks candidate instance pairs by counts tallied without building pairings, and builds
pairings for the chosen pairs only (``counts_first``); the plain algorithm builds every candidate's
pairings. On random template sets (two instance types, one pointing at the other; set, text and
pointer fills; several fills in a slot; reference alternatives; optional slots and instances;
unscored slots) both give the same scoring, pairing for pairing, under every option the path
serves and under the MUC options it leaves to the plain algorithm.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from iescore.pipeline.templette.model import (
    Extent,
    Instance,
    Pointer,
    PointerFill,
    SetFill,
    Slot,
    TemplateSet,
    TextFill,
)
from iescore.pipeline.templette.scoring import ScoringOptions, _Scorer
from iescore.pipeline.templette.tables import scoring_to_tables

WORDS = ["cup", "Egypt", "final", "the cup", "cup final", "GHANA"]
SPANS = [(0, 3), (0, 9), (4, 9), (10, 15), (2, 6), (12, 20)]


@st.composite
def fills(draw: st.DrawFn, kind: str, targets: list[Pointer]) -> object:
    if kind == "pointer":
        return PointerFill(draw(st.sampled_from(targets)))
    if kind == "set":
        return SetFill(draw(st.sampled_from(["WIN", "LOSS", "win"])))
    start, end = draw(st.sampled_from(SPANS))
    word = draw(st.sampled_from(WORDS))
    if draw(st.booleans()) and " " in word:  # a minimal string, with its own extent inside
        first = word.split(" ")[0]
        return TextFill(f"[{first}] {word[len(first) + 1 :]}", (Extent(start, end), Extent(start, start + 1)))
    return TextFill(word, (Extent(start, end),))


@st.composite
def instance_sets(draw: st.DrawFn, side: str, doc: str, alternatives: int = 2) -> list[Instance]:
    events = [Pointer("EVENT", doc, str(n + 1)) for n in range(draw(st.integers(0, 3)))]
    instances = []
    slot_kinds = {"WINNER": "text", "PLACE": "text", "RESULT": "set", "COMMENT": "text"}
    for pointer in events:
        slots = []
        if side == "ref" and draw(st.integers(0, 5)) == 0:
            slots.append(Slot("OBJ_STATUS", ((SetFill("OPTIONAL"),),)))
        for name in draw(st.lists(st.sampled_from(sorted(slot_kinds)), unique=True, max_size=4)):
            count = 1 if side == "hyp" else draw(st.integers(1, alternatives))
            # Now and then a hypothesis fill of another kind than the reference's: they never pair.
            kind = "set" if side == "hyp" and draw(st.integers(0, 5)) == 0 else slot_kinds[name]
            written = tuple(
                tuple(draw(st.lists(fills(kind, []), min_size=1, max_size=2))) for _ in range(count)
            )
            slots.append(Slot(name, written, optional=side == "ref" and draw(st.integers(0, 4)) == 0))
        instances.append(Instance(pointer, tuple(slots)))
    for n in range(draw(st.integers(0, 2))):
        slots = [Slot("DOC_NR", ((TextFill(doc, (Extent(0, 2),)),),))]
        if events:
            count = 1 if side == "hyp" else draw(st.integers(1, alternatives))
            pointers = tuple(
                tuple(draw(st.lists(fills("pointer", events), min_size=1, max_size=3, unique=True)))
                for _ in range(count)
            )
            slots.append(Slot("EVENT", pointers))
        instances.append(Instance(Pointer("TEMPLATE", doc, str(n + 1)), tuple(slots)))
    return instances


@st.composite
def template_set_pairs(draw: st.DrawFn, alternatives: int = 2) -> tuple[TemplateSet, TemplateSet]:
    """A reference and a hypothesis template set of one or two documents; reference slots have up to
    ``alternatives`` fill-alternatives."""
    docs = ["D1", "D2"][: draw(st.integers(1, 2))]
    ref = [i for doc in docs for i in draw(instance_sets("ref", doc, alternatives))]
    hyp = [i for doc in docs for i in draw(instance_sets("hyp", doc, alternatives))]
    return TemplateSet(tuple(ref), "ref.tpl"), TemplateSet(tuple(hyp), "hyp.tpl")


OPTIONS = [
    ScoringOptions("both"),
    ScoringOptions("content", case_sensitive=True),
    ScoringOptions("extent", unscored_slots=frozenset()),
    ScoringOptions("both", implicit="scenario"),
    ScoringOptions("both", noncommittal_alternatives=True),
    ScoringOptions("both", thresholds={"EVENT": 0.5}, slot_weights={"EVENT": {"WINNER": 2.0}}),
]


@settings(max_examples=300, deadline=None)
@given(template_set_pairs(), st.sampled_from(OPTIONS))
def test_counts_first_agrees_with_scoring_every_pair(
    sets: tuple[TemplateSet, TemplateSet], options: ScoringOptions
) -> None:
    reference, hypothesis = sets
    if not reference.instances:
        return
    fast = _Scorer(reference, hypothesis, options).run()
    plain = _Scorer(reference, hypothesis, options, counts_first=False).run()
    assert fast == plain
    for got, expected in zip(scoring_to_tables(fast), scoring_to_tables(plain), strict=True):
        assert got.equals(expected)


@settings(max_examples=300, deadline=None)
@given(template_set_pairs(), st.sampled_from(OPTIONS[:4]))
def test_pair_counts_are_the_counts_of_scoring_the_pair(
    sets: tuple[TemplateSet, TemplateSet], options: ScoringOptions
) -> None:
    # Every candidate pair (same document, same type), with the instance mapping of a whole run in
    # place for pointer fills: the tallied counts are those of the pair's pairings.
    reference, hypothesis = sets
    if not reference.instances:
        return
    scorer = _Scorer(reference, hypothesis, options)
    scorer.run()
    for ref in reference.instances:
        for hyp in hypothesis.instances:
            if ref.pointer.doc_id == hyp.pointer.doc_id and ref.pointer.type == hyp.pointer.type:
                expected, _ = scorer._score_instances(ref.pointer.doc_id, ref, hyp)
                assert scorer._pair_counts(ref, hyp) == expected
