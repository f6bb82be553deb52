"""Campaigns from Python: run one from its TOML file or a dict, and get its leaderboard, significance
table, categories and HTML page as objects; open what its store keeps as DataFrames.

``run`` is what ``iescore campaign`` runs (``iescore.tasks.campaign.run``): the same checks, the same Luigi
graph into the same store, the same outputs when asked for (``json=``, ``csv=``, ``out=``, ``html=``), so
the board a notebook shows is the board the command prints. A run reuses what the store already holds:
a second run of an unchanged campaign reads its tables.

>>> import tempfile
>>> from iescore.campaign import run
>>> result = run("data/trec-campaign.toml", store=tempfile.mkdtemp())  # default: the file's store
>>> for row in result.board.itertuples():
...     print(row.rank, row.system, f"{row.map:.4f}")
1 teamA_run2 0.1304
2 teamA_run1 0.1253
3 teamB_run1 0.1245
>>> result.significance[["system_a", "system_b", "measure"]].values.tolist()[0]
['teamA_run2', 'teamA_run1', 'map']
>>> result.html.startswith("<!DOCTYPE html>")  # the page; result.save("board.html") writes it
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iescore.result import Result

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from iescore.tasks.campaign.run import CampaignGraph

__all__ = ["Campaign", "artifacts", "load_artifact", "run"]


class Campaign(Result):
    """A finished campaign: its tables as the summary stage made them (``leaderboard``, ``significance``,
    ``categories``, ``units``; fractions of 1) and ``board``, the leaderboard one row per system in the
    kind's unit, as ``leaderboard.csv`` holds it. A notebook shows the board; ``text`` is the board as
    ``iescore campaign`` prints it, ``html`` the campaign's page, ``store`` where its artifacts are."""

    headline = "board"

    def __init__(self, tables: Mapping[str, pa.Table], graph: CampaignGraph, text: str) -> None:
        super().__init__(tables)
        self._graph = graph
        self._html: str | None = None
        self.text = text

    @property
    def board(self) -> pd.DataFrame:
        """One row per system, best first: rank, system, its attributes, the kind's columns (counts, measures
        and interval ends in the kind's unit), its signature (``pipeline.campaign.engine.board_rows``)."""
        return self.frame("board")

    @property
    def leaderboard(self) -> pd.DataFrame:
        """The leaderboard in long form, one row per (system, measure) (``schemas.LEADERBOARD``)."""
        return self.frame("leaderboard")

    @property
    def significance(self) -> pd.DataFrame:
        """One row per pair of systems: paired bootstrap, randomization, t-test, Holm's correction
        (``schemas.SIGNIFICANCE``)."""
        return self.frame("significance")

    @property
    def categories(self) -> pd.DataFrame:
        """Each system's measures by category (slot, class, tag...): the page's heat map."""
        return self.frame("categories")

    @property
    def units(self) -> pd.DataFrame:
        """The units the statistics resample (documents, instances, queries)."""
        return self.frame("units")

    @property
    def store(self) -> str:
        """The artifact store the campaign ran into (a directory or ``s3://BUCKET/PREFIX``)."""
        return self._graph.store

    @property
    def html(self) -> str:
        """The campaign's self-contained HTML page (made on first use, as ``--html`` writes it)."""
        if self._html is None:
            from iescore.tasks.campaign.outputs import campaign_html

            graph = self._graph
            self._html = campaign_html(graph.campaign, graph.summary, graph.reports)
        return self._html

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (atomically); the path."""
        from iescore.tasks.core.files import write_text

        write_text(path, self.html)
        return Path(path)

    def artifacts(self) -> pd.DataFrame:
        """The artifacts of this campaign's stages in its store (``artifacts``), with ``system``: the system
        whose stages made it, or None for what systems share (the reference's, the summary)."""
        graph = self._graph
        owners: dict[str, set[str | None]] = {graph.summary.key: {None}}
        for name, task in graph.reports.items():
            stack, seen = [task], set()
            while stack:
                task = stack.pop()
                if task.key in seen:
                    continue
                seen.add(task.key)
                owners.setdefault(task.key, set()).add(name)
                stack.extend(task.requires().values())
        listed = artifacts(self.store)
        listed = listed[listed.key.isin(owners)].reset_index(drop=True)
        systems = [next(iter(owners[key])) if len(owners[key]) == 1 else None for key in listed.key]
        listed.insert(0, "system", systems)
        return listed


def run(
    campaign: str | os.PathLike[str] | Mapping[str, Any],
    *,
    base: str | os.PathLike[str] | None = None,
    store: str | os.PathLike[str] | None = None,
    workers: int = 1,
    scheduler_host: str | None = None,
    scheduler_port: int | None = None,
    out: str | os.PathLike[str] | None = None,
    html: str | os.PathLike[str] | None = None,
    json: str | os.PathLike[str] | None = None,
    csv: str | os.PathLike[str] | None = None,
    progress: str = "auto",
    tasks_log: str | os.PathLike[str] | None = None,
) -> Campaign:
    """Run a campaign and return its result.

    ``campaign`` is a campaign file (TOML) or a dict of the same keys (``{"scorer": "trec", "reference":
    {"qrels": ...}, "systems": {"run1": {"run": ...}}}``), checked by the same code with the same messages
    (a dict's errors name the key, with no line); a dict's paths, store and output are relative to
    ``base`` (default: the working directory), as a file's are to its folder. The options are
    ``iescore campaign``'s: ``store`` (default: the campaign's ``store``, else ``iescore-store`` beside the
    file or in ``base``), ``workers``, a central scheduler, and files to write (``json``, ``csv``, ``out``,
    ``html``). Bad input raises InputError, as the command prints it (a stage's, on stderr too).
    """
    from iescore.pipeline.campaign.engine import campaign_from_dict, read_campaign
    from iescore.pipeline.core.errors import InputError
    from iescore.tasks.campaign.run import CampaignRequest, campaign_graph, check_request, run_campaign
    from iescore.tasks.cli.common import EXIT_INPUT, EXIT_OK

    request = CampaignRequest(
        store=os.fspath(store) if store is not None else None,
        workers=workers,
        scheduler_host=scheduler_host,
        scheduler_port=scheduler_port,
        out=out,
        html=html,
        json=json,
        csv=csv,
        progress=progress,
        tasks_log=tasks_log,
    )
    check_request(request)
    if isinstance(campaign, Mapping):
        parsed = campaign_from_dict(campaign, base)
    else:
        from iescore.tasks.core.arguments import INPUT_FILE, check_paths

        check_paths([("CAMPAIGN", campaign, INPUT_FILE)])
        parsed = read_campaign(campaign)
    graph = campaign_graph(parsed, request)
    status, outcome = run_campaign(graph)
    if status == EXIT_INPUT:
        raise InputError(
            parsed.origin or str(parsed.source), 0, "; ".join(dict.fromkeys(outcome.input_errors))
        )
    if status != EXIT_OK:
        raise RuntimeError("iescore campaign: internal error:\n" + "\n".join(outcome.errors))
    return _result(graph)


def _result(graph: CampaignGraph) -> Campaign:
    """The result of a finished run: the summary's tables, the board in wide form and as printed."""
    import pyarrow as pa

    from iescore.pipeline.campaign.engine import board_rows
    from iescore.tasks.campaign.outputs import board_text
    from iescore.tasks.core.store import read_table

    kind, outputs = graph.campaign.kind, graph.summary.output()
    tables = {
        name: read_table(outputs[name]) for name in ("leaderboard", "significance", "categories", "units")
    }
    board = pa.Table.from_pylist(board_rows(kind, tables["leaderboard"]))
    text = board_text(kind, tables["leaderboard"], tables["significance"], tables["units"].num_rows)
    return Campaign({"board": board, **tables}, graph, text)


def artifacts(store: str | os.PathLike[str]) -> pd.DataFrame:
    """Every artifact of a store (a directory or ``s3://BUCKET/PREFIX``), one row each, by stage then key:
    ``stage``, ``name`` (the output's), ``key``, ``rows``, ``path`` (for ``load_artifact``) and its
    provenance (``version``, ``options``, ``inputs``: role -> key, ``files``: input files' digests), as
    ``iescore artifacts`` lists them.

    >>> import tempfile
    >>> from iescore.campaign import artifacts, load_artifact, run
    >>> listed = artifacts(run("data/trec-campaign.toml", store=tempfile.mkdtemp()).store)
    >>> summary = listed[(listed.stage == "CampaignSummary") & (listed.name == "leaderboard")]
    >>> sorted(load_artifact(summary.path.iloc[-1]).system.unique())
    ['teamA_run1', 'teamA_run2', 'teamB_run1']
    """
    import pandas as pd

    from iescore.tasks.core.arguments import INPUT_DIRECTORY, check_paths
    from iescore.tasks.core.store import check_store, is_s3, list_artifacts

    location = os.fspath(store)
    check_store(location, "store")
    if not is_s3(location):
        check_paths([("STORE", location, INPUT_DIRECTORY)])
    rows = []
    for entry in list_artifacts(location):
        path = str(entry["path"])
        name = path.rsplit("/", 1)[-1].removesuffix(".parquet").split(".", 1)[-1]
        rows.append(
            {
                "stage": entry.get("stage"),
                "name": name,
                "key": entry.get("key"),
                "rows": entry["rows"],
                "path": path,
                "version": entry.get("version"),
                "options": entry.get("options"),
                "inputs": entry.get("inputs"),
                "files": entry.get("files"),
            }
        )
    columns = ["stage", "name", "key", "rows", "path", "version", "options", "inputs", "files"]
    return pd.DataFrame(rows, columns=columns)


def load_artifact(path: str | os.PathLike[str]) -> pd.DataFrame:
    """An artifact (a path or URL ``artifacts`` lists) as a DataFrame; its columns are named in
    ``iescore.schemas``."""
    from iescore.tasks.core.store import read_table

    return read_table(os.fspath(path)).to_pandas()
