#!/bin/bash
# Long work stops when nobody waits for it, and all work ends at once with the
# mount (issue 33 item 1, issue 32 item 4). Two sparse models of Q8_0 zeros
# (4 small tensors, then 8 of 4 Gi elements: minutes of work to compare, never
# finished here); the daemon's CPU time (/proc/PID/stat) says whether it still
# works. Every stop is asked to happen within 10 s, and happens at once:
#  - a reader of vs/<ref>/tensors.tsv killed: the comparison stops; the pairs
#    already compared are kept (a second reader goes on from there);
#  - a reader of a huge tensor's stats killed: the decoding stops;
#  - SIGTERM during a read: the daemon ends, the reader gets an error;
#  - fusermount3 -u is refused while a file is open ("busy"); fusermount3 -u -z
#    ends the daemon and releases the reader, also one waiting on a hung server
#    (-o timeout=40);
#  - gguffs --compare stops on Ctrl-C (SIGINT), saying so.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/net/netlib.sh"
net_suite

# ticks PID: the CPU time PID has used (user + system, clock ticks)
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# quiet PID: within 10 s, a second in which PID used at most 2 ticks of CPU
quiet() {
    local a b
    for _ in $(seq 1 10); do
        a=$(ticks "$1") || return 1
        sleep 1
        b=$(ticks "$1") || return 1
        [ $((b - a)) -le 2 ] && return 0
    done
    return 1
}
# busy PID: PID works (more than 20 ticks in a second)
busy() {
    local a b
    a=$(ticks "$1") && sleep 1 && b=$(ticks "$1") && [ $((b - a)) -gt 20 ]
}
# at_least N KEY: wait (30 s at most) until .stats' KEY is N or more
at_least() {
    for _ in $(seq 1 600); do
        [ "$(stat_of "$M" "$2" 2>/dev/null || echo 0)" -ge "$1" ] 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# --- the models: long.gguf and a sparse copy
"$PY" - "$TMP/long.gguf" <<'PY' || { fail "the long models are made"; finish; exit 1; }
import struct, sys
def s(x):
    b = x.encode()
    return struct.pack("<Q", len(b)) + b
shapes = [(4096, 1024)] * 4 + [(4096, 1 << 20)] * 8   # Q8_0: 34 bytes per 32 elements
h = b"GGUF" + struct.pack("<IQQ", 3, len(shapes), 1) + s("general.architecture") + struct.pack("<I", 8) + s("llama")
off = 0
for i, (ne0, ne1) in enumerate(shapes):
    h += s("t%d" % i) + struct.pack("<IQQIQ", 2, ne0, ne1, 8, off)
    off += (ne0 // 32 * 34 * ne1 + 31) // 32 * 32
h += bytes(-len(h) % 32)
with open(sys.argv[1], "wb") as f:
    f.write(h)
    f.truncate(len(h) + off)
PY
cp --sparse=always "$TMP/long.gguf" "$TMP/long2.gguf"

# --- 1. a reader of tensors.tsv killed: the comparison stops, what was computed is kept
if net_start_fg "$TMP/long.gguf" "$TMP/long2.gguf"; then
    cat "$M/long/vs/long2/tensors.tsv" > /dev/null 2>&1 &
    R=$!
    check "a comparison is computed for its reader (the 4 small pairs done)" at_least 4 compare_tensors
    check "... the daemon works on the first big one" busy "$DPID"
    kill -KILL "$R"
    wait "$R" 2>/dev/null
    check "the reader killed: the daemon's CPU stops within 10 s" quiet "$DPID"
    n=$(stat_of "$M" compare_tensors) el=$(stat_of "$M" compare_elements)
    cat "$M/long/vs/long2/summary" > /dev/null 2>&1 &
    R=$!
    check "a second reader goes on (64 Mi elements more folded)" at_least $((el + 64 * MiB)) compare_elements
    check "... from the pairs kept: none computed again ($n, then $(stat_of "$M" compare_tensors))" \
        [ "$(stat_of "$M" compare_tensors)" = "$n" -a "$n" -ge 4 ]
    kill -KILL "$R"
    wait "$R" 2>/dev/null
    check "... killed too: the CPU stops" quiet "$DPID"

    # --- 2. stats of a tensor of 4 Gi elements
    cat "$M/long/tensors/t5/stats" > /dev/null 2>&1 &
    R=$!
    check "stats: the daemon decodes for its reader" busy "$DPID"
    kill -KILL "$R"
    wait "$R" 2>/dev/null
    check "stats: the reader killed, the CPU stops within 10 s" quiet "$DPID"

    # --- 3. SIGTERM during a read
    cat "$M/long2/vs/long/tensors.tsv" > "$TMP/sigterm.out" 2>/dev/null &
    R=$!
    check "SIGTERM: a comparison is computed for its reader" busy "$DPID"
    kill -TERM "$DPID"
    check "SIGTERM during a read: the daemon ends within 10 s" net_gone "$DPID"
    check "... the reader is released" net_gone "$R"
    wait "$R"
    rc=$?
    check "... with an error and no bytes (exit $rc, $(wc -c < "$TMP/sigterm.out") bytes)" \
        [ $rc != 0 -a ! -s "$TMP/sigterm.out" ]
    check "... nothing left mounted" sh -c "! grep -qs ' $M fuse' /proc/mounts"
else
    fail "a foreground mount of the long models"
fi

# --- 4. fusermount3 -u while a file is open is refused; -u -z ends it all
if net_start_fg "$TMP/long.gguf" "$TMP/long2.gguf"; then
    cat "$M/long/vs/long2/summary.json" > "$TMP/lazy.out" 2>/dev/null &
    R=$!
    check "unmount: a comparison is computed for its reader" busy "$DPID"
    fusermount3 -u "$M" 2> "$TMP/busy.err"
    rc=$?
    check "fusermount3 -u with a file open: refused, busy ($(cat "$TMP/busy.err"))" \
        sh -c "[ $rc != 0 ] && grep -q 'busy' '$TMP/busy.err'"
    check "fusermount3 -u -z: done" fusermount3 -u -z "$M"
    check "... the daemon ends within 10 s" net_gone "$DPID"
    check "... the reader is released with an error" net_gone "$R"
    wait "$R"
    rc=$?
    check "... (exit $rc, $(wc -c < "$TMP/lazy.out") bytes)" [ $rc != 0 -a ! -s "$TMP/lazy.out" ]
    check "... the daemon said why" grep -q "left the mount table" "$TMP/fg.log"
else
    fail "a foreground mount for fusermount3 -u -z"
fi

# --- 5. gguffs --compare and Ctrl-C (job control: the background job takes SIGINT)
set -m
"$GGUFFS" --compare "$TMP/long.gguf" "$TMP/long2.gguf" > "$TMP/cmp.out" 2> "$TMP/cmp.err" &
C=$!
set +m
PIDS="$PIDS $C"
check "--compare works" busy "$C"
kill -INT "$C"
check "--compare: Ctrl-C ends it within 10 s" net_gone "$C"
wait "$C"
rc=$?
check "... killed by SIGINT, as its caller expects (exit $rc)" [ $rc = 130 ]
check "... saying so ($(cat "$TMP/cmp.err"))" grep -q "^gguffs --compare: interrupted ([0-9]* of 12 tensors compared)" "$TMP/cmp.err"
check "... printing nothing" [ ! -s "$TMP/cmp.out" ]

# --- 6. a reader waiting on a hung server, -o timeout=40: fusermount3 -u -z
W=$TMP/www
mkdir -p "$W"
"$PY" "$TOP/tests/net/mkmodels.py" data "$W/data.gguf" 8 > /dev/null || fail "making the remote model"
net_start start "$W" "$TMP/web" > /dev/null || fail "servers.sh start"
. "$TMP/web/env"
net_proxy P "$HTTP_PORT"
if net_start_fg "http://127.0.0.1:$P/data.gguf" -- direct_io,timeout=40; then
    net_rules "$P" '{"rules": [{"action": "hang", "times": -1}]}'
    timeout 120 "$PY" "$RC" "$M" "$W/data.gguf" --at $((5 * MiB)) --len 4096 > "$TMP/hung.out" 2>&1 &
    R=$!
    PIDS="$PIDS $R"
    check "hung server: a read waits on it" net_hanging "$P"
    check "hung server: fusermount3 -u is refused while the reader holds its file" sh -c "! fusermount3 -u '$M' 2>/dev/null"
    check "hung server: fusermount3 -u -z" fusermount3 -u -z "$M"
    check "... the daemon ends within 10 s (-o timeout=40)" net_gone "$DPID"
    check "... the reader is released within 10 s" net_gone "$R"
    wait "$R"
    rc=$?
    check "... its read failed, no bytes ($(cat "$TMP/hung.out"))" [ $rc = 1 ]
    net_reset "$P"
else
    fail "a foreground mount of the remote model"
fi

finish 86_stop
