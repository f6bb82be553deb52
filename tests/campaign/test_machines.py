"""Many machines (issue 28, point 3): worker processes that share nothing but luigid and an S3 store.

A generated TREC campaign (``benchmarks/bench_machines.py``'s ``generate``) is scored once by one
process on a directory store, then by four ``iescore campaign`` processes at once, each in a folder of
its own with its own copy of the campaign's files (as on four machines), against one luigid and one
bucket of moto's S3 server. The bucket keeps versions, so every upload of an artifact is one version:
an artifact with one version was written once. One worker is killed with SIGKILL while luigid shows it
running a task; the other three must finish the campaign with the one process's results, byte for byte.

luigid runs with the settings docs/machines.md gives for this: a worker silent for 3 s is taken for
dead (``worker_disconnect_delay``), its running task fails and is pending again 1 s later
(``retry_delay``), dead workers are looked for at every request for work (``prune_on_get_work``), and
a task that failed 3 times is disabled (``retry_count``).
The benchmark of the same setting with 200 systems is ``benchmarks/bench_machines.py``; the suite runs
24 systems to stay short.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

import boto3
import pyarrow.parquet as pq
from test_campaign import ROOT, luigid
from test_s3_store import bucket, moto_endpoint  # noqa: F401 (fixtures)

sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_machines import LUIGID_CONFIG, generate  # noqa: E402

SYSTEMS = 24
# Per system IngestRun, EvaluateRun, TrecStatistics; the qrels once; the campaign summary.
TASKS = 3 * SYSTEMS + 2
# What luigid schedules: one task per system (its three stages built in one process), the qrels, the summary.
LUIGI_TASKS = SYSTEMS + 2
OUTPUTS = ("leaderboard.json", "leaderboard.csv", "leaderboard.txt")


def start(folder: Path, *argv: object) -> subprocess.Popen[str]:
    """``iescore campaign`` run in ``folder`` (its working directory), its leaderboard text on stdout
    kept in ``folder/leaderboard.txt``."""
    return subprocess.Popen(
        [sys.executable, "-m", "iescore", "campaign", "campaign/campaign.toml", *map(str, argv),
         "--json", "leaderboard.json", "--csv", "leaderboard.csv", "--progress", "none"],
        cwd=folder, stdout=(folder / "leaderboard.txt").open("w"), stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def running(port: int) -> dict[str, str]:
    """luigid's running tasks: task id -> the worker running it (``Worker(..., pid=N)``)."""
    query = urllib.parse.quote(json.dumps({"status": "RUNNING"}))
    url = f"http://127.0.0.1:{port}/api/task_list?data={query}"
    tasks = json.loads(urllib.request.urlopen(url, timeout=10).read())["response"]
    return {task_id: task["worker_running"] or "" for task_id, task in tasks.items()}


def versions(name: str, prefix: str) -> Counter[str]:
    """How many versions each object under ``prefix`` has: how many times it was uploaded."""
    pages = boto3.client("s3").get_paginator("list_object_versions").paginate(Bucket=name, Prefix=prefix)
    return Counter(item["Key"] for page in pages for item in page.get("Versions", []))


def test_four_workers_share_luigid_and_s3_and_survive_a_killed_one(tmp_path: Path, bucket: str) -> None:  # noqa: F811
    boto3.client("s3").put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    source = generate(tmp_path / "source", SYSTEMS).parent
    alone = tmp_path / "alone"
    shutil.copytree(source, alone / "campaign")
    one = start(alone, "--store", "store")
    assert one.wait(timeout=600) == 0, one.stderr.read()

    prefix = "campaign"
    folders = [tmp_path / f"machine{n}" for n in range(4)]
    for folder in folders:
        shutil.copytree(source, folder / "campaign")
    with luigid(tmp_path, LUIGID_CONFIG) as port:
        workers = [
            start(folder, "--store", f"s3://{bucket}/{prefix}", "--scheduler-host", "127.0.0.1",
                  "--scheduler-port", port, "--tasks-log", "tasks.json")
            for folder in folders
        ]  # fmt: skip
        pids = {worker.pid: worker for worker in workers}
        # Midway: a third of the artifacts written, and a worker running a task, which is killed.
        victim, deadline = None, time.time() + 600
        while victim is None:
            assert time.time() < deadline, "the campaign did not get a third of the way"
            assert all(worker.poll() is None for worker in workers), "a worker ended before the kill"
            if sum(versions(bucket, prefix + "/").values()) >= TASKS // 3:
                holders = [_pid(worker) for worker in running(port).values()]
                victim = next((pids[pid] for pid in holders if pid in pids), None)
            time.sleep(0.05)
        os.kill(victim.pid, signal.SIGKILL)
        assert victim.wait(timeout=60) == -signal.SIGKILL
        # What luigid still shows the dead worker running: it reruns on another worker.
        interrupted = {task for task, worker in running(port).items() if _pid(worker) == victim.pid}
        survivors = [
            (worker, folder) for worker, folder in zip(workers, folders, strict=True) if worker is not victim
        ]
        for worker, _ in survivors:
            _, err = worker.communicate(timeout=900)
            assert worker.returncode == 0, err
        done = json.loads(
            urllib.request.urlopen(
                f"http://127.0.0.1:{port}/api/task_list?data=" + urllib.parse.quote('{"status": "DONE"}')
            ).read()
        )["response"]
        assert len(done) == LUIGI_TASKS  # luigid saw every task of the campaign end

    # Each survivor prints and writes what the one process did, byte for byte.
    for _, folder in survivors:
        for name in OUTPUTS:
            assert (folder / name).read_bytes() == (alone / name).read_bytes(), folder / name

    # Each task ran once among the survivors; those none of them ran, the killed worker finished.
    logs = [json.loads((folder / "tasks.json").read_text()) for _, folder in survivors]
    ran = [task for log in logs for task in log["ran"]]
    assert len(ran) == len(set(ran))
    # A system's task is coarse (its stages built in one process): a worker finds the stages already
    # written (by the killed worker inside the task it takes over, or by another worker) and reuses them.
    reused = {task for log in logs for task in log["reused"]}
    graph = set(ran) | set(logs[0]["elsewhere"]) | reused
    assert len(graph) == TASKS
    # The killed worker's running task was taken over: run again, or found written when the killed
    # worker had written its last artifact before it died (luigid had not heard of it yet).
    assert interrupted <= graph
    assert graph - set(ran), "the killed worker had finished nothing: not midway"

    # Each artifact was uploaded once, but those of a stage the taking-over worker ran (the killed
    # worker may have uploaded some of its outputs before it died; they are uploaded again, the same
    # bytes).
    rerun_keys = {task.split("_")[1] for task in interrupted | set(ran)}
    uploads = versions(bucket, prefix + "/")
    for key, count in uploads.items():
        assert count == 1 or (count == 2 and Path(key).name[:16] in rerun_keys), (key, count)

    # The artifacts equal the one process's: byte for byte, but for the two ingest stages, whose
    # provenance records where the machine read its input file (the tables are equal).
    local = sorted(
        path.relative_to(alone / "store").as_posix() for path in (alone / "store").glob("*/*/*.parquet")
    )
    assert sorted(key.removeprefix(prefix + "/") for key in uploads) == local
    s3 = boto3.client("s3")
    for name in local:
        data = s3.get_object(Bucket=bucket, Key=f"{prefix}/{name}")["Body"].read()
        if name.split("/")[0] in ("IngestQrels", "IngestRun"):
            (tmp_path / "artifact.parquet").write_bytes(data)
            assert pq.read_table(tmp_path / "artifact.parquet").equals(pq.read_table(alone / "store" / name))
        else:
            assert data == (alone / "store" / name).read_bytes(), name


def _pid(worker: str) -> int:
    """The process id in luigid's name of a worker (``Worker(salt=..., ..., pid=N)``), or 0."""
    _, _, rest = worker.partition("pid=")
    digits = "".join(c for c in rest if c.isdigit()) if rest else ""
    return int(digits) if digits else 0


def test_bad_input_under_luigid_fails_every_client_instead_of_retrying_forever(tmp_path: Path) -> None:
    # A run file with a short line: each attempt fails with the same input error. luigid gives the task
    # to a worker again after retry_delay until retry_count attempts failed, then disables it; both
    # clients then exit 2 with the message (the one that did not run it last asks luigid for it).
    source = generate(tmp_path / "source", 3).parent
    with (source / "sys001.txt").open("a") as run:
        run.write("q0 Q0\n")
    folders = [tmp_path / f"machine{n}" for n in range(2)]
    for folder in folders:
        shutil.copytree(source, folder / "campaign")
    with luigid(tmp_path, LUIGID_CONFIG) as port:
        clients = [
            start(
                folder,
                "--store",
                tmp_path / "store",
                "--scheduler-host",
                "127.0.0.1",
                "--scheduler-port",
                port,
            )
            for folder in folders
        ]
        for client, folder in zip(clients, folders, strict=True):
            _, err = client.communicate(timeout=300)
            assert client.returncode == 2, err
            expected = "expected at least 6 separated by white space: qid Q0 docno rank score tag"
            assert f"sys001.txt:33: 2 field(s); {expected}" in err, err
            assert not (folder / "leaderboard.json").exists()
