#!/usr/bin/env bash
# Fails when a function in the given binaries uses a ymm register and holds
# no vzeroupper. A function that leaves the upper halves of ymm0-15 in use
# makes every later SSE2 instruction of the thread slow (a settled step of
# the pyramid of base 10 took 2.7 times as long; docs/bpp.md); gcc does not
# always insert the instruction after intrinsics compiled with
# __attribute__((target("avx"))), so each such kernel calls
# _mm256_zeroupper() itself and this check finds the ones that do not.
# Usage: check.sh BINARY... (exit 77, skipped, without objdump)
set -euo pipefail
command -v objdump >/dev/null || { echo "check.sh: no objdump, skipped"; exit 77; }
status=0
for binary in "$@"; do
    listing=$(objdump -d --no-show-raw-insn "$binary") || { echo "check.sh: cannot read $binary"; exit 2; }
    report=$(awk '
        /^[0-9a-f]+ <.*>:$/ { if (name != "" && ymm && !zero) print name; name = $2; ymm = 0; zero = 0; next }
        /%ymm/ { ymm = 1 }
        /vzeroupper/ { zero = 1 }
        END { if (name != "" && ymm && !zero) print name }' <<<"$listing")
    used=$(grep -c '%ymm' <<<"$listing" || true)
    if [ -n "$report" ]; then
        echo "$binary: ymm registers used without vzeroupper in:"
        sed 's/^/  /' <<<"$report"
        status=1
    else
        echo "$binary: every function using ymm registers ($used instructions) holds a vzeroupper"
    fi
done
exit $status
