"""Running a command's stages: in its own process without a store, or by Luigi into one.

``compute(spec)`` walks a stage spec's graph depth first and calls each stage's ``produce`` once (a stage
several others need is computed once), handing its tables to the stages that need them in memory: no
Luigi, no scheduling, no Parquet written. With a store, ``tasks.core.task`` runs the same stages under
Luigi and keeps their artifacts. ``Artifacts`` gives a command the tables of any stage of its graph,
whichever way they were made, so a command reads its results the same way in both modes and cannot
print different numbers.

This module imports Luigi only when a store is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from iescore.tasks.core.base import KeyMemo, input_key, produce, stage_class

if TYPE_CHECKING:
    import pyarrow as pa


def compute(
    spec: Mapping[str, Any],
    done: dict[str, dict[str, pa.Table]] | None = None,
    keys: KeyMemo | None = None,
) -> dict[str, pa.Table]:
    """The artifacts of the stage ``spec``, computed in this process: each upstream stage first, each
    once (``done``: key -> artifacts of the stages computed so far, shared between calls; ``keys``: the
    keys of the specs seen so far, so that each stage is keyed once however deep the graph: a MAT
    stage's spec names 20,000 files)."""
    done = {} if done is None else done
    keys = {} if keys is None else keys
    key = input_key(spec, keys)
    if key not in done:
        inputs = {
            role: compute(sub, done, keys) for role, sub in spec.get("inputs", {}).items() if "stage" in sub
        }

        def input_tables(role: str, name: str | None, columns: list[str] | None) -> pa.Table | None:
            tables = inputs.get(role)
            if tables is None:
                return None
            table = tables[name or next(iter(tables))]
            return table.select(columns) if columns is not None else table

        done[key] = produce(stage_class(spec)(key, spec, "", input_tables))
    return done[key]


class Artifacts:
    """The artifacts of a command's stages, by spec: computed in this process (``store`` None) or read
    from the store the Luigi run wrote them into. Each is made or read once."""

    def __init__(self, store: str | None = None) -> None:
        self.store = store
        self._computed: dict[str, dict[str, pa.Table]] = {}
        self._read: dict[tuple[str, str], pa.Table] = {}
        self._keys: KeyMemo = {}

    def compute(self, spec: Mapping[str, Any]) -> None:
        """Compute the stage ``spec`` (and what it needs) now, in this process (no store)."""
        compute(spec, self._computed, self._keys)

    def table(self, spec: Mapping[str, Any], name: str) -> pa.Table:
        """The artifact ``name`` of the stage ``spec``."""
        if self.store is None:
            return compute(spec, self._computed, self._keys)[name]
        key = (input_key(spec, self._keys), name)
        if key not in self._read:
            from iescore.tasks.core.base import task_for
            from iescore.tasks.core.store import read_table

            self._read[key] = read_table(task_for(spec, self.store).output()[name])
        return self._read[key]
