#!/bin/sh
# Re-run every case of cases.json with the given sclite and sc_stats (see README.md).
#   regenerate.sh SCLITE SC_STATS          rewrite cases/ and the recorded exit status and outputs
#                                          (files that differ only in their creation date are left as they are)
#   regenerate.sh --check SCLITE SC_STATS  run in a temporary copy and compare with what is committed
#   regenerate.sh --sctk-base TESTDATA     compare the committed cases that come from SCTK's own test suite
#                                          with its expected outputs (TESTDATA/base, TESTDATA/base_sc_stats)
# Not run by the test suite.
set -e
here=$(cd "$(dirname "$0")" && pwd)
exec python3 - "$here" "$@" <<'PY'
import json, os, re, shutil, subprocess, sys, tempfile

here, args = sys.argv[1], sys.argv[2:]
manifest_path = os.path.join(here, "cases.json")
manifest = json.load(open(manifest_path, encoding="utf-8"))
volatile = [re.compile(v["pattern"].encode()) for v in manifest["volatile"]]


def normalised(path: str) -> list:
    """The file's lines with the volatile parts (dates) blanked."""
    data = open(path, "rb").read()
    for rx in volatile:
        data = rx.sub(b"<VOLATILE>", data)
    return data.split(b"\n")


if args[:1] == ["--sctk-base"] and len(args) == 2:
    # SCTK's scripts strip creation_date="..." from sgml and write stdout/stderr to out/TEST.out, .err
    failures = 0
    for case in manifest["cases"]:
        if not case["sctk_base"]:
            continue
        base_dir = os.path.join(args[1], "base" if case["program"] == "sclite" else "base_sc_stats")
        ours = {n: n.replace(case["name"], case["sctk_base"], 1) for n in case["outputs"]}
        ours["stdout.txt"], ours["stderr.txt"] = case["sctk_base"] + ".out", case["sctk_base"] + ".err"
        theirs = {n for n in os.listdir(base_dir) if n.split(".")[0] == case["sctk_base"] and not n.endswith(".com")}
        problems = [f"{n} only in SCTK's base" for n in sorted(theirs - set(ours.values()))]
        for mine, base in sorted(ours.items()):
            if base not in theirs:
                problems.append(f"{mine} not in SCTK's base")
                continue
            a = open(os.path.join(here, "cases", case["name"], mine), "rb").read()
            b = open(os.path.join(base_dir, base), "rb").read()
            a = a.replace(f"../cases/{case['name']}/{case['name']}".encode(), f"out/{case['sctk_base']}".encode())
            a, b = (re.sub(rb'creation_date="[^"]*"|Creation date: "[^"]*"\n', b"", x) for x in (a, b))
            if a != b:
                problems.append(f"{mine} differs from {base}")
        failures += bool(problems)
        print(case["name"], "; ".join(problems) or "same as SCTK's base")
    sys.exit(1 if failures else 0)
check = args[:1] == ["--check"]
if check:
    args = args[1:]
if len(args) != 2:
    sys.exit("usage: regenerate.sh [--check] SCLITE SC_STATS | --sctk-base TESTDATA")
programs = {"sclite": os.path.abspath(args[0]), "sc_stats": os.path.abspath(args[1])}
# Every run happens in a temporary copy of inputs/; a committed file whose only change is a date is kept.
root = tempfile.mkdtemp(prefix="sctk-fixtures-")
shutil.copytree(os.path.join(here, "inputs"), os.path.join(root, "inputs"))
failures = 0
for case in manifest["cases"]:
    out_dir = os.path.join(root, "cases", case["name"])
    os.makedirs(out_dir)
    cwd = os.path.join(root, case["cwd"])
    stdin = b"".join(open(os.path.join(cwd, f), "rb").read() for f in case["stdin"] or [])
    run = subprocess.run([programs[case["program"]]] + case["argv"], cwd=cwd, input=stdin,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    with open(os.path.join(out_dir, "stdout.txt"), "wb") as f:
        f.write(run.stdout)
    with open(os.path.join(out_dir, "stderr.txt"), "wb") as f:
        f.write(run.stderr)
    outputs = sorted(os.listdir(out_dir))
    committed = os.path.join(here, "cases", case["name"])
    if not check:
        os.makedirs(committed, exist_ok=True)
        for name in set(os.listdir(committed)) - set(outputs):
            os.remove(os.path.join(committed, name))
        for name in outputs:
            old = os.path.join(committed, name)
            if not os.path.exists(old) or normalised(old) != normalised(os.path.join(out_dir, name)):
                shutil.copyfile(os.path.join(out_dir, name), old)
        case["exit_status"], case["outputs"] = run.returncode, outputs
        continue
    problems = []
    if run.returncode != case["exit_status"]:
        problems.append(f"exit status {run.returncode}, recorded {case['exit_status']}")
    if outputs != case["outputs"]:
        problems.append(f"outputs {outputs}, recorded {case['outputs']}")
    for name in sorted(set(outputs) & set(case["outputs"])):
        if normalised(os.path.join(out_dir, name)) != normalised(os.path.join(committed, name)):
            problems.append(f"{name} differs")
    failures += bool(problems)
    print(case["name"], "; ".join(problems) or "same")
shutil.rmtree(root)
if check:
    sys.exit(1 if failures else 0)
with open(manifest_path, "w", encoding="utf-8") as f:
    json.dump(manifest, f, indent=1, ensure_ascii=False)
    f.write("\n")
PY
