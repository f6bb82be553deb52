"""A campaign's outputs outside the store: leaderboard, significance, HTML page, every system's files.

Layout of the output directory::

    leaderboard.txt  leaderboard.csv  leaderboard.json  report.html
    significance.parquet                     every pair's tests (``SIGNIFICANCE``, fractions of 1)
    significance.csv                         the same in the kind's unit, for campaigns of at most
                                             ``SIGNIFICANCE_CSV_PAIRS`` pairs (100 systems)
    systems/index.csv                        system name -> its directory
    systems/<slug>-<digest>/...              the system's files (its kind's ``TaskKind.system_files``:
                                             a templette system's report.txt, scores.json and score
                                             tables; a coreference system's report.txt, scores.json and
                                             mentions.csv; statistics.csv for the kinds that ask for it)

System names are labels: each system's directory is ``pipeline.campaign.engine.output_name(name)``, which
cannot leave ``systems/``. Every file is written atomically.

Units: every file written here shows the campaign's measures in its kind's unit
(``CampaignKind.unit``, its reference program's): percent (0-100, rounded to 6 decimals) for templette,
MUC and coreference campaigns, with the significance's ``delta`` in percentage points; fractions of 1 for
MAT, SENSEVAL, CLEF and TREC. p-values are probabilities 0-1; counts and offsets are integers (never
``3.0``); undefined is JSON ``null`` or an empty CSV cell. The artifacts in the store keep fractions of 1.

The systems' folders and the page are written by up to ``workers`` processes
(``concurrent.futures.ProcessPoolExecutor``); the campaign's own files by this one, last.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from iescore.pipeline.campaign.engine import (
    MAPPING_VIEW_COLUMNS,
    SIGNIFICANCE_CSV_PAIRS,
    Campaign,
    PageRows,
    board_order,
    board_rows,
    coref_chains,
    leaderboard_text,
    mapping_view,
    output_name,
    page_rows,
    report_data,
    shown_documents,
    significance_rows,
    views_rows,
)
from iescore.pipeline.campaign.html_report import AlignmentsView, UtteranceBlock, render_campaign_html
from iescore.pipeline.core.kinds import CampaignKind
from iescore.pipeline.core.lazy import pd
from iescore.schemas import PAGE_VIEWS, C
from iescore.tasks.campaign.csvfile import csv_text, frame_csv
from iescore.tasks.campaign.kinds import TASK_KINDS
from iescore.tasks.core import files
from iescore.tasks.core import store as artifacts
from iescore.tasks.core.arguments import OUTPUT_DIRECTORY, OUTPUT_FILE
from iescore.tasks.core.base import Stage
from iescore.tasks.core.files import write_text
from iescore.tasks.core.jsontext import json_text
from iescore.tasks.core.orphans import ParentWatch
from iescore.tasks.core.store import read_table

# A system's folder (and the HTML page) records the key of the artifact it was made from: a rerun
# rewrites only what changed, so one resubmission does not rewrite a hundred systems' tables.
STAMP = ".iescore-source"
# Every system of a kind with ``TaskKind.statistics_file`` gets its statistics table as CSV.
KIND_STATISTICS_FILE = "statistics.csv"
CAMPAIGN_FILES = (
    "leaderboard.txt",
    "leaderboard.json",
    "leaderboard.csv",
    "significance.csv",
    "significance.parquet",
)


def campaign_output_paths(directory: Path, campaign: Campaign) -> list[tuple[Path, str]]:
    """Every path ``write_campaign_outputs`` writes under ``directory``, with its kind, to check first."""
    paths = [(directory, OUTPUT_DIRECTORY), (directory / "systems", OUTPUT_DIRECTORY)]
    paths += [(directory / name, OUTPUT_FILE) for name in CAMPAIGN_FILES]
    paths.append((directory / "systems" / "index.csv", OUTPUT_FILE))
    files = _system_files(campaign.scorer)
    for system in campaign.systems:
        folder = directory / "systems" / output_name(system.name)
        paths.append((folder, OUTPUT_DIRECTORY))
        paths += [(folder / name, OUTPUT_FILE) for name in (*files, STAMP)]
    return paths


def _system_files(kind: str) -> tuple[str, ...]:
    tasks = TASK_KINDS[kind]
    return (*tasks.system_files, *((KIND_STATISTICS_FILE,) if tasks.statistics_file else ()))


def html_paths(path: Path) -> list[Path]:
    """The page and the stamp beside it (see ``stamp_html``)."""
    return [path, _html_stamp(path)]


def summary_tables(summary: Stage) -> tuple[pa.Table, pa.Table, int]:
    """A finished summary's leaderboard and significance, and how many units it resampled. The files,
    the page and the printed board all read them: the last summary's are kept (its significance holds
    499,500 pairs at 1,000 systems)."""
    return _summary_tables(str(summary.store), summary.STAGE, summary.key)


@functools.lru_cache(maxsize=1)
def _summary_tables(store: str, stage: str, key: str) -> tuple[pa.Table, pa.Table, int]:
    def table(name: str) -> pa.Table:
        return read_table(artifacts.artifact_target(store, stage, key, name))

    return table("leaderboard"), table("significance"), table("units").num_rows


def board_text(kind: CampaignKind, board: pa.Table, significance: pa.Table, units: int | None = None) -> str:
    """The leaderboard as printed (``pipeline.campaign.engine.leaderboard_text``)."""
    return leaderboard_text(kind, board, significance, units)


def leaderboard_json(
    kind: CampaignKind, board: pa.Table, pairs: int, significance_file: str
) -> dict[str, Any]:
    """``{"leaderboard": [rows], "significance": {...}}``: one row per system (``board_rows``: measures,
    interval ends and ``p(next)`` in the kind's unit, null where undefined), and where the pairwise tests
    are: ``significance_file`` (relative to the JSON's folder; ``schemas.SIGNIFICANCE``, fractions of 1)
    and how many pairs it holds. A campaign of n systems has n(n-1)/2 pairs (499,500 at 1,000): they are
    a Parquet table, not JSON."""
    return {
        "leaderboard": board_rows(kind, board),
        "significance": {
            "file": significance_file,
            "format": "parquet",
            "schema": "iescore.schemas.SIGNIFICANCE",
            "pairs": pairs,
        },
    }


def json_significance_path(json_path: str | Path) -> Path:
    """Where ``--json OUT.json`` puts the pairwise tests it names: ``OUT.significance.parquet`` beside it."""
    path = Path(json_path)
    return path.with_name(f"{path.stem}.significance.parquet")


def write_leaderboard(
    kind: CampaignKind,
    board: pa.Table,
    significance: pa.Table,
    json_path: str | Path | None,
    csv_path: str | Path | None,
    significance_path: Path | None = None,
) -> None:
    """The leaderboard as JSON and as CSV, in the kind's unit; with the JSON, the pairwise tests as
    Parquet at ``significance_path`` (default ``json_significance_path``), written first: the JSON names
    it."""
    if json_path:
        parquet = significance_path or json_significance_path(json_path)
        write_parquet(parquet, significance)
        relative = os.path.relpath(parquet, Path(json_path).parent)
        text = json_text(leaderboard_json(kind, board, significance.num_rows, Path(relative).as_posix()))
        write_text(json_path, text)
    if csv_path:
        write_text(csv_path, frame_csv(pd.DataFrame(board_rows(kind, board))))


def write_campaign_outputs(
    directory: Path,
    campaign: Campaign,
    summary: Stage,
    reports: Mapping[str, Stage],
    workers: int = 1,
    pages: list[Path] | None = None,
) -> None:
    """Write the output directory from the artifacts (``reports``: system name -> the task its kind runs)
    and the page to each of ``pages`` that is not fresh. The systems whose files are not fresh and the
    page are written by up to ``workers`` processes (each system's files are its own: the same files in
    any order) while this one writes the campaign's own files (``write_campaign_files``), which no job
    writes."""
    jobs: list[Callable[[], None]] = []
    recipe = html_recipe(campaign, summary)
    stale = [path for path in pages or [] if not html_is_fresh(path, recipe)]
    if stale:
        jobs.append(partial(write_pages, stale, campaign, summary, reports))
    files = _system_files(campaign.scorer)
    for name, task in reports.items():
        folder = directory / "systems" / output_name(name)
        if not _fresh(folder / STAMP, task.key, [folder / f for f in files]):
            jobs.append(partial(_write_system_folder, folder, task, campaign.scorer))
    run_jobs(jobs, workers, partial(write_campaign_files, directory, campaign, summary, list(reports)))


def run_jobs(
    jobs: list[Callable[[], None]], workers: int, meanwhile: Callable[[], None] | None = None
) -> None:
    """Each job run once, by up to ``workers`` processes (``ProcessPoolExecutor``), and ``meanwhile`` in
    this process while they run; the first failure is raised here. With no more jobs than workers (a
    one-system rerun: its folder and the page) they run here, one after another: a forked process starts
    by copying the pages of this one it writes to, which costs about as much as one job does."""
    if workers <= 1 or len(jobs) <= workers:
        for job in [*jobs, *([meanwhile] if meanwhile else [])]:
            job()
        return
    methods = multiprocessing.get_all_start_methods()
    # Forked workers start without importing the project again.
    context = multiprocessing.get_context("fork") if "fork" in methods else None
    # Each process ends when this one is killed, not waiting for jobs for good (``tasks.core.orphans``).
    watch = ParentWatch()
    try:
        with ProcessPoolExecutor(
            max_workers=min(workers, len(jobs)), mp_context=context, initializer=watch.watch
        ) as pool:
            futures = [pool.submit(job) for job in jobs]
            if meanwhile is not None:
                meanwhile()
            for future in futures:
                future.result()
    finally:
        watch.close()


def write_campaign_files(directory: Path, campaign: Campaign, summary: Stage, systems: list[str]) -> None:
    """The campaign's own files: leaderboard.txt, .json and .csv, significance.parquet, significance.csv
    (up to ``SIGNIFICANCE_CSV_PAIRS`` pairs; a larger campaign's directory has none, and an earlier
    run's is removed: it would be stale), systems/index.csv."""
    kind = campaign.kind
    board, significance, units = summary_tables(summary)
    write_text(directory / "leaderboard.txt", board_text(kind, board, significance, units))
    write_leaderboard(
        kind,
        board,
        significance,
        directory / "leaderboard.json",
        directory / "leaderboard.csv",
        directory / "significance.parquet",
    )
    csv_path = directory / "significance.csv"
    if significance.num_rows <= SIGNIFICANCE_CSV_PAIRS:
        write_text(csv_path, csv_text(significance_rows(kind, significance)))
    else:
        csv_path.unlink(missing_ok=True)
    index = [{"system": name, "directory": f"systems/{output_name(name)}"} for name in systems]
    write_text(directory / "systems" / "index.csv", csv_text(pa.Table.from_pylist(index)))


def write_parquet(path: Path, table: pa.Table) -> None:
    """``table`` as a Parquet file at ``path`` (atomically), its schema's metadata dropped: the store's
    artifact without its provenance (fractions of 1, the columns ``schemas`` names)."""
    with files.atomic_path(path) as temporary:
        pq.write_table(table.replace_schema_metadata(None), temporary)


def _write_system_folder(folder: Path, task: Stage, kind: str) -> None:
    """One system's files (its kind's, and statistics.csv), then its stamp (the files are complete before
    the stamp says so)."""
    tasks = TASK_KINDS[kind]
    folder.mkdir(parents=True, exist_ok=True)
    if tasks.write_system_files is not None:
        tasks.write_system_files(folder, task)
    if tasks.statistics_file:
        write_text(folder / KIND_STATISTICS_FILE, csv_text(read_table(task.output()["statistics"])))
    write_text(folder / STAMP, task.key + "\n")


def write_pages(pages: list[Path], campaign: Campaign, summary: Stage, reports: Mapping[str, Stage]) -> None:
    """The campaign's page written to each of ``pages``, and stamped (see ``stamp_html``)."""
    page = campaign_html(campaign, summary, reports)
    recipe = html_recipe(campaign, summary)
    for path in pages:
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


def campaign_html(campaign: Campaign, summary: Stage, reports: Mapping[str, Stage]) -> str:
    """The campaign's self-contained HTML page, from the artifacts of a finished run: the page every kind
    has, with its family's sections (``CampaignKind.sections``): the per-document pairings of a templette
    or MUC campaign, the chains of a coreference campaign."""
    kind, options = campaign.kind, campaign.options
    board, significance, units = summary_tables(summary)
    limit = page_documents(int(options["html_documents"]), len(reports))
    page = pairings_page(campaign, summary, reports, board, limit) if "pairings" in kind.sections else None
    chains = None
    if "chains" in kind.sections:
        chains = coref_chains(
            {name: read_table(task.output()["mentions"]) for name, task in reports.items()}, limit
        )
    data = report_data(
        kind,
        f"iescore campaign: {campaign.source.name}",
        board,
        significance,
        read_table(summary.output()["categories"]),
        int(options["resamples"]),
        int(options["seed"]),
        units,
        campaign.family_options,
        page,
        chains,
        read_table(summary.output()["ranks"]),
        alignments_view(campaign, reports, limit) if "alignments" in kind.sections else None,
    )
    return render_campaign_html(data)


def alignments_view(campaign: Campaign, reports: Mapping[str, Stage], limit: int) -> AlignmentsView:
    """A WER campaign's own section (``html_report.AlignmentsView``): each system's WER by stm label
    (``pipeline.speech.wer.label_sums``), and its ``.pra`` blocks of the first ``limit`` utterances of the
    first system's alignment, read from each system's AlignSpeech artifact."""
    from iescore.pipeline.core.family import measures_by_category
    from iescore.pipeline.speech.wer import label_sums, utterance_views

    kind, options = campaign.kind, campaign.options
    headline = kind.family.headline
    labels: list[str] = []
    by_label: dict[str, dict[str, float | None]] = {}
    blocks = {}
    wanted: list[str] | None = None
    total = 0
    for name, task in reports.items():
        alignment = read_table(task.output()["alignment"])
        names, sums = label_sums(alignment)
        labels += [label for label in names if label not in labels]
        measures = measures_by_category(kind.family, names, sums)
        by_label[name] = {label: values[headline] for label, values in measures.items()}
        utterances = list(dict.fromkeys(alignment.column(C.utterance).to_pylist()))
        if wanted is None:
            wanted, total = utterances[:limit], len(utterances)
        views = utterance_views(alignment, wanted, options["encoding"], bool(options["case_sensitive"]))
        blocks[name] = [UtteranceBlock(v.utterance, v.speaker, v.counts, v.block) for v in views]
    return AlignmentsView(labels, by_label, blocks, total)


#: The page embeds at most this many (document, system) views in its per-document section: the
#: ``html_documents`` limit shrinks as systems grow (100 documents up to 40 systems, 4 at 1,000), which
#: keeps a page of 1,000 systems under 5 MB.
PAGE_DOCUMENT_VIEWS = 4000


def page_documents(html_documents: int, systems: int) -> int:
    """How many documents the page embeds: ``html_documents``, fewer when ``systems`` x documents would
    pass ``PAGE_DOCUMENT_VIEWS`` (at least one)."""
    return min(html_documents, max(1, PAGE_DOCUMENT_VIEWS // max(systems, 1)))


def pairings_page(
    campaign: Campaign, summary: Stage, reports: Mapping[str, Stage], board: pa.Table, limit: int
) -> PageRows:
    """The per-document pairings of a templette or MUC campaign's page (``page_rows``): the first
    ``limit`` documents of the reference texts (without texts: of every mapping's documents, sorted),
    each system's view of them (``page_views``), with their JSON in the board's order."""
    kind = campaign.kind
    objects = "objects" in kind.sections
    spans = {system.name: system.texts is None and not objects for system in campaign.systems}
    corpus = _reference_corpus(next(iter(reports.values()), summary), campaign)
    documents = read_table(corpus.output()["documents"]) if corpus is not None else None
    scored = {name: task.requires()["scored"] for name, task in reports.items()}
    if documents is None:
        mappings = {name: read_table(task.output()["mapping"], [C.doc_id]) for name, task in scored.items()}
        shown = shown_documents(
            None, [d for m in mappings.values() for d in m.column(C.doc_id).to_pylist()], limit
        )
    else:
        mappings = {name: pa.table({C.doc_id: pa.array([], pa.string())}) for name in scored}
        shown = shown_documents(documents, [], limit)
    rows = page_views(summary.store, scored, shown, spans, objects)
    page = page_rows(mappings, documents, spans, limit, objects=objects, given_rows=rows)
    return page.with_embedded(board_order(board))


#: Where the page keeps its systems' views (``mapping_view``) in the store, and its VERSION.
PAGE_VIEWS_STAGE, PAGE_VIEWS_VERSION = "PageViews", 1
#: The most files the page's views are kept in: past this many systems, consecutive systems share one.
PAGE_VIEW_GROUPS = 64


def page_views(
    store: str, scored: Mapping[str, Stage], shown: list[str], spans: Mapping[str, bool], objects: bool
) -> pa.Table:
    """Every system's rows of the page's per-document view (``PAGE_VIEWS``, in ``scored`` order: system
    name -> the stage whose ``mapping`` it shows), from the store's cache where a group's were made before
    from the same mapping artifacts (their keys), documents and options; else made and kept.

    Systems are kept in groups of consecutive systems, at most ``PAGE_VIEW_GROUPS`` files (a system a
    file up to that many systems): a page of a thousand systems reads 64 small files, and a rerun after
    one system changed makes that system's group again. Each file is an artifact like a stage's
    (``PageViews/ab/KEY.views.parquet``, with provenance), its key a content address of what it is made
    from.
    """
    names = list(scored)
    size = -(-len(names) // PAGE_VIEW_GROUPS) if names else 1
    groups = [names[start : start + size] for start in range(0, len(names), size)]
    tables = [
        _group_views(store, {name: scored[name] for name in group}, shown, spans, objects) for group in groups
    ]
    return pa.concat_tables(tables) if tables else PAGE_VIEWS.empty_table()


def _group_views(
    store: str, scored: Mapping[str, Stage], shown: list[str], spans: Mapping[str, bool], objects: bool
) -> pa.Table:
    """One group's ``PAGE_VIEWS`` rows (see ``page_views``)."""
    options = {
        "documents": shown,
        "objects": objects,
        "systems": [[name, bool(spans.get(name, False))] for name in scored],
    }
    inputs = {f"mapping/{number}": task.key for number, task in enumerate(scored.values())}
    key = files.stage_key(PAGE_VIEWS_STAGE, PAGE_VIEWS_VERSION, options, inputs)
    target = artifacts.artifact_target(store, PAGE_VIEWS_STAGE, key, "views")
    if target.exists():
        try:
            rows = read_table(target)
            if rows.schema.remove_metadata().equals(PAGE_VIEWS.remove_metadata()):
                return rows
        except (OSError, pa.ArrowException):
            pass  # unreadable: made again
    rows = views_rows(
        {
            name: mapping_view(
                read_table(task.output()["mapping"], MAPPING_VIEW_COLUMNS),
                shown,
                bool(spans.get(name, False)),
                objects,
            )
            for name, task in scored.items()
        }
    )
    provenance = {
        "stage": PAGE_VIEWS_STAGE,
        "version": PAGE_VIEWS_VERSION,
        "key": key,
        "options": {"documents": len(shown), "objects": objects, "systems": list(scored)},
        "inputs": inputs,
        "files": {},
    }
    # A cache that cannot be written is no cache: the page is made all the same.
    with contextlib.suppress(OSError):
        artifacts.write_table(target, rows, provenance)
    return rows


def _reference_corpus(task: Stage, campaign: Campaign) -> Stage | None:
    """The IngestCorpus task of the reference texts, found in the graph above ``task`` (None without
    texts)."""
    if campaign.reference_texts is None:
        return None
    wanted = str(campaign.reference_texts.resolve())
    stack, seen = [task], set()
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
