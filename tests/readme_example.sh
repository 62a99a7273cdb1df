#!/usr/bin/env bash
# Compiles and runs the C example of README.md against the build tree, so the
# README's embedding example cannot rot.
#   readme_example.sh SOURCE_DIR BUILD_DIR SCRATCH_DIR [extra compiler flags...]
set -euo pipefail
src=$1 build=$2 scratch=$3
shift 3
mkdir -p "$scratch/include/heft"
cp "$src/engine/heft.h" "$src/engine/heft_math.h" "$src/solver/mlcp.h" "$scratch/include/heft/"
awk '/^```c$/ {inside = 1; next} /^```$/ && inside {exit} inside {print}' "$src/README.md" > "$scratch/example.c"
if [ ! -s "$scratch/example.c" ]; then
    echo "no \`\`\`c block in README.md" >&2
    exit 1
fi
heft_lib=$(find "$build" -maxdepth 1 -name 'libheft.*' | head -n 1)
solver_lib=$(find "$build/solver" -maxdepth 1 -name 'libheft_solver.*' | head -n 1)
cc -std=c11 -Wall -Wextra -Wpedantic -Werror "$@" -I"$scratch/include" "$scratch/example.c" \
    "$heft_lib" "$solver_lib" -lm -Wl,-rpath,"$build:$build/solver" -o "$scratch/example"
out=$("$scratch/example")
echo "$out"
# the ball swings on its 1 m joint: the gap stays under a millimetre and the MLCP is solved
echo "$out" | grep -Eq 'gap [0-9.]+e-0[4-9] m' || { echo "joint gap not under 1 mm" >&2; exit 1; }
