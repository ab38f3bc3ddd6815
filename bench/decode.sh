#!/bin/sh
# Per-type decode throughput on one core, every instruction set, vs memcpy.
#   bench/decode.sh [--only T1,T2] [--mb N]
d=$(dirname "$0")/../tests/data
exec "${BUILD:-build}/bench/decode_bench" "$@" \
    58016 "$d/mainline/mainline.gguf" "$d/mainline/manifest.tsv" \
    4672 "$d/ik/ik.gguf" "$d/ik/manifest.tsv" \
    288 "$d/forks/stq1_0-id43.gguf" "$d/forks/manifest.tsv" \
    640 "$d/forks/prism.gguf" "$d/forks/manifest.tsv"
