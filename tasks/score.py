"""MapAndScore: reference and hypothesis ``fills`` in, ``mapping`` and ``tallies`` out."""

from __future__ import annotations

import pyarrow as pa

from pipeline.extents import document_extents
from pipeline.scoring import ScoringOptions, score_template_sets
from pipeline.tables import scoring_to_tables, template_set_from_table
from tasks.base import Stage
from tasks.store import plain


class MapAndScore(Stage):
    STAGE = "MapAndScore"
    VERSION = 3
    OUTPUTS = ("mapping", "tallies")

    def produce(self) -> dict[str, pa.Table]:
        options = ScoringOptions(
            compare=self.options["compare"],
            unscored_slots=frozenset(self.options["unscored"]),
            case_sensitive=self.options["case_sensitive"],
            noisy=self.options.get("noisy", False),
            instance_sets=self.options.get("instance_sets", "document"),
            alternatives=self.options.get("alternatives", False),
            # MUC (seed 001): thresholds, slot weights, implicit optionality, alignment by position.
            thresholds=_plain(self.options.get("thresholds")),
            slot_weights=_plain(self.options.get("slot_weights")),
            implicit=self.options.get("implicit"),
            position_slot=self.options.get("position_slot"),
        )
        alignment = self.input_table("alignment")
        scoring = score_template_sets(
            template_set_from_table(self.input_table("ref")),
            template_set_from_table(self.input_table("hyp")),
            options,
            document_extents(alignment) if alignment is not None else None,
        )
        mapping, tallies = scoring_to_tables(scoring)
        return {"mapping": mapping, "tallies": tallies}


def _plain(value: object) -> object:
    """A frozen spec value as plain dicts (None stays None)."""
    return None if value is None else plain(value)
