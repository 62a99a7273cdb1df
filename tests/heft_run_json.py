"""Runs heft-run --json for every scenario and checks the documented schema
(docs/heft-run.md) and the numbers the foundation promises."""
import json
import math
import subprocess
import sys

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
