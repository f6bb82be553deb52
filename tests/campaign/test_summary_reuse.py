"""A campaign summary reuses an earlier summary's results for unchanged systems (issue 16, point 5), and
the outputs are the same bytes as a cold run's (pipeline.campaign.reuse, tasks.campaign.summary).

The rules rest on facts about the statistics procedures that are checked here first: a pair's test is
the same computed alone or among all pairs, and swapping a pair negates delta exactly and keeps both
p-values. The expected values of every comparison are the procedures' own results on a cold computation:
what is tested is that reuse changes nothing, and that a stale result is never taken (a planted wrong
value would show).
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from iescore.pipeline.campaign import reuse, stats
from iescore.pipeline.campaign.stats import Interval, PairTests
from iescore.pipeline.core.family import UnitStatistics
from iescore.pipeline.templette import TEMPLETTE
from iescore.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[2]

SETTINGS = {"resamples": 200, "seed": 5, "family": "templette", "options": {"beta": 1.0}}
STALE = (0.123, 0.456, 0.789)  # a planted delta and p-values: were they reused, it would show


def counts(rng: np.random.Generator, systems: int, units: int) -> np.ndarray:
    return rng.integers(0, 6, size=(systems, units, len(TEMPLETTE.statistic_names))).astype(np.float64)


def statistics_of(values: np.ndarray, names: list[str], units: list[str] | None = None) -> UnitStatistics:
    units = units or [f"d{u:03d}" for u in range(values.shape[1])]
    return UnitStatistics(TEMPLETTE, tuple(names), tuple(units), values)


def spied_pairs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The pairs every later ``pair_tests`` call is asked to test, as they are asked."""
    pairs: list[tuple[int, int]] = []
    original = stats.pair_tests

    def spy(*args: object, **kwargs: object) -> PairTests:
        given = kwargs.get("pairs")
        if given is not None:
            pairs.extend(tuple(pair) for pair in np.asarray(given).tolist())
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(stats, "pair_tests", spy)
    return pairs


def rows(tests: PairTests, systems: tuple[str, ...]) -> list[tuple]:
    """Pair tests as comparable rows: names, then delta and p-values (None where undefined)."""
    values = [getattr(tests, name).tolist() for name in stats.PAIR_TEST_FIELDS]
    return [
        (systems[a], systems[b], *(None if np.isnan(v) else v for v in rest))
        for a, b, *rest in zip(*values, strict=True)
    ]


def cold_pairs(statistics: UnitStatistics) -> list[tuple]:
    return rows(stats.pair_tests(statistics, resamples=200, seed=5), statistics.systems)


def planted(table: reuse.PairTable, where: np.ndarray) -> reuse.PairTable:
    """``table`` with ``STALE`` values in the rows ``where`` says."""
    tests = table.tests
    stale = [
        np.where(where, value, getattr(tests, name))
        for value, name in zip(STALE, stats.PAIR_TEST_FIELDS[2:], strict=True)
    ]
    return reuse.PairTable(table.systems, PairTests(tests.a, tests.b, *stale))


def spied_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The systems whose statistics table every later summary reads (``reuse.system_values``)."""
    read: list[str] = []
    original = reuse.system_values

    def spy(family: object, name: str, table: object) -> object:
        read.append(name)
        return original(family, name, table)  # type: ignore[arg-type]

    monkeypatch.setattr(reuse, "system_values", spy)
    return read


def test_a_pair_tested_alone_is_the_same_as_among_all_pairs() -> None:
    statistics = statistics_of(counts(np.random.default_rng(1), 6, 40), list("abcdef"))
    every = stats.paired_significance(statistics, resamples=300, seed=9)
    positions = [(a, b) for a in range(6) for b in range(a + 1, 6)]
    chosen = [positions[i] for i in (13, 0, 7, 4)]
    alone = stats.paired_significance(statistics, resamples=300, seed=9, pairs=chosen)
    assert alone == [every[positions.index(pair)] for pair in chosen]


def test_swapping_two_systems_negates_delta_exactly_and_keeps_the_p_values() -> None:
    values = counts(np.random.default_rng(2), 5, 50)
    forward = stats.paired_significance(statistics_of(values, list("abcde")), resamples=300, seed=3)
    backward = stats.paired_significance(statistics_of(values[::-1], list("edcba")), resamples=300, seed=3)
    by_pair = {(c.b, c.a): c for c in backward}
    for c in forward:
        other = by_pair[(c.a, c.b)]
        assert other.delta == -c.delta  # exactly: bit for bit
        assert (other.paired_bootstrap_p, other.randomization_p) == (c.paired_bootstrap_p, c.randomization_p)


def test_intervals_of_some_systems_are_those_among_all() -> None:
    statistics = statistics_of(counts(np.random.default_rng(3), 5, 30), list("abcde"))
    every = stats.bootstrap_intervals(statistics, resamples=300, seed=4)
    some = stats.bootstrap_intervals(statistics.select(["d", "b"]), resamples=300, seed=4)
    assert some == {name: every[name] for name in ("d", "b")}


def previous_of(statistics: UnitStatistics, ranked: list[str], settings: dict = SETTINGS) -> reuse.Previous:
    """A summary's record and results as a cold summary computes them."""
    own = {
        name: reuse.SystemValues(statistics.units, statistics.values[i])
        for i, name in enumerate(statistics.systems)
    }
    intervals = stats.bootstrap_intervals(statistics, resamples=200, seed=5)
    tests = stats.pair_tests(statistics.select(ranked), resamples=200, seed=5)
    return reuse.Previous(
        settings=settings,
        units=statistics.units,
        systems=own,
        intervals=intervals,
        pairs=reuse.PairTable(tuple(ranked), tests),
    )


def run_with_reuse(statistics: UnitStatistics, ranked: list[str], previous: reuse.Previous) -> tuple:
    computed_pairs: list[tuple[str, str]] = []
    computed_systems: list[str] = []

    def test_pairs(some: UnitStatistics, pairs: np.ndarray | None) -> PairTests:
        every = stats.every_pair(len(some.systems)) if pairs is None else pairs
        computed_pairs.extend((some.systems[a], some.systems[b]) for a, b in every.tolist())
        return stats.pair_tests(some, resamples=200, seed=5, pairs=pairs)

    def intervals(some: UnitStatistics) -> dict:
        computed_systems.extend(some.systems)
        return stats.bootstrap_intervals(some, resamples=200, seed=5)

    same = reuse.same_statistics(previous, statistics, SETTINGS)
    found_intervals = reuse.intervals_reusing(statistics, same, previous, intervals)
    ranked_statistics = statistics.select(ranked)
    tests = reuse.pairs_reusing(ranked_statistics, same, previous, test_pairs)
    return found_intervals, rows(tests, ranked_statistics.systems), computed_systems, computed_pairs


def test_only_the_changed_systems_intervals_and_pairs_are_computed_and_the_results_are_a_cold_runs() -> None:
    rng = np.random.default_rng(4)
    names = list("abcde")
    old = counts(rng, 5, 30)
    previous = previous_of(statistics_of(old, names), names)
    new = old.copy()
    new[2] = counts(rng, 1, 30)[0]  # system c changed
    ranked = ["c", "a", "e", "b", "d"]  # and its rank, so some unchanged pairs flip too
    changed = statistics_of(new, names)
    found, comparisons, computed_systems, computed_pairs = run_with_reuse(changed, ranked, previous)
    assert found == stats.bootstrap_intervals(changed, resamples=200, seed=5)
    assert comparisons == cold_pairs(changed.select(ranked))
    assert computed_systems == ["c"]
    assert sorted(computed_pairs) == [("c", "a"), ("c", "b"), ("c", "d"), ("c", "e")]


def test_a_stale_result_of_a_changed_system_is_never_taken() -> None:
    rng = np.random.default_rng(5)
    names = list("abcd")
    old = counts(rng, 4, 25)
    previous = previous_of(statistics_of(old, names), names)
    # Plant wrong values where the changed system b is involved: were any reused, it would show.
    pairs = previous.pairs
    assert pairs is not None
    involved = (np.array(pairs.systems)[pairs.tests.a] == "b") | (
        np.array(pairs.systems)[pairs.tests.b] == "b"
    )
    poisoned_intervals = {
        name: ({"F": Interval(0.5, 0.5)} if name == "b" else v) for name, v in previous.intervals.items()
    }
    previous = reuse.Previous(
        previous.settings, previous.units, previous.systems, {}, poisoned_intervals, planted(pairs, involved)
    )
    new = old.copy()
    new[1, 7, 0] += 1  # one point of system b in one document
    changed = statistics_of(new, names)
    found, comparisons, _, computed = run_with_reuse(changed, names, previous)
    assert found == stats.bootstrap_intervals(changed, resamples=200, seed=5)
    assert comparisons == cold_pairs(changed)
    assert len(computed) == 3


@pytest.mark.parametrize("what", ["units", "settings"])
def test_other_units_or_settings_reuse_nothing(what: str) -> None:
    rng = np.random.default_rng(6)
    names = list("abc")
    values = counts(rng, 3, 20)
    units = [f"d{u:03d}" for u in range(20)]
    previous = previous_of(statistics_of(values, names, units), names)
    assert previous.pairs is not None
    stale = reuse.Previous(
        {**SETTINGS, "seed": 6} if what == "settings" else SETTINGS,
        previous.units,
        previous.systems,
        {},
        {name: {"F": Interval(0.5, 0.5)} for name in names},
        planted(previous.pairs, np.ones(len(previous.pairs.tests.a), dtype=bool)),
    )
    if what == "units":  # a unit more (of zeros for everyone): other draws, nothing reusable
        values = np.concatenate([values, np.zeros((3, 1, len(TEMPLETTE.statistic_names)))], axis=1)
        units = [*units, "d999"]
    current = statistics_of(values, names, units)
    found, comparisons, computed_systems, _ = run_with_reuse(current, names, stale)
    assert found == stats.bootstrap_intervals(current, resamples=200, seed=5)
    assert comparisons == cold_pairs(current)
    assert computed_systems == names


@pytest.mark.parametrize("exact", [True, False])
def test_a_systems_resampled_sums_are_the_same_bits_alone_and_among_others(exact: bool) -> None:
    # Fractions with many bits (a TREC query's average precision), or counts: a system's sums over each
    # draw are the same bits computed for it alone, among all, and at another position among them.
    rng = np.random.default_rng(8)
    values = rng.integers(0, 9, size=(40, 60, 3)).astype(np.float64) if exact else rng.random((40, 60, 3))
    draws = rng.integers(0, 3, size=(200, 60)).astype(np.float64)
    among = stats.resampled_sums(draws, values, exact)
    order = rng.permutation(40)
    shuffled = stats.resampled_sums(draws, values[order], exact)
    for system in (0, 17, 39):
        alone = stats.resampled_sums(draws, values[system : system + 1], exact)[:, 0]
        assert np.array_equal(alone, among[:, system])
        assert np.array_equal(alone, shuffled[:, int(np.flatnonzero(order == system)[0])])
        # Sums of the statistics the plain way (one vector product a resample) agree to rounding.
        assert np.allclose(alone, draws @ values[system])


# --- the whole command: a rerun after one system changed against a cold run --------------------------

SLOTS = ("WINNER", "LOSER", "PLACE")
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa")


def write_corpus(directory: Path, docs: int) -> list:
    rng = random.Random(11)
    texts, reference, chosen_all = [], [], []
    for d in range(docs):
        doc_id = f"DOC{d:04d}"
        words = [rng.choice(WORDS) for _ in range(40)]
        head = f"<DOC>\n<DOCNO> {doc_id} </DOCNO>\n<TEXT>\n"
        texts.append(head + " ".join(words) + "\n</TEXT>\n</DOC>\n")
        offsets, position = [], len(head)
        for word in words:
            offsets.append((position, position + len(word), word))
            position += len(word) + 1
        chosen = [[offsets[rng.randrange(len(offsets))] for _ in SLOTS] for _ in range(2)]
        chosen_all.append((doc_id, chosen))
        reference.append(template(doc_id, chosen, None, 0.0))
    (directory / "texts.sgml").write_text("".join(texts))
    (directory / "ref.tpl").write_text("".join(reference))
    return chosen_all


def template(doc_id: str, chosen: list, rng: random.Random | None, rate: float) -> str:
    parts = [f"<TEMPLATE-{doc_id}-1> :=\n"]
    parts.append("    EVENT: " + " ".join(f"<EVENT-{doc_id}-{e + 1}>" for e in range(len(chosen))) + "\n")
    for e, slots in enumerate(chosen):
        parts.append(f"<EVENT-{doc_id}-{e + 1}> :=\n")
        for slot, (start, end, word) in zip(SLOTS, slots, strict=True):
            if rng is None or rng.random() >= rate:
                parts.append(f'    {slot}: "{word}" ##{start}#{end}#\n')
            elif rng.random() < 0.5:
                parts.append(f'    {slot}: "{rng.choice(WORDS)}x" ##{start}#{end + 1}#\n')
    return "".join(parts)


def write_system(directory: Path, name: str, chosen: list, rate: float, seed: int) -> None:
    rng = random.Random(seed)
    (directory / f"{name}.tpl").write_text("".join(template(d, c, rng, rate) for d, c in chosen))


def same_outputs(warm: Path, cold: Path) -> None:
    """Every file of two output directories, byte for byte (stamps aside: they name artifact keys)."""
    files = sorted(p.relative_to(warm) for p in warm.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(cold) for p in cold.rglob("*") if p.is_file())
    assert any(name.name == "report.html" for name in files)
    for name in files:
        if not name.name.startswith("."):
            assert (warm / name).read_bytes() == (cold / name).read_bytes(), name


def run_campaign(directory: Path, store: Path, out: Path, workers: int = 1) -> None:
    argv = ["campaign", str(directory / "campaign.toml"), "--store", str(store), "--out", str(out)]
    assert main([*argv, "--workers", str(workers), "--progress", "none"]) == 0


def test_a_rerun_after_one_system_changed_writes_what_a_cold_run_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    chosen = write_corpus(data, 40)
    rates = {"s0": 0.05, "s1": 0.15, "s2": 0.3, "s3": 0.45, "s4": 0.6}
    for index, (name, rate) in enumerate(rates.items()):
        write_system(data, name, chosen, rate, index)
    lines = ['[reference]\ntemplates = "ref.tpl"\ntexts = "texts.sgml"\n\n[options]\nresamples = 200\n']
    lines += [f'\n[systems.{name}]\ntemplates = "{name}.tpl"\n' for name in rates]
    (data / "campaign.toml").write_text("".join(lines))
    run_campaign(data, tmp_path / "store", tmp_path / "warm")

    # s3 becomes the best system: its pairs change, and its order against every other system flips.
    write_system(data, "s3", chosen, 0.01, 99)
    original = stats.pair_tests
    pairs = spied_pairs(monkeypatch)
    read = spied_reads(monkeypatch)
    # Two workers: the changed chain is one chain, run here (so the spies see its pairs and reads); the
    # page and the changed system's files are written by two processes.
    run_campaign(data, tmp_path / "store", tmp_path / "warm", workers=2)
    assert len(pairs) == 4  # the rerun tested s3's four pairs only
    assert read == ["s3"]  # and read s3's statistics only
    monkeypatch.setattr(stats, "pair_tests", original)
    run_campaign(data, tmp_path / "cold-store", tmp_path / "cold")
    capsys.readouterr()

    same_outputs(tmp_path / "warm", tmp_path / "cold")
    # The warm store holds two summaries; the current one is the one the cold store has too (same key).
    for path in (tmp_path / "cold-store" / "CampaignSummary").glob("*/*.parquet"):
        twin = tmp_path / "store" / path.relative_to(tmp_path / "cold-store")
        assert pq.read_table(twin).equals(pq.read_table(path)), path.name
        assert len(pq.read_table(path)) > 0


# --- a registered kind (MAT: every statistic a count) ---------------------------------------------


def rerun_against_a_cold_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changed: str, changed_pairs: int
) -> None:
    """Rerun ``tmp_path/data/campaign.toml`` into its warm store after ``changed`` changed: only its
    ``changed_pairs`` pairs are tested and only its statistics read; then a cold run into a store of its
    own writes the same output files and summary tables."""
    original = stats.pair_tests
    pairs = spied_pairs(monkeypatch)
    read = spied_reads(monkeypatch)
    run_campaign(tmp_path / "data", tmp_path / "store", tmp_path / "warm")
    assert len(pairs) == changed_pairs
    assert read == [changed]
    monkeypatch.setattr(stats, "pair_tests", original)
    run_campaign(tmp_path / "data", tmp_path / "cold-store", tmp_path / "cold")
    same_outputs(tmp_path / "warm", tmp_path / "cold")
    for path in (tmp_path / "cold-store" / "CampaignSummary").glob("*/*.parquet"):
        twin = tmp_path / "store" / path.relative_to(tmp_path / "cold-store")
        assert pq.read_table(twin).equals(pq.read_table(path)), path.name


def drop_annotation(folder: Path, document: str, aset: int) -> None:
    path = folder / document
    data = json.loads(path.read_text())
    data["asets"][aset]["annots"].pop(0)
    path.write_text(json.dumps(data))


def test_a_kind_campaign_rerun_after_one_system_changed_writes_what_a_cold_run_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = tmp_path / "data" / "mat-sample"
    shutil.copytree(ROOT / "data" / "mat-sample", sample)
    for name, document, aset in (("less-person", "a.json", 0), ("less-location", "a.json", 1)):
        shutil.copytree(sample / "good", sample / name)
        drop_annotation(sample / name, document, aset)
    text = 'scorer = "mat"\n\n[reference]\npath = "mat-sample/ref"\nfile_type = "mat-json"\n\n'
    text += "[options]\nresamples = 300\n"
    for name in ("good", "less-person", "less-location"):
        text += f'\n[systems.{name}]\npath = "mat-sample/{name}"\n'
    text += '\n[systems.rough]\npath = "mat-sample/rough"\nfile_type = "xml-inline"\n'
    text += 'ref_fsuff_off = ".xml"\nref_fsuff_on = ".json"\n'
    (tmp_path / "data" / "campaign.toml").write_text(text)
    run_campaign(tmp_path / "data", tmp_path / "store", tmp_path / "warm")

    drop_annotation(sample / "less-location", "b.json", 0)  # one system changes
    rerun_against_a_cold_run(tmp_path, monkeypatch, "less-location", 3)
    capsys.readouterr()


def test_a_trec_campaign_rerun_reuses_the_unchanged_systems_and_writes_what_a_cold_run_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # TREC's statistics are fractions (each query's measures): a rerun after one run changed computes
    # that run's pairs alone, and its outputs are a cold run's, byte for byte.
    sample = tmp_path / "data" / "trec-sample"
    shutil.copytree(ROOT / "data" / "trec-sample", sample)
    lines = (sample / "teamA_run1.txt").read_text().splitlines(keepends=True)
    (sample / "teamA_run3.txt").write_text("".join(lines[::2]))  # a fourth run: every other line
    text = 'scorer = "trec"\n\n[reference]\nqrels = "trec-sample/qrels.txt"\n\n[options]\nresamples = 300\n'
    for name in ("teamA_run1", "teamA_run2", "teamA_run3", "teamB_run1"):
        text += f'\n[systems.{name}]\nrun = "trec-sample/{name}.txt"\n'
    (tmp_path / "data" / "campaign.toml").write_text(text)
    run_campaign(tmp_path / "data", tmp_path / "store", tmp_path / "warm")

    changed = sample / "teamA_run2.txt"
    changed.write_text("".join(changed.read_text().splitlines(keepends=True)[3:]))
    rerun_against_a_cold_run(tmp_path, monkeypatch, "teamA_run2", 3)
    capsys.readouterr()
