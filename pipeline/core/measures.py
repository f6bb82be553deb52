"""Counts of points and the measures computed from them (seed 000 "Calculation of Scores", seed 001).

Every measure is a ratio of counts; a ratio whose denominator is zero is *undefined* and returned as
``None``, never as 0. Percentages for reports are rounded half up, as the MUC scorer printed them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, fields

CATEGORIES = ("COR", "INC", "PAR", "MIS", "SPU", "NON")
MEASURES = ("REC", "PRE", "F", "UND", "OVG", "SUB", "ERR")
_CATEGORY_INDEX = {category: index for index, category in enumerate(CATEGORIES)}  # Counts' field order


@dataclass(frozen=True)
class Counts:
    """Points by category. NON counts unscored (non-committal) points; they enter no measure."""

    COR: int = 0
    INC: int = 0
    PAR: int = 0
    MIS: int = 0
    SPU: int = 0
    NON: int = 0

    @property
    def POS(self) -> int:  # noqa: N802 - the field's own abbreviation
        """Possible: points of pairings that contain a reference fill."""
        return self.COR + self.INC + self.PAR + self.MIS

    @property
    def ACT(self) -> int:  # noqa: N802
        """Actual: points of pairings that contain a hypothesis fill."""
        return self.COR + self.INC + self.PAR + self.SPU

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.COR + other.COR,
            self.INC + other.INC,
            self.PAR + other.PAR,
            self.MIS + other.MIS,
            self.SPU + other.SPU,
            self.NON + other.NON,
        )

    @classmethod
    def of(cls, categories: Iterable[str]) -> Counts:
        """Count an iterable of category names (``"COR"``, ``"MIS"``, ...)."""
        tally = [0, 0, 0, 0, 0, 0]
        for category in categories:
            tally[_CATEGORY_INDEX[category]] += 1
        return cls(*tally)

    @classmethod
    def total(cls, many: Iterable[Counts]) -> Counts:
        # Field by field, in the same order as adding the Counts one by one (no object per step).
        cor = inc = par = mis = spu = non = 0
        for c in many:
            cor += c.COR
            inc += c.INC
            par += c.PAR
            mis += c.MIS
            spu += c.SPU
            non += c.NON
        return cls(cor, inc, par, mis, spu, non)

    def as_dict(self) -> dict[str, int]:
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["POS"] = self.POS
        values["ACT"] = self.ACT
        return values


def is_usable_beta(beta: float) -> bool:
    """Whether F can weigh recall ``beta`` times precision: a finite beta above 0 whose square is finite
    and above 0 too (beta 0 would make F the precision, which PRE already is; a beta beyond about 1e154,
    or below about 1e-154, squares to infinity or to 0, and F would be undefined or the precision)."""
    return 0 < beta < math.inf and 0 < beta * beta < math.inf


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


def recall(c: Counts) -> float | None:
    """REC = (COR + PAR/2) / POS."""
    return _ratio(c.COR + 0.5 * c.PAR, c.POS)


def precision(c: Counts) -> float | None:
    """PRE = (COR + PAR/2) / ACT."""
    return _ratio(c.COR + 0.5 * c.PAR, c.ACT)


def f_measure(c: Counts, beta: float = 1.0) -> float | None:
    """van Rijsbergen's F: (beta^2 + 1) P R / (beta^2 P + R).

    Written as (beta^2 + 1)(COR + PAR/2) / (beta^2 POS + ACT), which equals the usual form wherever
    P and R are defined, reduces to seed 000's 2 COR / (POS + ACT) at beta = 1, and is undefined only
    when there is nothing to score (POS = ACT = 0). beta > 1 weighs recall more (MUC's ``P&2R`` is
    beta = 2, ``2P&R`` is beta = 0.5).
    """
    b2 = beta * beta
    return _ratio((b2 + 1.0) * (c.COR + 0.5 * c.PAR), b2 * c.POS + c.ACT)


def undergeneration(c: Counts) -> float | None:
    """UND = MIS / POS."""
    return _ratio(c.MIS, c.POS)


def overgeneration(c: Counts) -> float | None:
    """OVG = SPU / ACT."""
    return _ratio(c.SPU, c.ACT)


def substitution(c: Counts) -> float | None:
    """SUB = (INC + PAR/2) / (COR + PAR + INC)."""
    return _ratio(c.INC + 0.5 * c.PAR, c.COR + c.PAR + c.INC)


def error_rate(c: Counts) -> float | None:
    """ERR = (INC + PAR/2 + MIS + SPU) / (COR + PAR + INC + MIS + SPU)."""
    return _ratio(c.INC + 0.5 * c.PAR + c.MIS + c.SPU, c.COR + c.PAR + c.INC + c.MIS + c.SPU)


def measures(c: Counts, beta: float = 1.0) -> dict[str, float | None]:
    """All measures as fractions of 1 (``None`` where undefined), keyed as in MEASURES."""
    return {
        "REC": recall(c),
        "PRE": precision(c),
        "F": f_measure(c, beta),
        "UND": undergeneration(c),
        "OVG": overgeneration(c),
        "SUB": substitution(c),
        "ERR": error_rate(c),
    }


def percent(value: float | None, digits: int = 0) -> float | None:
    """A fraction as a percentage rounded half up to ``digits`` decimals (None stays None)."""
    if value is None:
        return None
    scale = 10**digits
    # Half up, as the MUC scorer's C printf of x + 0.5 did; the epsilon absorbs binary noise (0.125 -> 13).
    return int(value * 100 * scale + 0.5 + 1e-9) / scale
