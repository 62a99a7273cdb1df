#!/usr/bin/env bash
# Runs one libFuzzer target for a while: tests/fuzz/run.sh TARGET SECONDS
#   TARGET   mlcp_reader | mlcp_solve | scene_loader | urdf_import (tests/fuzz/fuzz_TARGET.c)
#   SECONDS  total time; CI runs 30 per target, a longer audit 1800
# Builds build-fuzz/ with clang and -DHEFT_FUZZ=ON when needed (override the
# directory with HEFT_FUZZ_BUILD). The committed seed corpus is copied into a
# scratch corpus there, so a run never writes into the source tree. A finding
# (crash, sanitizer report, timeout, leak) stops the run with a non-zero exit
# and is written to build-fuzz/findings/TARGET/; keep it as a regression by
# copying it into tests/fuzz/regressions/TARGET/ once fixed (the ctest entry
# fuzz_replay_TARGET replays that folder in every build).
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 TARGET SECONDS (TARGET: mlcp_reader, mlcp_solve, scene_loader or urdf_import)" >&2
    exit 2
fi
target=$1
seconds=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [ ! -f "$here/fuzz_$target.c" ]; then
    echo "run.sh: unknown target '$target' (no tests/fuzz/fuzz_$target.c)" >&2
    exit 2
fi
case "$seconds" in
'' | *[!0-9]*)
    echo "run.sh: SECONDS must be a positive integer, not '$seconds'" >&2
    exit 2
    ;;
esac
build="${HEFT_FUZZ_BUILD:-$root/build-fuzz}"
if [ ! -f "$build/CMakeCache.txt" ]; then
    CC=clang cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DHEFT_FUZZ=ON -DHEFT_TESTS=ON >/dev/null
fi
cmake --build "$build" --target "fuzz_$target" >/dev/null
corpus="$build/fuzz-corpus/$target"
findings="$build/findings/$target"
mkdir -p "$corpus" "$findings"
cp -n "$here/corpus/$target"/* "$corpus/" 2>/dev/null || true
dict="$here/mlcp.dict"
if [ -f "$here/$target.dict" ]; then
    dict="$here/$target.dict"
fi
# one input may take at most 10 s (a hang is a finding), 2 GiB of memory
status=0
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/tests/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -dict="$dict" -artifact_prefix="$findings/" -print_final_stats=1 \
    "$corpus" "$here/regressions/$target" || status=$?
if [ "$status" -ne 0 ]; then
    echo "run.sh: fuzz_$target found a problem; the input is in $findings/" >&2
    echo "run.sh: once fixed, keep it: cp $findings/<file> $here/regressions/$target/" >&2
fi
exit "$status"
