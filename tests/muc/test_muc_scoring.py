"""MUC object mapping (seed 001): class thresholds on the weighted F, implicitly optional objects."""

from __future__ import annotations

from iescore.pipeline.core.measures import Counts
from iescore.pipeline.templette.model import Pointer
from iescore.pipeline.templette.scoring import (
    ScoringOptions,
    implicitly_optional,
    score_template_sets,
    weighted_f,
)
from iescore.pipeline.templette.templates import parse_template_set

KEY = """<ORGANIZATION-D-1> :=
    ORG_NAME: "Evergreen"
    ORG_TYPE: COMPANY
"""
RESPONSE = """<ORGANIZATION-D-1> :=
    ORG_NAME: "Bluebird"
    ORG_TYPE: COMPANY
"""
WEIGHTS = {"ORGANIZATION": {"ORG_NAME": 4.0, "ORG_TYPE": 1.0}}


def score(key: str, response: str, **options: object):
    return score_template_sets(
        parse_template_set(key, "key"),
        parse_template_set(response, "response"),
        ScoringOptions(compare="content", **options),  # type: ignore[arg-type]
    )


def totals(scoring) -> Counts:
    return scoring.counts()


def test_weighted_f_is_the_weighted_sum_of_slot_f() -> None:
    # ORG_NAME: INC, F 0; ORG_TYPE: COR, F = 2*1/(1+1) = 1. Weighted: 4*0 + 1*1 = 1.
    scoring = score(KEY, RESPONSE)
    assert weighted_f(scoring.fills, WEIGHTS["ORGANIZATION"]) == 1.0


def test_pair_mapped_only_when_weighted_f_exceeds_the_threshold() -> None:
    # Threshold 0: weighted F 1 > 0, mapped: ORG_NAME INC, ORG_TYPE COR.
    mapped = score(KEY, RESPONSE, thresholds={"ORGANIZATION": 0.0}, slot_weights=WEIGHTS)
    assert (totals(mapped).COR, totals(mapped).INC, totals(mapped).MIS, totals(mapped).SPU) == (1, 1, 0, 0)
    # Threshold 1: 1 does not exceed 1, so nothing maps: the key's 2 fills MIS, the response's 2 SPU.
    unmapped = score(KEY, RESPONSE, thresholds={"ORGANIZATION": 1.0}, slot_weights=WEIGHTS)
    counts = totals(unmapped)
    assert (counts.COR, counts.INC, counts.MIS, counts.SPU) == (0, 0, 2, 2)
    assert sorted(p.point.category for p in unmapped.instances) == ["MIS", "SPU"]
    # ORG_TYPE weighing 1.5 makes the weighted F 1.5 > 1: mapped again.
    heavier = {"ORGANIZATION": {"ORG_NAME": 4.0, "ORG_TYPE": 1.5}}
    again = score(KEY, RESPONSE, thresholds={"ORGANIZATION": 1.0}, slot_weights=heavier)
    assert totals(again).COR == 1


def test_nothing_in_common_is_not_mapped_under_a_threshold() -> None:
    response = RESPONSE.replace("COMPANY", "GOVERNMENT")
    # Seed 000's greedy mapping pairs them anyway (F = 0): two INC.
    assert (totals(score(KEY, response)).INC, totals(score(KEY, response)).MIS) == (2, 0)
    # MUC: weighted F 0 does not exceed threshold 0: 2 MIS + 2 SPU.
    counts = totals(score(KEY, response, thresholds={"ORGANIZATION": 0.0}, slot_weights=WEIGHTS))
    assert (counts.INC, counts.MIS, counts.SPU) == (0, 2, 2)


RELATIONS = """<ENTITY-D-1> :=
    NAME: "Evergreen"
    OBJ_STATUS: OPTIONAL
<ENTITY-D-2> :=
    NAME: "Roth"
<EMPLOYEE_OF-D-1> :=
    PERSON: <ENTITY-D-2>
    EMPLOYER: <ENTITY-D-1>
"""


def test_relation_pointing_to_an_optional_element_is_optional() -> None:
    key = parse_template_set(RELATIONS, "key")
    assert implicitly_optional(key, None) == {Pointer("ENTITY", "D", "1")}
    assert implicitly_optional(key, "relation") == {
        Pointer("ENTITY", "D", "1"),
        Pointer("EMPLOYEE_OF", "D", "1"),
    }
    # An empty response: ENTITY-2's NAME is MIS (1); ENTITY-1 and the relation are optional, so their
    # fills are NON (1 + 2): POS 1.
    scoring = score(RELATIONS, "", implicit="relation")
    counts = totals(scoring)
    assert (counts.MIS, counts.NON, counts.POS) == (1, 3, 1)
    # Without the TR rule the relation's two pointers are missing: POS 3 (the pointer to the optional,
    # unmapped ENTITY-1 is NON as in seed 000, so MIS 2: NAME and PERSON).
    plain = totals(score(RELATIONS, ""))
    assert (plain.MIS, plain.NON) == (2, 2)


SCENARIO = """<TEMPLATE-D-1> :=
    CONTENT: <EVENT-D-1>
           / <EVENT-D-2>
    MAIN: <EVENT-D-3>
    ASIDE: ? <EVENT-D-4>
<EVENT-D-1> :=
    NAME: "a"
<EVENT-D-2> :=
    NAME: "b"
<EVENT-D-3> :=
    NAME: "c"
<EVENT-D-4> :=
    NAME: "d"
<EVENT-D-5> :=
    NAME: "e"
"""


def test_scenario_objects_referenced_only_optionally_are_optional() -> None:
    key = parse_template_set(SCENARIO, "key")
    optional = implicitly_optional(key, "scenario")
    # EVENT-1 and EVENT-2: each is in one alternative of CONTENT but not the other; EVENT-4 only from
    # the optional slot ASIDE. EVENT-3 is required (MAIN), EVENT-5 and the TEMPLATE nothing points to.
    assert optional == {Pointer("EVENT", "D", n) for n in ("1", "2", "4")}
    assert implicitly_optional(key, None) == frozenset()


NE_KEY = """<ENAMEX-D-1> :=
    TEXT: "Bill Clinton" ##10#22#
    TYPE: PERSON
<ENAMEX-D-2> :=
    TEXT: "Washington" ##40#50#
    TYPE: LOCATION
"""
NE_RESPONSE = """<ENAMEX-D-1> :=
    TEXT: "Clinton" ##15#22#
    TYPE: PERSON
<ENAMEX-D-2> :=
    TEXT: "Bill Clinton" ##300#312#
    TYPE: PERSON
"""


def test_named_entities_pair_only_within_one_region() -> None:
    # Regions: key 1 and response 1 in paragraph P1 (say [0, 100)); key 2 and response 2 in P2.
    key_regions = {"<ENAMEX-D-1>": (0, 100), "<ENAMEX-D-2>": (0, 100)}
    response_regions = {"<ENAMEX-D-1>": (0, 100), "<ENAMEX-D-2>": (200, 400)}
    scoring = score_template_sets(
        parse_template_set(NE_KEY, "key"),
        parse_template_set(NE_RESPONSE, "response"),
        ScoringOptions(compare="content"),
        regions=(key_regions, response_regions),
    )
    # By hand: response 2 ("Bill Clinton", PERSON) is in another region than key 1 (same text), so it
    # cannot map to it. Key 1 ~ response 1 (same region): TEXT inc, TYPE cor. Key 2 missed (MIS 2),
    # response 2 spurious (SPU 2).
    counts = totals(scoring)
    assert (counts.COR, counts.INC, counts.MIS, counts.SPU) == (1, 1, 2, 2)
    # Without regions, response 2 maps to key 1 by F (COR 2) and response 1 to key 2 (INC 2).
    free = totals(score(NE_KEY, NE_RESPONSE))
    assert (free.COR, free.INC, free.MIS, free.SPU) == (2, 2, 0, 0)


def test_leftover_key_alternatives_are_noncommittal_in_muc() -> None:
    key = '<ORGANIZATION-D-1> :=\n    ORG_ALIAS: "Evergreen Information" "Evergreen"\n'
    key += '             / "Evergreen"\n'
    response = '<ORGANIZATION-D-1> :=\n    ORG_ALIAS: "Evergreen"\n'
    # The second alternative (F 1) beats the first (cor + mis, F 2/3). Seed 001: the first's two fills
    # are then non-committal; seed 000 leaves them out.
    muc = score(key, response, noncommittal_alternatives=True)
    assert (totals(muc).COR, totals(muc).MIS, totals(muc).NON) == (1, 0, 2)
    assert {p.reason for f in muc.fills for p in f.points if p.category == "NON"} == {"other-alternative"}
    plain = score(key, response)
    assert (totals(plain).COR, totals(plain).MIS, totals(plain).NON) == (1, 0, 0)
