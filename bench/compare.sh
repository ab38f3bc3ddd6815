#!/bin/bash
# compare.sh - a comparison (vs/<ref>/tensors.tsv) of two large models
# against the time to decode both (medians of RUNS, [min..max]).
#
#   bench/compare.sh            (the mount figures need FUSE: run as root)
#
# Two synthetic models (bench/fsbench gen) of the same two tensors, Q4_K in
# one and Q8_0 in the other, 2 x 4096 x 32768 elements (1 GiB of f32 per
# model), in a temporary folder deleted at the end. Each run is cold: a
# fresh mount (nothing decoded) of files in the kernel's page cache.
#   mount: `cat a/vs/b/tensors.tsv` against `dd bs=1M` of both models' f32 files
#   tool:  `gguffs --compare a b` against `gguffs --verify` of each (decode only)
# The ratio is the decode time over the comparison's: 1.0 means the
# comparison costs no more than decoding both; the aim is at least 0.8.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GGUFFS=${GGUFFS:-$PWD/gguffs}
FSB=$BUILD/bench/fsbench
RUNS=${RUNS:-3}
[ -x "$GGUFFS" ] && [ -x "$FSB" ] || { echo "compare.sh: build gguffs and $FSB first (make bench)" >&2; exit 2; }

. bench/lib.sh
bench_setup compare
range() { sort -g "$R/$1" | awk '{ v[NR] = $1 } END { printf "[%.3f..%.3f]", v[1], v[NR] }'; }
# seconds a command takes
secs() {
    local t0 t1
    t0=$(date +%s%N)
    "$@" > /dev/null || echo "compare.sh: $* failed" >&2
    t1=$(date +%s%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }'
}

"$FSB" gen "$D/a.gguf" w1:q4_k:4096:32768 w2:q4_k:4096:32768 > /dev/null || exit 1
"$FSB" gen "$D/b.gguf" w1:q8_0:4096:32768 w2:q8_0:4096:32768 > /dev/null || exit 1
cat "$D/a.gguf" "$D/b.gguf" > /dev/null
ELEMS=$((2 * 4096 * 32768))

fuse=1
if ! [ -e /dev/fuse ] || ! command -v fusermount3 > /dev/null; then
    echo "compare.sh: no FUSE here (need /dev/fuse and fusermount3); mount figures skipped" >&2
    fuse=0
fi
for run in $(seq "$RUNS"); do
    printf "\rrun %d/%d " "$run" "$RUNS" >&2
    put verify "$(secs sh -c "'$GGUFFS' --verify '$D/a.gguf' 2>/dev/null && '$GGUFFS' --verify '$D/b.gguf' 2>/dev/null")"
    put tool "$(secs "$GGUFFS" --compare "$D/a.gguf" "$D/b.gguf")"
    if [ $fuse = 1 ]; then
        "$GGUFFS" "$D/a.gguf" "$D/b.gguf" "$M" || exit 1
        put decode "$(secs sh -c "for f in '$M'/a/tensors/w1/f32 '$M'/a/tensors/w2/f32 '$M'/b/tensors/w1/f32 \
            '$M'/b/tensors/w2/f32; do dd if=\$f of=/dev/null bs=1M 2>/dev/null || exit 1; done")"
        umnt
        "$GGUFFS" "$D/a.gguf" "$D/b.gguf" "$M" || exit 1
        put mount "$(secs cat "$M/a/vs/b/tensors.tsv")"
        put again "$(secs cat "$M/a/vs/b/tensors.tsv")"
        umnt
    fi
done
echo >&2
line() { # line LABEL BASELINE-KEY KEY
    printf "  %-46s %7.3f s %s  (%5.0f M elements/s)  against %7.3f s %s: %.2fx\n" "$1" "$(medv "$3")" "$(range "$3")" \
        "$(awk -v s="$(medv "$3")" -v n=$ELEMS 'BEGIN { print n / s / 1e6 }')" "$(medv "$2")" "$(range "$2")" \
        "$(awk -v a="$(medv "$2")" -v b="$(medv "$3")" 'BEGIN { print a / b }')"
}
echo "-- two models of 2 x 4096 x 32768 elements (Q4_K against Q8_0), cold, medians of $RUNS"
if [ $fuse = 1 ]; then
    line "mount: vs/b/tensors.tsv vs dd of both f32" decode mount
    printf "  %-46s %7.3f s (kept figures)\n" "mount: tensors.tsv read again" "$(medv again)"
fi
line "gguffs --compare vs --verify of both" verify tool
