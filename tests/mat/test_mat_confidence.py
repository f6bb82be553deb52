"""Confidence data (issue 12, point 8; seed 002, "Confidence data").

Hand-worked expectations use given resample weights; the random draws are checked against a plain
loop over the documented draw (``default_rng(seed).integers(0, M, size=(R, M))``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from iescore.pipeline.mat.confidence import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    confidence_columns,
    confidence_data,
    insert_confidence,
    resample_weights,
)


def _prf(sums: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The seed's precision, recall and fmeasure with MATScore's conventions (P = 1 when hyptotal is 0,
    R = 1 when reftotal is 0, F = 0 when P + R = 0)."""
    hyptotal = sums["match"] + sums["hypclash"] + sums["spurious"]
    reftotal = sums["match"] + sums["refclash"] + sums["missing"]
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(hyptotal > 0, sums["match"] / hyptotal, 1.0)
        recall = np.where(reftotal > 0, sums["match"] / reftotal, 1.0)
        fmeasure = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    return {"precision": precision, "recall": recall, "fmeasure": fmeasure}


def _counts(rows: list[tuple]) -> pd.DataFrame:
    columns = ["file", "tag", "match", "refclash", "missing", "hypclash", "spurious", "test_units"]
    return pd.DataFrame(rows, columns=columns)


# File a: tag X matched once (P = R = 1); file b: tag X spurious once and missing once (P = R = 0).
TWO_FILES = _counts([("a", "X", 1, 0, 0, 0, 0, 4), ("b", "X", 0, 0, 1, 0, 1, 6)])


def test_population_variance_of_hand_made_score_sets() -> None:
    # Four score sets: {a, a}, {a, b}, {b, a}, {b, b}. Precision of each: 2/2 = 1, 1/2, 1/2, 0/2 = 0.
    # Mean 0.5; population variance (0.25 + 0 + 0 + 0.25) / 4 = 0.125 (the sample variance would be
    # 0.5 / 3 = 0.1667); stddev sqrt(0.125) = 0.353553. Recall is the same.
    weights = np.array([[2, 0], [1, 1], [1, 1], [0, 2]])
    result = confidence_data(TWO_FILES, _prf, fixed_span=False, weights=weights)
    assert list(result.index) == ["X", "<all>"]
    assert list(result.columns) == list(confidence_columns(False))
    for measure in ("precision", "recall"):
        assert result.loc["X", f"{measure}_mean"] == pytest.approx(0.5)
        assert result.loc["X", f"{measure}_variance"] == pytest.approx(0.125)
        assert result.loc["X", f"{measure}_stddev"] == pytest.approx(0.125**0.5)
    # F: 1, 0.5, 0.5, 0 (P = R in each set), the same figures.
    assert result.loc["X", "fmeasure_mean"] == pytest.approx(0.5)
    assert result.loc["<all>", "fmeasure_variance"] == pytest.approx(0.125)


def test_fixed_span_accuracy_confidence() -> None:
    # Accuracy per score set: tag-sensitive = (units - refclash - missing - spurious) / units.
    # {a, a}: (8 - 0) / 8 = 1; {a, b}: (10 - 2) / 10 = 0.8; {b, b}: (12 - 4) / 12 = 2/3.
    # Weights [[2, 0], [1, 1], [0, 2]]: mean (1 + 0.8 + 2/3) / 3 = 0.822222; population variance
    # ((0.177778)^2 + (0.022222)^2 + (0.155556)^2) / 3 = (0.0316049 + 0.0004938 + 0.0241975) / 3
    # = 0.0187654.
    weights = np.array([[2, 0], [1, 1], [0, 2]])
    result = confidence_data(TWO_FILES, _prf, fixed_span=True, weights=weights)
    assert list(result.columns) == list(confidence_columns(True))
    assert result.loc["X", "tag_sensitive_accuracy_mean"] == pytest.approx(0.822222, abs=1e-6)
    assert result.loc["X", "tag_sensitive_accuracy_variance"] == pytest.approx(0.0187654, abs=1e-6)
    assert result.loc["X", "tag_sensitive_error_rate_mean"] == pytest.approx(1 - 0.822222, abs=1e-6)
    # No refclash here, so tag-blind accuracy is the same.
    assert result.loc["<all>", "tag_blind_accuracy_mean"] == pytest.approx(0.822222, abs=1e-6)


def test_one_file_has_no_variance() -> None:
    counts = _counts([("a", "X", 3, 1, 0, 0, 1, 10), ("a", "Y", 0, 0, 2, 1, 0, 10)])
    result = confidence_data(counts, _prf, fixed_span=True, resamples=50, seed=3)
    # X: P = 3/4, R = 3/4; <all>: match 3, hyptotal 3 + 1 + 1 = 5, reftotal 3 + 1 + 2 = 6.
    assert result.loc["X", "precision_mean"] == pytest.approx(0.75)
    assert result.loc["<all>", "precision_mean"] == pytest.approx(3 / 5)
    assert result.loc["<all>", "recall_mean"] == pytest.approx(3 / 6)
    assert np.allclose(result.filter(like="_variance").to_numpy(), 0.0)
    # <all> tag-sensitive accuracy: (10 - 1 - 2 - 1) / 10 = 0.6 (test units counted once per file).
    assert result.loc["<all>", "tag_sensitive_accuracy_mean"] == pytest.approx(0.6)


def test_draws_are_the_documented_seeded_draws() -> None:
    counts = _counts(
        [
            (name, "X", m, 0, miss, 0, spu, 5)
            for name, m, miss, spu in [("c", 2, 1, 0), ("a", 0, 1, 1), ("b", 4, 0, 2)]
        ]
    )
    result = confidence_data(counts, _prf, fixed_span=False, resamples=200, seed=99)
    # The same computation by a plain loop: files in sorted order a, b, c.
    per_file = {"a": (0, 1, 1), "b": (4, 0, 2), "c": (2, 1, 0)}
    draws = np.random.default_rng(99).integers(0, 3, size=(200, 3))
    precisions = []
    for row in draws:
        match = sum(per_file["abc"[i]][0] for i in row)
        hyptotal = match + sum(per_file["abc"[i]][2] for i in row)
        precisions.append(match / hyptotal if hyptotal else 1.0)
    assert result.loc["X", "precision_mean"] == pytest.approx(np.mean(precisions))
    assert result.loc["X", "precision_variance"] == pytest.approx(np.var(precisions))
    # Reproducible; another seed draws other sets; row order of the input does not matter.
    again = confidence_data(counts.iloc[::-1], _prf, fixed_span=False, resamples=200, seed=99)
    pd.testing.assert_frame_equal(result, again)
    other = confidence_data(counts, _prf, fixed_span=False, resamples=200, seed=100)
    assert other.loc["X", "precision_mean"] != result.loc["X", "precision_mean"]


def test_defaults_are_a_thousand_seeded_sets() -> None:
    assert (DEFAULT_RESAMPLES, DEFAULT_SEED) == (1000, 12345)
    weights = resample_weights(DEFAULT_RESAMPLES, 7, DEFAULT_SEED)
    assert weights.shape == (1000, 7) and (weights.sum(axis=1) == 7).all()
    with pytest.raises(ValueError, match="resamples must be a positive integer"):
        resample_weights(0, 7, 1)


def test_confidence_columns_follow_their_measure() -> None:
    report = pd.DataFrame(
        {
            "tag": ["X", "<all>"],
            "match": [1, 1],
            "precision": [0.5, 0.5],
            "recall": [1.0, 1.0],
            "fmeasure": [0.6, 0.6],
        }
    )
    confidence = confidence_data(TWO_FILES, _prf, fixed_span=False, resamples=10)
    merged = insert_confidence(report, confidence)
    assert list(merged.columns) == [
        "tag",
        "match",
        "precision",
        "precision_mean",
        "precision_variance",
        "precision_stddev",
        "recall",
        "recall_mean",
        "recall_variance",
        "recall_stddev",
        "fmeasure",
        "fmeasure_mean",
        "fmeasure_variance",
        "fmeasure_stddev",
    ]
    assert merged.loc[1, "precision_mean"] == confidence.loc["<all>", "precision_mean"]
