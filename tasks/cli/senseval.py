"""``iescore senseval``: SENSEVAL's scorer2 (seed 003), the same arguments and the same report.

``iescore senseval ANSWERS KEY [SENSEMAP] [-g fine|coarse|mixed] [-m] [-v]`` prints scorer2's score
block on stdout (``-v``: first one block per answer line); answers that cannot be scored are reported on
stderr as scorer2 reports them, and odd answer lines as warnings naming file:line. Ours adds ``--json
OUT``, ``--by-item`` (the block per lexical item), the seed's filters (``--instances``, ``--senses``) and
policies (``--policy coverage|conjunctive``), ``--unknown-senses``, ``--strict``, ``--store`` and
``--workers``. The rules are in :mod:`pipeline.senseval.scoring`.

The scoring is :mod:`iescore.senseval`'s (``plan_scoring``, ``run_scoring``): the stages of
``tasks/senseval/stages.py`` (``tasks.cli.common.run_stages``), computed in
this process without ``--store`` (no artifact written, so a run takes what scorer2 takes), run by Luigi
with ``--store DIR``, their artifacts kept there for audit and reuse (``--workers``: Luigi workers). The
report is printed from their tables, the same byte for byte either way.
"""

from __future__ import annotations

import argparse
import sys

from iescore.pipeline.senseval.report import (
    by_item_report,
    score_report,
    scores_json,
    unscored_message,
    verbose_report,
)
from iescore.pipeline.senseval.scoring import GRANULARITIES, POLICIES, UNKNOWN_SENSES
from iescore.tasks.cli.common import EXIT_OK, STORE_HELP, STORE_WORKERS_HELP, check_store_option
from iescore.tasks.core.arguments import INPUT_FILE, OUTPUT_FILE, check_paths, text_encoding, workers
from iescore.tasks.core.files import write_text
from iescore.tasks.core.jsontext import json_text

from iescore.senseval import plan_scoring, run_scoring
from iescore.sources import StagesFailedError


def add_senseval_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``senseval`` subcommand (handler: :func:`run_senseval`)."""
    p = commands.add_parser(
        "senseval",
        help="score word-sense answers as SENSEVAL's scorer2",
        description="Score a system's word-sense answers against a key, fine-, coarse- or mixed-grained "
        "(Melamed and Resnik), as scorer2 does: precision, recall and attempted.",
    )
    p.add_argument(
        "answers", metavar="ANSWERS", help="the system's answers: 'item instance tag[/weight] ...'"
    )
    p.add_argument("key", metavar="KEY", help="the answer key: 'item instance tag [tag ...]'")
    p.add_argument(
        "sense_map",
        metavar="SENSEMAP",
        nargs="?",
        help="the sense map: 'sense [b1 parent b2 grandparent ...]' (needed for coarse and mixed)",
    )
    p.add_argument(
        "-g",
        dest="granularity",
        choices=GRANULARITIES,
        default="fine",
        help="granularity (default fine; coarse and mixed need a sense map, else fine is used)",
    )
    p.add_argument(
        "-m",
        dest="minimal",
        action="store_true",
        help="minimal: leave out instances whose key has more than one tag",
    )
    p.add_argument("-v", dest="verbose", action="store_true", help="print each answer line's score first")
    p.add_argument(
        "--policy",
        choices=POLICIES,
        default="disjunctive",
        help="disjunctive (scorer2's: any key tag is the right one), coverage (credit times the fraction "
        "of the key's tags covered) or conjunctive (every key tag is an item; weights are probabilities "
        "of appearance)",
    )
    p.add_argument(
        "--unknown-senses",
        choices=UNKNOWN_SENSES,
        default="wrong",
        help="an answer tag the sense map lacks: a wrong attempted tag (wrong, scorer2's) or, with a map, "
        "the answer is not attempted (unattempted, the seed's)",
    )
    p.add_argument("--instances", help="score only the instances listed in this file ('item instance' lines)")
    p.add_argument(
        "--senses", help="keep only the key tags listed in this file; drop instances left with none"
    )
    p.add_argument("--by-item", action="store_true", help="also print the score block of each lexical item")
    p.add_argument(
        "--strict", action="store_true", help="a warning about an answer line is an error (exit 2)"
    )
    p.add_argument("--json", help="write the scores as JSON here")
    p.add_argument("--encoding", type=text_encoding, default="utf-8", help="encoding of the input files")
    p.add_argument("--store", help=STORE_HELP)
    p.add_argument("--workers", type=workers, default=1, help=STORE_WORKERS_HELP)
    p.set_defaults(handler=run_senseval)


def run_senseval(args: argparse.Namespace) -> int:
    """Check the paths, score by :mod:`iescore.senseval` (the library's functions), print scorer2's
    report (and write ours)."""
    check_paths(
        [
            ("ANSWERS", args.answers, INPUT_FILE),
            ("KEY", args.key, INPUT_FILE),
            ("SENSEMAP", args.sense_map, INPUT_FILE),
            ("--instances", args.instances, INPUT_FILE),
            ("--senses", args.senses, INPUT_FILE),
            ("--json", args.json, OUTPUT_FILE),
        ]
    )
    check_store_option(args.store)
    plan = plan_scoring(
        args.answers,
        args.key,
        args.sense_map,
        granularity=args.granularity,
        minimal=args.minimal,
        policy=args.policy,
        unknown_senses=args.unknown_senses,
        instances=args.instances,
        senses=args.senses,
        strict=args.strict,
        encoding=args.encoding,
    )
    if plan.note:
        print(plan.note, file=sys.stderr)
    try:
        result = run_scoring(plan, args.store, args.workers)
    except StagesFailedError as failed:
        return failed.status
    granularity = plan.granularity
    sums, instances = result.arrow("totals"), result.arrow("instances")
    unscored, warnings = result.arrow("unscored"), result.arrow("warnings")
    for line, warning in zip(
        warnings.column("line").to_pylist(), warnings.column("warning").to_pylist(), strict=True
    ):
        print(f"iescore: {args.answers}:{line}: warning: {warning}", file=sys.stderr)
    if unscored.num_rows:
        sys.stderr.write("".join(unscored_message(row) + "\n" for row in unscored.to_pylist()))
    if args.verbose:
        sys.stdout.write(verbose_report(instances, unscored))
    sys.stdout.write(score_report(sums, args.answers, args.key, granularity, args.minimal, args.policy))
    if args.by_item:
        sys.stdout.write(by_item_report(sums, granularity, args.minimal, args.policy))
    if warnings.num_rows:
        print(f"iescore: {warnings.num_rows} warning(s) about answer lines (see above)", file=sys.stderr)
    if args.json:
        shown = {k: v for k, v in plan.options.items() if k != "encoding"}
        write_text(
            args.json, json_text(scores_json(sums, unscored, warnings.num_rows, result.signature, shown))
        )
    return EXIT_OK
