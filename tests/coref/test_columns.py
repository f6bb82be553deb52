"""``read_mentions`` reads CoNLL on columns where it can, and gives what the line-by-line reader gives.

Every expectation here is the line-by-line reader's own result on the same file (``read_pair``,
``align_documents``, ``aligned_mentions``, ``score_documents``), which the rest of tests/coref checks
against the reference scorer's test cases and hand calculations: the columnar path must agree with it
row for row, and hand every input it does not read exactly as that reader back to it (``None``), so
that ``read_mentions`` gives that reader's result or raises its error.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.coref import (
    METRICS,
    aligned_mentions,
    read_aligned,
    read_mentions,
    read_pair,
    score_documents,
    score_mentions,
    score_report,
    scores_json,
)
from iescore.pipeline.coref.columns import _conll_mention_table, _read_conll_columns
from iescore.tasks.cli.main import main

DATA = Path(__file__).resolve().parents[3] / "shared" / "external" / "coref" / "datafiles"


def assert_same(key: Path, response: Path) -> None:
    """The columnar table and scores equal the line reader's, column for column and number for number.

    Under ``strict`` the columns read every well-formed pair; by default they leave a response with a
    repeated mention that is not a key mention to the line reader, which announces it."""
    if _conll_mention_table(key, response) is None:
        paired, _ = read_aligned(key, response)
        assert paired.notices and all("both copies kept" in notice for notice in paired.notices)
        assert_same_strict(key, response)
        return
    assert_same_strict(key, response, strict=False)


def assert_same_strict(key: Path, response: Path, strict: bool = True) -> None:
    columns = _conll_mention_table(key, response, strict=strict)
    assert columns is not None
    aligned = read_aligned(key, response, strict=strict)[1]
    expected = aligned_mentions(aligned)
    pd.testing.assert_frame_equal(columns.table, expected.table, check_exact=True)
    assert list(columns.table.dtypes) == list(expected.table.dtypes)
    assert columns.doc_ids == expected.doc_ids
    assert columns.key_chains.tolist() == expected.key_chains.tolist()
    assert columns.response_chains.tolist() == expected.response_chains.tolist()
    assert (columns.duplicates, columns.differing_words, columns.first_differing_word) == (
        expected.duplicates, expected.differing_words, expected.first_differing_word
    )  # fmt: skip
    old, new = score_documents(aligned, METRICS), score_mentions(columns, METRICS)
    assert new == old
    assert score_report(new) == score_report(old)
    assert scores_json(new) == scores_json(old)
    # The wing's reader gives the same table.
    pd.testing.assert_frame_equal(
        read_mentions(key, response, strict=strict).table, expected.table, check_exact=True
    )


@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/external/coref is not beside the checkout")
def test_reference_scorer_test_cases() -> None:
    pairs = [
        (key, response)
        for key in sorted(DATA.glob("*.key"))
        for response in sorted(DATA.glob(f"{key.stem}-*.response"))
    ]
    assert len(pairs) > 20
    for key, response in pairs:
        assert_same(key, response)


def random_document(
    rng: random.Random, name: str, tokens: int, breaks: set[int], response_of: list | None
) -> tuple[list[str], list[tuple[int, int, int]]]:
    """A CoNLL document with nested, overlapping and one-token mentions, several on a token."""
    mentions = []
    for _ in range(rng.randint(0, tokens)):
        start = rng.randrange(tokens)
        end = min(tokens, start + rng.choice([1, 1, 1, 2, 3, 5]))
        mentions.append((start, end, rng.randrange(1, 9)))
    if response_of is not None:  # a response: some of the key's mentions, moved, and duplicates
        mentions = [m for m in response_of if rng.random() < 0.7] + mentions[: len(mentions) // 3]
        mentions += [(s, e, rng.randrange(1, 12)) for s, e, _ in response_of if rng.random() < 0.15]
        mentions += [m for m in mentions if rng.random() < 0.1]  # the same mention twice
    else:
        mentions = list({(s, e): (s, e, c) for s, e, c in mentions}.values())  # a key has unique extents
    columns = [[] for _ in range(tokens)]
    opening = [[] for _ in range(tokens)]
    closing = [[] for _ in range(tokens)]
    for start, end, chain in mentions:
        if end - start == 1:
            columns[start].append(f"({chain})")
        else:
            opening[start].append(f"({chain}")
            closing[end - 1].insert(0, f"{chain})")
    lines = [f"#begin document ({name}); part 000"]
    for t in range(tokens):
        if t in breaks:
            lines.append("" if rng.random() < 0.7 else "   ")
        if rng.random() < 0.03:
            lines.append("# a comment line")
        items = opening[t] + columns[t] + closing[t]
        rng.shuffle(items) if rng.random() < 0.2 else None
        word = rng.choice(["a", "b", "c"]) if response_of is None or rng.random() > 0.05 else "zz"
        separator = rng.choice(["\t", " ", "  "])
        value = "|".join(items) if items else rng.choice(["-", "_"])
        fields = [name, "0", str(t), word, *(["x"] * rng.randint(0, 3)), value]
        if rng.random() < 0.05:
            fields = [word, value]  # few columns: the word is the one before the last
        lines.append(separator.join(fields))
    lines.append("#end document")
    return lines, mentions


def test_random_documents(tmp_path: Path) -> None:
    rng = random.Random(16)
    compared = 0
    for case in range(40):
        key_lines, response_docs = [], []
        for d in range(rng.randint(1, 6)):
            tokens = rng.randint(1, 40)
            breaks = {t for t in range(1, tokens) if rng.random() < 0.1}
            lines, mentions = random_document(rng, f"doc{d}", tokens, breaks, None)
            key_lines += lines
            response_docs.append(random_document(rng, f"doc{d}", tokens, breaks, mentions)[0])
        # the response's words follow the key's (same tokens), its documents in another order
        rng.shuffle(response_docs)
        newline = "\r\n" if case % 5 == 0 else "\n"
        key, response = tmp_path / f"k{case}.conll", tmp_path / f"r{case}.conll"
        key.write_text(newline.join(key_lines) + newline)
        response.write_text(newline.join(line for doc in response_docs for line in doc) + newline)
        try:
            read_pair(key, response)
        except InputError:  # a closing read before an opening of its chain on one token: bad input
            assert _conll_mention_table(key, response) is None
            continue
        assert_same(key, response)
        compared += 1
    assert compared >= 30


BAD = {
    "close without open": "#begin document (d); part 0\nd 0 0 w 1)\n#end document\n",
    "never closed": "#begin document (d); part 0\nd 0 0 w (1\nd 0 1 w -\n#end document\n",
    "garbage": "#begin document (d); part 0\nd 0 0 w (x)\n#end document\n",
    "no end": "#begin document (d); part 0\nd 0 0 w (1)\n",
    "begin inside": "#begin document (d); part 0\n#begin document (e); part 0\n#end document\n",
    "end without begin": "#end document\n",
    "token outside": "d 0 0 w (1)\n#begin document (d); part 0\nd 0 0 w (1)\n#end document\n",
    "twice": "#begin document (d); part 0\nd 0 0 w (1)\n#end document\n" * 2,
    "key duplicate": "#begin document (d); part 0\nd 0 0 w -\nd 0 1 w (1)|(2)\n#end document\n",
    "leading zero": "#begin document (d); part 0\nd 0 0 w (01)\nd 0 1 w (1)\n#end document\n",
    "vertical tab": "#begin document (d); part 0\nd 0 0 w\x0b(1)\n#end document\n",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_left_to_the_line_reader(tmp_path: Path, name: str) -> None:
    path = tmp_path / "key.conll"
    path.write_text(BAD[name])
    assert _read_conll_columns(path) is None
    # The wing's reader then says what the line reader says, or reads what it reads.
    try:
        expected = aligned_mentions(read_aligned(path, path)[1])
    except InputError as error:
        with pytest.raises(InputError) as raised:
            read_mentions(path, path)
        assert raised.value.render() == error.render()
    else:
        pd.testing.assert_frame_equal(read_mentions(path, path).table, expected.table, check_exact=True)


@pytest.mark.parametrize("name", sorted(BAD))
def test_command_says_what_the_line_reader_says(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "key.conll"
    key.write_text(BAD[name])
    args = ["coref", "--key", str(key), "--response", str(key)]
    status = main(args)
    out, err = capsys.readouterr()
    try:
        read_pair(key, key)
    except InputError as error:
        assert (status, err) == (2, f"iescore: {error.render()}\n")
    else:  # read exactly by the line reader (a leading zero, an odd space)
        assert status == 0
        assert out.startswith("iescore coref\n")


def test_response_problems_fall_back(tmp_path: Path) -> None:
    key = tmp_path / "key.conll"
    key.write_text("#begin document (d); part 0\nd 0 0 w (1)\nd 0 1 w (1)\n#end document\n")
    for text in (
        "#begin document (d); part 0\nd 0 0 w (1)\n#end document\n",  # a token missing
        "#begin document (d); part 0\nd 0 0 w (1)\n\nd 0 1 w -\n#end document\n",  # a sentence break
        "#begin document (e); part 0\nd 0 0 w (1)\nd 0 1 w -\n#end document\n",  # another document
    ):
        response = tmp_path / "rsp.conll"
        response.write_text(text)
        assert _conll_mention_table(key, response) is None
        with pytest.raises(InputError):
            read_aligned(key, response, strict=True)
        with pytest.raises(InputError):
            read_mentions(key, response, strict=True)


def test_coref_command_does_not_import_luigi(tmp_path: Path) -> None:
    # The command line imports only the command it runs: `iescore coref` needs neither Luigi nor the
    # campaign engine, whose imports took longer than reading 1,000 CoNLL documents.
    key = tmp_path / "key.conll"
    key.write_text("#begin document (d); part 0\nd 0 0 w (1)\nd 0 1 w (1)\n#end document\n")
    program = (
        "import sys; from iescore.tasks.cli.main import main; "
        f"status = main(['coref', '--key', {str(key)!r}, '--response', {str(key)!r}]); "
        "print(status, sorted(m for m in sys.modules if m.split('.')[0] in ('luigi', 'iescore')))"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    status, modules = result.stdout.splitlines()[-1].split(" ", 1)
    assert status == "0"
    assert "luigi" not in modules and "iescore.pipeline.campaign" not in modules
    assert "iescore.pipeline.coref" in modules
