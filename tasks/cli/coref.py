"""``iescore coref``: score coreference chains with MUC, B3, CEAF-e, CEAF-m, BLANC and LEA.

``iescore coref --key KEY --response RESPONSE [-f conll|sgml] [--match exact|min] [--json OUT.json]
[--partitions OUT.txt] [--summary OUT.txt] [--encoding utf-8] [--zero-division undefined|0]`` prints
the seed-001 coreference score report (MUC by document, totals, then the totals of B3, CEAF-e, CEAF-m,
BLANC and LEA; see :mod:`pipeline.coref`). Bad input raises :class:`InputError`, which the command
line's ``main`` prints as ``iescore: file:line: message`` with exit status 2.
"""

from __future__ import annotations

import argparse
import sys

from pipeline.core.errors import InputError
from pipeline.coref import (
    FORMATS,
    MATCH_MODES,
    METRICS,
    ZERO_DIVISION,
    align_documents,
    partitions_report,
    read_mentions,
    read_pair,
    score_mentions,
    score_report,
    scores_json,
    summary_report,
)
from tasks.core.arguments import OUTPUT_FILE, check_paths, text_encoding


def add_coref_command(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``coref`` subcommand to an argparse subparsers object (handler: :func:`run_coref`)."""
    parser = subparsers.add_parser(
        "coref",
        help="score coreference chains (MUC, B3, CEAF-e, CEAF-m, BLANC, LEA) as the MUC and CoNLL "
        "reference scorers",
        description="Score a response's coreference chains against a key's: MUC (Vilain et al. 1995), "
        "B3, CEAF-e, CEAF-m, BLANC and LEA, per document and in total (sums of counts over documents).",
    )
    parser.add_argument("--key", required=True, help="key file (the annotators' chains)")
    parser.add_argument("--response", required=True, help="response file (the system's chains)")
    parser.add_argument(
        "-f",
        "--format",
        choices=FORMATS,
        default="conll",
        help="conll: CoNLL columns, last column (N / N) / (N); sgml: MUC texts with COREF tags "
        "(default: conll)",
    )
    parser.add_argument(
        "--match",
        choices=MATCH_MODES,
        default="exact",
        help="mentions match on equal extents (exact), or also by the key's MIN string (min; sgml only)",
    )
    parser.add_argument("--json", help="write the scores as JSON here")
    parser.add_argument("--partitions", help="write the partitions report (key and response classes) here")
    parser.add_argument("--summary", help="write the coreference report summary (COR/MIS/SPU/OPT) here")
    parser.add_argument("--encoding", type=text_encoding, default="utf-8", help="encoding of the input files")
    parser.add_argument(
        "--zero-division",
        choices=ZERO_DIVISION,
        default="undefined",
        help="a ratio with a zero denominator is undefined ('-' in the report, null in JSON; default) "
        "or 0, as the CoNLL reference scorer prints it",
    )
    parser.set_defaults(handler=run_coref)


def run_coref(args: argparse.Namespace) -> int:
    """Read, align, score and report; bad input raises :class:`InputError`."""
    # The inputs are read once, before any scoring: a missing file or a directory is the reader's
    # "cannot read the coreference file: Is a directory". The outputs are checked here.
    check_paths(
        [
            ("--json", args.json, OUTPUT_FILE),
            ("--partitions", args.partitions, OUTPUT_FILE),
            ("--summary", args.summary, OUTPUT_FILE),
        ]
    )
    if args.match == "min" and args.format != "sgml":
        raise InputError("--match", 0, "MIN matching needs SGML input (-f sgml); CoNLL mentions have no MIN")
    scores = score_mentions(
        read_mentions(args.key, args.response, args.format, args.match, args.encoding), METRICS
    )
    sys.stdout.write(score_report(scores, zero_division=args.zero_division))
    if args.json or args.partitions or args.summary:
        from tasks.campaign.outputs import json_text  # imported here: Luigi's import is slow to start
        from tasks.core.files import write_text
    if args.json:
        write_text(args.json, json_text(scores_json(scores, args.zero_division)))
    if args.partitions or args.summary:  # every mention's id and text: the line reader's documents
        key, response = read_pair(args.key, args.response, args.format, args.encoding)
        aligned = align_documents(key, response, match=args.match, response_source=args.response)
    if args.partitions:
        write_text(args.partitions, partitions_report(aligned))
    if args.summary:
        write_text(args.summary, summary_report(aligned))
    return 0
