"""``iescore align``: align two transcripts or text corpora as sclite does."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from iescore.pipeline.core.corpus import read_input
from iescore.pipeline.speech.align import COST_MODELS
from iescore.pipeline.speech.glm import read_glm
from iescore.pipeline.speech.transcripts import (
    align_options,
    align_texts,
    columns_report_json,
    render_columns,
)
from iescore.tasks.core.arguments import (
    INPUT_FILE,
    OUTPUT_FILE,
    check_paths,
    seconds,
    text_encoding,
)


def align_command(args: argparse.Namespace) -> int:
    """Align two transcripts (or text corpora) and print sclite's alignment layout and totals.

    While it runs, a progress line goes to stderr every ``--progress-every`` seconds (the first one
    only once it has run that long; stdout holds the report alone).
    """
    import threading

    check_paths(
        [(o, p, INPUT_FILE) for o, p in (("--ref", args.ref), ("--hyp", args.hyp), ("--glm", args.glm))]
        + [("--json", args.json, OUTPUT_FILE)]
    )
    started = time.monotonic()
    lock = threading.Lock()
    state = {"text": "reading the inputs", "last": started}

    def say() -> None:
        with lock:
            now = time.monotonic()
            state["last"] = now
            print(f"iescore align: {state['text']} ({now - started:.0f} s)", file=sys.stderr, flush=True)

    reported = [0]

    def segment_done(done: int, total: int) -> None:
        # Segments are aligned in bulk: with --progress-every 0, a line for each segment done since
        # the last call.
        for count in range(reported[0] + 1, done + 1) if args.progress_every == 0 else (done,):
            text = f"aligned {count} of {total} segments"
            with lock:
                state["text"] = text
                due = time.monotonic() - state["last"] >= args.progress_every
            if due:
                say()
        reported[0] = done

    stop = threading.Event()

    def heartbeat() -> None:
        while not stop.wait(args.progress_every):
            say()

    ticker = threading.Thread(target=heartbeat, daemon=True) if args.progress_every > 0 else None
    if ticker is not None:
        ticker.start()
    try:
        _align(args, lock, state, segment_done)
    finally:
        stop.set()
        if ticker is not None:
            ticker.join()
    return 0  # EXIT_OK


def _align(args: argparse.Namespace, lock: object, state: dict, segment_done: Callable) -> None:
    """Read, align, and write the report and the JSON (:func:`align_command`)."""
    glm = read_glm(args.glm, args.encoding) if args.glm else None
    if glm is not None:
        # Imported here: tasks.cli.common and the store bring Luigi, which plain runs never use.
        from iescore.tasks.cli.common import warn_malformed_rules

        warn_malformed_rules(glm)
    what = "transcript" if args.input_format == "trn" else "text corpus"
    aligned = align_texts(
        read_input(args.ref, args.encoding, what),
        read_input(args.hyp, args.encoding, what),
        args.ref,
        args.hyp,
        align_options(args.cost, glm),
        args.input_format,
        args.allow_missing,
        progress=segment_done,
    )
    with lock:
        state["text"] = "writing the report"
    for piece in render_columns(aligned, args.hyp):
        sys.stdout.write(piece)
    if args.json:
        from iescore.tasks.core.files import write_text
        from iescore.tasks.core.jsontext import json_text

        write_text(args.json, json_text(columns_report_json(aligned)))


def add_align_command(commands: argparse._SubParsersAction) -> None:
    al = commands.add_parser(
        "align",
        help="align two transcripts and count word errors, as sclite does",
        description="Align each reference utterance (trn) or document (sgml) with the hypothesis one of "
        "the same id and print sclite's alignment layout (.pra) and totals (.sys) on stdout.",
    )
    al.add_argument("--ref", required=True, help="reference transcript (trn) or text corpus (sgml); required")
    al.add_argument(
        "--hyp", required=True, help="hypothesis transcript (trn) or text corpus (sgml); required"
    )
    al.add_argument(
        "-i",
        dest="input_format",
        choices=("trn", "sgml"),
        default="trn",
        help="input format: trn (one utterance a line, '(id)' at its end) or sgml documents (default: trn)",
    )
    al.add_argument(
        "--cost",
        choices=COST_MODELS,
        default="levenshtein",
        help="alignment costs: levenshtein is sclite's (substitution 4, insertion 3, deletion 3); phonetic "
        "makes substitutions cheaper between words that sound alike and fillers and fragments optional "
        "(default: levenshtein)",
    )
    al.add_argument("--glm", help="global mapping file applied to both sides before aligning (default: none)")
    al.add_argument(
        "--encoding", type=text_encoding, default="utf-8", help="encoding of the input files (default: utf-8)"
    )
    al.add_argument("--json", help="also write totals and per-segment counts as JSON here (default: none)")
    al.add_argument(
        "--allow-missing",
        action="store_true",
        help="score reference utterances the hypothesis lacks as all deletions, and count them in the "
        "report (default: off: a missing utterance is an error)",
    )
    al.add_argument(
        "--progress-every",
        type=seconds,
        default=5.0,
        metavar="SECONDS",
        help="write a progress line on stderr every SECONDS while the command runs, the first one after "
        "SECONDS (0: after every segment) (default: 5)",
    )
    al.set_defaults(handler=align_command)
