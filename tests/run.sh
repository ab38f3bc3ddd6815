#!/bin/bash
# Run every test: unit tests, decoders against the reference vectors on
# every SIMD path this CPU has, SIMD == scalar property tests, then the
# suites in tests/check.d/ (most of them mount for real).
#
# Each suite's whole output goes to $BUILD/test-logs/NAME.log; the terminal
# gets one line per suite, the failures with the end of their log, and one
# last line "N passed, N failed" (checks, summed over the suites that count
# them; a suite that does not count is one check).
#
# `tests/run.sh NAME...` runs only the suites whose names contain one of the
# NAMEs (`tests/run.sh 65_export test_cache`).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
LOGS=$BUILD/test-logs
SELECT=("$@")
[ "$#" -gt 0 ] || rm -rf "$LOGS"
mkdir -p "$LOGS"
passed=0
failed=0
bad=""
t_all=$(date +%s)

wanted() { # is suite NAME selected by the command line?
    [ "$#" -eq 1 ] && return 0
    local name=$1 w
    shift
    for w in "$@"; do
        case "$name" in *"$w"*) return 0 ;; esac
    done
    return 1
}

run() { # run NAME command...
    local name=$1 t0 rc p f dt
    shift
    wanted "$name" "${SELECT[@]}" || return 0
    t0=$(date +%s%N)
    "$@" > "$LOGS/$name.log" 2>&1
    rc=$?
    dt=$(( ($(date +%s%N) - t0) / 100000000 ))
    dt="$((dt / 10)).$((dt % 10))"
    # Sum the "N passed, N failed" and "N checked, N failed" lines of the suite.
    read -r p f < <(grep -aoE '([0-9]+) (passed|tensors checked|pairs|keys|tensors), ([0-9]+) (failed|wrong|problems)' \
        "$LOGS/$name.log" | awk '{ p += $1; f += $(NF-1) } END { print p + 0, f + 0 }')
    if [ "$p" = 0 ] && [ "$f" = 0 ]; then
        p=$((rc == 0))
        f=$((rc != 0))
    fi
    [ "$rc" != 0 ] && [ "$f" = 0 ] && f=1
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$rc" = 0 ]; then
        printf 'ok    %-22s %6s checks  %6s s\n' "$name" "$p" "$dt"
    else
        printf 'FAIL  %-22s %6s failed  %6s s   (log: %s)\n' "$name" "$f" "$dt" "$LOGS/$name.log"
        grep -a -E 'FAIL|failed|differ|Error|error:' "$LOGS/$name.log" | grep -avE ' 0 failed|, 0 (wrong|problems)' |
            head -n 25 | sed 's/^/      /'
        bad="$bad $name"
    fi
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && run "$(basename "$t")" "$t"
done

for isa in scalar avx2 avx512 neon; do
    run "decoders-$isa" env STRICT=1 tests/decode_all.sh "$isa"
done
run simd-property "$BUILD"/tests/simd_prop
# The NEON kernels, cross-built and run under qemu (x86-64 hosts).
[ "$(uname -m)" = x86_64 ] && run check-arm make --no-print-directory check-arm
# No file of src/ includes a header of a folder above its own.
run layers make --no-print-directory -s layers

for s in tests/check.d/*.sh; do
    [ -f "$s" ] && run "$(basename "$s" .sh)" bash "$s"
done

echo
echo "make check: $passed passed, $failed failed ($(( $(date +%s) - t_all )) s; logs in $LOGS)${bad:+; failed:$bad}"
[ -z "$bad" ]
