"""Coreference scoring: MUC (Vilain), B3, CEAF-e, CEAF-m, BLANC and LEA over CoNLL or SGML key and
response files, with seed 001's partitions report and summary.

Every public name of the wing is importable from here, and other wings import it from here only.
"""

from iescore.pipeline.coref.alignment import (
    MATCH_MODES,
    AlignedDocument,
    MentionTable,
    align_documents,
    aligned_mentions,
    mention_table,
)
from iescore.pipeline.coref.campaign import COREF_CAMPAIGN
from iescore.pipeline.coref.columns import ConllColumns, read_mentions, score_files
from iescore.pipeline.coref.family import COREF, COREF_MEASURES, COREF_STATISTICS, coref_statistics
from iescore.pipeline.coref.metrics import (
    BLANC_ZERO,
    DEFAULT_METRICS,
    METRIC_NAMES,
    METRICS,
    ZERO,
    ZERO_DIVISION,
    BatchScores,
    BlancCounts,
    CorefScores,
    Counts,
    DocumentScores,
    MetricCounts,
    Number,
    rates,
    score_batch,
    score_documents,
    score_mentions,
    scores_from_table,
    zero_counts,
)
from iescore.pipeline.coref.pairing import PairedDocuments, pair_documents, read_aligned, read_paired
from iescore.pipeline.coref.readers import (
    FORMATS,
    ConllTokens,
    CorefDocument,
    Mention,
    check_same_tokens,
    read_conll,
    read_muc_sgml,
    read_pair,
)
from iescore.pipeline.coref.report import (
    partitions_report,
    score_report,
    score_tables,
    scores_json,
    summary_report,
)
from iescore.pipeline.coref.scorer_layout import SCORER_METRICS, conll_average, scorer_report

__all__ = [
    "BLANC_ZERO",
    "COREF",
    "COREF_CAMPAIGN",
    "COREF_MEASURES",
    "COREF_STATISTICS",
    "DEFAULT_METRICS",
    "FORMATS",
    "MATCH_MODES",
    "METRICS",
    "METRIC_NAMES",
    "SCORER_METRICS",
    "ZERO",
    "ZERO_DIVISION",
    "AlignedDocument",
    "BatchScores",
    "BlancCounts",
    "ConllColumns",
    "ConllTokens",
    "CorefDocument",
    "CorefScores",
    "Counts",
    "DocumentScores",
    "Mention",
    "MentionTable",
    "MetricCounts",
    "Number",
    "PairedDocuments",
    "align_documents",
    "aligned_mentions",
    "check_same_tokens",
    "conll_average",
    "coref_statistics",
    "mention_table",
    "pair_documents",
    "partitions_report",
    "rates",
    "read_conll",
    "read_aligned",
    "read_mentions",
    "read_paired",
    "read_muc_sgml",
    "read_pair",
    "score_batch",
    "score_documents",
    "score_files",
    "score_mentions",
    "score_tables",
    "score_report",
    "scores_from_table",
    "scorer_report",
    "scores_json",
    "summary_report",
    "zero_counts",
]
