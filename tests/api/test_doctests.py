"""The examples in the library's docstrings run, from the repository root (they name files in data/)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import iescore

ROOT = Path(__file__).resolve().parents[2]
MODULES = [name for name in iescore.FAMILIES if (ROOT / "iescore" / f"{name}.py").exists()]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    module = importlib.import_module(f"iescore.{name}")
    results = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert results.failed == 0
    assert results.attempted > 0, f"iescore.{name} has no example"
