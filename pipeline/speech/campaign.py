"""The WER campaign kind: ``scorer = "wer"`` campaign files (``pipeline.core.kinds``).

``[reference]``: ``transcript`` (the reference) and its ``format`` (trn, stm or ctm); ``[systems.NAME]``:
``hypothesis`` and its ``format`` (trn against a trn reference, ctm against stm or ctm); ``[options]``:
the alignment options of ``iescore sclite``: ``id_type`` (-i, trn utterance ids), ``case_sensitive``
(-s), ``encoding`` (-e), ``opt_del`` (-D), ``frag_corr`` (-F), ``time_mediated`` (-T, ctm reference),
``reduce_ref`` and ``reduce_hyp`` (-m ref, -m hyp). The leaderboard shows sclite's Corr, Sub, Del, Ins,
WER and S.Err in percent, ranked by WER (lowest first), with its bootstrap interval over utterances;
every pair also has sc_stats' MAPSSWE and sign test, Holm-adjusted over all pairs, beside the engine's
paired bootstrap and randomization. The page's heat map shows WER by speaker, and its family section
WER by stm label and each system's alignment by utterance (sclite's ``.pra`` blocks).
"""

from __future__ import annotations

from iescore.pipeline.core.kinds import CampaignKind, Field, PairTest
from iescore.pipeline.speech.wer import ENCODINGS, SCLITE_NAMES, WER, evaluations, mapsswe_p, sign_p

#: sclite's -i utterance id types (how a trn id names its speaker).
ID_TYPES = ("swb", "rm", "wsj", "spu_id", "sp")

WER_CAMPAIGN = CampaignKind(
    name="wer",
    family=WER,
    reference={
        "transcript": Field("file", "the reference transcript (sclite -r)", required=True),
        "format": Field("choice", "the reference's format", default="trn", choices=("trn", "stm", "ctm")),
    },
    system={
        "hypothesis": Field("file", "the system's output (sclite -h)", required=True),
        "format": Field("choice", "the hypothesis' format", default="trn", choices=("trn", "ctm")),
    },
    options={
        "id_type": Field(
            "choice", "how trn utterance ids name their speaker (sclite -i)", default="wsj", choices=ID_TYPES
        ),
        "case_sensitive": Field("bool", "compare words case-sensitively (sclite -s)", default=False),
        "encoding": Field(
            "choice", "the inputs' character encoding (sclite -e)", default="ascii", choices=tuple(ENCODINGS)
        ),
        "opt_del": Field("bool", "optionally deletable words, (word) (sclite -D)", default=False),
        "frag_corr": Field(
            "bool", "a fragment matching a word's start is correct (sclite -F)", default=False
        ),
        "time_mediated": Field("bool", "time-mediated alignment, ctm reference (sclite -T)", default=False),
        "reduce_ref": Field(
            "bool", "skip segments outside the span of the hypothesis (sclite -m ref)", default=False
        ),
        "reduce_hyp": Field(
            "bool", "drop hypothesis words outside the segments' span (sclite -m hyp)", default=False
        ),
    },
    board=("corr", "sub", "del", "ins", "wer", "ser"),
    counts={"Snt": ("utterances",), "Wrd": ("C", "S", "D")},
    interval_measures=("wer",),
    labels=SCLITE_NAMES,
    text_names=SCLITE_NAMES,
    headline_label="WER",
    unit="percent",  # as sclite prints its rates
    ranking_note="ranked by WER, lowest first (sclite's Err: substitutions, deletions and insertions over "
    "reference words)",
    sections=("alignments",),
    pair_tests=(
        PairTest(
            "mapsswe",
            "mp",
            "sc_stats' matched pairs sentence-segment word error test (MAPSSWE)",
            evaluations,
            mapsswe_p,
        ),
        PairTest("sign", "si", "sc_stats' sign test on the speakers' WER", evaluations, sign_p),
    ),
    evidence="alignment",
)
