"""The examples in the library's docstrings run, from the repository root (their paths are relative to it)."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
from pathlib import Path

import pytest

import iescore

ROOT = Path(__file__).resolve().parents[2]
MODULES = [f"iescore.{name}" for name in iescore.FAMILIES if importlib.util.find_spec(f"iescore.{name}")]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    failed, attempted = doctest.testmod(module, optionflags=flags, verbose=False)
    assert attempted > 0, f"{name} has no example in its docstrings"
    assert failed == 0, f"{failed} of {attempted} examples in {name} failed (the output above says which)"
