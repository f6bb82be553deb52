"""``iescore mat``: MITRE MAT's scorer (MATScore, seed 002) with its own options.

A MAT user's command line works after replacing ``MATScore`` with ``iescore mat`` (issue 12, point 1):
every MATScore option is parsed here, with its name and meaning. The scoring is the family's
stages (``tasks.mat.stages``): IngestAnnotations (each side) -> PairSpans -> TallySpans -> Report, computed
in this process (``tasks.core.base.compute_here``: no artifacts written, as MATScore writes none) or, with
``--store DIR``, run by Luigi with their artifacts kept for audit; the tables are printed on stdout
(``pipeline.mat.report``), ``--json`` writes them as JSON. Bad input raises :class:`InputError` (exit
status 2, ``file:line: message``).

The fixed-span tables (``--by_token``, ``--by_pseudo_token``, ``--by_character``: counted in
TallySpans by ``pipeline.mat.fixed``), confidence data (``--compute_confidence_data``,
``pipeline.mat.confidence``) and CSV files (``--csv_output_dir``, ``--no_csv_formulas``,
``--oo_separator``, ``pipeline.mat.csv_output``) come in at the functions of the "fixed-span tables"
section below. One set of reported rows per table (``pipeline.mat.tables.report_rows``) feeds the text,
the JSON and the CSV files. A token table that cannot be made (no token annotations, a content boundary
inside a token) is left out with a note on stderr (and in the JSON's ``notes``); the rest is scored.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from pipeline.core.errors import InputError
from pipeline.core.lazy import pd
from pipeline.core.signature import SIGNATURE_KEY
from pipeline.mat.csv_output import CSV_FILES, EXCEL_SEPARATOR, OPENOFFICE_SEPARATOR, score_csv, text_csv
from pipeline.mat.files import file_pairs
from pipeline.mat.labels import label_rules
from pipeline.mat.measures import ALL
from pipeline.mat.readers import FILE_TYPES
from pipeline.mat.report import confusability, confusability_text, details_frame, details_text
from pipeline.mat.tables import TABLES, report_rows, table_confidence, table_text
from tasks.cli.common import EXIT_OK, WORKERS_HELP, run_tasks
from tasks.core.arguments import (
    INPUT_DIRECTORY,
    INPUT_FILE,
    OUTPUT_DIRECTORY,
    OUTPUT_FILE,
    check_paths,
    positive_int,
)
from tasks.core.base import compute_here, task_for
from tasks.core.jsontext import json_text
from tasks.core.store import check_store, is_s3, read_table, write_text
from tasks.mat.stages import NOTES_KEY, mat_spec

DEFAULT_SEED = 12345
DEFAULT_RESAMPLES = 1000

#: The fixed-span tables and the option asking for each, in MATScore's order.
FIXED_UNIT_OPTIONS = {"token": "by_token", "pseudo_token": "by_pseudo_token", "character": "by_character"}
#: The details sheet's columns that hold input text (kept from becoming formulas in CSV files).
DETAIL_TEXT_COLUMNS = ("file", "type", "reflabel", "hyplabel", "refcontent", "hypcontent")


def add_mat_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``mat`` subcommand (handler: :func:`run_mat`)."""
    p = commands.add_parser(
        "mat",
        help="score span annotations as MITRE MAT's MATScore (seed 002)",
        description="Compare span annotations of hypothesis documents with reference documents as "
        "MATScore does: tag-level scores with span details, details, confusability. Options are "
        "MATScore's.",
    )
    core = p.add_argument_group("core options (MATScore)")
    core.add_argument("--task", help="task file (TOML): content and token labels, aliases (see README)")
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
    hyp.add_argument("--file_re", help="regular expression matching the whole basename of hypothesis files")
    hyp.add_argument("--file_type", choices=FILE_TYPES, default="mat-json", help="hypothesis file type")
    hyp.add_argument("--encoding", help="hypothesis encoding (default: the file type's, UTF-8)")
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
    ref.add_argument("--ref_encoding", help="reference encoding (default: the file type's, UTF-8)")
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
    ours.add_argument(
        "--store",
        help="run the Luigi stages, their artifacts kept in this store (a directory or s3://BUCKET/PREFIX); "
        "without it the command scores in its own process and writes no artifacts",
    )
    ours.add_argument("--workers", type=positive_int, default=1, help=WORKERS_HELP)
    ours.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the confidence data's draws")
    ours.add_argument(
        "--resamples", type=positive_int, default=DEFAULT_RESAMPLES, help="score sets of the confidence data"
    )
    p.set_defaults(handler=run_mat)


def run_mat(args: argparse.Namespace) -> int:
    """Check, score through the stages, print; bad input raises :class:`InputError`."""
    check_paths(
        [
            ("--task", args.task, INPUT_FILE),
            ("--file", args.file, INPUT_FILE),
            ("--ref_file", args.ref_file, INPUT_FILE),
            ("--dir", args.dir, INPUT_DIRECTORY),
            ("--ref_dir", args.ref_dir, INPUT_DIRECTORY),
            ("--store", None if args.store is None or is_s3(args.store) else args.store, OUTPUT_DIRECTORY),
            ("--json", args.json, OUTPUT_FILE),
        ]
    )
    check_fixed_span_options(args)
    for option, file_type in (
        ("--xml_input_is_overlay", args.file_type),
        ("--ref_xml_input_is_overlay", args.ref_file_type),
    ):
        side_option = option.replace("xml_input_is_overlay", "file_type")
        if getattr(args, option[2:]) and file_type != "xml-inline":
            raise InputError(option, 0, f"applies to xml-inline files only ({side_option} is {file_type})")
    rules = label_rules(
        args.content_annotations, args.token_annotations, args.equivalence_class, args.ignore, args.task
    )
    pairs = file_pairs(
        args.file,
        args.ref_file,
        args.dir,
        args.ref_dir,
        args.file_re,
        args.ref_fsuff_off,
        args.ref_fsuff_on,
        args.file_type,
    )
    if args.ref_file_type == "brat":
        for pair in pairs:
            check_paths([("--ref_file/--ref_dir", pair.ref.with_suffix(".txt"), INPUT_FILE)])
    spec = mat_spec(
        pairs,
        {"ref": args.ref_file_type, "hyp": args.file_type},
        {"ref": args.ref_encoding, "hyp": args.encoding},
        {"ref": args.ref_xml_input_is_overlay, "hyp": args.xml_input_is_overlay},
        rules,
        fixed_span_spec_options(args),
    )
    if args.store is None:
        done: dict[str, dict[str, pa.Table]] = {}
        result = _results(spec, lambda sub: compute_here(sub, done))
    else:
        check_store(args.store, "--store")
        status = run_tasks([task_for(spec, args.store)], args.workers)
        if status != EXIT_OK:
            return status
        result = _results(spec, lambda sub: _stored(sub, args.store))
    for note in result["notes"]:
        sys.stderr.write(f"iescore mat: {note}\n")
    result["tables"] = report_tables(args, result)
    text = fixed_span_text_hook(args, result)
    details = details_frame(result["pairs"], result["signals"]) if args.details or args.json else None
    if args.details:
        text.append(details_text(details))
    matrix = confusability(result["pairs"]) if args.confusability or args.json else None
    if args.confusability:
        text.append(confusability_text(matrix))
    if not args.csv_output_dir:
        sys.stdout.write("\n".join(text) + f"\nsignature: {result['signature']}\n")
    write_fixed_span_outputs_hook(args, result)
    if args.json:
        write_text(args.json, json_text(_json(result, args, details, matrix)))
    return EXIT_OK


# --- fixed-span tables, confidence data and CSV output ---------------------------------------------


def check_fixed_span_options(args: argparse.Namespace) -> None:
    """The fixed-span/confidence/CSV options, before any work: ``--csv_output_dir`` must be a directory
    we can create or write into; ``--no_csv_formulas`` and ``--oo_separator`` only shape CSV files, so
    without ``--csv_output_dir`` they do nothing and a note on stderr says so (MATScore ignored them
    silently; refusing them would break MAT users' command lines)."""
    check_paths([("--csv_output_dir", args.csv_output_dir, OUTPUT_DIRECTORY)])
    if not args.csv_output_dir:
        for name in ("no_csv_formulas", "oo_separator"):
            if getattr(args, name):
                sys.stderr.write(f"iescore mat: --{name} has no effect without --csv_output_dir\n")


def fixed_span_spec_options(args: argparse.Namespace) -> dict[str, Any]:
    """TallySpans options: the fixed-span tables asked for (``fixed_units``); with confidence data,
    its seed and number of score sets, which go into the signature."""
    units = [unit for unit, option in FIXED_UNIT_OPTIONS.items() if getattr(args, option)]
    options: dict[str, Any] = {"fixed_units": units}
    if args.compute_confidence_data:
        options.update({"confidence_seed": args.seed, "confidence_resamples": args.resamples})
    return options


def report_tables(args: argparse.Namespace, result: dict[str, Any]) -> dict[str, pd.DataFrame]:
    """Each table's reported rows (per file, then the corpus; ``pipeline.mat.tables.report_rows``), in
    MATScore's order, with the accuracy columns in fixed-span tables and, with
    ``--compute_confidence_data``, the confidence columns after each measure."""
    scores = result["scores"]
    present = set(scores["table"])
    tables = {}
    for table in TABLES:
        if table not in present:
            continue
        confidence = None
        if args.compute_confidence_data:
            confidence = table_confidence(result["counts"], table, resamples=args.resamples, seed=args.seed)
        tables[table] = report_rows(
            scores, table, tag_span_details=args.tag_span_details, confidence=confidence
        )
    return tables


def fixed_span_text_hook(args: argparse.Namespace, result: dict[str, Any]) -> list[str]:
    """The text blocks By tag, By token, By pseudo-token, By character (the corpus rows)."""
    return [table_text(rows, table) for table, rows in result["tables"].items()]


def write_fixed_span_outputs_hook(args: argparse.Namespace, result: dict[str, Any]) -> None:
    """The CSV files of ``--csv_output_dir``: bytag.csv and each fixed-span table asked for, details.csv
    with ``--details``, confusability.csv with ``--confusability`` (``pipeline.mat.csv_output``)."""
    if not args.csv_output_dir:
        return
    directory = Path(args.csv_output_dir)
    directory.mkdir(parents=True, exist_ok=True)
    formulas = not args.no_csv_formulas
    separator = OPENOFFICE_SEPARATOR if args.oo_separator else EXCEL_SEPARATOR
    for table, rows in result["tables"].items():
        write_text(
            directory / CSV_FILES[table], score_csv(rows, table, formulas=formulas, separator=separator)
        )
    if args.details:
        details = details_frame(result["pairs"], result["signals"])
        text = text_csv(details, formulas=formulas, text_columns=DETAIL_TEXT_COLUMNS)
        write_text(directory / CSV_FILES["details"], text)
    if args.confusability:
        text = text_csv(
            confusability_rows(result["pairs"]), formulas=formulas, text_columns=("file", "reference")
        )
        write_text(directory / CSV_FILES["confusability"], text)


def confusability_rows(pairs: pd.DataFrame) -> pd.DataFrame:
    """The confusability matrix of each file, then of the corpus (file ``<all>``), all in the corpus's
    label order: columns file, reference (the row's reference label, ``null`` for spurious), then one
    per hypothesis label and ``null`` (missing)."""
    corpus = confusability(pairs)
    parts = []
    for file, rows in pairs.groupby("file", sort=True, observed=True):
        matrix = confusability(rows).reindex(index=corpus.index, columns=corpus.columns, fill_value=0)
        parts.append(_matrix_rows(str(file), matrix))
    parts.append(_matrix_rows(ALL, corpus))
    return pd.concat(parts, ignore_index=True)


def _matrix_rows(file: str, matrix: pd.DataFrame) -> pd.DataFrame:
    frame = matrix.astype(np.int64).reset_index()
    frame.columns = ["reference", *map(str, matrix.columns)]
    frame.insert(0, "file", file)
    return frame


# --- helpers --------------------------------------------------------------------------------------


def _results(spec: dict[str, Any], tables: Callable[[dict[str, Any]], dict[str, pa.Table]]) -> dict[str, Any]:
    """What the stages of ``spec`` made (``tables`` gives a stage spec's artifacts): ``scores``
    (MAT_SCORES), ``counts`` (MAT_COUNTS), ``pairs`` (MAT_PAIRS), ``signals`` (file -> signal),
    ``signature``."""
    tally = spec["inputs"]["counts"]
    scores_table = tables(spec)["scores"]
    documents = tables(tally["inputs"]["hyp"])["documents"].to_pandas()
    return {
        "scores": scores_table.to_pandas(),
        "counts": tables(tally)["counts"].to_pandas(),
        "pairs": tables(tally["inputs"]["pairs"])["pairs"].to_pandas(),
        "signals": dict(zip(documents["file"], documents["signal"], strict=True)),
        "signature": scores_table.schema.metadata[SIGNATURE_KEY].decode(),
        "notes": json.loads(scores_table.schema.metadata.get(NOTES_KEY, b"[]")),
    }


def _stored(spec: dict[str, Any], store: str) -> dict[str, pa.Table]:
    """The artifacts of a stage the Luigi run wrote into ``store``."""
    return {name: read_table(target) for name, target in task_for(spec, store).output().items()}


def _json(
    result: dict[str, Any],
    args: argparse.Namespace,
    details: pd.DataFrame | None,
    matrix: pd.DataFrame | None,
) -> dict[str, Any]:
    """``{"signature", "tables": {table: [rows]}, "details": [rows], "confusability": {...}}``: every
    row per file and for the corpus (file ``<all>``), measures as fractions of 1 as printed."""
    tables = {
        table: [_plain(row) for row in rows.to_dict(orient="records")]
        for table, rows in result["tables"].items()
    }
    value: dict[str, Any] = {"signature": result["signature"], "tables": tables}
    if result["notes"]:
        value["notes"] = list(result["notes"])
    if details is not None:
        value["details"] = [_plain(row) for row in details.to_dict(orient="records")]
    if matrix is not None:
        value["confusability"] = {
            "reference": [str(x) for x in matrix.index],
            "hypothesis": [str(x) for x in matrix.columns],
            "counts": [[int(v) for v in row] for row in matrix.to_numpy()],
        }
    return value


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, item in row.items():
        if (
            item is None
            or item is pd.NA
            or (isinstance(item, float) and pd.isna(item) and key not in ("precision", "recall", "fmeasure"))
        ):
            out[key] = None
        elif hasattr(item, "item"):
            out[key] = item.item()
        else:
            out[key] = item
    return out
