"""Coreference reports: the seed-001 coreference score report, its JSON, the partitions file and the
coreference report summary."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
from iescore.pipeline.coref.alignment import AlignedDocument
from iescore.pipeline.coref.metrics import (
    METRIC_NAMES,
    ZERO,
    BlancCounts,
    CorefScores,
    Counts,
    MetricCounts,
    Number,
    rates,
    zero_value,
)
from iescore.pipeline.coref.readers import Mention, printable, show_text
from iescore.pipeline.coref.scorer_layout import conll_average
from iescore.schemas import COREF_SCORES


def score_report(
    scores: CorefScores,
    title: str = "iescore coref",
    zero_division: str | int = "undefined",
    conll: bool = False,
) -> str:
    """The seed-001 coreference score report (MUC), then the totals of every measure scored.

    An undefined ratio prints as ``-`` (``zero_division="undefined"``) or as 0 (``zero_division=0``,
    the reference scorers' way). BLANC's line is followed by those of its two link types. With
    ``conll``, a ``CoNLL:`` line follows: the mean of the MUC, B3 and CEAF-e F1 (a ratio over 0 taken
    as 0, as the CoNLL scorer takes it), when the three are scored.
    """
    width = max([len("Document No."), len("TOTALS:")] + [len(printable(d.doc_id)) for d in scores.documents])
    lines = [
        title,
        "",
        f"{'':{width}}  {'Key':>5} {'Rsp':>5}",
        f"{'Document No.':{width}}  {'Cls':>5} {'Cls':>5}  {'Recall':^22} {'Precision':^22} {'f':>6}",
    ]
    for d in scores.documents:
        muc = d.scores.get("muc", ZERO)
        lines.append(
            _report_line(
                printable(d.doc_id), width, d.key_classes, d.response_classes, muc, "", zero_division
            )
        )
    muc = scores.totals.get("muc", ZERO)
    lines.append(
        _report_line("TOTALS:", width, scores.key_classes, scores.response_classes, muc, "%", zero_division)
    )
    lines.append("")
    for metric, counts in scores.totals.items():
        if isinstance(counts, BlancCounts):
            recall, precision, f1 = rates(counts, zero_division)
            lines.append(
                f"{METRIC_NAMES[metric] + ':':8} recall {_pct(recall)}%   precision {_pct(precision)}%   "
                f"F {_pct(f1)}%"
            )
            lines.append("  " + _totals_line("coreference links:", counts.coreference, zero_division))
            lines.append("  " + _totals_line("non-coreference links:", counts.non_coreference, zero_division))
        else:
            lines.append(_totals_line(f"{METRIC_NAMES[metric] + ':':8}", counts, zero_division))
    average = conll_average(scores) if conll else None
    if average is not None:
        lines.append(f"{'CoNLL:':8} F {_pct(average)}%   (mean of the MUC, B3 and CEAF-e F1)")
    if scores.duplicates:
        lines.append(f"note: {scores.duplicates} duplicate response mention(s) removed before scoring")
    if scores.differing_words:
        lines.append(
            f"note: {scores.differing_words} response token(s) have another word than the key's; "
            f"mentions are token positions, compared as such (first: {scores.first_differing_word})"
        )
    return "\n".join(lines) + "\n"


def scores_json(scores: CorefScores, zero_division: str | int = "undefined") -> dict[str, Any]:
    """``{"muc", "b3", "ceafe", ..., "zero_division", "documents": [{"id", "muc", ...}]}``.

    Recall, precision and F1 in percent (0-100, as the report prints them and as every iescore JSON
    output gives measures); an undefined one is None, or 0 with ``zero_division=0`` (``"zero_division"``
    says which: ``"undefined"`` or ``0``). BLANC holds its recall, precision and F1 and the counts of
    its two link types under ``coreference`` and ``non_coreference``.
    """
    zero_value(zero_division)
    out: dict[str, Any] = {metric: _counts_json(c, zero_division) for metric, c in scores.totals.items()}
    out["zero_division"] = "undefined" if str(zero_division) == "undefined" else 0
    out["documents"] = [
        {
            "id": d.doc_id,
            "key_classes": d.key_classes,
            "response_classes": d.response_classes,
            **{metric: _counts_json(c, zero_division) for metric, c in d.scores.items()},
        }
        for d in scores.documents
    ]
    return out


def score_tables(scores: CorefScores, zero_division: str | int = "undefined") -> dict[str, pa.Table]:
    """The scores as tables of ``schemas.COREF_SCORES``: ``documents`` (one row per document and metric)
    and ``totals`` (one row per metric, ``doc_id`` null), each metric's counts and its recall, precision
    and F1 as fractions (``zero_division`` as :func:`~pipeline.coref.metrics.rates`), BLANC's two link
    types as their own rows, and the CoNLL score (``conll``, :func:`conll_average`) last."""
    zero_value(zero_division)
    documents: list[dict[str, Any]] = []
    for document in scores.documents:
        documents += _score_rows(
            document.doc_id, document.key_classes, document.response_classes, document.scores, zero_division
        )
    totals = _score_rows(None, scores.key_classes, scores.response_classes, scores.totals, zero_division)
    return {
        "documents": pa.Table.from_pylist(documents, schema=COREF_SCORES),
        "totals": pa.Table.from_pylist(totals, schema=COREF_SCORES),
    }


def _score_rows(
    doc_id: str | None,
    key_classes: int,
    response_classes: int,
    counts_of: dict[str, MetricCounts],
    zero_division: str | int,
) -> list[dict[str, Any]]:
    """One document's (or the totals') rows of :func:`score_tables`."""
    head = {"doc_id": doc_id, "key_classes": key_classes, "response_classes": response_classes}

    def row(metric: str, counts: MetricCounts) -> dict[str, Any]:
        recall, precision, f1 = rates(counts, zero_division)
        numbers = {}
        if isinstance(counts, Counts):
            numbers = {
                "recall_num": float(counts.recall_num),
                "recall_den": counts.recall_den,
                "precision_num": float(counts.precision_num),
                "precision_den": counts.precision_den,
            }
        return {**head, "metric": metric, **numbers, "recall": recall, "precision": precision, "f1": f1}

    rows = []
    for metric, counts in counts_of.items():
        rows.append(row(metric, counts))
        if isinstance(counts, BlancCounts):
            rows.append(row("blanc_coreference", counts.coreference))
            rows.append(row("blanc_non_coreference", counts.non_coreference))
    # The CoNLL score of these counts alone: conll_average reads the totals it is given.
    average = conll_average(CorefScores([], counts_of, key_classes, response_classes))
    rows.append({**head, "metric": "conll", "f1": average})
    return rows


def partitions_report(aligned: Sequence[AlignedDocument]) -> str:
    """The seed-001 "partitions" file: key classes framed by ``*``, response classes by ``=``.

    Key class lines: ``C start last ID REF RSP_ID "text"`` for mentions the response has, grouped by
    the response class they fall in (partition cells, in the order of their first mention, separated
    by a line of ``-``), then ``M start last ID REF "text"`` for missing mentions and ``O ...`` for
    optional ones the response left out (not scored). Response class lines: ``C start last RSP_ID
    RSP_REF KEY_ID "text"`` grouped by key class the same way, then ``S start last RSP_ID RSP_REF
    "text"`` for spurious mentions. ``last`` is the last character (or token) of the extent, inclusive,
    as in the seed's example; REF is ``NULL`` when there is none.
    """
    lines: list[str] = []
    for doc in aligned:
        lines.append(f"Document {printable(doc.doc_id)}")
        lines.extend(
            _class_blocks(doc.key.mentions, doc.response.mentions, doc.key_match, "*", key_side=True)
        )
        lines.extend(
            _class_blocks(doc.response.mentions, doc.key.mentions, doc.response_match, "=", key_side=False)
        )
        lines.append("")
    return "\n".join(lines) + ("\n" if lines else "")


def summary_report(aligned: Sequence[AlignedDocument]) -> str:
    """The seed-001 coreference report summary: per document, COR, MIS, SPU then OPT lines.

    ``COR "key text" "response text"``, ``MIS "key text" ""``, ``SPU "" "response text"`` and ``OPT
    "key text" ""`` (an optional key mention the response left out), each group in document order;
    whitespace runs in texts are shown as one space.
    """
    lines: list[str] = []
    for doc in aligned:
        lines.append(f"Document {printable(doc.doc_id)}")
        groups: dict[str, list[str]] = {"COR": [], "MIS": [], "SPU": [], "OPT": []}
        for index, mention in enumerate(doc.key.mentions):
            partner = doc.key_match[index]
            if partner >= 0:
                groups["COR"].append(
                    f'COR "{show_text(mention.text)}" "{show_text(doc.response.mentions[partner].text)}"'
                )
            else:
                tag = "OPT" if mention.optional else "MIS"
                groups[tag].append(f'{tag} "{show_text(mention.text)}" ""')
        for index, mention in enumerate(doc.response.mentions):
            if doc.response_match[index] < 0:
                groups["SPU"].append(f'SPU "" "{show_text(mention.text)}"')
        for group in groups.values():
            lines.extend(group)
        lines.append("")
    return "\n".join(lines) + ("\n" if lines else "")


def _class_blocks(
    mentions: Sequence[Mention], others: Sequence[Mention], match: Sequence[int], frame: str, key_side: bool
) -> list[str]:
    lines: list[str] = []
    chains: dict[int, list[int]] = {}
    for index, mention in enumerate(mentions):
        chains.setdefault(mention.chain, []).append(index)
    for chain in sorted(chains):
        lines.append(frame * 52)
        cells: dict[int, list[int]] = {}
        alone: list[int] = []
        for index in chains[chain]:
            if match[index] >= 0:
                cells.setdefault(others[match[index]].chain, []).append(index)
            else:
                alone.append(index)
        for number, cell in enumerate(cells.values()):
            if number:
                lines.append("-" * 52)
            for index in cell:
                m, other = mentions[index], others[match[index]]
                lines.append(
                    f'C {m.start} {m.end - 1} {m.ident} {m.ref or "NULL"} {other.ident} "{show_text(m.text)}"'
                )
        for index in alone:
            m = mentions[index]
            tag = ("O" if m.optional else "M") if key_side else "S"
            lines.append(f'{tag} {m.start} {m.end - 1} {m.ident} {m.ref or "NULL"} "{show_text(m.text)}"')
        lines.append(frame * 52)
    return lines


def _report_line(
    label: str, width: int, key_classes: int, rsp_classes: int, c: Counts, unit: str, zero_division: str | int
) -> str:
    recall, precision, f1 = rates(c, zero_division)
    return (
        f"{label:{width}}  {key_classes:>5} {rsp_classes:>5}  "
        f"{_num(c.recall_num):>7} / {c.recall_den:<7}{_pct(recall):>5}{unit or ' '} "
        f"{_num(c.precision_num):>7} / {c.precision_den:<7}{_pct(precision):>5}{unit or ' '} "
        f"{_pct(f1):>6}{unit}"
    ).rstrip()


def _totals_line(label: str, c: Counts, zero_division: str | int) -> str:
    recall, precision, f1 = rates(c, zero_division)
    return (
        f"{label} recall {_num(c.recall_num)} / {c.recall_den} {_pct(recall)}%   "
        f"precision {_num(c.precision_num)} / {c.precision_den} {_pct(precision)}%   F {_pct(f1)}%"
    )


def _num(value: Number) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.2f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _counts_json(counts: MetricCounts, zero_division: str | int = "undefined") -> dict[str, Any]:
    recall, precision, f1 = (_percent(value) for value in rates(counts, zero_division))
    if isinstance(counts, BlancCounts):
        return {
            "recall": recall,
            "precision": precision,
            "f1": f1,
            "coreference": _counts_json(counts.coreference, zero_division),
            "non_coreference": _counts_json(counts.non_coreference, zero_division),
        }
    return {
        "recall": recall,
        "precision": precision,
        "f1": f1,
        "recall_num": float(counts.recall_num),
        "recall_den": counts.recall_den,
        "precision_num": float(counts.precision_num),
        "precision_den": counts.precision_den,
    }


def _percent(value: float | None) -> float | None:
    """A ratio as a percentage (0-100, 6 decimals), as the text report and every other JSON output."""
    return None if value is None else round(value * 100.0, 6)
