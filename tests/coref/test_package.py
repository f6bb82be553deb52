"""The coreference wing is one package: its modules' public names are the package's, and every module
outside ``pipeline/coref`` imports them from ``pipeline.coref``, never from a module of it."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import iescore.pipeline.coref as coref

ROOT = Path(__file__).resolve().parents[2]
WING = ROOT / "pipeline" / "coref"


def test_every_public_name_is_the_packages() -> None:
    missing = []
    for path in sorted(WING.glob("*.py")):
        if path.name == "__init__.py":
            continue
        module = importlib.import_module(f"iescore.pipeline.coref.{path.stem}")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [target.id for target in node.targets if isinstance(target, ast.Name)]
            else:
                continue
            for name in names:
                if name.startswith("_"):
                    continue
                if name not in coref.__all__ or getattr(coref, name) is not getattr(module, name):
                    missing.append(f"{path.relative_to(ROOT)}: {name}")
    # Helpers the wing's modules share among themselves only.
    shared = {"read_text", "printable", "show_text", "sum_counts", "zero_value"}
    assert sorted(m for m in missing if m.split(": ")[1] not in shared) == []


def test_outside_the_wing_imports_come_from_the_package() -> None:
    problems = []
    for folder in ("pipeline", "tasks", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if WING in path.parents:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                modules = []
                if isinstance(node, ast.ImportFrom) and node.module:
                    modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                elif isinstance(node, ast.Import):
                    modules = [a.name for a in node.names]
                for module in modules:
                    folders = module.removeprefix("iescore.").split(".")
                    is_module = (ROOT / Path(*folders)).with_suffix(".py").exists()
                    if module.startswith("iescore.pipeline.coref.") and is_module:
                        problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: {module}")
    # White-box tests of the wing's private paths are the exception.
    allowed = {"tests/coref/test_columns.py"}
    assert [p for p in problems if p.split(":")[0] not in allowed] == []
