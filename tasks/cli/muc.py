"""``iescore muc CONFIG``: the MUC scorer driven by its configuration file (seed 001).

Prints the score page of the totals; the configuration's output options receive the rest:
``:score_file`` (a page per document, then the totals), ``:report_summary_file`` (the IE report
summary, or for named entity the seven-column NE summary unless ``:use_IE_report_summary yes``),
``:map_history_file`` (the Tcl-style map history; the same mapping is the MapAndScore ``mapping``
artifact). Relative output paths resolve against the configuration file's directory.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.signature import SIGNATURE_KEY
from iescore.pipeline.coref import (
    CorefScores,
    partitions_report,
    read_aligned,
    score_report,
    summary_report,
)
from iescore.pipeline.muc.config import MucConfig, read_config
from iescore.pipeline.muc.ne_report import NE_SUBTYPES, ne_report_summary, ne_score_pages
from iescore.pipeline.muc.report import (
    ie_report_summary,
    map_history,
    relevant_documents,
    score_pages,
    text_filtering,
)
from iescore.pipeline.muc.rules import NAMED_ENTITY, task_of, template_class
from iescore.pipeline.templette.tables import template_set_from_table
from iescore.tasks.cli.common import (
    EXIT_OK,
    STORE_HELP,
    STORE_WORKERS_HELP,
    check_store_option,
    run_stages,
)
from iescore.tasks.core.arguments import (
    INPUT_FILE,
    OUTPUT_FILE,
    check_paths,
    path_problem,
    text_encoding,
    workers,
)
from iescore.tasks.core.compute import Artifacts
from iescore.tasks.core.files import write_text
from iescore.tasks.muc.stages import coreference_scores, muc_task_spec
from iescore.tasks.templette.graph import report_tables


def add_muc_command(commands: argparse._SubParsersAction) -> None:
    m = commands.add_parser("muc", help="the MUC scorer (MUC-3 to MUC-7), driven by its configuration file")
    m.add_argument("config", help="MUC configuration file")
    m.add_argument("--store", help=STORE_HELP)
    m.add_argument(
        "--encoding",
        type=text_encoding,
        default="utf-8",
        help="encoding of the key, response and texts files",
    )
    m.add_argument("--workers", type=workers, default=1, help=STORE_WORKERS_HELP)
    m.set_defaults(handler=run_muc)


def run_muc(args: argparse.Namespace) -> int:
    config_path = Path(args.config)
    check_paths([("CONFIG", config_path, INPUT_FILE)])
    config = read_config(config_path)
    task = task_of(config)
    check_store_option(args.store)
    check_config_paths(config)
    spec = muc_task_spec(config, config_path, args.encoding)
    status, artifacts = run_stages([spec], args.store, args.workers)
    if status != EXIT_OK:
        return status
    if task == "coreference":
        return _coreference(config, coreference_scores(artifacts.table(spec, "mentions")), args)
    scored = spec["inputs"]["scored"]
    tables = report_tables(artifacts, spec)
    scores, mapping, tallies = tables["scores"], tables["mapping"], tables["tallies"]
    signature = scores.schema.metadata[SIGNATURE_KEY].decode()
    key = template_set_from_table(artifacts.table(scored["inputs"]["ref"], "fills"))
    response = template_set_from_table(artifacts.table(scored["inputs"]["hyp"], "fills"))
    documents = list(dict.fromkeys([*(i.pointer.doc_id for i in key.instances), *(
        i.pointer.doc_id for i in response.instances)]))  # fmt: skip
    title = f"iescore muc {task}"
    if task == NAMED_ENTITY:
        objects = _sections(scored, artifacts)
        pages = ne_score_pages(
            tallies, mapping, objects["ref"], objects["hyp"], title, signature, config.beta, documents,
            NE_SUBTYPES,
        )  # fmt: skip
        summary = ie_report_summary(mapping) if config.use_ie_report_summary else ne_report_summary(mapping)
    else:
        filtering = None
        if task == "scenario_template":
            template = template_class(config, key, response)
            filtering = text_filtering(
                documents, relevant_documents(key, template), relevant_documents(response, template)
            )
        pages = score_pages(tallies, title, signature, config.beta, filtering, documents)
        summary = ie_report_summary(mapping)
    sys.stdout.write(pages.split("\f\n")[-1])
    outputs = _outputs(config)
    if "score_file" in outputs:
        write_text(outputs["score_file"], pages)
    if "report_summary_file" in outputs:
        write_text(outputs["report_summary_file"], summary)
    if "map_history_file" in outputs:
        write_text(outputs["map_history_file"], map_history(mapping))
    return EXIT_OK


def _coreference(config: MucConfig, scores: CorefScores, args: argparse.Namespace) -> int:
    """The coreference task: the ScoreCoreference stage's mentions, scored, reported.

    ``:score_file`` gets the score report, ``:partitions_file`` the partitions and
    ``:report_summary_file`` the coreference report summary (these two re-read the inputs: they show
    the mentions' ids and texts).
    """
    report = score_report(scores, "iescore muc coreference")
    sys.stdout.write(report)
    outputs = _outputs(config)
    if "score_file" in outputs:
        write_text(outputs["score_file"], report)
    if "partitions_file" in outputs or "report_summary_file" in outputs:
        # strict: every repeated response extent removed, as the mentions above were scored
        _, aligned = read_aligned(
            config.key_file, config.response_file, "sgml", encoding=args.encoding, strict=True
        )
        if "partitions_file" in outputs:
            write_text(outputs["partitions_file"], partitions_report(aligned))
        if "report_summary_file" in outputs:
            write_text(outputs["report_summary_file"], summary_report(aligned))
    return EXIT_OK


def check_config_paths(config: MucConfig) -> None:
    """The configuration's input and output files, checked before scoring.

    A problem is an :class:`InputError` at the configuration file's line naming the path, such as
    ``te.config:14: :score_file out/: is a directory; expected a file to write``.
    """
    inputs = {
        "key_file": config.key_file,
        "response_file": config.response_file,
        "text_file": config.text_file,
    }
    checks = [(name, path, INPUT_FILE) for name, path in inputs.items() if path is not None]
    checks += [(name, path, OUTPUT_FILE) for name, path in config.outputs.items()]
    for name, path, kind in checks:
        problem = path_problem(path, kind)
        if problem:
            raise InputError(config.source, config.option_lines.get(name, 0), f":{name} {path}: {problem}")
    written: dict[Path, str] = {}
    read = {path.resolve(): name for name, path in inputs.items() if path is not None}
    for name, path in config.outputs.items():
        resolved, line = path.resolve(), config.option_lines.get(name, 0)
        other = written.get(resolved) or read.get(resolved)
        if other:
            raise InputError(
                config.source, line, f":{name} {path}: also named by :{other}; expected its own file"
            )
        written[resolved] = name


def _outputs(config: MucConfig) -> dict[str, Path]:
    return {name.lstrip(":").lower(): Path(path) for name, path in config.outputs.items()}


def _sections(scored: dict, artifacts: Artifacts) -> dict[str, dict[str, str]]:
    """Each side's object pointer -> SGML section, from the named entity ingest artifacts."""
    from iescore.schemas import C

    result: dict[str, dict[str, str]] = {}
    for role in ("ref", "hyp"):
        table = artifacts.table(scored["inputs"][role]["inputs"]["fills"], "objects")
        result[role] = dict(
            zip(table.column(C.pointer).to_pylist(), table.column(C.section).to_pylist(), strict=True)
        )
    return result
