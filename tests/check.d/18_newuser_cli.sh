#!/bin/bash
# What a new user runs into on the command line (issue 18): -o types= with
# several pairs (mount, --dump, --verify, mount(8), fstab), two mounts raced
# onto one mount point, absolute paths in what the tree writes, control
# bytes in --dump/--verify, no files that can only fail for undecodable
# tensors, SIGUSR1/2, option edges, summary edges, the README tour with a
# python3 that has no numpy. Every wait is bounded; only our own PIDs are
# signalled.
. "$(dirname "$0")/../lib.sh"
M=$TMP/m
MODEL=$DATA/tour/tiny-q8_0.gguf
PIDS=""
trap 'cleanup; for p in $PIDS; do kill "$p" 2>/dev/null; done' EXIT
mounted() { grep -qs " $1 fuse" /proc/mounts; }
wait_mounted() { for _ in $(seq 1 100); do mounted "$1" && return 0; sleep 0.05; done; return 1; }
mkdir -p "$TMP/mp"
MOUNTS="$MOUNTS $TMP/mp $M"

# Two tensors of type ids nobody defines (250, 251), holding f32 values.
$PY - "$TMP" <<'PY'
import struct, sys
sys.path.insert(0, "tests")
import gguf_tool as g
g.write(sys.argv[1] + "/ids.gguf", kvs=[("general.architecture", g.STR, "llama")],
        tensors=[("a", [4], 250, struct.pack("<4f", 1, 2, 3, 4)), ("b", [2], 251, struct.pack("<2f", 5, 6))])
PY
IDS=$TMP/ids.gguf
TYPES=types=250:F32,251:F32
# f32 of both tensors as forced: a = 1 2 3 4, b = 5 6
both_f32() { [ "$(od -An -tf4 -v "$1/tensors/a/f32" "$1/tensors/b/f32" | xargs)" = "1 2 3 4 5 6" ]; }

# --- 4. -o types=ID:NAME,ID:NAME as documented, everywhere
if mount_model "$M" "$IDS" -o "$TYPES" 2> "$TMP/err"; then
    check "mount -o $TYPES: both ids forced" both_f32 "$M"
    unmount "$M"
else
    fail "mount -o $TYPES refused: $(cat "$TMP/err")"
fi
if mount_model "$M" "$IDS" -o "ro,$TYPES,allow_other" 2> "$TMP/err"; then
    check "mount -o ro,$TYPES,allow_other: both ids forced, allow_other taken" both_f32 "$M"
    check "allow_other reached libfuse" grep -qs " $M fuse.gguffs .*allow_other" /proc/mounts
    unmount "$M"
else
    fail "mount -o ro,$TYPES,allow_other refused: $(cat "$TMP/err")"
fi
"$GGUFFS" --dump -o "$TYPES" "$IDS" > "$TMP/dump" 2> "$TMP/err"
rc=$?
check "--dump -o $TYPES: exit 0 (got $rc: $(cat "$TMP/err"))" [ $rc = 0 ]
check "--dump -o $TYPES: both tensors F32" [ "$(grep -cE '^ +[01] F32 ' "$TMP/dump")" = 2 ]
"$GGUFFS" --verify -o "$TYPES" "$IDS" > "$TMP/verify" 2> "$TMP/err"
rc=$?
check "--verify -o $TYPES: exit 0 (got $rc: $(cat "$TMP/err"))" [ $rc = 0 ]
check "--verify -o $TYPES: both ok" [ "$(grep -c '	F32	ok	0	0$' "$TMP/verify")" = 2 ]
# mount(8) and fstab hand the options to the program as one -o a,b,c (mount.fuse3).
mkdir -p "$M"
if timeout 20 mount -t fuse -o "ro,$TYPES" "$GGUFFS#$IDS" "$M" 2> "$TMP/err" && wait_mounted "$M"; then
    check "mount -t fuse -o ro,$TYPES: both ids forced" both_f32 "$M"
    unmount "$M"
else
    fail "mount -t fuse -o ro,$TYPES failed: $(cat "$TMP/err")"
fi
printf '%s %s fuse ro,noauto,%s,nofail 0 0\n' "$GGUFFS#$IDS" "$M" "$TYPES" > "$TMP/fstab"
if timeout 20 mount -T "$TMP/fstab" "$M" 2> "$TMP/err" && wait_mounted "$M"; then
    check "fstab line with $TYPES: both ids forced" both_f32 "$M"
    unmount "$M"
else
    fail "fstab line with $TYPES failed: $(cat "$TMP/err")"
fi
force_unmount "$M"
# The examples of --help and of the man page, as written.
help_ex=$("$GGUFFS" --help | grep -o 'e\.g\. types=[^ ]*' | cut -c6-)
man_ex=$(grep -o 'e\.g\. \\fBtypes=[^\\]*' "$TOP/man/gguffs.1" | sed 's/.*fB//')
for ex in "$help_ex" "$man_ex"; do
    "$GGUFFS" --dump -o "$ex" "$DATA/forks/stq1_0-id42.gguf" > "$TMP/dump" 2> "$TMP/err"
    rc=$?
    check "the documented example -o '$ex' works (exit $rc: $(cat "$TMP/err"))" [ $rc = 0 -a -n "$ex" ]
    check "the documented example -o '$ex': it has two pairs" [ "$(echo "$ex" | tr ',' '\n' | grep -c ':')" = 2 ]
done
# Wrong pairs are refused naming them.
bad_usage() { # bad_usage TEXT gguffs-args...: exit 2 with TEXT on stderr
    local want=$1
    shift
    timeout 10 "$GGUFFS" "$@" > /dev/null 2> "$TMP/err"
    local rc=$?
    check "gguffs $*: exit 2 (got $rc)" [ $rc = 2 ]
    check "gguffs $*: says '$want' ($(cat "$TMP/err"))" grep -qF -- "$want" "$TMP/err"
    force_unmount "$TMP/mp"
}
bad_usage 'unknown type name "NOPE"' -o types=250:F32,251:NOPE "$IDS" "$TMP/mp"
bad_usage 'unknown type name "NOPE"' --dump -o types=250:F32,251:NOPE "$IDS"
bad_usage "-o 251:F32: type ids are given as types=ID:NAME" -o 251:F32 "$IDS" "$TMP/mp"

# --- sharp edges: an empty types=, --json/--full away from --dump
bad_usage "-o types= needs ID:NAME" -o types= "$IDS" "$TMP/mp"
bad_usage "-o types= needs ID:NAME" --dump -o types= "$IDS"
bad_usage "--json and --full belong to --dump" --json "$MODEL" "$TMP/mp"
bad_usage "--json and --full belong to --dump" --json "$MODEL"
bad_usage "--json and --full belong to --dump" --verify --json "$MODEL"
bad_usage "--json and --full belong to --dump" --full "$MODEL" "$TMP/mp"

# --- 9. two mounts started at once on one mount point: one wins, the other exits 7
# A model of 30000 tensors: building its tree takes long enough after the
# mount point check that the two mounts overlap every time (main: 8 of 8).
$PY - "$TMP/many.gguf" <<'PY'
import struct, sys
sys.path.insert(0, "tests")
import gguf_tool as g
g.write(sys.argv[1], kvs=[("general.architecture", g.STR, "llama")],
        tensors=[("blk.%d.t%d" % (i // 100, i % 100), [1], 0, struct.pack("<f", i)) for i in range(30000)])
PY
both_ok=0
for try in 1 2 3 4 5 6 7 8; do
    rm -f "$TMP/go"
    pids=""
    for k in 1 2; do
        # Both wait for the same start signal (bounded), then mount.
        (for _ in $(seq 1 200000); do [ -e "$TMP/go" ] && break; done
         exec timeout 20 "$GGUFFS" "$TMP/many.gguf" "$TMP/mp" 2> "$TMP/race$k.err") &
        pids="$pids $!"
    done
    sleep 0.2
    touch "$TMP/go"
    rcs=""
    for p in $pids; do
        wait "$p"
        rcs="$rcs $?"
    done
    n=$(grep -c " $TMP/mp fuse" /proc/mounts)
    rcs=$(echo $rcs | tr ' ' '\n' | sort | xargs)
    [ "$rcs" = "0 0" ] && both_ok=$((both_ok + 1))
    check "race $try: one mount wins, the other exits 7 (exits: $rcs; $(cat "$TMP"/race*.err))" [ "$rcs" = "0 7" ]
    check "race $try: one mount on the mount point (got $n)" [ "$n" = 1 ]
    check "race $try: the loser says the mount point is busy" grep -qs "already a mount point" "$TMP/race1.err" "$TMP/race2.err"
    for _ in 1 2 3 4; do force_unmount "$TMP/mp"; done
done
echo "races where both mounts succeeded: $both_ok of 8"

# --- 12. paths as typed, but absolute: the README's dd recipe works after a cd
mkdir -p "$TMP/d"
cp "$MODEL" "$TMP/d/m.gguf"
ln -s d "$TMP/dlink"
(cd "$TMP/dlink" && PWD=$TMP/dlink exec "$GGUFFS" ./m.gguf "$M") 2> "$TMP/err"
if wait_mounted "$M"; then
    want=$TMP/dlink/m.gguf
    check "tensors.tsv: file is absolute, as typed ($(sed -n 2p "$M/tensors.tsv" | cut -f8))" \
        [ "$(tail -n +2 "$M/tensors.tsv" | cut -f8 | sort -u)" = "$want" ]
    check "README's dd recipe from another folder gives raw" bash -c "cd / && tail -n +2 '$M/tensors.tsv' |
        while IFS=\$'\\t' read -r name type id dims n off bytes file tree; do
            dd if=\"\$file\" bs=1 skip=\"\$off\" count=\"\$bytes\" status=none | cmp -s - '$M/tensors/'\"\$tree\"/raw || exit 1
        done"
    check "info.json: file and source are absolute" $PY - "$M" "$want" <<'PY'
import json, sys
i = json.load(open(sys.argv[1] + "/tensors/output_norm.weight/info.json"))
assert i["file"] == sys.argv[2] and i["source"] == {"file": sys.argv[2]}, i
PY
    check "model.safetensors: gguffs.source is absolute" $PY - "$M" "$want" <<'PY'
import json, struct, sys
f = open(sys.argv[1] + "/model.safetensors", "rb")
h = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
assert h["__metadata__"]["gguffs.source"] == sys.argv[2], h["__metadata__"]
PY
    unmount "$M"
else
    fail "mount of a relative path failed: $(cat "$TMP/err")"
fi
(cd "$TMP/d" && mount_model "$M" m.gguf "$IDS") 2> "$TMP/err"
check "several models: models.tsv's path is absolute" \
    bash -c "tail -n +2 '$M/models.tsv' | cut -f7 | sort | xargs | grep -qxF '$TMP/d/m.gguf $IDS'"
check "several models: tensors.tsv's file is absolute" \
    [ "$(tail -n +2 "$M/m/tensors.tsv" | cut -f8 | sort -u)" = "$TMP/d/m.gguf" ]
unmount "$M"
check "--dump of a relative path names it absolute" \
    bash -c "cd '$TMP/d' && '$GGUFFS' --dump m.gguf | head -n 1 | grep -q '^$TMP/d/m.gguf: GGUF version 3'"
check "--dump --json of a relative path: file absolute" bash -c "cd '$TMP/d' && '$GGUFFS' --dump --json m.gguf |
    $PY -c 'import json, sys; d = json.load(sys.stdin); assert d[\"file\"] == \"$TMP/d/m.gguf\" and d[\"tensors\"][0][\"file\"] == d[\"file\"], d[\"file\"]'"

# --- 13. --dump and --verify escape a hostile file's control bytes as tensors.tsv does
$PY - "$TMP/hostile.gguf" <<'PY'
import struct, sys
sys.path.insert(0, "tests")
import gguf_tool as g
f32 = lambda *v: struct.pack("<%df" % len(v), *v)
g.write(sys.argv[1],
        kvs=[("general.architecture", g.STR, "llama"), (b"key\x1b[31m\nforged", g.U32, 1),
             ("evil.str", g.STR, b"red\x1b[31m\x07bell\ttab\nline\x00nul"),
             ("evil.arr", g.ARR, (g.STR, [b"ok", b"\x1b]0;title\x07", b"two\nlines"]))],
        tensors=[(b"t\n    9 F32        (1)  forged", [1], 0, f32(1)), (b"esc\x1b[2J", [1], 0, f32(2)),
                 (b"plain", [1], 250, f32(3))])
PY
"$GGUFFS" --dump "$TMP/hostile.gguf" > "$TMP/dump" 2> "$TMP/err"
rc=$?
check "--dump of a hostile file: exit 0 (got $rc: $(cat "$TMP/err"))" [ $rc = 0 ]
check "--dump: no control byte but newlines" bash -c "! tr -d '\\n' < '$TMP/dump' | LC_ALL=C grep -q '[[:cntrl:]]'"
check "--dump: a name's newline forges no row (3 tensor rows)" [ "$(grep -cE '^ +[0-9]+ (F32|\?250) ' "$TMP/dump")" = 3 ]
check "--dump: names, keys and values escaped as in tensors.tsv" bash -c "
    grep -qF 't\\n    9 F32        (1)  forged' '$TMP/dump' && grep -qF 'esc\\x1b[2J' '$TMP/dump' &&
    grep -qF 'key\\x1b[31m\\nforged = 1' '$TMP/dump' &&
    grep -qF 'evil.str = red\\x1b[31m\\x07bell\\ttab\\nline\\x00nul' '$TMP/dump' &&
    grep -qF 'evil.arr = [3 x str] ok, \\x1b]0;title\\x07, two\\nlines' '$TMP/dump'"
check "--dump: the same escapes as tensors.tsv's name column" $PY - "$GGUFFS" "$TMP/hostile.gguf" <<'PY'
import subprocess, sys
out = subprocess.run([sys.argv[1], "--dump", sys.argv[2]], capture_output=True, check=True).stdout
def tsv(b):  # README: \\ \t \n \r, other control bytes \xHH
    return b"".join({0x5c: b"\\\\", 9: b"\\t", 10: b"\\n", 13: b"\\r"}.get(c, b"\\x%02x" % c if c < 32 or c == 127 else bytes([c])) for c in b)
for name in (b"t\n    9 F32        (1)  forged", b"esc\x1b[2J"):
    assert b"  " + tsv(name) + b"\n" in out, (name, tsv(name))
PY
"$GGUFFS" --verify "$TMP/hostile.gguf" > "$TMP/verify" 2> "$TMP/err"
check "--verify of a hostile file: one row per tensor" [ "$(wc -l < "$TMP/verify")" = 4 ]
check "--verify: no control byte but tabs and newlines" bash -c "! tr -d '\\n\\t' < '$TMP/verify' | LC_ALL=C grep -q '[[:cntrl:]]'"
check "--verify: names escaped as in tensors.tsv" bash -c "grep -qxF 'esc\\x1b[2J	F32	ok	0	0' '$TMP/verify' &&
    grep -qxF 't\\n    9 F32        (1)  forged	F32	ok	0	0' '$TMP/verify'"
mount_model "$M" "$TMP/hostile.gguf"
check "--verify's names are tensors.tsv's" bash -c "diff <(tail -n +2 '$TMP/verify' | cut -f1) <(tail -n +2 '$M/tensors.tsv' | cut -f1)"
unmount "$M"

# --- 15. undecodable tensors list no file that can only fail: cp -r and tar of a mount work
$PY - "$TMP/undec.gguf" <<'PY'
import struct, sys
sys.path.insert(0, "tests")
import gguf_tool as g
f32 = lambda *v: struct.pack("<%df" % len(v), *v)
g.write(sys.argv[1], kvs=[("general.architecture", g.STR, "llama")],
        tensors=[("blk.0.ok", [2], 0, f32(1, 2)), ("blk.0.odd", [32], 250, bytes(40)), ("out", [1], 0, f32(3))])
PY
mount_model "$M" "$TMP/undec.gguf"
check "undecodable: its folder has raw and info.json only" [ "$(ls "$M/tensors/blk.0.odd" | xargs)" = "info.json raw" ]
check "undecodable: a decodable tensor keeps every file" \
    [ "$(ls "$M/tensors/blk.0.ok" | xargs)" = "bf16 f16 f16.npy f32 f32.npy info.json raw stats" ]
check "undecodable: info.json says why f32 is missing" $PY -c "
import json; i = json.load(open('$M/tensors/blk.0.odd/info.json'))
assert i['f32_readable'] is False and i['error'] == 'unsupported type 250', i"
check "undecodable: cp -r of the mount works" cp -r "$M" "$TMP/copy"
check "undecodable: the copy has every tensor's raw" cmp -s "$TMP/copy/tensors/blk.0.odd/raw" "$M/tensors/blk.0.odd/raw"
check "undecodable: tar of the mount works" tar -cf "$TMP/m.tar" -C "$M" .
check "undecodable: every file listed reads whole" bash -c "find '$M' -type f -print0 | xargs -0 cat > /dev/null"
check "undecodable: blocks/0 links resolve" bash -c "[ \"\$(ls '$M/blocks/0' | xargs)\" = 'odd ok' ] && [ -f '$M/blocks/0/odd/raw' ] && [ -f '$M/blocks/0/ok/f32' ]"
check "undecodable: model.safetensors leaves it out, names it skipped, every key has its f32" $PY - "$M" <<'PY'
import json, struct, sys
m = sys.argv[1]
st = open(m + "/model.safetensors", "rb").read()
n = struct.unpack("<Q", st[:8])[0]
h = json.loads(st[8:8 + n])
assert h["__metadata__"]["gguffs.skipped"] == "blk.0.odd", h["__metadata__"]
assert sorted(k for k in h if k != "__metadata__") == ["blk.0.ok", "out"], list(h)
for k in ("blk.0.ok", "out"):
    a, b = h[k]["data_offsets"]
    assert st[8 + n + a:8 + n + b] == open(f"{m}/tensors/{k}/f32", "rb").read(), k
PY
unmount "$M"

# --- sharp edge: SIGUSR1 and SIGUSR2 are ignored (they used to kill the daemon, leaving a stale mount)
env --default-signal=INT "$GGUFFS" -f "$MODEL" "$TMP/mp" 2> "$TMP/fg.log" &
pid=$!
PIDS="$PIDS $pid"
if wait_mounted "$TMP/mp"; then
    for sig in USR1 USR2; do
        kill -s $sig "$pid"
        sleep 0.2
        check "SIG$sig: the daemon lives on" kill -0 "$pid"
        check "SIG$sig: the mount still answers" timeout 10 test -f "$TMP/mp/metadata.json"
    done
    kill -TERM "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    wait "$pid"
    rc=$?
    check "after SIGUSR1/2, SIGTERM unmounts: exit 0 (got $rc; $(cat "$TMP/fg.log"))" [ $rc = 0 ]
    check "after SIGUSR1/2, SIGTERM unmounts: nothing left" bash -c "! grep -qs ' $TMP/mp fuse' /proc/mounts"
else
    fail "SIGUSR test: did not mount: $(cat "$TMP/fg.log")"
fi
force_unmount "$TMP/mp"

# --- sharp edges of summary: no KV cache for encoders, no bits per weight without parameters, "1 tensor"
mkdir -p "$TMP/sum"
gzip -dc "$DATA/real/ggml-vocab-bert-bge.gguf.gz" > "$TMP/sum/bert-vocab.gguf"
$PY - "$TMP/sum" <<'PY'
import struct, sys
sys.path.insert(0, "tests")
import gguf_tool as g
d = sys.argv[1]
f32 = lambda *v: struct.pack("<%df" % len(v), *v)
def model(name, arch, extra, tensors, layers=2):
    kv = [("general.architecture", g.STR, arch), (arch + ".block_count", g.U32, layers),
          (arch + ".embedding_length", g.U32, 64), (arch + ".attention.head_count", g.U32, 4)] + extra
    g.write(f"{d}/{name}.gguf", kvs=kv, tensors=tensors)
one = [("w", [2], 0, f32(1, 2))]
model("nomic", "nomic-bert", [], one)                                    # an encoder by name
model("noncausal", "llama", [("llama.attention.causal", g.BOOL, False)], one)  # by its key
model("causal", "llama", [("llama.attention.causal", g.BOOL, True)], one + [("v", [32], 8, bytes(34))])
model("plain", "llama", [], [("w", [2], 0, f32(1, 2)), ("x", [2], 0, f32(3, 4)), ("q", [32], 8, bytes(34))])
# sliding windows as llama.cpp reads them: gemma2's default window and period,
# a gemma3 period of 2 and laguna's full layer first, a list per layer, gemma3
# without a window, and llama, which ignores the key
def swa(name, arch, extra):
    model(name, arch, [(arch + ".attention.head_count_kv", g.U32, 2)] + extra, one, layers=6)
swa("gemma2", "gemma2", [])
swa("gemma3-p2", "gemma3", [("gemma3.attention.sliding_window", g.U32, 128),
                            ("gemma3.attention.sliding_window_pattern", g.U32, 2)])
swa("laguna", "laguna", [("laguna.attention.sliding_window", g.U32, 64)])
swa("gemma3-list", "gemma3", [("gemma3.attention.sliding_window", g.U32, 256),
                              ("gemma3.attention.sliding_window_pattern", g.ARR, (g.BOOL, [1, 0, 0, 1, 1, 0]))])
swa("gemma3-none", "gemma3", [])
swa("llama-swa", "llama", [("llama.attention.sliding_window", g.U32, 4096)])
# a hostile block_count of 2^22: the layers looked at are bounded, in the
# text and in the JSON alike
model("gemma3-huge", "gemma3", [("gemma3.attention.head_count_kv", g.U32, 2),
                                ("gemma3.attention.sliding_window", g.U32, 512)], one, layers=1 << 22)
PY
mount_model "$M" "$TMP/sum"
for _ in $(seq 1 100); do [ "$(wc -l < "$M/models.tsv")" = 13 ] && break; sleep 0.05; done
S=$M/bert-vocab/summary
check "encoder (bert): no KV cache" grep -qxF "kv cache        none (an encoder: its attention is not causal)" "$S"
check "0 parameters: bits per weight not given" grep -qx "bits per weight -" "$S"
check "0 parameters: summary.json has null bits per weight and main type, 0 KV cache bytes" $PY -c "
import json; j = json.load(open('$M/bert-vocab/summary.json'))
assert j['bits_per_weight'] is None and j['main_type'] is None and j['kv_cache_bytes_per_1000_tokens_f16'] == 0, j"
check "0 parameters: models.tsv bits_per_weight '-'" bash -c "grep '^bert-vocab	' '$M/models.tsv' | cut -f5 | grep -qx -- -"
check "nomic-bert without a causal key: no KV cache" grep -q "^kv cache        none" "$M/nomic/summary"
check "llama with attention.causal = false: no KV cache" grep -q "^kv cache        none" "$M/noncausal/summary"
check "llama with attention.causal = true: a KV cache" grep -qE "^kv cache        [0-9.]+ KiB per 1000 tokens" "$M/causal/summary"
check "llama: a KV cache" grep -qE "^kv cache        [0-9.]+ KiB per 1000 tokens" "$M/plain/summary"
check "one tensor of a type: '1 tensor'" grep -qE "^  Q8_0 +1 tensor +[0-9]" "$M/plain/summary"
check "two tensors of a type: '2 tensors'" grep -qE "^  F32 +2 tensors +[0-9]" "$M/plain/summary"
check "no '1 tensors' anywhere" bash -c "! grep -h ' 1 tensors' '$M'/*/summary"
check "summaries agree with make_stores.py's figures" $PY - "$M" "$TMP/sum" <<'PY'
import sys
sys.path.insert(0, "tests")
import make_stores as ms
m, d = sys.argv[1], sys.argv[2]
sys.exit(sum(ms.check_summary(f"{m}/{n}", [f"{d}/{n}.gguf"]) for n in ("bert-vocab", "nomic", "noncausal", "causal", "plain",
             "gemma2", "gemma3-p2", "laguna", "gemma3-list", "gemma3-none", "llama-swa")))
PY
# 6 layers of 2 KV heads of 16 (64 / 4 heads): 128 bytes a token each at f16
check "gemma2: 3 of 6 layers slide over 4096 tokens, the other 3 take 375 KiB per 1000 tokens" \
    grep -qxF "kv cache        375.00 KiB per 1000 tokens at f16, and 1.50 MiB for the sliding window" "$M/gemma2/summary"
check "gemma3 with a list: layers 0, 3 and 4 slide" $PY -c "
import json; j = json.load(open('$M/gemma3-list/summary.json'))
assert j['sliding_window'] == {'tokens': 256, 'layers': [0, 3, 4], 'kv_cache_bytes_f16': 3 * 256 * 128}, j"
check "laguna: the full layer first (0 and 4 full)" grep -qxF "sliding window  64 tokens in 4 of 6 layers" "$M/laguna/summary"
check "llama ignores a sliding window key" grep -qE "^kv cache        750.00 KiB per 1000 tokens at f16$" "$M/llama-swa/summary"
check "2^22 layers: summary.json lists the sliding layers summary counts" $PY -c "
import json, re
n = int(re.search(r'^sliding window  512 tokens in ([0-9]+) of 4194304 layers$', open('$M/gemma3-huge/summary').read(), re.M)[1])
j = json.load(open('$M/gemma3-huge/summary.json'))['sliding_window']
assert n > 0 and len(j['layers']) == n, (n, len(j['layers']))"
unmount "$M"

# --- a name of a scheme nobody resolves (issue 19's one "is it a URL" test):
# refused naming the scheme, not looked for as a local file "gs:/...".
"$GGUFFS" gs://bucket/m.gguf "$M" 2> "$TMP/err"
rc=$?
check "gs://...: usage error (2), got $rc" test "$rc" = 2
check "gs://...: the scheme named, and those there are" \
    grep -q "^gguffs: gs: no source for this scheme (http:// and https:// URLs, hf://, s3:// and ollama:// names)" "$TMP/err"
"$GGUFFS" --dump az://library/m 2> "$TMP/err" > /dev/null
check "--dump az://...: the scheme named" grep -q "^gguffs: az: no source for this scheme" "$TMP/err"

finish 18_newuser_cli
