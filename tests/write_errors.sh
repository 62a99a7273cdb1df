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

# deep_path BASE LENGTH: a path of LENGTH characters under BASE, in parts of
# 1 to 202 (a file name has at most 255 bytes; printf with no argument left
# for an empty part would still print one)
deep_path() {
    local path=$1 want=$2
    while [ $((${#path} + 203)) -le "$want" ]; do
        path="$path/$(printf 'd%.0s' $(seq 200))"
    done
    path="$path/$(printf 'e%.0s' $(seq $((want - ${#path} - 1))))"
    [ ${#path} -eq "$want" ] || fail "a path of ${#path} characters, not $want"
    printf '%s\n' "$path"
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
    # a directory of 990 characters: its files fit the path buffers and their
    # gnuplot commands, longer still, are not cut (a cut one plotted nothing,
    # without a word). Without gnuplot a stand-in writes the file named by
    # "set output", so a command that reaches it whole still makes a plot.
    long_out="$scratch/long-out"
    rm -rf "$long_out"
    long_out=$(deep_path "$long_out" 990)
    mkdir -p "$long_out"
    plot_path=$PATH
    if ! command -v gnuplot >/dev/null 2>&1; then
        mkdir -p "$scratch/long-out/bin"
        cat >"$scratch/long-out/bin/gnuplot" <<'EOF'
#!/bin/sh
[ "$1" = -e ] && out=$(printf '%s\n' "$2" | sed -n "s/.*set output '\([^']*\)'.*/\1/p") &&
    [ -n "$out" ] && echo "plotted by a stand-in for gnuplot" >"$out"
EOF
        chmod +x "$scratch/long-out/bin/gnuplot"
        plot_path="$scratch/long-out/bin:$PATH"
    fi
    # a scene run and --backstop into DIR make every plot, linked from results.md
    plots_made() {
        local dir=$1 png err
        err=$(PATH=$plot_path "$program" --out "$dir" --scenes pendulum --solvers pgs \
            --steps 2 --reps 1 2>&1 >/dev/null) || fail "a scene run into $dir: $err"
        for png in pendulum-steps.png break-even-dense.png break-even-skyline.png; do
            [ -s "$dir/$png" ] || fail "no $png in $dir"
            grep -q "($png)" "$dir/results.md" || fail "results.md in $dir misses $png"
        done
        err=$(PATH=$plot_path "$program" --backstop --members 1 --rows 20 --out "$dir" \
            2>&1 >/dev/null) || fail "--backstop into $dir: $err"
        [ -s "$dir/backstop-variants.png" ] || fail "no backstop-variants.png in $dir"
    }
    plots_made "$long_out"
    echo "ok: plots of a --out of 990 characters"
    # results.md's path one byte over the buffer (1,013 + "/results.md"):
    # refused before anything is made, not written under a cut name
    rm -rf "$scratch/over"
    mkdir -p "$scratch/over"
    over=$(deep_path "$scratch/over" 1013)
    mkdir -p "${over%/*}"
    expect 1 'cannot write .*/results.md: the path is longer than 1023 bytes' -- "$program" \
        --out "$over" --scenes pendulum --solvers pgs --steps 2 --reps 1
    [ -z "$(ls -A "${over%/*}")" ] ||
        fail "a --out too long for results.md made $(ls -A "${over%/*}")"
    # results.md fits, break-even.csv (4 bytes longer) does not: refused, the
    # tables still written, and no break-even.c beside them
    over=$(deep_path "$scratch/over" 1010)
    mkdir -p "$over"
    expect 1 'cannot write .*/break-even.csv: the path is longer than 1023 bytes' -- \
        "$program" --out "$over" --scenes pendulum --solvers pgs --steps 2 --reps 1
    [ "$(ls -A "$over")" = results.md ] ||
        fail "a --out too long for break-even.csv holds $(ls -A "$over")"
    # a --out with an apostrophe (and the shell's other quotes): the plots'
    # "cd" gets it as one word, so the plots are made
    quoted="$scratch/it's \"quoted\" \$HOME \`false\`"
    rm -rf "$quoted"
    mkdir -p "$quoted"
    plots_made "$quoted"
    echo "ok: plots of a --out with quotes in it"
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
