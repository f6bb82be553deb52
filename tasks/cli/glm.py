"""``iescore glm``: SCTK's ``csrfilt.sh`` as a subcommand (see :mod:`pipeline.speech.glm`).

``iescore glm RULES.glm [--utm FILE] [-i text|trn|stm] [-dh] [-s] [-t ref|hyp] < IN > OUT`` behaves as
``csrfilt.sh [-dh] [-s] [-t ref|hyp] -i FMT RULES.glm [UTM] < IN > OUT``. As in csrfilt the input type
defaults to ``trn``. Standard input and output are read and written as bytes in ``--encoding``
(strict; an ASCII-compatible encoding such as utf-8 or latin-1), so no newline translation happens and
an undecodable line is an error naming that line, never a silent replacement.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.speech.glm import filter_lines, read_glm
from iescore.tasks.cli.common import warn_malformed_rules
from iescore.tasks.core.arguments import text_encoding

STDIN = "<stdin>"
STDOUT = "<stdout>"


def add_glm_command(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``glm`` subcommand to an argparse subparsers object (handler: :func:`run_glm`)."""
    parser = subparsers.add_parser(
        "glm",
        help="apply a NIST global mapping file (GLM) to a transcript, as SCTK csrfilt.sh",
        description="Apply the rules of a NIST SCTK global mapping file to standard input and write the "
        "result to standard output, as csrfilt.sh [-dh] [-s] [-t ref|hyp] -i FMT RULES.glm [UTM] does.",
    )
    parser.add_argument("rules", metavar="RULES.glm", help="the global mapping file")
    parser.add_argument(
        "utm_file",
        nargs="?",
        metavar="UTM",
        help="utterance-specific map, where csrfilt.sh takes it (the same as --utm)",
    )
    parser.add_argument(
        "--utm",
        metavar="FILE",
        help="utterance-specific map; read and checked, never applied (as csrfilt.sh since version 1.5)",
    )
    parser.add_argument(
        "-i",
        "--input-format",
        choices=["text", "txt", "trn", "stm"],
        default="trn",
        help="input type: trn keeps the '(utterance id)', stm the first five fields and a '<label>', "
        "text has no protected part (default: trn, as csrfilt.sh)",
    )
    parser.add_argument(
        "-dh",
        "--dh",
        dest="split_hyphens",
        action="store_true",
        help="replace hyphens inside words by blanks (fragment markers like STORY- and -THE stay)",
    )
    parser.add_argument(
        "-s",
        "--no-upcase",
        dest="upcase",
        action="store_false",
        help="do not upper-case the transcript (csrfilt.sh -s)",
    )
    parser.add_argument(
        "-t",
        "--purpose",
        choices=["ref", "hyp"],
        default="",
        help="data purpose, matched like the input type by INPUT_DEPENDENT_APPLICATION regexes "
        "(default: none)",
    )
    parser.add_argument(
        "--encoding",
        type=text_encoding,
        default="utf-8",
        help="encoding of the rule files, the input and the output",
    )
    parser.set_defaults(handler=run_glm)


def run_glm(args: argparse.Namespace) -> int:
    """Filter standard input to standard output; bad input raises :class:`InputError`."""
    glm = read_glm(args.rules, args.encoding)
    warn_malformed_rules(glm)
    if args.utm and args.utm_file:
        raise InputError(
            "--utm", 0, f"one utterance map expected, found {args.utm_file} and --utm {args.utm}"
        )
    utm_path = args.utm or args.utm_file
    utm = read_glm(utm_path, args.encoding) if utm_path else None
    lines = _decoded_lines(sys.stdin.buffer, args.encoding)
    # csrfilt checks the whole input before it writes anything, so nothing is written for bad input.
    output = list(
        filter_lines(
            glm,
            lines,
            utm=utm,
            input_format=args.input_format,
            split_hyphens=args.split_hyphens,
            upcase=args.upcase,
            purpose=args.purpose,
            source=STDIN,
        )
    )
    sys.stdout.flush()
    sink = sys.stdout.buffer
    for number, line in enumerate(output, start=1):
        try:
            sink.write(line.encode(args.encoding))
        except UnicodeEncodeError as error:
            raise InputError(
                STDOUT,
                number,
                f"{line[error.start : error.end]!r} (from the rules) cannot be written in {args.encoding}",
            ) from None
    sink.flush()
    return 0


def _decoded_lines(stream: Iterable[bytes], encoding: str) -> Iterator[str]:
    # Iterating a binary stream splits at b"\n" only and keeps it: "\r" and the last line's missing
    # newline reach the filter as they are.
    for number, raw in enumerate(stream, start=1):
        try:
            yield raw.decode(encoding)
        except UnicodeDecodeError as error:
            bad = raw[error.start : error.end].hex(" ")
            raise InputError(
                STDIN,
                number,
                f"bytes {bad} at byte {error.start + 1} of the line are not valid {encoding} (--encoding)",
            ) from None
