"""The README and the guide in ``docs/`` stay short, current and true to the repository.

The README is what a newcomer reads in five minutes, so it has at most 300 lines. Neither it nor the guide
speaks of issue numbers or of "seed 00x" where a procedure's name says it, every relative link and every
repository path it names exists, and every ``iescore <command>`` in the README's examples is a real command.
"""

from __future__ import annotations

import fnmatch
import functools
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").rglob("*.md"))
DOCUMENTS = [README, *PAGES]

# An inline link or image: [text](target) or ![alt](target); the target ends at whitespace or ")".
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
# Paths inside the repository named in code spans: `pipeline/...`, `tests/...`, `data/...`, ...
REPOSITORY_PATH = re.compile(r"`((?:pipeline|tasks|tests|schemas|data|benchmarks|docs|\.ci)/[^`\s]*)`")
ISSUE_NUMBER = re.compile(r"\bissues?\s*#?\s*\d+", re.IGNORECASE)
SEED_NUMBER = re.compile(r"\bseeds?\s+00\d", re.IGNORECASE)


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    headings = re.findall(r"^#{1,6}\s+(.*?)\s*#*\s*$", _text(path), flags=re.M)
    return {_slug(heading) for heading in headings}


def _code(text: str) -> str:
    """The README's code: its fenced blocks and its inline code spans, one per line."""
    fenced = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.M | re.S)
    prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.M | re.S)
    inline = re.findall(r"`([^`]+)`", prose)  # a code span may wrap onto the next line
    return "\n".join([*fenced, *inline])


def test_the_guide_has_its_pages() -> None:
    names = {page.name for page in PAGES}
    expected = {"README.md", "templette.md", "speech.md", "muc.md", "coref.md", "mat.md", "senseval.md"}
    expected |= {"clef.md", "trec.md", "campaigns.md", "machines.md", "artifacts.md", "benchmarks.md"}
    assert expected <= names, sorted(expected - names)


def test_the_readme_has_at_most_300_lines() -> None:
    lines = _text(README).splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move details into docs/"


@pytest.mark.parametrize("path", DOCUMENTS, ids=_name)
def test_no_issue_numbers_and_no_seed_numbers(path: Path) -> None:
    text = _text(path)
    issues = ISSUE_NUMBER.findall(text)
    seeds = SEED_NUMBER.findall(text)
    assert not issues, f"{_name(path)} speaks of issue numbers: {issues}"
    assert not seeds, f"{_name(path)} says seed numbers where the procedure's name says it: {seeds}"


@pytest.mark.parametrize("path", DOCUMENTS, ids=_name)
def test_every_relative_link_points_to_a_file_that_exists(path: Path) -> None:
    broken = []
    for target in LINK.findall(_text(path)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.I):  # http:, https:, mailto: ...
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(f"{target} (no heading '{anchor}' in {_name(linked)})")
    assert not broken, f"{_name(path)}: {broken}"


@pytest.mark.parametrize("path", DOCUMENTS, ids=_name)
def test_every_repository_path_named_exists(path: Path) -> None:
    missing = []
    for named in REPOSITORY_PATH.findall(_text(path)):
        named = named.rstrip(".,;:")
        if "*" in named or "<" in named:  # a pattern: something tracked must match it
            pattern = re.sub(r"<[^>]*>", "*", named).rstrip("/")
            if not any(fnmatch.fnmatch(p, pattern) for p in _tracked()):
                missing.append(named)
        elif not _in_repository(named):
            missing.append(named)
    assert not missing, f"{_name(path)} names paths the repository lacks: {missing}"


@functools.cache
def _tracked() -> frozenset[str]:
    """The repository's files and the folders that hold them, as git tracks them (not what a run left)."""
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\n")
    files = {name for name in listed if name}
    folders = {str(Path(name).parent) for name in files}
    while folders - {"."}:
        parents = {str(Path(folder).parent) for folder in folders} - folders
        if not parents - {"."}:
            break
        folders |= parents
    return frozenset(files | folders)


def _in_repository(named: str) -> bool:
    """A path the repository has, or one git ignores because the commands write it (``data/store/``)."""
    name = named.rstrip("/")
    if name in _tracked():
        return True
    # A trailing slash lets git match an ignore rule for a folder that a run has not made yet.
    wanted = named if named.endswith("/") else name
    ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", wanted], cwd=ROOT, check=False)
    return ignored.returncode == 0


def _readme_commands() -> list[str]:
    """Every command named as ``iescore <command>`` in the README's code, in order of first mention."""
    # Command names are lower case; `iescore COMMAND --help` names a placeholder, not a command.
    found = re.findall(r"(?:^|[\s$(])iescore\s+([a-z][a-z0-9_-]*)\b", _code(_text(README)), flags=re.M)
    return list(dict.fromkeys(found))


def test_the_readme_names_a_command_per_family() -> None:
    commands = set(_readme_commands())
    expected = {"campaign", "templette", "align", "glm", "muc", "coref", "mat", "senseval", "clef", "trec"}
    assert expected <= commands, sorted(expected - commands)


@pytest.mark.parametrize("command", _readme_commands())
def test_every_command_in_the_readme_is_a_real_command(command: str) -> None:
    # The program as installed: the console script's entry point in pyproject.toml, called with
    # COMMAND --help. A real command prints its help and exits 0; argparse refuses any other with 2.
    with (ROOT / "pyproject.toml").open("rb") as handle:
        entry = tomllib.load(handle)["project"]["scripts"]["iescore"]
    module, function = entry.split(":")
    program = f"import sys; sys.argv[0] = 'iescore'; from {module} import {function}; sys.exit({function}())"
    result = subprocess.run(
        [sys.executable, "-c", program, command, "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"iescore {command} --help: {result.returncode}\n{result.stderr}"
    # sclite's drop-in prints sclite's own usage, which begins "sclite: <OPTIONS>".
    usage = "usage:" in result.stdout.lower() or result.stdout.startswith(f"{command}: <OPTIONS>")
    assert usage, result.stdout
