"""MUC reports (seed 001): score pages, text filtering, IE report summary, map history."""

from __future__ import annotations

from iescore.pipeline.core.measures import Counts
from iescore.pipeline.muc.report import (
    ie_report_summary,
    map_history,
    relevant_documents,
    score_pages,
    tcl_quote,
    text_filtering,
)
from iescore.pipeline.templette.scoring import ScoringOptions, score_template_sets
from iescore.pipeline.templette.tables import scoring_to_tables
from iescore.pipeline.templette.templates import parse_template_set

KEY = """<TEMPLATE-A-1> :=
    DOC_NR: "A"
    CONTENT: <ORGANIZATION-A-1>
<ORGANIZATION-A-1> :=
    ORG_NAME: "Evergreen"
    ORG_TYPE: COMPANY
<TEMPLATE-B-1> :=
    DOC_NR: "B"
"""
RESPONSE = """<TEMPLATE-A-1> :=
    DOC_NR: "A"
    CONTENT: <ORGANIZATION-A-7>
<ORGANIZATION-A-7> :=
    ORG_NAME: "Bluebird Inc"
    ORG_TYPE: COMPANY
<TEMPLATE-B-1> :=
    DOC_NR: "B"
    CONTENT: <ORGANIZATION-B-1>
<ORGANIZATION-B-1> :=
    ORG_NAME: "Smith {Barney}"
"""


def tables():
    key, response = parse_template_set(KEY, "key"), parse_template_set(RESPONSE, "response")
    scoring = score_template_sets(
        key, response, ScoringOptions(compare="content", unscored_slots=frozenset())
    )
    return key, response, scoring_to_tables(scoring)


def test_text_filtering_counts_agreement_per_document() -> None:
    key, response, _ = tables()
    # Key: A relevant (an ORGANIZATION), B not (a bare TEMPLATE); response: both relevant.
    assert relevant_documents(key, "TEMPLATE") == {"A"}
    assert relevant_documents(response, "template") == {"A", "B"}
    filtering = text_filtering(["A", "B"], {"A"}, {"A", "B"})
    assert filtering == {"A": Counts(COR=1), "B": Counts(INC=1)}


def test_score_pages_per_document_and_totals() -> None:
    key, response, (_, tallies) = tables()
    filtering = text_filtering(
        ["A", "B"], relevant_documents(key, "TEMPLATE"), relevant_documents(response, "TEMPLATE")
    )
    text = score_pages(tallies, "muc", "sig", filtering=filtering, documents=["A", "B"])
    pages = text.split("\f\n")
    assert len(pages) == 3 and "document A" in pages[0] and "document B" in pages[1] and "totals" in pages[2]
    # By hand, document A: DOC_NR COR; CONTENT pointer COR (the organizations are mapped to each other);
    # ORG_NAME INC; ORG_TYPE COR. POS 4 ACT 4 COR 3 INC 1: REC 75 PRE 75 UND 0 OVG 0 SUB 25 ERR 25.
    assert "ALL SLOTS        4     4|   3   0    1|   0    0    0|  75  75   0   0  25  25" in pages[0]
    # Document B: DOC_NR COR; CONTENT SPU; the spurious ORGANIZATION's ORG_NAME SPU: POS 1 ACT 3.
    # REC 100, PRE 33, OVG 67, ERR 2/3 = 67.
    assert "ALL SLOTS        1     3|   1   0    0|   0    2    0| 100  33   0  67   0  67" in pages[1]
    # Totals: POS 5 ACT 7 COR 4 INC 1 SPU 2. Text filtering: A agrees (COR), B does not (INC).
    assert "ALL SLOTS        5     7|   4   0    1|   0    2    0|  80  57   0  29  20  43" in pages[2]
    assert "TEXT FILTERI     2     2|   1   0    1|   0    0    0|  50  50   0   0  50  50" in pages[2]
    assert "TEXT FILTERI     1     1|   0   0    1|" in pages[1]
    # F = 2 * 4 / (5 + 7) = 66.67; beta 0.5: 1.25 * 4 / (0.25 * 5 + 7) = 60.61;
    # beta 2: 5 * 4 / (20 + 7) = 74.07.
    assert "F-MEASURES            66.67       60.61       74.07" in pages[2]
    # The type heading is cut like its OBJ SCORES line (see the next test).
    assert " organizatio " in pages[2] and "  org_name" in pages[2]


def test_ie_report_summary_four_columns() -> None:
    _, _, (mapping, _) = tables()
    lines = ie_report_summary(mapping).splitlines()
    assert lines[0] == "Document A"
    assert "COR | | <ORGANIZATION-A-1> | <ORGANIZATION-A-7>" in lines
    assert "inc | ORG_NAME: | Evergreen | Bluebird Inc" in lines
    assert "cor | ORG_TYPE: | COMPANY | COMPANY" in lines
    assert "SPU | | | <ORGANIZATION-B-1>" in lines
    assert all(len(line.split("|")) == 4 for line in lines if "|" in line)


def tcl_split(text: str) -> list[str]:
    """A minimal Tcl list splitter (braces and backslashes), written for this test."""
    items, depth, current, escaped = [], 0, "", False
    for ch in text.strip():
        if escaped:
            current += ch
            escaped = False
        elif ch == "\\":
            escaped = True
            if depth:
                current += ch
        elif ch == "{":
            if depth:
                current += ch
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth:
                current += ch
            else:
                items.append(current)
                current = ""
        elif ch.isspace() and depth == 0:
            if current:
                items.append(current)
                current = ""
        else:
            current += ch
    if current:
        items.append(current)
    return items


def test_tcl_quote() -> None:
    assert tcl_quote("abc") == "abc" and tcl_quote("") == "{}"
    assert tcl_quote('"Joe Roth"') == '{"Joe Roth"}'
    assert tcl_quote("a}b") == "a\\}b" and tcl_split(tcl_quote("a}b")) == ["a}b"]
    for value in ["x y", "{a b}", "}{", "a\\b", "[cmd] $x;", "trail\\"]:
        assert tcl_split(tcl_quote(value)) == [value], value


def test_map_history_is_a_nested_tcl_list() -> None:
    _, _, (mapping, _) = tables()
    (whole,) = tcl_split(map_history(mapping))
    documents = tcl_split(whole)
    assert len(documents) == 2
    first = tcl_split(documents[0])
    assert first[:2] == ["-document", "A"] and first[2] == "-objects"
    objects = [tcl_split(o) for o in tcl_split(first[3])]
    organization = next(o for o in objects if o[1] == "<ORGANIZATION-A-1>")
    assert organization[:8] == ["-key", "<ORGANIZATION-A-1>", "-response", "<ORGANIZATION-A-7>", "-type",
                                "ORGANIZATION", "-result", "COR"]  # fmt: skip
    fills = [tcl_split(f) for f in tcl_split(organization[9])]
    name = next(f for f in fills if f[1] == "ORG_NAME")
    expected = ["-slot", "ORG_NAME", "-key", '"Evergreen"', "-response", '"Bluebird Inc"']
    assert name == [*expected, "-result", "inc", "-points", "content:INC"]
    second = tcl_split(documents[1])
    spurious = [tcl_split(o) for o in tcl_split(second[3])]
    barney = next(o for o in spurious if o[3] == "<ORGANIZATION-B-1>")
    assert barney[1] == "" and barney[7] == "SPU"
    assert tcl_split(tcl_split(barney[9])[0])[5] == '"Smith {Barney}"'


def test_a_long_type_name_is_cut_the_same_way_in_every_section() -> None:
    """'organization' (12 letters) with its one-space indent is 13 characters, one more than the label
    field: OBJ SCORES cuts it to ' organizatio', and the SLOT SCORES heading of its slots must read the
    same (seed 001's report cuts 'succession_event' to the same 'succession_e' in both sections)."""
    _, _, (_, tallies) = tables()
    page = score_pages(tallies, "muc", "sig", documents=["A", "B"]).split("\f\n")[-1]
    lines = page.splitlines()
    obj = lines.index(next(line for line in lines if line.startswith("OBJ SCORES")))
    slot = lines.index(next(line for line in lines if line.startswith("SLOT SCORES")))
    assert any(line.startswith(" organizatio ") for line in lines[obj:slot])
    headings = [line for line in lines[slot:] if line.startswith(" ") and not line.startswith("  ")]
    assert " organizatio            |             |              |" in headings
    assert not any("organization" in line for line in lines[obj:])
