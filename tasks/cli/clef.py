"""``iescore clef``: eval.pl of CLEF eHealth 2013 (and SemEval-2014 Task 7), with its options.

``iescore clef -input SYSTEM_DIR -gold GOLD_DIR -n NAME -r 1|2 -t 1a|1b|2|A|B [-a] [--out DIR]
[--json OUT.json] [--by-report] [--store DIR] [--workers N] [--workbench OUT.html --texts TEXT_DIR]``
writes ``NAME.RUN.TASK.add`` (``-a``) or ``.noadd`` into the current directory (or ``--out DIR``) in
eval.pl's layout, and prints the same text on stdout followed, for Task 1a, by the one-to-one overlap
measure under its own name, then the signature. The scoring is :mod:`iescore.clef`'s (``plan_scoring``,
``run_scoring``): the stages of :mod:`tasks.clef.stages` (``tasks.cli.common.run_stages``), computed in
this process without ``--store`` (no Luigi, no artifacts), run by Luigi with ``--store DIR``, which
keeps their artifacts (``--workers`` only matters then). Both modes write the same files byte for byte.
Warnings (CRLF line ends, replaced lines) go to stderr. A value of ``-r`` or ``-t`` eval.pl refuses
is bad input: exit status 2, naming the option and what was expected.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from iescore.pipeline.clef import (
    TASKS,
    by_report,
    by_report_text,
    eval_text,
    one_to_one_text,
    output_name,
    scores_json,
)
from iescore.pipeline.core.errors import InputError
from iescore.tasks.clef.stages import score_sums
from iescore.tasks.cli.common import EXIT_OK, STORE_HELP, STORE_WORKERS_HELP, check_store_option
from iescore.tasks.core.arguments import (
    INPUT_DIRECTORY,
    OUTPUT_DIRECTORY,
    OUTPUT_FILE,
    check_paths,
    workers,
)
from iescore.tasks.core.files import write_text
from iescore.tasks.core.jsontext import json_text

from iescore.clef import check_task, plan_scoring, run_scoring
from iescore.sources import StagesFailedError

RUNS = ("1", "2")


def add_clef_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``clef`` subcommand (handler: :func:`run_clef`)."""
    parser = commands.add_parser(
        "clef",
        help="CLEF eHealth 2013 Tasks 1 and 2 as eval.pl scores them (disorder spans, normalization)",
        description="Score a system's pipe-delimited disorder (or abbreviation) annotations against the "
        "gold standard's, as eval.pl of CLEF eHealth 2013 / SemEval-2014 Task 7 does, and write its output "
        "file NAME.RUN.TASK.add|noadd.",
        allow_abbrev=False,
    )
    parser.add_argument("-input", "--input", required=True, help="system directory: one pipe file per report")
    parser.add_argument("-gold", "--gold", required=True, help="gold standard directory, same format")
    parser.add_argument(
        "-n", required=True, dest="name", help="name of the run (the output file's first part)"
    )
    parser.add_argument("-r", required=True, dest="run", help="which run: 1 or 2")
    parser.add_argument(
        "-t",
        required=True,
        dest="task",
        help="task: 1a, 1b, 2 (CLEF eHealth 2013) or A, B (SemEval-2014 Task 7)",
    )
    parser.add_argument(
        "-a", action="store_true", dest="additional", help="the run used additional annotations (.add)"
    )
    parser.add_argument("--out", help="directory for the output file (default: the current directory)")
    parser.add_argument("--json", help="write the counts and measures as JSON here")
    parser.add_argument("--by-report", action="store_true", help="print the counts of every report")
    parser.add_argument("--store", help=STORE_HELP)
    parser.add_argument("--workers", type=workers, default=1, help=STORE_WORKERS_HELP)
    parser.add_argument("--workbench", help="write the Evaluation Workbench page (HTML) here; needs --texts")
    parser.add_argument("--texts", help="directory of the reports' text files (REPORT or REPORT.txt)")
    parser.set_defaults(handler=run_clef)


def run_clef(args: argparse.Namespace) -> int:
    """Check everything, run the stages, write the output file (and JSON, page); bad input raises."""
    if args.run not in RUNS:
        raise InputError(
            "-r", 0, f"expected 1 or 2 (which run; eval.pl: 'Incorrect run id'), found {args.run!r}"
        )
    check_task(args.task)
    if not _plain_name(args.name):
        raise InputError(
            "-n",
            0,
            f"a run name expected, found {args.name!r}: it names the output file NAME.RUN.TASK inside "
            "--out (or the current directory), so it holds no '/' or '\\'",
        )
    if args.workbench and not args.texts:
        raise InputError("--workbench", 0, "the Workbench page needs the reports' texts: give --texts DIR")
    out_dir = Path(args.out) if args.out else Path.cwd()
    output = out_dir / output_name(args.name, args.run, args.task, args.additional)
    check_paths(
        [
            ("-input", args.input, INPUT_DIRECTORY),
            ("-gold", args.gold, INPUT_DIRECTORY),
            ("--texts", args.texts, INPUT_DIRECTORY),
            ("--out", args.out, OUTPUT_DIRECTORY),
            ("output file", output, OUTPUT_FILE),
            ("--json", args.json, OUTPUT_FILE),
            ("--workbench", args.workbench, OUTPUT_FILE),
        ]
    )
    check_store_option(args.store, inputs=[("-input", args.input), ("-gold", args.gold)])
    texts = None
    if args.workbench:  # the page's module only when asked for; bad texts fail before the scoring
        from iescore.pipeline.clef.workbench import read_texts

        texts = read_texts(args.texts)
    plan = plan_scoring(args.gold, args.input, task=args.task)
    try:
        result = run_scoring(plan, args.store, args.workers)
    except StagesFailedError as failed:
        return failed.status
    for warning in result.warnings:
        print(f"iescore: warning: {warning}", file=sys.stderr)
    scores = result.arrow("scores")
    sums = score_sums(scores)
    text = eval_text(args.task, sums)
    write_text(output, text)
    extra = one_to_one_text(args.task, sums) if TASKS[args.task] == "1a" else ""
    sys.stdout.write(text + extra + f"\n{result.signature}\n")
    counts = by_report(result.arrow("statistics")) if args.by_report or args.json else None
    if args.by_report:
        sys.stdout.write("\n" + by_report_text(counts))
    if args.json:
        run = {"name": args.name, "run": int(args.run), "additional_annotations": args.additional}
        write_text(args.json, json_text(scores_json(args.task, sums, result.signature, counts, run)))
    if args.workbench:
        from iescore.pipeline.clef.workbench import render_workbench

        title = f"{output.name}: {args.input} against {args.gold}"
        write_text(args.workbench, render_workbench(result.arrow("matches"), texts, title, result.signature))
    return EXIT_OK


def _plain_name(name: str) -> bool:
    """Whether ``-n`` is a name, not a path: eval.pl writes ``NAME.RUN.TASK...`` where it runs, so a
    '/' (``../../x``, ``/tmp/x``) would put the output outside ``--out``."""
    return not any(c in name for c in "/\\\0")
