"""sclite's ``.sys`` (percentages) and ``.raw`` (counts) speaker tables, with NCE when the
hypothesis has confidences."""

from __future__ import annotations

import math

import numpy as np
from iescore.pipeline.speech.sclite.model import ScoredSystem
from iescore.pipeline.speech.sclite.table import Table, TableMemory, center, f_round

SCREEN_WIDTH = 80


def pct(num: float, den: float) -> float:
    return 0.0 if den == 0 else num / den * 100.0


def _compare(a: float, b: float) -> int:
    """sclite's comparison of two numbers: by their difference, so that NaN equals anything."""
    f = a - b
    return -1 if f < 0.0 else (1 if f > 0 else 0)


def c_sorted(values: list[float]) -> list[float]:
    """``values`` in the order glibc's ``qsort`` (a top-down merge sort) puts them with sclite's
    comparison: the same as ``sorted`` but where NaNs (speakers without an NCE) fall."""
    if len(values) <= 1:
        return list(values)
    half = len(values) // 2
    left, right = c_sorted(values[:half]), c_sorted(values[half:])
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        if _compare(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def mean_sd_median(values: list[float]) -> tuple[float, float, float]:
    """Mean, sample standard deviation and median as sclite computes them (0 for no values)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(values) / n
    ordered = c_sorted(values)
    median = (ordered[n // 2] + ordered[n // 2 - 1]) / 2 if n % 2 == 0 else ordered[n // 2]
    spread = sum((v - mean) * (v - mean) for v in values)
    sd = math.sqrt(spread / (n - 1)) if spread != 0.0 else 0.0
    return mean, sd, median


def speaker_counts(system: ScoredSystem) -> tuple[list[str], np.ndarray]:
    """The speakers in order and, per speaker, C, S, D, I, sentences, sentences with an error."""
    speakers = system.speakers()
    index = {s: k for k, s in enumerate(speakers)}
    per_segment = system.counts()
    table = np.zeros((len(speakers), 6), np.int64)
    of = np.fromiter((index[s.speaker] for s in system.segments), np.int64, len(system.segments))
    np.add.at(table[:, :4], of, per_segment)
    np.add.at(table[:, 4], of, 1)
    np.add.at(table[:, 5], of, (per_segment[:, 1:].sum(axis=1) > 0).astype(np.int64))
    return speakers, table


def nce(system: ScoredSystem, speakers: list[str]) -> tuple[float, list[float]]:
    """Normalized cross entropy of the hypothesis confidences, the system's and each speaker's, as
    sclite computes it: confidences floored at 1e-7 and capped at 1 - 1e-7, a speaker with no
    hypothesis word gets 0, and a speaker whose words are all correct gets NaN (0 times -inf), which
    sclite prints as -2147483.648."""
    conf = np.clip(system.hyp_conf, 0.0000001, 0.9999999)
    seg_of_col = np.repeat(np.arange(len(system.segments)), np.diff(system.bounds))
    spk_index = {s: k for k, s in enumerate(speakers)}
    spk_of_seg = np.fromiter((spk_index[s.speaker] for s in system.segments), np.int64, len(system.segments))
    spk_of_col = spk_of_seg[seg_of_col] if len(seg_of_col) else np.zeros(0, np.int64)
    words = (system.ops != ord("D")) & (system.hyp >= 0)
    correct = system.ops == ord("C")
    log2e = 1.4426950408889634

    def h_of_c(c: int, wrong: int) -> float:
        p = c / (c + wrong) if c + wrong else math.nan
        with np.errstate(all="ignore"):
            return float(-(np.float64(c) * np.log(p) * log2e + np.float64(wrong) * np.log(1.0 - p) * log2e))

    _, t = speaker_counts(system)
    sum_c_sys = sum_i_sys = 0.0
    per = []
    # Each speaker's hypothesis words, in column order, as one slice of the columns sorted by speaker.
    by_speaker = np.argsort(spk_of_col, kind="stable")
    by_speaker = by_speaker[words[by_speaker]]
    edges = np.searchsorted(spk_of_col[by_speaker], np.arange(len(speakers) + 1))
    for k in range(len(speakers)):
        mine = by_speaker[edges[k] : edges[k + 1]]
        if not len(mine):
            per.append(0.0)
            continue
        right = correct[mine]
        sum_c = float(np.sum(np.log(conf[mine[right]]) * log2e))
        sum_i = float(np.sum(np.log(1.0 - conf[mine[~right]]) * log2e))
        h = h_of_c(int(t[k, 0]), int(t[k, 1] + t[k, 3]))
        with np.errstate(all="ignore"):
            per.append(float(np.float64(h + sum_c + sum_i) / np.float64(h)))
        sum_c_sys += sum_c
        sum_i_sys += sum_i
    h = h_of_c(int(t[:, 0].sum()), int(t[:, 1].sum() + t[:, 3].sum()))
    with np.errstate(all="ignore"):
        system_value = float(np.float64(h + sum_c_sys + sum_i_sys) / np.float64(h))
    return system_value, per


def weighted_counts(system: ScoredSystem, speakers: list[str]) -> np.ndarray:
    """Per speaker, the weights (``-w``) of the reference words and of the correct, substituted,
    deleted and inserted words, summed as sclite sums them (word by word in reading order): a
    correct pair counts its hypothesis word's weight, a substitution both words' weights."""
    assert system.ref_weight is not None and system.hyp_weight is not None
    index = {s: k for k, s in enumerate(speakers)}
    out = [[0.0] * 5 for _ in speakers]
    ops, rw, hw = system.ops.tolist(), system.ref_weight.tolist(), system.hyp_weight.tolist()
    bounds = system.bounds.tolist()
    for k, seg in enumerate(system.segments):
        row = out[index[seg.speaker]]
        for j in range(bounds[k], bounds[k + 1]):
            op = ops[j]
            if op == 73:  # I
                row[4] += hw[j]
            elif op == 68:  # D
                row[3] += rw[j]
                row[0] += rw[j]
            elif op == 67:  # C
                row[0] += rw[j]
                row[1] += hw[j]
            else:
                row[2] += rw[j] + hw[j]
                row[0] += rw[j]
    return np.asarray(out, np.float64).reshape(len(speakers), 5)


def _int_sum(values: list[float]) -> int:
    """``values`` added one by one to a C ``int`` (each sum truncated toward zero)."""
    total = 0
    for value in values:
        total = int(total + value)
    return total


def summary_report(
    system: ScoredSystem, raw: bool = False, memory: TableMemory | None = None, weighted: bool = False
) -> str:
    """The ``.sys`` report (``raw``: the ``.raw`` report of counts; ``weighted``: the ``.wws``
    report, percentages of the words' weights under ``-w``); ``memory``: the run's table layout
    state (:class:`~pipeline.speech.sclite.table.TableMemory`)."""
    speakers, t = speaker_counts(system)
    has_conf = system.hyp_conf is not None
    corr, sub, dele, ins, nsent, serr = (t[:, k].astype(float) for k in range(6))
    words = t[:, 0] + t[:, 1] + t[:, 2]
    weights = weighted_counts(system, speakers) if weighted else None
    arrays = {}
    for k in range(len(speakers)):
        refs = float(words[k]) if weights is None else float(weights[k, 0])
        err = sub[k] + ins[k] + dele[k]
        if raw or refs == 0:
            arrays[k] = [corr[k], sub[k], dele[k], ins[k], err]
        else:
            c, s, d, i = (corr[k], sub[k], dele[k], ins[k]) if weights is None else weights[k, 1:].tolist()
            arrays[k] = [pct(c, refs), pct(s, refs), pct(d, refs), pct(i, refs), pct(s + i + d, refs)]
    serr_arr = [float(serr[k]) if raw else pct(serr[k], nsent[k]) for k in range(len(speakers))]
    nce_system, nce_arr = nce(system, speakers) if has_conf else (0.0, [0.0] * len(speakers))
    prec = 0 if raw else 1
    pct_fmt = "{:5.0f} " if raw else "{:5.1f} "
    tot_fmt = "{:5.1f} "
    form = "l|cc|cccccc" + ("|c" if has_conf else "")
    table = Table(page_center=True)
    table.row("c", system.title)
    table.rule("-")
    heads = [
        " SPKR",
        " # Snt",
        "# Chr" if system.char_align else "# Wrd",
        "Corr",
        " Sub",
        " Del",
        " Ins",
        " Err",
        "S.Err",
    ]
    table.row(form, *(heads + (["NCE"] if has_conf else [])))
    zero = 0
    for k, name in enumerate(speakers):
        table.rule("-")
        cells = [f" {name} ", f"{int(nsent[k]):5d}", f"{int(words[k]):5d}"]
        if words[k] > 0 or raw:
            cells += [pct_fmt.format(f_round(v, prec)) for v in arrays[k]]
        else:
            cells += [f"{f_round(v, 0):5.0f}*" for v in arrays[k]]
            zero += 1
        cells.append(pct_fmt.format(f_round(serr_arr[k], prec)))
        if has_conf:
            cells.append(f"{f_round(nce_arr[k], 3):7.3f} " if words[k] > 0 else "# ")
        table.row(form, *cells)
    table.rule("=")
    tc, ts, td, ti = (int(t[:, k].sum()) for k in range(4))
    tst, tserr, tword = int(t[:, 4].sum()), int(t[:, 5].sum()), int(words.sum())
    tref = tc + ts + td
    if weights is not None:
        # sclite adds each speaker's weights to an int: truncated after every speaker.
        tref, tc, ts, td, ti = (_int_sum(weights[:, j].tolist()) for j in range(5))
    if not raw:
        cells = [" Sum/Avg", f"{tst:5d}", f"{tword:5d}"]
        cells += [tot_fmt.format(f_round(pct(v, tref), 1)) for v in (tc, ts, td, ti, ts + ti + td)]
        cells.append(tot_fmt.format(f_round(pct(tserr, tst), 1)))
    else:
        cells = [" Sum", f"{tst:5d}", f"{tword:5d}"]
        cells += [pct_fmt.format(f_round(float(v), 0)) for v in (tc, ts, td, ti, ts + ti + td, tserr)]
    if has_conf:
        cells.append(f"{f_round(nce_system, 3):7.3f} ")
    table.row(form, *cells)
    kept = [k for k in range(len(speakers)) if words[k] > 0] if zero else list(range(len(speakers)))
    stats = {
        "snt": mean_sd_median([float(v) for v in nsent]),
        "wrd": mean_sd_median([float(v) for v in words]),
    }
    cols = [mean_sd_median([arrays[k][j] for k in kept]) for j in range(5)]
    serr_stats = mean_sd_median(serr_arr)
    nce_stats = mean_sd_median(nce_arr)
    table.rule("=")
    stat_form = "c|cc|cccccc" + ("|c" if has_conf else "")
    tpct = "{:5.1f}+" if zero else tot_fmt
    for i, name in enumerate((" Mean ", " S.D. ", "Median")):
        cells = [
            name,
            tot_fmt.format(f_round(stats["snt"][i], 1)),
            tot_fmt.format(f_round(stats["wrd"][i], 1)),
        ]
        cells += [tpct.format(f_round(c[i], 1)) for c in cols]
        cells.append(tot_fmt.format(f_round(serr_stats[i], 1)))
        if has_conf:
            cells.append(f"{f_round(nce_stats[i], 3):7.3f}" + ("#" if zero else " "))
        table.row(stat_form, *cells)
    text = "\n\n\n" + center("SYSTEM SUMMARY PERCENTAGES by SPEAKER", SCREEN_WIDTH) + "\n\n"
    if weighted:
        stars = "*" * 70
        text += (
            "\n\n"
            + center(stars, SCREEN_WIDTH)
            + "\n"
            + center("*****     Word Percentages Computed using Weighted Word Scoring  *****", SCREEN_WIDTH)
            + "\n"
            + center(stars, SCREEN_WIDTH)
            + "\n\n"
            + center(f"** Weights defined by file: '{system.weight_file}'", SCREEN_WIDTH)
            + "\n\n"
        )
    text += table.render(0, memory)
    if zero and not raw:
        text += (
            "\n* No Reference words for this/these speaker(s).  Word counts supplied\n"
            "  rather than percents.\n"
            "# No Reference words for this/these speaker(s).  NCE not computable.\n"
            "+ Speaker(s) with no reference data is ignored\n"
        )
    return text
