"""Coreference scoring: MUC (Vilain), B3, CEAF-e, CEAF-m, BLANC and LEA over CoNLL or SGML key and
response files, with seed 001's partitions report and summary.

What other wings may use: the coreference family's declaration and its statistics tables.
"""

from pipeline.coref.family import COREF, coref_statistics

__all__ = ["COREF", "coref_statistics"]
