"""What every scorer family uses. For now: the family contract (``pipeline.core.family``)."""
