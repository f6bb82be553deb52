"""A run killed with SIGKILL leaves no process behind (``tasks.core.orphans``): Luigi's forked task
processes and the processes writing a campaign's output directory end when their parent is gone.

Each test starts a Python process that forks two children busy for ten minutes, kills that process with
SIGKILL once both children exist, and waits (at most ``GONE_WITHIN`` seconds, polling) for the children
to be gone. Before the watch, the output writers stayed asleep on their queue for good and Luigi's task
processes ran their task to its end.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GONE_WITHIN = 30.0  # seconds: a bound on the wait, not a timing under test

# Three jobs of the campaign's output writers (``run_jobs``: more jobs than workers, so two processes),
# each asleep for ten minutes.
OUTPUT_WRITERS = """
    import functools, time
    from iescore.tasks.campaign.outputs import run_jobs
    run_jobs([functools.partial(time.sleep, 600) for _ in range(3)], 2)
"""

# Two independent Luigi stages run by two workers, each asleep for ten minutes in its forked process.
LUIGI_TASKS = """
    import sys, time
    import pyarrow as pa
    from pathlib import Path
    from iescore.tasks.core import runner
    from iescore.tasks.core.base import Stage, file_spec, stage_spec, task_for

    class Sleep(Stage):
        STAGE = "SleepForOrphanTest"
        VERSION = 1
        OUTPUTS = ("done",)

        def produce(self):
            time.sleep(600)
            return {"done": pa.table({"x": [1]})}

    folder = Path(sys.argv[1])
    tasks = []
    for name in ("a", "b"):
        (folder / name).write_text(name)
        spec = stage_spec("SleepForOrphanTest", {}, {"text": file_spec(folder / name)})
        tasks.append(task_for(spec, str(folder / "store")))
    runner.run(tasks, workers=2)
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="children are found through /proc")
@pytest.mark.parametrize("script", [OUTPUT_WRITERS, LUIGI_TASKS], ids=["output-writers", "luigi-tasks"])
def test_killing_the_parent_leaves_no_child(tmp_path: Path, script: str) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        children = _wait_for(lambda: _children(parent.pid) if len(_children(parent.pid)) >= 2 else None)
        assert children, "the script never forked its two children"
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    left = _wait_for(lambda: None if any(_alive(pid) for pid in children) else True)
    stranded = [pid for pid in children if _alive(pid)]
    for pid in stranded:  # never leave them behind, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert left and not stranded, f"children {stranded} outlived their killed parent"


def _wait_for(probe, limit: float = GONE_WITHIN):  # noqa: ANN001, ANN202 - a test helper
    """``probe()`` once it is truthy, polled until ``limit`` seconds have passed (then None)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.1)
    return None


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """Running (a zombie, dead and waiting for its new parent to reap it, is gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
