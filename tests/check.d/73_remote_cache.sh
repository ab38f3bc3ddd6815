#!/bin/bash
# The persistent block cache of remote models (-o cache_dir=DIR):
#  - a second mount of the same URL with the server stopped reads all that
#    the first one read (and EIO for the rest, never wrong bytes);
#  - a cached block damaged or cut short by hand is detected
#    (net_disk_cache_corrupt), never served, fetched again;
#  - a stray temporary file (a killed writer's) is never served; a daemon
#    killed while writing leaves nothing that serves wrong bytes;
#  - two mounts at once sharing one cache_dir;
#  - a new version of the object (new ETag) never gets the old one's blocks;
#  - -o cache_dir_size bounds it (least recently used blocks go first).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/net/netlib.sh"
net_suite
M2=$TMP/m2
C=$TMP/cache

W=$TMP/www
mkdir -p "$W" "$HOME"
cp "$DATA/mainline/mainline.gguf" "$W/"
"$PY" "$TOP/tests/net/mkmodels.py" data "$W/data.gguf" 24 &&
    "$PY" "$TOP/tests/net/mkmodels.py" data "$W/big.gguf" 40 2 || { fail "making the models"; finish; exit 1; }
cp "$W/data.gguf" "$W/data-v1.gguf"
net_start start "$W" "$TMP/web" || { fail "servers.sh start"; finish; exit 1; }
. "$TMP/web/env"
U=$HTTP_URL

# all MOUNT FILE: every tensor read whole, compared; prints the outcomes, sorted and counted
all() { timeout 120 "$PY" "$RC" "$1" "$2" --all | tr ' ' '\n' | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }'; }
blocks() { find "$C/objects" -type f -name 'b*' | wc -l; }
cache_bytes() { find "$C/objects" -type f -name 'b*' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
OPTS=(-o direct_io,timeout=2,retries=1,cache_dir="$C",logfile="$TMP/log")

# --- cached, then read with the server stopped
net_proxy P "$HTTP_PORT"
PU=http://127.0.0.1:$P
SPOTS="$((3 * MiB + 8192)) $((9 * MiB + 8192)) $((15 * MiB + 8192))"
if mount_model "$M" "$PU/data.gguf" "${OPTS[@]}"; then
    for a in $SPOTS; do timeout 60 "$PY" "$RC" "$M" "$W/data.gguf" --at "$a" --len 4096 >/dev/null; done
    check "first mount: blocks written to the disk cache ($(stat_of "$M" net_disk_cache_writes))" \
        test "$(stat_of "$M" net_disk_cache_writes)" = 4 -a "$(blocks)" = 4 # (and block 0)
    check "first mount: .stats counts the disk cache bytes" test "$(stat_of "$M" net_disk_cache_bytes)" = "$(cache_bytes)"
    unmount "$M"
else
    fail "mount with cache_dir"
fi
net_proxy_stop "$P_PID"
if mount_model "$M" "$PU/data.gguf" "${OPTS[@]}" 2>"$TMP/err"; then
    check "server stopped: mounted from the disk cache (said)" grep -q "$PU/data.gguf: .*reading from the disk cache only" "$TMP/err"
    bad=""
    for a in $SPOTS; do
        got=$(timeout 60 "$PY" "$RC" "$M" "$W/data.gguf" --at "$a" --len 4096)
        [ "$got" = ok ] || bad="$bad $a:$got"
    done
    check "server stopped: the blocks read before read right ($bad)" test -z "$bad"
    check "server stopped: disk cache hits" test "$(stat_of "$M" net_disk_cache_hits)" -gt 0
    out=$(all "$M" "$W/data.gguf")
    check "server stopped: the rest is EIO, never wrong bytes ($out)" sh -c "echo '$out' | grep -q 'EIO=' && ! echo '$out' | grep -q WRONG"
    check "server stopped: the daemon still serves" ls "$M/tensors" >/dev/null
    unmount "$M"
else
    fail "mount with the server stopped"
fi
"$GGUFFS" "$PU/never-cached.gguf" "$M" "${OPTS[@]}" 2>"$TMP/err"
check "server stopped, URL never cached: exit 3, names the URL" sh -c "[ $? = 3 ] && grep -q '$PU/never-cached.gguf' '$TMP/err'"

# --- damaged blocks
rm -rf "$C"
if mount_model "$M" "$U/data.gguf" "${OPTS[@]}"; then
    check "fill the cache: every tensor" test "$(all "$M" "$W/data.gguf")" = "ok=8 "
    unmount "$M"
fi
f1=$(find "$C/objects" -type f -name b5)
f2=$(find "$C/objects" -type f -name b9)
printf '\x5a' | dd of="$f1" bs=1 seek=100000 conv=notrunc status=none # a flipped byte in the bytes
truncate -s 300000 "$f2"                                                # a torn block
check "two cache files damaged by hand" test -n "$f1" -a -n "$f2"
if mount_model "$M" "$U/data.gguf" "${OPTS[@]}"; then
    check "damaged blocks: every tensor still right" test "$(all "$M" "$W/data.gguf")" = "ok=8 "
    check "damaged blocks: detected (net_disk_cache_corrupt = 2)" test "$(stat_of "$M" net_disk_cache_corrupt)" = 2
    # (one GET each, or one for both when a read-ahead part holds both)
    check "damaged blocks: fetched again (1 or 2 GETs after the first)" \
        test "$(stat_of "$M" http_requests)" -ge 2 -a "$(stat_of "$M" http_requests)" -le 3
    check "damaged blocks: written again, whole" test "$(stat -c %s "$f1") $(stat -c %s "$f2")" = "$((MiB + 40)) $((MiB + 40))"
    unmount "$M"
fi

# --- stray temporary files are never served
rm -rf "$C"
net_proxy P2 "$HTTP_PORT"
if mount_model "$M" "http://127.0.0.1:$P2/data.gguf" "${OPTS[@]}"; then
    all "$M" "$W/data.gguf" >/dev/null
    unmount "$M"
fi
net_proxy_stop "$P2_PID"
f3=$(find "$C/objects" -name b7 -type f)
f4=$(find "$C/objects" -name b8 -type f)
d=$(dirname "$f3")
cp "$f4" "$d/.tmp-999999-0"             # a whole block file, of another block, under a temporary name
head -c 500000 "$f3" >"$d/.tmp-999998-1" # a half-written one
rm "$f3"
if mount_model "$M" "http://127.0.0.1:$P2/data.gguf" "${OPTS[@]}"; then
    out=$(timeout 60 "$PY" "$RC" "$M" "$W/data.gguf" --at $((7 * MiB + 8192)) --len 4096)
    check "offline, block only in stray temporary files: EIO, not their bytes ($out)" test "$out" = EIO
    out=$(timeout 60 "$PY" "$RC" "$M" "$W/data.gguf" --at $((11 * MiB + 8192)) --len 4096)
    check "offline, a block cached whole: ok ($out)" test "$out" = ok
    unmount "$M"
fi

# --- a daemon killed while writing blocks: what is left never serves wrong bytes
rm -rf "$C"
net_proxy P3 "$HTTP_PORT"
net_rules "$P3" '{"latency_ms": 40}'
mkdir -p "$M"
MOUNTS="$MOUNTS $M"
"$GGUFFS" -f "http://127.0.0.1:$P3/big.gguf" "$M" "${OPTS[@]}" >"$TMP/fg.log" 2>&1 &
DPID=$!
PIDS="$PIDS $DPID"
for _ in $(seq 1 200); do grep -qs " $M fuse" /proc/mounts && break; sleep 0.05; done
timeout 120 "$PY" "$RC" "$M" "$W/big.gguf" --all >/dev/null 2>&1 &
RPID=$!
for _ in $(seq 1 200); do [ "$(find "$C/objects" -type f -name 'b*' 2>/dev/null | wc -l)" -ge 6 ] && break; sleep 0.05; done
kill -KILL "$DPID"
wait "$DPID" 2>/dev/null
wait "$RPID" 2>/dev/null
force_unmount "$M"
check "killed writer: some blocks were cached ($(blocks))" test "$(blocks)" -ge 6
# (a kill may leave .tmp files; they are cleaned only once old)
net_proxy_stop "$P3_PID"
if mount_model "$M" "http://127.0.0.1:$P3/big.gguf" "${OPTS[@]}"; then
    out=$(all "$M" "$W/big.gguf")
    check "after a killed writer, offline: right bytes or EIO, never wrong ($out)" sh -c "! echo '$out' | grep -q WRONG"
    check "after a killed writer: no damaged block served" test "$(stat_of "$M" net_disk_cache_corrupt)" = 0
    unmount "$M"
fi

# --- two mounts at once, one cache_dir
rm -rf "$C"
if mount_model "$M" "$U/data.gguf" "${OPTS[@]}" && mount_model "$M2" "$U/data.gguf" "${OPTS[@]}"; then
    all "$M" "$W/data.gguf" >"$TMP/s1" &
    p1=$!
    all "$M2" "$W/data.gguf" >"$TMP/s2" &
    p2=$!
    wait $p1 $p2
    check "shared cache_dir: both mounts read right ($(cat "$TMP/s1") / $(cat "$TMP/s2"))" \
        test "$(cat "$TMP/s1")|$(cat "$TMP/s2")" = "ok=8 |ok=8 "
    check "shared cache_dir: no damaged block seen" \
        test "$(stat_of "$M" net_disk_cache_corrupt)$(stat_of "$M2" net_disk_cache_corrupt)" = 00
    unmount "$M"
    unmount "$M2"
    # a third mount reads all from there
    if mount_model "$M" "$U/data.gguf" "${OPTS[@]}"; then
        check "shared cache_dir: a later mount reads it all from the disk" test "$(all "$M" "$W/data.gguf")" = "ok=8 "
        check "shared cache_dir: with 1 request (the first block)" test "$(stat_of "$M" http_requests)" = 1
        unmount "$M"
    fi
else
    fail "two mounts sharing a cache_dir"
fi

# --- a new version of the object: never the old blocks
if mount_model "$M" "$U/data-v1.gguf" "${OPTS[@]}"; then
    all "$M" "$W/data-v1.gguf" >/dev/null
    unmount "$M"
fi
"$PY" "$TOP/tests/net/mkmodels.py" data "$W/data-v1.gguf" 24 7 # same size, other bytes, new mtime
touch -d '2003-03-03' "$W/data-v1.gguf"
if mount_model "$M" "$U/data-v1.gguf" "${OPTS[@]}"; then
    check "new version on the server: the new bytes, not the cached old ones" test "$(all "$M" "$W/data-v1.gguf")" = "ok=8 "
    # (a block of the new version that the mount wrote itself and the
    # memory cache let go may come back from the disk: the old version's
    # blocks, all there, would have made the bytes above wrong)
    hits=$(stat_of "$M" net_disk_cache_hits) writes=$(stat_of "$M" net_disk_cache_writes)
    check "new version: from the disk cache only blocks of its own ($hits hits, $writes written)" \
        test "$hits" -le "$writes"
    unmount "$M"
fi

# --- the bound
rm -rf "$C"
if mount_model "$M" "$U/big.gguf" -o direct_io,timeout=2,retries=1,cache_dir="$C",cache_dir_size=16M; then
    out=$(all "$M" "$W/big.gguf")
    check "cache_dir_size=16M: a 40 MiB model reads right ($out)" sh -c "! echo '$out' | grep -q 'EIO\|WRONG'"
    check "cache_dir_size=16M: at most 16 MiB kept ($(cache_bytes) bytes)" test "$(cache_bytes)" -le $((16 * MiB))
    check "cache_dir_size=16M: .stats agrees" test "$(stat_of "$M" net_disk_cache_bytes)" = "$(cache_bytes)"
    last=$(find "$C/objects" -type f -name 'b*' -printf '%f\n' | tr -d b | sort -n | tail -n 1)
    check "cache_dir_size=16M: the last blocks read are the ones kept (b$last)" test "$last" -ge 38
    unmount "$M"
fi

# --- a stream from a warm disk cache: passed blocks give their buffers to
# the blocks ahead and the read-ahead window stays small (no latency to
# hide), so memory stays near 16 MiB however big the model
rm -rf "$C"
# stream MOUNT: every tensor's raw in file order (by its tree_name), one sequential read
stream() { tail -n +2 "$1/tensors.tsv" | cut -f9 | while IFS= read -r t; do cat "$1/tensors/$t/raw"; done; }
if mount_model "$M2" "$W/big.gguf"; then
    want=$(stream "$M2" | sha256sum)
    unmount "$M2"
fi
if mount_model "$M" "$U/big.gguf" -o timeout=2,retries=1,cache_dir="$C"; then
    stream "$M" >/dev/null
    unmount "$M"
fi
if mount_model "$M" "$U/big.gguf" -o timeout=2,retries=1,cache_dir="$C"; then
    got=$(stream "$M" | sha256sum)
    check "warm disk cache stream: the bytes of the local file" test "$got" = "$want"
    check "warm disk cache stream: from the disk (hits $(stat_of "$M" net_disk_cache_hits), 1 request)" \
        test "$(stat_of "$M" net_disk_cache_hits)" -ge 40 -a "$(stat_of "$M" http_requests)" = 1
    held=$(stat_of "$M" net_mem_cache_bytes)
    check "warm disk cache stream: at most 24 MiB of blocks held for a 40 MiB model ($held)" test "$held" -le $((24 * MiB))
    unmount "$M"
fi

finish 73_remote_cache
