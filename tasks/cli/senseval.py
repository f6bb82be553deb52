"""``iescore senseval``: SENSEVAL's scorer2 (seed 003), the same arguments and the same report.

``iescore senseval ANSWERS KEY [SENSEMAP] [-g fine|coarse|mixed] [-m] [-v]`` prints scorer2's score
block on stdout (``-v``: first one block per answer line); answers that cannot be scored are reported on
stderr as scorer2 reports them, and odd answer lines as warnings naming file:line. Ours adds ``--json
OUT``, ``--by-item`` (the block per lexical item), the seed's filters (``--instances``, ``--senses``) and
policies (``--policy coverage|conjunctive``), ``--unknown-senses``, ``--strict``, ``--store`` and
``--workers``. The rules are in :mod:`pipeline.senseval.scoring`.

Without ``--store`` (the default) the command scores in its own process, as ``iescore coref`` does: it
calls the functions the stages call and writes no artifact, so a run takes what scorer2 takes. With
``--store DIR`` it runs the stages (``tasks/senseval/stages.py``), their artifacts kept there for audit
and reuse (``--workers``: Luigi workers). The report is the same, byte for byte, either way.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from pipeline.senseval.formats import (
    answer_warnings,
    read_answers,
    read_instance_list,
    read_key,
    read_sense_list,
    read_sense_map,
)
from pipeline.senseval.report import (
    by_item_report,
    score_report,
    scores_json,
    senseval_signature,
    totals_table,
    unscored_message,
    verbose_report,
)
from pipeline.senseval.scoring import (
    GRANULARITIES,
    POLICIES,
    UNKNOWN_SENSES,
    SenseOptions,
    effective_granularity,
    score_senses,
)
from tasks.core.arguments import INPUT_FILE, OUTPUT_DIRECTORY, OUTPUT_FILE, check_paths, positive_int

# The command imports neither Luigi nor the artifact store unless ``--store`` is given: scoring in this
# process is what the stages do, without writing and reading their artifacts (see ``_score_here``).
WORKERS_HELP = "Luigi workers with --store: tasks run in parallel (1 or more)"


def add_senseval_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``senseval`` subcommand (handler: :func:`run_senseval`)."""
    p = commands.add_parser(
        "senseval",
        help="score word-sense answers as SENSEVAL's scorer2 (seed 003)",
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
    p.add_argument("--encoding", default="utf-8", help="encoding of the input files")
    p.add_argument(
        "--store",
        help="run the Luigi stages, their artifacts kept in this store (a directory or s3://BUCKET/PREFIX) "
        "for audit and reuse; without it the command scores in its own process and writes no artifact",
    )
    p.add_argument("--workers", type=positive_int, default=1, help=WORKERS_HELP)
    p.set_defaults(handler=run_senseval)


@dataclass(frozen=True)
class _Scored:
    """What the report is printed from: the sums, the instances, the answer lines not scored, the
    warnings about answer lines, and the signature (empty when no JSON is asked for in-process)."""

    sums: pa.Table
    instances: pa.Table
    unscored: pa.Table
    warnings: pa.Table
    signature: str


def run_senseval(args: argparse.Namespace) -> int:
    """Check the paths, score (in this process, or by the stages with ``--store``), print scorer2's
    report (and write ours)."""
    store_path = None
    if args.store is not None:
        from tasks.core.store import check_store, is_s3

        store_path = None if is_s3(args.store) else args.store
    check_paths(
        [
            ("ANSWERS", args.answers, INPUT_FILE),
            ("KEY", args.key, INPUT_FILE),
            ("SENSEMAP", args.sense_map, INPUT_FILE),
            ("--instances", args.instances, INPUT_FILE),
            ("--senses", args.senses, INPUT_FILE),
            ("--store", store_path, OUTPUT_DIRECTORY),
            ("--json", args.json, OUTPUT_FILE),
        ]
    )
    if args.store is not None:
        check_store(args.store, "--store")
    granularity, message = effective_granularity(args.granularity, args.sense_map is not None)
    if message:
        print(message, file=sys.stderr)
    options = {
        "granularity": granularity,
        "minimal": args.minimal,
        "policy": args.policy,
        "unknown_senses": args.unknown_senses,
        "encoding": args.encoding,
        "strict": args.strict,
    }
    if args.store is None:
        scored = _score_here(args, options)
    else:
        scored = _score_by_stages(args, options)
        if isinstance(scored, int):
            return scored
    for line, warning in zip(
        scored.warnings.column("line").to_pylist(), scored.warnings.column("warning").to_pylist(), strict=True
    ):
        print(f"iescore: {args.answers}:{line}: warning: {warning}", file=sys.stderr)
    if scored.unscored.num_rows:
        sys.stderr.write("".join(unscored_message(row) + "\n" for row in scored.unscored.to_pylist()))
    if args.verbose:
        sys.stdout.write(verbose_report(scored.instances, scored.unscored))
    sys.stdout.write(
        score_report(scored.sums, args.answers, args.key, granularity, args.minimal, args.policy)
    )
    if args.by_item:
        sys.stdout.write(by_item_report(scored.sums, granularity, args.minimal, args.policy))
    n_warnings = scored.warnings.num_rows
    if n_warnings:
        print(f"iescore: {n_warnings} warning(s) about answer lines (see above)", file=sys.stderr)
    if args.json:
        from tasks.core.jsontext import json_text
        from tasks.core.store import write_text

        shown = {k: v for k, v in options.items() if k != "encoding"}
        write_text(
            args.json,
            json_text(scores_json(scored.sums, scored.unscored, n_warnings, scored.signature, shown)),
        )
    return 0


def _score_here(args: argparse.Namespace, options: dict) -> _Scored:
    """Score in this process: the functions the stages call, in their order, without their artifacts."""
    _keep_freed_memory()
    encoding = options["encoding"]
    key = read_key(args.key, encoding)
    sense_map = read_sense_map(args.sense_map, encoding) if args.sense_map else None
    answers = read_answers(args.answers, encoding)
    warnings = answer_warnings(answers, args.answers, bool(options["strict"]))
    rules = _rules(options)
    scored = score_senses(
        key,
        answers,
        sense_map,
        SenseOptions(**rules),
        read_instance_list(args.instances, encoding) if args.instances else None,
        read_sense_list(args.senses, encoding) if args.senses else None,
        tags=args.verbose,  # only -v prints the tags
    )
    signature = ""
    if args.json:  # the stages' signature: the same digests of the same files
        files = {
            "key": args.key,
            "answers": args.answers,
            "sense_map": args.sense_map,
            "instances": args.instances,
            "senses": args.senses,
        }
        signature = senseval_signature(rules, {name: _digest(path) for name, path in files.items()})
    return _Scored(totals_table(scored.instances), scored.instances, scored.unscored, warnings, signature)


#: glibc's mallopt parameters (malloc.h): M_TRIM_THRESHOLD, M_MMAP_THRESHOLD.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def _keep_freed_memory() -> None:
    """Have C's allocator (glibc) keep the memory this process frees, for its next arrays: the scoring
    makes and drops numpy arrays of tens of megabytes, one after the other, which glibc by default
    gives back to the system (``munmap``) and asks for again, so that every new array's pages fault
    in afresh: a third of the run's time went to the system, zeroing pages. Kept, they are reused, and
    the peak is lower too. For the rest of the process (a command's); where there is no glibc
    (``mallopt``), nothing changes."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.mallopt(_M_MMAP_THRESHOLD, 1 << 30)  # arrays below 1 GiB from the heap, not mmap
        libc.mallopt(_M_TRIM_THRESHOLD, 1 << 62)  # and the heap not trimmed when they are freed
    except (OSError, AttributeError):
        pass


def _score_by_stages(args: argparse.Namespace, options: dict) -> _Scored | int:
    """Score by the Luigi stages, their artifacts in ``--store``; an exit status if they failed."""
    from pipeline.core.signature import SIGNATURE_KEY
    from tasks.cli.common import EXIT_OK, run_tasks
    from tasks.core.base import task_for
    from tasks.core.store import read_table
    from tasks.senseval.stages import senseval_spec

    spec = senseval_spec(
        Path(args.answers),
        Path(args.key),
        Path(args.sense_map) if args.sense_map else None,
        options,
        Path(args.instances) if args.instances else None,
        Path(args.senses) if args.senses else None,
    )
    report = task_for(spec, args.store)
    status = run_tasks([report], args.workers)
    if status != EXIT_OK:
        return status
    sums = read_table(report.output()["totals"])
    score = report.requires()["scored"]
    return _Scored(
        sums,
        read_table(score.output()["instances"]),
        read_table(score.output()["unscored"]),
        read_table(score.requires()["answers"].output()["warnings"]),
        sums.schema.metadata[SIGNATURE_KEY].decode(),
    )


def _rules(options: dict) -> dict:
    """The options that change a score (the signature's and :class:`SenseOptions`' fields)."""
    return {
        "granularity": options["granularity"],
        "minimal": bool(options["minimal"]),
        "policy": options["policy"],
        "unknown_senses": options["unknown_senses"],
    }


def _digest(path: str | None) -> str | None:
    """sha256 of a file's bytes (as the artifact store digests an input), None for no file."""
    if path is None:
        return None
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
