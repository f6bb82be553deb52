"""The TREC stages: IngestQrels, IngestRun, EvaluateRun (the auditable artifact), TrecStatistics, Report.

- ``IngestQrels`` reads a qrels file into ``trec_qrels`` (one row per judgement);
- ``IngestRun`` reads a run into ``trec_run`` (one row per retrieved document; the run tag in the
  metadata);
- ``EvaluateRun`` ranks the run and computes the requested measures as trec_eval does: ``evaluation``
  (``trec_evaluation``: every value of every query, then over queries; what ``trec_eval -q`` prints,
  and the whole evaluation back with ``pipeline.trec.report.evaluation_from_table``). ``iescore trec``
  prints from it, whatever ``-m`` asks for;
- ``TrecStatistics`` turns an evaluation of the campaign measures into the TREC family's per-query
  statistics (what a ``scorer = "trec"`` campaign sums, resamples and compares);
- ``Report`` keeps the printed summary rows (qid ``all``): what ``trec_eval`` prints without ``-q``.

The qrels stage is shared by every run of a campaign or command (one spec, one artifact). A raw file's
spec also carries the path as the user gave it (``name``, not part of any key): messages name it so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.signature import SIGNATURE_KEY, make_signature
from iescore.pipeline.trec.evaluate import MAXLONG, Options, evaluate
from iescore.pipeline.trec.formats import (
    qrels_from_table,
    qrels_table,
    read_qrels,
    read_run,
    run_from_table,
    run_table,
)
from iescore.pipeline.trec.measures import parse_measures
from iescore.pipeline.trec.report import evaluation_from_table, evaluation_table
from iescore.schemas import C
from iescore.tasks.core.base import Stage, file_spec, stage_spec


class IngestQrels(Stage):
    """A qrels file as the ``trec_qrels`` table."""

    STAGE = "IngestQrels"
    VERSION = 1
    OUTPUTS = ("qrels",)

    def produce(self) -> dict[str, pa.Table]:
        qrels = read_qrels(self.input_file("qrels"), _shown(self.spec["inputs"]["qrels"]))
        return {"qrels": qrels_table(qrels)}


class IngestRun(Stage):
    """A run as the ``trec_run`` table."""

    STAGE = "IngestRun"
    VERSION = 1
    OUTPUTS = ("run",)

    def produce(self) -> dict[str, pa.Table]:
        return {"run": run_table(read_run(self.input_file("run"), _shown(self.spec["inputs"]["run"])))}


class EvaluateRun(Stage):
    """One run against the qrels: every requested value per query and over queries; the score signature
    in the table's metadata."""

    STAGE = "EvaluateRun"
    VERSION = 2
    OUTPUTS = ("evaluation",)

    def produce(self) -> dict[str, pa.Table]:
        options = self.options
        qrels = qrels_from_table(self.input_table("qrels"), self._source("qrels"))
        run = run_from_table(self.input_table("run"), self._source("run"))
        evaluation = evaluate(qrels, run, parse_measures(list(options["measures"])), _options(options))
        return {"evaluation": _signed(evaluation_table(evaluation), options["signature"])}

    def _source(self, role: str) -> str:
        """The file an ingested table came from, as given (for messages; not part of the key)."""
        return _shown(self.spec["inputs"][role]["inputs"][role])


class TrecStatistics(Stage):
    """The TREC family's statistics of one run (``pipeline.trec.family.TREC``: per query, its values of
    the campaign measures) from its evaluation; the evaluation's signature in the metadata."""

    STAGE = "TrecStatistics"
    VERSION = 1
    OUTPUTS = ("statistics",)

    def produce(self) -> dict[str, pa.Table]:
        from iescore.pipeline.trec.family import TREC, trec_statistics  # the family imports pandas

        table = self.input_table("evaluation")
        statistics = trec_statistics(evaluation_from_table(table), TREC)
        return {"statistics": _signed(statistics, table.schema.metadata[SIGNATURE_KEY].decode())}


class Report(Stage):
    """The printed summary rows of an evaluation (qid ``all``): trec_eval's output without ``-q``."""

    STAGE = "TrecReport"
    VERSION = 2
    OUTPUTS = ("report",)

    def produce(self) -> dict[str, pa.Table]:
        table = self.input_table("evaluation")
        summary = table.filter(pc.match_substring_regex(table.column(C.qid), pattern="^all$"))
        return {"report": summary.filter(pc.is_valid(summary.column(C.text)))}


def evaluate_spec(
    qrels: str | Path,
    run: str | Path,
    options: Mapping[str, Any],
    measures: Sequence[str],
    statistics: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The EvaluateRun spec of one run (``options``: level, complete, max_docs, judged_only, num_docs;
    ``measures``: trec_eval's ``-m`` arguments; ``statistics``: a campaign's resamples and seed, part of
    the signature)."""
    qrels_file, run_file = _file(qrels), _file(run)
    settings = {
        "level": int(options.get("level", 1)),
        "complete": bool(options.get("complete", False)),
        "max_docs": int(options.get("max_docs", MAXLONG)),
        "judged_only": bool(options.get("judged_only", False)),
        "num_docs": int(options.get("num_docs", 0)),
    }
    signature = make_signature(
        "trec",
        {**_options(settings).signature(), "m": list(measures), **(statistics or {})},
        {"qrels": qrels_file["sha256"], "run": run_file["sha256"]},
    )
    return stage_spec(
        "EvaluateRun",
        {
            **settings,
            "measures": list(measures),
            "signature": signature,
        },
        {
            "qrels": stage_spec("IngestQrels", {}, {"qrels": qrels_file}),
            "run": stage_spec("IngestRun", {}, {"run": run_file}),
        },
    )


def statistics_spec(evaluation: Mapping[str, Any]) -> dict[str, Any]:
    """The TrecStatistics spec over an EvaluateRun spec of the campaign measures."""
    return stage_spec("TrecStatistics", {}, {"evaluation": evaluation})


def campaign_run_spec(
    qrels: Path, run: Path, options: Mapping[str, Any], statistics: Mapping[str, Any]
) -> dict[str, Any]:
    """A campaign run's TrecStatistics spec: its evaluation on the campaign measures
    (``pipeline.trec.family.CAMPAIGN_REQUEST``), then the family's statistics."""
    from iescore.pipeline.trec.family import CAMPAIGN_REQUEST

    return statistics_spec(evaluate_spec(qrels, run, options, CAMPAIGN_REQUEST, statistics))


def report_spec(evaluation: Mapping[str, Any]) -> dict[str, Any]:
    """The Report spec over an EvaluateRun spec."""
    return stage_spec("TrecReport", {}, {"evaluation": evaluation})


def _file(path: str | Path) -> dict[str, str]:
    """A raw file's spec, with the path as given (``name``: for messages, not part of the key)."""
    return {**file_spec(path), "name": str(path)}


def _shown(spec: Mapping[str, Any]) -> str:
    return spec.get("name", spec["file"])


def _options(options: Mapping[str, Any]) -> Options:
    return Options(
        level=int(options["level"]),
        complete=bool(options["complete"]),
        max_docs=int(options["max_docs"]),
        judged_only=bool(options["judged_only"]),
        num_docs=int(options["num_docs"]),
    )


def _signed(table: pa.Table, signature: str) -> pa.Table:
    return table.replace_schema_metadata({**(table.schema.metadata or {}), SIGNATURE_KEY: signature.encode()})
