"""What every scorer family uses: input errors, input reading (SGML text corpora and their documents),
greedy mapping, the MUC measures, score signatures, and the family contract (``pipeline.core.family``)."""
