"""The house's rules of import (issue 11, point 5; DESIGN.md "The layout").

Imports point down only: ``pipeline.campaign`` -> families -> ``pipeline.core`` -> ``schemas``. A family,
and the campaign engine, use a family only through what that family declares public (its package's
``__init__``, e.g. ``from pipeline.speech import align_texts``, names in its ``__all__``), never its
modules; no module imports another wing's private (``_``) names. ``pipeline`` knows nothing of Luigi
or of ``tasks``; ``tasks`` holds no scoring rule. Each rule is checked on the source, so a new module
that breaks one fails here, naming the file, the line and the import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PIPELINE = ROOT / "pipeline"
FAMILIES = ("templette", "speech", "muc", "coref", "mat", "senseval", "clef", "trec")


def _local(module: str) -> str:
    """A module's name in the repository's folders: ``iescore.pipeline.core`` is ``pipeline.core``."""
    return module.removeprefix("iescore.")


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, absolute, with its line, named by its folders (``from
    iescore.pipeline import x`` gives ``pipeline.x`` when ``x`` is a module of ``pipeline``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, _local(alias.name)) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                candidate = f"{_local(node.module)}.{alias.name}"
                parts = candidate.split(".")
                is_module = (ROOT.joinpath(*parts).with_suffix(".py")).exists() or ROOT.joinpath(
                    *parts
                ).is_dir()
                found.append((node.lineno, candidate if is_module else _local(node.module)))
    return found


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "data" not in p.relative_to(PIPELINE).parts[:-1])


def _wing(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "pipeline" else None


@pytest.mark.parametrize("path", _modules(PIPELINE), ids=lambda p: str(p.relative_to(ROOT)))
def test_pipeline_imports_point_down(path: Path) -> None:
    own = path.relative_to(PIPELINE).parts[0] if path.parent != PIPELINE else None
    problems = []
    for line, module in _imports(path):
        top = module.split(".")[0]
        where = f"{path.relative_to(ROOT)}:{line}: imports {module}"
        if top in ("luigi", "tasks"):
            problems.append(f"{where} (pipeline/ knows nothing of Luigi or tasks/)")
            continue
        wing = _wing(module)
        if wing is None or wing == own:
            continue
        if own == "core" and wing != "core":
            problems.append(f"{where} (core imports only core and schemas)")
        elif own in FAMILIES and wing == "campaign":
            problems.append(f"{where} (a family never imports the campaign engine)")
        elif own in (*FAMILIES, "campaign") and wing in FAMILIES and module != f"pipeline.{wing}":
            problems.append(f"{where} (a family only through its package: from pipeline.{wing} import ...)")
    for line, module, name in _names(path):
        wing = _wing(module)
        if wing is None or wing == own:
            continue
        where = f"{path.relative_to(ROOT)}:{line}: imports {name} from {module}"
        if name.startswith("_"):
            problems.append(f"{where} (another wing's private name)")
        elif wing in FAMILIES and module == f"pipeline.{wing}" and name not in _public(wing):
            problems.append(f"{where} (not in pipeline/{wing}/__init__.py's __all__)")
    assert not problems, "\n".join(problems)


def _names(path: Path) -> list[tuple[int, str, str]]:
    """Every name ``from MODULE import NAME`` brings in: its line, its module and its name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, _local(node.module), alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
        for alias in node.names
    ]


def _public(wing: str) -> set[str]:
    """The names a family's package declares public (its ``__all__``)."""
    tree = ast.parse((PIPELINE / wing / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return {element.value for element in node.value.elts}  # type: ignore[attr-defined]
    return set()


def test_every_wing_is_a_package_with_a_docstring() -> None:
    for wing in ("core", *FAMILIES, "campaign"):
        init = PIPELINE / wing / "__init__.py"
        assert init.is_file(), init
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), f"{init} says what the wing is"


def test_pipeline_has_no_loose_modules() -> None:
    loose = sorted(p.name for p in PIPELINE.glob("*.py") if p.name != "__init__.py")
    assert not loose, f"modules outside every wing: {loose}"


def test_tasks_cli_has_one_module_per_command() -> None:
    from iescore.tasks.cli.main import _parser

    commands = next(
        action for action in _parser()._actions if action.__class__.__name__ == "_SubParsersAction"
    ).choices
    for name in commands:
        assert (ROOT / "tasks" / "cli" / f"{name}.py").is_file(), f"tasks/cli/{name}.py for 'iescore {name}'"


def test_every_import_of_the_project_is_under_iescore() -> None:
    # Installed, nothing lives under a generic top-level name: code that imports `pipeline`, `tasks` or
    # `schemas` bare would work in the checkout and fail (or import a stranger's module) once installed.
    problems = []
    for folder in ("iescore", "pipeline", "tasks", "schemas", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                bare = [n for n in names if n.split(".")[0] in ("pipeline", "tasks", "schemas")]
                problems += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in bare]
    assert not problems, "\n".join(problems)


def test_every_package_folder_is_installed() -> None:
    # setuptools installs only the packages pyproject.toml lists: a new folder left out imports from a
    # checkout and is missing from the wheel.
    import tomllib

    with (ROOT / "pyproject.toml").open("rb") as handle:
        listed = set(tomllib.load(handle)["tool"]["setuptools"]["packages"])
    found = {"iescore"}
    for top in ("pipeline", "tasks", "schemas"):
        for init in (ROOT / top).rglob("__init__.py"):
            folder = init.parent.relative_to(ROOT)
            found.add("iescore." + ".".join(folder.parts))
    assert found - listed == set(), "folders with an __init__.py that pyproject.toml's packages leave out"
