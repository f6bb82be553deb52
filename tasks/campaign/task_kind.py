"""What a family's tasks side declares for its campaign kind (``pipeline.core.kinds.CampaignKind``).

``system_spec(campaign, system)`` returns the stage spec (``tasks.core.base.stage_spec``) of one system:
its stage must have an output named ``statistics``, the family's ``schemas.STATISTICS`` table for that
system, with the system's score signature in the table's schema metadata under
``pipeline.core.signature.SIGNATURE_KEY``. Shared reference stages are shared by giving every system the
same spec for them (the store keeps one).

``write_system_files(folder, task)`` (optional) writes that system's own files (a report as the family's
command prints it, its JSON...) into ``folder`` from the finished task's artifacts; ``system_files`` names
them, so they are checked writable before any work. With ``statistics_file``, every system also gets its
statistics as ``statistics.csv``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iescore.pipeline.campaign.engine import Campaign, System
from iescore.tasks.core.base import Stage


@dataclass(frozen=True)
class TaskKind:
    """A campaign kind's tasks (see the module doc)."""

    name: str
    #: The STAGE of the task ``system_spec`` builds.
    stage: str
    system_spec: Callable[[Campaign, System], dict[str, Any]]
    system_files: tuple[str, ...] = ()
    write_system_files: Callable[[Path, Stage], None] | None = None
    statistics_file: bool = True
