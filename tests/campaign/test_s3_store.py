"""Artifacts on object storage (issue 11, point 6): an ``s3://BUCKET/PREFIX`` store through Luigi's S3
targets, against moto's standalone S3 server (a real HTTP endpoint) on 127.0.0.1.

The same campaign run on a directory store and on S3 must give the same leaderboard, the same artifact
names (keys) and the same rerun rule (a second run runs nothing); luigid with two clients shares an S3
store as it shares a directory; a store that cannot be used is bad input (exit 2) before any work.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import boto3
import luigi.configuration
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from iescore.pipeline.campaign.engine import read_campaign
from iescore.tasks.core import store as artifacts
from iescore.tasks.core.store import S3Store, artifact_target, check_store, read_table, write_table
from significance_file import json_results
from test_campaign import (
    ALL_TASKS,
    DATA,
    ONE_SYSTEM,
    big_campaign,
    cli,
    copy_campaign,
    families,
    finish,
    free_port,
    iescore,
    luigid,
)

ENV_KEYS = (
    "AWS_ENDPOINT_URL_S3",
    "AWS_PROFILE",
    "AWS_SESSION_TOKEN",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_ROLE_ARN",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
)


@pytest.fixture(scope="module")
def moto_endpoint() -> Iterator[str]:
    """moto's S3 server on a free local port, stopped by its own process id."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(endpoint + "/", timeout=1).read()
                break
            except OSError:
                assert server.poll() is None, "moto_server exited"
                assert time.time() < deadline, "moto_server did not start"
                time.sleep(0.2)
        yield endpoint
    finally:
        os.kill(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.kill(server.pid, signal.SIGKILL)
            server.wait()


def isolate_aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No AWS settings from the machine running the tests: no profile files, no instance metadata."""
    for key in ENV_KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setattr(artifacts, "_S3_CLIENTS", {})


@pytest.fixture
def bucket(moto_endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """A fresh bucket on the moto server, with dummy credentials and the endpoint in the environment."""
    isolate_aws(monkeypatch, tmp_path)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_endpoint)
    name = f"iescore-{uuid.uuid4().hex[:12]}"
    boto3.client("s3").create_bucket(Bucket=name)
    monkeypatch.chdir(tmp_path)  # a store URL mistaken for a path would show up here as ./s3:
    return name


def object_keys(bucket: str, prefix: str = "") -> list[str]:
    pages = boto3.client("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    return sorted(item["Key"] for page in pages for item in page.get("Contents", []))


def local_files(store: Path) -> list[str]:
    return sorted(str(path.relative_to(store)) for path in store.glob("*/*/*.parquet"))


# --- a campaign on S3 ----------------------------------------------------------------------------


def test_campaign_on_s3_equals_local_and_reruns_nothing(
    tmp_path: Path, bucket: str, capsys: pytest.CaptureFixture[str]
) -> None:
    campaign_file = copy_campaign(tmp_path)
    local = tmp_path / "local"
    # With its page too: the page keeps its systems' views in the store (tasks.campaign.outputs.page_views).
    status, _, err = cli(
        capsys, "campaign", campaign_file, "--store", local, "--json", tmp_path / "local.json",
        "--out", tmp_path / "local-out",
    )  # fmt: skip
    assert status == 0, err
    url = f"s3://{bucket}/runs/one"

    status, out, err = cli(
        capsys, "campaign", campaign_file, "--store", url, "--json", tmp_path / "s3.json",
        "--tasks-log", tmp_path / "first.log", "--out", tmp_path / "out",
    )  # fmt: skip
    assert status == 0, err
    first = json.loads((tmp_path / "first.log").read_text())
    assert len(first["ran"]) == ALL_TASKS
    assert json_results(tmp_path / "s3.json") == json_results(tmp_path / "local.json")
    # Same keys, same layout: every artifact of the local store, under the prefix, and nothing else.
    assert object_keys(bucket) == [f"runs/one/{name}" for name in local_files(local)]
    assert (tmp_path / "out" / "report.html").is_file()  # outputs stay local
    assert not (tmp_path / "s3:").exists()

    # Second run: nothing runs, the same leaderboard comes out of the S3 artifacts.
    status, out_again, err = cli(
        capsys, "campaign", campaign_file, "--store", url, "--tasks-log", tmp_path / "second.log"
    )
    assert status == 0, err
    second = json.loads((tmp_path / "second.log").read_text())
    assert second["ran"] == [] and families(second["reused"]) == {"CampaignSummary": 1}
    assert out_again == out

    # A dry run reads the provenance of the artifacts on S3 to say why a task would run.
    eager = campaign_file.parent / "hub4-sports" / "eager.tpl"
    eager.write_text(eager.read_text().replace('"1986" ##442#446#', '"12 years" ##259#267#'))
    status, out, _ = cli(capsys, "campaign", campaign_file, "--store", url, "--dry-run")
    lines = out.splitlines()
    assert lines[0] == f"would run {sum(ONE_SYSTEM.values()) + 1} of {ALL_TASKS} tasks"
    assert "IngestTemplates" in lines[1] and "eager: file changed: templates" in lines[1]

    # `iescore artifacts` lists the S3 store as it lists the directory: same stages, keys, rows, inputs.
    status, s3_listing, _ = cli(capsys, "artifacts", url)
    assert status == 0
    status, local_listing, _ = cli(capsys, "artifacts", local)
    s3_lines, local_lines = s3_listing.splitlines(), local_listing.splitlines()
    assert len(s3_lines) == 2 * len(local_files(local))
    assert s3_lines[0::2] == local_lines[0::2]
    assert [line.strip() for line in s3_lines[1::2]] == [
        f"{url}/{Path(line.strip()).relative_to(local)}" for line in local_lines[1::2]
    ]


def test_campaign_file_keeps_an_s3_store_as_written(tmp_path: Path) -> None:
    campaign_file = copy_campaign(tmp_path)
    text = campaign_file.read_text().replace('store = "store"', 'store = "s3://some-bucket/a/b"')
    campaign_file.write_text(text)
    parsed = read_campaign(campaign_file)
    assert parsed.store == "s3://some-bucket/a/b"
    assert parsed.store_line == 6  # data/campaign.toml: five comment lines, then `store = ...`
    campaign_file.write_text(text.replace('"s3://some-bucket/a/b"', '"elsewhere"'))
    assert read_campaign(campaign_file).store == campaign_file.parent / "elsewhere"


def test_luigi_s3_section_gives_endpoint_and_credentials(
    tmp_path: Path, moto_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """luigi.cfg's [s3] reaches boto3 through Luigi's S3Client: no AWS variable set at all."""
    isolate_aws(monkeypatch, tmp_path)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    name = f"iescore-{uuid.uuid4().hex[:12]}"
    keys = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
    boto3.client("s3", endpoint_url=moto_endpoint, **keys).create_bucket(Bucket=name)
    config = luigi.configuration.get_config()
    monkeypatch.setattr(config, "_sections", {**config._sections, "s3": {}})  # put back afterwards
    for option, value in {**keys, "endpoint_url": moto_endpoint, "region_name": "us-east-1"}.items():
        config.set("s3", option, value)
    check_store(f"s3://{name}/p", "--store")  # credentials from [s3], not from boto3's chain
    target = artifact_target(f"s3://{name}/p", "Report", "cd" * 32, "scores")
    write_table(target, pa.table({"x": [4]}), {"stage": "Report"})
    assert read_table(target).column("x").to_pylist() == [4]


# --- atomic writes and killed writers ------------------------------------------------------------


def test_failed_write_leaves_no_object(bucket: str, monkeypatch: pytest.MonkeyPatch) -> None:
    target = artifact_target(f"s3://{bucket}/p", "Report", "ab" * 32, "scores")
    assert target.path == f"s3://{bucket}/p/Report/ab/{'ab' * 32}.scores.parquet"
    table = pa.table({"x": [1, 2, 3]})

    def half_then_fail(table: pa.Table, where: object, **kwargs: object) -> None:
        where.write(b"PAR1 half a file")  # type: ignore[attr-defined]
        raise OSError("killed while writing")

    with monkeypatch.context() as patched:
        patched.setattr(pq, "write_table", half_then_fail)
        with pytest.raises(OSError, match="killed while writing"):
            write_table(target, table, {"stage": "Report"})
    assert not target.exists() and object_keys(bucket) == []

    write_table(target, table, {"stage": "Report", "key": "ab" * 32})
    assert target.exists()
    assert read_table(target).column("x").to_pylist() == [1, 2, 3]
    assert artifacts.provenance(target.path) == {"stage": "Report", "key": "ab" * 32}


def test_sweep_aborts_only_old_unfinished_uploads(bucket: str) -> None:
    client = boto3.client("s3")
    ours = client.create_multipart_upload(Bucket=bucket, Key="p/Report/ab/k.scores.parquet")["UploadId"]
    client.upload_part(
        Bucket=bucket, Key="p/Report/ab/k.scores.parquet", UploadId=ours, PartNumber=1, Body=b"x"
    )
    other = client.create_multipart_upload(Bucket=bucket, Key="other/k.parquet")["UploadId"]
    store = S3Store(f"s3://{bucket}/p")

    # moto reports a fixed start time for every upload: judge ages from the time it reports.
    (started,) = {u["Initiated"].timestamp() for u in client.list_multipart_uploads(Bucket=bucket)["Uploads"]}
    assert store.sweep(now=started + 3600) == []  # an hour old: maybe a live writer's
    later = started + artifacts.FOREIGN_TEMPORARY_AGE + 3600
    swept = store.sweep(now=later)
    assert swept == [f"s3://{bucket}/p/Report/ab/k.scores.parquet (unfinished upload {ours})"]
    left = [u["UploadId"] for u in client.list_multipart_uploads(Bucket=bucket).get("Uploads", [])]
    assert left == [other]  # outside the prefix: not ours
    assert object_keys(bucket) == []  # an aborted upload never becomes an object


# --- luigid and two clients on one S3 store ------------------------------------------------------


def test_two_clients_against_luigid_on_s3(tmp_path: Path, bucket: str) -> None:
    campaign_file = big_campaign(tmp_path, copies=2)
    finish(
        iescore("campaign", campaign_file, "--store", tmp_path / "local", "--json", tmp_path / "local.json")
    )
    with luigid(tmp_path) as port:
        url = f"s3://{bucket}/shared"
        clients = [
            iescore(
                "campaign",
                campaign_file,
                "--store",
                url,
                "--scheduler-host",
                "127.0.0.1",
                "--scheduler-port",
                port,
                "--workers",
                workers,
                "--json",
                tmp_path / f"{n}.json",
                "--tasks-log",
                tmp_path / f"{n}.log",
            )  # fmt: skip
            for n, workers in (("a", 2), ("b", 1))  # two workers: forked processes, one S3 client each
        ]
        for client in clients:
            finish(client)
    logs = [json.loads((tmp_path / f"{n}.log").read_text()) for n in "ab"]
    ran_a, ran_b = set(logs[0]["ran"]), set(logs[1]["ran"])
    assert not ran_a & ran_b  # every task ran once
    total = 2 * 4 * 6 + 6 + 1
    assert len(ran_a | ran_b) == total
    expected = json_results(tmp_path / "local.json")
    for n in "ab":
        assert json_results(tmp_path / f"{n}.json") == expected
    assert object_keys(bucket) == [f"shared/{name}" for name in local_files(tmp_path / "local")]


# --- a store that cannot be used: exit 2 before any work -----------------------------------------


def test_s3_store_without_credentials_is_bad_input(
    tmp_path: Path, moto_endpoint: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    isolate_aws(monkeypatch, tmp_path)
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_endpoint)
    monkeypatch.chdir(tmp_path)
    campaign_file = copy_campaign(tmp_path)
    out = tmp_path / "out"
    status, stdout, err = cli(
        capsys, "campaign", campaign_file, "--store", "s3://some-bucket/p", "--json", tmp_path / "j.json",
        "--out", out,
    )  # fmt: skip
    assert status == 2 and stdout == ""
    assert err.startswith(
        "iescore: --store: store s3://some-bucket/p: no AWS credentials; set AWS_ACCESS_KEY_ID"
    )
    assert "Traceback" not in err

    # The same store named in the campaign file: the file and the line of `store = ...` (line 6).
    campaign_file.write_text(
        campaign_file.read_text().replace('store = "store"', 'store = "s3://some-bucket/p"')
    )
    status, _, err = cli(capsys, "campaign", campaign_file, "--dry-run")
    assert status == 2
    assert err.startswith(f"iescore: {campaign_file}:6: store s3://some-bucket/p: no AWS credentials")

    status, _, err = cli(
        capsys, "templette", "--ref", DATA / "hub4-sports" / "ref.tpl",
        "--hyp", DATA / "hub4-sports" / "eager.tpl", "--store", "s3://some-bucket/p",
    )  # fmt: skip
    assert status == 2 and err.startswith("iescore: --store: store s3://some-bucket/p: no AWS credentials")
    # iescore muc too (it used to take the URL for a local directory named "s3:").
    config = DATA.parent / "tests" / "data" / "muc_te" / "te.config"
    status, _, err = cli(capsys, "muc", config, "--store", "s3://some-bucket/p")
    assert status == 2 and err.startswith("iescore: --store: store s3://some-bucket/p: no AWS credentials")
    # Nothing half-written: no outputs, no local directory for the URL, no bucket created.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]
    admin = boto3.client("s3", aws_access_key_id="testing", aws_secret_access_key="testing")
    assert "some-bucket" not in [b["Name"] for b in admin.list_buckets()["Buckets"]]


def test_unusable_s3_store_is_bad_input(
    tmp_path: Path, bucket: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    campaign_file = copy_campaign(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())

    status, _, err = cli(capsys, "campaign", campaign_file, "--store", "s3://missing-bucket/p")
    assert status == 2
    endpoint = os.environ["AWS_ENDPOINT_URL"]
    assert err == f"iescore: --store: store s3://missing-bucket/p: no bucket 'missing-bucket' at {endpoint}\n"

    closed = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    monkeypatch.setenv("AWS_ENDPOINT_URL", closed)
    status, _, err = cli(capsys, "campaign", campaign_file, "--store", f"s3://{bucket}/p")
    assert status == 2
    assert err.startswith(f"iescore: --store: store s3://{bucket}/p: cannot reach the S3 endpoint {closed} (")
    assert "set AWS_ENDPOINT_URL_S3" in err

    scheme_expected = (
        "a directory or s3://BUCKET/PREFIX expected (a name that begins like a URL scheme is not taken for a "
        "directory: write ./{} for a directory of that name)"
    )
    for bad, expected in (
        ("s3://", "s3://BUCKET/PREFIX with a valid bucket name expected"),
        ("s3://Bad_Bucket/p", "s3://BUCKET/PREFIX with a valid bucket name expected"),
        ("gs://bucket/p", scheme_expected.format("gs://bucket/p")),
        ("s3:/bucket/p", scheme_expected.format("s3:/bucket/p")),  # one slash: never a local folder "s3:"
    ):
        status, _, err = cli(capsys, "campaign", campaign_file, "--store", bad)
        assert status == 2 and err == f"iescore: --store: store {bad!r}: {expected}\n"
        status, _, err = cli(capsys, "artifacts", bad)
        assert status == 2 and err == f"iescore: store: store {bad!r}: {expected}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
    assert object_keys(bucket) == []
