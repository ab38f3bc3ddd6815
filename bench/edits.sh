#!/bin/bash
# edits.sh - editing metadata (-o edits=, issue 35), each figure against a
# baseline measured in the same run (medians of RUNS, [min..max]):
#
#  - a 64 GiB sparse model of 2048 tensors and a 131072-token vocabulary
#    (bench/fsbench sparse): general.name written (open, write, close: the
#    edit applied, the edits file saved with fsync, a new version of the
#    tree) until model.gguf shows it (open and read its first 64 KiB), with
#    the edits file on disk and on tmpfs (no fsync cost); what the daemon
#    read of the model meanwhile (its preads, under strace in one more,
#    untimed, mount: no tensor byte) and decoded;
#  - llama.cpp (tests/peer/embed.mjs, one thread) loading, then embedding
#    with, the real Gemma 3 270M Q4_K_M (tests/pyenv.sh gemma): from the
#    file, from model.gguf of a mount without edits (the file's bytes), and
#    from model.gguf of a mount with general.name edited (a new header, then
#    the file's data section), interleaved; the three embeddings must be
#    bit-identical;
#  - gguf-py's gguf_new_metadata making the same edit: a copy of Gemma (and
#    gguffs --set + --cat making one too), and of the 64 GiB sparse model
#    into /dev/null (reading and writing 64 GiB: what any rewrite costs).
#
#   bench/edits.sh            (needs FUSE: run as root; RUNS=5, EDITS=20)
# Noisy on a shared 2-vCPU VM: compare figures within one run.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
GGUFFS=${GGUFFS:-$PWD/gguffs}
FSB=$BUILD/bench/fsbench
PY=${PYTHON:-$(tests/pyenv.sh python)} || exit 1
GEMMA=$(tests/pyenv.sh gemma) || exit 1
RUNS=${RUNS:-5}
EDITS=${EDITS:-20}
[ -x "$GGUFFS" ] && [ -x "$FSB" ] || { echo "edits.sh: build gguffs and $FSB first (make bench)" >&2; exit 2; }

. bench/lib.sh
bench_need_fuse edits.sh
bench_setup edits
SHM=$(mktemp -d /dev/shm/gguffs-bench-edits.XXXXXX)
M2=$D/mnt2
mkdir -p "$M2"
bench_cleanup() {
    grep -qs " $M2 fuse" /proc/mounts && fusermount3 -u "$M2"
    rm -rf "$SHM"
}
MED_FORMAT=%7.2f

# --- 1. an edit of a 64 GiB model, until model.gguf shows it
"$FSB" sparse "$D/sparse.gguf" 2048 4096 7711 131072 || exit 1
DATA=$("$GGUFFS" --dump --json "$D/sparse.gguf" | jq .data_offset)
for where in disk tmpfs strace; do
    ef=$D/sparse.edits.json
    [ $where = tmpfs ] && ef=$SHM/sparse.edits.json
    for run in $(seq "$([ $where = strace ] && echo 1 || echo "$RUNS")"); do
        printf "\r64 GiB, edits file on %s: run %d/%d " "$where" "$run" "$RUNS" >&2
        rm -f "$ef"
        mnt "$D/sparse.gguf" -o edits="$ef"
        head -c 65536 "$M/model.gguf" > /dev/null
        if [ $where = strace ]; then
            strace -f -qq -e trace=pread64 -o "$D/pread.log" -p "$(pid_of_mount)" &
            tracer=$!
            sleep 1
        fi
        "$PY" - "$M" "$EDITS" <<'PY' | while read -r k v; do put "${where}_$k" "$v"; done
import os, sys, time
m, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    name = b"edited name %d" % i
    t0 = time.perf_counter()
    fd = os.open(m + "/metadata/general.name", os.O_WRONLY | os.O_TRUNC)
    os.write(fd, name + b"\n")
    os.close(fd)  # (the edit is in when close returns)
    t1 = time.perf_counter()
    with open(m + "/model.gguf", "rb", buffering=0) as f:
        head = f.read(65536)
    t2 = time.perf_counter()
    assert name in head, "model.gguf does not show the edit"
    print("edit", round((t1 - t0) * 1000, 3))
    print("shown", round((t2 - t1) * 1000, 3))
    print("total", round((t2 - t0) * 1000, 3))
PY
        put "${where}_decoded" "$(stat_of bytes_decoded)"
        size=$(stat -c %s "$M/model.gguf")
        if [ $where = strace ]; then
            kill "$tracer"
            wait "$tracer" 2> /dev/null
            # (the control: a MiB of model.gguf's data is read by preads that this counts)
            strace -f -qq -e trace=pread64 -o "$D/pread-data.log" -p "$(pid_of_mount)" &
            tracer=$!
            sleep 1
            dd if="$M/model.gguf" of=/dev/null bs=1M skip=1024 count=1 status=none
            kill "$tracer"
            wait "$tracer" 2> /dev/null
        fi
        umnt
    done
done
# pread64(fd, buf, count, offset) = bytes: those at or past the data are tensor bytes
tensor_preads() { awk -v d="$DATA" -F', ' '/pread64\(/ { split($NF, a, ")"); if (a[1] + 0 >= d) n++ } END { print n + 0 }' "$1"; }
preads=$(grep -c 'pread64(' "$D/pread.log")
echo >&2
echo "-- general.name of a 64 GiB sparse model (2048 tensors, 131072 tokens; data at $DATA) edited $EDITS times per mount, $RUNS mounts"
for where in disk tmpfs; do
    echo "   edits file on $where: write and close $(med ${where}_edit) ms, then model.gguf's first 64 KiB" \
        "$(med ${where}_shown) ms: edit to shown $(med ${where}_total) ms"
done
echo "   what the daemon read of the model for $EDITS edits and reads: $preads preads, $(tensor_preads "$D/pread.log") of" \
    "them of tensor data (a MiB of model.gguf's data afterwards: $(tensor_preads "$D/pread-data.log")); bytes decoded" \
    "$(medv disk_decoded); model.gguf $size bytes (the file: $(stat -c %s "$D/sparse.gguf"))"

# --- 2. llama.cpp loads the edited model.gguf
cat "$GEMMA" > /dev/null
mnt "$GEMMA"
"$GGUFFS" -o edits="$D/gemma.edits.json" "$GEMMA" "$M2" || exit 1
echo "Gemma edited" > "$M2/metadata/general.name"
TEXT="The quick brown fox jumps over the lazy dog."
for run in $(seq "$RUNS"); do
    printf "\rllama.cpp: run %d/%d " "$run" "$RUNS" >&2
    for src in file:"$GEMMA" plain:"$M/model.gguf" edited:"$M2/model.gguf"; do
        EMBED_TIMING=1 node tests/peer/embed.mjs embed "${src#*:}" "$TEXT" "$D/${src%%:*}.e" 2> "$D/t.err" ||
            { cat "$D/t.err" >&2; exit 1; }
        put "load_${src%%:*}" "$(awk '$1 == "timing_ms" && $2 == "embed" { print $5 }' "$D/t.err")"
        put "eval_${src%%:*}" "$(awk '$1 == "timing_ms" && $2 == "embed" { print $9 }' "$D/t.err")"
    done
done
echo >&2
same=$(cmp -s "$D/file.e" "$D/plain.e" && cmp -s "$D/file.e" "$D/edited.e" && echo "bit-identical" || echo "DIFFERENT")
echo "-- llama.cpp (one thread) loading Gemma 3 270M Q4_K_M ($(($(stat -c %s "$GEMMA") >> 20)) MiB), then one embedding (embeddings $same)"
for s in file plain edited; do
    echo "   $(printf '%-7s' $s) load $(med load_$s) ms ($(ratio load_$s load_file)x the file), embedding $(med eval_$s) ms"
done
umnt
fusermount3 -u "$M2"

# --- 3. gguf_new_metadata: the same edit as a new file
for run in $(seq "$RUNS"); do
    printf "\rgguf_new_metadata: run %d/%d " "$run" "$RUNS" >&2
    rm -f "$D/nm.gguf" "$D/cat.gguf" "$D/set.edits.json"
    t0=$(now)
    "$PY" -m gguf.scripts.gguf_new_metadata "$GEMMA" "$D/nm.gguf" --general-name "Gemma edited" --force > /dev/null 2>&1 ||
        { echo "gguf_new_metadata failed" >&2; exit 1; }
    put nm_gemma $((($(now) - t0) / 1000000))
    t0=$(now)
    "$GGUFFS" --set "general.name=Gemma edited" -o edits="$D/set.edits.json" "$GEMMA" 2> /dev/null &&
        "$GGUFFS" --cat -o edits="$D/set.edits.json" "$GEMMA" model.gguf > "$D/cat.gguf"
    put cat_gemma $((($(now) - t0) / 1000000))
done
echo >&2
t0=$(now)
timeout 900 "$PY" -m gguf.scripts.gguf_new_metadata "$D/sparse.gguf" /dev/null --general-name "edited" --force \
    > /dev/null 2>&1 && nm64=$((($(now) - t0) / 1000000)) || nm64="- (failed or over 900 s)"
echo "-- the same edit as a new file"
echo "   Gemma (253 MB): gguf_new_metadata $(med nm_gemma) ms, gguffs --set then --cat > file $(med cat_gemma) ms" \
    "($(ratio nm_gemma cat_gemma)x)"
echo "   64 GiB sparse: gguf_new_metadata into /dev/null $nm64 ms (once), against an edit shown in" \
    "$(med disk_total) ms on a mount"
