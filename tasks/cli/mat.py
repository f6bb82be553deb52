"""``iescore mat``: MITRE MAT's scorer (MATScore, seed 002) with its own options.

A MAT user's command line works after replacing ``MATScore`` with ``iescore mat`` (issue 12, point 1):
every MATScore option is parsed here, with its name and meaning. The scoring is :mod:`iescore.mat`'s
(``plan_scoring``, ``run_scoring``): the family's stages (``tasks.mat.stages``): IngestAnnotations (each
side) -> PairSpans -> TallySpans -> Report, computed in this process (no artifacts written, as MATScore
writes none) or, with ``--store DIR``, run by Luigi with their artifacts kept for audit
(``tasks.cli.common.run_stages``). What is printed and written is assembled by ``pipeline.mat.outputs``
from the stages' tables and the output options (``MatOptions``); this module parses the arguments,
calls the library and writes the files. Bad input raises
:class:`InputError` (exit status 2, ``file:line: message``). A token table that cannot be made (no token
annotations, a content boundary inside a token) is left out with a note on stderr (and in the JSON's
``notes``); the rest is scored.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from iescore.pipeline.mat.confidence import DEFAULT_RESAMPLES, DEFAULT_SEED
from iescore.pipeline.mat.csv_output import EXCEL_SEPARATOR, OPENOFFICE_SEPARATOR
from iescore.pipeline.mat.files import check_sides
from iescore.pipeline.mat.outputs import MatOptions, mat_outputs
from iescore.pipeline.mat.readers import FILE_TYPES
from iescore.pipeline.mat.task import looks_like_a_path
from iescore.tasks.cli.common import EXIT_OK, STORE_HELP, STORE_WORKERS_HELP, check_store_option
from iescore.tasks.core.arguments import (
    INPUT_DIRECTORY,
    INPUT_FILE,
    OUTPUT_DIRECTORY,
    OUTPUT_FILE,
    check_paths,
    regular_expression,
    resamples,
    seed,
    text_encoding,
    workers,
)
from iescore.tasks.core.files import write_text
from iescore.tasks.core.jsontext import json_text

from iescore.mat import plan_scoring, run_scoring
from iescore.sources import StagesFailedError


def add_mat_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``mat`` subcommand (handler: :func:`run_mat`)."""
    p = commands.add_parser(
        "mat",
        help="score span annotations as MITRE MAT's MATScore",
        description="Compare span annotations of hypothesis documents with reference documents as "
        "MATScore does: tag-level scores with span details, details, confusability. Options are "
        "MATScore's.",
    )
    core = p.add_argument_group("core options (MATScore)")
    core.add_argument(
        "--task",
        help="the task: a name (MAT's sample task 'Named Entity', or a task of --task_xml), a MAT "
        "task.xml (or task directory) declaring one task, or a TOML task file (see docs/mat.md)",
    )
    core.add_argument(
        "--task_xml",
        action="append",
        default=[],
        metavar="TASK_XML",
        help="a MAT task.xml (or task directory) whose tasks --task NAME picks from (repeatable)",
    )
    core.add_argument("--content_annotations", help="comma-separated content labels (ignored with --task)")
    core.add_argument(
        "--token_annotations", help="comma-separated token labels (ignored with --task; default lex)"
    )
    core.add_argument(
        "--equivalence_class",
        nargs=2,
        action="append",
        default=[],
        metavar=("EQUIVLABEL", "OLDLABEL,..."),
        help="report these labels under EQUIVLABEL (repeatable)",
    )
    core.add_argument("--ignore", help="comma-separated labels to ignore on both sides")
    hyp = p.add_argument_group("hypothesis options (MATScore)")
    hyp.add_argument("--file", help="the hypothesis file (with --ref_file)")
    hyp.add_argument("--dir", help="a directory of hypothesis files (with --ref_dir)")
    hyp.add_argument(
        "--file_re",
        type=regular_expression,
        help="regular expression matching the whole basename of hypothesis files",
    )
    hyp.add_argument("--file_type", choices=FILE_TYPES, default="mat-json", help="hypothesis file type")
    hyp.add_argument(
        "--encoding", type=text_encoding, help="hypothesis encoding (default: the file type's, UTF-8)"
    )
    hyp.add_argument(
        "--xml_input_is_overlay",
        action="store_true",
        help="xml-inline: annotation tags overlay a text that keeps every other tag and escape",
    )
    ref = p.add_argument_group("reference options (MATScore)")
    ref.add_argument("--ref_file", help="the reference file (with --file)")
    ref.add_argument("--ref_dir", help="a directory of reference files (with --dir)")
    ref.add_argument("--ref_fsuff_off", help="suffix removed from a hypothesis name to find its reference")
    ref.add_argument("--ref_fsuff_on", help="suffix added (after removal) to find the reference")
    ref.add_argument("--ref_file_type", choices=FILE_TYPES, default="mat-json", help="reference file type")
    ref.add_argument(
        "--ref_encoding", type=text_encoding, help="reference encoding (default: the file type's, UTF-8)"
    )
    ref.add_argument(
        "--ref_xml_input_is_overlay", action="store_true", help="--xml_input_is_overlay for the reference"
    )
    out = p.add_argument_group("score output options (MATScore)")
    out.add_argument(
        "--tag_span_details", action="store_true", help="break refclash/hypclash down by span error"
    )
    out.add_argument("--details", action="store_true", help="the span-by-span details sheet")
    out.add_argument("--confusability", action="store_true", help="the label confusability matrix")
    out.add_argument("--by_token", action="store_true", help="token-level scores")
    out.add_argument("--by_pseudo_token", action="store_true", help="pseudo-token-level scores")
    out.add_argument("--by_character", action="store_true", help="character-level scores")
    out.add_argument("--compute_confidence_data", action="store_true", help="bootstrap mean/variance columns")
    out.add_argument("--csv_output_dir", help="write CSV files here instead of text on stdout")
    out.add_argument("--no_csv_formulas", action="store_true", help="CSV cells hold values, not formulas")
    out.add_argument("--oo_separator", action="store_true", help="OpenOffice formula separators (;)")
    ours = p.add_argument_group("iescore options")
    ours.add_argument("--json", help="write the tables as JSON here")
    ours.add_argument("--store", help=STORE_HELP)
    ours.add_argument("--workers", type=workers, default=1, help=STORE_WORKERS_HELP)
    ours.add_argument("--seed", type=seed, default=DEFAULT_SEED, help="seed of the confidence data's draws")
    ours.add_argument(
        "--resamples", type=resamples, default=DEFAULT_RESAMPLES, help="score sets of the confidence data"
    )
    p.set_defaults(handler=run_mat)


def run_mat(args: argparse.Namespace) -> int:
    """Check, score by :mod:`iescore.mat` (the library's functions), print and write; bad input raises
    :class:`InputError`."""
    task_files = [("--task_xml", path) for path in args.task_xml]
    if args.task is not None and looks_like_a_path(args.task):
        task_files.append(("--task", args.task))
    check_paths(
        [
            *[
                (option, path, INPUT_DIRECTORY if Path(path).is_dir() else INPUT_FILE)
                for option, path in task_files
            ],
            ("--file", args.file, INPUT_FILE),
            ("--ref_file", args.ref_file, INPUT_FILE),
            ("--dir", args.dir, INPUT_DIRECTORY),
            ("--ref_dir", args.ref_dir, INPUT_DIRECTORY),
            ("--json", args.json, OUTPUT_FILE),
            ("--csv_output_dir", args.csv_output_dir, OUTPUT_DIRECTORY),
        ]
    )
    if not args.csv_output_dir:
        # They only shape CSV files: a note, not a refusal (MATScore ignored them silently; refusing them
        # would break MAT users' command lines).
        for name in ("no_csv_formulas", "oo_separator"):
            if getattr(args, name):
                sys.stderr.write(f"iescore mat: --{name} has no effect without --csv_output_dir\n")
    check_store_option(args.store, inputs=[("--dir", args.dir), ("--ref_dir", args.ref_dir)])
    check_sides(args.file, args.ref_file, args.dir, args.ref_dir)
    plan = plan_scoring(
        args.ref_dir if args.dir is not None else args.ref_file,
        args.dir if args.dir is not None else args.file,
        task=args.task,
        task_xml=args.task_xml,
        content_annotations=args.content_annotations,
        token_annotations=args.token_annotations,
        equivalence_class=args.equivalence_class,
        ignore=args.ignore,
        file_re=args.file_re,
        file_type=args.file_type,
        encoding=args.encoding,
        xml_input_is_overlay=args.xml_input_is_overlay,
        ref_fsuff_off=args.ref_fsuff_off,
        ref_fsuff_on=args.ref_fsuff_on,
        ref_file_type=args.ref_file_type,
        ref_encoding=args.ref_encoding,
        ref_xml_input_is_overlay=args.ref_xml_input_is_overlay,
        by_token=args.by_token,
        by_pseudo_token=args.by_pseudo_token,
        by_character=args.by_character,
        compute_confidence_data=args.compute_confidence_data,
        seed=args.seed,
        resamples=args.resamples,
    )
    try:
        tables = run_scoring(plan, args.store, args.workers)
    except StagesFailedError as failed:
        return failed.status
    for note in tables.notes:
        sys.stderr.write(f"iescore mat: {note}\n")
    outputs = mat_outputs(tables, output_options(args))
    sys.stdout.write(outputs.text)
    if args.csv_output_dir:
        directory = Path(args.csv_output_dir)
        for name, text in outputs.csv_files.items():
            write_text(directory / name, text)
    if args.json:
        write_text(args.json, json_text(outputs.json))
    return EXIT_OK


def output_options(args: argparse.Namespace) -> MatOptions:
    """MATScore's output options, typed."""
    return MatOptions(
        tag_span_details=args.tag_span_details,
        details=args.details,
        confusability=args.confusability,
        confidence=args.compute_confidence_data,
        seed=args.seed,
        resamples=args.resamples,
        csv=bool(args.csv_output_dir),
        csv_formulas=not args.no_csv_formulas,
        csv_separator=OPENOFFICE_SEPARATOR if args.oo_separator else EXCEL_SEPARATOR,
        json=bool(args.json),
    )
