"""``iescore sclite``: NIST sclite 2.10's command line, inputs and reports (a drop-in).

sclite's own option syntax (``-r FILE [FMT]``, ``-h FILE [FMT [TITLE]]`` repeated, ``-o`` with a list
of reports, ``-h`` not being help) is parsed here as sclite parses it, not by argparse; ``iescore
sclite --help`` prints the usage. Usage and input errors print the usage and ``sclite: Error, ...``
on stderr, as sclite does, and exit 2 (sclite exits 1). Reports are written by
``pipeline.speech.sclite``; this module only reads the options, runs the scoring and writes files.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO

from iescore.tasks.cli.common import c_atoi

if TYPE_CHECKING:
    from iescore.pipeline.speech.sclite.model import ScoredSystem
    from iescore.pipeline.speech.sclite.segmentation import Segmentation
    from iescore.pipeline.speech.sclite.trn import Encoding
    from iescore.pipeline.speech.sclite.weights import WordWeights

USAGE = """sclite: <OPTIONS>
sclite Version: 2.10, SCTK Version: 1.3
Input Options:
    -r reffile [ <rfmt> ]
                Define the reference file, and it's format
    -h hypfile [ <hfmt> <title> ]
                Define the hypothesis file, it's format, and a 'title' used
                for reports.  The default title is 'hypfile'.  This option
                may be used more than once.
    -i <ids>    Set the utterance id type.   (for transcript mode only)
    -P          Accept the piped input from another utility.
    -e gb|euc|utf-8 [ case-conversion-localization ]
                Interpret characters as GB, EUC, utf-8, or the default, 8-bit ASCII.
                Optionally, case conversion localization can be set to either 'generic',
                'babel_turkish', or 'babel_vietnamese', 'ukranian'
Alignment Options:
    -s          Do Case-sensitive alignments.
    -d          Use GNU diff for alignments.
    -c [ NOASCII DH ]
                Do the alignment on characters not on words as usual by split-
                ting words into chars. The optional argument NOASCII does not
                split ASCII words and the optional arg. DH deletes hyphens from
                both the ref and hyp before alingment.   Exclusive with -d.
    -L LM       CMU-Cambridge SLM Language model file to use in alignment and scoring.
    -S algo1 lexicon [ ASCIITOO ]
    -S algo2 lexicon [ ASCIITOO ]
                Instead of performing word alignments, infer the word segmenta-
                tion using algo1 or algo2.  See sclite(1) for algorithm details.
    -F          Score fragments as correct.  Options -F and -d are exclusive.
    -D          Score words marked optionally deletable as correct if deleted.
                Options -D and -d are exclusive.
    -T          Use time information, (if available), to calculated word-to-
                word distances based on times. Options -F and -d are exlc.
    -w wwl      Perform Word-Weight Mediated alignments, using the WWL file 'wwl'.
                IF wwl is 'unity' use weight 1.o for all words.
    -m [ ref | hyp ]
                Only used for scoring a hyp/ctm file, against a ref/stm file.
                When the 'ref' option is used, reduce the reference segments
                to time range of the hyp file's words.  When the 'hyp' option
                is used, reduce the hyp words to the time range of the ref
                segments.  The two may be used together.  The argument -m
                by itself defaults to '-m ref'.  Exclusive with -d.
Output Options:
    -O output_dir
                Writes all output files into output_dir. Defaults to the
                hypfile's directory.
    -f level    Defines feedback mode, default is 1
    -l width    Defines the line width.
    -p          Pipe the alignments to another sclite utility.  Sets -f to 0.
Scoring Report Options:
    -o [ sum | rsum | pralign | all | sgml | stdout | lur | snt | spk | {blank}
         dtl | prf | wws | nl.sgml | none ]
                Defines the output reports. Default: 'sum stdout'
    -C [ det | bhist | sbhist | hist | none ] {blank}
                Defines the output formats for analysis of confidence scores.
                Default: 'none'
    -n name     Writes all outputs using 'name' as a root filename instead of
                'hypfile'.  For multiple hypothesis files, the root filename
                is 'name'.'hypfile'
""".format(blank="")

REPORTS = {
    "sum": {"sum"},
    "wws": {"wws"},
    "rsum": {"rsum"},
    "pralign": {"pralign"},
    "pra": {"pralign"},
    "prf": {"prf"},
    "lur": {"lur"},
    "stdout": {"stdout"},
    "sgml": {"sgml"},
    "nl.sgml": {"nl.sgml"},
    "snt": {"snt"},
    "spk": {"spk"},
    "dtl": {"dtl"},
    "all": {"pralign", "sum", "rsum"},
}
CONFIDENCE_REPORTS = ("det", "bhist", "sbhist", "hist")
ID_TYPES = ("swb", "rm", "wsj", "spu_id", "sp")
ENCODINGS = ("utf-8", "gb", "euc")
LOCALIZATIONS = ("generic", "babel_turkish", "babel_vietnamese", "ukrainian", "ukranian")

# Options sclite takes that this command does not do: refused by name, exit 2.
NOT_DONE = {
    "-d": "GNU diff alignments (-d) are disabled, as in sclite's default build",
    "-L": "language-model alignments (-L) need the CMU-Cambridge SLM toolkit (not in sclite's default build)",
}


class UsageError(Exception):
    """A usage error: sclite's message (printed after the usage)."""


class IllegalArgumentError(UsageError):
    """An option sclite does not know: the usage on stderr, ``Illegal argument: X`` on stdout."""


@dataclass
class Hyp:
    path: str
    format: str
    title: str


@dataclass
class Options:
    ref: str | None = None
    ref_format: str | None = None
    hyps: list[Hyp] = field(default_factory=list)
    id_type: str | None = None
    line_width: int = 1000
    feedback: int = 1
    reports: set[str] = field(default_factory=set)
    reports_set: bool = False
    confidence: set[str] = field(default_factory=set)
    out_dir: str | None = None
    out_name: str | None = None
    case_sensitive: bool = False
    reduce: set[str] = field(default_factory=set)
    frag_corr: bool = False
    opt_del: bool = False
    encoding: str = ""
    localization: str = ""
    pipe_out: bool = False
    pipe_in: bool = False
    time_align: bool = False
    char_align: set[str] = field(default_factory=set)  # -c: {"on"}, with NOASCII, DH
    weights: str | None = None  # -w: the word-weight list file (or "unity")
    segmentation: set[str] = field(default_factory=set)  # -S: {"algo1"} or {"algo2"}
    lexicon: str | None = None  # -S: the lexicon file
    ascii_too: bool = False  # -S ... ASCIITOO
    not_done: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _is_option(arg: str) -> bool:
    return arg.startswith("-")


def parse(argv: list[str]) -> Options:
    """sclite's options, parsed as sclite 2.10 parses them (an unknown ``-o`` report is a warning)."""
    if not argv:
        raise UsageError("Arguments reguired")
    o = Options()
    feedback_set = False
    opt = 0
    n = len(argv)
    while opt < n and _is_option(argv[opt]):
        arg = argv[opt]
        if arg == "-r":
            if n < opt + 2:
                raise UsageError("Not enough Ref arguments")
            if _is_option(argv[opt + 1]):
                raise UsageError("Req'd Ref File name")
            opt += 1
            o.ref = argv[opt]
            if opt + 1 < n and not _is_option(argv[opt + 1]):
                opt += 1
                o.ref_format = argv[opt]
        elif arg == "-h":
            if n < opt + 2:
                raise UsageError("Not enough Hyp arguments")
            if _is_option(argv[opt + 1]):
                raise UsageError("Req'd Hyp File name")
            opt += 1
            path = argv[opt]
            fmt, title = "trn", path
            if opt + 1 < n and not _is_option(argv[opt + 1]):
                opt += 1
                fmt = argv[opt]
            if opt + 1 < n and not _is_option(argv[opt + 1]):
                opt += 1
                title = argv[opt]
            o.hyps.append(Hyp(path, fmt, title))
        elif arg == "-i":
            if n <= opt + 1:
                raise UsageError("Not enough ID arguments")
            opt += 1
            o.id_type = argv[opt]
        elif arg == "-l":
            if n <= opt + 1:
                raise UsageError("Not enough Line Width arguments")
            opt += 1
            o.line_width = c_atoi(argv[opt])
        elif arg == "-f":
            if n <= opt + 1:
                raise UsageError("Not enough Feedback arguments")
            opt += 1
            o.feedback = c_atoi(argv[opt])
            feedback_set = True
        elif arg in ("-o", "-C"):
            opt += 1
            if n < opt + 1:
                raise UsageError(
                    "Not enough Report arguments" if arg == "-o" else "Not enough Confidence Report arguments"
                )
            while opt < n and not _is_option(argv[opt]):
                name = argv[opt]
                if arg == "-o":
                    if name == "none":
                        o.reports = set()
                    elif name in REPORTS:
                        o.reports ^= REPORTS[name]
                    else:
                        o.warnings.append(f"Unknown report '{name}'")
                else:
                    if name == "none":
                        o.confidence = set()
                    elif name in CONFIDENCE_REPORTS:
                        o.confidence ^= {name}
                    else:
                        o.warnings.append(f"Unknown confidence report '{name}'")
                opt += 1
            opt -= 1
            o.reports_set = True
        elif arg == "-O":
            if n <= opt + 1:
                raise UsageError("Output directory not specified")
            opt += 1
            o.out_dir = argv[opt]
        elif arg == "-n":
            if n <= opt + 1:
                raise UsageError("Output name not specified")
            opt += 1
            o.out_name = argv[opt]
        elif arg == "-s":
            o.case_sensitive = True
        elif arg == "-m":
            o.reduce = set()
            while opt + 1 < n and not _is_option(argv[opt + 1]):
                opt += 1
                if argv[opt] not in ("ref", "hyp"):
                    raise UsageError(f"Unrecognized -m option '{argv[opt]}'")
                o.reduce.add(argv[opt])
            if not o.reduce:
                o.reduce = {"ref"}
        elif arg == "-F":
            o.frag_corr = True
        elif arg == "-D":
            o.opt_del = True
        elif arg == "-e":
            if opt + 1 >= n or _is_option(argv[opt + 1]):
                raise UsageError("Argument required for character encoding\n")
            opt += 1
            if argv[opt] not in ENCODINGS:
                raise UsageError(f"Unrecognized character encoding option '{argv[opt]}'")
            o.encoding = argv[opt]
            if opt + 1 < n and not _is_option(argv[opt + 1]):
                if argv[opt + 1] not in LOCALIZATIONS:
                    raise UsageError(f"Optional case conversion localization failed /{argv[opt + 1]}/\n")
                opt += 1
                o.localization = argv[opt]
        elif arg == "-p":
            o.pipe_out = True
            o.reports_set = True
        elif arg == "-P":
            o.pipe_in = True
        elif arg == "-T":
            o.time_align = True
        elif arg == "-c":
            o.char_align = {"on"}
            while opt + 1 < n and not _is_option(argv[opt + 1]):
                opt += 1
                if argv[opt] not in ("NOASCII", "DH"):
                    raise UsageError(f"Unrecognized character alignment option '{argv[opt]}'")
                o.char_align.add(argv[opt])
        elif arg == "-w":
            if n <= opt + 1:
                raise UsageError("Word Weight list file not specified")
            opt += 1
            o.weights = argv[opt]
        elif arg == "-S":
            opt += _parse_segmentation(argv, opt, o)
        elif arg in ("-L", "-d"):
            o.not_done.append(arg)
            while opt + 1 < n and not _is_option(argv[opt + 1]):
                opt += 1
        else:
            raise IllegalArgumentError(arg)
        opt += 1
    if opt < n:
        raise IllegalArgumentError(argv[opt])
    if o.pipe_out:
        o.feedback = 0
        if "stdout" in o.reports:
            raise UsageError("Error: output can not be both to stdout and a pipe")
    if not o.reports and not o.reports_set:
        o.reports = {"sum", "stdout"}
    if "stdout" in o.reports and o.reports_set and o.feedback > 0 and not feedback_set:
        o.feedback = 0
    _check(o)
    return o


def _check(o: Options) -> None:
    from iescore.pipeline.speech.sclite.trn import encode_text

    if not o.pipe_in and not (o.ref is not None and o.hyps):
        raise UsageError("Input not specified, use transcription input or piped input")
    if o.ref is None and o.hyps:
        raise UsageError("Hypothesis input(s) specified, but no reference file")
    if o.ref is not None and not o.hyps:
        raise UsageError("Reference input specified, but no Hypothesis input(s).")
    if o.ref is not None:
        if not os.path.exists(encode_text(o.ref)):
            raise UsageError(f"Reference file '{o.ref}' does not exist")
        for h in o.hyps:
            if not os.path.exists(encode_text(h.path)):
                raise UsageError(f"Hypothesis file '{h.path}' does not exist")
        o.ref_format = o.ref_format or "trn"
        if o.ref_format not in ("trn", "ctm", "tmk", "stm"):
            raise UsageError(f"Reference file format '{o.ref_format}' not acceptable")
        for h in o.hyps:
            if h.format not in ("trn", "ctm", "tmk", "txt"):
                raise UsageError(f"Hypothesis file format '{h.format}' not acceptable")
        if o.id_type is None and (o.ref_format == "trn" or any(h.format == "trn" for h in o.hyps)):
            raise UsageError("Required utterance id (option -i) for transcript mode")
        if o.time_align:
            if o.ref_format != "ctm":
                raise UsageError("Time-mediated alignments require the reference file to be in CTM format")
            if any(h.format != "ctm" for h in o.hyps):
                raise UsageError("Time-mediated alignments require the hypothesis file to be in CTM format")
    if o.id_type is not None and o.id_type not in ID_TYPES:
        raise UsageError(f"Utterance id type '{o.id_type}' not acceptable")
    if o.reduce:
        if o.ref_format != "stm":
            raise UsageError("-m flag requires stm format reference file")
        if any(h.format != "ctm" for h in o.hyps):
            raise UsageError("-m flag requires ctm format hypothesis file")
    if len(o.segmentation) > 1:  # sclite stops at the first alignment: "unknown alignment procedure"
        raise UsageError("-S algo1 and -S algo2 are exclusive")
    if o.weights is not None:
        for flag, on in (("-T", o.time_align), ("-c", o.char_align), ("-S", o.segmentation)):
            if on:
                raise UsageError(f"Flags '{flag}' and '-w' are mutually exclusive\n")
    if "wws" in o.reports and o.weights is None and "-L" not in o.not_done:
        raise UsageError(
            "-o wws option specified without a word weight file (via -w) or LM file (via -L) specified\n"
        )


def _parse_segmentation(argv: list[str], opt: int, o: Options) -> int:
    """``-S algo1|algo2 LEXICON [ASCIITOO]`` read from ``argv[opt]`` (the ``-S``) as sclite reads it;
    how many arguments it took after the ``-S``. As sclite, naming an algorithm twice toggles it off
    (``-S algo1 L -S algo1 L`` infers nothing) and the lexicon must exist."""
    from iescore.pipeline.speech.sclite.trn import encode_text

    n = len(argv)
    opt += 1
    if n < opt + 2:
        raise UsageError("Not enough Inferred Segmentation arguments")
    if _is_option(argv[opt]):
        raise UsageError("No Inferred Segmentation algorithm")
    if argv[opt] not in ("algo1", "algo2"):
        raise UsageError(f"Unrecognize inferred segmentation algorithm '{argv[opt]}'")
    o.segmentation ^= {argv[opt]}
    opt += 1
    if _is_option(argv[opt]):
        raise UsageError("No Inferred Segmentation lexicon")
    if not os.path.exists(encode_text(argv[opt])):
        raise UsageError(f"Inferred Segmentation lexicon '{argv[opt]}' does not exist")
    o.lexicon = argv[opt]
    taken = 2
    if opt + 1 < n and not _is_option(argv[opt + 1]):
        if argv[opt + 1] != "ASCIITOO":
            raise UsageError(f"Unrecognized Inferred Segmentation flag '{argv[opt + 1]}'")
        o.ascii_too = True
        taken = 3
    return taken


def _usage_error(message: str) -> int:
    from iescore.tasks.cli.common import EXIT_INPUT

    sys.stderr.write(USAGE)
    sys.stderr.write(f"\nsclite: Error, {message}\n\n")
    return EXIT_INPUT


def sclite_main(argv: list[str]) -> int:
    """Run ``iescore sclite ARGV``; the exit status."""
    from iescore.pipeline.core.errors import InputError
    from iescore.tasks.cli.common import EXIT_INPUT

    if argv in (["--help"], ["-help"]):
        sys.stdout.write(USAGE)
        raise SystemExit(0)  # as argparse ends every other command's --help
    from iescore.pipeline.speech.sclite.trn import decode_bytes

    # Arguments as the bytes sclite sees, one character a byte (paths and titles are copied into reports).
    argv = [decode_bytes(os.fsencode(arg)) for arg in argv]
    try:
        options = parse(argv)
    except IllegalArgumentError as error:
        sys.stderr.write(USAGE)
        print(f"Illegal argument: {error}")
        return EXIT_INPUT
    except UsageError as error:
        return _usage_error(str(error))
    for warning in options.warnings:
        print(warning, file=sys.stderr)
    if options.not_done:
        option = options.not_done[0]
        print(f"iescore sclite: {NOT_DONE[option]}; option {option} refused", file=sys.stderr)
        return EXIT_INPUT
    try:
        return _run(options)
    except UsageError as error:
        return _usage_error(str(error))
    except InputError as error:
        print(f"iescore sclite: {error.render()}", file=sys.stderr)
        return EXIT_INPUT


def _run(o: Options) -> int:
    from iescore.pipeline.speech.sclite.trn import Encoding

    encoding = Encoding(o.encoding, o.localization)
    sys.stdout.flush()
    out = sys.stdout.buffer
    try:
        return _score(o, encoding, out)
    finally:
        out.flush()


def _score(o: Options, encoding: Encoding, out: BinaryIO) -> int:
    from iescore.pipeline.core.errors import InputError
    from iescore.pipeline.speech.sclite import render
    from iescore.pipeline.speech.sclite.table import TableMemory
    from iescore.pipeline.speech.sclite.trn import TrnOptions, encode_text, score_trn

    if o.feedback > 0:
        out.write(b"sclite: 2.10 TK Version 1.3\n")
    date = time.ctime()
    piped = []
    if o.pipe_in:
        if o.feedback >= 1:
            out.write(b"Loading Piped input. . . ")
        piped = _piped_systems()
        if o.feedback >= 1:
            out.write(f"{len(piped)} systems loaded.\n".encode("ascii"))
    weights = _word_weights(o, out)
    segmentation = _segmentation(o, encoding)
    memory = TableMemory()
    systems = []
    if o.pipe_in:
        for system, created in piped:
            systems.append(system)
            _write_reports(
                render.report_files(
                    system,
                    _output_root(o, system.hyp_file),
                    o.reports,
                    o.line_width,
                    encoding,
                    created,
                    memory,
                ),
                o,
                out,
            )
    for h in o.hyps:
        if o.feedback >= 1:
            out.write(encode_text(f"Begin alignment of Ref File: '{o.ref}' and Hyp File: '{h.path}'\n"))
        if o.ref_format == "stm" and h.format == "txt":
            raise UsageError("Alignments via diff have been disabled")
        if o.ref_format == "trn" and h.format == "trn":
            system = score_trn(
                o.ref,
                h.path,
                h.title,
                TrnOptions(
                    o.id_type or "wsj",
                    o.case_sensitive,
                    encoding,
                    o.opt_del,
                    o.frag_corr,
                    bool(o.char_align),
                    "NOASCII" in o.char_align,
                    "DH" in o.char_align,
                    weights,
                    segmentation,
                ),
                sequence_start=sum(len(s.segments) for s in systems),
            )
            # As sclite, an utterance segmented by -S is not marked as character-aligned (on stm it is).
            system.char_align = bool(o.char_align) and segmentation is None
        elif h.format == "ctm" and o.ref_format in ("stm", "ctm"):
            system = _score_timed(
                o, h, encoding, sum(len(s.segments) for s in systems), weights, segmentation
            )
            system.char_align = bool(o.char_align)
        else:
            raise InputError(
                h.path,
                0,
                f"{h.format} hypotheses against a {o.ref_format} reference: not scored by iescore sclite yet",
            )
        if o.feedback >= 1:
            out.write(encode_text(render.progress(system)))
        systems.append(system)
        _write_reports(
            render.report_files(
                system, _output_root(o, h.path), o.reports, o.line_width, encoding, date, memory
            ),
            o,
            out,
        )
        _write_confidence(system, _output_root(o, h.path), o, out)
    if o.pipe_out:
        for system in systems:
            out.write(encode_text(render.sgml_text(system, date, "\n", "\n")))
    if o.feedback >= 1:
        out.write(b"\nSuccessful Completion\n")
    return 0


def _word_weights(o: Options, out: BinaryIO) -> WordWeights | None:
    """``-w``: the word-weight list (``pipeline.speech.sclite.weights``), read before any alignment."""
    from iescore.pipeline.core.errors import InputError
    from iescore.pipeline.speech.sclite.trn import encode_text, read_text
    from iescore.pipeline.speech.sclite.weights import UNITY, read_word_weights

    if o.weights is None:
        return None
    if o.feedback >= 1:
        out.write(encode_text(f"Loading WWL file '{o.weights}'\n"))
    if o.weights != UNITY and not os.path.isfile(encode_text(o.weights)):
        raise InputError(o.weights, 0, "word-weight list file (-w) not found")
    return read_word_weights(o.weights, None if o.weights == UNITY else read_text(o.weights))


def _segmentation(o: Options, encoding: Encoding) -> Segmentation | None:
    """``-S``: the algorithm and its lexicon (``pipeline.speech.sclite.segmentation``)."""
    from iescore.pipeline.speech.sclite.segmentation import read_lexicon
    from iescore.pipeline.speech.sclite.trn import read_text
    from iescore.pipeline.speech.stm_score import byte_characters

    if not o.segmentation or o.lexicon is None:
        return None
    (algorithm,) = o.segmentation
    return read_lexicon(
        o.lexicon, read_text(o.lexicon), algorithm, o.ascii_too, byte_characters(encoding.name)
    )


def _piped_systems() -> list[tuple[ScoredSystem, str]]:
    """``-P``: the systems of the sclite sgml alignments on standard input (``pipeline.speech.sgml``),
    read one character a byte as every other input, each with its sgml's creation date (the reports
    print that one, or none)."""
    from iescore.pipeline.speech.sclite.model import from_sgml
    from iescore.pipeline.speech.sclite.trn import decode_bytes
    from iescore.pipeline.speech.sgml import read_sgml

    systems = []
    for sgml in read_sgml(decode_bytes(sys.stdin.buffer.read()).splitlines(keepends=True)):
        timed = any(path.r_t1 is not None for path in sgml.paths)
        system = from_sgml(
            sgml.paths,
            title=sgml.title,
            ref_file=sgml.ref_fname,
            hyp_file=sgml.hyp_fname,
            ref_format="stm" if timed else "trn",
            hyp_format="ctm" if timed else "trn",
            frag_corr=sgml.frag_corr,
            opt_del=sgml.opt_del,
        )
        systems.append((system, sgml.creation_date))
    return systems


def _score_timed(
    o: Options,
    h: Hyp,
    encoding: Encoding,
    sequence_start: int,
    weights: WordWeights | None,
    segmentation: Segmentation | None,
) -> ScoredSystem:
    """A ctm hypothesis against an stm or ctm reference (``pipeline.speech.stm_score``); sclite's
    warnings about channels without hypothesis words go to stderr. As sclite, ``-S`` segments only
    against an stm reference (a ctm reference ignores it)."""
    from iescore.pipeline.speech.sclite.trn import read_text
    from iescore.pipeline.speech.stm_score import StmOptions, byte_characters, score_ctm_ctm, score_stm_ctm

    if o.ref_format != "stm":
        segmentation = None

    options = StmOptions(
        opt_del=o.opt_del,
        frag_corr=o.frag_corr,
        reduce_ref="ref" in o.reduce,
        reduce_hyp="hyp" in o.reduce,
        fold=None if o.case_sensitive else encoding.lower,
        characters=byte_characters(encoding.name),
        char_align=bool(o.char_align) and segmentation is None,  # -S splits words itself (stm only)
        char_no_ascii="NOASCII" in o.char_align,
        char_del_hyphen="DH" in o.char_align,
        weights=weights,
        segmentation=segmentation,
    )
    ref_text, hyp_text = read_text(o.ref), read_text(h.path)
    if o.ref_format == "ctm":
        return score_ctm_ctm(
            o.ref, h.path, h.title, options, o.time_align, ref_text, hyp_text, sequence_start
        )
    system, warnings = score_stm_ctm(o.ref, h.path, h.title, options, ref_text, hyp_text, sequence_start)
    for warning in warnings:
        print(warning, file=sys.stderr)
    return system


def _write_reports(files: list, o: Options, out: BinaryIO) -> None:
    """Write each report to its file, or to ``out`` with ``-o ... stdout``, as the bytes they stand
    for (``pipeline.speech.sclite.trn.encode_text``)."""
    from iescore.pipeline.speech.sclite.trn import encode_text

    for path, line, make in files:
        if path is None or make is None:
            out.write(encode_text(line))
            continue
        text = make()
        if "stdout" in o.reports:
            if line.startswith("    Writing string alignments") and o.feedback >= 1:
                out.write(b"    Writing string alignments to 'stdout'\n")
            out.write(encode_text(text))
            continue
        with open(encode_text(path), "wb") as handle:
            handle.write(encode_text(text))
        if o.feedback >= 1:
            out.write(encode_text(line))


def _write_confidence(system: ScoredSystem, root: str, o: Options, out: BinaryIO) -> None:
    """``-C``: the confidence analyses (``pipeline.speech.sclite.confidence``) in sclite's order. As
    sclite, a hypothesis without confidences is skipped with a message at ``-f 1`` only (at ``-f 0``
    the files are written, every confidence 0)."""
    from iescore.pipeline.speech.sclite import confidence
    from iescore.pipeline.speech.sclite.trn import encode_text

    kinds = [
        ("det", "DET Curve to '{root}.det.[plt,dat]'", "DET Curve"),
        ("bhist", "Binned Histogram '{root}.bhist.[plt,dat1]'", "Binned Histogram"),
        ("hist", "Confidence Histogram '{root}.hist.[plt,dat]'", "Confidence Histogram"),
        ("sbhist", "Scaled Binned Histogram '{root}.sbhist.[plt,dat]'", "Scaled Binned Histogram"),
    ]
    for kind, writing, name in kinds:
        if kind not in o.confidence:
            continue
        if o.feedback >= 1:
            if not confidence.available(system):
                out.write(encode_text(f"    Skipping {name}, no confidence scores supplied.\n"))
                continue
            out.write(encode_text("    Writing " + writing.format(root=root) + "\n"))
        warning = ""
        if kind == "det":
            files = confidence.det_files([system], root)
        elif kind == "bhist":
            files, warning = confidence.bhist_files(system, root)
        elif kind == "hist":
            files, warning = confidence.hist_files(system, root)
        else:
            files = confidence.sbhist_files(system, root)
        if warning:
            out.flush()
            sys.stderr.write(warning)
        for path, text in files:
            with open(encode_text(path), "wb") as handle:
                handle.write(encode_text(text))


def _output_root(o: Options, hyp_path: str) -> str:
    """Where a system's reports go: sclite's ``DIR/NAME`` (``-O``, ``-n``, else the hypothesis'
    directory and file name). With several hypotheses and ``-n`` every system writes the same
    files, the last one staying, as sclite 2.10 does."""
    slash = hyp_path.rfind("/")
    hdir, hroot = (hyp_path[:slash], hyp_path[slash + 1 :]) if slash >= 0 else (".", hyp_path)
    name = o.out_name if o.out_name is not None else hroot
    if o.out_dir is not None or hdir != ".":
        return f"{o.out_dir if o.out_dir is not None else hdir}/{name}"
    return name


def add_sclite_command(commands: argparse._SubParsersAction) -> None:
    """``iescore sclite``: listed in the help; its arguments are sclite's, read by :func:`sclite_main`."""
    sub = commands.add_parser(
        "sclite",
        help="score speech recognition output as NIST sclite 2.10 does (its options and reports)",
        description="A drop-in for NIST sclite 2.10: the same options (-r, -h, -i, -o, -O, -n, -e, -D, -F, "
        "-s, -l, -f, -p, -w, -S ...) and the same report files. 'iescore sclite --help' prints sclite's "
        "usage.",
        add_help=False,
    )
    sub.add_argument(
        "arguments",
        nargs=argparse.REMAINDER,
        help="sclite 2.10's options (-r REF [FMT] -h HYP [FMT [TITLE]] -i ID -o REPORTS ...), read as sclite "
        "reads them; 'iescore sclite --help' prints them",
    )
    sub.set_defaults(handler=lambda args: sclite_main(args.arguments))
