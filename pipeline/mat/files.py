"""Which hypothesis file pairs with which reference file (seed 002, "Hypothesis/Reference options").

``--file`` with ``--ref_file``: one pair. ``--dir`` with ``--ref_dir``: every regular file of the
hypothesis directory whose basename ``--file_re`` matches entirely (default: every file; for brat, every
``.ann`` file), in sorted order, pairs with the reference file of the same basename after removing the
suffix ``--ref_fsuff_off`` (when the name ends with it) and then adding ``--ref_fsuff_on``. A hypothesis
file with no reference partner is bad input (MATScore skipped it with a message; we refuse rather than
score a subset), and so is a ``--file_re`` that matches nothing. ``--file_re`` is matched in linear time
(``pipeline.core.settings``: Python's syntax, RE2's engine). The document key of a pair is the
hypothesis basename.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.settings import full_matches, literal_pattern, pattern_problem


@dataclass(frozen=True)
class FilePair:
    """One document: its key (the hypothesis basename), the hypothesis file and the reference file."""

    key: str
    hyp: Path
    ref: Path


def file_pairs(
    file: str | None = None,
    ref_file: str | None = None,
    directory: str | None = None,
    ref_dir: str | None = None,
    file_re: str | None = None,
    ref_fsuff_off: str | None = None,
    ref_fsuff_on: str | None = None,
    file_type: str = "mat-json",
) -> list[FilePair]:
    """The document pairs the options name (see the module doc); bad combinations are InputError."""
    check_sides(file, ref_file, directory, ref_dir)
    if file is not None:
        return [FilePair(Path(file).name, Path(file), Path(ref_file))]
    problem = pattern_problem(file_re) if file_re is not None else None
    if problem:
        raise InputError("--file_re", 0, problem)
    hyp_dir, reference_dir = Path(directory), Path(ref_dir)
    with os.scandir(hyp_dir) as entries:
        names = sorted(entry.name for entry in entries if entry.is_file())
    if file_type == "brat":
        names = [n for n in names if n.endswith(".ann")]
    if file_re is not None:  # matched in linear time: no pattern can hang the run
        names = [n for n, match in zip(names, full_matches(file_re, names), strict=True) if match]
    chosen = names
    if not chosen:
        what = (
            f"matches no file name (--file_re {file_re!r})"
            if file_re is not None
            else "holds no file to score"
        )
        raise InputError(str(hyp_dir), 0, what)
    pairs = []
    reference_files = _file_names(reference_dir)
    for name in chosen:
        ref_name = name
        if ref_fsuff_off and ref_name.endswith(ref_fsuff_off):
            ref_name = ref_name[: -len(ref_fsuff_off)]
        if ref_fsuff_on:
            ref_name += ref_fsuff_on
        ref_path = reference_dir / ref_name
        found = ref_name in reference_files if os.sep not in ref_name else ref_path.is_file()
        if not found:
            raise InputError(
                str(hyp_dir / name),
                0,
                f"no reference partner: {ref_path} not found (--ref_dir, --ref_fsuff_off/on)",
            )
        pairs.append(FilePair(name, hyp_dir / name, ref_path))
    return pairs


def _file_names(directory: Path) -> set[str]:
    """The names of the regular files (links followed) in ``directory``; none when it cannot be listed."""
    try:
        with os.scandir(directory) as entries:
            return {entry.name for entry in entries if entry.is_file()}
    except OSError:
        return set()


def check_sides(file: str | None, ref_file: str | None, directory: str | None, ref_dir: str | None) -> None:
    """``--file`` with ``--ref_file``, or ``--dir`` with ``--ref_dir``: any other combination is
    InputError naming the option."""
    if (file is None) == (directory is None):
        raise InputError("--file/--dir", 0, "give either --file (with --ref_file) or --dir (with --ref_dir)")
    if file is not None:
        if ref_file is None:
            raise InputError("--file", 0, "--file must be paired with --ref_file")
        if ref_dir is not None:
            raise InputError("--ref_dir", 0, "--ref_dir goes with --dir; with --file give --ref_file")
        return
    if ref_dir is None:
        raise InputError("--dir", 0, "--dir must be paired with --ref_dir")
    if ref_file is not None:
        raise InputError("--ref_file", 0, "--ref_file goes with --file; with --dir give --ref_dir")


def campaign_pairs(
    reference: Path,
    system_paths: list[Path],
    file_re: str | None = None,
    ref_fsuff_off: str | None = None,
    ref_fsuff_on: str | None = None,
    file_type: str = "mat-json",
) -> list[FilePair]:
    """The document pairs of one campaign system: each directory of ``system_paths`` as ``--dir`` with
    ``--ref_dir reference``, each file with its partner in the reference directory (or with the
    reference file itself when the reference is one file and the system one file). Two system files of
    one basename are bad input (the basename is the document key)."""
    pairs: list[FilePair] = []
    for path in system_paths:
        if Path(path).is_dir():
            if not Path(reference).is_dir():
                raise InputError(str(path), 0, "a system directory needs a reference directory")
            pairs += file_pairs(
                None, None, str(path), str(reference), file_re or None, ref_fsuff_off, ref_fsuff_on, file_type
            )
        elif Path(reference).is_dir():
            pairs += file_pairs(
                None,
                None,
                str(Path(path).parent),
                str(reference),
                literal_pattern(Path(path).name),
                ref_fsuff_off,
                ref_fsuff_on,
                file_type,
            )
        elif len(system_paths) == 1:
            pairs.append(FilePair(Path(path).name, Path(path), Path(reference)))
        else:
            raise InputError(str(path), 0, "several system files need a reference directory")
    seen: dict[str, Path] = {}
    for pair in pairs:
        if pair.key in seen:
            raise InputError(
                str(pair.hyp), 0, f"a second system file named {pair.key} (the first: {seen[pair.key]})"
            )
        seen[pair.key] = pair.hyp
    return pairs
