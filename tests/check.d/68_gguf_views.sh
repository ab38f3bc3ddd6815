#!/bin/bash
# model.gguf and as/{f32,f16,bf16,q8_0}.gguf (or as/why), against the real
# llama.cpp and ggml (tests/peer: npm node-llama-cpp 3.21.1; every recipe of
# as/ against llama-quantize: 84_recipes):
#  - a tiny llama with the real llama-spm vocabulary (tests/data/real),
#    its 2-D weights quantized by ggml to seven mainline types: model.gguf
#    is the file; as/f32.gguf is byte for byte the F32 GGUF of ggml's own
#    dequantization (mkllama.py --ref-f32) and llama.cpp (one thread) gives
#    bit-identical embeddings and next-token probabilities from both; as/f16,
#    bf16 and q8_0 are byte for byte the files llama_model_quantize makes of
#    it (tests/peer/quantize.py) and run close (cosine printed); ggml's
#    gguf_init_from_file parses model.gguf and as/f32.gguf, with the keys,
#    types, file type and offsets tests/check_views.py expects;
#  - nothing is decoded for ls -l or a view's header; random preads, mmap,
#    a 1 MiB cache (memory bounded by it);
#  - a split set's model.gguf is the unsplit file (and runs the same);
#  - as/f32.gguf of the ik_llama.cpp and fork reference files parses with
#    mainline ggml and holds the reference f32 values;
#  - odd shapes (rows not a multiple of 32, [64, 1], 4-D, which
#    llama-quantize cannot quantize: it aborts), a 64-byte alignment, no
#    general.file_type, a GGUF v1 file: ggml parses as/f16, bf16 and q8_0
#    and their blocks are ggml's of the as/f32.gguf values;
#  - as/why for tensors that cannot be decoded;
#  - a remote model (nginx, tests/net) and an Ollama store entry have a
#    working as/bf16.gguf and model.gguf.
# Only the nginx started here is stopped (by PID).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/net/netlib.sh"
cd "$TOP"
MK=tests/peer/mkllama.py
CV=tests/check_views.py
EMB=tests/peer/embed.mjs
M=$TMP/m
TEXT="The quick brown fox jumps over the lazy dog, and then it naps."
# cv MODE ARGS...: a check_views.py mode (its own counts; a failure also fails here, once)
cv() { "$PY" "$CV" "$@" > "$TMP/cv.out" || { cat "$TMP/cv.out"; fail "check_views.py $*"; return; }; grep -v "^check_views" "$TMP/cv.out"; }
# embed JOB...: llama.cpp (one thread) on each MODE:MODEL:OUT
embed() { node "$EMB" batch "$TEXT" "$@" 2> "$TMP/embed.err" || { cat "$TMP/embed.err"; fail "llama.cpp: $*"; }; }

check "node and the real llama.cpp are installed (tests/deps.sh)" \
    sh -c "[ -f tests/peer/node_modules/node-llama-cpp/package.json ] && command -v node > /dev/null"

# --- 1. a tiny llama
TYPES=Q4_K,Q6_K,IQ4_XS,Q5_0,Q3_K,IQ3_S,Q5_K
t0=$(date +%s)
"$PY" $MK model "$TMP/q.gguf" --type $TYPES --ref-f32 "$TMP/ref.gguf" 2> "$TMP/mk.log" || fail "mkllama.py model"
for t in f16 bf16 q8_0; do
    "$PY" tests/peer/quantize.py "$TMP/ref.gguf" "$TMP/conv-$t.gguf" $t || fail "llama_model_quantize $t"
done
echo "models made by ggml and llama-quantize in $(($(date +%s) - t0)) s: $(awk '{ print $2 }' "$TMP/mk.log" | sort | uniq -c | xargs)"
mount_model "$M" "$TMP/q.gguf" -o as=f32,f16,bf16,q8_0
check "as/ holds the four views of -o as= (and hf/)" [ "$(ls "$M/as" | xargs)" = "bf16.gguf f16.gguf f32.gguf hf q8_0.gguf" ]
check "model.gguf of a file is the file" cmp "$M/model.gguf" "$TMP/q.gguf"
check "as/f32.gguf is ggml's dequantization, byte for byte (mkllama.py --ref-f32)" cmp "$M/as/f32.gguf" "$TMP/ref.gguf"
for t in f16 bf16 q8_0; do
    check "as/$t.gguf is llama-quantize's file of as/f32.gguf, byte for byte" cmp "$M/as/$t.gguf" "$TMP/conv-$t.gguf"
done
cv parse "$TMP/q.gguf" "$M/as/f32.gguf" f32
cv parse "$TMP/q.gguf" "$M/model.gguf" raw
E=$TMP/out
mkdir -p "$E"
jobs=""
for m in ref:"$TMP/ref.gguf" f32:"$M/as/f32.gguf" q:"$TMP/q.gguf" model:"$M/model.gguf" f16:"$M/as/f16.gguf" \
    bf16:"$M/as/bf16.gguf" q8_0:"$M/as/q8_0.gguf"; do
    jobs="$jobs embed:${m#*:}:$E/${m%%:*}.e probs:${m#*:}:$E/${m%%:*}.p"
done
t0=$(date +%s%N)
embed $jobs
echo "llama.cpp ran 14 jobs from the mount and the disk in $((($(date +%s%N) - t0) / 1000000)) ms"
check "llama.cpp: as/f32.gguf gives the embedding of ggml's F32 model, bit for bit" cmp "$E/f32.e" "$E/ref.e"
check "llama.cpp: as/f32.gguf gives its next-token probabilities, bit for bit" cmp "$E/f32.p" "$E/ref.p"
check "llama.cpp: model.gguf gives the file's embedding, bit for bit" cmp "$E/model.e" "$E/q.e"
check "llama.cpp: model.gguf gives the file's probabilities, bit for bit" cmp "$E/model.p" "$E/q.p"
for t in f16:0.9999 bf16:0.999 q8_0:0.995; do
    cv cos "as/${t%:*}.gguf embedding" "$E/ref.e" "$E/${t%:*}.e" ${t#*:}
    cv cos "as/${t%:*}.gguf probabilities" "$E/ref.p" "$E/${t%:*}.p" ${t#*:}
done
unmount "$M"

# --- 2. lazy: nothing decoded to list as/ or read a view's header; random
# reads; mmap; a cache of 1 MiB
mount_model "$M" "$TMP/q.gguf" -o direct_io
ls -l "$M" "$M/as" > /dev/null
"$PY" - "$M" "$TMP" > "$TMP/hdr.out" <<'PY' || fail "reading the views' headers"
import os, sys
sys.path.insert(0, "tests")
import gguf_tool as gt
# Each view's header is as long as that of the file it equals (the model's
# for f32, llama-quantize's for the others): exactly that many bytes are
# read, one request each (O_DIRECT: -o direct_io leaves the files loaders
# map in the page cache, which reads ahead).
for v, ref in (("f32", "ref"), ("f16", "conv-f16"), ("bf16", "conv-bf16"), ("q8_0", "conv-q8_0")):
    n = gt.read(open(f"{sys.argv[2]}/{ref}.gguf", "rb").read(4 << 20)).data_offset
    with open(os.open(f"{sys.argv[1]}/as/{v}.gguf", os.O_RDONLY | os.O_DIRECT), "rb", buffering=0) as f:
        h = gt.read(f.read(n))
        assert h.data_offset == n, (v, h.data_offset, n)
        print(v, len(h.tensors), "tensors, data at", h.data_offset)
PY
cat "$TMP/hdr.out"
check "ls -l and four headers decoded nothing (bytes_decoded $(stat_of "$M" bytes_decoded))" \
    [ "$(stat_of "$M" bytes_decoded)" = 0 -a "$(stat_of "$M" page_reads)" = 0 -a "$(stat_of "$M" bytes_quantized)" = 0 ]
"$PY" tests/check_export.py preads "$M/as/q8_0.gguf" "$M/as/bf16.gguf" "$M/as/f32.gguf" | tail -n 1 ||
    fail "random preads of the views"
check "a data read decodes (so the check above can fail)" [ "$(stat_of "$M" bytes_decoded)" != 0 ]
unmount "$M"
mount_model "$M" "$TMP/q.gguf" -o cache_size=1M,page_size=64K
"$PY" - "$M/as/q8_0.gguf" "$TMP/conv-q8_0.gguf" <<'PY' || fail "mmap of as/q8_0.gguf"
import mmap, random, sys
a = open(sys.argv[1], "rb")
m = mmap.mmap(a.fileno(), 0, access=mmap.ACCESS_READ)
want = open(sys.argv[2], "rb").read()
r = random.Random(5)
assert len(m) == len(want)
for _ in range(300):
    o = r.randrange(len(want)); n = r.choice([1, 34, 4096, 100000])
    assert m[o:o + n] == want[o:o + n], o
print("mmap: 300 random slices of as/q8_0.gguf")
PY
check "as/q8_0.gguf through a 1 MiB cache" cmp "$M/as/q8_0.gguf" "$TMP/conv-q8_0.gguf"
check "the cache held at most its 1 MiB ($(stat_of "$M" cache_resident_bytes) bytes)" \
    [ "$(stat_of "$M" cache_resident_bytes)" -le 1048576 ]
unmount "$M"

# --- 3. a split set: one merged GGUF
"$PY" $MK model "$TMP/s.gguf" --type $TYPES --split 2> /dev/null || fail "mkllama.py model --split"
mount_model "$M" "$TMP/s-00002-of-00002.gguf"
check "the merged model.gguf of a split set is the unsplit file" cmp "$M/model.gguf" "$TMP/q.gguf"
cv parse "$TMP/s-00001-of-00002.gguf" "$M/model.gguf" raw
check "as/q8_0.gguf of the split set is the file's" cmp "$M/as/q8_0.gguf" "$TMP/conv-q8_0.gguf"
embed embed:"$M/model.gguf":"$E/split.e"
check "llama.cpp: the merged model.gguf gives the unsplit file's embedding, bit for bit" cmp "$E/split.e" "$E/q.e"
unmount "$M"

# --- 4. the ik_llama.cpp and fork reference files: as/f32.gguf for mainline ggml
refs() { # refs GGUF MANIFEST [FILE] [gguffs options]
    local f=$1 man=$2 file=${3:-}
    shift 3 2> /dev/null || shift $#
    "$GGUFFS" --cat "$@" "$f" as/f32.gguf > "$TMP/refs.gguf" || fail "--cat $f as/f32.gguf"
    cv refs "$TMP/refs.gguf" "$man" $file
}
refs "$DATA/ik/ik.gguf" "$DATA/ik/manifest.tsv"
refs "$DATA/mainline/mainline.gguf" "$DATA/mainline/manifest.tsv"
for f in prism stq1_0-id42 stq1_0-id43 forks-rawbytes; do
    refs "$DATA/forks/$f.gguf" "$DATA/forks/manifest.tsv" $f.gguf
done
for f in stq1_0-id42 stq1_0-id43 forks-rawbytes; do
    refs "$DATA/forks/stq1_0-consecutive/$f.gguf" "$DATA/forks/stq1_0-consecutive/manifest.tsv" $f.gguf \
        -o stq1_0_order=consecutive
done

# --- 5. odd shapes, a 64-byte alignment, no general.file_type; a GGUF v1 file
"$PY" - "$TMP" <<'PY' || fail "making odd.gguf and v1.gguf"
import sys
import numpy as np
sys.path.insert(0, "tests"); sys.path.insert(0, "tests/peer")
import gguf_tool as gt, mkllama as mk
d = sys.argv[1]
r = np.random.default_rng(3)
def f32(*ne):
    return mk.Tensor("", list(ne), "f32", r.standard_normal(int(np.prod(ne))).astype(np.float32).tobytes())
ts = []
for name, ne, t in [("rows48.weight", [48, 4], "f32"), ("col.weight", [64, 1], "f32"), ("half.weight", [64, 4], "f16"),
                    ("norm", [64], "f32"), ("four.weight", [32, 2, 1, 3], "q8_0"), ("q4.weight", [256, 2], "q4_K")]:
    v = r.standard_normal(int(np.prod(ne))).astype(np.float32)
    ts.append(mk.Tensor(name, ne, t, mk.quantize(t, v, ne) if t != "f32" else v.tobytes()))
kvs = [["general.architecture", mk.STR, "odd"], ["general.alignment", mk.U32, 64],
       ["odd.list", mk.ARR, (mk.STR, ["a", "b\nc", ""])], ["odd.nums", mk.ARR, (mk.I16, [1, -2, 3])]]
mk.write_gguf(d + "/odd.gguf", kvs, ts)
kvs = [("general.architecture", gt.STR, "v1"), ("v1.words", gt.ARR, (gt.STR, [b"x", b"yz"])), ("v1.f", gt.F32, 0.5)]
w = [("w", [32, 2], 0, np.arange(64, dtype="<f4").tobytes())]
gt.write(d + "/v1.gguf", version=1, kvs=kvs, tensors=w)
# arrays of arrays (which ggml refuses, gguffs reads)
gt.write(d + "/v1n.gguf", version=1, tensors=w, kvs=kvs + [("v1.nested", gt.ARR, (gt.ARR, [(gt.U8, [1, 2]), (gt.STR, [b"q"])]))])
PY
"$GGUFFS" --cat "$TMP/odd.gguf" as/f32.gguf > "$TMP/odd-f32.gguf" || fail "--cat odd.gguf as/f32.gguf"
cv parse "$TMP/odd.gguf" "$TMP/odd-f32.gguf" f32
for t in f16 bf16 q8_0; do
    "$GGUFFS" --cat "$TMP/odd.gguf" as/$t.gguf > "$TMP/odd-view.gguf" || fail "--cat odd.gguf as/$t.gguf"
    cv blocks "$TMP/odd-view.gguf" "$TMP/odd-f32.gguf" rows48.weight:${t/q8_0/f16} col.weight:f32 half.weight:$t \
        norm:f32 four.weight:$t q4.weight:$t
done
"$GGUFFS" --cat "$TMP/v1.gguf" as/f32.gguf > "$TMP/v1-f32.gguf" || fail "--cat v1.gguf as/f32.gguf"
cv parse "$TMP/v1.gguf" "$TMP/v1-f32.gguf" f32
"$GGUFFS" --cat "$TMP/v1n.gguf" as/f32.gguf > "$TMP/v1n-f32.gguf" || fail "--cat v1n.gguf as/f32.gguf"
"$GGUFFS" --cat "$TMP/v1n.gguf" metadata.json > "$TMP/v1.json"
"$GGUFFS" --cat "$TMP/v1n-f32.gguf" metadata.json > "$TMP/v1-f32.json"
check "a GGUF v1 file's as/f32.gguf (v3: lengths widened, nested arrays too) holds the same keys and values" \
    "$PY" -c "
import json, sys
a, b = json.load(open('$TMP/v1.json')), json.load(open('$TMP/v1-f32.json'))
assert b.pop('general.file_type') == {'type': 'u32', 'value': 0}, b
assert list(a) == list(b) and a == b and len(a) == 4, (a, b)"

# an alignment of 2^30: its padding is zeros that nothing holds in memory
"$PY" -c "
import struct, sys; sys.path.insert(0, 'tests'); import gguf_tool as g
h = b'GGUF' + struct.pack('<IQQ', 3, 1, 1) + g.enc_string('general.alignment') + struct.pack('<II', g.U32, 1 << 30)
h += g.enc_string('w') + struct.pack('<IQIQ', 1, 4, 0, 0)
with open('$TMP/align.gguf', 'wb') as f:
    f.write(h); f.seek(1 << 30); f.write(struct.pack('<4f', 1, 2, 3, 4))"
mount_model "$M" "$TMP/align.gguf" -o direct_io
check "alignment 2^30: as/f32.gguf is 2 GiB (header and tensor each padded)" [ "$(stat -c %s "$M/as/f32.gguf")" = $((2 << 30)) ]
check "alignment 2^30: the tensor lies at 1 GiB" cmp <(dd if="$M/as/q8_0.gguf" bs=16 skip=$((1 << 26)) count=1 status=none) \
    <("$PY" -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<4f', 1, 2, 3, 4))")
check "alignment 2^30: the daemon holds $(awk '/VmRSS/ { print $2 }' /proc/$(pgrep -f "^$GGUFFS .*$M\$" | head -1)/status) KiB" \
    [ "$(awk '/VmRSS/ { print $2 }' /proc/$(pgrep -f "^$GGUFFS .*$M\$" | head -1)/status)" -lt 200000 ]
unmount "$M"

# --- 6. as/why: tensors that cannot be decoded
"$PY" -c "
import sys; sys.path.insert(0, 'tests'); import gguf_tool as g, struct
g.write('$TMP/why.gguf', kvs=[('general.architecture', g.STR, 'llama')],
        tensors=[('fine', [4], 0, struct.pack('<4f', 1, 2, 3, 4)), ('bad\tname', [64], 250, bytes(64)),
                 ('odd', [32, 4], 31, bytes(72))])"
mount_model "$M" "$TMP/why.gguf"
check "as/ of a model with undecodable tensors holds only why (and hf/)" [ "$(ls "$M/as" | xargs)" = "hf why" ]
check "as/why names each such tensor (escaped), its type and why" "$PY" -c "
t = open('$M/as/why').read().splitlines()
assert t[0].startswith('# no as/*.gguf') and '2 tensors cannot be decoded' in t[0], t
rows = [l.split('\t') for l in t[2:]]
assert rows[0][:2] == ['bad\\\\tname', 'id 250'] and 'unsupported type 250' in rows[0][2], rows
assert rows[1][:2] == ['odd', 'Q4_0_4_4'] and 'no decoder' in rows[1][2] and len(rows) == 2, rows"
check "no as/f32.gguf there (ENOENT)" sh -c "! cat '$M/as/f32.gguf' 2> /dev/null"
check "model.gguf is still the file" cmp "$M/model.gguf" "$TMP/why.gguf"
check "--cat as/why gives the mount's bytes" cmp <("$GGUFFS" --cat "$TMP/why.gguf" as/why) "$M/as/why"
unmount "$M"

# --- 7. a remote model (nginx) and an Ollama store entry
W=$TMP/www
mkdir -p "$W" "$TMP/ollama"
cp "$TMP/q.gguf" "$W/"
"$PY" - "$TMP/ollama" "$TMP/q.gguf" <<'PY' || fail "making the Ollama store"
import os, sys
sys.path.insert(0, "tests")
import make_stores as s
os.makedirs(sys.argv[1] + "/blobs")
s.ollama_manifest(sys.argv[1], "manifests/registry.ollama.ai/library/tiny/latest",
                  [(s.MODEL_MT, s.blob(sys.argv[1], open(sys.argv[2], "rb").read()))])
PY
if net_start start "$W" "$TMP/web"; then
    . "$TMP/web/env"
    mount_model "$M" "$HTTP_URL/q.gguf" -o timeout=10,cache_dir="$TMP/cache"
    check "remote: as/bf16.gguf is the local one" cmp "$M/as/bf16.gguf" "$TMP/conv-bf16.gguf"
    check "remote: model.gguf is the file" cmp "$M/model.gguf" "$TMP/q.gguf"
    check "remote: blocks came through the disk cache" [ "$(stat_of "$M" net_disk_cache_misses)" -gt 0 ]
    embed embed:"$M/as/bf16.gguf":"$E/remote.e"
    check "remote: llama.cpp runs as/bf16.gguf as the local one" cmp "$E/remote.e" "$E/bf16.e"
    unmount "$M"
    check "--cat URL as/bf16.gguf" cmp <("$GGUFFS" --cat -o timeout=10 "$HTTP_URL/q.gguf" as/bf16.gguf) \
        "$TMP/conv-bf16.gguf"
    net_stop "$TMP/web"
else
    fail "servers.sh start"
fi
mount_model "$M" "$TMP/ollama" -o model_memory=64M
check "Ollama store: tiny:latest/as/bf16.gguf is the file's" cmp "$M/tiny:latest/as/bf16.gguf" "$TMP/conv-bf16.gguf"
check "Ollama store: tiny:latest/model.gguf is the blob" cmp "$M/tiny:latest/model.gguf" "$TMP/q.gguf"
embed embed:"$M/tiny:latest/as/bf16.gguf":"$E/store.e"
check "Ollama store: llama.cpp runs its as/bf16.gguf" cmp "$E/store.e" "$E/bf16.e"
unmount "$M"
finish 68_gguf_views
