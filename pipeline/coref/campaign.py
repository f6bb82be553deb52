"""The coreference campaign kind: ``scorer = "coref"`` campaign files (chains scored by MUC, B3, CEAF-e,
ranked by the CoNLL F1).

```toml
scorer = "coref"
[reference]
key = "key.conll"
[systems.alpha]
response = "alpha.conll"
[options]
format = "conll"                     # or "sgml" (MUC texts with COREF tags)
match = "exact"                      # or "min" (sgml only)
strict = false                       # true: refuse what the CoNLL scorer lets pass (see below)
                                     # and encoding resamples seed html_documents
```

A response's documents and repeated mentions are paired with the key's as ``iescore coref`` pairs them
(:mod:`pipeline.coref.pairing`: the CoNLL scorer's rule, each case written at the end of the system's
``report.txt``; ``strict = true``: a document one side lacks is bad input, every repeat removed).

The board is in percent, as the CoNLL scorer prints it; the page adds each document's chains.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.core.kinds import CampaignKind, Field
from iescore.pipeline.coref.alignment import MATCH_MODES
from iescore.pipeline.coref.family import COREF
from iescore.pipeline.coref.readers import FORMATS


def _check_coref(
    reference: Mapping[str, Any],
    options: Mapping[str, Any],
    error: Callable[[tuple[str, ...], str], InputError],
) -> dict[str, Any]:
    """``match = "min"`` needs SGML input (CoNLL has no MIN)."""
    if options["match"] == "min" and options["format"] != "sgml":
        raise error(("options", "match"), 'options.match: "min" needs format = "sgml" (CoNLL has no MIN)')
    return {}


COREF_CAMPAIGN = CampaignKind(
    name="coref",
    family=COREF,
    reference={"key": Field("file", "the key's chains", required=True)},
    system={"response": Field("file", "the system's chains", required=True)},
    options={
        "format": Field("choice", "the files' format", default="conll", choices=FORMATS),
        "match": Field("choice", "how mentions match", default="exact", choices=MATCH_MODES),
        "encoding": Field("encoding", "the input files' encoding", default="utf-8"),
        "strict": Field(
            "bool",
            "refuse a document one side lacks and remove every repeated response mention (default: as "
            "the CoNLL scorer)",
            default=False,
        ),
    },
    board=("MUC_R", "MUC_P", "MUC_F1", "B3_R", "B3_P", "B3_F1", "CEAFe_R", "CEAFe_P", "CEAFe_F1", "CoNLL_F1"),
    headline_label="CoNLL F1",
    unit="percent",  # as the CoNLL scorer prints its measures
    interval_measures=("CoNLL_F1",),
    shown=("MUC_F1", "B3_F1", "CEAFe_F1", "CoNLL_F1"),
    labels={"MUC_F1": "MUC F1", "B3_F1": "B3 F1", "CEAFe_F1": "CEAF-e F1", "CoNLL_F1": "CoNLL F1"},
    sections=("chains",),
    prepare=_check_coref,
)
