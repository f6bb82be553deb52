"""sclite's alignment dumps: ``.pra`` (``-o pralign``) and ``.prf`` (``-o prf``, with the header,
labels, times and confidences)."""

from __future__ import annotations

import math

import numpy as np
from iescore.pipeline.core.arrays import ranges
from iescore.pipeline.speech.sclite.model import ScoredSystem
from iescore.pipeline.speech.sclite.trn import ASCII, Encoding

_ASTERISKS = "*" * 40


def segment_block(
    system: ScoredSystem, k: int, width: int, upper, full: bool, counts: np.ndarray
) -> list[str]:
    """One segment's block as sclite's PATH_print writes it (``full``: with its labels, file,
    channel, times and confidences)."""
    seg = system.segments[k]
    a, b = int(system.bounds[k]), int(system.bounds[k + 1])
    texts = system.texts
    out = [f"id: {seg.id}\n"]
    if seg.labels:
        out.append("Labels: <" + ",".join(seg.labels) + ">\n")
    if seg.file:
        out.append(f"File: {seg.file}\n")
    if seg.channel:
        out.append(f"Channel: {seg.channel}\n")
    c, s, d, i = (int(v) for v in counts[k])
    out.append(f"Scores: (#C #S #D #I) {c} {s} {d} {i}\n")
    weighted = full and system.ref_weight is not None  # the .pra keeps only Case_sensitve, as sclite's
    attributes = (
        ("Character_align " if full and system.char_align else "")
        + ("Case_sensitve " if system.case_sensitive else "")
        + ("Ref_weight Hyp_weight " if weighted else "")
    )
    if attributes:
        out.append(f"Attributes: {attributes}\n")
    if full and seg.begin is not None:
        out.append(f"Ref times: t1= {seg.begin:.2f} t2= {seg.end:.2f}\n")
    hyp_times = full and system.hyp_t1 is not None
    ref_times = full and system.ref_t1 is not None
    hyp_conf = full and system.hyp_conf is not None
    aux = 7 if (hyp_times or ref_times or hyp_conf or weighted) else 0
    ops = system.ops[a:b]
    cells = []
    for j in range(a, b):
        op = chr(system.ops[j])
        r, h = int(system.ref[j]), int(system.hyp[j])
        # An optionally deletable word left out is correct against sclite's empty word (printed blank).
        ins, dele = r < 0 and op == "I", h < 0 and op == "D"
        astr = "" if r < 0 else texts[r]
        bstr = "" if h < 0 else texts[h]
        lena = 1 if ins else len(astr)
        lenb = 1 if dele else len(bstr)
        wmax = max(aux, lena, lenb)
        if ins:
            astr = _ASTERISKS[:lenb] if lenb <= 40 else ""
        elif op != "C" and not system.case_sensitive:
            astr = upper(astr)
        if dele:
            bstr = _ASTERISKS[:lena] if lena <= 40 else ""
        elif op != "C" and not system.case_sensitive:
            bstr = upper(bstr)
        ev = "I" if ins else "D" if dele else ("S" if op != "C" else "")
        cells.append((j, wmax, astr, bstr, ev, ins, dele))
    del ops
    used = 0
    n = len(cells)
    while used < n:
        plen = 9 if used > 0 else 6
        i = used
        while plen < width and i < n:
            plen += 1 + cells[i][1]
            i += 1
        if used > 0:
            out.append("\n")
        endpass = i - (1 if i < n else 0)
        if endpass <= used:
            endpass = used + 1
        part = cells[used:endpass]
        lead = ">> " if used > 0 else ""
        lines = [("REF:  ", [f"{x[2]:<{x[1]}} " for x in part])]
        if ref_times:
            for label, col in (("R_T1: ", system.ref_t1), ("R_T2: ", system.ref_t2)):
                lines.append(
                    (label, [_num(col[x[0]], x[1], 2) if not x[5] else " " * x[1] + " " for x in part])
                )
        lines.append(("HYP:  ", [f"{x[3]:<{x[1]}} " for x in part]))
        if hyp_times:
            for label, col in (("H_T1: ", system.hyp_t1), ("H_T2: ", system.hyp_t2)):
                lines.append(
                    (label, [_num(col[x[0]], x[1], 2) if not x[6] else " " * x[1] + " " for x in part])
                )
        if hyp_conf:
            lines.append(
                (
                    "CONF: ",
                    [_num(system.hyp_conf[x[0]], x[1], 4) if not x[6] else " " * x[1] + " " for x in part],
                )
            )
        if weighted:
            for label, col, none in (("R_WE: ", system.ref_weight, 5), ("H_WE: ", system.hyp_weight, 6)):
                lines.append(
                    (label, [_num(col[x[0]], x[1], 4) if not x[none] else " " * x[1] + " " for x in part])
                )
        lines.append(("Eval: ", [f"{x[4]:<{x[1]}} " for x in part]))
        for label, words in lines:
            out.append(lead + label + "".join(words) + "\n")
        used = endpass
    return out


def _num(value: float, width: int, places: int) -> str:
    if math.isnan(value):
        value = 0.0
    return f"{value:<{width}.{places}f} "


def pra_report(system: ScoredSystem, width: int = 1000, encoding: Encoding = ASCII) -> str:
    """The ``.pra`` report: speakers, then each speaker's segments."""
    counts = system.counts()
    speakers = system.speakers()
    out = [
        "\n\n\t\tDUMP OF SYSTEM ALIGNMENT STRUCTURE\n\n",
        f"System name:   {system.title}\n",
        "\n",
        "Speakers: \n",
    ]
    out += [f"   {k:2d}:  {name}\n" for k, name in enumerate(speakers)]
    out.append("\n")
    by_speaker: dict[str, list[int]] = {s: [] for s in speakers}
    for k, seg in enumerate(system.segments):
        by_speaker[seg.speaker].append(k)
    order: list[int] = []
    heads: list[str] = []
    listed = counts.tolist()
    for g, name in enumerate(speakers):
        first = f"Speaker sentences{g:4d}:  {name}   #utts: {len(by_speaker[name])}\n"
        for k in by_speaker[name]:
            heads.append(first + _head(system, k, listed))
            order.append(k)
            first = ""
    out.append(_blocks(system, np.asarray(order, np.int64), heads, width, encoding.upper, counts))
    out.append("\n")
    return "".join(out)


def _head(system: ScoredSystem, k: int, counts: list[list[int]] | dict[int, list[int]]) -> str:
    """A segment's lines before its alignment in the ``.pra`` (:func:`segment_block`'s)."""
    seg = system.segments[k]
    head = f"id: {seg.id}\n"
    if seg.labels:
        head += "Labels: <" + ",".join(seg.labels) + ">\n"
    if seg.file:
        head += f"File: {seg.file}\n"
    if seg.channel:
        head += f"Channel: {seg.channel}\n"
    c, s, d, i = counts[k]
    head += f"Scores: (#C #S #D #I) {c} {s} {d} {i}\n"
    if system.case_sensitive:
        head += "Attributes: Case_sensitve \n"
    return head


_LINES = ("REF:  ", "HYP:  ", "Eval: ")


def _blocks(
    system: ScoredSystem, order: np.ndarray, heads: list[str], width: int, upper, counts: np.ndarray
) -> str:
    """The ``.pra`` blocks of the segments ``order`` (each after its ``heads`` text, then a blank
    line), built for all segments at once: every cell of the REF, HYP and Eval lines is a word
    form and its padding, taken from tables of the distinct forms and paddings, and the whole
    text is one join. A segment whose lines :func:`segment_block` would wrap at ``width`` is
    written by it."""
    texts = system.texts
    n_texts = len(texts)
    bounds = system.bounds
    starts, sizes = bounds[:-1][order], np.diff(bounds)[order]
    cols = ranges(starts, sizes)
    ops, ref, hyp = system.ops[cols], system.ref[cols], system.hyp[cols]
    inserted = (ref < 0) & (ops == ord("I"))
    deleted = (hyp < 0) & (ops == ord("D"))
    text_len = np.fromiter(map(len, texts), np.int64, n_texts)
    len_a = np.where(inserted, 1, np.where(ref >= 0, text_len[np.maximum(ref, 0)], 0))
    len_b = np.where(deleted, 1, np.where(hyp >= 0, text_len[np.maximum(hyp, 0)], 0))
    wide = np.maximum(len_a, len_b)
    # Forms: the texts, their upper case (in error), asterisks of 0 to 40, the empty word, Eval's.
    shown = list(texts) + ([upper(t) for t in texts] if not system.case_sensitive else list(texts))
    stars, empty = 2 * n_texts, 2 * n_texts + 41
    forms = np.array(
        shown + [_ASTERISKS[:k] for k in range(41)] + ["", "I", "D", "S"] + list(_LINES) + ["\n"], object
    )
    labels = empty + 4
    form_len = np.fromiter(map(len, forms.tolist()), np.int64, len(forms))
    error = (ops != ord("C")) * n_texts
    form_a = np.where(ref >= 0, ref + error, empty)
    form_a = np.where(inserted, np.where(len_b <= 40, stars + len_b, empty), form_a)
    form_b = np.where(hyp >= 0, hyp + error, empty)
    form_b = np.where(deleted, np.where(len_a <= 40, stars + len_a, empty), form_b)
    form_e = np.where(
        inserted, empty + 1, np.where(deleted, empty + 2, np.where(ops != ord("C"), empty + 3, empty))
    )
    # A segment is written here when its cells fit in one pass: 6 + its cells but the last < width.
    cell = np.concatenate((1 + wide, [0]))
    ends = np.concatenate(([0], np.cumsum(cell)))
    seg_end = np.cumsum(sizes)
    before_last = ends[seg_end] - ends[seg_end - sizes] - np.where(sizes > 0, cell[seg_end - 1], 0)
    fits = (sizes == 0) | (6 + before_last < width)
    lined = fits & (sizes > 0)
    # Pieces: a segment's head, then per line its label, a form and a padding per cell, a newline;
    # then the blank line. A segment not written here is one piece (segment_block's text).
    pieces_of = np.where(lined, 6 * sizes + 8, 2)
    piece_start = np.concatenate(([0], np.cumsum(pieces_of)))
    pieces = np.empty(int(piece_start[-1]), object)
    pieces[piece_start[:-1]] = heads
    for k in np.flatnonzero(~fits).tolist():
        pieces[piece_start[k]] = (
            heads[k]
            + "".join(segment_block(system, int(order[k]), width, upper, False, counts))[
                len(_head(system, int(order[k]), counts)) :
            ]
        )
    pieces[piece_start[1:] - 1] = "\n"
    padding = np.array([" " * k for k in range(int(wide.max(initial=0)) + 2)], object)
    col_segment = np.repeat(np.arange(len(order)), sizes)
    within = np.arange(len(cols)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    keep = lined[col_segment]
    seg_of, t = col_segment[keep], within[keep]
    for line, form in enumerate((form_a, form_b, form_e)):
        base = piece_start[:-1] + 1 + line * (2 * sizes + 2)
        pieces[base[lined]] = forms[labels + line]
        at = base[seg_of] + 1 + 2 * t
        chosen = form[keep]
        pieces[at] = forms[chosen]
        pieces[at + 1] = padding[np.maximum(wide[keep] - form_len[chosen], 0) + 1]
        pieces[base[lined] + 2 * sizes[lined] + 1] = "\n"
    return "".join(pieces.tolist())


def prf_report(system: ScoredSystem, width: int = 1000, encoding: Encoding = ASCII, date: str = "") -> str:
    """The ``.prf`` report: the header, speakers, label definitions, then every segment with its
    times and confidences (in reading order when the segments have one)."""
    counts = system.counts()
    speakers = system.speakers()
    out = ["NIST_TEXT_ALIGNMENT\n", "VERSION 0.1\n", "\n\n\t\tDUMP OF SYSTEM ALIGNMENT STRUCTURE\n\n"]
    out.append(f"System name:   {system.title}\n")
    out.append(f"Ref file:      {system.ref_file}\n")
    out.append(f"Hyp file:      {system.hyp_file}\n")
    if date:  # none for a system read with -P from sgml that gives none, as sclite prints it
        out.append(f'Creation date: "{date}"\n')
    if system.weight_file is not None:
        out.append(f'Word Weight Aligned by file: "{system.weight_file}"\n')
    if system.frag_corr:
        out.append("Fragment Correct Flag Set\n")
    if system.opt_del:
        out.append("Optionally Deletable Flag Set\n")
    out.append("\n")
    out.append(f"Speaker Count: {len(speakers)}\n")
    out.append("Speakers: \n")
    out += [f"   {k:2d}:  {name}\n" for k, name in enumerate(speakers)]
    out.append("\n")
    if system.labels or system.categories:
        out.append("Utterance Label definitions:\n")
        for cat in system.categories:
            out.append(
                f'    Category: id: "{cat.id}" title: "{cat.title}" description: "{cat.description}"\n'
            )
        for lab in system.labels:
            out.append(f'    Label: id: "{lab.id}" title: "{lab.title}" description: "{lab.description}"\n')
    out.append("\n")
    by_speaker: dict[str, list[int]] = {s: [] for s in speakers}
    for k, seg in enumerate(system.segments):
        by_speaker[seg.speaker].append(k)
    if not system.segments:
        out.append("No utterances found\n")
        return "".join(out)
    if system.segments[0].sequence >= 0:
        current = {s: 0 for s in speakers}
        while True:
            best, best_g = 999999, -1
            for g, name in enumerate(speakers):
                if current[name] < len(by_speaker[name]):
                    seq = system.segments[by_speaker[name][current[name]]].sequence
                    if seq < best:
                        best, best_g = seq, g
            if best_g < 0:
                break
            name = speakers[best_g]
            out.append(
                f"Speaker sentences{best_g:4d}:  {name}   utt# {current[name]} of {len(by_speaker[name])}\n"
            )
            out += segment_block(system, by_speaker[name][current[name]], width, encoding.upper, True, counts)
            out.append("\n")
            current[name] += 1
    else:
        for g, name in enumerate(speakers):
            out.append(f"Speaker sentences{g:4d}:  {name}   #utts: {len(by_speaker[name])}\n")
            for k in by_speaker[name]:
                out += segment_block(system, k, width, encoding.upper, True, counts)
                out.append("\n")
    out.append("\n")
    return "".join(out)
