"""The tasks side of campaign kinds (``pipeline.campaign.kinds``), one list: the stage each system of a
campaign of that kind runs, and the files each system gets in the output directory.

A family declares one :class:`~tasks.campaign.task_kind.TaskKind` in its own ``tasks/<family>/campaign.py``
and is one more line in ``TASK_KINDS`` below (its module named, imported when a campaign of that kind
runs); nothing registers itself on import.
"""

from __future__ import annotations

from iescore.pipeline.campaign.engine import Campaign
from iescore.pipeline.core.registry import Registry
from iescore.tasks.campaign.task_kind import TaskKind

#: Every kind's tasks, by the kind's name, each imported with its family's tasks when first asked for
#: (``pipeline.core.registry``).
TASK_KINDS: Registry[TaskKind] = Registry(
    "task kind",
    {
        "templette": "iescore.tasks.templette.campaign:TEMPLETTE_TASKS",
        "muc": "iescore.tasks.muc.campaign:MUC_TASKS",
        "coref": "iescore.tasks.coref.campaign:COREF_TASKS",
        "mat": "iescore.tasks.mat.campaign:MAT_TASKS",
        "senseval": "iescore.tasks.senseval.campaign:SENSEVAL_TASKS",
        "clef": "iescore.tasks.clef.campaign:CLEF_TASK_KIND",
        "clef-2": "iescore.tasks.clef.campaign:CLEF_2_TASK_KIND",
        "trec": "iescore.tasks.trec.campaign:TREC_TASKS",
        "wer": "iescore.tasks.speech.campaign:WER_TASKS",
    },
)


def register_task_kind(kind: TaskKind) -> TaskKind:
    """Add ``kind`` to ``TASK_KINDS`` (tests declare kinds of their own); two of one name are an error."""
    return TASK_KINDS.register(kind.name, kind)


def task_kind(campaign: Campaign) -> TaskKind:
    """The tasks of a campaign's kind; a kind without them is an internal error."""
    if campaign.scorer not in TASK_KINDS:
        raise RuntimeError(
            f"campaign kind {campaign.scorer!r} has no tasks in tasks.campaign.kinds.TASK_KINDS"
        )
    return TASK_KINDS[campaign.scorer]
