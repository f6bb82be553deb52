"""``iescore trec``: trec_eval's measures and output, and significance between runs.

``iescore trec QRELS RUN [RUN ...] [-q] [-c] [-n] [-m MEASURE ...] [-l LEVEL] [-M MAX] [-J] [-N NUM]
[--json OUT.json]`` prints what ``trec_eval`` 10.0 prints for each run, byte for byte (see
:mod:`pipeline.trec.evaluate` for the rules and the one deliberate difference: a qrels query the run
does not answer is ignored unless ``-c``). With two runs or more, each run's output follows the other's
and then their comparison on ``--significance-measure`` (MAP by default): paired t-test, approximate
randomization, paired bootstrap, bootstrap intervals, Holm's correction.

The evaluation is :mod:`iescore.trec`'s (``plan_evaluation``, ``run_evaluation``): the stages of
:mod:`tasks.trec.stages` (``tasks.cli.common.run_stages``), one ``EvaluateRun`` a run over a shared
``IngestQrels``: computed in this process without ``--store`` (no Luigi, no pandas, no artifact
written: users time trec_eval as a whole process), run by Luigi with ``--store DIR``, which keeps
their artifacts (``--workers``: Luigi workers). Everything printed and written comes from their
``evaluation`` tables, the same byte for byte either way. Every input is read and evaluated before
anything is printed.
"""

from __future__ import annotations

import argparse
import json
import sys

from iescore.pipeline.core.errors import InputError


def configure_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The ``trec`` command's arguments (trec_eval's options, with its meanings)."""
    from iescore.tasks.cli.common import STORE_HELP, STORE_WORKERS_HELP
    from iescore.tasks.core.arguments import resamples, seed, whole_number, workers

    parser.add_argument("qrels", metavar="QRELS", help="relevance judgements: qid iter docno rel")
    parser.add_argument(
        "runs", metavar="RUN", nargs="+", help="run(s) in TREC format: qid Q0 docno rank score tag"
    )
    parser.add_argument("-q", action="store_true", help="also print every query's values")
    parser.add_argument(
        "-c",
        action="store_true",
        help="average over every qrels query: a query the run does not answer counts (as 0); without -c "
        "it is ignored",
    )
    parser.add_argument("-n", action="store_true", help="no summary (the 'all' lines)")
    parser.add_argument(
        "-m",
        action="append",
        metavar="MEASURE",
        help="a measure (trec_eval's name[.params]: map, P.5,10, ndcg_cut.10; nicknames official, "
        "all_trec, set) or an ir_measures name (AP, P@10, nDCG@10, RR, Bpref, AP(rel=2)); repeatable "
        "(default: official)",
    )
    parser.add_argument(
        "-l", type=int, default=1, metavar="LEVEL", help="lowest relevance grade that is relevant"
    )
    parser.add_argument(
        "-M",
        type=whole_number,
        default=None,
        metavar="MAX",
        # trec_eval 10.0 crashes (segmentation fault) on a negative -M: refused here, exit 2.
        help="use only each query's first MAX documents (0 or more)",
    )
    parser.add_argument(
        "-J", action="store_true", help="drop unjudged documents before evaluating (trec_eval's -J)"
    )
    parser.add_argument(
        "-N",
        type=whole_number,
        default=None,
        metavar="NUM",
        help="number of documents in the collection (utility; default 0, as trec_eval's code has it)",
    )
    parser.add_argument(
        "-R",
        default="qrels",
        metavar="FORMAT",
        help="format of QRELS: qrels (the default, the only one read; trec_eval's prefs, qrels_prefs and "
        "qrels_jg are refused with the reason)",
    )
    parser.add_argument(
        "-T", default="trec_results", metavar="FORMAT", help="format of the runs: trec_results (the default)"
    )
    parser.add_argument(
        "-Z",
        metavar="ZMEAN_FILE",
        help="trec_eval's Z scores against a file of means: refused (not supported), with the reason",
    )
    parser.add_argument(
        "--json", metavar="OUT.json", help="write every value (and the comparison) as JSON here"
    )
    parser.add_argument(
        "--significance-measure",
        default="map",
        metavar="MEASURE",
        help="the value runs are compared on (a value name as printed: map, P_10, ndcg_cut_10)",
    )
    parser.add_argument(
        "--resamples", type=resamples, default=10000, help="randomization and bootstrap resamples"
    )
    parser.add_argument("--seed", type=seed, default=12345, help="seed of the randomization and bootstrap")
    parser.add_argument(
        "--confidence", type=float, default=0.95, help="confidence of the bootstrap intervals"
    )
    parser.add_argument("--store", help=STORE_HELP)
    parser.add_argument("--workers", type=workers, default=1, help=STORE_WORKERS_HELP)
    return parser


def add_trec_command(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``trec`` subcommand (handler: :func:`run_trec`)."""
    parser = subparsers.add_parser(
        "trec",
        help="TREC retrieval measures equal to trec_eval 10.0 (map, P@k, nDCG, bpref, ...), and "
        "significance between runs",
        description="Evaluate TREC runs against qrels as trec_eval 10.0 does, byte for byte; compare runs.",
    )
    configure_parser(parser)
    parser.set_defaults(handler=run_trec)


def run_trec(args: argparse.Namespace) -> int:
    """Check the arguments, evaluate every run by :mod:`iescore.trec` (the library's functions), print
    each run's values (and compare the runs when there are two or more)."""
    from iescore.pipeline.trec.formats import check_formats
    from iescore.pipeline.trec.report import (
        evaluation_from_table,
        evaluation_json,
        ignored_queries,
        text_of_table,
    )
    from iescore.tasks.cli.common import EXIT_OK, check_store_option
    from iescore.tasks.core.arguments import INPUT_FILE, OUTPUT_FILE, check_paths
    from iescore.tasks.core.files import write_text

    from iescore.sources import StagesFailedError
    from iescore.trec import plan_evaluation, run_evaluation, run_names

    check_formats(args.R, args.T)
    if args.Z is not None:
        raise InputError(
            "-Z",
            0,
            "trec_eval's Z scores (each value as deviations from a per-query mean read from a Zmean file) "
            "are not supported: iescore prints raw values; compare runs with RUN RUN ... instead",
        )
    check_paths(
        [
            ("QRELS", args.qrels, INPUT_FILE),
            *(("RUN", run, INPUT_FILE) for run in args.runs),
            ("--json", args.json, OUTPUT_FILE),
        ]
    )
    check_store_option(args.store)
    if args.resamples < 1:
        raise InputError("--resamples", 0, f"a positive number of resamples expected, got {args.resamples}")
    if not 0 < args.confidence < 1:
        raise InputError(
            "--confidence", 0, f"a confidence strictly between 0 and 1 expected, got {args.confidence}"
        )
    plan = plan_evaluation(
        args.qrels,
        run_names(args.runs),
        measures=args.m,
        level=args.l,
        complete=args.c,
        max_docs=args.M,
        judged_only=args.J,
        num_docs=args.N,
    )
    if len(args.runs) > 1 and args.significance_measure not in plan.value_names:
        raise InputError(
            "--significance-measure",
            0,
            f"{args.significance_measure!r} is not among the values measured "
            f"({', '.join(sorted(set(plan.value_names)))}); add it with -m",
        )
    try:
        result = run_evaluation(plan, args.store, args.workers)
    except StagesFailedError as failed:
        return failed.status
    for position, name in enumerate(result.runs):
        path = plan.runs[name]
        table = result.arrow(name)
        if len(args.runs) > 1:
            # One run prints trec_eval's bytes alone; several are told apart by a heading each.
            heading = name if name == path else f"{name}: {path}"
            sys.stdout.write(f"{'' if position == 0 else chr(10)}# run {heading}\n")
        sys.stdout.write(text_of_table(table, per_query=args.q, summary=not args.n))
        ignored = ignored_queries(table)
        if ignored:
            shown = ", ".join(ignored[:5]) + (", ..." if len(ignored) > 5 else "")
            print(
                f"iescore: {path}: {len(ignored)} qrels quer{'y' if len(ignored) == 1 else 'ies'} without "
                f"results ignored ({shown}); -c counts them",
                file=sys.stderr,
            )
    evaluations = (
        {name: evaluation_from_table(result.arrow(name)) for name in result.runs}
        if len(args.runs) > 1 or args.json
        else {}
    )
    comparison = None
    if len(evaluations) > 1:
        from iescore.pipeline.campaign.run_comparison import compare_runs, comparison_text

        try:
            comparison = compare_runs(
                evaluations, args.significance_measure, args.resamples, args.seed, args.confidence
            )
        except ValueError as error:
            raise InputError(args.qrels, 0, str(error)) from None
        sys.stdout.write("\n" + _other_queries_note(comparison, evaluations) + comparison_text(comparison))
    if args.json:
        from iescore.pipeline.campaign.run_comparison import comparison_json

        document = {
            "signature": result.signature,
            "runs": {name: evaluation_json(value, result.signature) for name, value in evaluations.items()},
        }
        if comparison is not None:
            document["comparison"] = comparison_json(comparison)
        write_text(args.json, json.dumps(document, indent=1, sort_keys=False) + "\n")
    return EXIT_OK


def _other_queries_note(comparison, evaluations: dict) -> str:
    """A line saying that the comparison's means are over the queries every run answers, naming each run
    whose value printed above is over other queries (so the two numbers differ); empty when none is."""
    common = set(comparison.queries)
    others = [
        f"{name} ({len(evaluation.qids)} queries)"
        for name, evaluation in evaluations.items()
        if set(evaluation.qids) != common
    ]
    if not others:
        return ""
    return (
        f"# {comparison.measure} below is over the {len(common)} queries every run answers; the "
        f"{comparison.measure} printed above is over each run's own queries for {', '.join(others)}\n"
    )
