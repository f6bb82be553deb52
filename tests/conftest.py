"""Fixtures shared by the test folders."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from iescore.tasks.cli.main import main

#: ``iescore_exit(argv)``: the exit status and stderr of ``iescore argv`` run in this process.
IescoreExit = Callable[[list[str]], tuple[int, str]]


@pytest.fixture
def iescore_exit(capsys: pytest.CaptureFixture[str]) -> IescoreExit:
    """Run ``iescore`` in this process: its exit status (argparse's own errors exit by ``SystemExit``)
    and its stderr, which never holds a traceback."""

    def run(argv: list[str]) -> tuple[int, str]:
        try:
            status = main(argv)
        except SystemExit as stop:
            status = stop.code
        err = capsys.readouterr().err
        assert "Traceback" not in err
        return status, err

    return run
