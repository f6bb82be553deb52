"""What a user may set, checked one way on the command line and in campaign files.

- **Counts** (:class:`Count`): resamples, seeds, worker processes. Each has one range, used by the
  command line's argument types (``tasks.core.arguments``) and by the campaign files' fields
  (``pipeline.campaign.engine.COMMON_OPTIONS``), so ``--seed -1`` or a million resamples is refused the
  same way everywhere, before any work.
- **Text encodings** (:func:`encoding_problem`): a name Python knows *and* a text encoding; ``base64``,
  ``rot13`` and ``hex`` are codecs Python knows but not text encodings.
- **Regular expressions** given by users (MATScore's ``--file_re``, a campaign's ``file_re``): written in
  Python's syntax (MATScore's users write them for Python's ``re``) and checked with it, but matched by
  RE2, the automaton-based engine inside Arrow's compute functions, whose time is linear in the length of
  the text whatever the pattern. Python's engine backtracks: ``(a+)+$`` against a long name of ``a``\\ s
  takes longer than the age of the universe, and no time limit can stop a C-level match in the middle.
  A pattern RE2 cannot run (a back-reference, a look-around) is refused with the reason; RE2's ``\\w``,
  ``\\d`` and ``\\s`` are ASCII classes where Python's are Unicode ones.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc


@dataclass(frozen=True)
class Count:
    """A whole number a user sets, ``low`` to ``high`` inclusive; ``why`` says where the top comes from."""

    name: str
    low: int
    high: int
    why: str

    def problem(self, value: object) -> str | None:
        """What is wrong with ``value`` as this count, or None (``True`` is no number)."""
        if isinstance(value, bool) or not isinstance(value, int) or not self.low <= value <= self.high:
            return f"a whole number from {self.low} to {self.high} expected ({self.why})"
        return None


#: Bootstrap and randomization draw (resamples x units) matrices: past this their memory, not the precision
#: of a p-value, is what a larger number buys.
RESAMPLES = Count("resamples", 1, 100_000, "each resample draws a row per unit; memory grows with both")
#: Seeds are kept in an int64 column (the significance table) and seed numpy's generators.
SEED = Count("seed", 0, 2**63 - 1, "a seed is kept as a 64-bit integer")
#: Worker processes of one machine: past this a run spends its time forking, not scoring.
WORKERS = Count("workers", 1, 256, "processes of one machine; use a central scheduler beyond")
#: Any other count a user gives (a document limit, a cut-off): it must fit a C long.
ANY_COUNT = Count("count", 0, 2**63 - 1, "it must fit a 64-bit integer")


#: What begins a URL (``s3:``, ``gs:``, ``https:``) rather than a directory name: a store written
#: ``s3:/bucket`` (one slash) must not become a local folder named ``s3:``.
URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def encoding_problem(name: object) -> str | None:
    """What stops ``name`` from being a text encoding's name, or None."""
    if not isinstance(name, str) or not name:
        return 'the name of a text encoding expected (e.g. "utf-8", "latin-1")'
    try:
        b"a".decode(name)  # refuses codecs that are not text encodings (base64, rot13, hex...)
    except LookupError as error:
        reason = "not a text encoding" if "is not a text encoding" in str(error) else "unknown encoding"
        return f'the name of a text encoding expected (e.g. "utf-8", "latin-1"); {name!r}: {reason}'
    except UnicodeDecodeError:  # a text encoding in which one byte is not a character (UTF-16)
        return None
    return None


def pattern_problem(pattern: object) -> str | None:
    """What stops ``pattern`` from serving as a user's regular expression (see the module doc), or None."""
    if not isinstance(pattern, str):
        return "a regular expression (a string) expected"
    try:
        re.compile(pattern)  # compiling does not match: no backtracking happens here
    except re.error as error:
        return f"a regular expression expected: {error}"
    try:
        _matches(pattern, [""])
    except UnicodeEncodeError:
        return "a regular expression in UTF-8 expected (it holds bytes that are not UTF-8)"
    except pa.ArrowInvalid as error:
        reason = str(error).removeprefix("Invalid regular expression: ")
        return (
            f"a regular expression without back-references or look-arounds expected (iescore matches "
            f"with RE2, in time linear in the name, so that no pattern can hang a run): {reason}"
        )
    return None


def full_matches(pattern: str, names: Sequence[str]) -> list[bool]:
    """Whether each of ``names`` matches ``pattern`` entirely (Python's ``fullmatch``), in linear time.

    ``pattern`` must have passed :func:`pattern_problem`. A name that is not UTF-8 is matched, not refused.
    """
    return _matches(pattern, names).to_pylist()


def literal_pattern(text: str) -> str:
    """A pattern matching ``text`` only, that both Python's ``re`` and RE2 read alike (``re.escape``
    writes ``\\ `` for a blank, which RE2 refuses): each character that is not a letter, digit or ``_``
    stands alone in a bracket."""
    text = os.fsencode(text).decode("utf-8", "replace")  # as ``full_matches`` sees a name
    return "".join(
        ch if ch.isalnum() or ch == "_" else f"[\\{ch}]" if ch in "\\]^-[" else f"[{ch}]" for ch in text
    )


def _matches(pattern: str, names: Sequence[str]) -> pa.BooleanArray:
    # Python has checked that the pattern is balanced, so the group cannot be closed from inside it.
    # A name that is not UTF-8 on disk is matched with U+FFFD where its stray bytes are.
    data = pa.array([os.fsencode(name).decode("utf-8", "replace") for name in names], pa.string())
    return pc.match_substring_regex(data, f"^(?:{pattern})$").fill_null(False)
