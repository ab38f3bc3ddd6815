#!/bin/sh
# Run every test: unit tests, decoders against the reference vectors on
# every SIMD path this CPU has, SIMD == scalar property tests, then the
# suites in tests/check.d/ (most of them mount for real).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
failed=""
run() { # run NAME command...
    name=$1
    shift
    echo "== $name"
    if ! "$@"; then
        failed="$failed $name"
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

for s in tests/check.d/*.sh; do
    [ -f "$s" ] && run "$(basename "$s" .sh)" bash "$s"
done

echo
if [ -n "$failed" ]; then
    echo "make check: FAILED:$failed"
    exit 1
fi
echo "make check: all passed"
