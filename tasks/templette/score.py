"""MapAndScore: reference and hypothesis ``fills`` in, ``mapping`` and ``tallies`` out."""

from __future__ import annotations

import pyarrow as pa
from iescore.pipeline.templette.bulk_mapping import score_fills
from iescore.pipeline.templette.scoring import ScoringOptions
from iescore.schemas import C
from iescore.tasks.core.base import Stage
from iescore.tasks.core.files import plain


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
            noncommittal_alternatives=self.options.get("noncommittal_alternatives", False),
        )
        mapping, tallies = score_fills(
            self.input_table("ref"),
            self.input_table("hyp"),
            options,
            self.input_table("alignment"),
            self._regions(),
        )
        return {"mapping": mapping, "tallies": tallies}

    def _regions(self) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]] | None:
        """Named entity objects' regions (the SGML element each comes from), when the spec gives them."""
        tables = [self.input_table(role, "objects") for role in ("ref_regions", "hyp_regions")]
        if tables[0] is None or tables[1] is None:
            return None
        return tuple(  # type: ignore[return-value]
            {
                p: (s, e)
                for p, s, e in zip(
                    t.column(C.pointer).to_pylist(),
                    t.column(C.region_start).to_pylist(),
                    t.column(C.region_end).to_pylist(),
                    strict=True,
                )
            }
            for t in tables
        )


def _plain(value: object) -> object:
    """A frozen spec value as plain dicts (None stays None)."""
    return None if value is None else plain(value)
