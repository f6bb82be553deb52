"""Time the templette chain on a generated corpus: the whole command, and each step in one process.

Generates a corpus (200 words a document), a reference template set (a TEMPLATE and 3 events of 4
text fills per document) and a hypothesis with about 10% wrong or missing fills. :func:`run` (what
``python -m benchmarks`` calls) times ``iescore templette --store`` as whole processes on a cold store.

    python benchmarks/bench_templette.py [--docs 2000] [--events 3] [--error-rate 0.1] [--seed 7]

profiles each step inside this process instead (seconds per step and peak memory, no peer).
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from iescore.pipeline.core.corpus import read_corpus  # noqa: E402
from iescore.pipeline.speech.align import identity_alignment  # noqa: E402
from iescore.pipeline.templette.columns import read_fills  # noqa: E402
from iescore.pipeline.templette.removal import (  # noqa: E402
    RemovalOptions,
    remove_non_evaluated_columns,
    remove_non_evaluated_table,
)
from iescore.pipeline.templette.report import score_table  # noqa: E402
from iescore.pipeline.templette.scoring import ScoringOptions, score_template_sets  # noqa: E402
from iescore.pipeline.templette.tables import (  # noqa: E402
    corpus_to_table,
    scoring_to_tables,
    template_set_from_table,
    template_set_to_table,
)
from iescore.pipeline.templette.templates import read_template_set  # noqa: E402
from iescore.tasks.cli.main import main  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import Row, Target, alone, iescore, interleaved  # noqa: E402

WORDS = [
    "egypt",
    "ghana",
    "mali",
    "cup",
    "final",
    "league",
    "match",
    "team",
    "coach",
    "goal",
    "score",
    "title",
    "season",
    "city",
]


def generate(
    directory: Path, docs: int, events: int, error_rate: float, seed: int, alternatives: bool = False
) -> tuple[Path, Path, Path]:
    """Texts, reference and hypothesis of ``docs`` documents. With ``alternatives`` the reference is
    laid out as the seed's sample key: WINNER and PLACE offer a second fill-alternative on a line of
    its own after a '/' (the same string, here: what the scorer must do is the same)."""
    rng = random.Random(seed)
    texts, ref, hyp = [], [], []
    for d in range(docs):
        doc_id = f"DOC{d:06d}"
        words = [rng.choice(WORDS) for _ in range(200)]
        head = f"<DOC>\n<DOCNO> {doc_id} </DOCNO>\n<TEXT>\n"
        text = head + " ".join(words) + "\n</TEXT>\n</DOC>\n"
        offsets, position = [], len(head)
        for word in words:
            offsets.append((position, position + len(word)))
            position += len(word) + 1
        texts.append(text)
        ref.append(f"<TEMPLATE-{doc_id}-1> :=\n    DOC_NR: {doc_id} ##14#{14 + len(doc_id)}#\n")
        hyp.append(ref[-1])
        pointers = [f"<EVENT-{doc_id}-{e + 1}>" for e in range(events)]
        ref.append("    EVENT: " + "\n           ".join(pointers) + "\n")
        hyp.append(ref[-1])
        for e in range(events):
            ref.append(f"<EVENT-{doc_id}-{e + 1}> :=\n")
            hyp.append(f"<EVENT-{doc_id}-{e + 1}> :=\n")
            for slot in ("WINNER", "LOSER", "PLACE", "DATE"):
                s, e_ = offsets[rng.randrange(len(offsets))]
                word = text[s:e_]
                ref.append(f'    {slot}: "{word}" ##{s}#{e_}#\n')
                if alternatives and slot in ("WINNER", "PLACE"):
                    ref.append(f'           / "{word}" ##{s}#{e_}#\n')
                if rng.random() < error_rate:
                    hyp.append(f'    {slot}: "{rng.choice(WORDS)}" ##{s}#{e_ + 1}#\n')
                elif rng.random() > error_rate:
                    hyp.append(f'    {slot}: "{word}" ##{s}#{e_}#\n')
    paths = directory / "texts.sgml", directory / "ref.tpl", directory / "hyp.tpl"
    for path, parts in zip(paths, (texts, ref, hyp), strict=True):
        path.write_text("".join(parts))
    return paths


def run(quick: bool, rounds: int) -> list[Row]:
    """The whole ``iescore templette`` chain as a process, a cold store each run, interleaved with the
    same on a key laid out with alternatives: 10,000 documents (quick: 200). Target: under 10 s."""
    docs = 200 if quick else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        commands = {}
        for alternatives, name in ((False, "plain"), (True, "alternatives")):
            folder = Path(tmp) / name
            folder.mkdir()
            texts, ref_path, hyp_path = generate(folder, docs, 3, 0.1, 7, alternatives)
            commands[name] = iescore("templette", "--ref", str(ref_path), "--hyp", str(hyp_path), "--texts",
                                     str(texts), "--store", str(folder / "store"))  # fmt: skip

        def cold(name: str) -> None:
            shutil.rmtree(Path(tmp) / name / "store", ignore_errors=True)

        timing = interleaved(commands, rounds, warm_up=not quick, before_each=cold)
    target = Target(10, at_most=True, of="seconds") if not quick else None
    return [
        alone(f"templette {docs:,} docs, whole chain, cold store", timing, "plain", target),
        alone(f"templette {docs:,} docs, key with alternatives, whole chain, cold store", timing,
              "alternatives", target),
    ]  # fmt: skip


def timed(label: str, function, *args):
    start = time.perf_counter()
    result = function(*args)
    print(f"{label:32} {time.perf_counter() - start:8.2f} s")
    return result


def steps(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        texts, ref_path, hyp_path = generate(
            Path(tmp), args.docs, args.events, args.error_rate, args.seed, args.alternatives
        )
        print(f"{args.docs} documents, {args.events} events each, error rate {args.error_rate}")
        ref = timed("read reference templates", read_template_set, ref_path)
        hyp = timed("read hypothesis templates", read_template_set, hyp_path)
        corpus = timed("read texts", read_corpus, texts)
        timed("identity alignment", identity_alignment, corpus)
        ref_table = timed("template set -> fills table", template_set_to_table, ref)
        timed("remove non-evaluated text", remove_non_evaluated_table, ref_table, corpus, RemovalOptions())
        # What the stages run: the column reader and checks, removal with the documents table.
        documents = corpus_to_table(corpus)
        text = ref_path.read_text()
        columns = timed(
            "IngestTemplates' read_fills", read_fills, text, str(ref_path), None, documents, False
        )
        timed("removal on columns", remove_non_evaluated_columns, columns, documents, RemovalOptions())
        timed("fills table -> template set", template_set_from_table, ref_table)
        scoring = timed("map and score", score_template_sets, ref, hyp, ScoringOptions("both"))
        _, tallies = timed("mapping and tallies tables", scoring_to_tables, scoring)
        timed("score tables", score_table, tallies)
        print(f"{'points':32} {tallies.num_rows:8d}")
        argv = ["templette", "--ref", str(ref_path), "--hyp", str(hyp_path), "--texts", str(texts),
                "--store", str(Path(tmp) / "store")]  # fmt: skip
        timed("whole chain (iescore templette)", lambda: _quiet(main, argv))
        timed("whole chain again (all cached)", lambda: _quiet(main, argv))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'peak memory':32} {peak:8.0f} MiB")


def _quiet(function, argv):
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        status = function(argv)
    if status != 0:
        raise SystemExit(f"iescore exited {status}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--events", type=int, default=3)
    parser.add_argument("--error-rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--alternatives", action="store_true", help="the key in the seed's layout")
    steps(parser.parse_args())
