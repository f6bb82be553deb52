"""The MUC campaign kind: ``scorer = "muc"`` campaign files (the MUC scorer, seed 001, on template or
named entity tasks).

```toml
scorer = "muc"
[reference]
config = "te.config"                 # a MUC configuration: key, slot and class defs, options
[systems.alpha]
response = "alpha.tpl"               # replaces the configuration's :response_file
[options]                            # encoding resamples seed html_documents
```

A MUC configuration of the coreference task is refused: its campaign is ``scorer = "coref"``. The board
and page are the templette kind's (the MUC scorer's ALL SLOTS is made of the same points), in percent as
the MUC scorer prints them; the page's per-document view lists the object pairings before the fills.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.kinds import CampaignKind, Field
from iescore.pipeline.muc.config import read_config
from iescore.pipeline.muc.family import MUC
from iescore.pipeline.muc.rules import TASKS
from iescore.pipeline.templette import POINT_BOARD

#: The option under which a MUC campaign keeps its parsed configuration (``pipeline.muc.config.MucConfig``).
CONFIG_OPTION = "muc_config"


def prepare_muc(
    reference: Mapping[str, Any],
    options: Mapping[str, Any],
    error: Callable[[tuple[str, ...], str], InputError],
) -> dict[str, Any]:
    """The campaign's configuration, read: a template or named entity task whose key (and texts) exist.
    Its :response_file is not read (each system's response replaces it). Its beta is the F-measure's;
    its key and texts are reference files of the campaign."""
    path = Path(reference["config"])
    config = read_config(path, options["encoding"])
    if config.task not in TASKS:
        raise InputError(config.source, 0, f":scoring_task expected, one of {', '.join(TASKS)}")
    if config.task == "coreference":
        raise error(
            ("reference", "config"),
            f"reference.config: {path.name} configures the coreference task; score coreference with "
            'scorer = "coref" ([reference] key = FILE, [options] format = "sgml")',
        )
    for name, file in (("key_file", config.key_file), ("text_file", config.text_file)):
        if file is not None and not Path(file).is_file():
            raise InputError(
                config.source, config.option_lines.get(name, 0), f":{name} {file}: file not found"
            )
    files = {
        name: Path(file) for name, file in (("key", config.key_file), ("texts", config.text_file)) if file
    }
    return {CONFIG_OPTION: config, "beta": float(config.beta), **{f"muc_{k}": v for k, v in files.items()}}


MUC_CAMPAIGN = CampaignKind(
    name="muc",
    family=MUC,
    reference={
        "config": Field("file", "a MUC configuration (its key, slot and class definitions)", required=True)
    },
    system={"response": Field("file", "the system's response (replaces :response_file)", required=True)},
    options={"encoding": Field("encoding", "the input files' encoding", default="utf-8")},
    **POINT_BOARD,
    sections=("pairings", "objects"),
    prepare=prepare_muc,
)
