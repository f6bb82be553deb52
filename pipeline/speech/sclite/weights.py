"""Word weights for sclite's word-weight mediated alignment (``-w WWL``) and its ``wws`` report.

A word-weight list (WWL) file, as sclite 2.10 reads it (SCTK ``wwscr_f.c``, read for its rules):

- ``;;`` comment lines; one of them may name the columns, ``;; 'Headings' 'Word Spelling' 'Col A'
  'Col B'``, and one may give the weight of a word the list lacks, ``;; Default missing weight
  '30'`` (0 without it);
- every other non-blank line is a word and its weights, separated by blanks. sclite uses the first
  weight column only, and names it in its reports as ``FILE Column "HEADING"`` (``FILE Col 1``
  without headings);
- the name ``unity`` is no file: every word weighs 1 (``Unity Weighting``).

A word joined by ``=`` (``a=b``) weighs the sum of its parts. In the alignment the empty alternative
``@`` and an optionally deletable word (under ``-D``) weigh 0.

Where sclite reads on silently, this reader stops with the file and line: a weight that is not a
number (sclite's ``atof`` reads 0, or the number's first digits), a ``Default missing weight`` that
is not one (sclite warns and keeps 0), and a heading left unquoted (sclite crashes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.netdp import NULL_ALT, Network
from iescore.pipeline.speech.sclite.trn import shown

UNITY = "unity"

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


@dataclass(frozen=True)
class WordWeights:
    """A WWL's first weight column: ``words`` sorted as sclite sorts them (byte order, stable),
    ``weights`` aligned with them, ``default`` for any other word, and ``description``, the
    ``FILE Column "HEADING"`` text sclite prints in the ``.prf``, ``.wws`` and ``.sgml``."""

    words: tuple[str, ...]
    weights: tuple[float, ...]
    default: float
    description: str

    def weight(self, word: str) -> float:
        """The weight of ``word``: of each of its ``=``-joined parts, summed."""
        if "=" not in word:
            return self._lookup(word)
        return sum((self._lookup(part) for part in word.split("=") if part), 0.0)

    def _lookup(self, word: str) -> float:
        # sclite's binary search, so that a word listed twice weighs what sclite finds first.
        low, high = 0, len(self.words) - 1
        while low <= high:
            mid = (low + high) // 2
            if word == self.words[mid]:
                return self.weights[mid]
            if word < self.words[mid]:
                high = mid - 1
            else:
                low = mid + 1
        return self.default


def read_word_weights(path: str, text: str | None) -> WordWeights:
    """The WWL named ``path`` (as given on the command line), its ``text`` read one character a
    byte (``pipeline.speech.sclite.trn.read_text``); ``text`` is not read for ``unity``."""
    if path == UNITY:
        return WordWeights(("the",), (1.0,), 1.0, f'{UNITY} Column "Unity Weighting"')
    assert text is not None
    entries: list[tuple[str, float]] = []
    headings: list[str] = []
    default = 0.0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith(";;") and line.strip(" \t\n\r\f\v"):
            fields = line.split()
            if len(fields) < 2:
                raise InputError(
                    path, number, f"a word and its weight expected, found {shown(line.strip())!r}"
                )
            entries.append((fields[0], _weight(fields[1], path, number)))
        elif "'Headings'" in line:
            rest = line[line.index("'Headings'") + len("'Headings'") :]
            if "'Word Spelling'" not in rest:
                continue  # sclite warns and reads on
            rest = rest[rest.index("'Word Spelling'") + len("'Word Spelling'") :]
            if rest.count("'") % 2:
                raise InputError(path, number, "every column heading expected between two quotes (')")
            headings += rest.split("'")[1::2]
        elif "Default missing weight" in line:
            quoted = line.split("'")
            if len(quoted) < 3:
                raise InputError(path, number, "the default missing weight expected between quotes: '30'")
            default = _weight(quoted[1], path, number)
    entries.sort(key=lambda entry: entry[0])
    heading = headings[0] if headings else f"{path} Col 1"
    return WordWeights(
        tuple(w for w, _ in entries), tuple(v for _, v in entries), default, f'{path} Column "{heading}"'
    )


def _weight(value: str, path: str, line: int) -> float:
    if not _NUMBER.fullmatch(value):
        raise InputError(path, line, f"a weight expected (a number such as 2 or 0.5), found {shown(value)!r}")
    return float(value)


def weigh(net: Network, weights: WordWeights) -> Network:
    """``net`` with each word's weight, as sclite's ``lookup_word_weight`` gives it: the empty
    alternative ``@`` and an optionally deletable word weigh 0."""
    words = [
        None
        if w is None
        else replace(w, weight=0.0 if w.text == NULL_ALT or w.opt_del else weights.weight(w.text))
        for w in net.words
    ]
    return Network(words, net.preds, net.finals)
