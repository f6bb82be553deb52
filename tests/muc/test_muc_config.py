"""Tests for pipeline.muc.config: the MUC scorer's configuration file (seed 001, "configuration files")."""

from __future__ import annotations

from pathlib import Path

import pytest
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.muc.config import ClassDef, MucConfig, SlotDef, parse_config, read_config
from iescore.pipeline.templette.templates import parse_template_set, read_template_set

DATA = Path(__file__).resolve().parents[1] / "data" / "muc"

# The seed's own examples, each on one line as the seed prints them (note the seed's "numex type type
# scored 4 set " with a space before the closing quote).
SEED_CLASS_DEFS = ':class_defs "enamex enamex scored 0" "numex numex scored 0" "timex timex scored 0"'
SEED_SLOT_DEFS = (
    ':slot_defs "enamex text text scored 4 string" "enamex type type scored 4 set" '
    '"enamex status status unscored 4 set" "enamex alt alt unscored 4 string" '
    '"timex text text scored 4 string" "timex type type scored 4 set" '
    '"timex status status unscored 4 set" "timex alt alt unscored 4 string" '
    '"numex text text scored 4 string" "numex type type scored 4 set " '
    '"numex status status unscored 4 set" "numex alt alt unscored 4 string"'
)
FILES = ":key_file key.sgml\n:response_file response.sgml\n"


def config(body: str, source: str = "/campaign/muc.config") -> MucConfig:
    return parse_config(body, source)


def config_error(body: str) -> InputError:
    """Parse ``body`` as file ``c.config`` and return the InputError it must raise."""
    with pytest.raises(InputError) as caught:
        parse_config(body, "c.config")
    assert caught.value.file == "c.config"
    return caught.value


def minimal(extra: str = "", classes: str = '"enamex enamex scored 0"') -> str:
    """Line 1 :class_defs, lines 2-3 the files, then ``extra`` from line 4."""
    return f":class_defs {classes}\n{FILES}{extra}"


# --- the seed's examples --------------------------------------------------------------------------------


def test_seed_class_defs_and_slot_defs_parse_to_their_fields() -> None:
    parsed = config(f"{SEED_CLASS_DEFS}\n{SEED_SLOT_DEFS}\n{FILES}")
    # Written out by hand from the seed's strings: NAME KEY_NAME scored THRESHOLD, in the listed order.
    assert parsed.classes == (
        ClassDef("enamex", "enamex", True, 0.0),
        ClassDef("numex", "numex", True, 0.0),
        ClassDef("timex", "timex", True, 0.0),
    )
    # CLASS SLOT SLOT_NAME scored WEIGHT FILL_TYPE, in the listed order.
    assert parsed.slots == (
        SlotDef("enamex", "text", "text", True, 4.0, "string"),
        SlotDef("enamex", "type", "type", True, 4.0, "set"),
        SlotDef("enamex", "status", "status", False, 4.0, "set"),
        SlotDef("enamex", "alt", "alt", False, 4.0, "string"),
        SlotDef("timex", "text", "text", True, 4.0, "string"),
        SlotDef("timex", "type", "type", True, 4.0, "set"),
        SlotDef("timex", "status", "status", False, 4.0, "set"),
        SlotDef("timex", "alt", "alt", False, 4.0, "string"),
        SlotDef("numex", "text", "text", True, 4.0, "string"),
        SlotDef("numex", "type", "type", True, 4.0, "set"),
        SlotDef("numex", "status", "status", False, 4.0, "set"),
        SlotDef("numex", "alt", "alt", False, 4.0, "string"),
    )
    assert [c.line for c in parsed.classes] == [1, 1, 1]
    assert {s.line for s in parsed.slots} == {2}
    # Defaults of the options the file does not give.
    assert parsed.task is None
    assert parsed.text_file is None
    assert parsed.premodifiers == parsed.postmodifiers == parsed.corporate_designators == ()
    assert parsed.use_ie_report_summary is False
    assert parsed.beta == 1.0
    assert parsed.outputs == {}


def test_use_ie_report_summary_as_the_seed_spells_it() -> None:
    assert config(minimal(":use_IE_report_summary yes\n")).use_ie_report_summary is True
    assert config(minimal(":USE_ie_REPORT_summary NO\n")).use_ie_report_summary is False
    error = config_error(minimal(":use_IE_report_summary maybe\n"))
    assert error.line == 4 and "yes or no" in error.message


def test_the_fixture_file_reads_with_paths_relative_to_its_directory() -> None:
    parsed = read_config(DATA / "ne.config")
    assert parsed.task == "named_entity"
    assert parsed.key_file == DATA / "key.sgml"
    assert parsed.response_file == DATA / "response.sgml"
    assert parsed.text_file == DATA / "texts.sgml"
    assert parsed.outputs == {
        "score_file": DATA / "out" / "ne.scores",
        "report_summary_file": DATA / "out" / "ne.summary",
    }
    assert len(parsed.classes) == 3 and len(parsed.slots) == 12
    assert parsed.source == str(DATA / "ne.config")


# --- values and quoting ---------------------------------------------------------------------------------


def test_quoting_single_double_and_bare_values() -> None:
    parsed = config(
        minimal(
            ":premodifiers a an the 'and'\n"
            ':corporate_designators "Co." "Corp." \'S.A. de C.V.\' "L\'Oreal Group" plc\n'
            ":postmodifiers\n"
        )
    )
    assert parsed.premodifiers == ("a", "an", "the", "and")
    # A double-quoted value may hold a single quote; a single-quoted one keeps its spaces.
    assert parsed.corporate_designators == ("Co.", "Corp.", "S.A. de C.V.", "L'Oreal Group", "plc")
    assert parsed.postmodifiers == ()


def test_a_quote_inside_a_bare_word_is_ordinary() -> None:
    assert config(minimal(":premodifiers don't\n")).premodifiers == ("don't",)


def test_unclosed_quote_names_its_line() -> None:
    error = config_error(minimal(':premodifiers a "the\n'))
    assert error.line == 4 and "unclosed" in error.message


def test_a_quote_does_not_continue_onto_the_next_line() -> None:
    error = config_error(':class_defs "enamex enamex\n  scored 0"\n' + FILES)
    assert error.line == 1 and "unclosed" in error.message


def test_text_right_after_a_closing_quote_is_an_error() -> None:
    error = config_error(minimal(':premodifiers "a"b\n'))
    assert error.line == 4 and "expected a space after the closing" in error.message


def test_continuation_lines_comments_and_blank_lines() -> None:
    body = (
        "# comment\n"  # 1
        "\n"  # 2
        ':class_defs "enamex enamex scored 0"\n'  # 3
        '\t"timex timex unscored 0.5"\n'  # 4
        "   # an indented comment\n"  # 5
        '  "numex numex scored 2"\n' + FILES  # 6
    )
    parsed = config(body)
    assert [(c.name, c.scored, c.threshold, c.line) for c in parsed.classes] == [
        ("enamex", True, 0.0, 3),
        ("timex", False, 0.5, 4),
        ("numex", True, 2.0, 6),
    ]


def test_the_st_fixture_spreads_its_defs_over_continuation_lines() -> None:
    parsed = read_config(DATA / "st.config")
    assert parsed.task == "scenario_template"  # written "Scenario Template"
    assert [c.name for c in parsed.classes] == [
        "template",
        "succession_event",
        "in_and_out",
        "organization",
        "person",
    ]
    assert parsed.slots[2] == SlotDef(
        "succession_event", "success_org", "succession_org", True, 1.0, "pointer"
    )
    # Lines 1-2 comments, 3-5 task and files, 6-9 :class_defs, 10 :slot_defs with the first def, 11 the
    # second, 12 the third.
    assert parsed.slots[2].line == 12


def test_a_line_that_is_no_option_is_an_error() -> None:
    error = config_error(minimal('class_defs "timex timex scored 0"\n'))
    assert error.line == 4 and "expected an option" in error.message


def test_a_continuation_line_before_any_option_is_an_error() -> None:
    error = config_error('  "enamex enamex scored 0"\n' + minimal())
    assert error.line == 1 and "before any option" in error.message


def test_a_space_between_colon_and_name_is_an_error() -> None:
    error = config_error(minimal(": premodifiers a\n"))
    assert error.line == 4 and "right after ':'" in error.message


# --- options --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "task"),
    [
        ("named_entity", "named_entity"),
        ('"Named Entity"', "named_entity"),
        ("NE", "named_entity"),
        ("template-element", "template_element"),
        ("TE", "template_element"),
        ('"template relation"', "template_relation"),
        ("tr", "template_relation"),
        ("ST", "scenario_template"),
        ("Coreference", "coreference"),
        ("coref", "coreference"),
        ("CO", "coreference"),
    ],
)
def test_scoring_task_spellings_normalise(written: str, task: str) -> None:
    assert config(minimal(f":scoring_task {written}\n")).task == task


def test_unknown_scoring_task_names_its_line() -> None:
    error = config_error(minimal(":scoring_task summarization\n"))
    assert error.line == 4 and "unknown scoring task" in error.message


def test_paths_are_relative_to_the_config_directory_and_absolute_ones_kept() -> None:
    parsed = config(
        minimal(":text_file ../texts/t.sgml\n:map_history_file /tmp/history.tcl\n:Score_File s.txt\n")
    )
    assert parsed.key_file == Path("/campaign/key.sgml")
    assert parsed.response_file == Path("/campaign/response.sgml")
    assert parsed.text_file == Path("/campaign/../texts/t.sgml")
    assert parsed.outputs == {
        "map_history_file": Path("/tmp/history.tcl"),
        "score_file": Path("/campaign/s.txt"),
    }


def test_texts_file_is_the_text_file_not_an_output() -> None:
    parsed = config(minimal(":texts_file t.sgml\n"))
    assert parsed.text_file == Path("/campaign/t.sgml")
    assert parsed.outputs == {}


def test_base_dir_overrides_the_source_directory() -> None:
    parsed = parse_config(minimal(), "<string>", base_dir="/elsewhere")
    assert parsed.key_file == Path("/elsewhere/key.sgml")


def test_beta() -> None:
    assert config(minimal(":beta 2\n")).beta == 2.0
    assert config_error(minimal(":beta 0\n")).line == 4
    assert config_error(minimal(":beta x\n")).line == 4


# --- bad input ------------------------------------------------------------------------------------------


def test_unknown_option_names_its_line() -> None:
    error = config_error(minimal(":premods a an the\n"))
    assert error.line == 4 and "unknown option :premods" in error.message


def test_an_option_given_twice_names_both_lines() -> None:
    error = config_error(minimal(":premodifiers a\n:premodifiers the\n"))
    assert error.line == 5 and "first at line 4" in error.message


def test_an_option_with_one_value_given_two() -> None:
    error = config_error(minimal(":score_file a.txt b.txt\n"))
    assert error.line == 4 and "exactly one value, found 2" in error.message


@pytest.mark.parametrize(
    ("class_def", "words"),
    [
        ('"enamex enamex scored"', "has 3 fields: expected 4"),
        ('"enamex enamex scored 0 5"', "has 5 fields: expected 4"),
        ("enamex", "has 1 fields: expected 4"),
        ('"enamex enamex scored zero"', "threshold must be a number"),
        ('"enamex enamex scored -1"', "threshold must be a number"),
        ('"enamex enamex scored nan"', "threshold must be a number"),
        ('"enamex enamex yes 0"', "expected scored or unscored"),
    ],
)
def test_malformed_class_defs(class_def: str, words: str) -> None:
    # The bad def is the second value, on continuation line 2.
    error = config_error(f':class_defs "timex timex scored 0"\n  {class_def}\n{FILES}')
    assert error.line == 2 and words in error.message


@pytest.mark.parametrize(
    ("slot_def", "words"),
    [
        ('"enamex text text scored 4"', "has 5 fields: expected 6"),
        ('"enamex text text scored 4 string extra"', "has 7 fields: expected 6"),
        ('"enamex text text scored four string"', "weight must be a number"),
        ('"enamex text text scored 4 number"', "fill type 'number' is not string, set or pointer"),
        ('"enamex text text Scored? 4 string"', "expected scored or unscored"),
        ('"person name per_name scored 4 string"', "class person is not defined in :class_defs"),
        ('"enamex ref ref scored 4 pointer person"', "pointer target person is not defined"),
    ],
)
def test_malformed_slot_defs(slot_def: str, words: str) -> None:
    error = config_error(minimal(f':slot_defs "enamex type type scored 4 set"\n  {slot_def}\n'))
    assert error.line == 5 and words in error.message


def test_duplicate_class_by_name_or_key_name() -> None:
    error = config_error(minimal(classes='"enamex enamex scored 0" "ENAMEX other scored 0"'))
    assert error.line == 1 and "repeats class enamex" in error.message
    error = config_error(minimal(classes='"enamex enamex scored 0" "other Enamex scored 0"'))
    assert error.line == 1 and "repeats class enamex" in error.message


def test_duplicate_slot_by_report_name_or_file_name() -> None:
    error = config_error(
        minimal(':slot_defs "enamex text text scored 4 string"\n  "enamex TEXT other scored 1 set"\n')
    )
    assert error.line == 5 and "repeats slot text of class enamex (line 4)" in error.message
    error = config_error(
        minimal(':slot_defs "enamex text text scored 4 string"\n  "enamex txt Text scored 1 set"\n')
    )
    assert error.line == 5


def test_the_same_slot_name_in_two_classes_is_fine() -> None:
    body = minimal(':slot_defs "enamex text text scored 4 string" "timex text text scored 4 string"\n')
    body = body.replace('"enamex enamex scored 0"', '"enamex enamex scored 0" "timex timex scored 0"')
    assert len(config(body).slots) == 2


@pytest.mark.parametrize("missing", [":class_defs", ":key_file", ":response_file"])
def test_missing_required_option_is_an_error_at_line_0(missing: str) -> None:
    body = "\n".join(line for line in minimal().splitlines() if not line.startswith(missing + " "))
    error = config_error(body)
    assert error.line == 0 and error.render() == f"c.config: missing required option {missing}"


def test_class_defs_without_values() -> None:
    error = config_error(":class_defs\n" + FILES)
    assert error.line == 1 and "at least one" in error.message


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_config(tmp_path / "absent.config")
    assert caught.value.line == 0 and "cannot read" in caught.value.message


# --- look-ups -------------------------------------------------------------------------------------------

ST = read_config(DATA / "st.config")


def test_slot_def_by_file_name_or_report_name_case_insensitively() -> None:
    by_file = ST.slot_def("SUCCESSION_EVENT", "SUCCESSION_ORG")
    assert by_file is not None and by_file.slot == "success_org"
    assert ST.slot_def("succession_event", "success_org") == by_file
    assert ST.slot_def("succession_event", "nothing") is None
    assert ST.slot_def("nothing", "post") is None


def test_weights_and_thresholds_keyed_as_the_files_spell_them() -> None:
    parsed = config(
        ':class_defs "org organization scored 0.5"\n'
        + FILES
        + ':slot_defs "org name org_name scored 4 string" "org type org_type scored 1 set"\n'
    )
    assert parsed.weights("org") == {"ORG_NAME": 4.0, "ORG_TYPE": 1.0}
    assert parsed.weights("ORGANIZATION") == {"ORG_NAME": 4.0, "ORG_TYPE": 1.0}
    assert parsed.threshold("organization") == 0.5
    assert parsed.slot_weights() == {"ORGANIZATION": {"ORG_NAME": 4.0, "ORG_TYPE": 1.0}}
    assert parsed.thresholds() == {"ORGANIZATION": 0.5}
    with pytest.raises(KeyError):
        parsed.threshold("person")


# --- checking a template set ----------------------------------------------------------------------------


def test_the_st_fixture_passes_its_check() -> None:
    ST.check_template_set(read_template_set(DATA / "st-key.tpl"))


def test_an_instance_type_not_in_class_defs_names_its_line() -> None:
    template_set = parse_template_set(
        '<PERSON-1-1> :=\n    PER_NAME: "Roth"\n<VEHICLE-1-1> :=\n    PER_NAME: "Roth"\n', "t.tpl"
    )
    with pytest.raises(InputError) as caught:
        ST.check_template_set(template_set)
    assert (caught.value.file, caught.value.line) == ("t.tpl", 3)
    assert "object type VEHICLE is not defined in :class_defs" in caught.value.message


def test_a_slot_not_in_slot_defs_names_its_line() -> None:
    template_set = parse_template_set(
        '<PERSON-1-1> :=\n    PER_NAME: "Roth"\n    PER_TITLE: "Mr."\n', "t.tpl"
    )
    with pytest.raises(InputError) as caught:
        ST.check_template_set(template_set, "other-name.tpl")
    assert (caught.value.file, caught.value.line) == ("other-name.tpl", 3)
    assert "slot 'PER_TITLE:' of PERSON is not defined in :slot_defs" in caught.value.message


def test_a_slot_is_checked_by_its_file_name_not_its_report_name() -> None:
    # "name" is person's report name; the files call the slot PER_NAME.
    template_set = parse_template_set('<PERSON-1-1> :=\n    NAME: "Roth"\n', "t.tpl")
    with pytest.raises(InputError) as caught:
        ST.check_template_set(template_set)
    assert caught.value.line == 2


def test_obj_status_is_structure_and_always_allowed() -> None:
    ST.check_template_set(
        parse_template_set('<PERSON-1-1> :=\n    PER_NAME: "Roth"\n    OBJ_STATUS: OPTIONAL\n')
    )


def test_fill_kinds_must_match_the_slot_def() -> None:
    pointer_in_string = parse_template_set("<PERSON-1-1> :=\n    PER_NAME: <PERSON-1-1>\n", "t.tpl")
    with pytest.raises(InputError) as caught:
        ST.check_template_set(pointer_in_string)
    assert caught.value.line == 2 and "defines as a string slot" in caught.value.message
    string_in_pointer = parse_template_set('<IN_AND_OUT-1-1> :=\n    IO_PERSON: "Roth"\n', "t.tpl")
    with pytest.raises(InputError) as caught:
        ST.check_template_set(string_in_pointer)
    assert caught.value.line == 2 and "pointer slot" in caught.value.message


def test_a_pointer_to_an_undefined_type() -> None:
    template_set = parse_template_set("<IN_AND_OUT-1-1> :=\n    IO_PERSON: <ROBOT-1-1>\n", "t.tpl")
    with pytest.raises(InputError) as caught:
        ST.check_template_set(template_set)
    assert caught.value.line == 2 and "type ROBOT, which is not defined" in caught.value.message


# --- alignment order ------------------------------------------------------------------------------------


def names(classes: tuple[ClassDef, ...]) -> list[str]:
    return [c.name for c in classes]


def test_st_order_puts_pointed_to_classes_first() -> None:
    # Pointers in st-key.tpl: template -> succession_event -> {organization, in_and_out}, in_and_out ->
    # person. Listed: template, succession_event, in_and_out, organization, person. Ready at first:
    # organization and person (no pointers); organization is listed first. Then person (in_and_out waits
    # for it), in_and_out, succession_event, template.
    order = ST.pointer_order(read_template_set(DATA / "st-key.tpl"))
    assert names(order) == ["organization", "person", "in_and_out", "succession_event", "template"]


def test_without_data_or_declared_targets_the_class_defs_order_stays() -> None:
    assert names(ST.pointer_order()) == names(ST.classes)
    assert ST.order_warnings() == ()


def test_order_warnings_name_what_moved() -> None:
    warnings = ST.order_warnings(read_template_set(DATA / "st-key.tpl"))
    assert len(warnings) == 3
    assert warnings[0].endswith(
        ":class_defs lists template before succession_event, in_and_out, organization, person, which it "
        "points to (directly or not); aligning template after them"
    )
    assert "lists in_and_out before person" in warnings[2]


DIAMOND = (
    ":class_defs {order}\n"
    + FILES
    + ':slot_defs "a to_b to_b scored 1 pointer b" "a to_c to_c scored 1 pointer c"\n'
    '  "b to_d to_d scored 1 pointer d" "c to_d to_d scored 1 pointer d" "d name name scored 1 string"\n'
)


def test_the_seeds_figure_d_b_c_a_from_declared_targets() -> None:
    # Seed 001's figure: A points to B and C, B and C point to D; "the order of mapping could be D-B-C-A
    # or D-C-B-A". B before C when class_defs lists B first, C before B when it lists C first.
    listed_b_first = config(
        DIAMOND.format(order='"a a scored 0" "b b scored 0" "c c scored 0" "d d scored 0"')
    )
    assert names(listed_b_first.pointer_order()) == ["d", "b", "c", "a"]
    listed_c_first = config(
        DIAMOND.format(order='"a a scored 0" "c c scored 0" "b b scored 0" "d d scored 0"')
    )
    assert names(listed_c_first.pointer_order()) == ["d", "c", "b", "a"]
    already = config(DIAMOND.format(order='"d d scored 0" "c c scored 0" "b b scored 0" "a a scored 0"'))
    assert names(already.pointer_order()) == ["d", "c", "b", "a"]
    assert already.order_warnings() == ()


def test_a_declared_cycle_names_its_classes_at_the_closing_slot_def() -> None:
    body = (
        ':class_defs "a a scored 0" "b b scored 0" "c c scored 0"\n'  # 1
        + FILES  # 2-3
        + ':slot_defs "a to_b to_b scored 1 pointer b"\n'  # 4
        '  "b to_c to_c scored 1 pointer c"\n'  # 5
        '  "c to_a to_a scored 1 pointer a"\n'  # 6
    )
    with pytest.raises(InputError) as caught:
        parse_config(body, "c.config").pointer_order()
    assert (caught.value.file, caught.value.line) == ("c.config", 6)
    assert "pointer cycle between classes: a -> b -> c -> a" in caught.value.message


def test_a_cycle_from_the_data_names_the_pointer_line() -> None:
    parsed = config(
        ':class_defs "template template scored 0" "organization organization scored 0"\n'
        + FILES
        + ':slot_defs "template content content scored 1 pointer"\n'
        '  "organization name org_name scored 1 string" "organization parent parent scored 1 pointer"\n'
    )
    template_set = parse_template_set(
        "<TEMPLATE-1-1> :=\n"  # 1
        "    CONTENT: <ORGANIZATION-1-1>\n"  # 2
        "<ORGANIZATION-1-1> :=\n"  # 3
        '    ORG_NAME: "Acme"\n'  # 4
        "<ORGANIZATION-1-2> :=\n"  # 5
        "    PARENT: <ORGANIZATION-1-1>\n",  # 6
        "t.tpl",
    )
    parsed.check_template_set(template_set)
    with pytest.raises(InputError) as caught:
        parsed.pointer_order(template_set)
    assert (caught.value.file, caught.value.line) == ("t.tpl", 6)
    assert "organization -> organization" in caught.value.message
    with pytest.raises(InputError):
        parsed.order_warnings(template_set)
