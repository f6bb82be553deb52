"""trec_eval's measures as values: names, parameters, nicknames, and the ir_measures spelling.

A :class:`Measure` is one trec_eval measure with its parameters as trec_eval parses them from
``-m name.params`` (``P.5,10``, ``ndcg.1=3,2=9``, ``iprec_at_recall..25,.5``), plus an optional
relevance level of its own (``rel``, from the ir_measures spelling ``AP(rel=2)``). Its printed form is
its identity and parses back: ``str(parse_measure(text)) == text`` for every canonical text, and
``parse_measures`` takes trec_eval's ``-m`` arguments (including the nicknames ``official``, ``all_trec``
and ``set``) or ir_measures names (``AP``, ``P@10``, ``nDCG@10``, ``RR``, ``Bpref``, ``R@100``,
``AP(rel=2)``). A measure given in the ir_measures spelling yields one value, printed under that
spelling; a trec_eval measure yields one value per cutoff, printed under trec_eval's names
(``P_5``, ``iprec_at_recall_0.10``, ``ndcg_1=3,2=9``) and in trec_eval's order.

Not supported (an :class:`InputError` says so): the preference measures and the ``qrels_jg`` measures,
which need other input formats (trec_eval's ``-R prefs``/``-R qrels_jg``), and ``yaap``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from iescore.pipeline.core.errors import InputError
from iescore.pipeline.trec.formats import LARGEST_GRADE

# The kinds of trec_eval measure (how parameters are read and values named), after its meas_init.c.
SINGLE = "single"  # one value, no parameters
LONG = "long"  # one whole number a query, summed over queries (num_ret ...)
CUT_LONG = "cut_long"  # cutoffs in documents, one value each, named NAME_k
CUT_DOUBLE = "cut_double"  # cutoffs as fractions, one value each, named NAME_%3.2f
PARAM_DOUBLE = "param_double"  # one value with numeric parameters, named NAME_PARAMS when given
PARAM_PAIRS = "param_pairs"  # one value with name=value parameters (gains), named NAME_PARAMS when given


@dataclass(frozen=True)
class Definition:
    """One trec_eval measure: its kind, default parameters, how its summary is formed and its one-line
    description (after trec_eval's own help text)."""

    name: str
    kind: str
    summary: str  # mean | sum | gm (geometric mean) | count | none | runid
    description: str
    defaults: tuple = ()
    per_query: bool = True


_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALLS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: trec_eval 10.0's measures in its order (``te_trec_measures``), which is the order of its output.
DEFINITIONS: tuple[Definition, ...] = (
    Definition("runid", SINGLE, "runid", "the run tag (last line's)", per_query=False),
    Definition("num_q", LONG, "count", "number of queries evaluated", per_query=False),
    Definition("num_ret", LONG, "sum", "number of documents retrieved"),
    Definition("num_rel", LONG, "sum", "number of relevant documents"),
    Definition("num_rel_ret", LONG, "sum", "number of relevant documents retrieved"),
    Definition("map", SINGLE, "mean", "mean average precision"),
    Definition("gm_map", SINGLE, "gm", "geometric mean of average precision", per_query=False),
    Definition("Rprec", SINGLE, "mean", "precision after R (number relevant) documents"),
    Definition("bpref", SINGLE, "mean", "binary preference (Buckley and Voorhees 2004)"),
    Definition("recip_rank", SINGLE, "mean", "reciprocal rank of the first relevant document"),
    Definition("iprec_at_recall", CUT_DOUBLE, "mean", "interpolated precision at recall levels", _RECALLS),
    Definition("P", CUT_LONG, "mean", "precision at cutoffs (divided by the cutoff)", _CUTS),
    Definition("relstring", PARAM_DOUBLE, "none", "relevance of the first N documents as a string", (10.0,)),
    Definition("recall", CUT_LONG, "mean", "recall at cutoffs", _CUTS),
    Definition("infAP", SINGLE, "mean", "inferred AP (Yilmaz and Aslam 2006)"),
    Definition("gm_bpref", SINGLE, "gm", "geometric mean of bpref", per_query=False),
    Definition(
        "Rprec_mult", CUT_DOUBLE, "mean", "precision at multiples of R", tuple(x / 5 for x in range(1, 11))
    ),
    Definition(
        "utility",
        PARAM_DOUBLE,
        "mean",
        "utility a*rel_ret + b*nonrel_ret + c*rel_notret + d*rest",
        (1.0, -1.0, 0.0, 0.0),
    ),
    Definition(
        "11pt_avg", PARAM_DOUBLE, "mean", "interpolated precision averaged over recall levels", _RECALLS
    ),
    Definition("binG", SINGLE, "mean", "binary G (experimental)"),
    Definition("G", PARAM_PAIRS, "mean", "normalized gain G (experimental)"),
    Definition("dcg", PARAM_PAIRS, "mean", "discounted cumulative gain"),
    Definition("ideal_dcg", PARAM_PAIRS, "mean", "ideal discounted cumulative gain"),
    Definition(
        "ndcg", PARAM_PAIRS, "mean", "normalized discounted cumulative gain (Jarvelin and Kekalainen)"
    ),
    Definition("ndcg_rel", PARAM_PAIRS, "mean", "nDCG averaged over relevant documents (experimental)"),
    Definition("Rndcg", PARAM_PAIRS, "mean", "nDCG averaged at R levels (experimental)"),
    Definition("ndcg_cut", CUT_LONG, "mean", "nDCG at cutoffs (gain = relevance grade)", _CUTS),
    Definition("map_cut", CUT_LONG, "mean", "average precision at cutoffs", _CUTS),
    Definition("relative_P", CUT_LONG, "mean", "precision at cutoffs relative to the best possible", _CUTS),
    Definition("success", CUT_LONG, "mean", "1 if a relevant document is in the top k", (1, 5, 10)),
    Definition("set_P", SINGLE, "mean", "precision of the retrieved set"),
    Definition("set_relative_P", SINGLE, "mean", "relative precision of the retrieved set"),
    Definition("set_recall", SINGLE, "mean", "recall of the retrieved set"),
    Definition("set_map", SINGLE, "mean", "set precision times set recall"),
    Definition("set_F", PARAM_DOUBLE, "mean", "F measure of the retrieved set (parameter beta)", (1.0,)),
    Definition("num_nonrel_judged_ret", LONG, "sum", "number of judged non-relevant documents retrieved"),
    Definition("rbp", PARAM_PAIRS, "mean", "rank-biased precision (Moffat and Zobel 2008), p=0.9"),
    Definition("rbp_resid", PARAM_PAIRS, "mean", "rank-biased precision residual"),
    Definition("unj", CUT_LONG, "mean", "fraction of unjudged documents at cutoffs", (5, 10, 20)),
)
BY_NAME = {definition.name: definition for definition in DEFINITIONS}
ORDER = {definition.name: position for position, definition in enumerate(DEFINITIONS)}

# trec_eval's default measures ("official"); all_trec starts with them, in the same order.
_OFFICIAL = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "all_trec": (
        *_OFFICIAL,
        "relstring",
        "recall",
        "unj",
        "rbp",
        "rbp_resid",
        "infAP",
        "gm_bpref",
        "utility",
        "11pt_avg",
        "ndcg",
        "relative_P",
        "Rprec_mult",
        "success",
        "map_cut",
        "ndcg_cut",
        "ndcg_rel",
        "Rndcg",
        "binG",
        "G",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
    ),
    "set": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ),
}
LONG_MAX = 2**63 - 1  # the largest C long (trec_eval reads cutoffs, -l, -M and -N into longs)
_WHOLE = re.compile(r"\+?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
UNSUPPORTED = re.compile(r"^(prefs_.*|.*_avgjg|yaap|all_prefs|prefs|qrels_jg)$")

# ir_measures names -> (trec_eval measure, takes a cutoff, what a cutoff becomes)
IR_MEASURES: dict[str, tuple[str, str | None]] = {
    "AP": ("map", "map_cut"),
    "P": ("P", "P"),
    "R": ("recall", "recall"),
    "nDCG": ("ndcg", "ndcg_cut"),
    "RR": ("recip_rank", None),
    "Bpref": ("bpref", None),
    "Rprec": ("Rprec", None),
    "infAP": ("infAP", None),
    "NumQ": ("num_q", None),
    "NumRet": ("num_ret", None),
    "NumRel": ("num_rel", None),
    "NumRelRet": ("num_rel_ret", None),
    "Success": ("success", "success"),
    "SetP": ("set_P", None),
    "SetR": ("set_recall", None),
    "SetF": ("set_F", None),
    "SetAP": ("set_map", None),
    "IPrec": ("iprec_at_recall", "iprec_at_recall"),
}
_IR = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<args>[^()]*)\))?(?:@(?P<cutoff>[0-9.]+))?$")


@dataclass(frozen=True)
class Measure:
    """One requested measure: a trec_eval measure, its parameter text (``None``: the defaults) and, for
    the ir_measures spelling, that spelling (``label``) and its own relevance level (``rel``)."""

    name: str
    params: str | None = None
    rel: int | None = None
    label: str | None = None

    @property
    def definition(self) -> Definition:
        return BY_NAME[self.name]

    def __str__(self) -> str:
        if self.label is not None:
            return self.label
        return self.name if self.params is None else f"{self.name}.{self.params}"

    def cutoffs(self) -> tuple:
        """The parameters as trec_eval reads them: sorted cutoffs, numbers, or (name, value) pairs.

        Stricter than trec_eval, which reads parameters with C's ``atol``/``atof`` and so prints
        ``P.1.5`` as ``P_1``, ``ndcg.1=abc`` as a gain of 0 and ``iprec_at_recall.2`` as a recall of
        200%: a parameter that is not what the measure means is an :class:`InputError` on ``-m``."""
        definition = self.definition
        if self.params is None:
            return tuple(definition.defaults)
        parts = self.params.split(",")
        if definition.kind == CUT_LONG:
            values = sorted(self._whole(part, "a cutoff (a number of documents)", 1) for part in parts)
            if len(set(values)) != len(values):
                raise InputError("-m", 0, f"{self}: duplicate cutoffs")
            return tuple(values)
        if definition.kind == CUT_DOUBLE:
            if self.name == "iprec_at_recall":
                numbers = sorted(self._number(part, "a recall level", 0.0, 1.0) for part in parts)
            else:
                numbers = sorted(
                    self._number(part, "a positive multiple of R", 0.0, math.inf, 0.0) for part in parts
                )
            if len(set(numbers)) != len(numbers):
                raise InputError("-m", 0, f"{self}: duplicate cutoffs")
            return tuple(numbers)
        if definition.kind == PARAM_DOUBLE:
            return self._param_doubles(parts)
        if definition.kind == PARAM_PAIRS:
            return self._pairs(parts)
        raise InputError("-m", 0, f"{self}: {self.name} takes no parameters")

    def value_names(self) -> list[str]:
        """The names trec_eval prints this measure's values under (one per cutoff for cutoff measures)."""
        if self.label is not None:
            return [self.label]
        kind = self.definition.kind
        if kind == CUT_LONG:
            return [f"{self.name}_{value}" for value in self.cutoffs()]
        if kind == CUT_DOUBLE:
            return [f"{self.name}_{value:3.2f}" for value in self.cutoffs()]
        if kind in (PARAM_DOUBLE, PARAM_PAIRS) and self.params is not None:
            return [f"{self.name}_{self.params}"]
        return [self.name]

    def _whole(self, text: str, what: str, low: int, high: int = LONG_MAX) -> int:
        """``text`` as a whole number in ``[low, high]`` (a C long at most), or an InputError."""
        if not _WHOLE.fullmatch(text):
            raise InputError(
                "-m",
                0,
                f"{self}: {what} must be a whole number, found {text!r} (trec_eval would read "
                f"{_c_long(text)})",
            )
        value = int(text)
        if value > high or value < -LONG_MAX - 1:
            raise InputError("-m", 0, f"{self}: {what} {text} is too large (at most {high})")
        if value < low:
            raise InputError("-m", 0, f"{self}: {what} must be {low} or more, found {text}")
        return value

    def _number(self, text: str, what: str, low: float, high: float, above: float | None = None) -> float:
        """``text`` as a decimal number in ``[low, high]`` (``> above`` when given), or an InputError."""
        if not _NUMBER.fullmatch(text):
            raise InputError(
                "-m",
                0,
                f"{self}: {what} must be a decimal number, found {text!r} (trec_eval would read "
                f"{_c_double(text):g})",
            )
        value = float(text)
        if not math.isfinite(value) or not low <= value <= high or (above is not None and value <= above):
            if above is not None:
                bounds = f"greater than {above:g}"
            elif math.isinf(low) and math.isinf(high):
                bounds = "a finite number"
            elif math.isinf(high):
                bounds = f"{low:g} or more"
            else:
                bounds = f"between {low:g} and {high:g}"
            raise InputError("-m", 0, f"{self}: {what} must be {bounds}, found {text}")
        return value

    def _param_doubles(self, parts: list[str]) -> tuple[float, ...]:
        if self.name == "relstring":
            if len(parts) != 1:
                raise InputError("-m", 0, f"{self}: relstring takes one length (relstring.20)")
            return (float(self._whole(parts[0], "a length (a number of documents)", 1)),)
        if self.name == "set_F":
            if len(parts) != 1:
                raise InputError("-m", 0, f"{self}: set_F takes one beta (set_F.0.5)")
            return (self._number(parts[0], "beta", 0.0, math.inf),)
        if self.name == "utility":
            if len(parts) != 4:
                raise InputError("-m", 0, f"{self}: utility takes 4 coefficients")
            return tuple(self._number(part, "a coefficient", -math.inf, math.inf) for part in parts)
        numbers = tuple(self._number(part, "a recall level", 0.0, 1.0) for part in parts)  # 11pt_avg
        if list(numbers) != sorted(numbers):
            raise InputError("-m", 0, f"{self}: recall levels must be in increasing order")
        return numbers

    def _pairs(self, parts: list[str]) -> tuple[tuple[str, float], ...]:
        """Gain parameters ``grade=gain`` (a grade is an integer, as trec_eval's ``valid_int`` says;
        trec_eval silently skips any other name), and rbp's persistence ``p=`` (0 <= p < 1)."""
        persistence = self.name in ("rbp", "rbp_resid")
        expected = "'grade=gain' or 'p=persistence'" if persistence else "'grade=gain' (e.g. 1=3,2=9)"
        pairs: list[tuple[str, float]] = []
        for part in parts:
            key, equals, value = part.partition("=")
            if not equals:
                raise InputError("-m", 0, f"{self}: parameters {expected} expected, found {part!r}")
            if persistence and key == "p":
                number = self._number(value, "p", 0.0, 1.0)
                if number == 1.0:
                    raise InputError("-m", 0, f"{self}: p must be less than 1 (every value would be 0)")
            elif is_integer_name(key):
                self._whole(key.lstrip("+-"), "a grade", 0, LARGEST_GRADE)
                number = self._number(value, f"the gain of grade {key}", -math.inf, math.inf)
            else:
                raise InputError(
                    "-m",
                    0,
                    f"{self}: {key!r} is not a relevance grade; parameters {expected} expected "
                    "(trec_eval would silently ignore it)",
                )
            if any(key == seen for seen, _value in pairs):
                raise InputError("-m", 0, f"{self}: {key!r} given twice")
            pairs.append((key, number))
        return tuple(pairs)


def parse_measures(arguments: Sequence[str] | None) -> list[Measure]:
    """The measures of ``-m`` arguments in output order (trec_eval's measures in its order, then the
    ir_measures ones in the order given); none given: ``official``. A measure named twice is computed
    once, with the first parameters given (as trec_eval does)."""
    trec: dict[str, Measure] = {}
    ir: dict[str, Measure] = {}
    for argument in arguments or ["official"]:
        for measure in _parse_argument(argument):
            if measure.label is not None:
                ir.setdefault(measure.label, measure)
            elif measure.name not in trec or (trec[measure.name].params is None and measure.params):
                trec[measure.name] = measure  # trec_eval takes a measure's parameters from any -m
    return sorted(trec.values(), key=lambda m: ORDER[m.name]) + list(ir.values())


def parse_measure(text: str) -> Measure:
    """One measure from its printed form (trec_eval ``name[.params]`` or an ir_measures spelling)."""
    measures = _parse_argument(text)
    if len(measures) != 1:
        raise InputError("-m", 0, f"{text!r} names {len(measures)} measures; one expected")
    return measures[0]


def _parse_argument(text: str) -> list[Measure]:
    if text in NICKNAMES:
        return [Measure(name) for name in NICKNAMES[text]]
    name, dot, params = text.partition(".")
    if name in BY_NAME:
        if dot and not params:
            raise InputError("-m", 0, f"measure {text!r}: parameters expected after '.'")
        measure = Measure(name, params if dot else None)
        measure.cutoffs()  # refuse bad parameters now, before any reading
        return [measure]
    if UNSUPPORTED.match(name):
        raise InputError(
            "-m", 0, f"measure {text!r} needs trec_eval's preference or qrels_jg formats, not supported here"
        )
    match = _IR.match(text)
    if match and match["name"] in IR_MEASURES:
        return [_ir_measure(text, match)]
    raise InputError(
        "-m",
        0,
        f"unknown measure {text!r}; expected a trec_eval measure ({', '.join(BY_NAME)}), a nickname "
        f"({', '.join(NICKNAMES)}) or an ir_measures name ({', '.join(IR_MEASURES)}, e.g. P@10, AP(rel=2))",
    )


def _ir_measure(text: str, match: re.Match) -> Measure:
    base, with_cutoff = IR_MEASURES[match["name"]]
    rel = None
    for argument in filter(None, (part.strip() for part in (match["args"] or "").split(","))):
        key, _, value = argument.partition("=")
        if key.strip() != "rel" or not re.fullmatch(r"-?[0-9]+", value.strip()):
            raise InputError("-m", 0, f"measure {text!r}: only the argument rel=N (an integer) is understood")
        rel = int(value)
    cutoff = match["cutoff"]
    if cutoff is None:
        if match["name"] in ("P", "R", "Success", "IPrec"):
            raise InputError("-m", 0, f"measure {text!r}: a cutoff is expected ({match['name']}@k)")
        measure = Measure(base, None, rel, text)
    else:
        if with_cutoff is None:
            raise InputError("-m", 0, f"measure {text!r}: {match['name']} takes no cutoff")
        if with_cutoff != "iprec_at_recall" and not cutoff.isdigit():
            raise InputError("-m", 0, f"measure {text!r}: the cutoff must be a whole number")
        measure = Measure(with_cutoff, cutoff, rel, text)
    measure.cutoffs()
    return measure


def _c_long(text: str) -> int:
    """C's ``atol``: leading white space, a sign and digits; anything else ends the number (0 if none)."""
    match = re.match(r"\s*([+-]?\d+)", text)
    return int(match.group(1)) if match else 0


def _c_double(text: str) -> float:
    """C's ``atof`` on a decimal number: the longest leading part that is a number (0.0 if none)."""
    match = re.match(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)", text)
    return float(match.group(1)) if match else 0.0


def is_integer_name(text: str) -> bool:
    """trec_eval's test for a gain parameter's name being a relevance level (``valid_int``)."""
    return bool(re.fullmatch(r"[+-]?\d+", text))


def describe(measures: Iterable[Measure]) -> dict[str, str]:
    """Printed form -> one-line description, for help and JSON."""
    return {str(m): m.definition.description for m in measures}


LOG_MIN = math.log(0.00001)  # trec_eval's MIN_GEO_MEAN, for geometric means
