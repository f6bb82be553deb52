"""nervaluate on a folder of MAT JSON files against another: the smallest program its user writes.

    python nervaluate_files.py REF_DIR HYP_DIR LABEL [LABEL ...]

Reads each pair of files (same name in both folders) with ``json.load``, turns every span into
nervaluate's ``{"label", "start", "end"}`` (end inclusive), runs ``Evaluator(...).evaluate()`` and
prints the strict counts. Nothing else is imported: this is the peer's whole process.
"""

import json
import sys
from pathlib import Path

from nervaluate import Evaluator


def spans(path: Path) -> list[dict]:
    with open(path) as handle:
        document = json.load(handle)
    return [
        {"label": aset["type"], "start": start, "end": end - 1}
        for aset in document["asets"]
        for start, end in aset["annots"]
    ]


def main() -> None:
    ref, hyp, labels = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
    names = sorted(path.name for path in ref.iterdir())
    true = [spans(ref / name) for name in names]
    pred = [spans(hyp / name) for name in names]
    strict = Evaluator(true, pred, labels).evaluate()["overall"]["strict"]
    print(
        f"correct {strict.correct} incorrect {strict.incorrect} partial {strict.partial} "
        f"missed {strict.missed} spurious {strict.spurious}"
    )


main()
