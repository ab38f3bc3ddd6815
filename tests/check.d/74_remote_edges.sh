#!/bin/bash
# Remote models at their edges (issue 18), against nginx, the fault proxy
# and the hub emulation of tests/net:
#  1. a hung server (the proxy SIGSTOPped): a read is answered within one
#     -o timeout, retries included, and the kernel's repeat of a failed
#     read-ahead fails at once; Ctrl-C frees a reader in page-cache mode
#     (read and mmap) and with direct_io; a refusing server fails a read
#     within 10 s;
#  2. a server without ETag and Last-Modified: refused at mount (exit 3,
#     names -o unvalidated); -o unvalidated mounts it without the disk cache
#     and says so in info.json; its files show the mount time, not 1970;
#  3. credentials and query strings of URLs, and -o header values, are in
#     neither /proc/mounts nor the daemon's command line;
#  8. hf:// repositories: a listed file that 404s goes to .errors (URL and
#     status); a trailing slash names the repository; refs/pr/N revisions
#     (also %2F-encoded, sent encoded once); '..' segments and paths that
#     are not .gguf refused, from the command line and from a listing;
# 10. cache_dir: an hf:// repository mounts offline from a warm cache_dir
#     (its listing cached); missing parents are made; a bad or empty value
#     exits 2;
#  and: a 403 from another host than the hub gives no $HF_TOKEN hint; TLS
#  certificate and handshake errors fail at once with libcurl's reason.
# Only the nginx, proxies, daemons and readers started here are signalled.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/net/netlib.sh"
unset CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR HF_TOKEN HF_TOKEN_PATH HF_ENDPOINT
export HOME=$TMP/home
RC=$TOP/tests/net/readcmp.py
M=$TMP/m
MiB=1048576
PIDS=""
trap 'for p in $PIDS; do net_kill "$p"; done; net_cleanup; cleanup' EXIT

W=$TMP/www
mkdir -p "$W" "$HOME"
"$PY" "$TOP/tests/net/mkmodels.py" data "$W/data.gguf" 24 || { fail "making the model"; finish; exit 1; }
net_start start "$W" "$TMP/web" || { fail "servers.sh start"; finish; exit 1; }
. "$TMP/web/env"
LOG=$TMP/daemon.log

stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$1/.stats"; }
# gone PID: wait (bounded, 10 s) until PID has exited
gone() {
    for _ in $(seq 1 200); do
        net_alive "$1" || return 0
        sleep 0.05
    done
    return 1
}
# blocked PID: wait (bounded) until PID waits in the kernel on the mount: on
# a page a read-ahead fills (D), or on its own FUSE request
blocked() {
    for _ in $(seq 1 200); do
        [ "$(cut -d')' -f2 "/proc/$1/stat" 2>/dev/null | awk '{ print $1 }')" = D ] && return 0
        [ "$(cat "/proc/$1/wchan" 2>/dev/null)" = request_wait_answer ] && return 0
        sleep 0.05
    done
    return 1
}
# reader FILE OFFSET read|mmap: a Python reader in the background (Python's
# own SIGINT handler: KeyboardInterrupt), its pid in RPID
reader() {
    "$PY" -c '
import mmap, os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # (a background job starts with SIGINT ignored)
fd = os.open(sys.argv[1], os.O_RDONLY)
off = int(sys.argv[2])
if sys.argv[3] == "mmap":
    mmap.mmap(fd, 0, prot=mmap.PROT_READ)[off]
else:
    os.pread(fd, 4096, off)
print("read")' "$@" >"$TMP/reader.out" 2>&1 &
    RPID=$!
    PIDS="$PIDS $RPID"
    disown "$RPID" # (its death by SIGBUS is no news here)
}
# raw_at MOUNT OFFSET: "FILE OFFSET-IN-IT" for a byte offset of data.gguf (via info.json)
raw_at() {
    "$PY" - "$1" "$2" <<'EOF'
import json, os, sys
m, at = sys.argv[1], int(sys.argv[2])
for t in os.listdir(m + "/tensors"):
    i = json.load(open("%s/tensors/%s/info.json" % (m, t)))
    if i["offset"] <= at < i["offset"] + i["bytes"]:
        print("%s/tensors/%s/raw %d" % (m, t, at - i["offset"]))
EOF
}

# ---- 1. deadlines: a hung server, Ctrl-C, a refusing server
net_proxy P "$HTTP_PORT"
PU=http://127.0.0.1:$P
if mount_model "$M" "$PU/data.gguf" -o timeout=2,logfile="$LOG"; then
    net_freeze "$P_PID"
    out=$(timeout 12 "$PY" "$RC" "$M" "$W/data.gguf" --at $((13 * MiB + 4096)) --len 4096)
    check "hung server, page cache, -o timeout=2 (5 retries): EIO within the deadline, not after the retries and the kernel's repeat ($out)" \
        test "$out" = EIO
    n=$(stat_of "$M" http_known_failing)
    check "hung server: the kernel's repeat of the failed read-ahead failed at once (http_known_failing $n)" \
        test "${n:-0}" -ge 1
    check "hung server: the log says why (the deadline)" grep -q "no answer within the -o timeout= of 2 s" "$LOG"
    net_thaw "$P_PID"
    unmount "$M"
else
    fail "mount through the proxy (timeout=2)"
fi
# Ctrl-C (SIGINT, which Python handles) of a reader blocked on the hung
# server: a read() is freed at once (-o timeout=30), in page-cache mode (a
# read-ahead request, which gets no FUSE interrupt) as with direct_io; an
# mmap reader, whose access the kernel retries once its handler ran, within
# the deadline (-o timeout=3).
for mode in page-read direct_io page-mmap; do
    o=timeout=30 when="at once, not after -o timeout=30"
    [ $mode = direct_io ] && o=$o,direct_io
    [ $mode = page-mmap ] && o=timeout=3 when="within -o timeout=3, not after the retries"
    if mount_model "$M" "$PU/data.gguf" -o "$o"; then
        net_freeze "$P_PID"
        read -r f at <<<"$(raw_at "$M" $((17 * MiB + 8192)))"
        reader "$f" "$at" "${mode#page-}"
        check "Ctrl-C, $mode: the reader waits on the hung server" blocked "$RPID"
        kill -INT "$RPID"
        check "Ctrl-C, $mode: the reader is gone $when ($(tail -n 1 "$TMP/reader.out"))" gone "$RPID"
        net_alive "$RPID" && kill -KILL "$RPID"
        gone "$RPID"
        net_thaw "$P_PID"
        check "Ctrl-C, $mode: the daemon still serves" ls "$M/tensors" >/dev/null
        unmount "$M"
    else
        fail "mount ($mode)"
    fi
done
# A server that refuses connections (the proxy stopped), default options.
net_proxy P2 "$HTTP_PORT"
if mount_model "$M" "http://127.0.0.1:$P2/data.gguf"; then
    net_proxy_stop "$P2_PID"
    timeout 10 dd if="$M/tensors/blk.4.f16/f32" of=/dev/null bs=1M count=1 status=none 2>"$TMP/dd.err"
    rc=$?
    check "refusing server, default options: a 1 MiB f32 read fails within 10 s (dd exit $rc: $(cat "$TMP/dd.err"))" test $rc = 1
    check "refusing server: the read says EIO" grep -q 'Input/output error' "$TMP/dd.err"
    unmount "$M"
else
    fail "mount through the second proxy"
fi

# ---- 2. a server without ETag and Last-Modified (the proxy drops both)
net_proxy P3 "$HTTP_PORT"
net_rules "$P3" '{"rules": [{"action": "drop_header", "name": ["ETag", "Last-Modified"], "times": -1}]}'
U3=http://127.0.0.1:$P3/data.gguf
"$GGUFFS" "$U3" "$M" -o timeout=5 2>"$TMP/err"
rc=$?
check "no ETag, no Last-Modified: refused at mount, exit 3 ($rc), naming -o unvalidated: $(cat "$TMP/err")" \
    sh -c "[ $rc = 3 ] && grep -q -- '-o unvalidated' '$TMP/err'"
grep -qs " $M fuse" /proc/mounts && unmount "$M"
C=$TMP/cache
t0=$(date +%s)
if mount_model "$M" "$U3" -o timeout=5,unvalidated,cache_dir="$C"; then
    out=$(timeout 60 "$PY" "$RC" "$M" "$W/data.gguf" --all | tr ' ' '\n' | sort | uniq -c | tr -s ' \n' ' ')
    check "-o unvalidated: every tensor reads right ($out)" test "$out" = " 8 ok "
    check "-o unvalidated: nothing kept in cache_dir ($(find "$C" -type f | wc -l) files)" test "$(find "$C" -type f | wc -l)" = 0
    check "-o unvalidated: info.json says the source is not validated, and what that means" "$PY" -c '
import json, sys
s = json.load(open(sys.argv[1]))["source"]
sys.exit(not (s["validated"] is False and "no ETag" in s["validation"] and "disk cache" in s["validation"]))' \
        "$M/tensors/blk.0.f32/info.json"
    check "no Last-Modified: files show the mount time, not 1970 ($(stat -c %Y "$M/tensors/blk.0.f32/raw") >= $t0)" \
        test "$(stat -c %Y "$M/tensors/blk.0.f32/raw")" -ge "$t0"
    unmount "$M"
else
    fail "mount with -o unvalidated"
fi

# ---- 3. secrets on the command line: in neither /proc/mounts, nor ps, nor models.tsv
cp "$W/data.gguf" "$W/data2.gguf"
SECRET_URL="http://user:pw123@127.0.0.1:$HTTP_PORT/data.gguf?X-Amz-Signature=sig456"
mkdir -p "$M"
MOUNTS="$MOUNTS $M"
"$GGUFFS" -f "$SECRET_URL" "$HTTP_URL/data2.gguf" "$M" -o timeout=5 -o "header=X-Secret: hunter789" >"$TMP/fg3.log" 2>&1 &
DPID=$!
PIDS="$PIDS $DPID"
for _ in $(seq 1 200); do grep -qs " $M fuse" /proc/mounts && break; sleep 0.05; done
if grep -qs " $M fuse" /proc/mounts; then
    line=$(grep " $M fuse" /proc/mounts)
    check "/proc/mounts: the source is the URL without credentials and query ($line)" \
        sh -c "echo '$line' | grep -q '^http://127.0.0.1:$HTTP_PORT/data.gguf ' && ! echo '$line' | grep -q 'pw123\|sig456\|user:'"
    cmd=$(tr '\0' ' ' <"/proc/$DPID/cmdline")
    check "ps: the daemon's command line has no credentials, query or header value ($cmd)" \
        sh -c "! echo '$cmd' | grep -q 'pw123\|sig456\|hunter789\|user:'"
    check "ps: it still names the URLs and the options" \
        sh -c "echo '$cmd' | grep -q '127.0.0.1:$HTTP_PORT/data.gguf .*data2.gguf .*timeout=5 .*header=X-Secret:'"
    check "models.tsv names the URL without credentials and query" \
        sh -c "grep -q 'http://127.0.0.1:$HTTP_PORT/data.gguf?\.\.\.' '$M/models.tsv' && ! grep -q 'pw123\|sig456' '$M/models.tsv'"
    fusermount3 -u "$M"
    gone "$DPID"
else
    fail "mount with credentials in the URL: $(cat "$TMP/fg3.log")"
fi

finish 74_remote_edges
