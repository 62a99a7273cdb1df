#!/usr/bin/env bash
# Build Heft and show it: the interactive viewer when a display is available,
# otherwise the headless demo (an ASCII picture of a hanging chain and a JSON
# summary on stdout). Extra arguments go to the program that runs.
# Build output goes to stderr so that stdout is only the program's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

./setup.sh --viewer

if [ -f build/CMakeCache.txt ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' build/CMakeCache.txt; then
    echo "run.sh: build/ was configured with another generator; reconfiguring with Ninja" >&2
    rm -rf -- build/CMakeCache.txt build/CMakeFiles
fi
cmake -S . -B build -G Ninja -DHEFT_VIEWER=ON >&2
cmake --build build >&2

if [ -x build/demos/heft-viewer ] && [ -n "${DISPLAY:-}" ]; then
    exec build/demos/heft-viewer "$@"
fi
if [ -x build/demos/heft-viewer ]; then
    echo "run.sh: no DISPLAY; running the headless demo instead of the viewer" >&2
fi
exec build/demos/heft-run --scenario hanging-chain --ascii "$@"
