"""Luigi's configuration as iescore runs it (``tasks.core.runner.configure``): the project's luigi.cfg
from any directory, under the user's own luigi.cfg and ``LUIGI_CONFIG_PATH``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Prints two options the project's luigi.cfg sets ([retcode] task_failed = 30, [core] log_level =
# CRITICAL) and one it does not set, as Luigi sees them once iescore has configured it.
PROBE = (
    "from iescore.tasks.core import runner; runner.configure(); import luigi.configuration as c; "
    "cfg = c.get_config(); print(cfg.get('retcode', 'task_failed'), cfg.get('core', 'log_level'), "
    "cfg.get('core', 'extra', '-'))"
)


def probe(cwd: Path, **env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if k != "LUIGI_CONFIG_PATH"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=cwd, env={**clean, **env}
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_projects_defaults_from_any_directory(tmp_path: Path) -> None:
    assert probe(tmp_path) == ["30", "CRITICAL", "-"]


def test_a_luigi_cfg_in_the_working_directory_wins(tmp_path: Path) -> None:
    (tmp_path / "luigi.cfg").write_text("[core]\nlog_level = WARNING\nextra = mine\n")
    assert probe(tmp_path) == ["30", "WARNING", "mine"]


def test_luigi_config_path_wins(tmp_path: Path) -> None:
    user = tmp_path / "user.cfg"
    user.write_text("[retcode]\ntask_failed = 3\n")
    assert probe(tmp_path, LUIGI_CONFIG_PATH=str(user)) == ["3", "CRITICAL", "-"]


def test_luigi_config_path_wins_over_the_working_directorys(tmp_path: Path) -> None:
    (tmp_path / "luigi.cfg").write_text("[core]\nlog_level = WARNING\n")
    user = tmp_path / "user.cfg"
    user.write_text("[core]\nlog_level = ERROR\n")
    assert probe(tmp_path, LUIGI_CONFIG_PATH=str(user)) == ["30", "ERROR", "-"]
