"""A campaign's outputs outside the store: leaderboard, significance, HTML report, every system's tables.

Layout of the output directory::

    leaderboard.txt  leaderboard.csv  leaderboard.json  significance.csv  report.html
    systems/index.csv                        system name -> its directory
    systems/<slug>-<digest>/report.txt       the MUC-layout score report
    systems/<slug>-<digest>/scores.json      as ``iescore templette --json``
    systems/<slug>-<digest>/{totals,by_type,by_slot,by_document,objects,mapping}.csv

A MUC campaign writes the same files (its Report and MapAndScore are the MUC scorer's); a coreference
campaign's systems have ``report.txt`` (as ``iescore coref``), ``scores.json`` (as ``iescore coref
--json``) and ``mentions.csv`` (every mention of key and response with its chains, ``COREF_MENTIONS``).

System names are labels: each system's directory is ``pipeline.campaign.engine.output_name(name)``, which
cannot leave ``systems/``. Every file is written atomically.

Units (README, "Units"): in every file written here, as on stdout, measures (REC PRE F UND OVG SUB ERR,
their interval ends) are percentages 0-100 and the significance's ``delta`` is in percentage points;
p-values are probabilities 0-1; counts and offsets are integers (never ``3.0``); undefined is JSON
``null`` or an empty CSV cell. The artifacts in the store keep fractions of 1 (schemas/).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import io
import math
import multiprocessing
import pickle
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import coref
from pipeline.campaign.engine import (
    MAPPING_VIEW_COLUMNS,
    Campaign,
    PageRows,
    board_order,
    board_rows,
    coref_leaderboard_text,
    coref_report_data,
    family_leaderboard_text,
    is_coref_board,
    is_family_board,
    kind_report_data,
    mapping_view,
    output_name,
    page_rows,
    point_categories,
    report_data,
    shown_documents,
)
from pipeline.campaign.html_report import render_campaign_html
from pipeline.core.kinds import CampaignKind
from pipeline.core.lazy import pd
from pipeline.core.signature import SIGNATURE_KEY
from pipeline.templette.report import leaderboard_text, muc_report, scores_json
from schemas import COREF_BOARD_MEASURES, COUNT_COLUMNS, INTERVAL_COLUMNS, MEASURE_COLUMNS, PAGE_VIEW, C
from tasks.campaign.kinds import TASK_KINDS, TaskKind
from tasks.core import store as artifacts
from tasks.core.arguments import OUTPUT_DIRECTORY, OUTPUT_FILE
from tasks.core.base import Stage
from tasks.core.jsontext import json_text  # noqa: F401 (re-exported: the commands' JSON)
from tasks.core.store import read_table, write_text
from tasks.muc.stages import DUPLICATES_KEY

# A system's folder (and the HTML page) records the key of the artifact it was made from: a rerun
# rewrites only what changed, so one resubmission does not rewrite a hundred systems' tables.
STAMP = ".iescore-source"
SYSTEM_FILES = ("report.txt", "scores.json", "totals.csv", "by_type.csv", "by_slot.csv", "by_document.csv",
                "objects.csv", "mapping.csv")  # fmt: skip
COREF_SYSTEM_FILES = ("report.txt", "scores.json", "mentions.csv")
# Every system of a registered kind's campaign gets its statistics table (schemas.STATISTICS) as CSV.
KIND_STATISTICS_FILE = "statistics.csv"
SCORE_FILES = {
    "total": ("totals", []),
    "type": ("by_type", [C.instance_type]),
    "slot": ("by_slot", [C.instance_type, C.slot]),
    "document": ("by_document", [C.doc_id]),
    "object": ("objects", [C.instance_type]),
}
CAMPAIGN_FILES = ("leaderboard.txt", "leaderboard.json", "leaderboard.csv", "significance.csv")


def score_csv_paths(folder: str | Path | None) -> list[Path]:
    """The files ``write_score_csv`` writes into ``folder`` (none when there is no folder)."""
    if folder is None:
        return []
    return [Path(folder) / f"{name}.csv" for name, _ in SCORE_FILES.values()] + [Path(folder) / "mapping.csv"]


def campaign_output_paths(directory: Path, campaign: Campaign) -> list[tuple[Path, str]]:
    """Every path ``write_campaign_outputs`` writes under ``directory``, with its kind, to check first."""
    paths = [(directory, OUTPUT_DIRECTORY), (directory / "systems", OUTPUT_DIRECTORY)]
    paths += [(directory / name, OUTPUT_FILE) for name in CAMPAIGN_FILES]
    paths.append((directory / "systems" / "index.csv", OUTPUT_FILE))
    files = _system_files(campaign)
    for system in campaign.systems:
        folder = directory / "systems" / output_name(system.name)
        paths.append((folder, OUTPUT_DIRECTORY))
        paths += [(folder / name, OUTPUT_FILE) for name in (*files, STAMP)]
    return paths


def _system_files(campaign: Campaign) -> tuple[str, ...]:
    if campaign.kind is not None:
        return (*TASK_KINDS[campaign.scorer].system_files, KIND_STATISTICS_FILE)
    return COREF_SYSTEM_FILES if campaign.scorer == "coref" else SYSTEM_FILES


def html_paths(path: Path) -> list[Path]:
    """The page and the stamp beside it (see ``stamp_html``)."""
    return [path, _html_stamp(path)]


# Columns of fractions of 1 in the artifacts that the output files show as percentages (see Units above).
PERCENT_COLUMNS = (
    *MEASURE_COLUMNS,
    *INTERVAL_COLUMNS,
    C.delta,
    *COREF_BOARD_MEASURES,
    *(f"{C.CoNLL_F1}_{end}" for end in ("low", "high")),
)


def board_text(board: pa.Table, significance: pa.Table, kind: CampaignKind | None = None) -> str:
    """The leaderboard as printed: the templette (and MUC) layout, the coreference one, or a registered
    kind's (``kind``)."""
    if kind is not None and is_family_board(board):
        return family_leaderboard_text(kind, board, significance)
    if is_coref_board(board):
        return coref_leaderboard_text(board, significance)
    return leaderboard_text(board, significance)


def leaderboard_json(board: pa.Table, significance: pa.Table) -> dict[str, Any]:
    """``{"leaderboard": [rows], "significance": [pairs]}``: measures, interval ends and ``delta`` in
    percent (0-100), p-values 0-1, null where undefined. A registered kind's board is one row per system
    (``board_rows``) and keeps its family's units (fractions of 1, as the family's command prints them)."""
    if is_family_board(board):
        return {"leaderboard": board_rows(board), "significance": significance.to_pylist()}
    return {
        "leaderboard": _in_percent(board).to_pylist(),
        "significance": _in_percent(significance).to_pylist(),
    }


def write_leaderboard(
    board: pa.Table, significance: pa.Table, json_path: str | Path | None, csv_path: str | Path | None
) -> None:
    if json_path:
        write_text(json_path, json_text(leaderboard_json(board, significance)))
    if csv_path:
        if is_family_board(board):
            write_text(csv_path, pd.DataFrame(board_rows(board)).to_csv(index=False))
        else:
            write_text(csv_path, _csv(_in_percent(board)))


def write_campaign_outputs(
    directory: Path,
    board: pa.Table,
    significance: pa.Table,
    reports: Mapping[str, Any],
    kind: CampaignKind | None = None,
    workers: int = 1,
    page: Callable[[], None] | None = None,
    claim: Callable[[], bool] | None = None,
) -> None:
    """Write the output directory from the artifacts (``reports``: system name -> its Report task, or
    the task a registered ``kind``'s system runs). The systems whose files are not fresh, and ``page``
    (what writes the HTML page, when it is to be written), are run by up to ``workers`` processes (each
    system's files are its own: the same files in any order); then this one writes the campaign's own
    files (``write_campaign_files``), unless ``claim`` says another process took them (the page's,
    ``PageRun.claim``)."""
    family = is_family_board(board)
    jobs = [] if page is None else [(page,)]
    for name, report in reports.items():
        folder = directory / "systems" / output_name(name)
        if family:
            files = (*TASK_KINDS[_kind_of(report)].system_files, KIND_STATISTICS_FILE)
        else:
            files = COREF_SYSTEM_FILES if report.STAGE == "ScoreCorefResponse" else SYSTEM_FILES
        if not _fresh(folder / STAMP, report.key, [folder / f for f in files]):
            jobs.append((_write_system_folder, folder, report, family))
    with in_processes(jobs, workers):
        pass  # the jobs are the block's work: they run as it is left
    if claim is None or claim():
        write_campaign_files(directory, board, significance, list(reports), kind)


def write_campaign_files(
    directory: Path, board: pa.Table, significance: pa.Table, systems: list[str], kind: CampaignKind | None
) -> None:
    """The campaign's own files: leaderboard.txt, .json and .csv, significance.csv, systems/index.csv."""
    write_text(directory / "leaderboard.txt", board_text(board, significance, kind))
    write_leaderboard(board, significance, directory / "leaderboard.json", directory / "leaderboard.csv")
    pairs = significance if is_family_board(board) else _in_percent(significance)
    write_text(directory / "significance.csv", _csv(pairs))
    index = [{"system": name, "directory": f"systems/{output_name(name)}"} for name in systems]
    write_text(directory / "systems" / "index.csv", _csv(pa.Table.from_pylist(index)))


def _write_system_folder(folder: Path, report: Stage, kind: bool) -> None:
    """One system's files, then its stamp (the files are complete before the stamp says so)."""
    if kind:
        write_kind_files(folder, report, TASK_KINDS[_kind_of(report)])
    elif report.STAGE == "ScoreCorefResponse":
        write_coref_tables(folder, report)
    else:
        write_system_tables(folder, report)
    write_text(folder / STAMP, report.key + "\n")


@contextlib.contextmanager
def in_processes(jobs: list[tuple[Any, ...]], workers: int) -> Iterator[None]:
    """Each job ``(function, *arguments)`` run once, taken in order by ``workers`` processes (at most one
    a job): this one, once the block has run, and the others forked from the start. With one worker,
    one job (or no fork) the jobs run here after the block. An exception of the block or of any job is
    raised here (the block's first, then this process's jobs', then the forked ones').

    The jobs reach the forked processes by the fork itself (a campaign's tasks carry their whole specs:
    not worth pickling); each process takes the next job not yet taken (a shared counter).
    """
    if len(jobs) <= 1 or workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield
        for function, *arguments in jobs:
            function(*arguments)
        return
    context = multiprocessing.get_context("fork")
    taken = context.Value("q", 0)  # how many jobs have been taken, under its lock
    failures, failure_end = context.Pipe(duplex=False)  # what a forked process sends when it fails
    processes = [
        context.Process(target=_forked_worker, args=(jobs, taken, failure_end))
        for _ in range(min(workers, len(jobs)) - 1)
    ]
    # As before Luigi's forks (tasks.core.runner): the forked processes need not copy the heap.
    gc.freeze()
    try:
        for process in processes:
            process.start()
    finally:
        gc.unfreeze()
    try:
        yield
        _take_jobs(jobs, taken)
    finally:
        failed_here = sys.exc_info()[0] is not None
        for process in processes:
            if failed_here and process.is_alive():
                process.terminate()  # the run fails: the other processes' work is not wanted
            process.join()
    if failures.poll():
        raise pickle.loads(failures.recv_bytes())
    for process in processes:
        if process.exitcode != 0:
            raise RuntimeError(f"a process writing the campaign's outputs ended with {process.exitcode}")


def _take_jobs(jobs: list[tuple[Any, ...]], taken: Any) -> None:
    while True:
        with taken.get_lock():
            index = taken.value
            taken.value += 1
        if index >= len(jobs):
            return
        function, *arguments = jobs[index]
        function(*arguments)


#: The most a forked process's failure may take in the pipe to its parent (well under a pipe's buffer,
#: so that the process ends without waiting for its parent to read).
FAILURE_BYTES = 16_384


def _forked_worker(jobs: list[tuple[Any, ...]], taken: Any, failures: Any) -> None:
    """A forked process's part of ``in_processes``: jobs until none is left. A failure goes to the
    parent: the exception itself when it pickles small, else its traceback (its ends, when long)."""
    try:
        _take_jobs(jobs, taken)
    except BaseException as error:  # noqa: BLE001 - every failure is the parent's to raise
        _send_failure(error, failures)
        sys.exit(1)


def _send_failure(error: BaseException, failures: Any) -> None:
    """``error`` sent to the parent process: itself when it pickles small, else its traceback (its ends,
    when long). Called while it is being handled."""
    try:
        sent = pickle.dumps(error)
    except Exception:  # noqa: BLE001 - an exception that cannot be pickled
        sent = b""
    if not sent or len(sent) > FAILURE_BYTES:
        text = traceback.format_exc()
        part = FAILURE_BYTES // 4
        if len(text) > 2 * part:
            text = f"{text[:part]}\n[...]\n{text[-part:]}"
        sent = pickle.dumps(RuntimeError(text))
    failures.send_bytes(sent)


class PageRun:
    """The page of a campaign run, as ``page_process`` arranges it: ``go`` once the run is done;
    ``here``, the page's writing when it is to be done in this process (None when a process of its own
    does it, or nothing is to be written); ``claim``, whether the campaign's own files are still this
    process's to write (the page's process, its page written, claims them too: the first to ask
    writes them)."""

    def __init__(self, here: Callable[[], None] | None, signal: Any = None, taken: Any = None) -> None:
        self.here, self.signal, self.started, self.taken = here, signal, False, taken

    def claim(self) -> bool:
        return _claim(self.taken)

    def go(self) -> None:
        if self.signal is not None:
            self.signal.send_bytes(b"go")
            self.started = True


@contextlib.contextmanager
def page_process(
    pages: list[Path],
    campaign: Campaign,
    summary: Stage,
    reports: Mapping[str, Stage],
    workers: int,
    output: Path | None = None,
    early: bool = False,
) -> Iterator[PageRun]:
    """The pages (``pages``, those to write) made by a process of their own, forked now, before the run:
    while the run goes on it reads each system's part (its scores and view) once that system's report is
    done, then waits; told ``go`` it reads the summary's tables and writes the pages, while this process
    writes the systems' files; the campaign's own files in the output directory ``output`` (when given:
    ``write_campaign_files``) are written by whichever of the two is done first (``PageRun.claim``).
    Leaving the block waits for it (its failure is raised here);
    leaving without ``go`` stops it. With one worker (or no fork) there is no such process:
    ``PageRun.here`` writes the pages.

    A campaign's rerun after one system changed spends its time on one core, that system's chain and
    the summary (``early``: the run is one chain, run in this process); the other core reads the other
    systems' parts of the page meanwhile, and that system's once its chain is done, then makes the
    per-document view (``PageSources.prepare``) while the summary is computed. In a run of several
    chains every worker is busy, and the view made beside the summary would add to the run's peak
    memory (120 MiB of 930 at 100 systems): it is made after the run.
    """
    here = (lambda: write_pages(pages, campaign, summary, reports)) if pages else None
    if not pages or workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield PageRun(here)
        return
    context = multiprocessing.get_context("fork")
    signal_end, signal = context.Pipe(duplex=False)
    failures, failure_end = context.Pipe(duplex=False)
    taken = context.Value("b", 0)  # the campaign's own files claimed (``_claim``)
    process = context.Process(
        target=_page_worker,
        args=(pages, campaign, summary, reports, output, early, taken, signal_end, failure_end),
    )
    gc.freeze()  # as before every fork here: the process need not copy the heap
    try:
        process.start()
    finally:
        gc.unfreeze()
    # The other outputs keep every worker (this process is one): the page's process waits through most
    # of the run, and a first run's page takes seconds beside its files' minute.
    run = PageRun(None, signal, taken if output is not None else None)
    try:
        yield run
    finally:
        if not run.started or sys.exc_info()[0] is not None:
            with contextlib.suppress(OSError):
                signal.send_bytes(b"stop")
            if sys.exc_info()[0] is not None and process.is_alive():
                process.terminate()
        process.join()
    if failures.poll():
        raise pickle.loads(failures.recv_bytes())
    if run.started and process.exitcode != 0:
        raise RuntimeError(f"the process writing the campaign's page ended with {process.exitcode}")


def _claim(taken: Any) -> bool:
    """Whether the caller is the first of the processes sharing ``taken`` to claim it (always, alone)."""
    if taken is None:
        return True
    with taken.get_lock():
        first = taken.value == 0
        taken.value = 1
    return first


#: How often the page's process looks again, while the run goes on, for systems whose reports are done.
WATCH_SECONDS = 0.02


def _page_worker(
    pages: list[Path],
    campaign: Campaign,
    summary: Stage,
    reports: Mapping[str, Stage],
    output: Path | None,
    early: bool,
    taken: Any,
    signal: Any,
    failures: Any,
) -> None:
    """The page's process: reads each system's part of the page as soon as its report is done (those
    done before the run at once; in a local store, the others as the run makes them), and with
    ``early`` makes the per-document view once all are read; then, told ``go``, the rest, and writes
    the pages, then the campaign's own files in ``output`` unless the command's process claimed them
    first (``taken``)."""
    try:
        sources = PageSources(campaign, summary, reports)
        waiting = list(reports)
        while True:
            done = [name for name in waiting if reports[name].complete()]
            if done:
                sources.read(done)
                waiting = [name for name in waiting if name not in done]
                if not waiting and early:
                    sources.prepare()  # while the summary is computed
            # An S3 store is looked at once: each look is a request per system.
            if signal.poll(WATCH_SECONDS if waiting and not artifacts.is_s3(summary.store) else None):
                break
        if signal.recv_bytes() != b"go":
            return
        write_pages(pages, campaign, summary, reports, sources)
        if output is not None and _claim(taken):
            board = read_table(summary.output()["leaderboard"])
            significance = read_table(summary.output()["significance"])
            write_campaign_files(output, board, significance, list(reports), campaign.kind)
    except EOFError:
        return  # the parent is gone: no page is wanted
    except BaseException as error:  # noqa: BLE001 - every failure is the parent's to raise
        _send_failure(error, failures)
        sys.exit(1)


def write_pages(
    pages: list[Path],
    campaign: Campaign,
    summary: Stage,
    reports: Mapping[str, Stage],
    sources: PageSources | None = None,
) -> None:
    """The campaign's page written to each of ``pages`` that was not made from this run's artifacts, and
    stamped (see ``stamp_html``); ``sources``, what was read of it already."""
    recipe = html_recipe(campaign, summary)
    page = None
    for path in pages:
        if not html_is_fresh(path, recipe):
            page = page or (sources or PageSources(campaign, summary, reports)).render()
            write_text(path, page)
            stamp_html(path, recipe)


def html_recipe(campaign: Campaign, summary: Stage) -> str:
    """What the page is made from: the summary's key, the document limit and the title's file name."""
    return f"{summary.key} {campaign.options['html_documents']} {campaign.source.name}"


def html_is_fresh(path: Path, recipe: str) -> bool:
    """The page at ``path`` was made from ``recipe`` (see ``stamp_html``)."""
    return _fresh(_html_stamp(path), recipe, [path])


def stamp_html(path: Path, recipe: str) -> None:
    write_text(_html_stamp(path), recipe + "\n")


def _html_stamp(path: Path) -> Path:
    return path.with_name(f".{path.name}{STAMP}")


def _fresh(stamp: Path, key: str, files: list[Path]) -> bool:
    try:
        return stamp.read_text(encoding="utf-8").strip() == key and all(f.is_file() for f in files)
    except FileNotFoundError:
        return False


def _kind_of(task: Stage) -> str:
    """The kind of a system's task: the TaskKind whose specs build tasks of its stage."""
    for name, tasks in TASK_KINDS.items():
        if tasks.stage == task.STAGE:
            return name
    raise RuntimeError(f"no campaign kind runs stage {task.STAGE}")


def write_kind_files(folder: Path, task: Stage, tasks: TaskKind) -> None:
    """A registered kind's system files: its own (``TaskKind.write_system_files``) and statistics.csv."""
    if tasks.write_system_files is not None:
        folder.mkdir(parents=True, exist_ok=True)
        tasks.write_system_files(folder, task)
    write_text(folder / KIND_STATISTICS_FILE, _csv(read_table(task.output()["statistics"])))


def write_system_tables(folder: Path, report: Any) -> None:
    """One system's score report, JSON and CSV tables, from its Report and MapAndScore artifacts."""
    scores = read_table(report.output()["scores"])
    signature = scores.schema.metadata[SIGNATURE_KEY].decode()
    write_text(folder / "report.txt", muc_report(scores, signature, title="iescore campaign"))
    write_text(folder / "scores.json", json_text(scores_json(scores, signature)))
    write_score_csv(folder, scores, read_table(report.requires()["scored"].output()["mapping"]))


def write_coref_tables(folder: Path, scored: Any) -> None:
    """One coreference system's report, JSON and mentions, from its ScoreCorefResponse's ``mentions``
    (every score of ``iescore coref`` follows from that table:
    ``pipeline.coref.scores_from_table``)."""
    mentions = read_table(scored.output()["mentions"])
    duplicates = int(mentions.schema.metadata.get(DUPLICATES_KEY, b"0"))
    scores = coref.scores_from_table(mentions.to_pandas(), duplicates, metrics=coref.METRICS)
    signature = mentions.schema.metadata[SIGNATURE_KEY].decode()
    write_text(folder / "report.txt", coref.score_report(scores, title=f"iescore campaign\n{signature}"))
    write_text(folder / "scores.json", json_text({**coref.scores_json(scores), "signature": signature}))
    write_text(folder / "mentions.csv", _csv(mentions))


def write_score_csv(folder: Path, scores: pa.Table, mapping: pa.Table) -> None:
    """``totals by_type by_slot by_document objects mapping`` as CSV files in ``folder``.

    Measures are percentages (0-100), as in ``--json``; counts and offsets are integers.
    """
    table = _in_percent(scores)
    for scope, (name, keys) in SCORE_FILES.items():
        part = table.filter(pc.equal(table.column(C.scope), scope))
        part = part.select(keys + list(COUNT_COLUMNS) + list(MEASURE_COLUMNS))
        write_text(folder / f"{name}.csv", _csv(part))
    # The points as their categories' text before pandas sees them (not a Python list of dicts per row).
    points = pa.array(point_categories(mapping.column(C.points)), pa.string())
    index = mapping.schema.get_field_index(C.points)
    write_text(folder / "mapping.csv", _csv(mapping.set_column(index, C.points, points)))


def campaign_html(campaign: Campaign, summary: Stage, reports: Mapping[str, Stage]) -> str:
    """The campaign's self-contained HTML page, from the artifacts of a finished run."""
    return PageSources(campaign, summary, reports).render()


class PageSources:
    """What the page is made from, read in two steps: ``read`` takes the systems whose artifacts are
    done (their scores and per-document views), ``render`` reads what is left, the summary's tables
    last, and makes the page. A process that starts before the run reads what the run does not
    change while the run goes on (``page_process``)."""

    def __init__(self, campaign: Campaign, summary: Stage, reports: Mapping[str, Stage]) -> None:
        self.campaign, self.summary, self.reports = campaign, summary, reports
        self.scores: dict[str, pa.Table] = {}
        self.mappings: dict[str, pa.Table] = {}
        self.views: dict[str, pa.Table] = {}
        self.documents: pa.Table | None = None
        self.muc = campaign.muc_config
        self.spans = {system.name: system.texts is None and self.muc is None for system in campaign.systems}
        self.templette = campaign.kind is None and campaign.scorer != "coref"
        self.started = False
        self.page: PageRows | None = None

    def read(self, names: list[str]) -> None:
        """The scores and views of the systems ``names`` (a templette or MUC campaign's; nothing for the
        others, whose pages are read whole by ``render``)."""
        if not self.templette:
            return
        if not self.started:
            # Every system's chain reads the reference corpus: the first system's chain has it (a walk
            # of a few tasks, not of the whole graph).
            corpus = _reference_corpus(next(iter(self.reports.values()), self.summary), self.campaign)
            if corpus is None and self.reports:
                corpus = _reference_corpus(self.summary, self.campaign)
            if corpus is not None:
                if not corpus.complete():
                    return  # the run makes it (a first run): everything is read after the run
                self.documents = read_table(corpus.output()["documents"])
            self.started = True
        for name in names:
            if name in self.scores:
                continue
            report = self.reports[name]
            self.scores[name] = read_table(report.output()["scores"])
            # Without the reference texts the documents shown depend on every mapping's documents.
            self.mappings[name] = (
                read_table(report.requires()["scored"].output()["mapping"], [C.doc_id])
                if self.documents is None
                else pa.table({C.doc_id: pa.array([], pa.string())})
            )
            if self.documents is not None:
                self.views[name] = self._view(name, self._shown([]))

    def _shown(self, doc_ids: list[str]) -> list[str]:
        return shown_documents(self.documents, doc_ids, int(self.campaign.options["html_documents"]))

    def _view(self, name: str, shown: list[str]) -> pa.Table:
        report = self.reports[name]
        scored = report.requires()["scored"]
        return page_view(self.summary.store, scored, shown, self.spans.get(name, False), self.muc is not None)

    def prepare(self) -> None:
        """The per-document view (``page_rows``) and its JSON, once every system's part is read (a
        templette or MUC campaign's): its systems in the order the summary will rank them, which follows
        from their scores (``board_order``), so a page's process makes it while the summary is computed.
        Should the leaderboard's order differ, the page makes the JSON again (``CampaignReport.embedded``).
        """
        if (
            not self.templette
            or self.page is not None
            or any(name not in self.scores for name in self.reports)
        ):
            return
        if self.documents is None:
            shown = self._shown([d for m in self.mappings.values() for d in m.column(C.doc_id).to_pylist()])
            self.views = {name: self._view(name, shown) for name in self.reports}
        page = page_rows(
            {name: self.mappings[name] for name in self.reports},
            self.documents,
            self.spans,
            int(self.campaign.options["html_documents"]),
            objects=self.muc is not None,
            given_views={name: self.views[name] for name in self.reports},
        )
        self.page = page.with_embedded(board_order({name: self.scores[name] for name in self.reports}))

    def render(self) -> str:
        """The page, once the run is done."""
        campaign, summary, reports, options = self.campaign, self.summary, self.reports, self.campaign.options
        if campaign.kind is not None:
            statistics = {name: read_table(task.output()["statistics"]) for name, task in reports.items()}
            return render_campaign_html(
                kind_report_data(
                    campaign.kind,
                    f"iescore campaign: {campaign.source.name}",
                    read_table(summary.output()["leaderboard"]),
                    read_table(summary.output()["significance"]),
                    statistics,
                    int(options["resamples"]),
                    int(options["seed"]),
                )
            )
        if campaign.scorer == "coref":
            mentions = {name: read_table(task.output()["mentions"]) for name, task in reports.items()}
            data = coref_report_data(
                f"iescore campaign: {campaign.source.name}",
                read_table(summary.output()["leaderboard"]),
                read_table(summary.output()["significance"]),
                mentions,
                int(options["html_documents"]),
                int(options["resamples"]),
                int(options["seed"]),
            )
            return render_campaign_html(data)
        self.read(list(reports))
        self.prepare()
        data = report_data(
            f"iescore campaign: {campaign.source.name}",
            read_table(summary.output()["leaderboard"]),
            read_table(summary.output()["significance"]),
            {name: self.scores[name] for name in reports},
            {name: self.mappings[name] for name in reports},
            self.documents,
            self.spans,
            int(options["html_documents"]),
            int(options["resamples"]),
            int(options["seed"]),
            objects=self.muc is not None,
            page=self.page,
        )
        beta = float(self.muc.beta if self.muc is not None else options["beta"])
        return render_campaign_html(dataclasses.replace(data, beta=beta))


#: Where the page keeps each system's view (``mapping_view``) in the store, and its VERSION.
PAGE_VIEW_STAGE, PAGE_VIEW_VERSION = "PageView", 1


def page_view(store: str, scored: Stage, shown: list[str], spans: bool, objects: bool) -> pa.Table:
    """A system's rows of the page's per-document view, from the store's cache when they were made before
    from the same mapping artifact (its key), documents and options; else made from the mapping and kept.

    The cache entry is an artifact like a stage's (``PageView/ab/KEY.view.parquet``, with provenance), its
    key a content address of what it is made from, so a rerun reads the small views of the systems that
    did not change instead of their mappings.
    """
    options = {"documents": shown, "spans": spans, "objects": objects}
    key = artifacts.stage_key(PAGE_VIEW_STAGE, PAGE_VIEW_VERSION, options, {"mapping": scored.key})
    target = artifacts.artifact_target(store, PAGE_VIEW_STAGE, key, "view")
    if target.exists():
        try:
            view = read_table(target)
            if view.schema.remove_metadata().equals(PAGE_VIEW.remove_metadata()):
                return view
        except (OSError, pa.ArrowException):
            pass  # unreadable: made again
    view = mapping_view(read_table(scored.output()["mapping"], MAPPING_VIEW_COLUMNS), shown, spans, objects)
    provenance = {
        "stage": PAGE_VIEW_STAGE,
        "version": PAGE_VIEW_VERSION,
        "key": key,
        "options": {"documents": len(shown), "spans": spans, "objects": objects},
        "inputs": {"mapping": scored.key},
        "files": {},
    }
    # A cache that cannot be written is no cache: the page is made all the same.
    with contextlib.suppress(OSError):
        artifacts.write_table(target, view, provenance)
    return view


def _reference_corpus(summary: Stage, campaign: Campaign) -> Stage | None:
    """The IngestCorpus task of the reference texts, found in the graph (None without texts)."""
    if campaign.reference_texts is None:
        return None
    wanted = str(campaign.reference_texts.resolve())
    stack, seen = [summary], set()
    while stack:
        task = stack.pop()
        if task.task_id in seen:
            continue
        seen.add(task.task_id)
        if (
            task.STAGE == "IngestCorpus"
            and task.input_file("texts") == wanted
            and not task.options.get("unsegmented")
        ):
            return task
        stack.extend(task.requires().values())
    return None


def _csv(table: pa.Table) -> str:
    """``table`` as pandas writes it (``_frame(table).to_csv(index=False)``); a table of only integer and
    string columns is written column by column with Arrow (``csv_text``), the same bytes, faster."""
    text = csv_text(table)
    if text is not None:
        return text
    buffer = io.StringIO()
    _frame(table).to_csv(buffer, index=False)
    return buffer.getvalue()


def csv_text(table: pa.Table) -> str | None:
    """``table`` in pandas' CSV (``to_csv(index=False)``: ``,`` between fields, ``\n`` after each row,
    a null as nothing, an integer in decimal, a float64 as numpy's ``astype(str)`` writes it (pandas
    does the same) and a NaN as nothing, a string quoted only when it holds ``,``, ``"`` or ``\n``, its
    ``"`` doubled: Python's ``csv.QUOTE_MINIMAL`` with pandas' line terminator), built with Arrow's
    string kernels; None for a table this does not cover (a column of another type, fewer than two
    columns: a lone empty field is quoted), which pandas then writes."""
    if table.num_columns < 2 or any(_needs_quotes(name) for name in table.column_names):
        return None
    fields = []
    for column in table.columns:
        if pa.types.is_integer(column.type):
            text = pc.cast(column, pa.string())
        elif column.type == pa.float64():
            values = pc.fill_null(column, math.nan).to_numpy()
            text = pa.array(np.where(np.isnan(values), "", values.astype(str)), pa.string())
        elif pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            quoted = pc.binary_join_element_wise('"', pc.replace_substring(column, '"', '""'), '"', "")
            text = pc.if_else(pc.match_substring_regex(column, '[,"\n]'), quoted, column)
        else:
            return None
        fields.append(pc.fill_null(pc.cast(text, pa.string()), ""))
    header = ",".join(table.column_names) + "\n"
    if table.num_rows == 0:
        return header
    rows = pc.binary_join_element_wise(*fields, ",")
    return header + "\n".join(rows.to_pylist()) + "\n"


def _needs_quotes(text: str) -> bool:
    return any(character in text for character in ',"\n')


def _frame(table: pa.Table) -> pd.DataFrame:
    """``table`` as a DataFrame whose integer columns stay integers where some values are null (pandas
    would make them floats, written ``3.0``)."""
    integers = {t: pd.Int64Dtype() for t in (pa.int8(), pa.int16(), pa.int32(), pa.int64())}
    return table.to_pandas(types_mapper=integers.get)


def _in_percent(table: pa.Table) -> pa.Table:
    """``table`` with its fraction-of-1 columns (PERCENT_COLUMNS) times 100, rounded to 6 decimals as
    ``scores_json`` does; nulls stay null."""
    for index, name in enumerate(table.column_names):
        if name in PERCENT_COLUMNS:
            values = [None if v is None else round(v * 100.0, 6) for v in table.column(index).to_pylist()]
            table = table.set_column(index, name, pa.array(values, pa.float64()))
    return table
