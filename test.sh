#!/usr/bin/env bash
# Build Heft and run every test.
#   ./test.sh              build/      RelWithDebInfo, warnings are errors
#   ./test.sh --sanitize   build-asan/ Debug with AddressSanitizer + UBSan
#   --no-viewer            without the viewer and its tests (no GL packages needed)
# The viewer's tests run under xvfb-run, so no display is needed.
# Exits non-zero if setup, configure, build or any test fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

build=build
config=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
viewer=ON
for arg in "$@"; do
    case "$arg" in
        --sanitize)
            build="build-asan"
            config=(-DCMAKE_BUILD_TYPE=Debug -DHEFT_SANITIZE=ON)
            ;;
        --no-viewer)
            viewer=OFF
            ;;
        -h | --help)
            echo "usage: $0 [--sanitize] [--no-viewer]"
            exit 0
            ;;
        *)
            echo "test.sh: unknown option $arg" >&2
            exit 2
            ;;
    esac
done

if [ "$viewer" = ON ]; then
    ./setup.sh --viewer
else
    ./setup.sh
fi

# A build directory made earlier with another generator cannot be reused with
# -G Ninja; drop its cache (not the directory) and configure afresh.
if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$build/CMakeCache.txt"; then
    echo "test.sh: $build/ was configured with another generator; reconfiguring with Ninja" >&2
    rm -rf -- "$build/CMakeCache.txt" "$build/CMakeFiles"
fi

cmake -S . -B "$build" -G Ninja -DHEFT_WERROR=ON -DHEFT_VIEWER="$viewer" "${config[@]}"
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j2
