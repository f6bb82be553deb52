"""The scoring rules of seed 000 ("Scoring Algorithm"), each with counts worked out by hand."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.measures import Counts
from iescore.pipeline.templette.model import TemplateSet
from iescore.pipeline.templette.scoring import ScoringOptions, score_template_sets
from iescore.pipeline.templette.templates import parse_template_set, read_template_set

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "samples" / "hub4-sports"


def score(ref: str, hyp: str, compare: str = "both", **options) -> Counts:
    scoring = score_template_sets(
        parse_template_set(ref, "ref.tpl"),
        parse_template_set(hyp, "hyp.tpl"),
        ScoringOptions(compare=compare, **options),
    )
    return scoring.counts()


@pytest.mark.parametrize(
    ("compare", "points"),
    # Hand count of ref.tpl's scored fills: 3 DOC_NR text fills, 1 EVENT pointer, and 6 text fills of
    # the SPORTS_EVENT (S_EVENT WINNER LOSER SCORE LOCATION DATE); COMMENT is unscored. A text fill
    # is one point per compared aspect: content or extent 3 + 1 + 6 = 10; both 6 + 1 + 12 = 19.
    [("content", 10), ("extent", 10), ("both", 19)],
)
def test_seed_sample_scores_perfectly(compare: str, points: int) -> None:
    scoring = score_template_sets(
        read_template_set(SAMPLE / "ref.tpl"), read_template_set(SAMPLE / "hyp.tpl"), ScoringOptions(compare)
    )
    counts = scoring.counts()
    assert counts == Counts(COR=points)
    assert (points, points) == (counts.POS, counts.ACT)


def test_single_fills_may_not_be_split() -> None:
    # Seed 000, "Single Fills May Not Be Split": the hypothesis fill maps to one alternative only.
    # Either alternative gives one correct and one incorrect point (content of the first, extent of
    # the second), never two correct.
    ref = "<T-D-1> :=\n    DATE: thirsty ##10#20#\n        / thursday ##99#109#\n"
    hyp = "<T-D-1> :=\n    DATE: thirsty ##99#109#\n"
    assert score(ref, hyp, "both") == Counts(COR=1, INC=1)
    # Alone, each aspect finds its own alternative: content -> "thirsty", extent -> 99#109.
    assert score(ref, hyp, "content") == Counts(COR=1)
    assert score(ref, hyp, "extent") == Counts(COR=1)


@pytest.mark.parametrize(
    ("hyp_content", "expected"),
    [
        ("champion south Africa", "COR"),  # substring of the maximal string, contains the minimal one
        ("south Africa", "COR"),  # the minimal string itself
        ("defending champion", "INC"),  # no minimal string inside
        ("south Africa 2-0", "INC"),  # not a substring of the maximal string
        ("DEFENDING champion   SOUTH africa", "COR"),  # case and blank runs are folded
    ],
)
def test_content_comparison(hyp_content: str, expected: str) -> None:
    ref = '<T-D-1> :=\n    LOSER: "defending champion [south Africa]" ##295#326#314#326#\n'
    hyp = f'<T-D-1> :=\n    LOSER: "{hyp_content}" ##0#1#\n'
    assert score(ref, hyp, "content") == Counts(**{expected: 1})


def test_content_comparison_case_sensitive_option() -> None:
    ref = '<T-D-1> :=\n    LOSER: "south Africa" ##1#2#\n'
    hyp = '<T-D-1> :=\n    LOSER: "South Africa" ##1#2#\n'
    assert score(ref, hyp, "content") == Counts(COR=1)
    assert score(ref, hyp, "content", case_sensitive=True) == Counts(INC=1)


@pytest.mark.parametrize(
    ("extent", "expected"),
    [
        ("305#326", "COR"),  # inside the maximal extent 295#326, overlaps the minimal 314#326
        ("314#326", "COR"),  # exactly the minimal extent
        ("295#326", "COR"),  # exactly the maximal extent
        ("320#322", "COR"),  # inside the minimal extent
        ("295#314", "INC"),  # ends where the minimal extent starts: half-open, no shared character
        ("295#315", "COR"),  # shares character 314 with the minimal extent
        ("300#330", "INC"),  # runs past the maximal extent
        ("290#300", "INC"),  # starts before the maximal extent
    ],
)
def test_extent_comparison(extent: str, expected: str) -> None:
    ref = '<T-D-1> :=\n    LOSER: "defending champion [south Africa]" ##295#326#314#326#\n'
    hyp = f'<T-D-1> :=\n    LOSER: "whatever" ##{extent}#\n'
    assert score(ref, hyp, "extent") == Counts(**{expected: 1})


def test_fill_without_minimal_string_is_its_own_minimal() -> None:
    # No brackets: the maximal string is the minimal one, so the hypothesis must equal it.
    ref = '<T-D-1> :=\n    WINNER: "Egypt national team" ##10#29#\n'
    assert score(ref, '<T-D-1> :=\n    WINNER: "Egypt" ##10#15#\n', "content") == Counts(INC=1)
    # ... and in extent, any enclosed extent overlaps the whole (which is the minimal extent).
    assert score(ref, '<T-D-1> :=\n    WINNER: "Egypt" ##10#15#\n', "extent") == Counts(COR=1)


POINTERS_REF = """\
<PERSON-D-1> :=
    NAME: "Ann"
<PERSON-D-2> :=
    NAME: "Bob"
<EVENT-D-1> :=
    WHO: <PERSON-D-1>
"""


def test_pointer_correct_when_pointed_instances_are_mapped() -> None:
    # Hyp PERSON-D-2 is "Ann" and maps to ref PERSON-D-1 (F 1), hyp PERSON-D-1 "Bob" to ref PERSON-D-2.
    # The ref WHO points at PERSON-D-1, whose mapped partner is hyp PERSON-D-2: correct.
    # Points: 2 NAME COR + 1 WHO COR = 3 COR.
    hyp = (
        '<PERSON-D-1> :=\n    NAME: "Bob"\n<PERSON-D-2> :=\n    NAME: "Ann"\n'
        "<EVENT-D-1> :=\n    WHO: <PERSON-D-2>\n"
    )
    assert score(POINTERS_REF, hyp, "content") == Counts(COR=3)
    # Same one-up, wrong instance: the pointer is incorrect even though the ids look alike.
    wrong = hyp.replace("WHO: <PERSON-D-2>", "WHO: <PERSON-D-1>")
    assert score(POINTERS_REF, wrong, "content") == Counts(COR=2, INC=1)


def test_pointer_in_optional_slot_is_unscored_when_unmapped() -> None:
    # The '?' marks WHO optional: the unpaired reference pointer is unscored, not missing.
    ref = POINTERS_REF.replace("WHO: <PERSON-D-1>", "WHO: ? <PERSON-D-1>")
    hyp = '<PERSON-D-1> :=\n    NAME: "Ann"\n<PERSON-D-2> :=\n    NAME: "Bob"\n<EVENT-D-1> :=\n'
    assert score(ref, hyp, "content") == Counts(COR=2, NON=1)
    assert score(POINTERS_REF, hyp, "content") == Counts(COR=2, MIS=1)


REMOVED_REF = """\
<TEMPLATE-D-1> :=
    EVENT: <SPORTS_EVENT-D-1>
           <SPORTS_EVENT-D-2>
<SPORTS_EVENT-D-1> :=
    WINNER: "Egypt" ##10#15#
<SPORTS_EVENT-D-2> :=
    WINNER: "Ghana" ##40#45#
    OBJ_STATUS: OPTIONAL
"""


def test_pointer_to_optional_unmapped_instance_is_removed() -> None:
    # Hyp finds only the first event. Ref SPORTS_EVENT-D-2 is optional and unmapped: its WINNER is
    # unscored (no missing points for an optional instance), and the EVENT pointer to it is unscored
    # ("Removed"). Points, compare both: WINNER 2 COR, EVENT pointer 1 COR; NON: 2 (WINNER) + 1 (pointer).
    hyp = (
        "<TEMPLATE-D-1> :=\n    EVENT: <SPORTS_EVENT-D-1>\n"
        '<SPORTS_EVENT-D-1> :=\n    WINNER: "Egypt" ##10#15#\n'
    )
    assert score(REMOVED_REF, hyp) == Counts(COR=3, NON=3)
    # Without OBJ_STATUS the same hypothesis misses 2 WINNER points and 1 pointer point.
    required = REMOVED_REF.replace("    OBJ_STATUS: OPTIONAL\n", "")
    assert score(required, hyp) == Counts(COR=3, MIS=3)


def test_optional_instance_that_is_found_is_scored() -> None:
    # A hypothesis that also finds the optional event gets its points: 3 more COR (2 WINNER + pointer).
    hyp = (
        "<TEMPLATE-D-1> :=\n    EVENT: <SPORTS_EVENT-D-1>\n           <SPORTS_EVENT-D-2>\n"
        '<SPORTS_EVENT-D-1> :=\n    WINNER: "Egypt" ##10#15#\n'
        '<SPORTS_EVENT-D-2> :=\n    WINNER: "Ghana" ##40#45#\n'
    )
    assert score(REMOVED_REF, hyp) == Counts(COR=6)


def test_greedy_instance_mapping_prefers_best_f() -> None:
    # Ref A-D-1 {X: a, Y: b}, A-D-2 {X: a, Y: c}; hyp A-D-5 {X: a, Y: c}. Pair F: with A-D-1
    # 2*1/(2+2) = 0.5, with A-D-2 1.0, so hyp maps to A-D-2: 2 COR; A-D-1 unmapped: 2 MIS.
    ref = '<A-D-1> :=\n    X: "a"\n    Y: "b"\n<A-D-2> :=\n    X: "a"\n    Y: "c"\n'
    hyp = '<A-D-5> :=\n    X: "a"\n    Y: "c"\n'
    assert score(ref, hyp, "content") == Counts(COR=2, MIS=2)


def test_ties_break_by_reference_one_up_not_file_order() -> None:
    # Both ref instances equal the hyp one (F 1): the tie goes to the lower one-up, A-D-1, whatever
    # order the file lists them in.
    ref = '<A-D-2> :=\n    X: "a"\n<A-D-1> :=\n    X: "a"\n'
    hyp = '<A-D-9> :=\n    X: "a"\n'
    scoring = score_template_sets(
        parse_template_set(ref, "ref.tpl"), parse_template_set(hyp, "hyp.tpl"), ScoringOptions("content")
    )
    mapped = [(p.ref.one_up if p.ref else None, p.hyp.one_up if p.hyp else None) for p in scoring.instances]
    assert ("1", "9") in mapped and ("2", None) in mapped


def test_unmatched_instance_sets_are_missing_and_spurious() -> None:
    # Doc D only in the ref: its 1 fill is missing (compare both: 2 points). Doc E only in the hyp:
    # 2 spurious points.
    ref = '<T-D-1> :=\n    NAME: "x" ##1#2#\n'
    hyp = '<T-E-1> :=\n    NAME: "x" ##1#2#\n'
    assert score(ref, hyp) == Counts(MIS=2, SPU=2)


def test_fills_of_different_kinds_do_not_pair() -> None:
    # A set fill and a text fill in the same slot: 1 missing set point, 2 spurious text points.
    assert score("<T-D-1> :=\n    TYPE: COMPANY\n", '<T-D-1> :=\n    TYPE: "COMPANY" ##1#3#\n') == Counts(
        MIS=1, SPU=2
    )


def test_set_fills_compare_values() -> None:
    assert score("<T-D-1> :=\n    TYPE: COMPANY\n", "<T-D-1> :=\n    TYPE: company\n") == Counts(COR=1)
    assert score("<T-D-1> :=\n    TYPE: COMPANY\n", "<T-D-1> :=\n    TYPE: PERSON\n") == Counts(INC=1)


def test_several_single_fills_map_greedily() -> None:
    # Ref alternative {"Egypt", "Ghana"}; hyp {"Ghana", "Mali"}: Ghana pairs with Ghana (F 1), then
    # Egypt with Mali (F 0, incorrect). Content: 1 COR, 1 INC.
    ref = '<T-D-1> :=\n    TEAMS: "Egypt"\n           "Ghana"\n'
    hyp = '<T-D-1> :=\n    TEAMS: "Ghana"\n           "Mali"\n'
    assert score(ref, hyp, "content") == Counts(COR=1, INC=1)


def test_best_alternative_and_missing_slot() -> None:
    # Hyp "the tournament" matches the third S_EVENT alternative; LOCATION is absent from the hyp,
    # so its alternative with the fewest points ("south Africa", 1 point) is missing.
    ref = (
        '<E-D-1> :=\n    S_EVENT: "African cup" ##1#12#\n           / "the African cup" ##20#35#\n'
        '           / "the tournament" ##40#54#\n    LOCATION: "south Africa" ##60#72#\n'
    )
    hyp = '<E-D-1> :=\n    S_EVENT: "the tournament" ##40#54#\n'
    assert score(ref, hyp, "content") == Counts(COR=1, MIS=1)


def test_unscored_slots_give_no_points() -> None:
    ref = '<T-D-1> :=\n    NAME: "x" ##1#2#\n    COMMENT: "note"\n    NOTE: "n"\n'
    hyp = '<T-D-1> :=\n    NAME: "x" ##1#2#\n    COMMENT: "other"\n'
    assert score(ref, hyp, "content") == Counts(COR=1, MIS=1)
    assert score(ref, hyp, "content", unscored_slots=frozenset({"COMMENT", "NOTE"})) == Counts(COR=1)


def test_hypothesis_slot_with_alternatives_is_bad_input() -> None:
    with pytest.raises(InputError, match=r"hyp.tpl:2: a hypothesis slot holds one fill-alternative"):
        score('<T-D-1> :=\n    NAME: "x"\n', '<T-D-1> :=\n    NAME: "x"\n        / "y"\n', "content")


def test_extents_required_when_compared() -> None:
    with pytest.raises(InputError, match=r"ref.tpl:2: extent part ##start#end# expected"):
        score('<T-D-1> :=\n    NAME: "x"\n', '<T-D-1> :=\n    NAME: "x" ##1#2#\n', "extent")


def test_pointer_cycle_is_bad_input() -> None:
    ref = "<A-D-1> :=\n    P: <B-D-1>\n<B-D-1> :=\n    Q: <A-D-1>\n"
    with pytest.raises(InputError, match="cycle: A, B"):
        score(ref, ref, "content")


def _shuffled(template_set: TemplateSet, seed: int) -> TemplateSet:
    rng = random.Random(seed)
    instances = list(template_set.instances)
    rng.shuffle(instances)
    return TemplateSet(tuple(instances), template_set.source)


def test_same_inputs_in_any_order_give_the_same_score() -> None:
    # A set built to have ties at every level: equal instances, equal fills.
    ref = parse_template_set(
        '<A-D-1> :=\n    X: "a"\n    Y: "b"\n<A-D-2> :=\n    X: "a"\n    Y: "c"\n<A-D-3> :=\n    X: "a"\n'
        "<B-D-1> :=\n    P: <A-D-1>\n       <A-D-3>\n",
        "ref.tpl",
    )
    hyp = parse_template_set(
        '<A-D-7> :=\n    X: "a"\n<A-D-8> :=\n    X: "a"\n    Y: "b"\n'
        "<B-D-4> :=\n    P: <A-D-7>\n       <A-D-8>\n",
        "hyp.tpl",
    )
    options = ScoringOptions("content")
    # By hand: A-D-1 = A-D-8 and A-D-3 = A-D-7 (F 1 each) are taken first; A-D-2 is left (X, Y
    # missing). B's pointers pair A-D-1 with A-D-8 and A-D-3 with A-D-7, both mapped: correct.
    # COR = 2 + 1 + 2 = 5, MIS = 2.
    expected = Counts(COR=5, MIS=2)
    assert score_template_sets(ref, hyp, options).counts() == expected
    for seed in range(20):
        assert (
            score_template_sets(_shuffled(ref, seed), _shuffled(hyp, seed + 100), options).counts()
            == expected
        )
