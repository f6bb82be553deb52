"""The vectorised matching against obviously-correct loops, on random mentions (hypothesis).

The loops here are the definitions of ``pipeline.clef.rules``: exact = the same report and offsets;
overlap = some piece shares a character with some piece of the other side in the same report (a
zero-length piece shares none); one-to-one = the greedy sweep over overlapping pairs ranked by shared
characters (more first), then the gold mention's (first start, last end, offsets), then the
prediction's, taking a pair when neither mention is taken.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from iescore.pipeline.clef import match_columns, matches_table, read_mentions

REPORTS = ("r1", "r2")


@st.composite
def mention(draw: st.DrawFn) -> tuple[str, str, tuple[int, ...]]:
    report = draw(st.sampled_from(REPORTS))
    cui = draw(st.sampled_from(("C1", "C2", "c1")))
    pieces = draw(st.integers(1, 3))
    bounds = sorted(draw(st.lists(st.integers(0, 40), min_size=2 * pieces, max_size=2 * pieces)))
    return report, cui, tuple(bounds)


def write(folder: Path, mentions: list[tuple[str, str, tuple[int, ...]]]) -> None:
    folder.mkdir()
    lines = ["||".join([r, "Disease_Disorder", c, *map(str, b)]) for r, c, b in mentions]
    (folder / "all").write_text("\n".join(lines) + "\n")


def pieces_of(bounds: tuple[int, ...]) -> list[tuple[int, int]]:
    return [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]


def shared(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    return sum(max(0, min(e1, e2) - max(s1, s2)) for s1, e1 in pieces_of(a) for s2, e2 in pieces_of(b))


@settings(max_examples=60, deadline=None)
@given(st.lists(mention(), max_size=8), st.lists(mention(), max_size=8))
def test_matching_equals_the_loops(gold_lines: list, system_lines: list) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        write(Path(tmp) / "g", gold_lines)
        write(Path(tmp) / "s", system_lines)
        gold = read_mentions(Path(tmp) / "g", "gold")
        system = read_mentions(Path(tmp) / "s", "system")
    matches = matches_table(gold, system, match_columns(gold, system)).to_pandas()
    # The mentions after replacement (the last line of a report and offsets wins), as the loops see them.
    g = [(r, c.lower(), tuple(map(int, k.split("-")))) for r, c, k in
         zip(gold.frame["report"], gold.frame["cui"], gold.frame["key"], strict=True)]  # fmt: skip
    s = [(r, c.lower(), tuple(map(int, k.split("-")))) for r, c, k in
         zip(system.frame["report"], system.frame["cui"], system.frame["key"], strict=True)]  # fmt: skip
    rows = {(side, m): row for side, m, row in zip(matches["side"], matches["mention"],
                                                   matches.itertuples(), strict=True)}  # fmt: skip
    for i, (report, cui, bounds) in enumerate(g):
        partners = [j for j, (r, _, b) in enumerate(s) if r == report and b == bounds]
        row = rows[("gold", i)]
        assert row.partner == (partners[0] if partners else -1)
        assert row.cui_match == bool(partners and s[partners[0]][1] == cui)
        overlapping = [j for j, (r, _, b) in enumerate(s) if r == report and shared(bounds, b) > 0]
        assert row.overlap == bool(overlapping)
        assert row.overlap_cui == any(s[j][1] == cui for j in overlapping)
    for j, (report, _, bounds) in enumerate(s):
        overlapping = [i for i, (r, _, b) in enumerate(g) if r == report and shared(bounds, b) > 0]
        assert rows[("system", j)].overlap == bool(overlapping)
    # One to one: the greedy sweep.
    pairs = [(i, j, shared(gb, sb)) for i, (gr, _, gb) in enumerate(g) for j, (sr, _, sb) in enumerate(s)
             if gr == sr and shared(gb, sb) > 0]  # fmt: skip

    def rank(pair: tuple[int, int, int]) -> tuple:
        i, j, chars = pair
        gb, sb = g[i][2], s[j][2]
        return (-chars, gb[0], gb[-1], "-".join(map(str, gb)), sb[0], sb[-1], "-".join(map(str, sb)))

    taken_g: dict[int, tuple[int, int]] = {}
    taken_s: set[int] = set()
    for i, j, chars in sorted(pairs, key=rank):
        if i not in taken_g and j not in taken_s:
            taken_g[i] = (j, chars)
            taken_s.add(j)
    for i in range(len(g)):
        row = rows[("gold", i)]
        assert (row.one_to_one, row.one_to_one_chars) == taken_g.get(i, (-1, 0))


def test_one_to_one_ties_of_same_start_and_end_follow_the_offsets_text(tmp_path: Path) -> None:
    """Two discontiguous mentions of one report with the same first start and last end, each sharing
    17 characters with one mention of the other side: the ranking's next key is eval.pl's offsets key
    as text, so ``5-12-20-30`` comes before ``5-9-17-30`` ('1' < '9'), although 9 < 12 and although
    the other one is read first. By hand: [5, 12) + [20, 30) = 7 + 10 = 17 characters of [5, 30);
    [5, 9) + [17, 30) = 4 + 13 = 17."""
    write(
        tmp_path / "g", [("r1", "C1", (5, 9, 17, 30)), ("r1", "C1", (5, 12, 20, 30)), ("r2", "C1", (5, 30))]
    )
    write(
        tmp_path / "s", [("r1", "C1", (5, 30)), ("r2", "C1", (5, 9, 17, 30)), ("r2", "C1", (5, 12, 20, 30))]
    )
    gold = read_mentions(tmp_path / "g", "gold")
    system = read_mentions(tmp_path / "s", "system")
    matches = matches_table(gold, system, match_columns(gold, system)).to_pandas()
    rows = {(side, m): (o, c) for side, m, o, c in zip(matches["side"], matches["mention"],
            matches["one_to_one"], matches["one_to_one_chars"], strict=True)}  # fmt: skip
    # r1: the prediction (system 0) pairs with gold 1 (5-12-20-30), not gold 0 (5-9-17-30).
    assert rows[("gold", 1)] == (0, 17) and rows[("gold", 0)] == (-1, 0)
    # r2: the gold mention (gold 2) pairs with system 2 (5-12-20-30), not system 1 (5-9-17-30).
    assert rows[("gold", 2)] == (2, 17) and rows[("system", 1)] == (-1, 0)
