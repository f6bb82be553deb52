"""The MAT family's core (issue 12, points 1, 2, 3, 4, 6, 7, 9 text, 10): readers, labels, pairing,
tag-level table, details, confusability, command and stages.

Expected numbers come from hand calculations written beside each test, or from
``data/mat-sample/README.md`` (the sample's hand-worked tables), never from iescore's own output.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.mat import MAT, mat_statistics
from iescore.pipeline.mat.compare import check_signals
from iescore.pipeline.mat.files import file_pairs
from iescore.pipeline.mat.labels import annotation_table, label_rules
from iescore.pipeline.mat.measures import rates, score_table
from iescore.pipeline.mat.pairing import pair_spans
from iescore.pipeline.mat.readers import DocumentColumns, Span, document_of, read_document
from iescore.pipeline.mat.tally import DETAIL_COLUMNS, tag_counts
from iescore.pipeline.mat.task import read_task_file
from iescore.schemas import MAT_ANNOTATIONS
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "mat-sample"
COLUMNS = ["file", "side", "kind", "label", "start", "end", "attributes", "index", "source_label"]


def _annotations(rows: list[tuple]) -> pa.Table:
    """Rows ``(file, side, label, start, end)`` (content) as an annotations table, indices by position."""
    out = []
    counters: dict[tuple[str, str], int] = {}
    for file, side, label, start, end in rows:
        k = counters.get((file, side), 0)
        counters[(file, side)] = k + 1
        out.append((file, side, "content", label, start, end, "{}", k, label))
    frame = pd.DataFrame(out, columns=COLUMNS).astype({"start": np.int64, "end": np.int64, "index": np.int64})
    return pa.Table.from_pandas(frame, schema=MAT_ANNOTATIONS, preserve_index=False)


def _pairs(annotations: pa.Table) -> pd.DataFrame:
    """The pairs of ``annotations`` as a frame."""
    return pair_spans(annotations).to_pandas()


def _types(pairs: pd.DataFrame) -> list[tuple]:
    return [
        (r.type, r.ref_index, r.hyp_index)
        for r in pairs[["type", "ref_index", "hyp_index"]].itertuples(index=False)
    ]


# --- pairing (point 3) ------------------------------------------------------------------------------


def test_touching_spans_do_not_pair():
    # ref [0,5) and hyp [5,9) only touch: two chunks, a missing and a spurious.
    pairs = _pairs(_annotations([("d", "ref", "X", 0, 5), ("d", "hyp", "X", 5, 9)]))
    assert sorted(_types(pairs)) == [("missing", 0, -1), ("spurious", -1, 0)]


def test_one_a_side_pairs_whatever_the_similarity():
    # ref X [0,10), hyp Y [9,12): one chunk, one each: a clash (tagplusoverlap), similarity
    # 0.1 x 0 + 0.9 x 1/12 = 0.075.
    pairs = _pairs(_annotations([("d", "ref", "X", 0, 10), ("d", "hyp", "Y", 9, 12)]))
    assert _types(pairs) == [("tagplusoverlap", 0, 0)]
    assert pairs["similarity"].iloc[0] == pytest.approx(0.075)


def test_assignment_maximizes_total_similarity_and_leaves_the_rest_unpaired():
    # ref A [0,10) X; hyps B [0,4) X (sim 0.1 + 0.9 x 4/10 = 0.46) and C [2,10) Y (0.9 x 8/10 = 0.72):
    # one ref, two hyps; the assignment takes C (0.72 > 0.46) and B is spurious although it overlaps A.
    pairs = _pairs(
        _annotations([("d", "ref", "X", 0, 10), ("d", "hyp", "X", 0, 4), ("d", "hyp", "Y", 2, 10)])
    )
    assert sorted(_types(pairs)) == [("spurious", -1, 0), ("tagplusundermark", 0, 1)]


def test_assignment_prefers_two_pairs_over_one_better_pair():
    # refs R0 [0,4) X, R1 [4,10) X; hyp H0 [0,10) X, H1 [3,5) X. Pairs: R0-H0 0.1+0.9x4/10=0.46,
    # R0-H1 0.1+0.9x1/5=0.28, R1-H0 0.1+0.9x6/10=0.64, R1-H1 0.1+0.9x1/7=0.2286.
    # R0-H0 + R1-H1 = 0.6886 < R0-H1 + R1-H0 = 0.92: the optimum pairs R0-H1 and R1-H0.
    pairs = _pairs(
        _annotations(
            [
                ("d", "ref", "X", 0, 4),
                ("d", "ref", "X", 4, 10),
                ("d", "hyp", "X", 0, 10),
                ("d", "hyp", "X", 3, 5),
            ]
        )
    )
    assert sorted(_types(pairs)) == [("overlap", 0, 1), ("overmark", 1, 0)]


def test_pairing_does_not_depend_on_input_order():
    # Two hypothesis spans tie for one reference span (each 0.1 + 0.9 x 3/7); whatever the order of the
    # input rows, the same one is chosen (the tie rule's canonical order).
    rows = [
        ("d", "ref", "P", 11, 18),
        ("d", "hyp", "P", 11, 14),
        ("d", "hyp", "P", 15, 18),
        ("d", "ref", "Q", 30, 40),
    ]
    results = set()
    for perm in itertools.permutations(rows):
        pairs = _pairs(_annotations(list(perm)))
        results.add(
            tuple(
                sorted(
                    zip(
                        pairs["type"], pairs["refstart"].fillna(-1), pairs["hypstart"].fillna(-1), strict=True
                    )
                )
            )
        )
    assert len(results) == 1


def test_nested_annotations_on_one_side_are_scored():
    # MAT 1.3 could not score these ("undefined"): ref X [0,10) with Y [2,4) inside; hyp X [0,10), Y [2,4).
    # One chunk of four; the assignment pairs equal spans: two matches.
    pairs = _pairs(
        _annotations(
            [
                ("d", "ref", "X", 0, 10),
                ("d", "ref", "Y", 2, 4),
                ("d", "hyp", "Y", 2, 4),
                ("d", "hyp", "X", 0, 10),
            ]
        )
    )
    assert sorted(_types(pairs)) == [("match", 0, 1), ("match", 1, 0)]


@pytest.mark.parametrize(
    ("ref", "hyp", "expected", "ref_column", "hyp_column"),
    [
        # (ref label, start, end), (hyp label, start, end), details type, ref detail, hyp detail (seed 002)
        (("X", 0, 5), ("Y", 0, 5), "tagclash", "reftagclash", "hyptagclash"),
        (("X", 0, 5), ("X", 0, 9), "overmark", "refundermark", "hypovermark"),
        (("X", 0, 9), ("X", 2, 5), "undermark", "refovermark", "hypundermark"),
        (("X", 0, 5), ("X", 3, 9), "overlap", "refoverlap", "hypoverlap"),
        (("X", 2, 5), ("Y", 0, 9), "tagplusovermark", "reftagplusundermark", "hyptagplusovermark"),
        (("X", 0, 9), ("Y", 0, 5), "tagplusundermark", "reftagplusovermark", "hyptagplusundermark"),
        (("X", 0, 5), ("Y", 3, 9), "tagplusoverlap", "reftagplusoverlap", "hyptagplusoverlap"),
    ],
)
def test_span_details(ref, hyp, expected, ref_column, hyp_column):
    annotations = _annotations([("d", "ref", *ref), ("d", "hyp", *hyp)])
    pairs = pair_spans(annotations)
    assert pairs.column("type").to_pylist() == [expected]
    counts = tag_counts(annotations, pairs, ["d"]).to_pandas().set_index("tag")
    # One clash: refclash 1 under the ref label, in exactly one ref detail column; hypclash likewise.
    assert counts.loc[ref[0], "refclash"] == 1 and counts.loc[ref[0], ref_column] == 1
    assert counts.loc[hyp[0], "hypclash"] == 1 and counts.loc[hyp[0], hyp_column] == 1
    assert counts[[c for c in DETAIL_COLUMNS if c.startswith("ref")]].to_numpy().sum() == 1
    assert counts[[c for c in DETAIL_COLUMNS if c.startswith("hyp")]].to_numpy().sum() == 1
    assert counts[["match", "missing", "spurious"]].to_numpy().sum() == 0


# --- measures (point 4) -----------------------------------------------------------------------------


def test_measure_conventions_for_empty_denominators():
    # (match, refclash, missing, hypclash, spurious): nothing at all -> P 1 (hyptotal 0), R 1 (reftotal 0),
    # F 2x1x1/2 = 1; only a missing -> P 1, R 0, F 0; only a spurious -> P 0, R 1, F 0; a clash -> P = R = 0,
    # F 0 (P + R = 0); 1 match 1 spurious -> P 1/2, R 1, F 2/3.
    cases = np.array([[0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 1], [0, 1, 0, 1, 0], [1, 0, 0, 0, 1]])
    sums = {
        name: cases[:, k] for k, name in enumerate(("match", "refclash", "missing", "hypclash", "spurious"))
    }
    values = rates(sums)
    assert values["precision"].tolist() == pytest.approx([1, 1, 0, 0, 0.5])
    assert values["recall"].tolist() == pytest.approx([1, 0, 1, 0, 1])
    assert values["fmeasure"].tolist() == pytest.approx([1, 0, 0, 0, 2 / 3])
    # The family's formula is the same function over any leading axes.
    assert MAT.measures(cases)[:, 2].tolist() == pytest.approx([1, 0, 0, 0, 2 / 3])


# --- readers (point 2) ------------------------------------------------------------------------------


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_mat_json_reads_spans_and_attributes(tmp_path):
    doc = {
        "signal": "Ann saw Bo.",
        "version": 2,
        "asets": [
            {
                "type": "ENAMEX",
                "hasSpan": True,
                "attrs": [{"name": "type"}],
                "annots": [[0, 3, "PERSON"], [8, 10, "PERSON"]],
            },
            {"type": "SEG", "hasSpan": False, "attrs": [], "annots": [["x"]]},
        ],
    }
    document = read_document(_write(tmp_path, "d.json", json.dumps(doc)), "mat-json")
    assert document.signal == "Ann saw Bo."
    assert [(s.label, s.start, s.end, s.attributes) for s in document.spans] == [
        ("ENAMEX", 0, 3, {"type": "PERSON"}),
        ("ENAMEX", 8, 10, {"type": "PERSON"}),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # line 2 is ' "asets": [}': the '}' where a value belongs is its 12th character.
        ('{"signal": "ab",\n "asets": [}', r"d.json:2: malformed JSON at column 12"),
        ('{"signal": "ab", "version": 3, "asets": []}', "version 3 is not supported"),
        ('{"signal": "ab", "asets": ' + "[" * 100000, "nested too deeply"),
        (
            '{"signal": "ab", "asets": [{"type": "X", "annots": [[1, 3]]}]}',
            r"ends outside the signal \(2 characters\)",
        ),
        ('{"signal": "ab", "asets": [{"type": "X", "annots": [[2, 1]]}]}', "starts after it ends"),
    ],
)
def test_mat_json_bad_input(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_document(_write(tmp_path, "d.json", text), "mat-json")


def test_xml_inline_decodes_entities(tmp_path):
    path = _write(tmp_path, "d.xml", "<DOC><ORG>AT&amp;T</ORG> and <P a='1'>Bo</P></DOC>")
    document = read_document(path, "xml-inline")
    # "AT&T and Bo": ORG [0,4), P [9,11) with its attribute.
    assert document.signal == "AT&T and Bo"
    assert [(s.label, s.start, s.end, s.attributes) for s in document.spans] == [
        ("ORG", 0, 4, {}),
        ("P", 9, 11, {"a": "1"}),
    ]


def test_xml_overlay_keeps_other_tags_and_escapes(tmp_path):
    text = '<?xml version="1.0"?><!-- c --><TEXT>AT&amp;T <ORG>Inc</ORG></TEXT>'
    document = read_document(_write(tmp_path, "d.xml", text), "xml-inline", overlay=True, known={"ORG"})
    # Only the ORG tags go: '<?xml version="1.0"?><!-- c --><TEXT>AT&amp;T ' is 46 characters
    # (21 + 10 + 6 + 9), so ORG is [46, 49) and "&amp;" stays five characters.
    assert document.signal == '<?xml version="1.0"?><!-- c --><TEXT>AT&amp;T Inc</TEXT>'
    assert [(s.label, s.start, s.end) for s in document.spans] == [("ORG", 46, 49)]


def test_invalid_xml_names_the_position(tmp_path):
    # Line 2 is '<A></B></DOC>'; expat points at the end tag's name, B, the 6th character.
    with pytest.raises(InputError, match=r"d.xml:2: invalid XML at column 6: mismatched tag"):
        read_document(_write(tmp_path, "d.xml", "<DOC>\n<A></B></DOC>"), "xml-inline")


def test_brat_discontinuous_annotation_is_one_span_per_fragment(tmp_path):
    _write(tmp_path, "d.txt", "Pain in the left knee")
    ann = _write(
        tmp_path, "d.ann", "T1\tDisorder 0 4;17 21\tPain knee\nA1\tNegated T1\nR1\tRel Arg1:T1 Arg2:T1\n"
    )
    document = read_document(ann, "brat")
    assert [(s.label, s.start, s.end, s.attributes) for s in document.spans] == [
        ("Disorder", 0, 4, {"id": "T1", "fragment": 0, "Negated": True}),
        ("Disorder", 17, 21, {"id": "T1", "fragment": 1, "Negated": True}),
    ]


def test_brat_text_must_match_the_signal(tmp_path):
    _write(tmp_path, "d.txt", "Pain in the left knee")
    ann = _write(tmp_path, "d.ann", "T1\tDisorder 0 4\tPian\n")
    with pytest.raises(InputError, match="d.ann:1: T1: its text 'Pian'"):
        read_document(ann, "brat")


def test_conll_bio_and_bioes_chunks_as_seqeval(tmp_path):
    # seqeval's README: get_entities(['B-PER', 'I-PER', 'O', 'B-LOC']) == [('PER', 0, 1), ('LOC', 3, 3)];
    # lenient IOB: an I-ORG after O starts a chunk; BIOES: S-PER alone, B-LOC E-LOC one chunk.
    text = "A B-PER\nB I-PER\nc O\nD B-LOC\n\nE I-ORG\nF I-ORG\n\n-DOCSTART- O\n\nG S-PER\nH B-LOC\nI E-LOC\n"
    document = read_document(_write(tmp_path, "d.conll", text), "conll")
    assert document.signal == "A B c D\nE F\nG H I"
    chunks = [(s.label, document.signal[s.start : s.end]) for s in document.spans if s.label != "lex"]
    assert chunks == [("PER", "A B"), ("LOC", "D"), ("ORG", "E F"), ("PER", "G"), ("LOC", "H I")]
    assert sum(s.label == "lex" for s in document.spans) == 9


def test_differing_signals_name_the_first_differing_character():
    ref = pa.table({"file": ["a"], "source": ["ref/a"], "signal": ["ab\ncd"], "signal_sha256": ["1"]})
    hyp = pa.table({"file": ["a"], "source": ["hyp/a"], "signal": ["ab\nxd"], "signal_sha256": ["2"]})
    with pytest.raises(
        InputError, match=r"hyp/a: .* at character 3 \(line 2, column 1\): reference 'c', hypothesis 'x'"
    ):
        check_signals(ref, hyp)


# --- labels (point 7) -------------------------------------------------------------------------------


def _documents() -> dict:
    spans = (
        Span("ENAMEX", 0, 3, {"type": "PERSON"}),
        Span("ENAMEX", 4, 7, {"type": "ORG"}),
        Span("CITY", 8, 9, {}),
        Span("TOWN", 10, 11, {}),
        Span("lex", 0, 3, {}),
    )
    return {"d": document_of("d", "Ann IBM x y", spans)}


def _labelled(documents: dict, side: str, rules) -> pd.DataFrame:
    """The annotations of ``documents`` under ``rules``, as a frame."""
    return annotation_table(DocumentColumns.of(documents), side, rules).to_pandas()


def test_equivalence_classes_and_ignore():
    # PLACE = CITY + TOWN. Ignoring TOWN (a member) drops TOWN only; ignoring PLACE drops both.
    member = _labelled(
        _documents(), "ref", label_rules(equivalence_classes=[("PLACE", "CITY,TOWN")], ignore="TOWN")
    )
    assert sorted(member.loc[member["kind"] == "content", "label"]) == ["ENAMEX", "ENAMEX", "PLACE"]
    both = _labelled(
        _documents(), "ref", label_rules(equivalence_classes=[("PLACE", "CITY,TOWN")], ignore="PLACE")
    )
    assert sorted(both.loc[both["kind"] == "content", "label"]) == ["ENAMEX", "ENAMEX"]
    # lex is a token annotation by default, not content.
    assert list(both.loc[both["kind"] == "token", "label"]) == ["lex"]


def test_task_file_aliases_and_content_labels(tmp_path):
    task = _write(
        tmp_path,
        "task.toml",
        'content = ["ENAMEX", "CITY"]\ntoken = ["lex"]\n\n[[alias]]\nlabel = "ENAMEX"\n'
        'attributes = { type = "PERSON" }\nname = "PERSON"\n',
    )
    frame = _labelled(_documents(), "hyp", label_rules(task=read_task_file(task)))
    # ENAMEX type=PERSON -> PERSON; ENAMEX type=ORG keeps ENAMEX; CITY content; TOWN not in the task.
    assert list(frame.loc[frame["kind"] == "content", "label"]) == ["PERSON", "ENAMEX", "CITY"]


def test_bad_task_file_is_input_error(tmp_path):
    task = _write(tmp_path, "task.toml", 'content = "ENAMEX"\n')
    with pytest.raises(InputError, match="task.toml:1: expected 'content' to be a non-empty list"):
        read_task_file(task)


# --- files (point 1) --------------------------------------------------------------------------------


def test_file_pairs_suffixes_and_file_re(tmp_path):
    (tmp_path / "hyp").mkdir()
    (tmp_path / "ref").mkdir()
    for name in ("d1.txt.json", "d2.txt.json", "notes.md"):
        (tmp_path / "hyp" / name).write_text("{}")
    for name in ("d1.json", "d2.json"):
        (tmp_path / "ref" / name).write_text("{}")
    # Removal before addition: d1.txt.json - .txt.json + .json = d1.json; file_re matches whole names.
    pairs = file_pairs(
        directory=str(tmp_path / "hyp"),
        ref_dir=str(tmp_path / "ref"),
        file_re=r"d\d\.txt\.json",
        ref_fsuff_off=".txt.json",
        ref_fsuff_on=".json",
    )
    assert [(p.key, p.ref.name) for p in pairs] == [("d1.txt.json", "d1.json"), ("d2.txt.json", "d2.json")]
    with pytest.raises(InputError, match="matches no file name"):
        file_pairs(directory=str(tmp_path / "hyp"), ref_dir=str(tmp_path / "ref"), file_re="d1")
    with pytest.raises(InputError, match="no reference partner"):
        file_pairs(directory=str(tmp_path / "hyp"), ref_dir=str(tmp_path / "ref"))


# --- the command and the sample (points 1, 4, 6, 9, 10) ---------------------------------------------


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["mat", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _corpus_rows(result: dict) -> dict[str, dict]:
    return {row["tag"]: row for row in result["tables"]["tag"] if row["file"] == "<all>"}


GOOD = {  # data/mat-sample/README.md, "good": (match, refclash, missing, hypclash, spurious)
    "DATE": (0, 0, 1, 0, 0),
    "LOCATION": (1, 1, 0, 0, 0),
    "ORGANIZATION": (1, 0, 0, 1, 0),
    "PERSON": (2, 1, 0, 1, 0),
    "<all>": (4, 2, 1, 2, 0),
}
GOOD_PRF = {
    "DATE": (1, 0, 0),
    "LOCATION": (1, 1 / 2, 2 / 3),
    "ORGANIZATION": (1 / 2, 1, 2 / 3),
    "PERSON": (2 / 3, 2 / 3, 2 / 3),
    "<all>": (4 / 6, 4 / 7, 8 / 13),
}
ROUGH = {
    "DATE": (0, 1, 0, 1, 1),
    "LOCATION": (0, 2, 0, 1, 0),
    "ORGANIZATION": (1, 0, 0, 0, 0),
    "PERSON": (1, 2, 0, 3, 0),
    "<all>": (2, 5, 0, 5, 1),
}
ROUGH_PRF = {
    "DATE": (0, 0, 0),
    "LOCATION": (0, 0, 0),
    "ORGANIZATION": (1, 1, 1),
    "PERSON": (1 / 4, 1 / 3, 2 / 7),
    "<all>": (2 / 8, 2 / 7, 4 / 15),
}


@pytest.mark.parametrize(
    ("system", "extra", "counts", "prf", "test_toks"),
    [
        ("good", [], GOOD, GOOD_PRF, 18),
        (
            "rough",
            ["--file_type", "xml-inline", "--ref_fsuff_off", ".xml", "--ref_fsuff_on", ".json"],
            ROUGH,
            ROUGH_PRF,
            0,
        ),
    ],
)
@pytest.mark.parametrize("stored", [True, False], ids=["stages", "in-process"])
def test_sample_tag_table(tmp_path, capsys, monkeypatch, system, extra, counts, prf, test_toks, stored):
    # Without --store the command computes the same stages in its own process and writes no artifacts
    # (MATScore writes none); with it, Luigi runs them into the store. Both give the hand-worked tables.
    monkeypatch.chdir(tmp_path)
    out_json = tmp_path / "out.json"
    store = ["--store", str(tmp_path / "store")] if stored else []
    status, out, err = _run(
        capsys,
        "--dir",
        str(SAMPLE / system),
        "--ref_dir",
        str(SAMPLE / "ref"),
        *extra,
        *store,
        "--json",
        str(out_json),
        "--tag_span_details",
    )
    assert status == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == (["out.json", "store"] if stored else ["out.json"])
    assert any((tmp_path / "store").rglob("*.parquet")) == stored
    rows = _corpus_rows(json.loads(out_json.read_text()))
    assert list(rows) == ["DATE", "LOCATION", "ORGANIZATION", "PERSON", "<all>"]
    for tag, expected in counts.items():
        row = rows[tag]
        assert (row["match"], row["refclash"], row["missing"], row["hypclash"], row["spurious"]) == expected
        assert row["refonly"] == expected[1] + expected[2] and row["hyponly"] == expected[3] + expected[4]
        assert (row["precision"], row["recall"], row["fmeasure"]) == pytest.approx(prf[tag])
        assert row["test_docs"] == 2 and row["test_units"] == test_toks
        assert sum(row[c] for c in DETAIL_COLUMNS if c.startswith("ref")) == row["refclash"]
        assert sum(row[c] for c in DETAIL_COLUMNS if c.startswith("hyp")) == row["hypclash"]
    # Text: a header with the seed's names, the <all> row right-aligned with three decimals.
    assert out.startswith("By tag\n")
    header = out.splitlines()[1].split()
    assert header[:4] == ["tag", "test", "docs", "test"] and "reftagclash" in header
    all_line = next(line for line in out.splitlines() if line.strip().startswith("<all>"))
    assert all_line.split()[-3:] == [f"{v:.3f}" for v in prf["<all>"]]


def test_sample_span_details(tmp_path, capsys):
    # data/mat-sample/README.md, "rough": refovermark PERSON 2 (John, Bob Lee), LOCATION 1 (New York);
    # reftagclash LOCATION 1 (Paris); refundermark DATE 1; hyptagclash PERSON 1; hypovermark DATE 1.
    out_json = tmp_path / "out.json"
    status, _, err = _run(
        capsys,
        "--dir",
        str(SAMPLE / "rough"),
        "--ref_dir",
        str(SAMPLE / "ref"),
        "--file_type",
        "xml-inline",
        "--ref_fsuff_off",
        ".xml",
        "--ref_fsuff_on",
        ".json",
        "--store",
        str(tmp_path / "s"),
        "--json",
        str(out_json),
        "--tag_span_details",
        "--details",
        "--confusability",
    )
    assert status == 0, err
    result = json.loads(out_json.read_text())
    rows = _corpus_rows(result)
    assert rows["PERSON"]["refovermark"] == 2 and rows["LOCATION"]["refovermark"] == 1
    assert rows["LOCATION"]["reftagclash"] == 1 and rows["DATE"]["refundermark"] == 1
    assert rows["PERSON"]["hyptagclash"] == 1 and rows["DATE"]["hypovermark"] == 1
    assert rows["PERSON"]["hypundermark"] == 2 and rows["LOCATION"]["hypundermark"] == 1
    details = [
        (d["file"], d["type"], d["reflabel"], d["hyplabel"], d["refcontent"], d["hypcontent"])
        for d in result["details"]
    ]
    assert details == [
        ("a.xml", "undermark", "PERSON", "PERSON", "John Smith", "John"),
        ("a.xml", "match", "PERSON", "PERSON", "Mary Jones", "Mary Jones"),
        ("a.xml", "tagclash", "LOCATION", "PERSON", "Paris", "Paris"),
        ("a.xml", "overmark", "DATE", "DATE", "Monday", "Monday."),
        ("b.xml", "match", "ORGANIZATION", "ORGANIZATION", "AT&T", "AT&T"),
        ("b.xml", "spurious", None, "DATE", "", "hired"),
        ("b.xml", "undermark", "PERSON", "PERSON", "Bob Lee", "Bob"),
        ("b.xml", "undermark", "LOCATION", "LOCATION", "New York", "New"),
    ]
    # Confusability: matches and tag clashes only, plus unpaired: PERSON-PERSON 1 (Mary Jones),
    # ORGANIZATION 1, LOCATION->PERSON 1 (Paris), null->DATE 1 (hired); the undermarks are not counted.
    matrix = result["confusability"]
    cell = {
        (r, h): matrix["counts"][i][j]
        for i, r in enumerate(matrix["reference"])
        for j, h in enumerate(matrix["hypothesis"])
    }
    assert {k: v for k, v in cell.items() if v} == {
        ("ORGANIZATION", "ORGANIZATION"): 1,
        ("PERSON", "PERSON"): 1,
        ("LOCATION", "PERSON"): 1,
        ("null", "DATE"): 1,
    }


def test_single_file_and_text_outputs(tmp_path, capsys):
    status, out, err = _run(
        capsys,
        "--file",
        str(SAMPLE / "good" / "a.json"),
        "--ref_file",
        str(SAMPLE / "ref" / "a.json"),
        "--store",
        str(tmp_path / "s"),
        "--details",
        "--confusability",
    )
    assert status == 0, err
    blocks = [block.splitlines()[0] for block in out.split("\n\n")]
    assert blocks[:3] == ["By tag", "Details", "Confusability"]
    # good/a: DATE missing -> "a.json  missing  DATE  38  44 ... Monday" on the details sheet.
    assert any(line.split()[:5] == ["a.json", "missing", "DATE", "38", "44"] for line in out.splitlines())
    assert "signature: scorer:mat|" in out


def test_every_matscore_option_is_parsed(capsys):
    with pytest.raises(SystemExit):
        main(["mat", "--help"])
    text = capsys.readouterr().out
    for option in (
        "--file",
        "--ref_file",
        "--dir",
        "--ref_dir",
        "--file_re",
        "--ref_fsuff_off",
        "--ref_fsuff_on",
        "--file_type",
        "--ref_file_type",
        "--encoding",
        "--ref_encoding",
        "--content_annotations",
        "--token_annotations",
        "--equivalence_class",
        "--ignore",
        "--task",
        "--tag_span_details",
        "--details",
        "--confusability",
        "--by_token",
        "--by_pseudo_token",
        "--by_character",
        "--compute_confidence_data",
        "--csv_output_dir",
        "--no_csv_formulas",
        "--oo_separator",
        "--xml_input_is_overlay",
        "--ref_xml_input_is_overlay",
        "--json",
        "--store",
        "--workers",
        "--seed",
        "--resamples",
    ):
        assert option in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--file_type", "xml-inline", "--file_re", "nothing"], "matches no file name"),
        (["--xml_input_is_overlay"], "applies to xml-inline files only"),
        (["--ref_fsuff_on", ".xml"], "no reference partner"),
    ],
)
def test_bad_command_lines_exit_2(tmp_path, capsys, argv, message):
    status, _, err = _run(
        capsys,
        "--dir",
        str(SAMPLE / "good"),
        "--ref_dir",
        str(SAMPLE / "ref"),
        "--store",
        str(tmp_path / "s"),
        *argv,
    )
    assert status == 2 and message in err


def test_unknown_file_type_exits_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["mat", "--file", "x", "--ref_file", "y", "--file_type", "tei"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'tei'" in capsys.readouterr().err


def test_differing_signals_exit_2(tmp_path, capsys):
    ref = SAMPLE / "ref" / "a.json"
    data = json.loads(ref.read_text())
    data["signal"] = data["signal"].replace("Paris", "Paros")
    hyp = _write(tmp_path, "a.json", json.dumps(data))
    status, _, err = _run(capsys, "--file", str(hyp), "--ref_file", str(ref), "--store", str(tmp_path / "s"))
    # "John Smith met Mary Jones in Par" is 32 characters: the first difference is character 32.
    assert status == 2 and "at character 32 (line 1, column 33): reference 'i', hypothesis 'o'" in err


def test_stages_rerun_nothing_when_nothing_changed(tmp_path, capsys):
    argv = ["--dir", str(SAMPLE / "good"), "--ref_dir", str(SAMPLE / "ref"), "--store", str(tmp_path / "s")]
    assert _run(capsys, *argv)[0] == 0
    stages = sorted(p.name.split("-")[0] for p in (tmp_path / "s").rglob("*.parquet"))
    written = {p: p.stat().st_mtime_ns for p in (tmp_path / "s").rglob("*.parquet")}
    assert _run(capsys, *argv)[0] == 0
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "s").rglob("*.parquet")} == written
    assert len(written) == 2 * 2 + 1 + 2 + 1, stages  # Ingest x2 (2 each), Pair, Tally (2), Report


# --- family and statistics --------------------------------------------------------------------------


def test_statistics_are_the_tag_counts_by_document():
    annotations = _annotations([("a", "ref", "X", 0, 5), ("a", "hyp", "X", 0, 5), ("b", "ref", "X", 0, 5)])
    counts = tag_counts(annotations, pair_spans(annotations), ["a", "b"])
    table = mat_statistics(counts).to_pandas()
    # Document a: one match; document b: one missing; every (document, tag, count) has a row.
    values = table.set_index(["unit", "category", "statistic"])["value"]
    assert values[("a", "X", "match")] == 1 and values[("b", "X", "missing")] == 1
    assert len(table) == 2 * 1 * 5 and values.sum() == 2
    corpus = score_table(counts).to_pandas()
    assert corpus.loc[corpus["tag"] == "<all>", ["precision", "recall"]].to_numpy().tolist() == [[1.0, 0.5]]


def test_nothing_annotated_still_reports_all(tmp_path, capsys):
    # No content annotation on either side, one token in the hypothesis: the <all> row has zero counts,
    # precision 1.0 (hyptotal 0) and recall 1.0 (reftotal 0), F 2x1x1/2 = 1.0; test docs 1, test toks 1.
    doc = {"signal": "abc", "asets": [{"type": "lex", "annots": [[0, 3]]}]}
    (tmp_path / "h.json").write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "r.json").write_text(json.dumps({"signal": "abc", "asets": []}), encoding="utf-8")
    out_json = tmp_path / "out.json"
    status, _, err = _run(
        capsys,
        "--file",
        str(tmp_path / "h.json"),
        "--ref_file",
        str(tmp_path / "r.json"),
        "--store",
        str(tmp_path / "s"),
        "--json",
        str(out_json),
    )
    assert status == 0, err
    rows = _corpus_rows(json.loads(out_json.read_text()))
    assert list(rows) == ["<all>"]
    row = rows["<all>"]
    assert (row["test_docs"], row["test_units"], row["match"], row["reftotal"], row["hyptotal"]) == (
        1,
        1,
        0,
        0,
        0,
    )
    assert (row["precision"], row["recall"], row["fmeasure"]) == (1.0, 1.0, 1.0)


def test_a_mat_run_of_plain_files_imports_no_pandas(tmp_path: Path) -> None:
    # MAT JSON files of one line each (what MAT and the benchmark write) are read by Arrow, and every
    # stage and the printed table compute with numpy and Arrow: pyarrow's own conversions (pa.array,
    # pa.scalar, a combine_chunks of no chunk) would import pandas, a sixth of such a command's time.
    import subprocess
    import sys

    for side, spans in (("ref", [[0, 3], [8, 11]]), ("hyp", [[0, 3], [9, 11]])):
        (tmp_path / side).mkdir()
        document = {"signal": "Ann met Bob", "version": 2, "asets": [{"type": "PERSON", "hasSpan": True,
                    "attrs": [], "annots": spans}]}  # fmt: skip
        (tmp_path / side / "a.json").write_text(json.dumps(document), encoding="utf-8")
    hyp, ref = str(tmp_path / "hyp"), str(tmp_path / "ref")
    program = (
        "import sys\n"
        "from iescore.tasks.cli.main import main\n"
        f"status = main(['mat', '--dir', {hyp!r}, '--ref_dir', {ref!r}])\n"
        "print(status, 'pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    # One match (Ann) and one span clash (Bob, 8-11 against 9-11): P = R = F = 1/2.
    assert "0.500   0.500     0.500" in done.stdout
    assert done.stdout.split()[-2:] == ["0", "False"]
