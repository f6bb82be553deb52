"""Time one campaign run by 1, 2 and 4 worker processes that share only luigid and an S3 store.

    python benchmarks/bench_machines.py [--systems 200] [--workers 1 2 4] [--rounds 1] [--keep DIR]

Generates a TREC campaign (``generate``: one qrels file, one small run per system), starts Luigi's
central scheduler (``luigid``) and moto's S3 server on loopback ports, and for each number of workers
runs ``iescore campaign --scheduler-host ... --store s3://...`` in that many processes at once, each
in its own folder with its own copy of the campaign (as on separate machines), against a fresh prefix
of the bucket. The figure is the wall time from the first start to the last exit. Each run's leaderboard
(JSON, CSV, text) must equal the one-process run's byte for byte, and every task must have run once
over all the processes (their ``--tasks-log``), or the benchmark fails.

The processes share the machine's cores (and luigid and moto take their share of them): on 2 cores,
4 workers cannot go faster than 2. :func:`run` (what ``python -m benchmarks`` calls) gives one row per
number of workers, the ratio being that run's time over one worker's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import Row, iescore, load_average  # noqa: E402

#: luigid's settings for these runs (``[scheduler]``): a worker silent for 3 s is taken for dead, its
#: running task fails and is given to another worker 1 s later; dead workers are looked for at every
#: request for work (else once a minute); a task that failed 3 times is disabled (bad input fails every
#: time: without a limit the workers would run it again and again).
LUIGID_CONFIG = (
    "[scheduler]\nworker_disconnect_delay = 3\nretry_delay = 1\nprune_on_get_work = true\nretry_count = 3\n"
)


def generate(directory: Path, systems: int, queries: int = 4, docs: int = 8, seed: int = 7) -> Path:
    """Write a TREC campaign into ``directory``: graded qrels over ``2 * docs`` documents a query and
    one run a system (``docs`` documents a query, in a random order of its own); the campaign file."""
    directory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    pool = [f"D{d:04d}" for d in range(2 * docs)]
    qrels = [f"q{q} 0 {doc} {rng.choice((0, 0, 1, 2))}\n" for q in range(queries) for doc in pool]
    (directory / "qrels.txt").write_text("".join(qrels))
    lines = [
        'scorer = "trec"\n\n[reference]\nqrels = "qrels.txt"\n\n[options]\nresamples = 20\nseed = 12345\n'
    ]
    for s in range(systems):
        system_rng = random.Random(seed * 1000 + s)
        run = [
            f"q{q} Q0 {doc} {rank} {docs - rank}.0 sys{s:03d}\n"
            for q in range(queries)
            for rank, doc in enumerate(system_rng.sample(pool, docs), 1)
        ]
        (directory / f"sys{s:03d}.txt").write_text("".join(run))
        lines.append(f'\n[systems.sys{s:03d}]\nrun = "sys{s:03d}.txt"\n')
    campaign = directory / "campaign.toml"
    campaign.write_text("".join(lines))
    return campaign


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def service(command: list[str], url: str, cwd: Path, env: dict[str, str] | None = None) -> Iterator[None]:
    """A server process answering at ``url`` before this yields, stopped by its process id afterwards."""
    server = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(url, timeout=1).read()
                break
            except OSError:
                if server.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"{command[0]} did not start") from None
                time.sleep(0.2)
        yield
    finally:
        os.kill(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.kill(server.pid, signal.SIGKILL)
            server.wait()


@contextlib.contextmanager
def luigid_and_s3(directory: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """luigid (with ``LUIGID_CONFIG``) and moto's S3 server on loopback; luigid's port and the
    environment a worker needs to reach the S3 store (dummy credentials, the endpoint)."""
    luigid_port, s3_port = free_port(), free_port()
    (directory / "luigid").mkdir()
    (directory / "luigid" / "luigi.cfg").write_text(LUIGID_CONFIG)
    luigid = [sys.executable, "-c", "import sys; from luigi.cmdline import luigid; luigid(sys.argv[1:])",
              "--address", "127.0.0.1", "--port", str(luigid_port), "--logdir", str(directory / "luigid"),
              "--state-path", str(directory / "luigid" / "state.pickle")]  # fmt: skip
    moto = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(s3_port)]
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{s3_port}",
    }
    env.pop("LUIGI_CONFIG_PATH", None)
    luigid_env = {**env, "LUIGI_CONFIG_PATH": str(directory / "luigid" / "luigi.cfg")}
    api = f"http://127.0.0.1:{luigid_port}/api/task_list?data={{}}"
    with (
        service(luigid, api, directory / "luigid", luigid_env),
        service(moto, env["AWS_ENDPOINT_URL"], directory),
    ):
        yield luigid_port, env


def run_workers(
    source: Path, directory: Path, workers: int, port: int, store: str, env: dict[str, str]
) -> tuple[float, list[dict]]:
    """``workers`` processes of ``iescore campaign`` against luigid and ``store``, each in a folder of
    its own under ``directory`` with a copy of ``source`` (the campaign's folder); the wall seconds from
    the first start to the last exit, and each process's tasks log."""
    folders = []
    for n in range(workers):
        folder = directory / f"worker{n}"
        shutil.copytree(source, folder / "campaign")
        folders.append(folder)
    started = time.perf_counter()
    processes = [
        subprocess.Popen(
            iescore(
                "campaign",
                "campaign/campaign.toml",
                "--store",
                store,
                "--scheduler-host",
                "127.0.0.1",
                "--scheduler-port",
                str(port),
                "--json",
                "leaderboard.json",
                "--csv",
                "leaderboard.csv",
                "--tasks-log",
                "tasks.json",
                "--progress",
                "none",
            ),
            cwd=folder,
            env=env,
            stdout=(folder / "leaderboard.txt").open("w"),
            stderr=subprocess.PIPE,
        )  # fmt: skip
        for folder in folders
    ]
    for process in processes:
        _, error = process.communicate()
        if process.returncode != 0:
            raise RuntimeError(
                f"a worker exited {process.returncode}: {error.decode(errors='replace')[-2000:]}"
            )
    wall = time.perf_counter() - started
    return wall, [json.loads((folder / "tasks.json").read_text()) for folder in folders]


def check(reference: Path, directory: Path, logs: list[dict]) -> None:
    """Every worker's leaderboard equals the one-process run's byte for byte; every task ran once."""
    for folder in sorted(directory.glob("worker*")):
        for name in ("leaderboard.json", "leaderboard.csv", "leaderboard.txt"):
            if (folder / name).read_bytes() != (reference / name).read_bytes():
                raise RuntimeError(f"{folder / name} differs from the one-process run's")
    ran = [task for log in logs for task in log["ran"]]
    everything = set(ran) | set(logs[0]["elsewhere"]) | set(logs[0]["reused"])
    if len(ran) != len(set(ran)) or set(ran) != everything:
        raise RuntimeError(f"{len(ran)} tasks ran for {len(everything)} in the graph")


def measure(systems: int, counts: list[int], rounds: int, keep: Path | None = None) -> dict[int, list[float]]:
    """The wall seconds of each round for each number of workers (rounds interleaved: 1, 2, 4, 1, ...)."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = keep or Path(tmp)
        directory.mkdir(parents=True, exist_ok=True)
        source = generate(directory / "source", systems).parent
        reference = directory / "one-process"
        shutil.copytree(source, reference / "campaign")
        with (reference / "leaderboard.txt").open("w") as text:
            outputs = ("--json", "leaderboard.json", "--csv", "leaderboard.csv", "--progress", "none")
            command = iescore("campaign", "campaign/campaign.toml", "--store", "store", *outputs)
            subprocess.run(command, cwd=reference, stdout=text, check=True)
        seconds: dict[int, list[float]] = {count: [] for count in counts}
        with luigid_and_s3(directory) as (port, env):
            import boto3

            s3 = boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"], aws_access_key_id="testing",
                              aws_secret_access_key="testing", region_name="us-east-1")  # fmt: skip
            s3.create_bucket(Bucket="campaign")
            for round_ in range(rounds):
                for count in counts:
                    run_directory = directory / f"round{round_}-workers{count}"
                    store = f"s3://campaign/round{round_}-workers{count}"
                    wall, logs = run_workers(source, run_directory, count, port, store, env)
                    check(reference, run_directory, logs)
                    seconds[count].append(wall)
                    print(f"{count} worker(s): {wall:.1f} s", file=sys.stderr, flush=True)
        return seconds


def run(quick: bool, rounds: int) -> list[Row]:
    """200 systems (quick: 8) by 1, 2 and 4 workers; each row's ratio is its time over one worker's."""
    systems = 8 if quick else 200
    before = load_average()
    seconds = measure(systems, [1, 2, 4], 1 if quick else min(rounds, 2))
    after = load_average()
    one = min(seconds[1])
    rows = []
    for count, walls in seconds.items():
        ratio = min(walls) / one
        rows.append(
            Row(
                f"campaign {systems} TREC systems, {count} worker process(es), luigid + S3 (moto)",
                peer="1 worker" if count > 1 else None,
                iescore_s=min(walls),
                peer_s=one if count > 1 else None,
                ratio=ratio if count > 1 else None,
                ratio_min=ratio if count > 1 else None,
                ratio_max=ratio if count > 1 else None,
                ratio_is="time / 1 worker's" if count > 1 else None,
                runs=len(walls),
                load_before=before,
                load_after=after,
                note="best of the rounds; 2 cores: no gain past 2 workers",
            )  # fmt: skip
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--systems", type=int, default=200)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it")
    args = parser.parse_args()
    print(f"load before: {load_average()}")
    seconds = measure(args.systems, args.workers, args.rounds, args.keep)
    print(f"load after: {load_average()}")
    one = min(seconds[args.workers[0]])
    for count, walls in seconds.items():
        figures = ", ".join(f"{wall:.1f}" for wall in walls)
        print(f"{count} worker(s): best {min(walls):.1f} s ({figures}); {one / min(walls):.2f}x the first")


if __name__ == "__main__":
    main()
