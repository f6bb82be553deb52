"""Campaign kinds: what a scorer family declares so that ``scorer = "NAME"`` campaigns work for it.

A family that has a ``Family`` (``pipeline.core.family``) gets campaigns (leaderboard, intervals, paired
significance, the HTML page) by declaring, in its own wing, one :class:`CampaignKind`:

- the keys of its campaign file's ``[reference]`` table, of each ``[systems.NAME]`` table and of its
  ``[options]`` (beyond the options every campaign has: ``resamples``, ``seed``, ``html_documents``), each a
  :class:`Field` whose type the campaign reader checks, naming the file and line of a wrong value;
- the measures its leaderboard shows (``board``; the family's headline ranks), the headline's label on the
  page, and a sentence saying why that measure ranks (``ranking_note``);
- ``attributes``: keys of ``[systems.NAME]`` shown on the leaderboard beside the name (CLEF's "with
  additional annotations" flag);
- ``measure_option``: the ``[options]`` key with which a campaign chooses the measure that ranks (TREC:
  ``measure = "P_10"``; absent: the family's headline). The key is a ``choice`` among ``ranking_measures``
  (default: every measure of the family), so the campaign reader names the line of a measure the family
  does not have. :meth:`CampaignKind.ranked_by` gives the kind whose family's headline is the chosen
  measure: the leaderboard, intervals, significance, text and page all follow it, and the board shows it;
- ``unit``: how its measures are shown on the text board, in the CSV and JSON files and on the page, its
  reference program's unit: ``"percent"`` (0-100: templette, MUC, coreference, as the MUC and CoNLL
  scorers print them) or ``"fraction"`` (of 1: MAT, SENSEVAL, CLEF, TREC, as MATScore, scorer2, eval.pl
  and trec_eval print them). The store keeps fractions of 1 whatever the unit;
- ``counts``, ``interval_measures``, ``intervals_last``, ``shown``, ``labels``, ``text_width``: the
  board's count columns (sums of statistics: templette's COR ... ACT), the measures with an interval,
  the wide board's layout, the columns of the text board and page and their names there;
- ``sections``: the page's own sections of the family (``pipeline.campaign.html_report``: the templette
  ``pairings``, MUC ``objects``, coreference ``chains``);
- ``prepare``: what the kind derives from its checked tables (a MUC configuration, read);
- ``pair_tests``: the family's own paired tests (:class:`PairTest`: WER's MAPSSWE and sign test), run on
  every pair beside the engine's bootstrap, randomization and t-test, on what each system's stage writes
  beside its statistics (its output ``evidence``: WER's alignment); their p-values and Holm-adjusted
  p-values are columns of the one significance schema (``{name}_p``, ``{name}_p_holm``);
- ``per_unit_mean``: the measures that are the mean over units of a per-unit value (the family's measure
  of one unit's statistics; TREC: MAP is the mean of each query's average precision); True for every
  measure. A campaign ranked by one of them also has the paired t-test over units in its significance
  table (``pipeline.campaign.stats.paired_t_tests``); every kind's campaign has Holm-adjusted p-values.

The kind is registered by name in ``pipeline.campaign.kinds.KINDS`` (one line: its name and the module
that declares it, imported when a campaign of that kind is read), and its tasks side (the stage each
system runs, which writes the family's ``statistics`` table) in ``tasks.campaign.kinds``. Nothing else of
the campaign engine changes: the summary, outputs and page are the same for every kind.

Example (a SENSEVAL campaign)::

    SENSEVAL_CAMPAIGN = CampaignKind(
        name="senseval",
        family=SENSEVAL,
        reference={"key": Field("file", "the answer key", required=True),
                   "sensemap": Field("file", "the sense map")},
        system={"answers": Field("file", "the system's answers", required=True)},
        options={"grain": Field("choice", "fine, coarse or mixed", default="fine",
                                choices=("fine", "coarse", "mixed"))},
        board=("precision", "recall", "attempted"),
        headline_label="Recall",
        ranking_note="ranked by recall, the SENSEVAL ranking measure",
    )

A TREC campaign chooses its ranking measure (``[options] measure``, MAP by default), each a mean over
queries::

    measure_option="measure", per_unit_mean=True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from iescore.pipeline.core.family import Family
from iescore.schemas import SIGNIFICANCE

#: The value types a Field may have, and what the campaign reader accepts for each.
FIELD_TYPES = {
    "file": "an existing file, relative to the campaign file",
    "directory": "an existing directory, relative to the campaign file",
    "path": "an existing file or directory, relative to the campaign file",
    "paths": "one path or an array of paths (existing files or directories), relative to the campaign file",
    "bool": "true or false",
    "string": "a string",
    "choice": "one of the field's choices (a string)",
    "int": "a whole number within the field's bounds",
    "number": "a finite number within the field's bounds",
    "words": "an array of strings",
    "encoding": "the name of a text encoding Python knows",
    "regex": "a regular expression matched in linear time (pipeline.core.settings.pattern_problem)",
    "positive": "a finite number > 0",
}

#: How a kind's measures are shown on its text board, CSV, JSON and page: its reference program's unit.
UNITS = ("percent", "fraction")


@dataclass(frozen=True)
class Field:
    """One key of a campaign file table: its type (``FIELD_TYPES``), what it is (``doc``, used in
    messages), whether it must be given, its default, and for ``choice`` its choices, for ``int`` and
    ``number`` its bounds (inclusive)."""

    type: str
    doc: str
    required: bool = False
    default: Any = None
    choices: tuple[Any, ...] = ()
    low: float | None = None
    high: float | None = None

    def __post_init__(self) -> None:
        if self.type not in FIELD_TYPES:
            raise ValueError(f"field type {self.type!r}: expected one of {', '.join(FIELD_TYPES)}")
        if self.type == "choice" and not self.choices:
            raise ValueError("a choice field needs its choices")
        object.__setattr__(self, "choices", tuple(self.choices))


@dataclass(frozen=True, eq=False)
class PairTest:
    """A family's own paired test of two systems (see the module doc): ``prepare(table)`` makes, once per
    system, what the test needs of the system's ``evidence`` table; ``p_value(a, b)`` is the two-sided
    p-value of a pair of prepared systems (None: undefined). ``label`` names it in the page's cells,
    ``title`` in its legend."""

    name: str
    label: str
    title: str
    prepare: Callable[[Any], Any]
    p_value: Callable[[Any, Any], float | None]

    @property
    def columns(self) -> tuple[str, str]:
        """Its p-value's column of ``schemas.SIGNIFICANCE``, and the Holm-adjusted one's."""
        return f"{self.name}_p", f"{self.name}_p_holm"


@dataclass(frozen=True, eq=False)
class CampaignKind:
    """A scorer family's campaign declaration (see the module doc)."""

    name: str
    family: Family
    reference: Mapping[str, Field]
    system: Mapping[str, Field]
    options: Mapping[str, Field] = field(default_factory=dict)
    board: tuple[str, ...] = ()
    headline_label: str = ""
    ranking_note: str = ""
    attributes: tuple[str, ...] = ()
    measure_option: str | None = None
    ranking_measures: tuple[str, ...] = ()
    per_unit_mean: bool | tuple[str, ...] = False
    #: The unit of its measures everywhere they are shown (``UNITS``): its reference program's.
    unit: str = "fraction"
    #: Count columns of the board before its measures: name -> the statistics it sums (whole numbers).
    counts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: The board measures with a bootstrap interval (default: every board measure).
    interval_measures: tuple[str, ...] = ()
    #: The wide board (CSV, JSON) lists the intervals after every measure instead of beside each.
    intervals_last: bool = False
    #: The columns of its text board and page leaderboard (default: the counts and the board measures),
    #: and the page's label of each (default: the name).
    shown: tuple[str, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    #: How the text board names a column (default: its name).
    text_names: Mapping[str, str] = field(default_factory=dict)
    #: The minimum width of a column of the text board.
    text_width: int = 9
    #: The page's own sections of the family (``pipeline.campaign.html_report.FAMILY_SECTIONS``).
    sections: tuple[str, ...] = ()
    #: ``prepare(reference, options, error)``: what the kind derives from its checked [reference] and
    #: [options] (a MUC configuration, read), merged into the campaign's options; ``error(keys,
    #: message)`` makes the InputError naming the line of ``keys``.
    prepare: Callable[..., Mapping[str, Any]] | None = None
    #: The family's own paired tests, and the output of each system's stage they read.
    pair_tests: tuple[PairTest, ...] = ()
    evidence: str | None = None

    def __post_init__(self) -> None:
        measures = self.family.measure_names
        ranking = tuple(self.ranking_measures) or measures
        if self.family.headline not in ranking or any(m not in measures for m in ranking):
            raise ValueError(
                f"campaign kind {self.name!r}: ranking measures {ranking} must be the family's measures "
                f"and hold its headline {self.family.headline!r}"
            )
        object.__setattr__(self, "ranking_measures", ranking)
        means = measures if self.per_unit_mean is True else tuple(self.per_unit_mean or ())
        if any(m not in measures for m in means):
            raise ValueError(f"campaign kind {self.name!r}: per-unit means {means} are not the family's")
        object.__setattr__(self, "per_unit_mean", means)
        options = dict(self.options)
        if self.measure_option is not None:
            given = options.get(self.measure_option)
            if given is not None and (given.type != "choice" or set(given.choices) - set(measures)):
                raise ValueError(
                    f"campaign kind {self.name!r}: option {self.measure_option!r} chooses the ranking "
                    "measure: a choice among the family's measures (or leave it to the kind)"
                )
            if given is None:
                options[self.measure_option] = Field(
                    "choice",
                    f"the measure that ranks (one of the {self.family.name} family's)",
                    default=self.family.headline,
                    choices=ranking,
                )
        object.__setattr__(self, "options", options)
        for name in ("reference", "system", "options"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))
        board = tuple(self.board) or (self.family.headline,)
        if self.family.headline not in board:
            board = (*board, self.family.headline)
        unknown = [m for m in board if m not in self.family.measure_names]
        if unknown:
            raise ValueError(f"campaign kind {self.name!r}: board measures {unknown} are not the family's")
        object.__setattr__(self, "board", board)
        object.__setattr__(self, "attributes", tuple(self.attributes))
        for attribute in self.attributes:
            if attribute not in self.system:
                raise ValueError(f"campaign kind {self.name!r}: attribute {attribute!r} is not a system key")
        for part in ("reference", "system"):
            if not any(f.required for f in getattr(self, part).values()):
                raise ValueError(f"campaign kind {self.name!r}: its {part} table needs a required key")
        if not self.headline_label:
            object.__setattr__(self, "headline_label", self.family.headline)
        if self.unit not in UNITS:
            raise ValueError(f"campaign kind {self.name!r}: unit {self.unit!r}, expected one of {UNITS}")
        counts = {name: tuple(sums) for name, sums in dict(self.counts).items()}
        for name, sums in counts.items():
            if not sums or any(s not in self.family.statistic_names for s in sums):
                raise ValueError(f"campaign kind {self.name!r}: count {name!r} sums {sums}, not statistics")
        object.__setattr__(self, "counts", MappingProxyType(counts))
        intervals = tuple(self.interval_measures) or board
        if self.family.headline not in intervals:
            intervals = (*intervals, self.family.headline)
        object.__setattr__(self, "interval_measures", tuple(m for m in board if m in intervals))
        shown = tuple(self.shown) or (*counts, *board)
        if self.family.headline not in shown:
            shown = (*shown, self.family.headline)
        if any(name not in counts and name not in board for name in shown):
            raise ValueError(f"campaign kind {self.name!r}: shown columns {shown} are not on its board")
        object.__setattr__(self, "shown", shown)
        object.__setattr__(self, "labels", MappingProxyType(dict(self.labels)))
        object.__setattr__(self, "text_names", MappingProxyType(dict(self.text_names)))
        object.__setattr__(self, "sections", tuple(self.sections))
        object.__setattr__(self, "pair_tests", tuple(self.pair_tests))
        for test in self.pair_tests:
            if any(column not in SIGNIFICANCE.names for column in test.columns):
                raise ValueError(
                    f"campaign kind {self.name!r}: pair test {test.name!r} has no columns in SIGNIFICANCE"
                )
        if self.pair_tests and not self.evidence:
            raise ValueError(f"campaign kind {self.name!r}: pair tests need the evidence they read")

    def is_per_unit_mean(self, measure: str | None = None) -> bool:
        """Whether ``measure`` (default: the headline) is a mean over units of per-unit values."""
        return (measure or self.family.headline) in self.per_unit_mean

    def ranked_by(self, measure: str | None) -> CampaignKind:
        """The kind ranking by ``measure`` (None or the headline: this kind): its family's headline is
        ``measure``, its board shows it (after the kind's board measures when it is not one of them), its
        label is the measure's name and its note says it ranks. ValueError for a measure the kind does not
        rank by."""
        if measure is None or measure == self.family.headline:
            return self
        if measure not in self.ranking_measures:
            raise ValueError(
                f"campaign kind {self.name!r} ranks by one of {self.ranking_measures}, not {measure!r}"
            )
        family = replace(self.family, headline=measure)
        return replace(
            self,
            family=family,
            board=self.board if measure in self.board else (*self.board, measure),
            headline_label=measure,
            ranking_note=f"ranked by {measure}",
            interval_measures=(),
            shown=(),
        )

    def with_beta(self, beta: float | None) -> CampaignKind:
        """The kind whose headline, an F-measure of the family's option ``beta``, is named with it when it
        is not 1 (``F2``, ``F0.5``)."""
        if beta is None or beta == 1 or "beta" not in self.family.options:
            return self
        name = f"{self.family.headline}{beta:g}"
        return replace(self, headline_label=name, text_names={**self.text_names, self.family.headline: name})

    def label(self, measure: str) -> str:
        """A column's name on the page (``labels``, else its name)."""
        return self.labels.get(measure, measure)

    @property
    def columns(self) -> tuple[str, ...]:
        """The wide board's value columns (CSV, JSON) after rank, system and the attributes: the counts,
        then each board measure with its interval's ends beside it (or all ends after every measure,
        ``intervals_last``)."""
        ends = {m: (f"{m}_low", f"{m}_high") for m in self.interval_measures}
        if self.intervals_last:
            return (*self.counts, *self.board, *(end for m in self.board for end in ends.get(m, ())))
        return (*self.counts, *(c for m in self.board for c in (m, *ends.get(m, ()))))

    def scale(self, value: float | None) -> float | None:
        """A measure's value in the kind's unit: percent rounded to 6 decimals, or as is (None stays)."""
        if value is None or self.unit == "fraction":
            return value
        return None if math.isnan(value) else round(value * 100.0, 6)

    @property
    def main_reference(self) -> str:
        """The first required key of ``[reference]`` (what messages ask for)."""
        return next(name for name, f in self.reference.items() if f.required)

    @property
    def main_system(self) -> str:
        """The first required key of ``[systems.NAME]``."""
        return next(name for name, f in self.system.items() if f.required)
