"""What every command of the command line shares: exit statuses, defaults, running stages.

Exit status: 0 scored, 2 bad input (``file:line: what was expected`` on stderr), 1 internal error.

A command runs its stages one way (``run_stages``): in its own process without ``--store``, by Luigi
into the store with it; it then reads what it prints from the returned ``Artifacts``. Luigi is imported
only when a store is used.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from iescore.tasks.core.compute import Artifacts

if TYPE_CHECKING:
    from iescore.pipeline.speech.glm import GlobalMap
    from iescore.tasks.core import runner
    from iescore.tasks.core.progress import Progress

EXIT_OK, EXIT_INTERNAL, EXIT_INPUT = 0, 1, 2
DEFAULT_STORE = "iescore-store"
SCHEDULER_PORT = 8082  # luigid's default
WORKERS_HELP = "Luigi workers: tasks run in parallel (1 or more)"
STORE_WORKERS_HELP = "with --store: Luigi workers, tasks run in parallel (1 or more)"
STORE_HELP = (
    "run the stages with Luigi and keep their artifacts in this store (a directory or s3://BUCKET/PREFIX); "
    "without it the command computes its stages in its own process and writes no artifacts"
)


def check_store_option(
    store: str | None, option: str = "--store", inputs: Sequence[tuple[str, str | None]] = ()
) -> None:
    """A store given on the command line, checked before any work: a directory we can create or write
    into, outside the command's input directories (``inputs``: option and directory), or a reachable S3
    bucket (``tasks.core.store.check_store``); nothing when there is none."""
    if store is None:
        return
    from iescore.tasks.core.arguments import INPUT_DIRECTORY, OUTPUT_DIRECTORY, check_paths
    from iescore.tasks.core.store import check_store, is_s3

    check_store(store, option)
    if not is_s3(store):
        check_paths(
            [*((name, path, INPUT_DIRECTORY) for name, path in inputs), (option, store, OUTPUT_DIRECTORY)]
        )


def run_stages(
    specs: Sequence[Mapping[str, Any]], store: str | None, workers: int = 1
) -> tuple[int, Artifacts]:
    """The stages of ``specs`` (and all they need) made: computed in this process when ``store`` is
    None, else run by Luigi with their artifacts kept in ``store``. The exit status (bad input and
    internal errors printed on stderr by a Luigi run; raised by a computation here) and the artifacts."""
    artifacts = Artifacts(store)
    if store is None:
        for spec in specs:
            artifacts.compute(spec)
        return EXIT_OK, artifacts
    from iescore.tasks.core.base import task_for

    return run_tasks([task_for(spec, store) for spec in specs], workers), artifacts


def run_tasks(tasks: list, workers: int, host: str | None = None, port: int | None = None) -> int:
    """Run ``tasks``; the exit status (input errors and internal errors printed on stderr)."""
    return run_outcome(tasks, workers, host, port)[0]


def run_outcome(
    tasks: list,
    workers: int,
    host: str | None = None,
    port: int | None = None,
    progress: Progress | None = None,
    pending: list | None = None,
    chain: bool | None = None,
) -> tuple[int, runner.Outcome]:
    """Run ``tasks`` with a progress display; the exit status and what ran, was reused or ran elsewhere.
    ``pending``: the tasks the run will do, dependencies first, when found already; ``chain``, whether
    they are one chain (``runner.one_chain``), when found already."""
    from iescore.tasks.core import runner
    from iescore.tasks.core.progress import announce_stores, new_stores

    created = new_stores(tasks)
    outcome = runner.run(
        tasks,
        workers=workers,
        scheduler_host=host,
        scheduler_port=port,
        progress=progress,
        pending=pending,
        chain=chain,
    )
    for message in dict.fromkeys(outcome.input_errors):  # two tasks reading one bad file: one line
        print(f"iescore: {message}", file=sys.stderr)
    for message in outcome.errors:
        print(f"iescore: internal error:\n{message}", file=sys.stderr)
    if outcome.errors:
        return EXIT_INTERNAL, outcome
    if outcome.input_errors:
        return EXIT_INPUT, outcome
    announce_stores(created)
    return EXIT_OK, outcome


def warn_malformed_rules(glm: GlobalMap | str | None, encoding: str = "utf-8") -> None:
    """Say on stderr which rules of a GLM (a parsed one or a file) are malformed, before any work."""
    from iescore.pipeline.speech.glm import malformed_rule_warnings, read_glm

    if glm is None:
        return
    parsed = read_glm(glm, encoding) if isinstance(glm, str) else glm
    for warning in malformed_rule_warnings(parsed):
        print(f"iescore: {warning}", file=sys.stderr)


def c_atoi(text: str) -> int:
    """C's ``atoi``, as sclite and sc_stats read their numeric options: the leading integer after
    blanks (a sign allowed), 0 when there is none."""
    digits = ""
    for index, char in enumerate(text.lstrip()):
        if char.isdigit() or (index == 0 and char in "+-"):
            digits += char
        else:
            break
    try:
        return int(digits)
    except ValueError:
        return 0
