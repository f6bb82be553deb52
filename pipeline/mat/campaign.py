"""The MAT family's campaign kind: ``scorer = "mat"`` campaign files.

```toml
scorer = "mat"

[reference]
path = "mat-sample/ref"          # a file or a directory of reference documents
file_type = "mat-json"           # mat-json | xml-inline | brat | conll

[options]
content_annotations = []         # empty: every label that is not a token label
token_annotations = ["lex"]
equivalence_classes = []         # ["PLACE=CITY,TOWN", ...] as --equivalence_class PLACE CITY,TOWN
ignore = []

[systems.NAME]
path = "mat-sample/good"         # a directory, a file, or an array of files
file_type = "mat-json"
file_re = ""                     # MATScore's --file_re
ref_fsuff_off = ""               # MATScore's --ref_fsuff_off / --ref_fsuff_on
ref_fsuff_on = ""
```

Every system is paired with the reference as ``iescore mat`` pairs ``--dir``/``--file`` with
``--ref_dir``/``--ref_file`` (a file list: each file with the reference directory's partner), and scored
by the same stages; the leaderboard shows precision, recall and fmeasure (ranked by fmeasure, tag level,
``<all>``), the heat map fmeasure by tag.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.kinds import CampaignKind, Field
from iescore.pipeline.mat.family import MAT
from iescore.pipeline.mat.labels import label_rules
from iescore.pipeline.mat.readers import FILE_TYPES


def equivalence_classes(texts: Sequence[str]) -> list[tuple[str, str]]:
    """``equivalence_classes = ["PLACE=CITY,TOWN"]`` as ``--equivalence_class PLACE CITY,TOWN`` pairs; a
    text without ``=`` is a ValueError."""
    pairs = []
    for text in texts:
        name, equals, members = text.partition("=")
        if not equals:
            raise ValueError(f'"CLASS=a,b" expected, found {text!r}')
        pairs.append((name, members))
    return pairs


def _check_options(
    reference: Mapping[str, Any], options: Mapping[str, Any], error: Callable[..., InputError]
) -> dict[str, Any]:
    """The campaign's label options checked as ``iescore mat`` checks its own, errors naming the
    campaign file's line."""
    keys = ("options", "equivalence_classes")
    try:
        label_rules(None, None, equivalence_classes(options.get("equivalence_classes", [])))
    except (ValueError, InputError) as problem:
        message = problem.message if isinstance(problem, InputError) else str(problem)
        raise error(keys, f"options.equivalence_classes: {message}") from None
    return {}


MAT_CAMPAIGN = CampaignKind(
    name="mat",
    family=MAT,
    reference={
        "path": Field("path", "the reference documents: a file or a directory", required=True),
        "file_type": Field("choice", "the reference's file type", default="mat-json", choices=FILE_TYPES),
        "encoding": Field("encoding", "the reference's encoding (mat-json is always UTF-8)", default="utf-8"),
        "xml_input_is_overlay": Field("bool", "xml-inline: annotations overlay the text", default=False),
        "fsuff_off": Field(
            "string", "suffix removed from a system file's name to find its reference", default=""
        ),
        "fsuff_on": Field("string", "suffix then added to find the reference", default=""),
    },
    system={
        "path": Field(
            "paths", "the system's documents: a directory, a file or an array of files", required=True
        ),
        "file_type": Field("choice", "the system's file type", default="mat-json", choices=FILE_TYPES),
        "file_re": Field(
            "regex", "regular expression the whole basename of a system file matches", default=""
        ),
        "xml_input_is_overlay": Field("bool", "xml-inline: annotations overlay the text", default=False),
        "ref_fsuff_off": Field(
            "string", "suffix removed from a system file's name to find its reference", default=""
        ),
        "ref_fsuff_on": Field("string", "suffix then added to find the reference", default=""),
    },
    options={
        "content_annotations": Field("words", "content labels (empty: every non-token label)", default=[]),
        "token_annotations": Field("words", "token labels", default=["lex"]),
        "equivalence_classes": Field("words", 'equivalence classes, "CLASS=a,b"', default=[]),
        "ignore": Field("words", "labels ignored on both sides", default=[]),
        "task": Field("file", "a task file: a MAT task.xml declaring one task, or a TOML task file"),
    },
    board=("precision", "recall", "fmeasure"),
    headline_label="F-measure",
    unit="fraction",  # as MATScore prints its measures
    ranking_note="ranked by the tag-level F-measure over all tags (MATScore's <all> row)",
    prepare=_check_options,
)
