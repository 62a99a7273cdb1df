#!/usr/bin/env bash
# Build Heft and show it: the interactive viewer on the default scene (the
# crane) when a display works; with no display, the same viewer headless
# under Xvfb, writing a screenshot of the crane and printing the run's
# statistics (JSON on stdout); without Xvfb either, heft-run draws the crane
# in the terminal (with the viewer's solver, bpp-skyline). Extra arguments go to the program that runs (heft-viewer
# --help, heft-run --help). Build output goes to stderr so that stdout is
# only the program's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

./setup.sh --viewer

if [ -f build/CMakeCache.txt ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' build/CMakeCache.txt; then
    echo "run.sh: build/ was configured with another generator; reconfiguring with Ninja" >&2
    rm -rf -- build/CMakeCache.txt build/CMakeFiles
fi
cmake -S . -B build -G Ninja -DHEFT_VIEWER=ON >&2
cmake --build build >&2

viewer=build/demos/viewer/heft-viewer
if [ -x "$viewer" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
    status=0
    "$viewer" "$@" || status=$?
    # 3: no window could be opened on this display; anything else is the viewer's answer
    [ "$status" -eq 3 ] || exit "$status"
    echo "run.sh: the display did not give an OpenGL 3.3 window; running headless" >&2
fi
if [ -x "$viewer" ] && command -v xvfb-run >/dev/null 2>&1; then
    shot=build/heft-viewer.png
    echo "run.sh: no display; rendering under Xvfb (300 frames unless --frames is given) into $shot, statistics below (the scene's checks at the step reached; heft-run --scenario NAME runs the whole timeline)" >&2
    exec xvfb-run -a -s "-screen 0 1280x720x24" "$viewer" --hidden --frames 300 \
        --screenshot "$shot" --stats "$@"
fi
echo "run.sh: no display and no Xvfb; running the headless demo in the terminal" >&2
exec build/demos/heft-run --scenario crane --solver bpp-skyline --ascii "$@"
