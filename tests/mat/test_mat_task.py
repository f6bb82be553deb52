"""MAT tasks (issue 25, point 2): ``--task`` takes a MAT task.xml (MAT 1.3 ``<tags>``, MAT 2
``<annotation_set_descriptors>``, MAT 3 ``<annotations>``), the name of MAT's sample task, a name
picked among the tasks of ``--task_xml`` files, or the TOML form; all make the same :class:`MatTask`.

The task.xml texts below follow MAT's documentation (sample_task.html of MAT 1.3 and 2.0, and the task
XML use cases); the expected labels are read off them by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from iescore.pipeline.mat.labels import annotation_table, label_rules
from iescore.pipeline.mat.readers import DocumentColumns, Span, document_of
from iescore.pipeline.mat.task import BUILT_IN_TASKS, Alias, MatTask, read_task_file, resolve_task
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "mat-sample"

# MAT 1.3's sample task.xml layout (docs_1_3/html/sample_task.html), plus an attr_set alias as MAT 1.3's
# task XML use cases define "a single content annotation, partitioned by attribute values".
MAT_1_3 = """<task name="Named Entity">
  <tags inherit_structure="yes">
    <tag name="PERSON" category="content"><ui css="background-color: CCFF66" accelerator="P"/></tag>
    <tag name="LOCATION" category="content"/>
    <tag name="ENAMEX" category="content">
      <attr_set name="ORG"><attr name="type" value="ORGANIZATION"/><ui css="x"/></attr_set>
    </tag>
  </tags>
  <workflows><workflow name="Hand annotation"><step name="zone"/></workflow></workflows>
</task>
"""

# MAT 2's layout (docs_2_0_4/html/sample_task.html): two tasks in <tasks>, a choice with an effective label.
MAT_2 = """<?xml version="1.0" encoding="utf-8"?>
<tasks>
  <task name='Named Entity'>
    <annotation_set_descriptors all_annotations_known='no' inherit='category:zone,category:token'>
      <annotation_set_descriptor category='content' name='content'>
        <annotation label='PERSON'/>
        <annotation label='LOCATION'/>
        <annotation label='ORGANIZATION'/>
      </annotation_set_descriptor>
    </annotation_set_descriptors>
  </task>
  <task name='Entities by type'>
    <annotation_set_descriptors inherit='category:zone'>
      <annotation_set_descriptor category='token' name='token'>
        <annotation label='tok'/>
      </annotation_set_descriptor>
      <annotation_set_descriptor category='content' name='content'>
        <annotation label='ENAMEX'/>
        <annotation label='NOTE' span='no'/>
        <attribute of_annotation='ENAMEX' name='type'>
          <choice effective_label='PERSON'>PER</choice>
          <choice>LOC</choice>
        </attribute>
      </annotation_set_descriptor>
    </annotation_set_descriptors>
  </task>
</tasks>
"""

# MAT 3's <annotations> layout (current_docs/html/create_task.html).
MAT_3 = """<task name="Widget Annotation">
  <languages><language code='en' name='English'/></languages>
  <annotations inherit="category:zone,category:token">
    <span label='PERSON'/>
    <span label='ENAMEX'>
      <string name='type'><choice effective_label='LOC'>LOCATION</choice></string>
    </span>
    <spanless label='RELATION'/>
  </annotations>
</task>
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_mat_1_3_tags_and_attr_set_alias(tmp_path):
    task = read_task_file(_write(tmp_path, "task.xml", MAT_1_3))
    # inherit_structure="yes" brings MAT's token annotation lex; the attr_set is ENAMEX type=ORGANIZATION.
    assert task == MatTask(
        "Named Entity",
        frozenset({"PERSON", "LOCATION", "ENAMEX"}),
        frozenset({"lex"}),
        (Alias("ENAMEX", (("type", "ORGANIZATION"),), "ORG"),),
    )


def test_mat_2_descriptors_pick_a_task_by_name(tmp_path):
    path = _write(tmp_path, "task.xml", MAT_2)
    named = resolve_task("Named Entity", [path])
    assert (named.content, named.token) == (
        frozenset({"PERSON", "LOCATION", "ORGANIZATION"}),
        frozenset({"lex"}),
    )
    typed = resolve_task("Entities by type", [path])
    # token from its own token set (zone only is inherited: no lex); NOTE is spanless, not scored; only
    # the choice with an effective label is an alias.
    assert typed == MatTask(
        "Entities by type",
        frozenset({"ENAMEX"}),
        frozenset({"tok"}),
        (Alias("ENAMEX", (("type", "PER"),), "PERSON"),),
    )


def test_mat_2_task_directory_stands_for_its_task_xml(tmp_path):
    (tmp_path / "ne").mkdir()
    _write(tmp_path / "ne", "task.xml", MAT_2)
    assert resolve_task("Entities by type", [tmp_path / "ne"]).content == frozenset({"ENAMEX"})


def test_the_only_listed_task_of_a_file_is_taken(tmp_path):
    # A parent marked visible='no' (MAT does not list it) beside one task: --task FILE means that task.
    path = _write(
        tmp_path,
        "task.xml",
        "<tasks><task name='Base' visible='no'/><task name='Child' parent='Base'>"
        "<tags><tag name='X' category='content'/></tags></task></tasks>",
    )
    assert read_task_file(path).name == "Child"


def test_mat_3_annotations(tmp_path):
    task = read_task_file(_write(tmp_path, "task.xml", MAT_3))
    assert task == MatTask(
        "Widget Annotation",
        frozenset({"PERSON", "ENAMEX"}),
        frozenset({"lex"}),
        (Alias("ENAMEX", (("type", "LOCATION"),), "LOC"),),
    )


def test_toml_and_xml_forms_make_the_same_task(tmp_path):
    toml = read_task_file(
        _write(
            tmp_path,
            "t.toml",
            'content = ["PERSON", "LOCATION", "ENAMEX"]\n\n[[alias]]\nlabel = "ENAMEX"\n'
            'attributes = { type = "ORGANIZATION" }\nname = "ORG"\n',
        )
    )
    xml = read_task_file(_write(tmp_path, "task.xml", MAT_1_3))
    assert (toml.content, toml.token, toml.aliases) == (xml.content, xml.token, xml.aliases)


def test_built_in_named_entity_is_mat_sample_task():
    # MAT's sample task 'Named Entity': content PERSON, LOCATION, ORGANIZATION; tokens lex (inherited).
    task = resolve_task("Named Entity")
    assert task is BUILT_IN_TASKS["Named Entity"]
    assert (task.content, task.token, task.aliases) == (
        frozenset({"PERSON", "LOCATION", "ORGANIZATION"}),
        frozenset({"lex"}),
        (),
    )


def test_task_xml_shadows_the_built_in_name(tmp_path):
    # MATScore looks names up among the installed tasks: a task.xml given wins over the built-in copy.
    path = _write(
        tmp_path,
        "task.xml",
        "<task name='Named Entity'><tags><tag name='X' category='content'/></tags></task>",
    )
    assert resolve_task("Named Entity", [path]).content == frozenset({"X"})


def test_aliases_of_an_xml_task_rename_annotations(tmp_path):
    task = read_task_file(_write(tmp_path, "task.xml", MAT_1_3))
    spans = (
        Span("ENAMEX", 0, 3, {"type": "ORGANIZATION"}),
        Span("ENAMEX", 4, 7, {"type": "PERSON"}),
        Span("DATE", 8, 9, {}),
        Span("lex", 0, 3, {}),
    )
    columns = DocumentColumns.of({"d": document_of("d", "IBM Ann x", spans)})
    frame = annotation_table(columns, "hyp", label_rules(task=task)).to_pandas()
    # ENAMEX type=ORGANIZATION -> ORG; ENAMEX type=PERSON keeps ENAMEX; DATE is not in the task.
    assert list(frame.loc[frame["kind"] == "content", "label"]) == ["ORG", "ENAMEX"]
    assert list(frame.loc[frame["kind"] == "token", "label"]) == ["lex"]


def test_command_with_task_name_scores_the_task_labels_only(tmp_path, capsys):
    out = tmp_path / "scores.json"
    argv = ["mat", "--dir", str(SAMPLE / "good"), "--ref_dir", str(SAMPLE / "ref"), "--json", str(out)]
    assert main([*argv, "--task", "Named Entity"]) == 0, capsys.readouterr().err
    rows = {r["tag"]: r for r in json.loads(out.read_text())["tables"]["tag"] if r["file"] == "<all>"}
    # data/mat-sample/README.md's "good" table without its DATE row (DATE is not in the task):
    # <all> = PERSON (2,1,0,1,0) + LOCATION (1,1,0,0,0) + ORGANIZATION (1,0,0,1,0).
    assert set(rows) == {"PERSON", "LOCATION", "ORGANIZATION", "<all>"}
    counts = tuple(rows["<all>"][k] for k in ("match", "refclash", "missing", "hypclash", "spurious"))
    assert counts == (4, 2, 0, 2, 0)


@pytest.mark.parametrize("form", ["xml", "toml"])
def test_command_same_scores_from_task_xml_and_toml(tmp_path, capsys, form):
    text = {
        "xml": "<task name='NE'><tags><tag name='PERSON' category='content'/>"
        "<tag name='lex' category='token'/></tags></task>",
        "toml": 'content = ["PERSON"]\ntoken = ["lex"]\n',
    }[form]
    task = _write(tmp_path, f"task.{form}", text)
    out = tmp_path / "scores.json"
    argv = ["mat", "--dir", str(SAMPLE / "good"), "--ref_dir", str(SAMPLE / "ref"), "--json", str(out)]
    assert main([*argv, "--task", str(task)]) == 0, capsys.readouterr().err
    rows = {r["tag"]: r for r in json.loads(out.read_text())["tables"]["tag"] if r["file"] == "<all>"}
    # README's PERSON row: match 2, refclash 1, missing 0, hypclash 1, spurious 0.
    assert set(rows) == {"PERSON", "<all>"}
    assert tuple(rows["<all>"][k] for k in ("match", "refclash", "missing", "hypclash", "spurious")) == (
        2,
        1,
        0,
        1,
        0,
    )
