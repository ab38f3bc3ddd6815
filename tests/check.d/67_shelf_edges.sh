#!/bin/bash
# Edges of local files, folders and stores (issue 18):
#   5  a model changed in place: every one of its tensor files fails alike
#      with ESTALE (pages the kernel cached too, files held open too: its
#      caches are told), with one log line; a model named on the command
#      line, and one of a folder.
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

finish 67_shelf_edges
