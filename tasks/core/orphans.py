"""Processes a run forks end when the process that forked them is gone.

A campaign killed with SIGKILL cannot stop its children: Luigi's task processes would finish their task
and the processes writing the output directory would wait for work for good, asleep on their queue and
holding its shared memory. So each forked child watches a pipe of which only the parent keeps the
writing end: when the parent dies, the kernel closes that end, the child's read returns end of file, and
the child ends itself with SIGKILL. Anything it was writing is a temporary file, which the next run sweeps
(``tasks.core.store.sweep_temporaries``); nothing half-written looks complete.

The parent never writes into the pipe; a child reads it in a daemon thread, so the watch costs nothing
while the parent lives.
"""

from __future__ import annotations

import os
import signal
import threading


class ParentWatch:
    """Made in the parent before it forks; :meth:`watch` is called in each forked child as it starts
    (in the parent it does nothing); :meth:`close` in the parent once its children are done."""

    def __init__(self) -> None:
        self.parent = os.getpid()
        self._read, self._write = os.pipe()
        self._watching = False
        self._closed = False

    def watch(self) -> None:
        """In a forked child: end this process when the parent is gone (once per process)."""
        if os.getpid() == self.parent or self._watching:
            return
        self._watching = True
        # The child's copy of the writing end would keep the pipe open for every child: closed here, so
        # the parent's is the last.
        os.close(self._write)
        threading.Thread(target=self._wait, name="iescore-parent-watch", daemon=True).start()

    def _wait(self) -> None:
        while os.read(self._read, 1):  # the parent never writes: b"" once its end is closed
            continue
        os.kill(os.getpid(), signal.SIGKILL)

    def close(self) -> None:
        """In the parent, once the children are done: the pipe's two ends closed."""
        if os.getpid() != self.parent or self._closed:
            return
        self._closed = True
        os.close(self._read)
        os.close(self._write)
