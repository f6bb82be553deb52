"""MATScore's fixed-span tables: scores by token, pseudo-token and character (seed 002).

In these tables the scored elements are not annotations but fixed units of the signal, the same on
both sides: the hypothesis's token annotations (``token``), the seed's pseudo-tokens (``pseudo_token``)
or the characters (``character``). Each unit gets the labels of the content annotations that cover
it on each side, and is then, per label, a **match** (the label on both sides), a **clash** (a label
on each side, different: refclash under the reference label, hypclash under the hypothesis label), a
**missing** (a reference label only) or a **spurious** (a hypothesis label only). Because the units
are compared one by one, the units of one annotation split between two annotations with the same
label on the other side are matched again (issue 12, point 5: ``<T>a b c d</T>`` against
``<T>a b</T> <T>c d</T>`` is perfect at token level); there are no span clashes, so the fourteen
span-detail columns are 0.

Where annotations of one side overlap (allowed here; MAT 1.3 could not score them), a unit can carry
several labels on a side: equal labels pair first (as many matches as the smaller count), then the
labels left on each side pair as clashes in label order (sorted names), and what is left after that is
missing or spurious. With at most one label per side this is the plain rule above.

Pseudo-tokens (seed, "Pseudo-token scores"): cut the signal at every start and end of every content
annotation of both sides, then every whitespace-delimited token of each piece (edges included) is one
pseudo-token. Whitespace is what ``str.isspace`` says. Everything is computed on one global coordinate
line (documents laid end to end, one gap position between them) with sorts and searches over the
boundaries, never a loop over units or a pass over pairs of spans.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from iescore.pipeline.core.lazy import pd
from iescore.pipeline.mat.measures import NO_TAG
from iescore.pipeline.mat.tally import COUNT_COLUMNS, DETAIL_COLUMNS
from iescore.schemas import C

#: The fixed-span tables, in MATScore's order (by token, by pseudo-token, by character).
FIXED_UNITS = ("token", "pseudo_token", "character")
__all__ = [
    "ACCURACY_COLUMNS",
    "COUNT_COLUMNS",
    "DETAIL_COLUMNS",
    "FIXED_UNITS",
    "TokenTableError",
    "accuracy_columns",
    "fixed_span_counts",
]

#: The four accuracy columns the seed adds to the fixed-span tables, in its order.
ACCURACY_COLUMNS = (
    "tag_sensitive_accuracy",
    "tag_sensitive_error_rate",
    "tag_blind_accuracy",
    "tag_blind_error_rate",
)


class TokenTableError(ValueError):
    """The token table cannot be computed (no token annotations, or a content boundary cutting a token).

    The message names the file and the annotation; the command prints it and leaves the token table
    out, as MATScore does ("If there are no token annotations, no token-level scores will be
    generated").
    """


def fixed_span_counts(
    signals: Mapping[str, str], annotations: pd.DataFrame, unit: str, labels: list[str] | None = None
) -> pd.DataFrame:
    """The ``MAT_COUNTS`` rows of one fixed-span table (``unit`` in :data:`FIXED_UNITS`).

    ``annotations`` follows the shared data model (columns file, side, kind, label, start, end); only
    content annotations are scored, and for ``token`` the hypothesis's token annotations are the units.
    One row per (file, tag) for every file of ``signals`` (sorted) and every tag of ``labels`` (default:
    the sorted labels of all content annotations of both sides), so a file without annotations still
    brings its ``test_units``; with no label at all, one row per file with the placeholder tag
    ``pipeline.mat.measures.NO_TAG`` and zero counts. ``test_units`` is the file's number of units
    (tokens of the hypothesis, pseudo-tokens or characters), repeated on each of its rows.

    Raises :class:`TokenTableError` for ``token`` when a hypothesis document with non-blank text
    has no token annotation, when its tokens are empty or overlap, or when a content boundary falls
    strictly inside a token; ValueError for an unknown unit or an annotation whose file has no signal.
    """
    if unit not in FIXED_UNITS:
        raise ValueError(f"unknown fixed-span unit {unit!r}; expected one of {FIXED_UNITS}")
    files = sorted(signals)
    lengths = np.fromiter((len(signals[name]) for name in files), dtype=np.int64, count=len(files))
    base = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]]).astype(np.int64)

    content = annotations[_equals(annotations[C.kind], "content")]
    if labels is None:
        labels = sorted(str(label) for label in _strings(content[C.label]).unique().to_pylist())
    content_file = _codes(files, content[C.file], "annotation")
    content_label = _indices(labels, content[C.label])
    if (content_label < 0).any():
        raise ValueError(
            f"content label {content['label'].iloc[int(np.argmax(content_label < 0))]!r} "
            f"is not among the labels {labels}"
        )
    starts = content[C.start].to_numpy(np.int64) + base[content_file]
    ends = content[C.end].to_numpy(np.int64) + base[content_file]
    is_ref = _equals(content[C.side], "ref")

    cuts, _ = _unique_counts(np.concatenate([base, base + lengths, starts, ends]))
    segment_start = cuts[:-1]
    segment_end = cuts[1:]
    segment_file = np.searchsorted(base, segment_start, side="right") - 1

    if unit == "character":
        units = segment_end - segment_start
        test_units = lengths
    elif unit == "pseudo_token":
        units, test_units = _pseudo_token_units(signals, files, base, cuts)
    else:
        token_starts, test_units = _token_units(annotations, files, signals, base, starts, ends, content)
        # Tokens never straddle a cut (checked), so a token belongs to the segment holding its start.
        units = np.searchsorted(token_starts, segment_end) - np.searchsorted(token_starts, segment_start)
    # The gap segment after each document holds no unit: documents never share a segment.
    units = np.where(segment_start >= (base + lengths)[segment_file], 0, units)

    n_labels = max(len(labels), 1)
    counts = _count_units(cuts, starts, ends, content_label, is_ref, units, n_labels)
    grid = _file_label_totals(counts, segment_file, len(files), n_labels)
    # With no content annotation at all, one placeholder row per file still carries its test units
    # (``pipeline.mat.measures.NO_TAG``: counted as a document, never reported as a tag).
    return _counts_frame(files, labels or [NO_TAG], unit, grid, test_units)


def accuracy_columns(
    test_units: np.ndarray, refclash: np.ndarray, missing: np.ndarray, spurious: np.ndarray
) -> dict[str, np.ndarray]:
    """The seed's four accuracy columns of summed counts, vectorised (any shape, float64).

    ``tag_sensitive_accuracy = (test units - refclash - missing - spurious) / test units``,
    ``tag_blind_accuracy = (test units - missing - spurious) / test units``, each error rate ``1 -`` its
    accuracy (seed, "Fixed-span scores"). With no test unit every one is undefined: NaN (JSON null,
    an empty CSV cell).
    """
    total = np.asarray(test_units, dtype=np.float64)
    refclash = np.asarray(refclash, dtype=np.float64)
    missing = np.asarray(missing, dtype=np.float64)
    spurious = np.asarray(spurious, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        sensitive = np.where(total > 0, (total - refclash - missing - spurious) / total, np.nan)
        blind = np.where(total > 0, (total - missing - spurious) / total, np.nan)
    return {
        "tag_sensitive_accuracy": sensitive,
        "tag_sensitive_error_rate": 1.0 - sensitive,
        "tag_blind_accuracy": blind,
        "tag_blind_error_rate": 1.0 - blind,
    }


def _file_label_totals(
    counts: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    segment_file: np.ndarray,
    n_files: int,
    n_labels: int,
) -> dict[str, np.ndarray]:
    """Per-(segment, label) unit counts summed into a ``(files, labels)`` grid per count column."""
    grid = {}
    for name, (segment, label, value) in counts.items():
        key = segment_file[segment] * n_labels + label
        grid[name] = np.bincount(key, weights=value, minlength=n_files * n_labels).reshape(n_files, n_labels)
    return grid


def _strings(values: pd.Series) -> pa.Array:
    """A string column as an Arrow string array (zero-copy for Arrow-backed strings; a categorical
    column is decoded)."""
    array = pa.array(values, from_pandas=True)
    if pa.types.is_dictionary(array.type):
        array = array.cast(pa.string())
    return array


def _equals(values: pd.Series, text: str) -> np.ndarray:
    """``values == text`` as a numpy bool array, through Arrow (fast on Arrow-backed strings)."""
    return pc.equal(_strings(values), text).to_numpy(zero_copy_only=False)


def _indices(known: list[str], values: pd.Series) -> np.ndarray:
    """Position of each value in ``known`` (-1 when absent), through Arrow."""
    array = _strings(values)
    if len(array) == 0:
        return np.zeros(0, dtype=np.int64)
    found = pc.index_in(array, value_set=pa.array(known, type=array.type))
    return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def _codes(files: list[str], values: pd.Series, what: str) -> np.ndarray:
    codes = _indices(files, values)
    if (codes < 0).any():
        unknown = values.iloc[int(np.argmax(codes < 0))]
        raise ValueError(f"{what} of file {unknown!r}, which has no signal")
    return codes.astype(np.int64)


def _count_units(
    cuts: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    label: np.ndarray,
    is_ref: np.ndarray,
    units: np.ndarray,
    n_labels: int,
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Match, clash, missing and spurious units per (segment, label), as (segment, label, units) arrays.

    Every annotation covers a run of whole segments (its boundaries are cuts); the (segment, side,
    label) multiplicities are counted with one sort, then paired per segment as the module doc says.
    """
    first = np.searchsorted(cuts, starts)
    last = np.searchsorted(cuts, ends)
    span = last - first
    owner = np.repeat(np.arange(len(starts)), span)
    offsets = np.arange(owner.size) - np.repeat(np.cumsum(span) - span, span)
    segment = first[owner] + offsets
    key = segment * n_labels + label[owner]
    ref_keys, ref_counts = _unique_counts(key[is_ref[owner]])
    hyp_keys, hyp_counts = _unique_counts(key[~is_ref[owner]])
    keys, _ = _unique_counts(np.concatenate([ref_keys, hyp_keys]))
    ref = np.zeros(keys.size, dtype=np.int64)
    hyp = np.zeros(keys.size, dtype=np.int64)
    ref[np.searchsorted(keys, ref_keys)] = ref_counts
    hyp[np.searchsorted(keys, hyp_keys)] = hyp_counts

    key_segment = keys // n_labels
    key_label = keys % n_labels
    match = np.minimum(ref, hyp)
    ref_left = ref - match
    hyp_left = hyp - match
    # Labels left over on each side pair as clashes, in label order within the segment (keys are
    # sorted by segment, then label): the first H' reference labels clash where H' hypothesis labels
    # are left, the others are missing; the same from the hypothesis side.
    refclash = _clash(key_segment, ref_left, hyp_left)
    hypclash = _clash(key_segment, hyp_left, ref_left)
    weight = units[key_segment]
    return {
        C.match: (key_segment, key_label, match * weight),
        C.refclash: (key_segment, key_label, refclash * weight),
        C.missing: (key_segment, key_label, (ref_left - refclash) * weight),
        C.hypclash: (key_segment, key_label, hypclash * weight),
        C.spurious: (key_segment, key_label, (hyp_left - hypclash) * weight),
    }


def _unique_counts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values and how often each occurs (a sort and a scan: ``numpy.unique``'s hash
    path is several times slower on millions of int64 keys)."""
    values = np.sort(values)
    if values.size == 0:
        return values, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], values[1:] != values[:-1]]))
    return values[starts], np.diff(np.append(starts, values.size))


def _clash(key_segment: np.ndarray, own: np.ndarray, other: np.ndarray) -> np.ndarray:
    """How many of each key's leftover labels (``own``) find a leftover label on the other side."""
    if key_segment.size == 0:
        return own.copy()
    new = np.concatenate([[True], key_segment[1:] != key_segment[:-1]])
    group = np.cumsum(new) - 1
    group_start = np.flatnonzero(new)
    other_total = np.add.reduceat(other, group_start)[group]
    before = np.cumsum(own) - own
    before -= before[group_start][group]
    return np.clip(other_total - before, 0, own)


def _pseudo_token_units(
    signals: Mapping[str, str], files: list[str], base: np.ndarray, cuts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Pseudo-tokens per segment and per file: a non-whitespace character starts one when it follows
    whitespace, starts its document, or sits on a cut (an annotation boundary of either side)."""
    # Documents end to end with one space between them: the gap positions of ``base`` (a space is
    # whitespace, so no pseudo-token spans two documents).
    text = " ".join(signals[name] for name in files)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    space = np.isin(codes, _WHITESPACE)
    starts = ~space
    starts[1:] &= space[:-1]
    cut_positions = cuts[cuts < codes.size]
    starts[cut_positions] = ~space[cut_positions]
    running = np.concatenate([[0], np.cumsum(starts)])
    per_segment = running[np.minimum(cuts[1:], codes.size)] - running[np.minimum(cuts[:-1], codes.size)]
    ends = base + np.fromiter((len(signals[name]) for name in files), dtype=np.int64, count=len(files))
    per_file = running[ends] - running[base]
    return per_segment, per_file


def _token_units(
    annotations: pd.DataFrame,
    files: list[str],
    signals: Mapping[str, str],
    base: np.ndarray,
    content_starts: np.ndarray,
    content_ends: np.ndarray,
    content: pd.DataFrame,
) -> tuple[np.ndarray, np.ndarray]:
    """The hypothesis's token starts (global, sorted) and tokens per file, after checking that tokens
    can be the units."""
    tokens = annotations[_equals(annotations[C.kind], "token") & _equals(annotations[C.side], "hyp")]
    token_file = _codes(files, tokens[C.file], "token annotation")
    start = tokens[C.start].to_numpy(np.int64) + base[token_file]
    end = tokens[C.end].to_numpy(np.int64) + base[token_file]
    order = np.lexsort((end, start))
    start, end, token_file = start[order], end[order], token_file[order]
    per_file = np.bincount(token_file, minlength=len(files)).astype(np.int64)

    for position, name in enumerate(files):
        if per_file[position] == 0 and signals[name].strip():
            raise TokenTableError(
                f"no token table: hypothesis {name!r} has no token annotations "
                "(--by_token needs them in every hypothesis document with text; see --token_annotations)"
            )
    empty = np.flatnonzero(end <= start)
    if empty.size:
        i = empty[0]
        name = files[token_file[i]]
        raise TokenTableError(
            f"no token table: hypothesis {name!r} has an empty token annotation at "
            f"[{start[i] - base[token_file[i]]}, {end[i] - base[token_file[i]]})"
        )
    overlapping = np.flatnonzero(start[1:] < end[:-1])
    if overlapping.size:
        i = overlapping[0] + 1
        name = files[token_file[i]]
        b = base[token_file[i]]
        raise TokenTableError(
            f"no token table: hypothesis {name!r} has overlapping token annotations "
            f"[{start[i - 1] - b}, {end[i - 1] - b}) and [{start[i] - b}, {end[i] - b})"
        )
    # A content boundary must not fall strictly inside a token (tokens are sorted and disjoint, so
    # the only candidate is the last token starting before the boundary).
    for boundaries, which in ((content_starts, "starts"), (content_ends, "ends")):
        before = np.searchsorted(start, boundaries, side="left") - 1
        inside = (before >= 0) & (boundaries < end[np.maximum(before, 0)])
        if inside.any():
            i = int(np.argmax(inside))
            row = content.iloc[i]
            t = before[i]
            b = base[token_file[t]]
            raise TokenTableError(
                f"no token table: in {row['file']!r} the {row['side']} annotation {row['label']} "
                f"[{row['start']}, {row['end']}) {which} inside the token [{start[t] - b}, {end[t] - b}) "
                "(--by_token needs every content boundary on a token boundary)"
            )
    return start, per_file


_WHITESPACE = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.uint32)


def _counts_frame(
    files: list[str], labels: list[str], unit: str, grid: dict[str, np.ndarray], test_units: np.ndarray
) -> pd.DataFrame:
    n_files, n_labels = len(files), len(labels)
    frame = pd.DataFrame(
        {
            C.file: np.repeat(np.asarray(files, dtype=object), n_labels),
            C.table: unit,
            C.tag: np.tile(np.asarray(labels, dtype=object), n_files),
        }
    )
    for name in COUNT_COLUMNS:
        frame[name] = grid[name][:, :n_labels].reshape(-1).astype(np.int64)
    for name in DETAIL_COLUMNS:
        frame[name] = np.zeros(len(frame), dtype=np.int64)
    frame[C.test_units] = np.repeat(np.asarray(test_units, dtype=np.int64), n_labels)
    return frame
