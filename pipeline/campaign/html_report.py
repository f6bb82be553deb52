"""One self-contained HTML page per evaluation campaign: leaderboard, plots, heat map, significance, texts.

The page opens without a network: CSS, JavaScript and the SVG plots are inline, and its Content Security
Policy (``default-src 'none'``, the one script allowed by its hash) refuses anything else, so neither a
forgotten link nor text smuggled in through the data can load or run anything. The plots and the heat
map are static HTML and SVG rendered here; the leaderboard, the significance matrix and the per-document
view are drawn in the browser from data embedded once as JSON (``board-data``: each system's name once,
the board's cells column by column, one bit per pair; ``data``: the per-document view). The leaderboard
draws only the rows in view, so a board of a thousand systems opens and scrolls as fast as one of ten;
the plots and the heat map show the best ``PLOT_SYSTEMS`` and ``HEAT_SYSTEMS``.

Every string that comes from the campaign (titles, system, type and slot names, signatures) goes through
``html.escape(quote=True)`` where it is written into the HTML; in the JSON (names, signatures, document
texts and fills) ``<``, ``>`` and ``&`` are written as ``\\u003c``, ``\\u003e`` and ``\\u0026`` so no text
can close the script element, and the browser puts them on screen with ``textContent``, ``createTextNode``
and ``new Option``, never as markup.

Sizes: the JSON holds each document text once, the reference fills of a document once (whatever the number
of systems), every other string once in a string table, and a pairing as seven integers. 100 systems x 100
documents x 30 pairings make a page of about 11 MB.

One renderer serves every campaign kind: the header, leaderboard, heat map and significance matrix are the
same for all, and a family adds its own sections (``CampaignReport.sections``, from its
``CampaignKind.sections``): ``pairings`` (templette and MUC: the counts on the leaderboard, the
precision-recall plot, the per-document pairings), ``objects`` (MUC: object pairings listed before the
fills), ``chains`` (coreference: each document's key and response chains).

Measures are given as fractions of 1 (``None`` or NaN = undefined) and printed in the kind's unit: as
percentages with one decimal, or as fractions with four; undefined values print as ``-``. Cells of the
significance matrix are marked where the Holm-adjusted randomization p-value is below alpha.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.lookup import positions
from iescore.schemas import C

FIELDS_PER_PAIRING = 7  # type, slot, reference fill, hypothesis fill, categories, hyp start, hyp length
FIELDS_PER_REFERENCE = 5  # type, slot, fill, start, length


@dataclass(frozen=True)
class SystemRow:
    """One leaderboard row.

    ``counts`` has COR INC PAR MIS SPU NON POS ACT; ``measures`` has REC PRE F UND OVG SUB ERR as fractions
    of 1 (``None`` = undefined); ``intervals`` maps REC PRE F to the (low, high) bootstrap confidence
    interval, fractions too; ``signature`` is the score's signature.
    """

    rank: int
    system: str
    counts: dict[str, int]
    measures: dict[str, float | None]
    intervals: dict[str, tuple[float | None, float | None]]
    signature: str


@dataclass(frozen=True)
class Pairing:
    """One fill pairing of one system in one document.

    ``ref`` is ``None`` for a spurious fill and ``hyp`` is ``None`` for a missing one; both are the fills as
    written (``'"General Motors" ##22#36#'``). Spans are half-open ``[start, end)`` character offsets into
    the reference document text (``DocumentView.text``), ``None`` when the fill has no extent there.
    ``categories`` is e.g. ``"content:COR extent:INC"``: a pairing is a disagreement unless every
    category in it is COR (see ``is_disagreement``).
    """

    instance_type: str
    slot: str | None
    ref: str | None
    hyp: str | None
    ref_span: tuple[int, int] | None
    hyp_span: tuple[int, int] | None
    categories: str


@dataclass(frozen=True)
class DocumentView:
    """One document: its id, its reference text (raw SGML, may hold markup) and each system's pairings."""

    doc_id: str
    text: str
    pairings: dict[str, list[Pairing]]


@dataclass(frozen=True)
class CorefMention:
    """A mention of a coreference chain: its text, its extent (tokens or characters, half-open) and its
    status: COR (in both key and response), MIS (key only), SPU (response only), OPT (optional, absent)."""

    text: str
    start: int
    end: int
    status: str


@dataclass(frozen=True)
class CorefView:
    """One document of a coreference campaign: the key's chains, and each system's response chains.

    ``split[system]`` lists the key chains whose mentions the system does not keep in one chain (split
    over several response chains, or missing); ``merged[system]`` the response chains whose
    mentions come from several key chains (or are partly spurious). Their mentions are highlighted.
    """

    doc_id: str
    key: list[list[CorefMention]]
    responses: dict[str, list[list[CorefMention]]]
    split: dict[str, list[int]]
    merged: dict[str, list[int]]


@dataclass(frozen=True)
class UtteranceBlock:
    """One utterance of a system's alignment (the ``alignments`` section): its id, speaker, counts
    (C, S, D, I) and its sclite ``.pra`` block (REF, HYP and Eval lines; errors in upper case)."""

    utterance: str
    speaker: str
    counts: tuple[int, int, int, int]
    block: str


@dataclass(frozen=True)
class AlignmentsView:
    """The ``alignments`` section of a WER campaign: the headline by stm label (``labels`` in their
    order; ``by_label``: system -> label -> value, fractions of 1, None undefined) and each system's
    alignment of the first utterances (``blocks``: system -> its utterances), of ``utterances_total``."""

    labels: list[str]
    by_label: dict[str, dict[str, float | None]]
    blocks: dict[str, list[UtteranceBlock]]
    utterances_total: int


@dataclass(frozen=True)
class CampaignReport:
    """Everything the page shows.

    ``leaderboard`` is best first. ``slot_f`` maps system -> ``"TYPE.SLOT"`` -> F for the heat map.
    ``significance`` maps ``(a, b)`` to (F(a) - F(b), paired bootstrap p, approximate randomization p);
    a missing ``(a, b)`` is read from ``(b, a)`` with the difference negated. ``documents`` may hold
    fewer documents than the campaign's ``documents_total`` (the page says so). ``resamples`` and ``seed``
    are the bootstrap's; cells of the significance matrix are marked where the approximate randomization
    p-value is below ``alpha``. ``beta`` is the F-measure's: other than 1, F is named ``F2``, ``F0.5``...
    """

    title: str
    signature_note: str
    leaderboard: list[SystemRow]
    slot_f: dict[str, dict[str, float | None]]
    significance: dict[tuple[str, str], tuple[float | None, float | None, float | None]]
    documents: list[DocumentView]
    documents_total: int
    resamples: int
    seed: int
    alpha: float = 0.05
    beta: float = 1.0
    #: The leaderboard's ranking measure: a key of ``SystemRow.measures`` and ``intervals``, its label.
    headline: str = "F"
    headline_label: str | None = None
    #: The ``chains`` section's documents (a coreference campaign's key and response chains).
    coref: list[CorefView] | None = None
    #: The leaderboard's measure columns of a page without ``pairings`` (key of ``SystemRow.measures`` ->
    #: label), in the kind's order.
    columns: dict[str, str] | None = None
    #: What the bootstrap resamples (documents, instances, queries) and what the heat map's columns are.
    unit: str = "documents"
    categories: str = "slot"
    #: Why the headline ranks (the kind's sentence under its leaderboard).
    ranking_note: str = ""
    #: More p-values of each pair, by name ("randomization Holm", and for a mean over units "t-test",
    #: "t-test Holm"), shown in its significance cell; a missing ``(a, b)`` is read from ``(b, a)``.
    corrected: dict[tuple[str, str], dict[str, float | None]] | None = None
    #: The correction for multiple comparisons of ``corrected``'s "... Holm" values; with it, cells are
    #: marked where the corrected randomization p-value is below alpha.
    correction: str | None = None
    #: Measures shown in percent (else as fractions of 1, the kind's unit).
    percent: bool = True
    #: The family's own sections (see the module doc; a kind's page gives its kind's).
    sections: tuple[str, ...] = ("pairings",)
    #: What the page says when the campaign has too few units for its statistics to mean much.
    few_units: str | None = None
    #: The per-document view's pairings as one table (``schemas.PAGE_VIEW`` with a ``system`` column,
    #: each system's rows in its mapping order), standing in for ``DocumentView.pairings`` (then empty):
    #: the same page, built column by column (a campaign page holds systems x documents x fills).
    pairing_rows: pa.Table | None = None
    #: The per-document view's JSON made before the page was (``embedded_rows``): used when it was made
    #: from this report's ``documents`` and ``pairing_rows`` (the same objects) in the page's system
    #: order; otherwise the page makes its own.
    embedded: EmbeddedRows | None = None
    #: Each system's rank range over the bootstrap's resamples (best, worst) and its rank cluster, by
    #: system (the leaderboard shows them when given).
    ranks: dict[str, tuple[int, int, int]] | None = None
    #: Whether each pair of the page's systems (``_system_order``: best first) differs significantly,
    #: one bool per pair in the order (0, 1), (0, 2), ..., (1, 2), ...: the marks of the significance
    #: matrix. None: read from ``significance`` and ``corrected`` (a pair they do not give: not marked).
    #: ``significance`` and ``corrected`` need only give the pairs the page shows with their p-values:
    #: each system with the next one down, and the pairs among the first ``MATRIX_DETAILED`` systems.
    marks: np.ndarray | None = None
    #: The ``alignments`` section's data (a WER campaign: the headline by label, each system's
    #: alignment by utterance).
    alignments: AlignmentsView | None = None
    #: The family's own pair tests shown in the significance cells, by the name ``corrected`` gives
    #: their p-values under: name -> (short label in a cell, what the legend calls it).
    pair_tests: dict[str, tuple[str, str]] | None = None
    #: What the page says under its leaderboard when the campaign's resamples are too few for any pair to
    #: be significant after the correction (the text board's note).
    holm_floor: str | None = None
    #: The output directory's file beside significance.parquet that also lists every pair, as the board
    #: names it (significance.csv for campaigns up to 100 systems; beyond, the Parquet file alone).
    pairs_file: str = "significance.csv"

    @property
    def label(self) -> str:
        """The headline's name on the page: F (with its beta), or e.g. CoNLL F1."""
        return self.headline_label or ("F" if self.beta == 1 else f"F{self.beta:g}")


#: The sections a family may add to its page.
FAMILY_SECTIONS = ("pairings", "objects", "chains", "alignments")
#: The significance matrix first shows this many systems (the best); the reader chooses others.
MATRIX_SHOWN = 20
#: The matrix's cells show p-values for pairs among this many best systems (marks for every pair).
MATRIX_DETAILED = 100
#: The heat map shows this many best systems.
HEAT_SYSTEMS = 100
#: The interval plot and the precision-recall plot draw this many best systems.
PLOT_SYSTEMS = 100


def render_campaign_html(report: CampaignReport) -> str:
    """The campaign's page as one HTML string (write it as UTF-8); ValueError on inconsistent input.

    Every page has the header, leaderboard (with the headline's interval plot), heat map and significance
    matrix; ``pairings`` adds the counts to the leaderboard, the precision-recall plot and the per-document
    pairings, ``chains`` the per-document chains. A page without a per-document view runs no script: its
    policy allows none."""
    _validate(report)
    systems = _system_order(report)
    pairings = "pairings" in report.sections
    chains = "chains" in report.sections
    script = _BOARD_SCRIPT + "\n" + (_SCRIPT if pairings else _COREF_SCRIPT if chains else "")
    if chains:
        payload = script_json(_coref_data(report, systems))
    elif pairings and report.pairing_rows is not None:
        embedded = report.embedded
        if embedded is None or not embedded.made_from(report) or embedded.systems != tuple(systems):
            embedded = embedded_rows(report.documents, report.pairing_rows, systems)
        payload = embedded.payload
    else:
        payload = script_json(_embedded_data(report, systems)) if pairings else ""
    allowed = f"'sha256-{base64.b64encode(hashlib.sha256(script.encode('utf-8')).digest()).decode('ascii')}'"
    policy = (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src {allowed}; "
        "base-uri 'none'; form-action 'none'"
    )
    ranked = sorted(report.leaderboard, key=lambda row: row.rank)
    style = _CSS + "\n" + _COREF_CSS if chains else _CSS
    if pairings or chains:
        shown = len(report.coref) if chains and report.coref is not None else len(report.documents)
        legend = (
            f"{len(systems)} systems; {shown} of {report.documents_total} documents "
            f"embedded for the per-document view; bootstrap: {report.resamples} resamples, seed "
            f"{report.seed}; &alpha; = {_e(_number(report.alpha))}."
        )
    else:
        legend = (
            f"{len(systems)} systems; {report.documents_total} {_e(report.unit)}; "
            f"bootstrap over {_e(report.unit)}: {report.resamples} resamples, seed {report.seed}; "
            f"&alpha; = {_e(_number(report.alpha))}."
        )
    if pairings:
        heat = f"{report.label} by slot"
    elif chains:
        heat = "F1 by metric"
    else:
        heat = f"{_e(report.label)} by {_e(report.categories)}"
    nav = (
        '<nav><a href="#leaderboard">Leaderboard</a> &middot; '
        + ('<a href="#pr">Precision and recall</a> &middot; ' if pairings else "")
        + f'<a href="#heatmap">{heat}</a> &middot; <a href="#significance">Significance</a>'
        + (' &middot; <a href="#documents">Documents</a>' if pairings or chains else "")
        + (
            ' &middot; <a href="#labels">By label</a> &middot; <a href="#alignments">Alignments</a>'
            if "alignments" in report.sections and report.alignments is not None
            else ""
        )
        + "</nav>\n</header>\n"
    )
    few = f'<p class="note">{_e(report.few_units)}.</p>\n' if report.few_units else ""
    if pairings:
        documents = _documents_section(report)
    elif chains:
        documents = _coref_documents_section(report)
    elif "alignments" in report.sections and report.alignments is not None:
        documents = _alignments_section(report, systems)
    else:
        documents = ""
    board = _pairings_board(report, ranked) if pairings else _measures_board(report, ranked)
    board_data = script_json(_board_data(report, systems, board))
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        f'<meta http-equiv="Content-Security-Policy" content="{_e(policy)}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f"<title>{_e(report.title)}</title>\n<style>{style}</style>\n</head>\n<body>\n",
        f"<header><h1>{_e(report.title)}</h1>\n",
        f'<p class="note">{_e(report.signature_note)}</p>\n',
        f'<p class="legend">{legend}</p>\n',
        few,
        nav,
        (_leaderboard_section if pairings else _measures_leaderboard_section)(report, ranked, board),
        _precision_recall_section(ranked, report.beta, report.label) if pairings else "",
        _heat_map_section(report, systems),
        _significance_section(report, systems),
        documents,
        f'<script type="application/json" id="board-data">{board_data}</script>\n',
    ]
    if pairings or chains:
        parts.append(f'<script type="application/json" id="data">{payload}</script>\n')
    parts.append(f"<script>{script}</script>\n")
    parts.append("</body>\n</html>\n")
    return "".join(parts)


def is_disagreement(categories: str) -> bool:
    """True unless every category of ``categories`` (``"content:COR extent:INC"``, or bare ``"COR"``) is COR
    or NON: an optional or unscored fill (NON) enters no measure, so it disagrees with nothing.

    An empty string is a disagreement: a pairing that was scored has at least one category.
    """
    tokens = categories.split()
    return not tokens or any(token.rsplit(":", 1)[-1].upper() not in ("COR", "NON") for token in tokens)


def script_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` are escaped.

    JSON.parse reads ``\\u003c`` back as ``<``, so the data is unchanged, while ``</script>`` or
    ``<!--`` in any string can no longer end or alter the element.
    """
    return _script_safe(json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False))


def _script_safe(text: str) -> str:
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# ---------------------------------------------------------------------------------------------- checks


def _validate(report: CampaignReport) -> None:
    if not 0 < report.alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {report.alpha!r}")
    if not (math.isfinite(report.beta) and report.beta > 0):
        raise ValueError(f"beta must be a positive number, got {report.beta!r}")
    if report.documents_total < len(report.documents):
        raise ValueError(
            f"documents_total is {report.documents_total} but {len(report.documents)} documents are given"
        )
    names = [row.system for row in report.leaderboard]
    if len(set(names)) != len(names):
        raise ValueError(f"a system appears twice in the leaderboard: {sorted(names)}")
    if report.pairing_rows is not None and not (report.embedded and report.embedded.made_from(report)):
        _validate_rows(report.documents, report.pairing_rows)
    seen: set[str] = set()
    for document in report.documents:
        if document.doc_id in seen:
            raise ValueError(f"document {document.doc_id!r} appears twice")
        seen.add(document.doc_id)
        for system, pairings in document.pairings.items():
            for pairing in pairings:
                for name, span in (("ref_span", pairing.ref_span), ("hyp_span", pairing.hyp_span)):
                    if span is not None and not 0 <= span[0] <= span[1] <= len(document.text):
                        raise ValueError(
                            f"document {document.doc_id!r}, system {system!r}: {name} {span} is outside "
                            f"the text's [0, {len(document.text)}) or ends before it starts"
                        )


def _system_order(report: CampaignReport) -> list[str]:
    """Leaderboard systems by rank, then any system only named elsewhere, by name."""
    ranked = [row.system for row in sorted(report.leaderboard, key=lambda row: row.rank)]
    others: set[str] = set(report.slot_f)
    for a, b in report.significance:
        others.update((a, b))
    for document in report.documents:
        others.update(document.pairings)
    if report.pairing_rows is not None:
        others.update(pc.unique(report.pairing_rows.column(C.system)).to_pylist())
    return ranked + sorted(others - set(ranked))


def _validate_rows(documents: list[DocumentView], rows: pa.Table) -> None:
    """``_validate``'s span check over ``pairing_rows``: every span inside its document's text."""
    lengths = {document.doc_id: len(document.text) for document in documents}
    doc_ids = rows.column(C.doc_id)
    position = positions(doc_ids, list(lengths))
    if (position < 0).any():
        unknown = sorted(set(pc.unique(doc_ids.filter(pa.array(position < 0))).to_pylist()), key=str)
        raise ValueError(f"pairings of document {unknown[0]!r}, which is not among the documents shown")
    length = np.array(list(lengths.values()), dtype=np.int64)[position]
    for side, start_column, end_column in (("ref", C.ref_start, C.ref_end), ("hyp", C.hyp_start, C.hyp_end)):
        start, end = rows.column(start_column), rows.column(end_column)
        shown = pc.is_valid(start).to_numpy(zero_copy_only=False)
        first = pc.fill_null(start, 0).to_numpy()
        last = pc.fill_null(end, -1).to_numpy()
        bad = shown & ~((first >= 0) & (first <= last) & (last <= length))
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            span = (start[row].as_py(), end[row].as_py())
            document, system = doc_ids[row].as_py(), rows.column(C.system)[row].as_py()
            raise ValueError(
                f"document {document!r}, system {system!r}: {side}_span "
                f"{span} is outside the text's [0, {length[row]}) or ends before it starts"
            )


# ----------------------------------------------------------------------------------- embedded data


class _StringTable:
    """Each distinct string once; the page refers to strings by index."""

    def __init__(self) -> None:
        self.strings: list[str] = []
        self._index: dict[str, int] = {}

    def add(self, value: str | None) -> int:
        if value is None:
            return -1
        index = self._index.get(value)
        if index is None:
            index = self._index[value] = len(self.strings)
            self.strings.append(value)
        return index


def _embedded_data(report: CampaignReport, systems: list[str]) -> dict[str, Any]:
    """The JSON for section 5: string table, and per document its text, reference fills and each system's
    pairings (systems in the order ``systems``, the page's list in ``board-data``).

    A document's reference fills (type, slot, fill, span) are listed once for all systems; a pairing
    points into that list. Offsets are converted to UTF-16 code units, which is what JavaScript strings
    count, so characters outside the Basic Multilingual Plane do not shift the highlighting.
    """
    everything = [
        pairing
        for document in report.documents
        for pairings in document.pairings.values()
        for pairing in pairings
    ]
    table = _StringTable()
    # Types, slots and categories first: they recur in every row, so their indexes stay short.
    for value in sorted({pairing.instance_type for pairing in everything}):
        table.add(value)
    for value in sorted({pairing.slot for pairing in everything if pairing.slot is not None}):
        table.add(value)
    categories = sorted({pairing.categories for pairing in everything})
    disagreeing = [table.add(value) for value in categories if is_disagreement(value)]
    for value in categories:
        table.add(value)
    system_index = {name: index for index, name in enumerate(systems)}
    documents = []
    for document in report.documents:
        offset = _utf16_offsets(document.text)
        references: list[int] = []
        reference_index: dict[tuple[str, str | None, str, tuple[int, int] | None], int] = {}
        rows: list[list[int]] = [[] for _ in systems]
        for system in sorted(document.pairings, key=system_index.__getitem__):
            flat = rows[system_index[system]]
            for pairing in document.pairings[system]:
                ref = -1
                if pairing.ref is not None:
                    key = (pairing.instance_type, pairing.slot, pairing.ref, pairing.ref_span)
                    ref = reference_index.get(key, -1)
                    if ref < 0:
                        ref = reference_index[key] = len(reference_index)
                        start, length = _span(pairing.ref_span, offset)
                        references += [
                            table.add(pairing.instance_type),
                            table.add(pairing.slot),
                            table.add(pairing.ref),
                            start,
                            length,
                        ]
                start, length = _span(pairing.hyp_span, offset)
                flat += [
                    table.add(pairing.instance_type),
                    table.add(pairing.slot),
                    ref,
                    table.add(pairing.hyp),
                    table.add(pairing.categories),
                    start,
                    length,
                ]
        documents.append({"id": document.doc_id, "text": document.text, "refs": references, "pairings": rows})
    return {
        "strings": table.strings,
        "disagreeing": disagreeing,
        "documents": documents,
    }


@dataclass(frozen=True, eq=False)
class EmbeddedRows:
    """The per-document view's JSON (``payload``) made from ``documents`` and ``rows`` (checked: every
    span inside its text) for the page's systems in the order ``systems``."""

    documents: list[DocumentView]
    rows: pa.Table
    systems: tuple[str, ...]
    payload: str

    def made_from(self, report: CampaignReport) -> bool:
        """Made from ``report``'s own documents and pairing rows (the objects, not equal copies)."""
        return self.documents is report.documents and self.rows is report.pairing_rows


def embedded_rows(documents: list[DocumentView], rows: pa.Table, systems: Sequence[str]) -> EmbeddedRows:
    """The per-document view's JSON of a page showing ``documents`` whose systems are in the order
    ``systems`` (``_system_order``), from its pairing rows (``CampaignReport.pairing_rows``), which are
    checked first. A campaign makes it before its summary is done, in the order the summary will rank
    the systems; the page uses it when that is the order (``CampaignReport.embedded``)."""
    _validate_rows(documents, rows)
    return EmbeddedRows(documents, rows, tuple(systems), _embedded_rows(documents, rows, list(systems)))


def _embedded_rows(documents: list[DocumentView], rows: pa.Table, systems: list[str]) -> str:
    """``script_json(_embedded_data(...))`` from the pairing rows, with whole columns: the same
    text, byte for byte. The numbers are written by Arrow, a group of rows at a time; only the strings
    go through ``json.dumps``.

    The rows are put in the order the loop visits pairings (documents in page order, systems in ``systems``
    order, each system's rows in order). The string table starts as the loop's does (types, slots,
    disagreeing categories, categories, each sorted); the loop then adds, pairing by pairing, the
    reference fill of a reference not seen before in that document and the hypothesis fill, a string
    taking the next index the first time it comes: a dictionary encoding numbers them in that order.
    A reference's number in its document is the order in which its (type, slot, fill, span) first comes.
    """
    doc_ids = [document.doc_id for document in documents]
    doc_pos = positions(rows.column(C.doc_id), doc_ids)
    sys_pos = positions(rows.column(C.system), systems)
    order = np.lexsort((np.arange(rows.num_rows), sys_pos, doc_pos))
    rows = rows.take(pa.array(order))
    doc_pos, sys_pos = doc_pos[order], sys_pos[order]
    table = _StringTable()
    for value in sorted(pc.unique(rows.column(C.instance_type)).to_pylist()):
        table.add(value)
    for value in sorted(pc.unique(pc.drop_null(rows.column(C.slot))).to_pylist()):
        table.add(value)
    categories = sorted(pc.unique(rows.column(C.categories)).to_pylist())
    disagreeing = [table.add(value) for value in categories if is_disagreement(value)]
    for value in categories:
        table.add(value)
    type_index, slot_index, category_index = (
        positions(rows.column(name), table.strings) for name in (C.instance_type, C.slot, C.categories)
    )

    def ends(start_column: str, end_column: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        start = rows.column(start_column)
        present = pc.is_valid(start).to_numpy(zero_copy_only=False)
        first = pc.fill_null(start, -1).to_numpy()
        last = pc.fill_null(rows.column(end_column), -1).to_numpy()
        return present, np.where(present, first, -1), np.where(present, last, -1)

    ref_present, ref_first, ref_last = ends(C.ref_start, C.ref_end)
    hyp_present, hyp_first, hyp_last = ends(C.hyp_start, C.hyp_end)
    refs = rows.column(C.ref).combine_chunks()
    hyps = rows.column(C.hyp).combine_chunks()
    has_ref = pc.is_valid(refs).to_numpy(zero_copy_only=False)
    has_hyp = pc.is_valid(hyps).to_numpy(zero_copy_only=False)
    # Each reference (document, type, slot, fill, span) numbered in order of first appearance: the
    # strings as numbers first (Arrow numbers a dictionary's values in order of first appearance).
    ref_code = pc.fill_null(pc.dictionary_encode(refs).indices, -1).to_numpy(zero_copy_only=False)
    keys = np.stack([doc_pos, type_index, slot_index, ref_code, ref_first, ref_last], axis=1)[has_ref]
    reference_group, repeated = _groups_in_order(keys)
    new_reference = np.zeros(rows.num_rows, dtype=bool)
    new_reference[np.flatnonzero(has_ref)] = ~repeated
    reference_number = np.full(rows.num_rows, -1, dtype=np.int64)
    if len(reference_group):
        # Rows are in document order, so are their groups: a document's first group is its smallest.
        owner = keys[:, 0]
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        first_of_document = np.repeat(
            np.minimum.reduceat(reference_group, starts), np.diff(np.r_[starts, len(owner)])
        )
        reference_number[has_ref] = reference_group - first_of_document
    # The strings the loop adds, in the order it adds them: a new reference's fill, then the hypothesis;
    # numbered after the table's first strings in order of first appearance.
    added = np.zeros(2 * rows.num_rows, dtype=bool)
    added[0::2], added[1::2] = new_reference, has_hyp
    interleaved = np.empty(2 * rows.num_rows, dtype=np.int64)
    interleaved[0::2] = np.arange(rows.num_rows)
    interleaved[1::2] = np.arange(rows.num_rows) + rows.num_rows
    sequence = pa.concat_arrays(
        [pa.array(table.strings, pa.string()), refs.cast(pa.string()), hyps.cast(pa.string())]
    )
    wanted = np.concatenate([np.arange(len(table.strings)), len(table.strings) + interleaved[added]])
    encoded = pc.dictionary_encode(sequence.take(pa.array(wanted)))
    strings = encoded.dictionary.to_pylist()
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    coded = np.full(2 * rows.num_rows, -1, dtype=np.int64)
    coded[added] = codes[len(table.strings) :]
    ref_string, hyp_string = coded[0::2], coded[1::2]

    # Spans in UTF-16 code units: a document with characters outside the Basic Multilingual Plane has
    # its offsets converted (``_span``); in the others a character is one unit.
    bounds = np.searchsorted(doc_pos, np.arange(len(doc_ids) + 1))
    spans = []
    for present, first, last in ((ref_present, ref_first, ref_last), (hyp_present, hyp_first, hyp_last)):
        first, last = first.copy(), last.copy()
        for position, document in enumerate(documents):
            offset = _utf16_offsets(document.text)
            low, high = bounds[position], bounds[position + 1]
            if offset is None or high == low:
                continue
            units = np.array(offset, dtype=np.int64)
            part = present[low:high]
            first[low:high] = np.where(part, units[np.where(part, first[low:high], 0)], -1)
            last[low:high] = np.where(part, units[np.where(part, last[low:high], 0)], -1)
        spans.append((np.where(present, first, -1), np.where(present, last - first, 0)))
    (ref_start, ref_length), (hyp_start, hyp_length) = spans
    pairings = np.stack(
        [type_index, slot_index, reference_number, hyp_string, category_index, hyp_start, hyp_length], axis=1
    )
    references = np.stack([type_index, slot_index, ref_string, ref_start, ref_length], axis=1)[new_reference]
    # The numbers of each (document, system) group of rows, and of each document's new references, as
    # the comma-separated text JSON writes them, made by Arrow for all groups at once.
    shown = (doc_pos >= 0) & (doc_pos < len(doc_ids))
    group_start = np.flatnonzero(
        shown & np.r_[True, (doc_pos[1:] != doc_pos[:-1]) | (sys_pos[1:] != sys_pos[:-1])]
    )
    group_end = np.r_[group_start[1:], rows.num_rows]
    pairing_text = _joined(pairings, group_start, group_end)
    cells = np.full((len(doc_ids), len(systems)), "", dtype=object)
    cells[doc_pos[group_start], sys_pos[group_start]] = pairing_text
    reference_doc = doc_pos[new_reference]
    reference_bounds = np.searchsorted(reference_doc, np.arange(len(doc_ids) + 1))
    reference_text = _joined(references, reference_bounds[:-1], reference_bounds[1:])

    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)

    documents = [
        f'{{"id":{dumps(document.doc_id)},"text":{dumps(document.text)},"refs":[{reference_text[position]}],'
        f'"pairings":[[{"],[".join(cells[position])}]]}}'
        for position, document in enumerate(documents)
    ]
    text = (
        f'{{"strings":{dumps(strings)},"disagreeing":{dumps(disagreeing)},'
        f'"documents":[{",".join(documents)}]}}'
    )
    return _script_safe(text)


def _groups_in_order(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row of the integer matrix ``keys``, the number of its group of equal rows, groups numbered
    in order of first appearance; and whether the row repeats an earlier one.

    The columns are folded into one integer a column at a time (mixed radix, each column's range its
    radix), the partial key ranked densely first whenever the next column would overflow it.
    """
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    flat = np.zeros(len(keys), dtype=np.int64)
    for column in keys.T:
        low = int(column.min())
        span = int(column.max()) - low + 1
        if (int(flat.max()) + 1) * span >= 1 << 62:
            flat = np.unique(flat, return_inverse=True)[1].reshape(-1).astype(np.int64)
        flat = flat * span + (column - low)
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    number = np.empty(len(first), dtype=np.int64)
    number[np.argsort(first, kind="stable")] = np.arange(len(first))
    repeated = np.ones(len(keys), dtype=bool)
    repeated[first] = False
    return number[inverse.reshape(-1)], repeated


def _joined(numbers: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> list[str]:
    """For each row range ``[start, end)`` of the integer matrix ``numbers`` (ranges one after the other,
    each starting where the one before ends), its values row by row as ``1,2,3``: what JSON writes inside
    a list's brackets; an empty range is the empty string."""
    if len(starts) == 0:
        return []
    if not np.array_equal(ends[:-1], starts[1:]):
        raise ValueError("row ranges to join must follow one another")
    width = numbers.shape[1]
    values = pa.array(numbers[starts[0] : ends[-1]].ravel()).cast(pa.string())
    offsets = np.r_[starts - starts[0], ends[-1] - starts[0]].astype(np.int32) * width
    return pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), values), ",").to_pylist()


def _utf16_offsets(text: str) -> list[int] | None:
    """UTF-16 offset of every character position of ``text``, or None when every character is one unit."""
    if len(text.encode("utf-16-le")) == 2 * len(text):
        return None
    offsets = [0]
    for character in text:
        offsets.append(offsets[-1] + (2 if ord(character) > 0xFFFF else 1))
    return offsets


def _span(span: tuple[int, int] | None, offset: list[int] | None) -> tuple[int, int]:
    """(start, length) in UTF-16 units; (-1, 0) for no span."""
    if span is None:
        return -1, 0
    start, end = span
    if offset is not None:
        start, end = offset[start], offset[end]
    return start, end - start


# ------------------------------------------------------------------------------------ static sections


def _leaderboard_section(report: CampaignReport, ranked: list[SystemRow], board: _Board) -> str:
    """The leaderboard of a family with ``pairings`` (``board``: ``_pairings_board``), its legend, then the
    interval plot of F."""
    f_name = report.label
    return (
        '<section id="leaderboard"><h2>1. Leaderboard</h2>\n'
        + _board_table(report, board)
        + f'<p class="legend">{_beta_note(report.beta, f_name)}<b>p(next)</b>: p-value of approximate '
        f"randomization over documents for the difference in {f_name} between the system and the next "
        f"one down.{_rank_legend(report)}{_marks_legend(report)}"
        f"{_undefined_note(ranked, ('REC', 'PRE', 'F'), 'F', f_name)}</p>\n"
        + _board_notes(report)
        + _f_interval_plot(ranked, f_name, "F", True)
        + _SIGNATURES
        + "</section>\n"
    )


def _measures_leaderboard_section(report: CampaignReport, ranked: list[SystemRow], board: _Board) -> str:
    """The leaderboard of measures (every family without ``pairings``; ``board``: ``_measures_board``),
    its legend, then the interval plot of the headline."""
    label = report.label
    columns = report.columns or {report.headline: label}
    if "chains" in report.sections:
        legend = (
            f'<p class="legend">Each metric&#8217;s F1 is computed from its counts summed over documents; '
            f"<b>{_e(label)}</b> is the mean of the MUC, B3 and CEAF-e F1 (the CoNLL-2011/2012 shared "
            f"tasks&#8217; score) and ranks the systems. "
        )
    else:
        legend = (
            f'<p class="legend">Every measure is computed from the statistics summed over '
            f"{_e(report.unit)}, {'in percent' if report.percent else 'as a fraction of 1'}; "
            f"{_e(report.ranking_note or 'ranked by ' + label)}. "
        )
    return (
        '<section id="leaderboard"><h2>1. Leaderboard</h2>\n'
        + _board_table(report, board)
        + legend
        + f"<b>p(next)</b>: p-value of approximate "
        f"randomization over {_e(report.unit)} for the difference in {_e(label)} between the system and the "
        f"next one down.{_rank_legend(report)}{_marks_legend(report)}"
        f"{_undefined_note(ranked, tuple(columns), report.headline, label)}</p>\n"
        + _board_notes(report)
        + _f_interval_plot(ranked, label, report.headline, report.percent)
        + _SIGNATURES
        + "</section>\n"
    )


@dataclass(frozen=True)
class _Board:
    """The leaderboard's columns, each once for every row (best first): its heading, the class of its
    cells, and its cells' texts (``None``: the system's name, read from the page's list of systems)."""

    headings: list[str]
    classes: list[str]
    cells: list[list[str] | None]


def _pairings_board(report: CampaignReport, ranked: list[SystemRow]) -> _Board:
    """The leaderboard of a family with ``pairings``: COR INC MIS SPU, REC PRE F in percent, F's interval,
    p(next) and the rank range and cluster."""
    f_name = report.label
    headings = ["Rank", "System", "COR", "INC", "MIS", "SPU", "REC %", "PRE %", f"{f_name} %"]
    headings += [f"{f_name} confidence interval", "p(next)"]
    cells: list[list[str] | None] = [[str(row.rank) for row in ranked], None]
    cells += [[_count(row.counts.get(key)) for row in ranked] for key in ("COR", "INC", "MIS", "SPU")]
    cells += [[_percent(row.measures.get(key)) for row in ranked] for key in ("REC", "PRE", "F")]
    cells.append([_interval(*row.intervals.get("F", (None, None))) for row in ranked])
    cells.append(_p_next(report, ranked))
    return _with_ranks(report, ranked, _Board(headings, _number_classes(headings), cells))


def _measures_board(report: CampaignReport, ranked: list[SystemRow]) -> _Board:
    """The leaderboard of measures: the kind's shown measures in its unit, the headline's interval, p(next)
    and the rank range and cluster."""
    label, percent = report.label, report.percent
    columns = report.columns or {report.headline: label}
    suffix = " %" if percent else ""
    headings = ["Rank", "System", *(f"{name}{suffix}" for name in columns.values())]
    headings += [f"{label} confidence interval", "p(next)"]
    cells: list[list[str] | None] = [[str(row.rank) for row in ranked], None]
    cells += [[_value(row.measures.get(key), percent) for row in ranked] for key in columns]
    cells.append([_interval(*row.intervals.get(report.headline, (None, None)), percent) for row in ranked])
    cells.append(_p_next(report, ranked))
    return _with_ranks(report, ranked, _Board(headings, _number_classes(headings), cells))


def _number_classes(headings: list[str]) -> list[str]:
    """Every column but the system's holds numbers; p(next)'s cells are marked for the tests and styles."""
    return [
        "" if heading == "System" else "num p-next" if heading == "p(next)" else "num" for heading in headings
    ]


def _p_next(report: CampaignReport, ranked: list[SystemRow]) -> list[str]:
    """p(next), as the text leaderboard: approximate randomization against the next system down (blank
    for the last)."""
    shown = []
    for row, lower in zip(ranked, [*ranked[1:], None], strict=True):
        following = None if lower is None else _comparison(report.significance, row.system, lower.system)
        shown.append("" if lower is None else _p(None if following is None else following[2]))
    return shown


def _with_ranks(report: CampaignReport, ranked: list[SystemRow], board: _Board) -> _Board:
    """``board`` with the rank range and the rank cluster of each system, when the report has them."""
    if report.ranks is None:
        return board
    ranges, clusters = [], []
    for row in ranked:
        low, high, cluster = report.ranks[row.system]
        ranges.append(str(low) if low == high else f"{low}\u2013{high}")
        clusters.append(str(cluster))
    headings, classes = [*board.headings, "Rank range", "Cluster"], [*board.classes, "num", "num"]
    return _Board(headings, classes, [*board.cells, ranges, clusters])


def _board_table(report: CampaignReport, board: _Board) -> str:
    """The leaderboard's controls and its table, headings only: the page's script draws the rows in view
    from ``_board_data`` (a thousand rows laid out at once make a page slow to open and to scroll).
    Each column is as wide as its widest cell, so that the columns stay put whichever rows are drawn."""
    names = [row.system for row in sorted(report.leaderboard, key=lambda row: row.rank)]
    widths = []
    for heading, cells in zip(board.headings, board.cells, strict=True):
        texts = names if cells is None else cells
        widest = max((_text_width(text, 14.0) for text in texts), default=0.0)
        word = max(_text_width(part, 14.0) * 1.08 for part in heading.split())  # headings in bold, wrapped
        widths.append(math.ceil(max(widest, word)) + 18)
    columns = " ".join(f"{width}px" for width in widths)
    headings = "".join(
        f'<th class="num">{_e(heading)}</th>' if cls else f"<th>{_e(heading)}</th>"
        for heading, cls in zip(board.headings, board.classes, strict=True)
    )
    clusters = (
        ' <label>Cluster <input type="number" id="board-cluster" min="1" placeholder="all"></label>'
        if report.ranks is not None
        else ""
    )
    return (
        '<div class="controls"><label>Filter systems <input type="search" id="board-filter" '
        f'placeholder="part of a name"></label>{clusters} <span class="legend" id="board-status"></span> '
        '<span class="legend">Click a column&#8217;s heading to sort by it (again: the other way).</span>'
        "</div>\n"
        "<noscript><p><b>The leaderboard needs JavaScript;</b> every row is in leaderboard.txt, "
        "leaderboard.csv and leaderboard.json.</p></noscript>\n"
        f'<div class="scroll rows"><table class="board" style="--columns:{columns};width:{sum(widths)}px">'
        f"<thead><tr>{headings}</tr></thead>\n<tbody></tbody></table></div>\n"
    )


def _board_notes(report: CampaignReport) -> str:
    """What the text board says under its legend and the page says under the leaderboard: that no pair can
    be significant after the correction with the campaign's resamples."""
    return f'<p class="note">{_e(report.holm_floor)}.</p>\n' if report.holm_floor else ""


#: The systems' signatures, listed by the page's script from ``_board_data`` when the reader opens them.
_SIGNATURES = '<details id="signatures"><summary>Signatures</summary><ul class="signatures"></ul></details>\n'


def _rank_legend(report: CampaignReport) -> str:
    if report.ranks is None:
        return ""
    return (
        f" <b>Rank range</b>: the 95% range of the system&#8217;s rank over the {report.resamples} bootstrap "
        "resamples (its ranks&#8217; 2.5% and 97.5% quantiles). <b>Cluster</b>: systems in one cluster are "
        f"not significantly different from the cluster&#8217;s best system ({_e(report.correction or '')}"
        f"-adjusted approximate randomization p &ge; {_e(_number(report.alpha))}); the next cluster starts "
        "at the first system that is."
    )


def _marks_legend(report: CampaignReport) -> str:
    """The board's sentence on what marks a pair in the significance matrix."""
    if not report.correction:
        return ""
    return (
        f" The significance matrix marks a pair where its {_e(report.correction)}-adjusted approximate "
        f"randomization p-value is below &alpha; = {_e(_number(report.alpha))}."
    )


def _undefined_note(ranked: list[SystemRow], keys: tuple[str, ...], headline: str, label: str) -> str:
    """The legend's sentence on undefined values, where the board shows one: what the dash means, and
    where a system whose headline is undefined ranks."""
    if all(_defined(row.measures.get(key)) is not None for row in ranked for key in (*keys, headline)):
        return ""
    note = " &#8220;-&#8221;: undefined (a ratio whose denominator is 0), not 0."
    if any(_defined(row.measures.get(headline)) is None for row in ranked):
        note += f" A system whose {_e(label)} is undefined ranks after all whose {_e(label)} is defined."
    return note


def _coref_documents_section(report: CampaignReport) -> str:
    views = report.coref or []
    documents = "".join(
        f'<option value="{index}">{_e(view.doc_id)}</option>' for index, view in enumerate(views)
    )
    shown = len(views)
    count = (
        f"All {shown} documents of the campaign are embedded."
        if shown == report.documents_total
        else f"{shown} of the campaign&#8217;s {report.documents_total} documents are embedded; "
        "the others are not shown here."
    )
    return (
        '<section id="documents"><h2>4. Documents</h2>\n'
        f'<p class="legend">{count} The key&#8217;s chains (left) and the selected system&#8217;s (right), '
        "one chain a line, each mention with its extent. "
        '<span class="split">A key chain the response splits</span> (over several response chains, or '
        'missing) and <span class="merged">a response chain that merges key chains</span> (or holds '
        'spurious mentions) are highlighted; <span class="mis">missing</span> and '
        '<span class="spu">spurious</span> mentions are marked.</p>\n'
        "<noscript><p><b>This section needs JavaScript.</b></p></noscript>\n"
        '<div class="controls"><label>Document <select id="doc-select">'
        f'{documents}</select></label> <label>System <select id="system-select"></select></label> '
        '<span id="doc-status" class="legend"></span></div>\n'
        '<div class="chains"><div><h3>Key</h3><ol id="key-chains"></ol></div>'
        '<div><h3>Response</h3><ol id="response-chains"></ol></div></div>\n</section>\n'
    )


def _coref_data(report: CampaignReport, systems: list[str]) -> dict[str, Any]:
    """The JSON of the coreference view: per document the key's chains once, and per system (leaderboard
    order) its response chains and which chains are split or merged. A mention is ``[text, start, end,
    status]``."""

    def chains(side: list[list[CorefMention]]) -> list[list[list[Any]]]:
        return [[[m.text, m.start, m.end, m.status] for m in chain] for chain in side]

    return {
        "documents": [
            {
                "id": view.doc_id,
                "key": chains(view.key),
                "responses": [
                    {
                        "chains": chains(view.responses.get(system, [])),
                        "split": view.split.get(system, []),
                        "merged": view.merged.get(system, []),
                    }
                    for system in systems
                ],
            }
            for view in report.coref or []
        ],
    }


def _f_interval_plot(ranked: list[SystemRow], f_name: str, key: str, percent: bool) -> str:
    """F of each system as a dot with its confidence interval as a horizontal bar, best at the top.

    The axis covers the values shown (F and interval ends of every system), padded to whole ticks, and
    its title says when it is zoomed. Names are written whole: the names' column is as wide as the
    longest. Only the ``PLOT_SYSTEMS`` best are drawn (the caption says so); the leaderboard has every
    interval.
    """
    everyone, ranked = len(ranked), ranked[:PLOT_SYSTEMS]
    plot_width, value_width, row_height, top = 520, 150, 20, 12
    label_width = max(190, math.ceil(max((_text_width(row.system) for row in ranked), default=0)) + 16)
    height = top + row_height * len(ranked) + 34
    width = label_width + plot_width + value_width
    shown = [
        value
        for row in ranked
        for value in (_defined(row.measures.get(key)), *map(_defined, row.intervals.get(key, (None, None))))
        if value is not None
    ]
    (axis,) = _zoomed_axes([(min(shown), max(shown))] if shown else [(0.0, 1.0)])

    def x(value: float) -> float:
        return axis.position(value, label_width, plot_width)

    unit = " %" if percent else ""
    parts = [
        _x_grid(axis, x, top, top + row_height * len(ranked), f"{f_name} (%)" if percent else f_name, percent)
    ]
    for position, row in enumerate(ranked):
        y = top + row_height * position + row_height / 2
        f = _defined(row.measures.get(key))
        low, high = (_defined(value) for value in row.intervals.get(key, (None, None)))
        title = f"{row.system}: {f_name} {_value(f, percent)}{unit}, interval {_interval(low, high, percent)}"
        parts.append(f"<g><title>{_e(title)}</title>")
        parts.append(f'<text x="{label_width - 8}" y="{y + 4:.1f}" text-anchor="end">{_e(row.system)}</text>')
        if low is not None and high is not None:
            parts.append(
                f'<path class="ci" d="M{x(low):.1f} {y:.1f}H{x(high):.1f}M{x(low):.1f} {y - 5:.1f}v10'
                f'M{x(high):.1f} {y - 5:.1f}v10"/>'
            )
        if f is not None:
            parts.append(f'<circle class="dot" cx="{x(f):.1f}" cy="{y:.1f}" r="4"/>')
        value = (
            "undefined"
            if f is None and low is None and high is None
            else f"{_value(f, percent)} {_interval(low, high, percent)}"
        )
        parts.append(f'<text x="{label_width + plot_width + 10}" y="{y + 4:.1f}">{value}</text></g>')
    return (
        f'<figure><div class="scroll"><svg class="plot" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{"F" if key == "F" else _e(f_name)} with confidence interval per system">'
        f"{''.join(parts)}</svg></div>"
        f"<figcaption>{f_name} (dot) and its bootstrap confidence interval (bar) per system, by rank; the "
        f"axis runs from {_tick(axis.low, percent)} to {_tick(axis.high, percent)}{unit}"
        + (" (zoomed: not the whole scale)." if axis.zoomed else ".")
        + (
            f" The {len(ranked)} best of the {everyone} systems are drawn; the leaderboard has every "
            "interval."
            if everyone > len(ranked)
            else ""
        )
        + "</figcaption></figure>\n"
    )


def _precision_recall_section(ranked: list[SystemRow], beta: float, f_name: str) -> str:
    """Precision against recall, one point per system, with dashed curves of equal F.

    The axes zoom to the systems' range (same width on both, so distances compare), and their titles say
    so; points are drawn inside the frame, never on it. Systems with the same recall and precision are
    one point, labelled with all their ranks: identical systems look identical. Up to ``NAMED_POINTS``
    points, every system is named in a column right of the plot, in the order of the points' heights,
    joined to its point by a thin line. Beyond, each point is labelled with its rank beside it where a
    place is free and nearer its own point than any other (``_rank_labels``); the others are named in the
    column, and no label beside a point lies across a line to the column. Only the ``PLOT_SYSTEMS`` best
    are plotted (the caption says so).
    """
    everyone, ranked = len(ranked), ranked[:PLOT_SYSTEMS]
    plotted = []
    unplotted = []
    for row in ranked:
        recall, precision = _defined(row.measures.get("REC")), _defined(row.measures.get("PRE"))
        if recall is None or precision is None:
            unplotted.append(row.system)
        else:
            plotted.append((row, recall, precision))
    if plotted:
        recalls = [recall for _, recall, _ in plotted]
        precisions = [precision for _, _, precision in plotted]
        x_axis, y_axis = _zoomed_axes([(min(recalls), max(recalls)), (min(precisions), max(precisions))])
    else:
        x_axis, y_axis = _zoomed_axes([(0.0, 1.0), (0.0, 1.0)])
    # The more distinct points, the larger the plot (up to 800 px), so that their labels fit beside them.
    distinct = len({(recall, precision) for _, recall, precision in plotted})
    size = min(800, max(440, 10 * round(10 * math.sqrt(distinct))))
    left, top, margin, line, inset = 56, 24, 40, 15, _INSET
    labels_x = left + size + margin

    def x(value: float) -> float:
        return x_axis.position(value, left + inset, size - 2 * inset)

    def y(value: float) -> float:
        return y_axis.position(value, top + size - inset, -(size - 2 * inset))

    parts = [f'<rect class="frame" x="{left}" y="{top}" width="{size}" height="{size}"/>']
    for tick in x_axis.ticks():
        parts.append(f'<path class="grid" d="M{x(tick):.1f} {top}V{top + size}"/>')
        parts.append(
            f'<text class="tick-x" x="{x(tick):.1f}" y="{top + size + 16}" text-anchor="middle">'
            f"{_tick(tick)}</text>"
        )
    for tick in y_axis.ticks():
        parts.append(f'<path class="grid" d="M{left} {y(tick):.1f}H{left + size}"/>')
        parts.append(
            f'<text class="tick-y" x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">'
            f"{_tick(tick)}</text>"
        )
    parts.append(
        f'<text class="axis-title" x="{left + size / 2}" y="{top + size + 34}" text-anchor="middle">'
        f"{_axis_title('Recall (%)', x_axis)}</text>"
    )
    parts.append(
        f'<text class="axis-title" x="14" y="{top + size / 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {top + size / 2})">{_axis_title("Precision (%)", y_axis)}</text>'
    )
    parts.extend(_iso_curves(x_axis, y_axis, x, y, beta, f_name, top))
    # One point per distinct (recall, precision), its systems in rank order.
    ties: dict[tuple[float, float], list[int]] = {}
    for index, (_, recall, precision) in enumerate(plotted):
        ties.setdefault((recall, precision), []).append(index)
    groups = list(ties.values())
    centres = [(x(plotted[g[0]][1]), y(plotted[g[0]][2])) for g in groups]
    titles = [
        _e(f"{row.rank}. {row.system}: REC {_percent(recall)} %, PRE {_percent(precision)} %")
        for row, recall, precision in plotted
    ]
    ranks = [", ".join(str(plotted[index][0].rank) for index in group) for group in groups]
    frame = (left, top, left + size + margin - 4, top + size)
    # Labels beside the points where they fit; the rest go to the column, and the labels beside are
    # placed again clear of the column's lines, until no label is left without a place.
    column: set[int] = set() if len(plotted) > NAMED_POINTS else set(range(len(groups)))
    while True:
        listed = sorted(column, key=lambda g: (centres[g][1], -centres[g][0]))
        members = [(g, index) for g in listed for index in groups[g]]
        bottom = max(top + size, top + line * (len(members) - 1))
        rows = _spread([centres[g][1] for g, _ in members], top, bottom, line)
        if len(members) <= _ROUTED:
            rows = _clear_of_points([centres[g] for g, _ in members], rows, centres, labels_x - 4, line)
        bottom = max([bottom, *rows[-1:]])
        leaders = [
            (centres[g][0] + 4, centres[g][1], labels_x - 4, label_y)
            for (g, _), label_y in zip(members, rows, strict=True)
        ]
        beside = _rank_labels(centres, ranks, frame, column, leaders)
        missing = {g for g in range(len(groups)) if g not in column and g not in beside}
        if not missing:
            break
        column |= missing
    names = [_text_width(f"{plotted[index][0].rank}. {plotted[index][0].system}") for _, index in members]
    width, height = max(labels_x + 240, math.ceil(labels_x + 10 + max(names, default=0))), bottom + 44
    labels = []
    for (_, index), label_y in zip(members, rows, strict=True):
        row = plotted[index][0]
        labels.append(
            f'<text class="label" data-system="{_e(row.system)}" data-ranks="{row.rank}" x="{labels_x}" '
            f'y="{label_y + 4:.1f}"><title>{titles[index]}</title>{_e(f"{row.rank}. {row.system}")}</text>'
        )
    for g, (label_x, baseline) in beside.items():
        tip = "&#10;".join(titles[index] for index in groups[g])
        labels.append(
            f'<text class="label" data-ranks="{ranks[g].replace(", ", " ")}" x="{label_x:.1f}" '
            f'y="{baseline:.1f}"><title>{tip}</title>{ranks[g]}</text>'
        )
    if leaders:
        path = "".join(f"M{a:.1f} {b:.1f}L{c:.1f} {d:.1f}" for a, b, c, d in leaders)
        parts.append(f'<path class="leader" d="{path}"/>')
    # Leader lines first, then the points (a tie's systems drawn at one place), then the labels.
    parts.extend(
        f'<circle class="dot" data-system="{_e(plotted[index][0].system)}" '
        f'data-rank="{plotted[index][0].rank}" cx="{cx:.1f}" cy="{cy:.1f}" r="4">'
        f"<title>{titles[index]}</title></circle>"
        for group, (cx, cy) in zip(groups, centres, strict=True)
        for index in group
    )
    parts.extend(labels)
    naming = (
        "named in the column on the right"
        if not beside
        else "labelled with its rank (see the leaderboard)"
        + (", or named in the column on the right where points crowd" if members else "")
    )
    caption = (
        f"Each point is a system, {naming}; dashed curves join points of equal "
        f"{f_name}. Axes: recall {_tick(x_axis.low)}-{_tick(x_axis.high)} %, precision "
        f"{_tick(y_axis.low)}-{_tick(y_axis.high)} %"
        + (" (zoomed: not the whole of 0-100 %)." if x_axis.zoomed or y_axis.zoomed else ".")
    )
    tied = [[plotted[index][0].system for index in group] for group in groups if len(group) > 1]
    if tied:
        caption += (
            " Same recall and precision, one point labelled with every rank: "
            + "; ".join(" and ".join(names) for names in tied)
            + "."
        )
    if unplotted:
        caption += " Not plotted (recall or precision undefined): " + ", ".join(unplotted) + "."
    if everyone > len(ranked):
        caption += f" The {len(ranked)} best of the {everyone} systems are plotted."
    return (
        '<section id="pr"><h2>2. Precision against recall</h2>\n<figure><div class="scroll">'
        f'<svg class="plot" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="Precision against recall">{"".join(parts)}</svg></div>'
        f"<figcaption>{_e(caption)}</figcaption></figure></section>\n"
    )


def _axis_title(name: str, axis: _Axis) -> str:
    """An axis' title, saying when the axis is zoomed (does not start at 0)."""
    if not axis.zoomed:
        return name
    return f"{name}, zoomed to {_tick(axis.low)}\u2013{_tick(axis.high)}"


def _iso_curves(
    x_axis: _Axis, y_axis: _Axis, x: Any, y: Any, beta: float, f_name: str, frame_top: float
) -> list[str]:
    """Dashed curves of equal F inside the plot, at round levels (3 to 5 of them), each labelled at its
    upper end: above the frame where it enters through the top (no point is drawn there), else just
    inside the left edge."""
    b2 = beta * beta
    corner_low = _f_value(x_axis.low, y_axis.low, b2)
    corner_high = _f_value(x_axis.high, y_axis.high, b2)
    for step in _STEPS:
        levels = [k * step for k in range(1, round(1 / step)) if corner_low < k * step < corner_high]
        if len(levels) <= 5:
            break
    parts = []
    last_label = -1e9
    for level in levels:
        # F = (1 + b2) P R / (b2 P + R), so P = F R / ((1 + b2) R - b2 F) and R = b2 F P / ((1 + b2) P - F);
        # along the curve P falls as R grows.
        if (1 + b2) * y_axis.high <= level:
            continue  # the whole curve lies above the plot
        start = max(x_axis.low, b2 * level * y_axis.high / ((1 + b2) * y_axis.high - level))
        end = x_axis.high
        if (1 + b2) * y_axis.low > level:
            end = min(end, b2 * level * y_axis.low / ((1 + b2) * y_axis.low - level))
        if end <= start:
            continue
        recalls = [start + (end - start) * step / 48 for step in range(49)]
        path = " ".join(f"{x(r):.1f},{y(level * r / ((1 + b2) * r - b2 * level)):.1f}" for r in recalls)
        parts.append(f'<polyline class="iso" points="{path}"/>')
        label = f"{f_name}={_tick(level)}"
        if start > x_axis.low:
            if x(start) - last_label >= 40:  # levels rise left to right along the top: keep labels apart
                parts.append(
                    f'<text class="iso-label" x="{x(start):.1f}" y="{frame_top - 6:.1f}" '
                    f'text-anchor="middle">{label}</text>'
                )
                last_label = x(start)
        else:
            entry = y(level * start / ((1 + b2) * start - b2 * level))
            parts.append(
                f'<text class="iso-label" x="{x(start) + 4:.1f}" y="{entry + 12:.1f}">{label}</text>'
            )
    return parts


NAMED_POINTS = 12  # up to this many systems, every point is named in the column beside the plot

# Points are drawn this far inside the plot's frame, so that none sits on it and no line to the column
# runs along it.
_INSET = 10

# Up to this many names in the column, their rows move so that no line runs through another point; a
# longer column is a list to read beside the leaderboard, its lines a tangle however they run.
_ROUTED = 60

# A rank label's box, estimated from the font (11 px, ``_text_width``): padding, height, and the baseline
# below the box's top; and how much nearer its own point than any other a label's centre must be (the
# estimate may be a few pixels off the drawn text).
_PAD, _HEIGHT, _BASELINE, _NEARER = 2.0, 14.0, 11.0, 4.0

Box = tuple[float, float, float, float]


def _rank_labels(
    centres: list[tuple[float, float]],
    texts: list[str],
    frame: Box,
    skip: set[int],
    leaders: list[Box],
) -> dict[int, tuple[float, float]]:
    """Where each point's short label fits beside it: index -> (x, baseline y) of the text.

    Points (but those in ``skip``) are served in order (rank); each label takes the first of 16 places
    around its point (4 sides and 4 corners, near then farther) whose box stays inside ``frame``, overlaps
    no point and no label already placed, crosses none of the ``leaders`` (segments x1, y1, x2, y2), and
    whose centre is nearer its own point than any other point by ``_NEARER``. A point with no such place
    is left out (its label goes to the column). Each point's 16 places are tested at once against every
    point, label and line (numpy), so a plot of a thousand points takes a moment, not minutes.
    """
    centre = np.array(centres, dtype=float).reshape(-1, 2)
    points = np.hstack([centre - 5, centre + 5])
    segments = np.array(leaders, dtype=float).reshape(-1, 4)
    placed = np.empty((len(centres), 4))
    count = 0
    found: dict[int, tuple[float, float]] = {}
    for index, ((cx, cy), text) in enumerate(zip(centres, texts, strict=True)):
        if index in skip:
            continue
        width = _text_width(text) + 2 * _PAD
        spots = [
            spot
            for gap in (6.0, 13.0)
            for spot in (
                (cx + gap, cy - _HEIGHT / 2),  # right
                (cx - gap - width, cy - _HEIGHT / 2),  # left
                (cx - width / 2, cy - gap - _HEIGHT),  # above
                (cx - width / 2, cy + gap),  # below
                (cx + gap - 2, cy - gap + 2 - _HEIGHT),  # upper right
                (cx + gap - 2, cy + gap - 2),  # lower right
                (cx - gap + 2 - width, cy - gap + 2 - _HEIGHT),  # upper left
                (cx - gap + 2 - width, cy + gap - 2),  # lower left
            )
        ]
        corner = np.array(spots)
        boxes = np.hstack([corner, corner + (width, _HEIGHT)])
        # Only what lies near the point can touch its places or be nearer them than it is.
        reach = 2 * width + 40
        window = (cx - reach, cy - reach, cx + reach, cy + reach)
        close = np.flatnonzero(_overlapping(points, np.array([window])))
        own = int(np.searchsorted(close, index))
        lines = segments[
            (np.minimum(segments[:, 0], segments[:, 2]) < window[2])
            & (np.maximum(segments[:, 0], segments[:, 2]) > window[0])
            & (np.minimum(segments[:, 1], segments[:, 3]) < window[3])
            & (np.maximum(segments[:, 1], segments[:, 3]) > window[1])
        ]
        free = (
            (boxes[:, 0] >= frame[0])
            & (boxes[:, 1] >= frame[1])
            & (boxes[:, 2] <= frame[2])
            & (boxes[:, 3] <= frame[3])
            & ~_overlapping(boxes, points[close])
            & ~_overlapping(boxes, placed[:count])
            & ~_crossed(boxes, lines)
            & _nearest(boxes, own, centre[close])
        )
        if free.any():
            box = boxes[int(np.argmax(free))]
            placed[count] = box
            count += 1
            found[index] = (float(box[0]) + _PAD, float(box[1]) + _BASELINE)
    return found


def _clear_of_points(
    starts: list[tuple[float, float]],
    rows: list[float],
    centres: list[tuple[float, float]],
    end_x: float,
    line: float,
) -> list[float]:
    """The column's label heights ``rows`` (top to bottom, one ``line`` apart at least), each moved as
    little as it takes (3 pixels at a time, up to 8 lines up or down, never above the row before plus a
    line) for the line from its point (``starts``) to ``(end_x, row)`` to pass no other point closer
    than 7 pixels: a line through another point reads as that point's. A row with no such height keeps
    its own."""
    centre = np.array(centres, dtype=float).reshape(-1, 2)
    steps = np.arange(round(8 * line / 3) + 1)
    offsets = np.column_stack([3 * steps, -3 * steps]).ravel()[1:]  # 0, 3, -3, 6, -6...
    moved: list[float] = []
    for (cx, cy), wanted in zip(starts, rows, strict=True):
        lowest = moved[-1] + line if moved else -math.inf
        wanted = max(wanted, lowest)
        tries = wanted + offsets
        tries = tries[tries >= lowest]
        # Only the points in the band the tries' lines sweep can be near one of them.
        top, bottom = min(cy, tries.min()) - 7, max(cy, tries.max()) + 7
        near = (centre[:, 0] >= cx - 3) & (centre[:, 1] >= top) & (centre[:, 1] <= bottom)
        others = centre[near & ((centre[:, 0] != cx) | (centre[:, 1] != cy))]
        # Distance from each other point to each try's line (x1, y1) -> (end_x, row).
        x1, y1 = cx + 4, cy
        dx, dy = end_x - x1, tries[:, None] - y1
        length = dx * dx + dy * dy
        t = np.clip(((others[None, :, 0] - x1) * dx + (others[None, :, 1] - y1) * dy) / length, 0, 1)
        gap = np.hypot(others[None, :, 0] - (x1 + t * dx), others[None, :, 1] - (y1 + t * dy))
        clear = (gap >= 7).all(axis=1)
        moved.append(float(tries[int(np.argmax(clear))]) if clear.any() else wanted)
    return moved


def _overlapping(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """For each box (rows x0, y0, x1, y1), whether it shares area with any of ``others``."""
    if len(others) == 0:
        return np.zeros(len(boxes), dtype=bool)
    a, b = boxes[:, None, :], others[None, :, :]
    return (
        (a[..., 0] < b[..., 2]) & (b[..., 0] < a[..., 2]) & (a[..., 1] < b[..., 3]) & (b[..., 1] < a[..., 3])
    ).any(axis=1)


def _crossed(boxes: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """For each box, whether any segment (rows x1, y1, x2, y2) passes through its inside (Liang-Barsky
    clipping of every segment against every box)."""
    if len(segments) == 0:
        return np.zeros(len(boxes), dtype=bool)
    x1, y1 = segments[None, :, 0], segments[None, :, 1]
    dx, dy = segments[None, :, 2] - x1, segments[None, :, 3] - y1
    p = np.stack(np.broadcast_arrays(-dx, dx, -dy, dy), axis=-1)
    q = np.stack(
        [
            x1 - boxes[:, None, 0],
            boxes[:, None, 2] - x1,
            y1 - boxes[:, None, 1],
            boxes[:, None, 3] - y1,
        ],
        axis=-1,
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        t = q / p
    low = np.where(p < 0, t, 0.0).max(axis=-1).clip(min=0.0)
    high = np.where(p > 0, t, 1.0).min(axis=-1).clip(max=1.0)
    outside = ((p == 0) & (q <= 0)).any(axis=-1)  # parallel to an edge, beyond it
    return ((low < high) & ~outside).any(axis=1)


def _nearest(boxes: np.ndarray, own: int, centre: np.ndarray) -> np.ndarray:
    """For each box, whether its centre is nearer point ``own`` than any other point by ``_NEARER``."""
    middle = (boxes[:, :2] + boxes[:, 2:]) / 2
    distance = np.hypot(middle[:, None, 0] - centre[None, :, 0], middle[:, None, 1] - centre[None, :, 1])
    others = np.delete(distance, own, axis=1)
    return (others >= distance[:, own : own + 1] + _NEARER).all(axis=1)


def _f_value(recall: float, precision: float, b2: float) -> float:
    denominator = b2 * precision + recall
    return 0.0 if denominator <= 0 else (1 + b2) * precision * recall / denominator


def _spread(wanted: list[float], top: float, bottom: float, line: float) -> list[float]:
    """Heights for labels wanted at ``wanted`` (ascending), each ``line`` below the one before, as close
    to where they are wanted as fits between ``top`` and ``bottom``."""
    placed: list[float] = []
    for value in wanted:
        placed.append(max(value, top, placed[-1] + line) if placed else max(value, top))
    if placed and placed[-1] > bottom:
        placed[-1] = bottom
        for index in range(len(placed) - 2, -1, -1):
            placed[index] = min(placed[index], placed[index + 1] - line)
    return placed


_STEPS = (0.01, 0.02, 0.05, 0.1, 0.2)


@dataclass(frozen=True)
class _Axis:
    """An axis from ``low`` to ``high`` (fractions of 1) with a tick every ``step``."""

    low: float
    high: float
    step: float

    @property
    def zoomed(self) -> bool:
        """The axis covers less than all of [0, 1]."""
        return self.low > 0 or self.high < 1

    def ticks(self) -> list[float]:
        count = round((self.high - self.low) / self.step)
        return [round(self.low + index * self.step, 6) for index in range(count + 1)]

    def position(self, value: float, start: float, length: float) -> float:
        """Where ``value`` falls on an axis drawn from ``start`` over ``length`` pixels (clamped)."""
        fraction = (value - self.low) / (self.high - self.low)
        return start + length * min(max(fraction, 0.0), 1.0)


def _zoomed_axes(extents: list[tuple[float, float]]) -> list[_Axis]:
    """One axis per (lowest, highest) value: each covers its values with a little padding (a twentieth
    of their range, at least one point), and no more than that rounded out to whole ticks. All the
    axes have the same tick step and width (at most 10 ticks, at least 4), inside [0, 1]."""
    padded = []
    for low, high in extents:
        pad = max(0.01, (high - low) / 20)
        padded.append((max(0.0, low - pad), min(1.0, high + pad)))
    for step in _STEPS:
        spans = [(math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)) for low, high in padded]
        intervals = max(4, max(end - start for start, end in spans))
        if intervals <= 10:
            break
    last = round(1 / step)
    intervals = min(intervals, last)
    axes = []
    for start, end in spans:
        start -= (intervals - (end - start)) // 2  # centre the values in the common width
        start = min(max(start, 0), last - intervals)
        axes.append(_Axis(round(start * step, 6), round((start + intervals) * step, 6), step))
    return axes


def _heat_map_section(report: CampaignReport, systems: list[str]) -> str:
    """The headline by system and category (a family without categories: the shown measures by system),
    in the kind's unit."""
    chains, pairings = "chains" in report.sections, "pairings" in report.sections
    percent = report.percent
    f_name = "F1" if chains else report.label
    columns = sorted({key for by_slot in report.slot_f.values() for key in by_slot})
    if report.categories == "measure":  # the measures in the leaderboard's order, not sorted
        columns = [label for label in (report.columns or {}).values() if label in columns]
    head = "".join(f'<th class="col"><span class="vertical">{_e(key)}</span></th>' for key in columns)
    unit = " %" if percent else ""
    rows = []
    for system in systems[:HEAT_SYSTEMS]:
        rows.append(_heat_row(system, columns, report.slot_f.get(system, {}), f_name, percent, unit))
    in_unit = "in percent" if percent else "as a fraction of 1"
    if chains:
        title = "F1 by system and metric"
        legend = f"F1 {in_unit} of each coreference metric (summed over documents); darker is higher."
    elif pairings:
        title = f"{f_name} by system and slot"
        legend = (
            f"{f_name} {in_unit} for each TYPE.SLOT; darker is higher. &#8220;-&#8221;: undefined (no "
            "reference and no hypothesis fill for that slot)."
        )
    else:
        title = f"{f_name} by system and {report.categories}"
        legend = (
            f"{_e(f_name)} {in_unit} for each {_e(report.categories)} (statistics summed over "
            f"{_e(report.unit)}); darker is higher. &#8220;-&#8221;: undefined."
        )
    if len(systems) > HEAT_SYSTEMS:
        legend += f" The {HEAT_SYSTEMS} best of the {len(systems)} systems are shown."
    return (
        f'<section id="heatmap"><h2>{3 if pairings else 2}. {_e(title)}</h2>\n<div class="scroll">'
        '<table class="heat">'
        f'<thead><tr><th class="row">System</th>{head}</tr></thead>\n<tbody>'
        + "\n".join(rows)
        + f'</tbody></table></div>\n<p class="legend">{legend}</p></section>\n'
    )


def _significance_section(report: CampaignReport, systems: list[str]) -> str:
    """The significance matrix of the systems the reader chooses (the ``MATRIX_SHOWN`` best at first),
    drawn by the page's script from ``_board_data``; without JavaScript the section says where the pairs
    are."""
    f_name = report.label
    n = len(systems)
    pairs = n * (n - 1) // 2
    t_test = any("t-test" in more for more in (report.corrected or {}).values())
    if report.correction:
        more_legend = (
            (
                f"; <b>t</b>, the p-value of Student&#8217;s paired t-test over {_e(report.unit)}"
                if t_test
                else ""
            )
            + f"; <b>ar Holm</b>{', <b>t Holm</b>' if t_test else ''}: "
            f"{'these p-values' if t_test else 'the randomization p-value'} adjusted by "
            f"<b>{_e(report.correction)}&#8217;s correction</b> for multiple comparisons over all {pairs} "
            f'pairs. <span class="marked swatch">Marked cells (*)</span> are those where the '
            f"<b>{_e(report.correction)}-adjusted approximate randomization</b> p-value is below "
            f"&alpha; = {_e(_number(report.alpha))}. "
        )
    else:
        more_legend = (
            '. <span class="marked swatch">Marked cells (*)</span> are those where the '
            f"<b>approximate randomization</b> p-value is below &alpha; = {_e(_number(report.alpha))}. "
        )
    for label, title in (report.pair_tests or {}).values():
        more_legend += (
            f"<b>{_e(label)}</b>, the p-value of {_e(title)}, and <b>{_e(label)} Holm</b>, it adjusted by "
            f"{_e(report.correction or 'Holm')}&#8217;s correction over all {pairs} pairs. "
        )
    detailed = min(n, MATRIX_DETAILED)
    files = "significance.parquet"
    if report.pairs_file != files:
        files = f"{_e(report.pairs_file)} and {files}"
    return (
        f'<section id="significance"><h2>{4 if "pairings" in report.sections else 3}. '
        f"Significance of differences in {f_name}</h2>\n"
        '<div class="controls"><label>Best <input type="number" id="matrix-top" min="1" '
        f'max="{max(n, 1)}" value="{min(n, MATRIX_SHOWN)}"> systems</label> <label>or these (Ctrl-click): '
        '<select id="matrix-systems" multiple size="6"></select></label></div>\n'
        f"<noscript><p><b>The matrix needs JavaScript;</b> every pair is in {files}.</p></noscript>\n"
        '<div class="scroll"><table class="significance" id="matrix"></table></div>\n'
        '<p class="legend">Each cell compares the row system with the column system: first line, '
        f"{f_name}(row) "
        f"&minus; {f_name}(column) {'in percentage points' if report.percent else 'as a fraction of 1'}; "
        "<b>bs</b>, the p-value of the paired bootstrap "
        f"({report.resamples} resamples, seed {report.seed}); <b>ar</b>, the p-value of approximate "
        f"randomization{more_legend}"
        f"The cells show p-values for pairs among the {detailed} best systems and marks for every pair; "
        f"all {pairs} pairs with their p-values are in {files}. "
        "&#8220;-&#8221;: pair not tested.</p></section>\n"
    )


def _alignments_section(report: CampaignReport, systems: list[str]) -> str:
    """A WER campaign's own sections: the headline by system and stm label (as the heat map), and each
    system's alignment of the first utterances, one ``<details>`` per utterance holding its sclite
    ``.pra`` block (errors in upper case), utterances with errors marked. Static HTML: no script."""
    view = report.alignments
    assert view is not None  # the caller checks
    percent, label = report.percent, report.label
    unit = " %" if percent else ""
    if view.labels:
        head = "".join(f'<th class="col"><span class="vertical">{_e(key)}</span></th>' for key in view.labels)
        rows = []
        for system in systems[:HEAT_SYSTEMS]:
            rows.append(_heat_row(system, view.labels, view.by_label.get(system, {}), label, percent, unit))
        table = (
            '<div class="scroll"><table class="heat">'
            f'<thead><tr><th class="row">System</th>{head}</tr></thead>\n<tbody>'
            + "\n".join(rows)
            + f'</tbody></table></div>\n<p class="legend">{_e(label)} '
            f"{'in percent' if percent else 'as a fraction of 1'} of the segments with each stm label (a "
            "segment counts under each of its labels, as sclite&#8217;s .lur report); darker is higher. "
            "&#8220;-&#8221;: undefined.</p>"
        )
    else:
        table = (
            '<p class="legend">The reference has no segment labels (stm <code>&lt;o,f0,male&gt;</code>).</p>'
        )
    ranks = {row.system: row.rank for row in report.leaderboard}
    shown = max((len(blocks) for blocks in view.blocks.values()), default=0)
    parts = []
    for system in systems:
        blocks = view.blocks.get(system, [])
        items = []
        for block in blocks:
            c, s, d, i = block.counts
            errors = s + d + i
            mark = ' class="dis-swatch"' if errors else ""
            items.append(
                f"<details><summary{mark}>{_e(block.utterance)} &middot; {_e(block.speaker)} &middot; "
                f"C {c} S {s} D {d} I {i}</summary><pre>{_e(block.block)}</pre></details>"
            )
        name = f"{ranks[system]}. {system}" if system in ranks else system
        parts.append(
            f"<details><summary>{_e(name)} ({len(blocks)} utterances)</summary>\n"
            + "\n".join(items)
            + "\n</details>"
        )
    legend = (
        f"Each system&#8217;s alignment of the first {shown} of the {view.utterances_total} utterances with "
        "words "
        "(sclite&#8217;s .pra blocks: REF, HYP and Eval lines; words in error in upper case, *** where a "
        "side has no word); marked utterances have errors. Every utterance is in the system&#8217;s "
        "alignment.pra and its AlignSpeech artifact."
    )
    return (
        f'<section id="labels"><h2>4. {_e(label)} by system and label</h2>\n{table}</section>\n'
        f'<section id="alignments"><h2>5. Alignments by utterance</h2>\n<p class="legend">{legend}</p>\n'
        + "\n".join(parts)
        + "</section>\n"
    )


def _board_data(report: CampaignReport, systems: list[str], board: _Board) -> dict[str, Any]:
    """What the page's script needs of the leaderboard and the pairs, each value once: the systems (best
    first) and their headline values; the leaderboard's rows (``rows``: each column's cells as the page
    shows them, column by column, the system's name by its index in ``systems``; each row's signature);
    whether each pair is marked (one bit per pair, in the order (0, 1), (0, 2), ..., (1, 2), ...,
    base64); the p-values of the pairs among the ``MATRIX_DETAILED`` best (``labels`` of them per pair,
    in the same pair order, null where not tested)."""
    n = len(systems)
    values = {row.system: _defined(row.measures.get(report.headline)) for row in report.leaderboard}
    mark_on = "randomization Holm" if report.correction else None
    corrected = report.corrected or {}
    marks = report.marks
    if marks is None:
        marks = np.zeros(n * (n - 1) // 2, dtype=bool)
        k = 0
        for a in range(n - 1):
            for b in range(a + 1, n):
                found = _comparison(report.significance, systems[a], systems[b])
                more = (
                    corrected.get((systems[a], systems[b])) or corrected.get((systems[b], systems[a])) or {}
                )
                p = more.get(mark_on) if mark_on else (found[2] if found is not None else None)
                marks[k] = p is not None and p < report.alpha
                k += 1
    elif len(marks) != n * (n - 1) // 2:
        raise ValueError(f"marks has {len(marks)} pairs, {n * (n - 1) // 2} expected for {n} systems")
    labels = ["bs", "ar"]
    order = [*_MORE_ORDER, *(f"{n}{h}" for n in (report.pair_tests or {}) for h in ("", " Holm"))]
    more_labels = sorted({label for more in corrected.values() for label in more}, key=order.index)
    short = {"randomization Holm": "ar Holm", "t-test": "t", "t-test Holm": "t Holm"}
    for name, (label, _) in (report.pair_tests or {}).items():
        short[name], short[f"{name} Holm"] = label, f"{label} Holm"
    labels += [short[label] for label in more_labels]
    p_values: list[float | None] = []
    detailed = min(n, MATRIX_DETAILED)
    for a in range(detailed - 1):
        for b in range(a + 1, detailed):
            found = _comparison(report.significance, systems[a], systems[b])
            more = corrected.get((systems[a], systems[b])) or corrected.get((systems[b], systems[a])) or {}
            p_values += [None, None] if found is None else [_rounded(found[1]), _rounded(found[2])]
            p_values += [_rounded(more.get(label)) for label in more_labels]
    return {
        "systems": systems,
        "values": [values.get(system) for system in systems],
        "rows": {
            "cells": board.cells,
            "classes": board.classes,
            "signatures": [row.signature for row in sorted(report.leaderboard, key=lambda row: row.rank)],
        },
        "percent": report.percent,
        "label": report.label,
        "alpha": report.alpha,
        "marks": base64.b64encode(np.packbits(np.asarray(marks, dtype=bool), bitorder="little")).decode(),
        "detailed": detailed,
        "labels": labels,
        "p": p_values,
        "shown": min(n, MATRIX_SHOWN),
    }


_MORE_ORDER = ["randomization Holm", "t-test", "t-test Holm"]


def _rounded(value: float | None) -> float | None:
    value = _defined(value)
    return None if value is None else round(value, 6)


def _documents_section(report: CampaignReport) -> str:
    documents = "".join(
        f'<option value="{index}">{_e(document.doc_id)}</option>'
        for index, document in enumerate(report.documents)
    )
    shown = len(report.documents)
    count = (
        f"All {shown} documents of the campaign are embedded."
        if shown == report.documents_total
        else f"{shown} of the campaign&#8217;s {report.documents_total} documents are embedded; "
        "the others are not shown here."
    )
    return (
        '<section id="documents"><h2>5. Documents</h2>\n'
        f'<p class="legend">{count} <span class="ref">Reference fill</span> extents are shaded; '
        'the selected system&#8217;s <span class="hyp">hypothesis fill</span> extents are underlined. '
        '<span class="dis-swatch">Shaded rows</span> are disagreements (a category other than COR or NON); '
        "click a row to outline its extents in the text.</p>\n"
        "<noscript><p><b>This section needs JavaScript.</b></p></noscript>\n"
        '<div class="controls"><label>Document <select id="doc-select">'
        f'{documents}</select></label> <label>System <select id="system-select"></select></label> '
        '<span id="doc-status" class="legend"></span></div>\n'
        '<div class="docview"><pre id="doc-text"></pre><div class="scroll pairings"><table id="pairings">'
        "<thead><tr><th>Type</th><th>Slot</th><th>Reference fill</th><th>Hypothesis fill</th>"
        "<th>Categories</th></tr></thead><tbody></tbody></table></div></div>\n</section>\n"
    )


# ------------------------------------------------------------------------------------------ formatting


def _e(value: str) -> str:
    return html.escape(value, quote=True)


def _defined(value: float | None) -> float | None:
    """``value`` as a float, None when undefined (None or NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def _percent(value: float | None) -> str:
    value = _defined(value)
    return "-" if value is None else f"{100 * value:.1f}"


def _value(value: float | None, percent: bool) -> str:
    """A measure in the page's unit: a percentage with one decimal, or a fraction of 1 with four."""
    value = _defined(value)
    if value is None:
        return "-"
    return f"{100 * value:.1f}" if percent else f"{value:.4f}"


def _points(value: float | None, percent: bool = True) -> str:
    """A difference with its sign, in percentage points (one decimal) or in fractions of 1 (four); one
    that rounds to zero is ``0.0`` (``0.0000``), unsigned."""
    value = _defined(value)
    if value is None:
        return "-"
    shown = f"{100 * value:+.1f}" if percent else f"{value:+.4f}"
    return shown[1:] if float(shown) == 0 else shown


def _tick(value: float, percent: bool = True) -> str:
    """A tick of an axis in fractions of 1, as a percentage without needless decimals (``75``, ``92.5``),
    or as a fraction (``0.75``)."""
    return f"{round(100 * value, 4):g}" if percent else f"{round(value, 6):g}"


def _beta_note(beta: float, name: str) -> str:
    if beta == 1:
        return ""
    return (
        f"{name} is the F-measure with &beta; = {_number(beta)}: "
        "(1 + &beta;&sup2;) PRE REC / (&beta;&sup2; PRE + REC). "
    )


def _interval(low: float | None, high: float | None, percent: bool = True) -> str:
    low, high = _defined(low), _defined(high)
    if low is None and high is None:
        return "-"
    return f"[{_value(low, percent)}, {_value(high, percent)}]"


def _count(value: int | None) -> str:
    return "-" if value is None else str(int(value))


def _p(value: float | None) -> str:
    value = _defined(value)
    if value is None:
        return "-"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _number(value: float) -> str:
    return f"{value:g}"


def _text_width(text: str, size: float = 11.0) -> float:
    """How wide ``text`` is drawn at ``size`` pixels, at most: each character's advance in DejaVu Sans
    (the widest of the sans-serif fonts a browser picks; 1 em outside ASCII), plus 3 %."""
    return 1.03 * size * sum(_ADVANCE.get(character, 1.0) for character in text)


# DejaVu Sans' advance widths in thousandths of an em of the printable ASCII characters (space to
# tilde), read from its hmtx table.
_ADVANCE_TEXT = (
    "318 401 460 838 636 950 780 275 390 390 500 838 318 361 318 337 636 636 636 636 636 636 636 636 636 "
    "636 337 337 838 838 838 531 1000 684 686 698 770 632 575 775 752 295 295 656 557 863 748 787 603 "
    "787 695 635 611 732 684 989 685 611 685 390 337 390 838 500 500 613 635 550 635 615 352 635 634 278 "
    "278 579 278 974 634 612 635 635 411 521 392 634 592 818 592 592 525 636 337 636 838 "
)
_ADVANCE = {chr(32 + code): int(width) / 1000 for code, width in enumerate(_ADVANCE_TEXT.split())}


def _heat_row(
    system: str, keys: Sequence[str], values: Mapping[str, float | None], name: str, percent: bool, unit: str
) -> str:
    """One heat map row: ``system``'s value of each key (a cell shaded by it, undefined as ``-``)."""
    cells = []
    for key in keys:
        value = _defined(values.get(key))
        if value is None:
            cells.append(f'<td class="undefined" title="{_e(system)}, {_e(key)}: undefined">-</td>')
        else:
            shown = _value(value, percent)
            cells.append(
                f'<td style="{_heat_style(value)}" title="{_e(system)}, {_e(key)}: {_e(name)} {shown}{unit}">'
                f"{shown}</td>"
            )
    return f'<tr><th class="row">{_e(system)}</th>{"".join(cells)}</tr>'


def _heat_style(f: float) -> str:
    """Background from near white (F = 0) to dark blue (F = 1); white text on the dark half."""
    lightness = 97 - 55 * min(max(f, 0.0), 1.0)
    colour = "#fff" if lightness < 62 else "#111"
    return f"background:hsl(212,72%,{lightness:.0f}%);color:{colour}"


def _x_grid(axis: _Axis, x: Any, top: float, bottom: float, label: str, percent: bool = True) -> str:
    parts = []
    for tick in axis.ticks():
        parts.append(f'<path class="grid" d="M{x(tick):.1f} {top}V{bottom}"/>')
        parts.append(
            f'<text class="tick-x" x="{x(tick):.1f}" y="{bottom + 15}" text-anchor="middle">'
            f"{_tick(tick, percent)}</text>"
        )
    middle = x((axis.low + axis.high) / 2)
    if axis.zoomed:
        label += f", zoomed to {_tick(axis.low, percent)}\u2013{_tick(axis.high, percent)}"
    parts.append(
        f'<text class="axis-title" x="{middle:.1f}" y="{bottom + 30}" text-anchor="middle">{_e(label)}</text>'
    )
    return "".join(parts)


def _comparison(
    significance: Mapping[tuple[str, str], tuple[float | None, float | None, float | None]], a: str, b: str
) -> tuple[float | None, float | None, float | None] | None:
    """(F(a) - F(b), p bootstrap, p randomization), read from (b, a) negated when only that is given."""
    if (a, b) in significance:
        return significance[(a, b)]
    if (b, a) in significance:
        delta, p_bootstrap, p_randomization = significance[(b, a)]
        delta = _defined(delta)
        return (None if delta is None else -delta), p_bootstrap, p_randomization
    return None


def _compact(lines: Iterable[str]) -> str:
    return "\n".join(line.strip() for line in lines if line.strip())


_CSS = _compact(
    """
:root{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;font-size:14px;
color:#1b1f24;background:#fff}
body{margin:0 auto;max-width:1400px;padding:14px 24px 40px}
h1{font-size:22px;margin:0 0 6px}
h2{font-size:17px;margin:30px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
nav a{color:#0b5cad}
.note{white-space:pre-wrap;overflow-wrap:anywhere;font-family:ui-monospace,"DejaVu Sans Mono",monospace;
font-size:12px;background:#f6f8fa;padding:6px 8px;border-radius:4px;margin:4px 0}
.legend{color:#57606a;font-size:12px;max-width:90em}
table{border-collapse:collapse}
th,td{padding:3px 8px;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums}
.scroll{overflow:auto;max-width:100%}
.rows{contain:strict}
table.board,.board thead,.board tbody{display:block}
.board thead{position:sticky;top:0;z-index:1;background:#f6f8fa}
.board tbody{position:relative}
.board tr{display:grid;grid-template-columns:var(--columns)}
.board tbody tr{position:absolute;left:0;right:0;height:24px;contain:strict}
.board td{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
figure{margin:12px 0}
figcaption{color:#57606a;font-size:12px}
svg.plot text{font-size:11px;fill:#1b1f24}
svg .grid{stroke:#e5e7eb;stroke-width:1}
svg .grid.strong{stroke:#c4c9d0}
svg .frame{fill:none;stroke:#c4c9d0;stroke-width:1}
svg .ci{stroke:#2563eb;stroke-width:2;fill:none}
svg .dot{fill:#1d4ed8;stroke:#fff;stroke-width:1}
svg .leader{stroke:#9ca3af;stroke-width:.75;fill:none}
svg .iso{fill:none;stroke:#9ca3af;stroke-dasharray:4 3}
svg text.iso-label{fill:#6b7280;font-size:10px}
.signatures code{font-size:11px;overflow-wrap:anywhere}
th.col{vertical-align:bottom;padding:4px 2px}
.vertical{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;display:inline-block;
font-size:12px}
th.row{white-space:nowrap}
thead th.row{vertical-align:bottom}
.heat td{text-align:center;min-width:2.8em;border:1px solid #fff;font-variant-numeric:tabular-nums;
font-size:12px}
.heat td.undefined{color:#8c959f;background:#fafafa}
.significance td.cell,.significance td.diagonal{font-size:11px;line-height:1.3;text-align:center;
border:1px solid #e5e7eb;white-space:nowrap}
.significance td.cell span{display:block}
.significance .delta{font-weight:600}
.significance td.diagonal{background:#f3f4f6;color:#8c959f}
.marked{background:#fde68a}
.swatch{padding:0 3px}
.controls{margin:8px 0}
select{font:inherit;max-width:100%}
.docview{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.15fr);gap:16px;align-items:start}
#doc-text{white-space:pre-wrap;overflow-wrap:anywhere;font-family:ui-monospace,"DejaVu Sans Mono",monospace;
font-size:12.5px;line-height:1.55;max-height:75vh;overflow:auto;border:1px solid #d0d7de;padding:8px;
margin:0;background:#fcfcfd}
.pairings{max-height:75vh}
#pairings td{font-size:12px;overflow-wrap:break-word}
#pairings td:nth-child(-n+2),#pairings td:nth-child(5){white-space:nowrap}
#pairings tbody tr{cursor:pointer}
.ref{background:#fff1a8}
.hyp{box-shadow:inset 0 -2px 0 #2563eb}
#doc-text .focus{outline:2px solid #dc2626}
tr.dis td,.dis-swatch{background:#fde2e2}
tr.chosen td{box-shadow:inset 0 0 0 9999px rgba(37,99,235,.12)}
td.none{color:#8c959f}
""".splitlines()
)

# Plain ES2017; data reaches the page only through textContent and createTextNode.
#: Every page's script: the leaderboard's filter and sort, and the significance matrix of the chosen
#: systems, drawn from the ``board-data`` JSON (``_board_data``) with ``textContent`` only.
_BOARD_SCRIPT = _compact(
    """
"use strict";
(() => {
const board = JSON.parse(document.getElementById("board-data").textContent);
const names = board.systems;
const n = names.length;
// The leaderboard: only the rows in view (and a window's height beyond) are in the document, in a body
// as tall as all the rows, so the scroll bar is the whole board's. Sorting and filtering reorder row
// numbers only.
const view = document.querySelector("#leaderboard .rows");
const table = view.querySelector("table.board");
const body = table.tBodies[0];
const cells = board.rows.cells;
const classes = board.rows.classes;
const signatures = board.rows.signatures;
const count = signatures.length;
const nameColumn = cells.indexOf(null);
const clusterColumn = cells.length - 1;
const textOf = (column, row) => (column === nameColumn ? names[row] : cells[column][row]);
const filter = document.getElementById("board-filter");
const clusterFilter = document.getElementById("board-cluster");
const boardStatus = document.getElementById("board-status");
let order = Array.from({ length: count }, (_, i) => i);
let shown = order;
let rowHeight = 0;
let drawn = "";
// The body is as tall as all the rows shown, and each row drawn sits at its own place in it. A row that
// stays in view as the board scrolls is left as it is; rows that leave are given the texts of rows that
// come, so a scroll changes only what it brings into view.
let drawnRows = new Map();
const boardRow = () => {
  const tr = document.createElement("tr");
  for (let column = 0; column < cells.length; column++) {
    const td = tr.insertCell();
    if (classes[column]) td.className = classes[column];
    td.append(document.createTextNode(""));
  }
  return tr;
};
const fillRow = (tr, row, at) => {
  for (let column = 0; column < cells.length; column++) {
    const text = tr.cells[column].firstChild;
    const wanted = textOf(column, row);
    if (text.data !== wanted) text.data = wanted;
  }
  tr.cells[nameColumn].title = signatures[row];
  tr.style.top = at * rowHeight + "px";
};
function drawBoard(again) {
  if (rowHeight === 0 && shown.length > 0) {
    const first = body.appendChild(boardRow());
    rowHeight = first.getBoundingClientRect().height || 24;
    first.remove();
  }
  // The box is as tall as the rows shown, up to 70% of the window, and fixed at that: what changes
  // inside it is laid out without the rest of the page.
  const head = table.tHead.offsetHeight;
  const frame = view.offsetHeight - view.clientHeight;  // a horizontal scroll bar
  const height = Math.min(0.7 * window.innerHeight, head + shown.length * rowHeight + frame);
  view.style.height = height + "px";
  body.style.height = shown.length * rowHeight + "px";
  // The rows in view, and as many again above and below: drawn before they are scrolled to.
  const top = Math.max(0, view.scrollTop - head);
  const beyond = Math.max(10, Math.ceil(height / rowHeight));
  const first = Math.max(0, Math.min(shown.length, Math.floor(top / rowHeight) - beyond));
  const last = Math.min(shown.length, Math.ceil((top + height) / rowHeight) + beyond);
  if (!again && drawn === first + ":" + last) return;
  drawn = first + ":" + last;
  const kept = new Map();
  const spare = [];
  for (const [at, tr] of drawnRows) {
    if (!again && at >= first && at < last) kept.set(at, tr);
    else spare.push(tr);
  }
  spare.sort((a, b) => a.offsetTop - b.offsetTop);
  let next = 0;
  for (let at = first; at < last; at++) {
    if (kept.has(at)) continue;
    const tr = next < spare.length ? spare[next++] : body.appendChild(boardRow());
    fillRow(tr, shown[at], at);
    kept.set(at, tr);
  }
  for (const tr of spare.slice(next)) tr.remove();
  drawnRows = kept;
}
// A browser sends at most one scroll event a frame: each draws the rows then in view.
view.addEventListener("scroll", () => drawBoard(false), { passive: true });
window.addEventListener("resize", () => drawBoard(false));
function selectRows() {
  const wanted = filter.value.toLowerCase();
  const cluster = clusterFilter ? clusterFilter.value.trim() : "";
  shown = order.filter((row) => (wanted === "" || names[row].toLowerCase().includes(wanted)) &&
    (cluster === "" || cells[clusterColumn][row] === cluster));
  boardStatus.textContent = shown.length === count ? "" : shown.length + " of " + count + " systems shown.";
  view.scrollTop = 0;
  drawBoard(true);
}
const sortKey = (text) => {
  const number = parseFloat(text.replace(/^[<\\[]/, ""));
  return Number.isNaN(number) ? text : number;
};
let sortColumn = -1;
let ascending = true;
table.tHead.addEventListener("click", (event) => {
  const heading = event.target.closest("th");
  if (!heading) return;
  const column = heading.cellIndex;
  ascending = column === sortColumn ? !ascending : true;
  sortColumn = column;
  const keys = Array.from({ length: count }, (_, row) => sortKey(textOf(column, row)));
  const place = new Int32Array(count);
  order.forEach((row, i) => { place[row] = i; });
  order = order.slice().sort((x, y) => {
    const a = keys[x], b = keys[y];
    let sign;
    if (typeof a === "number" && typeof b === "number") sign = a - b;
    else if (typeof a === "number") sign = -1;
    else if (typeof b === "number") sign = 1;
    else sign = a < b ? -1 : a > b ? 1 : 0;
    return (ascending ? sign : -sign) || place[x] - place[y];
  });
  selectRows();
});
filter.addEventListener("input", selectRows);
if (clusterFilter) clusterFilter.addEventListener("input", selectRows);
drawBoard(true);
const listed = document.getElementById("signatures");
listed.addEventListener("toggle", () => {
  const list = listed.querySelector("ul");
  if (!listed.open || list.childElementCount > 0) return;
  for (let row = 0; row < count; row++) {
    const item = document.createElement("li");
    const name = document.createElement("b");
    name.textContent = names[row];
    const code = document.createElement("code");
    code.textContent = signatures[row];
    item.append(name, ": ", code);
    list.append(item);
  }
});
const bits = Uint8Array.from(atob(board.marks), (c) => c.charCodeAt(0));
const pairIndex = (a, b) => a * (2 * n - a - 1) / 2 + (b - a - 1);
const marked = (a, b) => {
  const k = a < b ? pairIndex(a, b) : pairIndex(b, a);
  return ((bits[k >> 3] >> (k & 7)) & 1) === 1;
};
const width = board.labels.length;
const detailed = board.detailed;
const pValues = (a, b) => {
  if (a > b) [a, b] = [b, a];
  if (b >= detailed) return null;
  const k = a * (2 * detailed - a - 1) / 2 + (b - a - 1);
  return board.p.slice(k * width, k * width + width);
};
const formatP = (p) => (p === null ? "-" : p < 0.001 ? "<0.001" : p.toFixed(3));
const points = (a, b) => {
  const x = board.values[a], y = board.values[b];
  if (x === null || y === null) return "-";
  const shown = board.percent ? (100 * (x - y)).toFixed(1) : (x - y).toFixed(4);
  const signed = parseFloat(shown) > 0 ? "+" + shown : shown;
  return parseFloat(shown) === 0 ? shown.replace("-", "") : signed;
};
const matrix = document.getElementById("matrix");
const top = document.getElementById("matrix-top");
const chooser = document.getElementById("matrix-systems");
const element = (tag, className, text) => {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
};
function draw(chosen) {
  matrix.textContent = "";
  const head = matrix.createTHead().insertRow();
  head.append(element("th", "row", "Row vs column"));
  for (const b of chosen) {
    const cell = element("th", "col");
    cell.append(element("span", "vertical", names[b]));
    head.append(cell);
  }
  const tbody = matrix.createTBody();
  for (const a of chosen) {
    const row = tbody.insertRow();
    row.append(element("th", "row", names[a]));
    for (const b of chosen) {
      if (a === b) {
        row.append(element("td", "diagonal", "\\u2014"));
        continue;
      }
      const isMarked = marked(a, b);
      const cell = element("td", isMarked ? "cell marked" : "cell");
      const delta = points(a, b);
      cell.append(element("span", "delta", delta + (isMarked ? " *" : "")));
      const found = pValues(a, b);
      let title = names[a] + " vs " + names[b] + ": " + board.label + " difference " + delta;
      if (board.percent && delta !== "-") title += " points";
      if (found !== null) {
        board.labels.forEach((label, i) => {
          cell.append(element("span", "", label + " " + formatP(found[i])));
          title += ", " + label + " p = " + formatP(found[i]);
        });
      }
      cell.title = title;
      row.append(cell);
    }
  }
}
for (let index = 0; index < n; index++) {
  const chosen = index < board.shown;
  chooser.append(new Option(index + 1 + ". " + names[index], String(index), chosen, chosen));
}
const best = (count) => Array.from({ length: Math.max(0, Math.min(n, count)) }, (_, i) => i);
top.addEventListener("change", () => {
  const chosen = best(parseInt(top.value, 10) || 0);
  for (const option of chooser.options) option.selected = option.index < chosen.length;
  draw(chosen);
});
chooser.addEventListener("change", () => {
  draw(Array.from(chooser.selectedOptions, (option) => option.index));
});
draw(best(board.shown));
})();
""".splitlines()
)

_SCRIPT = _compact(
    """
"use strict";
(() => {
const data = JSON.parse(document.getElementById("data").textContent);
const board = JSON.parse(document.getElementById("board-data").textContent);
const systems = board.systems;
const strings = data.strings;
const disagreeing = new Set(data.disagreeing);
const docSelect = document.getElementById("doc-select");
const systemSelect = document.getElementById("system-select");
systems.forEach((name, index) => {
  const ranked = index < board.rows.cells[0].length ? board.rows.cells[0][index] + ". " + name : name;
  systemSelect.append(new Option(ranked, String(index)));
});
const textView = document.getElementById("doc-text");
const table = document.getElementById("pairings");
const status = document.getElementById("doc-status");
const PAIRING = 7;
const REFERENCE = 5;
let pieces = [];
const text = (index) => (index < 0 ? "\\u2014" : strings[index]);

// Cut the text where any span starts or ends: one sort of the boundaries, then a sweep that keeps
// how many reference (kind 0) and hypothesis (kind 1) spans cover the current piece.
function segments(length, spans) {
  const events = [];
  for (const [start, end, kind] of spans) {
    if (start >= 0 && end > start) events.push([start, kind, 1], [end, kind, -1]);
  }
  events.sort((a, b) => a[0] - b[0]);
  const depth = [0, 0];
  const result = [];
  let position = 0;
  for (const [at, kind, change] of events) {
    if (at > position) {
      result.push([position, at, depth[0] > 0, depth[1] > 0]);
      position = at;
    }
    depth[kind] += change;
  }
  if (position < length) result.push([position, length, false, false]);
  return result;
}

function cell(row, value, className) {
  const td = row.insertCell();
  td.textContent = value;
  if (className) td.className = className;
}

// Outline the marked pieces that overlap [start, end): binary search for the first, then walk on.
function focus(ranges) {
  for (const node of textView.querySelectorAll(".focus")) node.classList.remove("focus");
  let first = null;
  for (const [start, end] of ranges) {
    if (start < 0 || end <= start) continue;
    let low = 0;
    let high = pieces.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (pieces[middle][1] <= start) low = middle + 1; else high = middle;
    }
    for (let i = low; i < pieces.length && pieces[i][0] < end; i++) {
      pieces[i][2].classList.add("focus");
      if (!first) first = pieces[i][2];
    }
  }
  if (first) first.scrollIntoView({block: "nearest"});
}

function render() {
  const doc = data.documents[Number(docSelect.value)];
  const system = Number(systemSelect.value);
  if (!doc || !(system >= 0 && system < systems.length)) return;
  const refs = doc.refs;
  const rows = doc.pairings[system] || [];
  const spans = [];
  for (let i = 0; i < refs.length; i += REFERENCE) spans.push([refs[i + 3], refs[i + 3] + refs[i + 4], 0]);
  for (let i = 0; i < rows.length; i += PAIRING) spans.push([rows[i + 5], rows[i + 5] + rows[i + 6], 1]);
  const fragment = document.createDocumentFragment();
  pieces = [];
  for (const [start, end, isRef, isHyp] of segments(doc.text.length, spans)) {
    const piece = doc.text.slice(start, end);
    if (!isRef && !isHyp) {
      fragment.appendChild(document.createTextNode(piece));
      continue;
    }
    const mark = document.createElement("span");
    mark.className = isRef && isHyp ? "ref hyp" : isRef ? "ref" : "hyp";
    mark.textContent = piece;
    fragment.appendChild(mark);
    pieces.push([start, end, mark]);
  }
  textView.replaceChildren(fragment);
  const body = document.createElement("tbody");
  let disagreements = 0;
  for (let i = 0; i < rows.length; i += PAIRING) {
    const ref = rows[i + 2];
    const row = body.insertRow();
    if (disagreeing.has(rows[i + 4])) {
      row.className = "dis";
      disagreements++;
    }
    cell(row, text(rows[i]));
    cell(row, text(rows[i + 1]), rows[i + 1] < 0 ? "none" : "");
    cell(row, ref < 0 ? text(-1) : text(refs[ref * REFERENCE + 2]), ref < 0 ? "none" : "");
    cell(row, text(rows[i + 3]), rows[i + 3] < 0 ? "none" : "");
    cell(row, text(rows[i + 4]));
    const ranges = [[rows[i + 5], rows[i + 5] + rows[i + 6]]];
    if (ref >= 0) {
      const start = refs[ref * REFERENCE + 3];
      ranges.push([start, start + refs[ref * REFERENCE + 4]]);
    }
    row.addEventListener("click", () => {
      for (const chosen of body.querySelectorAll(".chosen")) chosen.classList.remove("chosen");
      row.classList.add("chosen");
      focus(ranges);
    });
  }
  table.replaceChild(body, table.tBodies[0]);
  status.textContent = (rows.length / PAIRING) + " pairings, " + disagreements + " disagreements";
}

function choose() {
  const params = new URLSearchParams(location.hash.slice(1));
  const doc = data.documents.findIndex((d) => d.id === params.get("doc"));
  const system = systems.indexOf(params.get("system"));
  if (doc >= 0) docSelect.value = String(doc);
  if (system >= 0) systemSelect.value = String(system);
}

function changed() {
  const doc = data.documents[Number(docSelect.value)];
  const system = systems[Number(systemSelect.value)];
  if (doc && system !== undefined) {
    history.replaceState(null, "", "#" + new URLSearchParams({doc: doc.id, system: system}));
  }
  render();
}

docSelect.addEventListener("change", changed);
systemSelect.addEventListener("change", changed);
choose();
render();
})();
""".splitlines()
)

_COREF_CSS = _compact(
    """
.chains{display:grid;grid-template-columns:1fr 1fr;gap:16px;align-items:start}
.chains h3{font-size:14px;margin:4px 0}
.chains ol{margin:0;padding-left:2.2em;font-size:12.5px}
.chains li{padding:2px 4px;margin:1px 0}
.mention{display:inline-block;border:1px solid #d0d7de;border-radius:3px;padding:0 4px;margin:1px 3px 1px 0}
.mention small{color:#57606a;margin-left:3px}
li.split,.split{background:#fde2e2}
li.merged,.merged{background:#fde68a}
.mention.mis,.mis{border-style:dashed;color:#b42318}
.mention.spu,.spu{border-style:dotted;color:#7c3aed}
""".splitlines()
)

# The coreference view (same rules: data only through textContent).
_COREF_SCRIPT = _compact(
    """
"use strict";
(() => {
const data = JSON.parse(document.getElementById("data").textContent);
const board = JSON.parse(document.getElementById("board-data").textContent);
const systems = board.systems;
const docSelect = document.getElementById("doc-select");
const systemSelect = document.getElementById("system-select");
systems.forEach((name, index) => {
  const ranked = index < board.rows.cells[0].length ? board.rows.cells[0][index] + ". " + name : name;
  systemSelect.append(new Option(ranked, String(index)));
});
const keyList = document.getElementById("key-chains");
const responseList = document.getElementById("response-chains");
const status = document.getElementById("doc-status");

function fill(list, chains, flagged, flagClass) {
  const fragment = document.createDocumentFragment();
  chains.forEach((chain, index) => {
    const item = document.createElement("li");
    if (flagged.has(index)) item.className = flagClass;
    for (const [text, start, end, state] of chain) {
      const mention = document.createElement("span");
      mention.className = "mention" + (state === "MIS" ? " mis" : state === "SPU" ? " spu" : "");
      mention.textContent = text;
      const extent = document.createElement("small");
      extent.textContent = "[" + start + "," + end + ")";
      mention.appendChild(extent);
      item.appendChild(mention);
    }
    fragment.appendChild(item);
  });
  list.replaceChildren(fragment);
}

function render() {
  const doc = data.documents[Number(docSelect.value)];
  const system = Number(systemSelect.value);
  if (!doc || !(system >= 0 && system < systems.length)) return;
  const response = doc.responses[system];
  fill(keyList, doc.key, new Set(response.split), "split");
  fill(responseList, response.chains, new Set(response.merged), "merged");
  status.textContent = doc.key.length + " key chains, " + response.chains.length + " response chains; " +
    response.split.length + " split, " + response.merged.length + " merged";
}

function changed() {
  const doc = data.documents[Number(docSelect.value)];
  const system = systems[Number(systemSelect.value)];
  if (doc && system !== undefined) {
    history.replaceState(null, "", "#" + new URLSearchParams({doc: doc.id, system: system}));
  }
  render();
}

const params = new URLSearchParams(location.hash.slice(1));
const chosenDoc = data.documents.findIndex((d) => d.id === params.get("doc"));
const chosenSystem = systems.indexOf(params.get("system"));
if (chosenDoc >= 0) docSelect.value = String(chosenDoc);
if (chosenSystem >= 0) systemSelect.value = String(chosenSystem);
docSelect.addEventListener("change", changed);
systemSelect.addEventListener("change", changed);
render();
})();
""".splitlines()
)
