"""``sc_stats``: NIST SCTK's matched-pair significance tests between speech recognition systems.

:mod:`.tests` holds the statistics (pure functions, public for the campaign engine), :mod:`.report`
their reports as sc_stats 1.3 prints them, :mod:`.run` the comparison of systems read from sclite's
alignment sgml (:mod:`iescore.pipeline.speech.sgml`).
"""

from iescore.pipeline.speech.sc_stats.tests import (
    NO_DIFF,
    TEST_DIFF,
    Utterances,
    acc_binomial,
    friedman_test,
    mapsswe_segments,
    mapsswe_test,
    mcnemar_test,
    mean_ranks,
    normprob,
    percentages,
    rank_sum_comparisons,
    segment_pairs,
    sentence_table,
    sign_test,
    wilcoxon_test,
)

__all__ = [
    "NO_DIFF",
    "TEST_DIFF",
    "Utterances",
    "acc_binomial",
    "friedman_test",
    "mapsswe_segments",
    "mapsswe_test",
    "mcnemar_test",
    "mean_ranks",
    "normprob",
    "percentages",
    "rank_sum_comparisons",
    "segment_pairs",
    "sentence_table",
    "sign_test",
    "wilcoxon_test",
]
