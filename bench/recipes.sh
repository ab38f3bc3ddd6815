#!/bin/bash
# recipes.sh - as/<recipe>.gguf (issue 36), each figure against a baseline
# measured in the same run (medians of RUNS, [min..max]):
#
#  - stream: dd bs=1M of as/q4_k_m.gguf against as/f32.gguf of the same
#    Q4_K llama (fresh mount each), in million values per second, and the
#    daemon's CPU time;
#  - llama.cpp (tests/peer/embed.mjs, one thread): load, then the first
#    token, of as/q4_k_m.gguf from a fresh mount and again from the same
#    (warm) mount, against llama.cpp's own Q4_K_M file of the same model
#    (llama_model_quantize) on disk, page-cached;
#  - quantization per recipe: the whole as/<recipe>.gguf of an F32 file on
#    disk (a llama of 2 layers of 1024 and a 512-token vocabulary: its f32
#    is read as it lies, so what is timed is the quantizing) against
#    llama_model_quantize of the same file (tests/peer/quantize.py --time:
#    the call alone), in million values per second: of CPU time with one
#    thread (-o threads=1, nthread 1: the daemon's CPU time, the child's;
#    on a shared machine the clock says more about the neighbours), and of
#    the clock with every core (RECIPE_RUNS, default 1: a run is a few
#    minutes).
#
#   bench/recipes.sh            (needs FUSE: run as root; RUNS=3, RECIPE_RUNS=1,
#                                RECIPES="q4_k_m q6_k" for fewer)
# Noisy on a shared 2-vCPU VM: compare figures within one run.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GGUFFS=${GGUFFS:-$PWD/gguffs}
PY=${PYTHON:-$(tests/pyenv.sh python)} || exit 1
RUNS=${RUNS:-3}
RECIPE_RUNS=${RECIPE_RUNS:-1}
CORES=$(nproc)
[ -x "$GGUFFS" ] || { echo "recipes.sh: build gguffs first (make bench)" >&2; exit 2; }
command -v node > /dev/null && [ -f tests/peer/node_modules/node-llama-cpp/package.json ] ||
    { echo "recipes.sh: tests/peer/node_modules missing (tests/deps.sh)" >&2; exit 2; }

. bench/lib.sh
bench_need_fuse recipes.sh
bench_setup recipes
MED_FORMAT=%6.0f
# values MODEL.gguf: its element count
values() { "$PY" -c "
import sys; sys.path.insert(0, 'tests'); import gguf_tool as g, math
print(sum(math.prod(t['dims']) for t in g.read(open(sys.argv[1], 'rb').read(64 << 20)).tensors))" "$1"; }

# --- the model: a Q4_K llama, its F32 file, llama-quantize's Q4_K_M of it
"$PY" tests/peer/mkllama.py model "$D/llama.gguf" --type Q4_K --n-embd 1024 --n-layer 4 --n-head 8 \
    --n-head-kv 4 --n-ff 2816 2> /dev/null || exit 1
"$GGUFFS" --cat "$D/llama.gguf" as/f32.gguf > "$D/llama-f32.gguf" || exit 1
"$PY" tests/peer/quantize.py "$D/llama-f32.gguf" "$D/llama-q4_k_m.gguf" q4_k_m --threads "$CORES" || exit 1
cat "$D/llama-f32.gguf" "$D/llama-q4_k_m.gguf" > /dev/null
NV=$(values "$D/llama.gguf")

# --- 1. streams
stream() { # stream NAME FILE: dd it on a fresh mount
    local t0 c0
    mnt "$D/llama.gguf"
    c0=$(cpu_ms)
    t0=$(now)
    dd if="$M/$2" of=/dev/null bs=1M status=none
    put "$1" $((NV * 1000 / ($(now) - t0)))
    put "${1}_cpu" $(($(cpu_ms) - c0))
    umnt
}
for run in $(seq "$RUNS"); do
    printf "\rstreams: run %d/%d " "$run" "$RUNS" >&2
    stream f32 as/f32.gguf
    stream q4_k_m as/q4_k_m.gguf
done
echo >&2
echo "-- dd bs=1M, fresh mount, a Q4_K llama of $((NV / 1000000)) M values ($CORES threads): M values/s; the daemon's CPU ms"
echo "   as/f32.gguf      $(med f32)         cpu $(med f32_cpu)"
echo "   as/q4_k_m.gguf   $(med q4_k_m)  $(ratio q4_k_m f32)x   cpu $(med q4_k_m_cpu)  $(ratio q4_k_m_cpu f32_cpu)x"

# --- 2. llama.cpp: load and first token
for run in $(seq "$RUNS"); do
    printf "\rllama.cpp: run %d/%d " "$run" "$RUNS" >&2
    llama_time "$D/llama-q4_k_m.gguf" disk
    mnt "$D/llama.gguf"
    llama_time "$M/as/q4_k_m.gguf" fresh
    llama_time "$M/as/q4_k_m.gguf" warm
    umnt
done
echo >&2
cmp -s "$D/llama-q4_k_m.gguf" <("$GGUFFS" --cat "$D/llama.gguf" as/q4_k_m.gguf) ||
    echo "   (as/q4_k_m.gguf is NOT llama-quantize's file of this model)"
echo "-- llama.cpp, one thread, a Q4_K_M llama ($(($(stat -c %s "$D/llama-q4_k_m.gguf") >> 20)) MiB): ms"
for w in disk fresh warm; do
    echo "   $(printf '%-5s' $w)  load $(med ${w}_load)   first token $(med ${w}_eval)   in all $(med ${w}_total)"
done
echo "   as/q4_k_m.gguf, fresh mount: $(ratio fresh_total disk_total)x the file on disk; warm: $(ratio warm_total disk_total)x"

# --- 3. quantization per recipe: gguffs against llama_model_quantize, same F32 file, same threads
RECIPES=${RECIPES:-"f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 q2_k q3_k_s q3_k_m q3_k_l q4_k_s q4_k_m q5_k_s q5_k_m q6_k iq4_nl
iq4_xs iq3_s iq3_m tq1_0 tq2_0 mxfp4_moe q1_0 q2_0"}
"$PY" -c "import sys; sys.path.insert(0, 'tests/peer'); import mkref; mkref.small_vocab(sys.argv[1])" \
    "$D/vocab.gguf" || exit 1
"$PY" tests/peer/mkllama.py model "$D/small.gguf" --type Q4_K --vocab "$D/vocab.gguf" --n-embd 1024 --n-layer 2 \
    --n-head 8 --n-head-kv 4 --n-ff 2816 2> /dev/null || exit 1
"$GGUFFS" --cat "$D/small.gguf" as/f32.gguf > "$D/small-f32.gguf" || exit 1
cat "$D/small-f32.gguf" > /dev/null
NF=$(values "$D/small-f32.gguf")
rate() { awk -v n="$NF" -v ms="$1" 'BEGIN { printf "%.1f", (ms > 0 ? n / 1000 / ms : 0) }'; }
ours() { # ours RECIPE THREADS: the whole view on a fresh mount of the F32 file
    local t0 c0
    mnt "$D/small-f32.gguf" -o threads="$2"
    c0=$(cpu_ms)
    t0=$(now)
    dd if="$M/as/$1.gguf" of=/dev/null bs=1M status=none
    put "ours_$1_$2" "$(rate $((($(now) - t0) / 1000000)))"
    put "ours_$1_$2_cpu" "$(rate $(($(cpu_ms) - c0)))"
    umnt
}
theirs() { # theirs RECIPE THREADS
    local ms cpu
    read -r ms cpu < <("$PY" tests/peer/quantize.py "$D/small-f32.gguf" "$D/out.gguf" "$1" --threads "$2" --time) ||
        return
    put "llama_$1_$2" "$(rate "$ms")"
    put "llama_$1_$2_cpu" "$(rate "$cpu")"
    rm -f "$D/out.gguf"
}
for run in $(seq "$RECIPE_RUNS"); do
    for r in $RECIPES; do
        printf "\rquantization: run %d/%d %-10s" "$run" "$RECIPE_RUNS" "$r" >&2
        for th in 1 "$CORES"; do
            ours "$r" "$th"
            theirs "$r" "$th"
        done
    done
done
echo >&2
echo "-- the whole as/<recipe>.gguf of an F32 file of $((NF / 1000000)) M values (fresh mount) against llama_model_quantize"
echo "   of the same file (page-cached): M values per CPU second with one thread, M values/s with $CORES (medians of $RECIPE_RUNS)"
printf "   %-10s %12s %12s %7s   %12s %12s %7s\n" recipe "gguffs 1" "llama 1" "" "gguffs $CORES" "llama $CORES" ""
for r in $RECIPES; do
    printf "   %-10s %12s %12s %6sx   %12s %12s %6sx\n" "$r" "$(medv ours_${r}_1_cpu)" "$(medv llama_${r}_1_cpu)" \
        "$(ratio ours_${r}_1_cpu llama_${r}_1_cpu)" "$(medv ours_${r}_$CORES)" "$(medv llama_${r}_$CORES)" \
        "$(ratio ours_${r}_$CORES llama_${r}_$CORES)"
done
