"""SENSEVAL word-sense scoring (seed 003): scorer2's fine, coarse and mixed-grained scores of
probabilistic answers against a key and a sense hierarchy, its filters, and the seed's coverage and
conjunctive policies.

What other wings may use: the family's declaration, its campaign kind and its statistics table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from iescore.pipeline.senseval.campaign import SENSEVAL_CAMPAIGN
    from iescore.pipeline.senseval.family import SENSEVAL, senseval_statistics

__all__ = ["SENSEVAL", "SENSEVAL_CAMPAIGN", "senseval_statistics"]


def __getattr__(name: str) -> Any:
    # Imported when first asked for: the family contract brings pandas, which ``iescore senseval``
    # (the readers and the rules) does without, and starts faster for it.
    if name == "SENSEVAL_CAMPAIGN":
        from iescore.pipeline.senseval.campaign import SENSEVAL_CAMPAIGN

        return SENSEVAL_CAMPAIGN
    if name in ("SENSEVAL", "senseval_statistics"):
        from iescore.pipeline.senseval import family

        return getattr(family, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
