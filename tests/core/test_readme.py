"""The README's two set-up commands are what CI runs: the test command word for word in ``.ci/run``."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _set_up_commands() -> list[str]:
    """The README's fenced one-line commands under "Set-up", in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```\n(.*?)\n```", section, flags=re.S)]


def test_the_readme_gives_two_set_up_commands() -> None:
    commands = _set_up_commands()
    assert len(commands) == 2, commands
    assert "iescore campaign" in commands[0]
    assert commands[1].endswith("pytest -q")


def test_ci_runs_the_readme_test_command_as_written() -> None:
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _set_up_commands()[1] in ci_lines
