"""``iescore clef``: eval.pl of CLEF eHealth 2013 (and SemEval-2014 Task 7), with its options.

``iescore clef -input SYSTEM_DIR -gold GOLD_DIR -n NAME -r 1|2 -t 1a|1b|2|A|B [-a] [--out DIR]
[--json OUT.json] [--by-report] [--store DIR] [--workers N] [--workbench OUT.html --texts TEXT_DIR]``
writes ``NAME.RUN.TASK.add`` (``-a``) or ``.noadd`` into the current directory (or ``--out DIR``) in
eval.pl's layout, and prints the same text on stdout followed, for Task 1a, by the one-to-one overlap
measure under its own name, then the signature. Without ``--store`` everything is computed in this
process by the functions the stages call (read both sides, match, tally; no Luigi, no artifacts), as
``iescore coref`` and ``iescore align`` do; with ``--store DIR`` the scoring runs as the Luigi stages of
:mod:`tasks.clef.stages`, which keep their artifacts there (``--workers`` only matters then). Both
modes write the same files byte for byte.
Warnings (CRLF line ends, replaced lines) go to stderr. A value of ``-r`` or ``-t`` eval.pl refuses
is bad input: exit status 2, naming the option and what was expected.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipeline.clef import (
    TASKS,
    ReportCounts,
    by_report,
    by_report_text,
    eval_text,
    match_columns,
    match_mentions,
    matches_table,
    one_to_one_text,
    output_name,
    read_mentions,
    report_counts,
    scores_json,
)
from pipeline.clef.workbench import read_texts, render_workbench
from pipeline.core.errors import InputError
from pipeline.core.signature import make_signature
from tasks.core.arguments import (
    INPUT_DIRECTORY,
    OUTPUT_DIRECTORY,
    OUTPUT_FILE,
    check_paths,
    positive_int,
)
from tasks.core.jsontext import json_text

# Not imported here: Luigi, the stages and the store (tasks.clef.stages, tasks.core.store, the campaign
# engine), which only ``--store`` needs, nor pandas, which only ``--workbench``, Task 2's n-best lists
# and ``--store`` import (``python -X importtime -m tasks.cli.main clef ...``).
WORKERS_HELP = "with --store: Luigi workers, tasks run in parallel (1 or more)"
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
    parser.add_argument(
        "--store",
        default=None,
        help="run the Luigi stages and keep their artifacts in this store, a directory or s3://BUCKET/PREFIX "
        "(default: no store, everything computed in this process)",
    )
    parser.add_argument("--workers", type=positive_int, default=1, help=WORKERS_HELP)
    parser.add_argument("--workbench", help="write the Evaluation Workbench page (HTML) here; needs --texts")
    parser.add_argument("--texts", help="directory of the reports' text files (REPORT or REPORT.txt)")
    parser.set_defaults(handler=run_clef)


def run_clef(args: argparse.Namespace) -> int:
    """Check everything, run the stages, write the output file (and JSON, page); bad input raises."""
    if args.run not in RUNS:
        raise InputError(
            "-r", 0, f"expected 1 or 2 (which run; eval.pl: 'Incorrect run id'), found {args.run!r}"
        )
    if args.task not in TASKS:
        raise InputError(
            "-t", 0, f"expected one of {', '.join(TASKS)} (eval.pl: 'Incorrect task id'), found {args.task!r}"
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
    if args.store:
        from tasks.core.store import check_store, is_s3

        check_store(args.store, "--store")
        if not is_s3(args.store):
            check_paths([("--store", Path(args.store), OUTPUT_DIRECTORY)])
        return _score_in_store(args, args.store, output)
    return _score_in_process(args, output)


def _score_in_process(args: argparse.Namespace, output: Path) -> int:
    """Read both sides, match, tally: the functions the stages call, without a store or Luigi."""
    texts = read_texts(args.texts) if args.workbench else None  # bad texts fail before the scoring
    task_2 = TASKS[args.task] == "2"
    gold = read_mentions(args.gold, "gold", nbest=task_2)
    system = read_mentions(args.input, "system", one_code=task_2)
    for mentions in (gold, system):
        for warning in mentions.warnings:
            print(f"iescore: warning: {warning}", file=sys.stderr)
    signature = make_signature("clef", {"task": args.task}, {"gold": gold.digest, "system": system.digest})
    columns = match_columns(gold, system)
    counts = report_counts(columns)
    matches_of = (
        (lambda: matches_table(match_mentions(gold, system, columns), gold, system))
        if args.workbench
        else None
    )
    return _write_outputs(args, output, counts.sums(), signature, lambda: counts, matches_of, texts)


def _score_in_store(args: argparse.Namespace, store: str, output: Path) -> int:
    """Run the stages of :mod:`tasks.clef.stages` into ``store`` and write the outputs from its artifacts."""
    import json

    from pipeline.core.signature import SIGNATURE_KEY
    from tasks.clef.stages import WARNINGS_KEY, artifact_metadata, clef_spec, score_sums
    from tasks.cli.common import EXIT_OK, run_tasks
    from tasks.core.base import task_for
    from tasks.core.store import read_table

    report = task_for(clef_spec(args.gold, args.input, args.task), str(store))
    texts = read_texts(args.texts) if args.workbench else None  # bad texts fail before the scoring
    status = run_tasks([report], args.workers)
    if status != EXIT_OK:
        return status
    tally = report.requires()["statistics"]
    match = tally.requires()["matches"]
    for side in ("gold", "system"):
        raw = artifact_metadata(match.requires()[side].output()["mentions"]).get(WARNINGS_KEY)
        for warning in json.loads(raw) if raw else []:
            print(f"iescore: warning: {warning}", file=sys.stderr)
    scores = read_table(report.output()["scores"])
    signature = scores.schema.metadata[SIGNATURE_KEY].decode()
    statistics = read_table(tally.output()["statistics"])
    matches_of = (lambda: read_table(match.output()["matches"])) if args.workbench else None
    counts_of = lambda: by_report(statistics)  # noqa: E731
    return _write_outputs(args, output, score_sums(scores), signature, counts_of, matches_of, texts)


def _write_outputs(
    args: argparse.Namespace,
    output: Path,
    sums: Any,
    signature: str,
    counts_of: Callable[[], ReportCounts],
    matches_of: Any,
    texts: dict[str, str] | None,
) -> int:
    """eval.pl's file, stdout, and the ``--json`` and ``--workbench`` files, the same in both modes."""
    text = eval_text(args.task, sums)
    _write_text(output, text)
    extra = one_to_one_text(args.task, sums) if TASKS[args.task] == "1a" else ""
    sys.stdout.write(text + extra + f"\n{signature}\n")
    counts = counts_of() if args.by_report or args.json else None
    if args.by_report:
        sys.stdout.write("\n" + by_report_text(counts))
    if args.json:
        run = {"name": args.name, "run": int(args.run), "additional_annotations": args.additional}
        _write_text(args.json, json_text(scores_json(args.task, sums, signature, counts, run)))
    if args.workbench:
        title = f"{output.name}: {args.input} against {args.gold}"
        _write_text(args.workbench, render_workbench(matches_of(), texts, title, signature))
    return 0


def _write_text(path: str | Path, text: str) -> None:
    """Write a text file atomically: a hidden temporary file beside it, renamed onto it (as
    ``tasks.core.store.write_text`` does, without importing the store and Luigi)."""
    final = Path(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    temporary = final.parent / f".{final.name}.iescore-tmp.{os.getpid()}.{os.urandom(6).hex()}"
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, final)
    finally:
        if temporary.exists():
            temporary.unlink()
