#!/bin/bash
# Remote models under injected faults (tests/net/faultproxy.py in front of
# nginx), with small -o timeout= / retries= (a read's deadline of 4 s, a
# connection without progress given up after 2 s): latency, connection resets,
# 500/503/408/429 (Retry-After), short bodies, 200 instead of 206, a wrong
# or missing Content-Range, a server that hangs or stalls mid-body, the file
# replaced (new ETag) mid-mount, the server gone, read-ahead GETs cut short
# (resumed after the bytes that came). Each gives its documented
# outcome (retried then right bytes, EIO, or ESTALE) within a bounded time,
# never wrong bytes (every successful read is compared), the daemon keeps
# serving after each, and a read after the failure memory (1 s) tries again. Unmounting
# (fusermount3 -u, SIGTERM) is prompt while the server hangs, and so is
# killing a reader blocked on it.
# Only the nginx, proxies, daemons and readers started here are signalled.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/net/netlib.sh"
net_suite

W=$TMP/www
mkdir -p "$W" "$HOME"
"$PY" "$TOP/tests/net/mkmodels.py" data "$W/data.gguf" 40 || { fail "making the model"; finish; exit 1; }
cp "$W/data.gguf" "$W/data2.gguf"
cp "$W/data.gguf" "$W/data3.gguf"
net_start start "$W" "$TMP/web" || { fail "servers.sh start"; finish; exit 1; }
. "$TMP/web/env"
net_proxy P "$HTTP_PORT"
LOG=$TMP/daemon.log

pj() { net_plog "$P" | "$PY" -c 'import json,sys; L=json.load(sys.stdin); print('"$1"')'; }
alive() { ls "$M/tensors" >/dev/null && [ -n "$(stat_of "$M" http_requests)" ]; }
# rd OFFSET: read 4096 bytes at OFFSET of the model through the mount (one
# read, compared); prints ok / EIO / ESTALE / WRONG ...
rd() { timeout 120 "$PY" "$RC" "$M" "$W/data.gguf" --at "$1" --len 4096; }
# tries OFFSET: GETs the proxy saw for the block holding OFFSET (a try
# after an answer cut short asks for the rest of it, from the byte after)
tries() { pj "sum(1 for e in L if (e['range'] or '').startswith('bytes=') and
    int(e['range'][6:].split('-')[0]) // $MiB == $(($1 / MiB)))"; }
# resumed_by OFFSET N: each GET of the block holding OFFSET after the first
# began N bytes after the one before
resumed_by() { pj "(lambda s: int(len(s) > 1 and all(b - a == $2 for a, b in zip(s, s[1:]))))(
    [int(e['range'][6:].split('-')[0]) for e in L if (e['range'] or '').startswith('bytes=') and
     int(e['range'][6:].split('-')[0]) // $MiB == $(($1 / MiB))])"; }
# Each case reads its own block (two apart: never a sequential stream), so
# what it fetches is not in the block cache yet.
B=1
next_block() { AT=$((B * MiB + 4096)); B=$((B + 2)); }

# fault NAME RULES EXPECTED [TRIES]: with RULES, a read of a new block gives
# EXPECTED after TRIES GETs of it; the daemon then still serves.
fault() {
    local name=$1 rules=$2 want=$3 ntries=${4:-} got n
    net_rules "$P" "$rules" || { fail "$name: rules refused"; return; }
    net_plog_clear "$P"
    next_block
    got=$(rd "$AT")
    check "$name: $want (got $got)" test "$got" = "$want"
    if [ -n "$ntries" ]; then
        n=$(tries "$AT")
        check "$name: $ntries GETs of the block ($n)" test "$n" = "$ntries"
    fi
    net_rules "$P" '{}' # (the log stays for the caller's checks)
    check "$name: the daemon still serves" alive
}

OPTS=(-o direct_io,timeout=4,retries=2,logfile="$LOG")
if ! mount_model "$M" "http://127.0.0.1:$P/data.gguf" "${OPTS[@]}"; then
    fail "mount through the proxy"
    finish
    exit 1
fi

fault "latency 300 ms" '{"latency_ms": 300}' ok 1
# (libcurl itself retries a request whose reused connection was reset
# before any answer: our counters may not see this one)
fault "one connection reset" '{"rules": [{"action": "reset"}]}' ok 2
fault "resets on 2 connections" '{"rules": [{"action": "reset", "times": 2}]}' ok 3
fault "500 twice" '{"rules": [{"action": "status", "code": 500, "times": 2}]}' ok 3
fault "408 once" '{"rules": [{"action": "status", "code": 408}]}' ok 2
fault "503 for ever: EIO after 1 + retries tries" '{"rules": [{"action": "status", "code": 503, "times": -1}]}' EIO 3
check "503: logged with the URL, the bytes and why" grep -q "/data.gguf: reading bytes $((AT / MiB * MiB))-[0-9]* failed: after 3 tries: .*HTTP 503" "$LOG"
check "503: the same read at once fails at once, not asked again" test "$(rd "$AT")|$(tries "$AT")" = "EIO|3"
sleep 1.1 # (failed ranges are remembered for 1 s)
check "503: the same read works once the server is back" test "$(rd "$AT")" = ok
check "5xx counted" test "$(stat_of "$M" http_status_5xx)" = 5
check "failed reads counted" test "$(stat_of "$M" http_failed_reads)" -ge 1

fault "429 with Retry-After: 1" '{"rules": [{"action": "status", "code": 429, "headers": {"Retry-After": "1"}}]}' ok
check "429: the retry waited for Retry-After" test "$(pj "(lambda r: int(len(r) == 2 and r[1]['t_start'] - r[0]['t_end'] >= 0.95))(
    [e for e in L if (e['range'] or '').startswith('bytes=$((AT / MiB * MiB))-')])")" = 1
check "429 counted" test "$(stat_of "$M" http_status_429)" = 1

fault "short body once" '{"rules": [{"action": "short", "bytes": 1000}]}' ok 2
check "short body once: the rest asked for, from the byte after what came" test "$(resumed_by "$AT" 1000)" = 1
fault "short bodies for ever, each bringing more: the rest asked for each time" \
    '{"rules": [{"action": "short", "bytes": 200000, "times": -1}]}' ok 6
check "short bodies for ever: each try from the byte after what came" test "$(resumed_by "$AT" 200000)" = 1
fault "bodies that bring nothing, for ever" '{"rules": [{"action": "short", "bytes": 0, "times": -1}]}' EIO 3
check "short bodies counted" test "$(stat_of "$M" http_short_bodies)" -ge 4

w0=$(stat_of "$M" http_whole_bodies)
fault "200 with the whole body instead of 206" '{"rules": [{"action": "full200", "times": -1}]}' ok 1
check "whole body: counted" test "$(stat_of "$M" http_whole_bodies)" = $((w0 + 1))
fault "wrong Content-Range once" '{"rules": [{"action": "wrong_range", "shift": 4096}]}' ok 2
fault "wrong Content-Range for ever" '{"rules": [{"action": "wrong_range", "shift": -1048576, "times": -1}]}' EIO 3
fault "206 without Content-Range" '{"rules": [{"action": "drop_header", "name": "Content-Range", "times": -1}]}' EIO 3
check "wrong ranges counted" test "$(stat_of "$M" http_wrong_ranges)" -ge 7

fault "server hangs for ever: EIO at the deadline (timeout 4 s), after 2 s without progress and a retry" \
    '{"rules": [{"action": "hang", "times": -1}]}' EIO 2
check "hang: timeouts counted" test "$(stat_of "$M" http_timeouts)" = 2
fault "server stalls mid-body once" '{"rules": [{"action": "stall", "bytes": 5000}]}' ok 2
check "stall: the rest asked for, from the byte after what came" test "$(resumed_by "$AT" 5000)" = 1
check "no ESTALE so far (nothing changed)" test "$(stat_of "$M" http_stale)" = 0

# Readers at once through a storm of resets, 503s and short bodies: right
# bytes or EIO, never wrong bytes.
net_rules "$P" '{"rules": [{"action": "reset", "times": 6}, {"action": "status", "code": 503, "times": 6},
    {"action": "short", "bytes": 777, "times": 6}, {"action": "full200", "times": 6}]}'
SP=""
for i in 1 2 3; do
    timeout 120 "$PY" "$RC" "$M" "$W/data.gguf" --all >"$TMP/storm$i" &
    SP="$SP $!"
done
wait $SP
check "storm: never wrong bytes, mostly right ($(cat "$TMP"/storm? | tr ' ' '\n' | sort | uniq -c | tr '\n' ' '))" \
    sh -c "! grep -q WRONG '$TMP'/storm? && [ \$(cat '$TMP'/storm? | tr ' ' '\n' | grep -c '^ok$') -gt 0 ]"
net_reset "$P"
sleep 1.1 # (failed ranges are remembered for 1 s)
check "after the storm: every tensor right" test "$("$PY" "$RC" "$M" "$W/data.gguf" --all | tr ' ' '\n' | sort -u)" = ok
check "no ESTALE from any of it" test "$(stat_of "$M" http_stale)" = 0

# A read-ahead GET cut short resumes after the bytes it brought: its retry
# asks for the rest only (every GET of 2.5 MiB or more is cut after 2.5 MiB
# here), and the stream's bytes are right. A try that brought bytes is not
# counted as a retry: with -o retries=0 every part still comes whole,
# however many tries it takes.
unmount "$M"
if mount_model "$M" "http://127.0.0.1:$P/data.gguf" -o direct_io,timeout=20,retries=0,logfile="$LOG"; then
    net_rules "$P" '{"rules": [{"range": "^bytes=", "times": -1, "action": "short", "bytes": 2621440}]}'
    net_plog_clear "$P"
    check "GETs cut short: every tensor, read in file order, right" \
        test "$(timeout 120 "$PY" "$RC" "$M" "$W/data.gguf" --all | tr ' ' '\n' | sort -u)" = ok
    resumed=$(pj "sum(1 for a in L for b in L if a['range'] and b['range'] and b['n'] > a['n']
        and int(b['range'][6:].split('-')[0]) == int(a['range'][6:].split('-')[0]) + 2621440
        and b['range'].split('-')[1] == a['range'].split('-')[1])")
    check "a GET cut short is resumed 2.5 MiB (the bytes that came) on ($resumed)" test "$resumed" -ge 1
    net_reset "$P"
    unmount "$M"
    sleep 1.1 # (failed ranges are remembered for 1 s)
    mount_model "$M" "http://127.0.0.1:$P/data.gguf" "${OPTS[@]}" || fail "mount again"
fi

# --- the object changes on the server (nginx's ETag is mtime-size), seen
# by a fresh mount (blocks read before are in the block cache and stay
# right: they are all of the version mounted)
unmount "$M"
if mount_model "$M" "http://127.0.0.1:$P/data3.gguf" "${OPTS[@]}"; then
    rd3() { timeout 60 "$PY" "$RC" "$M" "$W/data3.gguf" --at "$1" --len 4096; }
    next_block
    A1=$AT
    check "before the change: ok" test "$(rd3 "$A1")" = ok
    touch -d '2001-01-01 00:00:00' "$W/data3.gguf"
    net_plog_clear "$P"
    next_block
    got=$(rd3 "$AT")
    check "file replaced on the server: a new block gives ESTALE ($got)" test "$got" = ESTALE
    check "ESTALE: the server said 412 to If-Match" test "$(pj "[e['status'] for e in L]")|$(pj "L[-1]['if_match'] is not None")" = "[412]|True"
    got=$(rd3 "$A1")
    check "ESTALE for good: a block read before too ($got)" test "$got" = ESTALE
    next_block
    got=$(rd3 "$AT")
    check "ESTALE for good: another new block ($got)" test "$got" = ESTALE
    check "ESTALE: asked the server once" test "$(pj "len(L)")" = 1
    check "ESTALE: one log line" test "$(grep -c 'changed on the server since it was mounted' "$LOG")" = 1
    check "ESTALE: counted" test "$(stat_of "$M" http_stale)" = 1
    check "ESTALE: the daemon still serves" alive
    unmount "$M"
else
    fail "mount of data3"
fi

# A server that ignores If-Match and sends the new object's bytes with a
# new ETag: detected from the answer, never served.
if mount_model "$M" "http://127.0.0.1:$P/data2.gguf" "${OPTS[@]}"; then
    net_rules "$P" '{"rules": [{"action": "set_header", "name": "ETag", "value": "\"other\"", "times": -1}]}'
    check "new ETag in a 206: ESTALE" test "$(timeout 60 "$PY" "$RC" "$M" "$W/data2.gguf" --at $((3 * MiB + 8192)) --len 4096)" = ESTALE
    net_reset "$P"
    check "new ETag: stale for good even when the server is right again" \
        test "$(timeout 60 "$PY" "$RC" "$M" "$W/data2.gguf" --at $((5 * MiB + 8192)) --len 4096)" = ESTALE
    # and a new size (Content-Range total) without any ETag
    unmount "$M"
fi
if mount_model "$M" "http://127.0.0.1:$P/data2.gguf" "${OPTS[@]}"; then
    net_rules "$P" '{"rules": [{"action": "drop_header", "name": "ETag", "times": -1}]}'
    echo extra >>"$W/data2.gguf"
    check "grown on the server (412 to If-Match): ESTALE" \
        test "$(timeout 60 "$PY" "$RC" "$M" "$W/data2.gguf" --at $((5 * MiB + 8192)) --len 4096)" = ESTALE
    net_reset "$P"
    unmount "$M"
fi

# --- the server goes away
if mount_model "$M" "http://127.0.0.1:$P/data2.gguf" "${OPTS[@]}"; then
    net_proxy_stop "$P_PID"
    check "server gone: EIO" test "$(timeout 60 "$PY" "$RC" "$M" "$W/data2.gguf" --at $((7 * MiB)) --len 4096)" = EIO
    check "server gone: a refused connection is tried twice, not 1 + retries times" \
        test "$(stat_of "$M" http_connect_errors)" = 2
    check "server gone: the daemon still serves" alive
    unmount "$M"
fi
net_proxy P "$HTTP_PORT"
# The server goes away under a stream, with the default -o timeout and
# retries (30 s, 5: minutes of trying): connections refused outright fail
# the reader's next reads within 10 s, never with wrong bytes.
if mount_model "$M" "http://127.0.0.1:$P/data2.gguf" -o direct_io,logfile="$LOG"; then
    net_rules "$P" '{"latency_ms": 150}'
    timeout 120 "$PY" "$RC" "$M" "$W/data2.gguf" --all >"$TMP/gone.out" 2>&1 &
    GONE=$!
    PIDS="$PIDS $GONE"
    sleep 0.6
    net_proxy_stop "$P_PID"
    t0=$(date +%s%N)
    wait "$GONE"
    took=$((($(date +%s%N) - t0) / 1000000))
    echo "server gone mid-stream: the reader ended $took ms later: $(cat "$TMP/gone.out")"
    check "server gone mid-stream: the reader ends within 10 s ($took ms: $(tr ' ' '\n' <"$TMP/gone.out" | sort | uniq -c | tr '\n' ' '))" \
        test "$took" -lt 10000
    check "server gone mid-stream: EIO, never wrong bytes" sh -c "grep -q EIO '$TMP/gone.out' && ! grep -q WRONG '$TMP/gone.out'"
    unmount "$M"
    net_proxy P "$HTTP_PORT"
fi

# --- unmounting while the server hangs (timeout 30 s, 5 retries: minutes)
# start_fg: a daemon in the foreground here (its PID known), mounted.
start_fg() { net_start_fg "http://127.0.0.1:$P/data.gguf" -- direct_io,timeout=30,retries=5; }
# hanging: wait (bounded) until the proxy holds a request unanswered
hanging() { net_hanging "$P"; }
# gone PID: wait (bounded) until PID has exited
gone() { net_gone "$1" 15; }
touch -d '2002-02-02 00:00:00' "$W/data.gguf"
# fusermount3 -u: a reader reads 2 MiB sequentially, which starts read-ahead;
# the server hangs for every GET but the reader's own, so read-ahead GETs
# hang in the daemon with no file open.
if start_fg; then
    T=$(ls "$M/tensors" | head -n 1)
    toff=$(grep -o '"offset":[[:space:]]*[0-9]*' "$M/tensors/$T/info.json" | grep -o '[0-9]*$')
    k=$((toff / MiB + 1))
    net_rules "$P" "{\"rules\": [{\"range\": \"^bytes=(?!$((k * MiB))-|$(((k + 1) * MiB))-)\", \"action\": \"hang\", \"times\": -1}]}"
    dd if="$M/tensors/$T/raw" of="$TMP/two" bs=1M count=2 iflag=skip_bytes skip=$((k * MiB - toff)) status=none
    check "fusermount3 -u: the reader got its 2 MiB" cmp -s "$TMP/two" <(dd if="$W/data.gguf" bs=1M skip="$k" count=2 status=none)
    check "fusermount3 -u: read-ahead GETs hang on the server" hanging
    check "fusermount3 -u while the server hangs: unmounted at once" timeout 10 fusermount3 -u "$M"
    check "fusermount3 -u: the daemon exits promptly (timeout is 30 s)" gone "$DPID"
    net_alive "$DPID" && kill -KILL "$DPID"
    wait "$DPID"
    check "fusermount3 -u: the daemon's exit status is 0" test $? = 0
    net_reset "$P"
else
    fail "fusermount3 -u: foreground mount"
fi
# A reader blocked on the hung server, killed: its read is interrupted (FUSE
# interrupt) at once, not after the timeouts; then fusermount3 -u.
if start_fg; then
    net_rules "$P" '{"rules": [{"action": "hang", "times": -1}]}'
    net_plog_clear "$P"
    timeout 120 "$PY" "$RC" "$M" "$W/data.gguf" --at $((13 * MiB)) --len 4096 >"$TMP/hung.out" 2>&1 &
    RPID=$!
    PIDS="$PIDS $RPID"
    check "interrupt: a read waits on the hung server" hanging
    kill -TERM "$RPID"
    check "interrupt: the killed reader is gone at once (timeout is 30 s)" gone "$RPID"
    check "interrupt: its GET was not retried" test "$(pj "len(L)")" = 1
    check "interrupt: fusermount3 -u" timeout 10 fusermount3 -u "$M"
    check "interrupt: the daemon exits promptly" gone "$DPID"
    net_alive "$DPID" && kill -KILL "$DPID"
    wait "$DPID"
    check "interrupt: the daemon's exit status is 0" test $? = 0
    net_reset "$P"
else
    fail "interrupt: foreground mount"
fi
# SIGTERM: a reader waits on the hung server.
if start_fg; then
    net_rules "$P" '{"rules": [{"action": "hang", "times": -1}]}'
    timeout 120 "$PY" "$RC" "$M" "$W/data.gguf" --at $((9 * MiB)) --len 4096 >"$TMP/hung.out" 2>&1 &
    RPID=$!
    PIDS="$PIDS $RPID"
    check "SIGTERM: a read waits on the hung server" hanging
    kill -TERM "$DPID"
    check "SIGTERM while the server hangs: the daemon exits promptly" gone "$DPID"
    net_alive "$DPID" && kill -KILL "$DPID"
    wait "$DPID"
    check "SIGTERM: the daemon's exit status is 0" test $? = 0
    check "SIGTERM: the waiting reader is released" gone "$RPID"
    wait "$RPID"
    rc=$?
    check "SIGTERM: the waiting read failed, no bytes ($(cat "$TMP/hung.out"))" test $rc = 1
    check "SIGTERM: nothing left mounted" sh -c "! grep -qs ' $M fuse' /proc/mounts"
    net_reset "$P"
else
    fail "SIGTERM: foreground mount"
fi

finish 71_remote_faults
