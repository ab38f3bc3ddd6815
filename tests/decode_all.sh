#!/bin/sh
# Check every reference tensor with our decoders on one instruction set:
#   tests/decode_all.sh [scalar|avx2|avx512|neon]
# Exit status non-zero if any tensor differs from its reference.
# $BIN overrides the program ($BUILD/tests/decode_ref); $RUN prefixes it
# (make check-arm: qemu-aarch64).
set -u
isa=${1:-scalar}
here=$(dirname "$0")
d=$here/data
bin=${BIN:-${BUILD:-build}/tests/decode_ref}
rc=0
run() { ${RUN:-} "$bin" --isa "$isa" ${STRICT:+--strict} "$@" || rc=1; }
run 58016 "$d/mainline/mainline.gguf" "$d/mainline/manifest.tsv"
run 4672 "$d/ik/ik.gguf" "$d/ik/manifest.tsv"
for f in stq1_0-id43 stq1_0-id42 forks-rawbytes; do
    run 288 "$d/forks/$f.gguf" "$d/forks/manifest.tsv"
    run --map stq1_0=STQ1_0_CONSECUTIVE 288 "$d/forks/stq1_0-consecutive/$f.gguf" \
        "$d/forks/stq1_0-consecutive/manifest.tsv"
done
run 640 "$d/forks/prism.gguf" "$d/forks/manifest.tsv"
exit $rc
