"""What a run would do, and why: the pending tasks of a graph in dependency order.

A task is pending when its artifacts are absent. Its reason is either an input that is itself pending
("after ..."), or, for the first pending task of a chain, what differs from the artifacts this stage
already has in the store: a file that changed under the same path, the stage's VERSION, an option,
or nothing comparable at all (built for the first time). Used by ``iescore campaign --dry-run`` and to
size the progress bar.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tasks import store as artifacts
from tasks.base import Stage


@dataclass(frozen=True)
class Pending:
    """A task that would run: its stage, key, which systems it serves, and why it runs."""

    task: Stage
    label: str
    reason: str

    @property
    def stage(self) -> str:
        return self.task.STAGE


def pending_tasks(roots: Mapping[str, Stage], explain: bool = True) -> tuple[list[Pending], int]:
    """The pending tasks under ``roots`` (label -> root task), dependencies first, and the task count.

    A task reached from several roots is labelled with all of them (or "shared by N" past three).
    """
    order: list[Stage] = []
    labels: dict[str, list[str]] = {}
    seen: dict[str, Stage] = {}
    for label, root in roots.items():
        stack: list[tuple[Stage, bool]] = [(root, False)]
        visited_here: set[str] = set()
        while stack:
            task, expanded = stack.pop()
            if expanded:
                if task.task_id not in seen:
                    seen[task.task_id] = task
                    order.append(task)
                continue
            if task.task_id in visited_here:
                continue
            visited_here.add(task.task_id)
            labels.setdefault(task.task_id, []).append(label)
            stack.append((task, True))
            if task.task_id not in seen:
                stack.extend((sub, False) for sub in reversed(list(task.requires().values())))
    pending_ids: set[str] = set()
    result = []
    previous = _Previous()
    for task in order:
        if task.complete():
            continue
        pending_ids.add(task.task_id)
        upstream = [
            (role, sub) for role, sub in sorted(task.requires().items()) if sub.task_id in pending_ids
        ]
        if upstream:
            role, sub = upstream[0]
            reason = f"after {sub.STAGE} {sub.key[:12]} ({role})"
        else:
            reason = previous.reason(task) if explain else ""
        result.append(Pending(task, _label(labels[task.task_id]), reason))
    return result, len(order)


def _label(names: list[str]) -> str:
    return ", ".join(names) if len(names) <= 3 else f"shared by {len(names)}"


class _Previous:
    """The provenance of a stage's existing artifacts, read once per stage when first needed."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], list[dict[str, Any]]] = {}

    def reason(self, task: Stage) -> str:
        # As written into the artifact (tuples become lists), so old and new compare like for like.
        provenance = json.loads(json.dumps(artifacts.plain(task.provenance()), sort_keys=True, default=str))
        best: tuple[int, str] | None = None
        for old in self._of(task):
            differences = _differences(old, provenance)
            if differences and (best is None or len(differences) < best[0]):
                best = (len(differences), "; ".join(differences))
        return best[1] if best else "not built before"

    def _of(self, task: Stage) -> list[dict[str, Any]]:
        key = (str(task.store), task.STAGE)
        if key not in self._cache:
            # Unreadable artifacts are skipped: not comparable, never fatal for a dry run.
            self._cache[key] = artifacts.stage_provenances(task.store, task.STAGE)
        return self._cache[key]


def _differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What separates an old artifact's provenance from a pending task's, if it is the same slot.

    Comparable means: the same raw files by path, and the same inputs except where a file changed.
    Returns [] for an artifact of some other chain.
    """
    old_files, new_files = old.get("files", {}), new.get("files", {})
    if old_files != new_files:
        return []
    old_inputs, new_inputs = old.get("inputs", {}), new.get("inputs", {})
    if set(old_inputs) != set(new_inputs):
        return []
    changed_files = [
        f"file changed: {role} {new_files[role]}"
        for role in sorted(new_files)
        if old_inputs.get(role) != new_inputs.get(role)
    ]
    other_inputs = [r for r in new_inputs if r not in new_files and old_inputs[r] != new_inputs[r]]
    if other_inputs:
        return []  # another chain's artifact (its upstream differs though nothing of ours is pending)
    differences = list(changed_files)
    if old.get("version") != new.get("version"):
        differences.append(f"{new.get('stage')} VERSION {old.get('version')} -> {new.get('version')}")
    old_options, new_options = old.get("options", {}), new.get("options", {})
    keys = old_options.keys() | new_options.keys()
    changed = sorted(k for k in keys if old_options.get(k) != new_options.get(k))
    if changed:
        differences.append("options changed: " + ", ".join(changed))
    return differences
