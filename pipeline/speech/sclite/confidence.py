"""sclite's ``-C det hist bhist sbhist``: analyses of the hypothesis confidences, as gnuplot files.

Each writes its data and a gnuplot command file under the report root, as sclite 2.10 writes them
(``det.c``): the DET curve of correct words (targets) against substituted and inserted words
(non-targets), the 100-bin histogram of confidences, the 10-bin percentage of correct words, and
the 20 bins of equal word count. Words are taken speaker by speaker (sclite's order of first
appearance), segment by segment; a pair without a hypothesis word (a deletion, or a word left out
at no cost under ``-D``) has no confidence and is not counted. A word without a confidence counts
as 0, as sclite reads it.
"""

from __future__ import annotations

import math

import numpy as np
from iescore.pipeline.speech.sclite.model import ScoredSystem

# sclite's DET axis ticks (normal deviates of the percentages shown).
_TICS = (
    '("0.1" -3.08, "0.5" -2.57, "2" -2.05, "5" -1.64, "10" -1.28, "20" -0.84, "30" -0.52, '
    '"40" -0.25, "50" 0.0, "60" 0.25, "70" 0.52, "80" 0.84, "90" 1.28, "95" 1.64, "98" 2.05, '
    '"99.5" 2.57, "99.9" 3.08)'
)
_PMIN, _PMAX = 0.0005, 0.5
_EPS = 2.2204e-16


def available(system: ScoredSystem) -> bool:
    """Whether the hypothesis has confidences (sclite then writes the analyses at ``-f 1``)."""
    return system.hyp_conf is not None


def _words(system: ScoredSystem) -> tuple[np.ndarray, np.ndarray]:
    """Confidence and op of every hypothesis word, in sclite's speaker-then-segment order."""
    group: dict[str, int] = {}
    keys = [group.setdefault(s.speaker, len(group)) for s in system.segments]
    order = np.argsort(np.asarray(keys, np.int64), kind="stable")
    sizes = np.diff(system.bounds)
    starts = system.bounds[:-1][order]
    index = (
        np.concatenate([np.arange(a, a + n) for a, n in zip(starts, sizes[order], strict=True)])
        if len(order)
        else np.zeros(0, np.int64)
    )
    hyp = system.hyp[index]
    texts = np.asarray([t != "" for t in system.texts] + [False], bool)  # -1 (no word) maps to False
    has_word = texts[hyp] & (system.ops[index] != ord("D"))
    index = index[has_word]
    conf = system.hyp_conf[index] if system.hyp_conf is not None else np.zeros(len(index))
    return np.nan_to_num(conf, nan=0.0), system.ops[index]


def ppndf(p: float) -> float:
    """The normal deviate of probability ``p`` (sclite's ``ppndf``, its own polynomial)."""
    if p >= 1.0:
        p = 1 - _EPS
    if p <= 0.0:
        p = _EPS
    q = p - 0.5
    if abs(q) <= 0.42:
        r = q * q
        return (
            q
            * (((-25.4410604963 * r + 41.3911977353) * r + -18.6150006252) * r + 2.5066282388)
            / ((((3.1308290983 * r + -21.0622410182) * r + 23.0833674374) * r + -8.4735109309) * r + 1.0)
        )
    r = 1.0 - p if q > 0.0 else p
    if r <= 0.0:
        return 0.0
    r = math.sqrt(-math.log(r))
    value = (((2.3212127685 * r + 4.8501412713) * r + -2.2979647913) * r + -2.7871893113) / (
        (1.6370678189 * r + 3.5438892476) * r + 1.0
    )
    return -value if q < 0 else value


def _det_points(targets: list[float], non_targets: list[float]) -> list[tuple[float, float]]:
    """sclite's ``Compute_ROC``: its counters start at 1 (a port from MATLAB), so it gives one point
    fewer than the words and its first point is the fixed (PMIN, PMAX) corner."""
    true, false = sorted(targets) + [9e99], sorted(non_targets) + [9e99]
    n_true, n_false = len(targets), len(non_targets)
    points = [(ppndf(_PMIN), ppndf(_PMAX))]
    nt = nf = 1
    while nt < n_true or nf < n_false:
        if true[nt] <= false[nf] and nt < n_true:
            nt += 1
        else:
            nf += 1
        miss = (nt - 1) / n_true if n_true else math.nan
        fa = (n_false - (nf - 1)) / n_false if n_false else math.nan
        points.append((ppndf(miss), ppndf(fa)))
    return points


def det_files(systems: list[ScoredSystem], root: str, test_name: str = "") -> list[tuple[str, str]]:
    """``-C det`` (one system) or ``sc_stats -g det`` (several): ``ROOT.det.plt`` and one
    ``ROOT.det.dat.NN`` per system. As sclite's ``make_SCORES_DET_curve``, whose word counters
    are not reset between systems, each system's curve starts with a confidence of 0 for every
    correct (and every wrong) word of the systems before it."""
    several = len(systems) > 1
    title = f"DET plot for {test_name} Test" if test_name else "DET plot"
    plot = [
        "## GNUPLOT command file\nset style data lines\nset size 0.78, 1.0\nset noxtics\nset noytics\n",
        f"set title '{title}'\n" if several else f"set title 'DET plot for {root}'\nset nokey\n",
        'set ylabel "Correct Words Removed (in %)"\nset xlabel "Incorrect Words Retained (in %)"\n',
        f"set grid\nset ytics {_TICS}\nset xtics {_TICS}\n",
        "plot [-3.290527:3.290527] [-3.290527:3.290527] \\\n",
    ]
    files = []
    targets: list[float] = []
    non_targets: list[float] = []
    for k, system in enumerate(systems):
        conf, ops = _words(system)
        targets = [0.0] * len(targets) + conf[ops == ord("C")].tolist()
        non_targets = [0.0] * len(non_targets) + conf[(ops == ord("S")) | (ops == ord("I"))].tolist()
        points = _det_points(targets, non_targets)
        data = "".join(f"{a:f} {b:f}\n" for a, b in points[: len(targets) + len(non_targets) - 1])
        files.append((f"{root}.det.dat.{k:02d}", data))
        plot.append(
            f" '{root}.det.dat.{k:02d}' using 2:1 title \"{system.title}\" with lines"
            + (", \\" if k < len(systems) - 1 else "")
            + "\n"
        )
    plot.append("set ytics\nset xtics\nset size 1.0, 1.0\nset key\n")
    return [(f"{root}.det.plt", "".join(plot)), *files]


def _binned(conf: np.ndarray, ops: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """sclite's ``binned_confidences`` over [0, 1]: bin edges, correct and incorrect counts per bin,
    and how many confidences fell outside (a confidence of exactly 1 goes to the last bin)."""
    edges = np.arange(bins + 1) * (1.0 / bins)
    position = conf * float(bins)
    index = np.trunc(position).astype(np.int64)
    index = np.where((position <= bins) & (index == bins), bins - 1, index)
    inside = (index >= 0) & (index < bins)
    correct = np.bincount(index[inside & (ops == ord("C"))], minlength=bins)[:bins].astype(float)
    incorrect = np.bincount(index[inside & (ops != ord("C"))], minlength=bins)[:bins].astype(float)
    return edges, correct, incorrect, int((~inside).sum())


def _range_warning(outside: int) -> str:
    return f"Warning: {outside} Confidence scores out of binning range 0.000000:1.000000\n" if outside else ""


def hist_files(system: ScoredSystem, root: str) -> tuple[list[tuple[str, str]], str]:
    """``-C hist``: ``ROOT.hist.dat`` (100 bins, each as two points) and ``ROOT.hist.plt``; and
    sclite's warning for confidences outside [0, 1]."""
    conf, ops = _words(system)
    edges, correct, incorrect, outside = _binned(conf, ops, 100)
    lines = []
    for b in range(100):
        counts = f"{correct[b] + incorrect[b]:f} {correct[b]:f} {incorrect[b]:f}"
        lines.append(f"{edges[b]:f} {counts}\n{edges[b + 1]:f} {counts}\n")
    plot = (
        "set samples 1000\nset xrange [0.000000:1.000000]\nset autoscale y\nset size 0.78, 1.0\n"
        "set nogrid\nset ylabel 'Counts'\nset xlabel 'Confidence Measure'\n"
        f"set title  'Confidence scores for {root}'\n"
        f"plot '{root}.hist.dat' using 1:2 '%lf%lf' title 'All Conf.' with lines, \\\n"
        f"     '{root}.hist.dat' using 1:2 '%lf%*s%lf' title 'Correct Conf.' with lines, \\\n"
        f"     '{root}.hist.dat' using 1:2 '%lf%*s%*s%lf' title 'Incorrect Conf.' with lines\n"
        "set size 1.0, 1.0\n"
    )
    return [(f"{root}.hist.dat", "".join(lines)), (f"{root}.hist.plt", plot)], _range_warning(outside)


def bhist_files(system: ScoredSystem, root: str) -> tuple[list[tuple[str, str]], str]:
    """``-C bhist``: the percentage correct in each tenth of the confidence range."""
    conf, ops = _words(system)
    _, correct, incorrect, outside = _binned(conf, ops, 10)
    total = correct + incorrect
    pct = np.divide(correct, total, out=np.zeros(10), where=total > 0) * 100.0
    data = "".join(f"{b * 0.1 + 0.05:.4f} {pct[b]:f} 1 1 0.1\n" for b in range(10))
    plot = (
        "## GNUPLOT command file\nset samples 1000\nset key at 30.000000,90.000000\nset xrange [0:1]\n"
        "set yrange [0:100]\nset nogrid\nset ylabel '% Hypothesis Correct'\n"
        "set xlabel 'Confidence Scores'\n"
        f"set title  'Binned Confidence scores for {root}'\nset size 0.78,1\nset nolabel\n"
        f"plot '{root}.bhist.dat1' using 1:2 '%lf%lf' title 'True' with boxes,\\\n"
        "     x*100  title 'Predicted' with lines\nset size 1.0, 1.0\n"
    )
    return [(f"{root}.bhist.dat1", data), (f"{root}.bhist.plt", plot)], _range_warning(outside)


def sbhist_files(system: ScoredSystem, root: str, bins: int = 20) -> list[tuple[str, str]]:
    """``-C sbhist``: the words sorted by confidence (stably) in ``bins`` bins of equal count, the
    remainder joining the last; per bin its middle, percentage correct and width."""
    conf, ops = _words(system)
    n = len(conf)
    order = np.argsort(conf, kind="stable")
    lines = []
    step = n // bins
    low, high = 0, step
    while low < high and low < n:
        chunk = order[low:high]
        c = conf[chunk]
        lo, hi = float(c.min()), float(c.max())
        right = int((ops[chunk] == ord("C")).sum())
        pct = float(np.float32(right) / np.float32(len(chunk))) * 100.0  # a C float division
        lines.append(f"{(lo + hi) / 2:f} {pct:f} 1 1 {hi - lo:f}\n")
        low = high
        high += step
        if high + step > n:
            high = n
    plot = (
        "## GNUPLOT command file\nset samples 1000\nset key 30.000000,90.000000\nset xrange [0:1]\n"
        "set yrange [0:100]\nset ylabel '% Hypothesis Correct'\nset xlabel 'Confidence Scores'\n"
        f"set title  'Scaled Binned Confidence scores for {root}'\nset nogrid\nset size 0.78,1\n"
        f"set nolabel\nplot '{root}.sbhist.dat'  title 'True' with boxes, x*100 title 'Expected'\n"
        "set size 1.0, 1.0\nset key\n"
    )
    return [(f"{root}.sbhist.dat", "".join(lines)), (f"{root}.sbhist.plt", plot)]
