"""Mapping and scoring on columns agrees with the template sets' scorer (``_Scorer``, on objects).

``pipeline.templette.bulk_mapping.score_fills`` is MapAndScore's one function: it applies the rules of
``_Scorer`` to two ``fills`` tables in bulk where it can (``_score_in_bulk``) and runs ``_Scorer``
elsewhere. On random template sets (the strategy of ``test_scoring_paths``: two instance types,
pointers, text, set and pointer fills, several fills in a slot, optional slots and instances,
unscored slots, fills of the wrong kind) the bulk path's ``mapping`` and ``tallies`` tables equal
those of the scorer on the same tables, row for row; it declines (``None``) where the scorer must
run; and ``score_fills`` gives the scorer's tables, or raises its error, under every option.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.templette.bulk_mapping import _applies, _score_in_bulk, score_fills
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
from iescore.pipeline.templette.scoring import ScoringOptions, score_template_sets
from iescore.pipeline.templette.tables import (
    scoring_to_tables,
    template_set_from_table,
    template_set_to_table,
)
from iescore.pipeline.templette.templates import read_template_set
from iescore.schemas import C
from test_scoring_paths import OPTIONS as ALL_OPTIONS
from test_scoring_paths import template_set_pairs

OPTIONS = [
    ScoringOptions("both"),
    ScoringOptions("content", case_sensitive=True),
    ScoringOptions("extent", unscored_slots=frozenset()),
    ScoringOptions("both", unscored_slots=frozenset({"WINNER", "EVENT"})),
]


def plain_tables(ref, hyp, options, regions=None):
    scoring = score_template_sets(
        template_set_from_table(ref), template_set_from_table(hyp), options, regions=regions
    )
    return scoring_to_tables(scoring)


def assert_same(got, expected) -> None:
    for table_got, table_expected in zip(got, expected, strict=True):
        assert table_got.schema == table_expected.schema
        if not table_got.equals(table_expected):
            for name in table_expected.column_names:
                assert table_got.column(name).to_pylist() == table_expected.column(name).to_pylist(), name
        assert table_got.equals(table_expected)


@settings(max_examples=400, deadline=None)
@given(template_set_pairs(alternatives=3), st.sampled_from(OPTIONS))
def test_columns_agree_with_the_scorer(sets: tuple[TemplateSet, TemplateSet], options) -> None:
    reference, hypothesis = sets
    if not reference.instances:
        return
    ref, hyp = template_set_to_table(reference), template_set_to_table(hypothesis)
    got = _score_in_bulk(ref, hyp, options)
    assert got is not None
    assert_same(got, plain_tables(ref, hyp, options))


# Rarer shapes: one-ups that are not numbers (and 9 before 10), pointers to another document's
# instances, slotless instances, fills written without quotes, contents holding quotes, text fills
# without extents (contents compared only), OBJ_STATUS written as a quoted string.
ONE_UPS = ["1", "2", "9", "10", "A", "b"]


@st.composite
def rare_instances(draw: st.DrawFn, side: str, doc: str, other: str) -> list[Instance]:
    instances = []
    chosen = draw(st.lists(st.sampled_from(ONE_UPS), unique=True, max_size=4))
    for one_up in chosen:
        slots = []
        if side == "ref" and draw(st.integers(0, 4)) == 0:
            slots.append(Slot("OBJ_STATUS", ((TextFill("optional"),),)))
        if draw(st.booleans()):
            quoted = draw(st.booleans())
            raw = draw(st.sampled_from(["cup", 'the "cup"', "Cup final", "final"]))
            extents = () if draw(st.integers(0, 3)) == 0 else (Extent(0, draw(st.integers(2, 9))),)
            slots.append(Slot("NAME", ((TextFill(raw, extents, quoted or not extents),),)))
        if draw(st.booleans()):
            value = draw(st.sampled_from(["WIN", "win", "LOSS"]))
            slots.append(Slot("RESULT", ((SetFill(value, draw(st.booleans())),),)))
        if chosen and draw(st.booleans()):
            targets = [Pointer("ITEM", draw(st.sampled_from([doc, other])), o) for o in ("1", "2")]
            fills = draw(st.lists(st.sampled_from(targets), min_size=1, max_size=2, unique=True))
            slots.append(Slot("ITEM", (tuple(PointerFill(t) for t in fills),)))
        instances.append(Instance(Pointer("EVENT", doc, one_up), tuple(slots)))
    for one_up in ("1", "2"):
        instances.append(Instance(Pointer("ITEM", doc, one_up), ()))
    return instances


@st.composite
def rare_pairs(draw: st.DrawFn) -> tuple[TemplateSet, TemplateSet]:
    ref = [*draw(rare_instances("ref", "D1", "D2")), *draw(rare_instances("ref", "D2", "D1"))]
    hyp = [*draw(rare_instances("hyp", "D1", "D2")), *draw(rare_instances("hyp", "D2", "D1"))]
    return TemplateSet(tuple(ref), "ref.tpl"), TemplateSet(tuple(hyp), "hyp.tpl")


@settings(max_examples=300, deadline=None)
@given(rare_pairs(), st.booleans())
def test_columns_agree_on_rarer_shapes(sets: tuple[TemplateSet, TemplateSet], case_sensitive: bool) -> None:
    options = ScoringOptions("content", case_sensitive=case_sensitive)
    ref, hyp = (template_set_to_table(s) for s in sets)
    got = _score_in_bulk(ref, hyp, options)
    assert got is not None
    assert_same(got, plain_tables(ref, hyp, options))


def _one(pointer: Pointer, *slots: Slot) -> Instance:
    return Instance(pointer, slots)


TEXT = Slot("NAME", ((TextFill("cup", (Extent(0, 3),)),),))


def test_the_scorer_is_left_what_the_columns_do_not_do() -> None:
    event, item = Pointer("EVENT", "D1", "1"), Pointer("ITEM", "D1", "1")
    ref = TemplateSet((_one(event, TEXT),), "ref.tpl")
    plain = template_set_to_table(ref)
    assert _score_in_bulk(plain, plain, ScoringOptions()) is not None
    # Reference alternatives are the columns' too; a hypothesis's are refused by the scorer.
    two = Slot("NAME", ((TextFill("cup", (Extent(0, 3),)),), (TextFill("final", (Extent(4, 9),)),)))
    alternatives = template_set_to_table(TemplateSet((_one(event, two),)))
    assert _score_in_bulk(alternatives, plain, ScoringOptions()) is not None
    assert _score_in_bulk(plain, alternatives, ScoringOptions()) is None
    # A pointer to no instance, a cycle of pointers between types: errors the scorer reports.
    dangling = TemplateSet((_one(event, Slot("ITEM", ((PointerFill(item),),))),))
    assert _score_in_bulk(template_set_to_table(dangling), plain, ScoringOptions()) is None
    cycle = TemplateSet(
        (
            _one(event, Slot("ITEM", ((PointerFill(item),),))),
            _one(item, Slot("EVENT", ((PointerFill(event),),))),
        )
    )
    assert _score_in_bulk(template_set_to_table(cycle), plain, ScoringOptions()) is None
    # A compared text fill without extents.
    bare = TemplateSet((_one(event, Slot("NAME", ((TextFill("cup"),),))),))
    assert _score_in_bulk(template_set_to_table(bare), plain, ScoringOptions("both")) is None
    assert _score_in_bulk(template_set_to_table(bare), plain, ScoringOptions("content")) is not None
    # MUC's options and regions.
    assert not _applies(ScoringOptions(thresholds={"EVENT": 0.5}))
    assert not _applies(ScoringOptions(implicit="scenario"))
    assert not _applies(ScoringOptions(noncommittal_alternatives=True))
    assert not _applies(ScoringOptions(noisy=True))
    assert not _applies(ScoringOptions(instance_sets="overlap"))
    # Whatever the path, the one function gives the scorer's tables or raises its error.
    regions = ({"<EVENT-D1-1>": (0, 9)}, {"<EVENT-D1-1>": (10, 19)})  # apart: never mapped
    got = score_fills(plain, plain, ScoringOptions(), regions=regions)
    assert_same(got, plain_tables(plain, plain, ScoringOptions(), regions))
    categories = got[1].column(C.category).to_pylist()
    assert "COR" not in categories and categories.count("MIS") == categories.count("SPU") > 0
    with pytest.raises(InputError, match="ITEM-D1-1"):
        score_fills(template_set_to_table(dangling), plain, ScoringOptions())
    with pytest.raises(InputError, match="more than one alternative|alternative"):
        score_fills(plain, alternatives, ScoringOptions())


@settings(max_examples=150, deadline=None)
@given(template_set_pairs(), st.sampled_from(ALL_OPTIONS))
def test_score_fills_gives_the_scorers_tables(sets: tuple[TemplateSet, TemplateSet], options) -> None:
    # Every option, the MUC scorer's too: the one function's tables are the scorer's, whichever path.
    reference, hypothesis = sets
    if not reference.instances:
        return
    ref, hyp = template_set_to_table(reference), template_set_to_table(hypothesis)
    assert_same(score_fills(ref, hyp, options), plain_tables(ref, hyp, options))


SAMPLE = Path(__file__).resolve().parents[2] / "data" / "hub4-sports"


@pytest.mark.parametrize("hypothesis", ["hyp.tpl", "eager.tpl", "forgetful.tpl", "sloppy.tpl"])
@pytest.mark.parametrize("compare", ["both", "content", "extent"])
def test_the_seeds_sample_is_scored_on_columns(hypothesis: str, compare: str) -> None:
    # The seed's reference offers fill-alternatives ("/ the tournament"): still the columns' case.
    ref = template_set_to_table(read_template_set(SAMPLE / "ref.tpl"))
    hyp = template_set_to_table(read_template_set(SAMPLE / hypothesis))
    assert pc.max(ref.column(C.alternative)).as_py() > 0
    options = ScoringOptions(compare)
    got = _score_in_bulk(ref, hyp, options)
    assert got is not None
    assert_same(got, plain_tables(ref, hyp, options))
