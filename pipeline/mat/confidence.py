"""MATScore's confidence data (``--compute_confidence_data``; seed 002, "Confidence data").

The scorer makes ``resamples`` (1,000 by default) alternative score sets; each draws M file scores
uniformly with replacement from the M files' scores, sums them, and computes the table's measures (per
tag and for ``<all>``). The mean, the variance and the standard deviation over the score sets of each
measure (precision, recall, fmeasure, and in the fixed-span tables the four accuracy columns) become
three columns right after that measure: ``precision_mean``, ``precision_variance``,
``precision_stddev``, and so on.

Choices where the seed is silent: the variance is the population variance (divided by the number of
score sets, ``numpy.var(ddof=0)``), the standard deviation its square root. MATScore did not seed its
generator; here the draws are ``numpy.random.default_rng(seed).integers(0, M, size=(resamples, M))``
over the files in sorted order (the very draws of ``pipeline.campaign``'s bootstrap intervals with the
same seed), so a run is reproducible and the seed goes into the signature. A measure undefined in some
score sets (an accuracy with no test unit) is averaged over the others; undefined in all, it is NaN.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.mat.fixed import ACCURACY_COLUMNS, COUNT_COLUMNS, accuracy_columns
from iescore.pipeline.mat.measures import rates
from iescore.schemas import C

#: MATScore's number of score sets, and the seed used when none is given.
DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 12345
#: The measures that get confidence columns: precision, recall, fmeasure in every table, and the
#: accuracy columns in the fixed-span tables.
CONFIDENCE_MEASURES = ("precision", "recall", "fmeasure")
STATISTICS = ("mean", "variance", "stddev")
ALL = "<all>"

#: ``measures(sums) -> {measure: values}``: summed count arrays (``match`` ... ``spurious``,
#: ``test_units``) of any shape to measure arrays of that shape.
Measures = Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]]


def resample_weights(resamples: int, n_files: int, seed: int) -> np.ndarray:
    """``(resamples, n_files)`` multiplicities: each row counts M draws with replacement from M files."""
    if isinstance(resamples, bool) or not isinstance(resamples, int | np.integer) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")
    rng = np.random.default_rng(seed)
    if n_files == 0:
        return np.zeros((resamples, 0))
    draws = rng.integers(0, n_files, size=(resamples, n_files))
    cells = draws + (np.arange(resamples) * n_files)[:, None]
    counts = np.bincount(cells.ravel(), minlength=resamples * n_files)
    return counts.reshape(resamples, n_files).astype(np.float64)


def confidence_data(
    counts: pd.DataFrame,
    measures: Measures = rates,
    *,
    fixed_span: bool,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    files: Sequence[str] | None = None,
    weights: np.ndarray | None = None,
) -> pd.DataFrame:
    """Mean, variance and standard deviation of each measure over resampled score sets, per tag.

    ``counts`` holds one table's per-file ``MAT_COUNTS`` rows (file, tag, the count columns,
    ``test_units`` repeated on each row of a file). ``measures`` turns summed counts into precision,
    recall and fmeasure (default: ``pipeline.mat.measures.rates``, MATScore's conventions); with
    ``fixed_span`` the seed's accuracy columns are added. ``files`` are the files resampled (default:
    those of ``counts``), in sorted order; ``weights`` (``(resamples, files)`` multiplicities)
    replaces the random draws, for tests. Returns one row per tag (sorted) and ``<all>`` last, indexed
    by tag, with the columns ``{measure}_{mean|variance|stddev}``.
    """
    files = sorted(set(counts[C.file]) if files is None else files)
    tags = sorted(set(counts[C.tag]))
    file_index = pd.Index(files, dtype=object).get_indexer(counts[C.file])
    if (file_index < 0).any():
        raise ValueError(
            f"counts of file {counts['file'].iloc[int(np.argmax(file_index < 0))]!r} not resampled"
        )
    tag_index = pd.Index(tags, dtype=object).get_indexer(counts[C.tag])
    if weights is None:
        weights = resample_weights(resamples, len(files), seed)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 2 or weights.shape[1] != len(files):
        raise ValueError(f"weights must be (resamples, {len(files)} files), got {weights.shape}")

    # (files, tags, counts) per-file counts; test units once per file.
    per_file = np.zeros((len(files), len(tags), len(COUNT_COLUMNS)))
    for position, name in enumerate(COUNT_COLUMNS):
        np.add.at(per_file[..., position], (file_index, tag_index), counts[name].to_numpy(np.float64))
    test_units = np.zeros(len(files))
    test_units[file_index] = counts[C.test_units].to_numpy(np.float64)

    by_tag = np.einsum("rf,ftk->rtk", weights, per_file)  # (resamples, tags, counts)
    every = np.concatenate([by_tag, by_tag.sum(axis=1, keepdims=True)], axis=1)
    sums = {name: every[..., position] for position, name in enumerate(COUNT_COLUMNS)}
    sums[C.test_units] = np.repeat((weights @ test_units)[:, None], every.shape[1], axis=1)
    values = dict(measures(sums))
    names = list(CONFIDENCE_MEASURES)
    if fixed_span:
        values.update(
            accuracy_columns(sums[C.test_units], sums[C.refclash], sums[C.missing], sums[C.spurious])
        )
        names += ACCURACY_COLUMNS
    columns: dict[str, np.ndarray] = {}
    for name in names:
        mean, variance = _mean_and_population_variance(np.asarray(values[name], dtype=np.float64))
        columns[f"{name}_mean"] = mean
        columns[f"{name}_variance"] = variance
        columns[f"{name}_stddev"] = np.sqrt(variance)
    return pd.DataFrame(columns, index=pd.Index([*tags, ALL], name="tag"))


def confidence_columns(fixed_span: bool) -> tuple[str, ...]:
    """The confidence columns of a table, in order (three after each measure)."""
    names = CONFIDENCE_MEASURES + (ACCURACY_COLUMNS if fixed_span else ())
    return tuple(f"{name}_{statistic}" for name in names for statistic in STATISTICS)


def insert_confidence(
    report: pd.DataFrame, confidence: pd.DataFrame, tag_column: str = "tag"
) -> pd.DataFrame:
    """``report`` with each measure's three confidence columns right after that measure's column.

    Rows are matched by ``tag_column``; a report row whose tag ``confidence`` lacks gets NaN.
    """
    joined = report.join(confidence, on=tag_column)
    order: list[str] = []
    for column in report.columns:
        order.append(column)
        order += [
            f"{column}_{statistic}" for statistic in STATISTICS if f"{column}_{statistic}" in confidence
        ]
    return joined[order]


def _mean_and_population_variance(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance over the first axis, leaving out NaN (all NaN: NaN)."""
    defined = ~np.isnan(values)
    n = defined.sum(axis=0)
    filled = np.where(defined, values, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(n > 0, filled.sum(axis=0) / n, np.nan)
        deviation = np.where(defined, values - mean, 0.0)
        variance = np.where(n > 0, (deviation**2).sum(axis=0) / n, np.nan)
    return mean, variance
