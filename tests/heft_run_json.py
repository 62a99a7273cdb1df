"""Runs heft-run --json for every scenario and checks the documented schema
(docs/heft-run.md) and the numbers the foundation promises."""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

exe = sys.argv[1]
failures = []


def run(*args):
    out = subprocess.run([exe, *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def need(obj, keys, where):
    for k in keys:
        if k not in obj:
            failures.append(f"{where}: missing key {k}")


for scene in ["pendulum", "hanging-chain", "box-on-ground"]:
    doc = run("--scenario", scene, "--steps", "60")
    need(doc, ["scenario", "solver", "steps", "h", "bodies", "joints", "stats", "checks", "pass"], scene)
    need(doc["stats"], ["solve_ms_mean", "solve_ms_max", "iterations_mean", "mlcp_error_max",
                        "islands_max", "rows_max"], scene + ".stats")
    if doc["scenario"] != scene or doc["solver"] != "pgs" or doc["steps"] != 60:
        failures.append(f"{scene}: header fields wrong: {doc['scenario']} {doc['solver']} {doc['steps']}")
    for b in doc["bodies"]:
        need(b, ["name", "position", "quaternion", "velocity", "angular_velocity"], scene + ".body")
        q = b["quaternion"]
        if abs(math.sqrt(sum(x * x for x in q)) - 1.0) > 1e-9:
            failures.append(f"{scene}: body {b['name']} quaternion not unit: {q}")
    for j in doc["joints"]:
        need(j, ["name", "max_gap"], scene + ".joint")
    for c in doc["checks"]:
        need(c, ["name", "pass", "value", "limit"], scene + ".check")

# The solvers' counts (heft_step_stats summed over the run) for every scene,
# under a pivoting solver: present, integers, and the answers kept adding up
# to the island solves.
COUNTS = ["solves", "pivot_steps", "restarts", "pgs_sweeps", "rescue_sweeps", "frozen_rounds",
          "backstops", "backstop_pivots", "newton_steps", "factorizations", "downdates", "updates",
          "body_factorizations",
          "answers_solver", "answers_backstop", "answers_pgs", "answers_warm_start", "answers_zero",
          "inner_iterations"]
ANSWERS = ["answers_solver", "answers_backstop", "answers_pgs", "answers_warm_start", "answers_zero"]
listing = subprocess.run([exe, "--list"], check=True, capture_output=True, text=True).stdout
scenes = []
section = None
for line in listing.splitlines():
    if line.endswith(":"):
        section = line[:-1]
    elif section == "scenarios" and line.strip():
        scenes.append(line.split()[0])
if len(scenes) < 8:
    failures.append(f"--list gave {len(scenes)} scenarios: {scenes}")
# the stacks small: the default pyramid (base 20) takes seconds a step
runs = [[s] for s in scenes if s != "stacking"]
runs += [["stacking", "--variant", "boxes"], ["stacking", "--variant", "pyramid", "--size", "5"],
         ["stacking", "--variant", "tower", "--size", "5"],
         ["stacking", "--variant", "wall", "--size", "3"]]
for scene in runs:
    where = " ".join(scene)
    doc = run("--scenario", *scene, "--solver", "bpp-skyline", "--steps", "10")
    st = doc["stats"]
    need(st, COUNTS + ["fallbacks", "not_converged"], where + ".stats")
    if any(not isinstance(st.get(k), int) or st.get(k) < 0 for k in COUNTS):
        failures.append(f"{where}: counts not non-negative integers: {[st.get(k) for k in COUNTS]}")
        continue
    if sum(st[k] for k in ANSWERS) != st["solves"]:
        failures.append(f"{where}: answers {[st[k] for k in ANSWERS]} do not add up to {st['solves']} solves")
    # a solve whose warm start already answers takes no pivoting step, but the
    # first step's solves have none
    if st["solves"] > 0 and (st["pivot_steps"] == 0 or st["factorizations"] == 0):
        failures.append(f"{where}: {st['solves']} solves, {st['pivot_steps']} pivoting steps, "
                        f"{st['factorizations']} factorizations under bpp-skyline")
    if st["answers_pgs"] < st["fallbacks"]:
        failures.append(f"{where}: {st['fallbacks']} engine fallbacks but {st['answers_pgs']} PGS answers")

# The CSV: the documented columns, one line a step, summing to the JSON's counts.
with tempfile.TemporaryDirectory() as tmp:
    csv_path = os.path.join(tmp, "run.csv")
    doc = run("--scenario", "winch", "--solver", "bpp-skyline", "--steps", "40", "--csv", csv_path)
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    columns = ["step", "time", "islands", "rows", "contacts", "iterations_max", "mlcp_error_max",
               "solve_ms", "step_ms", "fallbacks", "joint_gap_max", "not_converged"] + COUNTS
    if len(rows) != 40:
        failures.append(f"csv: {len(rows)} lines, expected 40")
    elif any(c not in rows[0] for c in columns):
        failures.append(f"csv: columns {list(rows[0].keys())}, expected {columns}")
    else:
        for k in COUNTS + ["fallbacks", "not_converged"]:
            total = sum(int(r[k]) for r in rows)
            if total != doc["stats"][k]:
                failures.append(f"csv: {k} sums to {total}, the JSON says {doc['stats'][k]}")

chain = run("--scenario", "hanging-chain", "--load-mass", "10", "--iterations", "100", "--steps", "300")
if len(chain["bodies"]) != 21 or len(chain["joints"]) != 21:
    failures.append(f"hanging-chain: {len(chain['bodies'])} bodies, {len(chain['joints'])} joints, expected 21 and 21")
gap = max(j["max_gap"] for j in chain["joints"])
if not gap < 5e-3:
    failures.append(f"hanging-chain 10 kg: max gap {gap} m, expected < 5e-3")
if chain["stats"]["rows_max"] != 63 or chain["stats"]["islands_max"] != 1:
    failures.append(f"hanging-chain: rows_max {chain['stats']['rows_max']}, islands_max {chain['stats']['islands_max']}")

bad = subprocess.run([exe, "--solver", "no-such-solver"], capture_output=True, text=True)
if bad.returncode != 2 or "unknown solver" not in bad.stderr:
    failures.append(f"unknown solver: exit {bad.returncode}, stderr {bad.stderr!r}")
bad = subprocess.run([exe, "--steps", "ten"], capture_output=True, text=True)
if bad.returncode != 2:
    failures.append(f"bad --steps value: exit {bad.returncode}")

for f in failures:
    print("FAIL:", f)
print(f"heft-run JSON: {len(failures)} failures")
sys.exit(1 if failures else 0)
