"""sc_stats 1.3's reports, rendered line for line from the tests' results (:mod:`.tests`).

Each function returns the text sc_stats writes (``\\f`` is its form feed). Widths are counted in
characters of the Latin-1 decoded input, i.e. bytes, as sc_stats counts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from iescore.pipeline.speech.sc_stats.normtable import X2_CONFIDENCE, X2_LEVELS, X2_PERCENT
from iescore.pipeline.speech.sc_stats.table import Table

if TYPE_CHECKING:
    from iescore.pipeline.speech.sgml import SgmlLabel, SgmlSystem

from iescore.pipeline.speech.sc_stats.tests import (
    NO_DIFF,
    TEST_DIFF,
    FriedmanResult,
    MapsswResult,
    McNemarResult,
    SignResult,
    WilcoxonResult,
    acc_binomial,
)

SCREEN_WIDTH = 80
FORM_FEED = "\f"


def center(text: str, width: int) -> str:
    """sc_stats' ``center``: ``text`` with (width - len) // 2 spaces before and the rest after."""
    front = (width - len(text)) // 2
    return " " * max(front, 0) + text + " " * max(width - (len(text) + front), 0)


def pad_for(text_len: int, width: int = SCREEN_WIDTH) -> str:
    """sc_stats' ``set_pad``/``set_pad_cent_n``: one space fewer than half the free width."""
    n = min((width - text_len) // 2, 131)
    return " " * (n - 1) if n > 0 else ""


def winner_name(result: int, first: str, second: str) -> str:
    """The cell of a comparison matrix: the better system, or ``same``."""
    if result == NO_DIFF:
        return "same"
    return first if result < 0 else second


def matrix_one_winner(
    names: Sequence[str],
    winners: dict[tuple[int, int], int],
    title: str,
    formula: str,
    block: str = "Speaker",
) -> str:
    """The comparison matrix of the sign and Wilcoxon tests (print_trt_comp_matrix_for_RANK_one_winner)."""
    page = 79
    width = max(len(n) for n in names)
    cell = f" {{:>{width}}} |"
    per = 3 + width
    report_width = (len(names) + 1) * per + 1
    lead = center("", (page - report_width) // 2)
    out = [
        center(title, page),
        center(f"Using the {formula} Percentage per {block}", page),
        center("as the Comparison Metric", page),
        "",
    ]
    rule = lead + "|" + "-" * (per * (len(names) + 1) - 1) + "|"
    out.append(rule)
    out.append(lead + "|" + cell.format("") + "".join(cell.format(n) for n in names))
    for i, name in enumerate(names):
        out.append(lead + "|" + "+".join(["-" * (per - 1)] * (len(names) + 1)) + "|")
        cells = [
            cell.format("" if i >= j else winner_name(winners[i, j], names[i], names[j]))
            for j in range(len(names))
        ]
        out.append(lead + "|" + cell.format(name) + "".join(cells))
    out.append(rule)
    return "\n".join(out) + "\n"


def mcnemar_verbose(result: McNemarResult, name1: str, name2: str) -> str:
    """sc_stats' detailed McNemar analysis of one pair (do_McNemar with verbose)."""
    t = result.table
    out = [
        "",
        "",
        "                            McNemar test results",
        "                            ====================",
        "",
        f"                                     {name2}",
        "",
        "                                  corr     incorr",
        f"      {name1:>15}      corr   {t[0][0]:3d}        {t[0][1]:3d}",
        f"\t                 incorr   {t[1][0]:3d}        {t[1][1]:3d}",
    ]
    num_a, num_b = t[1][0], t[0][1]
    if num_a == num_b:
        out += [
            "",
            "",
            "\t\tSUMMARY:",
            "\t\t-------",
            "",
            "",
            "",
            "\tThe two totals for utterances missed by either test results",
            "\tare both zero, therefore there is no significant difference",
            "\tbetween the two tests!",
        ]
        return "\n".join(out) + "\n"
    n = num_a + num_b
    p = result.p_value
    out += [
        "The NULL Hypothesis:",
        "",
        "     The number unique utterance errors are equal for both systems.",
        "",
        "Alternate Hypothesis:",
        "",
        "     The number of unique utterance errors for both systems are NOT equal.",
        "Decision Analysis:",
        "",
        "     Assumptions:",
        "        A1: The distribution of unique utterance errors",
        "            follows the binomial distribution for N fair coin tosses.",
        "",
        "     Rejection criterion:",
        "        Reject the null hypothesis at the 95% confidence level based",
        "        on the following critical values table.  N is the sum of the",
        "        unique utterance errors for both systems being compared and",
        "        MIN(uue) is the minimum number of unique utterance",
        "        foe either system.",
        "",
        f"          MIN(uue)      P(MIN(uue) | N={n:3d})",
        "          --------      -------------------",
    ]
    i = 0
    while 2.0 * acc_binomial(i - 1, n) < max(0.25, p):
        val = 2.0 * acc_binomial(i, n)
        line = (
            f"             {i:3d}               {val:5.3f}"
            if val >= 0.0005
            else f"             {i:3d}                 -  "
        )
        if val < 0.05 and 2.0 * acc_binomial(i + 1, n) > 0.05:
            line += "  <---  Null Hypothesis rejection threshold"
        out.append(line)
        i += 1
    out += [
        "",
        "     Decision:",
        f"        There were MIN(uue)={min(num_a, num_b)} unique utterance errors, the probability of",
    ]
    head = f"        it occurring is {p:5.3f}, therefore the null hypothesis "
    if p < 0.05:
        out += [
            head + "is REJECTED",
            "        in favor of the Alternate Hypothesis.  Further, "
            f"{name2 if num_a > num_b else name1} is the",
            "        better System.",
        ]
    else:
        out += [
            head + "is ACCEPTED",
            f"        There is no statistical difference between {name1} and {name2}",
        ]
    return "\n".join(out) + "\n" + FORM_FEED


def mapsswe_verbose(
    result: MapsswResult, name1: str, name2: str, min_good: int, mcnemar: McNemarResult
) -> str:
    """The segmentation report of one pair, its McNemar analysis of segments and the MTCH_PR_RESULTS line."""
    seg = result.segments
    tot_ref, err1, err2 = (int(seg[:, k].sum()) for k in range(3))
    per_sent = len(seg) / result.sentences if result.sentences else float("nan")
    out = [
        "      SEGMENTATION REPORT FOR SYSTEMS",
        f"              {name1:>4} and {name2:>4}",
        f"Minimum Number of Correct Boundary words {min_good:1d}",
        "",
        f"  Number of Segments {len(seg):2d},     {per_sent:5.3f} per sentence",
        f"  Number of Sentences {result.sentences:2d}",
        "",
        f"    # Ref wrds      Err {name1:>4}   Err {name2:>4}",
        "---------------------------------------",
        f"Totals {tot_ref:4d}           {err1:4d}        {err2:4d}",
        "",
        f"Pct err              {result.first_pct:5.1f}%      {result.second_pct:5.1f}%",
        "",
        "",
        "",
        "",
    ]
    text = "\n".join(out) + "\n" + mcnemar_verbose(mcnemar, name1, name2)
    stat_diff = "No" if result.result == NO_DIFF else "Yes"
    text += (
        f"MTCH_PR_RESULTS (systems: {name1} {name2}) (# segs: {len(seg)}) (Seg per Sent: {per_sent:5.3f}) "
        f"(% Error: {result.first_pct:5.2f} {result.second_pct:5.2f}) (mean: {result.mean:5.3f}) "
        f"(std dev: {result.std_dev:5.3f}) (Z Stat: {result.z:5.3f}) (Stat Diff: {stat_diff})\n"
    )
    return text


def mapsswe_matrix(
    names: Sequence[str], winners: dict[tuple[int, int], int], test_name: str, min_good: int
) -> str:
    """The MAPSSWE comparison matrix (print_compare_matrix_for_sys)."""
    title = "COMPARISON MATRIX: FOR THE MATCHED PAIRS TEST"
    desc = "PECENTAGES ARE MEAN PCT ERROR/SEGMENT.  FIRST # IS LEFT SYSTEM"
    good = "Minimum Number of Correct Boundary words"
    width = max(len(n) for n in names)
    block = 3 + width
    hy = min(49, block - 1)
    out = ["", "", "", pad_for(len(title)) + title, pad_for(len(desc)) + desc]
    if test_name:
        out.append(pad_for(len(test_name)) + test_name)
    out += [pad_for(len(good) + 2) + f"{good} {min_good:1d}", "", ""]
    lead = pad_for((len(names) + 1) * block)
    rule = lead + "|" + "-" * hy + "-" * (min(49, block) * len(names)) + "|"
    out.append(rule)
    name_cell = f" {{:>{width}}} |"
    out.append(lead + "|" + " " * hy + "|" + "".join(name_cell.format(n) for n in names))
    for i, name in enumerate(names):
        out.append(lead + "|" + "-" * hy + "".join("+" + "-" * hy for _ in names) + "|")
        row = lead + "|" + name_cell.format(name)
        for j in range(len(names)):
            cell = ""
            front = 0
            if j > i:
                result = winners[i, j]
                cell = names[j] if result == TEST_DIFF else "same" if result == NO_DIFF else names[i]
                front = (block - 1 - len(cell)) // 2
            row += " " * min(49, front) + cell + " " * min(49, block - 1 - len(cell) - front) + "|"
        out.append(row)
    out.append(rule)
    return "\n".join(out) + "\n"


def sign_verbose(
    pcts1: Sequence[float],
    pcts2: Sequence[float],
    blocks: Sequence[str],
    names: tuple[str, str],
    formula: str,
    result: SignResult,
    zero_is_best: bool,
) -> str:
    """The sign test's per-speaker table and decision for one pair (compute_signtest_for_treatment, verbose).

    ``names``, ``pcts1``, ``pcts2`` are in the order sc_stats prints them: the system whose
    percentages sum higher first.
    """
    page = 79
    block_id = "Spkr"
    max_block = max([len(block_id)] + [len(b) for b in blocks])
    max_treat = max(6, len(names[0]), len(names[1]))
    diff_line = f"[{names[0]} - {names[1]}]"
    diff_len = max(15, len(diff_line))
    rep = max_block + max_treat * 2 + 12 + diff_len
    lead = center("", (page - rep) // 2)
    front = center("", (max_treat - 6) // 2)
    back = center("", max_treat - ((max_treat - 6) // 2 + 6))

    def pct(v: float) -> str:
        return f"{front}{v:6.2f}{back}"

    out = [
        center("Sign Test Calculations Table Comparing", page),
        center(f"{block_id} {formula} Percentages for Systems {names[0]} and {names[1]}", page),
        center("(Threshold for equal percentages +- 0.005)", page),
        "",
        lead
        + center("", max_block)
        + "    "
        + center("", max_treat)
        + "    "
        + center("", max_treat)
        + "    "
        + center("Difference Sign", diff_len),
        lead
        + center(block_id, max_block)
        + "    "
        + center(names[0], max_treat)
        + "    "
        + center(names[1], max_treat)
        + "    "
        + center(diff_line, diff_len),
        lead + "-" * rep,
    ]
    for b, v1, v2 in zip(blocks, pcts1, pcts2, strict=True):
        sign = "0" if abs(v1 - v2) <= 0.005 else "-" if v1 < v2 else "+"
        out.append(
            lead
            + center(b, max_block)
            + "    "
            + pct(v1)
            + "    "
            + pct(v2)
            + "    "
            + center(sign, diff_len)
        )
    out += [
        lead + "-" * rep,
        lead
        + center("Avg.", max_block)
        + "    "
        + pct(sum(pcts1) / len(blocks))
        + "    "
        + pct(sum(pcts2) / len(blocks)),
        "",
        center(f"No. Speakers with Positive {formula} Differences = N(+) = {result.plus:2d}", page),
        center(f"No. Speakers with Negative {formula} Differences = N(-) = {result.minus:2d}", page),
        center(f"No. Speakers with No {formula} Differences = N(0) = {result.equal:2d}", page),
        "",
        "",
    ]
    num_b = result.minus + result.equal // 2 + result.equal % 2
    num_a = result.plus + result.equal // 2
    n = num_a + num_b
    out += [
        "The NULL Hypothesis:",
        "",
        "     The number of speakers for which the differences is positive",
        "     equals the number of speakers for which the differences is",
        "     negative.",
        "\t\t\t P(N(+)) = P(N(-)) = 0.50",
        "",
        "Alternate Hypothesis:",
        "",
        "     The number of speakers for which the differences is positive ",
        "     is NOT equal to the number of speakers for which the difference",
        "     is negative.",
        "",
        "Decision Analysis:",
        "",
        "     Assumptions:",
        "        A1: The distibrution of positive and negative differences",
        "            follows the binomial distribution for N fair coin tosses.",
        "",
        "        A2: In order to resolve the complication caused by cases where the",
        "            difference in Word Accuracy is zero, half of the cases will",
        "            be assigned to N(+) and half to N(-).  In the event of an",
        "            odd number of zero differences, N(-) will get one extra, this",
        "            reduces the probability of there being a difference between",
        "            the two systems.",
        "",
        "     Rejection criterion:",
        "        Reject the null hypothesis at the 95% confidence level based",
        "        on the following critical values table.  N is the number of",
        "        speakers being compared and N(-) is the number of negative",
        "        differences.",
        "",
        f"          MIN(N(-),N(+))      P(MIN(N(-),N(+)) | N={n:2d})",
        "          --------------      ------------------------",
    ]
    i = 0
    while i <= n // 2 and i - 3 <= num_b:
        val, val1 = 2.0 * acc_binomial(i, n), 2.0 * acc_binomial(i + 1, n)
        line = (
            f"          {i:3d}                 {val:5.3f}"
            if val >= 0.0005
            else f"          {i:3d}                <0.001  "
        )
        if val < 0.05 and val1 > 0.05:
            line += "  <---  Null Hypothesis rejected at or below this point"
        out.append(line)
        i += 1
    out += [
        "",
        "     Decision:",
        f"        There were N(-)={num_b} negative differences , the probability of",
    ]
    head = f"        it occurring is {result.p_value:5.3f}, therefore the null hypothesis "
    if result.p_value < 0.05:
        out += [
            head + "is REJECTED",
            "        in favor of the Alternate Hypothesis.  Further, "
            f"{names[1] if zero_is_best else names[0]} is the",
            "        better System.",
        ]
    else:
        out += [
            head + "is ACCEPTED",
            f"        There is no statistical difference between {names[0]} and {names[1]}",
        ]
    return "\n".join(out) + "\n" + FORM_FEED


def wilcoxon_verbose(
    pcts1: Sequence[float],
    pcts2: Sequence[float],
    blocks: Sequence[str],
    names: tuple[str, str],
    formula: str,
    result: WilcoxonResult,
) -> str:
    """The Wilcoxon test's per-speaker table and decision for one pair (verbose), system with the
    higher percentage sum first."""
    page = 79
    block_id = "Spkr"
    max_block = max([len(block_id)] + [len(b) for b in blocks])
    max_treat = max(6, len(names[0]), len(names[1]))
    rep = max_block + max_treat * 2 + 37
    lead = center("", (page - rep) // 2)
    front = center("", (max_treat - 6) // 2)
    back = center("", max_treat - ((max_treat - 6) // 2 + 6))

    def pct(v: float) -> str:
        return f"{front}{v:6.2f}{back}"

    out = [
        center("Wilcoxon Test Calculations Table", page),
        center(f"Comparing {block_id} {formula} Percentages for Systems {names[0]} and {names[1]}", page),
        "",
        lead
        + center("", max_block)
        + "    "
        + center("", max_treat)
        + "    "
        + center("", max_treat)
        + "  "
        + "                    Signed",
        lead
        + center(block_id, max_block)
        + "    "
        + center(names[0], max_treat)
        + "    "
        + center(names[1], max_treat)
        + "  "
        + "Difference   Rank    Rank",
        lead + "-" * rep,
    ]
    for k, (b, v1, v2) in enumerate(zip(blocks, pcts1, pcts2, strict=True)):
        d, r = result.differences[k], result.ranks[k]
        signed = -r if (d < 0.0 and abs(d) > 0.005) else r
        out.append(
            lead
            + center(b, max_block)
            + "    "
            + pct(v1)
            + "    "
            + pct(v2)
            + "   "
            + f"{d:6.2f}    {r:5.1f}    {signed:5.1f}"
        )
    out += [
        lead + "-" * rep,
        lead
        + center("Avg.", max_block)
        + "    "
        + pct(sum(pcts1) / len(blocks))
        + "    "
        + pct(sum(pcts2) / len(blocks))
        + "   "
        + f"{sum(result.differences) / len(blocks):6.2f}",
        "",
        center(f"Sum of {result.plus:2d} positive ranks = {result.plus_rank:4.1f}", page),
        center(f"Sum of {result.minus:2d} negative ranks = {result.minus_rank:4.1f}", page),
        "",
        "",
    ]
    better = names[0] if (result.result * (1 if result.first_higher else -1)) < 0 else names[1]
    out += [
        "    The Null Hypothesis:",
        "",
        "         The two populations represented by the respective matched",
        "         pairs are identical.",
        "",
        "    Alternate Hypothesis:",
        "",
        "         The two populations are not equal and therefore",
        "         there is a difference between systems.",
        "",
        "    Decision Analysis:",
        "",
        "         Assumptions:",
        "              The distribution of signed ranks is approximated",
        "              by the normal distribution if the number of Blocks",
        "              is greater than equal to 8.",
        "",
        "         Rejection Threshold:",
        "              Based on a 95% confidence interval, the Z-score should",
        "              be greater than 1.96 or less than -1.96.",
        "",
        "         Decision:",
        f"              The Z statistic = {result.z:4.2f}, therefore the Hypothesis",
    ]
    if abs(result.z) > 1.960:
        out += [
            "              is REJECTED in favor of the Null Hypothesis.",
            "",
            f"              Further, {better} is the better System.",
        ]
    else:
        out += ["              is ACCEPTED."]
    return "\n".join(out) + "\n" + FORM_FEED


def mcnemar_matrix(
    names: Sequence[str],
    results: dict[tuple[int, int], McNemarResult],
    test_name: str,
    cells: dict | None = None,
) -> str:
    """McNemar's comparison matrix with each pair's confidence (print_compare_matrix_for_sent_M)."""
    table = Table(cells=cells)
    fmt = "c" + "|c" * len(names)
    table.row("c", "COMPARISON MATRIX: McNEMAR'S TEST ON CORRECT SENTENCES FOR THE TEST:")
    table.separator(" ", before=False)
    table.separator("-", before=False)
    table.row("c", test_name)
    table.row(fmt, "", *names)
    for i, name in enumerate(names):
        table.separator("-")
        confs = [
            f"Conf=({max(results[i, j].p_value, 0.001):.3f})" if j > i else "" for j in range(len(names))
        ]
        table.row(fmt, name, *confs)
        cells = [
            winner_name(results[i, j].result, names[i], names[j]) if j > i else "" for j in range(len(names))
        ]
        table.row(fmt, "", *cells)
    return table.render(1)


def unified(
    names: Sequence[str],
    tests: Sequence[tuple[str, str, dict, dict]],
    test_name: str,
    cells: dict | None = None,
) -> str:
    """The composite matrix of every test (print_composite_significance2): for each test
    ``(description, abbreviation, winners, p-values)``."""
    n = len(names)
    desc_len = max([9] + [len(t[0]) for t in tests])
    str_len = max([7] + [len(t[1]) for t in tests])
    title_fmt = "c=c" + "|caa" * n + "=c"
    row_fmt = "c=c" + "|rrl" * n + "=c"
    header_fmt = "ca" + "aaa" * n + "a"
    table = Table(cells=cells)
    table.row(header_fmt, "Composite Report of All Significance Tests")
    table.row(header_fmt, f"For the {test_name} Test")
    table.separator(" ")
    table.row(header_fmt, center("Test Name", desc_len) + center("", 5) + center("Abbrev.", str_len))
    table.row(header_fmt, "-" * desc_len + center("", 5) + "-" * str_len)
    for k, (desc, abbrev, _, _) in enumerate(tests):
        if k == len(tests) - 1:
            table.separator(" ", before=False)
            table.separator(" ", before=False)
        table.row(header_fmt, center(desc, desc_len) + center("", 5) + center(abbrev, str_len))
    table.separator("-")
    table.row(title_fmt, "Test//Abbrev.", "", *names, "Test//Abbrev.")
    for i in range(n):
        table.separator("-")
        for k, (_, abbrev, winners, confs) in enumerate(tests):
            values = [abbrev, names[i] if k == 0 else ""]
            for j in range(n):
                if i >= j:
                    values += ["", "", ""]
                    continue
                result, conf = winners[i, j], confs[i, j]
                values.append("~" if result == NO_DIFF else names[i] if result < 0 else names[j])
                values.append("<0.001" if conf < 0.001 else f"{conf:.3f}")
                values.append(
                    "***" if conf <= 0.001 else "**" if conf <= 0.01 else "*" if conf <= 0.05 else ""
                )
            table.row(row_fmt, *values, abbrev)
    table.separator("-")
    for line in UNIFIED_NOTE:
        table.row(header_fmt, line)
    return table.render(1)


UNIFIED_NOTE = (
    "These significance tests are all two-tailed tests with the null hypothesis",
    "that there is no performance difference between the two systems.          ",
    "                                                                          ",
    "The first column indicates if the test finds a significant difference     ",
    "at the level of p=0.05.  It consists of '~' if no difference is           ",
    "found at this significance level.  If a difference at this level is       ",
    "found, this column indicates the system with the higher value on the      ",
    "performance statistic utilized by the particular test.                    ",
    "                                                                          ",
    "The second column specifies the minimum value of p for which the test     ",
    "finds a significant difference at the level of p.                         ",
    "                                                                          ",
    "The third column indicates if the test finds a significant difference     ",
    'at the level of p=0.001 ("***"), at the level of p=0.01, but not          ',
    'p=0.001 ("**"), or at the level of p=0.05, but not p=0.01 ("*").          ',
    "                                                                          ",
    "A test finds significance at level p if, assuming the null hypothesis,    ",
    "the probability of the test statistic having a value at least as          ",
    "extreme as that actually found, is no more than p.                        ",
)


def system_summary(
    names: Sequence[str], index: int, tests: Sequence[tuple[str, str, dict, dict]], test_name: str
) -> str:
    """One system's ``SYSTEM.sts``: its result against every other system in each test."""
    width = max(len(x) for x in names)
    desc_len = max([0] + [len(t[0]) for t in tests])
    str_len = max([7] + [len(t[1]) for t in tests])
    cell = f" {{:>{width}}} "
    title = f"for the {test_name} Test with other Systems:"
    pr = max((width + 2) * (len(tests) + 1), len(title), desc_len + 5 + str_len)
    out = [
        center("Summary of Statistical Significance Tests:", pr),
        center("Comparing the System", pr),
        center(names[index], pr),
        center(title, pr),
        "",
    ]
    out.append(cell.format("") + "".join(cell.format(center(t[1], width)) for t in tests))
    out.append(cell.format("") + "".join(" " + "-" * width + " " for _ in tests))
    for other in range(len(names)):
        if other == index:
            continue
        t1, t2 = min(index, other), max(index, other)
        row = cell.format(names[other])
        for _, _, winners, _ in tests:
            result = winners[t1, t2]
            row += cell.format(
                center("same" if result == NO_DIFF else names[t1] if result < 0 else names[t2], width)
            )
        out.append(row)
    out += ["", "", ""]
    lead = center("", (pr - (desc_len + 5 + str_len)) // 2)
    out.append(lead + center("Test Name", desc_len) + center("", 5) + center("Abbrev.", str_len))
    out.append(lead + "-" * desc_len + center("", 5) + "-" * str_len)
    for desc, abbrev, _, _ in tests:
        out.append(lead + center(desc, desc_len) + center("", 5) + center(abbrev, str_len))
    out += [
        "",
        "Note: System ID with lower error rate is printed if the Null",
        "      Hypothesis is rejected at the 95% Confidence Level,",
        "      if not, 'same' is printed.",
    ]
    return "\n".join(out) + "\n"


def _f_round(value: float, places: int) -> float:
    """SCTK's F_ROUND(n, places): half away from zero at ``places`` decimals."""
    scaled = value * 10.0**places
    return int(scaled + (0.5 if value > 0.0 else -0.5)) / 10.0**places


def _stats(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean, sample standard deviation and median (sc_stats' calc_mean_var_std_dev_Zstat_double)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(values) / n
    ordered = sorted(values)
    median = ordered[n // 2] if n % 2 else (ordered[n // 2] + ordered[n // 2 - 1]) / 2
    spread = sum((v - mean) * (v - mean) for v in values)
    std = (spread / (n - 1)) ** 0.5 if spread != 0.0 else 0.0
    return mean, std, median


def system_summary_table(
    titles: Sequence[str],
    speakers: Sequence[str],
    counts: np.ndarray,
    test_name: str,
    raw: bool,
    cells: dict | None = None,
) -> str:
    """``-r sum`` (``.sys``) or ``rsum`` (``.raw``): word error by speaker and system
    (print_N_system_summary); ``counts[speaker, system] = (C, S, D, I)``."""
    pct_fmt, prec = ("{:5.0f} ", 0) if raw else ("{:6.1f} ", 1)
    tot_fmt = "{:5.1f} " if raw else "{:6.1f} "
    n = len(titles)
    errs, totals = [], []
    for s in range(n):
        column = []
        ref_sum = err_sum = 0
        for g in range(len(speakers)):
            c, sub, d, i = (int(x) for x in counts[g, s])
            ref, err = c + sub + d, i + sub + d
            column.append(float(err) if raw else (0.0 if ref == 0 else err / ref * 100.0))
            ref_sum, err_sum = ref_sum + ref, err_sum + err
        errs.append(column)
        totals.append((ref_sum, err_sum))
    lfmt, dfmt = "c" + "|c" * n, "l" + "|c" * n
    table = Table(cells=cells)
    table.separator(" ")
    if not test_name:
        table.separator(" ", before=False)
    table.row(
        "c",
        "Scoring Summmary of Word Errors by Speaker"
        if raw
        else "Scoring Summmary of Percent Word Error by Speaker",
    )
    if test_name:
        table.separator(" ", before=False)
        table.row("c", f"{test_name} Test")
    table.separator("-")
    table.row(lfmt, "Spkr", *titles)
    for g, speaker in enumerate(speakers):
        table.separator("-")
        table.row(dfmt, f" {speaker} ", *(pct_fmt.format(_f_round(errs[s][g], prec)) for s in range(n)))
    table.separator("=")
    if raw:
        table.row(lfmt, " Sum ", *(pct_fmt.format(_f_round(totals[s][1], 1)) for s in range(n)))
    else:
        table.row(
            lfmt,
            " Average ",
            *(pct_fmt.format(_f_round(0.0 if r == 0 else e / r * 100.0, 1)) for r, e in totals),
        )
    table.separator("-")
    stats = [_stats(column) for column in errs]
    table.row(lfmt, " Mean ", *(tot_fmt.format(_f_round(m, 1)) for m, _, _ in stats))
    table.row(lfmt, " StdDev ", *(tot_fmt.format(_f_round(sd, 1)) for _, sd, _ in stats))
    table.separator(" ")
    table.row(lfmt, " Median ", *(tot_fmt.format(_f_round(md, 1)) for _, _, md in stats))
    return table.render(0)


def executive_summary(
    titles: Sequence[str],
    totals: Sequence[tuple[int, int, int, int, int, int]],
    test_name: str,
    raw: bool,
    cells: dict | None = None,
    nce: Sequence[float | None] | None = None,
) -> str:
    """``-r es`` (``.es``) or ``res`` (``.res``): one line per system (print_N_system_executive_summary);
    ``totals`` = (C, S, D, I, utterances, utterances in error) per system; ``nce``: each system's
    normalized cross entropy (None: no confidences), an NCE column when any system has one."""
    from iescore.pipeline.speech.sclite.table import f_round

    with_nce = nce is not None and any(v is not None for v in nce)
    lfmt = "c|cc|cccccc" + ("|c" if with_nce else "")
    table = Table(cells=cells)
    table.separator(" ")
    if not test_name:
        table.separator(" ", before=False)
    table.row(
        "c", "Executive Scoring Summary by Word Tokens" if raw else "Executive Scoring Summary by Percentages"
    )
    if test_name:
        table.separator(" ", before=False)
        table.row("c", f"{test_name} Test")
    table.row(
        lfmt,
        "System",
        "# Snt",
        "# Ref",
        "Corr",
        "Sub",
        "Del",
        "Ins",
        "Err",
        "S.Err",
        *(["NCE"] if with_nce else []),
    )
    table.separator("-")
    for k, (title, (c, s, d, i, snt, serr)) in enumerate(zip(titles, totals, strict=True)):
        ref, err = c + s + d, s + d + i
        if raw:
            values = [str(v) for v in (c, s, d, i, err, serr)]
        else:
            values = [
                f"{_f_round(0.0 if den == 0 else num / den * 100.0, 1):.1f}"
                for num, den in ((c, ref), (s, ref), (d, ref), (i, ref), (err, ref), (serr, snt))
            ]
        if with_nce:
            assert nce is not None
            value = nce[k]
            values.append("---" if value is None else f"{f_round(value, 3):.3f}")
        table.row(lfmt, title, str(snt), str(ref), *values)
    return table.render(1)


def sort_order(values: Sequence[float], decreasing: bool = False) -> list[int]:
    """Indexes of ``values`` sorted (stable, as glibc's qsort sorts these small arrays)."""
    return sorted(range(len(values)), key=lambda k: values[k], reverse=decreasing)


def _range_graph(
    high: Sequence[float],
    low: Sequence[float],
    mean: Sequence[float],
    std: Sequence[float],
    names: Sequence[str],
    label: str,
    order: Sequence[int],
    scale: int = 2,
) -> list[str]:
    width = max([6] + [len(n) for n in names]) + 1
    pad = pad_for(42 + width)
    rows = [
        pad + "|-" + "-" * width + "-" * 36 + "---|",
        pad + "| " + label.ljust(width) + "|  high  |   low  || std dev |   mean  |",
        pad + "|-" + "-" * width + "+--------" * 2 + "+" + "+---------" * 2 + "|",
    ]
    for k in order:
        rows.append(
            pad
            + "| "
            + names[k].ljust(width)
            + f"| {high[k]:5.1f}  | {low[k]:5.1f}  ||  {std[k]:5.1f}  |  {mean[k]:5.1f}  |"
        )
    rows.append(pad + "|-" + "-" * width + "-" * 36 + "---|")
    rows += ["", "", "", "", "", ""]
    steps = len(range(0, 100, 5 * scale))
    pad = pad_for(100 // scale + 4 + width)
    rows.append(pad + "|---" + "-" * width + "-----" * steps + "|")
    pct = "PERCENTAGES"
    pad_1 = ((100 // scale + 1) - len(pct)) // 2
    pad_2 = (100 // scale + 1) - (pad_1 + len(pct))
    rows.append(pad + "| " + " " * width + "|" + " " * pad_1 + pct + " " * pad_2 + "|")
    rows.append(pad + "|-" + "-" * width + "+-" + "-----" * steps + "|")
    rows.append(
        pad + "| " + " " * width + "|0" + "".join(f"  {i:3d}" for i in range(5 * scale, 101, 5 * scale)) + "|"
    )
    rows.append(
        pad + "| " + label.ljust(width) + "||" + "    |" * len(range(5 * scale, 101, 5 * scale)) + "|"
    )
    rows.append(pad + "|-" + "-" * width + "+-" + "-----" * steps + "|")
    half = 0.0001 + scale / 2.0
    for k in order:
        line = ""
        for j in range(0, 101, scale):
            m, sd = mean[k], std[k]
            if m - half < j < m + half:
                line += "|"
            elif (m + sd - half < j < m + sd + half) or (m - sd - half < j < m - sd + half):
                line += "+"
            elif j > high[k] or j < low[k]:
                line += " "
            else:
                line += "-"
        rows.append(pad + "| " + names[k].ljust(width) + "|" + line + "|")
    rows.append(pad + "|---" + "-" * width + "-----" * steps + "|")
    rows += [
        "",
        pad + "      |-> shows the mean",
        pad + "      +-> shows plus or minus one standard deviation",
    ]
    return rows


def range_report(
    pcts: np.ndarray,
    blocks: Sequence[str],
    names: Sequence[str],
    percent_desc: str,
    test_name: str,
    decreasing: bool,
) -> str:
    """``-g range``: the ranges of each speaker's and each system's percentages (print_rank_ranges)."""
    out: list[str] = []
    for across_blocks in (True, False):
        data = pcts if across_blocks else pcts.T
        title = (
            "RANGE ANALYSIS ACROSS SPEAKERS FOR THE TEST:"
            if across_blocks
            else "RANGE ANALYSIS ACROSS RECOGNITION SYSTEMS FOR THE TEST:"
        )
        labels = list(blocks) if across_blocks else list(names)
        high = [max([0.0, *row]) for row in data]
        low = [min([100.0, *row]) for row in data]
        stats = [_stats(list(row)) for row in data]
        order = sort_order([float(sum(row)) for row in data], decreasing)
        head = [
            "",
            "",
            "",
            pad_for(len(title)) + title,
            pad_for(len(test_name)) + test_name,
            pad_for(3 + len(percent_desc)) + "by " + percent_desc,
            "",
            "",
            "",
            "",
        ]
        body = _range_graph(
            high,
            low,
            [s[0] for s in stats],
            [s[1] for s in stats],
            labels,
            "  SPKR" if across_blocks else "  SYS",
            order,
        )
        text = "\n".join(head + body) + "\n"
        out.append(text)
    return out[0] + FORM_FEED + out[1]


def gnuplot_ranges(
    pcts: np.ndarray,
    blocks: Sequence[str],
    names: Sequence[str],
    percent_desc: str,
    test_name: str,
    base: str,
    decreasing: bool,
    version: int,
) -> dict[str, str]:
    """``-g grange`` (version 1) or ``grange2`` (2): ``BASE.spk.*`` and ``BASE.sys.*`` gnuplot files
    (plot, data, mean and median), speakers and systems sorted by their total percentage."""
    files = {}
    for for_blocks in (True, False):
        data = pcts if for_blocks else pcts.T
        labels = list(blocks) if for_blocks else list(names)
        others = list(names) if for_blocks else list(blocks)
        order = sort_order([float(sum(row)) for row in data], decreasing)
        root = base + (".spk" if for_blocks else ".sys")
        dat, mean, median = f"{root}.dat", f"{root}.mean", f"{root}.median"
        dat_lines, mean_lines, median_lines, tics = [], [], [], []
        for position, k in enumerate(order, 1):
            row = [float(v) for v in data[k]]
            if version == 1:
                dat_lines += [f"{position} {v:f}" for v in row]
            else:
                dat_lines.append(f"{position}" + "".join(f" {v:f}" for v in row))
            ordered = sorted(row)
            n = len(row)
            med = (ordered[n // 2] + ordered[n // 2 - 1]) / 2.0 if n % 2 == 0 else ordered[n // 2]
            mean_lines.append(f"{position} {sum(row) / n:f}")
            median_lines.append(f"{position} {med:f}")
            tics.append(f'"{labels[k]}" {position}')
        plot = [
            f"set yrange [{1 + len(labels)}:0]",
            "set xrange [0:100]",
            f'set title "{test_name}"',
            "set key",
            f'set ylabel "{"Speaker ID" if for_blocks else "Systems"}"',
            f'set xlabel "{percent_desc}"',
            "set ytics (" + ",".join(tics) + ")",
        ]
        if version == 1:
            plot.append(
                f'plot "{mean}" using 2:1 title "Mean {percent_desc}" with lines,'
                f'"{median}" using 2:1 title "Median {percent_desc}" with lines,'
                f'"{dat}" using 2:1 title "Individual {percent_desc}"'
            )
        else:
            line = (
                f'plot "{mean}" using 2:1 title "Mean {percent_desc}" with lines,\\\n'
                f'     "{median}" using 2:1 title "Median {percent_desc}" with lines'
            )
            for t, other in enumerate(others):
                fmt = "%lf" + "%*s" * t + "%lf"
                line += f',\\\n     "{dat}" using 2:1 "{fmt}" title "{other}"'
            plot.append(line)
        files[dat] = "\n".join(dat_lines) + "\n"
        files[mean] = "\n".join(mean_lines) + "\n"
        files[median] = "\n".join(median_lines) + "\n"
        files[f"{root}.plt"] = "\n".join(plot) + "\n"
    return files


def label_scores(
    system: SgmlSystem, labels: Sequence[SgmlLabel]
) -> tuple[dict[tuple[int, int], list[int]], list[int]]:
    """Reference words and errors of each (label, speaker) of ``system`` from its paths' ``labels``
    (``<o,wa>``), and the label field (category) each label was found in; an unknown label is an
    input error naming the path."""
    from iescore.pipeline.core.errors import InputError

    ids = [label.id.lower() for label in labels]
    scores: dict[tuple[int, int], list[int]] = {}
    location = [-1] * len(labels)
    for k, paths in enumerate(system.speaker_paths().values()):
        for path in paths:
            if not path.labels:
                continue
            text = path.labels
            if not text.startswith("<"):
                raise InputError(
                    "<stdin>", path.line, f"expected labels as <ID,...>, got {text!r} for {path.id}"
                )
            p, sets = 1, 0
            while p < len(text) and text[p] != ">":
                if text[p] not in "<,":
                    end = p
                    while end < len(text) and text[end] not in "<,>":
                        end += 1
                    name = text[p:end]
                    if name.lower() not in ids:
                        raise InputError(
                            "<stdin>", path.line, f"expected a label defined by a <LABEL> tag, got {name!r}"
                        )
                    j = ids.index(name.lower())
                    if location[j] == -1:
                        location[j] = sets
                    elif location[j] != sets:
                        raise InputError(
                            "<stdin>", path.line, f"label {name!r} occurs in several label fields"
                        )
                    counts = scores.setdefault((j, k), [0, 0])
                    c, s, d, i = (path.evals.count(letter) for letter in "CSDI")
                    counts[0] += c + d + s
                    counts[1] += i + d + s
                    p = end + 1
                else:
                    p += 1
                sets += 1
    return scores, location


def lur_report(
    systems: Sequence[SgmlSystem], test_name: str, centered: bool, cells: dict | None = None
) -> str:
    """``-r lur``: word error of every system on each label subset of the reference (print_N_lur)."""
    first = systems[0]
    labels: list = []
    categories: list = []
    for item in first.labels:
        target = labels if item.kind == "LABEL" else categories
        if not any((o.id, o.title, o.desc) == (item.id, item.title, item.desc) for o in target):
            target.append(item)
    scored = [label_scores(system, labels) for system in systems]
    location = scored[0][1]
    titlefmt = fmt = categfmt = "c"
    statfmt = "c|"
    for j in range(len(labels)):
        sep = "=" if j > 0 and location[j] != location[j - 1] else "|"
        titlefmt += sep + "ca"
        fmt += sep + "rr"
        categfmt += sep + ("ca" if j == 0 or location[j] != location[j - 1] else "aa")
        statfmt += "ca" if j == 0 else "aa"
    table = Table(80 if centered else None, cells)
    table.row("c", "By System Test Subset Scoring Summary")
    table.row("c", f"For the {test_name} Test")
    table.separator(" ")
    for label in labels:
        table.row("ccc", label.title.replace("//", " "), "->", label.desc)
    table.separator(" ", before=False)
    table.row("ccc", "", "", "")
    table.separator("-")
    if categories:
        table.row(categfmt, "", *(c.title for c in categories))
        table.separator("-")
    table.row(titlefmt, "SYSTEM", *(label.title for label in labels))
    table.row(titlefmt, "", *([" #Wrd %WE"] * len(labels)))
    stats = []
    for (scores, _), system in zip(scored, systems, strict=True):
        per_label = []
        for j in range(len(labels)):
            refs, errs = [], []
            for k in range(len(system.speakers)):
                ref, err = scores.get((j, k), [0, 0])
                if ref + err != 0:
                    refs.append(float(ref))
                    errs.append(0.0 if ref == 0 else err / ref * 100.0)
            sumr = sum(int(r) for r in refs)
            sume = sum(
                scores.get((j, k), [0, 0])[1]
                for k in range(len(system.speakers))
                if sum(scores.get((j, k), [0, 0]))
            )
            ref_mean, ref_sd, ref_median = _stats(refs)
            err_mean, err_sd, err_median = _stats(errs)
            per_label.append(
                (
                    (sumr, ref_mean, ref_sd, ref_median),
                    (0.0 if sumr == 0 else sume / sumr * 100.0, err_mean, err_sd, err_median),
                )
            )
        stats.append(per_label)
    names = (
        "Set/Subset #Words and System Set/Subset Average Word Error Rate",
        "Set/Subset Mean #Words/Speaker and Set/Subset Mean Word Error Rate/Speaker",
        "Associated Standard Deviations",
        "Set/Subset Median #Words/Speaker and Set/Subset Median Word Error Rate/Speaker",
    )
    for i, name in enumerate(names):
        table.separator("=" if i != 2 else "-")
        table.row(statfmt, "", name)
        table.separator("-")
        for system, per_label in zip(systems, stats, strict=True):
            values = []
            for ref_stats, err_stats in per_label:
                values += [f"[{int(ref_stats[i])}]", f"{_f_round(err_stats[i], 1):.1f}"]
            table.row(fmt, system.title, *values)
    return table.render(1)


def friedman_verbose(
    result: FriedmanResult,
    subject: str,
    hypothesis: str,
    title: str,
    names: Sequence[str],
    order: Sequence[int],
    comparisons: dict[tuple[int, int], int],
) -> str:
    """One side of the detailed analysis of variance by ranks (compute_anovar, verbose): the Friedman
    statistic and its decision, then the multiple comparison matrix, names in ``order``."""
    fri = "Friedman Two-way Analysis of Variance by Ranks"
    df, x2 = result.df, result.x2
    levels = X2_LEVELS[df]
    general = 10
    out = [
        "",
        "",
        "",
        pad_for(len(fri)) + fri,
        pad_for(len(fri)) + "-" * 46,
        "",
        f"\tHo: Testing the hypothesis that all {hypothesis} are the same",
        "",
        "",
        " " * 35 + "Reject if",
        " " * 26 + f"X2_r > X2 of {X2_PERCENT[general]} df{df + 1} ({levels[general]:2.3f})",
        "",
        " " * 26 + f"adjustment = {result.adjust:2.3f}",
        " " * 30 + f"  X2_r = {x2:2.3f}",
    ]
    if result.adjust < 0.5:
        out += [
            "",
            "\t\t*** Warning:  ties adjustment may have severely",
            "\t\t              exagerated the X2_r value",
            "",
        ]
    out += ["ANALYSIS:", "--------"]
    if x2 > levels[general]:
        out += [
            f"\tThe test statistic X2_r shows, with {X2_CONFIDENCE[general]} confidence, that at",
            f"\tleast one {subject} is significantly different.",
            "",
            "\tFurther, the probablity of there being a difference is",
        ]
        i = general
        while i < 13 and not x2 < levels[i + 1]:
            i += 1
        out.append(
            f"\tgreater that {X2_CONFIDENCE[i]}."
            if i == 13
            else f"\tbetween {X2_CONFIDENCE[i]} to {X2_CONFIDENCE[i + 1]}."
        )
    else:
        out += [
            f"\tThe test statistic X2_r shows that at the {X2_CONFIDENCE[general]} confidence",
            f"\tinterval, the {subject}s are not significantly",
            "\tdifferent.",
            "",
            "\tFurther, the probablity of there being a difference is",
        ]
        i = general
        while i > 0 and not x2 > levels[i - 1]:
            i -= 1
        out.append(
            f"\tless than {X2_CONFIDENCE[i]}."
            if i == 0
            else f"\tbetween {X2_CONFIDENCE[i - 1]} to {X2_CONFIDENCE[i]}."
        )
    out += ["", ""]
    width = max([4] + [len(n) for n in names])
    cell = f"| {{:<{width}}} "
    pad = pad_for((len(names) + 1) * (width + 3))
    sub = "Using a Multiple Comparison Test"
    out += ["", "", pad_for(len(title)) + title, pad_for(len(sub)) + sub, "", "", ""]
    rule = pad + "|" + "-" * (width + 2) + "-" * (width + 3) * len(names) + "|"
    out.append(rule)
    out.append(pad + "|" + " " * (width + 2) + "".join(cell.format(names[k]) for k in order) + "|")
    out.append(
        pad + "|" + "-" * (width + 2) + "+" + "-" * (width + 3) * (len(names) - 1) + "-" * (width + 2) + "|"
    )
    for t, k in enumerate(order):
        row = pad + cell.format(names[k])
        for t2, k2 in enumerate(order):
            if t < t2:
                result_of = comparisons[k, k2]
                row += cell.format(names[k] if result_of == -1 else names[k2] if result_of == 1 else "same")
            else:
                row += cell.format("")
        out.append(row + "|")
    out.append(rule)
    return "\n".join(out) + "\n"
