#!/bin/bash
# as_gguf.sh - the GGUF views of a model, each figure against a baseline
# measured in the same run (medians of RUNS, [min..max]):
#
#  - stream: dd bs=1M of as/bf16.gguf, as/q8_0.gguf and as/f32.gguf of a
#    model of four Q4_K tensors (1 GiB of float32 in all), each on a fresh
#    mount, against reading the f32 files of the same tensors (fresh mount),
#    in million values per second (aim >= 0.9x), and the daemon's CPU time;
#  - llama.cpp (tests/peer/embed.mjs, one thread): load, then the first
#    token (the next-token probabilities after a short prompt) of as/f32.gguf
#    of a llama of 450 MB of f32 from a fresh mount, against the same bytes
#    in a file on disk (page-cached: a second read of it);
#  - a 64 GiB sparse model of 2048 tensors and a 131072-token vocabulary
#    (bench/fsbench sparse): ls -l as/ (its ten default recipes) on a fresh
#    mount, then the first MiB of some views and of model.gguf against that
#    of a tensor's raw file (a 1 MiB read through FUSE), and what the daemon
#    holds then.
#
#   bench/as_gguf.sh           (needs FUSE: run as root; RUNS=3)
# Noisy on a shared 2-vCPU VM: compare figures within one run.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GGUFFS=${GGUFFS:-$PWD/gguffs}
FSB=$BUILD/bench/fsbench
PY=${PYTHON:-$(tests/pyenv.sh python)} || exit 1
RUNS=${RUNS:-3}
[ -x "$GGUFFS" ] && [ -x "$FSB" ] || { echo "as_gguf.sh: build gguffs and $FSB first (make bench)" >&2; exit 2; }

. bench/lib.sh
bench_need_fuse as_gguf.sh
bench_setup as-gguf
MED_FORMAT=%6.0f

# --- 1. streams
"$FSB" gen "$D/q4k.gguf" a:q4_k:4096:16384 b:q4_k:4096:16384 c:q4_k:4096:16384 d:q4_k:4096:16384 > /dev/null || exit 1
cat "$D/q4k.gguf" > /dev/null
NV=$((4 * 4096 * 16384))
stream() { # stream NAME FILE...: dd them on a fresh mount
    local name=$1 t0 c0
    shift
    mnt "$D/q4k.gguf"
    c0=$(cpu_ms)
    t0=$(now)
    for f in "$@"; do dd if="$M/$f" of=/dev/null bs=1M status=none; done
    put "$name" $((NV * 1000 / ($(now) - t0)))
    put "${name}_cpu" $(($(cpu_ms) - c0))
    umnt
}
for run in $(seq "$RUNS"); do
    printf "\rstreams: run %d/%d " "$run" "$RUNS" >&2
    stream f32files tensors/a/f32 tensors/b/f32 tensors/c/f32 tensors/d/f32
    for v in bf16 q8_0 f32; do
        stream $v as/$v.gguf
    done
done
echo >&2
echo "-- dd bs=1M, fresh mount, 4 Q4_K tensors of 4096 x 16384 (1 GiB of f32): M values/s; the daemon's CPU ms"
echo "   the tensors' f32 files  $(med f32files)               cpu $(med f32files_cpu)"
for v in bf16 q8_0 f32; do
    echo "   as/$v.gguf $(printf '%*s' $((8 - ${#v})) '')   $(med $v)  $(ratio $v f32files)x   cpu $(med ${v}_cpu)  $(ratio ${v}_cpu f32files_cpu)x"
done

# --- 2. llama.cpp: load and first token
if command -v node > /dev/null && [ -f tests/peer/node_modules/node-llama-cpp/package.json ]; then
    "$PY" tests/peer/mkllama.py model "$D/llama.gguf" --type Q4_K --n-embd 1024 --n-layer 4 --n-head 8 \
        --n-head-kv 4 --n-ff 2816 2> /dev/null || exit 1
    "$GGUFFS" --cat "$D/llama.gguf" as/f32.gguf > "$D/llama-f32.gguf" || exit 1
    cat "$D/llama-f32.gguf" > /dev/null
    for run in $(seq "$RUNS"); do
        printf "\rllama.cpp: run %d/%d " "$run" "$RUNS" >&2
        llama_time "$D/llama-f32.gguf" disk
        mnt "$D/llama.gguf"
        llama_time "$M/as/f32.gguf" mount
        umnt
    done
    echo >&2
    echo "-- llama.cpp, one thread, as/f32.gguf of a Q4_K llama ($(($(stat -c %s "$D/llama-f32.gguf") >> 20)) MiB of f32): ms"
    for w in disk mount; do
        echo "   $w   load $(med ${w}_load)   first token $(med ${w}_eval)   in all $(med ${w}_total)"
    done
    echo "   a fresh mount takes $(ratio mount_total disk_total)x the time of the bytes on disk (page-cached)"
else
    echo "-- llama.cpp: tests/peer/node_modules missing (tests/deps.sh); skipped"
fi

# --- 3. a 64 GiB sparse model
"$FSB" sparse "$D/sparse.gguf" 2048 4096 7711 131072 || exit 1
for run in $(seq "$RUNS"); do
    printf "\r64 GiB: run %d/%d " "$run" "$RUNS" >&2
    mnt "$D/sparse.gguf" -o direct_io
    # timed in one process (a fork per figure would cost more than the figure)
    "$PY" - "$M" <<'PY' | while read -r k v; do put "$k" "$v"; done
import os, sys, time
m = sys.argv[1]
t = time.perf_counter()
for n in os.listdir(m + "/as"):
    os.stat(m + "/as/" + n)
print("ls_as", round((time.perf_counter() - t) * 1000, 1))
for v in ("tensors/blk.0.ffn_up.weight/raw", "model.gguf", "as/f32.gguf", "as/f16.gguf", "as/bf16.gguf", "as/q8_0.gguf",
          "as/q4_k_m.gguf"):
    t = time.perf_counter()
    with open(m + "/" + v, "rb", buffering=0) as f:
        assert len(f.read(1 << 20)) == 1 << 20
    print("first_" + v.replace("/", "_"), round((time.perf_counter() - t) * 1e6))
PY
    put ls_decoded "$(stat_of bytes_decoded)"
    put ls_quantized "$(stat_of bytes_quantized)"
    pid=$(pid_of_mount)
    put rss_mb "$(awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")"
    umnt
done
echo >&2
echo "-- a 64 GiB sparse Q8_0 model, 2048 tensors, a 131072-token vocabulary, fresh mount (-o direct_io)"
echo "   ls -l as/ (lists it, stats the ten views of the default -o as=: their headers are made): $(med ls_as) ms"
echo "   bytes decoded (quantized) by ls -l and the six first MiB: $(medv ls_decoded) ($(medv ls_quantized))"
for v in tensors/blk.0.ffn_up.weight/raw model.gguf as/f32.gguf as/f16.gguf as/bf16.gguf as/q8_0.gguf as/q4_k_m.gguf; do
    echo "   first MiB of $(printf '%-34s' $v): $(med "first_${v//\//_}") us"
done
echo "   daemon RSS after all that: $(med rss_mb) MiB"
