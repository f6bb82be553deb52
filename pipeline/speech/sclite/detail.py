"""sclite's detailed reports: ``.snt.SPEAKER`` (each sentence), ``.spk.SPEAKER`` (a speaker's
totals and error lists) and ``.dtl`` (the system's)."""

from __future__ import annotations

from collections import Counter

import numpy as np
from iescore.pipeline.core.arrays import ranges
from iescore.pipeline.speech.sclite.model import ScoredSystem
from iescore.pipeline.speech.sclite.pra import segment_block
from iescore.pipeline.speech.sclite.table import f_round
from iescore.pipeline.speech.sclite.trn import ASCII, Encoding

_RULE = "-" * 79 + "\n"


def _pct(num: int, den: int) -> float:
    return 0.0 if den == 0 else num / den * 100.0


def _members(system: ScoredSystem) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {s: [] for s in system.speakers()}
    for k, seg in enumerate(system.segments):
        groups[seg.speaker].append(k)
    return groups


def snt_reports(system: ScoredSystem, encoding: Encoding = ASCII) -> list[tuple[str, str]]:
    """One ``(speaker, text)`` a speaker: each sentence's alignment and running counts."""
    counts = system.counts()
    out = []
    for speaker, members in _members(system).items():
        lines = [
            "=" * 79 + "\n",
            "\n",
            "                     SENTENCE LEVEL REPORT FOR THE SYSTEM:\n",
            f"    Name: {system.title}\n",
            "\n",
            "=" * 79 + "\n",
            "\n",
            "\n",
            f"SPEAKER {speaker}\n",
        ]
        sp = dict.fromkeys(("c", "s", "d", "n", "r", "nw"), 0)
        for k in members:
            lines += segment_block(system, k, 120, encoding.upper, True, counts)
            lines.append("\n")
            c, s, d, n = (int(v) for v in counts[k])
            r = c + s + d
            nw = int(system.bounds[k + 1] - system.bounds[k])
            for key, v in (("c", c), ("s", s), ("d", d), ("n", n), ("r", r), ("nw", nw)):
                sp[key] += v
            rows = (
                ("Correct               =", c, sp["c"]),
                ("Substitutions         =", s, sp["s"]),
                ("Deletions             =", d, sp["d"]),
                ("Insertions            =", n, sp["n"]),
            )
            for label, v, total in rows:
                value = f"{f_round(_pct(v, r), 1):5.1f}" if r > 0 else "UNDEF"
                lines.append(f"{label}  {value}%   {v:2d}   ({total:3d})\n")
            lines.append("\n")
            e, et = s + d + n, sp["s"] + sp["d"] + sp["n"]
            value = f"{f_round(_pct(e, r), 1):5.1f}" if r > 0 else "UNDEF"
            lines.append(f"Errors                =  {value}%   {e:2d}   ({et:3d})\n")
            lines.append("\n")
            lines.append(f"Ref. words            =           {r:2d}   ({sp['r']:3d})\n")
            lines.append(
                f"Hyp. words            =           {c + s + n:2d}   ({sp['c'] + sp['s'] + sp['n']:3d})\n"
            )
            lines.append(f"Aligned words         =           {nw:2d}   ({sp['nw']:3d})\n")
            lines.append("\n")
            lines.append(_RULE)
            lines.append("\n")
        out.append((speaker, "".join(lines)))
    return out


def _error_lists(system: ScoredSystem, members: list[int]) -> str:
    ends = system.bounds[1:][members] if members else np.zeros(0, np.int64)
    starts = system.bounds[:-1][members] if members else np.zeros(0, np.int64)
    cols = ranges(starts, ends - starts)
    ops, ref, hyp = system.ops[cols], system.ref[cols], system.hyp[cols]
    texts = system.texts
    subs_at = ops == ord("S")
    ins = _tally(texts, hyp[ops == ord("I")])
    dels = _tally(texts, ref[ops == ord("D")])
    subs = _tally(texts, ref[subs_at])
    false = _tally(texts, hyp[subs_at])
    # Confusion pairs: each distinct (reference, hypothesis) pair once, then named.
    pair_ids, pair_counts = (
        np.unique(np.stack((ref[subs_at], hyp[subs_at])), axis=1, return_counts=True)
        if subs_at.any()
        else (np.zeros((2, 0), np.int64), np.zeros(0, np.int64))
    )
    pairs: Counter[str] = Counter()
    for (r, h), n in zip(pair_ids.T.tolist(), pair_counts.tolist(), strict=True):
        pairs[f"{texts[r]} ==> {texts[h]}"] += n
    parts = ["\n", _lexicon(pairs, "CONFUSION PAIRS"), "\n", "\n", _lexicon(ins, "INSERTIONS"), "\n", "\n"]
    parts += [_lexicon(dels, "DELETIONS"), "\n", "\n", _lexicon(subs, "SUBSTITUTIONS"), "\n"]
    parts.append("* NOTE: The 'Substitution' words are those reference words\n")
    parts.append("        for which the recognizer supplied an incorrect word.\n\n")
    parts += ["\n", _lexicon(false, "FALSELY RECOGNIZED"), "\n"]
    parts.append("* NOTE: The 'Falsely Recognized' words are those hypothesis words\n")
    parts.append("        which the recognizer incorrectly substituted for a reference word.\n\n")
    return "".join(parts)


def _tally(texts: list[str], ids: np.ndarray) -> Counter[str]:
    """How often each word of ``ids`` (numbers into ``texts``) occurs, by its text."""
    numbers, counts = np.unique(ids, return_counts=True)
    out: Counter[str] = Counter()
    for number, n in zip(numbers.tolist(), counts.tolist(), strict=True):
        out[texts[number]] += n
    return out


def _lexicon(counter: Counter[str], title: str) -> str:
    """sclite's AUTO_LEX printout: entries by count, then in byte order."""
    entries = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    lines = [f"{title:<30}   Total                 ({len(entries)})\n"]
    lines.append(f"{'':<30}   With >={1:3d} occurrences ({len(entries)})\n\n")
    for k, (text, n) in enumerate(entries, 1):
        lines.append(f"{k:4d}: {n:4d}  ->  {text}\n")
    lines.append("     -------\n")
    lines.append(f"     {sum(counter.values()):5d}\n\n")
    return "".join(lines)


def _performance(
    nsent: int, nserr: int, wsub: int, wdel: int, wins: int, c: int, s: int, d: int, n: int
) -> str:
    lines = ["SENTENCE RECOGNITION PERFORMANCE\n", "\n"]
    lines.append(f" sentences                                        {nsent:4d}\n")
    lines.append(
        f" with errors                            {f_round(_pct(nserr, nsent), 1):5.1f}%   ({nserr:4d})\n\n"
    )
    lines.append(
        f"   with substitutions                   {f_round(_pct(wsub, nsent), 1):5.1f}%   ({wsub:4d})\n"
    )
    lines.append(
        f"   with deletions                       {f_round(_pct(wdel, nsent), 1):5.1f}%   ({wdel:4d})\n"
    )
    lines.append(
        f"   with insertions                      {f_round(_pct(wins, nsent), 1):5.1f}%   ({wins:4d})\n"
    )
    lines += ["\n", "\n", "WORD RECOGNITION PERFORMANCE\n", "\n"]
    r, e = c + s + d, s + d + n
    if r > 0:
        lines.append(f"Percent Total Error       =  {f_round(_pct(e, r), 1):5.1f}%   ({e:4d})\n\n")
        lines.append(f"Percent Correct           =  {f_round(_pct(c, r), 1):5.1f}%   ({c:4d})\n\n")
        lines.append(f"Percent Substitution      =  {f_round(_pct(s, r), 1):5.1f}%   ({s:4d})\n")
        lines.append(f"Percent Deletions         =  {f_round(_pct(d, r), 1):5.1f}%   ({d:4d})\n")
        lines.append(f"Percent Insertions        =  {f_round(_pct(n, r), 1):5.1f}%   ({n:4d})\n")
        lines.append(f"Percent Word Accuracy     =  {f_round(100.0 - _pct(e, r), 1):5.1f}%\n")
    else:
        lines.append(f"Percent Total Error       =  UNDEF%   ({e:4d})\n\n")
        lines.append(f"Percent Correct           =  UNDEF%   ({c:4d})\n\n")
        lines.append(f"Percent Substitution      =  UNDEF%   ({s:4d})\n")
        lines.append(f"Percent Deletions         =  UNDEF%   ({d:4d})\n")
        lines.append(f"Percent Insertions        =  UNDEF%   ({n:4d})\n")
        lines.append("Percent Word Accuracy     =  UNDEF%\n")
    lines += ["\n", "\n"]
    lines.append(f"Ref. words                =           ({r:4d})\n")
    lines.append(f"Hyp. words                =           ({c + s + n:4d})\n")
    lines.append(f"Aligned words             =           ({c + s + n + d:4d})\n")
    return "".join(lines)


def _sentence_counts(counts: np.ndarray, members: list[int]) -> tuple[int, int, int, int, int]:
    rows = counts[members] if members else np.zeros((0, 4), np.int64)
    return (
        len(members),
        int((rows[:, 1:].sum(axis=1) > 0).sum()),
        int((rows[:, 1] > 0).sum()),
        int((rows[:, 2] > 0).sum()),
        int((rows[:, 3] > 0).sum()),
    )


def spk_reports(system: ScoredSystem) -> list[tuple[str, str]]:
    """One ``(speaker, text)`` a speaker."""
    counts = system.counts()
    out = []
    for speaker, members in _members(system).items():
        nsent, nserr, wsub, wdel, wins = _sentence_counts(counts, members)
        c, s, d, n = (int(v) for v in counts[members].sum(axis=0)) if members else (0, 0, 0, 0)
        text = f"SCORING FOR SPEAKER: {speaker}\n     of {system.title}\n\n"
        text += _performance(nsent, nserr, wsub, wdel, wins, c, s, d, n)
        text += _error_lists(system, members)
        out.append((speaker, text))
    return out


def dtl_report(system: ScoredSystem) -> str:
    """The ``.dtl`` report: the system's totals and error lists."""
    counts = system.counts()
    members = _members(system)
    everyone = [k for group in members.values() for k in group]
    nsent, nserr, wsub, wdel, wins = _sentence_counts(counts, everyone)
    c, s, d, n = (int(v) for v in counts.sum(axis=0)) if len(counts) else (0, 0, 0, 0)
    text = f"DETAILED OVERALL REPORT FOR THE SYSTEM: {system.title}\n\n"
    text += _performance(nsent, nserr, wsub, wdel, wins, c, s, d, n)
    text += _error_lists(system, everyone)
    return text
