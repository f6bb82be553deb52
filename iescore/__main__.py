"""``python -m iescore``: the ``iescore`` command."""

from iescore.tasks.cli.main import run

if __name__ == "__main__":
    run()
