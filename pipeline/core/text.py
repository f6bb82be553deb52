"""Text from inputs shown on a terminal, and written into CSV files."""

from __future__ import annotations

from typing import Any


def printable(text: str) -> str:
    """Input text for a terminal: control characters (escape sequences) shown as ``\\xNN``."""
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text)


def csv_row_end(frame: Any) -> str:
    """The row end of a CSV file of ``frame`` (a pandas DataFrame): ``\\n``, or RFC 4180's ``\\r\\n`` when a
    header or text cell holds a carriage return.

    Python's csv writer (pandas' too) quotes a cell for its delimiter, its quote and the characters of
    its row end only: with ``\\n`` rows, a system name holding a lone ``\\r`` is written bare, and every
    reader splits the row there. With ``\\r\\n`` rows that cell is quoted and reads back whole.
    """
    headers = (name for name in frame.columns if isinstance(name, str))
    cells = (
        value
        for name in frame.columns
        if frame[name].dtype.kind == "O"  # object and pandas string columns
        for value in frame[name]
        if isinstance(value, str)
    )
    return "\r\n" if any("\r" in text for part in (headers, cells) for text in part) else "\n"
