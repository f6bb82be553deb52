"""sclite's sgml alignment dump (``-o sgml``, ``-o nl.sgml``, ``-p``): the input of ``sc_stats``."""

from __future__ import annotations

import math

from iescore.pipeline.speech.sclite.model import ScoredSystem


def _word(text: str) -> str:
    """A word as sclite writes it in sgml: ``;`` escaped with a backslash."""
    return text.replace(";", "\\;")


def sgml_text(system: ScoredSystem, date: str, token_sep: str = ":", attr_sep: str = ",") -> str:
    """The ``<SYSTEM>`` dump; ``token_sep``/``attr_sep`` are ``:``/``,`` (sgml) or newlines (nl.sgml)."""
    out = [
        f'<SYSTEM title="{system.title}" ref_fname="{system.ref_file}" hyp_fname="{system.hyp_file}" '
        f'creation_date="{date}" format="2.4" frag_corr="{"TRUE" if system.frag_corr else "FALSE"}" '
        f'opt_del="{"TRUE" if system.opt_del else "FALSE"}" '
        f'weight_ali="{"FALSE" if system.weight_file is None else "TRUE"}" '
        f'weight_filename="{system.weight_file or ""}">\n'
    ]
    for lab in system.labels:
        out.append(f'<LABEL id="{lab.id}" title="{lab.title}" desc="{lab.description}">\n</LABEL>\n')
    for cat in system.categories:
        out.append(f'<CATEGORY id="{cat.id}" title="{cat.title}" desc="{cat.description}">\n</CATEGORY>\n')
    texts = system.texts
    rt, ht = system.ref_tagged, system.hyp_tagged  # words read with ;tags, written as read
    ref_w = system.ref_t1 is not None
    hyp_w = system.hyp_t1 is not None
    conf = system.hyp_conf is not None
    weighted = system.ref_weight is not None and system.hyp_weight is not None
    aux = [
        name
        for name, on in (
            ("r_t1+t2", ref_w),
            ("h_t1+t2", hyp_w),
            ("h_conf", conf),
            ("r_weight", weighted),
            ("h_weight", weighted),
        )
        if on
    ]
    by_speaker: dict[str, list[int]] = {s: [] for s in system.speakers()}
    for k, seg in enumerate(system.segments):
        by_speaker[seg.speaker].append(k)
    a_sep = attr_sep
    for speaker, members in by_speaker.items():
        out.append(f'<SPEAKER id="{speaker}">\n')
        for k in members:
            seg = system.segments[k]
            a, b = int(system.bounds[k]), int(system.bounds[k + 1])
            head = f'<PATH id="{seg.id}" word_cnt="{b - a}"'
            if seg.labels:
                head += ' labels="<' + ",".join(seg.labels) + '>"'
            if seg.file:
                head += f' file="{seg.file}"'
            if seg.channel:
                head += f' channel="{seg.channel}"'
            head += f' sequence="{seg.sequence}"'
            if seg.begin is not None:
                head += f' R_T1="{seg.begin:.3f}" R_T2="{seg.end:.3f}"'
            if system.char_align:
                head += ' char_align="1"'
            if system.case_sensitive:
                head += ' case_sense="1"'
            if weighted:
                head += ' hyp_weight="1" ref_weight="1"'
            if aux:
                head += ' word_aux="' + ",".join(aux) + '"'
            out.append(head + ">\n")
            cells = []
            for j in range(a, b):
                op = chr(system.ops[j])
                r, h = int(system.ref[j]), int(system.hyp[j])
                rw = "" if r < 0 else texts[rt[j]] if rt is not None and rt[j] >= 0 else _word(texts[r])
                hw = "" if h < 0 else texts[ht[j]] if ht is not None and ht[j] >= 0 else _word(texts[h])
                # An optionally deletable word left out under -D is correct against sclite's empty
                # word (no text, its times, confidence and weight 0), whichever side lacks it.
                ins, dele = op == "I", op == "D"
                if ins:
                    cell = f'I{a_sep}{a_sep}"{hw}"'
                elif dele:
                    cell = f'D{a_sep}"{rw}"{a_sep}'
                else:
                    cell = f'{"C" if op == "C" else "S"}{a_sep}"{rw}"{a_sep}"{hw}"'
                if ref_w:
                    cell += a_sep if ins else f"{a_sep}{_f3(system.ref_t1[j])}+{_f3(system.ref_t2[j])}"
                if hyp_w:
                    cell += a_sep if dele else f"{a_sep}{_f3(system.hyp_t1[j])}+{_f3(system.hyp_t2[j])}"
                if conf:
                    cell += a_sep if dele else f"{a_sep}{_f6(system.hyp_conf[j])}"
                if weighted:
                    cell += a_sep if ins else f"{a_sep}{_f6(system.ref_weight[j])}"
                    cell += a_sep if dele else f"{a_sep}{_f6(system.hyp_weight[j])}"
                cells.append(cell)
            out.append(token_sep.join(cells) + "\n</PATH>\n")
        out.append("</SPEAKER>\n")
    out.append("</SYSTEM>\n")
    return "".join(out)


def _f3(value: float) -> str:
    return f"{0.0 if math.isnan(value) else value:.3f}"


def _f6(value: float) -> str:
    return f"{0.0 if math.isnan(value) else value:.6f}"
