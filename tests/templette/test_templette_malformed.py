"""Malformed templette inputs through ``iescore templette``: a table of variants (issue 25, point 4).

Each variant changes one of the HUB-4 sports sample's files (``data/hub4-sports``: reference and
hypothesis template sets, the text corpus) or adds bad options, and must end in exit status 2 with one
message naming the file (with its line where there is one) or the option and what was expected there,
no traceback, and nothing written (not the ``--json`` output, nothing beside the inputs). The sample
itself scores (the first test), so each failure is the variant's doing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

SPORTS = Path(__file__).resolve().parents[2] / "data" / "hub4-sports"
REF = (SPORTS / "ref.tpl").read_text(encoding="utf-8")
HYP = (SPORTS / "hyp.tpl").read_text(encoding="utf-8")
TEXTS = (SPORTS / "texts.sgml").read_text(encoding="utf-8")
FILES = {"ref": REF, "hyp": HYP, "texts": TEXTS}

EGYPT = '    WINNER: "Egypt" ##332#337#'
EVENT = "EVENT: <SPORTS_EVENT-PRI19980302.2000.2923-1>"
FIRST = "<TEMPLATE-ABC19980307.1830.1415-1> :="


def changed(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def case(name: str, role: str | None, text: str | None, options: tuple[str, ...], where: str, expected: str):
    """One variant: ``role``'s file replaced by ``text`` (None: kept), ``options`` added; the message must
    name ``where`` (a role's file, ``ROLE:LINE``, or an option) and contain ``expected``."""
    return pytest.param(role, text, options, where, expected, id=name)


CASES = [
    # --- template files ---------------------------------------------------------------------------------
    case("ref-empty", "ref", "", (), "ref", "nothing to score against"),
    case("ref-blank", "ref", "\n  \n", (), "ref", "nothing to score against"),
    case(
        "unterminated-quote",
        "ref",
        changed(REF, EGYPT, '    WINNER: "Egypt ##332#337#'),
        (),
        "ref:18",
        'closing " expected on the same line',
    ),
    case(
        "slot-without-colon",
        "ref",
        changed(REF, EGYPT, '    WINNER "Egypt" ##332#337#'),
        (),
        "ref:18",
        "slot name 'WINNER:' expected",
    ),
    case(
        "extent-reversed",
        "ref",
        changed(REF, EGYPT, '    WINNER: "Egypt" ##337#332#'),
        (),
        "ref:18",
        "extent start 337 must be less than its end 332",
    ),
    case(
        "extent-outside-document",
        "ref",
        changed(REF, EGYPT, '    WINNER: "Egypt" ##332#999999#'),
        (),
        "ref:18",
        "lies outside document PRI19980302.2000.2923",
    ),
    case(
        "extent-negative",
        "ref",
        changed(REF, EGYPT, '    WINNER: "Egypt" ##-3#337#'),
        (),
        "ref:18",
        "'##start#end#' expected",
    ),
    case(
        "extent-huge",
        "ref",
        changed(REF, EGYPT, '    WINNER: "Egypt" ##332#99999999999999999999999#'),
        (),
        "ref:18",
        "is too large: at most",
    ),
    case(
        "extent-odd-count",
        "ref",
        changed(REF, EGYPT, '    WINNER: "Egypt" ##332#337#333#'),
        (),
        "ref:18",
        "pairs of start and end expected",
    ),
    case(
        "extent-final-hash-missing",
        "ref",
        changed(REF, EGYPT, '    WINNER: "Egypt" ##332#337'),
        (),
        "ref:18",
        "'##start#end#' expected",
    ),
    case(
        "extent-alone",
        "ref",
        changed(REF, EGYPT, "    WINNER: ##332#337#"),
        (),
        "ref:18",
        "must follow a text fill on the same line",
    ),
    case(
        "minimal-outside-maximal",
        "ref",
        changed(REF, "##295#326#314#326#", "##295#326#200#326#"),
        (),
        "ref:19",
        "must lie inside the maximal extent",
    ),
    case(
        "minimal-extent-missing",
        "ref",
        changed(REF, "##295#326#314#326#", "##295#326#"),
        (),
        "ref:19",
        "needs 2 extent(s)",
    ),
    case(
        "bracket-unbalanced",
        "ref",
        changed(REF, "champion [south Africa]", "champion [south Africa"),
        (),
        "ref:19",
        "']' expected after it",
    ),
    case(
        "pointer-names-no-instance",
        "ref",
        changed(REF, EVENT, "EVENT: <SPORTS_EVENT-PRI19980302.2000.2923-9>"),
        (),
        "ref:11",
        "names no instance of this template set",
    ),
    case(
        "pointer-unterminated",
        "ref",
        changed(REF, EVENT, "EVENT: <SPORTS_EVENT-PRI19980302.2000.2923-1 x"),
        (),
        "ref:11",
        "'>' expected before whitespace",
    ),
    case(
        "pointer-cycle",
        "ref",
        changed(REF, EGYPT, "    WINNER: <TEMPLATE-PRI19980302.2000.2923-1>"),
        (),
        "ref:11",
        "form a cycle",
    ),
    case(
        "instance-twice",
        "ref",
        REF + f"\n{FIRST}\n    DOC_NR: ABC19980307.1830.1415 ##14#35#\n",
        (),
        "ref:26",
        "duplicate instance",
    ),
    case(
        "slot-twice",
        "ref",
        changed(REF, EGYPT, EGYPT + "\n" + EGYPT),
        (),
        "ref:19",
        "duplicate slot 'WINNER:'",
    ),
    case(
        "slot-before-header",
        "ref",
        '    WINNER: "x"\n' + REF,
        (),
        "ref:1",
        "instance header '<TYPE-DOCID-ONEUP> :=' expected",
    ),
    case(
        "header-without-assign",
        "ref",
        changed(REF, FIRST, FIRST[:-3]),
        (),
        "ref:1",
        "':=' after it makes it a header",
    ),
    case(
        "header-half-assign",
        "ref",
        changed(REF, FIRST, FIRST[:-3] + " ="),
        (),
        "ref:1",
        "':=' expected after instance pointer",
    ),
    case(
        "header-without-id", "ref", changed(REF, FIRST, "<TEMPLATE> :="), (), "ref:1", "three non-empty parts"
    ),
    case(
        "slash-twice",
        "ref",
        changed(REF, '           / "the African cup"', '           / / "the African cup"'),
        (),
        "ref:16",
        "fill expected between two '/'",
    ),
    case("slash-last", "ref", changed(REF, EGYPT, EGYPT + " /"), (), "ref:18", "fill expected after '/'"),
    case(
        "slash-first",
        "ref",
        changed(REF, FIRST + "\n", FIRST + '\n   / "x"\n'),
        (),
        "ref:2",
        "slot name 'NAME:' expected before the first fill",
    ),
    case(
        "document-not-in-texts",
        "ref",
        REF + "\n<TEMPLATE-XYZ1-1> :=\n    DOC_NR: XYZ1 ##14#35#\n",
        (),
        "ref:26",
        "is not in the text corpus",
    ),
    case(
        "ref-not-utf8",
        "ref",
        REF.replace("Egypt", "Eg\udcffypt", 1),
        (),
        "ref:18",
        "cannot decode byte(s) 0xff as utf-8",
    ),
    case(
        "hyp-slot-body-missing",
        "hyp",
        changed(HYP, "WINNER: ", "WINNER:\n    XWINNER: "),
        (),
        "hyp:13",
        "slot body expected after 'WINNER:'",
    ),
    case("hyp-extent-letters", "hyp", changed(HYP, "##", "##a#b#x"), (), "hyp:2", "malformed extent part"),
    case(
        "hyp-pointer-missing",
        "hyp",
        changed(HYP, EVENT, "EVENT: <SPORTS_EVENT-PRI19980302.2000.2923-7>"),
        (),
        "hyp:9",
        "names no instance",
    ),
    case("hyp-not-utf8", "hyp", "\udcff" + HYP, (), "hyp:1", "cannot decode"),
    # --- the text corpus --------------------------------------------------------------------------------
    case("texts-empty", "texts", "", (), "texts", "no documents: expected documents such as <DOC>"),
    case("texts-not-sgml", "texts", "just some words\n", (), "texts:1", "text outside any document"),
    case(
        "texts-doc-unclosed",
        "texts",
        TEXTS.replace("</DOC>", "", 1),
        (),
        "texts:1",
        "missing </DOC> for this <DOC>",
    ),
    case(
        "texts-docno-missing",
        "texts",
        changed(TEXTS, "<DOCNO> ABC19980307.1830.1415 </DOCNO>", ""),
        (),
        "texts:1",
        "expected a document id element",
    ),
    case(
        "texts-docno-empty",
        "texts",
        changed(TEXTS, "<DOCNO> ABC19980307.1830.1415 </DOCNO>", "<DOCNO>  </DOCNO>"),
        (),
        "texts:2",
        "empty <DOCNO> element",
    ),
    case(
        "texts-document-twice",
        "texts",
        TEXTS + TEXTS[: TEXTS.index("</DOC>") + 7],
        (),
        "texts:68",
        "duplicate document id",
    ),
    case(
        "texts-nested-doc",
        "texts",
        changed(TEXTS, "<BODY>", "<BODY>\n<DOC>"),
        (),
        "texts:5",
        "missing </BODY>",
    ),
    case(
        "texts-not-utf8",
        "texts",
        TEXTS.replace("Anchorage", "Anch\udcfforage", 1),
        (),
        "texts:8",
        "cannot decode",
    ),
    case(
        "texts-utf16",
        "texts",
        TEXTS.encode("utf-16").decode("latin-1"),
        (),
        "texts:1",
        "text outside any document",
    ),
    # --- options ----------------------------------------------------------------------------------------
    case("compare-unknown", None, None, ("--compare", "words"), "--compare", "invalid choice: 'words'"),
    case("cost-unknown", None, None, ("--cost", "x"), "--cost", "invalid choice: 'x'"),
    case("beta-zero", None, None, ("--beta", "0"), "--beta", "expected a finite number above 0"),
    case("beta-nan", None, None, ("--beta", "nan"), "--beta", "expected a finite number above 0"),
    case("beta-word", None, None, ("--beta", "x"), "--beta", "expected a finite number above 0"),
    # 1e200 squared overflows to infinity (F undefined); 1e-200 squared is 0 (F would be the precision).
    case("beta-square-infinite", None, None, ("--beta", "1e200"), "--beta", "whose square is finite"),
    case("beta-square-zero", None, None, ("--beta", "1e-200"), "--beta", "whose square is finite"),
    case("workers-zero", None, None, ("--workers", "0"), "--workers", "from 1 to 256 expected"),
    case("glm-missing", None, None, ("--glm", "{dir}/none.glm"), "--glm", "file not found"),
    case("glm-empty", None, None, ("--glm", "{empty}"), "empty", "the rule file is empty"),
    case("glm-malformed", None, None, ("--glm", "{glm}"), "glm:2", "expected a rule 'A => B'"),
    case("hyp-texts-missing", None, None, ("--hyp-texts", "{dir}/nope"), "--hyp-texts", "file not found"),
    case("hyp-texts-empty", None, None, ("--hyp-texts", "{empty}"), "empty", "no documents"),
    case(
        "unsegmented-without-stream",
        None,
        None,
        ("--unsegmented",),
        "hyp",
        "an unsegmented hypothesis needs its word stream",
    ),
    case(
        "unscored-nothing",
        None,
        None,
        ("--unscored", ","),
        "ref:3",
        "extent part ##start#end# expected after the COMMENT fill",
    ),
    # the file it failed on, or the option (once checked before any work): either way the codec is named
    case("encoding-unknown", None, None, ("--encoding", "utf-99"), "utf-99", "encoding"),
    case("json-is-the-reference", None, None, ("--json", "{ref}"), "--json", "both an input and an output"),
    case(
        "summary-is-the-texts",
        None,
        None,
        ("--summary", "{texts}"),
        "--summary",
        "both an input and an output",
    ),
    case("csv-is-a-file", None, None, ("--csv", "{ref}"), "--csv", "expected a directory to write into"),
    case("csv-under-a-file", None, None, ("--csv", "{ref}/sub"), "--csv", "is a file, not a directory"),
    case(
        "store-is-a-file", None, None, ("--store", "{ref}"), "--store", "expected a directory to write into"
    ),
    case("option-unknown", None, None, ("--fast",), "--fast", "unrecognized arguments"),
]


def write_files(folder: Path) -> dict[str, Path]:
    paths = {role: folder / f"{role}.txt" for role in FILES}
    for role, text in FILES.items():
        paths[role].write_text(text, encoding="utf-8")
    paths["empty"] = folder / "empty"
    paths["empty"].write_text("")
    paths["glm"] = folder / "rules.glm"
    paths["glm"].write_text(";;\nFOO BAR\n")  # no '=>'
    return paths


def test_the_sample_scores(tmp_path: Path, iescore_exit: Callable[[list[str]], tuple[int, str]]) -> None:
    paths = write_files(tmp_path)
    argv = [
        "templette",
        "--ref",
        str(paths["ref"]),
        "--hyp",
        str(paths["hyp"]),
        "--texts",
        str(paths["texts"]),
    ]
    status, err = iescore_exit([*argv, "--json", str(tmp_path / "out.json")])
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
    argv = [
        "templette",
        "--ref",
        str(paths["ref"]),
        "--hyp",
        str(paths["hyp"]),
        "--texts",
        str(paths["texts"]),
    ]
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
    assert sorted(tmp_path.rglob("*")) == before  # no --json, no store, nothing else
