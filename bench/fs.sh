#!/bin/bash
# fs.sh - FUSE throughput and latency of gguffs, each figure against its
# baseline measured in the same run (medians of RUNS, [min..max]).
#
#   bench/fs.sh                  everything (needs FUSE: run as root)
#   RUNS=3 OPTS="-o page_size=1M" bench/fs.sh --quick   streams only, extra options
#
# Synthetic models (bench/fsbench gen/sparse) are made under a temporary
# folder that is deleted at the end: a 1.65 GB dense model (Q4_K, Q8_0 and
# IQ4_XS tensors of 1 GiB of float32 each, plus a 1 GiB F32 tensor whose raw
# file is the same size as an f32 file) and a 64 GiB sparse model of 2048
# Q8_0 tensors with a 128k-token vocabulary (a hole: no disk used).
# The model file itself is kept in the page cache: these figures are FUSE and
# decoding, not the disk. "cold" = freshly mounted (empty kernel page cache
# for the mount and empty decoded-page cache), "warm" = read again.
# Noisy on a shared 2-vCPU VM: compare figures within one run.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GGUFFS=${GGUFFS:-$PWD/gguffs}
FSB=$BUILD/bench/fsbench
PY=${PYTHON:-$(tests/pyenv.sh python)} || exit 1
RUNS=${RUNS:-5}
OPTS=${OPTS:-}
QUICK=0
[ "${1:-}" = --quick ] && QUICK=1
[ -x "$GGUFFS" ] && [ -x "$FSB" ] || { echo "fs.sh: build gguffs and $FSB first (make bench)" >&2; exit 2; }
. bench/lib.sh
bench_need_fuse fs.sh
bench_setup fs

mnt() { # mnt MODEL [options]: mount, wait until it answers
    local model=$1
    shift
    # shellcheck disable=SC2086
    "$GGUFFS" $OPTS "$@" "$model" "$M" || { echo "fs.sh: mount failed" >&2; exit 1; }
    ls "$M" >/dev/null
}
ddr() { # MB/s of dd bs=1M of a file
    dd if="$1" of=/dev/null bs=1M 2>&1 | awk '/copied/ { printf "%.0f", $1 / $(NF-3) / 1e6 }'
}
stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$1/.stats"; }

# (results: put, med, medv, ratio of bench/lib.sh)

echo "== synthetic models in $D"
"$FSB" gen "$D/dense.gguf" q4k:q4_k:4096:65536 q80:q8_0:4096:65536 iq4xs:iq4_xs:4096:65536 \
    f32t:f32:4096:65536 || exit 1
"$FSB" sparse "$D/sparse.gguf" 2048 4096 7711 131072 || exit 1
sync "$D/dense.gguf" # not written back yet, it would slow the first figures
printf "dense %s bytes; sparse %s bytes apparent, %s KiB on disk\n" "$(stat -c %s "$D/dense.gguf")" \
    "$(stat -c %s "$D/sparse.gguf")" "$(du -k "$D/sparse.gguf" | cut -f1)"
cat "$D/dense.gguf" > /dev/null
# The plain page-cached file of the same size as an f32 file: a copy of one.
mnt "$D/dense.gguf"
dd if="$M/tensors/q4k/f32" of="$D/plain.bin" bs=1M 2>/dev/null
umnt
cat "$D/plain.bin" > /dev/null

TYPES="q4k q80 iq4xs"
for run in $(seq "$RUNS"); do
    printf "\rrun %d/%d " "$run" "$RUNS" >&2
    for t in $TYPES; do
        # raw through a fresh mount, then the 1 GiB raw file of the F32 tensor
        mnt "$D/dense.gguf"
        put "raw_cold_$t" "$(ddr "$M/tensors/$t/raw")"
        [ "$t" = q4k ] && put raw1g_cold "$(ddr "$M/tensors/f32t/raw")"
        umnt
        # f32 through a fresh mount: cold, then warm; daemon CPU of the cold read
        mnt "$D/dense.gguf"
        pid=$(pid_of_mount)
        c0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
        put "f32_cold_$t" "$(ddr "$M/tensors/$t/f32")"
        c1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
        put "f32_cold_cpu_$t" "$(( (c1 - c0) * 1000 / $(getconf CLK_TCK) ))"
        put "f32_warm_$t" "$(ddr "$M/tensors/$t/f32")"
        put "ra_hits_$t" "$(stat_of "$M" readahead_hits)"
        put "misses_$t" "$(stat_of "$M" cache_misses)"
        put "reqs_$t" "$(stat_of "$M" page_reads)"
        umnt
        put plain "$(ddr "$D/plain.bin")"
        if [ $QUICK = 0 ]; then
            # -o direct_io: cold and second read of f32, cold raw
            mnt "$D/dense.gguf" -o direct_io
            put "dio_f32_cold_$t" "$(ddr "$M/tensors/$t/f32")"
            put "dio_f32_warm_$t" "$(ddr "$M/tensors/$t/f32")"
            put "dio_raw_cold_$t" "$(ddr "$M/tensors/$t/raw")"
            umnt
        fi
    done
    [ $QUICK = 1 ] && continue
    # numpy.fromfile of the f32 (fresh mount; then again), and of the plain file
    mnt "$D/dense.gguf"
    "$PY" - "$M/tensors/q4k/f32" "$D/plain.bin" > "$D/np.out" <<'EOF'
import sys, time
import numpy as np
def mbs(path):
    t = time.perf_counter()
    a = np.fromfile(path, dtype=np.float32)
    return a.nbytes / (time.perf_counter() - t) / 1e6
mbs(sys.argv[2])  # unmeasured: the first 1 GiB this process touches costs more on a VM
p1 = mbs(sys.argv[2])
cold = mbs(sys.argv[1])
warm = mbs(sys.argv[1])
p2 = mbs(sys.argv[2])
print(cold, warm, (p1 + p2) / 2)
EOF
    umnt
    read -r a b c < "$D/np.out"
    put np_cold "$a"; put np_warm "$b"; put np_plain "$c"
    # random 4 KiB reads on a cold cache, f32 and raw alternately, each on a
    # fresh mount, three times per run (the figure is bimodal: ~10 us when
    # the reader and the FUSE thread share a vCPU, ~45 us when they do not);
    # then the same with posix_fadvise(RANDOM) (exactly 4 KiB requests)
    for rep in 1 2 3; do
        for f in f32 raw; do
            mnt "$D/dense.gguf"
            out=$("$FSB" rand "$M/tensors/q4k/$f" 10000 "$rep") # waits for it to exit (and close the file)
            read -r _ p50 _ p99 _ <<< "$out"
            put "rand_p50_$f" "$p50"; put "rand_p99_$f" "$p99"
            [ $f = f32 ] && put rand_decoded "$(stat_of "$M" bytes_decoded)"
            umnt
            mnt "$D/dense.gguf"
            out=$(FSBENCH_FADV_RANDOM=1 "$FSB" rand "$M/tensors/q4k/$f" 10000 "$rep")
            read -r _ p50 _ p99 _ <<< "$out"
            put "frand_p50_$f" "$p50"; put "frand_p99_$f" "$p99"
            [ $f = f32 ] && put frand_decoded "$(stat_of "$M" bytes_decoded)"
            umnt
        done
    done
    out=$("$FSB" rand "$D/plain.bin" 10000 1)
    read -r _ p50 _ p99 _ <<< "$out"
    put rand_p50_plain "$p50"; put rand_p99_plain "$p99"
    # the 64 GiB sparse model: mount time, RSS before any read
    t0=$(date +%s%N)
    mnt "$D/sparse.gguf"
    t1=$(date +%s%N)
    put mount_ms "$(( (t1 - t0) / 1000000 ))"
    pid=$(pid_of_mount)
    put sparse_hwm_mb "$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")"
    put sparse_threads "$(awk '/Threads/ { print $2 }' "/proc/$pid/status")"
    umnt
done
echo >&2

if [ $QUICK = 0 ]; then
    # Peak RSS while every tensor of the dense model is read end to end (two
    # readers at once, f32 and raw), budget 256 MiB; then every tensor of the
    # sparse model read in part (first and last MiB of each f32).
    mnt "$D/dense.gguf"
    pid=$(pid_of_mount)
    for t in q4k q80 iq4xs f32t; do
        cat "$M/tensors/$t/f32" > /dev/null &
        cat "$M/tensors/$t/raw" > /dev/null
        "$FSB" rand "$M/tensors/$t/f32" 2000 7 > /dev/null
        wait
    done
    dense_hwm=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")
    dense_thr=$(awk '/Threads/ { print $2 }' "/proc/$pid/status")
    dense_res=$(stat_of "$M" cache_resident_bytes)
    umnt
    mnt "$D/sparse.gguf"
    pid=$(pid_of_mount)
    sz=$(stat -c %s "$M/tensors/blk.0.ffn_up.weight/f32")
    for d in "$M"/tensors/*/; do
        dd if="$d/f32" of=/dev/null bs=1M count=1 2>/dev/null
        dd if="$d/f32" of=/dev/null bs=1M count=1 skip=$(( sz / 1048576 - 1 )) 2>/dev/null
    done
    sparse_read_hwm=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")
    umnt
fi

echo
echo "gguffs FUSE benchmark: $RUNS runs, medians [min..max]; options: ${OPTS:-defaults}"
echo "machine: $(nproc) vCPU, load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "1. dd bs=1M, MB/s (1 GiB f32 files; raw = the same tensor's stored bytes)"
printf "%-8s %-24s %-24s %-24s %-22s %s\n" type "f32 cold" "f32 warm" "raw cold" "f32 cold/raw cold" "f32 warm/plain"
for t in $TYPES; do
    printf "%-8s %-24s %-24s %-24s %-22s %s\n" "$t" "$(med "f32_cold_$t")" "$(med "f32_warm_$t")" \
        "$(med "raw_cold_$t")" "$(ratio "f32_cold_$t" "raw_cold_$t")" "$(ratio "f32_warm_$t" plain)"
done
echo "plain page-cached 1 GiB file: $(med plain) MB/s"
echo "raw of a 1 GiB F32 tensor, cold (FUSE transport at the f32 size): $(med raw1g_cold) MB/s;" \
    "q4k f32 cold / it: $(ratio f32_cold_q4k raw1g_cold)"
printf "daemon CPU of a cold f32 stream, ms: q4k %s, q80 %s, iq4xs %s\n" "$(med f32_cold_cpu_q4k)" \
    "$(med f32_cold_cpu_q80)" "$(med f32_cold_cpu_iq4xs)"
printf "cold f32 stream: %s FUSE requests, %s pages decoded, %s read-ahead hits (q4k medians)\n" \
    "$(medv reqs_q4k)" "$(medv misses_q4k)" "$(medv ra_hits_q4k)"
[ $QUICK = 1 ] && exit 0
echo
echo "1b. the same with -o direct_io, MB/s"
printf "%-8s %-24s %-24s %-24s %s\n" type "f32 cold" "f32 again" "raw cold" "f32 cold/raw cold"
for t in $TYPES; do
    printf "%-8s %-24s %-24s %-24s %s\n" "$t" "$(med "dio_f32_cold_$t")" "$(med "dio_f32_warm_$t")" \
        "$(med "dio_raw_cold_$t")" "$(ratio "dio_f32_cold_$t" "dio_raw_cold_$t")"
done
echo
echo "2. numpy.fromfile (q4k f32, 1 GiB), MB/s"
echo "fresh mount: $(med np_cold); again: $(med np_warm); plain page-cached file: $(med np_plain)"
echo
echo "3. random 4 KiB preads (10000, 4 KiB-aligned, fixed seeds), fresh mount, q4k (3 per run)"
printf "%-44s %-24s %s\n" "" "p50 us" "p99 us"
printf "%-44s %-24s %s\n" "f32" "$(med rand_p50_f32)" "$(med rand_p99_f32)"
printf "%-44s %-24s %s\n" "raw" "$(med rand_p50_raw)" "$(med rand_p99_raw)"
printf "%-44s %-24s %s\n" "f32, posix_fadvise(RANDOM)" "$(med frand_p50_f32)" "$(med frand_p99_f32)"
printf "%-44s %-24s %s\n" "raw, posix_fadvise(RANDOM)" "$(med frand_p50_raw)" "$(med frand_p99_raw)"
printf "%-44s %-24s %s\n" "plain page-cached file" "$(med rand_p50_plain)" "$(med rand_p99_plain)"
minv() { sort -g "$R/$1" | head -1; }
echo "f32 p50 / raw p50: medians $(ratio rand_p50_f32 rand_p50_raw) (with fadvise $(ratio frand_p50_f32 frand_p50_raw))," \
    "best runs $(awk -v a="$(minv rand_p50_f32)" -v b="$(minv rand_p50_raw)" 'BEGIN { printf "%.2f", a / b }')" \
    "(with fadvise $(awk -v a="$(minv frand_p50_f32)" -v b="$(minv frand_p50_raw)" 'BEGIN { printf "%.2f", a / b }'))"
echo "runs in the slow mode (p50 > 30 us: reader and FUSE thread on different vCPUs): f32 $(awk '$1 > 30' "$R/rand_p50_f32" | wc -l)," \
    "raw $(awk '$1 > 30' "$R/rand_p50_raw" | wc -l) of $(wc -l < "$R/rand_p50_raw")"
echo "bytes decoded per 10000 reads: $(medv rand_decoded), with fadvise $(medv frand_decoded)"
echo
echo "4. 64 GiB sparse model (2048 Q8_0 tensors, 128k tokens)"
echo "mount time (command start to first ls answered): $(med mount_ms) ms"
echo "daemon peak RSS before reads: $(med sparse_hwm_mb) MiB; threads: $(medv sparse_threads)"
echo "daemon peak RSS after reading 2 MiB of f32 of each of its 2048 tensors: $sparse_read_hwm MiB"
echo
echo "5. memory: dense model, every tensor read end to end (f32 and raw at once, plus random reads)"
echo "daemon peak RSS $dense_hwm MiB (budget 256 MiB + 64 MiB = 320); threads $dense_thr; cache resident $((dense_res / 1048576)) MiB"
