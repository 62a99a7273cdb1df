#!/usr/bin/env bash
# heft-viewer's command line: bad input gets a clear error and exit 2; the
# headless run under Xvfb writes a real PNG (MSAA on, as users see it) and
# prints its statistics; a scripted solver switch shows in them.
# The shaders come from assets/ and, drawn from the copies built in, give
# the same picture; a broken one names its file.
# usage: viewer_cli.sh HEFT_VIEWER XVFB_RUN SCRATCH_DIR [ASSETS_DIR]
set -euo pipefail
viewer=$1
xvfb=$2
scratch=$3
assets=${4:-}
mkdir -p "$scratch"
fail() { echo "FAIL: $*" >&2; exit 1; }

expect_error() { # expected-message args...
    local want=$1
    shift
    local out status=0
    out=$("$viewer" "$@" 2>&1 >/dev/null) || status=$?
    [ "$status" -eq 2 ] || fail "heft-viewer $* exited $status, not 2"
    grep -q -- "$want" <<<"$out" || fail "heft-viewer $*: '$out' does not say '$want'"
    echo "ok: heft-viewer $* -> $out"
}
expect_error 'unknown option "--bogus"' --bogus
expect_error 'unknown scenario "nope"' --scenario nope
expect_error 'unknown solver "nope"' --solver nope
expect_error '--frames wants a whole number' --frames -3
expect_error '--frames wants a whole number' --frames 12abc
expect_error '--size wants WxH' --size 10x10
expect_error '--screenshot needs --frames' --screenshot x.png
expect_error '--scenario needs a value' --scenario
expect_error '--load-mass wants a positive number' --load-mass -3
expect_error '--angle wants degrees' --angle 400
expect_error 'unknown variant "nope"' --variant nope
expect_error 'unknown variant "pyramid" of crane' --scenario crane --variant pyramid
expect_error '--assets wants a directory' --assets /nonexistent/assets
"$viewer" --help | grep -q -- '--screenshot' || fail "--help does not list --screenshot"
"$viewer" --list | grep -q 'hanging-chain' || fail "--list does not list hanging-chain"
"$viewer" --list | grep -q 'stacking --variant pyramid' || fail "--list does not list the stacking variants"

# a malformed script is refused before any window opens
status=0
out=$(DISPLAY= "$viewer" --script 'wait:x' 2>&1) || status=$?
[ "$status" -eq 2 ] && grep -q 'wait:N' <<<"$out" || fail "bad script: $status '$out'"
echo "ok: bad script -> $out"

# no display: a clear message, not a crash
status=0
out=$(env -u DISPLAY "$viewer" --frames 1 2>&1) || status=$?
[ "$status" -eq 3 ] && grep -q 'no display' <<<"$out" || fail "no display: $status '$out'"
echo "ok: no display -> $out"

# headless screenshot with the statistics, and a scripted solver switch
png=$scratch/cli.png
rm -f "$png"
json=$("$xvfb" -a -s "-screen 0 1280x720x24 -noreset" "$viewer" --hidden --frames 20 --samples 4 --screenshot "$png" \
    --script "wait:5 1 wait:5" --stats)
[ -s "$png" ] || fail "no screenshot written"
head -c 8 "$png" | od -An -c | grep -q 'P   N   G' || fail "$png is not a PNG"
solver=$("$viewer" --list | awk '/^solvers/ {getline; print $2; exit}')
grep -q "\"solver\": \"$solver\"" <<<"$json" || fail "stats do not report solver $solver: $json"
grep -q '"frames": 20' <<<"$json" || fail "stats: $json"
grep -q '"samples": 4' <<<"$json" || fail "--samples 4 not used: $json"
if "$viewer" --list | grep -q '^  crane '; then
    grep -q '"scenario": "crane"' <<<"$json" || fail "the default scene is not the crane: $json"
fi
echo "ok: screenshot $(stat -c %s "$png") bytes, solver $solver after key 1"

# the shaders read from files and the copies built in draw the same pixels
# (the overlay, with its timings, off: key u)
shot() { # PNG extra-options...
    local out=$1
    shift
    rm -f "$out"
    "$xvfb" -a -s "-screen 0 1280x720x24 -noreset" "$viewer" --hidden --frames 5 --samples 0 \
        --size 320x240 --script u --screenshot "$out" "$@" >/dev/null
}
shot "$scratch/files.png"
shot "$scratch/built-in.png" --assets built-in
cmp -s "$scratch/files.png" "$scratch/built-in.png" || fail "the built-in shaders draw another picture"
echo "ok: the built-in shaders draw the same $(stat -c %s "$scratch/built-in.png") bytes"
if [ -n "$assets" ]; then
    broken=$scratch/broken-assets
    rm -rf "$broken"
    cp -r "$assets" "$broken"
    echo 'not glsl' >>"$broken/shaders/sky.frag.glsl"
    status=0
    out=$(shot "$scratch/broken.png" --assets "$broken" 2>&1) || status=$?
    [ "$status" -eq 1 ] && grep -q 'sky.frag.glsl does not compile' <<<"$out" ||
        fail "a broken shader: $status '$out'"
    echo "ok: a broken shader -> $(head -n 1 <<<"$out")"
fi

# --record: through ffmpeg when it is installed, else a clear refusal
mp4=$scratch/cli.mp4
rm -f "$mp4"
if command -v ffmpeg >/dev/null 2>&1; then
    "$xvfb" -a -s "-screen 0 1280x720x24 -noreset" "$viewer" --hidden --frames 10 --samples 0 \
        --record "$mp4" >/dev/null
    [ -s "$mp4" ] || fail "--record wrote no video"
    echo "ok: --record wrote $(stat -c %s "$mp4") bytes"
else
    status=0
    out=$("$xvfb" -a -s "-screen 0 1280x720x24 -noreset" "$viewer" --hidden --frames 2 \
        --record "$mp4" 2>&1) || status=$?
    [ "$status" -eq 1 ] && grep -q 'needs ffmpeg' <<<"$out" || fail "--record without ffmpeg: $status '$out'"
    echo "ok: --record without ffmpeg -> $out"
fi
