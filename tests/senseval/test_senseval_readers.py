"""The readers' two ways of splitting a file give the same tables (issue 13, point 8).

A plain file (one space between fields, no blank line, no tab, no carriage return, no ``!!``) is split
in one pass over its bytes; any other file line by line with Arrow's string kernels. The second way is
the one the conformance tests check against scorer2 on odd files; here both ways read the same random
plain files (weights plain and odd, lines with one or two fields, no final newline), and every file
that is not plain is sent the second way.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from iescore.pipeline.senseval import formats
from iescore.pipeline.senseval.formats import plain_tokens, read_answers, read_key


def random_files(tmp_path: Path, seed: int, final_newline: bool) -> tuple[Path, Path]:
    rng = random.Random(seed)
    tags = ["1", "1.1", "2", "art.2", "bank%1:14:00::", "U", "ünï", "x"]
    key_lines, answer_lines = [], []
    for n in range(300):
        item, instance = rng.choice(["art", "bank", "cœur"]), f"{n}"
        key_lines.append(" ".join([item, instance, *rng.sample(tags, rng.randint(1, 3))]))
        kind = rng.random()
        if kind < 0.05:
            answer_lines.append(item)  # no instance
        elif kind < 0.1:
            answer_lines.append(f"{item} {instance}")  # no tag
        else:
            guess = [
                rng.choice([t, f"{t}/{rng.random():.2f}", f"{t}/abc", f"{t}/0.5x", f"{t}/1e-1", f"{t}/"])
                for t in rng.sample(tags, rng.randint(1, 3))
            ]
            answer_lines.append(" ".join([item, instance, *guess]))
    rng.shuffle(answer_lines)
    end = "\n" if final_newline else ""
    (tmp_path / "key").write_text("\n".join(key_lines) + end, encoding="utf-8")
    (tmp_path / "answers").write_text("\n".join(answer_lines) + end, encoding="utf-8")
    return tmp_path / "key", tmp_path / "answers"


@pytest.mark.parametrize("seed", range(4))
def test_plain_files_read_the_same_both_ways(seed: int, tmp_path: Path, monkeypatch) -> None:
    key, answers = random_files(tmp_path, seed, final_newline=seed % 2 == 0)
    assert plain_tokens(key.read_bytes()) is not None
    assert plain_tokens(answers.read_bytes(), comments=True) is not None
    fast = read_key(key), read_answers(answers)
    monkeypatch.setattr(formats, "plain_tokens", lambda data, comments=False: None)
    slow = read_key(key), read_answers(answers)
    assert fast[0].equals(slow[0])
    assert fast[1].equals(slow[1])
    assert fast[1].column("warning").null_count < fast[1].num_rows  # odd weights were warned about


@pytest.mark.parametrize(
    "text",
    [
        "w 1 1\n\nw 2 1\n",  # a blank line
        "w 1 1\n \n",  # a line of a blank
        "w  1 1\n",  # two spaces
        " w 1 1\n",  # a space first
        "w 1 1 \n",  # a space last
        "w\t1 1\n",  # a tab
        "w 1 1\r\n",  # a carriage return
        "w 1 1\x0b\n",  # a vertical tab
        "w 1 1\x01\n",  # another control character
        "",  # nothing
    ],
)
def test_files_that_are_not_plain(text: str) -> None:
    assert plain_tokens(text.encode()) is None


def test_comments_only_for_answers() -> None:
    assert plain_tokens(b"w 1 1!!c\n", comments=True) is None
    assert plain_tokens(b"w 1 1!!c\n") is not None
    count, pieces, line = plain_tokens(b"w 1 a\nv 2")
    assert (count, pieces.to_pylist()[::2], line.tolist()) == (2, ["w", "1", "a", "v", "2"], [0, 0, 0, 1, 1])
    assert pieces.to_pylist()[1::2] == [" ", " ", "\n", " ", "\n"]
