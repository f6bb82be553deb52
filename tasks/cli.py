"""The ``iescore`` command line (DESIGN.md, "Command line").

Exit status: 0 scored, 2 bad input (``file:line: what was expected`` on stderr), 1 internal error.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

from pipeline.align import COST_MODELS, AlignOptions
from pipeline.campaign import DEFAULT_OPTIONS, Campaign, read_campaign
from pipeline.corpus import decode_text, read_corpus
from pipeline.errors import InputError
from pipeline.glm import filter_lines, read_glm
from pipeline.removal import DEFAULT_PREMODIFIERS, DEFAULT_PUNCTUATION
from pipeline.report import muc_report, printable, report_summary, scores_json
from pipeline.scoring import COMPARE_MODES
from pipeline.transcripts import align_segments, corpus_segments, parse_trn, render_report, report_json
from pipeline.words import speech_optional
from tasks import runner
from tasks.arguments import (
    INPUT_DIRECTORY,
    INPUT_FILE,
    OUTPUT_DIRECTORY,
    OUTPUT_FILE,
    HelpFormatter,
    check_paths,
    check_scheduler,
    port_number,
    positive_float,
    positive_int,
)
from tasks.base import task_for
from tasks.cli_coref import add_coref_command
from tasks.cli_glm import add_glm_command
from tasks.cli_muc import add_muc_command
from tasks.graph import campaign_spec, templette_spec
from tasks.outputs import (
    board_text,
    campaign_html,
    campaign_output_paths,
    html_is_fresh,
    html_paths,
    html_recipe,
    json_text,
    score_csv_paths,
    stamp_html,
    write_campaign_outputs,
    write_leaderboard,
    write_score_csv,
)
from tasks.plan import pending_tasks
from tasks.progress import Progress, announce_stores, new_stores
from tasks.report import SIGNATURE_KEY
from tasks.store import check_store, is_s3, list_artifacts, read_table, sweep_store, write_text

EXIT_OK, EXIT_INTERNAL, EXIT_INPUT = 0, 1, 2
DEFAULT_STORE = "iescore-store"
SCHEDULER_PORT = 8082  # luigid's default
WORKERS_HELP = "Luigi workers: tasks run in parallel (1 or more)"


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except InputError as error:
        print(f"iescore: {error.render()}", file=sys.stderr)
        return EXIT_INPUT


def templette(args: argparse.Namespace) -> int:
    """Score one hypothesis template set against a reference."""
    check_paths(
        [
            ("--ref", args.ref, INPUT_FILE),
            ("--hyp", args.hyp, INPUT_FILE),
            ("--texts", args.texts, INPUT_FILE),
            ("--hyp-texts", args.hyp_texts, INPUT_FILE),
            ("--glm", args.glm, INPUT_FILE),
            ("--store", None if is_s3(args.store) else args.store, OUTPUT_DIRECTORY),
            ("--json", args.json, OUTPUT_FILE),
            ("--summary", args.summary, OUTPUT_FILE),
            ("--csv", args.csv, OUTPUT_DIRECTORY),
            *(("--csv", path, OUTPUT_FILE) for path in score_csv_paths(args.csv)),
        ]
    )
    options = dict(DEFAULT_OPTIONS)
    options.update(
        compare=args.compare,
        unscored=args.unscored.split(",") if args.unscored else [],
        case_sensitive=args.case_sensitive,
        beta=args.beta,
        encoding=args.encoding,
        unsegmented=args.unsegmented,
        glm=args.glm,
        cost=args.cost,
        premodifiers=[w for w in args.premodifiers.split(",") if w],
        punctuation=args.punctuation,
    )
    spec = templette_spec(
        Path(args.ref),
        Path(args.hyp),
        Path(args.texts) if args.texts else None,
        Path(args.hyp_texts) if args.hyp_texts else None,
        options,
    )
    check_store(args.store, "--store")
    report = task_for(spec, args.store)
    status = _run([report], args.workers)
    if status != EXIT_OK:
        return status
    scores = read_table(report.output()["scores"])
    signature = scores.schema.metadata[SIGNATURE_KEY].decode()
    sys.stdout.write(muc_report(scores, signature, title="iescore templette"))
    mapping = read_table(report.requires()["scored"].output()["mapping"])
    if args.json:
        write_text(args.json, json_text(scores_json(scores, signature)))
    if args.csv:
        write_score_csv(Path(args.csv), scores, mapping)
    if args.summary:
        write_text(args.summary, report_summary(mapping))
    return EXIT_OK


def campaign(args: argparse.Namespace) -> int:
    """Score every system of a campaign file in one graph; print the leaderboard, write the outputs."""
    check_paths([("CAMPAIGN", args.campaign, INPUT_FILE)])
    if args.scheduler_port is not None and not args.scheduler_host:
        raise InputError(
            "--scheduler-port", 0, "needs --scheduler-host (without a host the local scheduler runs)"
        )
    parsed = read_campaign(args.campaign)
    store = str(args.store or parsed.store or (parsed.source.parent / DEFAULT_STORE))
    check_store(store, *(("--store", 0) if args.store else (str(parsed.source), parsed.store_line)))
    output = Path(args.out) if args.out else parsed.output
    # The page goes to --html and, with an output directory, to its report.html too.
    pages = [Path(args.html)] if args.html else []
    if output and not (pages and pages[0].resolve() == (output / "report.html").resolve()):
        pages.append(output / "report.html")
    _check_campaign_paths(args, parsed, store, output, pages)
    summary_spec, report_specs = campaign_spec(parsed)
    summary = task_for(summary_spec, store)
    reports = {name: task_for(spec, store) for name, spec in report_specs.items()}
    roots = {**{printable(name): task for name, task in reports.items()}, "campaign": summary}
    if args.dry_run:
        pending, total = pending_tasks(roots, reference=parsed.reference_files)
        sys.stdout.write(plan_text(pending, total))
        return EXIT_OK
    for path in sweep_store(store):
        print(f"iescore: removed a killed run's temporary file {path}", file=sys.stderr)
    if args.scheduler_host:
        check_scheduler(args.scheduler_host, args.scheduler_port or SCHEDULER_PORT)
    progress = None
    if args.progress != "none" or args.tasks_log:
        pending, _ = pending_tasks(roots, explain=False, reference=parsed.reference_files)
        labels = {p.task.task_id: p.label for p in pending}
        bar = None if args.progress == "auto" else args.progress == "bar"
        progress = Progress(len(pending), labels, bar=bar)
        if args.progress == "none" or (args.progress == "auto" and not progress.bar):
            progress.stream = io.StringIO()  # not shown (only timed for the tasks log)
    status, outcome = _run_outcome(
        [summary], args.workers, args.scheduler_host, args.scheduler_port, progress
    )
    if args.tasks_log:
        log = {
            "ran": outcome.ran,
            "reused": outcome.reused,
            "elsewhere": outcome.elsewhere,
            # Seconds inside tasks' run (all workers of this process), and the run's wall time.
            "task_seconds": round(progress.task_seconds, 3) if progress else None,
            "wall_seconds": round(time.monotonic() - progress.started, 3) if progress else None,
        }
        write_text(args.tasks_log, json_text(log))
    if status != EXIT_OK:
        return status
    board = read_table(summary.output()["leaderboard"])
    significance = read_table(summary.output()["significance"])
    sys.stdout.write(board_text(board, significance))
    write_leaderboard(board, significance, args.json, args.csv)
    if output:
        write_campaign_outputs(output, board, significance, reports)
    page = None
    for html in pages:
        if not html_is_fresh(html, html_recipe(parsed, summary)):
            page = page or campaign_html(parsed, summary, reports)
            write_text(html, page)
            stamp_html(html, html_recipe(parsed, summary))
    return EXIT_OK


def _check_campaign_paths(
    args: argparse.Namespace, parsed: Campaign, store: str, output: Path | None, pages: list[Path]
) -> None:
    """Every path the campaign reads or writes, checked before the graph is built."""
    in_file = f"in {parsed.source.name}"
    store_option = "--store" if args.store else (f"store {in_file}" if parsed.store else "default store")
    output_option = "--out" if args.out else f"output {in_file}"
    checks = [
        (store_option, None if is_s3(store) else Path(store), OUTPUT_DIRECTORY),
        ("--json", args.json, OUTPUT_FILE),
        ("--csv", args.csv, OUTPUT_FILE),
        ("--tasks-log", args.tasks_log, OUTPUT_FILE),
    ]
    if output is not None:
        checks += [(output_option, path, kind) for path, kind in campaign_output_paths(output, parsed)]
    for page in pages:
        option = "--html" if args.html and page == Path(args.html) else output_option
        checks += [(option, path, OUTPUT_FILE) for path in html_paths(page)]
    check_paths(checks)


def plan_text(pending: list, total: int) -> str:
    """``--dry-run``: the tasks that would run, dependencies first, each with its reason."""
    lines = [f"would run {len(pending)} of {total} tasks"]
    for item in pending:
        lines.append(f"  {item.stage:<20} {item.task.key[:12]}  {item.label}: {item.reason}")
    return "\n".join(lines) + "\n"


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

    def segment_done(done: int, total: int) -> None:
        text = f"aligned {done} of {total} segments"
        with lock:
            state["text"] = text
            due = time.monotonic() - state["last"] >= args.progress_every
        if due:
            say()

    stop = threading.Event()

    def heartbeat() -> None:
        while not stop.wait(args.progress_every):
            say()

    ticker = threading.Thread(target=heartbeat, daemon=True) if args.progress_every > 0 else None
    if ticker is not None:
        ticker.start()
    try:
        glm = read_glm(args.glm, args.encoding) if args.glm else None
        # Plain sclite (levenshtein) counts every word; with phonetic costs fillers and fragments are
        # optional words (seed 000, noisy data).
        options = AlignOptions(args.cost, glm, speech_optional if args.cost == "phonetic" else None)
        if args.input_format == "trn":
            refs, hyps = (
                parse_trn(
                    _glm_text(decode_text(Path(p).read_bytes(), p, args.encoding), glm),
                    p,
                    optional_words=options.optional is not None,
                )
                for p in (args.ref, args.hyp)
            )
        else:
            refs = corpus_segments(read_corpus(args.ref, args.encoding), options, reference=True)
            hyps = corpus_segments(read_corpus(args.hyp, args.encoding), options)
        with lock:
            state["text"] = f"aligned 0 of {len(refs)} segments"
        segments = align_segments(
            refs, hyps, options, args.ref, args.hyp, args.allow_missing, progress=segment_done
        )
        with lock:
            state["text"] = "writing the report"
        sys.stdout.write(render_report(segments, args.hyp))
        if args.json:
            write_text(args.json, json_text(report_json(segments)))
    finally:
        stop.set()
        if ticker is not None:
            ticker.join()
    return EXIT_OK


def _glm_text(text: str, glm: object | None) -> str:
    """A trn file rewritten by the GLM line by line, utterance ids untouched (as csrfilt -i trn)."""
    if glm is None:
        return text
    return "".join(filter_lines(glm, text.splitlines(keepends=True), input_format="trn"))


def artifacts(args: argparse.Namespace) -> int:
    """List a store's artifacts with their stage, key, rows and inputs."""
    check_store(args.store, "store")
    if not is_s3(args.store):
        check_paths([("STORE", args.store, INPUT_DIRECTORY)])
    for entry in list_artifacts(args.store):
        inputs = ", ".join(f"{role}={key[:12]}" for role, key in sorted(entry.get("inputs", {}).items()))
        print(f"{entry.get('stage', '?'):20} {entry.get('key', '?')[:16]} rows={entry['rows']:<7} {inputs}")
        print(f"{'':20} {entry['path']}")
    return EXIT_OK


# --- helpers -------------------------------------------------------------------------------------


def _run(tasks: list, workers: int, host: str | None = None, port: int | None = None) -> int:
    return _run_outcome(tasks, workers, host, port)[0]


def _run_outcome(
    tasks: list,
    workers: int,
    host: str | None = None,
    port: int | None = None,
    progress: Progress | None = None,
) -> tuple[int, runner.Outcome]:
    created = new_stores(tasks)
    outcome = runner.run(tasks, workers=workers, scheduler_host=host, scheduler_port=port, progress=progress)
    for message in dict.fromkeys(outcome.input_errors):  # two tasks reading one bad file: one line
        print(f"iescore: {message}", file=sys.stderr)
    for message in outcome.errors:
        print(f"iescore: internal error:\n{message}", file=sys.stderr)
    if outcome.errors:
        return EXIT_INTERNAL, outcome
    if outcome.input_errors:
        return EXIT_INPUT, outcome
    announce_stores(created)
    return EXIT_OK, outcome


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="iescore", description=__doc__, formatter_class=HelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)

    t = commands.add_parser("templette", help="score a HUB-4 templette hypothesis (seed 000)")
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
    t.add_argument("--encoding", default="utf-8", help="encoding of the input files (e.g. latin-1)")
    t.add_argument("--store", default=DEFAULT_STORE, help="artifact store: a directory or s3://BUCKET/PREFIX")
    t.add_argument("--json", help="write the scores as JSON here")
    t.add_argument("--csv", help="write score tables and the mapping as CSV files into this directory")
    t.add_argument("--summary", help="write the report summary (every fill pairing) here")
    t.add_argument("--workers", type=positive_int, default=1, help=WORKERS_HELP)
    t.set_defaults(handler=templette)

    c = commands.add_parser("campaign", help="score every system of a campaign file")
    c.add_argument("campaign", help="campaign file (TOML)")
    c.add_argument(
        "--store",
        help="artifact store, a directory or s3://BUCKET/PREFIX (default: the file's 'store', else "
        "iescore-store beside it)",
    )
    c.add_argument("--workers", type=positive_int, default=1, help=WORKERS_HELP)
    c.add_argument("--scheduler-host", help="Luigi central scheduler host (default: local scheduler)")
    c.add_argument(
        "--scheduler-port",
        type=port_number,
        help=f"Luigi central scheduler port, with --scheduler-host (default: {SCHEDULER_PORT})",
    )
    c.add_argument("--json", help="write the leaderboard and significance tests as JSON here")
    c.add_argument("--csv", help="write the leaderboard as CSV here")
    c.add_argument(
        "--out", help="write every output here (default: the file's 'output'): tables, report, HTML"
    )
    c.add_argument(
        "--html", help="write the self-contained HTML report here (with --out, also as report.html there)"
    )
    c.add_argument("--dry-run", action="store_true", help="list what would run and why; run nothing")
    c.add_argument(
        "--progress",
        choices=("auto", "bar", "lines", "none"),
        default="auto",
        help="progress on stderr: a bar on a terminal (auto), always a bar, one line a task, or none",
    )
    c.add_argument("--tasks-log", help="write which tasks ran, were reused or ran elsewhere (JSON)")
    c.set_defaults(handler=campaign)

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
    al.add_argument("--encoding", default="utf-8", help="encoding of the input files (default: utf-8)")
    al.add_argument("--json", help="also write totals and per-segment counts as JSON here (default: none)")
    al.add_argument(
        "--allow-missing",
        action="store_true",
        help="score reference utterances the hypothesis lacks as all deletions, and count them in the "
        "report (default: off: a missing utterance is an error)",
    )
    al.add_argument(
        "--progress-every",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="write a progress line on stderr every SECONDS while the command runs, the first one after "
        "SECONDS (0: after every segment) (default: 5)",
    )
    al.set_defaults(handler=align_command)

    add_glm_command(commands)
    add_muc_command(commands)
    add_coref_command(commands)

    a = commands.add_parser("artifacts", help="list the artifacts of a store")
    a.add_argument("store", help="artifact store: a directory or s3://BUCKET/PREFIX")
    a.set_defaults(handler=artifacts)
    for command in commands.choices.values():
        command.formatter_class = HelpFormatter
    return parser


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
