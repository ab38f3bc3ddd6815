#!/bin/bash
# What the tree looks like and how it behaves: name escaping and listing
# order, nested arrays, unknown type ids, truncated files, read-only-ness,
# modes and times.
. "$(dirname "$0")/../lib.sh"
M=$TMP/m

$PY - "$TMP" <<'PY'
import sys, struct
sys.path.insert(0, "tests")
import gguf_tool as g
tmp = sys.argv[1]
f32 = lambda *v: struct.pack("<%df" % len(v), *v)
g.write(tmp + "/names.gguf",
        kvs=[("general.name", g.STR, "names"), ("k/slash%", g.STR, "v"), (".", g.U32, 1), ("..", g.U32, 2),
             ("", g.U32, 3), ("nested.u32", g.ARR, (g.ARR, [(g.U32, [1, 2]), (g.U32, []), (g.U32, [3])])),
             ("nested.str", g.ARR, (g.ARR, [(g.STR, [b"a\"b", b"c\nd"])])),
             ("str.nul", g.STR, b"a\0b"), ("f32.list", g.ARR, (g.F32, [0.1, -0.0, float("inf"), 1e-5]))],
        tensors=[("a/b%c", [4], 0, f32(1, 2, 3, 4)), (".", [2], 0, f32(5, 6)), ("..", [2], 0, f32(7, 8)),
                 ("", [1], 0, f32(9)), ("z.weight", [2, 2], 0, f32(1, 2, 3, 4))])
# The mainline reference with tensor Q4_K's type id patched to 250.
b = bytearray(open("tests/data/mainline/mainline.gguf", "rb").read())
h = g.read(bytes(b))
t = next(t for t in h.tensors if t["name"] == b"Q4_K")
struct.pack_into("<I", b, t["type_field_offset"], 250)
open(tmp + "/unknown.gguf", "wb").write(b)
# Truncated inside the last tensor.
open(tmp + "/truncated.gguf", "wb").write(open("tests/data/mainline/mainline.gguf", "rb").read()[:-100])
PY

# --- names and order
mount_model "$M" "$TMP/names.gguf"
check "tensor names escaped, file order" [ "$(ls -U "$M/tensors" | tr '\n' ' ')" = "a%2Fb%25c %2E %2E%2E % z.weight " ]
check "key names escaped, file order" [ "$(ls -U "$M/metadata" | tr '\n' ' ')" = "general.name k%2Fslash%25 %2E %2E%2E % nested.u32 nested.str str.nul f32.list " ]
check "value behind an escaped key" [ "$(cat "$M/metadata/k%2Fslash%25")" = v ]
check "empty key's file" [ "$(cat "$M/metadata/%")" = 3 ]
check "tensor called .." [ "$(od -An -t f4 "$M/tensors/%2E%2E/f32" | tr -s ' ')" = " 7 8" ]
check "nested arrays one line each" [ "$(cat "$M/metadata/nested.u32")" = "[1, 2]
[]
[3]" ]
check "nested string arrays as JSON" [ "$(cat "$M/metadata/nested.str")" = '["a\"b", "c\nd"]' ]
check "string with NUL kept exactly" [ "$(od -An -c "$M/metadata/str.nul" | tr -s ' ')" = ' a \0 b \n' ]
check "f32 list text" [ "$(cat "$M/metadata/f32.list" | tr '\n' ' ')" = "0.1 -0.0 inf 1e-05 " ]
check "metadata.json nested" $PY -c "
import json,sys; m=json.load(open('$M/metadata.json'))
assert m['nested.u32'] == {'type':'arr','arr_type':'arr','n':3,'value':[[1,2],[],[3]]}, m['nested.u32']
assert m['f32.list']['value'] == [0.1, -0.0, 'inf', 1e-05]
assert m['str.nul']['value'] == 'a\x00b'"
check "tensors.tsv escapes nothing but tab/newline/backslash" [ "$(cut -f1 "$M/tensors.tsv" | tr '\n' ' ')" = "name a/b%c . ..  z.weight " ]
unmount "$M"

# --- unknown type id: mounts, raw readable, no f32 (info.json says why)
mkdir -p "$M"
MOUNTS="$MOUNTS $M"
"$GGUFFS" -f "$TMP/unknown.gguf" "$M" 2> "$TMP/log" &
pid=$!
for _ in $(seq 1 100); do grep -qs " $M fuse" /proc/mounts && break; sleep 0.05; done
T=$M/tensors/Q4_K
check "unknown: raw size up to the next tensor" [ "$(stat -c %s "$T/raw")" = 2880 ]
check "unknown: raw bytes" cmp -s "$T/raw" <(dd if=tests/data/mainline/mainline.gguf bs=1 skip=111520 count=2880 2>/dev/null)
check "unknown: only raw and info.json listed" [ "$(ls "$T" | xargs)" = "info.json raw" ]
check "unknown: f32 is not there (ENOENT)" $PY -c "
import errno
try:
    open('$T/f32','rb').read(); raise SystemExit(1)
except OSError as e:
    assert e.errno == errno.ENOENT, e"
check "unknown: info.json says why" $PY -c "
import json; i=json.load(open('$T/info.json'))
assert i['type'] is None and i['type_id'] == 250 and i['error'] == 'unsupported type 250' and 'bytes_note' in i and i['f32_readable'] is False, i"
check "unknown: types.tsv lists it" grep -q "^unknown	250	-	1	2880$" "$M/types.tsv"
check "unknown: other tensors still decode" cmp -s "$M/tensors/Q8_0/f32" tests/data/mainline/f32/Q8_0.f32
unmount "$M"
wait $pid
check "foreground daemon exits 0 after unmount" [ $? = 0 ]

# --- truncated file: refused, nothing mounted
"$GGUFFS" "$TMP/truncated.gguf" "$M" 2> "$TMP/err"
rc=$?
check "truncated: exit status 5" [ $rc = 5 ]
check "truncated: message names file, range and end" grep -q "truncated.gguf: tensor 71 \"rand.Q2_0\": data \[379904, 380480) ends past end of file (380380)" "$TMP/err"
check "truncated: nothing mounted" sh -c "! grep -qs ' $M fuse' /proc/mounts"

# --- read-only, modes, times
mount_model "$M" tests/data/mainline/mainline.gguf
check "write refused with EROFS" $PY -c "
import errno
try:
    open('$M/tensors/F32/raw','r+b'); raise SystemExit(1)
except OSError as e:
    assert e.errno == errno.EROFS, e"
check "create refused" sh -c "! touch '$M/new' 2>/dev/null"
check "mtime of the model file" [ "$(stat -c %Y "$M/tensors/F32/f32")" = "$(stat -c %Y tests/data/mainline/mainline.gguf)" ]
check "file mode 0444" [ "$(stat -c %a "$M/metadata.json")" = 444 ]
check "dir mode 0555" [ "$(stat -c %a "$M/tensors")" = 555 ]
check "exact sizes" [ "$(stat -c %s "$M/metadata/general.architecture")" = 6 ]
check "wc -l counts array elements" [ "$(wc -l < "$M/metadata/tokenizer.ggml.tokens")" = 2000 ]
unmount "$M"
finish 15_tree
