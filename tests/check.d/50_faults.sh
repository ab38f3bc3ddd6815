#!/bin/bash
# Faults under a live mount and at start-up:
#  - the model file truncated, rewritten in place, replaced and deleted while
#    mounted: once changed in place (size, times), every tensor read of it
#    (raw, f32 with its pages cached, stats) fails with ESTALE, for good, and
#    its decoded pages are dropped; replaced by a new file or deleted, the
#    mount keeps serving the old bytes; the daemon stays up;
#  - SIGTERM, SIGINT and SIGHUP unmount cleanly and exit 0 (also with readers
#    busy); a killed daemon leaves a stale mount that a new one refuses;
#  - every start-up error has a clear message and its own exit status.
# Only the PIDs started here are ever signalled.
. "$(dirname "$0")/../lib.sh"
M=$TMP/m
PIDS=""
trap 'cleanup; for p in $PIDS; do kill "$p" 2>/dev/null; done' EXIT

# read_check: run the Python checks below against the mount (argument: step).
read_check() {
    timeout 120 $PY - "$M" "$TMP" "$1" <<'PY'
import errno, json, os, sys
sys.path.insert(0, "tests")
import gguf_tool as g
mnt, tmp, step = sys.argv[1], sys.argv[2], sys.argv[3]
d = "tests/data/mainline"
rows = [dict(zip(*([l.rstrip("\n").split("\t") for l in open(d + "/manifest.tsv")][0:1] + [r])))
        for r in [l.rstrip("\n").split("\t") for l in open(d + "/manifest.tsv")][1:]]
orig = open(d + "/mainline.gguf", "rb").read()
h = g.read(orig)
cut = int(open(tmp + "/cut").read())
bad = []

def get(path, n=None):
    """Whole file, or its first n bytes in one read() (unbuffered)."""
    try:
        with open(path, "rb", buffering=0 if n else -1) as f:
            return f.read() if n is None else f.read(n)
    except OSError as e:
        return e.errno

for r in rows:
    t = os.path.join(mnt, "tensors", r["name"].replace("%", "%25").replace("/", "%2F"))
    start = h.data_offset + int(r["offset"])
    end = start + int(r["n_bytes"])
    exp = open(os.path.join(d, r["f32_file"]), "rb").read()
    raw = orig[start:end]
    if step == "before":  # only the tensors that will survive the cut are read now
        if end <= cut and (get(t + "/f32") != exp or get(t + "/raw") != raw):
            bad.append(r["name"] + ": differs before the cut")
    elif step in ("cut", "restored", "scribbled"):
        # Changed in place: every tensor read fails as stale (cached pages
        # and stats too), however much of it is still the same.
        for f in ("f32", "raw", "stats"):
            got = get(t + "/" + f)
            if got != errno.ESTALE:
                bad.append("%s/%s: after the file was %s, read gives %r, expected ESTALE" % (
                    r["name"], f, step, got if not isinstance(got, bytes) else "bytes"))
    elif step in ("replaced", "deleted"):
        if get(t + "/f32") != exp or get(t + "/raw") != raw:
            bad.append(r["name"] + ": differs after the file was " + step)
# The header was copied at mount time: metadata never changes.
kv = json.load(open(os.path.join(mnt, "metadata.json")))
if len(kv) != len(h.kvs) or get(os.path.join(mnt, "metadata", "general.architecture")) != b"llama\n":
    bad.append("metadata changed")
for b in bad[:15]:
    print("  " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$M/.stats"; }

# --- truncated, restored, rewritten in place, replaced, deleted
cp "$DATA/mainline/mainline.gguf" "$TMP/t.gguf"
$PY - "$TMP" <<'PY'
import sys
sys.path.insert(0, "tests")
import gguf_tool as g
tmp = sys.argv[1]
h = g.read(open("tests/data/mainline/mainline.gguf", "rb").read())
t = h.tensors[len(h.tensors) // 2]
open(tmp + "/cut", "w").write(str(h.data_offset + t["offset"] + 100))  # inside the middle tensor
PY
if mount_model "$M" -o direct_io,cache_size=64M "$TMP/t.gguf"; then
    check "truncation: tensors read before" read_check before
    resident=$(stat_of cache_resident_pages)
    truncate -s "$(cat "$TMP/cut")" "$TMP/t.gguf"
    check "truncation: every tensor read is ESTALE" read_check cut
    check "truncation: stale reads counted" [ "$(stat_of stale_reads)" -gt 0 ]
    check "truncation: its decoded pages dropped ($resident before, $(stat_of cache_resident_pages) after)" \
        [ "$resident" -gt 0 -a "$(stat_of cache_resident_pages)" = 0 ]
    check "truncation: daemon still serving the header" ls "$M/tensors/Q4_K" >/dev/null
    cp "$DATA/mainline/mainline.gguf" "$TMP/t.gguf" # same inode, written again
    check "rewritten whole again: still stale (never a mix of versions)" read_check restored
    $PY -c "
import os, sys
f = open(sys.argv[1], 'r+b'); f.seek(os.path.getsize(sys.argv[1]) // 2); f.write(os.urandom(100000))
" "$TMP/t.gguf"
    check "scribbled over in place: stale" read_check scribbled
    unmount "$M"
else
    fail "mount of the copy"
fi
cp "$DATA/mainline/mainline.gguf" "$TMP/t.gguf"
if mount_model "$M" -o direct_io,cache_size=1M "$TMP/t.gguf"; then
    check "a fresh mount of the rewritten file reads right" read_check before
    cp "$DATA/mainline/mainline.gguf" "$TMP/new.gguf"
    truncate -s 1000 "$TMP/new.gguf"
    mv "$TMP/new.gguf" "$TMP/t.gguf" # a new file under the name: the mount keeps the old one
    check "replaced by rename: the mounted file is unchanged" read_check replaced
    rm "$TMP/t.gguf"
    check "deleted: still served" read_check deleted
    unmount "$M"
else
    fail "mount of the copy"
fi

# --- signals, to a daemon started in the foreground here
# start_fg COMMAND...: sets PID, waits for the mount.
start_fg() {
    mkdir -p "$M"
    MOUNTS="$MOUNTS $M"
    "$@" >"$TMP/fg.log" 2>&1 &
    PID=$!
    PIDS="$PIDS $PID"
    for _ in $(seq 1 200); do
        grep -qs " $M fuse" /proc/mounts && return 0
        kill -0 "$PID" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}
# wait_exit: the daemon's exit status (124 if it is still running after 60 s).
wait_exit() {
    for _ in $(seq 1 600); do
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$PID" 2>/dev/null; then
        kill -KILL "$PID"
        wait "$PID" 2>/dev/null
        return 124
    fi
    wait "$PID"
}
mounted() { grep -qs " $M fuse" /proc/mounts; }

for sig in TERM INT HUP; do
    # (a background job of a script ignores SIGINT unless told otherwise)
    if start_fg env --default-signal=INT "$GGUFFS" -f "$DATA/ik/ik.gguf" "$M"; then
        cat "$M/tensors/Q4_K/f32" >/dev/null
        kill -s "$sig" "$PID"
        wait_exit
        rc=$?
        check "SIG$sig: exit status $rc, expected 0" [ "$rc" = 0 ]
        check "SIG$sig: mount gone" bash -c "! grep -qs ' $M fuse' /proc/mounts"
    else
        fail "SIG$sig: foreground daemon did not mount: $(cat "$TMP/fg.log")"
    fi
done
if start_fg "$GGUFFS" -f -o cache_size=1M,direct_io "$DATA/mainline/mainline.gguf" "$DATA/ik/ik.gguf" "$M"; then
    timeout 120 $PY tests/concurrency/stress_read.py --threads 8 --reads 100000 --only-folders mainline,ik \
        "$M" >/dev/null 2>&1 &
    READER=$!
    sleep 1
    kill -TERM "$PID"
    wait_exit
    rc=$?
    check "SIGTERM with 8 busy readers: exit status $rc, expected 0" [ "$rc" = 0 ]
    check "SIGTERM with busy readers: mount gone" bash -c "! grep -qs ' $M fuse' /proc/mounts"
    wait "$READER"
    check "SIGTERM with busy readers: the readers were stopped (not hung)" [ $? != 124 ]
else
    fail "busy readers: foreground daemon did not mount: $(cat "$TMP/fg.log")"
fi

# --- start-up errors: message and exit status
# expect_exit STATUS TEXT COMMAND...
expect_exit() {
    local want=$1 text=$2
    shift 2
    timeout 30 "$@" >/dev/null 2>"$TMP/err"
    local rc=$?
    check "$*: exit status $rc, expected $want" [ "$rc" = "$want" ]
    check "$*: message has '$text' (got: $(head -c 300 "$TMP/err"))" grep -qF -- "$text" "$TMP/err"
}
MODEL=$DATA/ik/ik.gguf
mkdir -p "$TMP/mp"
expect_exit 2 "usage:" "$GGUFFS"
expect_exit 2 "usage:" "$GGUFFS" "$MODEL"
expect_exit 2 "-o cache_size=lots: expected a size from 64K to" "$GGUFFS" -o cache_size=lots "$MODEL" "$TMP/mp"
expect_exit 3 "$TMP/none.gguf: No such file or directory" "$GGUFFS" "$TMP/none.gguf" "$TMP/mp"
expect_exit 4 "/dev/null: not a regular file" "$GGUFFS" /dev/null "$TMP/mp"
expect_exit 5 "not a GGUF file" "$GGUFFS" "$TOP/Makefile" "$TMP/mp"
expect_exit 6 "mount point $TMP/nowhere: No such file or directory" "$GGUFFS" "$MODEL" "$TMP/nowhere"
expect_exit 6 "mount point $TOP/Makefile is not a directory" "$GGUFFS" "$MODEL" "$TOP/Makefile"
if mount_model "$M" "$MODEL"; then
    expect_exit 7 "$M is already a mount point" "$GGUFFS" "$MODEL" "$M"
    check "the first mount still serves" cmp -s "$M/tensors/F32/raw" "$DATA/ik/f32/F32.f32"
    unmount "$M"
fi
expect_exit 8 "$TMP/mp: cannot mount" "$GGUFFS" -o blkdev "$MODEL" "$TMP/mp"
# A daemon killed outright leaves a stale mount: refused with its own message.
if start_fg "$GGUFFS" -f "$MODEL" "$M"; then
    kill -KILL "$PID"
    wait "$PID" 2>/dev/null
    expect_exit 7 "is a stale FUSE mount (its daemon is gone: transport endpoint not connected); clear it with: fusermount3 -u $M" "$GGUFFS" "$MODEL" "$M"
    fusermount3 -u "$M" 2>/dev/null || fusermount3 -uz "$M"
    check "stale mount cleared" bash -c "! grep -qs ' $M fuse' /proc/mounts"
fi
# An unreadable model, as an unprivileged user (root reads anything).
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
    mkdir -p "$TMP/priv"
    cp "$MODEL" "$TMP/priv/locked.gguf"
    chmod 000 "$TMP/priv/locked.gguf"
    chmod 755 "$TMP" "$TMP/priv"
    expect_exit 3 "$TMP/priv/locked.gguf: Permission denied" \
        setpriv --reuid=65534 --regid=65534 --clear-groups "$GGUFFS" "$TMP/priv/locked.gguf" "$TMP/mp"
    expect_exit 3 "$TMP/priv/locked.gguf: Permission denied" \
        setpriv --reuid=65534 --regid=65534 --clear-groups "$GGUFFS" --dump "$TMP/priv/locked.gguf"
    chmod 700 "$TMP"
else
    echo "not root or no setpriv: unreadable-model check skipped" >&2
fi
check "nothing left mounted" bash -c "! grep -qs ' $M fuse' /proc/mounts"
finish 50_faults
