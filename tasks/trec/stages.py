"""The TREC stages: IngestQrels, IngestRun, EvaluateRun (the auditable artifact), Report.

- ``IngestQrels`` reads a qrels file into ``trec_qrels`` (one row per judgement);
- ``IngestRun`` reads a run into ``trec_run`` (one row per retrieved document; the run tag in the
  metadata);
- ``EvaluateRun`` ranks the run and computes the requested measures as trec_eval does: ``evaluation``
  (``trec_evaluation``: one row per query and value, then the summary, exactly what ``trec_eval -q``
  prints) and ``statistics`` (the TREC family's per-query statistics, for campaigns);
- ``Report`` keeps the summary rows (qid ``all``): what ``trec_eval`` prints without ``-q``.

The qrels stage is shared by every run of a campaign (one spec, one artifact).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from pipeline.core.signature import SIGNATURE_KEY, make_signature
from pipeline.trec.evaluate import MAXLONG, Options, evaluate
from pipeline.trec.family import CAMPAIGN_REQUEST, TREC, trec_statistics
from pipeline.trec.formats import (
    qrels_from_table,
    qrels_table,
    read_qrels,
    read_run,
    run_from_table,
    run_table,
)
from pipeline.trec.measures import parse_measures
from pipeline.trec.report import evaluation_table
from schemas import C
from tasks.core.base import Stage, file_spec, stage_spec


class IngestQrels(Stage):
    """A qrels file as the ``trec_qrels`` table."""

    STAGE = "IngestQrels"
    VERSION = 1
    OUTPUTS = ("qrels",)

    def produce(self) -> dict[str, pa.Table]:
        return {"qrels": qrels_table(read_qrels(self.input_file("qrels")))}


class IngestRun(Stage):
    """A run as the ``trec_run`` table."""

    STAGE = "IngestRun"
    VERSION = 1
    OUTPUTS = ("run",)

    def produce(self) -> dict[str, pa.Table]:
        return {"run": run_table(read_run(self.input_file("run")))}


class EvaluateRun(Stage):
    """One run against the qrels: every requested value per query and over queries, and the family's
    statistics; the score signature in both tables' metadata."""

    STAGE = "EvaluateRun"
    VERSION = 1
    OUTPUTS = ("evaluation", "statistics")

    def produce(self) -> dict[str, pa.Table]:
        options = self.options
        qrels = qrels_from_table(self.input_table("qrels"), self._source("qrels"))
        run = run_from_table(self.input_table("run"), self._source("run"))
        evaluation = evaluate(qrels, run, parse_measures(list(options["measures"])), _options(options))
        metadata = {SIGNATURE_KEY: options["signature"].encode()}
        return {
            "evaluation": _with(evaluation_table(evaluation), metadata),
            "statistics": _with(trec_statistics(evaluation, TREC), metadata),
        }

    def _source(self, role: str) -> str:
        """The file an ingested table came from (for messages; not part of the key)."""
        return self.spec["inputs"][role]["inputs"][role]["file"]


class Report(Stage):
    """The summary rows of an evaluation (qid ``all``): trec_eval's output without ``-q``."""

    STAGE = "TrecReport"
    VERSION = 1
    OUTPUTS = ("report",)

    def produce(self) -> dict[str, pa.Table]:
        table = self.input_table("evaluation")
        mask = pa.array([qid == "all" for qid in table.column(C.qid).to_pylist()], pa.bool_())
        return {"report": table.filter(mask)}


def evaluate_spec(
    qrels: Path,
    run: Path,
    options: Mapping[str, Any],
    measures: tuple[str, ...] = CAMPAIGN_REQUEST,
    statistics: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The EvaluateRun spec of one run (``options``: level, complete, max_docs, judged_only, num_docs;
    ``statistics``: a campaign's resamples and seed, part of the signature)."""
    qrels_file, run_file = file_spec(qrels), file_spec(run)
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


def report_spec(evaluation: Mapping[str, Any]) -> dict[str, Any]:
    """The Report spec over an EvaluateRun spec."""
    return stage_spec("TrecReport", {}, {"evaluation": evaluation})


def _options(options: Mapping[str, Any]) -> Options:
    return Options(
        level=int(options["level"]),
        complete=bool(options["complete"]),
        max_docs=int(options["max_docs"]),
        judged_only=bool(options["judged_only"]),
        num_docs=int(options["num_docs"]),
    )


def _with(table: pa.Table, metadata: Mapping[bytes, bytes]) -> pa.Table:
    return table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
