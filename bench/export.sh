#!/bin/bash
# export.sh - f16 / bf16 through a mount against f32 of the same tensors
# (medians of RUNS, [min..max]), and the conversion alone (halfconv_bench).
#
#   bench/export.sh            (needs FUSE: run as root)
#
# A synthetic model (bench/fsbench gen) of a Q4_K and an F32 tensor of
# 1 GiB of float32 each, in a temporary folder deleted at the end. Each
# figure is a `dd bs=1M` of the whole file on a fresh mount ("cold": nothing
# decoded, nothing in the kernel's page cache), in MB/s of the file and in
# million values per second (f16 and bf16 files hold 2 bytes a value, f32 4).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GGUFFS=${GGUFFS:-$PWD/gguffs}
FSB=$BUILD/bench/fsbench
RUNS=${RUNS:-3}
[ -x "$GGUFFS" ] && [ -x "$FSB" ] && [ -x "$BUILD/bench/halfconv_bench" ] ||
    { echo "export.sh: build gguffs, $FSB and $BUILD/bench/halfconv_bench first (make bench)" >&2; exit 2; }

echo "-- conversion alone (bench/halfconv_bench)"
"$BUILD/bench/halfconv_bench"

. bench/lib.sh
bench_need_fuse "export.sh (mount figures)"
bench_setup export
ddr() { dd if="$1" of=/dev/null bs=1M 2>&1 | awk '/copied/ { printf "%.0f", $1 / $(NF-3) / 1e6 }'; }
MED_FORMAT=%5.0f

"$FSB" gen "$D/dense.gguf" q4k:q4_k:4096:65536 f32t:f32:4096:65536 > /dev/null || exit 1
cat "$D/dense.gguf" > /dev/null
for run in $(seq "$RUNS"); do
    printf "\rrun %d/%d " "$run" "$RUNS" >&2
    for t in q4k f32t; do
        for f in f32 f16 bf16; do
            "$GGUFFS" "$D/dense.gguf" "$M" || exit 1
            put "${t}_$f" "$(ddr "$M/tensors/$t/$f")"
            put "${t}_${f}_warm" "$(ddr "$M/tensors/$t/$f")"
            umnt
        done
    done
done
echo >&2
echo "-- dd bs=1M of a 1 GiB-of-f32 tensor, fresh mount: MB/s of the file, M values/s"
for t in q4k f32t; do
    for f in f32 f16 bf16; do
        bpv=$([ $f = f32 ] && echo 4 || echo 2)
        printf "  %-4s %-5s cold %s  %5.0f M values/s   warm %s\n" "$t" "$f" "$(med "${t}_$f")" \
            "$(awk -v m="$(medv "${t}_$f")" -v b=$bpv 'BEGIN { print m / b }')" "$(med "${t}_${f}_warm")"
    done
done
