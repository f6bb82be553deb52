"""The CoNLL reference scorer's output (``perl scorer.pl <metric> <key> <response> [<doc>|none]``,
v8.01, and its LEA branch, 9.0.0-alpha), written from iescore's counts.

What ``scorer.pl`` prints, in its order: a ``version:`` line (the scorer's version, then the path of
the module that scored: the reference prints its ``CorScorer.pm``, iescore this module); for ``all``, a
``METRIC m:`` block per measure of v8.01's ``all`` (muc, bcub, ceafm, ceafe, blanc); in each block,
unless the document argument is ``none``, every document's chains as read (``====> name:``, ``File
name:``, ``Entity n: (first,last) ...`` in token positions, key then response), its name, its mention
identification and its counts (``Recall: (n / d) r%`` ...), then the totals (``Identification of
Mentions:`` and ``Coreference:`` lines; BLANC's link types and ``BLANC:``). Percentages are truncated
to two decimals and numbers printed as Perl prints them (15 significant digits). A ``Repeated mention
in the response`` line is printed for every repeat of a key mention, whatever the verbosity, as the
reference prints it.

Two things are not the reference's: documents come in key file order (the reference walks a Perl
hash, whose order changes from run to run), and a document argument the key lacks is an error (the
reference scores nothing and prints zeros). Which response documents and mentions are scored is
:mod:`pipeline.coref.pairing`'s rule, the reference's by default.
"""

from __future__ import annotations

import math
from pathlib import Path

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.coref.alignment import align_documents
from iescore.pipeline.coref.metrics import METRICS, BlancCounts, CorefScores, Counts, score_documents
from iescore.pipeline.coref.pairing import PairedDocuments
from iescore.pipeline.coref.readers import CorefDocument, Mention

SCORER_METRICS = ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "all")  # scorer.pl's <metric>

_ALL_METRICS = ("muc", "bcub", "ceafm", "ceafe", "blanc")  # what v8.01's ``all`` scores, in its order

_MEASURE_OF = {"muc": "muc", "bcub": "b3", "ceafm": "ceafm", "ceafe": "ceafe", "blanc": "blanc", "lea": "lea"}

_SCORER_VERSION = "8.01"  # the reference whose layout and rules are followed
_LEA_VERSION = "9.0.0-alpha"  # the reference's first version with LEA (its LEA branch)

_RULE = "-" * 74


def scorer_report(
    metric: str, paired: PairedDocuments, key_source: str, document: str | None = None
) -> tuple[str, CorefScores]:
    """``scorer.pl``'s output for ``metric`` (one of :data:`SCORER_METRICS`) over paired documents,
    and the scores of every measure over the documents it shows.

    ``document``: None scores and shows every document; ``"none"`` every document, totals only; a
    document's name (as its ``#begin document`` line writes it, or iescore's id for it) that document
    alone, an :class:`InputError` naming ``key_source`` when the key has no such document.
    """
    metric = metric.lower()
    if metric not in SCORER_METRICS:
        raise ValueError(f"metric must be one of {SCORER_METRICS}, not {metric!r}")
    doc_ids = list(paired.key)
    if document is not None and document != "none":
        doc_ids = [d for d in paired.key if document in (paired.key[d].title, d)]
        if not doc_ids:
            names = ", ".join(repr(paired.key[d].title or d) for d in paired.key)
            expected = f"one of {names} expected"
            raise InputError(key_source, 0, f"no document {document!r} (the <doc> argument): {expected}")
    aligned = align_documents({d: paired.key[d] for d in doc_ids}, {d: paired.response[d] for d in doc_ids})
    scores = score_documents(aligned, METRICS)
    version = _LEA_VERSION if metric == "lea" else _SCORER_VERSION
    lines = [f"version: {version} {Path(__file__).resolve()}\n"]
    for name in _ALL_METRICS if metric == "all" else (metric,):
        if metric == "all":
            lines.append(f"\nMETRIC {name}:\n")
        lines.append(_metric_block(name, paired, doc_ids, scores, document))
    return "".join(lines), scores


def conll_average(scores: CorefScores) -> float | None:
    """The CoNLL score: the mean of the MUC, B3 and CEAF-e F1 of the totals (0-1), the reference's
    convention for zero denominators (a ratio over 0 is 0); None when one of the three is not scored."""
    if not all(m in scores.totals for m in ("muc", "b3", "ceafe")):
        return None
    return sum(_rpf(scores.totals[m])[2] for m in ("muc", "b3", "ceafe")) / 3  # type: ignore[arg-type]


# --- helpers -------------------------------------------------------------------------------------


def _metric_block(
    metric: str, paired: PairedDocuments, doc_ids: list[str], scores: CorefScores, document: str | None
) -> str:
    measure = _MEASURE_OF[metric]
    verbose = document != "none"
    single = document is not None and document != "none"
    out: list[str] = []
    identified = [0, 0, 0]  # key mentions, response mentions, exactly matched
    for number, doc_id in enumerate(doc_ids):
        key, written, scored = paired.key[doc_id], paired.written[doc_id], paired.response[doc_id]
        counts = scores.documents[number].scores[measure]
        if single:
            out.append(f"{document}:\n")
        if verbose:
            out.append(_chains(key.title or doc_id, key))
            out.append(_chains(None if doc_id in paired.missing else written.title or doc_id, written))
            if not single:
                # ScoreBLANC prints its undefined $name here, Score the document's
                out.append(":\n" if metric == "blanc" else f"{key.title or doc_id}:\n")
        out.append(_repeats(key, paired.removed.get(doc_id, ())))
        key_count = len(key.mentions)
        response_count = len({(m.start, m.end) for m in scored.mentions})
        key_extents = {(m.start, m.end) for m in key.mentions}
        exact = len({(m.start, m.end) for m in scored.mentions} & key_extents)
        for i, value in enumerate((key_count, response_count, exact)):
            identified[i] += value
        if verbose:
            out.append(
                f"Total key mentions: {key_count}\nTotal response mentions: {response_count}\n"
                f"Strictly correct identified mentions: {exact}\nPartially correct identified mentions: 0\n"
                f"No identified: {key_count - exact}\nInvented: {response_count - exact}\n"
            )
            if metric != "blanc":
                out.append(_show(*_numbers(counts)))
    out.append("\n====== TOTALS =======\nIdentification of Mentions: ")
    out.append(_show(identified[2], identified[0], identified[2], identified[1]))
    total = scores.totals[measure]
    if isinstance(total, BlancCounts):
        out.append("\nCoreference:\nCoreference links: ")
        out.append(_show(*_numbers(total.coreference)))
        out.append("Non-coreference links: ")
        out.append(_show(*_numbers(total.non_coreference)))
        recall, precision, f1 = _blanc(total)
        out.append("BLANC: ")
        out.append(_show(recall, 1, precision, 1, f1))
    else:
        out.append("Coreference: ")
        out.append(_show(*_numbers(total)))
    return "".join(out)


def _chains(title: str | None, document: CorefDocument) -> str:
    """GetCoreference's listing: chains in order of first appearance, each chain's mentions in the
    order they closed (last token, then innermost first); positions are tokens, last one included. A
    document the file lacks is listed with no name, as the reference lists it."""
    name = "" if title is None else title
    chains: dict[int, list[Mention]] = {}
    for mention in document.mentions:
        chains.setdefault(mention.chain, []).append(mention)
    lines = [f"====> {name}:\n", f"File {name}:\n"]
    for chain in sorted(chains):
        closed = sorted(chains[chain], key=lambda m: (m.end, -m.start))
        lines.append(f"Entity {chain}:" + "".join(f" ({m.start},{m.end - 1})" for m in closed) + "\n")
    return "".join(lines)


def _repeats(key: CorefDocument, removed: tuple[Mention, ...]) -> str:
    """IdentifMentions' line for each repeat of a key mention, in the response's chain order; the
    number printed twice is the key mention's (key chains in order, each in closing order)."""
    order = sorted(key.mentions, key=lambda m: (m.chain, m.end, -m.start))
    ident = {(m.start, m.end): n for n, m in enumerate(order)}
    lines = []
    for mention in sorted(removed, key=lambda m: (m.chain, m.end, -m.start)):
        number = ident.get((mention.start, mention.end))
        if number is not None:
            extent = f"{mention.start}, {mention.end - 1}"
            lines.append(f"Repeated mention in the response: {extent} {number}{number}\n")
    return "".join(lines)


def _numbers(counts: Counts) -> tuple[float, int, float, int]:
    return float(counts.recall_num), counts.recall_den, float(counts.precision_num), counts.precision_den


def _rpf(counts: Counts | BlancCounts) -> tuple[float, float, float]:
    """Recall, precision and F1 as the reference's ShowRPF computes them (x / 0 is 0)."""
    if isinstance(counts, BlancCounts):
        return _blanc(counts)
    recall = counts.recall_num / counts.recall_den if counts.recall_den else 0
    precision = counts.precision_num / counts.precision_den if counts.precision_den else 0
    f1 = 2 * precision * recall / (precision + recall) if recall + precision else 0
    return recall, precision, f1


def _blanc(counts: BlancCounts) -> tuple[float, float, float]:
    """BLANC of summed link counts, as the reference's ScoreBLANC computes it (a link type the key
    has no link of is left out; -1 marks it)."""
    c, n = counts.coreference, counts.non_coreference
    recall_c = c.recall_num / c.recall_den if c.recall_den else -1
    recall_n = n.recall_num / n.recall_den if n.recall_den else -1
    precision_c = c.precision_num / c.precision_den if c.precision_den else 0
    precision_n = n.precision_num / n.precision_den if n.precision_den else 0
    f_c = 2 * precision_c * recall_c / (precision_c + recall_c) if precision_c + recall_c else 0
    f_n = 2 * precision_n * recall_n / (precision_n + recall_n) if precision_n + recall_n else 0
    if recall_c == -1 and recall_n == -1:
        return 0, 0, 0
    if recall_c == -1:
        return recall_n, precision_n, f_n
    if recall_n == -1:
        return recall_c, precision_c, f_c
    return (recall_c + recall_n) / 2, (precision_c + precision_n) / 2, (f_c + f_n) / 2


def _show(
    recall_num: float, recall_den: float, precision_num: float, precision_den: float, f1: float | None = None
) -> str:
    """ShowRPF: counts and truncated percentages, then a rule."""
    recall = recall_num / recall_den if recall_den else 0
    precision = precision_num / precision_den if precision_den else 0
    if f1 is None:
        f1 = 2 * precision * recall / (precision + recall) if recall + precision else 0
    return (
        f"Recall: ({_perl(recall_num)} / {_perl(recall_den)}) {_percent(recall)}%"
        f"\tPrecision: ({_perl(precision_num)} / {_perl(precision_den)}) {_percent(precision)}%"
        f"\tF1: {_percent(f1)}%\n{_RULE}\n"
    )


def _percent(ratio: float) -> str:
    """``int($x * 10000) / 100``: truncated, not rounded, to two decimals."""
    return _perl(math.trunc(ratio * 10000) / 100)


def _perl(value: float) -> str:
    """A number as Perl prints it: integers whole, others with 15 significant digits."""
    if isinstance(value, int) or (float(value).is_integer() and abs(value) < 1e15):
        return str(int(value))
    return f"{value:.15g}"
