"""scorer2's report (seed 003), line for line, and ours: ``-v`` blocks, per lexical item, JSON.

The score block is scorer2's::

    <blank line>
    Fine-grained score for "ANSWERS" using key "KEY":
     precision: 0.516 (92.44 correct of 179.30 attempted)
     recall: 0.462 (92.44 correct of 200.00 in total)
     attempted: 89.65 % (179.30 attempted of 200.00 in total)
    <blank line>

(``Coarse-grained`` / ``Mixed-grained``, `` minimal`` after it with ``-m``; the seed's other policies
add theirs: ``Fine-grained conjunctive score ...``, where correct, attempted and in total count key tags).
A ratio whose denominator is 0 is printed ``undefined`` (scorer2 prints whatever its C library prints for
0/0, ``-nan`` here) and is null in JSON. Per-instance scores are single-precision floats, as scorer2's;
the sums over instances are in double, where scorer2 accumulates in single precision and drifts on
large files (there its printed totals differ from ours, which are exact).

``Unable to score answer for "item_instance" (line N): ...`` gives N as scorer2 does: the number of
lines before that one (0-based), so scripts written for scorer2 read the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.arrays import to_arrow, to_numpy, whole
from iescore.pipeline.senseval.scoring import REASONS
from iescore.schemas import SENSE_TOTALS


@dataclass(frozen=True)
class SenseTotals:
    """Summed credit, attempted and total, with scorer2's three ratios (None where undefined)."""

    credit: float
    attempted: float
    total: float

    @property
    def precision(self) -> float | None:
        return self.credit / self.attempted if self.attempted else None

    @property
    def recall(self) -> float | None:
        return self.credit / self.total if self.total else None

    @property
    def attempted_fraction(self) -> float | None:
        return self.attempted / self.total if self.total else None

    def as_dict(self) -> dict[str, float | None]:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "attempted_fraction": self.attempted_fraction,
            "correct": self.credit,
            "attempted": self.attempted,
            "total": self.total,
        }


def totals_table(instances: pa.Table) -> pa.Table:
    """The ``SENSE_TOTALS`` of a ``SENSE_INSTANCES`` table: all instances first (item null), then each
    lexical item, sorted (each item's sums by one ``bincount`` over the items' sorted codes)."""
    numbers = ("credit", "attempted", "total")
    encoded = pc.dictionary_encode(whole(instances.column("item")))
    order = to_numpy(pc.array_sort_indices(encoded.dictionary)).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    group = rank[to_numpy(encoded.indices).astype(np.int64)]
    overall = [float(pc.sum(instances.column(name)).as_py() or 0.0) for name in numbers]
    return pa.Table.from_arrays(
        [
            pa.concat_arrays([pa.nulls(1, pa.string()), encoded.dictionary.take(to_arrow(order))]),
            *(
                to_arrow(
                    np.concatenate(
                        [
                            [value],
                            np.bincount(
                                group, weights=to_numpy(instances.column(name)), minlength=len(order)
                            ),
                        ]
                    )
                )
                for name, value in zip(numbers, overall, strict=True)
            ),
        ],
        schema=SENSE_TOTALS,
    )


def totals(table: pa.Table) -> SenseTotals:
    """The sums of every instance: the first row of a ``SENSE_TOTALS`` table, or the sums over a
    ``SENSE_INSTANCES`` table."""
    if table.schema.names == SENSE_TOTALS.names:
        row = table.slice(0, 1).to_pylist()[0]
        return SenseTotals(row["credit"], row["attempted"], row["total"])
    return SenseTotals(
        *(float(pc.sum(table.column(c)).as_py() or 0.0) for c in ("credit", "attempted", "total"))
    )


def totals_by_item(table: pa.Table) -> dict[str, SenseTotals]:
    """The sums per lexical item, in sorted order, from a ``SENSE_TOTALS`` (or ``SENSE_INSTANCES``) table."""
    if table.schema.names != SENSE_TOTALS.names:
        table = totals_table(table)
    return {
        row["item"]: SenseTotals(row["credit"], row["attempted"], row["total"])
        for row in table.slice(1).to_pylist()
    }


def title(granularity: str, minimal: bool, policy: str) -> str:
    """``Fine-grained`` / ``Coarse-grained minimal`` / ``Mixed-grained coverage``..."""
    words = [f"{granularity.capitalize()}-grained"]
    if minimal:
        words.append("minimal")
    if policy != "disjunctive":
        words.append(policy)
    return " ".join(words)


def score_block(heading: str, sums: SenseTotals) -> str:
    """scorer2's block: a blank line, the heading, precision, recall, attempted, a blank line."""
    return (
        f"\n{heading}\n"
        f" precision: {_ratio(sums.precision, 3)} ({sums.credit:.2f} correct of {sums.attempted:.2f} "
        "attempted)\n"
        f" recall: {_ratio(sums.recall, 3)} ({sums.credit:.2f} correct of {sums.total:.2f} in total)\n"
        f" attempted: {_ratio(None if sums.attempted_fraction is None else 100 * sums.attempted_fraction, 2)}"
        f" % ({sums.attempted:.2f} attempted of {sums.total:.2f} in total)\n\n"
    )


def score_report(
    instances: pa.Table, answers_name: str, key_name: str, granularity: str, minimal: bool, policy: str
) -> str:
    """The total block, as scorer2 prints it."""
    heading = f'{title(granularity, minimal, policy)} score for "{answers_name}" using key "{key_name}":'
    return score_block(heading, totals(instances))


def by_item_report(instances: pa.Table, granularity: str, minimal: bool, policy: str) -> str:
    """``--by-item``: the same block for each lexical item (which scorer2 lacks)."""
    name = title(granularity, minimal, policy)
    return "".join(
        score_block(f'{name} score for item "{item}":', sums)
        for item, sums in totals_by_item(instances).items()
    )


def verbose_report(instances: pa.Table, unscored: pa.Table) -> str:
    """``-v``: scorer2's block for each answer line, in file order: the instance's score, its key tags,
    the answer's tags with their weights (as scored), or why the line could not be scored."""
    scored = instances.filter(pc.is_valid(instances.column("answer_line")))
    lines = np.concatenate(
        [scored.column("answer_line").to_numpy(), unscored.column("line").to_numpy()]
    ).astype(np.int64)
    order = np.argsort(lines, kind="stable")
    n_scored = scored.num_rows
    rows = scored.to_pylist()
    failures = unscored.to_pylist()
    out: list[str] = []
    for position in order:  # -v asks for one block per line: a loop over lines is its output
        if position < n_scored:
            r = rows[position]
            guess = "".join(
                f" {t}/{w:.3f}" for t, w in zip(r["answer_tags"], r["answer_weights"], strict=True)
            )
            out.append(
                f'score for "{r["item"]}_{r["instance"]}": {r["credit"]:.3f}\n'
                f" key   ={''.join(' ' + t for t in r['key_tags'])}\n"
                f" guess ={guess}\n\n"
            )
        else:
            out.append(unscored_message(failures[position - n_scored]) + "\n\n")
    return "".join(out)


def unscored_message(row: Mapping[str, Any]) -> str:
    """scorer2's ``Unable to score answer for "NAME" (line N): REASON`` (N counts lines from 0)."""
    return f'Unable to score answer for "{row["name"]}" (line {int(row["line"]) - 1}): {row["reason"]}'


def scores_json(
    sums: pa.Table,
    unscored: pa.Table,
    warnings: int,
    signature: str,
    options: Mapping[str, Any],
) -> dict[str, Any]:
    """The JSON of ``--json``: signature, options, totals, by item, unscored answers by reason, warnings."""
    reasons = unscored.column("reason").to_pylist()
    return {
        "signature": signature,
        "options": dict(options),
        "totals": totals(sums).as_dict(),
        "by_item": [{"item": item, **s.as_dict()} for item, s in totals_by_item(sums).items()],
        "unscored": {reason: reasons.count(reason) for reason in REASONS},
        "warnings": int(warnings),
    }


def senseval_signature(
    rules: Mapping[str, Any], digests: Mapping[str, str | None], extra: Mapping[str, Any] | None = None
) -> str:
    """The score signature: the rules (granularity, minimal, policy, unknown_senses), then ``extra``
    settings (a campaign's), then the sha256 of each input file (key, answers, sense_map, instances,
    senses; None when not given)."""
    from iescore.pipeline.core.signature import make_signature  # here: it imports importlib.metadata

    return make_signature("senseval", {**rules, **(extra or {})}, digests)


def _ratio(value: float | None, digits: int) -> str:
    if value is None or math.isnan(value):
        return "undefined"
    return f"{value:.{digits}f}"
