"""Text from inputs shown on a terminal."""

from __future__ import annotations


def printable(text: str) -> str:
    """Input text for a terminal: control characters (escape sequences) shown as ``\\xNN``."""
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text)
