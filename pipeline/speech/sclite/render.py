"""Which reports a run writes, their file names and sclite's feedback lines (``-f 1``)."""

from __future__ import annotations

from collections.abc import Callable

from iescore.pipeline.speech.sclite.detail import dtl_report, snt_reports, spk_reports
from iescore.pipeline.speech.sclite.lur import lur_report
from iescore.pipeline.speech.sclite.model import ScoredSystem
from iescore.pipeline.speech.sclite.pra import pra_report, prf_report
from iescore.pipeline.speech.sclite.sgml import sgml_text
from iescore.pipeline.speech.sclite.summary import summary_report
from iescore.pipeline.speech.sclite.table import TableMemory
from iescore.pipeline.speech.sclite.trn import Encoding

__all__ = ["progress", "report_files", "sgml_text"]


def progress(system: ScoredSystem) -> str:
    """sclite's progress lines at ``-f 1``: one carriage-return line a segment, a line a speaker."""
    parts = []
    last = 0
    count: dict[str, int] = {}
    index: dict[str, int] = {}
    for seg in sorted(system.segments, key=lambda s: s.sequence):
        g = index.setdefault(seg.speaker, len(index))
        if g != last:
            parts.append("\n")
            last = g
        count[seg.speaker] = count.get(seg.speaker, 0) + 1
        parts.append(f"\r    Alignment# {count[seg.speaker]} for speaker {seg.speaker}          ")
    parts.append("\n\n")
    return "".join(parts)


def report_files(
    system: ScoredSystem,
    root: str,
    reports: set[str],
    width: int,
    encoding: Encoding,
    date: str,
    memory: TableMemory,
) -> list[tuple[str | None, str, Callable[[], str] | None]]:
    """The reports asked for, in sclite's order: (file name, feedback line, text maker), or (None,
    a line sclite prints whatever ``-f``, None) for a report it skips. The makers are to be called in
    that order: tables share ``memory`` (the run's, as sclite's layout does)."""
    out: list[tuple[str | None, str, Callable[[], str] | None]] = []
    if "sum" in reports:
        out.append(
            (
                f"{root}.sys",
                f"    Writing scoring report to '{root}.sys'\n",
                lambda: summary_report(system, memory=memory),
            )
        )
    if "wws" in reports and system.weight_file is not None:
        out.append(
            (
                f"{root}.wws",
                f"    Writing scoring report to '{root}.wws'\n",
                lambda: summary_report(system, memory=memory, weighted=True),
            )
        )
    elif "wws" in reports:  # a system read with -P without weights: sclite says so, at any -f
        out.append((None, "    Skipping WWS Report, no word weights supplied.\n", None))
    if "rsum" in reports:
        out.append(
            (
                f"{root}.raw",
                f"    Writing raw scoring report to '{root}.raw'\n",
                lambda: summary_report(system, raw=True),
            )
        )
    if "snt" in reports:
        for speaker, text in snt_reports(system, encoding):
            path = f"{root}.snt.{speaker}"
            out.append(
                (
                    path,
                    f"    Writing sentence scoring report for speaker '{speaker}' to '{path}'\n",
                    _const(text),
                )
            )
    if "spk" in reports:
        for speaker, text in spk_reports(system):
            path = f"{root}.spk.{speaker}"
            out.append(
                (path, f"    Writing speaker scoring report for '{speaker}' to '{path}'\n", _const(text))
            )
    if "dtl" in reports:
        out.append(
            (
                f"{root}.dtl",
                f"    Writing overall detailed scoring report '{root}.dtl'\n",
                lambda: dtl_report(system),
            )
        )
    if "lur" in reports:
        out.append(
            (
                f"{root}.lur",
                f"    Writing LUR scoring report to '{root}.lur'\n",
                lambda: lur_report(system, memory),
            )
        )
    if "pralign" in reports:
        out.append(
            (
                f"{root}.pra",
                f"    Writing string alignments to '{root}.pra'\n",
                lambda: pra_report(system, width, encoding),
            )
        )
    if "prf" in reports:
        out.append(
            (
                f"{root}.prf",
                f"    Writing string alignments to '{root}.prf'\n",
                lambda: prf_report(system, width, encoding, date),
            )
        )
    if "sgml" in reports:
        out.append(
            (
                f"{root}.sgml",
                f"    Writing SGML string alignments to '{root}.sgml'\n",
                lambda: sgml_text(system, date),
            )
        )
    if "nl.sgml" in reports:
        out.append(
            (
                f"{root}.nl.sgml",
                f"    Writing Newline Separated SGML string alignments to '{root}.nl.sgml'\n",
                lambda: sgml_text(system, date, "\n", "\n"),
            )
        )
    return out


def _const(text: str) -> Callable[[], str]:
    return lambda: text
