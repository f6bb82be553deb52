"""Input files read once per process: the digest that keys a stage and the parse that scores it share bytes.

A command digests its inputs to build its stages' keys (``digest``), then its stages parse them
(``read_bytes``); without a store both happen in one process, one after the other. ``digest(path,
keep=True)`` keeps the bytes it hashed (``KEPT_BYTES`` in all, the oldest dropped first) under the file's
device and inode with its size and mtime, and ``read_bytes`` takes them out again when the file is
unchanged, so ten thousand annotation files are opened once, not twice, and the parse sees the bytes the
digest described. A file changed in between, or dropped from the budget (a campaign digests every system
before parsing any), is read again from disk. Only a stage that parses through ``read_bytes`` asks to keep.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict

KEPT_BYTES = 256 << 20
_STREAMED_BYTES = 1 << 20  # a file not kept and larger than this is hashed in pieces

# A file's device and inode (one integer: any spelling of a path finds its file) -> its bytes, oldest
# first, and -> its size and mtime (one integer). Integers and bytes, no tuple per file: ten thousand
# kept files add nothing for the cyclic garbage collector to walk.
_kept: OrderedDict[int, bytes] = OrderedDict()
_stamps: dict[int, int] = {}
_kept_size = 0
_lock = threading.Lock()  # ``prefetch_digests`` digests from threads


def _read(handle: int, size: int) -> bytes:
    """The bytes of the open file ``handle`` of ``size`` bytes (its ``fstat``): one ``os.read`` of one
    byte more than that size, which comes back short at the end of the file; a file read short of its
    size, or grown since, is read on to its end."""
    data = os.read(handle, size + 1)
    if len(data) == size:
        return data
    chunks = [data]
    while chunks[-1]:
        chunks.append(os.read(handle, 1 << 16))
    return b"".join(chunks)


def digest(path: str, keep: bool = False) -> str:
    """sha256 of the file ``path``'s bytes; ``keep``: keep them for :func:`read_bytes` (raises OSError).
    A file is opened once and read whole by its size; one larger than ``KEPT_BYTES`` (or than
    ``_STREAMED_BYTES`` when not kept) is hashed as it is read and never kept."""
    global _kept_size
    handle = os.open(path, os.O_RDONLY)
    try:
        status = os.fstat(handle)
        if status.st_size > (KEPT_BYTES if keep else _STREAMED_BYTES):
            with open(handle, "rb", closefd=False) as stream:
                return hashlib.file_digest(stream, "sha256").hexdigest()
        data = _read(handle, status.st_size)
    finally:
        os.close(handle)
    if keep and len(data) == status.st_size:
        key = _file_key(status)
        with _lock:
            old = _kept.pop(key, None)
            _kept_size -= len(old) if old is not None else 0
            _kept[key] = data
            _stamps[key] = _stamp(status)
            _kept_size += len(data)
            while _kept_size > KEPT_BYTES:
                oldest, dropped = _kept.popitem(last=False)
                del _stamps[oldest]
                _kept_size -= len(dropped)
    return hashlib.sha256(data).hexdigest()


def read_bytes(path: str) -> bytes:
    """The bytes of the file ``path``: those :func:`digest` kept when the file is unchanged since (taken
    out: each is parsed once), else read now (raises OSError)."""
    global _kept_size
    status = os.stat(path)
    key = _file_key(status)
    with _lock:
        kept = _kept.pop(key, None)
        stamp = _stamps.pop(key, None)
        _kept_size -= len(kept) if kept is not None else 0
    if kept is not None and stamp == _stamp(status):
        return kept
    handle = os.open(path, os.O_RDONLY)
    try:
        return _read(handle, os.fstat(handle).st_size)
    finally:
        os.close(handle)


def _file_key(status: os.stat_result) -> int:
    """A file's device and inode as one integer."""
    return status.st_dev << 64 | status.st_ino


def _stamp(status: os.stat_result) -> int:
    """A file's mtime and size as one integer: another value, another version of the file."""
    return status.st_mtime_ns << 64 | status.st_size
