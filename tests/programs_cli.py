"""The programs' command lines: every bad value is refused with exit 2 and a
message that names the option, the value and what is valid; sizes beyond a
scene's limits are refused before anything is built; --angle 0 means 0.

usage: programs_cli.py HEFT_RUN HEFT_MLCP MLCP_FILE [HEFT_BENCH]"""
import json
import subprocess
import sys

heft_run, heft_mlcp, mlcp_file = sys.argv[1:4]
heft_bench = sys.argv[4] if len(sys.argv) > 4 else None
failures = []


def refused(program, args, *words):
    """program args exits 2 and its stderr holds every word"""
    r = subprocess.run([program, *args], capture_output=True, text=True, timeout=120)
    missing = [w for w in words if w not in r.stderr]
    if r.returncode != 2 or missing:
        failures.append(f"{' '.join(args)}: exit {r.returncode}, stderr {r.stderr!r}, missing {missing}")
    else:
        print(f"ok: {' '.join(args)} -> {r.stderr.strip()}")


def run_json(*args):
    r = subprocess.run([heft_run, *args, "--json"], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        failures.append(f"{' '.join(args)}: exit {r.returncode}: {r.stderr}")
        return None
    return json.loads(r.stdout)


# sizes: the pyramid of base 65,536 (its body count overflowed an int) and
# the largest chain are refused before anything is built
refused(heft_run, ["--scenario", "stacking", "--variant", "pyramid", "--size", "65536"],
        "--size 65536", "1 to 446", "100000 bodies")
refused(heft_run, ["--scenario", "stacking", "--variant", "wall", "--size", "1"], "2 to")
refused(heft_run, ["--links", "100000"], "--links", "1 to 99999")
refused(heft_run, ["--size", "99999999999999999999"], "--size", "whole number")
# variants: unknown ones listed, a scene without variants says so
refused(heft_run, ["--scenario", "stacking", "--variant", "nope"],
        'unknown variant "nope"', "boxes, pyramid, tower, wall")
refused(heft_run, ["--scenario", "crane", "--variant", "pyramid"], "--variant", "crane", "no variants")
refused(heft_run, ["--variant", "nope"], "--variant", "hanging-chain")
refused(heft_run, ["--scenario", "crane", "--links", "3"], "--links", "crane", "no such parameter")
# numbers: the whole argument, finite, in range
refused(heft_run, ["--steps", "ten"], "--steps", '"ten"')
refused(heft_run, ["--steps", "1e3"], "--steps", '"1e3"')
refused(heft_run, ["--h", "nan"], "--h", "positive")
refused(heft_run, ["--angle", "400"], "--angle", "[-180, 180]")
refused(heft_run, ["--relaxation", "2"], "--relaxation", "(0, 2)")
refused(heft_run, ["--link-mass", "-1"], "--link-mass", "positive")
refused(heft_run, ["--ldl-ordering", "best"], "--ldl-ordering", "min-edge, min-degree, natural")
refused(heft_run, ["--at", "1,x", "--export-mlcp", "unused"], "--at", '"x"')
# options themselves
refused(heft_run, ["--bogus"], 'unknown option "--bogus"')
refused(heft_run, ["--scenario"], "--scenario needs a value")
refused(heft_run, ["--json=1"], "--json takes no value")
refused(heft_run, ["--s", "x"], 'ambiguous option "--s"')
refused(heft_run, ["stray"], 'unexpected argument "stray"')

# --angle 0 starts the pendulum hanging straight; without it, 5 degrees out
zero = run_json("--scenario", "pendulum", "--steps", "1", "--angle", "0")
default = run_json("--scenario", "pendulum", "--steps", "1")
if zero and default:
    x0, xd = zero["bodies"][0]["position"][0], default["bodies"][0]["position"][0]
    if not (abs(x0) < 1e-12 and xd > 0.05):
        failures.append(f"--angle 0: bob at x = {x0} (default {xd}), expected 0 and > 0.05")
# the --opt=value form and options after operands
if run_json("--steps=2", "--scenario=box-on-ground") is None:
    failures.append("--steps=2 --scenario=box-on-ground refused")

# heft-mlcp: the same parser, its own options
refused(heft_mlcp, ["solve", mlcp_file, "--solver", "pgs", "--preconditioner", "x"],
        "--preconditioner", "jacobi, ic0, ic0-shift, ict, ic0-imaginary")
refused(heft_mlcp, ["solve", mlcp_file, "--solver", "pgs", "--iterations", "0"], "--iterations", '"0"')
refused(heft_mlcp, ["check", mlcp_file, "--exact", "inf"], "--exact", "positive")
refused(heft_mlcp, ["info", mlcp_file, mlcp_file], "one FILE only")
refused(heft_mlcp, ["info", "--bogus", mlcp_file], 'unknown option "--bogus"')
refused(heft_mlcp, ["info", mlcp_file, "--solver", "pgs"], "--solver is not an option of info")
refused(heft_mlcp, ["solve", mlcp_file, "--solver", "pgs", "--exact", "1"], "--exact is not an option of solve")
refused(heft_mlcp, ["check", mlcp_file, "--lambda", mlcp_file, "--cold"], "solver option", "check")
# the backstop's cap and budget: words for its special values, ranges named
refused(heft_mlcp, ["solve", mlcp_file, "--solver", "bpp", "--backstop-cap", "0"],
        "--backstop-cap", "1 to 1000000", "default or off", '"0"')
refused(heft_run, ["--backstop-cap", "-1"], "--backstop-cap", "default or off", '"-1"')
refused(heft_run, ["--backstop-cap", "1000001"], "--backstop-cap", "1 to 1000000")
refused(heft_run, ["--backstop-budget", "0"], "--backstop-budget", "(0, 10000]", '"0"')
refused(heft_run, ["--backstop-budget", "nan"], "--backstop-budget", '"nan"')
refused(heft_mlcp, ["solve", mlcp_file, "--solver", "bpp", "--backstop-budget", "1e5"],
        "--backstop-budget", "(0, 10000]")
for cap in ("off", "default", "2500"):
    r = subprocess.run([heft_mlcp, "solve", mlcp_file, "--solver", "bpp-skyline", "--backstop-cap", cap,
                        "--backstop-budget", "0.5", "--json"], capture_output=True, text=True, timeout=120)
    if r.returncode not in (0, 1) or json.loads(r.stdout)["solver"] != "bpp-skyline":
        failures.append(f"heft-mlcp solve --backstop-cap {cap}: exit {r.returncode} {r.stderr}")
r = subprocess.run([heft_mlcp, "solve", "--solver", "pgs", "--iterations", "500", mlcp_file, "--json"],
                   capture_output=True, text=True, timeout=120)
if r.returncode not in (0, 1) or json.loads(r.stdout)["solver"] != "pgs":
    failures.append(f"heft-mlcp solve with options before FILE: exit {r.returncode} {r.stderr}")

if heft_bench:
    refused(heft_bench, ["--scenes", "stacking:pyramid:65536"], "--scenes", "1 to 446")
    refused(heft_bench, ["--scenes", "moon"], 'unknown scenario "moon"')
    refused(heft_bench, ["--solvers", "pgs,nope"], '"nope"', "bpp-skyline")
    refused(heft_bench, ["--reps", "x"], "--reps")
    refused(heft_bench, ["--ldl", "--steps", "3"], "--ldl takes only --reps")
    refused(heft_bench, ["--hard-family", "--budget", "0"], "--budget",
            "Lemke's pivots per LCP variable")
    refused(heft_bench, ["--hard-family", "--budget", "nan"], "--budget")
    refused(heft_bench, ["--hard-family", "--export", "d" * 5000], "--export",
            "at most 4078 characters, not 5000")

for f in failures:
    print("FAIL:", f)
print(f"programs' command lines: {len(failures)} failures")
sys.exit(1 if failures else 0)
