"""What a run would do, and why: the pending tasks of a graph in dependency order.

A task is pending when its artifacts are absent and it is a root or a pending task needs it (what Luigi
runs). Its reason is either an input that is itself pending
("after ..."), or, for the first pending task of a chain, what differs from the artifacts this stage
already has in the store: a file that changed under the same path, the stage's VERSION, an option,
or nothing comparable at all (built for the first time). Used by ``iescore campaign --dry-run`` and to
size the progress bar.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iescore.tasks.core import files
from iescore.tasks.core import store as artifacts
from iescore.tasks.core.base import Stage, file_spec


@dataclass(frozen=True)
class Pending:
    """A task that would run: its stage, key, which systems it serves, and why it runs."""

    task: Stage
    label: str
    reason: str

    @property
    def stage(self) -> str:
        return self.task.STAGE


def pending_tasks(
    roots: Mapping[str, Stage], explain: bool = True, reference: Collection[Path] = (), whole: bool = True
) -> tuple[list[Pending], int]:
    """The pending tasks under ``roots`` (label -> root task), dependencies first, and the task count
    (of the whole graph when ``whole``, else of the tasks looked at).

    As Luigi does, the inputs of a task that is complete are not looked at: such a task is not run, and
    nothing is run for it, whatever its inputs' state (a rerun after one system changed looks at that
    system's chain and the reports of the others, not at their chains).

    Each task is labelled by the roots that need it: several names, or "shared by N" past three. A
    task built from the ``reference`` files alone (the reference's templates and texts, the GLM) is
    "reference (shared by N)", N the roots using it, whatever their names. A root that holds other
    roots (the campaign summary holds every system's report) labels only what no other root needs.
    """
    complete: dict[str, bool] = {}
    order, children = _walk(roots, complete)
    closures = {label: _closure(root.task_id, children) for label, root in roots.items()}
    root_ids = {root.task_id for root in roots.values()}
    holders = [label for label in roots if len(closures[label] & root_ids) > 1]
    users: dict[str, list[str]] = {}
    for label in [label for label in roots if label not in holders] + holders:
        for task_id in closures[label]:
            if label not in holders or task_id not in users:
                users.setdefault(task_id, []).append(label)
    files = _files(order, children)
    shared_files = {file_spec(path)["sha256"] for path in reference}
    pending_ids: set[str] = set()
    result = []
    previous = _Previous()
    for task in order:
        if complete[task.task_id]:
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
        own = files[task.task_id]
        label = _label(users[task.task_id], bool(own) and own <= shared_files)
        result.append(Pending(task, label, reason))
    return result, len(_walk(roots)[0]) if whole else len(order)


def _walk(
    roots: Mapping[str, Stage], complete: dict[str, bool] | None = None
) -> tuple[list[Stage], dict[str, list[str]]]:
    """Every task under ``roots`` once, dependencies first, and each task's inputs (by task id). With
    ``complete`` (filled in: task id -> complete), the inputs of a complete task are not walked."""
    order: list[Stage] = []
    children: dict[str, list[str]] = {}
    for root in roots.values():
        stack: list[tuple[Stage, bool]] = [(root, False)]
        while stack:
            task, expanded = stack.pop()
            if expanded:
                order.append(task)
            elif task.task_id not in children:
                if complete is not None:
                    complete[task.task_id] = task.complete()
                    if complete[task.task_id]:
                        children[task.task_id] = []
                        order.append(task)
                        continue
                inputs = list(task.requires().values())
                children[task.task_id] = [sub.task_id for sub in inputs]
                stack.append((task, True))
                stack.extend((sub, False) for sub in reversed(inputs))
    return order, children


def _closure(task_id: str, children: Mapping[str, list[str]]) -> set[str]:
    """The task and everything it needs."""
    reached, stack = {task_id}, [task_id]
    while stack:
        for sub in children[stack.pop()]:
            if sub not in reached:
                reached.add(sub)
                stack.append(sub)
    return reached


def _files(order: list[Stage], children: Mapping[str, list[str]]) -> dict[str, frozenset[str]]:
    """The digests of the raw files each task is built from, its inputs' included."""
    files: dict[str, frozenset[str]] = {}
    for task in order:  # dependencies first
        own = {sub["sha256"] for sub in task.spec.get("inputs", {}).values() if "file" in sub}
        files[task.task_id] = frozenset(own).union(*(files[sub] for sub in children[task.task_id]))
    return files


def _label(names: list[str], reference: bool) -> str:
    if reference:
        return f"reference (shared by {len(names)})" if len(names) > 1 else f"reference (for {names[0]})"
    return ", ".join(names) if len(names) <= 3 else f"shared by {len(names)}"


class _Previous:
    """The provenance of a stage's existing artifacts, read once per stage when first needed."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], list[dict[str, Any]]] = {}

    def reason(self, task: Stage) -> str:
        # As written into the artifact (tuples become lists), so old and new compare like for like.
        provenance = json.loads(json.dumps(files.plain(task.provenance()), sort_keys=True, default=str))
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
