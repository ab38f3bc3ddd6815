#!/bin/sh
# Run the programs of the ASan + UBSan build ($BUILD, made by `make sanitize`):
# the unit tests, the decoders against the reference vectors on every SIMD
# path, the SIMD == scalar property test (a smaller sample), and the fuzz
# targets replayed over their seeds, the committed regression inputs and the
# malformed suite. Leak checking (LSan) is on. FUSE is not involved here:
# the daemon itself is checked under valgrind by tests/check.d/40_concurrency.sh.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-san}
PY=${PYTHON:-/usr/bin/python3}
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=""
run() { # run NAME command...
    name=$1
    shift
    echo "== sanitized $name"
    if ! "$@"; then
        failed="$failed $name"
    fi
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && run "$(basename "$t")" "$t"
done
for isa in scalar avx2 avx512; do
    run "decoders-$isa" env STRICT=1 BUILD="$BUILD" tests/decode_all.sh "$isa"
done
run simd-property "$BUILD"/tests/simd_prop --bytes 262144

# Inputs for the replays: generated seeds and malformed files, regressions.
rm -rf "$BUILD/replay"
mkdir -p "$BUILD/replay"
$PY tests/fuzz/make_seeds.py "$BUILD/replay/seeds" && $PY tests/malformed/gen.py "$BUILD/replay/malformed" >/dev/null ||
    failed="$failed replay-inputs"
run replay-model "$BUILD"/fuzz/replay_model tests/fuzz/regress/model "$BUILD/replay/seeds/model" \
    "$BUILD/replay/malformed/files"
run replay-decode "$BUILD"/fuzz/replay_decode tests/fuzz/regress/decode "$BUILD/replay/seeds/decode"

if [ -n "$failed" ]; then
    echo "sanitized runs FAILED:$failed"
    exit 1
fi
echo "sanitized runs: all passed"
