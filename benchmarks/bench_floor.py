"""The floor under every command: the interpreter and the libraries it imports, timed and measured alone.

Interleaved whole processes, no input read:

- ``python -c "import numpy, pyarrow, pyarrow.compute"``: what every command imports before it reads a
  byte (its columns are numpy and Arrow);
- the same with ``pandas``, which the campaign engine and the MAT reader import, and which pyarrow's
  own conversions of numpy arrays and Python values import on first use;
- ``iescore trec`` on a qrels and a run of one line each: the command line's start, one command's
  imports and its stages, with nothing to read.

No target: the rows say what a command cannot go below. A peer in C or Perl that scores its workload
in less than a third of the floor's memory (``scorer.pl muc``: 9 MiB) cannot be matched within 3x by
any Python program that imports numpy and Arrow; the README says which rows that concerns.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import Row, alone, iescore, interleaved  # noqa: E402

LIBRARIES = "import numpy, pyarrow, pyarrow.compute"


def run(quick: bool, rounds: int) -> list[Row]:
    """The rows (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="bench_floor_") as tmp:
        qrels, run_file = Path(tmp) / "qrels", Path(tmp) / "run"
        qrels.write_text("1 0 d1 1\n")
        run_file.write_text("1 Q0 d1 1 1.0 r\n")
        commands = {
            "libraries": [sys.executable, "-c", LIBRARIES],
            "pandas": [sys.executable, "-c", f"{LIBRARIES}, pandas"],
            "command": iescore("trec", str(qrels), str(run_file)),
        }
        timing = interleaved(commands, rounds, warm_up=not quick)
    return [
        alone("floor: python, numpy and pyarrow imported", timing, "libraries"),
        alone("floor: python, numpy, pyarrow and pandas imported", timing, "pandas"),
        alone("floor: iescore trec on one line", timing, "command"),
    ]
