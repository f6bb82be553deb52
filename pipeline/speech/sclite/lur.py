"""sclite's ``.lur`` report: word error rates by segment label (stm ``;; LABEL`` headers), per
speaker, with the set's sum, mean, standard deviation and median."""

from __future__ import annotations

import numpy as np
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.sclite.model import ScoredSystem
from iescore.pipeline.speech.sclite.summary import mean_sd_median, pct
from iescore.pipeline.speech.sclite.table import Table, TableMemory, f_round


def _rm_lf(text: str) -> str:
    """A label title with ``//`` (the table's line break) made a blank."""
    return text.replace("//", " ")


def lur_report(system: ScoredSystem, memory: TableMemory | None = None) -> str:
    """The ``.lur`` report; ``memory``: the run's table layout state (sclite centres the lur when a
    summary table came before it, and a spanned cell keeps an earlier table's text)."""
    labels = system.labels
    speakers = system.speakers()
    spk_index = {s: k for k, s in enumerate(speakers)}
    nref = np.zeros((len(labels), len(speakers)), np.int64)
    nerr = np.zeros((len(labels), len(speakers)), np.int64)
    location = [-1] * len(labels)
    ids = [lab.id.lower() for lab in labels]
    counts = system.counts()
    for k, seg in enumerate(system.segments):
        for position, name in enumerate(seg.labels):
            if name.lower() not in ids:
                raise InputError(
                    system.ref_file, 0, f"label '{name}' of segment {seg.id} has no ';; LABEL' definition"
                )
            j = ids.index(name.lower())
            if location[j] == -1:
                location[j] = position
            elif location[j] != position:
                raise InputError(
                    system.ref_file, 0, f"label '{name}' of segment {seg.id} occurs in several label fields"
                )
            c, s, d, i = (int(v) for v in counts[k])
            nref[j, spk_index[seg.speaker]] += c + d + s
            nerr[j, spk_index[seg.speaker]] += i + d + s
    title_fmt = fmt = categ_fmt = "c"
    for j in range(len(labels)):
        sep = "=" if j > 0 and location[j] != location[j - 1] else "|"
        title_fmt += sep + "ca"
        fmt += sep + "rr"
        categ_fmt += sep + ("ca" if j == 0 or location[j] != location[j - 1] else "aa")
    table = Table()
    table.row("c", f"System: {system.title}")
    table.rule(" ")
    for lab in labels:
        table.row("ccc", _rm_lf(lab.title), "->", lab.description)
    table.rule_after(" ")
    table.row("ccc", "", "", "")
    table.rule("-")
    if system.categories:
        table.row(categ_fmt, "", *(cat.title for cat in system.categories))
        table.rule("-")
    table.row(title_fmt, "SPKR", *(lab.title for lab in labels))
    table.row(title_fmt, "", *(" #Wrd %WE" for _ in labels))
    null_ref = False
    for k, name in enumerate(speakers):
        table.rule("-")
        cells = [name]
        for j in range(len(labels)):
            if nref[j, k] != 0:
                cells += [f"[{nref[j, k]}]", f"{f_round(pct(nerr[j, k], nref[j, k]), 1):.1f}"]
            elif nerr[j, k] != 0:
                cells += [f"{nref[j, k]}", f"* {nerr[j, k]} *"]
                null_ref = True
            else:
                cells += ["", ""]
        table.row(fmt, *cells)
    stats = []
    for j in range(len(labels)):
        present = [k for k in range(len(speakers)) if nref[j, k] > 0]
        ref_words = [float(nref[j, k]) for k in present]
        err_words = [pct(nerr[j, k], nref[j, k]) for k in present]
        rm, rsd, rmed = mean_sd_median(ref_words)
        em, esd, emed = mean_sd_median(err_words)
        sumr, sume = int(nref[j].sum()), int(nerr[j].sum())
        stats.append(([sumr, rm, rsd, rmed], [f_round(pct(sume, sumr), 1), em, esd, emed]))
    table.rule("=")
    for i, name in enumerate(
        ("Set Sum/Avg", "Mean +" if null_ref else "Mean", "StdDev +" if null_ref else "StdDev", "Median")
    ):
        if i == 1:
            table.rule("-")
        if i == 3:
            table.rule(" ")
        cells = [name]
        for ref_sts, err_sts in stats:
            cells += [f"[{int(ref_sts[i])}]", f"{f_round(err_sts[i], 1):.1f}"]
        table.row(fmt, *cells)
    if null_ref:
        table.rule("-")
        table.row("l", "Note:  * Speaker Has no reference word tokens.  Number of incorrect words presented")
        table.row("l", "       + Speakers with no reference words ignored")
    return table.render(1, memory)
