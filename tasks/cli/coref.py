"""``iescore coref``: score coreference chains with MUC, B3, CEAF-e, CEAF-m, BLANC and LEA.

Two forms. ``iescore coref --key KEY --response RESPONSE [-f conll|sgml] [--match exact|min] [--json
OUT.json] [--partitions OUT.txt] [--summary OUT.txt] [--encoding utf-8] [--zero-division undefined|0]
[--strict]`` prints the seed-001 coreference score report (MUC by document, totals, then the totals of
B3, CEAF-e, CEAF-m, BLANC and LEA, then the CoNLL score; see :mod:`pipeline.coref`).
``iescore coref <metric> <key> <response> [<doc>|none] [--strict] [--encoding E]`` is the CoNLL
scorer's own command line (``perl scorer.pl ...``) and prints its layout
(:mod:`pipeline.coref.scorer_layout`), the CoNLL score on stderr. Documents and repeated mentions are
paired as the CoNLL scorer pairs them, each case announced on stderr, or refused with ``--strict``
(:mod:`pipeline.coref.pairing`). Bad input raises :class:`InputError`, which the command line's
``main`` prints as ``iescore: file:line: message`` with exit status 2.
"""

from __future__ import annotations

import argparse
import sys

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.coref import (
    FORMATS,
    MATCH_MODES,
    SCORER_METRICS,
    ZERO_DIVISION,
    conll_average,
    partitions_report,
    read_aligned,
    read_paired,
    score_files,
    score_report,
    scorer_report,
    scores_json,
    summary_report,
)
from iescore.tasks.core.arguments import INPUT_FILE, OUTPUT_FILE, check_paths, text_encoding


def add_coref_command(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``coref`` subcommand to an argparse subparsers object (handler: :func:`run_coref`)."""
    parser = subparsers.add_parser(
        "coref",
        help="score coreference chains (MUC, B3, CEAF-e, CEAF-m, BLANC, LEA) as the MUC and CoNLL "
        "reference scorers",
        description="Score a response's coreference chains against a key's: MUC (Vilain et al. 1995), "
        "B3, CEAF-e, CEAF-m, BLANC and LEA, per document and in total (sums of counts over documents).",
    )
    parser.add_argument(
        "scorer_pl",
        nargs="*",
        metavar="<metric> <key> <response> [<doc>|none]",
        help="the CoNLL scorer's positional form: metric (muc, bcub, ceafm, ceafe, blanc, lea or all), "
        "key, response, and a document to score alone (or none: totals only); prints scorer.pl's layout",
    )
    parser.add_argument("--key", help="key file (the annotators' chains)")
    parser.add_argument("--response", help="response file (the system's chains)")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="refuse a key document the response lacks and a response document the key lacks, and "
        "remove every repeated response mention (default: as the CoNLL scorer, announced on stderr)",
    )
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
    """Check the arguments, then read, align, score and report; bad input raises :class:`InputError`."""
    if args.scorer_pl:
        return _run_positional(args)
    for option, value in (("--key", args.key), ("--response", args.response)):
        if value is None:
            expected = "--key KEY --response RESPONSE, or <metric> <key> <response> expected"
            raise InputError(option, 0, f"missing: {expected}")
    # The inputs are read once, before any scoring: a missing file or a directory is the reader's
    # "cannot read the coreference file: Is a directory". The outputs are checked here, and must not
    # be an input.
    check_paths(
        [
            ("--key", args.key, INPUT_FILE),
            ("--response", args.response, INPUT_FILE),
            ("--json", args.json, OUTPUT_FILE),
            ("--partitions", args.partitions, OUTPUT_FILE),
            ("--summary", args.summary, OUTPUT_FILE),
        ]
    )
    mentions, scores = score_files(
        args.key, args.response, args.format, args.match, args.encoding, args.strict
    )
    _announce(mentions.notices)
    sys.stdout.write(score_report(scores, zero_division=args.zero_division, conll=True))
    if args.json or args.partitions or args.summary:
        from iescore.tasks.core.files import write_text
        from iescore.tasks.core.jsontext import json_text
    if args.json:
        write_text(args.json, json_text(scores_json(scores, args.zero_division)))
    if args.partitions or args.summary:  # every mention's id and text: the line reader's documents
        _, aligned = read_aligned(
            args.key, args.response, args.format, args.match, args.encoding, strict=args.strict
        )
    if args.partitions:
        write_text(args.partitions, partitions_report(aligned))
    if args.summary:
        write_text(args.summary, summary_report(aligned))
    return 0


def _run_positional(args: argparse.Namespace) -> int:
    """``scorer.pl <metric> <key> <response> [<doc>|none]``: its layout on stdout, the CoNLL score on
    stderr (stdout stays the reference's, byte for byte, for the scripts that read it)."""
    words = args.scorer_pl
    if len(words) not in (3, 4):
        raise InputError(
            "<metric> <key> <response> [<doc>|none]", 0, f"{len(words)} argument(s) given: 3 or 4 expected"
        )
    metric = words[0].lower()
    if metric not in SCORER_METRICS:
        raise InputError("<metric>", 0, f"{words[0]!r}: one of {', '.join(SCORER_METRICS)} expected")
    for option, value, default in (
        ("--key", args.key, None),
        ("--response", args.response, None),
        ("--json", args.json, None),
        ("--partitions", args.partitions, None),
        ("--summary", args.summary, None),
        ("-f", args.format, "conll"),
        ("--match", args.match, "exact"),
        ("--zero-division", args.zero_division, "undefined"),
    ):
        if value != default:
            raise InputError(
                option,
                0,
                "not with the positional form <metric> <key> <response>, which reads CoNLL and prints "
                "scorer.pl's layout (--strict and --encoding only); use --key and --response",
            )
    key, response = words[1], words[2]
    document = words[3] if len(words) == 4 else None
    check_paths([("<key>", key, INPUT_FILE), ("<response>", response, INPUT_FILE)])
    paired = read_paired(key, response, "conll", args.encoding, args.strict)
    _announce(paired.notices)
    report, scores = scorer_report(metric, paired, key, document)
    sys.stdout.write(report)
    sys.stdout.flush()
    average = conll_average(scores)
    print(f"iescore coref: CoNLL score (mean of the MUC, B3 and CEAF-e F1): {_two(average)}", file=sys.stderr)
    return 0


def _two(ratio: float | None) -> str:
    return "-" if ratio is None else f"{100 * ratio:.2f}"


def _announce(notices: tuple[str, ...]) -> None:
    """Each case where the response does not mirror the key (pipeline.coref.pairing), on stderr."""
    for notice in notices:
        print(f"iescore: {notice}", file=sys.stderr)
