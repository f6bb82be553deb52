"""The family contract (issue 11, points 1 and 2): statistics per unit, measures from their sums.

Expected values come from hand calculations (written out beside each test), from ``pipeline.core.measures``
and ``pipeline.coref.rates`` (the families' measures must equal them on the same totals), from the
CoNLL reference scorer's test cases (``../shared/external/coref``), and from recomputing the documented
random draws directly.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from iescore.pipeline.campaign import reuse, stats
from iescore.pipeline.campaign.engine import campaign_summary, read_campaign
from iescore.pipeline.core.family import (
    Family,
    UnitStatistics,
    category_measures,
    measures_by_category,
    statistics_table,
)
from iescore.pipeline.core.measures import Counts, measures
from iescore.pipeline.coref import (
    COREF,
    METRICS,
    align_documents,
    coref_statistics,
    rates,
    read_pair,
    score_documents,
)
from iescore.pipeline.muc import MUC
from iescore.pipeline.templette import TEMPLETTE, templette_statistics
from iescore.pipeline.templette.campaign import TEMPLETTE_CAMPAIGN
from iescore.pipeline.templette.report import slot_points
from iescore.schemas import STATISTICS, TALLIES, C
from iescore.tasks.campaign.graph import campaign_spec
from iescore.tasks.cli.main import main
from iescore.tasks.core.base import task_for

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
COREF_DATA = ROOT.parent / "shared" / "external" / "coref"
EXPECTED = json.loads((COREF_DATA / "expected.json").read_text()) if COREF_DATA.is_dir() else {}
needs_shared = pytest.mark.skipif(
    not COREF_DATA.is_dir(), reason="../shared/external/coref is not beside the checkout"
)


def _mean_formula(sums: np.ndarray, options: dict) -> np.ndarray:
    """MAP-like: the mean of per-unit values, from their sum and their count (NaN over no unit)."""
    out = np.full(sums.shape[:-1], np.nan)
    np.divide(sums[..., 0], sums[..., 1], out=out, where=sums[..., 1] != 0)
    return out[..., None]


#: A toy TREC-like family: per query its average precision and a count of 1; MAP = ap_sum / count.
MEAN = Family(
    name="toy-map",
    unit="query",
    statistic_names=("ap_sum", "count"),
    measure_names=("MAP",),
    headline="MAP",
    categories=None,
    formula=_mean_formula,
    counts=("count",),
)


def _queries(per_system: dict[str, list[float]]) -> UnitStatistics:
    """Unit statistics of MEAN from {system: [AP of query 0, AP of query 1, ...]}."""
    systems = tuple(per_system)
    n = len(next(iter(per_system.values())))
    values = np.array([[[ap, 1.0] for ap in per_system[s]] for s in systems])
    return UnitStatistics(MEAN, systems, tuple(f"q{i}" for i in range(n)), values)


# --------------------------------------------------------------------------------------- the contract


def test_family_rejects_an_unknown_headline_and_malformed_declarations() -> None:
    declared = {
        "name": "x",
        "unit": "document",
        "statistic_names": ("a", "b"),
        "measure_names": ("M",),
        "headline": "M",
        "categories": None,
        "formula": _mean_formula,
    }
    Family(**declared)  # well formed
    with pytest.raises(ValueError, match="unknown headline 'F'"):
        Family(**{**declared, "headline": "F"})
    with pytest.raises(ValueError, match="'a' is listed twice"):
        Family(**{**declared, "statistic_names": ("a", "a")})
    with pytest.raises(ValueError, match="not among its statistics"):
        Family(**{**declared, "counts": ("c",)})
    with pytest.raises(ValueError, match="at least one measure"):
        Family(**{**declared, "measure_names": (), "headline": ""})
    with pytest.raises(ValueError, match="callable"):
        Family(**{**declared, "formula": "a/b"})


def test_measures_check_shapes_and_options() -> None:
    assert MEAN.measures(np.zeros((4, 3, 2))).shape == (4, 3, 1)
    with pytest.raises(ValueError, match="last axis of 2 statistics"):
        MEAN.measures(np.zeros((4, 3)))
    wrong = Family("w", "document", ("a",), ("M", "N"), "M", None, lambda sums, options: sums)
    with pytest.raises(ValueError, match=r"formula gave shape \(3, 1\), expected \(3, 2\)"):
        wrong.measures(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="no option 'beta'"):
        MEAN.measures(np.zeros(2), {"beta": 2.0})
    with pytest.raises(ValueError, match="unknown measure 'F'"):
        MEAN.measure_index("F")


def test_unit_statistics_are_validated() -> None:
    with pytest.raises(ValueError, match="shape"):
        UnitStatistics(MEAN, ("s",), ("q1", "q2"), np.zeros((1, 3, 2)))
    with pytest.raises(ValueError, match="shape"):
        UnitStatistics(MEAN, ("s",), ("q1",), np.zeros((1, 1, 3)))
    with pytest.raises(ValueError, match="twice"):
        UnitStatistics(MEAN, ("s", "s"), ("q1",), np.zeros((2, 1, 2)))
    with pytest.raises(ValueError, match="negative"):
        UnitStatistics(MEAN, ("s",), ("q1",), np.array([[[0.5, -1.0]]]))
    with pytest.raises(ValueError, match="whole"):
        UnitStatistics(MEAN, ("s",), ("q1",), np.array([[[0.5, 0.5]]]))
    with pytest.raises(ValueError, match="finite"):
        UnitStatistics(MEAN, ("s",), ("q1",), np.array([[[np.inf, 1.0]]]))
    with pytest.raises(ValueError, match="numbers"):
        UnitStatistics(MEAN, ("s",), ("q1",), np.array([[["a", "b"]]]))
    # A statistic that is not a count may be fractional (and even negative): only counts are whole.
    fractional = UnitStatistics(MEAN, ("s",), ("q1",), np.array([[[0.25, 1]]]))
    assert fractional.values.dtype == np.float64
    source = np.array([[[0.5, 1.0]]])
    held = UnitStatistics(MEAN, ("s",), ("q1",), source)
    source[0, 0, 0] = 9.0
    assert held.values[0, 0, 0] == 0.5  # a private copy
    with pytest.raises(ValueError):
        held.values[0, 0, 0] = 1.0  # read-only


def _table(rows: list[tuple]) -> pa.Table:
    return statistics_table(*zip(*rows, strict=True)) if rows else STATISTICS.empty_table()


def test_from_table_sums_categories_and_lists_every_unit() -> None:
    # s1: d2 has COR 1 in slot A.X and COR 2, MIS 1 in A.Y -> COR 3, MIS 1; d1 has one zero row.
    # s2: only d3. Units: every unit of any table, sorted: d1 d2 d3; absent rows are 0 (NON last).
    s1 = _table(
        [
            ("d2", "A.X", "COR", 1.0),
            ("d2", "A.Y", "COR", 2.0),
            ("d2", "A.Y", "MIS", 1.0),
            ("d1", None, "COR", 0),
        ]
    )
    s2 = _table([("d3", "A.X", "SPU", 4.0)])
    got = UnitStatistics.from_table(TEMPLETTE, {"s1": s1, "s2": s2})
    assert got.systems == ("s1", "s2")
    assert got.units == ("d1", "d2", "d3")
    assert got.values.tolist() == [
        [[0, 0, 0, 0, 0, 0], [3, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 0]],
        [[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 4, 0]],
    ]
    # Category measures sum over units per category: A.Y has COR 2, MIS 1: REC 2/3, PRE 2/2, F 4/5.
    by_slot = category_measures(TEMPLETTE, s1)
    assert list(by_slot) == ["A.X", "A.Y"]
    got_y = {m: by_slot["A.Y"][m] for m in ("REC", "PRE", "F")}
    assert got_y == {"REC": pytest.approx(2 / 3), "PRE": 1.0, "F": pytest.approx(4 / 5)}


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("d1", None, "ZZZ", 1.0)], "unknown statistic 'ZZZ'"),
        ([("d1", "A.X", "COR", 1.0), ("d1", "A.X", "COR", 1.0)], "repeats an earlier row"),
        ([("d1", "A.X", "COR", -1.0)], "negative count"),
        ([("d1", "A.X", "COR", 0.5)], "not a whole number"),
        ([("d1", "A.X", "COR", math.nan)], "not a finite number"),
    ],
)
def test_from_table_names_the_bad_row(rows: list[tuple], message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        UnitStatistics.from_table(TEMPLETTE, {"sys-x": _table(rows)})
    assert "sys-x" in str(error.value)


def test_from_table_refuses_units_outside_the_given_ones_missing_columns_and_nulls() -> None:
    table = _table([("d9", None, "COR", 1.0)])
    null = pa.Table.from_pylist([{"unit": "d1", "category": None, "statistic": "COR", "value": None}])
    with pytest.raises(ValueError, match="row 0 has no value"):
        UnitStatistics.from_table(TEMPLETTE, {"s": null})
    with pytest.raises(ValueError, match="'d9' is not among the units"):
        UnitStatistics.from_table(TEMPLETTE, {"s": table}, units=["d1"])
    with pytest.raises(ValueError, match="without the columns"):
        UnitStatistics.from_table(TEMPLETTE, {"s": table.drop_columns([C.value])})


# ------------------------------------------------------------------------------------------ templette


def test_templette_family_equals_pipeline_measures_on_random_sums() -> None:
    # The same formulas in the same order of operations: equal to the last bit, not approximately.
    rng = np.random.default_rng(11)
    # COR INC PAR MIS SPU NON; every measure of pipeline.core.measures (NON enters none).
    sums = rng.integers(0, 6, size=(300, 6))
    sums[rng.random(300) < 0.3] *= rng.integers(0, 2, size=6)  # knock out categories: zero POS or ACT
    sums = np.vstack([sums, np.zeros((1, 6), dtype=np.int64)])
    for family in (TEMPLETTE, MUC):
        for beta in (1.0, 0.5, 3.0):
            got = family.measures(sums, {"beta": beta})
            for row, values in zip(sums.tolist(), got, strict=True):
                expected = measures(Counts(*row), beta)
                assert family.measure_names == tuple(expected)
                for value, want in zip(values, expected.values(), strict=True):
                    assert (math.isnan(value) and want is None) or value == want, (row, beta)
    with pytest.raises(ValueError, match="beta"):
        TEMPLETTE.measures(sums, {"beta": 0.0})


def test_templette_statistics_keep_documents_without_fill_points() -> None:
    # d1: two fill points of EVENT.WINNER (COR, MIS), a NON point of EVENT.LOSER (a statistic that enters
    # no measure) and an object point (not ALL SLOTS);
    # d2: only an object point: it has no fill point but is still a unit (value 0), as it always was.
    rows = [
        ("d1", "EVENT", "WINNER", "content", "COR"),
        ("d1", "EVENT", "WINNER", "extent", "MIS"),
        ("d1", "EVENT", "LOSER", "content", "NON"),
        ("d1", "EVENT", None, "object", "COR"),
        ("d2", "EVENT", None, "object", "SPU"),
    ]
    tallies = pa.Table.from_pylist(
        [dict(zip([C.doc_id, C.instance_type, C.slot, C.aspect, C.category], r, strict=True)) for r in rows],
        schema=TALLIES,
    )
    table = templette_statistics(tallies, "s")
    assert table.schema == STATISTICS
    assert sorted(map(tuple, (r.values() for r in table.to_pylist())), key=str) == sorted(
        [
            ("d1", "EVENT.WINNER", "COR", 1.0),
            ("d1", "EVENT.WINNER", "MIS", 1.0),
            ("d1", "EVENT.LOSER", "NON", 1.0),
            ("d2", None, "COR", 0.0),
        ],
        key=str,
    )
    unit = UnitStatistics.from_table(TEMPLETTE, {"s": table})
    assert unit.units == ("d1", "d2")
    assert unit.values.tolist() == [[[1, 0, 0, 1, 0, 1], [0, 0, 0, 0, 0, 0]]]


@pytest.mark.parametrize("seed", range(20))
def test_templette_statistics_count_what_all_slots_counts(seed: int) -> None:
    """The statistics, counted on the tallies' columns, against a count row by row: each (document,
    TYPE.SLOT, category) of a fill point (aspect not ``object``) once per point, sorted;
    a document without any such point one row of value 0."""
    rng = np.random.default_rng(seed)
    rows = [
        (
            f"d{rng.integers(6)}",
            str(rng.choice(["EVENT", "TEMPLATE", "é"])),
            [None, "WINNER", "LOSER", "DATE"][rng.integers(4)],
            str(rng.choice(["content", "extent", "object"])),
            str(rng.choice(["COR", "INC", "PAR", "MIS", "SPU", "NON"])),
        )
        for _ in range(rng.integers(0, 60))
    ]
    tallies = pa.Table.from_pylist(
        [dict(zip([C.doc_id, C.instance_type, C.slot, C.aspect, C.category], r, strict=True)) for r in rows],
        schema=TALLIES,
    )
    counted: dict[tuple[str, str, str], int] = {}
    for doc, kind, slot, aspect, category in rows:
        if aspect != "object":
            key = (doc, f"{kind}.{slot}", category)
            counted[key] = counted.get(key, 0) + 1
    expected = [(*key, float(n)) for key, n in sorted(counted.items())]
    expected += [(doc, None, "COR", 0.0) for doc in sorted({r[0] for r in rows} - {k[0] for k in counted})]
    got = [tuple(row.values()) for row in templette_statistics(tallies, "s").to_pylist()]
    assert got == expected


def test_templette_statistics_refuse_a_point_without_a_document() -> None:
    row = {C.doc_id: None, C.instance_type: "EVENT", C.slot: "WINNER", C.aspect: "content", C.category: "COR"}
    with pytest.raises(ValueError, match="'s': 1 point"):
        templette_statistics(pa.Table.from_pylist([row]), "s")


def _sample_artifacts(tmp_path: Path) -> tuple[dict, dict]:
    """The README's sample campaign run; each system's ``scores`` and ``tallies`` artifacts."""
    shutil.copytree(DATA / "hub4-sports", tmp_path / "hub4-sports")
    campaign = tmp_path / "campaign.toml"
    campaign.write_text((DATA / "campaign.toml").read_text(encoding="utf-8"), encoding="utf-8")
    _, system_specs = campaign_spec(read_campaign(campaign))
    assert main(["campaign", str(campaign), "--store", str(tmp_path / "store"), "--progress", "none"]) == 0
    scores, tallies = {}, {}
    for name, spec in system_specs.items():
        report = task_for(spec, str(tmp_path / "store"))
        scores[name] = pq.read_table(report.output()["scores"].path)
        tallies[name] = pq.read_table(report.requires()["scored"].output()["tallies"].path)
    return scores, tallies


def _counted(rows: list[tuple[str, str, str]], systems: list[str], documents: list[str]) -> UnitStatistics:
    """ALL SLOTS points given as (system, document, category) rows, counted one by one."""
    values = np.zeros((len(systems), len(documents), len(TEMPLETTE.statistic_names)))
    for system, document, category in rows:
        values[
            systems.index(system), documents.index(document), TEMPLETTE.statistic_names.index(category)
        ] += 1
    return UnitStatistics(TEMPLETTE, tuple(systems), tuple(documents), values)


def test_campaign_summary_from_the_statistics_tables_equals_the_count_route(tmp_path: Path) -> None:
    """The sample campaign: the summary's counts, intervals and p-values from the family's statistics
    tables are those of the ALL SLOTS points counted one by one, number for number; its counts are the
    score tables' totals; and the heat map's slot measures from the statistics are the score table's slot
    rows."""
    scores, tallies = _sample_artifacts(tmp_path)
    names = list(scores)
    tables = {name: templette_statistics(tallies[name], name) for name in names}
    summary = campaign_summary(TEMPLETTE_CAMPAIGN, names, tables, dict.fromkeys(names, ""), {}, 300, 7)
    board, significance = summary["leaderboard"], summary["significance"]
    documents = sorted({d for t in tallies.values() for d in t.column(C.doc_id).to_pylist()})
    rows = [
        (name, row[C.doc_id], row[C.category])
        for name in names
        for row in slot_points(tallies[name].to_pandas()).to_dict("records")
    ]
    order = list(dict.fromkeys(board.column(C.system).to_pylist()))
    counted = _counted(rows, order, documents)
    intervals = stats.bootstrap_intervals(counted, resamples=300, seed=7)
    for row in board.to_pylist():
        if row[C.measure] in ("REC", "PRE", "F"):
            interval = intervals[row[C.system]][row[C.measure]]
            assert (row[C.low], row[C.high]) == (interval.low, interval.high)
        if row[C.measure] in ("COR", "INC", "PAR", "MIS", "SPU", "NON", "POS", "ACT"):
            total = next(r for r in scores[row[C.system]].to_pylist() if r[C.scope] == "total")
            assert row[C.value] == total[row[C.measure]], row
    expected = stats.paired_significance(counted, "F", resamples=300, seed=7)
    got = significance.to_pylist()
    assert [
        (r[C.system_a], r[C.system_b], r[C.delta], r[C.paired_bootstrap_p], r[C.randomization_p]) for r in got
    ] == [(c.a, c.b, c.delta, c.paired_bootstrap_p, c.randomization_p) for c in expected]
    # The page's heat map reads the summary's categories table (not every system's statistics): both
    # give each slot the score table's slot row.
    summed = reuse.read_categories(TEMPLETTE, summary["categories"])
    assert list(summed) == names
    for name in names:
        by_slot = category_measures(TEMPLETTE, templette_statistics(tallies[name], name))
        from_summary = measures_by_category(TEMPLETTE, *summed[name])
        slot_rows = [r for r in scores[name].to_pylist() if r[C.scope] == "slot"]
        assert {f"{r[C.instance_type]}.{r[C.slot]}" for r in slot_rows} == set(by_slot) == set(from_summary)
        for r in slot_rows:
            for measure in ("REC", "PRE", "F"):
                assert by_slot[f"{r[C.instance_type]}.{r[C.slot]}"][measure] == r[measure], (name, r)
                assert from_summary[f"{r[C.instance_type]}.{r[C.slot]}"][measure] == r[measure], (name, r)


# ---------------------------------------------------------------------------------- a mean over units


def test_mean_family_intervals_reach_the_extremes_by_hand() -> None:
    # Two queries, AP 0.2 and 0.8. A resample of two queries is {q0, q0} with probability 1/4 (MAP 0.2),
    # {q0, q1} with 1/2 (MAP (0.2 + 0.8) / 2 = 0.5) or {q1, q1} with 1/4 (0.8): each end holds ~1000 of
    # 4000 resamples, far more than the 100 beyond each 2.5% percentile, so the 95% interval is [0.2, 0.8]
    # and the 20% interval (40th to 60th percentiles, inside the half at 0.5) is [0.5, 0.5].
    two = _queries({"X": [0.2, 0.8]})
    assert stats.bootstrap_intervals(two, resamples=4000, seed=3)["X"]["MAP"] == stats.Interval(0.2, 0.8)
    narrow = stats.bootstrap_intervals(two, resamples=4000, seed=3, confidence=0.2)["X"]["MAP"]
    assert narrow == stats.Interval(pytest.approx(0.5), pytest.approx(0.5))
    [standing] = stats.standings(two)
    assert standing.measures == {"MAP": pytest.approx(0.5)}


def test_mean_family_bootstrap_is_the_mean_of_the_drawn_queries() -> None:
    # The documented draws, recomputed directly: resample r draws U queries with
    # default_rng(seed).integers(0, U, size=(R, U)); its MAP is the plain mean of the drawn APs.
    ap = np.array([0.91, 0.05, 0.33, 0.62, 0.48, 0.17, 0.76])
    other = ap[::-1].copy()
    got = stats.bootstrap_intervals(_queries({"A": list(ap), "B": list(other)}), resamples=500, seed=21)
    draws = np.random.default_rng(21).integers(0, len(ap), size=(500, len(ap)))
    for name, values in (("A", ap), ("B", other)):
        low, high = np.quantile(values[draws].mean(axis=1), [0.025, 0.975], method="linear")
        assert got[name]["MAP"].low == pytest.approx(low, abs=1e-12)
        assert got[name]["MAP"].high == pytest.approx(high, abs=1e-12)


def test_mean_family_significance_and_standings() -> None:
    # P has AP 1 on every one of 10 queries, Q AP 0: delta = 1, and every resample keeps MAP(P) = 1,
    # MAP(Q) = 0, so |delta*_r - 1| = 0 is never extreme: p = 1/(1 + R) exactly. Randomization: with k
    # queries swapped MAP(P) = (10 - k)/10 and MAP(Q) = k/10, extreme only for k = 0 or 10 (p ~ 2/1024).
    tables = _queries({"Q": [0.0] * 10, "P": [1.0] * 10, "R": [0.5] * 10})
    [pq_, pr, qr] = stats.paired_significance(tables, resamples=1000, seed=5)
    assert (pq_.a, pq_.b, pq_.delta, pq_.paired_bootstrap_p) == ("Q", "P", -1.0, 1 / 1001)
    assert pq_.randomization_p is not None and pq_.randomization_p < 0.015
    assert (pr.delta, qr.delta) == (-0.5, 0.5)
    assert [(s.system, s.rank, s.measures["MAP"]) for s in stats.standings(tables)] == [
        ("P", 1, 1.0),
        ("R", 2, 0.5),
        ("Q", 3, 0.0),
    ]


def test_ranking_shares_ranks_and_puts_undefined_last() -> None:
    # 0.7 first; the two 0.5 share rank 2 (by name), the next takes rank 4; undefined after all.
    got = stats.ranking({"c": 0.5, "b": 0.7, "a": 0.5, "e": None, "d": math.nan, "f": 0.1})
    assert got == [("b", 1), ("a", 2), ("c", 2), ("f", 4), ("d", 5), ("e", 5)]


# ------------------------------------------------------------------------------------------ coreference


def _coref_scores(key: Path, response: Path):
    keys, responses = read_pair(key, response, "conll")
    return score_documents(align_documents(keys, responses), metrics=METRICS)


def _assert_rates(values: np.ndarray, totals: dict, zero_division: str | int) -> None:
    column = {name: i for i, name in enumerate(COREF.measure_names)}
    f1 = []
    for metric, prefix in zip(METRICS, ("MUC", "B3", "CEAFe", "CEAFm", "BLANC", "LEA"), strict=True):
        expected = rates(totals[metric], zero_division)
        for part, value in zip(("R", "P", "F1"), expected, strict=True):
            got = values[column[f"{prefix}_{part}"]]
            if value is None:
                assert math.isnan(got), (metric, part)
            else:
                assert got == pytest.approx(value, abs=1e-12), (metric, part, zero_division)
        if metric in ("muc", "b3", "ceafe"):
            f1.append(expected[2])
    conll = values[column["CoNLL_F1"]]
    if None in f1:
        assert math.isnan(conll)
    else:
        assert conll == pytest.approx(sum(f1) / 3, abs=1e-12)


@needs_shared
@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_coref_family_equals_rates_of_the_totals(case: str) -> None:
    """Every case of the reference scorer's tests: summed statistics -> measures = rates of the totals."""
    spec = EXPECTED[case]
    scores = _coref_scores(COREF_DATA / spec["key_file"], COREF_DATA / spec["response_file"])
    statistics = UnitStatistics.from_table(COREF, {"system": coref_statistics(scores)})
    totals = statistics.totals()[0]
    for zero_division in ("undefined", 0):
        _assert_rates(COREF.measures(totals, {"zero_division": zero_division}), scores.totals, zero_division)


def test_coref_family_declares_counts_and_headline() -> None:
    assert COREF.headline == "CoNLL_F1" and COREF.unit == "document"
    assert len(COREF.statistic_names) == 5 * 4 + 8
    assert "b3_recall_num" not in COREF.counts and "b3_recall_den" in COREF.counts
    assert "blanc_non_coreference_precision_num" in COREF.counts
    with pytest.raises(ValueError, match="zero_division"):
        COREF.measures(np.zeros(len(COREF.statistic_names)), {"zero_division": "nan"})
    with pytest.raises(ValueError, match="no option 'beta'"):
        stats.bootstrap_intervals(
            UnitStatistics(COREF, ("s",), ("d",), np.zeros((1, 1, 28))), resamples=5, beta=1.0
        )


def _concatenated(names: list[str], suffixes: list[str], directory: Path) -> tuple[Path, Path]:
    """One key and one response file holding the TC-X cases as documents (tc-x), in that order."""
    key, response = [], []
    for name, suffix in zip(names, suffixes, strict=True):
        for parts, source in ((key, f"TC-{name}.key"), (response, f"TC-{name}-{suffix}.response")):
            lines = (COREF_DATA / "datafiles" / source).read_text(encoding="utf-8").splitlines()
            assert lines[0].startswith("#begin document")
            parts += [f"#begin document (tc-{name.lower()});", *lines[1:]]
    (directory / "key.conll").write_text("\n".join(key) + "\n", encoding="utf-8")
    (directory / "response.conll").write_text("\n".join(response) + "\n", encoding="utf-8")
    return directory / "key.conll", directory / "response.conll"


@needs_shared
def test_coref_bootstrap_intervals_hold_the_full_sample_values(tmp_path: Path) -> None:
    """14 documents (TC-A to TC-N), three systems: every interval holds its full-sample value, and the
    significance deltas are the full-sample CoNLL F1 differences."""
    names = list("ABCDEFGHIJKLMN")
    tables, totals = {}, {}
    for system, pick in (("one", "1"), ("two", "2"), ("three", "3")):
        suffixes = [pick if name in "AMN" else "1" for name in names]
        directory = tmp_path / system
        directory.mkdir()
        scores = _coref_scores(*_concatenated(names, suffixes, directory))
        assert len(scores.documents) == 14
        tables[system] = coref_statistics(scores)
        totals[system] = scores.totals
    statistics = UnitStatistics.from_table(COREF, tables)
    assert statistics.units == tuple(sorted(f"(tc-{n.lower()});" for n in names))
    intervals = stats.bootstrap_intervals(statistics, resamples=1000, seed=12345)
    board = stats.standings(statistics, intervals)
    for standing in board:
        _assert_rates(
            np.array([np.nan if v is None else v for v in standing.measures.values()]),
            totals[standing.system],
            "undefined",
        )
        for measure, value in standing.measures.items():
            interval = standing.intervals[measure]
            if value is None:
                continue
            assert interval.low is not None and interval.high is not None, (standing.system, measure)
            assert interval.low - 1e-12 <= value <= interval.high + 1e-12, (standing.system, measure)
        # The intervals are not all degenerate: resampling documents does move the measures.
        assert any(i.low < i.high for i in standing.intervals.values() if i.low is not None)
    headline = {s.system: s.measures["CoNLL_F1"] for s in board}
    for comparison in stats.paired_significance(statistics, resamples=200, seed=1):
        assert comparison.delta == pytest.approx(headline[comparison.a] - headline[comparison.b], abs=1e-12)
        assert comparison.randomization_p is not None and 0 < comparison.randomization_p <= 1
