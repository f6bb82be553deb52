"""Malformed SENSEVAL inputs through ``iescore senseval``: a table of variants (issue 25, point 4).

Each variant replaces one of a small, valid set of files (key, answers, sense map, filter lists) or
adds bad options, and must end in exit status 2, one message on stderr naming the file (with its line
where there is one) or the option and what was expected there, no traceback, and nothing written: not
the ``--json`` output, nothing beside the inputs. The valid set scores (the first test),
so each failure is the variant's doing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

KEY = "art 1 1\nart 2 2\nbank 1 1.1 2\n"
ANSWERS = "art 1 1\nart 2 1/0.6 2/0.4\nbank 1 1.1\n"
SENSE_MAP = "1\n2\n1.1 2 1\n1.2 2 1\n"
INSTANCES = "art 1\nbank 1\n"
SENSES = "1 2\n"
FILES = {"key": KEY, "answers": ANSWERS, "map": SENSE_MAP, "instances": INSTANCES, "senses": SENSES}


def case(name: str, role: str | None, text: str | None, options: tuple[str, ...], where: str, expected: str):
    """One variant: ``role``'s file replaced by ``text`` (None: kept), ``options`` added; the message must
    name ``where`` (a role's file, ``ROLE:LINE``, or an option) and contain ``expected``."""
    return pytest.param(role, text, options, where, expected, id=name)


CASES = [
    # --- the key -------------------------------------------------------------------------------------
    case("key-empty", "key", "", (), "key", "the key is empty: 'item instance tag [tag ...]' lines expected"),
    case("key-blank-only", "key", "  \n\t\n\n", (), "key", "only blank lines: 'item instance tag"),
    case("key-no-tag", "key", "art 1 1\nart 2\n", (), "key:2", "'item instance tag [tag ...]' expected"),
    case("key-item-only", "key", "art\n", (), "key:1", "'item instance tag [tag ...]' expected"),
    case(
        "key-instance-twice",
        "key",
        "art 1 1\nart 1 2\n",
        (),
        "key:2",
        "instance given again (first on line 1)",
    ),
    case("key-tag-twice", "key", "art 1 1.1 1.1\n", (), "key:1", "tag '1.1' given twice on this line"),
    case("key-not-utf8", "key", "art 1 \udcff\n", (), "key:1", "bytes that are not utf-8"),
    case(
        "key-latin1-later-line", "key", "art 1 1\nart 2 caf\udce9\n", (), "key:2", "bytes that are not utf-8"
    ),
    # --- the answers ----------------------------------------------------------------------------------
    case("weight-negative", "answers", "art 1 1/-1\n", (), "answers:1", "weight '-1' of tag '1' is negative"),
    case(
        "weight-negative-partner",
        "answers",
        "art 1 1/1 2/-0.8\n",
        (),
        "answers:1",
        "is negative: a number from 0 up",
    ),
    case("weight-negative-odd", "answers", "art 1 1\nart 2 1/-5x\n", (), "answers:2", "is negative"),
    case(
        "weight-overflow",
        "answers",
        "art 1 1/1e400\n",
        (),
        "answers:1",
        "weight '1e400' of tag '1' is too large",
    ),
    case("weight-beyond-float", "answers", "art 1 1/1e39\n", (), "answers:1", "a number up to 3.402823e+38"),
    case("weight-overflow-odd", "answers", "art 1 1/9e99x\n", (), "answers:1", "is too large"),
    case(
        "weights-sum-overflow", "answers", "art 1 1/3e38 2/3e38\n", (), "answers:1", "sum beyond 3.402823e+38"
    ),
    case("weight-without-tag", "answers", "art 1 /0.5\n", (), "answers:1", "no tag before its '/'"),
    case(
        "weight-without-tag-spaced",
        "answers",
        "art  1\tx\nart 2 2 /1\n",
        (),
        "answers:2",
        "'tag[/weight]' expected",
    ),
    case("answers-not-utf8", "answers", "art 1 \udcff\n", (), "answers:1", "bytes that are not utf-8"),
    case(
        "answers-strict-tab", "answers", "art\t1 1\n", ("--strict",), "answers:1", "a tab in 'item instance'"
    ),
    case(
        "answers-strict-odd-weight", "answers", "art 1 1/abc\n", ("--strict",), "answers:1", "is not a number"
    ),
    case(
        "answers-strict-blank", "answers", "art 1 1\n\n", ("--strict",), "answers:2", "no answer on this line"
    ),
    # --- the sense map --------------------------------------------------------------------------------
    case(
        "map-no-parent",
        "map",
        "1.1 2\n",
        ("-g", "mixed"),
        "map:1",
        "a branching factor then a sense, in pairs",
    ),
    case(
        "map-factor-zero",
        "map",
        "1.1 0 1\n",
        ("-g", "mixed"),
        "map:1",
        "branching factor '0' of '1.1' is not a positive integer",
    ),
    case("map-factor-negative", "map", "1.1 -2 1\n", ("-g", "mixed"), "map:1", "is not a positive integer"),
    case(
        "map-factor-fraction", "map", "1\n1.1 1.5 1\n", ("-g", "mixed"), "map:2", "is not a positive integer"
    ),
    case(
        "map-factor-huge",
        "map",
        "1.1 99999999999999999999 1\n",
        ("-g", "mixed"),
        "map:1",
        "is too large: a positive integer up to",
    ),
    case(
        "map-sense-twice",
        "map",
        "1.1 2 1\n1.1 3 1\n",
        ("-g", "coarse"),
        "map:2",
        "sense given a line again (first on line 1)",
    ),
    case("map-own-parent", "map", "1 2 1\n", ("-g", "mixed"), "map:1", "comes back to '1': a cycle"),
    case("map-cycle", "map", "a 2 b\nb 2 a\n", ("-g", "mixed"), "map:1", "a cycle"),
    case(
        "map-factor-differs",
        "map",
        "1\n1.1 2 1\n1.2 3 1\n",
        ("-g", "mixed"),
        "map:3",
        "branching factor 3 of '1' differs from the 2 given on line 2",
    ),
    case(
        "map-more-subsenses-than-factor",
        "map",
        "1\n1.1 2 1\n1.2 2 1\n1.3 2 1\n",
        ("-g", "mixed"),
        "map:4",
        "'1.3' is subsense 3 of '1', whose branching factor is 2",
    ),
    # --- the filters ----------------------------------------------------------------------------------
    case(
        "instances-empty",
        "instances",
        "\n",
        ("--instances", "{instances}"),
        "instances",
        "no instance listed: 'item instance' lines expected",
    ),
    case(
        "instances-three-fields",
        "instances",
        "art 1\nart 2 x\n",
        ("--instances", "{instances}"),
        "instances:2",
        "'item instance' expected",
    ),
    case("senses-empty", "senses", "", ("--senses", "{senses}"), "senses", "no sense listed"),
    # --- options --------------------------------------------------------------------------------------
    case("granularity-unknown", None, None, ("-g", "medium"), "-g", "invalid choice: 'medium'"),
    case("policy-unknown", None, None, ("--policy", "both"), "--policy", "invalid choice: 'both'"),
    case(
        "unknown-senses-unknown",
        None,
        None,
        ("--unknown-senses", "drop"),
        "--unknown-senses",
        "invalid choice",
    ),
    case("workers-zero", None, None, ("--workers", "0"), "--workers", "0"),
    case("workers-word", None, None, ("--workers", "two"), "--workers", "two"),
    case("option-unknown", None, None, ("--fast",), "--fast", "unrecognized arguments"),
    case(
        "instances-missing", None, None, ("--instances", "{dir}/no-such-list"), "no-such-list", "--instances"
    ),
    case("senses-a-directory", None, None, ("--senses", "{dir}"), "--senses", "directory"),
    case("json-in-missing-folder-under-file", None, None, ("--json", "{key}/out.json"), "--json", "out.json"),
    case("json-is-the-key", None, None, ("--json", "{key}"), "--json", "both an input and an output"),
    # the file it failed on, or the option (once checked before any work): either way the codec is named
    case("encoding-unknown", None, None, ("--encoding", "utf-99"), "utf-99", "encoding"),
]


def write_files(folder: Path) -> dict[str, Path]:
    paths = {role: folder / f"{role}.txt" for role in FILES}
    for role, text in FILES.items():
        paths[role].write_text(text, encoding="utf-8")
    return paths


def test_the_valid_files_score(tmp_path: Path, iescore_exit: Callable[[list[str]], tuple[int, str]]) -> None:
    paths = write_files(tmp_path)
    argv = ["senseval", str(paths["answers"]), str(paths["key"]), str(paths["map"]), "-g", "mixed"]
    status, err = iescore_exit([*argv, "--json", str(tmp_path / "out.json"), "--strict"])
    assert status == 0, err
    assert (tmp_path / "out.json").exists()


@pytest.mark.parametrize(("role", "text", "options", "where", "expected"), CASES)
def test_malformed_input_is_exit_2_naming_where_and_what(
    tmp_path: Path,
    iescore_exit: Callable[[list[str]], tuple[int, str]],
    role: str | None,
    text: str | None,
    options: tuple[str, ...],
    where: str,
    expected: str,
) -> None:
    paths = write_files(tmp_path)
    if role is not None:
        # surrogate escapes stand for raw bytes that are not UTF-8
        paths[role].write_bytes(text.encode("utf-8", "surrogateescape"))
    before = sorted(tmp_path.rglob("*"))
    fill = {name: str(path) for name, path in paths.items()} | {"dir": str(tmp_path)}
    argv = ["senseval", str(paths["answers"]), str(paths["key"]), str(paths["map"])]
    argv += [option.format(**fill) for option in options]
    if "--json" not in options:
        argv += ["--json", str(tmp_path / "scores.json")]
    status, err = iescore_exit(argv)
    assert status == 2, err
    name, _, line = where.partition(":")
    shown = str(paths[name]) if name in paths else name
    named = f"{shown}:{line}:" if line else shown
    assert named in err, err
    assert expected in err, err
    assert sorted(tmp_path.rglob("*")) == before  # no --json, nothing else
