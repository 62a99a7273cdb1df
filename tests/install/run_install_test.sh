#!/usr/bin/env bash
# Install Heft into a scratch prefix and build an outside program against it,
# once through the CMake package (find_package(heft), heft::heft) and once
# through pkg-config (heft.pc). Registered with ctest as
# install_consumer_builds_against_package.
#
# usage: run_install_test.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
# Exits 77 (ctest SKIP_RETURN_CODE) when BUILD_DIR is a sanitizer build: the
# installed libraries would need the sanitizer runtime in the consumer too.
set -euo pipefail

if [ $# -ne 3 ]; then
    echo "usage: $0 BUILD_DIR SOURCE_DIR SCRATCH_DIR" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
mkdir -p "$3"
scratch=$(cd "$3" && pwd)

cache="$build/CMakeCache.txt"
if [ ! -f "$cache" ]; then
    echo "error: $build is not a configured CMake build directory" >&2
    exit 1
fi
sanitize=$(sed -n 's/^HEFT_SANITIZE:[A-Z]*=//p' "$cache" | tr '[:lower:]' '[:upper:]')
case "$sanitize" in
    ON | 1 | TRUE | YES | Y)
        echo "skipped: HEFT_SANITIZE is on; the consumer would need the sanitizer runtime"
        exit 77
        ;;
esac

prefix="$scratch/prefix"
consumer_build="$scratch/consumer-build"
pc_exe="$scratch/heft_consumer_pkgconfig"
# Start from nothing so that a stale install cannot make the test pass.
rm -rf -- "$prefix" "$consumer_build" "$pc_exe"

echo "== cmake --install into $prefix"
cmake --install "$build" --prefix "$prefix"

for header in base.h heft.h heft_math.h mlcp.h solver_options.h; do
    if [ ! -f "$prefix/include/heft/$header" ]; then
        echo "error: $prefix/include/heft/$header was not installed" >&2
        exit 1
    fi
done
# include/heft/ holds the public headers and nothing else
extra=$(find "$prefix/include" -type f ! -path "$prefix/include/heft/*" -o -type f -path "$prefix/include/heft/*/*")
installed=$(find "$prefix/include/heft" -maxdepth 1 -type f | wc -l)
if [ -n "$extra" ] || [ "$installed" -ne 5 ]; then
    echo "error: the installed include/ holds more than the five public headers:" >&2
    find "$prefix/include" -type f >&2
    exit 1
fi

echo "== the shared libraries export heft_ names only"
shared=$(find "$prefix" -name 'libheft*.so' | sort)
if [ -n "$shared" ]; then
    for lib in $shared; do
        names=$(nm -D --defined-only "$lib" | awk 'NF == 3 {print $3}')
        count=$(echo "$names" | grep -c . || true)
        foreign=$(echo "$names" | grep -v '^heft_' || true)
        if [ -n "$foreign" ]; then
            echo "error: $lib exports names without the heft_ prefix:" >&2
            echo "$foreign" >&2
            exit 1
        fi
        if [ "$count" -lt 10 ]; then
            echo "error: $lib exports only $count names; the public API is missing" >&2
            exit 1
        fi
        echo "$(basename "$lib"): $count names, all heft_"
    done
else
    echo "(static libraries: nothing exported dynamically)"
fi

echo "== find_package(heft): configure and build the consumer"
generator=()
if command -v ninja >/dev/null 2>&1; then
    generator=(-G Ninja)
fi
cmake -S "$source/tests/install/consumer" -B "$consumer_build" "${generator[@]}" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
cmake --build "$consumer_build"
echo "== run the find_package consumer"
"$consumer_build/heft_consumer"

echo "== pkg-config: compile main.c directly"
pcdir=
for dir in "$prefix"/lib*/pkgconfig "$prefix"/lib/*/pkgconfig; do
    if [ -f "$dir/heft.pc" ]; then
        pcdir=$dir
        break
    fi
done
if [ -z "$pcdir" ]; then
    echo "error: no heft.pc under $prefix/lib*/pkgconfig" >&2
    exit 1
fi
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs heft)
libdir=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir heft)
# The .pc must point into the scratch prefix, not into the configure-time
# CMAKE_INSTALL_PREFIX or some other installed copy.
real_libdir=$(cd "$libdir" && pwd -P)
case "$real_libdir" in
    "$(cd "$prefix" && pwd -P)"/*) ;;
    *)
        echo "error: pkg-config libdir $libdir is outside $prefix" >&2
        exit 1
        ;;
esac
echo "pkg-config --cflags --libs heft: $flags"
# shellcheck disable=SC2086 # $flags is a list of compiler words
"${CC:-cc}" -std=c11 -Wall -Wextra -Wpedantic -Werror \
    "$source/tests/install/consumer/main.c" -o "$pc_exe" $flags -Wl,-rpath,"$real_libdir"
echo "== run the pkg-config consumer"
"$pc_exe"

echo "install test passed"
