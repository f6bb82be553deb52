"""The floor of word alignment: the least any aligner of trn files could take.

    python rapidfuzz_floor.py REF.trn HYP.trn

Reads both files, maps words to integer ids and runs rapidfuzz's ``Levenshtein.editops`` on each
utterance pair, nothing else (no report, no alignment table); prints the number of edits.
"""

import sys

from rapidfuzz.distance import Levenshtein

ids: dict[str, int] = {}


def read(path: str) -> list[list[int]]:
    utterances = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            words = line[: line.rfind("(")].lower().split()
            utterances.append([ids.setdefault(word, len(ids)) for word in words])
    return utterances


edits = 0
for ref, hyp in zip(read(sys.argv[1]), read(sys.argv[2]), strict=True):
    edits += len(Levenshtein.editops(ref, hyp))
print(edits)
