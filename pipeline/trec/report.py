"""trec_eval's output, byte for byte: ``measure<TAB>qid<TAB>value`` lines, and the JSON form.

Per query (``-q``, queries in byte order of their ids) then ``all``; a value line is
``%-22s\\t%s\\t%6.4f`` (whole numbers ``%ld``, the relevance string ``'%s'``, the run tag as is), the
measures in trec_eval's order. A value that is not a number prints as C's printf prints it (``-nan``).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import whole
from iescore.pipeline.trec.evaluate import Evaluation, Options, measure_values
from iescore.pipeline.trec.formats import from_numpy, to_numpy
from iescore.pipeline.trec.measures import parse_measure
from iescore.schemas import TREC_EVALUATION, C

#: The schema metadata of an evaluation table that makes it a whole :class:`Evaluation` again (JSON:
#: the run tag, each measure's printed form in order, the options, the ignored qrels queries).
EVALUATION_KEY = b"trec_evaluation"


def trec_eval_text(evaluation: Evaluation, per_query: bool = False, summary: bool = True) -> str:
    """trec_eval's printed output of ``evaluation``."""
    return text_of_table(evaluation_table(evaluation), per_query, summary)


def evaluation_table(evaluation: Evaluation) -> pa.Table:
    """The ``TREC_EVALUATION`` table: every value of every query (query-major, in trec_eval's order), then
    every value over queries (qid ``all``); ``text`` is what trec_eval prints, null for what it does not
    print (a geometric mean's per-query logarithm, ``num_q`` and ``runid`` per query, ``relstring``
    over queries). The metadata (``EVALUATION_KEY``) holds the rest of the Evaluation, so
    :func:`evaluation_from_table` gives it back whole."""
    values = evaluation.values
    queries, width = len(evaluation.qids), len(values)
    texts = np.empty((queries, width), dtype=object)
    summary_texts: list[str | None] = []
    for v, value in enumerate(values):
        name = value.measure.name
        if name == "relstring":
            texts[:, v] = [f"'{text}'" for text in evaluation.relstrings[v]]
        elif value.per_query:
            texts[:, v] = _numbers(evaluation.per_query[:, v], value.is_long)
        if name == "relstring":
            summary_texts.append(None)
        elif name == "runid":
            summary_texts.append(evaluation.runid)
        else:
            x = float(evaluation.summary[v])
            summary_texts.append(_number(x, value.is_long or value.summary == "count"))
    # Each query id and value name made once, then repeated by Arrow (``take``).
    qids = _strings([*evaluation.qids, "all"]).take(from_numpy(np.repeat(np.arange(queries + 1), width)))
    names = _strings([value.name for value in values]).take(
        from_numpy(np.tile(np.arange(width), queries + 1))
    )
    numbers = np.ascontiguousarray(np.concatenate([evaluation.per_query.ravel(), evaluation.summary]))
    table = pa.Table.from_arrays(
        [
            qids,
            names,
            pa.Array.from_buffers(pa.float64(), len(numbers), [None, pa.py_buffer(numbers)]),
            _strings(texts.ravel().tolist() + summary_texts),
        ],
        schema=TREC_EVALUATION,
    )
    measures: list[str] = []
    for v, value in enumerate(values):
        if v == 0 or value.measure is not values[v - 1].measure:
            measures.append(str(value.measure))
    described = {
        "runid": evaluation.runid,
        "measures": measures,
        "options": asdict(evaluation.options),
        "ignored": list(evaluation.ignored),
    }
    return table.replace_schema_metadata(
        {**table.schema.metadata, EVALUATION_KEY: json.dumps(described).encode()}
    )


def evaluation_from_table(table: pa.Table) -> Evaluation:
    """The :class:`Evaluation` an :func:`evaluation_table` was made of, value for value."""
    described = json.loads(table.schema.metadata[EVALUATION_KEY])
    values = measure_values([parse_measure(text) for text in described["measures"]])
    width = len(values)
    queries = (table.num_rows - width) // width
    qids = table.column(C.qid).to_pylist()[: queries * width : width]
    numbers = to_numpy(whole(table.column(C.value)), np.float64)
    per_query = numbers[: len(qids) * width].reshape(len(qids), width)
    relstrings = {}
    if any(value.measure.name == "relstring" for value in values):
        texts = table.column(C.text).to_pylist()
        for v, value in enumerate(values):
            if value.measure.name == "relstring":
                relstrings[v] = [text[1:-1] for text in texts[v : len(qids) * width : width]]
    return Evaluation(
        runid=described["runid"],
        qids=tuple(qids),
        values=values,
        per_query=per_query,
        summary=numbers[len(qids) * width :],
        relstrings=relstrings,
        ignored=tuple(described["ignored"]),
        options=Options(**described["options"]),
    )


def ignored_queries(table: pa.Table) -> list[str]:
    """The qrels queries an :func:`evaluation_table`'s run was not evaluated on (no line, no ``-c``)."""
    return json.loads(table.schema.metadata[EVALUATION_KEY])["ignored"]


def text_of_table(table: pa.Table, per_query: bool = False, summary: bool = True) -> str:
    """trec_eval's printed output from a ``TREC_EVALUATION`` table: the values it prints (``text`` not
    null), each query's (``per_query``) then those over queries (``summary``)."""
    if not per_query:
        table = table.filter(_summary_rows(table))
    qids = table.column(C.qid).to_pylist()
    names = table.column(C.measure).to_pylist()
    texts = table.column(C.text).to_pylist()
    return "".join(
        f"{name:<22s}\t{qid}\t{text}\n"
        for qid, name, text in zip(qids, names, texts, strict=True)
        if text is not None and ((qid == "all" and summary) or (qid != "all" and per_query))
    )


def _summary_rows(table: pa.Table) -> pa.ChunkedArray:
    """Which rows of an evaluation table are over queries (qid ``all``). A pattern, not ``pc.equal``:
    its string scalar would import pandas."""
    return pc.match_substring_regex(table.column(C.qid), pattern="^all$")


def _numbers(column: np.ndarray, is_long: bool) -> list[str]:
    """:func:`_number` of every value of ``column``."""
    if is_long:
        return [str(int(x)) for x in column.tolist()]
    texts = [f"{x:6.4f}" for x in column.tolist()]
    for q in np.flatnonzero(np.isnan(column)).tolist():
        texts[q] = _number(float(column[q]), False)
    return texts


def _strings(values: list[str | None]) -> pa.Array:
    """A string array of ``values`` (None: null), made from its buffers (``pa.array`` imports pandas)."""
    encoded = [b"" if value is None else value.encode("utf-8") for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int32, count=len(encoded)), out=offsets[1:])
    valid = np.fromiter((value is not None for value in values), dtype=bool, count=len(values))
    nulls = len(values) - int(valid.sum())
    validity = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    return pa.Array.from_buffers(
        pa.string(), len(values), [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))], nulls
    )


def _number(x: float, is_long: bool) -> str:
    if is_long:
        return str(int(x))
    if math.isnan(x):
        return f"{'-nan' if np.signbit(x) else 'nan':>6s}"
    return f"{x:6.4f}"


def evaluation_json(evaluation: Evaluation, signature: str) -> dict[str, Any]:
    """Every value: ``{"signature", "runid", "options", "all": {name: value}, "queries": {qid: {...}},
    "ignored_queries": [...]}``; a value that is not a number is ``null``, counts are integers."""

    def plain(x: float, is_long: bool) -> float | int | None:
        if is_long:
            return int(x)
        return None if not math.isfinite(x) else float(x)

    result: dict[str, Any] = {
        "signature": signature,
        "runid": evaluation.runid,
        "options": evaluation.options.signature(),
        "all": {},
        "queries": {},
        "ignored_queries": list(evaluation.ignored),
    }
    for v, value in enumerate(evaluation.values):
        name = value.measure.name
        if name in ("relstring", "runid"):
            continue
        result["all"][value.name] = plain(evaluation.summary[v], value.is_long or value.summary == "count")
    for q, qid in enumerate(evaluation.qids):
        row: dict[str, Any] = {}
        for v, value in enumerate(evaluation.values):
            if value.measure.name == "relstring":
                row[value.name] = evaluation.relstrings[v][q]
            elif value.per_query:
                row[value.name] = plain(evaluation.per_query[q, v], value.is_long)
        result["queries"][qid] = row
    return result
