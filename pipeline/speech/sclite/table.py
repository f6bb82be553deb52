"""sclite's table layout (its report generator): the boxed tables of ``.sys``, ``.raw``, ``.lur``.

A table is rows of cells under a column format such as ``"l|cc|cccccc"`` (``l``/``c``/``r``: left,
centred, right; upper case: a cell's width is its longest blank-separated piece; ``a``: spans the
column before; ``|`` or ``=`` between columns draw a rule). Rows with the same number of columns
share column widths; the table is as wide as its widest format, and each row spreads what it lacks
over its columns. Widths count characters of the text as held (bytes: see ``pipeline.speech.sclite``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

PAGE_WIDTH = 80


def f_round(value: float, places: int) -> float:
    """sclite's F_ROUND: halves away from zero, truncated to ``places`` decimals."""
    scale = 10.0**places
    shifted = value * scale + (0.5 if value > 0.0 else -0.5)
    if not math.isfinite(shifted) or not -(2.0**31) < shifted < 2.0**31:
        return -2147483648.0 / scale  # C's (int) of NaN or of a value out of range
    return float(int(shifted)) / scale


def center(text: str, width: int) -> str:
    """``text`` centred in ``width`` (the extra blank on the right)."""
    front = (width - len(text)) // 2
    return " " * front + text + " " * max(0, width - len(text) - front)


@dataclass
class _Format:
    just: list[str]
    inter: list[str]
    rule_chars: int
    locked: list[bool]

    stale: list[str] = field(default_factory=list)

    def separator(self, k: int) -> str:
        """The separator after column ``k``, past the format's columns the one kept from an earlier
        table (see :class:`TableMemory`); NUL for none."""
        return self.stale[k] if k < len(self.stale) else "\0"

    @property
    def columns(self) -> int:
        return len(self.just)

    def span(self, c: int) -> int:
        """How many ``a`` columns follow column ``c``."""
        n = 0
        while c + 1 + n < self.columns and self.just[c + 1 + n] == "a":
            n += 1
        return n

    def is_last(self, c: int) -> bool:
        return c + 1 + self.span(c) >= self.columns


def _parse(spec: str) -> _Format:
    just: list[str] = []
    inter: list[str] = []
    rule_chars = 0
    body, _, locks = spec.partition(":")
    p = 0
    while p < len(body):
        if body[p] in "cClLrRna":
            just.append(body[p])
            p += 1
        if p < len(body) and body[p] == "|":
            inter.append("|")
            p += 1
        elif p < len(body) and body[p] == "=":
            inter.append("=")
            rule_chars += 1
            p += 1
        else:
            inter.append(" ")
    locked = [ch == "l" for ch in locks] + [False] * len(just)
    return _Format(just, inter, rule_chars, locked[: len(just)])


@dataclass
class _Row:
    form: str
    values: list[str]
    before: str = ""
    after: str = ""


def _pieces(value: str, upper: bool) -> list[int]:
    """Lengths of the pieces of a cell: split at ``//`` (and at blanks for upper-case formats)."""
    sizes = []
    p = 0
    while p < len(value):
        x = 0
        while p < len(value) and not (upper and value[p] == " ") and not value.startswith("//", p):
            x += 1
            p += 1
        if value.startswith("//", p):
            p += 2
        if p < len(value) and value[p] == " ":
            p += 1
        sizes.append(x)
    return sizes


def _next_piece(value: str, width: int) -> tuple[str, str]:
    """The next line of a cell at most ``width`` wide, and the rest."""
    p = 0
    while p < width and p < len(value) and not value.startswith("//", p):
        p += 1
    if value.startswith("//", p):
        return value[:p], value[p + 2 :]
    if p < len(value):
        start = p
        while p > 0 and value[p] != " ":
            p -= 1
        if p == 0 and value[0] != " ":
            return value[:start], value[start:]  # no blank to break at: cut
        return value[:p], value[p + 1 :]
    return value[:p], ""


@dataclass
class TableMemory:
    """What sclite's table layout keeps from one table to the next within a run: its page centring
    (set by the first summary table, then kept) and the text of every cell it was given (a spanned
    ``a`` cell is never given one, so it keeps the text of the same row and column of an earlier
    table, and that text still counts in the column's width)."""

    centered: bool = False
    cells: dict[tuple[int, int], str] = field(default_factory=dict)
    # The column separators of each column format, by its rank in the table: a shorter format keeps
    # the separators of a longer one of an earlier table past its own columns (read by the rules
    # drawn under a row of another format).
    separators: list[list[str]] = field(default_factory=list)


@dataclass
class Table:
    """A table being built: :meth:`row`, :meth:`rule`, then :meth:`render`."""

    page_center: bool = False  # centre this table (and every later one of the run) on the page
    rows: list[_Row] = field(default_factory=list)
    _pending: str = ""
    _pending_after: str = ""

    def rule(self, char: str) -> None:
        """A rule of ``char`` before the next row."""
        self._pending += char

    def row(self, form: str, *values: str) -> None:
        self.rows.append(_Row(form, list(values), self._pending, self._pending_after))
        self._pending = self._pending_after = ""

    def rule_after(self, char: str) -> None:
        """A rule of ``char`` after the next row."""
        self._pending_after += char

    def render(self, pad: int = 0, memory: TableMemory | None = None) -> str:
        """The table's text; ``memory``: the run's (see :class:`TableMemory`), updated."""
        memory = TableMemory() if memory is None else memory
        if self.page_center:
            memory.centered = True
        formats: dict[str, _Format] = {}
        for row in self.rows:
            if row.form not in formats:
                formats[row.form] = _parse(row.form)
        for j, f in enumerate(formats.values()):
            if j == len(memory.separators):
                memory.separators.append([])
            kept = memory.separators[j]
            memory.separators[j] = f.inter + kept[len(f.inter) :]
            f.stale = memory.separators[j]
        sizes: dict[int, list[int]] = {}

        def size_of(n: int) -> list[int]:
            return sizes.setdefault(n, [0] * max(n, 1))

        for r, row in enumerate(self.rows):
            f = formats[row.form]
            n = f.columns
            values = _cell_values(f, row.values)
            for c in range(n):
                if f.just[c] == "a":
                    values[c] = memory.cells.get((c, r), "")
                else:
                    memory.cells[(c, r)] = values[c]
            row.values = values
        for row in self.rows:
            f = formats[row.form]
            n = f.columns
            values = row.values
            for c in range(n):
                if (c < n - 1 and f.just[c + 1] != "a") or c == n - 1:
                    for x in _pieces(values[c], f.just[c].isupper()):
                        if x > size_of(n)[c]:
                            size_of(n)[c] = x
        for row in self.rows:
            f = formats[row.form]
            n = f.columns
            values = row.values
            for c in range(n - 1):
                if f.just[c + 1] != "a" or f.just[c] == "a":
                    continue
                siz = max(_pieces(values[c], f.just[c].isupper()), default=0)
                start, span = c, 0
                cc = c
                while cc < n - 1 and f.just[cc + 1] == "a":
                    span += size_of(n)[cc] + 1 + pad * 2
                    cc += 1
                span += size_of(n)[cc]
                if siz > span:
                    unlocked = [c2 for c2 in range(start, cc + 1) if not f.locked[c2]]
                    for c2 in unlocked:
                        add = int(f_round((siz - span) / len(unlocked), 0)) if c2 != cc else siz - span
                        size_of(n)[c2] += add
                        span += add
        width = 0
        minimum: dict[str, int] = {}
        for form, f in formats.items():
            n = f.columns
            w = 2 + sum(size_of(n)[c] + pad * 2 for c in range(n)) + f.rule_chars + n - 1
            minimum[form] = w
            width = max(width, w)
        lead = " " * ((PAGE_WIDTH - width) // 2) if memory.centered and width < PAGE_WIDTH else ""
        out = [lead + "," + "-" * (width - 2) + ".\n"]
        previous: _Format | None = None
        for row in self.rows:
            f = formats[row.form]
            n = f.columns
            unlocked = n - sum(f.locked)
            under = width - minimum[row.form]
            col_size = [0] * n
            text_size = [0] * n
            values = list(row.values)
            added = 0
            for c in range(n):
                if f.just[c] == "a":
                    values[c] = ""
                    continue
                text_size[c] = size_of(n)[c]
                if f.locked[c]:
                    col_size[c] = pad * 2 + text_size[c]
                    continue
                if c != n - 1:
                    adjust = int(f_round(under / unlocked * (c + f.span(c) + 1), 0)) - added
                    added += adjust
                else:
                    adjust = under - added
                col_size[c] = pad * 2 + text_size[c] + adjust
                c2 = c + 1
                while c2 < n and f.just[c2] == "a":
                    if c != n - 1:
                        adjust = int(f_round(under / n * (c + f.span(c) + 1), 0)) - added
                        added += adjust
                    else:
                        adjust += under - added
                    col_size[c] += size_of(n)[c2] + pad * 2 + 1 + adjust
                    text_size[c] += size_of(n)[c2] + pad * 2 + 1
                    c2 += 1
            for char in row.before:
                line = [lead, "|"]
                for c in range(n):
                    if f.just[c] == "a":
                        continue
                    line.append(char * col_size[c])
                    if f.is_last(c):
                        continue
                    sp = f.span(c)
                    cchr = f.inter[sp + c]
                    lcchr = previous.separator(sp + c) if previous is not None else "\0"
                    if cchr != " ":
                        if char == " ":
                            line.append("||" if cchr == "=" else cchr)
                        elif (
                            cchr in "|="
                            and char == "-"
                            and previous is not None
                            and lcchr in "|="
                            and lcchr != "\0"
                        ):
                            line.append("++" if cchr == "=" else "+")
                        else:
                            line.append(char * (2 if cchr == "=" else 1))
                    else:
                        line.append(char)
                out.append("".join(line) + "|\n")
            pending = True
            while pending:
                pending = False
                line = [lead, "|"]
                for c in range(n):
                    if f.just[c] == "a":
                        continue
                    cw, tw = col_size[c], text_size[c]
                    left = (cw - tw) // 2
                    right = cw - tw - left
                    piece, values[c] = _next_piece(values[c], tw)
                    kind = f.just[c].lower()
                    if kind == "c":
                        cell = center(piece, tw)
                    elif kind == "r":
                        cell = piece.rjust(tw)
                    else:
                        cell = piece.ljust(tw)
                    line.append(" " * left + cell + " " * right)
                    if values[c]:
                        pending = True
                    if not f.is_last(c):
                        ch = f.inter[f.span(c) + c]
                        line.append("||" if ch == "=" else ch)
                out.append("".join(line) + "|\n")
            for char in row.after:
                line = [lead, "|"]
                for c in range(n):
                    if f.just[c] == "a":
                        continue
                    line.append(char * col_size[c])
                    if f.is_last(c):
                        continue
                    sp = f.span(c)
                    cchr = f.inter[sp + c]
                    if cchr == " ":
                        line.append(char)
                    elif char == " ":
                        line.append(cchr)
                    elif (
                        f.inter[c] == "|"
                        and char == "-"
                        and previous is not None
                        and previous.separator(sp + c) == "|"
                    ):
                        line.append("+")
                    else:
                        line.append(char)
                out.append("".join(line) + "|\n")
            previous = f
        out.append(lead + "`" + "-" * (width - 2) + "'\n")
        return "".join(out)


def _cell_values(f: _Format, given: list[str]) -> list[str]:
    """The row's values placed in its non-spanning columns."""
    values = [""] * f.columns
    it = iter(given)
    for c in range(f.columns):
        if f.just[c] != "a":
            values[c] = next(it, "")
    return values
