#!/bin/bash
# The views of a model as a new user meets them (issue 33):
#  1. huge metadata: every file listed can be stat'ed and read; a text that would
#     pass 256 MiB is not listed (and as/hf/why says so for the tokenizer files);
#  2. a model rewritten in place: every byte of every view of it fails with ESTALE,
#     its headers (made in memory) included, listed first or not;
#  3. -o direct_io: llama.cpp (node-llama-cpp) loads model.gguf and as/*.gguf with
#     its default mmap, as from a mount without it; the .npy files and
#     model.safetensors map too, while the tensors' own views bypass the page cache.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
M=$TMP/m

# --- 1. huge metadata (each over 256 MiB by the quick estimate): a 40 MiB chat
# template; a template of 44 MiB of control bytes (264 MiB as JSON). Each
# mounted alone (a mount of several would compare them). (30_malformed's
# huge-bool-array: 48 Mi bools, 288 MiB as text, are not listed either.)
mkdir -p "$TMP/big"
"$PY" - "$TOP" "$TMP/big" <<'PY' || fail "the models with huge metadata are made"
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "peer"))
import mkhf
from mkllama import STR, set_kv, write_gguf
kvs, ts = mkhf.make("llama")
tpl = "{{ bos_token }}\n" + "{% if m['role'] == \"user\" %}\t\u00e9\u65e5{% endif %}\n" * (40 * 1024 * 1024 // 48)
for name, key, typ, val in [("tpl", "tokenizer.chat_template", STR, tpl),
                            ("ctrl", "tokenizer.chat_template", STR, "\x01" * (44 << 20))]:
    k = [list(x) for x in kvs]
    set_kv(k, key, typ, val)
    write_gguf(os.path.join(sys.argv[2], name + ".gguf"), k, ts)
PY
for n in tpl ctrl; do
    mount_model "$M.$n" "$TMP/big/$n.gguf"
    check "$n: every file of the mount can be stat'ed (find -printf %s)" sh -c "find '$M.$n' -printf '%s\n' > /dev/null"
done
"$PY" - "$TOP" "$TMP/big" "$M" > "$TMP/big.out" <<'PY'
import json, os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "peer"))
from mkllama import read_gguf
src, m = sys.argv[2], sys.argv[3]
bad = []
for name in ("tpl", "ctrl"):
    key = "tokenizer.chat_template"
    want = next(v for k, t, v in read_gguf(os.path.join(src, name + ".gguf"))[0] if k == key)
    got = open(os.path.join(m + "." + name, "metadata", key), encoding="utf-8", newline="").read()
    if got != want + "\n":
        bad.append(f"{name}: metadata/{key} is not the key's value")
    if name == "tpl":
        j = json.load(open(os.path.join(m + "." + name, "metadata.json"), encoding="utf-8"))
        if j[key]["value"] != want:
            bad.append(f"{name}: metadata.json's {key} is not the key's value")
        c = json.load(open(os.path.join(m + "." + name, "as", "hf", "tokenizer_config.json"), encoding="utf-8"))
        if c.get("chat_template") != want:
            bad.append(f"{name}: tokenizer_config.json's chat_template is not the key's value")
        json.load(open(os.path.join(m + "." + name, "as", "hf", "tokenizer.json"), encoding="utf-8"))
print("\n".join(bad) or "all served")
PY
check "a 40 MiB template is served whole (metadata/, metadata.json, tokenizer_config.json)" \
    sh -c "grep -qx 'all served' '$TMP/big.out' || { cat '$TMP/big.out'; false; }"
check "264 MiB of JSON: metadata.json is not listed" [ ! -e "$M.ctrl/metadata.json" ]
check "... nor the tokenizer files" sh -c "[ \"\$(ls '$M.ctrl/as/hf' | tr '\n' ' ')\" = 'config.json generation_config.json model.safetensors why ' ]"
check "... and as/hf/why says so" grep -qx "tokenizer.json or tokenizer_config.json is more than 256 MiB of text" \
    "$M.ctrl/as/hf/why"
for n in tpl ctrl; do unmount "$M.$n"; done
rm -rf "$TMP/big"

# --- 2. a model rewritten in place (same size, one byte of general.name, as
# dd conv=notrunc does): every view fails from offset 0, whether it was listed
# (its header made) before the change or not, and once its first pages were read
"$PY" - "$TOP" "$TMP/llama.gguf" <<'PY' || fail "the llama is made"
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "peer"))
import mkhf
from mkllama import write_gguf
write_gguf(sys.argv[2], *mkhf.make("llama"))
PY
T=tensors/blk.0.attn_q.weight
VIEWS="model.gguf model.safetensors as/f32.gguf as/f16.gguf as/bf16.gguf as/q8_0.gguf as/hf/model.safetensors
    $T/raw $T/f32 $T/f16 $T/bf16 $T/f32.npy $T/f16.npy $T/stats"
# first bytes of each file: "stale" if the read fails with ESTALE, else what it gave
first_bytes() {
    "$PY" - "$@" <<'PY'
import errno, os, sys
for p in sys.argv[2:]:
    try:
        with open(os.path.join(sys.argv[1], p), "rb", buffering=0) as f:
            print(p, len(f.read(4096)))
    except OSError as e:
        print(p, "stale" if e.errno == errno.ESTALE else e.strerror)
PY
}
at=$(grep -boa "tiny-llama" "$TMP/llama.gguf" | head -n 1 | cut -d: -f1)
for how in listed unlisted read; do
    cp "$TMP/llama.gguf" "$TMP/x.gguf"
    mount_model "$M" "$TMP/x.gguf"
    case $how in
    listed) ls -lR "$M" > /dev/null ;;
    read) first_bytes "$M" $VIEWS > /dev/null ;;
    esac
    printf 'T' | dd of="$TMP/x.gguf" bs=1 seek="$at" conv=notrunc status=none
    first_bytes "$M" $VIEWS > "$TMP/stale.$how"
    check "changed in place ($how before): the first bytes of every view fail with ESTALE" \
        sh -c "! grep -v ' stale\$' '$TMP/stale.$how'"
    unmount "$M"
done
# --- 3. -o direct_io: the files loaders map stay mappable
mount_model "$M" "$TMP/llama.gguf"
check "llama.cpp loads model.gguf and as/q8_0.gguf from a mount without direct_io" \
    node tests/peer/embed.mjs batch "Hello world" embed:"$M/model.gguf":"$TMP/emb.model" embed:"$M/as/q8_0.gguf":"$TMP/emb.q8_0"
unmount "$M"
mount_model "$M" "$TMP/llama.gguf" -o direct_io
check "-o direct_io: llama.cpp loads model.gguf and as/q8_0.gguf with mmap (its default)" \
    node tests/peer/embed.mjs batch "Hello world" embed:"$M/model.gguf":"$TMP/dio.model" embed:"$M/as/q8_0.gguf":"$TMP/dio.q8_0"
for f in model q8_0; do
    check "... $f computes what it computes without direct_io" cmp -s "$TMP/dio.$f" "$TMP/emb.$f"
done
"$PY" - "$M" "$T" > "$TMP/mmap.out" <<'PY'
import errno, mmap, os, sys
m, t = sys.argv[1], sys.argv[2]
for p in ("model.gguf", "as/f16.gguf", "model.safetensors", "as/hf/model.safetensors", t + "/f32.npy", t + "/f32"):
    with open(os.path.join(m, p), "rb") as f:
        try:
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                print(p, "mapped" if mm[:64] == f.read(64) else "differs")
        except OSError as e:
            print(p, errno.errorcode[e.errno])
PY
check "-o direct_io: shared mmap of model.gguf, as/, model.safetensors and .npy works; f32 bypasses the page cache (ENODEV)" \
    sh -c "[ \"\$(cut -d' ' -f2 '$TMP/mmap.out' | tr '\n' ' ')\" = 'mapped mapped mapped mapped mapped ENODEV ' ] || { cat '$TMP/mmap.out'; false; }"
unmount "$M"

finish 85_views
