"""``iescore muc CONFIG`` end to end (seed 001): template element, relation, scenario; bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from iescore.tasks.cli.main import main

DATA = Path(__file__).parents[1] / "data" / "muc_te"


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def te(tmp_path: Path) -> Path:
    shutil.copytree(DATA, tmp_path / "te")
    return tmp_path / "te"


def test_template_element_by_hand(te: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "muc", te / "te.config", "--store", te / "store")
    assert status == 0, err
    # By hand (te.config: thresholds 0, ORG_NAME and PER_NAME weigh 4, the rest 1; premodifier "the",
    # designators "Inc." "Corp."):
    # - PERSON-57 (Joe Roth, Mr.) ~ PERSON-5 (JOE ROTH): weighted F 4 * 1 + 1 * 0 = 4 > 0, mapped:
    #   PER_NAME cor (case folded), PER_TITLE mis.
    # - PERSON-6 (Smith Barney) vs optional PERSON-58 (Rupert Murdoch): weighted F 0, not mapped:
    #   PERSON-58 is optional, its PER_NAME non; PERSON-6's PER_NAME spu.
    # - ORGANIZATION-1: ORG_NAME "Evergreen Information Technologies Inc." and "the Evergreen
    #   Information Technologies" both normalize to "Evergreen Information Technologies": cor.
    #   ORG_TYPE COMPANY / GOVERNMENT inc. ORG_ALIAS: the key's second alternative ("Evergreen") gives
    #   F 1 against the response's "Evergreen" (the first: cor + mis, F 2/3): cor. ORG_LEADER points
    #   to PERSON-57, mapped to PERSON-5: cor. COMMENT unscored. The alias alternative left over
    #   (2 fills) is non-committal.
    # Totals: POS 6, ACT 6, COR 4, INC 1, MIS 1, SPU 1, NON 1 + 2: REC 67 PRE 67 UND 17 OVG 17 SUB 20
    # ERR 43.
    assert "ALL SLOTS        6     6|   4   0    1|   1    1    3|  67  67  17  17  20  43" in out
    assert "F-MEASURES            66.67       66.67       66.67" in out
    summary = (te / "out" / "summary.txt").read_text()
    assert "cor | ORG_ALIAS: | Evergreen | Evergreen" in summary
    assert "NON | | <PERSON-9303020074-58> |" in summary and "SPU | | | <PERSON-9303020074-6>" in summary
    pages = (te / "out" / "scores.txt").read_text().split("\f\n")
    assert len(pages) == 2 and "document 9303020074" in pages[0] and pages[1] == out
    assert (te / "out" / "history.tcl").read_text().startswith("{{-document 9303020074 -objects {{")


def test_threshold_from_the_configuration(te: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = te / "te.config"
    config.write_text(config.read_text().replace('"person person scored 0"', '"person person scored 4"'))
    status, out, err = run(capsys, "muc", config, "--store", te / "store")
    assert status == 0, err
    # PERSON-57 ~ PERSON-5 now needs a weighted F above 4; it is exactly 4: not mapped. PERSON-57's
    # 2 fills are missing, PERSON-5's PER_NAME spurious; ORG_LEADER's pointer is now inc (PERSON-57
    # is mapped to nothing). POS 6 ACT 6 COR 2 INC 2 MIS 2 SPU 2.
    assert "ALL SLOTS        6     6|   2   0    2|   2    2    3|" in out


def test_undefined_slot_class_and_cycle_are_bad_input(te: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = te / "key.tpl"
    original = key.read_text()
    key.write_text(original.replace("PER_TITLE", "PER_AGE"))
    status, _, err = run(capsys, "muc", te / "te.config", "--store", te / "store")
    assert status == 2 and f"{key}:11:" in err and "PER_AGE" in err
    key.write_text(original.replace("<PERSON-9303020074-58> :=", "<SHIP-9303020074-58> :="))
    status, _, err = run(capsys, "muc", te / "te.config", "--store", te / "store")
    assert status == 2 and f"{key}:12:" in err and "SHIP" in err
    # A person pointing back at its organization closes a cycle between the two classes.
    config = te / "te.config"
    config.write_text(
        config.read_text().replace(
            '"person title PER_TITLE scored 1 string"',
            '"person title PER_TITLE scored 1 string" "person employer PER_ORG scored 1 pointer"',
        )
    )
    key.write_text(
        original.replace(
            'PER_NAME: "Joe Roth"', 'PER_NAME: "Joe Roth"\n    PER_ORG: <ORGANIZATION-9303020074-1>'
        )
    )
    status, _, err = run(capsys, "muc", te / "te.config", "--store", te / "store")
    assert status == 2 and "cycle" in err and "organization" in err.lower() and "person" in err.lower()


def test_scenario_template_text_filtering_and_implicit_optional(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = tmp_path / "st"
    shutil.copytree(DATA.parent / "muc_st", st)
    status, out, err = run(capsys, "muc", st / "st.config", "--store", tmp_path / "store")
    assert status == 0, err
    # By hand. Document A: the key's CONTENT offers SUCCESSION_EVENT-1 in one alternative and -2 in
    # the other, so both are implicitly optional, and PERSON-1, pointed to only from the optional
    # event, too. The response's template has no CONTENT: both alternatives' pointers lead to optional
    # unmapped objects (non; the alternative not chosen is non-committal too: CONTENT 2), and the
    # optional objects' fills are non: POST 2, IO_PERSON 1, PER_NAME 1, CONTENT 2 = NON 6.
    # Document B: the key is a bare template (irrelevant); the response's CONTENT and its event's POST
    # are spurious. DOC_NR cor twice.
    assert "ALL SLOTS        2     4|   2   0    0|   0    2    6| 100  50   0  50   0  50" in out
    # Text filtering: A relevant in the key only, B in the response only: 2 documents, INC 2.
    assert "TEXT FILTERI     2     2|   0   0    2|   0    0    0|   0   0   0   0 100 100" in out


def test_task_options_from_the_configuration() -> None:
    from iescore.pipeline.muc.config import parse_config
    from iescore.pipeline.muc.rules import scoring_options

    base = (
        ':class_defs "a a scored 0.5"\n:slot_defs "a x X scored 2 string" "a c COMMENT unscored 0 string"\n'
    )
    base += ":key_file k\n:response_file r\n"
    relation = scoring_options(parse_config(base + ":scoring_task template_relation\n", "c", "/tmp"))
    assert relation["implicit"] == "relation" and relation["thresholds"] == {"A": 0.5}
    assert relation["slot_weights"] == {"A": {"X": 2.0, "COMMENT": 0.0}} and relation["unscored"] == [
        "COMMENT"
    ]
    element = scoring_options(parse_config(base + ":scoring_task template_element\n", "c", "/tmp"))
    assert "implicit" not in element


def test_named_entity_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ne = tmp_path / "ne"
    shutil.copytree(DATA.parent / "muc_ne", ne)
    status, out, err = run(capsys, "muc", ne / "ne.config", "--store", tmp_path / "store")
    assert status == 0, err
    # By hand. Key: HL "Consuela Washington" PERSON; DD "01/19/93" DATE; in <p>: "Consuela Washington"
    # PERSON, "John Dingell" PERSON, "Washington" LOCATION. Response: HL "Consuela Washington" PERSON
    # and "Exchange" ORGANIZATION; DD "01/19/93" DATE; in <p>: "Dingell" ORGANIZATION.
    # Objects pair only within one SGML element (HL, DD, the <p>): the HL persons (text cor, type
    # cor), the dates (cor cor). In the <p>, "Dingell" (ORGANIZATION) against each key object there
    # has text and type wrong: weighted F 0 does not exceed the threshold 0, so nothing maps there;
    # and "Exchange" in HL against the HL person likewise.
    # TEXT and TYPE: COR 2, MIS 3, SPU 2 each. ALL SLOTS: POS 10 ACT 8 COR 4 MIS 6 SPU 4.
    assert "ALL SLOTS       10     8|   4   0    0|   6    4    0|  40  50  60  50   0  71" in out
    # Subtask person: COR 1 (HL), MIS 2 (the <p> persons): POS 3 ACT 1.
    assert "  person         3     1|   1   0    0|   2    0    0|  33 100  67   0   0  67" in out
    # Sections: HL: 2 COR + 2 SPU (Exchange); p: 6 MIS + 2 SPU (Dingell); DD: 2 COR.
    assert " HL              2     4|   2   0    0|   0    2    0|" in out
    assert " p               6     2|   0   0    0|   6    2    0|" in out
    summary = (ne / "out" / "summary.txt").read_text().splitlines()
    assert 'ENAMEX mis mis PERSON "John Dingell" ""' in summary
    assert 'ENAMEX spu spu ORGANIZATION "" "Dingell"' in summary
    assert 'TIMEX cor cor DATE DATE "01/19/93" "01/19/93"' in summary


def test_named_entity_response_that_changes_the_texts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ne = tmp_path / "ne"
    shutil.copytree(DATA.parent / "muc_ne", ne)
    response = ne / "response.sgml"
    response.write_text(response.read_text().replace("an expert", "an expart"))
    status, _, err = run(capsys, "muc", ne / "ne.config", "--store", tmp_path / "store")
    assert status == 2 and f"{response}:6:" in err and err.count("\n") == 1


def test_coreference_through_the_pipeline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    co = tmp_path / "co"
    shutil.copytree(DATA.parent / "muc_co", co)
    status, out, err = run(capsys, "muc", co / "co.config", "--store", tmp_path / "store")
    assert status == 0, err
    # Vilain et al.'s example: key chain {A B C D}, response {A B} {C D}. Recall: the key chain's 4
    # mentions fall in 2 response chains: (4 - 2) / (4 - 1) = 2/3. Precision: each response chain lies
    # in 1 key chain: ((2 - 1) + (2 - 1)) / ((2 - 1) + (2 - 1)) = 2/2. F = 2 (2/3) / (2/3 + 1) = 0.8.
    assert "930620083         1     2        2 / 3       66.7        2 / 2      100.0    80.0" in out
    assert "TOTALS:" in out
    # The mention table is an artifact of the store.
    tables = list((tmp_path / "store" / "ScoreCoreference").glob("*/*.mentions.parquet"))
    assert len(tables) == 1
    mentions = pq.read_table(tables[0]).to_pandas()
    assert sorted(mentions["status"]) == ["COR"] * 4 and mentions["key_chain"].nunique() == 1
    partitions = (co / "out" / "partitions.txt").read_text()
    assert partitions.count('"Ms. Washington"') == 2
    status, _, err = run(capsys, "muc", co / "co.config", "--store", tmp_path / "store")
    assert status == 0  # rerun from the cached artifact
    (co / "response.sgml").write_text((co / "response.sgml").read_text().replace('REF="c"', 'REF="z"'))
    status, _, err = run(capsys, "muc", co / "co.config", "--store", tmp_path / "store")
    assert status == 2 and "response.sgml:5:" in err and "z" in err


def test_named_entity_regions_are_the_enclosing_elements() -> None:
    from iescore.pipeline.core.corpus import read_corpus
    from iescore.pipeline.muc.named_entity import read_ne_file
    from iescore.pipeline.muc.rules import element_regions

    folder = DATA.parent / "muc_ne"
    texts = read_corpus(folder / "texts.sgml")
    entities = read_ne_file(folder / "key.sgml", texts=texts, is_key=True)
    regions = element_regions(entities)
    (document,) = texts.documents
    # By hand: the HL element is "<HL> Consuela Washington Joins Exchange </HL>", the <p> element
    # the paragraph; the objects' regions are those elements' spans in the untagged document.
    hl_start = document.text.index("<HL>")
    hl = (hl_start, document.text.index("</HL>") + len("</HL>"))
    p = (document.text.index("<p>"), document.text.index("</p>") + len("</p>"))
    by_text = {
        fill.content: regions[instance.pointer]
        for instance in entities.template_set.instances
        for fill in instance.slot("TEXT").alternatives[0]
    }
    assert by_text["John Dingell"] == p and by_text["Washington"] == p
    assert sorted(r for r in regions.values() if r == hl) == [hl]  # only the headline's name is in HL
