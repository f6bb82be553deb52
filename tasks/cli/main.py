"""iescore: scorers for information extraction, speech and NLP evaluations.

Exit status: 0 scored, 2 bad input (``file:line: what was expected`` on stderr), 1 internal error.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Each command's module and the function adding its parser, in the order of ``iescore --help``. A command
# named first imports only its own module (the campaign engine alone takes most of a second, and the
# users of sclite, scorer2 and trec_eval time whole processes).
COMMANDS = {
    "templette": ("iescore.tasks.cli.templette", "add_templette_command"),
    "campaign": ("iescore.tasks.cli.campaign", "add_campaign_command"),
    "align": ("iescore.tasks.cli.align", "add_align_command"),
    "sclite": ("iescore.tasks.cli.sclite", "add_sclite_command"),
    "sc_stats": ("iescore.tasks.cli.sc_stats", "add_sc_stats_command"),
    "glm": ("iescore.tasks.cli.glm", "add_glm_command"),
    "muc": ("iescore.tasks.cli.muc", "add_muc_command"),
    "coref": ("iescore.tasks.cli.coref", "add_coref_command"),
    "mat": ("iescore.tasks.cli.mat", "add_mat_command"),
    "senseval": ("iescore.tasks.cli.senseval", "add_senseval_command"),
    "clef": ("iescore.tasks.cli.clef", "add_clef_command"),
    "trec": ("iescore.tasks.cli.trec", "add_trec_command"),
    "artifacts": ("iescore.tasks.cli.artifacts", "add_artifacts_command"),
}


#: The commands that read their reference program's own command line, not argparse's (sclite's ``-h`` is a
#: hypothesis, sc_stats' ``-t`` takes a list and toggles): module and function, given the arguments.
OWN_COMMAND_LINES = {
    "sclite": ("iescore.tasks.cli.sclite", "sclite_main"),
    "sc_stats": ("iescore.tasks.cli.sc_stats", "sc_stats_main"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        return _run(argv)
    except OSError as error:
        # A path that passed the checks made before the work and still cannot be read or written (a
        # file system that refuses what its permissions allow, a disk that fills up): the path and the
        # system's reason, exit 2, rather than a traceback; for every command.
        from iescore.tasks.cli.common import EXIT_INPUT

        where = f"{error.filename}: " if error.filename else ""
        print(f"iescore: {where}{error.strerror or error}", file=sys.stderr)
        return EXIT_INPUT


def _run(argv: list[str]) -> int:
    from iescore.pipeline.core.errors import InputError

    if argv and argv[0] in OWN_COMMAND_LINES:
        module, function = OWN_COMMAND_LINES[argv[0]]
        return getattr(importlib.import_module(module), function)(argv[1:])

    parser = _parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except InputError as error:
        from iescore.tasks.cli.common import EXIT_INPUT

        print(f"iescore: {error.render()}", file=sys.stderr)
        return EXIT_INPUT


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command (or of ``command`` alone), one module a command
    (``tasks/cli/COMMAND.py``)."""
    from iescore.tasks.core.arguments import HelpFormatter, refuse_empty_values

    from iescore import __version__

    parser = argparse.ArgumentParser(prog="iescore", description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"iescore {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, (module, function) in COMMANDS.items():
        if command is None or name == command:
            getattr(importlib.import_module(module), function)(commands)
    for sub in commands.choices.values():
        sub.formatter_class = HelpFormatter
        refuse_empty_values(sub)
    return parser


def run() -> None:
    """The ``iescore`` program: ``main``, its return value the exit status."""
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
