"""Time ``iescore mat`` against nervaluate, both reading the same MAT JSON files.

Generates ``docs`` documents of ``spans`` reference spans each (10,000 x 50 = 500,000 spans over about
13 million characters, 20,000 files; quick: 200 documents): five labels, spans of 1 to 3 words between
gaps of 1 to 3 words, and a hypothesis with about 10% errors: 5% of the spans get a boundary error
(the end moved over the next word, or the start moved in by one word) and 5% another label. Both
sides are written as MAT JSON files (one per document and side).

Timed, interleaved whole processes: ``iescore mat --dir HYP --ref_dir REF`` (reading, pairing, tally,
the printed table), the same with ``--by_character``, and ``peers/nervaluate_files.py`` (the smallest
program a nervaluate user writes: ``json.load`` on each file, then ``Evaluator(...).evaluate()``) when
nervaluate is installed (``pip install -e '.[bench]'``). Target: at least 5x (ratio: nervaluate's time
over iescore's). Both count the same: nervaluate's strict correct and incorrect are the tag table's
match and refclash (hypclash), its missed and spurious the table's missing and spurious.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import Row, Target, alone, compare, has_module, iescore, interleaved, peer_script  # noqa: E402

LABELS = np.array(["PERSON", "ORGANIZATION", "LOCATION", "DATE", "MONEY"], dtype=object)


def run(quick: bool, rounds: int) -> list[Row]:
    """The rows (see the module docstring)."""
    docs, spans = (200, 50) if quick else (10_000, 50)
    work = f"mat {docs:,} docs x {spans} spans, MAT JSON files"
    target = Target(5, at_most=False)
    with tempfile.TemporaryDirectory(prefix="bench_mat_") as tmp:
        signals, annotations = generate(docs, spans, 1)
        ref, hyp = write_files(signals, annotations, Path(tmp))
        tags = iescore("mat", "--dir", str(hyp), "--ref_dir", str(ref))
        commands = {"iescore": tags, "characters": [*tags, "--by_character"]}
        peer = has_module("nervaluate")
        if peer:
            commands["peer"] = peer_script("nervaluate_files.py", str(ref), str(hyp), *LABELS)
        timing = interleaved(commands, rounds, warm_up=not quick, cwd=tmp)
    if peer:
        first = compare(f"{work}, tag level", timing, "iescore", "peer", "nervaluate + json.load", target)
    else:
        first = alone(
            f"{work}, tag level",
            timing,
            "iescore",
            note="nervaluate not installed: pip install -e '.[bench]'",
        )
        first.target = str(target)
    return [
        first,
        alone(
            f"{work}, --by_character",
            timing,
            "characters",
            note="no peer (nervaluate has no character level)",
        ),
    ]


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
