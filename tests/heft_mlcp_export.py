"""Exports island MLCPs from the scenes with heft-run --export-mlcp and solves
every exported file again with every registered solver through heft-mlcp
(docs/heft-run.md "--export-mlcp", docs/heft-mlcp.md).

    heft_mlcp_export.py HEFT_RUN HEFT_MLCP SCRATCH_DIR

Checks: the files are named and placed as documented, carry the structured
form with kind and block sections, the run's JSON is the same with and
without the export, pgs (with a large sweep budget) reaches an MLCP error
below 1e-6 J and every pivoting solver below 1e-10 J on every file, `check`
accepts the answer `solve --json` printed, and bad command lines and files
exit with 2."""
import json
import os
import shutil
import subprocess
import sys

run_exe, mlcp_exe, scratch = sys.argv[1:4]
failures = []

# Solvers that are direct (pivoting on a factorization): held to the format's
# "exact" bound. Every other registered solver is iterative and held to 1e-6 J
# with a large iteration budget.
DIRECT = {"bpp", "bpp-downdate", "bpp-skyline", "baraff", "auto"}
ITERATIVE_OPTIONS = ["--iterations", "300000", "--tolerance", "1e-30"]


def run(args, expect=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if expect is not None and p.returncode != expect:
        failures.append(f"{' '.join(args)}: exit {p.returncode}, expected {expect}; stderr {p.stderr.strip()!r}")
    return p


def solvers():
    out = run([mlcp_exe, "--list"]).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


shutil.rmtree(scratch, ignore_errors=True)
exports = {
    # scene: (steps, export arguments, the steps expected)
    "hanging-chain": (30, ["--at", "0,7", "--every", "20"], [0, 7, 20]),
    "box-on-ground": (40, ["--at", "25", "--at", "3", "--every", "30"], [0, 3, 25, 30]),
}
files = []
for scene, (steps, choose, expected_steps) in exports.items():
    out_dir = os.path.join(scratch, scene, "nested")  # created with its parents
    plain = json.loads(run([run_exe, "--scenario", scene, "--steps", str(steps), "--json"]).stdout)
    p = run([run_exe, "--scenario", scene, "--steps", str(steps), "--json",
             "--export-mlcp", out_dir, *choose])
    exported = json.loads(p.stdout)
    for key in ("bodies", "joints", "checks", "pass"):
        if plain[key] != exported[key]:
            failures.append(f"{scene}: '{key}' of the JSON changes when exporting")
    names = sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else []
    want = sorted(f"{scene}-s{s}-i0.mlcp" for s in expected_steps)
    if names != want:
        failures.append(f"{scene}: exported {names}, expected {want}")
    if f"exported {len(want)} island MLCPs to {out_dir}" not in p.stderr:
        failures.append(f"{scene}: stderr does not say what was exported: {p.stderr!r}")
    files += [os.path.join(out_dir, n) for n in names]

names = solvers()
if "pgs" not in names:
    failures.append(f"pgs missing from heft-mlcp --list: {names}")
results = []
for path in files:
    info = json.loads(run([mlcp_exe, "info", path, "--json"]).stdout)
    if not info["structured"] or info["kinds"] is None or info["blocks"] is None or not info["has_lambda0"]:
        failures.append(f"{path}: structured form, kind, block or lambda0 missing: {info}")
    if "box-on-ground" in path and info["rows"]["friction"] == 0:
        failures.append(f"{path}: a box on the ground has friction rows")
    for solver in names:
        extra = [] if solver in DIRECT else ITERATIVE_OPTIONS
        p = run([mlcp_exe, "solve", path, "--solver", solver, "--json", *extra], expect=None)
        if p.returncode not in (0, 1):
            failures.append(f"{solver} on {path}: exit {p.returncode}: {p.stderr.strip()}")
            continue
        doc = json.loads(p.stdout)
        for key in ("solver", "n", "converged", "iterations", "error_max", "error_sum",
                    "bound_violations", "time_ms", "lambda", "factorizations", "downdates",
                    "tight_trace", "fallback"):
            if key not in doc:
                failures.append(f"{solver} on {path}: JSON lacks {key}")
        limit = 1e-10 if solver in DIRECT else 1e-6
        err = doc["error_max"]
        results.append((os.path.basename(path), solver, err, doc["iterations"]))
        if err is None or not err < limit:
            failures.append(f"{solver} on {path}: error_max {err} J, limit {limit} J")
        if doc["bound_violations"] != 0 or len(doc["lambda"]) != doc["n"]:
            failures.append(f"{solver} on {path}: {doc['bound_violations']} bound violations, "
                            f"{len(doc['lambda'])} of {doc['n']} impulses")
        if solver in DIRECT and (p.returncode != 0 or not doc["converged"]):
            failures.append(f"{solver} on {path}: did not converge (exit {p.returncode})")
        if solver in DIRECT:
            answer = os.path.join(scratch, "answer.json")
            with open(answer, "w") as f:
                f.write(p.stdout)
            c = json.loads(run([mlcp_exe, "check", path, "--lambda", answer, "--json"]).stdout)
            if not c["exact"] or c["error_max"] != doc["error_max"]:
                failures.append(f"check of {solver}'s answer on {path}: {c}")

for name, solver, err, iterations in results:
    print(f"{name:32s} {solver:14s} error_max {err:.3e} J  {iterations} iterations")

# errors are clean: exit 2 with a message
chain = ["--scenario", "hanging-chain", "--steps", "10"]
run([run_exe, *chain, "--export-mlcp", os.path.join(scratch, "x")], expect=2)  # no steps chosen
run([run_exe, *chain, "--at", "3"], expect=2)  # no directory
run([run_exe, *chain, "--export-mlcp", os.path.join(scratch, "x"), "--at", "10"], expect=2)  # past the end
run([run_exe, *chain, "--export-mlcp", os.path.join(scratch, "x"), "--at", "1,,2"], expect=2)
blocker = os.path.join(scratch, "a-file")
open(blocker, "w").close()
p = run([run_exe, *chain, "--export-mlcp", os.path.join(blocker, "sub"), "--at", "1"], expect=2)
if "cannot create" not in p.stderr:
    failures.append(f"export into a file: {p.stderr!r}")
bad = os.path.join(scratch, "bad.mlcp")
with open(bad, "w") as f:
    f.write("MLCP 1\ndim 2\nA dense\n1 0\n0 1\nb 1 1\nlo 0 0\nhi inf nan\nfindex -1 -1\n")
p = run([mlcp_exe, "solve", bad, "--solver", "pgs"], expect=2)
if "line 8" not in p.stderr:
    failures.append(f"malformed file: the message does not name line 8: {p.stderr!r}")
run([mlcp_exe, "solve", files[0], "--solver", "no-such-solver"], expect=2)
run([mlcp_exe, "info"], expect=2)

for f in failures:
    print("FAIL:", f)
print(f"export and re-solve: {len(files)} files, {len(names)} solvers, {len(failures)} failures")
sys.exit(1 if failures else 0)
