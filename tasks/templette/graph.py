"""The stage graph: which stages build a score, as specs (see ``tasks.core.base``).

``templette_spec``: the stages scoring one hypothesis (campaigns build one per system, see
``tasks.campaign.graph``; shared reference stages are one task).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.signature import make_signature
from iescore.pipeline.templette.defaults import DEFAULT_OPTIONS
from iescore.pipeline.templette.removal import DEFAULT_PREMODIFIERS, DEFAULT_PUNCTUATION
from iescore.tasks.core.base import file_spec, input_key, stage_spec
from iescore.tasks.templette import (
    align,  # noqa: F401 - registers the stages
    ingest,  # noqa: F401 - registers the stages
    normalize,  # noqa: F401 - registers the stages
    remove,  # noqa: F401 - registers the stages
    report,  # noqa: F401 - registers the stages
    score,  # noqa: F401 - registers the stages
)

if TYPE_CHECKING:
    import pyarrow as pa
    from iescore.tasks.core.compute import Artifacts


def templette_spec(
    ref_templates: Path,
    hyp_templates: Path,
    ref_texts: Path | None,
    hyp_texts: Path | None,
    options: Mapping[str, Any],
) -> dict[str, Any]:
    """The spec of the Report stage scoring ``hyp_templates`` against ``ref_templates``."""
    if hyp_texts and not ref_texts:
        raise InputError(
            str(hyp_texts), 0, "hypothesis texts need the reference texts to align against (--texts)"
        )
    encoding = options.get("encoding", "utf-8")
    if options.get("unsegmented") and hyp_texts is None:
        raise InputError(
            str(hyp_templates), 0, "an unsegmented hypothesis needs its word stream (--hyp-texts / texts)"
        )
    unsegmented = bool(options.get("unsegmented"))
    ref_corpus = _corpus(ref_texts, encoding)
    hyp_corpus = _corpus(hyp_texts, encoding, unsegmented) if hyp_texts else ref_corpus
    # Speech input: hypothesis texts whose bytes differ from the reference texts (a byte-identical
    # copy is the same text, whatever its path).
    speech = hyp_corpus is not None and (ref_corpus is None or input_key(hyp_corpus) != input_key(ref_corpus))
    glm = file_spec(options["glm"]) if options.get("glm") else None
    alignment = stage_spec(
        "AlignCorpora",
        {"cost": options.get("cost", "phonetic"), "unsegmented": unsegmented, "encoding": encoding}
        if speech
        else {},
        {"ref": ref_corpus, "hyp": hyp_corpus, "glm": glm if speech else None},
    )
    ref_file, hyp_file = file_spec(ref_templates), file_spec(hyp_templates)
    removal = {
        "premodifiers": list(options.get("premodifiers", DEFAULT_PREMODIFIERS)),
        "punctuation": DEFAULT_PUNCTUATION if options.get("punctuation") is None else options["punctuation"],
    }
    sides = {
        role: _side(
            role,
            templates,
            corpus,
            ref_corpus,
            alignment,
            glm,
            removal,
            {"unit": "column" if speech else "character", "unsegmented": unsegmented},
            encoding,
        )
        for role, templates, corpus in (("ref", ref_file, ref_corpus), ("hyp", hyp_file, hyp_corpus))
    }
    scoring_options = {
        "compare": options["compare"],
        "unscored": sorted({s.upper() for s in options["unscored"]}),
        "case_sensitive": bool(options["case_sensitive"]),
        "noisy": speech,
        "instance_sets": "overlap" if unsegmented else "document",
        "alternatives": glm is not None,
    }
    if unsegmented:
        sides["alignment"] = alignment
    scored = stage_spec("MapAndScore", scoring_options, sides)
    signature = make_signature(
        "templette",
        {
            "compare": scoring_options["compare"],
            "case": "sensitive" if scoring_options["case_sensitive"] else "insensitive",
            "unscored": scoring_options["unscored"],
            "premod": removal["premodifiers"],
            "punct": removal["punctuation"],
            "align": (options.get("cost", "phonetic") + ("+unsegmented" if unsegmented else ""))
            if speech
            else "identity",
            "beta": float(options["beta"]),
            # Campaigns report bootstrap intervals and significance: their settings are part of the
            # numbers printed beside this score.
            **(
                {"resamples": int(options["resamples"]), "seed": int(options["seed"])}
                if options.get("statistics")
                else {}
            ),
        },
        {
            "ref": ref_file["sha256"],
            "hyp": hyp_file["sha256"],
            "texts": ref_corpus["inputs"]["texts"]["sha256"] if ref_corpus else None,
            "hyptexts": hyp_corpus["inputs"]["texts"]["sha256"] if hyp_corpus else None,
            "glm": glm["sha256"] if glm else None,
        },
    )
    return stage_spec("Report", {"beta": float(options["beta"]), "signature": signature}, {"scored": scored})


def templette_options(
    *,
    compare: str = "both",
    unscored: str = "COMMENT",
    case_sensitive: bool = False,
    beta: float = 1.0,
    encoding: str = "utf-8",
    unsegmented: bool = False,
    glm: str | None = None,
    cost: str = "phonetic",
    premodifiers: str = ",".join(DEFAULT_PREMODIFIERS),
    punctuation: str = DEFAULT_PUNCTUATION,
) -> dict[str, Any]:
    """The options of :func:`templette_spec` from ``iescore templette``'s (its defaults): ``unscored``
    and ``premodifiers`` are comma-separated words, as the command takes them (empty: none)."""
    options = dict(DEFAULT_OPTIONS)
    options.update(
        compare=compare,
        unscored=unscored.split(",") if unscored else [],
        case_sensitive=case_sensitive,
        beta=beta,
        encoding=encoding,
        unsegmented=unsegmented,
        glm=glm,
        cost=cost,
        premodifiers=[w for w in premodifiers.split(",") if w],
        punctuation=punctuation,
    )
    return options


def report_tables(
    artifacts: Artifacts, spec: Mapping[str, Any], names: tuple[str, ...] = ("scores", "tallies", "mapping")
) -> dict[str, pa.Table]:
    """What a Report spec's run gives a reader (``iescore templette``, ``iescore muc``, the library):
    its ``scores`` (signed), and its MapAndScore's ``tallies`` and ``mapping``; only ``names`` are read
    (from a store, each is a file)."""
    stage = {"scores": spec, "tallies": spec["inputs"]["scored"], "mapping": spec["inputs"]["scored"]}
    return {name: artifacts.table(stage[name], name) for name in names}


def _corpus(texts: Path | None, encoding: str, unsegmented: bool = False) -> dict[str, Any] | None:
    if texts is None:
        return None
    options: dict[str, Any] = {"encoding": encoding, "extractable": ["TEXT"]}
    if unsegmented:
        options["unsegmented"] = True
    return stage_spec("IngestCorpus", options, {"texts": file_spec(texts)})


def _side(
    role: str,
    templates: dict[str, Any],
    corpus: dict | None,
    ref_corpus: dict | None,
    alignment: dict,
    glm: dict | None,
    removal: dict[str, Any],
    extent_options: dict[str, Any],
    encoding: str,
) -> dict[str, Any]:
    """One side's chain: ingest, normalize contents, remove non-evaluated text, normalize extents.

    Removal works in characters of the side's own text, so it comes before extents become
    alignment columns (DESIGN lists it after; the order matters only for the unit it adjusts).
    """
    ingested = stage_spec(
        "IngestTemplates",
        {
            "encoding": encoding,
            "role": "reference" if role == "ref" else "hypothesis",
            **({"unsegmented": True} if extent_options["unsegmented"] and role == "hyp" else {}),
        },
        {"templates": templates, "corpus": corpus},
    )
    normalized = stage_spec(
        "NormalizeContent", {"encoding": encoding} if glm else {}, {"fills": ingested, "glm": glm}
    )
    removed = stage_spec("RemoveNonEvaluated", removal, {"fills": normalized, "corpus": corpus})
    options = {"side": role, "unit": extent_options["unit"]}
    if extent_options["unsegmented"]:
        options["unsegmented"] = True
    return stage_spec(
        "NormalizeExtents",
        options,
        {
            "fills": removed,
            # The identity alignment too is an input, so the chain keeps one shape (DESIGN).
            "alignment": alignment,
            "corpus": ref_corpus if extent_options["unsegmented"] and role == "ref" else None,
        },
    )
