"""Named entity reports (seed 001): subtask and section scores, the seven-column report summary."""

from __future__ import annotations

from iescore.pipeline.muc.ne_report import ne_report_summary, ne_score_pages
from iescore.pipeline.templette.scoring import ScoringOptions, score_template_sets
from iescore.pipeline.templette.tables import scoring_to_tables
from iescore.pipeline.templette.templates import parse_template_set

KEY = """<ENAMEX-D-1> :=
    TEXT: "Consuela Washington" ##0#19#
    TYPE: PERSON
<ENAMEX-D-2> :=
    TEXT: "John Dingell" ##30#42#
    TYPE: PERSON
<TIMEX-D-1> :=
    TEXT: "01/19/93" ##50#58#
    TYPE: DATE
<ENAMEX-D-3> :=
    TEXT: "Washington" ##70#80#
    TYPE: PERSON
"""
RESPONSE = """<ENAMEX-D-1> :=
    TEXT: "Consuela Washington" ##0#19#
    TYPE: PERSON
<ENAMEX-D-2> :=
    TEXT: "Dingell" ##35#42#
    TYPE: ORGANIZATION
<TIMEX-D-1> :=
    TEXT: "01/19/93" ##50#58#
    TYPE: DATE
<ENAMEX-D-4> :=
    TEXT: "Exchange" ##90#98#
    TYPE: ORGANIZATION
"""
KEY_SECTIONS = {"<ENAMEX-D-1>": "TEXT", "<ENAMEX-D-2>": "TEXT", "<ENAMEX-D-3>": "TEXT", "<TIMEX-D-1>": "HL"}
# The response's ENAMEX-D-1 is in HL on purpose: a mapped object is counted in the key's section.
RESPONSE_SECTIONS = {
    "<ENAMEX-D-1>": "HL",
    "<ENAMEX-D-2>": "TEXT",
    "<ENAMEX-D-4>": "TEXT",
    "<TIMEX-D-1>": "HL",
}


def tables():
    scoring = score_template_sets(
        parse_template_set(KEY, "key"),
        parse_template_set(RESPONSE, "response"),
        ScoringOptions(compare="content"),
        # One region per object pair by position (the response's ENAMEX-4 has a region of its own).
        regions=(
            {"<ENAMEX-D-1>": 1, "<ENAMEX-D-2>": 2, "<TIMEX-D-1>": 3, "<ENAMEX-D-3>": 4},
            {"<ENAMEX-D-1>": 1, "<ENAMEX-D-2>": 2, "<TIMEX-D-1>": 3, "<ENAMEX-D-4>": 5},
        ),
    )
    return scoring_to_tables(scoring)


def test_ne_page_subtask_section_object_and_slot_scores() -> None:
    mapping, tallies = tables()
    pages = ne_score_pages(
        tallies, mapping, KEY_SECTIONS, RESPONSE_SECTIONS, "ne", "sig",
        subtypes={"ENAMEX": ["ORGANIZATION", "PERSON", "LOCATION"], "TIMEX": ["DATE", "TIME"]},
    ).split("\f\n")  # fmt: skip
    assert len(pages) == 2
    total = pages[-1]
    # By hand. Pairs by region: key 1 ~ response 1 (TYPE cor, TEXT cor); key 2 [30, 42) ~ response 2
    # [35, 42) (TYPE inc PERSON/ORGANIZATION, TEXT inc); TIMEX cor cor; key 3 missing (mis mis);
    # response 4 spurious (spu spu).
    # Subtasks (TYPE points by the key's type, the response's when spurious):
    #   enamex person: COR 1 (key 1), INC 1 (key 2), MIS 1 (key 3): POS 3 ACT 2, REC 33 PRE 50,
    #   UND 33, OVG 0, SUB 50, ERR 67.  organization: SPU 1: POS 0 ACT 1.  location: zeros.
    assert "  person         3     2|   1   0    1|   1    0    0|  33  50  33   0  50  67" in total
    # Labels are cut to 12 characters as on MUC pages (the seed prints "organizatio").
    assert "  organizati     0     1|   0   0    0|   0    1    0|   -   0   - 100   - 100" in total
    assert "  location       0     0|   0   0    0|   0    0    0|   -   -   -   -   -   -" in total
    assert "  date           1     1|   1   0    0|   0    0    0| 100 100   0   0   0   0" in total
    # Sections (every slot point by the key object's section; response 4's own section):
    #   TEXT: key 1 (2 COR), key 2 (2 INC), key 3 (2 MIS), response 4 (2 SPU): POS 6 ACT 6.
    #   HL: the TIMEX (2 COR).
    assert " TEXT            6     6|   2   0    2|   2    2    0|  33  33  33  33  50  75" in total
    assert " HL              2     2|   2   0    0|   0    0    0| 100 100   0   0   0   0" in total
    # Objects: enamex: 2 mapped (COR: key 2's pair earned no correct point, so INC), 1 MIS, 1 SPU.
    assert " enamex          3     3|   1   0    1|   1    1    0|  33  33  33  33  50  75" in total
    # ALL SLOTS: COR 4, INC 2, MIS 2, SPU 2: POS 8 ACT 8, REC 50 PRE 50 UND 25 OVG 25 SUB 33 ERR 60.
    assert "ALL SLOTS        8     8|   4   0    2|   2    2    0|  50  50  25  25  33  60" in total
    assert total.index("SUBTASK SCORES") < total.index("SECT SCORES") < total.index("OBJ SCORES")


def test_ne_report_summary_seven_columns() -> None:
    mapping, _ = tables()
    lines = ne_report_summary(mapping).splitlines()
    assert "Document D" in lines and "TAG TYPE TEXT KEY_TYPE RSP_TYPE KEY_TEXT RSP_TEXT" in lines
    assert 'ENAMEX cor cor PERSON PERSON "Consuela Washington" "Consuela Washington"' in lines
    assert 'ENAMEX inc inc PERSON ORGANIZATION "John Dingell" "Dingell"' in lines
    assert 'TIMEX cor cor DATE DATE "01/19/93" "01/19/93"' in lines
    # As in the seed: a missing or spurious object has one TYPE column and an empty text "".
    assert 'ENAMEX mis mis PERSON "Washington" ""' in lines
    assert 'ENAMEX spu spu ORGANIZATION "" "Exchange"' in lines
