"""``iescore sc_stats`` against sc_stats 1.3's own outputs (tests/data/speech/sctk), its statistics
against hand calculations, and malformed sgml refused with the file and line.

Each fixture case runs ``iescore sc_stats ARGV`` in a copy of ``inputs/`` beside an empty
``cases/NAME``, with the case's stdin files concatenated onto standard input; exit status and every
output file must equal sc_stats' (creation dates are not in any sc_stats output).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from iescore.pipeline.speech.sc_stats import (
    NO_DIFF,
    TEST_DIFF,
    Utterances,
    acc_binomial,
    friedman_test,
    mapsswe_segments,
    mapsswe_test,
    mcnemar_test,
    mean_ranks,
    normprob,
    percentages,
    rank_sum_comparisons,
    segment_pairs,
    sentence_table,
    sign_test,
    wilcoxon_test,
)
from iescore.pipeline.speech.sgml import read_sgml

DATA = Path(__file__).resolve().parents[1] / "data" / "speech" / "sctk"
CASES = {c["name"]: c for c in json.loads((DATA / "cases.json").read_text(encoding="utf-8"))["cases"]}
SC_STATS = sorted(name for name, case in CASES.items() if case["program"] == "sc_stats")

# The fixture cases iescore sc_stats reproduces exactly (exit status and every file).
PASSING = [
    "sc_test1a",
    "sc_test1b",
    "stats_stdout",
    "stats_stm_all",
    "stats_stm_conf",
    "stats_stm_det",
    "stats_std4_anovar",
    "stats_t_toggle",
    "stats_trn_all",
    "stats_trn_fW",
    "stats_trn_npr",
    "stats_trn_prn",
    "stats_trn_unified",
    "stats_trn_v",
    "stats_trn_v_sign",
    "stats_trn_w",
    "stats_two_systems",
]
# sc_stats aborted (heap corruption after -v with the sign test): iescore gives the answer instead.
CRASHED = ["stats_trn_v_all", "stats_trn_v_sign_u", "stats_trn_v_sign_wilc"]
# sc_stats' answer is wrong here and iescore's differs, as docs/speech.md says: -g grange2 keeps file
# names in 50-byte buffers, and a 51-byte mean file name overflows into the data file's name, which
# the .plt files then print as "n"; iescore names the data file.
DIFFERS = ["stats_trn_fR"]


def run_case(name: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess, Path]:
    """Run a fixture case as the README says; the completed process and its output folder."""
    case = CASES[name]
    inputs = tmp_path / "inputs"
    shutil.copytree(DATA / "inputs", inputs)
    out = tmp_path / "cases" / name
    out.mkdir(parents=True)
    stdin = b"".join((DATA / "inputs" / path).read_bytes() for path in case["stdin"] or [])
    done = subprocess.run(
        [sys.executable, "-m", "iescore.tasks.cli.main", "sc_stats", *case["argv"]],
        cwd=inputs,
        input=stdin,
        capture_output=True,
        check=False,
    )
    return done, out


def test_every_case_is_classified() -> None:
    assert sorted([*PASSING, *CRASHED, *DIFFERS]) == SC_STATS


@pytest.mark.parametrize("name", PASSING)
def test_fixture_case(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    done, out = run_case(name, tmp_path)
    (out / "stdout.txt").write_bytes(done.stdout)
    (out / "stderr.txt").write_bytes(done.stderr)
    assert done.returncode == case["exit_status"]
    assert sorted(p.name for p in out.iterdir()) == sorted(case["outputs"])
    for file in case["outputs"]:
        want = (DATA / "cases" / name / file).read_bytes().split(b"\n")
        got = (out / file).read_bytes().split(b"\n")
        assert got == want, file


def test_grange2_names_its_data_file(tmp_path: Path) -> None:
    case = CASES["stats_trn_fR"]
    done, out = run_case("stats_trn_fR", tmp_path)
    (out / "stdout.txt").write_bytes(done.stdout)
    (out / "stderr.txt").write_bytes(done.stderr)
    assert done.returncode == case["exit_status"]
    assert sorted(p.name for p in out.iterdir()) == sorted(case["outputs"])
    for file in case["outputs"]:
        want = (DATA / "cases" / "stats_trn_fR" / file).read_bytes()
        got = (out / file).read_bytes()
        if file.startswith("stats_trn_fR.grange2.") and file.endswith(".plt"):
            data_file = f'"../cases/stats_trn_fR/{file[:-4]}.dat"'.encode()
            assert got.count(data_file) == 3
            got = got.replace(data_file, b'"n"')
        assert got == want, file


@pytest.mark.parametrize("name", CRASHED)
def test_crashed_case_gets_an_answer(name: str, tmp_path: Path) -> None:
    """-v with the sign test and another test or -u: sc_stats aborts (heap corruption); iescore exits
    0 with every analysis. The sign test's detailed analysis is the one sc_stats writes for
    ``-t sign -v`` alone (stats_trn_v_sign, which exits 0): same pairs, same text."""
    done, out = run_case(name, tmp_path)
    assert CASES[name]["exit_status"] < 0
    assert done.returncode == 0, done.stderr
    alone = (DATA / "cases" / "stats_trn_v_sign" / "stats_trn_v_sign.stats.sign").read_bytes()
    verbose_part = alone[: alone.rindex(b"\f") + 1]
    assert (out / f"{name}.stats.sign").read_bytes().startswith(verbose_part)
    assert b"Successful Completion" in done.stdout


# ---- statistics against hand calculations -------------------------------------------------------


def test_percentages() -> None:
    # C=8 S=1 D=1 I=2: 10 reference words; E = (1+1+2)/10 = 40 %, R = 8/10 = 80 %, W = 100-40 = 60 %
    counts = np.array([[8, 1, 1, 2]])
    assert percentages(counts, "E").tolist() == [40.0]
    assert percentages(counts, "R").tolist() == [80.0]
    assert percentages(counts, "W").tolist() == [60.0]


def test_mean_ranks() -> None:
    # sorted 1, 2, 3, 3: ranks 1, 2 and (3+4)/2 = 3.5 for both 3s
    assert mean_ranks([3, 1, 3, 2]).tolist() == [3.5, 1.0, 3.5, 2.0]


def test_normprob_and_binomial() -> None:
    # the table's value at z = 1.96 is 0.9750022; 1.965 takes the lower tabulated value, 1.96's
    assert normprob(1.96) == 0.9750022
    assert normprob(-1.965) == 0.9750022
    # exact binomial below n p q = 5: P(R <= 1 | n = 3) = 1/8 + 3/8 = 0.5
    assert acc_binomial(1, 3) == 0.5
    # normal approximation (n = 114, n p q = 28.5): z = (52 * 0.5 - 57) / sqrt(28.5) = -5.81,
    # beyond the table: 1 - 0.9999999
    assert acc_binomial(52, 114) == pytest.approx(1e-7)


def test_sign_test() -> None:
    # first system higher on all 6 speakers: N(+) = 6, N(-) = 0; p = 2 * 0.5**6 = 0.03125 < 0.05,
    # so the second (lower error) system is better: +1
    result = sign_test([10, 20, 30, 40, 50, 60], [5, 15, 25, 35, 45, 55])
    assert (result.plus, result.minus, result.equal) == (6, 0, 0)
    assert result.p_value == 0.03125
    assert result.result == TEST_DIFF
    # three ties: N(+) = 1, N(-) = 2 after sharing them; p = 2 * P(R <= 1 | 3) = 1.0
    tied = sign_test([1, 2, 3], [1, 2, 3])
    assert (tied.equal, tied.p_value, tied.result) == (3, 1.0, NO_DIFF)


def test_wilcoxon_test() -> None:
    # differences 1, 3, 6, 8 all positive, ranks 1..4: W = negative rank sum = 0, n = 4,
    # E = 4*5/4 = 5, var = 4*5*9/24 = 7.5, Z = -5/sqrt(7.5) = -1.826: not beyond 1.96
    result = wilcoxon_test([5, 10, 20, 30], [4, 7, 14, 22])
    assert (result.plus, result.minus, result.plus_rank, result.minus_rank) == (4, 0, 10.0, 0.0)
    assert result.z == pytest.approx(-5 / 7.5**0.5)
    assert result.result == NO_DIFF


def test_mcnemar_test() -> None:
    # discordant 1 and 0: p = 2 * P(R <= 0 | n = 1) = 1.0 (sc_test1a's segment table)
    assert mcnemar_test([[0, 0], [1, 2]]).p_value == 1.0
    # only the first wrong on 8 utterances: p = 2 / 256 = 0.0078125, the second is better
    result = mcnemar_test([[5, 0], [8, 1]])
    assert (result.p_value, result.result) == (0.0078125, TEST_DIFF)
    assert sentence_table([True, False, True], [False, False, True]) == [[1, 0], [1, 1]]


def test_mapsswe_segments_and_z() -> None:
    # CCSCC against CCCCC: the S opens a segment, two words right in both close it; bounded by the
    # correct word before: words 0..4, 5 reference words, 1 error against 0
    assert segment_pairs("CCSCC", "CCCCC") == ([(5, 1, 0)], 0)
    # Several utterances at once, each cut on its own:
    # - CCSCC / CCCCC as above: (5, 1, 0);
    # - CCCI / CCCC: the trailing insertion (and the second system's fourth word, left over) opens a
    #   segment at the end, from the 2nd word before it: CCI (2 words, 1 error) / CCC (3 words, 0
    #   errors): (5 // 2, 1, 0) = (2, 1, 0);
    # - CDCCC / CCCCC: the D opens, words 2 and 3 right in both close; from the utterance's start
    #   (2 words before word 1 is before it) to word 3: CDCC / CCCC: (4, 1, 0).
    # - ICC / CCC: the insertion before word 0 opens, words 0 and 1 close: ICC / CC, (2, 1, 0); the
    #   second system's third word is left over: CC / CCC has no error, dropped.
    first = Utterances.of(["CCSCC", "CCCI", "CDCCC", "ICC"])
    second = Utterances.of(["CCCCC", "CCCC", "CCCCC", "CCC"])
    segments, dropped = mapsswe_segments(first, second, 2)
    assert segments.tolist() == [[5, 1, 0], [2, 1, 0], [4, 1, 0], [2, 1, 0]] and dropped == 1
    # differences 1, 2, -1: mean 2/3, sample variance (1/9 + 16/9 + 25/9) / 2 = 7/3,
    # Z = (2/3) / sqrt(7/3 / 3) = 0.756: no difference
    result = mapsswe_test([(5, 1, 0), (3, 2, 0), (4, 0, 1)], 0, 3)
    assert result.mean == pytest.approx(2 / 3)
    assert result.variance == pytest.approx(7 / 3)
    assert result.z == pytest.approx((2 / 3) / (7 / 9) ** 0.5)
    assert result.result == NO_DIFF


def test_friedman() -> None:
    # three speakers ranking three systems 1, 2, 3: rank sums 3, 6, 9;
    # X2_r = 12 / (3*3*4) * (9 + 36 + 81) - 3*3*4 = 42 - 36 = 6.0, no ties (adjustment 1),
    # beyond the 5 % value of 2 degrees of freedom, 5.99
    result = friedman_test(np.array([[1.0, 2.0, 3.0]] * 3))
    assert result.sums.tolist() == [3.0, 6.0, 9.0]
    assert result.x2 == pytest.approx(6.0) and result.adjust == 1.0 and result.significant
    # 0.05 / (3*2) = 0.0083 < 0.01: z = 2.330, threshold 2.330 * sqrt(3*3*2/6) = 4.04:
    # only the sums 3 and 9 differ
    pairs = rank_sum_comparisons(result.sums, 3)
    assert (pairs[0, 1], pairs[0, 2], pairs[1, 2]) == (0, -1, 0)


# ---- the sgml reader ---------------------------------------------------------------------------


def test_reader_structure() -> None:
    systems = read_sgml(
        (DATA / "inputs" / "file1.sgml").read_text(encoding="latin-1").splitlines(True), "file1.sgml"
    )
    (system,) = systems
    assert system.title == "scoring/itmono_8.ctm" and system.frag_corr and system.speakers == ["100"]
    first, second = system.paths
    assert first.evals == "I" and first.refs == (None,) and first.hyps == ("s.",)
    assert first.hyp_times == ((3017.54, 3017.79),) and first.hyp_conf == (0.5,)
    assert second.evals[:3] == "CDS" and second.refs[1] == "how" and second.hyps[1] is None
    assert second.counts()["C"] == 5 and second.r_t1 == 3015.197
    assert second.label_ids == ("o", "unknown", "n1")
    assert second.pairs()[1] == ("how", None, "D", None, None, None, None, None)
    assert second.pairs()[0] == ("yeah", "yeah", "C", None, None, 3015.62, 3015.88, 0.5)


HEAD = '<SYSTEM title="a" ref_fname="r" hyp_fname="h" format="2.4">\n<SPEAKER id="s">\n'
MALFORMED = {
    "speaker outside system": ('<SPEAKER id="s">\n', 1, "<SPEAKER> inside a <SYSTEM>"),
    "path outside speaker": (
        '<SYSTEM title="a">\n<PATH id="(x)" word_cnt="1">\n',
        2,
        "<PATH> inside a <SPEAKER>",
    ),
    "bad evaluation": (HEAD + '<PATH id="(x)" word_cnt="1">\nX,"a","b"\n', 4, "EVAL one of CSDIMT"),
    "insertion with a reference word": (
        HEAD + '<PATH id="(x)" word_cnt="1">\nI,"a","b"\n',
        4,
        "no reference word",
    ),
    "bad time": (HEAD + '<PATH id="(x)" word_cnt="1" word_aux="h_t1+t2">\nC,"a","a",3.0\n', 4, "T1+T2"),
    "bad attribute": ("<SYSTEM title=a>\n", 1, 'attribute="value"'),
    "wrong end tag": (HEAD + "</SYSTEM>\n", 3, "</SPEAKER>"),
    "unclosed": (HEAD, 2, "</SPEAKER> for <SPEAKER> of line 2"),
    "text outside a path": (HEAD + 'C,"a","a"\n', 3, "a tag or a <PATH>'s word pairs"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_sgml(name: str, tmp_path: Path) -> None:
    text, line, expected = MALFORMED[name]
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "iescore.tasks.cli.main",
            "sc_stats",
            "-p",
            "-t",
            "sign",
            "-O",
            str(out),
            "-n",
            "x",
        ],
        input=text.encode(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 2
    assert f"<stdin>:{line}:".encode() in done.stderr
    assert expected.encode() in done.stderr
    assert list(out.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-p", "-Z"], "illegal argument: -Z"),
        (["-p", "-t", "mapsswe_seg"], "-t mapsswe_seg is not implemented"),
        (["-p", "-a"], "not enough alignment files"),
        (["-p", "-a", "-u"], "req'd alignment file name"),
        ([], "arguments required"),
    ],
)
def test_usage_errors(argv: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "iescore.tasks.cli.main", "sc_stats", *argv],
        input=b"",
        capture_output=True,
        check=False,
    )
    assert done.returncode == 2
    assert message.encode() in done.stderr


PRN_SGML = """<SYSTEM title="A" ref_fname="r" hyp_fname="a" format="2.4">
<SPEAKER id="s">
<PATH id="(a)" word_cnt="2">
C,"x","x":S,"y","z"
</PATH>
<PATH id="(b)" word_cnt="2">
C,"p","p":C,"q","q"
</PATH>
</SPEAKER>
</SYSTEM>
<SYSTEM title="B" ref_fname="r" hyp_fname="b" format="2.4">
<SPEAKER id="s">
<PATH id="(a)" word_cnt="2">
C,"x","x":I,,"w":S,"y","v"
</PATH>
<PATH id="(b)" word_cnt="1">
C,"p","p"
</PATH>
</SPEAKER>
</SYSTEM>
"""


def test_prn_where_sc_stats_reads_past_a_path(tmp_path: Path) -> None:
    """``-r prn`` by hand (docs/speech.md). Path (a): reference x y in both systems; B inserts W
    after x, so the lattice gets a column of its own for it; y is wrong in both: 2 reference words,
    1 that no system got right. Path (b): A has two reference words, B one: sc_stats would compare
    B's word past its end; here the paths are not identical and are dumped one after the other,
    and, as sc_stats does for paths it dumps, the summary adds the last lattice's counts again:
    4 words, 2 wrong, accuracy 2/4 = 50.00; the list of words has y once (its count is not repeated)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "iescore.tasks.cli.main",
            "sc_stats",
            "-p",
            "-r",
            "prn",
            "-O",
            str(tmp_path),
            "-n",
            "x",
        ],
        input=PRN_SGML.encode(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "x.prn").read_text() == (
        "Common scoring speakers and segments\nVersion 0.1\n\nRepresented Systems\n"
        "    name: A   Ref: r   Hyp: a\n    name: B   Ref: r   Hyp: b\n    End of Represented Systems\n\n"
        "    End of Utterance Label Definitions\n\n\n"
        "Speaker: s\nId:     (a)\nLattice Analysis: #refWords 2 #refErrWords 1\n\n\n"
        # columns of width 1, each followed by a space; "A:", "B:", "REF:" padded to 3 + 2
        "REF: x   y \nA:   x   Z \nB:   x W V \n\n"
        "Speaker: s\n;; Reference strings not identical, dumping individual paths\n"
        "id: (b)\nScores: (#C #S #D #I) 2 0 0 0\nREF:  p q \nHYP:  p q \nEval:     \n"
        "id: (b)\nScores: (#C #S #D #I) 1 0 0 0\nREF:  p \nHYP:  p \nEval:   \n"
        "Lattice Summary: #TotRefWords 4 #TotRefErrWords 2 Accuracy 50.00\n"
        "\nList of not correct reference words   Total                 (1)\n"
        + " "
        * 30
        + "   With >=  1 occurrences (1)\n\n"
        "   1:    1  ->  y\n"
        "     -------\n         1\n\n"
    )


def test_alignment_files_read_as_piped(tmp_path: Path) -> None:
    """``-a FILE ...``: sc_stats 1.3 collects the files and never reads them; iescore reads them as
    ``-p`` reads standard input, so sc_test1a run with its two files named gives sc_stats' own
    outputs of the piped run."""
    case = CASES["sc_test1a"]
    shutil.copytree(DATA / "inputs", tmp_path / "inputs")
    out = tmp_path / "cases" / "sc_test1a"
    out.mkdir(parents=True)
    argv = [a for a in case["argv"] if a != "-p"]
    done = subprocess.run(
        [sys.executable, "-m", "iescore.tasks.cli.main", "sc_stats", "-a", *case["stdin"], *argv],
        cwd=tmp_path / "inputs",
        input=b"",
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (out / "stdout.txt").write_bytes(done.stdout)
    (out / "stderr.txt").write_bytes(done.stderr)
    assert sorted(p.name for p in out.iterdir()) == sorted(case["outputs"])
    for file in case["outputs"]:
        assert (out / file).read_bytes() == (DATA / "cases" / "sc_test1a" / file).read_bytes(), file


def test_alignment_file_missing_names_it(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "iescore.tasks.cli.main",
            "sc_stats",
            "-a",
            "nowhere.sgml",
            "-t",
            "sign",
            "-O",
            str(tmp_path),
        ],
        input=b"",
        capture_output=True,
        check=False,
    )
    assert done.returncode == 2
    assert b"nowhere.sgml: expected a readable sclite sgml file (-a)" in done.stderr
    assert list(tmp_path.iterdir()) == []
