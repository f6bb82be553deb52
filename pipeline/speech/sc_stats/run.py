"""The comparison sc_stats runs on systems read from sclite sgml: which files, in which order, with
which text (each rule in :mod:`.tests`, each layout in :mod:`.report`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from iescore.pipeline.speech.sc_stats import report
from iescore.pipeline.speech.sc_stats.tests import (
    Utterances,
    friedman_test,
    mapsswe_segments,
    mapsswe_test,
    mcnemar_test,
    mean_ranks,
    percentages,
    rank_sum_comparisons,
    sentence_table,
    sign_test,
    wilcoxon_test,
)
from iescore.pipeline.speech.sgml import SgmlSystem

FORMULA_TITLES = {
    "E": "Speaker Word Error Rate (%)",
    "R": "Speaker Percent Correctly Recognized",
    "W": "Speaker Word Accuracy Rate (%)",
}
TESTS = ("mapsswe", "sign", "wilc", "mcn", "anovar")
MIN_GOOD = 2


@dataclass
class Options:
    """sc_stats' settings after its command line (see ``tasks/cli/sc_stats.py``)."""

    tests: set[str] = field(default_factory=set)
    verbose: bool = False
    unified: bool = False
    formula: str = "E"
    name: str = "Ensemble"
    out_dir: str | None = None
    test_name: str = ""
    feedback: int = 1
    reports: set[str] = field(default_factory=set)
    graphs: set[str] = field(default_factory=set)
    width: int = 100  # -l: the prn report's line width
    files: list[str] = field(default_factory=list)  # -a: sgml files read after standard input


@dataclass
class Output:
    """What a run produced: files (path -> text, in writing order), standard output and error."""

    files: dict[str, str] = field(default_factory=dict)
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)


_KIND = np.full(256, 4, np.int64)
_KIND[[ord(c) for c in "CSDI"]] = [0, 1, 2, 3]


@dataclass
class _Columns:
    """A system's paths as arrays: each path's speaker (position in ``speakers``), the paths in
    sc_stats' speaker-by-speaker order, each path's (speaker, id) code shared by all systems, the
    first path of each code (-1: none), C S D I of each path and whether it has an error."""

    speaker: np.ndarray
    order: np.ndarray
    code: np.ndarray
    first_of: np.ndarray
    counts: np.ndarray
    wrong: np.ndarray


def _columns(systems: list[SgmlSystem]) -> list[_Columns]:
    codes: dict[tuple[str, str], int] = {}
    raw = []
    for system in systems:
        number = {name: k for k, name in enumerate(system.speakers)}
        speaker = np.array([number[path.speaker] for path in system.paths], np.int64)
        code = np.array(
            [codes.setdefault((path.speaker, path.id), len(codes)) for path in system.paths], np.int64
        )
        raw.append((speaker, code))
    out = []
    for system, (speaker, code) in zip(systems, raw, strict=True):
        paths = len(system.paths)
        first_of = np.full(len(codes), -1, np.int64)
        first_of[code[::-1]] = np.arange(paths - 1, -1, -1)
        owner = np.repeat(np.arange(paths), np.diff(system.bounds))
        table = np.bincount(owner * 5 + _KIND[system.letters], minlength=5 * paths).reshape(paths, 5)
        out.append(
            _Columns(
                speaker=speaker,
                order=np.argsort(speaker, kind="stable"),
                code=code,
                first_of=first_of,
                counts=table[:, :4],
                wrong=table[:, 0] != np.diff(system.bounds),
            )
        )
    return out


def speaker_counts(systems: list[SgmlSystem], columns: list[_Columns]) -> tuple[list[str], np.ndarray]:
    """sc_stats' block names (the first system's speakers) and counts ``[speaker, system, (C,S,D,I)]``,
    speakers taken by position in each system as sc_stats does (the most speakers any system has)."""
    blocks = max(len(s.speakers) for s in systems)
    counts = np.zeros((blocks, len(systems), 4), dtype=np.int64)
    for n, column in enumerate(columns):
        for letter in range(4):
            counts[:, n, letter] = np.bincount(column.speaker, column.counts[:, letter], minlength=blocks)
    names = list(systems[0].speakers) + [""] * (blocks - len(systems[0].speakers))
    return names, counts


def _matched(
    systems: list[SgmlSystem],
    columns: list[_Columns],
    i: int,
    j: int,
    warn: Callable[[str], None],
    sentences: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """The paths with the same speaker and id in systems ``i`` and ``j``, as two index arrays in the
    first system's speaker-by-speaker order (the second's first path of that id); warnings as
    sc_stats gives them for a speaker, or (``sentences``) a path, the second system lacks."""
    first, second = systems[i], systems[j]
    ci, cj = columns[i], columns[j]
    mine = ci.order
    theirs = cj.first_of[ci.code[mine]]
    found = theirs >= 0
    if not found.all():
        present = set(second.speakers)
        for speaker in first.speakers:
            if speaker not in present:
                warn(f"Warning: Speaker {speaker} is in system {first.title} but not system {second.title}\n")
            elif sentences:
                for k in mine[(ci.speaker[mine] == first.speakers.index(speaker)) & ~found]:
                    warn(
                        f"Warning: Speaker's '{speaker}' path '{first.paths[k].id}' in system "
                        f"'{first.title}' is not in system '{second.title}'\n"
                    )
    return mine[found], theirs[found]


def _utterances(system: SgmlSystem, whole: Utterances, paths: np.ndarray) -> Utterances:
    """The letters of ``paths`` of ``system`` in that order (``whole``: all of them, in file order)."""
    if len(paths) == len(system.paths) and (paths == np.arange(len(paths))).all():
        return whole
    starts = system.bounds[paths]
    sizes = system.bounds[paths + 1] - starts
    bounds = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    position = np.arange(bounds[-1]) - np.repeat(bounds[:-1] - starts, sizes)
    return Utterances(system.letters[position], bounds)


def _nce(system: SgmlSystem) -> float | None:
    """The system's normalized cross entropy as sclite computes it (``pipeline.speech.sclite.summary``),
    or None unless every path carries hypothesis confidences (``h_conf``), as sc_stats requires; a
    word without one counts as 0."""
    if not all("h_conf" in path.word_aux for path in system.paths):
        return None
    from iescore.pipeline.speech.sclite.model import from_sgml
    from iescore.pipeline.speech.sclite.summary import nce

    scored = from_sgml(system.paths, title="", ref_file="", hyp_file="", ref_format="", hyp_format="")
    scored.hyp_conf = np.nan_to_num(
        scored.hyp_conf if scored.hyp_conf is not None else np.zeros(len(scored.ops)), nan=0.0
    )
    return nce(scored, system.speakers)[0]


def run(systems: list[SgmlSystem], options: Options) -> Output:
    """Every test and report the options ask for, as sc_stats 1.3 writes them."""
    out = Output()
    say = out.stdout.append if options.feedback >= 1 else (lambda text: None)
    names = [s.title for s in systems]
    outroot = (
        "-"
        if options.name == "-"
        else (f"{options.out_dir}/" if options.out_dir is not None else "") + options.name
    )
    outname = "-" if outroot == "-" else outroot + ".stats"
    formula_title = FORMULA_TITLES[options.formula]
    if not (options.tests or options.reports or options.graphs):
        return out
    say("Beginning Multi-System comparisons and reports\n")
    columns = _columns(systems)
    blocks, counts = speaker_counts(systems, columns)
    pcts = percentages(counts, options.formula)
    zero_is_best = options.formula == "E"
    winners: dict[str, dict[tuple[int, int], int]] = {}
    unified: list[tuple[str, str, dict, dict]] = []
    cells: dict[tuple[int, int], str] = {}  # the report tables' shared cell grid (see table.Table)
    pairs = [(i, j) for i in range(len(systems) - 1) for j in range(i + 1, len(systems))]

    def target(suffix: str) -> tuple[str, Callable[[str], None]]:
        path = f"{outname}.{suffix}"
        say(f"        Output written to '{path}'\n")
        if outroot == "-":
            return path, out.stdout.append
        out.files[path] = ""

        def write(text: str) -> None:
            out.files[path] += text

        return path, write

    if "mapsswe" in options.tests:
        say("    Performing the Matched Pair Sentence Segment (Word Error) Test\n")
        report_on = not options.unified
        _, write = target("mapsswe") if (report_on or options.verbose) else ("", lambda t: None)
        verbose = options.verbose and report_on
        result_of, confs = {}, {}
        whole = [Utterances(system.letters, system.bounds) for system in systems]
        for i, j in pairs:
            mine, theirs = _matched(systems, columns, i, j, out.stderr.append, False)
            segments, dropped = mapsswe_segments(
                _utterances(systems[i], whole[i], mine), _utterances(systems[j], whole[j], theirs), MIN_GOOD
            )
            out.stderr.extend(
                ["Warning: MAPSSWE segmentation produced a segment with errors\n         ignoring segment\n"]
                * dropped
            )
            result = mapsswe_test(segments, dropped, len(mine))
            result_of[i, j] = result.result
            confs[i, j] = result.confidence
            if verbose:
                seg = result.segments
                table = [[0, 0], [0, 0]]
                for _, e1, e2 in seg:
                    if e1 > 0 and e2 == 0:
                        table[1][0] += 1
                    elif e1 == 0 and e2 > 0:
                        table[0][1] += 1
                    else:
                        table[1][1] += 1
                write(report.mapsswe_verbose(result, names[i], names[j], MIN_GOOD, mcnemar_test(table)))
        winners["mapsswe"] = result_of
        unified.append(("Matched Pair Sentence Segment (Word Error)", "MP", result_of, confs))
        if report_on:
            if verbose:
                write(report.FORM_FEED)
            write(report.mapsswe_matrix(names, result_of, options.test_name, MIN_GOOD))
            if outroot == "-":
                write(report.FORM_FEED)

    if "sign" in options.tests:
        say(f"    Performing the Signed Paired Comparison ({formula_title}) Test\n")
        _, write = target("sign") if (not options.unified or options.verbose) else ("", lambda t: None)
        result_of, confs = {}, {}
        for i, j in pairs:
            result = sign_test(pcts[:, i], pcts[:, j], zero_is_best)
            result_of[i, j] = result.result
            confs[i, j] = result.p_value
            if options.verbose:
                first, second = (i, j) if result.first_higher else (j, i)
                write(
                    report.sign_verbose(
                        pcts[:, first],
                        pcts[:, second],
                        blocks,
                        (names[first], names[second]),
                        formula_title,
                        result,
                        zero_is_best,
                    )
                )
        winners["sign"] = result_of
        unified.append((f"Signed Paired Comparison ({formula_title})", "SI", result_of, confs))
        if not options.unified:
            write(
                report.matrix_one_winner(
                    names, result_of, "Comparison Matrix for the Sign Test", formula_title
                )
            )
            if outroot == "-":
                write(report.FORM_FEED)

    if "wilc" in options.tests:
        say(f"    Performing the Wilcoxon Signed Rank ({formula_title}) Test\n")
        report_on = not options.unified
        _, write = target("wilc") if (report_on or options.verbose) else ("", lambda t: None)
        result_of, confs = {}, {}
        for i, j in pairs:
            result = wilcoxon_test(pcts[:, i], pcts[:, j], zero_is_best)
            result_of[i, j] = result.result
            confs[i, j] = result.confidence
            if options.verbose and report_on:
                first, second = (i, j) if result.first_higher else (j, i)
                write(
                    report.wilcoxon_verbose(
                        pcts[:, first],
                        pcts[:, second],
                        blocks,
                        (names[first], names[second]),
                        formula_title,
                        result,
                    )
                )
        winners["wilc"] = result_of
        unified.append((f"Wilcoxon Signed Rank ({formula_title})", "WI", result_of, confs))
        if report_on:
            write(
                report.matrix_one_winner(
                    names, result_of, "Comparison Matrix for the Wilcoxon Test", formula_title
                )
            )
            if outroot == "-":
                write(report.FORM_FEED)
    if "mcn" in options.tests:
        say("    Performing the McNemar (Sentence Error) Test\n")
        report_on = not options.unified
        if report_on or options.verbose:
            # sc_stats announces this file even when it cannot open it
            _, write = target("mcn")
        else:
            write = lambda text: None  # noqa: E731
        verbose = options.verbose
        results = {}
        for i, j in pairs:
            mine, theirs = _matched(systems, columns, i, j, out.stderr.append, True)
            table = sentence_table(columns[i].wrong[mine], columns[j].wrong[theirs])
            results[i, j] = mcnemar_test(table)
            if verbose:
                write(report.mcnemar_verbose(results[i, j], names[i], names[j]))
        winners["mcn"] = {pair: result.result for pair, result in results.items()}
        unified.append(
            ("McNemar (Sentence Error)", "MN", winners["mcn"], {k: r.p_value for k, r in results.items()})
        )
        if report_on:
            if verbose:
                write(report.FORM_FEED)
            write(report.mcnemar_matrix(names, results, options.test_name, cells))
            if outroot == "-":
                write(report.FORM_FEED)
    if "anovar" in options.tests:
        say("    Performing the Analysis of Variance by Ranks Test\n")
        _, write = target("anovar") if (not options.unified or options.verbose) else ("", lambda t: None)
        decreasing = options.formula != "E"
        trt_ranks = np.array([mean_ranks(row, decreasing) for row in pcts])
        blk_ranks = np.array([mean_ranks(column, decreasing) for column in pcts.T]).T
        systems_test = friedman_test(trt_ranks)
        result_of = rank_sum_comparisons(systems_test.sums, len(blocks))
        if options.verbose:
            speakers_test = friedman_test(blk_ranks.T, tie_groups=len(names))
            system_order = report.sort_order([float(v) for v in pcts.sum(axis=0)], decreasing)
            block_order = report.sort_order([float(v) for v in pcts.sum(axis=1)], decreasing)
            write(
                report.friedman_verbose(
                    systems_test,
                    "recognition system",
                    "recognizers",
                    "COMPARISON MATRIX: Comparing All Systems",
                    names,
                    system_order,
                    result_of,
                )
            )
            write(report.FORM_FEED)
            write(
                report.friedman_verbose(
                    speakers_test,
                    "speaker",
                    "speakers",
                    "COMPARISON MATRIX: Comparing All Speakers",
                    blocks,
                    block_order,
                    rank_sum_comparisons(speakers_test.sums, len(names)),
                )
            )
            if outroot == "-":
                write(report.FORM_FEED)
        upper = {(i, j): result_of[i, j] for i, j in pairs}
        unified.append(("Analysis of Variance by Ranks", "AN", upper, dict.fromkeys(upper, 0.0)))
    if options.unified:
        say("    Printing Unified Statistical Test Reports\n")
        path = f"{outname}.unified"
        say(f"        Output written to '{path}'\n")
        text = report.unified(names, unified, options.test_name, cells)
        if outroot == "-":
            out.stdout.append(text)
        else:
            out.files[path] = text
        for index, name in enumerate(names):
            base = name.rsplit("/", 1)[-1] if options.out_dir else name
            sts = f"{options.out_dir}/{base}.sts" if options.out_dir else f"{name}.sts"
            out.files[sts] = report.system_summary(names, index, unified, options.test_name)

    decreasing = options.formula != "E"
    if "range" in options.graphs:
        say("    Printing Range Graphs\n")
        text = report.range_report(pcts, blocks, names, formula_title, options.test_name, decreasing)
        if outroot == "-":
            out.stdout.append(text + report.FORM_FEED)
        else:
            say(f"        Output written to '{outroot}.range'\n")
            out.files[f"{outroot}.range"] = text
    for graph, version, what in (
        ("grange", 1, "GNUPLOT Range Graphs"),
        ("grange2", 2, "GNUPLOT Range Graphs V2"),
    ):
        if graph in options.graphs:
            say(f"    Printing {what}\n")
            base = "STATS" if outroot == "-" else f"{outroot}.{graph}"
            say(f"        Output written to '{base}.spk.*'\n")
            say(f"        Output written to '{base}.sys.*'\n")
            files = report.gnuplot_ranges(
                pcts, blocks, names, formula_title, options.test_name, base, decreasing, version
            )
            out.files.update(files)

    if "det" in options.graphs:
        if outroot == "-":
            out.stderr.append("Warning: DET plot can not go to STDOUT\n")
        elif options.feedback >= 1 and not all("h_conf" in path.word_aux for path in systems[0].paths):
            say("    Skipping DET Curve, no confidence scores supplied.\n")
        else:
            from iescore.pipeline.speech.sclite.confidence import det_files
            from iescore.pipeline.speech.sclite.model import from_sgml

            say(f"    Writing DET Curve to '{outroot}.det.[plt,dat]'\n")
            scored = [
                from_sgml(s.paths, title=s.title, ref_file="", hyp_file="", ref_format="", hyp_format="")
                for s in systems
            ]
            out.files.update(det_files(scored, outroot, options.test_name))

    def write_report(suffix: str, what: str, text: str) -> None:
        if outroot == "-":
            out.stdout.append(text)
            return
        path = f"{outroot}.{suffix}"
        say(f"    Writing {what} to '{path}'\n")
        out.files[path] = text

    if options.reports & {"sum", "rsum"}:
        for raw in (False, True):
            if ("rsum" if raw else "sum") in options.reports:
                text = report.system_summary_table(names, blocks, counts, options.test_name, raw, cells)
                write_report("raw" if raw else "sys", "raw scoring report" if raw else "scoring report", text)
    if options.reports & {"es", "res"}:
        totals = [
            (*(int(v) for v in column.counts.sum(axis=0)), len(column.wrong), int(column.wrong.sum()))
            for column in columns
        ]
        nce = [_nce(system) for system in systems]
        for raw in (False, True):
            if ("res" if raw else "es") in options.reports:
                text = report.executive_summary(names, totals, options.test_name, raw, cells, nce)
                write_report(
                    "res" if raw else "es",
                    "raw executive scoring report" if raw else "executive scoring report",
                    text,
                )
    if "prn" in options.reports:
        from iescore.pipeline.speech.sc_stats.prn import prn_report

        text = prn_report(systems, options.width, out.stderr.append)
        if outroot == "-":
            out.stdout.append(text)
        else:
            say(f"    Writing Multi-system alignments to '{outroot}.prn'\n")
            out.files[f"{outroot}.prn"] = text
    if "lur" in options.reports:
        # sc_stats' report tables stay centred once an earlier table of the run has centred them
        centered = (
            bool(options.reports & {"sum", "rsum", "es", "res"})
            or options.unified
            or ("mcn" in options.tests and not options.unified)
        )
        write_report(
            "lur", "LUR scoring report", report.lur_report(systems, options.test_name, centered, cells)
        )
    return out
