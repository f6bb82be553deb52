"""``iescore campaign`` computes in processes of its own; the BLAS library numpy calls is kept to one
thread in each (``tasks.cli.main.BLAS_THREADS``), set before numpy is imported, unless the user set it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tasks.cli.main import BLAS_THREADS

# Parses the command's arguments (``--help`` ends there), then says what numpy was imported with.
PROBE = """
import os, sys
from tasks.cli import main
try:
    main._run(sys.argv[1:])
except SystemExit:
    pass
assert "numpy" in sys.modules
print(" ".join(os.environ.get(name, "-") for name in main.BLAS_THREADS))
"""


def probe(*argv: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in BLAS_THREADS}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env={**clean, **env}
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[-1]


def test_a_campaign_imports_numpy_with_one_blas_thread() -> None:
    assert probe("campaign", "--help") == "1 1 1"


def test_the_users_setting_stays() -> None:
    assert probe("campaign", "--help", OPENBLAS_NUM_THREADS="2") == "2 1 1"


@pytest.mark.parametrize("command", ["templette", "align"])
def test_other_commands_keep_the_librarys_default(command: str) -> None:
    assert probe(command, "--help") == "- - -"
