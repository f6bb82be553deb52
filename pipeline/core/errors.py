"""Errors that blame the input, not the program.

Every reader raises :class:`InputError` with the file, the line (1-based, or 0 when the problem is not
tied to one line) and what was expected there. The command line turns it into one line on stderr and
exit status 2; nothing else in the project prints tracebacks for bad input.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: ``file:line: message``."""

    def __init__(self, file: str, line: int, message: str) -> None:
        self.file = str(file)
        self.line = int(line)
        self.message = message
        super().__init__(self.render())

    def __reduce__(self) -> tuple:
        # As it was made, so that it crosses to the parent from a forked worker (multiprocessing pickles it).
        return type(self), (self.file, self.line, self.message)

    def render(self) -> str:
        """The user-facing form, ``file:line: message`` (``file: message`` when line is 0)."""
        if self.line > 0:
            return f"{self.file}:{self.line}: {self.message}"
        return f"{self.file}: {self.message}"
