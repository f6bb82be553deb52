"""``iescore templette``: score one HUB-4 templette hypothesis against a reference (seed 000)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from iescore.pipeline.core.signature import SIGNATURE_KEY
from iescore.pipeline.speech.align import COST_MODELS
from iescore.pipeline.templette.removal import DEFAULT_PREMODIFIERS, DEFAULT_PUNCTUATION
from iescore.pipeline.templette.report import muc_report, report_summary, scores_json
from iescore.pipeline.templette.scoring import COMPARE_MODES
from iescore.tasks.cli.common import (
    EXIT_OK,
    STORE_HELP,
    STORE_WORKERS_HELP,
    check_store_option,
    run_stages,
    warn_malformed_rules,
)
from iescore.tasks.core.arguments import (
    INPUT_FILE,
    OUTPUT_DIRECTORY,
    OUTPUT_FILE,
    check_paths,
    positive_float,
    text_encoding,
    workers,
)
from iescore.tasks.core.files import write_text
from iescore.tasks.core.jsontext import json_text
from iescore.tasks.templette.graph import report_tables, templette_options, templette_spec


def templette(args: argparse.Namespace) -> int:
    """Score one hypothesis template set against a reference."""
    csv_paths: list[Path] = []
    if args.csv:
        # Imported only for --csv: the campaign outputs module brings every family's campaign kind
        # (scipy among them), about half a second of this command's start.
        from iescore.tasks.templette.campaign import score_csv_paths

        csv_paths = score_csv_paths(args.csv)
    check_paths(
        [
            ("--ref", args.ref, INPUT_FILE),
            ("--hyp", args.hyp, INPUT_FILE),
            ("--texts", args.texts, INPUT_FILE),
            ("--hyp-texts", args.hyp_texts, INPUT_FILE),
            ("--glm", args.glm, INPUT_FILE),
            ("--json", args.json, OUTPUT_FILE),
            ("--summary", args.summary, OUTPUT_FILE),
            ("--csv", args.csv, OUTPUT_DIRECTORY),
            *(("--csv", path, OUTPUT_FILE) for path in csv_paths),
        ]
    )
    warn_malformed_rules(args.glm, args.encoding)
    options = templette_options(
        compare=args.compare,
        unscored=args.unscored,
        case_sensitive=args.case_sensitive,
        beta=args.beta,
        encoding=args.encoding,
        unsegmented=args.unsegmented,
        glm=args.glm,
        cost=args.cost,
        premodifiers=args.premodifiers,
        punctuation=args.punctuation,
    )
    spec = templette_spec(
        Path(args.ref),
        Path(args.hyp),
        Path(args.texts) if args.texts else None,
        Path(args.hyp_texts) if args.hyp_texts else None,
        options,
    )
    check_store_option(args.store)
    status, artifacts = run_stages([spec], args.store, args.workers)
    if status != EXIT_OK:
        return status
    tables = report_tables(artifacts, spec, ("scores", "mapping"))
    scores, mapping = tables["scores"], tables["mapping"]
    signature = scores.schema.metadata[SIGNATURE_KEY].decode()
    sys.stdout.write(muc_report(scores, signature, title="iescore templette"))
    if args.json:
        write_text(args.json, json_text(scores_json(scores, signature)))
    if args.csv:
        from iescore.tasks.templette.campaign import write_score_csv

        write_score_csv(Path(args.csv), scores, mapping)
    if args.summary:
        write_text(args.summary, report_summary(mapping))
    return EXIT_OK


def add_templette_command(commands: argparse._SubParsersAction) -> None:
    t = commands.add_parser("templette", help="score a HUB-4 templette hypothesis against a reference")
    t.add_argument("--ref", required=True, help="reference template set")
    t.add_argument("--hyp", required=True, help="hypothesis template set")
    t.add_argument("--texts", help="reference text corpus (SGML)")
    t.add_argument("--hyp-texts", help="hypothesis text corpus, when it differs from the reference's")
    t.add_argument(
        "--unsegmented",
        action="store_true",
        help="the hypothesis texts are one word stream without documents; extents count from its start",
    )
    t.add_argument("--glm", help="global mapping file (GLM) normalizing contents and the words aligned")
    t.add_argument("--cost", choices=COST_MODELS, default="phonetic", help="alignment substitution costs")
    t.add_argument(
        "--premodifiers",
        default=",".join(DEFAULT_PREMODIFIERS),
        help="comma-separated words removed from the start of fills (empty: none)",
    )
    t.add_argument("--punctuation", default=DEFAULT_PUNCTUATION, help="characters whited out of contents")
    t.add_argument("--compare", choices=COMPARE_MODES, default="both", help="aspects of text fills compared")
    t.add_argument("--unscored", default="COMMENT", help="comma-separated unscored slot names")
    t.add_argument("--case-sensitive", action="store_true", help="compare contents case-sensitively")
    t.add_argument(
        "--beta", type=positive_float, default=1.0, help="F-measure beta: recall weighs beta times precision"
    )
    t.add_argument(
        "--encoding", type=text_encoding, default="utf-8", help="encoding of the input files (e.g. latin-1)"
    )
    t.add_argument("--store", help=STORE_HELP)
    t.add_argument("--json", help="write the scores as JSON here")
    t.add_argument("--csv", help="write score tables and the mapping as CSV files into this directory")
    t.add_argument("--summary", help="write the report summary (every fill pairing) here")
    t.add_argument("--workers", type=workers, default=1, help=STORE_WORKERS_HELP)
    t.set_defaults(handler=templette)
