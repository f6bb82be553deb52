"""pytrec_eval on a qrels file and a run file: the smallest program its user writes.

    python pytrec_eval_run.py QRELS RUN

Reads both files with pytrec_eval's own parsers, evaluates MAP, P@10 and nDCG@10 and prints their
means over the queries. Nothing else is imported: this is the peer's whole process.
"""

import sys

import pytrec_eval

MEASURES = ("map", "P_10", "ndcg_cut_10")

with open(sys.argv[1]) as handle:
    qrels = pytrec_eval.parse_qrel(handle)
with open(sys.argv[2]) as handle:
    run = pytrec_eval.parse_run(handle)
results = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
for measure in MEASURES:
    values = [query[measure] for query in results.values()]
    print(measure, "all", f"{sum(values) / len(values):.4f}")
