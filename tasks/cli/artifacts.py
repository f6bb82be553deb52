"""``iescore artifacts``: list what a store holds, with keys and provenance."""

from __future__ import annotations

import argparse

from iescore.tasks.cli.common import (
    EXIT_OK,
)
from iescore.tasks.core.arguments import (
    INPUT_DIRECTORY,
    check_paths,
)
from iescore.tasks.core.store import check_store, is_s3, list_artifacts


def artifacts(args: argparse.Namespace) -> int:
    """List a store's artifacts with their stage, key, rows and inputs."""
    check_store(args.store, "store")
    if not is_s3(args.store):
        check_paths([("STORE", args.store, INPUT_DIRECTORY)])
    for entry in list_artifacts(args.store):
        inputs = ", ".join(f"{role}={key[:12]}" for role, key in sorted(entry.get("inputs", {}).items()))
        print(f"{entry.get('stage', '?'):20} {entry.get('key', '?')[:16]} rows={entry['rows']:<7} {inputs}")
        print(f"{'':20} {entry['path']}")
    return EXIT_OK


def add_artifacts_command(commands: argparse._SubParsersAction) -> None:
    a = commands.add_parser("artifacts", help="list the artifacts of a store")
    a.add_argument("store", help="artifact store: a directory or s3://BUCKET/PREFIX")
    a.set_defaults(handler=artifacts)
