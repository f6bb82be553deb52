"""Measures from counts, checked against the MUC score reports printed in seed 001."""

from __future__ import annotations

import pytest
from iescore.pipeline.core.measures import Counts, f_measure, measures, percent


def test_muc6_scenario_all_slots_line() -> None:
    # Seed 001, scenario template report: ALL SLOTS 2856 2307|1058 0 368|1430 881 1280|
    # 37 46 50 38 26 72, and P&R 2P&R P&2R F-MEASURES 40.98 43.78 38.53.
    counts = Counts(COR=1058, PAR=0, INC=368, MIS=1430, SPU=881, NON=1280)
    assert (counts.POS, counts.ACT) == (2856, 2307)
    shown = {k: percent(v) for k, v in measures(counts).items()}
    assert shown == {"REC": 37, "PRE": 46, "F": 41, "UND": 50, "OVG": 38, "SUB": 26, "ERR": 72}
    assert [percent(f_measure(counts, beta), 2) for beta in (1.0, 0.5, 2.0)] == [40.98, 43.78, 38.53]


def test_muc6_named_entity_all_slots_line() -> None:
    # Seed 001, named entity report: ALL SLOTS 2260 2300|2139 0 51| 70 110 103| 95 93 3 5 2 10,
    # F-MEASURES 93.82 93.32 94.31.
    counts = Counts(COR=2139, PAR=0, INC=51, MIS=70, SPU=110, NON=103)
    assert (counts.POS, counts.ACT) == (2260, 2300)
    shown = {k: percent(v) for k, v in measures(counts).items() if k != "F"}
    assert shown == {"REC": 95, "PRE": 93, "UND": 3, "OVG": 5, "SUB": 2, "ERR": 10}
    assert [percent(f_measure(counts, beta), 2) for beta in (1.0, 0.5, 2.0)] == [93.82, 93.32, 94.31]


def test_partial_counts_half() -> None:
    # Hand: COR 2, PAR 2, INC 1, MIS 1, SPU 3 -> POS 6, ACT 8; REC = 3/6, PRE = 3/8,
    # SUB = (1 + 1)/5, ERR = (1 + 1 + 1 + 3)/9.
    counts = Counts(COR=2, PAR=2, INC=1, MIS=1, SPU=3)
    values = measures(counts)
    assert values["REC"] == pytest.approx(0.5)
    assert values["PRE"] == pytest.approx(0.375)
    assert values["SUB"] == pytest.approx(0.4)
    assert values["ERR"] == pytest.approx(6 / 9)
    assert values["F"] == pytest.approx(2 * 0.5 * 0.375 / 0.875)


def test_undefined_is_none_not_zero() -> None:
    empty = measures(Counts(NON=4))
    assert all(value is None for value in empty.values())
    only_spurious = measures(Counts(SPU=2))
    assert only_spurious["REC"] is None and only_spurious["PRE"] == 0.0 and only_spurious["F"] == 0.0


def test_f_seed_simplification() -> None:
    # Seed 000: at beta = 1, F = 2 COR / (POS + ACT). COR 3, INC 1, MIS 2, SPU 0: 6 / (6 + 4).
    assert f_measure(Counts(COR=3, INC=1, MIS=2)) == pytest.approx(0.6)


def test_percent_rounds_half_up() -> None:
    assert percent(0.125, 1) == 12.5 and percent(0.005) == 1 and percent(None) is None
