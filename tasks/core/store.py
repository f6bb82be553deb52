"""The content-addressed artifact store: a directory, or an S3 bucket and prefix.

A stage's key is the sha256 of its name, its VERSION, its significant options and the keys of its
inputs; a raw file enters by the sha256 of its bytes. The key names the artifact's path and the
task, so editing an input reruns exactly what depends on it and touching it reruns nothing.

Where the artifacts live is chosen by the store's location: ``s3://BUCKET/PREFIX`` is an S3 store,
anything else a directory. Both lay artifacts out alike (``STAGE/ab/KEY.NAME.parquet`` under the
directory or the prefix), so keys, reuse and rerun rules do not depend on where the store is.

On a file system, artifacts are written to a temporary file beside their final path and renamed into
place (atomic on one file system): a killed run never leaves a file that looks complete. A temporary
file's name says which host and process wrote it, so a later run sweeps those of dead processes and
never those of a campaign still running against the same store.

On S3 (Luigi's ``luigi.contrib.s3``: ``S3Target`` for outputs, ``S3Client`` over boto3), an object
appears whole or not at all: a single PUT, or a multipart upload once it is completed. So the Parquet
bytes are built completely in memory first and only then uploaded to the final key; a writer killed
before the upload ends leaves no object, only (for a multipart upload) parts S3 keeps invisible, which
a later run aborts once they are older than ``FOREIGN_TEMPORARY_AGE`` (no host or process can be read
from them). Readers fetch an object whole, or (listing a store) only its Parquet footer by ranged GETs.

S3 connection settings are boto3's and Luigi's: credentials from ``AWS_ACCESS_KEY_ID`` /
``AWS_SECRET_ACCESS_KEY`` (``AWS_SESSION_TOKEN``), ``AWS_PROFILE`` and ``~/.aws``, or instance roles; the
endpoint from ``AWS_ENDPOINT_URL_S3`` or ``AWS_ENDPOINT_URL`` (boto3 >= 1.28; AWS itself when unset);
the ``[s3]`` section of luigi.cfg, which ``S3Client`` passes to ``boto3.resource`` (``endpoint_url``,
``region_name``, ``aws_access_key_id``, ``aws_secret_access_key``, ``aws_session_token``, or
``aws_role_arn`` with ``aws_role_session_name``), wins over the environment. ``check_store`` tries all
this before any work, so a store that cannot be reached is bad input, not a failed run.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import luigi
import pyarrow as pa
import pyarrow.parquet as pq
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.settings import URL_SCHEME
from iescore.tasks.core import files

PROVENANCE_KEY = b"iescore.provenance"
# A temporary file of another host cannot be checked for a live writer: it is swept after this long.
FOREIGN_TEMPORARY_AGE = 24 * 3600.0
S3_PREFIX = "s3://"
# S3's rule for bucket names (3 to 63 lower-case letters, digits, dots and hyphens).
BUCKET_NAME = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


def artifact_name(stage: str, key: str, name: str) -> str:
    """``stage/ab/abcdef....name.parquet``, the same under a directory or an S3 prefix.

    Stage and name come from code; the key must be hex, so no artifact can name a path outside the store.
    """
    if not all(c in "0123456789abcdef" for c in key) or len(key) != 64:
        raise ValueError(f"artifact key must be 64 hex digits, not {key!r}")
    return f"{stage}/{key[:2]}/{key}.{name}.parquet"


def artifact_path(store: str | Path, stage: str, key: str, name: str) -> Path:
    """``STORE/stage/ab/abcdef....name.parquet`` in a directory store."""
    return Path(store) / artifact_name(stage, key, name)


def is_s3(location: str | Path) -> bool:
    """Is ``location`` an S3 store (``s3://bucket/prefix``)? Never true of a ``Path``."""
    return isinstance(location, str) and location.startswith(S3_PREFIX)


def artifact_target(store: str | Path, stage: str, key: str, name: str) -> luigi.Target:
    """The Luigi target of an artifact: a ``LocalTarget``, or an ``S3Target`` in an S3 store."""
    return open_store(str(store)).target(stage, key, name)


def write_table(target: luigi.Target, table: pa.Table, provenance: Mapping[str, Any]) -> None:
    """Write ``table`` to ``target`` atomically, with its provenance in the Parquet metadata."""
    metadata = dict(table.schema.metadata or {})
    metadata[PROVENANCE_KEY] = json.dumps(files.plain(provenance), sort_keys=True, default=str).encode()
    table = table.replace_schema_metadata(metadata)
    path = getattr(target, "path", None) or str(target)
    if is_s3(path):
        # The whole file first, then one upload to the final key: S3 shows it complete or not at all.
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        S3Store.of(path).upload(path, sink.getvalue().to_pybytes())
        return
    with files.atomic_path(path) as temporary:
        pq.write_table(table, temporary)


def sweep_temporaries(store: str | Path, now: float | None = None) -> list[Path]:
    """Delete temporary files left by killed writers; return what was deleted.

    A file of this host is stale when its process is gone; one of another host when it is older
    than ``FOREIGN_TEMPORARY_AGE``. A live writer's file is never touched.
    """
    now = time.time() if now is None else now
    swept = []
    for candidate in Path(store).glob(f"**/.*{files.TEMPORARY_MARK}*"):
        host, pid = _writer(candidate.name)
        try:
            stale = (
                not _alive(pid)
                if host == files.host()
                else now - candidate.stat().st_mtime > FOREIGN_TEMPORARY_AGE
            )
            if stale:
                candidate.unlink()
                swept.append(candidate)
        except FileNotFoundError:  # its writer finished (or another sweeper got there) meanwhile
            continue
    return swept


def _writer(name: str) -> tuple[str, int]:
    parts = name.split(files.TEMPORARY_MARK, 1)[1].rsplit(".", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return "", -1  # not ours to judge by process: swept by age
    return parts[0], int(parts[1])


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    # A zombie has ended and writes nothing more; a killed writer whose parent died too may stay one
    # (a container's first process may never reap it).
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):  # no /proc (not Linux): the signal said it is there
        return True


def read_table(target: luigi.Target | str | Path, columns: list[str] | None = None) -> pa.Table:
    """An artifact's table (only ``columns`` when given, with the file's metadata), from a file or (read
    whole) from S3."""
    path = getattr(target, "path", None) or str(target)
    if is_s3(path):
        # Copied into Arrow's memory: a reader over a Python ``bytes`` may be released by one of Arrow's
        # threads after the interpreter began exiting, which aborts the process (pyarrow 26).
        sink = pa.BufferOutputStream()
        sink.write(S3Store.of(path).download(path))
        return pq.read_table(pa.BufferReader(sink.getvalue()), columns=columns)
    # One file, read by its own reader: half the time of ``pq.read_table``'s dataset set-up, which a
    # campaign's page (two small artifacts per system) pays hundreds of times. That reader skips a column
    # it does not have; ``pq.read_table`` refuses it, and so does this.
    with pq.ParquetFile(path) as file:
        missing = [name for name in columns or () if name not in file.schema_arrow.names]
        if missing:
            names = file.schema_arrow.names
            raise pa.ArrowInvalid(f"{path}: no column {', '.join(missing)} (it has {', '.join(names)})")
        return file.read(columns=columns)


def provenance(path: str | Path) -> dict[str, Any]:
    """The provenance recorded in an artifact (empty for a file iescore did not write)."""
    if is_s3(path):
        return _provenance(S3Store.of(str(path)).metadata(str(path)))
    return _provenance(pq.read_metadata(path))


def _provenance(meta: pq.FileMetaData) -> dict[str, Any]:
    raw = (meta.schema.to_arrow_schema().metadata or {}).get(PROVENANCE_KEY)
    return json.loads(raw) if raw else {}


def list_artifacts(store: str | Path) -> list[dict[str, Any]]:
    """Every artifact of a store with its stage, key, rows and provenance, by stage then key."""
    return open_store(str(store)).artifacts()


def stage_provenances(store: str | Path, stage: str, name: str | None = None) -> list[dict[str, Any]]:
    """The provenance of every readable artifact of ``stage`` in ``store`` (unreadable ones skipped); with
    ``name``, of its artifacts of that output name only (one per key: every output has the same)."""
    return open_store(str(store)).provenances(stage, name)


def sweep_store(store: str | Path) -> list[str]:
    """What a killed writer left in ``store``, deleted (see ``sweep_temporaries``, ``S3Store.sweep``)."""
    return open_store(str(store)).sweep()


def check_store(location: str, where: str, line: int = 0) -> None:
    """Raise InputError (blaming ``where``:``line``, an option or a campaign file) unless the store is
    usable: a directory path, or an S3 bucket reachable with credentials. Nothing is written."""
    if URL_SCHEME.match(location) and not is_s3(location):
        raise InputError(
            where,
            line,
            f"store {location!r}: a directory or s3://BUCKET/PREFIX expected (a name that begins like a "
            f"URL scheme is not taken for a directory: write ./{location} for a directory of that name)",
        )
    if is_s3(location):
        S3Store(location).check(where, line)


@functools.lru_cache(maxsize=64)
def open_store(location: str) -> LocalStore | S3Store:
    """The store at ``location``: ``s3://BUCKET/PREFIX`` is on S3, anything else a directory."""
    return S3Store(location) if is_s3(location) else LocalStore(location)


class LocalStore:
    """Artifacts in a directory: renamed into place, temporary files swept by writer."""

    def __init__(self, location: str | Path) -> None:
        self.root = Path(location)

    def target(self, stage: str, key: str, name: str) -> luigi.LocalTarget:
        return luigi.LocalTarget(str(self.root / artifact_name(stage, key, name)))

    def artifacts(self) -> list[dict[str, Any]]:
        rows = []
        for path in sorted(self.root.glob("*/*/*.parquet")):
            meta = _footer(path, lambda path=path: pq.read_metadata(path))
            rows.append({"path": str(path), "rows": meta.num_rows, **_provenance(meta)})
        return rows

    def provenances(self, stage: str, name: str | None = None) -> list[dict[str, Any]]:
        entries = []
        for path in sorted((self.root / stage).glob(f"*/*.{name or '*'}.parquet")):
            try:
                entries.append(provenance(path))
            except OSError:
                continue
        return entries

    def sweep(self) -> list[str]:
        return [str(path) for path in sweep_temporaries(self.root)] if self.root.is_dir() else []


class S3Store:
    """Artifacts under ``s3://BUCKET/PREFIX``, through Luigi's ``S3Target`` and ``S3Client``."""

    def __init__(self, location: str) -> None:
        bucket, _, prefix = location[len(S3_PREFIX) :].partition("/")
        self.location = location
        self.bucket = bucket
        self.prefix = "/".join(part for part in prefix.split("/") if part)

    @staticmethod
    def of(url: str) -> S3Store:
        """The store (bucket) holding the object at ``url``; only its client and bucket are used."""
        return S3Store(S3_PREFIX + url[len(S3_PREFIX) :].partition("/")[0])

    @property
    def client(self) -> Any:
        return _s3_client()

    def url(self, relative: str) -> str:
        return f"{S3_PREFIX}{self.bucket}/{self.prefix + '/' if self.prefix else ''}{relative}"

    def target(self, stage: str, key: str, name: str) -> luigi.Target:
        return _artifact_target_class()(self.url(artifact_name(stage, key, name)), client=self.client)

    def upload(self, url: str, data: bytes) -> None:
        """Put ``data`` at ``url`` in one upload (multipart above boto3's threshold, 8 MB)."""
        bucket, key = _bucket_key(url)
        self.client.s3.meta.client.upload_fileobj(io.BytesIO(data), bucket, key)

    def download(self, url: str) -> bytes:
        return self.client.get_as_bytes(url)

    def metadata(self, url: str, size: int | None = None) -> pq.FileMetaData:
        """The Parquet footer of the object at ``url``, fetched by ranged GETs (not the whole object)."""
        bucket, key = _bucket_key(url)
        api = self.client.s3.meta.client
        if size is None:
            size = api.head_object(Bucket=bucket, Key=key)["ContentLength"]
        return pq.read_metadata(pa.PythonFile(_RangedObject(api, bucket, key, size), mode="r"))

    def _objects(self, under: str) -> Iterator[tuple[str, int]]:
        """(relative name, size) of every object under ``under`` (relative to the prefix), by name."""
        start = self.prefix + "/" if self.prefix else ""
        listing = self.client.s3.Bucket(self.bucket).objects.filter(Prefix=start + under)
        for item in sorted(listing, key=lambda item: item.key):
            yield item.key[len(start) :], item.size

    def artifacts(self) -> list[dict[str, Any]]:
        rows = []
        for relative, size in self._objects(""):
            if relative.count("/") != 2 or not relative.endswith(".parquet"):
                continue
            url = self.url(relative)
            meta = _footer(url, lambda url=url, size=size: self.metadata(url, size))
            rows.append({"path": url, "rows": meta.num_rows, **_provenance(meta)})
        return rows

    def provenances(self, stage: str, name: str | None = None) -> list[dict[str, Any]]:
        import botocore.exceptions

        entries = []
        for relative, size in self._objects(stage + "/"):
            if relative.count("/") != 2 or not relative.endswith(f".{name}.parquet" if name else ".parquet"):
                continue
            try:
                entries.append(_provenance(self.metadata(self.url(relative), size)))
            except (OSError, botocore.exceptions.ClientError):  # gone or unreadable: not comparable
                continue
        return entries

    def sweep(self, now: float | None = None) -> list[str]:
        """Abort multipart uploads under the prefix older than ``FOREIGN_TEMPORARY_AGE``.

        An unfinished upload says neither host nor process, so only age tells a killed writer's from a
        live one's (a bucket lifecycle rule ``AbortIncompleteMultipartUpload`` does the same on S3).
        """
        now = time.time() if now is None else now
        api = self.client.s3.meta.client
        swept = []
        start = self.prefix + "/" if self.prefix else ""
        for page in api.get_paginator("list_multipart_uploads").paginate(Bucket=self.bucket, Prefix=start):
            for upload in page.get("Uploads", []):
                if now - upload["Initiated"].timestamp() > FOREIGN_TEMPORARY_AGE:
                    key, upload_id = upload["Key"], upload["UploadId"]
                    api.abort_multipart_upload(Bucket=self.bucket, Key=key, UploadId=upload_id)
                    swept.append(f"{S3_PREFIX}{self.bucket}/{key} (unfinished upload {upload_id})")
        return swept

    def check(self, where: str, line: int = 0) -> None:
        """Fail as bad input unless the bucket answers with the credentials found; writes nothing."""
        store = self.location
        if not BUCKET_NAME.fullmatch(self.bucket):
            expected = "s3://BUCKET/PREFIX with a valid bucket name expected"
            raise InputError(where, line, f"store {store!r}: {expected}")
        try:
            import boto3
            import botocore.config
            import botocore.exceptions
            from luigi.contrib.s3 import S3Client
        except ImportError:
            needed = "S3 needs boto3 (pip install 'iescore[s3]')"
            raise InputError(where, line, f"store {store}: {needed}") from None
        options = S3Client._get_s3_config()
        configured = (options.get("aws_access_key_id") and options.get("aws_secret_access_key")) or (
            options.get("aws_role_arn") and options.get("aws_role_session_name")
        )
        try:
            found = configured or boto3.Session().get_credentials() is not None
        except botocore.exceptions.BotoCoreError as error:
            raise InputError(where, line, f"store {store}: {error}") from None
        if not found:
            raise InputError(
                where,
                line,
                f"store {store}: no AWS credentials; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                "(or AWS_PROFILE, or aws_access_key_id and aws_secret_access_key under [s3] in luigi.cfg)",
            )
        # A short, separate probe: a wrong endpoint must not keep the user waiting through every retry.
        probe = botocore.config.Config(
            connect_timeout=5, read_timeout=30, retries={"max_attempts": 2, "mode": "standard"}
        )
        try:
            api = S3Client(config=probe).s3.meta.client
        except ValueError as error:  # botocore: "Invalid endpoint: ..." (AWS_ENDPOINT_URL_S3="not a url")
            raise InputError(
                where,
                line,
                f"store {store}: {error}; an http:// or https:// URL expected in AWS_ENDPOINT_URL_S3 (or "
                "AWS_ENDPOINT_URL, or endpoint_url under [s3] in luigi.cfg)",
            ) from None
        endpoint = api.meta.endpoint_url
        try:
            api.head_bucket(Bucket=self.bucket)
        except botocore.exceptions.ClientError as error:
            code = str(error.response.get("Error", {}).get("Code", ""))
            if code in ("404", "NoSuchBucket"):
                problem = f"no bucket {self.bucket!r} at {endpoint}"
            elif code in ("403", "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch"):
                problem = f"access to bucket {self.bucket!r} at {endpoint} denied: check the AWS credentials"
            else:
                problem = f"bucket {self.bucket!r} at {endpoint}: {error}"
            raise InputError(where, line, f"store {store}: {problem}") from None
        except botocore.exceptions.BotoCoreError as error:  # connection refused, unknown host, timeouts
            raise InputError(
                where,
                line,
                f"store {store}: cannot reach the S3 endpoint {endpoint} ({error}); set AWS_ENDPOINT_URL_S3 "
                "(or AWS_ENDPOINT_URL, or endpoint_url under [s3] in luigi.cfg)",
            ) from None


_S3_CLIENTS: dict[int, Any] = {}


def _footer(where: str | Path, read: Callable[[], pq.FileMetaData]) -> pq.FileMetaData:
    """A store file's Parquet footer (``read``), or bad input naming the file: a store holds only what
    iescore wrote, so a file there that is not Parquet was damaged or put there by hand."""
    try:
        return read()
    except (pa.ArrowException, OSError) as error:
        raise InputError(
            str(where), 0, f"not a readable Parquet file ({error}); remove it, its stage reruns"
        ) from None


@functools.cache
def _artifact_target_class() -> type:
    """Luigi's ``S3Target`` whose ``exists`` asks for the object alone (one HEAD request).

    ``S3Target.exists`` also counts a "directory" (a key prefix with objects under it) as existing,
    which costs three more requests for every missing artifact and can never hold for an artifact.
    """
    from luigi.contrib.s3 import S3Target

    class S3ArtifactTarget(S3Target):
        def exists(self) -> bool:
            return self.fs.get_key(self.path) is not None

    return S3ArtifactTarget


def _s3_client() -> Any:
    """This process's Luigi ``S3Client``: one per process, as Luigi's workers fork and boto3's
    connections must not be shared across a fork."""
    from luigi.contrib.s3 import S3Client

    pid = os.getpid()
    if pid not in _S3_CLIENTS:
        _S3_CLIENTS.clear()
        _S3_CLIENTS[pid] = S3Client()
    return _S3_CLIENTS[pid]


def _bucket_key(url: str) -> tuple[str, str]:
    bucket, _, key = url[len(S3_PREFIX) :].partition("/")
    return bucket, key


class _RangedObject(io.RawIOBase):
    """A read-only, seekable view of an S3 object: each read is one ranged GET."""

    def __init__(self, api: Any, bucket: str, key: str, size: int) -> None:
        super().__init__()
        self.api, self.bucket, self.key, self.size, self.position = api, bucket, key, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = max(0, base + offset)
        return self.position

    def readinto(self, buffer: Any) -> int:
        end = min(self.position + len(buffer), self.size)
        if end <= self.position:
            return 0
        span = f"bytes={self.position}-{end - 1}"
        response = self.api.get_object(Bucket=self.bucket, Key=self.key, Range=span)
        data = response["Body"].read()
        buffer[: len(data)] = data
        self.position += len(data)
        return len(data)
