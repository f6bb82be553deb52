"""Malformed MUC inputs through ``iescore muc``: a table of variants (issue 25, point 4).

Each variant changes one file of a small MUC task folder (``tests/data/muc_te``, ``muc_ne``,
``muc_co``: the configuration, the key, the response, the texts) or adds bad options, and must end in
exit status 2 with one message naming the file (with its line where there is one) or the option and
what was expected there, no traceback, and nothing written: none of the configuration's output files
(``:score_file`` and the others), nothing beside the inputs. Each folder scores as it is (the first
test), so each failure is the variant's doing.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
CONFIGS = {"muc_te": "te.config", "muc_ne": "ne.config", "muc_co": "co.config"}


def text(folder: str, name: str) -> str:
    return (DATA / folder / name).read_text(encoding="utf-8")


TE, KEY, RESPONSE = text("muc_te", "te.config"), text("muc_te", "key.tpl"), text("muc_te", "response.tpl")
NE_KEY, NE_RESPONSE = text("muc_ne", "key.sgml"), text("muc_ne", "response.sgml")
CO_KEY, CO_RESPONSE = text("muc_co", "key.sgml"), text("muc_co", "response.sgml")
PERSON = '"person person scored 0"'
TITLE = '"person title PER_TITLE scored 1 string"'
PERSON_TAG = '<ENAMEX TYPE="PERSON">'


def changed(original: str, old: str, new: str) -> str:
    assert old in original, old
    return original.replace(old, new, 1)


def case(
    name: str,
    folder: str,
    file: str | None,
    content: str | None,
    options: tuple[str, ...],
    where: str,
    expected: str,
):
    """One variant: ``file`` of ``folder`` replaced by ``content`` (None: kept), ``options`` added; the
    message must name ``where`` (a file of the folder, ``FILE:LINE``, or an option) and contain
    ``expected``."""
    return pytest.param(folder, file, content, options, where, expected, id=name)


CASES = [
    # --- the configuration ------------------------------------------------------------------------------
    case("config-empty", "muc_te", "te.config", "", (), "te.config", "missing required option :class_defs"),
    case(
        "config-no-key-file",
        "muc_te",
        "te.config",
        changed(TE, ":key_file key.tpl\n", ""),
        (),
        "te.config",
        "missing required option :key_file",
    ),
    case(
        "config-key-file-missing",
        "muc_te",
        "te.config",
        changed(TE, ":key_file key.tpl", ":key_file nokey.tpl"),
        (),
        "te.config:12",
        "file not found",
    ),
    case(
        "config-unknown-option",
        "muc_te",
        "te.config",
        TE + ":bogus_option x\n",
        (),
        "te.config:17",
        "unknown option :bogus_option",
    ),
    case(
        "config-option-twice",
        "muc_te",
        "te.config",
        TE + ":key_file key.tpl\n",
        (),
        "te.config:17",
        "given twice (first at line 12)",
    ),
    case(
        "config-task-unknown",
        "muc_te",
        "te.config",
        changed(TE, "template_element", "template_elements"),
        (),
        "te.config:1",
        "unknown scoring task 'template_elements'",
    ),
    case(
        "config-garbage-line",
        "muc_te",
        "te.config",
        "garbage here\n" + TE,
        (),
        "te.config:1",
        "expected an option (':' then its name",
    ),
    case(
        "config-class-def-short",
        "muc_te",
        "te.config",
        changed(TE, PERSON, '"person person scored"'),
        (),
        "te.config:2",
        "has 3 fields: expected 4",
    ),
    case(
        "config-class-def-twice",
        "muc_te",
        "te.config",
        changed(TE, PERSON, PERSON + " " + PERSON),
        (),
        "te.config:2",
        "repeats class person",
    ),
    case(
        "config-threshold-negative",
        "muc_te",
        "te.config",
        changed(TE, PERSON, '"person person scored -1"'),
        (),
        "te.config:2",
        "the threshold must be a number, 0 or more",
    ),
    case(
        "config-threshold-overflows",
        "muc_te",
        "te.config",
        changed(TE, PERSON, '"person person scored 1e400"'),
        (),
        "te.config:2",
        "the threshold must be a number, 0 or more",
    ),
    case(
        "config-quote-unterminated",
        "muc_te",
        "te.config",
        changed(TE, PERSON, '"person person scored 0'),
        (),
        "te.config:2",
        "expected a space after the closing",
    ),
    case(
        "config-slot-def-unknown-class",
        "muc_te",
        "te.config",
        changed(TE, TITLE, '"persona title PER_TITLE scored 1 string"'),
        (),
        "te.config:9",
        "class persona is not defined in :class_defs",
    ),
    case(
        "config-slot-def-bad-type",
        "muc_te",
        "te.config",
        changed(TE, 'scored 1 set"', 'scored 1 sets"'),
        (),
        "te.config:5",
        "fill type 'sets' is not string, set or pointer",
    ),
    case(
        "config-slot-def-bad-weight",
        "muc_te",
        "te.config",
        changed(TE, "ORG_ALIAS scored 1", "ORG_ALIAS scored x"),
        (),
        "te.config:4",
        "the weight must be a number, 0 or more",
    ),
    case(
        "config-slot-def-infinite-weight",
        "muc_te",
        "te.config",
        changed(TE, "ORG_ALIAS scored 1", "ORG_ALIAS scored inf"),
        (),
        "te.config:4",
        "the weight must be a number",
    ),
    case(
        "config-slot-def-twice",
        "muc_te",
        "te.config",
        changed(TE, TITLE, TITLE + " " + TITLE),
        (),
        "te.config:9",
        "repeats slot title of class person",
    ),
    case(
        "config-beta-negative",
        "muc_te",
        "te.config",
        TE + ":beta -1\n",
        (),
        "te.config:17",
        "the beta must be a number, 0 or more",
    ),
    case(
        "config-beta-nan",
        "muc_te",
        "te.config",
        TE + ":beta nan\n",
        (),
        "te.config:17",
        "the beta must be a number",
    ),
    case(
        "config-beta-zero",
        "muc_te",
        "te.config",
        TE + ":beta 0\n",
        (),
        "te.config:17",
        "beta must be positive",
    ),
    case(
        "config-beta-square-overflows",
        "muc_te",
        "te.config",
        TE + ":beta 1e300\n",
        (),
        "te.config:17",
        "beta 1e300 is too large",
    ),
    case(
        "config-report-summary-flag",
        "muc_te",
        "te.config",
        TE + ":use_IE_report_summary maybe\n",
        (),
        "te.config:17",
        "expects yes or no",
    ),
    case(
        "config-not-utf8",
        "muc_te",
        "te.config",
        "\udcff" + TE,
        (),
        "te.config:1",
        "cannot decode byte(s) 0xff",
    ),
    case(
        "config-output-under-a-file",
        "muc_te",
        "te.config",
        changed(TE, "out/scores.txt", "key.tpl/scores.txt"),
        (),
        "te.config:14",
        "is a file, not a directory",
    ),
    case(
        "config-output-is-the-key",
        "muc_te",
        "te.config",
        changed(TE, "out/scores.txt", "key.tpl"),
        (),
        "te.config:14",
        "also named by :key_file",
    ),
    case(
        "config-two-outputs-one-file",
        "muc_te",
        "te.config",
        changed(TE, "out/summary.txt", "out/scores.txt"),
        (),
        "te.config:15",
        "also named by :score_file",
    ),
    # --- template keys and responses --------------------------------------------------------------------
    case("key-empty", "muc_te", "key.tpl", "", (), "key.tpl", "nothing to score against"),
    case(
        "key-type-undefined",
        "muc_te",
        "key.tpl",
        KEY + '<ANIMAL-9303020074-1> :=\n    PER_NAME: "Rex"\n',
        (),
        "key.tpl:15",
        "object type ANIMAL is not defined in :class_defs",
    ),
    case(
        "key-slot-undefined",
        "muc_te",
        "key.tpl",
        changed(KEY, "PER_TITLE:", "PER_TITEL:"),
        (),
        "key.tpl:11",
        "slot 'PER_TITEL:' of PERSON is not defined in :slot_defs",
    ),
    case(
        "key-pointer-names-nothing",
        "muc_te",
        "key.tpl",
        changed(KEY, "<PERSON-9303020074-57>\n", "<PERSON-9303020074-99>\n"),
        (),
        "key.tpl:7",
        "names no instance",
    ),
    case(
        "key-quote-unterminated",
        "muc_te",
        "key.tpl",
        changed(KEY, '"Joe Roth"', '"Joe Roth'),
        (),
        "key.tpl:10",
        "unterminated quote",
    ),
    case(
        "key-instance-twice",
        "muc_te",
        "key.tpl",
        KEY + '<PERSON-9303020074-57> :=\n    PER_NAME: "X"\n',
        (),
        "key.tpl:15",
        "duplicate instance <PERSON-9303020074-57>",
    ),
    case(
        "key-status-not-optional",
        "muc_te",
        "key.tpl",
        changed(KEY, "OBJ_STATUS: OPTIONAL", "OBJ_STATUS: MAYBE"),
        (),
        "key.tpl:14",
        "'OBJ_STATUS: OPTIONAL' expected, found 'MAYBE'",
    ),
    case(
        "key-slot-without-colon",
        "muc_te",
        "key.tpl",
        changed(KEY, '    PER_TITLE: "Mr."', '    PER_TITLE "Mr."'),
        (),
        "key.tpl:11",
        "slot name 'PER_TITLE:' expected",
    ),
    case(
        "response-not-utf8",
        "muc_te",
        "response.tpl",
        "\udcff" + RESPONSE,
        (),
        "response.tpl:1",
        "cannot decode",
    ),
    case(
        "response-slot-before-header",
        "muc_te",
        "response.tpl",
        '    PER_NAME: "x"\n' + RESPONSE,
        (),
        "response.tpl:1",
        "instance header '<TYPE-DOCID-ONEUP> :=' expected",
    ),
    # --- named entity: SGML keys, responses, texts ------------------------------------------------------
    case("ne-key-empty", "muc_ne", "key.sgml", "", (), "key.sgml", "no documents"),
    case(
        "ne-tag-unclosed",
        "muc_ne",
        "key.sgml",
        changed(NE_KEY, "Consuela Washington</ENAMEX>", "Consuela Washington"),
        (),
        "key.sgml:4",
        "NE elements do not nest or overlap",
    ),
    case(
        "ne-tags-nested",
        "muc_ne",
        "key.sgml",
        changed(NE_KEY, PERSON_TAG + "Consuela", PERSON_TAG + PERSON_TAG + "Consuela</ENAMEX>"),
        (),
        "key.sgml:3",
        "<ENAMEX> inside <ENAMEX>",
    ),
    case(
        "ne-type-missing",
        "muc_ne",
        "response.sgml",
        changed(NE_RESPONSE, PERSON_TAG, "<ENAMEX>"),
        (),
        "response.sgml:3",
        "without a TYPE attribute",
    ),
    case(
        "ne-text-differs",
        "muc_ne",
        "response.sgml",
        changed(NE_RESPONSE, "Consuela", "Consuelo"),
        (),
        "response.sgml:3",
        "differs from the texts file",
    ),
    case(
        "ne-document-not-in-texts",
        "muc_ne",
        "response.sgml",
        changed(NE_RESPONSE, "930620083", "930620084"),
        (),
        "response.sgml:1",
        "is not in the texts file",
    ),
    case(
        "ne-texts-not-utf8",
        "muc_ne",
        "texts.sgml",
        "\udcff" + text("muc_ne", "texts.sgml"),
        (),
        "texts.sgml:1",
        "cannot decode",
    ),
    # --- coreference: SGML keys and responses -----------------------------------------------------------
    case(
        "co-key-empty",
        "muc_co",
        "key.sgml",
        "",
        (),
        "key.sgml",
        "a coreference key with at least one document expected",
    ),
    case(
        "co-id-twice",
        "muc_co",
        "key.sgml",
        changed(CO_KEY, 'ID="2"', 'ID="1"'),
        (),
        "key.sgml:4",
        "COREF ID '1' is used twice",
    ),
    case(
        "co-tag-unclosed",
        "muc_co",
        "key.sgml",
        changed(CO_KEY, "the expert</COREF>", "the expert"),
        (),
        "key.sgml:6",
        "overlapping tags",
    ),
    # --- options ----------------------------------------------------------------------------------------
    case("workers-zero", "muc_te", None, None, ("--workers", "0"), "--workers", "from 1 to 256 expected"),
    case("workers-word", "muc_te", None, None, ("--workers", "two"), "--workers", "two"),
    case("encoding-unknown", "muc_te", None, None, ("--encoding", "utf-99"), "utf-99", "encoding"),
    case(
        "store-is-a-file",
        "muc_te",
        None,
        None,
        ("--store", "{dir}/key.tpl"),
        "--store",
        "expected a directory to write into",
    ),
    case("option-unknown", "muc_te", None, None, ("--fast",), "--fast", "unrecognized arguments"),
    case(
        "config-missing",
        "muc_te",
        None,
        None,
        ("{dir}/none.config",),
        "none.config",
        "file not found (CONFIG)",
    ),
    case(
        "config-is-a-folder",
        "muc_te",
        None,
        None,
        ("{dir}",),
        "CONFIG",
        "is a directory; expected a file to read",
    ),
]


@pytest.mark.parametrize("folder", sorted(CONFIGS))
def test_each_folder_scores(
    tmp_path: Path, iescore_exit: Callable[[list[str]], tuple[int, str]], folder: str
) -> None:
    shutil.copytree(DATA / folder, tmp_path / folder)
    status, err = iescore_exit(["muc", str(tmp_path / folder / CONFIGS[folder])])
    assert status == 0, err


@pytest.mark.parametrize(("folder", "file", "content", "options", "where", "expected"), CASES)
def test_malformed_input_is_exit_2_naming_where_and_what(
    tmp_path: Path,
    iescore_exit: Callable[[list[str]], tuple[int, str]],
    folder: str,
    file: str | None,
    content: str | None,
    options: tuple[str, ...],
    where: str,
    expected: str,
) -> None:
    work = tmp_path / folder
    shutil.copytree(DATA / folder, work)
    if file is not None:
        # surrogate escapes stand for raw bytes that are not UTF-8
        (work / file).write_bytes(content.encode("utf-8", "surrogateescape"))
    before = sorted(tmp_path.rglob("*"))
    config = str(work / CONFIGS[folder])
    extra = [option.format(dir=work) for option in options]
    if extra and not extra[0].startswith("-"):
        config, extra = extra[0], extra[1:]  # the variant's own CONFIG
    status, err = iescore_exit(["muc", config, *extra])
    assert status == 2, err
    name, _, line = where.partition(":")
    shown = str(work / name) if (DATA / folder / name).is_file() else name
    named = f"{shown}:{line}:" if line else shown
    assert named in err, err
    assert expected in err, err
    assert sorted(tmp_path.rglob("*")) == before  # no score file, no summary, nothing else
