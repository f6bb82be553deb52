"""The tasks side of campaign kinds (``pipeline.campaign.kinds``), one list: the stage each system of a
campaign of that kind runs, and the files each system gets in the output directory.

A family declares one :class:`~tasks.campaign.task_kind.TaskKind` in its own ``tasks/<family>/campaign.py``
and is one more line in ``TASK_KINDS`` below; nothing registers itself on import.
"""

from __future__ import annotations

from iescore.pipeline.campaign.engine import Campaign
from iescore.tasks.campaign.task_kind import TaskKind
from iescore.tasks.clef.campaign import CLEF_2_TASK_KIND, CLEF_TASK_KIND
from iescore.tasks.coref.campaign import COREF_TASKS
from iescore.tasks.mat.campaign import MAT_TASKS
from iescore.tasks.muc.campaign import MUC_TASKS
from iescore.tasks.senseval.campaign import SENSEVAL_TASKS
from iescore.tasks.speech.campaign import WER_TASKS
from iescore.tasks.templette.campaign import TEMPLETTE_TASKS
from iescore.tasks.trec.campaign import TREC_TASKS

#: Every kind's tasks, by the kind's name.
TASK_KINDS: dict[str, TaskKind] = {
    kind.name: kind
    for kind in (
        TEMPLETTE_TASKS,
        MUC_TASKS,
        COREF_TASKS,
        MAT_TASKS,
        SENSEVAL_TASKS,
        CLEF_TASK_KIND,
        CLEF_2_TASK_KIND,
        TREC_TASKS,
        WER_TASKS,
    )
}


def register_task_kind(kind: TaskKind) -> TaskKind:
    """Add ``kind`` to ``TASK_KINDS`` (tests declare kinds of their own); two of one name are an error."""
    if kind.name in TASK_KINDS and TASK_KINDS[kind.name] is not kind:
        raise ValueError(f"task kind {kind.name!r} is registered twice")
    TASK_KINDS[kind.name] = kind
    return kind


def task_kind(campaign: Campaign) -> TaskKind:
    """The tasks of a campaign's kind; a kind without them is an internal error."""
    if campaign.scorer not in TASK_KINDS:
        raise RuntimeError(
            f"campaign kind {campaign.scorer!r} has no tasks in tasks.campaign.kinds.TASK_KINDS"
        )
    return TASK_KINDS[campaign.scorer]
