"""``iescore sc_stats``: NIST sc_stats 1.3's command line, significance tests between systems read from
sclite's alignment sgml on standard input (``sclite -o sgml`` files, or ``sclite -p``)."""

from __future__ import annotations

import argparse
import os
import sys

from iescore.tasks.cli.common import EXIT_INPUT, EXIT_OK, c_atoi

VERSION = "1.3"
USAGE = """usage: iescore sc_stats -p [-a FILE ...] [-t TEST ...] [-u] [-v] [-w] [-r REPORT ...]
                        [-g GRAPH ...] [-n NAME] [-O DIR] [-e DESC] [-l WIDTH] [-f LEVEL]
    -p             read sclite alignment sgml (sclite -o sgml, sclite -p) from standard input
    -a FILE ...    read sclite alignment sgml files too (after standard input)
    -t TEST ...    mapsswe sign wilc mcn anovar std4 (a name given twice is toggled off;
                   std4 replaces the tests before it with mapsswe sign wilc mcn)
    -u             one unified matrix (NAME.stats.unified) and SYSTEM.sts files
    -v             detailed analysis of each pair
    -w             "the works": -t std4 -u -g range
    -r REPORT ...  sum rsum es res prn lur none
    -g GRAPH ...   range grange grange2 det
    -n NAME        output files NAME.* (default 'Ensemble'; '-' = standard output)
    -O DIR         directory of the output files
    -e DESC        description of the ensemble, printed in the reports
    -l WIDTH       line width of the prn report (default 100)
    -f LEVEL       feedback level (sc_stats reads -f as this before its formula option)
"""
# What sc_stats 1.3 accepts and iescore does not compute yet: refused with exit 2, naming it.
NOT_IMPLEMENTED_TESTS = {"mapsswe_seg"}
REPORTS = ("sum", "rsum", "es", "res", "prn", "lur")


def add_sc_stats_command(commands: argparse._SubParsersAction) -> None:
    """``iescore sc_stats``: listed in ``iescore --help``; its own command line is read by
    :func:`sc_stats_main` (sc_stats' options, not argparse's)."""
    commands.add_parser(
        "sc_stats",
        help="NIST sc_stats 1.3 drop-in: matched-pair significance tests on sclite sgml (-p on stdin)",
        add_help=False,
    )


class UsageError(Exception):
    """A command line sc_stats would not run."""


def parse(argv: list[str]):
    """sc_stats' options as its ``proc_arcs`` reads them: an option list stops at the next word
    beginning with ``-``; test and report names toggle; ``std4`` replaces the tests named before it."""
    from iescore.pipeline.speech.sc_stats.run import Options

    if not argv:
        raise UsageError("arguments required")
    options = Options()
    pipe = False
    warnings: list[str] = []
    reports: set[str] = set()
    tests = {"mapsswe": False, "sign": False, "wilc": False, "mcn": False, "anovar": False}
    opt = 0
    while opt < len(argv) and argv[opt].startswith("-"):
        arg = argv[opt]

        def value(what: str, opt: int = opt) -> str:
            if opt + 1 >= len(argv):
                raise UsageError(what)
            return argv[opt + 1]

        if arg == "-p":
            pipe = True
        elif arg == "-a":
            # sc_stats 1.3 collects these files and never reads them; they are read here as -p reads
            if opt + 1 >= len(argv):
                raise UsageError("not enough alignment files")
            if argv[opt + 1].startswith("-"):
                raise UsageError("req'd alignment file name")
            while opt + 1 < len(argv) and not argv[opt + 1].startswith("-"):
                opt += 1
                options.files.append(argv[opt])
        elif arg == "-w":
            # sc_stats' "the works": the std4 tests, unified, range graphs (replacing those set before)
            tests = {key: key in ("mapsswe", "sign", "wilc", "mcn") for key in tests}
            options.graphs = {"range"}
            options.unified = True
        elif arg == "-f":
            level = value("not enough feedback arguments")
            options.feedback = c_atoi(level)
            opt += 1
        elif arg == "-O":
            options.out_dir = value("output directory not specified")
            opt += 1
        elif arg == "-n":
            options.name = value("test output name not specified")
            opt += 1
        elif arg == "-e":
            options.test_name = value("test ensemble description not specified")
            opt += 1
        elif arg == "-l":
            options.width = c_atoi(value("not enough line width arguments"))
            opt += 1
        elif arg == "-u":
            options.unified = True
        elif arg == "-v":
            options.verbose = True
        elif arg == "-t":
            opt += 1
            if opt >= len(argv):
                raise UsageError("not enough test arguments")
            while opt < len(argv) and not argv[opt].startswith("-"):
                name = argv[opt]
                if name == "std4":
                    tests = {key: key in ("mapsswe", "sign", "wilc", "mcn") for key in tests}
                elif name in NOT_IMPLEMENTED_TESTS:
                    raise UsageError(f"-t {name} is not implemented by iescore sc_stats")
                elif name in tests:
                    tests[name] = not tests[name]
                else:
                    warnings.append(f"Unknown test '{name}'\n")
                opt += 1
            opt -= 1
        elif arg == "-r":
            opt += 1
            if opt >= len(argv):
                raise UsageError("not enough report arguments")
            while opt < len(argv) and not argv[opt].startswith("-"):
                name = argv[opt]
                if name == "none":
                    reports.clear()
                elif name in REPORTS:
                    reports ^= {name}
                else:
                    # sc_stats 1.3 lists npr in its help but knows no such report: a warning, exit 0.
                    warnings.append(f"Unknown report '{name}'\n")
                opt += 1
            opt -= 1
        elif arg == "-g":
            opt += 1
            if opt >= len(argv):
                raise UsageError("not enough graph arguments")
            while opt < len(argv) and not argv[opt].startswith("-"):
                name = argv[opt]
                if name in ("range", "grange", "grange2", "det"):
                    options.graphs ^= {name}
                else:
                    warnings.append(f"Unknown graph option '{name}'\n")
                opt += 1
            opt -= 1
        else:
            raise UsageError(f"illegal argument: {arg}")
        opt += 1
    if opt < len(argv):
        raise UsageError(f"unexpected argument: {argv[opt]}")
    options.tests = {name for name, on in tests.items() if on}
    missing = reports - {"sum", "rsum", "es", "res", "prn", "lur"}
    if missing:
        raise UsageError(f"-r {' '.join(sorted(missing))} is not implemented by iescore sc_stats")
    options.reports = reports
    return options, pipe, warnings


def sc_stats_main(argv: list[str]) -> int:
    """Run sc_stats' command line ``argv``; exit 0, or 2 on a usage error or bad input (nothing written)."""
    from iescore.pipeline.core.errors import InputError
    from iescore.pipeline.speech.sc_stats.run import run
    from iescore.pipeline.speech.sgml import read_sgml

    if argv and argv[0] in ("--help", "-help"):
        # as argparse ends every other command's --help
        sys.stdout.write(USAGE)
        raise SystemExit(EXIT_OK)
    try:
        options, pipe, warnings = parse(argv)
    except UsageError as error:
        sys.stderr.write(USAGE)
        print(f"iescore sc_stats: {error}", file=sys.stderr)
        return EXIT_INPUT
    sys.stderr.write("".join(warnings))
    try:
        systems = read_sgml(_stdin_lines(), "<stdin>") if pipe else []
        for name in options.files:
            try:
                with open(name, encoding="latin-1", newline="\n") as handle:
                    systems += read_sgml(handle, name)
            except OSError as error:
                raise InputError(
                    name, 0, f"expected a readable sclite sgml file (-a): {error.strerror}"
                ) from None
    except InputError as error:
        print(f"iescore sc_stats: {error.render()}", file=sys.stderr)
        return EXIT_INPUT
    if options.feedback > 0:
        sys.stdout.write(f"sc_stats: {VERSION}\n")
    if options.tests or options.reports or options.graphs:
        if not systems:
            print(
                "iescore sc_stats: <stdin>:0: expected at least one <SYSTEM> of sclite sgml", file=sys.stderr
            )
            return EXIT_INPUT
        output = run(systems, options)
        if options.out_dir is not None and options.name != "-" and not os.path.isdir(options.out_dir):
            print(
                f"iescore sc_stats: {options.out_dir}: expected an existing output directory (-O)",
                file=sys.stderr,
            )
            return EXIT_INPUT
        for path, text in output.files.items():
            with open(path, "w", encoding="latin-1", newline="") as handle:
                handle.write(text)
        sys.stderr.write("".join(output.stderr))
        sys.stdout.write("".join(output.stdout))
    if options.feedback >= 1:
        sys.stdout.write("\nSuccessful Completion\n")
    return EXIT_OK


def _stdin_lines():
    """Standard input as Latin-1 text (one character a byte, as sc_stats counts widths)."""
    import io

    return io.TextIOWrapper(sys.stdin.buffer, encoding="latin-1", newline="\n")
