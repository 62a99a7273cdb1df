#!/usr/bin/env bash
# Output that cannot be written is a failure: every program, writing to
# /dev/full (a device whose every write fails with ENOSPC), exits non-zero
# and says what it could not write.
# usage: write_errors.sh heft-run|heft-mlcp|heft-bench|bench-collision|heft-viewer PROGRAM SCRATCH
#        [XVFB_RUN] [MLCP_FILE]
set -uo pipefail
kind=$1 program=$2 scratch=$3 xvfb=${4:-} mlcp=${5:-}
mkdir -p "$scratch"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -c /dev/full ] || { echo "no /dev/full here: skipped" >&2; exit 77; }

# expect STATUS WORDS -- COMMAND...: the command exits with STATUS and its
# stderr contains WORDS
expect() {
    local want=$1 words=$2
    shift 3
    local err status=0
    err=$("$@" 2>&1 >/dev/null) || status=$?
    [ "$status" -eq "$want" ] || fail "$* exited $status, not $want ($err)"
    grep -q -- "$words" <<<"$err" || fail "$*: '$err' does not say '$words'"
    [ -c /dev/full ] || fail "$* replaced /dev/full"
    echo "ok: $* -> $err"
}
# the same with stdout on /dev/full
expect_stdout() {
    local want=$1 words=$2
    shift 3
    local err status=0
    err=$("$@" 2>&1 >/dev/full) || status=$?
    [ "$status" -eq "$want" ] || fail "$* > /dev/full exited $status, not $want ($err)"
    grep -q -- "$words" <<<"$err" || fail "$* > /dev/full: '$err' does not say '$words'"
    [ -c /dev/full ] || fail "$* replaced /dev/full"
    echo "ok: $* > /dev/full -> $err"
}

case $kind in
heft-run)
    expect 1 'cannot write /dev/full' -- "$program" --steps 10 --csv /dev/full
    # a long run stops at the first lost line, not at the end
    expect 1 'could not be written at step' -- "$program" --steps 100000 --csv /dev/full
    expect_stdout 1 'cannot write the standard output' -- "$program" --steps 10 --json
    expect_stdout 1 'cannot write the standard output' -- "$program" --steps 10
    expect_stdout 1 'cannot write the standard output' -- "$program" --list
    ;;
heft-mlcp)
    expect_stdout 2 'cannot write the standard output' -- "$program" solve "$mlcp" --solver pgs --json
    expect_stdout 2 'cannot write the standard output' -- "$program" info "$mlcp" --json
    expect_stdout 2 'cannot write the standard output' -- "$program" --list
    ;;
heft-bench)
    expect_stdout 1 'cannot write the standard output' -- "$program" --ldl --reps 2
    # results.md on a full disk: the run stops before measuring anything
    rm -rf "$scratch/full"
    mkdir -p "$scratch/full"
    ln -s /dev/full "$scratch/full/results.md"
    expect 1 'cannot write .*results.md' -- "$program" --out "$scratch/full" --scenes pendulum \
        --solvers pgs --steps 2 --reps 1
    # a file name longer than the program's path buffer: refused, not cut
    long_dir="$scratch/$(printf 'd%.0s' $(seq 1100))"
    expect 1 'the path is longer than' -- "$program" --backstop --members 1 --rows 20 \
        --out "$long_dir"
    # a hard-family member exported onto a full disk
    ln -s /dev/full "$scratch/full/hard-0.mlcp"
    expect 1 'cannot write .*hard-0.mlcp' -- "$program" --hard-family --members 1 --rows 60 \
        --solvers bpp --export "$scratch/full"
    ;;
bench-collision)
    expect_stdout 1 'cannot write the standard output' -- "$program" 10
    ;;
heft-viewer)
    expect_stdout 1 'cannot write the standard output' -- "$program" --list
    screen=(-a -s "-screen 0 1280x720x24 -noreset")
    expect 1 'could not write /dev/full' -- "$xvfb" "${screen[@]}" "$program" --hidden --frames 2 \
        --samples 0 --screenshot /dev/full
    expect_stdout 1 'cannot write the standard output' -- "$xvfb" "${screen[@]}" "$program" \
        --hidden --frames 2 --samples 0 --stats
    ;;
*)
    fail "unknown program kind $kind"
    ;;
esac
echo "write errors: $kind exits non-zero on every lost output"
