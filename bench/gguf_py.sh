#!/bin/bash
# gguf_py.sh - every tensor of the real Gemma 3 270M Q4_K_M (tests/pyenv.sh gemma: 268 M values
# of Q8_0, Q5_0, Q4_K, Q6_K and F32) as float32, three ways, in million values per second
# (medians of RUNS, [min..max]), the model file page-cached first:
#  - gguf-py 0.19.0: GGUFReader, then gguf.quants.dequantize of every tensor (numpy);
#  - gguffs, cold: a fresh mount, every tensors/<name>/f32 file read in 1 MiB reads, one
#    reader, in file order;
#  - gguffs, warm: the same files again on that mount.
# Then, untimed, every f32 file is checked equal to gguf-py's values (of the mount's model.gguf)
# bit for bit.
#
#   bench/gguf_py.sh           (needs FUSE: run as root; RUNS=3)
# Noisy on a shared 2-vCPU VM: compare figures within one run.
set -u
cd "$(dirname "$0")/.."
GGUFFS=${GGUFFS:-$PWD/gguffs}
PY=${PYTHON:-$(tests/pyenv.sh python)} || exit 1
GEMMA=$(tests/pyenv.sh gemma) || exit 1
RUNS=${RUNS:-3}
[ -x "$GGUFFS" ] || { echo "gguf_py.sh: build gguffs first" >&2; exit 2; }

. bench/lib.sh
bench_need_fuse gguf_py.sh
bench_setup gguf-py
MED_FORMAT=%6.1f
# mvps NAME MODE ARG...: one timed pass of bench/gguf_py.py, its M values/s put under NAME
mvps() {
    local name=$1
    shift
    "$PY" bench/gguf_py.py "$@" | awk '{ v[$1] = $2 } END { printf "%.2f\n", v["values"] / v["seconds"] / 1e6 }' > "$D/one"
    put "$name" "$(cat "$D/one")"
}

cat "$GEMMA" > /dev/null
for run in $(seq "$RUNS"); do
    printf "\rrun %d/%d " "$run" "$RUNS" >&2
    mvps gguf_py dequant "$GEMMA"
    mnt "$GEMMA"
    mvps cold read "$M"
    mvps warm read "$M"
    umnt
done
echo >&2
mnt "$GEMMA"
same=$("$PY" bench/gguf_py.py verify "$M" | awk '{ v[$1] = $0 } END { print v["tensors"] "; " v["differ"] }')
umnt
echo "-- Gemma 3 270M Q4_K_M ($(($(stat -c %s "$GEMMA") >> 20)) MiB), every tensor as float32: M values/s"
echo "   gguf-py dequantize           $(med gguf_py)"
echo "   gguffs f32 files, cold       $(med cold)   $(ratio cold gguf_py)x gguf-py"
echo "   gguffs f32 files, warm       $(med warm)   $(ratio warm gguf_py)x gguf-py"
echo "   equal bit for bit: $same"
