"""Malformed input to ``iescore mat`` (issue 25, points 2 and 4): a table of bad task files (TOML and
MAT task.xml), bad reference and hypothesis documents (MAT JSON, inline XML) and bad options. Each must
end with exit status 2 and one message naming the file and line (or the option) and what was expected
there, before anything is written (the ``--json`` and ``--csv_output_dir`` outputs stay absent).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "mat-sample"

# A good MAT JSON pair to put a bad file beside: data/mat-sample's a.json.
GOOD_REF = (SAMPLE / "ref" / "a.json").read_text(encoding="utf-8")
GOOD_HYP = (SAMPLE / "good" / "a.json").read_text(encoding="utf-8")
XML_REF = "<doc>John <PERSON>Smith</PERSON> met Mary.</doc>\n"

TASKS_XML = """<tasks>
  <task name='Named Entity'>
    <annotation_set_descriptors inherit='category:zone,category:token'>
      <annotation_set_descriptor category='content' name='content'>
        <annotation label='PERSON'/>
      </annotation_set_descriptor>
    </annotation_set_descriptors>
  </task>
  <task name='Other'>
    <tags inherit_structure='yes'><tag name='ENAMEX' category='content'/></tags>
  </task>
</tasks>
"""


def _json(signal: str = "abc", asets: str = "[]", extra: str = "") -> str:
    """A MAT JSON document laid out one key a line (signal on line 2, asets from line 3)."""
    return '{\n "signal": "' + signal + '",\n "asets": ' + asets + extra + "\n}\n"


# (id, files to write {name: text or bytes}, command line ({tmp} is the test folder), pattern the one
# stderr line must match). Without --file/--dir in the command line, --file hyp.json --ref_file
# ref.json are added (with the sample's good a.json pair unless the files say otherwise).
CASES = [
    # --- TOML task files ---
    (
        "toml-malformed",
        {"t.toml": 'content = ["A"\n'},
        ["--task", "{tmp}/t.toml"],
        r"t\.toml:\d+: malformed TOML",
    ),
    (
        "toml-content-string",
        {"t.toml": '# comment\ncontent = "ENAMEX"\n'},
        ["--task", "{tmp}/t.toml"],
        r"t\.toml:2: expected 'content' to be a non-empty list of labels",
    ),
    (
        "toml-content-empty",
        {"t.toml": "content = []\n"},
        ["--task", "{tmp}/t.toml"],
        r"t\.toml:1: expected 'content' to be a non-empty list",
    ),
    (
        "toml-content-missing",
        {"t.toml": 'token = ["lex"]\n'},
        ["--task", "{tmp}/t.toml"],
        r"t\.toml: expected 'content' to be a non-empty list",
    ),
    (
        "toml-unknown-key",
        {"t.toml": 'content = ["A"]\ncontnet = ["B"]\n'},
        ["--task", "{tmp}/t.toml"],
        r"t\.toml:2: unknown key 'contnet'; expected content, token and \[\[alias\]\]",
    ),
    (
        "toml-token-numbers",
        {"t.toml": 'content = ["A"]\ntoken = [1, 2]\n'},
        ["--task", "{tmp}/t.toml"],
        r"t\.toml:2: expected 'token' to be a list of labels",
    ),
    (
        "toml-alias-not-content",
        {
            "t.toml": 'content = ["ENAMEX"]\n\n[[alias]]\nlabel = "ENAMEX"\nname = "P"\n\n'
            '[[alias]]\nlabel = "NUMEX"\nname = "M"\n'
        },
        ["--task", "{tmp}/t.toml"],
        r"t\.toml:7: alias 2: label 'NUMEX' is not among the content labels",
    ),
    (
        "toml-alias-without-name",
        {"t.toml": 'content = ["ENAMEX"]\n[[alias]]\nlabel = "ENAMEX"\n'},
        ["--task", "{tmp}/t.toml"],
        r"t\.toml:2: alias 1: expected 'label' and 'name' to be labels",
    ),
    (
        "toml-alias-attributes",
        {"t.toml": 'content = ["ENAMEX"]\n[[alias]]\nlabel = "ENAMEX"\nname = "P"\nattributes = 5\n'},
        ["--task", "{tmp}/t.toml"],
        r"t\.toml:2: alias 1: expected 'attributes' to map attribute names to values",
    ),
    (
        "toml-not-utf8",
        {"t.toml": b'content = ["A"]\ntoken = ["\xff"]\n'},
        ["--task", "{tmp}/t.toml"],
        r"t\.toml:2: expected UTF-8",
    ),
    # --- MAT task.xml ---
    (
        "xml-not-well-formed",
        {"task.xml": "<task name='x'>\n  <tags>\n</task>\n"},
        ["--task", "{tmp}/task.xml"],
        r"task\.xml:3: not well-formed XML at column \d+: mismatched tag",
    ),
    (
        "xml-wrong-root",
        {"task.xml": "<?xml version='1.0'?>\n<config/>\n"},
        ["--task", "{tmp}/task.xml"],
        r"task\.xml:2: expected <task> or <tasks> as the root of a MAT task\.xml, found <config>",
    ),
    (
        "xml-task-without-name",
        {"task.xml": "<tasks>\n  <task>\n  </task>\n</tasks>\n"},
        ["--task", "{tmp}/task.xml"],
        r"task\.xml:2: <task> needs a name",
    ),
    (
        "xml-duplicate-task",
        {"task.xml": "<tasks>\n<task name='A'/>\n<task name='A'/>\n</tasks>\n"},
        ["--task", "A", "--task_xml", "{tmp}/task.xml"],
        r"task\.xml:3: a second task named 'A' \(the first is at line 2\)",
    ),
    (
        "xml-not-a-task-in-tasks",
        {"task.xml": "<tasks>\n  <workflows/>\n</tasks>\n"},
        ["--task", "{tmp}/task.xml"],
        r"task\.xml:2: expected <task> inside <tasks>, found <workflows>",
    ),
    (
        "xml-tag-category",
        {"task.xml": "<task name='x'>\n <tags>\n  <tag name='A' category='contents'/>\n </tags>\n</task>\n"},
        ["--task", "{tmp}/task.xml"],
        r"task\.xml:3: <tag name='A'>: category 'contents'; expected content, token or zone",
    ),
    (
        "xml-tag-without-name",
        {"task.xml": "<task name='x'>\n <tags>\n  <tag category='content'/>\n </tags>\n</task>\n"},
        ["--task", "{tmp}/task.xml"],
        r"task\.xml:3: <tag> needs a name= attribute",
    ),
    (
        "xml-attr-set-empty",
        {
            "task.xml": "<task name='x'>\n <tags>\n  <tag name='ENAMEX' category='content'>\n"
            "   <attr_set name='PERSON'/>\n  </tag>\n </tags>\n</task>\n"
        },
        ["--task", "{tmp}/task.xml"],
        r"task\.xml:4: <attr_set name='PERSON'> needs <attr name= value=> pairs",
    ),
    (
        "xml-choice-without-value",
        {
            "task.xml": "<task name='x'>\n<annotation_set_descriptors>\n"
            "<annotation_set_descriptor category='content' name='content'>\n<annotation label='ENAMEX'/>\n"
            "<attribute of_annotation='ENAMEX' name='type'>\n<choice effective_label='PERSON'></choice>\n"
            "</attribute>\n</annotation_set_descriptor>\n</annotation_set_descriptors>\n</task>\n"
        },
        ["--task", "{tmp}/task.xml"],
        r"task\.xml:6: expected <choice effective_label='LABEL'>VALUE</choice>",
    ),
    (
        "xml-effective-label-of-undeclared",
        {
            "task.xml": "<task name='x'>\n<annotation_set_descriptors>\n"
            "<annotation_set_descriptor category='content' name='content'>\n<annotation label='ENAMEX'/>\n"
            "<attribute of_annotation='NUMEX' name='type'>\n<choice effective_label='MONEY'>MONEY</choice>\n"
            "</attribute>\n</annotation_set_descriptor>\n</annotation_set_descriptors>\n</task>\n"
        },
        ["--task", "{tmp}/task.xml"],
        r"task\.xml:6: the alias 'MONEY' is for 'NUMEX', which task 'x' does not declare as a content",
    ),
    (
        "xml-no-content-annotation",
        {"task.xml": "<tasks>\n<task name='Parent' visible='no'>\n<workflows/>\n</task>\n</tasks>\n"},
        ["--task", "Parent", "--task_xml", "{tmp}/task.xml"],
        r"task\.xml:2: task 'Parent' declares no content annotation",
    ),
    (
        "xml-several-tasks-no-name",
        {"task.xml": TASKS_XML},
        ["--task", "{tmp}/task.xml"],
        r"task\.xml: declares several tasks \('Named Entity', 'Other'\); pick one by name: "
        r"--task NAME --task_xml",
    ),
    (
        "task-name-unknown",
        {"task.xml": TASKS_XML},
        ["--task", "Nmed Entity", "--task_xml", "{tmp}/task.xml"],
        r"--task: unknown task 'Nmed Entity' \(known: 'Named Entity', 'Other'\); give its task\.xml",
    ),
    (
        "task-name-sample-not-carried",
        {},
        ["--task", "Enhanced Named Entity"],
        r"--task: 'Enhanced Named Entity' is a MAT sample task whose definition iescore does not carry; "
        r"give its task\.xml: --task 'Enhanced Named Entity' --task_xml",
    ),
    ("task-file-missing", {}, ["--task", "{tmp}/missing.xml"], r"missing\.xml: file not found \(--task\)"),
    (
        "task-xml-dir-without-task-xml",
        {"plugin/readme.txt": "x"},
        ["--task", "Named Entity", "--task_xml", "{tmp}/plugin"],
        r"plugin/task\.xml: cannot read the task file: No such file",
    ),
    # --- reference and hypothesis documents: MAT JSON ---
    (
        "json-malformed",
        {"hyp.json": '{\n "signal": "abc",\n "asets": [}\n'},
        [],
        r"hyp\.json:3: malformed JSON at column \d+",
    ),
    (
        "json-not-an-object",
        {"hyp.json": "\n[1, 2]\n"},
        [],
        r"hyp\.json:2: expected a JSON object with 'signal' and 'asets'",
    ),
    (
        "json-signal-not-string",
        {"hyp.json": '{\n "asets": [],\n "signal": 5\n}\n'},
        [],
        r"hyp\.json:3: expected a string 'signal'",
    ),
    (
        "json-version-3",
        {"hyp.json": _json(extra=',\n "version": 3')},
        [],
        r"hyp\.json:4: MAT JSON version 3 is not supported; expected 1 or 2",
    ),
    (
        "json-asets-not-list",
        {"hyp.json": _json(asets="{}")},
        [],
        r"hyp\.json:3: expected 'asets' to be a list of annotation sets",
    ),
    (
        "json-aset-without-type",
        {"hyp.json": _json(asets='[\n  {"annots": []}\n ]')},
        [],
        r"hyp\.json:4: asets\[0\]: expected an object with a string 'type'",
    ),
    (
        "json-annots-not-list",
        {"hyp.json": _json(asets='[\n  {"type": "A",\n   "annots": 7}\n ]')},
        [],
        r"hyp\.json:5: asets\[0\] \(A\): expected 'annots' to be a list",
    ),
    (
        "json-span-outside-signal",
        {"hyp.json": _json(asets='[\n  {"type": "A",\n   "annots": [[0, 1],\n     [1, 9]]}\n ]')},
        [],
        r"hyp\.json:6: asets\[0\] \(A\) annots\[1\]: span \[1, 9\) ends outside the signal \(3 characters\)",
    ),
    (
        "json-span-reversed",
        {"hyp.json": _json(asets='[\n  {"type": "A",\n   "annots": [[2, 1]]}\n ]')},
        [],
        r"hyp\.json:5: asets\[0\] \(A\) annots\[0\]: span \[2, 1\) starts after it ends",
    ),
    (
        "json-annot-not-offsets",
        {"ref.json": _json(asets='[\n  {"type": "A",\n   "annots": [["0", 1]]}\n ]')},
        [],
        r"ref\.json:5: asets\[0\] \(A\) annots\[0\]: expected \[start, end, attribute values\.\.\.\]",
    ),
    (
        "json-too-many-attribute-values",
        {
            "hyp.json": _json(
                asets='[\n  {"type": "A", "attrs": ["type"],\n   "annots": [[0, 1, "x", "y"]]}\n ]'
            )
        },
        [],
        r"hyp\.json:5: asets\[0\] \(A\) annots\[0\]: 2 attribute values for 1 attributes",
    ),
    (
        "json-attribute-name",
        {"hyp.json": _json(asets='[\n  {"type": "A",\n   "attrs": [\n    5],\n   "annots": []}\n ]')},
        [],
        r"hyp\.json:6: asets\[0\]\.attrs\[0\]: expected an attribute name or an object with a 'name'",
    ),
    (
        "json-not-utf8",
        {"hyp.json": b'{\n "signal": "\xe9",\n "asets": []\n}\n'},
        [],
        r"hyp\.json:2: bytes that are not utf-8",
    ),
    (
        "json-signals-differ",
        {"hyp.json": _json(signal="abd"), "ref.json": _json(signal="abc")},
        [],
        r"hyp\.json: its signal differs from the reference's \(.*ref\.json\) at character 2 "
        r"\(line 1, column 3\): reference 'c', hypothesis 'd'",
    ),
    # --- reference and hypothesis documents: inline XML ---
    (
        "xml-inline-mismatched",
        {"hyp.xml": "<doc>\nJohn <PERSON>Smith\n</doc>\n", "ref.xml": XML_REF},
        [
            "--file",
            "{tmp}/hyp.xml",
            "--ref_file",
            "{tmp}/ref.xml",
            "--file_type",
            "xml-inline",
            "--ref_file_type",
            "xml-inline",
        ],
        r"hyp\.xml:3: invalid XML at column \d+: mismatched tag",
    ),
    (
        "xml-inline-ref-unclosed",
        {"hyp.xml": XML_REF, "ref.xml": "<doc>John <PERSON>Smith</PERSON>\n"},
        [
            "--file",
            "{tmp}/hyp.xml",
            "--ref_file",
            "{tmp}/ref.xml",
            "--file_type",
            "xml-inline",
            "--ref_file_type",
            "xml-inline",
        ],
        r"ref\.xml:2: invalid XML at column \d+: no element found",
    ),
    (
        "xml-overlay-never-closed",
        {"hyp.xml": "John\n<PERSON>Smith met Mary.\n", "ref.xml": "John\n<PERSON>Smith</PERSON> met Mary.\n"},
        [
            "--file",
            "{tmp}/hyp.xml",
            "--ref_file",
            "{tmp}/ref.xml",
            "--file_type",
            "xml-inline",
            "--ref_file_type",
            "xml-inline",
            "--xml_input_is_overlay",
            "--ref_xml_input_is_overlay",
            "--content_annotations",
            "PERSON",
        ],
        r"hyp\.xml:2: <PERSON> is never closed",
    ),
    (
        "xml-inline-bad-encoding-bytes",
        {"hyp.xml": b"<doc>\nJohn \xff</doc>\n", "ref.xml": XML_REF},
        [
            "--file",
            "{tmp}/hyp.xml",
            "--ref_file",
            "{tmp}/ref.xml",
            "--file_type",
            "xml-inline",
            "--ref_file_type",
            "xml-inline",
            "--encoding",
            "utf-8",
        ],
        r"hyp\.xml:2: bytes that are not utf-8 at byte \d+",
    ),
    # --- options ---
    (
        "option-file-without-ref",
        {},
        ["--file", "{tmp}/hyp.json"],
        r"--file: --file must be paired with --ref_file",
    ),
    (
        "option-equivalence-class-empty",
        {},
        ["--equivalence_class", "PLACE", ""],
        r"--equivalence_class: expected a class label and members",
    ),
    (
        "option-label-in-two-classes",
        {},
        ["--equivalence_class", "P", "A,B", "--equivalence_class", "Q", "B"],
        r"--equivalence_class: label 'B' is in two classes",
    ),
    (
        "option-file-re-invalid",
        {"hyps/a.json": GOOD_HYP, "refs/a.json": GOOD_REF},
        ["--dir", "{tmp}/hyps", "--ref_dir", "{tmp}/refs", "--file_re", "a(.json"],
        r"argument --file_re: a regular expression expected: missing \)",
    ),
    (
        "option-overlay-not-xml",
        {},
        ["--xml_input_is_overlay"],
        r"--xml_input_is_overlay: applies to xml-inline files only \(--file_type is mat-json\)",
    ),
    (
        "option-encoding-not-text",
        {},
        ["--file_type", "xml-inline", "--encoding", "base64"],
        r"argument --encoding: the name of a text encoding expected",
    ),
    (
        "option-ref-encoding-unknown",
        {},
        ["--ref_encoding", "no-such-codec"],
        r"argument --ref_encoding: the name of a text encoding expected",
    ),
    (
        "option-task-xml-without-task",
        {"task.xml": TASKS_XML},
        ["--task_xml", "{tmp}/task.xml"],
        r"--task_xml: .*give --task NAME",
    ),
    (
        "option-task-file-and-task-xml",
        {"task.xml": TASKS_XML, "t.toml": 'content = ["A"]\n'},
        ["--task", "{tmp}/t.toml", "--task_xml", "{tmp}/task.xml"],
        r"--task_xml: --task_xml gives the tasks a --task NAME picks from",
    ),
    (
        "option-seed-negative",
        {},
        ["--compute_confidence_data", "--seed", "-1"],
        r"argument --seed: a whole number from 0 to \d+ expected",
    ),
    (
        "option-resamples-unbounded",
        {},
        ["--compute_confidence_data", "--resamples", "99999999999999"],
        r"argument --resamples: a whole number from 1 to 100000 expected",
    ),
    (
        "option-workers-zero",
        {},
        ["--workers", "0"],
        r"argument --workers: a whole number from 1 to 256 expected",
    ),
]


@pytest.mark.parametrize(
    ("files", "argv", "pattern"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_malformed_input_exits_2_naming_where_and_what(tmp_path, capsys, files, argv, pattern):
    for name, content in {"ref.json": GOOD_REF, "hyp.json": GOOD_HYP, **files}.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    if "--file" not in argv and "--dir" not in argv:
        argv = ["--file", str(tmp_path / "hyp.json"), "--ref_file", str(tmp_path / "ref.json"), *argv]
    out = tmp_path / "out"
    command = ["mat", *argv, "--json", str(out / "scores.json"), "--csv_output_dir", str(out / "csv")]
    try:
        status = main(command)
    except SystemExit as exit_:  # argparse refuses option values itself
        status = exit_.code
    err = capsys.readouterr().err
    assert status == 2, err
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("usage:")]
    message = lines[-1]
    assert re.search(pattern, message), message
    assert not out.exists(), "nothing is written on bad input"


CAMPAIGN = """scorer = "mat"

[reference]
path = "{sample}/ref"

[options]
{option}

[systems.good]
path = "{sample}/good"
"""


@pytest.mark.parametrize(
    ("option", "pattern"),
    [
        ('equivalence_classes = ["PLACE"]', r'c\.toml:7: options\.equivalence_classes: "CLASS=a,b" expected'),
        (
            'equivalence_classes = ["P=A,B", "Q=B"]',
            r"c\.toml:7: options\.equivalence_classes: label 'B' is in two classes",
        ),
        ('equivalence_classes = ["P="]', r"c\.toml:7: options\.equivalence_classes: expected a class label"),
        ('task = "missing.toml"', r"c\.toml:7: options\.task: file 'missing\.toml' not found"),
        ('task = "t.toml"', r"t\.toml:1: expected 'content' to be a non-empty list"),
    ],
)
def test_campaign_label_options_name_the_campaign_line(tmp_path, capsys, option, pattern):
    (tmp_path / "t.toml").write_text("content = 5\n", encoding="utf-8")
    campaign = tmp_path / "c.toml"
    campaign.write_text(CAMPAIGN.format(sample=SAMPLE, option=option), encoding="utf-8")
    status = main(["campaign", str(campaign), "--store", str(tmp_path / "store")])
    err = capsys.readouterr().err
    assert status == 2, err
    assert re.search(pattern, err.strip().splitlines()[-1]), err
    assert not (tmp_path / "store").exists()
