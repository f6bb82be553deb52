"""The campaign page of 1,000 systems in headless Chromium: time to its load event and to scroll to its end.

    python benchmarks/bench_page.py [--systems 1000] [--rounds 3] [--page PAGE.html]

Generates a campaign of ``--systems`` systems the way ``bench_scale`` does (templette, 20 documents,
1,000 resamples), runs ``iescore campaign`` once to make its page, then opens the page in headless
Chromium (``/usr/bin/chromium`` or ``IESCORE_CHROMIUM``) driven through the DevTools protocol over a pipe
(``--remote-debugging-pipe``: messages are JSON, each ended by a NUL byte, read on the browser's file
descriptor 3 and written on its 4), with nothing but the standard library. Each round starts a fresh
browser and measures:

- *load*: from ``Page.navigate`` to the ``Page.loadEventFired`` event;
- *jump*: the leaderboard's own scroller, then the page, taken to their ends at once (the End key), each
  given two animation frames to be drawn;
- *scroll*: both scrolled through to their ends, one viewport per animation frame (each frame laid out
  and painted before the next scroll): as many frames as they are viewports tall.

Target (issue: campaigns at shared-task scale): the page of 1,000 systems under 5 MB, opened and
scrolled (load and jump) in under 2 s. The figures are wall times on the machine as it is: a frame of a
trivial page takes tens of milliseconds on a loaded machine, and the scroll takes one frame per
viewport, so compare runs at a like load (printed). ``--quick``: 40 systems, one round. ``--page``:
measure a page already made.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_campaign  # noqa: E402
import bench_scale  # noqa: E402
from timing import Row, Target, load_average  # noqa: E402

SYSTEMS, QUICK_SYSTEMS = 1000, 40
#: Seconds to wait for any message from the browser before giving up.
TIMEOUT = 300
BROWSERS = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")

#: Scrolls the board's scroller, then the page, to the end, a viewport per frame (``STEP``) or at once
#: (``JUMP``: the End key, or the scroll bar's thumb dragged down), each jump given two frames to be
#: drawn; resolves to the frames taken, then puts both back at the top.
SCROLL = """
(async () => {
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  let frames = 0;
  for (const box of [document.querySelector("#leaderboard .rows"), document.scrollingElement]) {
    if (!box) continue;
    let last = -1;
    while (box.scrollTop !== last) {
      last = box.scrollTop;
      box.scrollTop = STEP ? box.scrollTop + box.clientHeight : box.scrollHeight;
      await frame();
      frames++;
      if (!STEP) {
        await frame();
        frames++;
        break;
      }
    }
  }
  for (const box of [document.querySelector("#leaderboard .rows"), document.scrollingElement]) {
    if (box) box.scrollTop = 0;
  }
  await frame();
  return frames;
})()
"""


class Browser:
    """A headless Chromium driven through the DevTools protocol on a pipe (one page, one session)."""

    def __init__(self, executable: str, profile: Path) -> None:
        to_browser, self._writer = os.pipe()
        self._reader, from_browser = os.pipe()
        arguments = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--window-size=1280,900",
            f"--user-data-dir={profile}",
            "--remote-debugging-pipe",
            "about:blank",
        ]
        # The browser reads commands on its descriptor 3 and writes answers on its 4.
        self._process = subprocess.Popen(
            ["sh", "-c", f'exec "$0" "$@" 3<&{to_browser} 4>&{from_browser}', executable, *arguments],
            pass_fds=(to_browser, from_browser),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session=True)

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one command and return its result (events that come meanwhile are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._writer, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._receive()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
            self._events.append(answer)

    def wait_for(self, event: str) -> None:
        """Until the page's session has sent ``event``."""
        while True:
            for index, message in enumerate(self._events):
                if message.get("method") == event and message.get("sessionId") == self._session:
                    del self._events[: index + 1]
                    return
            self._events.append(self._receive())

    def evaluate(self, expression: str) -> Any:
        """The value of ``expression`` in the page (a promise is awaited)."""
        result = self.call(
            "Runtime.evaluate", session=True, expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError):  # already gone
            self.call("Browser.close")
        os.close(self._writer)
        os.close(self._reader)
        try:
            self._process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def _receive(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if not select.select([self._reader], [], [], TIMEOUT)[0]:
                raise RuntimeError(f"the browser said nothing for {TIMEOUT} s")
            chunk = os.read(self._reader, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)


def find_browser() -> str | None:
    """The browser to drive: ``IESCORE_CHROMIUM``, else the first of ``BROWSERS`` found."""
    for candidate in (os.environ.get("IESCORE_CHROMIUM"), *BROWSERS):
        found = candidate and shutil.which(candidate)
        if found:
            return found
    return None


def open_and_scroll(executable: str, page: Path) -> dict[str, float]:
    """One fresh browser: seconds to the load event, to jump to the ends of the board and the page
    (``jump``), and to scroll through them a viewport a frame (``scroll``, over ``frames`` frames)."""
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(executable, Path(profile))
        try:
            start = time.perf_counter()
            browser.call("Page.navigate", session=True, url=page.resolve().as_uri())
            browser.wait_for("Page.loadEventFired")
            load = time.perf_counter() - start
            rows = browser.evaluate('document.querySelectorAll("#leaderboard tbody tr").length')
            start = time.perf_counter()
            browser.evaluate(SCROLL.replace("STEP", "false"))
            jump = time.perf_counter() - start
            start = time.perf_counter()
            frames = browser.evaluate(SCROLL.replace("STEP", "true"))
            scroll = time.perf_counter() - start
        finally:
            browser.close()
    return {"load": load, "jump": jump, "scroll": scroll, "frames": frames, "rows": rows}


def make_page(directory: Path, systems: int) -> Path:
    """The page of a generated templette campaign of ``systems`` systems (``bench_scale.generate``)."""
    campaign, _ = bench_scale.generate("templette", directory, systems)
    bench_campaign.run_campaign("page", campaign, 2, "--out", str(directory / "out"))
    return directory / "out" / "report.html"


def measure(page: Path, executable: str, rounds: int) -> list[dict[str, float]]:
    return [open_and_scroll(executable, page) for _ in range(rounds)]


def run(quick: bool, rounds: int) -> list[Row]:
    """The page of 1,000 systems (``quick``: 40) opened and scrolled ``rounds`` times.

    ``$IESCORE_BENCH_PAGE`` names a page of 1,000 systems made beforehand (``make_page``, minutes of
    campaign on 2 cores) to measure instead: the browser's part can then be timed in a short quiet
    window. Its rows say so.
    """
    systems = QUICK_SYSTEMS if quick else SYSTEMS
    executable = find_browser()
    if executable is None:
        return [Row(f"campaign page, {systems:,} systems, opened and scrolled", note="no Chromium found")]
    made = os.environ.get("IESCORE_BENCH_PAGE") if not quick else None
    before = load_average()
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(made) if made else make_page(Path(tmp), systems)
        size = page.stat().st_size / 2**20
        runs = measure(page, executable, rounds)
    after = load_average()
    rows = rows_of(systems, size, runs, before, after)
    if made:
        for row in rows:
            row.note = f"{row.note}; page made beforehand ($IESCORE_BENCH_PAGE)".lstrip("; ")
    return rows


def rows_of(systems: int, size: float, runs: list[dict[str, float]], before: str, after: str) -> list[Row]:
    """Three rows: the page opened and taken to its end (load and jump, seconds, median of the rounds,
    against 2 s), opened and scrolled through a viewport a frame (no target: it counts frames, as many as
    the board and the page are viewports tall), and its size (against 5 MB)."""
    opened = [r["load"] + r["jump"] for r in runs]
    through = [r["load"] + r["scroll"] for r in runs]
    load, jump = statistics.median(r["load"] for r in runs), statistics.median(r["jump"] for r in runs)
    scroll = statistics.median(r["scroll"] for r in runs)
    frames = runs[0]["frames"]
    seconds, megabytes = Target(2.0, at_most=True, of="seconds"), Target(1.0, at_most=True)
    ratio = size * 2**20 / 5e6
    work = f"campaign page, {systems:,} systems, headless Chromium"
    return [
        Row(f"{work}: opened, board and page taken to their ends", iescore_s=statistics.median(opened),
            target=str(seconds), met=seconds.met(statistics.median(opened)), runs=len(runs),
            load_before=before, load_after=after,
            note=f"load event {load:.2f} s, then the board and the page at their ends {jump:.2f} s "
            f"(medians; sums {min(opened):.2f}-{max(opened):.2f} s); {runs[0]['rows']} board rows in the "
            "document"),
        Row(f"{work}: opened, board and page scrolled through a viewport a frame",
            iescore_s=statistics.median(through), runs=len(runs), load_before=before, load_after=after,
            note=f"scroll {scroll:.2f} s over {frames} frames, "
            f"{1000 * scroll / max(frames, 1):.0f} ms a frame (medians; sums "
            f"{min(through):.2f}-{max(through):.2f} s)"),
        Row(f"{work}: size", peer="5 MB", ratio=ratio, ratio_min=ratio, ratio_max=ratio,
            ratio_is="page / 5 MB", target=str(megabytes), met=megabytes.met(ratio), runs=1,
            load_before=before, load_after=after, note=f"{size:.2f} MiB"),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--systems", type=int, default=SYSTEMS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--page", type=Path, help="measure this page instead of generating one")
    args = parser.parse_args()
    executable = find_browser()
    if executable is None:
        sys.exit("no Chromium found (set IESCORE_CHROMIUM)")
    with tempfile.TemporaryDirectory() as tmp:
        page = args.page or make_page(Path(tmp), args.systems)
        print(f"page {page.stat().st_size / 2**20:.2f} MiB")
        for result in measure(page, executable, args.rounds):
            print(", ".join(f"{key} {value:.2f}" for key, value in result.items()))


if __name__ == "__main__":
    main()
