#!/bin/bash
# Edges of local files, folders and stores (issue 18):
#   5  a model changed in place: every one of its tensor files fails alike
#      with ESTALE (pages the kernel cached too, files held open too: its
#      caches are told), with one log line; a model named on the command
#      line, and one of a folder;
#   6  a model replaced by a rename switches from the old to the new one
#      with no moment without its name;
#   7  a file that a process has open for writing (preallocated, written out
#      of order, stalled) is not shown, at mount or later, until it is closed;
#      where leases cannot tell (no CAP_LEASE, not the owner), the quiet rule
#      and a log line saying so;
#  11  a split set missing a shard is never listed, only in .errors;
#  14  Ollama names nested as folders; manifests that are not JSON, name a
#      digest that is not sha256 hex or a blob that is missing are in .errors;
#  16  several folders each in a folder of their own (same names: ~2); a file
#      that a folder named too is shown once;
#  and: a mount point that is not empty is said; a directory named x.gguf is
#  a folder of models, refused when it holds none.
# Every wait is a bounded poll; no timing thresholds.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
M=$TMP/m
MS="$PY tests/make_stores.py"
models() { tail -n +2 "$1/models.tsv" | cut -f1; }
nl2sp() { tr '\n' ' '; }

# ---- 5. changed in place ----
# stale_check MOUNT/MODEL FILE MODE: read a tensor's f32 (the kernel keeps
# its pages) and hold it open, rewrite FILE in place (same size), then
# MODE "read": raw, f32 and every other tensor file give ESTALE at once;
# either mode: the held f32 gives ESTALE within 10 s (the daemon sees the
# change by itself and tells the kernel).
stale_check() {
    timeout 60 $PY - "$@" <<'PY'
import errno, os, sys, time
m, path, mode = sys.argv[1:]
T = m + "/tensors/Q4_K/"
def get(p):
    try:
        with open(p, "rb") as f:
            return f.read()
    except OSError as e:
        return e.errno
def what(r, old=None):
    return errno.errorcode.get(r, r) if isinstance(r, int) else "the old bytes" if r == old else "bytes"
old = get(T + "f32")
held = os.open(T + "f32", os.O_RDONLY)
os.pread(held, 1 << 20, 0)
b = bytearray(open(path, "rb").read())
b[-1000:] = bytes(x ^ 0xff for x in b[-1000:])
with open(path, "r+b") as w:
    w.write(b)
bad = []
if mode == "read":
    for f in ("raw", "f32", "f16", "bf16", "f32.npy", "f16.npy", "stats", "../F32/f32"):
        r = get(T + f)
        if r != errno.ESTALE:
            bad.append("%s after the change: %s, expected ESTALE" % (f, what(r, old)))
t0, got = time.time(), None
while time.time() - t0 < 10 and got is None:
    try:
        r = os.pread(held, 4096, 0)
        time.sleep(0.05)
    except OSError as e:
        got = e.errno
if got != errno.ESTALE:
    bad.append("f32 held open: %s within 10 s, expected ESTALE" % ("still the old bytes" if got is None else what(got)))
for x in bad:
    print("FAIL: " + x)
sys.exit(1 if bad else 0)
PY
}
stale_lines() { grep -c "changed since it was mounted.*ESTALE" "$1"; }

cp "$DATA/mainline/mainline.gguf" "$TMP/s.gguf"
mount_model "$M" -o logfile="$TMP/s.log" "$TMP/s.gguf"
check "5: one model rewritten in place after its f32 was read: every tensor file ESTALE" \
    stale_check "$M" "$TMP/s.gguf" read
cat "$M/tensors/Q4_K/raw" "$M/tensors/Q6_K/f32" > /dev/null 2>&1
check "5: one log line for it ($(stale_lines "$TMP/s.log"))" [ "$(stale_lines "$TMP/s.log")" = 1 ]
unmount "$M"
cp "$DATA/mainline/mainline.gguf" "$TMP/s.gguf"
mount_model "$M" -o logfile="$TMP/s2.log" "$TMP/s.gguf"
check "5: rewritten with no read after it: a file held open fails too" stale_check "$M" "$TMP/s.gguf" noread
check "5: and it is logged once" [ "$(stale_lines "$TMP/s2.log")" = 1 ]
unmount "$M"
mkdir -p "$TMP/f5"
cp "$DATA/mainline/mainline.gguf" "$TMP/f5/s.gguf"
mount_model "$M" -o logfile="$TMP/f5.log" "$TMP/f5"
check "5: a folder's model rewritten in place: a file held open fails" stale_check "$M/s" "$TMP/f5/s.gguf" noread
check "5: logged once" [ "$(stale_lines "$TMP/f5.log")" = 1 ]
check "5: the new file is shown under the name" wait_until 20 cat "$M/s/tensors/Q4_K/f32" > /dev/null
unmount "$M"

# ---- 6. replaced by a rename: no gap ----
L=$TMP/live
mkdir -p "$L"
$MS model "$L/a.gguf" llama 71 && $MS model "$TMP/b.gguf" moe 72
mount_model "$M" "$L"
check "6: mv over a model: the name switches to the new one, never missing" timeout 60 $PY - "$M" "$L" "$TMP/b.gguf" <<'PY'
import os, sys, time
m, live, new = sys.argv[1:]
def arch():
    with open(m + "/a/metadata/general.architecture") as f:
        return f.read().strip()
a0 = arch()
os.rename(new, live + "/a.gguf")
t0, gaps, polls = time.time(), 0, 0
while time.time() - t0 < 20:
    polls += 1
    try:
        listed = "a" in os.listdir(m)
        now = arch()
    except OSError:
        listed = False
    gaps += not listed
    if listed and now != a0:
        break
else:
    print("FAIL: still the old model after 20 s")
    sys.exit(1)
if gaps:
    print("FAIL: missing in %d of %d looks" % (gaps, polls))
sys.exit(gaps > 0)
PY
check "6: the new one's summary" $MS summary "$M/a" "$L/a.gguf"
check "6: listed once" [ "$(models "$M" | nl2sp)" = "a " ]

# ---- 7. open for writing: not shown ----
# A download that preallocates and writes out of order, then stalls with the
# file open: not shown while it stalls (3 s, past the quiet second), shown
# once closed.
$MS model "$TMP/dl.gguf" llama 74
check "7: a stalled preallocated download is not shown while open" timeout 60 $PY - "$M" "$TMP/dl.gguf" "$L/dl.gguf" <<'PY'
import os, sys, time
m, src, dst = sys.argv[1:]
data = open(src, "rb").read()
f = open(dst, "wb")
f.truncate(len(data))
f.write(data[:len(data) // 3])
f.seek(len(data) - 100)
f.write(data[-100:])
f.flush()
t0, bad = time.time(), 0
while time.time() - t0 < 3 and not bad:
    bad = os.path.exists(m + "/dl") or "\ndl\t" in open(m + "/models.tsv").read()
    time.sleep(0.1)
if bad:
    print("FAIL: shown %.1f s after it stalled" % (time.time() - t0))
f.seek(0)
f.write(data)
f.close()
sys.exit(bad)
PY
check "7: shown once closed" wait_until 20 [ -e "$M/dl/summary" ]
check "7: whole" $MS summary "$M/dl" "$L/dl.gguf"
unmount "$M"
# Open for writing at mount time.
rm "$L/dl.gguf"
$PY - "$TMP/dl.gguf" "$L/dl.gguf" "$TMP/go" <<'PY' &
import os, sys, time
src, dst, go = sys.argv[1:]
data = open(src, "rb").read()
with open(dst, "wb") as f:
    f.truncate(len(data))  # its header whole, the rest zeros but the end
    f.write(data[:len(data) // 2])
    f.seek(len(data) - 100)
    f.write(data[-100:])
    f.flush()
    open(go + ".ready", "w").close()
    for _ in range(300):  # (30 s at most)
        if os.path.exists(go):
            break
        time.sleep(0.1)
    f.seek(0)
    f.write(data)
PY
writer=$!
wait_until 20 [ -e "$TMP/go.ready" ]
mount_model "$M" "$L"
check "7: open for writing at mount: not listed" [ "$(models "$M" | nl2sp)" = "a " ]
check "7: not there" [ ! -e "$M/dl" ]
sleep 1.5
check "7: nor a quiet second later" [ ! -e "$M/dl" ]
touch "$TMP/go"
wait $writer
check "7: shown once the writer closed it" wait_until 20 [ -e "$M/dl/summary" ]
unmount "$M"
# Without leases (no CAP_LEASE, files of another user): the quiet rule, said.
N=$TMP/nolease
chmod 755 "$TMP" # (for the other user)
mkdir -p "$N" && $MS model "$N/a.gguf" llama 75 && chown -R 65534:65534 "$N"
mkdir -p "$M"
MOUNTS="$MOUNTS $M"
setpriv --bounding-set -lease "$GGUFFS" -o logfile="$TMP/nolease.log" "$N" "$M"
check "7: without leases: mounted" wait_until 10 grep -qs " $M fuse" /proc/mounts
check "7: without leases: the log says the quiet rule decides" \
    wait_until 10 grep -q "no read lease.*quiet for a second" "$TMP/nolease.log"
setpriv --reuid=65534 --regid=65534 --clear-groups cp "$TMP/dl.gguf" "$N/b.gguf"
check "7: without leases: a file written shows (once quiet)" wait_until 20 [ -e "$M/b/summary" ]
unmount "$M"

# ---- 11. a split set missing a shard: never listed ----
P=$TMP/split
mkdir -p "$P" && $MS split "$P/two" 2 68 && rm "$P/two-00002-of-00002.gguf" && cp "$DATA/tour/tiny-f16.gguf" "$P/"
mount_model "$M" "$P"
check "11: not listed right after mounting" [ "$(ls "$M" | nl2sp)" = "models.tsv tiny-f16 " ]
check "11: not there" [ ! -e "$M/two" ]
check "11: in .errors, naming the missing shard" \
    wait_until 20 grep -q "^$P/two-00001-of-00002.gguf	-	$P/two-00002-of-00002.gguf: missing shard 2 of 2" "$M/.errors"
check "11: still not listed" [ "$(models "$M" | nl2sp)" = "tiny-f16 " ]
unmount "$M"

# ---- 14. Ollama: nested names, broken manifests in .errors ----
S=$TMP/st
$MS build "$S"
O=$S/ollama
$PY - "$O" <<'PY'
import json, os, sys
o = sys.argv[1]
d = o + "/manifests/registry.ollama.ai/"
good = json.load(open(d + "library/llama3/8b"))
def put(rel, layers):
    m = dict(good, layers=layers)
    os.makedirs(os.path.dirname(d + rel), exist_ok=True)
    json.dump(m, open(d + rel, "w"))
model = "application/vnd.ollama.image.model"
put("someone/missing/v1", [{"mediaType": model, "digest": "sha256:" + "e" * 64, "size": 1}])
put("someone/escape/v1", [{"mediaType": model, "digest": "sha256:../../x", "size": 1}])
PY
mount_model "$M" "$O"
check "14: a namespace is a folder" [ "$(ls "$M/huihui_ai" | nl2sp)" = "qwen3-abliterated:30b " ]
check "14: another registry: HOST/NS/MODEL:TAG" [ -e "$M/hf.co/bartowski/Tiny-GGUF:Q4_0/summary" ]
check "14: models.tsv names nested" [ "$(models "$M" | nl2sp)" = \
    "gemma3:1b hf.co/bartowski/Tiny-GGUF:Q4_0 huihui_ai/qwen3-abliterated:30b llama3:8b llama3:latest llava:7b llava:7b.projector " ]
check "14: the namespace's model" $MS summary "$M/huihui_ai/qwen3-abliterated:30b" \
    "$O/blobs/$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['layers'][0]['digest'].replace(':', '-'))" \
        "$O/manifests/registry.ollama.ai/huihui_ai/qwen3-abliterated/30b")"
R=$O/manifests/registry.ollama.ai
check "14: .errors: a manifest that is not JSON, with its offset" \
    grep -qE "^$R/library/broken/latest	[0-9]+	$R/library/broken/latest: offset [0-9]+: not valid JSON$" "$M/.errors"
check "14: .errors: a digest that is not sha256 hex" \
    grep -qF "$R/someone/escape/v1	-	$R/someone/escape/v1: the model layer's digest \"sha256:../../x\" is not sha256: and 64 hex digits" "$M/.errors"
check "14: .errors: a missing blob" \
    grep -qF "$R/someone/missing/v1	-	$R/someone/missing/v1: the model layer's blob $O/blobs/sha256-$(printf 'e%.0s' $(seq 64)) is missing" "$M/.errors"
check "14: nothing else in .errors" [ "$(wc -l < "$M/.errors")" = 4 ]
check "14: none of them listed" sh -c "! ls -R '$M' | grep -q -e someone -e broken"
$PY - "$O" <<'PY'
import sys
sys.path.insert(0, "tests")
import make_stores as ms
o = sys.argv[1]
open(o + "/blobs/sha256-" + "e" * 64, "wb").write(ms.model_bytes("noarch", 77))
PY
check "14: the blob arrives: shown, gone from .errors" wait_until 20 [ -e "$M/someone/missing:v1/summary" ]
check "14: and gone from .errors" sh -c "! grep -q someone/missing '$M/.errors'"
unmount "$M"

# ---- 16. several sources ----
D=$TMP/src
mkdir -p "$D/d1" "$D/d2" "$D/a/models" "$D/b/models"
cp "$DATA/tour/tiny-q8_0.gguf" "$D/d1/m.gguf"
cp "$DATA/tour/tiny-f16.gguf" "$D/d2/m.gguf"
cp "$DATA/tour/tiny-q8_0.gguf" "$D/a/models/x.gguf"
cp "$DATA/tour/tiny-f16.gguf" "$D/b/models/x.gguf"
mount_model "$M" "$D/d1" "$D/d2"
check "16: two folders, each in its own folder" [ "$(models "$M" | nl2sp)" = "d1/m d2/m " ]
check "16: each its own models" $MS summary "$M/d2/m" "$D/d2/m.gguf"
unmount "$M"
mount_model "$M" "$D/a/models" "$D/b/models"
check "16: folders of one name: the later gets ~2" [ "$(models "$M" | nl2sp)" = "models/x models~2/x " ]
unmount "$M"
mount_model "$M" "$D/d1" "$D/d1/m.gguf"
check "16: a folder and a file in it: shown once" [ "$(models "$M" | nl2sp)" = "d1/m " ]
unmount "$M"
mount_model "$M" "$D/d1/m.gguf" "$D/d1" "$D/d2/"
check "16: the file first: still once, in its folder" [ "$(models "$M" | nl2sp)" = "d1/m d2/m " ]
unmount "$M"

# ---- a mount point that is not empty; a directory named x.gguf ----
mkdir -p "$TMP/full" && touch "$TMP/full/mine"
MOUNTS="$MOUNTS $TMP/full"
"$GGUFFS" "$DATA/tour/tiny-f16.gguf" "$TMP/full" 2> "$TMP/full.err"
check "non-empty mount point: still mounts" wait_until 10 [ -e "$TMP/full/summary" ]
check "non-empty mount point: said ($(cat "$TMP/full.err"))" \
    grep -q "warning: mount point $TMP/full is not empty: what it holds is hidden while mounted" "$TMP/full.err"
unmount "$TMP/full"
mkdir -p "$TMP/x.gguf"
"$GGUFFS" "$TMP/x.gguf" "$M" 2> "$TMP/x.err"
rc=$?
check "x.gguf, a directory holding no model: exit 4 (got $rc)" [ $rc = 4 ]
check "x.gguf: said ($(cat "$TMP/x.err"))" \
    grep -q "$TMP/x.gguf: is a directory, not a GGUF file, and holds no GGUF model" "$TMP/x.err"
check "x.gguf: nothing mounted" sh -c "! grep -qs ' $M fuse' /proc/mounts"
grep -qs " $M fuse" /proc/mounts && unmount "$M"
cp "$DATA/tour/tiny-f16.gguf" "$TMP/x.gguf/"
mount_model "$M" "$TMP/x.gguf"
check "x.gguf holding a model: a folder of models" [ "$(models "$M" | nl2sp)" = "tiny-f16 " ]
unmount "$M"

finish 67_shelf_edges
