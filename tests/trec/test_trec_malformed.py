"""Malformed input to ``iescore trec`` (issue 25, point 4): a table of variants of the qrels, the runs
and the options, each a clean exit 2 naming the file and line (or the option) and what was expected,
with nothing written. What trec_eval 10.0 does with each is in the comments where it differs (it reads
most of them with C's atol/atof, or crashes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from iescore.tasks.cli.main import main

QRELS = b"q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n"
RUN = b"q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\nq2 Q0 c 1 1.0 r\n"
UTF16_QRELS = QRELS.decode().encode("utf-16")  # with its byte order mark
UTF16LE_RUN = RUN.decode().encode("utf-16-le")  # without one: NUL-filled tokens


# (id, qrels bytes, run bytes, extra arguments, where the message points, what it says)
CASES = [
    # --- qrels ---
    ("qrels-3-fields", b"q1 0 a\n", RUN, [], "qrels:1", "3 field(s); expected 4"),
    ("qrels-5-fields", b"q1 0 a 1\nq1 0 b 1 x\n", RUN, [], "qrels:2", "5 field(s); expected 4"),
    ("qrels-rel-word", b"q1 0 a x\n", RUN, [], "qrels:1", "relevance 'x' is not an integer"),
    ("qrels-rel-decimal", b"q1 0 a 1.5\n", RUN, [], "qrels:1", "relevance '1.5' is not an integer"),
    ("qrels-rel-huge", b"q1 0 a 99999999999\n", RUN, [], "qrels:1", "out of range"),
    ("qrels-duplicate", b"q1 0 a 1\nq1 0 a 0\n", RUN, [], "qrels:2", "document 'a' is listed again"),
    ("qrels-empty", b"", RUN, [], "qrels", "empty qrels"),
    ("qrels-comments-only", b"# judged by\n\n", RUN, [], "qrels", "empty qrels"),
    ("qrels-utf16-bom", UTF16_QRELS, RUN, [], "qrels:1", "wrong encoding: UTF-16 (little-endian)"),
    ("qrels-utf16-no-bom", QRELS.decode().encode("utf-16-le"), RUN, [], "qrels:1", "wrong encoding: a NUL"),
    ("qrels-nul-line-3", b"q1 0 a 1\nq1 0 b 0\nq2 0 \x00c 1\n", RUN, [], "qrels:3", "wrong encoding: a NUL"),
    ("qrels-utf8-bom", b"\xef\xbb\xbf" + QRELS, RUN, [], "qrels:1", "UTF-8 byte order mark"),
    ("qrels-not-utf8", b"q1 0 a 1\nq2 0 \xff 1\n", RUN, [], "qrels:2", "docno b'\\xff' is not UTF-8 text"),
    # --- runs ---
    ("run-4-fields", QRELS, b"q1 Q0 a 1 2.0 r\nq1 Q0 b 2\n", [], "run:2", "4 field(s); expected at least 6"),
    ("run-score-word", QRELS, b"q1 Q0 a 1 high r\n", [], "run:1", "score 'high' is not a number"),
    ("run-score-nan", QRELS, b"q1 Q0 a 1 1 r\nq1 Q0 b 2 nan r\n", [], "run:2", "score 'nan' is not a number"),
    ("run-duplicate", QRELS, RUN + b"q1 Q0 a 3 0.5 r\n", [], "run:4", "document 'a' is listed again"),
    ("run-empty", QRELS, b"", [], "run", "empty run"),
    ("run-blank", QRELS, b"\n \n\t\n", [], "run", "empty run"),
    # trec_eval 10.0 reads a UTF-16 run as 240 lines of NUL-filled tokens, then "Malformed line".
    ("run-utf16-bom", QRELS, RUN.decode().encode("utf-16"), [], "run:1", "wrong encoding: UTF-16"),
    ("run-utf16-no-bom", QRELS, UTF16LE_RUN, [], "run:1", "a run file is ASCII or UTF-8 text"),
    ("run-utf16-be", QRELS, b"\xfe\xff" + RUN.decode().encode("utf-16-be"), [], "run:1", "(big-endian)"),
    ("run-not-utf8-qid", QRELS, b"q1 Q0 a 1 1 r\n\xe9 Q0 b 1 1 r\n", [], "run:2", "query id b'\\xe9'"),
    ("run-no-common-query", QRELS, b"q9 Q0 a 1 1 r\n", [], "run", "nothing to evaluate"),
    # --- measure parameters (trec_eval prints P.1.5 as P_1, ndcg.1=abc with a gain of 0, ...) ---
    (
        "m-decimal-cutoff",
        QRELS,
        RUN,
        ["-m", "P.1.5"],
        "-m",
        "a cutoff (a number of documents) must be a whole",
    ),
    ("m-word-gain", QRELS, RUN, ["-m", "ndcg.1=abc"], "-m", "the gain of grade 1 must be a decimal number"),
    ("m-word-grade", QRELS, RUN, ["-m", "ndcg.abc=1"], "-m", "'abc' is not a relevance grade"),
    ("m-recall-2", QRELS, RUN, ["-m", "iprec_at_recall.2"], "-m", "a recall level must be between 0 and 1"),
    ("m-recall-negative", QRELS, RUN, ["-m", "11pt_avg.-0.5"], "-m", "between 0 and 1"),
    # trec_eval prints P_9223372036854775807 (atol saturates); a traceback here before.
    ("m-cutoff-huge", QRELS, RUN, ["-m", "P.99999999999999999999"], "-m", "is too large (at most 92233720"),
    ("m-ir-cutoff-huge", QRELS, RUN, ["-m", "P@99999999999999999999"], "-m", "is too large"),
    ("m-rbp-p-1", QRELS, RUN, ["-m", "rbp.p=1"], "-m", "p must be less than 1"),
    ("m-rbp-p-2", QRELS, RUN, ["-m", "rbp.p=2"], "-m", "p must be between 0 and 1"),
    ("m-relstring-0", QRELS, RUN, ["-m", "relstring.0"], "-m", "a length (a number of documents) must be 1"),
    ("m-set-f-negative", QRELS, RUN, ["-m", "set_F.-1"], "-m", "beta must be 0 or more"),
    ("m-gain-twice", QRELS, RUN, ["-m", "ndcg.1=3,1=4"], "-m", "'1' given twice"),
    ("m-empty-cutoff", QRELS, RUN, ["-m", "P.5,,10"], "-m", "found ''"),
    ("m-unknown", QRELS, RUN, ["-m", "nosuch"], "-m", "unknown measure 'nosuch'"),
    ("m-prefs-measure", QRELS, RUN, ["-m", "prefs_simp"], "-m", "preference or qrels_jg formats"),
    # --- options (trec_eval crashes with a segmentation fault on -l 99999999999999999999) ---
    ("l-huge", QRELS, RUN, ["-l", "99999999999999999999"], "-l", "a relevance level between"),
    ("l-beyond-grades", QRELS, RUN, ["-l", "3000000000"], "-l", "no document could be relevant"),
    ("R-prefs", QRELS, RUN, ["-R", "prefs"], "-R", "'prefs' (trec_eval's format for preference"),
    ("R-qrels-prefs", QRELS, RUN, ["-R", "qrels_prefs"], "-R", "is not supported"),
    ("R-qrels-jg", QRELS, RUN, ["-R", "qrels_jg"], "-R", "several judgement groups"),
    ("R-unknown", QRELS, RUN, ["-R", "trec"], "-R", "unknown rel_info format 'trec'; trec_eval 10.0 has"),
    ("T-unknown", QRELS, RUN, ["-T", "tsv"], "-T", "unknown results format 'tsv'"),
    ("Z-zscores", QRELS, RUN, ["-Z", "zmeans.txt"], "-Z", "Z scores"),
    ("confidence-1", QRELS, RUN, ["--confidence", "1"], "--confidence", "strictly between 0 and 1"),
]


@pytest.mark.parametrize(
    ("qrels", "run", "options", "where", "message"), [case[1:] for case in CASES], ids=[c[0] for c in CASES]
)
def test_malformed_trec_input_exits_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    qrels: bytes,
    run: bytes,
    options: list[str],
    where: str,
    message: str,
) -> None:
    (tmp_path / "qrels").write_bytes(qrels)
    (tmp_path / "run").write_bytes(run)
    before = sorted(tmp_path.iterdir())
    status = main(["trec", *options, "--json", str(tmp_path / "out.json"), str(tmp_path / "qrels"),
                   str(tmp_path / "run")])  # fmt: skip
    captured = capsys.readouterr()
    assert status == 2
    shown = where if where.startswith("-") else str(tmp_path / where)
    assert captured.err.startswith(f"iescore: {shown}"), captured.err
    assert f"{shown}: " in captured.err and message in captured.err, captured.err
    assert captured.out == ""
    assert sorted(tmp_path.iterdir()) == before  # nothing written


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["-N", "-1"], "argument -N: a whole number from 0 to 9223372036854775807 expected"),
        (["-M", "1.5"], "argument -M: a whole number from 0 to 9223372036854775807 expected"),
        # Beyond a C long (trec_eval reads them with atol).
        (["-M", "99999999999999999999"], "argument -M: a whole number from 0 to 9223372036854775807"),
        (["-N", "99999999999999999999"], "argument -N: a whole number from 0 to 9223372036854775807"),
        (["-l", "1.5"], "argument -l: invalid int value"),
        (["--workers", "0"], "argument --workers:"),
    ],
)
def test_malformed_trec_option_values_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    (tmp_path / "qrels").write_bytes(QRELS)
    (tmp_path / "run").write_bytes(RUN)
    with pytest.raises(SystemExit) as stop:
        main(["trec", *options, str(tmp_path / "qrels"), str(tmp_path / "run")])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_significance_measure_not_measured_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "qrels").write_bytes(QRELS)
    (tmp_path / "run").write_bytes(RUN)
    argv = ["trec", "-m", "P.5", "--significance-measure", "map", str(tmp_path / "qrels"),
            str(tmp_path / "run"), str(tmp_path / "run")]  # fmt: skip
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "iescore: --significance-measure: 'map' is not among the values measured" in captured.err
    assert captured.out == ""  # refused before any run's values are printed
