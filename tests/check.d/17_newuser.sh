#!/bin/bash
# What a new user runs into (issue 14): mount point spellings, signals with a
# relative mount point, names that clash once cut, keys that differ only in
# invalid UTF-8, control bytes in tensors.tsv, sizes that must not change,
# option values, split sets, stale mounts, du, --dump/--verify options,
# logfile, --version. Every wait is bounded; only our own PIDs are signalled.
. "$(dirname "$0")/../lib.sh"
M=$TMP/m
MODEL=$DATA/tour/tiny-q8_0.gguf
PIDS=""
trap 'cleanup; for p in $PIDS; do kill "$p" 2>/dev/null; done' EXIT
mounted() { grep -qs " $1 fuse" /proc/mounts; }
wait_mounted() { for _ in $(seq 1 100); do mounted "$1" && return 0; sleep 0.05; done; return 1; }

# --- 1. the mount point however it is spelled: never touched before serving
mkdir -p "$TMP/mp" "$TMP/other"
ln -s "$TMP/mp" "$TMP/link"
MOUNTS="$MOUNTS $TMP/mp"
for spell in "$TMP/mp/" "$TMP/mp/." "/$TMP//mp" "$TMP/other/../mp" "$TMP/link" "$TMP/link/"; do
    # The daemon forks once it serves; one stuck in its own mount (0.1) is
    # freed by aborting the connection.
    "$GGUFFS" "$MODEL" "$spell" &
    pid=$!
    for _ in $(seq 1 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    if kill -0 $pid 2>/dev/null; then
        abort_mount "$TMP/mp"
        kill $pid 2>/dev/null
    fi
    wait $pid
    rc=$?
    check "mount point '$spell': mounted and served within 10 s (exit $rc)" [ $rc = 0 ]
    check "mount point '$spell': answers" timeout 10 test -f "$TMP/mp/metadata.json"
    check "mount point '$spell': unmounts" timeout 10 fusermount3 -u "$TMP/mp"
    force_unmount "$TMP/mp"
done

# --- 2. relative mount point + SIGTERM/SIGINT/SIGHUP: unmounted, exit 0
for sig in TERM INT HUP; do
    (cd "$TMP" && exec env --default-signal=INT "$GGUFFS" -f "$MODEL" mp 2> "$TMP/fg.log") &
    pid=$!
    PIDS="$PIDS $pid"
    if wait_mounted "$TMP/mp"; then
        ls "$TMP/mp" >/dev/null
        kill -s "$sig" "$pid"
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
        wait "$pid"
        rc=$?
        check "relative mount point, SIG$sig: exit 0 (got $rc; $(cat "$TMP/fg.log"))" [ $rc = 0 ]
        check "relative mount point, SIG$sig: unmounted" bash -c "! grep -qs ' $TMP/mp fuse' /proc/mounts"
    else
        fail "relative mount point: did not mount: $(cat "$TMP/fg.log")"
    fi
    force_unmount "$TMP/mp"
done
# An unmount that fails (a folder above the mount renamed) is said and not 0.
mkdir -p "$TMP/a/mp"
env --default-signal=INT "$GGUFFS" -f "$MODEL" "$TMP/a/mp" 2> "$TMP/fg.log" &
pid=$!
PIDS="$PIDS $pid"
if wait_mounted "$TMP/a/mp"; then
    mv "$TMP/a" "$TMP/b"
    MOUNTS="$MOUNTS $TMP/b/mp"
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    check "failed unmount: exit status 10 (got $rc)" [ $rc = 10 ]
    check "failed unmount: message with the command" grep -q "could not unmount.*fusermount3 -u $TMP/b/mp" "$TMP/fg.log"
    force_unmount "$TMP/b/mp"
else
    fail "rename test: did not mount"
fi

# --- 10. a daemon killed outright: the next mount names the stale mount
env --default-signal=INT "$GGUFFS" -f "$MODEL" "$TMP/mp" 2>/dev/null &
pid=$!
if wait_mounted "$TMP/mp"; then
    cat "$TMP/mp/metadata.json" > /dev/null
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    timeout 10 "$GGUFFS" "$MODEL" "$TMP/mp" 2> "$TMP/err"
    rc=$?
    check "stale mount: exit 7 (got $rc)" [ $rc = 7 ]
    check "stale mount: says stale and gives the command ($(cat "$TMP/err"))" \
        grep -q "stale FUSE mount.*clear it with: fusermount3 -u $TMP/mp" "$TMP/err"
    force_unmount "$TMP/mp"
fi

# --- models for the name and text checks
$PY - "$TMP" <<'PY'
import struct, sys
sys.path.insert(0, "tests")
import gguf_tool as g
tmp = sys.argv[1]
f32 = lambda *v: struct.pack("<%df" % len(v), *v)

# Two long names with the same 32-bit FNV-1a hash (what 0.1 cut names with):
# a shared prefix and a birthday search over random 7-letter tails.
def fnv32(b, h=2166136261):
    for c in b:
        h = ((h ^ c) * 16777619) & 0xffffffff
    return h
prefix = b"blk.0." + b"x" * 300
hp = fnv32(prefix)
import random
rng = random.Random(14)
seen, pair = {}, None
for i in range(1 << 22):
    tail = bytes(rng.choices(range(97, 123), k=7))
    h = fnv32(tail, hp)
    if h in seen and seen[h] != tail:
        pair = (prefix + seen[h], prefix + tail)
        break
    seen[h] = tail
assert pair and fnv32(pair[0]) == fnv32(pair[1]) and pair[0] != pair[1]
open(tmp + "/pair", "w").write("\n".join(p.decode() for p in pair))
g.write(tmp + "/names.gguf",
        kvs=[("general.architecture", g.STR, "llama"), (pair[0].decode(), g.U32, 1), (pair[1].decode(), g.U32, 2),
             (b"tok\xff", g.U32, 3), (b"tok\xfe", g.U32, 4), (b"tok\xef\xbf\xbd", g.U32, 5),
             ("bad.utf8", g.STR, b"a\xf0\x9f\x98b\xffc\xed\xa0\x80d")],
        tensors=[(pair[0].decode(), [2], 0, f32(1, 2)), (pair[1].decode(), [2], 0, f32(3, 4)),
                 (b"nul\0name", [1], 0, f32(5)), (b"ctl\x01\ttab", [1], 0, f32(6)),
                 (b"w\xff", [1], 0, f32(7)), (b"w\xfe", [1], 0, f32(8))])
# Two model files with the same 255-byte name in two folders.
import os
os.makedirs(tmp + "/d1"), os.makedirs(tmp + "/d2")
long = "m" * 250 + ".gguf"
for d in ("d1", "d2"):
    g.write(f"{tmp}/{d}/{long}", kvs=[("general.name", g.STR, d)], tensors=[("t", [1], 0, f32(1))])
# A split set of three shards.
ts = [("a", [4], 0, f32(1, 2, 3, 4)), ("b", [2], 0, f32(5, 6)), ("c", [2], 0, f32(7, 8))]
for i in range(3):
    kv = [("split.no", g.U16, i), ("split.count", g.U16, 3), ("split.tensors.count", g.I32, 3)]
    if i == 0:
        kv = [("general.architecture", g.STR, "llama")] + kv
    g.write(f"{tmp}/s-0000{i + 1}-of-00003.gguf", kvs=kv, tensors=[ts[i]])
PY

# --- 3. names that clash once cut; model folders within 255 bytes
mount_model "$M" "$TMP/names.gguf"
n_dirs=$(ls "$M/tensors" | wc -l)
check "6 tensors give 6 folders (got $n_dirs)" [ "$n_dirs" = 6 ]
check "every name within 255 bytes" bash -c "! ls '$M/tensors' '$M/metadata' | awk 'length(\$0) > 255' | grep -q ."
check "each long tensor reaches its own data" $PY - "$M" "$TMP/pair" <<'PY'
import json, os, struct, sys
m, pair = sys.argv[1], open(sys.argv[2]).read().split("\n")
seen = {}
for d in os.listdir(m + "/tensors"):
    name = json.load(open(f"{m}/tensors/{d}/info.json"))["name"]
    seen[name] = struct.unpack("<2f", open(f"{m}/tensors/{d}/f32", "rb").read())[:2] if name in pair else None
assert seen.get(pair[0]) == (1, 2) and seen.get(pair[1]) == (3, 4), seen
PY
check "long keys: both metadata files, both values" bash -c "cat '$M'/metadata/blk.0.x* | sort | tr '\n' ' ' | grep -qx '1 2 '"
unmount "$M"
mount_model "$M" "$TMP/d1/$(ls "$TMP/d1")" "$TMP/d2/$(ls "$TMP/d2")"
check "two long model names: two folders" [ "$(ls "$M" | grep -c '^mmm')" = 2 ]
check "model folders within 255 bytes" bash -c "! ls '$M' | awk 'length(\$0) > 255' | grep -q ."
check "second model folder is the second file" bash -c "cat '$M'/*~2/metadata/general.name | grep -qx d2"
unmount "$M"

# --- 4. metadata.json keeps keys apart; invalid UTF-8 values as Python replaces them
mount_model "$M" "$TMP/names.gguf"
check "metadata.json: all keys, exact bytes back" $PY - "$M" <<'PY'
import json, sys
m = json.load(open(sys.argv[1] + "/metadata.json"))
keys = {bytes.fromhex(v["key_hex"]) if "key_hex" in v else k.encode(): v["value"] for k, v in m.items()}
assert keys[b"tok\xff"] == 3 and keys[b"tok\xfe"] == 4 and keys[b"tok\xef\xbf\xbd"] == 5, keys
assert m["tok\ufffd"]["value"] == 5 and "key_hex" not in m["tok\ufffd"], m  # valid keys keep their form
assert sorted(k for k in m if k.startswith("tok")) == ["tok\ufffd", "tok\ufffd~2", "tok\ufffd~3"], m.keys()
assert len(m) == 7, len(m)
want = b"a\xf0\x9f\x98b\xffc\xed\xa0\x80d".decode("utf-8", "replace")
assert m["bad.utf8"]["value"] == want, (m["bad.utf8"]["value"], want)
PY
check "--dump --json keeps tensor names apart" $PY - "$GGUFFS" "$TMP/names.gguf" <<'PY'
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "--dump", "--json", sys.argv[2]], capture_output=True, check=True).stdout)
names = [bytes.fromhex(t["name_hex"]) if "name_hex" in t else t["name"].encode() for t in d["tensors"]]
keys = [bytes.fromhex(v["key_hex"]) if "key_hex" in v else k.encode() for k, v in d["metadata"].items()]
assert b"tok\xff" in keys and b"tok\xfe" in keys and b"tok\xef\xbf\xbd" in keys and len(keys) == 7, keys
assert b"w\xff" in names and b"w\xfe" in names and b"nul\0name" in names and len(set(names)) == 6, names
PY

# --- 5. tensors.tsv: control bytes escaped, a column with the tree name
check "tensors.tsv has no NUL byte" bash -c "! tr -d -c '\\000' < '$M/tensors.tsv' | grep -q ."
check "tensors.tsv: NUL and control bytes escaped" bash -c "cut -f1 '$M/tensors.tsv' | grep -qxF 'nul\\x00name' &&
    cut -f1 '$M/tensors.tsv' | grep -qxF 'ctl\\x01\\ttab'"
check "tensors.tsv: tree_name leads to each folder" $PY - "$M" <<'PY'
import os, re, sys
m = sys.argv[1]
rows = [l.rstrip("\n").split("\t") for l in open(m + "/tensors.tsv", errors="surrogateescape")]
col = rows[0].index("tree_name")
def unescape(f):  # the TSV escapes: \\ \t \n \r \xHH
    return re.sub(r"\\(x[0-9a-f]{2}|.)", lambda g: {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(
        g.group(1), chr(int(g.group(1)[1:], 16)) if g.group(1)[0] == "x" else g.group(1)), f)
assert all(os.path.isdir(f"{m}/tensors/{unescape(r[col])}") for r in rows[1:]) and len(rows) == 7, rows
PY
unmount "$M"

# --- 6. stats and .stats: sizes known before reading, equal to what a read gives
mount_model "$M" "$DATA/mainline/mainline.gguf"
S=$M/tensors/Q4_K/stats
before=$(stat -c %s "$S")
got=$(cat "$S" | wc -c)
check "stats: size before reading ($before) = bytes read ($got) = size after ($(stat -c %s "$S"))" \
    [ "$before" = "$got" -a "$got" = "$(stat -c %s "$S")" -a "$got" -gt 0 ]
cp "$S" "$TMP/stats.copy"
check "cmp -s of equal stats files says equal" cmp -s "$S" "$TMP/stats.copy"
check "tar keeps stats" bash -c "tar -C '$M/tensors/Q4_K' -cf - stats | tar -xOf - | cmp -s - '$TMP/stats.copy'"
s1=$(stat -c %s "$M/.stats")
cat "$M/tensors/Q8_0/f32" > /dev/null
s2=$(stat -c %s "$M/.stats")
check ".stats: one size ($s1 = $s2 = bytes read)" [ "$s1" = "$s2" -a "$s1" = "$(cat "$M/.stats" | wc -c)" ]
check "stats still parse as key value" awk 'NF != 2 { exit 1 } END { exit NR != 8 }' "$S"

# --- sharp edges: du counts stored bytes only
du_k=$(du -sk "$M" | cut -f1)
size_k=$(( $(stat -c %s "$DATA/mainline/mainline.gguf") / 1024 ))
check "du of the mount ($du_k K) is about the model's size ($size_k K), not its decoded views" \
    [ "$du_k" -le $((size_k + 64)) ]
check "f32 takes no blocks" [ "$(stat -c %b "$M/tensors/Q4_K/f32")" = 0 ]
unmount "$M"

# --- 7. option values: exit 2 naming the option and what it accepts
bad_opt() { # bad_opt OPTION=VALUE TEXT
    timeout 10 "$GGUFFS" -o "$1" "$MODEL" "$TMP/mp" > /dev/null 2> "$TMP/err"
    local rc=$?
    check "-o $1: exit 2 (got $rc)" [ $rc = 2 ]
    check "-o $1: message names it and the range ($(cat "$TMP/err"))" grep -qF -- "-o $1: $2" "$TMP/err"
    force_unmount "$TMP/mp"
}
bad_opt cache_size=-5 "expected a size from 64K to"
bad_opt cache_size=lots "expected a size from 64K to"
bad_opt cache_size=99999T "expected a size from 64K to"
bad_opt page_size=1 "expected a size from 4K to 64M"
bad_opt threads=1000 "expected a whole number from 1 to"
bad_opt threads=0 "expected a whole number from 1 to"
bad_opt readahead=-1 "expected a whole number from 0 to 1024"
bad_opt max_threads=100000 "expected a whole number from 1 to 256"
bad_opt read_ahead_kb=x "expected a whole number from 0 to 65536"
bad_opt simd=sse9 "expected scalar, avx2, avx512 or neon"
bad_opt stq1_0_order=odd "expected stride16 or consecutive"
if mount_model "$M" "$MODEL" -o cache_size=1.5G,threads=2; then
    check "cache_size=1.5G taken" grep -q "cache_budget_bytes  *1610612736$" "$M/.stats"
    check "threads=2 taken" grep -q "decode_threads  *2$" "$M/.stats"
    unmount "$M"
else
    fail "-o cache_size=1.5G,threads=2 refused"
fi

# --- 8. split sets: mounted once, every tensor names its file and offset there
mount_model "$M" "$TMP"/s-0000*-of-00003.gguf
check "a glob of one set's shards mounts it once" [ "$(ls "$M" | tr '\n' ' ')" = "as blocks metadata metadata.json model.gguf model.safetensors summary summary.json tensors tensors.tsv types.tsv " ]
check "each tensor: file and offset in that file give raw" $PY - "$M" <<'PY'
import json, sys
m = sys.argv[1]
rows = [l.rstrip("\n").split("\t") for l in open(m + "/tensors.tsv")]
h = rows[0]
for r in rows[1:]:
    d = dict(zip(h, r))
    info = json.load(open(f"{m}/tensors/{d['tree_name']}/info.json"))
    assert info["file"] == d["file"] and int(d["offset"]) == info["offset"], (info, d)
    with open(d["file"], "rb") as f:
        f.seek(int(d["offset"]))
        assert f.read(int(d["bytes"])) == open(f"{m}/tensors/{d['tree_name']}/raw", "rb").read(), d
assert [r[rows[0].index("file")].split("-")[-3] for r in rows[1:]] == ["00001", "00002", "00003"], rows
PY
unmount "$M"
"$GGUFFS" --dump "$TMP/s-00003-of-00003.gguf" > "$TMP/dump" 2>&1
check "--dump of shard 3 names every shard" bash -c "grep -c '^shard [123] of 3: $TMP/s-0000[123]-of-00003.gguf' '$TMP/dump' | grep -qx 3"
check "--dump of a split set: a file column" grep -qE '^ +1 F32 +\(2\) +2 +[0-9]+ +8 .* b$' "$TMP/dump"

# --- sharp edges: --dump/--verify take -o types=; --verify --tensor; logfile; --version
check "--dump -o types=42:STQ1_0 decodes as asked" bash -c "'$GGUFFS' --dump -o types=42:STQ1_0 '$DATA/forks/stq1_0-id42.gguf' | grep -q ' STQ1_0 '"
check "--dump rejects a mount-only option" bash -c "! '$GGUFFS' --dump -o allow_other '$MODEL' 2>/dev/null"
"$GGUFFS" --verify --tensor 'blk.0.*' -o threads=2 "$MODEL" > "$TMP/verify" 2> "$TMP/verify.err"
check "--verify --tensor: only the matching tensors" bash -c "tail -n +2 '$TMP/verify' | cut -f1 | grep -v '^blk\\.0\\.' | wc -l | grep -qx 0 && [ \$(tail -n +2 '$TMP/verify' | wc -l) -gt 0 ]"
check "--verify: summary names the threads" grep -q "2 threads" "$TMP/verify.err"
"$GGUFFS" --verify --tensor 'nothing*' "$MODEL" > /dev/null 2>&1
check "--verify --tensor matching nothing: exit 9" [ $? = 9 ]
if mount_model "$M" "$DATA/mainline/mainline.gguf" -o "logfile=$TMP/daemon.log" -o types=250:Q4_K; then
    check "-o logfile: log file made" [ -f "$TMP/daemon.log" ]
    unmount "$M"
else
    fail "-o logfile refused"
fi
# A folder holding a malformed model: the background daemon logs it left out.
mkdir -p "$TMP/logdir"
printf 'GGUF\003\000\000\000' > "$TMP/logdir/broken.gguf"
if mount_model "$M" "$TMP/logdir" -o "logfile=$TMP/daemon.log"; then
    for _ in $(seq 1 100); do grep -qs broken "$M/.errors" && break; sleep 0.05; done
    unmount "$M"
    check "-o logfile: the background daemon's message is in it" grep -q 'broken.gguf: left out' "$TMP/daemon.log"
else
    fail "-o logfile: mount refused"
fi
check "--version gives libfuse's version as x.y" bash -c "'$GGUFFS' --version | grep -qE 'libfuse 3\\.[0-9]+'"

# --- make demo | head -3 leaves no mount behind
before=$(grep -c gguffs-demo /proc/mounts)
(cd "$TOP" && timeout 60 tests/demo.sh 2>/dev/null | head -n 3 > /dev/null)
sleep 0.5
check "make demo | head: no mount left" [ "$(grep -c gguffs-demo /proc/mounts)" = "$before" ]

finish 17_newuser
