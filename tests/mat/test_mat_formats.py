"""``iescore mat`` on every reader and label option end to end (issue 12, points 1, 2, 7): CoNLL,
brat, XML overlay, encodings, equivalence classes, ignore, task files. Counts are worked out by hand in
the comments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from iescore.tasks.cli.main import main


def _score(tmp_path: Path, capsys, *argv: str) -> dict[str, dict]:
    out_json = tmp_path / "out.json"
    status = main(["mat", *argv, "--store", str(tmp_path / "store"), "--json", str(out_json)])
    err = capsys.readouterr().err
    assert status == 0, err
    rows = json.loads(out_json.read_text())["tables"]["tag"]
    return {r["tag"]: r for r in rows if r["file"] == "<all>"}


def _counts(row: dict) -> tuple[int, ...]:
    return (
        row["match"],
        row["refclash"],
        row["missing"],
        row["hypclash"],
        row["spurious"],
        row["test_units"],
    )


def test_conll_files(tmp_path, capsys):
    # ref: [John Smith]PER visited [Paris]LOC ; hyp: [John]PER [Smith]PER visited [Paris]ORG, latin-1.
    # Signal "John Smith visited Paris": ref PER [0,10), LOC [19,24); hyp PER [0,4), PER [5,10), ORG [19,24).
    # Chunk {PER [0,10), PER [0,4), PER [5,10)}: similarities 0.1 + 0.9 x 4/10 = 0.46 and 0.1 + 0.9 x 5/10
    # = 0.55: the assignment takes [5,10), which lies inside [0,10) (hyp undermark, ref refovermark), and
    # [0,4) is spurious. Paris: tagclash. Tokens: 4 in the hypothesis.
    (tmp_path / "ref.conll").write_text("John B-PER\nSmith I-PER\nvisited O\nParis B-LOC\n", encoding="utf-8")
    (tmp_path / "hyp.conll").write_bytes(
        "John B-PER\nSmith B-PER\nvisited O\nParis B-ORG\n".encode("latin-1")
    )
    rows = _score(
        tmp_path,
        capsys,
        "--file",
        str(tmp_path / "hyp.conll"),
        "--ref_file",
        str(tmp_path / "ref.conll"),
        "--file_type",
        "conll",
        "--ref_file_type",
        "conll",
        "--encoding",
        "latin-1",
        "--tag_span_details",
    )
    # (match, refclash, missing, hypclash, spurious, test toks)
    assert _counts(rows["PER"]) == (0, 1, 0, 1, 1, 4)
    assert _counts(rows["LOC"]) == (0, 1, 0, 0, 0, 4)
    assert _counts(rows["ORG"]) == (0, 0, 0, 1, 0, 4)
    assert rows["PER"]["refovermark"] == 1 and rows["PER"]["hypundermark"] == 1
    assert rows["LOC"]["reftagclash"] == 1 and rows["ORG"]["hyptagclash"] == 1


def test_brat_files(tmp_path, capsys):
    # "Pain in the left knee": ref Disorder 0 4;17 21 (two fragments); hyp Disorder 0 4 only.
    # Fragment [0,4) matches, fragment [17,21) is missing: match 1, missing 1; P 1/1, R 1/2.
    for side in ("ref", "hyp"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "d.txt").write_text("Pain in the left knee", encoding="utf-8")
    (tmp_path / "ref" / "d.ann").write_text("T1\tDisorder 0 4;17 21\tPain knee\n", encoding="utf-8")
    (tmp_path / "hyp" / "d.ann").write_text("T1\tDisorder 0 4\tPain\n", encoding="utf-8")
    rows = _score(
        tmp_path,
        capsys,
        "--dir",
        str(tmp_path / "hyp"),
        "--ref_dir",
        str(tmp_path / "ref"),
        "--file_type",
        "brat",
        "--ref_file_type",
        "brat",
    )
    assert _counts(rows["Disorder"])[:5] == (1, 0, 1, 0, 0)
    assert (rows["<all>"]["precision"], rows["<all>"]["recall"]) == pytest.approx((1.0, 0.5))
    assert rows["<all>"]["test_docs"] == 1


def test_xml_overlay_against_mat_json(tmp_path, capsys):
    # The overlay keeps <p> and "&amp;" in the signal: '<p>A&amp;B <ORG>Acme</ORG></p>' has the signal
    # '<p>A&amp;B Acme</p>' (ORG at [11,15)); the mat-json reference holds that signal with ORG [11,15).
    (tmp_path / "hyp.xml").write_text("<p>A&amp;B <ORG>Acme</ORG></p>", encoding="utf-8")
    reference = {
        "signal": "<p>A&amp;B Acme</p>",
        "version": 2,
        "asets": [{"type": "ORG", "annots": [[11, 15]]}],
    }
    (tmp_path / "ref.json").write_text(json.dumps(reference), encoding="utf-8")
    rows = _score(
        tmp_path,
        capsys,
        "--file",
        str(tmp_path / "hyp.xml"),
        "--ref_file",
        str(tmp_path / "ref.json"),
        "--file_type",
        "xml-inline",
        "--xml_input_is_overlay",
        "--content_annotations",
        "ORG",
    )
    assert _counts(rows["ORG"])[:5] == (1, 0, 0, 0, 0)


def _labelled(tmp_path: Path) -> tuple[Path, Path]:
    # Signal "a b c d"; ref CITY [0,1), TOWN [2,3), ENAMEX(type=PERSON) [4,5); hyp TOWN [0,1), CITY [2,3),
    # ENAMEX(type=PERSON) [4,5), ENAMEX(type=ORG) [6,7).
    def doc(spans):
        asets = {}
        for label, start, end, kind in spans:
            asets.setdefault(label, []).append([start, end] + ([kind] if label == "ENAMEX" else []))
        return {
            "signal": "a b c d",
            "asets": [
                {"type": k, "attrs": ["type"] if k == "ENAMEX" else [], "annots": v} for k, v in asets.items()
            ],
        }

    ref = doc([("CITY", 0, 1, None), ("TOWN", 2, 3, None), ("ENAMEX", 4, 5, "PERSON")])
    hyp = doc(
        [("TOWN", 0, 1, None), ("CITY", 2, 3, None), ("ENAMEX", 4, 5, "PERSON"), ("ENAMEX", 6, 7, "ORG")]
    )
    (tmp_path / "ref.json").write_text(json.dumps(ref), encoding="utf-8")
    (tmp_path / "hyp.json").write_text(json.dumps(hyp), encoding="utf-8")
    return tmp_path / "hyp.json", tmp_path / "ref.json"


def test_equivalence_class_and_ignore(tmp_path, capsys):
    hyp, ref = _labelled(tmp_path)
    base = ["--file", str(hyp), "--ref_file", str(ref)]
    # Without classes: CITY/TOWN swapped on both spans: two tag clashes.
    rows = _score(tmp_path, capsys, *base)
    assert _counts(rows["CITY"])[:5] == (0, 1, 0, 1, 0) and _counts(rows["TOWN"])[:5] == (0, 1, 0, 1, 0)
    # PLACE = CITY + TOWN: both become PLACE: two matches under PLACE, no CITY/TOWN rows.
    rows = _score(tmp_path, capsys, *base, "--equivalence_class", "PLACE", "CITY,TOWN")
    assert _counts(rows["PLACE"])[:5] == (2, 0, 0, 0, 0) and "CITY" not in rows
    # Ignoring the member TOWN: ref CITY [0,1) vs hyp (TOWN dropped) -> missing; hyp CITY [2,3) vs ref
    # (TOWN dropped) -> spurious: PLACE match 0, missing 1, spurious 1.
    rows = _score(tmp_path, capsys, *base, "--equivalence_class", "PLACE", "CITY,TOWN", "--ignore", "TOWN")
    assert _counts(rows["PLACE"])[:5] == (0, 0, 1, 0, 1)
    # Ignoring the class drops both members: only ENAMEX rows remain.
    rows = _score(tmp_path, capsys, *base, "--equivalence_class", "PLACE", "CITY,TOWN", "--ignore", "PLACE")
    assert set(rows) == {"ENAMEX", "<all>"}


def test_task_file_with_alias(tmp_path, capsys):
    hyp, ref = _labelled(tmp_path)
    task = tmp_path / "ne.toml"
    task.write_text(
        'content = ["ENAMEX"]\n\n[[alias]]\nlabel = "ENAMEX"\n'
        'attributes = { type = "PERSON" }\nname = "PERSON"\n',
        encoding="utf-8",
    )
    # Only ENAMEX is scored: PERSON [4,5) matches; ENAMEX(type=ORG) [6,7) is spurious under ENAMEX.
    rows = _score(tmp_path, capsys, "--file", str(hyp), "--ref_file", str(ref), "--task", str(task))
    assert set(rows) == {"ENAMEX", "PERSON", "<all>"}
    assert _counts(rows["PERSON"])[:5] == (1, 0, 0, 0, 0)
    assert _counts(rows["ENAMEX"])[:5] == (0, 0, 0, 0, 1)
