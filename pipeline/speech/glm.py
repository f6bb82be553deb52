"""NIST SCTK global mapping files (GLM): the rule language of ``rfilter1`` and the ``csrfilt.sh`` filter.

A GLM is a list of string-rewriting rules ``A => B`` or ``A => B / C __ D`` (GLMRules.txt §1) used to
normalise reference and hypothesis transcripts before scoring (``OK`` -> ``OKAY``, ``GONNA`` -> ``GOING
TO``, ``HE'S`` -> ``{HE IS / HE HAS}``). This module reads such files exactly as SCTK's ``rfilter1`` does
(``src/rfilter1/include/grules2.c``), rewrites strings exactly as ``apply_rules2`` does (``aprules2.c``),
and reproduces the line handling of ``csrfilt.sh`` (version 1.17) for the ``txt``, ``trn`` and ``stm``
input types, byte for byte on SCTK's own test files.

Public entry points: :func:`parse_glm` / :func:`read_glm` build a :class:`GlobalMap`;
:func:`apply_glm` rewrites one string; :func:`apply_glm_pieces` gives the same rewrite as pieces that
keep the source offsets; :func:`filter_lines` is ``csrfilt.sh``; :func:`expand_alternatives` expands
the ``{A / B}`` alternations that rules may output.

The rule syntax (GLMRules.txt §1): one rule a line, ``A => B`` or ``A => B / C __ D``; a field may be
enclosed in ``[ ]`` (or ``" "``) to keep its outer blanks; ``B`` may hold alternatives ``{X / Y}``,
which must then be in brackets (``[{X / Y}]``) so that their ``/`` is not the context slash. What
rfilter1 would silently read as something else is refused with the rule's line: an empty ``A`` when
the file is read, a context without ``__`` or unbalanced braces as soon as a text holds the rule's
``A`` (see :func:`parse_glm`).

Everything here is pure Python (stdlib only) and knows nothing of Luigi.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from iescore.pipeline.core.corpus import read_input
from iescore.pipeline.core.errors import InputError

# --- character classes of the C and Perl originals ---------------------------------------------------

# C isspace() in the "C" locale (rfilter1 never calls setlocale) and Perl's \s on byte strings: ASCII
# white space only. Python's \s would also take U+00A0, U+2028 ... which SCTK leaves alone.
_C_SPACE = " \t\n\v\f\r"
_S = r"[ \t\n\r\f\v]"
_N = r"[^ \t\n\r\f\v]"
# toupper() in the "C" locale and Perl's tr/a-z/A-Z/: ASCII letters only, so the length never changes.
_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")

_TRUE_VALUES = {"T", "YES", "TRUE"}
_FALSE_VALUES = {"F", "NO", "FALSE"}

# csrfilt.sh: `;;  INPUT_DEPENDENT_APPLICATION = "<REGEXP>"` (GLMRules.txt §5). The keyword is matched
# case-sensitively and ";;" literally (not the file's comment token), as the Perl in csrfilt.sh does.
_INPUT_DEPENDENT = re.compile(rf'^;;{_S}+INPUT_DEPENDENT_APPLICATION{_S}*={_S}*"([^"]*)"')

# csrfilt.sh input types this module implements, and the name each has inside csrfilt (and hence in
# the INPUT_DEPENDENT_APPLICATION regexes of real GLMs: "txt", not "text").
_CSRFILT_TYPES = {"text": "txt", "txt": "txt", "trn": "trn", "stm": "stm"}


def ascii_upper(text: str) -> str:
    return text.translate(_UPPER)


def _is_space(char: str) -> bool:
    return char != "" and char in _C_SPACE


# --- the parsed rule file -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One rule ``lhs => rhs / left __ right``: brackets and quotes already removed (GLMRules.txt §1).

    ``problem`` says what is wrong with a rule rfilter1 would read into something else than was
    written (a ``/`` inside ``{A / B}`` without brackets, a context without ``__``, an unbalanced
    brace); such a rule is an :class:`InputError` as soon as its ``lhs`` occurs in a text (see
    :func:`parse_glm`).
    """

    lhs: str
    rhs: str
    left: str = ""
    right: str = ""
    line: int = 0
    problem: str = field(default="", compare=False)


@dataclass(frozen=True)
class _Matcher:
    regex: re.Pattern[str] | None
    group_rule: tuple[int, ...]  # regex group number -> index into GlobalMap.rules


@dataclass(frozen=True)
class GlobalMap:
    """A parsed GLM: its rules in file order and the values of its ``*`` header lines (GLMRules.txt §4).

    Defaults are rfilter1's: name = the file name, format NIST1, copy_no_hit true, case_sensitive
    *true* (real GLMs say ``* case_sensitive = 'F'``), max_nrules 400. ``comment`` is the comment token
    (the first token of the first line, §3). ``input_dependent`` lists the regexes of the
    ``INPUT_DEPENDENT_APPLICATION`` lines in file order; ``selected_for`` is None when every rule of
    the file is present, else the csrfilt input type the rules were selected for (:meth:`for_input`).
    """

    rules: tuple[Rule, ...]
    name: str
    desc: str = ""
    format: str = "NIST1"
    copy_no_hit: bool = True
    case_sensitive: bool = True
    max_nrules: int = 400
    comment: str = ""
    input_dependent: tuple[str, ...] = ()
    selected_for: str | None = None
    source: str = "<glm>"
    lines: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def for_input(self, input_format: str, purpose: str = "") -> GlobalMap:
        """The rules csrfilt.sh keeps for ``-i input_format`` (and ``-t purpose``), GLMRules.txt §5.

        csrfilt drops every line of the file from an ``INPUT_DEPENDENT_APPLICATION = "RE"`` line up to
        the next such line unless RE (lower-cased) matches the input type or the purpose, then runs
        rfilter1 on what is left. ``"text"`` is spelled ``"txt"`` as csrfilt names it; any other name
        (``"ctm"``, ``"rttm"``) is used as given. An empty purpose is csrfilt's default, so a regex
        that matches the empty string always applies. A map built without its file's lines (not by
        :func:`parse_glm`) is returned as it is.
        """
        if not self.lines:
            return self
        kind = _CSRFILT_TYPES.get(input_format.lower(), input_format.lower())
        key = (kind, purpose.lower())
        cache: dict[tuple[str, str], GlobalMap] = self.__dict__.setdefault("_selections", {})
        if key not in cache:
            kept = _select_lines(self.lines, kind, purpose.lower(), self.source)
            cache[key] = _parse_numbered(kept, self.source, self.lines, selected_for=kind)
        return cache[key]

    @cached_property
    def _matcher(self) -> _Matcher:
        for rule in self.rules:
            if rule.problem:  # only a whole file's sections can hold one (see parse_glm)
                raise InputError(
                    self.source, rule.line, f"{rule.problem} (its section applies: select it with for_input)"
                )
        return _build_matcher(self.rules, self.case_sensitive)


def parse_glm(text: str, source: str = "<glm>") -> GlobalMap:
    """Parse GLM text as rfilter1's ``get_rules2`` does; every rule of the file is kept.

    Raises :class:`InputError` (source, line, what was expected) where rfilter1 stops with an error: a
    data line without ``=>``, a line that holds only a comment not starting the line, a header line
    without a quoted value, a header FORMAT other than NIST1, more rules than ``max_nrules``, an empty
    file. Also (stricter than rfilter1, which reads anything else as false) a COPY_NO_HIT or
    CASE_SENSITIVE value outside T/YES/TRUE/F/NO/FALSE, a MAX_NRULES value that is not a number, an
    INPUT_DEPENDENT_APPLICATION regex that does not compile, and a rule with an empty left side (it
    could never apply).

    Rules that rfilter1 reads into something other than GLMRules.txt's ``A => B / C __ D`` are marked
    (:attr:`Rule.problem`) here, and refused (:class:`InputError` naming the rule's file and line) as
    soon as a text to rewrite holds their left side (:func:`apply_glm`, and so the ``glm`` filter,
    content normalization and text alignment). They are: a context slash (the last ``/`` of the line
    after ``=>``, outside brackets) without exactly one ``__`` after it, or with a ``_`` before its
    ``__`` (rfilter1 would take it for the slot, or cut ``B`` at a ``/`` meant inside ``{A / B}``); an
    output whose braces do not balance or with only one of its enclosing brackets; a second ``=>``.
    The whole file is not refused for them because NIST's own en20030506.glm has one (line 1764,
    ``[WEBSTER'S] => [{WEBSTER'S / WEBSTER IS / WEBSTER HAS}``, cut short) in its ``ctm`` section
    (which SCTK's tests select); the file serves every text without that word. A ``/`` before ``=>``
    (``/SLASH => SLASH`` in SCTK's example.glm: the output is empty) is rfilter1's documented reading
    and is kept.
    """
    if not text:
        raise InputError(source, 0, "the rule file is empty; its first line must hold the comment token")
    # rfilter1 reads with fgets(), so only "\n" ends a line; a "\r" before it is trailing white space.
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    numbered = list(enumerate(lines, start=1))
    for number, line in numbered:
        found = _INPUT_DEPENDENT.match(line)
        if found:
            _compile_selector(found.group(1), source, number)
    return _parse_numbered(numbered, source, tuple(lines), selected_for=None)


def read_glm(path: str | Path, encoding: str = "utf-8") -> GlobalMap:
    """Read and parse a GLM file; undecodable bytes are an :class:`InputError` naming their line."""
    return parse_glm(read_input(path, encoding, "rule file"), source=str(path))


def malformed_rule_warnings(glm: GlobalMap) -> list[str]:
    """One ``file:line: warning`` for each malformed rule (:attr:`Rule.problem`) left in a whole file:
    one in an INPUT_DEPENDENT_APPLICATION section, refused when that section is selected (any other
    is refused when the file is read), said when the file is read, so it is never silent."""
    return [
        f"{glm.source}:{rule.line}: warning: {rule.problem}; an error wherever its section "
        "(INPUT_DEPENDENT_APPLICATION) is selected"
        for rule in glm.rules
        if rule.problem
    ]


def _select_lines(lines: tuple[str, ...], kind: str, purpose: str, source: str) -> list[tuple[int, str]]:
    kept: list[tuple[int, str]] = []
    applies = True
    for number, line in enumerate(lines, start=1):
        found = _INPUT_DEPENDENT.match(line)
        if found:
            selector = _compile_selector(found.group(1), source, number)
            applies = bool(selector.search(kind) or selector.search(purpose))
        if applies:
            kept.append((number, line))
    return kept


def _compile_selector(expression: str, source: str, line: int) -> re.Pattern[str]:
    try:
        return re.compile(ascii_upper(expression).lower())
    except re.error as error:
        raise InputError(
            source, line, f"INPUT_DEPENDENT_APPLICATION expects a regular expression: {error}"
        ) from None


def _parse_numbered(
    numbered: list[tuple[int, str]], source: str, all_lines: tuple[str, ...], selected_for: str | None
) -> GlobalMap:
    if not numbered:
        if selected_for is None:
            raise InputError(source, 0, "the rule file is empty; its first line must hold the comment token")
        raise InputError(source, 0, f"no line of the rule file applies to input type {selected_for!r}")
    # §3: the comment token is the first token of the first line, cut at the first character that is
    # not printable ASCII (get_comment_flag uses isgraph, so a leading blank gives an empty token).
    first = numbered[0][1]
    cut = 0
    while cut < len(first) and "!" <= first[cut] <= "~":
        cut += 1
    comment = first[:cut]
    header = _Header(name=source)
    rules: list[Rule] = []
    # A malformed rule is refused where it is read, unless it sits in an INPUT_DEPENDENT_APPLICATION
    # section and the whole file is read: then it is refused when its section is selected (for_input).
    conditional = next(
        (number for number, line in enumerate(all_lines, start=1) if _INPUT_DEPENDENT.match(line)),
        len(all_lines) + 1,
    )
    # The first line only gives the comment token: rfilter1 never reads it as a rule or a header.
    for number, raw in numbered[1:]:
        line = raw.rstrip(_C_SPACE)  # del_eol + prtrim2
        if not line or (comment and line.startswith(comment)):
            continue
        if line[0] == "*":
            _parse_header(line, header, source, number)
            continue
        if comment:
            at = line.find(comment)  # remove_comments: blank everything from the first comment token on
            if at >= 0:
                line = line[:at] + " " * (len(line) - at)
        rule = _parse_rule(line, source, number)
        if rule.problem and (selected_for is not None or number < conditional):
            raise InputError(source, number, rule.problem)
        if len(rules) >= header.max_nrules:
            raise InputError(
                source,
                number,
                f"more rules than max_nrules = {header.max_nrules}; raise it with a header line "
                "* max_nrules = 'N'",
            )
        rules.append(rule)
    return GlobalMap(
        rules=tuple(rules),
        name=header.name,
        desc=header.desc,
        format=header.format,
        copy_no_hit=header.copy_no_hit,
        case_sensitive=header.case_sensitive,
        max_nrules=header.max_nrules,
        comment=comment,
        input_dependent=tuple(
            found.group(1) for found in map(_INPUT_DEPENDENT.match, all_lines) if found is not None
        ),
        selected_for=selected_for,
        source=source,
        lines=all_lines,
    )


@dataclass
class _Header:
    """The ``*`` line values while a file is read, with rfilter1's defaults (get_rules2)."""

    name: str
    desc: str = ""
    format: str = "NIST1"
    copy_no_hit: bool = True
    case_sensitive: bool = True
    max_nrules: int = 400


def _parse_header(line: str, header: _Header, source: str, number: int) -> None:
    """An ``*`` line (§4), read as r_process_aux_line does.

    The value is what follows the first quote (single or double) up to the next quote of either kind
    or the end of the line. Each keyword is recognised by a substring search of the whole upper-cased
    line, so one line can set several fields (``* desc "NAME list"`` also sets the name), as in rfilter1.
    """
    starts = [at for at in (line.find('"'), line.find("'")) if at >= 0]
    if not starts:
        raise InputError(
            source, number, "expected a header line '* keyword = \"value\"' with the value in quotes"
        )
    rest = line[min(starts) + 1 :]
    ends = [at for at in (rest.find('"'), rest.find("'")) if at >= 0]
    value = rest[: min(ends)] if ends else rest
    upper = ascii_upper(line)
    if "NAME" in upper:
        header.name = value
    if "DESC" in upper:
        header.desc = value
    if "FORMAT" in upper:
        # apply_rules2 refuses anything but NIST1 (which already allows contexts, whatever §4 says of
        # NIST2); the value is compared case-insensitively here as §4 promises.
        if ascii_upper(value) != "NIST1":
            raise InputError(
                source,
                number,
                f"rfilter1 applies only FORMAT 'NIST1' rules (they may have contexts); this header "
                f"line sets FORMAT to {value!r}",
            )
        header.format = "NIST1"
    if "MAX_NRULES" in upper:
        digits = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", value)  # atol()
        # atol() would wrap a number beyond a C long; a count of rules has no use for 19 digits.
        if digits is None or digits.group(1).startswith("-") or len(digits.group(1).lstrip("+0")) > 18:
            shown = value if len(value) <= 40 else value[:37] + "..."
            raise InputError(
                source, number, f"MAX_NRULES expects a whole number from 0 to 10**18 - 1, found {shown!r}"
            )
        header.max_nrules = int(digits.group(1))
    for keyword, key in (("COPY_NO_HIT", "copy_no_hit"), ("CASE_SENSITIVE", "case_sensitive")):
        if keyword in upper:
            flag = ascii_upper(value)
            if flag not in _TRUE_VALUES | _FALSE_VALUES:
                raise InputError(
                    source, number, f"{keyword} expects T, YES, TRUE, F, NO or FALSE, found {value!r}"
                )
            setattr(header, key, flag in _TRUE_VALUES)


def _parse_rule(line: str, source: str, number: int) -> Rule:
    """One data line, cut into its fields by the pointer walk of r_process_data_line.

    The walk is kept as it is because it decides what real rule files mean: the context slash is the
    *last* ``/`` of the line unless a ``]`` follows it before any ``[``; the words ``=>`` and ``__``
    end at the next blank, so ``__A [ ]`` has right context " " and ``A =>B`` has an empty output; a
    field loses one pair of enclosing ``[ ]`` or ``" "``; and a ``/`` in the left-hand side with no
    context after it cuts the output short (``/SLASH => SLASH`` deletes "/SLASH").
    """
    if not line.strip(_C_SPACE):
        raise InputError(
            source,
            number,
            "expected a rule 'A => B' but the line holds only a comment (a comment line must start "
            "with the comment token in column 1)",
        )
    arrow = line.find("=>")
    if arrow < 0:
        raise InputError(
            source,
            number,
            f"expected a rule 'A => B' or 'A => B / C __ D'; there is no '=>' in {line.strip()!r}",
        )

    def char(at: int) -> str:
        return line[at] if 0 <= at < len(line) else ""

    def unwrap(start: int, end: int) -> tuple[int, int]:
        if (char(start) == "[" and char(end) == "]") or (char(start) == '"' and char(end) == '"'):
            return start + 1, end - 1
        return start, end

    def last_text(stop: int) -> int:  # prtrim
        while stop >= 0 and _is_space(char(stop)):
            stop -= 1
        return stop

    context = line.rfind("/")
    slot = -1
    if context >= 0:
        close, open_ = line.find("]", context), line.find("[", context)
        # C compares the two strchr() pointers, a missing one being NULL (below any real address).
        if (close + 1 if close >= 0 else 0) < (open_ + 1 if open_ >= 0 else 0):
            context = -1  # the slash is inside [ ]: no context
        else:
            slot = line.find("_", context)

    lhs = ""
    start = len(line) - len(line.lstrip(_C_SPACE))
    if start < arrow:
        end = arrow - 1
        while end > start and _is_space(char(end)):
            end -= 1
        start, end = unwrap(start, end)
        lhs = line[start : end + 1] if end >= start else ""

    rhs = ""
    start = arrow
    if context < 0:
        end = last_text(len(line) - 1)
    else:
        end = context - 1
        while _is_space(char(end)) and end > start:
            end -= 1
    while not _is_space(char(start)) and start < end:
        start += 1
    if start < end:
        while _is_space(char(start)):
            start += 1
        start, end = unwrap(start, end)
        rhs = line[start : end + 1] if end >= start else ""

    left = right = ""
    if context >= 0 and slot >= 0:
        start, end = context, slot - 1
        while _is_space(char(end)) and end > start:
            end -= 1
        while not _is_space(char(start)) and start < end:
            start += 1
        if start < end:
            while _is_space(char(start)):
                start += 1
            start, end = unwrap(start, end)
            left = line[start : end + 1] if end >= start else ""
        start, end = slot, last_text(len(line) - 1)
        while not _is_space(char(start)) and start < end:
            start += 1
        if start < end:
            while _is_space(char(start)):
                start += 1
            start, end = unwrap(start, end)
            right = line[start : end + 1] if end >= start else ""
    if not lhs:
        raise InputError(
            source,
            number,
            "empty left side: a rule 'A => B' needs a non-empty A (this one could never apply)",
        )
    problem = _rule_problem(line, arrow, context, rhs)
    return Rule(lhs=lhs, rhs=rhs, left=left, right=right, line=number, problem=problem)


def _rule_problem(line: str, arrow: int, context: int, rhs: str) -> str:
    """What rfilter1 would read differently from what the rule says, or ""; see :func:`parse_glm`."""
    if line.find("=>", arrow + 2) >= 0:
        return "a second '=>' in the rule: one rule 'A => B' a line expected"
    if context > arrow:
        part = line[context:]
        slot = part.find("__")
        if slot < 0:
            return (
                "'C __ D' expected after the context slash '/' (a '/' meant inside the output must be "
                "in brackets with its braces, '[{A / B}]', and a context needs its '__')"
            )
        if part.find("_") < slot:
            return "'_' before the context's '__': rfilter1 would take it for the '__'"
        # The right context is what follows the word holding "__"; in brackets or quotes it may hold
        # a "__" of its own, bare it is a second slot mark.
        right = re.sub(rf"^{_N}*{_S}*", "", part[slot:]).rstrip(_C_SPACE)
        enclosed = len(right) >= 2 and (right[0], right[-1]) in (("[", "]"), ('"', '"'))
        if "__" in right and not enclosed:
            return f"one '__' expected in the context after '/', found {part.count('__')}"
    depth = 0
    for char in rhs:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return f"unbalanced '}}' in the output {rhs!r}: '{{' expected before it"
    if depth:
        return f"unbalanced '{{' in the output {rhs!r}: each '{{' of an alternation needs its '}}'"
    if rhs.startswith("[") != rhs.endswith("]"):
        return f"unbalanced brackets around the output {rhs!r}: '[ ... ]' expected"
    after = line[arrow + 2 :]
    if after.count("[") != after.count("]"):
        # rfilter1 takes a "/" followed by a "[" that is never closed for a "/" inside brackets, so
        # 'B / [ __' becomes the output, context and all.
        return (
            f"unbalanced brackets in {after.strip()!r}: each field 'B', 'C', 'D' of 'A => B / C __ D' is "
            "bare or enclosed in '[ ]'"
        )
    return ""


# --- applying rules -----------------------------------------------------------------------------------


def _build_matcher(rules: tuple[Rule, ...], case_sensitive: bool) -> _Matcher:
    """One regex that does rfilter1's search: at each cursor position the first rule in file order wins.

    rfilter1 indexes rules by the first character of A and, at the cursor, tries that character's
    rules in file order (§2). Here every character's rules become one ``c(?:r1|r2|...)`` branch of a
    regex: Python's alternation also takes the first alternative that matches, and finditer() moves on
    exactly like the cursor (past A after a hit, one character otherwise). Contexts are lookarounds on
    the *input* string, as rfilter1 compares them with the input, never the output. Case-insensitive
    files are matched on an ASCII-upper-cased copy (strncasecmp in the C locale).
    """
    by_first: dict[str, list[int]] = {}
    for index, rule in enumerate(rules):
        if rule.lhs:
            key = rule.lhs[0] if case_sensitive else ascii_upper(rule.lhs[0])
            by_first.setdefault(key, []).append(index)
    fold = (lambda s: s) if case_sensitive else ascii_upper
    if not by_first:
        return _Matcher(None, ())
    group_rule = [-1]
    branches = []
    for first, indices in by_first.items():
        alternatives = []
        for index in indices:
            rule = rules[index]
            lhs = fold(rule.lhs)
            # The rest of A comes first so that the regex engine can skip a failing alternative on
            # its first character; the left context is then checked together with A by a lookbehind
            # (at the start of the string it fails, as it must: rfilter1 would read before its
            # buffer). The empty group at the end names the rule through Match.lastindex.
            pattern = re.escape(lhs[1:])
            if rule.left:
                pattern += f"(?<={re.escape(fold(rule.left) + lhs)})"
            if rule.right:
                pattern += f"(?={re.escape(fold(rule.right))})"
            alternatives.append(f"{pattern}()")
            group_rule.append(index)
        branches.append(f"{re.escape(first)}(?:{'|'.join(alternatives)})")
    return _Matcher(re.compile("|".join(branches)), tuple(group_rule))


def _hits(glm: GlobalMap, text: str) -> Iterator[tuple[int, int, Rule]]:
    matcher = glm._matcher
    if matcher.regex is None:
        return
    subject = text if glm.case_sensitive else ascii_upper(text)
    for found in matcher.regex.finditer(subject):
        yield found.start(), found.end(), glm.rules[matcher.group_rule[found.lastindex or 0]]


def apply_glm(glm: GlobalMap, text: str) -> str:
    """Rewrite ``text`` with every rule of ``glm`` as rfilter1's apply_rules2 does (§2).

    The output of a rule is never rescanned; characters no rule takes are copied (copy_no_hit) or
    dropped. No white space is added or removed: csrfilt.sh pads lines with blanks so that contexts
    like ``[ ]`` match at the ends, e.g. ``apply_glm(glm, " THE OK CAR ")``.
    """
    out: list[str] = []
    position = 0
    for start, end, rule in _hits(glm, text):
        if glm.copy_no_hit:
            out.append(text[position:start])
        out.append(rule.rhs)
        position = end
    if glm.copy_no_hit:
        out.append(text[position:])
    return "".join(out)


def apply_glm_pieces(glm: GlobalMap, text: str) -> list[tuple[str, int, int]]:
    """:func:`apply_glm` as pieces ``(output, source_start, source_end)`` in output order.

    A copied character gives ``(char, i, i + 1)``; a rule hit gives ``(B, start, end)`` for the input
    characters ``[start, end)`` its A consumed (B may be empty). Characters dropped because copy_no_hit
    is false give no piece. ``"".join(p[0] for p in pieces) == apply_glm(glm, text)``.
    """
    pieces: list[tuple[str, int, int]] = []
    position = 0
    for start, end, rule in _hits(glm, text):
        if glm.copy_no_hit:
            pieces.extend((text[i], i, i + 1) for i in range(position, start))
        pieces.append((rule.rhs, start, end))
        position = end
    if glm.copy_no_hit:
        pieces.extend((text[i], i, i + 1) for i in range(position, len(text)))
    return pieces


# --- csrfilt.sh -----------------------------------------------------------------------------------------

_TRN_LINE = re.compile(r"^(.*)(\(.*\))" + _S + "*$")
_STM_LABELLED = re.compile(rf"^({_S}*{_N}+{_S}*{_N}+{_S}*{_N}+{_S}*{_N}+{_S}*{_N}+{_S}*<{_N}+>)(.*)$")
_STM_PLAIN = re.compile(rf"^({_S}*{_N}+{_S}*{_N}+{_S}*{_N}+{_S}*{_N}+{_S}*{_N}+)(.*)$")
_TOKEN = re.compile(_N + "+")
_OPTDEL_GROUP = re.compile(_S + r"\([^()]+\)")
_WORD = r"[^() \t\n\r\f\v]+"  # Perl [^()\s]+
_OPTDEL_PAIR = re.compile(rf"(\({_S}+{_WORD}{_S}+)({_WORD})")
_HYPHEN = re.compile(r"([^( ])-(?=[^) ])")
_OPEN_SPACE = re.compile(r"\(" + _S + "+")
_SPACE_CLOSE = re.compile(_S + r"+\)")


class _LineError(ValueError):
    """A line csrfilt.sh cannot take; filter_lines adds the file and line number."""


def filter_lines(
    glm: GlobalMap,
    lines: Iterable[str],
    *,
    utm: GlobalMap | None = None,
    input_format: str = "text",
    split_hyphens: bool = False,
    upcase: bool = True,
    purpose: str = "",
    source: str = "<input>",
) -> Iterator[str]:
    """``csrfilt.sh [-dh] [-s] [-t purpose] -i input_format GLM [UTM]`` on lines (each with its "\\n").

    What csrfilt 1.17 does, step by step, and so this function:

    * lines starting with ``;;`` are comments and come out untouched;
    * every other line gets a blank at both ends and its runs of blanks and tabs become one blank;
    * ``trn``: the last ``(...)`` group is the utterance id and is left alone (case and hyphens kept);
      ``stm``: the first five fields, and a sixth of the form ``<...>``, are left alone; ``text``: the
      whole line is transcript. A trn line without ``(id)``, or an stm line that csrfilt's pattern
      cannot cut into five fields, is an :class:`InputError` (csrfilt dies on them). The Perl pattern
      lets a field end inside a word, so ``a bc d e`` still passes, as five fields and no words;
    * the transcript's parentheses (optionally deletable words) must be balanced and not nested;
    * the transcript is upper-cased (ASCII letters only; ``upcase=False`` is csrfilt's ``-s``) whatever
      the GLM's case_sensitive says, ``(`` and ``)`` get a blank inside, and the rules selected for the
      input type (:meth:`GlobalMap.for_input`) are applied;
    * ``split_hyphens`` (``-dh``) then turns each hyphen between two characters into a blank, except
      next to a blank or a parenthesis, so fragment markers (``STORY-``, ``-THE``, ``(O-)``) survive;
    * a group of several words in parentheses becomes one group per word: ``(A B)`` -> ``(A) (B)``;
    * the line is reassembled and its blanks trimmed and folded again; trn and stm lines always end
      with "\\n".

    ``utm`` (the utterance-specific map) is accepted but, as in csrfilt.sh since version 1.5, never
    applied: csrfilt only runs it for input types it no longer accepts.
    """
    del utm  # see the docstring: csrfilt.sh checks that the file exists and never uses it
    kind = _CSRFILT_TYPES.get(input_format.lower())
    if kind is None:
        raise ValueError(f"input_format must be one of {sorted(_CSRFILT_TYPES)}, not {input_format!r}")
    rules = glm.for_input(kind, purpose)
    for number, line in enumerate(lines, start=1):
        try:
            yield _filter_line(rules, line, kind, split_hyphens, upcase)
        except _LineError as error:
            raise InputError(source, number, str(error)) from None


def _filter_line(glm: GlobalMap, line: str, kind: str, split_hyphens: bool, upcase: bool) -> str:
    if line.startswith(";;"):
        # csrfilt passes comments through; for -i txt version 1.17 in fact prints an empty line instead
        # (it never reads back the comment it set aside), which is not reproduced.
        return line
    padded = re.sub(r"[ \t]+", " ", _before_eol(" " + line, " "))
    if kind == "trn":
        split = _split_trn(padded)
        if split is None:
            raise _LineError("expected a trn line: words followed by an utterance id in parentheses")
        text, extra = split[0] + "\n", split[1] + "\n"
    elif kind == "stm":
        split = None if "<" not in padded else _split_stm_labelled(padded)
        if split is None:
            found = _STM_PLAIN.match(padded)
            split = None if found is None else (found.group(1), found.group(2))
        if split is None:
            raise _LineError("expected an stm line: file channel speaker begin end [<label>] words")
        text, extra = split[1] + "\n", split[0] + "\n"
    else:
        text, extra = padded, "\n"
    if not _optdel_valid(text):
        raise _LineError(
            "optionally deletable words must be in balanced, unnested parentheses, e.g. '(UH) (UM)'"
        )
    text = _filter_transcript(glm, text, split_hyphens, upcase)
    if kind == "trn":
        merged = (text[:-1] if text.endswith("\n") else text) + extra
    elif kind == "stm":
        merged = extra[:-1] + text
    else:
        merged = text
    if merged.startswith(";"):
        return merged
    merged = re.sub(r"^[ \t]+", "", merged, count=1)
    merged = re.sub(r"[ \t]+$", "", merged, count=1)
    return re.sub(r"[ \t]+", " ", merged)


def _split_trn(line: str) -> tuple[str, str] | None:
    """``_TRN_LINE.match(line).groups()`` (csrfilt's Perl pattern) in one pass, or None.

    The regex backtracks quadratically on a long line of ``(`` without a closing ``)``; its match is
    the last ``(`` before the last ``)`` that only white space follows.
    """
    if "\n" in line[:-1]:
        found = _TRN_LINE.match(line)  # '.' stops at a newline: keep the regex's exact reading
        return None if found is None else (found.group(1), found.group(2))
    close = len(line.rstrip(_C_SPACE)) - 1
    if close < 0 or line[close] != ")":
        return None
    opening = line.rfind("(", 0, close)
    if opening < 0:
        return None
    return line[:opening], line[opening : close + 1]


def _split_stm_labelled(line: str) -> tuple[str, str] | None:
    """``_STM_LABELLED.match(line).groups()`` without the regex's backtracking, or None.

    The pattern (five fields, then ``<label>``) lets a field end inside a word, so on a line with a
    long word and a ``<`` but no label it tries every way of cutting the word in five: hours for a
    few hundred characters. Its match is found directly: the five fields cover the first k <= 5
    words (the last one possibly cut just before a ``<`` inside it) holding at least 5 characters,
    then white space, ``<``, a word and its last ``>`` (at least one character after the ``<``). The
    regex prefers fields ending as late as possible, which is the last ``<`` that fits; equality with
    the regex is tested on random lines.
    """
    if "\n" in line[:-1]:
        found = _STM_LABELLED.match(line)
        return None if found is None else (found.group(1), found.group(2))
    words: list[tuple[int, int]] = []
    for word in _TOKEN.finditer(line):
        words.append(word.span())
        if len(words) == 6:
            break
    best = None
    chars = 0  # characters of the words before the current one
    for index, (start, end) in enumerate(words):
        label = line.find("<", start, end)
        while label >= 0:
            # Fields before the "<": whole words before this one, and this one's start when the "<"
            # is inside it.
            fields_words = index + (label > start)
            fields_chars = chars + (label - start)
            close = line.rfind(">", label + 2, end)
            if 1 <= fields_words <= 5 and fields_chars >= 5 and close >= 0:
                best = close + 1
            label = line.find("<", label + 1, end)
        chars += end - start
    if best is None:
        return None
    rest = line[best:]
    return line[:best], rest[:-1] if rest.endswith("\n") else rest


def _filter_transcript(glm: GlobalMap, text: str, split_hyphens: bool, upcase: bool) -> str:
    if upcase and not text.startswith(";;"):
        text = ascii_upper(text)
    text = _before_eol(" " + text.replace("(", "( ").replace(")", " )"), " ")
    # rfilter1 sees the "\n" too, but no rule can match it: apply to the body and keep the newline
    # (with copy_no_hit false rfilter1 would drop it and glue the lines together).
    body, newline = (text[:-1], "\n") if text.endswith("\n") else (text, "")
    text = apply_glm(glm, body) + newline
    if split_hyphens:
        text = _HYPHEN.sub(r"\1 ", text)
    text = _propagate_optdel(text)
    text = text[1:] if text.startswith(" ") else text
    text = re.sub(r" $", "", text, count=1)
    text = _OPEN_SPACE.sub("(", text)
    return _SPACE_CLOSE.sub(")", text)


def _propagate_optdel(text: str) -> str:
    """csrfilt's propogateOptDel: ``( A B`` -> ``( A ) ( B``, leftmost first, until none is left."""
    while True:
        text, count = _OPTDEL_PAIR.subn(r"\1) ( \2", text, count=1)
        if not count:
            return text


def _optdel_valid(text: str) -> bool:
    """csrfilt's validateOptDelTags: once every ``(...)`` free of parentheses is removed, none is left."""
    text = _before_eol(" " + text.replace("(", "( ").replace(")", " )"), " ")
    text = text.replace("(", "   (").replace(")", ")  ", 1)
    text = _OPTDEL_GROUP.sub("", text)
    return "(" not in text and ")" not in text


def _before_eol(text: str, insert: str) -> str:
    """Perl's ``s/$/insert/``: before a final newline, else at the end."""
    if text.endswith("\n"):
        return text[:-1] + insert + "\n"
    return text + insert


# --- alternations -------------------------------------------------------------------------------------


def expand_alternatives(text: str, limit: int = 64) -> list[str]:
    """Every word string that ``{A / B}`` alternations in ``text`` stand for, at most ``limit`` of them.

    ``"{A / B} C"`` -> ``["A C", "B C"]``. Groups nest (``{RECURSIVE / RECUR {SIVE / SI VE}}``), an
    alternative may hold several words, ``@`` is the empty word, and ``/`` separates alternatives only
    inside braces (``AND/OR`` outside is a word). Results come in order (earlier groups vary slowest),
    words are joined by single blanks, duplicates are dropped. When there are more than ``limit``
    results, the first ``limit`` are returned (generation is lazy, so huge products stay cheap).
    Unbalanced braces raise ValueError.
    """
    if limit < 1:
        return []
    sequence = _parse_alternation(text)
    results: list[str] = []
    seen: set[str] = set()
    for words in _expand(sequence):
        joined = " ".join(word for word in words if word != "@")
        if joined not in seen:
            seen.add(joined)
            results.append(joined)
            if len(results) >= limit:
                break
    return results


_Item = str | list[list["_Item"]]  # a word, or a group: a list of alternatives, each a sequence


def _parse_alternation(text: str) -> list[_Item]:
    sequence: list[_Item] = []
    stack: list[list[list[_Item]]] = []  # the open groups, innermost last; each is its alternatives
    current = sequence
    word: list[str] = []

    def flush() -> None:
        if word:
            current.append("".join(word))
            word.clear()

    for char in text:
        if char == "{":
            flush()
            group: list[list[_Item]] = [[]]
            current.append(group)
            stack.append(group)
            current = group[-1]
        elif char == "}":
            flush()
            if not stack:
                raise ValueError(f"unbalanced '}}' in {text!r}")
            stack.pop()
            current = stack[-1][-1] if stack else sequence
        elif char == "/" and stack:
            flush()
            stack[-1].append([])
            current = stack[-1][-1]
        elif char in _C_SPACE:
            flush()
        else:
            word.append(char)
    flush()
    if stack:
        raise ValueError(f"unbalanced '{{' in {text!r}")
    return sequence


def _expand(sequence: list[_Item]) -> Iterator[list[str]]:
    # Words before the first group are a fixed prefix, so recursion goes one level per group only.
    at = next((i for i, item in enumerate(sequence) if not isinstance(item, str)), len(sequence))
    prefix = [word for word in sequence[:at] if isinstance(word, str)]
    if at == len(sequence):
        yield prefix
        return
    group = sequence[at]
    assert not isinstance(group, str)
    for alternative in group:
        for head in _expand(alternative):
            for tail in _expand(sequence[at + 1 :]):
                yield prefix + head + tail
