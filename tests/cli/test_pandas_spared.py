"""pandas imported where first used (``pipeline.core.lazy``)."""

from __future__ import annotations

from pathlib import Path

from pipeline.core.lazy import LazyModule

ROOT = Path(__file__).resolve().parents[2]


def test_a_lazy_module_is_imported_when_first_used_then_keeps_its_names() -> None:
    lazy = LazyModule("json")
    assert "imported when first used" in repr(lazy)
    assert lazy.dumps([1]) == "[1]"
    assert "dumps" in vars(lazy)  # kept: asked again, found without a call
