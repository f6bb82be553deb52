"""The examples in the library's docstrings run, from the repository root (their paths are relative to it)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import iescore

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", iescore.FAMILIES)
def test_docstring_examples_run(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every module the package names is there and shows how it is used.
    monkeypatch.chdir(ROOT)
    module = importlib.import_module(f"iescore.{name}")
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    failed, attempted = doctest.testmod(module, optionflags=flags, verbose=False)
    assert attempted > 0, f"iescore.{name} has no example in its docstrings"
    assert failed == 0, f"{failed} of {attempted} examples in iescore.{name} failed (see the output above)"
