"""Run the CoNLL reference scorer on the coreference inputs and keep its output in scorer-pl.json.

Not part of the test suite: it needs Perl and the two reference scorers (see README.md), and is run by
hand when the inputs change: ``python tests/data/coref/make_fixtures.py V801_DIR V9_DIR SHARED_DIR``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
METRICS = ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "all")


def cases(shared: Path) -> list[tuple[str, str, str, str | None]]:
    """(metric, key, response, document) for every input pair; paths relative to their folder."""
    expected = json.loads((shared / "expected.json").read_text())
    pairs = sorted({(f"shared:{c['key_file']}", f"shared:{c['response_file']}") for c in expected.values()})
    ours = [("two.key", f"{name}.response") for name in ("two", "missing", "extra", "repeat")]
    out = []
    for key, response in pairs:
        first = (shared / key[7:]).read_text().split("\n", 1)[0]
        title = first.split("begin document ", 1)[1].rstrip("\r")  # scorer.pl's name of the document
        for metric in METRICS:
            for document in (None, "none", title):
                out.append((metric, key, response, document))
    for key, response in ours:
        for metric in METRICS:
            for document in (None, "none", "(alpha); part 000", "(beta); part 000"):
                out.append((metric, key, response, document))
    return out


def main() -> None:
    v801, v9, shared = (Path(a).resolve() for a in sys.argv[1:4])
    env = {**os.environ, "PERL_HASH_SEED": "0", "PERL_PERTURB_KEYS": "0"}
    results = {}
    for metric, key, response, document in cases(shared):
        paths = [str(shared / p[7:]) if p.startswith("shared:") else str(HERE / p) for p in (key, response)]
        scorer = (v9 if metric == "lea" else v801) / "scorer.pl"
        command = ["perl", str(scorer), metric, *paths] + ([document] if document is not None else [])
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd="/tmp")
        name = " ".join([metric, key, response] + ([repr(document)] if document is not None else []))
        results[name] = {"status": done.returncode, "stdout": done.stdout}
    (HERE / "scorer-pl.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
