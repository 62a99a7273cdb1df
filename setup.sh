#!/usr/bin/env bash
# Install the Debian packages Heft needs to build and test; with --viewer also
# those of the GLFW/OpenGL viewer and its headless (Xvfb) tests; with --peers
# the peer engines heft-peers compares against (Bullet, ODE, MuJoCo) and gnuplot.
# Idempotent: installs only what is missing and prints nothing when nothing is.
set -euo pipefail

usage() {
    echo "usage: $0 [--viewer] [--bench] [--peers]" >&2
}

packages=(build-essential cmake ninja-build pkg-config libcriterion-dev libcjson-dev libexpat1-dev python3 libsuitesparse-dev)
viewer_packages=(libglfw3-dev libcglm-dev python3-glad xvfb xauth libgl1-mesa-dri libgl-dev libstb-dev)
bench_packages=(gnuplot-nox)
peers_packages=(libbullet-dev libode-dev libmujoco-dev gnuplot-nox)

for arg in "$@"; do
    case "$arg" in
        --viewer) packages+=("${viewer_packages[@]}") ;;
        --bench) packages+=("${bench_packages[@]}") ;;
        --peers) packages+=("${peers_packages[@]}") ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            echo "setup.sh: unknown option $arg" >&2
            usage
            exit 2
            ;;
    esac
done

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "setup.sh: needs a Debian-like system (dpkg-query, apt-get); install these yourself:" >&2
    echo "  ${packages[*]}" >&2
    exit 1
fi

missing=()
for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)
    if [ "${status:0:2}" != "ii" ]; then
        missing+=("$pkg")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=(env)
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "setup.sh: missing packages (${missing[*]}) and neither root nor sudo available" >&2
    exit 1
fi

echo "setup.sh: installing ${missing[*]}" >&2
"${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
"${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
