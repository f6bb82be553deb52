"""SCTK's boxed report tables (its ``rpg`` report generator), laid out as sc_stats and sclite print
them: a row format such as ``"c|c|a"`` gives each column's justification (``c`` centre, ``l`` left,
``r`` right; upper case wraps at words; ``a`` joins the column to the one before), ``|`` or ``=``
between columns, and after ``:`` an ``l`` per column locked at its natural width. Cells hold ``//``
line breaks. Columns take the widest cell of any row with as many columns; spanning cells widen the
columns they span; every row is stretched to the widest row's width, the extra spread over unlocked
columns by sc_stats' rounding.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def f_round(value: float) -> int:
    """SCTK's F_ROUND(n, 0): half away from zero, then truncated."""
    return int(value + (0.5 if value > 0.0 else -0.5))


def center(text: str, width: int) -> str:
    front = (width - len(text)) // 2
    return " " * max(front, 0) + text + " " * max(width - (len(text) + front), 0)


@dataclass
class _Format:
    text: str
    just: list[str] = field(default_factory=list)
    inter: list[str] = field(default_factory=list)
    lock: list[bool] = field(default_factory=list)
    chars: int = 0

    @property
    def num_col(self) -> int:
        return len(self.just)

    def span(self, col: int) -> int:
        """How many ``a`` columns follow ``col``."""
        count = 0
        c = col + 1
        while c < self.num_col and self.just[c] == "a":
            c, count = c + 1, count + 1
        return count

    def last(self, col: int) -> bool:
        return col + self.span(col) == self.num_col - 1


def _parse(text: str) -> _Format:
    fmt = _Format(text)
    spec, _, locks = text.partition(":")
    p = 0
    while p < len(spec):
        if spec[p] in "cClLrRna":
            fmt.just.append(spec[p])
            p += 1
        if p < len(spec) and spec[p] in "|=":
            fmt.inter.append(spec[p])
            fmt.chars += spec[p] == "="
            p += 1
        else:
            fmt.inter.append(" ")
    fmt.inter += [" "] * (len(fmt.just) + 1 - len(fmt.inter))
    fmt.lock = [i < len(locks) and locks[i] == "l" for i in range(len(fmt.just))]
    return fmt


def _pieces(cell: str, upper: bool) -> list[int]:
    """Lengths of a cell's pieces: parts between ``//`` (and words, for upper-case justifications)."""
    lengths, p = [], 0
    while p < len(cell):
        x = 0
        while p < len(cell) and not (upper and cell[p] == " ") and not cell.startswith("//", p):
            x, p = x + 1, p + 1
        if cell.startswith("//", p):
            p += 2
        if p < len(cell) and cell[p] == " ":
            p += 1
        lengths.append(x)
    return lengths


def _next_piece(cell: str, start: int, width: int) -> tuple[str, int]:
    """SCTK's get_next_string_value: up to ``width`` characters, cut at ``//`` or back to a space."""
    p, x = start, 0
    while x < width and p < len(cell) and not cell.startswith("//", p):
        x, p = x + 1, p + 1
    if cell.startswith("//", p):
        p += 2
    elif p < len(cell):
        while p != start and cell[p] != " ":
            p, x = p - 1, x - 1
        if cell[p] == " ":
            p += 1
    return cell[start : start + x], p


class Table:
    """A report table: add rows and separators, then :meth:`render`."""

    def __init__(self, page_center: int | None = 80, cells: dict[tuple[int, int], str] | None = None) -> None:
        self.page_center = page_center
        # SCTK keeps every cell a table writes in one process-wide grid that a new table does not
        # clear: a cell a row format joins (``a``) keeps what an earlier table wrote at its place,
        # and still counts in its column's width. ``cells`` is that grid, shared by a run's tables.
        self.cells = {} if cells is None else cells
        self.formats: dict[str, _Format] = {}
        self.rows: list[tuple[_Format, list[str]]] = []
        self.before: list[str] = [""]
        self.after: list[str] = [""]

    def row(self, fmt: str, *values: str) -> None:
        """A row of ``fmt`` with one value for each column that is not ``a``."""
        parsed = self.formats.setdefault(fmt, _parse(fmt))
        cells, it, row = [], iter(values), len(self.rows)
        for col, just in enumerate(parsed.just):
            if just != "a":
                self.cells[col, row] = next(it, "")
            cells.append(self.cells.get((col, row), ""))
        self.rows.append((parsed, cells))
        self.before.append("")
        self.after.append("")

    def separator(self, char: str, before: bool = True) -> None:
        """A line of ``char`` before (or after) the next row added."""
        if before:
            self.before[len(self.rows)] += char
        else:
            self.after[len(self.rows)] += char

    def render(self, space_pad: int = 1) -> str:
        sizes: dict[int, list[int]] = {}
        for fmt, cells in self.rows:
            nc = fmt.num_col
            size = sizes.setdefault(nc, [0] * nc)
            for c in range(nc):
                if c == nc - 1 or fmt.just[c + 1] != "a":
                    for length in _pieces(cells[c], fmt.just[c].isupper()):
                        size[c] = max(size[c], length)
        for fmt, cells in self.rows:
            nc = fmt.num_col
            size = sizes[nc]
            c = 0
            while c < nc:
                if c < nc - 1 and fmt.just[c + 1] == "a":
                    start = c
                    siz = max(_pieces(cells[c], fmt.just[c].isupper()), default=0)
                    span = 0
                    while c < nc - 1 and fmt.just[c + 1] == "a":
                        span += size[c] + 1 + space_pad * 2
                        c += 1
                    span += size[c]
                    if siz > span:
                        unlocked = sum(1 for c2 in range(start, c + 1) if not fmt.lock[c2])
                        for c2 in range(start, c + 1):
                            if unlocked and not fmt.lock[c2]:
                                add = f_round((siz - span) / unlocked) if c2 != c else siz - span
                                size[c2] += add
                                span += add
                c += 1
        width = 0
        minimum: dict[str, int] = {}
        for fmt in self.formats.values():
            nc = fmt.num_col
            w = 2 + sum(sizes.get(nc, [0] * nc)[c] + space_pad * 2 for c in range(nc)) + fmt.chars + nc - 1
            minimum[fmt.text] = w
            width = max(width, w)
        lead = (
            " " * ((self.page_center - width) // 2) if self.page_center and width < self.page_center else ""
        )
        out = [lead + "," + "-" * (width - 2) + "."]
        previous: _Format | None = None
        for r, (fmt, cells) in enumerate(self.rows):
            nc = fmt.num_col
            size = sizes[nc]
            unlocked = nc - sum(fmt.lock)
            underage = width - minimum[fmt.text]
            add_total = 0
            col_size, text_size, text = [0] * nc, [0] * nc, [""] * nc
            for c in range(nc):
                if fmt.just[c] == "a":
                    continue
                if fmt.lock[c]:
                    text_size[c] = size[c]
                    col_size[c] = space_pad * 2 + size[c]
                    continue
                text[c] = cells[c]
                adjust = 0
                if c != nc - 1:
                    adjust = f_round(underage / unlocked * (c + fmt.span(c) + 1)) - add_total
                    add_total += adjust
                else:
                    adjust += underage - add_total
                text_size[c] = size[c]
                col_size[c] = space_pad * 2 + size[c] + adjust
                c2 = c + 1
                while c2 < nc and fmt.just[c2] == "a":
                    if c != nc - 1:
                        adjust = f_round(underage / nc * (c + fmt.span(c) + 1)) - add_total
                        add_total += adjust
                    else:
                        adjust += underage - add_total
                    col_size[c] += size[c2] + space_pad * 2 + 1 + adjust
                    text_size[c] += size[c2] + space_pad * 2 + 1
                    c2 += 1
            for char in self.before[r]:
                line = lead + "|"
                for c in range(nc):
                    if fmt.just[c] == "a":
                        continue
                    line += char * col_size[c]
                    if not fmt.last(c):
                        index = fmt.span(c) + c
                        cchr = fmt.inter[index]
                        lcchr = (
                            previous.inter[index]
                            if previous is not None and index < len(previous.inter)
                            else ""
                        )
                        if cchr != " ":
                            if char == " ":
                                line += "||" if cchr == "=" else cchr
                            elif cchr in "|=" and char == "-" and r > 0 and lcchr in ("|", "="):
                                line += "++" if cchr == "=" else "+"
                            else:
                                line += char * (2 if cchr == "=" else 1)
                        else:
                            line += char
                out.append(line + "|")
            positions = [0] * nc
            done = False
            guard = 0
            while not done and guard < 1000:
                guard += 1
                done = True
                line = lead + "|"
                for c in range(nc):
                    if fmt.just[c] == "a":
                        continue
                    piece, positions[c] = _next_piece(text[c], positions[c], text_size[c])
                    free = col_size[c] - text_size[c]
                    left, right = " " * (free // 2), " " * (free - free // 2)
                    just = fmt.just[c].lower()
                    if just == "c":
                        body = center(piece, text_size[c]).rjust(text_size[c])
                    elif just == "r":
                        body = piece.rjust(text_size[c])
                    else:
                        body = piece.ljust(text_size[c])
                    line += left + body + right
                    if positions[c] < len(text[c]):
                        done = False
                    if not fmt.last(c):
                        cchr = fmt.inter[fmt.span(c) + c]
                        line += ("||" if cchr == "=" else cchr) if cchr != " " else " "
                out.append(line + "|")
            for char in self.after[r]:
                line = lead + "|"
                for c in range(nc):
                    if fmt.just[c] == "a":
                        continue
                    line += char * col_size[c]
                    if not fmt.last(c):
                        index = fmt.span(c) + c
                        cchr = fmt.inter[index]
                        if cchr != " ":
                            if char == " ":
                                line += cchr
                            elif (
                                fmt.inter[c] == "|"
                                and char == "-"
                                and r > 0
                                and previous is not None
                                and index < len(previous.inter)
                                and previous.inter[index] == "|"
                            ):
                                line += "+"
                            else:
                                line += char
                        else:
                            line += char
                out.append(line + "|")
            previous = fmt
        out.append(lead + "`" + "-" * (width - 2) + "'")
        return "\n".join(out) + "\n"
