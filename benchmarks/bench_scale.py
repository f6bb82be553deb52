"""Campaigns of 1,000 systems on one machine: templette, MAT and TREC kinds, against 100 systems.

    python benchmarks/bench_scale.py [--kinds templette mat trec] [--systems 100 1000]

For each kind, generates a campaign of 100 and of 1,000 systems the way the other benchmarks do
(templette: ``bench_campaign.generate``, 20 documents; MAT: ``bench_mat.generate``'s reference of 10
documents, each system relabelling a share of its spans that grows with its number; TREC:
``bench_machines.generate``, 20 queries), all with 1,000 resamples, and runs ``iescore campaign`` as a
separate process on 2 workers: a cold full run (its peak memory sampled: RSS of the process tree), then
the rerun after one system's file changed. Targets (issue: campaigns at shared-task scale): the full run
of 1,000 systems within 10x that of 100, the one-system rerun under 5% of its full run, the peak under
2 GiB. ``--quick`` runs the same code at a smoke size (templette, 4 and 40 systems): the 1,000-system
runs take many minutes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_campaign  # noqa: E402
import bench_machines  # noqa: E402
import bench_mat  # noqa: E402
from timing import Row, Target, load_average  # noqa: E402

KINDS = ("templette", "mat", "trec")
#: The campaign sizes compared (systems): the issue's, and ``--quick``'s.
SIZES, QUICK_SIZES = (100, 1000), (4, 40)


def generate(kind: str, directory: Path, systems: int, seed: int = 7) -> tuple[Path, Path]:
    """A campaign of ``systems`` systems of ``kind`` in ``directory``: its file, and the file to edit."""
    directory.mkdir(parents=True, exist_ok=True)
    if kind == "templette":
        campaign = bench_campaign.generate(directory, 20, systems, 3, seed)
        return campaign, directory / "sys000.tpl"
    if kind == "trec":
        campaign = bench_machines.generate(directory, systems, queries=20, docs=20, seed=seed)
        text = campaign.read_text().replace("resamples = 20\n", "resamples = 1000\n")
        campaign.write_text(text)
        return campaign, directory / "sys000.txt"
    signals, annotations = bench_mat.generate(10, 20, seed)
    reference = annotations[annotations["side"] == "ref"]
    bench_mat.write_files(signals, reference, directory)
    labels = reference["label"].to_numpy()
    lines = ['scorer = "mat"\n\n[reference]\npath = "ref"\nfile_type = "mat-json"\n']
    lines.append("\n[options]\nresamples = 1000\nseed = 12345\n")
    for s in range(systems):
        rng = np.random.default_rng(seed * 1000 + s)
        hypothesis = reference.copy()
        hypothesis["side"] = "hyp"
        wrong = rng.random(len(labels)) < 0.02 + 0.3 * s / max(systems - 1, 1)
        hypothesis.loc[wrong, "label"] = np.roll(labels, 1)[wrong]
        folder = directory / f"sys{s:03d}"
        bench_mat.write_files(signals, hypothesis, folder)
        lines.append(f'\n[systems.sys{s:03d}]\npath = "sys{s:03d}/hyp"\n')
    campaign = directory / "campaign.toml"
    campaign.write_text("".join(lines))
    return campaign, directory / "sys000" / "hyp" / "doc00000.json"


def edit(path: Path) -> None:
    """Change one system's file so that its scores change."""
    if path.suffix == ".tpl":
        bench_campaign.remove_a_fill(path)
    elif path.suffix == ".txt":
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(lines[1:]))  # its first retrieved document dropped
    else:
        path.write_text(path.read_text().replace('"annots": [[', '"annots": [[0, 1], [', 1))


def measure(kind: str, systems: int) -> dict[str, dict]:
    """Full run (memory sampled) and one-system rerun of a generated campaign."""
    with tempfile.TemporaryDirectory() as tmp:
        campaign, edited = generate(kind, Path(tmp), systems)
        full = bench_campaign.run_campaign("full", campaign, 2, "--out", str(Path(tmp) / "out"), sample=True)
        edit(edited)
        one = bench_campaign.run_campaign("one system changed", campaign, 2, "--out", str(Path(tmp) / "out"))
        page = Path(tmp) / "out" / "report.html"
        full["page_mib"] = round(page.stat().st_size / 2**20, 2) if page.exists() else None
    return {"full": full, "one": one}


def run(quick: bool, rounds: int) -> list[Row]:
    """For each kind: 100 and 1,000 systems, full run and one-system rerun (``quick``: templette, 4 and
    40 systems), ``rounds`` times in turn (100, 1,000, 100, 1,000...): ratios are taken round by round."""
    kinds, (small_size, large_size) = (("templette",), QUICK_SIZES) if quick else (KINDS, SIZES)
    rows: list[Row] = []
    for kind in kinds:
        before = load_average()
        results: dict[int, list[dict]] = {small_size: [], large_size: []}
        for _ in range(max(1, rounds)):
            for size in (small_size, large_size):
                results[size].append(measure(kind, size))
        after = load_average()
        rows += rows_of(kind, results, before, after)
    return rows


def rows_of(kind: str, results: dict[int, list[dict]], before: str, after: str) -> list[Row]:
    """The rows of one kind: the larger campaign's full run against the smaller's, and each one-system
    rerun against its full run; medians, and the range of the round-by-round ratios."""
    (small_size, small), (large_size, large) = sorted(results.items())
    scale = Target(large_size / small_size, at_most=True)
    rerun = Target(0.05, at_most=True)
    walls = {size: [one["full"]["wall"] for one in rounds] for size, rounds in results.items()}
    ratios = [b / a for a, b in zip(walls[small_size], walls[large_size], strict=True)]
    full_ratio = statistics.median(ratios)
    peak = {size: max(one["full"]["peak_mib"] for one in rounds) for size, rounds in results.items()}
    cpu = {size: statistics.median(one["full"]["cpu"] for one in rounds) for size, rounds in results.items()}
    rows = [
        Row(f"{kind} campaign {large_size:,} systems, full run, 2 workers", peer=f"{small_size} systems",
            iescore_s=statistics.median(walls[large_size]), peer_s=statistics.median(walls[small_size]),
            ratio=full_ratio, ratio_min=min(ratios), ratio_max=max(ratios),
            ratio_is=f"{large_size:,} / {small_size} systems", target=str(scale), met=scale.met(full_ratio),
            iescore_mib=peak[large_size], peer_mib=peak[small_size], runs=len(ratios), load_before=before,
            load_after=after,
            note=f"memory: RSS of the process tree (< 2048 MiB); page {large[-1]['full']['page_mib']} MiB; "
            f"CPU {cpu[large_size]:.1f} s against {cpu[small_size]:.1f} s"),
    ]  # fmt: skip
    for systems, rounds in sorted(results.items()):
        shares = [one["one"]["wall"] / one["full"]["wall"] for one in rounds]
        share = statistics.median(shares)
        rows.append(
            Row(f"{kind} campaign {systems:,} systems, one system changed", peer="full run",
                iescore_s=statistics.median(one["one"]["wall"] for one in rounds), peer_s=statistics.median(
                    one["full"]["wall"] for one in rounds), ratio=share, ratio_min=min(shares),
                ratio_max=max(shares), ratio_is="rerun / full run", target=str(rerun), met=rerun.met(share),
                runs=len(shares), load_before=before, load_after=after)
        )  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    parser.add_argument("--systems", nargs="+", type=int, default=list(SIZES))
    args = parser.parse_args()
    for kind in args.kinds:
        for systems in args.systems:
            result = measure(kind, systems)
            print(f"{kind} {systems} systems (load {load_average()})")
            bench_campaign.report(result["full"])
            bench_campaign.report(result["one"])
            share = result["one"]["wall"] / result["full"]["wall"]
            cpu_share = result["one"]["cpu"] / result["full"]["cpu"]
            print(
                f"  page {result['full']['page_mib']} MiB, rerun {share:.1%} of the full run "
                f"(CPU of the process tree: {cpu_share:.1%}; on a shared machine the steadier figure)"
            )


if __name__ == "__main__":
    main()
