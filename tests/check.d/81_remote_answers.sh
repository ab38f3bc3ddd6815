#!/bin/bash
# Answers a server chooses per request (tests/net/faultproxy.py in front of
# nginx), those found when remote models were tried as a new user would
# (issue 32):
#  - a 206 shorter than the range asked for, with an honest Content-Range:
#    the rest is asked for, every byte is right, and no block that did not
#    come whole is kept, in memory or in cache_dir (a later mount against a
#    right server reads the same bytes);
#  - a Content-Range whose total is one byte more than the file: never a
#    byte that no server sent;
#  - a Content-Range with no total (bytes 0-1048575/*), a body that
#    trickles: the messages say what was seen;
#  - the object deleted on the server: EIO, not ENOENT;
#  - credentials, a signature and a token in the URL: in no file gguffs
#    writes (cache_dir, the log), nor in the daemon's /proc/PID/cmdline;
#  - models.tsv filled for files and URLs named on the command line, as for
#    the same files mounted as a folder;
#  - a hub's tree listing whose next page is itself, or ever new: it ends,
#    saying why (the S3 listing's case is 75_remote_s3's).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/net/netlib.sh"
net_suite

W=$TMP/www
mkdir -p "$W" "$HOME"
"$PY" "$TOP/tests/net/mkmodels.py" data "$W/data.gguf" 24 || { fail "making the model"; finish; exit 1; }
for f in short total del sec; do cp "$W/data.gguf" "$W/$f.gguf"; done
SIZE=$(stat -c %s "$W/data.gguf")
net_start start "$W" "$TMP/web" || { fail "servers.sh start"; finish; exit 1; }
. "$TMP/web/env"
net_proxy P "$HTTP_PORT"
PU=http://127.0.0.1:$P
LOG=$TMP/daemon.log
pj() { net_plog "$P" | "$PY" -c 'import json,sys; L=json.load(sys.stdin); print('"$1"')'; }
# at FILE OFFSET N: what a read of N bytes at OFFSET of FILE gives (its bytes in hex, or the errno's name)
at() {
    "$PY" -c 'import errno, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    print(os.pread(fd, int(sys.argv[3]), int(sys.argv[2])).hex() or "EOF")
except OSError as e:
    print(errno.errorcode[e.errno])' "$@"
}

# --- a 206 shorter than asked for: every GET with a range is answered with
# at most 1.5 MiB of it (the server's honest Content-Range says so)
C=$TMP/cache
net_rules "$P" '{"rules": [{"range": "^bytes=", "action": "cap_range", "bytes": 1572864, "times": -1}]}'
if mount_model "$M" "$PU/short.gguf" -o timeout=10,cache_dir="$C",logfile="$LOG"; then
    check "short 206s: model.gguf is the file, byte for byte" cmp "$M/model.gguf" "$W/short.gguf"
    check "short 206s: every tensor right" test "$(timeout 120 "$PY" "$RC" "$M" "$W/short.gguf" --all | tr ' ' '\n' | sort -u)" = ok
    asked=$(pj "sum(1 for a in L for b in L if a['range'] and b['range'] and b['n'] > a['n']
        and int(b['range'][6:].split('-')[0]) == int(a['range'][6:].split('-')[0]) + 1572864)")
    check "short 206s: the rest asked for, from the byte after what came ($asked)" test "$asked" -ge 1
    unmount "$M"
else
    fail "mount through short 206s"
fi
net_reset "$P"
if mount_model "$M" "$PU/short.gguf" -o timeout=10,cache_dir="$C"; then
    check "short 206s: what cache_dir kept is the file's bytes (a mount against a right server)" \
        cmp "$M/model.gguf" "$W/short.gguf"
    unmount "$M"
else
    fail "mount from the cache_dir of the short 206s"
fi

# --- a Content-Range total one byte more than the file, in every answer
net_rules "$P" '{"rules": [{"action": "wrong_total", "shift": 1, "times": -1}]}'
if mount_model "$M" "$PU/total.gguf" -o direct_io,timeout=4,retries=1,logfile="$LOG"; then
    got=$(at "$M/model.gguf" "$SIZE" 1)
    check "a total one byte more: the byte past the file is no byte ($got)" sh -c "[ '$got' = ESTALE ] || [ '$got' = EIO ]"
    got=$(at "$M/model.gguf" $((SIZE - 2)) 3)
    check "a total one byte more: the file's last bytes are not served with it ($got)" \
        sh -c "[ '$got' = ESTALE ] || [ '$got' = EIO ]"
    unmount "$M"
else
    fail "mount with a wrong total"
fi
net_reset "$P"
if mount_model "$M" "$PU/total.gguf" -o direct_io,timeout=4,retries=1,logfile="$LOG"; then
    net_rules "$P" '{"rules": [{"action": "wrong_total", "shift": 1, "times": -1}]}'
    got=$("$PY" "$RC" "$M" "$W/total.gguf" --at $((9 * MiB)) --len 4096)
    check "a total that differs from the mount's: ESTALE ($got)" test "$got" = ESTALE
    check "the size stays the one mounted" test "$(stat -c %s "$M/model.gguf")" = "$SIZE"
    net_reset "$P"
    unmount "$M"
else
    fail "mount before a wrong total"
fi

# --- what was seen: a Content-Range without a total, a trickling body
# dump_with RULE OPTS: --dump of data.gguf through the proxy answering with
# RULE, with -o OPTS: its exit status in $rc, its message in $TMP/err
dump_with() {
    net_rules "$P" "{\"rules\": [$1]}"
    "$GGUFFS" --dump -o "$2" "$PU/data.gguf" >/dev/null 2>"$TMP/err"
    rc=$?
    echo "$1: $(cat "$TMP/err")"
}
dump_with '{"action": "set_header", "name": "Content-Range", "value": "bytes 0-1048575/*", "times": -1}' timeout=2,retries=0
check "Content-Range bytes 0-1048575/*: exit 3, named as sent ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q 'bytes 0-1048575/\*' '$TMP/err' && ! grep -q '0-0/0' '$TMP/err'"
dump_with '{"action": "trickle", "bytes": 1000, "ms": 50, "times": -1}' timeout=4,retries=0
check "a trickling body: exit 3, says it came too slowly, with the bytes that came ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q 'too slowly: [0-9]* of 1048576 bytes in' '$TMP/err' && ! grep -q 'no answer' '$TMP/err'"
net_reset "$P"

# --- the object deleted on the server
if mount_model "$M" "$PU/del.gguf" -o direct_io,timeout=4,retries=1,logfile="$LOG"; then
    rm "$W/del.gguf"
    got=$("$PY" "$RC" "$M" "$W/data.gguf" --at $((9 * MiB)) --len 4096)
    check "deleted on the server: EIO, not ENOENT ($got)" test "$got" = EIO
    check "deleted on the server: the log says so" grep -q 'del.gguf: reading bytes .* failed: .*HTTP 404' "$LOG"
    unmount "$M"
else
    fail "mount before the deletion"
fi

# --- secrets in the URL: the password, a signature and a token
PASS=pw-7c1e9f SIG=sig-5b2d0c TOK=tok-9a8f7e
C2=$TMP/cache2
LOG2=$TMP/daemon2.log
if net_start_fg "http://bob:$PASS@127.0.0.1:$P/sec.gguf?X-Amz-Signature=$SIG&X-Amz-Security-Token=$TOK" \
    -- direct_io,timeout=5,cache_dir="$C2",logfile="$LOG2"; then
    "$PY" "$RC" "$M" "$W/sec.gguf" --at $((5 * MiB)) --len 4096 >/dev/null
    cat "$M/tensors.tsv" "$M"/tensors/*/info.json >"$TMP/texts"
    tr '\0' ' ' <"/proc/$DPID/cmdline" >"$TMP/cmdline"
    check "secrets: cache_dir has files to look into ($(find "$C2" -type f | wc -l))" test "$(find "$C2" -type f | wc -l)" -ge 2
    for s in PASS SIG TOK; do
        check "secrets: the $s is in no file of cache_dir" sh -c "! grep -rqF -- \"\$1\" '$C2'" _ "${!s}"
        check "secrets: the $s is not in the log, the texts, /proc/mounts or /proc/PID/cmdline" \
            sh -c "! grep -qF -- \"\$1\" '$LOG2' '$TMP/fg.log' '$TMP/texts' '$TMP/cmdline' /proc/mounts" _ "${!s}"
    done
    fusermount3 -u "$M"
else
    fail "mount of a URL with secrets ($(cat "$TMP/fg.log"))"
fi

# --- listings that never end: the hub's tree whose Link: rel="next" is the
# page itself, or ever new (then the listing's page limit, 10000 pages, or
# its deadline, 10 x -o timeout: the limit where a page takes 0.3 ms, the
# deadline where a page takes 5 ms more)
T=/api/models/o/r/tree/main
LISTINGS="\"rules\": [{\"match\": \"/api/models/o/r/tree/\", \"action\": \"status\", \"code\": 200, \"times\": -1,
    \"headers\": {\"Content-Type\": \"application/json\", \"Link\": \"<$PU$T?recursive=true&expand=false>; rel=\\\"next\\\"\"},
    \"body\": \"[]\"}, {\"match\": \"/api/models/o/e/tree/\", \"action\": \"status\", \"code\": 200, \"times\": -1,
    \"headers\": {\"Content-Type\": \"application/json\", \"Link\": \"<$PU/api/models/o/e/tree/main?cursor={n}>; rel=\\\"next\\\"\"},
    \"body\": \"[]\"}]"
net_rules "$P" "{$LISTINGS}"
HF_ENDPOINT=$PU timeout 60 "$GGUFFS" -o timeout=1 hf://o/r "$M" 2>"$TMP/err"
rc=$?
check "a tree page whose next link is itself: exit 3, said ($rc: $(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q 'hf://o/r: the listing would never end: page 1 leads to page 1 again (the same Link: rel=\"next\")' '$TMP/err'"
grep -qs " $M fuse" /proc/mounts && unmount "$M"
# ever_new WHAT MESSAGE: hf://o/e, whose every tree page links to a new
# one, with -o timeout=1: exit 3 within 20 s, saying MESSAGE
ever_new() {
    local t0 rc took
    t0=$(date +%s)
    HF_ENDPOINT=$PU timeout 60 "$GGUFFS" -o timeout=1 hf://o/e "$M" 2>"$TMP/err"
    rc=$?
    took=$(($(date +%s) - t0))
    check "a tree whose next link is ever new: exit 3 at $1 ($rc, $took s: $(cat "$TMP/err"))" \
        sh -c "[ $rc = 3 ] && [ $took -le 20 ] && grep -q \"hf://o/e: the listing $2\" '$TMP/err'"
    grep -qs " $M fuse" /proc/mounts && unmount "$M"
}
ever_new "its page limit" "goes on past 10000 pages, the most gguffs lists"
net_rules "$P" "{\"latency_ms\": 5, $LISTINGS}"
ever_new "its deadline" "did not end within 10 s (10 x -o timeout=1), after [0-9]* pages"
net_reset "$P"

# --- models.tsv of models named on the command line, as of a folder's
mkdir -p "$TMP/folder"
cp "$W/data.gguf" "$TMP/folder/"
cp "$DATA/mainline/mainline.gguf" "$TMP/folder/"
cols() { awk -F'\t' 'NR > 1 { print $2, $3, $4, $5, $6 }' "$1/models.tsv" | sort; }
if mount_model "$M" "$PU/data.gguf" "$DATA/mainline/mainline.gguf" && mount_model "$TMP/f" "$TMP/folder"; then
    check "models.tsv of a URL and a file named: as of a folder ($(cols "$M" | tr '\n' '|'))" \
        test "$(cols "$M")" = "$(cols "$TMP/f")"
    check "models.tsv of a URL and a file named: every column filled" \
        sh -c "! awk -F'\t' 'NR > 1' '$M/models.tsv' | grep -q -P '\t-\t0\t-\t-\t'"
    unmount "$TMP/f"
    unmount "$M"
else
    fail "mount of a URL and a file, and of a folder"
fi

finish 81_remote_answers
