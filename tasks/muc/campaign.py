"""The tasks side of ``scorer = "muc"`` campaigns (``pipeline.muc.campaign``): each system is the MUC
scorer's chain (``tasks.muc.stages.muc_spec``) with its response in place of the configuration's
:response_file (its Report's ``statistics`` are what the summary reads), the key's side one chain shared
by every system; its files are a templette system's."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from iescore.pipeline.campaign.engine import Campaign, System
from iescore.pipeline.muc.campaign import CONFIG_OPTION
from iescore.tasks.campaign.task_kind import TaskKind
from iescore.tasks.muc.stages import muc_spec
from iescore.tasks.templette.campaign import SYSTEM_FILES, write_system_tables


def muc_system_spec(campaign: Campaign, system: System) -> dict[str, Any]:
    """One system's Report: the MUC scorer's chain with its response."""
    config = campaign.options[CONFIG_OPTION]
    settings = {"resamples": int(campaign.options["resamples"]), "seed": int(campaign.options["seed"])}
    return muc_spec(
        replace(config, response_file=system.templates),
        campaign.reference_templates,
        campaign.options["encoding"],
        settings,
    )


MUC_TASKS = TaskKind(
    "muc", "Report", muc_system_spec, SYSTEM_FILES, write_system_tables, statistics_file=False
)
