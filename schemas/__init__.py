"""The Arrow schemas of every artifact: the contract between ``pipeline/`` and ``tasks/``.

Each column carries its documentation in the field metadata (key ``doc``), so a Parquet file opened in
pandas, DuckDB or pyarrow says what it holds. No other module spells a column name as a string: they
use the ``C`` namespace below.
"""

from __future__ import annotations

from types import SimpleNamespace

import pyarrow as pa


def _field(name: str, type_: pa.DataType, doc: str, nullable: bool = True) -> pa.Field:
    return pa.field(name, type_, nullable=nullable, metadata={"doc": doc})


def _schema(name: str, doc: str, *fields: pa.Field) -> pa.Schema:
    return pa.schema(list(fields), metadata={"artifact": name, "doc": doc})


EXTENT = pa.struct([("start", pa.int64()), ("end", pa.int64())])
SECTION = pa.struct(
    [
        ("name", pa.string()),
        ("start", pa.int64()),
        ("end", pa.int64()),
        ("content_start", pa.int64()),
        ("content_end", pa.int64()),
        ("extractable", pa.bool_()),
        ("line", pa.int32()),
    ]
)
POINT = pa.struct([("aspect", pa.string()), ("category", pa.string()), ("reason", pa.string())])

DOCUMENTS = _schema(
    "documents",
    "One row per text document of an SGML corpus (seed 000, 'Text Corpus Format').",
    _field(
        "doc_id", pa.string(), "contents of the document identification element (DOCNO, DOCID, ...)", False
    ),
    _field(
        "text",
        pa.string(),
        "the document from the '<' of its tag through its end tag; offset 0 is '<'",
        False,
    ),
    _field(
        "doc_offset", pa.int64(), "character offset of the document tag's '<' in the whole corpus file", False
    ),
    _field("doc_line", pa.int32(), "1-based line of the document tag in the corpus file", False),
    _field(
        "sections",
        pa.list_(SECTION),
        "every element inside the document: name, [start, end) with tags, [content_start, content_end) "
        "without, extractable (TEXT by default) or not (e.g. ANNOTATION), line",
    ),
)

FILLS = _schema(
    "fills",
    "One row per single fill of a template set; an instance without slots is one row with a null slot.",
    _field("doc_id", pa.string(), "document id of the instance's pointer <TYPE-DOCID-ONEUP>", False),
    _field("instance_type", pa.string(), "instance type (TYPE of the pointer)", False),
    _field("one_up", pa.string(), "one-up string of the instance (ONEUP of the pointer)", False),
    _field("instance_line", pa.int32(), "1-based line of the instance header", False),
    _field("instance_optional", pa.bool_(), "instance marked OBJ_STATUS: OPTIONAL", False),
    _field("slot", pa.string(), "slot name, null for an instance with no slots"),
    _field("slot_line", pa.int32(), "1-based line of the slot name"),
    _field("slot_optional", pa.bool_(), "slot marked optional with '?'"),
    _field("alternative", pa.int32(), "0-based index of the fill-alternative within the slot"),
    _field("fill_index", pa.int32(), "0-based index of the single fill within its alternative"),
    _field("kind", pa.string(), "text, pointer or set"),
    _field("line", pa.int32(), "1-based line where the single fill starts"),
    _field("content", pa.string(), "text: content as written (minimal strings in [brackets]); set: value"),
    _field("quoted", pa.bool_(), "the content was written in quotes"),
    _field("max_content", pa.string(), "text: maximal content string (brackets removed)"),
    _field("min_contents", pa.list_(pa.string()), "text: minimal content strings, in order"),
    _field("norm_content", pa.string(), "maximal content after content normalization (what is compared)"),
    _field("norm_min_contents", pa.list_(pa.string()), "minimal contents after content normalization"),
    _field(
        "max_start", pa.int64(), "text: start of the maximal extent (half-open, see extent_unit metadata)"
    ),
    _field("max_end", pa.int64(), "text: end of the maximal extent (first position after the fill)"),
    _field("min_extents", pa.list_(EXTENT), "text: minimal extents after the first pair, in order"),
    _field("target_type", pa.string(), "pointer: type of the instance pointed to"),
    _field("target_doc_id", pa.string(), "pointer: document id of the instance pointed to"),
    _field("target_one_up", pa.string(), "pointer: one-up string of the instance pointed to"),
)

MAPPING = _schema(
    "mapping",
    "How the hypothesis was mapped onto the reference: one row per instance pairing and per fill pairing.",
    _field("level", pa.string(), "'instance' or 'fill'", False),
    _field("doc_id", pa.string(), "document id of the instance set", False),
    _field("instance_type", pa.string(), "instance type", False),
    _field("slot", pa.string(), "slot name (fill rows)"),
    _field("ref_instance", pa.string(), "reference instance pointer, null when unmapped"),
    _field("hyp_instance", pa.string(), "hypothesis instance pointer, null when unmapped"),
    _field("ref_alternative", pa.int32(), "index of the reference fill-alternative the hypothesis mapped to"),
    _field("ref_line", pa.int32(), "line of the reference fill (or instance header)"),
    _field("hyp_line", pa.int32(), "line of the hypothesis fill (or instance header)"),
    _field("kind", pa.string(), "fill kind: text, pointer or set (fill rows)"),
    _field("ref_fill", pa.string(), "the reference single fill as written in template syntax"),
    _field("hyp_fill", pa.string(), "the hypothesis single fill as written in template syntax"),
    _field("ref_start", pa.int64(), "start of the reference text fill's maximal extent as compared"),
    _field("ref_end", pa.int64(), "end of the reference text fill's maximal extent (half-open)"),
    _field("hyp_start", pa.int64(), "start of the hypothesis text fill's maximal extent as compared"),
    _field("hyp_end", pa.int64(), "end of the hypothesis text fill's maximal extent (half-open)"),
    _field("points", pa.list_(POINT), "the pairing's points: aspect, category, reason when unscored"),
    _field("COR", pa.int32(), "correct points of the pairing", False),
    _field("INC", pa.int32(), "incorrect points", False),
    _field("MIS", pa.int32(), "missing points", False),
    _field("SPU", pa.int32(), "spurious points", False),
    _field("NON", pa.int32(), "unscored (non-committal) points", False),
)

TALLIES = _schema(
    "tallies",
    "One row per point; every score is a sum over these rows (per-document sufficient statistics).",
    _field("doc_id", pa.string(), "document id", False),
    _field("instance_type", pa.string(), "instance type", False),
    _field("slot", pa.string(), "slot name; null for object (instance-level) points"),
    _field("aspect", pa.string(), "content, extent, pointer, set, or object", False),
    _field("category", pa.string(), "COR, INC, PAR, MIS, SPU or NON (unscored)", False),
    _field("reason", pa.string(), "why a point is unscored: optional-slot, removed, optional-instance"),
    _field("ref_instance", pa.string(), "reference instance pointer"),
    _field("hyp_instance", pa.string(), "hypothesis instance pointer"),
    _field("ref_line", pa.int32(), "line of the reference fill"),
    _field("hyp_line", pa.int32(), "line of the hypothesis fill"),
)

_COUNT_FIELDS = [
    _field(name, pa.int64(), doc, False)
    for name, doc in [
        ("COR", "correct points"),
        ("INC", "incorrect points"),
        ("PAR", "partially correct points"),
        ("MIS", "missing points"),
        ("SPU", "spurious points"),
        ("NON", "unscored points"),
        ("POS", "possible = COR + INC + PAR + MIS"),
        ("ACT", "actual = COR + INC + PAR + SPU"),
    ]
]
_MEASURE_FIELDS = [
    _field(name, pa.float64(), doc + " (fraction of 1; null where undefined)")
    for name, doc in [
        ("REC", "recall (COR + PAR/2) / POS"),
        ("PRE", "precision (COR + PAR/2) / ACT"),
        ("F", "F-measure with the run's beta"),
        ("UND", "undergeneration MIS / POS"),
        ("OVG", "overgeneration SPU / ACT"),
        ("SUB", "substitution (INC + PAR/2) / (COR + PAR + INC)"),
        ("ERR", "error (INC + PAR/2 + MIS + SPU) / (COR + PAR + INC + MIS + SPU)"),
    ]
]

SCORES = _schema(
    "scores",
    "Score tables of one system, computed from its tallies.",
    _field("scope", pa.string(), "total, document, type, slot or object", False),
    _field("doc_id", pa.string(), "document id (scope document)"),
    _field("instance_type", pa.string(), "instance type (scopes type, slot, object)"),
    _field("slot", pa.string(), "slot name (scope slot)"),
    *_COUNT_FIELDS,
    *_MEASURE_FIELDS,
)

LEADERBOARD = _schema(
    "leaderboard",
    "The leaderboard of a campaign of any kind (pipeline.campaign.kinds), long form so that one schema "
    "serves every family: one row per (system, column its kind declares), systems best first by the "
    "family's headline measure, the kind's counts (sums of statistics) then its board measures in the "
    "kind's order. A count is the sum over all units of the statistics it names; a measure is the family's "
    "measure of the system's statistics summed over all units; low and high are its bootstrap interval "
    "over units (for the kind's interval measures). Values are kept as fractions of 1; the text board, "
    "CSV, JSON and page show them in the kind's unit (CampaignKind.unit).",
    _field("rank", pa.int32(), "1 for the best headline value; equal values share a rank", False),
    _field("system", pa.string(), "system name from the campaign file", False),
    _field("measure", pa.string(), "the count's or measure's name (e.g. COR, F, recall, map)", False),
    _field(
        "value",
        pa.float64(),
        "the count, or the measure over all units (fraction of 1 for rates; null where undefined)",
    ),
    _field("low", pa.float64(), "lower end of the measure's 95% bootstrap interval over units"),
    _field("high", pa.float64(), "upper end of the measure's 95% bootstrap interval over units"),
    _field(
        "attributes",
        pa.string(),
        "the system's attributes shown beside its name (a JSON object, e.g. CLEF's additional annotations)",
        False,
    ),
    _field("signature", pa.string(), "the system's score signature", False),
)

SIGNIFICANCE = _schema(
    "significance",
    "One row per pair of systems of a campaign of any kind: is the difference in its ranking measure "
    "significant? The paired bootstrap and approximate randomization over the family's units (documents, "
    "instances, queries), the paired t-test (kinds whose ranking measure is a mean of per-unit values), "
    "and the p-values adjusted by Holm's correction over all the campaign's pairs.",
    _field("system_a", pa.string(), "first system (the better ranked of the two)", False),
    _field("system_b", pa.string(), "second system", False),
    _field(
        "measure",
        pa.string(),
        "the campaign's ranking measure (the family's headline, or the one its [options] choose)",
        False,
    ),
    _field("delta", pa.float64(), "measure of a minus measure of b (fraction of 1; null where undefined)"),
    _field("paired_bootstrap_p", pa.float64(), "two-sided p-value of the paired bootstrap over the units"),
    _field("randomization_p", pa.float64(), "two-sided p-value of approximate randomization over the units"),
    _field("resamples", pa.int64(), "bootstrap resamples and randomization shuffles", False),
    _field("seed", pa.int64(), "seed of the random generator", False),
    _field(
        "t_test_p",
        pa.float64(),
        "two-sided p-value of Student's paired t-test over the units both systems have a value for; null "
        "when the ranking measure is not a mean of per-unit values, or the differences are all equal",
    ),
    _field(
        "randomization_p_holm",
        pa.float64(),
        "randomization_p adjusted by Holm's step-down correction over every pair of the campaign",
    ),
    _field(
        "t_test_p_holm",
        pa.float64(),
        "t_test_p adjusted by Holm's correction over every pair with a t_test_p",
    ),
    _field(
        "mapsswe_p",
        pa.float64(),
        "WER campaigns: p-value of sc_stats' matched pairs sentence-segment word error test (MAPSSWE) on "
        "the two systems' alignments (pipeline.speech.sc_stats.tests.mapsswe_test); null for other kinds",
    ),
    _field(
        "mapsswe_p_holm",
        pa.float64(),
        "mapsswe_p adjusted by Holm's correction over every pair with a mapsswe_p",
    ),
    _field(
        "sign_p",
        pa.float64(),
        "WER campaigns: p-value of sc_stats' sign test on the two systems' per-speaker word error rates "
        "(pipeline.speech.sc_stats.tests.sign_test); null for other kinds",
    ),
    _field(
        "sign_p_holm",
        pa.float64(),
        "sign_p adjusted by Holm's correction over every pair with a sign_p",
    ),
)

RANKS = _schema(
    "ranks",
    "One row per system of a campaign, best first: its rank, its rank range over the bootstrap's "
    "resamples and its rank cluster (pipeline.campaign.stats: rank_ranges, rank_clusters; "
    "docs/campaigns.md).",
    _field("system", pa.string(), "system name from the campaign file", False),
    _field("rank", pa.int32(), "1 for the best headline value; equal values share a rank", False),
    _field(
        "rank_low",
        pa.int32(),
        "best end of the system's 95% rank range: its rank on each bootstrap resample, at quantile 0.025",
        False,
    ),
    _field("rank_high", pa.int32(), "worst end of the 95% rank range: the ranks' quantile 0.975", False),
    _field(
        "cluster",
        pa.int32(),
        "rank cluster, from 1: systems not significantly different (Holm-adjusted randomization p) from "
        "their cluster's best system",
        False,
    ),
)

STATISTICS = _schema(
    "statistics",
    "A scorer family's sufficient statistics for one system (pipeline.core.family), long form so that one "
    "schema serves every family: one row per (unit, category, statistic), at most one. A unit's statistics "
    "are the sums of its rows over categories (a statistic without a row is 0), a set of units' the sums "
    "over its units; every unit with a row, even of value 0, is a unit the bootstrap resamples. The heat "
    "map's values of a category are the family's measures of that category's sums over all units.",
    _field(
        "unit",
        pa.string(),
        "what resampling draws: a document id (templette, MUC, coreference), an instance (SENSEVAL), a "
        "query (TREC)",
        False,
    ),
    _field(
        "category",
        pa.string(),
        "the heat map's category of the value (templette and MUC: TYPE.SLOT); null when the family has no "
        "categories (it then counts in its unit's sums only)",
    ),
    _field(
        "statistic",
        pa.string(),
        "one of the family's statistic names (templette: COR INC PAR MIS SPU)",
        False,
    ),
    _field(
        "value",
        pa.float64(),
        "the statistic's value: a count (a whole number >= 0 where the family says so), fractional credit, "
        "a per-unit average precision...",
        False,
    ),
)

ALIGNMENT = _schema(
    "alignment",
    "One row per alignment column of a reference document and its hypothesis document.",
    _field("doc_id", pa.string(), "document id", False),
    _field("column", pa.int64(), "0-based column number within the document's alignment", False),
    _field("ref_word", pa.string(), "reference word (null for an insertion)"),
    _field("ref_start", pa.int64(), "start of the reference word (characters from the document's '<')"),
    _field("ref_end", pa.int64(), "end of the reference word (half-open)"),
    _field("hyp_word", pa.string(), "hypothesis word (null for a deletion)"),
    _field("hyp_start", pa.int64(), "start of the hypothesis word"),
    _field("hyp_end", pa.int64(), "end of the hypothesis word (half-open)"),
    _field("op", pa.string(), "C correct, S substitution, D deletion, I insertion", False),
    _field("cost", pa.float64(), "cost of the column (0 for C)", False),
)

# --- speech (iescore align, iescore.speech) -------------------------------------------------------------
_SEGMENT_COUNT_FIELDS = [
    _field("C", pa.int64(), "correct words (an optional reference word left out counts here)", False),
    _field("S", pa.int64(), "substituted words", False),
    _field("D", pa.int64(), "deleted reference words (optional ones excepted)", False),
    _field("I", pa.int64(), "inserted hypothesis words (optional ones excepted)", False),
]

SPEECH_SEGMENTS = _schema(
    "speech_segments",
    "One row per aligned utterance (trn) or document (sgml), in the order iescore align prints them.",
    _field("segment_id", pa.string(), "utterance id (trn, lower-cased) or document id (sgml)", False),
    *_SEGMENT_COUNT_FIELDS,
    _field(
        "missing", pa.bool_(), "the hypothesis lacks it (--allow-missing): its words are deletions", False
    ),
)

SPEECH_WORDS = _schema(
    "speech_words",
    "One row per alignment column of an utterance (or document) and its hypothesis, in report order.",
    _field("segment_id", pa.string(), "utterance id (trn, lower-cased) or document id (sgml)", False),
    _field("column", pa.int64(), "0-based column number within the segment's alignment", False),
    _field("ref_word", pa.string(), "reference word, lower-cased (null for an insertion)"),
    _field("hyp_word", pa.string(), "hypothesis word, lower-cased (null for a deletion)"),
    _field("op", pa.string(), "C correct, S substitution, D deletion, I insertion", False),
    _field("ref_optional", pa.bool_(), "the reference word is optional (a filler or fragment)", False),
    _field("hyp_optional", pa.bool_(), "the hypothesis word is optional (a filler or fragment)", False),
)

WER_ALIGNMENT = _schema(
    "wer_alignment",
    "A WER campaign's alignment of one system: one row per aligned word pair of every scored utterance "
    "(trn) or segment (stm), in sclite's report order (pipeline.speech.wer).",
    _field("utterance", pa.string(), "utterance id as sclite prints it, with its parentheses", False),
    _field("sequence", pa.int64(), "the utterance's rank in sclite's reading order", False),
    _field("speaker", pa.string(), "the utterance's speaker, as sclite names it", False),
    _field("labels", pa.string(), "the stm segment's labels, comma-separated (empty for trn)", False),
    _field(
        "ref_word",
        pa.string(),
        "reference word as sclite holds it (folded unless case-sensitive; null for an insertion)",
    ),
    _field("hyp_word", pa.string(), "hypothesis word (null for a deletion)"),
    _field(
        "op", pa.string(), "C correct, S substitution, D deletion, I insertion as sclite counts them", False
    ),
)

SPEECH_TOTALS = _schema(
    "speech_totals",
    "The totals of an alignment, as iescore align prints them (sclite's .sys line).",
    *_SEGMENT_COUNT_FIELDS,
    *(
        _field(name, pa.float64(), f"{doc} in percent of the reference words C + S + D (one decimal)", False)
        for name, doc in (
            ("Corr", "correct words"),
            ("Sub", "substitutions"),
            ("Del", "deletions"),
            ("Ins", "insertions"),
            ("Err", "errors S + D + I (the word error rate)"),
        )
    ),
    _field("missing", pa.int64(), "utterances the hypothesis lacks (scored as deletions)", False),
)

# --- coreference (iescore coref, iescore.coref) ------------------------------------------------------------
COREF_SCORES = _schema(
    "coref_scores",
    "One row per (document, metric) of a coreference score, or per metric of the totals (sums of counts).",
    _field("doc_id", pa.string(), "document id; null in the totals"),
    _field(
        "metric",
        pa.string(),
        "muc, b3, ceafe, ceafm, lea, blanc (its R, P, F1 only), blanc_coreference and "
        "blanc_non_coreference (BLANC's two link types, with their counts), conll (the mean of the MUC, B3 "
        "and CEAF-e F1, a ratio over 0 counted as 0, as the CoNLL scorer does; F1 only)",
        False,
    ),
    _field("key_classes", pa.int64(), "the key's equivalence classes (chains)", False),
    _field("response_classes", pa.int64(), "the response's equivalence classes", False),
    _field("recall_num", pa.float64(), "recall numerator (null for blanc and conll)"),
    _field("recall_den", pa.int64(), "recall denominator"),
    _field("precision_num", pa.float64(), "precision numerator"),
    _field("precision_den", pa.int64(), "precision denominator"),
    _field("recall", pa.float64(), "recall (fraction of 1; null where undefined, or 0 with zero_division 0)"),
    _field("precision", pa.float64(), "precision (fraction of 1; null where undefined)"),
    _field("f1", pa.float64(), "F1 (fraction of 1; null where undefined)"),
)

NAMED_ENTITIES = _schema(
    "named_entities",
    "One row per named entity object (ENAMEX, TIMEX, NUMEX element) of a key or response (seed 001).",
    _field("doc_id", pa.string(), "document id", False),
    _field("pointer", pa.string(), "the object's pointer, <TAG-DOCID-ONEUP>", False),
    _field("section", pa.string(), "the innermost other SGML element enclosing it (section scores)", False),
    _field("start", pa.int64(), "start of the element in the document without NE tags", False),
    _field("end", pa.int64(), "end of the element (half-open)", False),
    _field(
        "region_start", pa.int64(), "start of the innermost other element enclosing it (its region)", False
    ),
    _field("region_end", pa.int64(), "end of that element; objects pair only within one region", False),
)

COREF_MENTIONS = _schema(
    "coref_mentions",
    "One row per coreference mention of the key or the response, matched by extent (seed 001, CO task).",
    _field("doc_id", pa.string(), "document id", False),
    _field("doc", pa.int64(), "document number (0-based, key order)", False),
    _field(
        "key_mention", pa.int64(), "index of the key mention in its document, -1 for a spurious one", False
    ),
    _field("response_mention", pa.int64(), "index of the response mention, -1 for a missing one", False),
    _field("key_chain", pa.int64(), "key equivalence class (0-based in the document), -1 when absent", False),
    _field("response_chain", pa.int64(), "response equivalence class, -1 when absent", False),
    _field("start", pa.int64(), "start of the mention (characters without COREF tags, or tokens)", False),
    _field("end", pa.int64(), "end of the mention (half-open)", False),
    _field(
        "status", pa.string(), "COR (matched), MIS, SPU, or OPT (an optional key mention left out)", False
    ),
    _field("scored", pa.bool_(), "false only for OPT", False),
    _field("key_text", pa.string(), "the key mention's text"),
    _field("response_text", pa.string(), "the response mention's text"),
)

# --- TREC (issue 15) ------------------------------------------------------------------------------------
TREC_QRELS = _schema(
    "trec_qrels",
    "One row per judged (query, document) of a qrels file (trec_eval's 'qid iter docno rel').",
    _field("qid", pa.string(), "query id, as written", False),
    _field("docno", pa.string(), "document number, as written", False),
    _field("rel", pa.int64(), "relevance grade; below 0: in the pool but not judged", False),
    _field("line", pa.int64(), "1-based line in the qrels file", False),
)
TREC_RUN = _schema(
    "trec_run",
    "One row per retrieved (query, document) of a run ('qid Q0 docno rank score tag'); the rank column "
    "is not kept (trec_eval ignores it) and the run tag (last line's) is in the metadata (trec_runid).",
    _field("qid", pa.string(), "query id, as written", False),
    _field("docno", pa.string(), "document number, as written", False),
    _field("score", pa.float64(), "retrieval score (ranks: score descending, docno descending)", False),
    _field("line", pa.int64(), "1-based line in the run file", False),
)
TREC_EVALUATION = _schema(
    "trec_evaluation",
    "One row per value of each query (query-major, values in trec_eval's order), then one per value over "
    "queries (qid 'all'): what trec_eval -q prints, and the per-query values it does not print.",
    _field("qid", pa.string(), "query id, or 'all' for the summary over queries", False),
    _field("measure", pa.string(), "the value's name as trec_eval prints it (P_10, ndcg_cut_10, map)", False),
    _field(
        "value",
        pa.float64(),
        "the value (NaN where trec_eval prints nan; a geometric mean's per-query value is the logarithm "
        "it averages; 0 for runid and relstring)",
    ),
    _field(
        "text",
        pa.string(),
        "the value as trec_eval prints it (%6.4f, a count, the run tag, 'relstring'); null where trec_eval "
        "does not print it (per query: runid, num_q, gm_map, gm_bpref; over queries: relstring)",
    ),
)

# --- MAT (seed 002, issue 12) ------------------------------------------------------------------------

MAT_DOCUMENTS = _schema(
    "mat_documents",
    "One row per document of one side of a MAT comparison (seed 002): its key, where it came from, its "
    "signal (the text the annotations' offsets count in).",
    _field("file", pa.string(), "document key: the basename of the hypothesis file it pairs with", False),
    _field("side", pa.string(), "ref (the reference) or hyp (the hypothesis)", False),
    _field("source", pa.string(), "the file read (absolute path)", False),
    _field("signal", pa.string(), "the document's signal (text); offsets count its characters", False),
    _field("signal_sha256", pa.string(), "sha256 of the signal's UTF-8 bytes (sides must agree)", False),
)

MAT_ANNOTATIONS = _schema(
    "mat_annotations",
    "One row per span annotation of one side of a MAT comparison, labels after task aliases, "
    "equivalence classes and --ignore (issue 12, shared data model).",
    _field("file", pa.string(), "document key (the hypothesis basename)", False),
    _field("side", pa.string(), "ref or hyp", False),
    _field("kind", pa.string(), "content (scored) or token (test toks, by-token units)", False),
    _field("label", pa.string(), "the label scored (after aliases and equivalence classes)", False),
    _field("start", pa.int64(), "first character of the span in the signal", False),
    _field("end", pa.int64(), "character after the span (half-open)", False),
    _field("attributes", pa.string(), "the annotation's attributes as a JSON object", False),
    _field(
        "index", pa.int64(), "0-based position of the annotation in its file and side (input order)", False
    ),
    _field("source_label", pa.string(), "the label as read, before aliases and equivalence classes", False),
)

MAT_PAIRS = _schema(
    "mat_pairs",
    "One row per pair or unpaired content annotation of a MAT comparison, tag level (issue 12, point 3): "
    "the auditable pairing, also the --details sheet.",
    _field("file", pa.string(), "document key (the hypothesis basename)", False),
    _field(
        "type",
        pa.string(),
        "match, missing, spurious, or the clash's kind from the hypothesis's side: tagclash, overmark, "
        "undermark, overlap, tagplusovermark, tagplusundermark, tagplusoverlap",
        False,
    ),
    _field(
        "ref_index",
        pa.int64(),
        "index of the reference annotation (MAT_ANNOTATIONS.index), -1 if none",
        False,
    ),
    _field("hyp_index", pa.int64(), "index of the hypothesis annotation, -1 if none", False),
    _field("reflabel", pa.string(), "the reference annotation's label (null when missing)"),
    _field("refstart", pa.int64(), "its start (null when none)"),
    _field("refend", pa.int64(), "its end, half-open (null when none)"),
    _field("hyplabel", pa.string(), "the hypothesis annotation's label (null when none)"),
    _field("hypstart", pa.int64(), "its start (null when none)"),
    _field("hypend", pa.int64(), "its end, half-open (null when none)"),
    _field(
        "similarity", pa.float64(), "0.1 x same label + 0.9 x overlap / union; 0 for an unpaired row", False
    ),
    _field("chunk", pa.int64(), "the chunk of transitively overlapping annotations (per comparison)", False),
)

_MAT_COUNT_NAMES = ("match", "refclash", "missing", "hypclash", "spurious")
_MAT_DETAIL_NAMES = tuple(
    f"{side}{kind}"
    for side in ("ref", "hyp")
    for kind in (
        "tagclash",
        "overmark",
        "undermark",
        "overlap",
        "tagplusovermark",
        "tagplusundermark",
        "tagplusoverlap",
    )
)

MAT_COUNTS = _schema(
    "mat_counts",
    "MAT's per-document counts, long by tag (issue 12, shared data model): one row per (file, table, tag). "
    "Corpus (<all>) rows are sums computed when reporting.",
    _field("file", pa.string(), "document key (the hypothesis basename)", False),
    _field("table", pa.string(), "tag, token, pseudo_token or character", False),
    _field("tag", pa.string(), "the label counted", False),
    *(
        _field(
            name,
            pa.int64(),
            f"seed 002's {name} count (annotations in the tag table, units otherwise)",
            False,
        )
        for name in _MAT_COUNT_NAMES
    ),
    *(
        _field(
            name,
            pa.int64(),
            f"seed 002's {name} span-detail count (tag table; 0 in fixed-span tables)",
            False,
        )
        for name in _MAT_DETAIL_NAMES
    ),
    _field(
        "test_units",
        pa.int64(),
        "the file's test units, repeated on each of its rows: token annotations of the hypothesis (tag and "
        "token tables), pseudo-tokens, or characters",
        False,
    ),
)

# SENSEVAL (seed 003, scorer2): word-sense keys, answers, sense maps and per-instance scores.
SENSE_KEY = _schema(
    "sense_key",
    "One row per instance of a SENSEVAL answer key (seed 003: 'ref_id ref_num senseid+'), in file order.",
    _field("item", pa.string(), "the lexical item (ref_id), first field of the key line", False),
    _field("instance", pa.string(), "the instance of the item (ref_num), second field", False),
    _field("line", pa.int64(), "1-based line of the instance in the key file", False),
    _field("key_tags", pa.list_(pa.string()), "the correct sense tags as written (any one is right)", False),
)

SENSE_MAP = _schema(
    "sense_map",
    "One row per sense of a SENSEVAL sense map ('senseid_0 [b_1 senseid_1 b_2 senseid_2 ...]'): the "
    "sense, then each ancestor, each with the branching factor of the step that reaches it.",
    _field("sense", pa.string(), "the sense the line is about (senseid_0)", False),
    _field("line", pa.int64(), "1-based line in the sense-map file", False),
    _field("ancestors", pa.list_(pa.string()), "senseid_1, senseid_2, ...: parent, grandparent, ...", False),
    _field(
        "branching",
        pa.list_(pa.int64()),
        "b_1, b_2, ...: b_N is the branching factor of senseid_N (how many children it has)",
        False,
    ),
)

SENSE_ANSWERS = _schema(
    "sense_answers",
    "One row per line of a SENSEVAL answer file ('item instance tag[/weight] ...', '!!' starts a comment), "
    "split the way scorer2 splits it: the identifier at the first two spaces, the tags at blanks.",
    _field("line", pa.int64(), "1-based line in the answer file", False),
    _field("item", pa.string(), "text before the first space (the lexical item)", False),
    _field(
        "instance", pa.string(), "text between the first and the second space; null: the line has no space"
    ),
    _field("answer_tags", pa.list_(pa.string()), "the sense tags, in the order written", False),
    _field(
        "answer_weights",
        pa.list_(pa.float64()),
        "each tag's weight as scorer2 reads it (C atof: a weight that is not a number is 0); null for a "
        "tag written without '/'",
        False,
    ),
    _field("warning", pa.string(), "what scorer2 scores oddly on this line (null: nothing)"),
)

SENSE_INSTANCES = _schema(
    "sense_instances",
    "One row per instance of the key after the filters: its key tags and the answer that scored it, after "
    "the granularity's conversion, with its credit and how much of it was attempted. The auditable "
    "artifact of a SENSEVAL score, and the family's sufficient statistics (credit, attempted, total).",
    _field("item", pa.string(), "the lexical item", False),
    _field("instance", pa.string(), "the instance", False),
    _field("key_line", pa.int64(), "1-based line of the instance in the key", False),
    _field("key_tags", pa.list_(pa.string()), "key tags as scored (coarse: top ancestors, merged)", False),
    _field("answer_line", pa.int64(), "1-based line of the answer that scored it; null: not answered"),
    _field(
        "answer_tags", pa.list_(pa.string()), "answer tags as scored (coarse: top ancestors, merged)", False
    ),
    _field(
        "answer_weights",
        pa.list_(pa.float64()),
        "each answer tag's weight as scored (normalised when they summed to more than 1)",
        False,
    ),
    _field("credit", pa.float64(), "the instance's score (0 to 1; conjunctive: 0 to the key tags)", False),
    _field(
        "attempted", pa.float64(), "how much was attempted: the answer's total weight (0 unanswered)", False
    ),
    _field(
        "total", pa.float64(), "what the instance counts in the total: 1 (conjunctive: its key tags)", False
    ),
)

SENSE_UNSCORED = _schema(
    "sense_unscored",
    "One row per answer line that could not be scored (scorer2's 'Unable to score answer for ...').",
    _field("line", pa.int64(), "1-based line in the answer file", False),
    _field("name", pa.string(), "the instance as scorer2 names it: item_instance", False),
    _field(
        "reason",
        pa.string(),
        "'Does not exist.', 'Invalid answer.' or 'Excluded or already scored.' (scorer2's words)",
        False,
    ),
)

# --- CLEF eHealth (seed 004, issue 14): eval.pl's pipe-delimited mentions and their matches ---------

_CLEF_MENTION_FIELDS = [
    _field("report", pa.string(), "the report: the line's first field (not the file's name)", False),
    _field("mention", pa.int64(), "0-based number of the mention in its side, in reading order", False),
    _field("file", pa.string(), "name of the file the line was read from", False),
    _field("line", pa.int64(), "1-based line of the mention in its file (the last of replaced ones)", False),
    _field("type", pa.string(), "the second field as written (Disease_Disorder, Abbreviation...)", False),
    _field("cui", pa.string(), "the code compared, lower-cased (a Task 2 gold line: its top code)", False),
    _field("cui_text", pa.string(), "the CUI field as written", False),
    _field(
        "codes",
        pa.string(),
        "the CUI field lower-cased: a Task 2 gold line's n-best codes, best first, separated by spaces",
        False,
    ),
    _field("key", pa.string(), "the offsets joined by '-' (eval.pl's key: start-end[-start-end...])", False),
    _field("start", pa.int64(), "start of the first piece (characters of the report's text)", False),
    _field("end", pa.int64(), "end of the last piece (half-open)", False),
    _field("n_pieces", pa.int64(), "number of [start, end) pieces (more than 1: discontiguous)", False),
]

CLEF_MENTIONS = _schema(
    "clef_mentions",
    "One row per mention of one side (gold or system) of a CLEF eHealth evaluation, after a later line "
    "with the same report and offsets has replaced an earlier one (eval.pl's rule).",
    *_CLEF_MENTION_FIELDS,
    _field("pieces", pa.list_(EXTENT), "every [start, end) piece, in order", False),
)

CLEF_MATCHES = _schema(
    "clef_matches",
    "Every gold mention and every prediction of a CLEF eHealth evaluation with its status in each match "
    "mode (pipeline.clef.rules): the auditable artifact the counts, eval.pl's report and the Workbench "
    "are computed from.",
    _field("side", pa.string(), "gold or system", False),
    *_CLEF_MENTION_FIELDS,
    _field("exact", pa.bool_(), "a mention of the other side has exactly the same offsets", False),
    _field("partner", pa.int64(), "that mention's number on the other side, -1 when none", False),
    _field("partner_cui", pa.string(), "that mention's code (lower-cased), null when none"),
    _field("cui_match", pa.bool_(), "the exact partner has the same code (Task 1b; Task 2 strict)", False),
    _field(
        "nbest_match",
        pa.bool_(),
        "the prediction's code is in the gold's n-best codes (Task 2 relaxed; Task 1: = cui_match)",
        False,
    ),
    _field("overlap", pa.bool_(), "some piece shares a character with a piece of the other side", False),
    _field("overlap_cui", pa.bool_(), "some overlapping mention of the other side has the same code", False),
    _field(
        "one_to_one",
        pa.int64(),
        "the mention paired with it one to one (largest overlap first), -1 when unpaired",
        False,
    ),
    _field("one_to_one_chars", pa.int64(), "characters it shares with that mention, 0 when unpaired", False),
    _field("pieces", pa.list_(EXTENT), "every [start, end) piece, in order", False),
)

CLEF_SCORES = _schema(
    "clef_scores",
    "A CLEF eHealth run over all its reports (pipeline.clef.family): its summed statistics, then its "
    "measures.",
    _field(
        "name",
        pa.string(),
        "a statistic (strict_tp, ...) or a measure (strict_F, strict_accuracy, ...)",
        False,
    ),
    _field("kind", pa.string(), "statistic or measure", False),
    _field(
        "value",
        pa.float64(),
        "a statistic's sum over the reports, or a measure, a fraction of 1 (0 without a true positive, "
        "as eval.pl)",
        False,
    ),
)

SENSE_WARNINGS = _schema(
    "sense_warnings",
    "One row per answer line that scorer2 scores oddly (the lines of SENSE_ANSWERS with a warning).",
    _field("line", pa.int64(), "1-based line in the answer file", False),
    _field("warning", pa.string(), "what is odd and how scorer2 scores it", False),
)

SENSE_TOTALS = _schema(
    "sense_totals",
    "A SENSEVAL score's sums: one row for all instances (item null), then one per lexical item, sorted.",
    _field("item", pa.string(), "the lexical item; null: every instance"),
    _field("credit", pa.float64(), "summed credit (scorer2's 'correct')", False),
    _field("attempted", pa.float64(), "summed attempted weight", False),
    _field("total", pa.float64(), "instances (conjunctive: key tags)", False),
)

MAT_SCORES = _schema(
    "mat_scores",
    "MAT's reported table rows (seed 002, 'All score tables'): per file and for the corpus (file <all>), "
    "per tag and for all tags (tag <all>). Measures are fractions of 1 with MATScore's conventions.",
    _field("file", pa.string(), "hypothesis basename, or <all> for the corpus", False),
    _field("table", pa.string(), "tag, token, pseudo_token or character", False),
    _field("tag", pa.string(), "the label, or <all>", False),
    _field("test_docs", pa.int64(), "number of test (hypothesis) documents of the row", False),
    _field(
        "test_units", pa.int64(), "test toks / test pseudo-toks / test chars of the row's documents", False
    ),
    *(_field(name, pa.int64(), f"{name} count", False) for name in _MAT_COUNT_NAMES[:3]),
    _field("refonly", pa.int64(), "refclash + missing", False),
    _field("reftotal", pa.int64(), "refonly + match", False),
    *(_field(name, pa.int64(), f"{name} count", False) for name in _MAT_COUNT_NAMES[3:]),
    _field("hyponly", pa.int64(), "hypclash + spurious", False),
    _field("hyptotal", pa.int64(), "hyponly + match", False),
    *(_field(name, pa.int64(), f"{name} span-detail count", False) for name in _MAT_DETAIL_NAMES),
    _field("precision", pa.float64(), "match / hyptotal; 1.0 when hyptotal is 0", False),
    _field("recall", pa.float64(), "match / reftotal; 1.0 when reftotal is 0", False),
    _field("fmeasure", pa.float64(), "2PR / (P + R); 0 when P + R is 0", False),
)

MAT_DETAILS = _schema(
    "mat_details",
    "MATScore's details sheet (--details): one row per pair or unpaired content annotation, with the text "
    "each side's span covers.",
    _field("file", pa.string(), "document key (the hypothesis basename)", False),
    _field("type", pa.string(), "match, missing, spurious, or the clash's kind (as MAT_PAIRS.type)", False),
    _field("reflabel", pa.string(), "the reference annotation's label (null when missing)"),
    _field("refstart", pa.int64(), "its start (null when none)"),
    _field("refend", pa.int64(), "its end, half-open (null when none)"),
    _field("hyplabel", pa.string(), "the hypothesis annotation's label (null when none)"),
    _field("hypstart", pa.int64(), "its start (null when none)"),
    _field("hypend", pa.int64(), "its end, half-open (null when none)"),
    _field("refcontent", pa.string(), "the signal's text under the reference span, escaped"),
    _field("hypcontent", pa.string(), "the signal's text under the hypothesis span, escaped"),
)

MAT_CONFUSABILITY = _schema(
    "mat_confusability",
    "MATScore's confusability rows (confusability.csv): per file, then the corpus (<all>), one row per "
    "reference label; after these two columns, one count column per hypothesis label and null (missing).",
    _field("file", pa.string(), "document key, or <all> for the corpus", False),
    _field("reference", pa.string(), "the row's reference label ('null': spurious spans)", False),
)

# --- campaign summaries' reuse records (issue 16: a rerun recomputes only what changed) ---------------

SUMMARY_UNITS = _schema(
    "summary_units",
    "The units a campaign summary resampled, in the order its random draws take them (sorted ids): what "
    "a later summary checks before reusing its intervals and pair tests (pipeline.campaign.reuse).",
    _field("unit", pa.string(), "a unit id (a document id for templette and MUC campaigns)", False),
)

SUMMARY_SYSTEMS = _schema(
    "summary_systems",
    "One row per system of a campaign summary: its statistics over the units it has a row for, as the "
    "summary used them, so that a later summary reads an unchanged system's statistics here instead of "
    "recomputing them from its tallies (pipeline.campaign.reuse).",
    _field("system", pa.string(), "system name from the campaign file", False),
    _field(
        "unit_positions",
        pa.list_(pa.int64()),
        "0-based positions, in the summary's units (summary_units), of the units the system has a "
        "statistics row for (even of value 0), ascending",
        False,
    ),
    _field(
        "statistic_values",
        pa.list_(pa.float64()),
        "the system's statistics in those units, unit by unit, each unit's statistics in the family's "
        "order (len(unit_positions) x the family's statistics)",
        False,
    ),
)

SUMMARY_CATEGORIES = _schema(
    "summary_categories",
    "The heat map's sums: one row per (system, category) of a campaign summary whose family has "
    "categories, the system's statistics summed over every unit for that category, so that the page reads "
    "one table instead of every system's statistics, and a later summary takes an unchanged system's rows "
    "from here (pipeline.campaign.reuse). Categories of a system in sorted order.",
    _field("system", pa.string(), "system name from the campaign file", False),
    _field("category", pa.string(), "a category of the family (templette and MUC: TYPE.SLOT)", False),
    _field(
        "statistic_values",
        pa.list_(pa.float64()),
        "the category's statistics summed over the units, in the family's order",
        False,
    ),
)

_PAGE_VIEW_FIELDS = (
    _field("doc_id", pa.string(), "document id", False),
    _field("instance_type", pa.string(), "instance type of the pairing", False),
    _field("slot", pa.string(), "slot name; null for an object (instance) pairing"),
    _field("ref", pa.string(), "the reference fill as written (an object's pointer); null if spurious"),
    _field("hyp", pa.string(), "the hypothesis fill as written (an object's pointer); null if missing"),
    _field("ref_start", pa.int64(), "start of the reference fill's highlighted span; null when not shown"),
    _field("ref_end", pa.int64(), "end (exclusive) of the reference fill's highlighted span"),
    _field("hyp_start", pa.int64(), "start of the hypothesis fill's highlighted span; null when not shown"),
    _field("hyp_end", pa.int64(), "end (exclusive) of the hypothesis fill's highlighted span"),
    _field("categories", pa.string(), "the pairing's points as 'aspect:category ...'", False),
)

PAGE_VIEW = _schema(
    "page_view",
    "One system's rows of a campaign page's per-document view (pipeline.campaign.engine.mapping_view): "
    "its mapping's pairings in the documents the page shows, in mapping order, as the page shows them.",
    *_PAGE_VIEW_FIELDS,
)

PAGE_VIEWS = _schema(
    "page_views",
    "The rows of several systems' per-document views (PAGE_VIEW with the system's name), each system's "
    "rows together in its mapping order, the systems in campaign order. A cache the page keeps in the "
    "store per group of consecutive systems (tasks.campaign.outputs.page_views), so a rerun reads one "
    "file a group instead of every system's, and makes again only the group of a changed system.",
    *_PAGE_VIEW_FIELDS,
    _field("system", pa.string(), "system name from the campaign file", False),
)

SCHEMAS = {
    s.metadata[b"artifact"].decode(): s
    for s in (
        DOCUMENTS,
        FILLS,
        MAPPING,
        TALLIES,
        SCORES,
        LEADERBOARD,
        COREF_MENTIONS,
        SIGNIFICANCE,
        RANKS,
        STATISTICS,
        ALIGNMENT,
        SPEECH_SEGMENTS,
        SPEECH_WORDS,
        WER_ALIGNMENT,
        SPEECH_TOTALS,
        COREF_SCORES,
        NAMED_ENTITIES,
        TREC_QRELS,
        TREC_RUN,
        TREC_EVALUATION,
        SENSE_KEY,
        SENSE_MAP,
        SENSE_ANSWERS,
        SENSE_INSTANCES,
        SENSE_UNSCORED,
        SENSE_WARNINGS,
        SENSE_TOTALS,
        MAT_DOCUMENTS,
        MAT_ANNOTATIONS,
        MAT_PAIRS,
        MAT_COUNTS,
        MAT_SCORES,
        MAT_DETAILS,
        MAT_CONFUSABILITY,
        CLEF_MENTIONS,
        CLEF_MATCHES,
        CLEF_SCORES,
        SUMMARY_UNITS,
        SUMMARY_SYSTEMS,
        SUMMARY_CATEGORIES,
        PAGE_VIEW,
        PAGE_VIEWS,
    )
}

# Column names, for code that must name one (``C.doc_id``): one namespace, derived from the schemas.
C = SimpleNamespace(**{name: name for schema in SCHEMAS.values() for name in schema.names})

COUNT_COLUMNS = tuple(f.name for f in _COUNT_FIELDS)
MEASURE_COLUMNS = tuple(f.name for f in _MEASURE_FIELDS)


def table_from_rows(rows: list[dict], schema: pa.Schema) -> pa.Table:
    """Rows (dicts) to a table of ``schema``; a key the schema does not name is an error, not dropped.

    Absent keys become nulls (nullable columns only; pyarrow refuses a null in a required column).
    """
    names = set(schema.names)
    for row in rows:
        unknown = row.keys() - names
        if unknown:
            artifact = (schema.metadata or {}).get(b"artifact", b"?").decode()
            raise KeyError(f"columns {sorted(unknown)} are not in the {artifact} schema")
    return pa.Table.from_pylist(rows, schema=schema)
