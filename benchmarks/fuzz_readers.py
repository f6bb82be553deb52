"""Mutation fuzzing of every reader through the command line (not part of the test suite).

Each target is one ``iescore`` command on sample inputs (``data/``, ``tests/data/``, ``../shared/``).
For each input file of a target, the script writes a mutated copy (truncated, a line deleted or
duplicated, bad bytes, swapped tags, huge or negative numbers, ...) into a scratch directory beside
copies of the other inputs, runs ``tasks.cli.main.main([...])`` in this process and flags:

- an uncaught exception (a traceback), or an exit status other than 0 and 2;
- exit status 1 (the CLI's "internal error", a traceback from inside a Luigi task);
- exit status 2 whose message does not start with ``iescore: `` and name a file;
- a run longer than ``--timeout`` seconds (SIGALRM; the run is abandoned).

``python benchmarks/fuzz_readers.py --rounds 20 --seed 1 [--only coref-conll] [--keep DIR]`` prints
one line per flagged run (target, file, mutation, status, the message's last line) and a tally of
outcomes per target and mutation; ``--keep`` keeps the mutated inputs of flagged runs.
"""

from __future__ import annotations

import argparse
import io
import random
import re
import shutil
import signal
import sys
import tempfile
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

from iescore.tasks.cli.main import main  # noqa: E402


@dataclass
class Target:
    """A command: ``files`` maps a role to a source file; ``argv`` builds the arguments from copies."""

    name: str
    files: dict[str, Path]
    argv: callable  # (paths: dict[str, Path], store: Path) -> list[str]
    stdin: str | None = None  # role whose file is fed on stdin
    directory: Path | None = None  # copy this whole directory (MUC configs name files beside them)


def targets() -> list[Target]:
    sports, speech = ROOT / "data" / "hub4-sports", ROOT / "data" / "hub4-speech"
    sctk, coref = SHARED / "external" / "sctk", SHARED / "external" / "coref" / "datafiles"
    glm_tests = sctk / "glm-tests"
    found = [
        Target(
            "templette",
            {"ref": sports / "ref.tpl", "hyp": sports / "hyp.tpl", "texts": sports / "texts.sgml"},
            lambda p, s: [
                "templette",
                "--ref",
                p["ref"],
                "--hyp",
                p["hyp"],
                "--texts",
                p["texts"],
                "--store",
                s,
            ],
        ),
        Target(
            "templette-notexts",
            {"ref": sports / "ref.tpl", "hyp": sports / "eager.tpl"},
            lambda p, s: ["templette", "--ref", p["ref"], "--hyp", p["hyp"], "--store", s],
        ),
        Target(
            "templette-speech",
            {
                "ref": speech / "ref.tpl",
                "hyp": speech / "asr.tpl",
                "texts": speech / "texts.sgml",
                "hyp_texts": speech / "asr.sgml",
                "glm": glm_tests / "example.glm",
            },
            lambda p, s: [
                "templette",
                "--ref",
                p["ref"],
                "--hyp",
                p["hyp"],
                "--texts",
                p["texts"],
                "--hyp-texts",
                p["hyp_texts"],
                "--glm",
                p["glm"],
                "--store",
                s,
            ],
        ),
        Target(
            "templette-stream",
            {
                "ref": speech / "ref.tpl",
                "hyp": speech / "asr-stream.tpl",
                "texts": speech / "texts.sgml",
                "hyp_texts": speech / "asr-stream.txt",
            },
            lambda p, s: [
                "templette",
                "--ref",
                p["ref"],
                "--hyp",
                p["hyp"],
                "--texts",
                p["texts"],
                "--hyp-texts",
                p["hyp_texts"],
                "--unsegmented",
                "--store",
                s,
            ],
        ),
        Target(
            "glm-text",
            {"glm": glm_tests / "example.glm", "input": glm_tests / "test.in"},
            lambda p, s: ["glm", p["glm"], "-i", "text"],
            stdin="input",
        ),
        Target(
            "glm-trn",
            {
                "glm": glm_tests / "example.glm",
                "input": glm_tests / "test.trn.in",
                "utm": glm_tests / "example.utm",
            },
            lambda p, s: ["glm", p["glm"], "--utm", p["utm"], "-i", "trn"],
            stdin="input",
        ),
        Target(
            "glm-stm",
            {"glm": glm_tests / "example.glm", "input": glm_tests / "test.stm.in"},
            lambda p, s: ["glm", p["glm"], "-i", "stm", "--dh"],
            stdin="input",
        ),
        Target(
            "align-trn",
            {"ref": sctk / "sclite-test1" / "csrnab.ref", "hyp": sctk / "sclite-test1" / "csrnab.hyp"},
            lambda p, s: [
                "align",
                "--ref",
                p["ref"],
                "--hyp",
                p["hyp"],
                "-i",
                "trn",
                "--cost",
                "levenshtein",
            ],
        ),
        Target(
            "align-sgml",
            {"ref": speech / "texts.sgml", "hyp": speech / "asr.sgml"},
            lambda p, s: ["align", "--ref", p["ref"], "--hyp", p["hyp"], "-i", "sgml"],
        ),
        Target(
            "coref-conll",
            {"key": coref / "TC-A.key", "response": coref / "TC-A-4.response"},
            lambda p, s: ["coref", "--key", p["key"], "--response", p["response"]],
        ),
        Target(
            "coref-conll-b",
            {"key": coref / "TC-B.key", "response": coref / "TC-B-1.response"},
            lambda p, s: ["coref", "--key", p["key"], "--response", p["response"]],
        ),
        Target(
            "coref-sgml",
            {
                "key": ROOT / "tests/data/muc_co/key.sgml",
                "response": ROOT / "tests/data/muc_co/response.sgml",
            },
            lambda p, s: [
                "coref",
                "-f",
                "sgml",
                "--match",
                "min",
                "--key",
                p["key"],
                "--response",
                p["response"],
            ],
        ),
        Target(
            "mat-json",
            {"ref": ROOT / "data/mat-sample/ref/a.json", "hyp": ROOT / "data/mat-sample/good/a.json"},
            lambda p, s: ["mat", "--file", p["hyp"], "--ref_file", p["ref"], "--store", s, "--details"],
        ),
        Target(
            "mat-xml",
            {"ref": ROOT / "data/mat-sample/ref/b.json", "hyp": ROOT / "data/mat-sample/rough/b.xml"},
            lambda p, s: [
                "mat",
                "--file",
                p["hyp"],
                "--ref_file",
                p["ref"],
                "--file_type",
                "xml-inline",
                "--store",
                s,
                "--tag_span_details",
                "--confusability",
            ],
        ),
        Target(
            "mat-conll",
            {"ref": ROOT / "tests/data/mat/ref.conll", "hyp": ROOT / "tests/data/mat/hyp.conll"},
            lambda p, s: [
                "mat",
                "--file",
                p["hyp"],
                "--ref_file",
                p["ref"],
                "--file_type",
                "conll",
                "--ref_file_type",
                "conll",
                "--store",
                s,
                "--details",
            ],
        ),
        Target(
            "mat-brat",
            {
                f"{side}/d.{ext}": ROOT / f"tests/data/mat/brat-{side}/d.{ext}"
                for side in ("ref", "hyp")
                for ext in ("ann", "txt")
            },
            lambda p, s: [
                "mat",
                "--file",
                p["hyp/d.ann"],
                "--ref_file",
                p["ref/d.ann"],
                "--file_type",
                "brat",
                "--ref_file_type",
                "brat",
                "--store",
                s,
            ],
        ),
        Target(
            "campaign",
            {
                "campaign": ROOT / "data" / "campaign.toml",
                "hub4-sports/ref.tpl": sports / "ref.tpl",
                "hub4-sports/texts.sgml": sports / "texts.sgml",
                "hub4-sports/perfect.tpl": sports / "perfect.tpl",
                "hub4-sports/sloppy.tpl": sports / "sloppy.tpl",
                "hub4-sports/forgetful.tpl": sports / "forgetful.tpl",
                "hub4-sports/eager.tpl": sports / "eager.tpl",
            },
            lambda p, s: ["campaign", p["campaign"], "--store", s, "--progress", "none"],
        ),
    ]
    for name in ("muc_te", "muc_st", "muc_ne", "muc_co"):
        directory = ROOT / "tests" / "data" / name
        config = next(directory.glob("*.config"))
        files = {path.name: path for path in sorted(directory.iterdir()) if path.is_file()}
        found.append(
            Target(
                name.replace("_", "-"),
                files,
                lambda p, s, config=config.name: ["muc", p[config], "--store", s],
                directory=directory,
            )
        )
    return found


# --- mutations ---------------------------------------------------------------------------------------

HUGE = "99999999999999999999999"
STRUCTURAL = list("<>/{}[]()\"'#:=|_-") + ["__", "=>", "##", ":=", "\t", "\r", "\n"]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def m_empty(data: bytes, rng: random.Random) -> bytes:
    return b""


def m_blank(data: bytes, rng: random.Random) -> bytes:
    return b"\n  \n\t\n"


def m_truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def m_delete_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def m_duplicate_line(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return b"\n".join(lines)


def m_swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def m_bad_bytes(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    junk = rng.choice(
        [b"\xff\xfe", b"\x00", b"\xc3", b"\xe2\x80", bytes(rng.randrange(256) for _ in range(4))]
    )
    return data[:at] + junk + data[at:]


def m_structural(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice(STRUCTURAL).encode() + data[at:]


def m_delete_char(data: bytes, rng: random.Random) -> bytes:
    # Prefer deleting a structural character: that is where readers go wrong.
    spots = [i for i, b in enumerate(data) if chr(b) in "<>/{}[]()\"'#:=|_-"]
    if not spots:
        return m_truncate(data, rng)
    i = rng.choice(spots)
    return data[:i] + data[i + 1 :]


def m_swap_tags(data: bytes, rng: random.Random) -> bytes:
    tags = list(re.finditer(rb"</?[A-Za-z][^<>]*>", data))
    if len(tags) < 2:
        return m_structural(data, rng)
    a, b = sorted(rng.sample(tags, 2), key=lambda m: m.start())
    return data[: a.start()] + b.group() + data[a.end() : b.start()] + a.group() + data[b.end() :]


def m_drop_tag(data: bytes, rng: random.Random) -> bytes:
    tags = list(re.finditer(rb"</?[A-Za-z][^<>]*>", data))
    if not tags:
        return m_delete_char(data, rng)
    t = rng.choice(tags)
    return data[: t.start()] + data[t.end() :]


def _number_spots(data: bytes) -> list[re.Match[bytes]]:
    return list(re.finditer(rb"\d+(?:\.\d+)?", data))


def m_huge_number(data: bytes, rng: random.Random) -> bytes:
    spots = _number_spots(data)
    if not spots:
        return m_structural(data, rng)
    n = rng.choice(spots)
    return data[: n.start()] + HUGE.encode() + data[n.end() :]


def m_negative_number(data: bytes, rng: random.Random) -> bytes:
    spots = _number_spots(data)
    if not spots:
        return m_structural(data, rng)
    n = rng.choice(spots)
    return data[: n.start()] + b"-" + n.group() + data[n.end() :]


def m_odd_number(data: bytes, rng: random.Random) -> bytes:
    spots = _number_spots(data)
    if not spots:
        return m_structural(data, rng)
    n = rng.choice(spots)
    other = rng.choice(
        [b"0", b"1e400", b"nan", b"inf", b"1.5", b"0x10", b"\xd9\xa3", b"\xef\xbc\x93", b"007"]
    )
    return data[: n.start()] + other + data[n.end() :]


def m_crlf_bom(data: bytes, rng: random.Random) -> bytes:
    return rng.choice([b"\xef\xbb\xbf", b""]) + data.replace(b"\n", rng.choice([b"\r\n", b"\r"]))


def m_long_line(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice([b"a", b"{", b"(", b"<", b"[", b"x "]) * 200_000 + data[at:]


def m_splice(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i, j = sorted(rng.randrange(len(lines) + 1) for _ in range(2))
    return b"\n".join(lines[:i] + lines[j:] + lines[i:j])


MUTATIONS = {
    name[2:]: function for name, function in globals().items() if name.startswith("m_") and callable(function)
}


# --- running -----------------------------------------------------------------------------------------


class HangError(Exception):
    pass


_fired = False


def _alarm(signum: int, frame: object) -> None:
    # Luigi or a finalizer may swallow the exception: the flag still tells the run was too slow.
    global _fired
    _fired = True
    raise HangError()


@dataclass
class Result:
    target: str
    role: str
    mutation: str
    status: str  # "0", "2", "1", "exception", "hang", "bad-message"
    detail: str
    directory: Path


def run_one(
    target: Target, role: str, mutation: str, rng: random.Random, scratch: Path, timeout: int
) -> Result:
    work = Path(tempfile.mkdtemp(dir=scratch))
    paths: dict[str, Path] = {}
    for name, source in target.files.items():
        relative = Path(name) if (target.directory or "/" in name) else Path(name) / source.name
        if name == "campaign":
            relative = Path(source.name)
        paths[name] = work / relative
        paths[name].parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, paths[name])
    data = paths[role].read_bytes()
    paths[role].write_bytes(MUTATIONS[mutation](data, rng) if data else b"")
    argv = [str(a) for a in target.argv(paths, work / "store")]
    stdin = io.TextIOWrapper(io.BytesIO(paths[target.stdin].read_bytes() if target.stdin else b""))
    out = io.TextIOWrapper(io.BytesIO(), write_through=True)
    err = io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    status, detail = "", ""
    global _fired
    _fired = False
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout * (3 if target.name == "campaign" else 1))  # four systems and a bootstrap
    try:
        sys.stdin, sys.stdout, sys.stderr = stdin, out, err
        code = main(argv)
        status = str(code)
    except SystemExit as exit_:
        status = str(exit_.code if isinstance(exit_.code, int) else 2)
    except HangError:
        status, detail = "hang", f"more than {timeout} s"
    except Exception:  # noqa: BLE001 - what we are looking for
        status, detail = "exception", traceback.format_exc()
    finally:
        signal.alarm(0)
        sys.stdin, sys.stdout, sys.stderr = saved
    message = err.getvalue()
    if _fired and status in ("0", "2"):
        status, detail = "hang", f"more than {timeout} s (finished with status {status})"
    if status == "2" and not re.match(r"iescore: \S", message) and "usage:" not in message:
        status = "bad-message"
    if not detail:
        detail = message
    return Result(target.name, role, mutation, status, detail, work)


def main_fuzz() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="runs per target, input file and mutation")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=20)
    parser.add_argument("--only", help="comma-separated target names")
    parser.add_argument("--mutations", help="comma-separated mutation names (default: all)")
    parser.add_argument("--keep", help="copy the inputs of flagged runs here")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    chosen = [t for t in targets() if not args.only or t.name in args.only.split(",")]
    mutations = args.mutations.split(",") if args.mutations else sorted(MUTATIONS)
    tally: Counter[tuple[str, str, str]] = Counter()
    flagged = 0
    scratch = Path(tempfile.mkdtemp(prefix="iescore-fuzz-"))
    try:
        for target in chosen:
            for role in target.files:
                for mutation in mutations:
                    for _ in range(args.rounds):
                        result = run_one(target, role, mutation, rng, scratch, args.timeout)
                        tally[(target.name, f"{role}:{mutation}", result.status)] += 1
                        if result.status not in ("0", "2"):
                            flagged += 1
                            last = [line for line in result.detail.strip().splitlines() if line.strip()]
                            print(
                                f"FLAG {result.status:9} {target.name:18} {role:22} {mutation:16} "
                                f"{last[-1][:160] if last else ''}",
                                flush=True,
                            )
                            if args.keep:
                                keep = Path(args.keep) / f"{flagged:04d}-{target.name}-{role}-{mutation}"
                                shutil.copytree(
                                    result.directory, keep, ignore=shutil.ignore_patterns("store")
                                )
                                (keep / "DETAIL.txt").write_text(result.detail)
                        shutil.rmtree(result.directory, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("\noutcomes (target, input:mutation, status, count)")
    for (target_name, mutation, status), count in sorted(tally.items()):
        print(f"  {target_name:18} {mutation:40} {status:11} {count}")
    print(f"\n{flagged} flagged run(s)")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main_fuzz())
