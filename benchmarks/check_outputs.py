"""Check that a change leaves every result as it was: campaign and templette outputs, before and after.

    python benchmarks/check_outputs.py save DIR [--docs 200] [--systems 6]   # with the old code
    python benchmarks/check_outputs.py compare DIR                          # with the new code

``save`` generates the campaign benchmark's data (``bench_campaign.generate``) into ``DIR/data``, runs
``iescore campaign`` on it (2 workers, its output directory and HTML page) and ``iescore templette`` on
the first system (``--json``, ``--csv``), and keeps everything in ``DIR/before``. ``compare``
runs the same commands on the same files into ``DIR/after`` and compares: every file of the output
directories byte for byte, the printed reports, and every Parquet artifact of the store by its content
(the table, its schema and its metadata, provenance included), artifact by artifact (the keys are
content addresses, so the same inputs and stage versions give the same paths). It prints what differs
and exits 1 if anything does.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_campaign import generate  # noqa: E402
from timing import ROOT  # noqa: E402


def iescore(*arguments: str) -> list[str]:
    """This checkout's ``iescore`` (run from ``ROOT``), whatever the environment has installed: the
    old and the new code are two checkouts."""
    return [sys.executable, "-m", "iescore", *arguments]


def produce(data: Path, out: Path) -> None:
    """Run the campaign and the templette command on ``data``, everything written under ``out``."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    campaign = data / "campaign.toml"
    text = campaign.read_text().replace('store = "store"', f'store = "{out / "store"}"')
    text = text.replace('output = "out"', f'output = "{out / "campaign"}"')
    local = data / "campaign.check.toml"
    local.write_text(text)
    runs = {
        "campaign": iescore("campaign", str(local), "--workers", "2", "--progress", "none"),
        "templette": iescore("templette", "--ref", str(data / "ref.tpl"), "--hyp", str(data / "sys000.tpl"),
                             "--texts", str(data / "texts.sgml"), "--store", str(out / "store"),
                             "--json", str(out / "templette" / "scores.json"),
                             "--csv", str(out / "templette" / "csv")),
    }  # fmt: skip
    (out / "templette").mkdir()
    for name, command in runs.items():
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"{name} exited {result.returncode}:\n{result.stderr[-3000:]}")
        (out / f"{name}.stdout").write_text(result.stdout)


def compare(before: Path, after: Path) -> list[str]:
    """What differs between two ``produce`` outputs (empty when nothing does).

    A stage whose VERSION or outputs changed writes under a new key: an artifact only before and one only
    after of the same stage and output name, with the same table (provenance aside), are the same result
    under a new key (printed as such, not a difference), and that stage's artifacts only after are its
    new outputs (printed), as are the artifacts of a stage (or store cache) that had none before; stamps
    that name the old key instead of the new one are the same. Any other file present only on one side is
    a difference.
    """
    problems = []
    files = {p.relative_to(before) for p in before.rglob("*") if p.is_file()}
    files_after = {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    rekeyed = _rekeyed(before, after, files - files_after, files_after - files)
    for old_name, new_name in sorted(rekeyed.items()):
        print(f"same content under a new key: {old_name} -> {new_name.name}")
    moved = set(rekeyed) | set(rekeyed.values())
    keys = {_key(old): _key(new) for old, new in rekeyed.items()}
    stages = {name.parts[-3] for name in files if name.suffix == ".parquet" and len(name.parts) >= 3}
    for missing in sorted((files ^ files_after) - moved):
        if missing in files_after and missing.suffix == ".parquet" and _key(missing) in keys.values():
            print(f"a new output of a stage under its new key: {missing}")
            continue
        if missing in files_after and missing.suffix == ".parquet" and missing.parts[-3] not in stages:
            print(f"an artifact of a stage new since before: {missing}")
            continue
        problems.append(f"only {'before' if missing in files else 'after'}: {missing}")
    for name in sorted(files & files_after):
        old, new = before / name, after / name
        if name.suffix == ".parquet":
            a, b = pq.read_table(old), pq.read_table(new)
            if not (a.schema.equals(b.schema, check_metadata=True) and a.equals(b)):
                problems.append(f"artifact differs: {name}")
        elif old.read_bytes() != new.read_bytes():
            text = old.read_bytes()
            for old_key, new_key in keys.items():
                text = text.replace(old_key.encode(), new_key.encode())
            if text != new.read_bytes():
                problems.append(f"file differs: {name}")
    return problems


def _key(path: Path) -> str:
    return path.name.split(".", 1)[0]


def _rekeyed(before: Path, after: Path, old: set[Path], new: set[Path]) -> dict[Path, Path]:
    """Artifacts only before matched with those only after: same stage, output name and table content."""
    matched: dict[Path, Path] = {}
    for old_name in sorted(p for p in old if p.suffix == ".parquet"):
        stage, output = old_name.parts[-3], old_name.name.split(".", 1)[1]
        for new_name in sorted(p for p in new if p.suffix == ".parquet" and p not in matched.values()):
            if new_name.parts[-3] != stage or new_name.name.split(".", 1)[1] != output:
                continue
            a, b = pq.read_table(before / old_name), pq.read_table(after / new_name)
            if a.schema.remove_metadata().equals(b.schema.remove_metadata()) and a.equals(b):
                matched[old_name] = new_name
                break
    return matched


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("action", choices=("save", "compare"))
    parser.add_argument("directory", type=Path)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--systems", type=int, default=6)
    args = parser.parse_args()
    directory = args.directory.resolve()
    data = directory / "data"
    if args.action == "save":
        data.mkdir(parents=True, exist_ok=True)
        generate(data, args.docs, args.systems, 3, 7)
        produce(data, directory / "before")
        count = sum(1 for p in (directory / "before").rglob("*") if p.is_file())
        print(f"saved {count} files in {directory / 'before'}")
        return
    produce(data, directory / "after")
    problems = compare(directory / "before", directory / "after")
    for problem in problems:
        print(problem)
    count = sum(1 for p in (directory / "before").rglob("*") if p.is_file())
    print(f"{len(problems)} difference(s) in {count} files" if problems else f"identical: {count} files")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
