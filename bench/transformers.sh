#!/bin/bash
# transformers.sh - loading the real Gemma 3 270M Q4_K_M (tests/pyenv.sh gemma) into
# transformers (the pinned peer), float32, each way in its own Python process,
# interleaved in every run (medians of RUNS, [min..max]):
#
#  - from_pretrained(FOLDER, gguf_file=the file): transformers' own GGUF loader
#    (gguf-py reads the header and the 262144-token vocabulary, then dequantizes
#    every tensor in numpy);
#  - from_pretrained(MOUNT/as/hf): model.safetensors of a fresh mount, decoded by
#    gguffs as it is read;
#
# each in seconds from the call to a loaded model whose every weight has been read
# once (transformers maps model.safetensors and reads a weight when it is used;
# imports not counted), the process's peak RSS (torch's own, after import, given
# apart), and for as/hf/ the daemon's peak RSS too.
#
#   bench/transformers.sh           (needs FUSE: run as root; RUNS=3)
# Noisy on a shared 2-vCPU VM: compare figures within one run.
set -u
cd "$(dirname "$0")/.."
GGUFFS=${GGUFFS:-$PWD/gguffs}
PY=${PYTHON:-$(tests/pyenv.sh python)} || exit 1
G=$(tests/pyenv.sh gemma) || exit 1
RUNS=${RUNS:-3}
[ -x "$GGUFFS" ] || { echo "transformers.sh: build gguffs first (make bench)" >&2; exit 2; }

. bench/lib.sh
bench_need_fuse transformers.sh
bench_setup transformers
cat "$G" > /dev/null   # both ways read the file from the page cache

# load WHAT: one load in a fresh Python process; prints "seconds cpu_seconds peak_kb
# import_kb parameters"
load() {
    "$PY" - "$1" "$G" "$M" <<'PY'
import os, resource, sys, time
os.environ.update(TQDM_DISABLE="1", HF_HUB_OFFLINE="1")
import torch, transformers
from transformers import AutoModelForCausalLM
transformers.utils.logging.set_verbosity_error()
torch.set_num_threads(1)
what, gguf, mnt = sys.argv[1:]
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0, c0 = time.perf_counter(), cpu()
if what == "gguf":
    m = AutoModelForCausalLM.from_pretrained(os.path.dirname(gguf), gguf_file=gguf, dtype=torch.float32)
else:
    m = AutoModelForCausalLM.from_pretrained(os.path.join(mnt, "as", "hf"), dtype=torch.float32)
# every weight read once: safetensors are mapped, and read only when used
n = 0
with torch.no_grad():
    for p in m.parameters():
        n += p.numel()
        float(p.float().sum())
t, c = time.perf_counter() - t0, cpu() - c0
print("%.3f %.3f %d %d %d" % (t, c, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, base, n))
PY
}
hwm_kb() { awk '/^VmHWM/ { print $2 }' "/proc/$(pid_of_mount)/status"; }

for run in $(seq "$RUNS"); do
    printf "\rtransformers: run %d/%d " "$run" "$RUNS" >&2
    out=$(load gguf) || exit 1
    read -r s c peak base n <<< "$out"
    put gguf_s "$s"; put gguf_cpu "$c"; put gguf_mb $((peak / 1024)); put base_mb $((base / 1024)); put params "$n"
    "$GGUFFS" "$G" "$M" || exit 1
    d0=$(cpu_ms)
    out=$(load hf) || exit 1
    read -r s c peak base n <<< "$out"
    put hf_s "$s"; put hf_cpu "$(awk -v c="$c" -v a="$d0" -v b="$(cpu_ms)" 'BEGIN { print c + (b - a) / 1000 }')"
    put hf_mb $((peak / 1024)); put base_mb $((base / 1024)); put daemon_mb $(($(hwm_kb) / 1024))
    umnt
done
echo >&2
MED_FORMAT=%.1f
echo "-- Gemma 3 270M Q4_K_M ($(du -m "$G" | cut -f1) MB, $(medv params) parameters) into transformers $("$PY" -c 'import transformers; print(transformers.__version__)' 2>/dev/null), float32"
echo "   to a loaded model, every weight read: seconds; CPU seconds (as/hf: with the daemon's); peak RSS, MB"
echo "   from_pretrained(gguf_file=)   $(med gguf_s)   cpu $(med gguf_cpu)   $(MED_FORMAT=%.0f med gguf_mb)"
echo "   from_pretrained(MOUNT/as/hf)  $(med hf_s)   cpu $(med hf_cpu)   $(MED_FORMAT=%.0f med hf_mb) (+ the daemon's $(MED_FORMAT=%.0f med daemon_mb))"
echo "   as/hf against gguf_file: $(ratio hf_s gguf_s)x the time, $(ratio hf_cpu gguf_cpu)x the CPU, $(ratio hf_mb gguf_mb)x the process's memory"
echo "   (torch and transformers alone, after import: $(medv base_mb) MB)"
