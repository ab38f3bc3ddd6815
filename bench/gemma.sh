#!/bin/bash
# gemma.sh - llama.cpp on a real model (Gemma 3 270M Q4_K_M, tests/pyenv.sh gemma):
# load and first token (tests/peer/llama.py first-token: one thread, a 12-token
# prompt) from the file on disk (page-cached), from MOUNT/model.gguf and from
# MOUNT/as/f32.gguf, each mount fresh, interleaved in one run; medians of RUNS
# [min..max] in ms, and each against the file.
#
#   bench/gemma.sh             (needs FUSE: run as root; RUNS=5)
# Noisy on a shared 2-vCPU VM: compare figures within one run.
set -u
cd "$(dirname "$0")/.."
GGUFFS=${GGUFFS:-$PWD/gguffs}
PY=${PYTHON:-$(tests/pyenv.sh python)} || exit 1
G=$(tests/pyenv.sh gemma) || exit 1
RUNS=${RUNS:-5}
PROMPT="The three largest cities of Japan are Tokyo, Osaka and"
[ -x "$GGUFFS" ] || { echo "gemma.sh: build gguffs first (make)" >&2; exit 2; }

. bench/lib.sh
bench_need_fuse gemma.sh
bench_setup gemma
MED_FORMAT=%6.0f
cat "$G" > /dev/null
ft() { # ft MODEL NAME: one run's figures, put under NAME_*
    "$PY" tests/peer/llama.py first-token "$1" "$PROMPT" | awk -v n="$2" \
        '{ printf "%s_load %s\n%s_first %s\n%s_total %s\n%s_token %s\n", n, $2, n, $6, n, $2 + $4 + $6, n, $8 }' |
        while read -r k v; do put "$k" "$v"; done
}
for run in $(seq "$RUNS"); do
    printf "\rllama.cpp: run %d/%d " "$run" "$RUNS" >&2
    ft "$G" file
    for v in model as/f32; do
        "$GGUFFS" "$G" "$M" || { echo "gemma.sh: mount failed" >&2; exit 1; }
        ft "$M/$v.gguf" "${v#as/}"
        umnt
    done
done
echo >&2
echo "-- llama.cpp, one thread, Gemma 3 270M Q4_K_M ($(($(stat -c %s "$G") >> 20)) MiB; as/f32.gguf" \
    "$(( $("$GGUFFS" --cat "$G" summary.json | awk -F'[:,]' '/"parameters"/ { print $2 }') * 4 >> 20 )) MiB of f32), fresh mounts: ms"
printf "   %-22s %-22s %-22s %-22s %s\n" "" load "first token" "in all" "in all / file's"
for w in file model f32; do
    name=$w
    [ $w = model ] && name=MOUNT/model.gguf
    [ $w = f32 ] && name=MOUNT/as/f32.gguf
    printf "   %-22s %-22s %-22s %-22s %s\n" "$name" "$(med ${w}_load)" "$(med ${w}_first)" "$(med ${w}_total)" \
        "$(ratio ${w}_total file_total)x"
done
echo "   first token: file $(sort -u "$R/file_token" | tr '\n' ' ')model.gguf $(sort -u "$R/model_token" | tr '\n' ' ')as/f32.gguf $(sort -u "$R/f32_token" | tr '\n' ' ')"
