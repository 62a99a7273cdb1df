#!/usr/bin/env bash
# Compiles and runs the C example of README.md against the build tree, so the
# README's embedding example cannot rot.
#   readme_example.sh SOURCE_DIR BUILD_DIR SCRATCH_DIR [extra compiler flags...]
set -euo pipefail
src=$1 build=$2 scratch=$3
shift 3
mkdir -p "$scratch"
awk '/^```c$/ {inside = 1; next} /^```$/ && inside {exit} inside {print}' "$src/README.md" > "$scratch/example.c"
if [ ! -s "$scratch/example.c" ]; then
    echo "no \`\`\`c block in README.md" >&2
    exit 1
fi
# the public headers only, and the libraries an application links
heft_lib=$(find "$build" -maxdepth 1 -name 'libheft.so' -o -maxdepth 1 -name 'libheft.a' | head -n 1)
solver_lib=$(find "$build" -maxdepth 1 -name 'libheft_solver.so' -o -maxdepth 1 -name 'libheft_solver.a' | head -n 1)
cc -std=c11 -Wall -Wextra -Wpedantic -Werror "$@" -I"$src/include" "$scratch/example.c" \
    "$heft_lib" "$solver_lib" -lm -Wl,-rpath,"$build" -o "$scratch/example"
out=$("$scratch/example")
echo "$out"
# the ball swings on its 1 m joint: the gap stays under a millimetre and the MLCP is solved
echo "$out" | grep -Eq 'gap [0-9.]+e-0[4-9] m' || { echo "joint gap not under 1 mm" >&2; exit 1; }
