"""Time MAT span scoring against nervaluate, tag level and character level (issue 12, point 11).

    pip install -e '.[bench]'        # nervaluate, the peer
    python benchmarks/bench_mat.py --docs 10000 --spans 50

Generates ``docs`` documents of ``spans`` reference spans each (10,000 x 50 = 500,000 spans over about
13 million characters; five labels, spans of 1 to 3 words between gaps of 1 to 3 words) and a
hypothesis with about 10% errors: 5% of the spans get a boundary error (the end moved over the next
word, or the start moved in by one word) and 5% another label. Both sides are built once, as the
shared annotation table (columns file, side, kind, label, start, end, attributes, index) and as
nervaluate's dictionaries, outside the timings.

Timed, best of ``--repeat``, in the same run on the same data:

- **tag level, nervaluate**: ``Evaluator(true, pred, tags).evaluate()`` (its four schemes, overall
  and per tag: what it does when asked for span scores);
- **tag level, ours**: the pairing of ``pipeline.mat`` (chunks of overlapping spans, optimal
  assignment inside chunks) and the per-file, per-tag tally, i.e. everything from the annotation table
  to the ``MAT_COUNTS`` rows of the tag table;
- **character level, ours**: ``pipeline.mat.fixed.fixed_span_counts(..., "character")`` (nervaluate has
  no character scores).

- **whole processes** (``--whole``): both sides written as MAT JSON files (one per document and side),
  then ``iescore mat --dir HYP --ref_dir REF`` (reading, pairing, tally, the printed table) against
  nervaluate in a process of its own that reads the same files with ``json.load`` and runs
  ``Evaluator(...).evaluate()`` (``python bench_mat.py --nervaluate-files REF HYP``: the smallest
  program a nervaluate user writes to score these files), best of ``--repeat``.

The target (issue 12) is ours at least 20 times faster than nervaluate on the tag-level part. Timings
on a shared machine are noisy: peer and ours are measured back to back, best of N for both.

:func:`run` (what ``python -m benchmarks`` calls) gives the same figures as rows: 10,000 x 50 best of 3,
or 200 documents of 50 spans once each with ``quick``; nervaluate is skipped with a note when it is not
installed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import best_process, iescore, row  # noqa: E402

from pipeline.mat.fixed import fixed_span_counts  # noqa: E402
from pipeline.mat.pairing import pair_spans  # noqa: E402
from pipeline.mat.tally import tag_counts  # noqa: E402

LABELS = np.array(["PERSON", "ORGANIZATION", "LOCATION", "DATE", "MONEY"], dtype=object)


def generate(docs: int, spans: int, seed: int) -> tuple[dict[str, str], pd.DataFrame]:
    """Signals (file -> text) and the annotation table of both sides."""
    rng = np.random.default_rng(seed)
    # Word layout per document: gap words before each span, the span's words, a trailing gap.
    gaps = rng.integers(1, 4, size=(docs, spans))
    widths = rng.integers(1, 4, size=(docs, spans))
    trailing = rng.integers(1, 4, size=docs)
    words_per_doc = gaps.sum(axis=1) + widths.sum(axis=1) + trailing
    n_words = int(words_per_doc.sum())
    word_length = rng.integers(2, 9, size=n_words)
    doc_of_word = np.repeat(np.arange(docs), words_per_doc)
    first_word = np.concatenate([[0], np.cumsum(words_per_doc)[:-1]])
    # Character offsets: words separated by one space, each document from 0.
    step = word_length + 1
    global_start = np.concatenate([[0], np.cumsum(step)[:-1]])
    word_start = global_start - global_start[first_word][doc_of_word]
    word_end = word_start + word_length
    doc_length = word_end[first_word + words_per_doc - 1]

    # Span i of a document starts after its gaps and the previous spans' words.
    span_first = first_word[:, None] + np.cumsum(gaps, axis=1) + np.cumsum(widths, axis=1) - widths
    span_last = span_first + widths - 1
    ref_start = word_start[span_first].ravel()
    ref_end = word_end[span_last].ravel()
    ref_label = LABELS[rng.integers(0, len(LABELS), size=docs * spans)]

    hyp_start, hyp_end, hyp_label = ref_start.copy(), ref_end.copy(), ref_label.copy()
    draw = rng.random(docs * spans)
    boundary = draw < 0.05
    relabel = (draw >= 0.05) & (draw < 0.10)
    # Boundary error: spans of several words lose their first word, single words take the next gap word.
    first, last = span_first.ravel(), span_last.ravel()
    shrink = boundary & (last > first)
    grow = boundary & ~shrink
    hyp_start[shrink] = word_start[first[shrink] + 1]
    hyp_end[grow] = word_end[last[grow] + 1]
    shift = rng.integers(1, len(LABELS), size=int(relabel.sum()))
    codes = pd.Index(LABELS).get_indexer(ref_label[relabel])
    hyp_label[relabel] = LABELS[(codes + shift) % len(LABELS)]

    names = np.array([f"doc{d:05d}.json" for d in range(docs)], dtype=object)
    span_doc = np.repeat(names, spans)
    index = np.tile(np.arange(spans), docs)
    annotations = pd.DataFrame(
        {
            "file": np.concatenate([span_doc, span_doc]),
            "side": np.repeat(np.array(["ref", "hyp"], dtype=object), docs * spans),
            "kind": "content",
            "label": np.concatenate([ref_label, hyp_label]),
            "start": np.concatenate([ref_start, hyp_start]).astype(np.int64),
            "end": np.concatenate([ref_end, hyp_end]).astype(np.int64),
            "attributes": "{}",
            "index": np.concatenate([index, index]).astype(np.int64),
        }
    )
    signals = {name: "x" * int(length) for name, length in zip(names, doc_length, strict=True)}
    return signals, annotations


def nervaluate_input(annotations: pd.DataFrame, files: list[str]) -> tuple[list, list]:
    """nervaluate's dictionaries: one list per document of {label, start, end} (end inclusive)."""
    sides = {}
    for side in ("ref", "hyp"):
        part = annotations[annotations["side"] == side]
        grouped = {name: [] for name in files}
        for name, label, start, end in zip(
            part["file"], part["label"], part["start"], part["end"], strict=True
        ):
            grouped[name].append({"label": label, "start": int(start), "end": int(end) - 1})
        sides[side] = [grouped[name] for name in files]
    return sides["ref"], sides["hyp"]


def best_of(repeat: int, run: Callable[[], object]) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - started)
    return best, result


def ours_tag_level(annotations: pd.DataFrame, files: list[str]) -> pd.DataFrame:
    return tag_counts(annotations, pair_spans(annotations), files)


def measure(docs: int, spans: int, repeat: int, seed: int, peer: bool, say=print) -> dict[str, Any]:
    """Generate the data and time ours (tag and character level) and, if ``peer``, nervaluate.

    Returns the seconds (``ours``, ``peer`` or None, ``chars``) and the counts; ``say`` gets each line of
    the report as it comes.
    """
    started = time.perf_counter()
    signals, annotations = generate(docs, spans, seed)
    files = sorted(signals)
    say(
        f"{docs} documents, {docs * spans} reference spans, "
        f"{sum(map(len, signals.values()))} characters (generated in {time.perf_counter() - started:.1f} s)"
    )
    ref, hyp = annotations[annotations["side"] == "ref"], annotations[annotations["side"] == "hyp"]
    same = (ref[["start", "end", "label"]].to_numpy() == hyp[["start", "end", "label"]].to_numpy()).all(
        axis=1
    )
    say(f"hypothesis spans differing from the reference: {1 - same.mean():.1%}")

    figures: dict[str, Any] = {"peer": None}
    ours, counts = best_of(repeat, lambda: ours_tag_level(annotations, files))
    totals = counts[["match", "refclash", "missing", "hypclash", "spurious"]].sum()
    figures.update(ours=ours, tag_counts=dict(totals))
    say(f"tag level, ours:        {ours:8.3f} s   {dict(totals)}")
    if peer:
        from nervaluate import Evaluator

        true, pred = nervaluate_input(annotations, files)
        seconds, result = best_of(repeat, lambda: Evaluator(true, pred, list(LABELS)).evaluate())
        strict = result["overall"]["strict"]
        figures.update(peer=seconds, strict=strict)
        say(
            f"tag level, nervaluate:  {seconds:8.3f} s   strict correct {strict.correct}, "
            f"incorrect {strict.incorrect}, partial {strict.partial}, missed {strict.missed}, "
            f"spurious {strict.spurious}"
        )
        say(f"speed-up on the tag level: {seconds / ours:.1f}x (target: 20x)")
    chars, table = best_of(repeat, lambda: fixed_span_counts(signals, annotations, "character"))
    totals = table[["match", "refclash", "missing", "hypclash", "spurious"]].sum()
    figures.update(chars=chars, char_counts=dict(totals))
    say(f"character level, ours:  {chars:8.3f} s   {dict(totals)}")
    return figures


def write_files(signals: dict[str, str], annotations: pd.DataFrame, directory: Path) -> tuple[Path, Path]:
    """Both sides as MAT JSON files (``ref/`` and ``hyp/`` under ``directory``, one file per document)."""
    folders = {side: directory / side for side in ("ref", "hyp")}
    for (side, name), part in annotations.groupby(["side", "file"], sort=False):
        asets = [
            {
                "type": str(label),
                "hasSpan": True,
                "attrs": [],
                "annots": spans[["start", "end"]].values.tolist(),
            }
            for label, spans in part.groupby("label", sort=True)
        ]
        document = {"signal": signals[name], "metadata": {}, "version": 2, "asets": asets}
        folders[side].mkdir(parents=True, exist_ok=True)
        (folders[side] / name).write_text(json.dumps(document))
    return folders["ref"], folders["hyp"]


def nervaluate_files(ref: Path, hyp: Path) -> dict[str, int]:
    """nervaluate on MAT JSON files: read each pair with ``json.load``, evaluate, the strict counts."""
    from nervaluate import Evaluator

    sides: dict[str, list] = {"ref": [], "hyp": []}
    for path in sorted(ref.iterdir()):
        for side, folder in (("ref", ref), ("hyp", hyp)):
            with open(folder / path.name) as handle:
                document = json.load(handle)
            sides[side].append(
                [
                    {"label": aset["type"], "start": start, "end": end - 1}
                    for aset in document["asets"]
                    for start, end in aset["annots"]
                ]
            )
    strict = Evaluator(sides["ref"], sides["hyp"], list(LABELS)).evaluate()["overall"]["strict"]
    return {"correct": strict.correct, "incorrect": strict.incorrect, "missed": strict.missed}


def measure_whole(
    signals: dict[str, str], annotations: pd.DataFrame, repeat: int, peer: bool, say=print
) -> dict[str, Any]:
    """Whole processes on files: ``iescore mat`` and, if ``peer``, nervaluate reading the same files."""
    figures: dict[str, Any] = {"peer_whole": None}
    with tempfile.TemporaryDirectory() as tmp:
        ref, hyp = write_files(signals, annotations, Path(tmp))
        command = iescore("mat", "--dir", str(hyp), "--ref_dir", str(ref))
        figures["ours_whole"], figures["ours_peak"] = best_process(command, repeat, tmp)
        seconds, peak = figures["ours_whole"], figures["ours_peak"]
        say(f"whole process, iescore mat:        {seconds:8.3f} s  {peak:.0f} MiB")
        if peer:
            command = [sys.executable, __file__, "--nervaluate-files", str(ref), str(hyp)]
            figures["peer_whole"], peak = best_process(command, repeat, tmp)
            say(f"whole process, nervaluate + json: {figures['peer_whole']:8.3f} s  {peak:.0f} MiB")
            say(f"speed-up, whole processes: {figures['peer_whole'] / figures['ours_whole']:.1f}x")
    return figures


def has_nervaluate() -> bool:
    """Whether the peer, nervaluate, is installed (``pip install -e '.[bench]'``)."""
    return importlib.util.find_spec("nervaluate") is not None


def run(quick: bool) -> list[dict[str, Any]]:
    """Rows for ``python -m benchmarks`` (see the module docstring); ``quick``: 200 documents, once."""
    docs, spans, repeat = (200, 50, 1) if quick else (10_000, 50, 3)
    peer = has_nervaluate()
    figures = measure(docs, spans, repeat, 1, peer, say=lambda line: None)
    size = f"mat {docs:,} docs x {spans} spans"
    if peer:
        tag = row(f"{size}, tag level (pairing + tally)", figures["ours"], peer="nervaluate evaluate()",
                  peer_s=figures["peer"], ratio=figures["peer"] / figures["ours"],
                  target=">= 20x (peer / ours)", note="in one process, data built untimed")  # fmt: skip
    else:
        tag = row(f"{size}, tag level (pairing + tally)", figures["ours"],
                  note="nervaluate not installed: pip install -e '.[bench]'")  # fmt: skip
    chars = row(f"{size}, character level", figures["chars"], note="no peer (nervaluate has none)")
    signals, annotations = generate(docs, spans, 1)
    whole = measure_whole(signals, annotations, repeat, peer, say=lambda line: None)
    process = row(f"{size}, whole process from MAT JSON files", whole["ours_whole"],
                  peer="nervaluate + json.load" if peer else None, peer_s=whole["peer_whole"],
                  ratio=whole["peer_whole"] / whole["ours_whole"] if peer else None,
                  note=f"iescore mat --dir --ref_dir, {whole['ours_peak']:.0f} MiB")  # fmt: skip
    return [tag, chars, process]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--spans", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-peer", action="store_true", help="time ours only")
    parser.add_argument("--whole", action="store_true", help="also time whole processes on MAT JSON files")
    parser.add_argument("--nervaluate-files", nargs=2, metavar=("REF", "HYP"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.nervaluate_files:
        print(nervaluate_files(Path(args.nervaluate_files[0]), Path(args.nervaluate_files[1])))
        return
    measure(args.docs, args.spans, args.repeat, args.seed, not args.skip_peer)
    if args.whole:
        signals, annotations = generate(args.docs, args.spans, args.seed)
        measure_whole(signals, annotations, args.repeat, not args.skip_peer)


if __name__ == "__main__":
    main()
