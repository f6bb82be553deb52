"""``sc_stats -r prn``: the systems' alignments of each utterance one above the other (``.prn``).

As sc_stats 1.3 writes it (``print_N_SCORE``, SCTK ``corresp.c``): the speakers of the first system
found in every system (the search stops at the first one some system lacks), in each the paths whose
id every system has (the first of that id), each printed as a lattice: one ``REF:`` line, then one
line per system, words in columns, insertions in columns of their own, lines wrapped at the width
(``-l``, at least 80) with ``>>>`` continuations. The lattice counts the reference words no system
got right; the summary adds them up and lists those words.

Where sc_stats reads past the end of a path (and may crash): two paths whose reference words, read
in order past their insertions, differ in number are not identical (sc_stats' test compares the
word after the shorter one's end with whatever lies there). Such paths, and paths whose reference
words differ, are dumped one after the other as in a ``.pra`` file, as sc_stats does for the
latter; like sc_stats, the summary then adds the counts of the last lattice printed again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from iescore.pipeline.speech.sgml import SgmlPath, SgmlSystem

_ASTERISKS = "*" * 40


def _path_block(path: SgmlPath, width: int) -> str:
    """One path as sclite's ``PATH_print`` writes it (a ``.pra`` block with what the sgml holds)."""
    from iescore.pipeline.speech.sclite.model import from_sgml
    from iescore.pipeline.speech.sclite.pra import segment_block
    from iescore.pipeline.speech.sclite.trn import ascii_upper

    system = from_sgml([path], title="", ref_file="", hyp_file="", ref_format="", hyp_format="")
    return "".join(segment_block(system, 0, width, ascii_upper, True, system.counts()))


def _references(path: SgmlPath) -> list[str | None]:
    return [ref for ref, letter in zip(path.refs, path.evals, strict=True) if letter != "I"]


def _identical(paths: Sequence[SgmlPath]) -> bool:
    first = _references(paths[0])
    return all(_references(path) == first for path in paths[1:])


def _lattice_errors(paths: Sequence[SgmlPath], errors: dict[str, int]) -> tuple[int, int]:
    """Reference words, and those no system got right (counted into ``errors`` by word)."""
    first = paths[0]
    where = [k for k, letter in enumerate(first.evals) if letter != "I"]
    right = [False] * len(where)
    for path in paths:
        for r, letter in enumerate(letter for letter in path.evals if letter != "I"):
            if letter == "C":
                right[r] = True
    wrong = 0
    for r, k in enumerate(where):
        if not right[r]:
            wrong += 1
            word = first.refs[k] or ""
            errors[word] = errors.get(word, 0) + 1
    return len(where), wrong


def _lattice(
    paths: Sequence[SgmlPath], titles: Sequence[str], width: int, upper: Callable[[str], str]
) -> str:
    """The systems' words in columns under the reference (``PATH_multi_print``)."""
    out: list[str] = []
    n = len(paths)
    head = max([3] + [len(t) for t in titles])
    if head + 2 + 4 > width:
        raise ValueError("system names too long for the prn report: increase the width with -l")

    def header(continuation: bool) -> list[str]:
        lead = ">>> " if continuation else ""
        return [f"{lead}{t + ':':<{head + 2}}" for t in titles] + [f"{lead}{'REF:':<{head + 2}}"]

    rows = header(False)
    length = head + 2
    taken = [0] * n

    def flush() -> None:
        nonlocal rows, length
        out.append(rows[n] + "\n")
        out.extend(row + "\n" for row in rows[:n])
        out.append("\n")
        rows = header(True)
        length = head + 2 + 4

    def space() -> None:
        nonlocal length
        if 1 + length < width - 1:
            for k in range(n + 1):
                rows[k] += " "
            length += 1

    while any(taken[p] < len(paths[p].evals) for p in range(n)):
        pending = [taken[p] < len(paths[p].evals) for p in range(n)]
        if any(pending[p] and paths[p].evals[taken[p]] == "I" for p in range(n)):
            inserted = [pending[p] and paths[p].evals[taken[p]] == "I" for p in range(n)]
            size = max(len(paths[p].hyps[taken[p]] or "") for p in range(n) if inserted[p])
            if size + length > width - 1:
                flush()
            for p in range(n):
                word = ""
                if inserted[p]:
                    word = upper(paths[p].hyps[taken[p]] or "")
                    taken[p] += 1
                rows[p] += f"{word:<{size}}"
            rows[n] += " " * size
        else:
            size = len(paths[0].refs[taken[0]] or "") if pending[0] else 0
            for p in range(n):
                if pending[p] and paths[p].evals[taken[p]] != "D":
                    size = max(size, len(paths[p].hyps[taken[p]] or ""))
            if size + length > width - 1:
                flush()
            ref_done = False
            for p in range(n):
                if not pending[p]:
                    continue
                k = taken[p]
                if not ref_done:
                    rows[n] += f"{paths[p].refs[k] or '':<{size}}"
                    ref_done = True
                letter = paths[p].evals[k]
                if letter == "D":
                    word = _ASTERISKS[: min(40, size)]
                else:
                    word = paths[p].hyps[k] or ""
                    if letter != "C":
                        word = upper(word)
                rows[p] += f"{word:<{size}}"
                taken[p] += 1
        length += size
        space()
    flush()
    return "".join(out)


def prn_report(systems: Sequence[SgmlSystem], width: int, warn: Callable[[str], None]) -> str:
    """The ``.prn`` text of ``systems`` (sc_stats' warnings about speakers and paths not in every
    system go to ``warn``)."""
    from iescore.pipeline.speech.sclite.trn import ascii_upper

    width = max(width, 80)
    first = systems[0]
    out = ["Common scoring speakers and segments\n", "Version 0.1\n", "\n", "Represented Systems\n"]
    out += [f"    name: {s.title}   Ref: {s.ref_fname}   Hyp: {s.hyp_fname}\n" for s in systems]
    out.append("    End of Represented Systems\n\n")
    categories = [label for label in first.labels if label.kind == "CATEGORY"]
    labels = [label for label in first.labels if label.kind == "LABEL"]
    if labels or categories:
        out.append("Utterance Label Definitions:\n")
        for kind, group in (("Category", categories), ("Label", labels)):
            out += [f'    {kind}: id: "{x.id}" title: "{x.title}" description: "{x.desc}"\n' for x in group]
    out.append("    End of Utterance Label Definitions\n\n\n")
    # speakers of the first system in every system, stopping at the first one some system lacks
    groups: list[list[str]] = []
    for speaker in first.speakers:
        if not all(speaker in s.speakers for s in systems[1:]):
            break
        groups.append([speaker] * len(systems))
    by_speaker = [s.speaker_paths() for s in systems]
    for s, system in enumerate(systems):
        missing = [name for name in system.speakers if name not in {g[s] for g in groups}]
        if missing:
            warn(f"Warning: system {system.title} has non-unique speakers: " + " ".join(missing) + "\n")
    matched: list[tuple[str, list[list[SgmlPath]]]] = []
    for group in groups:
        speaker = group[0]
        lists = [by_speaker[s][speaker] for s in range(len(systems))]
        firsts = [{} for _ in systems]
        for s, paths in enumerate(lists):
            for k, path in enumerate(paths):
                firsts[s].setdefault(path.id, k)
        rows = []
        for path in lists[0]:
            found = [firsts[s].get(path.id) for s in range(len(systems))]
            if all(k is not None for k in found):
                rows.append([lists[s][k] for s, k in enumerate(found)])
        matched.append((speaker, rows))
        for s, system in enumerate(systems):
            used = {id(row[s]) for row in rows}
            lost = [path.id for path in lists[s] if id(path) not in used]
            if lost:
                warn(
                    f"Warning: system {system.title}, speaker {speaker} has non-unique path: "
                    + " ".join(lost)
                    + "\n"
                )
    titles = [s.title for s in systems]
    total_words = total_wrong = words = wrong = 0
    errors: dict[str, int] = {}
    for speaker, rows in matched:
        for paths in rows:
            out.append(f"Speaker: {speaker}\n")
            if len(paths) == 1:
                out.append(_path_block(paths[0], width))
            elif not _identical(paths):
                out.append(";; Reference strings not identical, dumping individual paths\n")
                out += [_path_block(path, width) for path in paths]
            else:
                words, wrong = _lattice_errors(paths, errors)
                path = paths[0]
                out.append(f"Id:     {path.id}\n")
                if path.labels:
                    out.append(f"Labels: {path.labels}\n")
                if path.file:
                    out.append(f"File: {path.file}\n")
                if path.channel:
                    out.append(f"Channel: {path.channel}\n")
                if path.r_t1 is not None:
                    out.append(f"Ref times: t1= {path.r_t1:.2f} t2= {path.r_t2 or 0.0:.2f}\n")
                out.append(f"Lattice Analysis: #refWords {words} #refErrWords {wrong}\n\n\n")
                out.append(_lattice(paths, titles, width, ascii_upper))
            total_words += words
            total_wrong += wrong
    if total_words:
        accuracy = f"{float(np.float32(total_words - total_wrong) / np.float32(total_words)) * 100.0:5.2f}"
    else:
        accuracy = " -nan"  # sc_stats divides 0 by 0 in C
    out.append(
        f"Lattice Summary: #TotRefWords {total_words} #TotRefErrWords {total_wrong} Accuracy {accuracy}\n"
    )
    ranked = sorted(errors.items(), key=lambda item: (-item[1], item[0].encode("latin-1")))
    title = "\nList of not correct reference words"
    out.append(f"{title:<30}   Total                 ({len(errors)})\n")
    out.append(f"{'':<30}   With >=  1 occurrences ({len(errors)})\n\n")
    out += [f"{k:4d}: {count:4d}  ->  {word}\n" for k, (word, count) in enumerate(ranked, 1)]
    out.append(f"     -------\n     {sum(errors.values()):5d}\n\n")
    return "".join(out)
