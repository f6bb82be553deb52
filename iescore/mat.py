"""Span annotation scores as MITRE MAT's MATScore computes them: the library behind ``iescore mat``.

:func:`score` compares hypothesis documents with reference documents and returns :class:`MatScores`:
the tag table (and, when asked for, the token, pseudo-token and character tables), the span-by-span
details, the label confusability matrix, and the stages' pairs and counts. ``iescore mat`` parses its
arguments and calls :func:`plan_scoring` and :func:`run_scoring`, as :func:`score` does, then prints
with :func:`iescore.pipeline.mat.outputs.mat_outputs` from the same tables, so the command and the
library cannot disagree. The rules are in :mod:`iescore.pipeline.mat`.

Inputs (each side): a file or a directory (as ``--file``/``--ref_file`` or ``--dir``/``--ref_dir``
take them), or documents in memory: a mapping of file names to documents, each the file's text or
(MAT JSON) its dict, written as a directory and read by the command's readers (:mod:`iescore.sources`).

>>> from iescore import mat
>>> result = mat.score("data/mat-sample/ref", "data/mat-sample/good")
>>> corpus = result.tag[result.tag["file"] == "<all>"].set_index("tag")
>>> corpus[["match", "refclash", "missing", "hypclash", "spurious"]].loc["<all>"].tolist()
[4, 2, 1, 2, 0]
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iescore.pipeline.core.errors import InputError
from iescore.result import Result
from iescore.sources import PathLike, Sources, check_count, is_path, run_specs

if TYPE_CHECKING:
    import pandas as pd

    from iescore.pipeline.mat.outputs import MatOptions, MatTables

__all__ = ["MatPlan", "MatScores", "mat_scores", "plan_scoring", "run_scoring", "score"]

#: One side: a file, a directory, or ``{file name: text or MAT JSON dict}``.
MatInput = PathLike | Mapping[str, str | bytes | Mapping[str, Any]]


class MatScores(Result):
    """A MAT scoring's tables: the reported rows of each table scored (``tag``, and ``token``,
    ``pseudo_token``, ``character`` when asked for; per file, then the corpus, file ``<all>``),
    ``details`` (the span-by-span sheet), ``confusability`` (per file, then the corpus: reference
    label by hypothesis label), and the stages' ``pairs`` (``MAT_PAIRS``), ``counts`` (``MAT_COUNTS``)
    and ``scores`` (``MAT_SCORES``). ``notes``: tables left out, and why."""

    headline = "tag"

    def __init__(self, tables: Mapping[str, Any], signature: str, notes: Sequence[str] = ()) -> None:
        super().__init__(tables, signature)
        self.notes = list(notes)

    @property
    def tag(self) -> pd.DataFrame:
        """The tag table: per file and tag, then the corpus; counts, precision, recall, F."""
        return self.frame("tag")

    @property
    def token(self) -> pd.DataFrame:
        """The token table (``by_token=True``), with accuracy."""
        return self.frame("token")

    @property
    def pseudo_token(self) -> pd.DataFrame:
        """The pseudo-token table (``by_pseudo_token=True``), with accuracy."""
        return self.frame("pseudo_token")

    @property
    def character(self) -> pd.DataFrame:
        """The character table (``by_character=True``), with accuracy."""
        return self.frame("character")

    @property
    def details(self) -> pd.DataFrame:
        """Every pair and unpaired annotation with its type and texts (MATScore's ``--details``)."""
        return self.frame("details")

    @property
    def confusability(self) -> pd.DataFrame:
        """The confusability matrix of each file, then of the corpus (file ``<all>``)."""
        return self.frame("confusability")

    @property
    def pairs(self) -> pd.DataFrame:
        """The auditable pairing: every pair and unpaired annotation with its similarity."""
        return self.frame("pairs")


@dataclass(frozen=True)
class MatPlan:
    """A scoring checked and its stages planned (``tasks.mat.stages``), before any document is read: the
    MatReport spec and the directories or files compared."""

    spec: dict[str, Any]
    inputs: tuple[tuple[str, str], ...]


def score(
    ref: MatInput,
    hyp: MatInput,
    *,
    task: str | None = None,
    task_xml: Sequence[PathLike] = (),
    content_annotations: str | None = None,
    token_annotations: str | None = None,
    equivalence_class: Sequence[tuple[str, str]] = (),
    ignore: str | None = None,
    file_re: str | None = None,
    file_type: str = "mat-json",
    encoding: str | None = None,
    xml_input_is_overlay: bool = False,
    ref_fsuff_off: str | None = None,
    ref_fsuff_on: str | None = None,
    ref_file_type: str = "mat-json",
    ref_encoding: str | None = None,
    ref_xml_input_is_overlay: bool = False,
    tag_span_details: bool = False,
    by_token: bool = False,
    by_pseudo_token: bool = False,
    by_character: bool = False,
    compute_confidence_data: bool = False,
    seed: int | None = None,
    resamples: int | None = None,
    store: PathLike | None = None,
    workers: int = 1,
) -> MatScores:
    """Score ``hyp`` against ``ref`` as ``iescore mat`` does (``--file``/``--ref_file`` for files,
    ``--dir``/``--ref_dir`` for directories and in-memory documents).

    Options are MATScore's, named as its long options: ``task``, ``task_xml``, ``content_annotations``,
    ``token_annotations``, ``equivalence_class`` (pairs ``(EQUIVLABEL, "OLD,...")``), ``ignore``,
    ``file_re``, the file types, encodings and overlays, ``tag_span_details``, ``by_token``,
    ``by_pseudo_token``, ``by_character``, ``compute_confidence_data`` (with ``seed``, ``resamples``).
    The details and confusability tables are always made. ``store``: keep the stages' artifacts there.
    Bad input raises :class:`~iescore.pipeline.core.errors.InputError` with the command's message.

    >>> ref = {"a.xml": "<DOC><PERSON>Ann Lee</PERSON> saw <PERSON>Bo</PERSON>.</DOC>"}
    >>> hyp = {"a.xml": "<DOC><PERSON>Ann</PERSON> Lee saw <LOCATION>Bo</LOCATION>.</DOC>"}
    >>> result = score(ref, hyp, file_type="xml-inline", ref_file_type="xml-inline")
    >>> result.details[["type", "reflabel", "hyplabel"]].values.tolist()
    [['undermark', 'PERSON', 'PERSON'], ['tagclash', 'PERSON', 'LOCATION']]
    """
    from iescore.pipeline.mat.confidence import DEFAULT_RESAMPLES, DEFAULT_SEED
    from iescore.pipeline.mat.outputs import MatOptions

    with Sources() as sources:
        plan = plan_scoring(
            _side(ref, "ref", sources),
            _side(hyp, "hyp", sources),
            task=task,
            task_xml=task_xml,
            content_annotations=content_annotations,
            token_annotations=token_annotations,
            equivalence_class=equivalence_class,
            ignore=ignore,
            file_re=file_re,
            file_type=file_type,
            encoding=encoding,
            xml_input_is_overlay=xml_input_is_overlay,
            ref_fsuff_off=ref_fsuff_off,
            ref_fsuff_on=ref_fsuff_on,
            ref_file_type=ref_file_type,
            ref_encoding=ref_encoding,
            ref_xml_input_is_overlay=ref_xml_input_is_overlay,
            by_token=by_token,
            by_pseudo_token=by_pseudo_token,
            by_character=by_character,
            compute_confidence_data=compute_confidence_data,
            seed=DEFAULT_SEED if seed is None else seed,
            resamples=DEFAULT_RESAMPLES if resamples is None else resamples,
        )
        tables = run_scoring(plan, store, workers)
        options = MatOptions(
            tag_span_details=tag_span_details,
            confidence=compute_confidence_data,
            seed=DEFAULT_SEED if seed is None else seed,
            resamples=DEFAULT_RESAMPLES if resamples is None else resamples,
        )
        result = mat_scores(tables, options)
        result.notes = [sources.shown(note) for note in result.notes]
        return result


def plan_scoring(
    ref: PathLike,
    hyp: PathLike,
    *,
    task: str | None = None,
    task_xml: Sequence[PathLike] = (),
    content_annotations: str | None = None,
    token_annotations: str | None = None,
    equivalence_class: Sequence[Sequence[str]] = (),
    ignore: str | None = None,
    file_re: str | None = None,
    file_type: str = "mat-json",
    encoding: str | None = None,
    xml_input_is_overlay: bool = False,
    ref_fsuff_off: str | None = None,
    ref_fsuff_on: str | None = None,
    ref_file_type: str = "mat-json",
    ref_encoding: str | None = None,
    ref_xml_input_is_overlay: bool = False,
    by_token: bool = False,
    by_pseudo_token: bool = False,
    by_character: bool = False,
    compute_confidence_data: bool = False,
    seed: int | None = None,
    resamples: int | None = None,
) -> MatPlan:
    """The checked options and the stages of a scoring of files (``hyp`` a directory: ``--dir`` with
    ``ref`` as ``--ref_dir``; else ``--file`` with ``--ref_file``); bad options, task files or paths
    are :class:`InputError` before any document is read."""
    from iescore.pipeline.core.settings import RESAMPLES, SEED, encoding_problem, pattern_problem
    from iescore.pipeline.mat.confidence import DEFAULT_RESAMPLES, DEFAULT_SEED
    from iescore.pipeline.mat.files import file_pairs
    from iescore.pipeline.mat.labels import label_rules
    from iescore.pipeline.mat.readers import FILE_TYPES
    from iescore.pipeline.mat.task import looks_like_a_path, resolve_task
    from iescore.tasks.core.arguments import INPUT_DIRECTORY, INPUT_FILE, check_paths
    from iescore.tasks.mat.stages import mat_spec

    directories = Path(hyp).is_dir()
    hyp_option, ref_option = ("--dir", "--ref_dir") if directories else ("--file", "--ref_file")
    for option, value in (("--file_type", file_type), ("--ref_file_type", ref_file_type)):
        if value not in FILE_TYPES:
            raise InputError(option, 0, f"one of {', '.join(FILE_TYPES)} expected, found {value!r}")
    for option, value in (("--encoding", encoding), ("--ref_encoding", ref_encoding)):
        problem = encoding_problem(value) if value is not None else None
        if problem:
            raise InputError(option, 0, f"{problem}, found {value!r}")
    problem = pattern_problem(file_re) if file_re is not None else None
    if problem:
        raise InputError("--file_re", 0, f"{problem}, found {file_re!r}")
    seed = DEFAULT_SEED if seed is None else seed
    resamples = DEFAULT_RESAMPLES if resamples is None else resamples
    if compute_confidence_data:
        check_count("--seed", seed, SEED)
        check_count("--resamples", resamples, RESAMPLES)
    task_files = [("--task_xml", str(path)) for path in task_xml]
    if task is not None and looks_like_a_path(task):
        task_files.append(("--task", task))
    kind = INPUT_DIRECTORY if directories else INPUT_FILE
    check_paths(
        [
            *[
                (option, path, INPUT_DIRECTORY if Path(path).is_dir() else INPUT_FILE)
                for option, path in task_files
            ],
            (hyp_option, hyp, kind),
            (ref_option, ref, kind),
        ]
    )
    for option, side_type, overlay in (
        ("--xml_input_is_overlay", file_type, xml_input_is_overlay),
        ("--ref_xml_input_is_overlay", ref_file_type, ref_xml_input_is_overlay),
    ):
        side_option = option.replace("xml_input_is_overlay", "file_type")
        if overlay and side_type != "xml-inline":
            raise InputError(option, 0, f"applies to xml-inline files only ({side_option} is {side_type})")
    resolved = resolve_task(task, [str(path) for path in task_xml]) if task is not None else None
    if resolved is None and task_xml:
        raise InputError(
            "--task_xml", 0, "names the task.xml files a --task NAME picks from; give --task NAME"
        )
    rules = label_rules(
        content_annotations, token_annotations, [list(pair) for pair in equivalence_class], ignore, resolved
    )
    pairs = file_pairs(
        None if directories else str(hyp),
        None if directories else str(ref),
        str(hyp) if directories else None,
        str(ref) if directories else None,
        file_re,
        ref_fsuff_off,
        ref_fsuff_on,
        file_type,
    )
    if ref_file_type == "brat":
        for pair in pairs:
            check_paths([("--ref_file/--ref_dir", pair.ref.with_suffix(".txt"), INPUT_FILE)])
    units = [
        unit
        for unit, wanted in (
            ("token", by_token),
            ("pseudo_token", by_pseudo_token),
            ("character", by_character),
        )
        if wanted
    ]
    extra: dict[str, Any] = {"fixed_units": units}
    if compute_confidence_data:
        extra.update({"confidence_seed": seed, "confidence_resamples": resamples})
    spec = mat_spec(
        pairs,
        {"ref": ref_file_type, "hyp": file_type},
        {"ref": ref_encoding, "hyp": encoding},
        {"ref": ref_xml_input_is_overlay, "hyp": xml_input_is_overlay},
        rules,
        extra,
    )
    return MatPlan(spec, ((hyp_option, str(hyp)), (ref_option, str(ref))))


def run_scoring(plan: MatPlan, store: PathLike | None = None, workers: int = 1) -> MatTables:
    """Run a plan's stages (in this process, or by Luigi into ``store``): what they made, as
    :func:`iescore.pipeline.mat.outputs.mat_outputs` and :func:`mat_scores` take it;
    :class:`~iescore.sources.StagesFailedError` when a run with a store stopped."""
    from iescore.pipeline.core.signature import SIGNATURE_KEY
    from iescore.pipeline.mat.outputs import MatTables
    from iescore.tasks.cli.common import check_store_option
    from iescore.tasks.mat.stages import NOTES_KEY

    directories = [(option, path) for option, path in plan.inputs if option in ("--dir", "--ref_dir")]
    check_store_option(None if store is None else str(store), inputs=directories)
    artifacts = run_specs([plan.spec], store, workers)
    tally = plan.spec["inputs"]["counts"]
    scores = artifacts.table(plan.spec, "scores")
    return MatTables(
        scores=scores,
        counts=artifacts.table(tally, "counts"),
        pair_table=artifacts.table(tally["inputs"]["pairs"], "pairs"),
        documents=artifacts.table(tally["inputs"]["hyp"], "documents"),
        signature=scores.schema.metadata[SIGNATURE_KEY].decode(),
        notes=tuple(json.loads(scores.schema.metadata.get(NOTES_KEY, b"[]"))),
    )


def mat_scores(tables: MatTables, options: MatOptions) -> MatScores:
    """The library's result of what the stages made: each table's reported rows as ``mat_outputs``
    prints them (:func:`iescore.pipeline.mat.outputs.report_tables`), the details and confusability
    rows, and the stages' pairs, counts and scores."""
    import pyarrow as pa

    from iescore.pipeline.mat.outputs import confusability_rows, report_tables
    from iescore.pipeline.mat.report import details_frame

    frames = dict(report_tables(tables, options))
    frames["details"] = details_frame(tables.pairs, tables.signals)
    frames["confusability"] = confusability_rows(tables.pairs)
    frames.update({"pairs": tables.pairs, "counts": tables.counts, "scores": tables.scores})
    arrow = {
        name: frame if isinstance(frame, pa.Table) else pa.Table.from_pandas(frame, preserve_index=False)
        for name, frame in frames.items()
    }
    return MatScores(arrow, tables.signature, tables.notes)


def _side(side: Any, role: str, sources: Sources) -> str:
    """A path for a side given as a path or ``{file name: text or MAT JSON dict}``."""
    if is_path(side):
        return str(side)
    if not isinstance(side, Mapping):
        raise InputError(
            f"<{role}>",
            0,
            f"a path or a mapping of file names to documents expected, got {type(side).__name__}",
        )
    return sources.directory(
        role,
        {name: json.dumps(doc) if isinstance(doc, Mapping) else doc for name, doc in side.items()},
    )
