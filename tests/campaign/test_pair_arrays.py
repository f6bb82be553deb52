"""Pair tests as arrays (pipeline.campaign.stats.pair_tests, holm), the family's single measure
(Family.measure), and where a large campaign's pairs are written (tasks.campaign.outputs).

Expected numbers are worked out by hand in the comments, or are the family's own measures of the same
sums (``Family.measures``, checked against hand calculations in tests/core); the pair tests computed
for chosen pairs must be exactly those of the full list.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from iescore.pipeline.campaign import engine, reuse, stats
from iescore.pipeline.campaign.kinds import KINDS
from iescore.pipeline.core.family import UnitStatistics
from iescore.pipeline.templette import TEMPLETTE
from iescore.pipeline.trec.family import TREC
from iescore.tasks.campaign import outputs
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def test_holm_by_hand_with_an_undefined_p_value_and_ties() -> None:
    # m = 3 defined p-values, sorted 0.01, 0.03, 0.04 (the undefined one is not counted):
    # 0.01 * 3 = 0.03; max(0.03, 0.03 * 2 = 0.06) = 0.06; max(0.06, 0.04 * 1) = 0.06.
    adjusted = stats.holm_adjusted(np.array([0.01, np.nan, 0.04, 0.03]))
    assert adjusted[0] == pytest.approx(0.03)
    assert math.isnan(adjusted[1])
    assert adjusted[2:].tolist() == pytest.approx([0.06, 0.06])
    assert stats.holm([0.01, None, 0.04, 0.03])[1] is None
    # Equal p-values: 0.2 * 2 = 0.4 for the first, max(0.4, 0.2 * 1) = 0.4; capped at 1: 0.6 * 2 -> 1.
    assert stats.holm_adjusted(np.array([0.2, 0.2])).tolist() == pytest.approx([0.4, 0.4])
    assert stats.holm([0.6, 0.7]) == [1.0, 1.0]


def test_every_pair_is_in_the_order_of_pair_index() -> None:
    pairs = stats.every_pair(5)
    assert pairs.tolist()[:5] == [[0, 1], [0, 2], [0, 3], [0, 4], [1, 2]]
    assert [stats.pair_index(5, a, b) for a, b in pairs.tolist()] == list(range(10))
    assert stats.every_pair(1).shape == (0, 2)


def statistics(seed: int, systems: int, units: int) -> UnitStatistics:
    values = np.random.default_rng(seed).integers(0, 5, size=(systems, units, 6)).astype(np.float64)
    values[2] = 0  # a system without points: F undefined, so are its pairs
    names = tuple(f"s{i}" for i in range(systems))
    return UnitStatistics(TEMPLETTE, names, tuple(f"d{u}" for u in range(units)), values)


def test_chosen_pairs_in_any_order_get_the_values_of_the_full_list() -> None:
    given = statistics(3, 7, 25)
    every = stats.pair_tests(given, resamples=150, seed=4)
    chosen = np.array([[3, 6], [0, 1], [0, 2], [4, 5], [0, 6], [3, 4]])
    some = stats.pair_tests(given, resamples=150, seed=4, pairs=chosen)
    rows = [stats.pair_index(7, a, b) for a, b in chosen.tolist()]
    for name in stats.PAIR_TEST_FIELDS:
        np.testing.assert_array_equal(getattr(some, name), getattr(every, name)[rows])
    # The pairs of the system without points are undefined, the others are not.
    assert np.isnan(every.delta[every.b == 2]).all() and np.isnan(every.randomization_p[every.a == 2]).all()
    assert not np.isnan(every.randomization_p[(every.a != 2) & (every.b != 2)]).any()
    with pytest.raises(ValueError, match="positions a < b"):
        stats.pair_tests(given, resamples=10, pairs=np.array([[2, 1]]))


def test_the_bootstrap_headline_given_once_serves_the_pair_tests() -> None:
    # A campaign's summary computes the headline on every resample once (``bootstrap_measure``) and hands
    # it to the pair tests and the rank ranges: the tests are exactly those computed from scratch.
    given = statistics(6, 5, 20)
    resampled = stats.bootstrap_measure(given, None, 120, 9)
    chosen = np.array([[0, 1], [1, 4], [2, 3]])
    for pairs in (None, chosen):
        fresh = stats.pair_tests(given, resamples=120, seed=9, pairs=pairs)
        reused = stats.pair_tests(given, resamples=120, seed=9, pairs=pairs, resampled=resampled)
        for name in stats.PAIR_TEST_FIELDS:
            np.testing.assert_array_equal(getattr(reused, name), getattr(fresh, name))
    with pytest.raises(ValueError, match=r"resampled: shape \(120, 5\) expected"):
        stats.pair_tests(given, resamples=120, seed=9, resampled=resampled[:, :4])


def test_the_comparisons_are_the_arrays_with_names() -> None:
    given = statistics(5, 4, 12)
    tests = stats.pair_tests(given, resamples=80, seed=2)
    comparisons = stats.paired_significance(given, resamples=80, seed=2)
    assert [(c.a, c.b) for c in comparisons] == [(f"s{a}", f"s{b}") for a, b in stats.every_pair(4).tolist()]
    for c, delta, p in zip(comparisons, tests.delta.tolist(), tests.randomization_p.tolist(), strict=True):
        assert (c.delta, c.randomization_p) == ((None, None) if math.isnan(delta) else (delta, p))


@pytest.mark.parametrize("beta", [1.0, 0.5, 3.0])
def test_a_templette_measure_alone_is_the_same_bits_as_among_all(beta: float) -> None:
    sums = np.random.default_rng(8).integers(0, 4, size=(50, 3, 6)).astype(np.float64)
    every = TEMPLETTE.measures(sums, {"beta": beta})
    for name in TEMPLETTE.measure_names:
        alone = TEMPLETTE.measure(sums, name, {"beta": beta})
        np.testing.assert_array_equal(alone, every[..., TEMPLETTE.measure_index(name)])
    assert np.isnan(TEMPLETTE.measure(np.zeros((2, 6)), "F")).all()  # nothing to score: undefined


def test_a_trec_measure_alone_is_the_same_bits_as_among_all() -> None:
    rng = np.random.default_rng(9)
    sums = np.concatenate([rng.integers(0, 3, size=(40, 1)), rng.random((40, 15))], axis=1)
    every = TREC.measures(sums)
    for name in ("map", "gm_map", "P_10"):
        np.testing.assert_array_equal(TREC.measure(sums, name), every[..., TREC.measure_index(name)])


def test_a_previous_tables_pairs_are_found_whatever_their_order() -> None:
    given = statistics(6, 4, 15)
    table = engine.significance_table(KINDS["templette"], given, 60, 1)
    found = reuse.pairs_from_table(table.take([3, 0, 5, 1, 4, 2]))
    assert sorted(found.systems) == list(given.systems)
    back = [(found.systems[a], found.systems[b]) for a, b in zip(found.tests.a, found.tests.b, strict=True)]
    expected = table.take([3, 0, 5, 1, 4, 2])
    assert back == list(zip(expected["system_a"].to_pylist(), expected["system_b"].to_pylist(), strict=True))


def test_a_campaign_past_the_csv_limit_writes_its_pairs_as_parquet_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    argv = [
        "campaign",
        str(data / "campaign.toml"),
        "--store",
        str(tmp_path / "s"),
        "--out",
        str(tmp_path / "o"),
    ]
    assert main([*argv, "--progress", "none"]) == 0
    out = tmp_path / "o"
    pairs = pq.read_table(out / "significance.parquet").num_rows
    assert pairs >= 2 and (out / "significance.csv").is_file()
    assert "pairs (significance.csv)" in (out / "leaderboard.txt").read_text()
    # Fewer pairs allowed than the campaign has: the CSV of the earlier run goes, the board names the Parquet.
    monkeypatch.setattr(outputs, "SIGNIFICANCE_CSV_PAIRS", pairs - 1)
    monkeypatch.setattr(engine, "SIGNIFICANCE_CSV_PAIRS", pairs - 1)
    assert main([*argv, "--progress", "none"]) == 0
    capsys.readouterr()
    assert not (out / "significance.csv").exists()
    assert f"over all {pairs} pairs (significance.parquet)" in (out / "leaderboard.txt").read_text()


def _count_sums(seed: int, shape: tuple[int, ...], width: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 40, size=(*shape, width)).astype(np.float64)


def _families() -> list[tuple[object, str, dict]]:
    from iescore.pipeline.mat.family import MAT

    cases = [(TEMPLETTE, "F", {}), (TEMPLETTE, "F", {"beta": 0.3})]
    cases += [(MAT, name, {}) for name in MAT.measure_names]
    cases += [(TREC, name, {}) for name in TREC.measure_names]
    return cases


@pytest.mark.parametrize(("family", "measure", "options"), _families())
def test_a_measure_of_its_forms_is_the_measure_bit_for_bit(family, measure, options) -> None:
    # The pair tests compute the measure from its forms (Family.measure_forms); it must be the family's
    # measure to the last bit, undefined where that is, also on sums built by adding and subtracting forms
    # (the shuffled sides: moved = x - y, side = moved + z).
    forms = family.measure_forms(measure, options)
    width = len(family.statistic_names)
    x, y, z = (_count_sums(seed, (50, 7), width) for seed in (1, 2, 3))
    x[0, :] = 0  # no counts at all: undefined (templette) or MATScore's conventions
    if family is TREC:
        x[..., 0], y[..., 0], z[..., 0] = 4.0, 1.0, 2.0
        x[1, :, 0] = 0  # no query: undefined
        x[..., 1:] /= 37.0  # per-query values are fractions
    direct = family.measure(x, measure, options)
    assert forms.measure(np.moveaxis(forms.forms(x), -1, 0)).tobytes() == direct.tobytes()
    side = (forms.forms(x + z) - forms.forms(z)) + forms.forms(y)
    whole = family.measure((x + z - z) + y, measure, options)
    assert forms.measure(np.moveaxis(side, -1, 0)).tobytes() == whole.tobytes()
    assert len(forms.forms(x)[0, 0]) < width  # fewer forms than statistics: the reason they exist


@pytest.mark.parametrize("family", ["templette", "mat", "trec"])
def test_pair_tests_on_forms_are_those_on_every_statistic(family) -> None:
    # The same tests with the family's forms and without them (every statistic a form of its own).
    import dataclasses

    from iescore.pipeline.mat.family import MAT

    declared = {"templette": TEMPLETTE, "mat": MAT, "trec": TREC}[family]
    width = len(declared.statistic_names)
    values = _count_sums(5, (9, 30), width)
    if declared is TREC:
        values[..., 0] = 1.0
        values[..., 1:] /= 41.0
    values[2] = 0 if declared is not TREC else values[2]
    names = tuple(f"s{i}" for i in range(9))
    units = tuple(f"u{u}" for u in range(30))
    plain = dataclasses.replace(declared, reduced=None)
    on_forms = stats.pair_tests(UnitStatistics(declared, names, units, values), resamples=200, seed=8)
    on_all = stats.pair_tests(UnitStatistics(plain, names, units, values), resamples=200, seed=8)
    for field in stats.PAIR_TEST_FIELDS:
        assert getattr(on_forms, field).tobytes() == getattr(on_all, field).tobytes(), field
    assert (on_forms.randomization_p < 1).any()  # some pairs differ: the test sees real counts
