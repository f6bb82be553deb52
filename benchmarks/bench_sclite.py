"""Time ``iescore sclite`` and ``iescore sc_stats`` against NIST's sclite and sc_stats, as whole processes.

Generated data (the vocabulary and error model of ``bench_align``: a Zipf-like vocabulary of made-up
words, about 12% word errors, substitutions, deletions and insertions 6:2:2):

- trn: 200,000 utterances of about 20 words (4M words; quick: 2,000), ids ``(spkNNNN-NNN)``;
- stm/ctm: 100 hours of speech, about 1M words (quick: 1 hour), in 100 one-hour files of one channel
  and 10 speakers each; segments of about 20 words at 2.5 words a second with a pause between them,
  the reference as stm, the hypothesis as ctm with each word at its reference word's time (an inserted
  word in the second half of its neighbour's slot) and a confidence;
- sc_stats: 20 systems (one error rate each, 6% to 25%) on 5,000 utterances of the trn shape (quick:
  4 systems on 200), aligned once by sclite (or by ``iescore sclite`` when sclite is not found) into
  one sgml file per system, all of them on standard input.

Timed, interleaved whole processes (each writes into its own folder):

- ``sclite -r REF trn -h HYP trn -i spu_id -o sum rsum pralign dtl -O DIR -n NAME`` and the same
  ``iescore sclite`` (target: at least 5x faster; its memory at most a fifth of sclite's, given in the
  note), and the same for ``-r REF.stm stm -h HYP.ctm ctm``;
- ``sc_stats -p -t mapsswe sign wilc mcn -O DIR -n NAME < ALL.sgml`` and the same ``iescore
  sc_stats`` (target: no slower, a ratio of at least 1).

sclite is ``$IESCORE_SCLITE`` or on PATH; sc_stats ``$IESCORE_SC_STATS`` or on PATH.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_align import write_trn  # noqa: E402
from timing import (  # noqa: E402
    Interleaved,
    Row,
    Target,
    alone,
    compare,
    iescore,
    interleaved,
    not_found,
    peer_programs,
    without_peer,
)

REPORTS = ("-o", "sum", "rsum", "pralign", "dtl")
WORDS_PER_SECOND = 2.5


def run(quick: bool, rounds: int) -> list[Row]:
    """The rows (see the module docstring)."""
    rows = []
    sclite = next(iter(peer_programs("sclite")), None)
    sc_stats = next(iter(peer_programs("sc_stats")), None)
    with tempfile.TemporaryDirectory(prefix="bench_sclite_") as temporary:
        root = Path(temporary)
        utterances = 2_000 if quick else 200_000
        ref, hyp, words = write_trn(root, utterances, 20)
        trn = ("-r", str(ref), "trn", "-h", str(hyp), "trn", "-i", "spu_id")
        work = f"sclite trn, {utterances:,} utterances ({words:,} words)"
        rows.append(_sclite_row(work, trn, root, sclite, rounds, quick))
        hours = 1 if quick else 100
        stm, ctm, words = write_stm_ctm(root, hours)
        timed = ("-r", str(stm), "stm", "-h", str(ctm), "ctm")
        work = f"sclite stm/ctm, {hours} hours ({words:,} words)"
        rows.append(_sclite_row(work, timed, root, sclite, rounds, quick))
        systems, per_system = (4, 200) if quick else (20, 5_000)
        sgml = write_systems_sgml(root / "systems", systems, per_system, sclite)
        rows.append(_sc_stats_row(f"sc_stats {systems} systems x {per_system:,} utterances", sgml, root,
                                  sc_stats, rounds, quick))  # fmt: skip
    return rows


def _sclite_row(
    work: str, inputs: tuple[str, ...], root: Path, sclite: Path | None, rounds: int, quick: bool
) -> Row:
    """iescore sclite against sclite on ``inputs`` with ``REPORTS``, each into its own folder."""
    target = Target(5, at_most=False)
    commands = {}
    for name, program in (("iescore", iescore("sclite")), ("sclite", [str(sclite)] if sclite else None)):
        if program is None:
            continue
        out = root / f"out-{name}"
        out.mkdir(exist_ok=True)
        commands[name] = [*program, *inputs, *REPORTS, "-O", str(out), "-n", name]
    if "sclite" not in commands:
        return without_peer(work, commands["iescore"], rounds, not quick, not_found("sclite"), target)
    timing = interleaved(commands, rounds, warm_up=not quick)
    return compare(work, timing, "iescore", "sclite", f"sclite ({sclite})", target, note=_memory_note(timing))


def _memory_note(timing: Interleaved) -> str:
    ours, theirs = timing.runs["iescore"].peak, timing.runs["sclite"].peak
    share = ours / theirs if theirs else float("nan")
    return f"memory: {share:.2f} of sclite's (target <= 0.2: {'met' if share <= 0.2 else 'not met'})"


def _sc_stats_row(work: str, sgml: Path, root: Path, sc_stats: Path | None, rounds: int, quick: bool) -> Row:
    """iescore sc_stats against sc_stats, both reading ``sgml`` on standard input."""
    target = Target(1, at_most=False)
    # Not -u: sc_stats 1.3's unified table holds at most 60 columns, and 20 systems need more (it
    # exits 1 naming Desc_flush_iterated_row); iescore sc_stats -u has no such limit.
    tests = ("-p", "-t", "mapsswe", "sign", "wilc", "mcn")
    commands = {}
    peer = [str(sc_stats)] if sc_stats else None
    for name, program in (("iescore", iescore("sc_stats")), ("sc_stats", peer)):
        if program is None:
            continue
        out = root / f"stats-{name}"
        out.mkdir(exist_ok=True)
        commands[name] = [*program, *tests, "-O", str(out), "-n", name]
    if "sc_stats" not in commands:  # iescore alone, still reading the systems on standard input
        timing = interleaved({"iescore": commands["iescore"]}, rounds, warm_up=not quick, stdin=sgml)
        row = alone(work, timing, "iescore", note=not_found("sc_stats"))
        row.target = str(target)
        return row
    timing = interleaved(commands, rounds, warm_up=not quick, stdin=sgml)
    return compare(work, timing, "iescore", "sc_stats", f"sc_stats ({sc_stats})", target)


def write_stm_ctm(directory: Path, hours: int, seed: int = 2) -> tuple[Path, Path, int]:
    """``ref.stm`` and ``hyp.ctm`` of ``hours`` one-hour files in ``directory``; their paths and the
    reference's word count."""
    rng = np.random.default_rng(seed)
    ref_trn, hyp_trn, _ = write_trn(directory, int(hours * 3600 * WORDS_PER_SECOND / 22), 20, seed=seed)
    ref_lines = ref_trn.read_text(encoding="utf-8").splitlines()
    hyp_lines = hyp_trn.read_text(encoding="utf-8").splitlines()
    stm_lines = [';; LABEL "O" "Overall" "the whole corpus"']
    ctm_lines = []
    per_file = -(-len(ref_lines) // hours)
    words = 0
    for file in range(hours):
        clock = 0.5
        for u in range(file * per_file, min((file + 1) * per_file, len(ref_lines))):
            ref_words = ref_lines[u][: ref_lines[u].rfind("(")].split()
            hyp_words = hyp_lines[u][: hyp_lines[u].rfind("(")].split()
            words += len(ref_words)
            start, slot = clock, 1 / WORDS_PER_SECOND
            end = start + max(len(ref_words), len(hyp_words)) * slot
            speaker = f"f{file:03d}_s{u % 10}"
            stm_lines.append(f"f{file:03d} 1 {speaker} {start:.2f} {end:.2f} <O> {' '.join(ref_words)}")
            # Hypothesis words spread over the segment's slots in order, a confidence each.
            confidences = rng.uniform(0.3, 1.0, len(hyp_words))
            for k, (word, confidence) in enumerate(zip(hyp_words, confidences, strict=True)):
                begin = start + k * slot * len(ref_words) / max(len(hyp_words), 1)
                ctm_lines.append(f"f{file:03d} 1 {begin:.2f} {slot * 0.8:.2f} {word} {confidence:.3f}")
            clock = end + rng.uniform(0.3, 1.5)
    ref_trn.unlink()
    hyp_trn.unlink()
    stm, ctm = directory / "ref.stm", directory / "hyp.ctm"
    stm.write_text("\n".join(stm_lines) + "\n", encoding="utf-8")
    ctm.write_text("\n".join(ctm_lines) + "\n", encoding="utf-8")
    return stm, ctm, words


def write_systems_sgml(directory: Path, systems: int, utterances: int, sclite: Path | None) -> Path:
    """The sgml alignments of ``systems`` hypotheses of one reference (sclite's, else iescore
    sclite's), joined into ``directory/all.sgml``."""
    directory.mkdir()
    arguments = []
    for k, rate in enumerate(np.linspace(0.06, 0.25, systems)):
        ref, hyp, _ = write_trn(directory, utterances, 20, errors=float(rate), seed=100, error_seed=200 + k)
        arguments += ["-h", str(hyp.rename(directory / f"sys{k:02d}.trn")), "trn", f"sys{k:02d}"]
    program = [str(sclite)] if sclite else iescore("sclite")
    # Without -n, each system's files are named after its hypothesis file (sclite's -n would give them
    # all one name).
    subprocess.run(
        [*program, "-r", str(ref), "trn", *arguments, "-i", "spu_id", "-o", "sgml", "-O", str(directory)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    joined = directory / "all.sgml"
    with joined.open("wb") as out:
        for path in sorted(directory.glob("*.sgml")):
            if path != joined:
                with path.open("rb") as part:
                    shutil.copyfileobj(part, out)
    return joined


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    for row in run(quick, 1 if quick else 3):
        print(row)
