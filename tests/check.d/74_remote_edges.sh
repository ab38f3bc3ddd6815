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
#     and says so in info.json; files without Last-Modified show the mount
#     time, not 1970;
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
net_suite

W=$TMP/www
mkdir -p "$W" "$HOME"
"$PY" "$TOP/tests/net/mkmodels.py" data "$W/data.gguf" 24 || { fail "making the model"; finish; exit 1; }
net_start start "$W" "$TMP/web" || { fail "servers.sh start"; finish; exit 1; }
. "$TMP/web/env"
LOG=$TMP/daemon.log

# gone PID: wait (bounded, 10 s) until PID has exited
gone() { net_gone "$1"; }
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
t0=$(date +%s) # (before the mounts below: their times are the mounts')
if mount_model "$M" "$U3" -o timeout=5,unvalidated,cache_dir="$C"; then
    out=$(timeout 60 "$PY" "$RC" "$M" "$W/data.gguf" --all | tr ' ' '\n' | sort | uniq -c | tr -s ' \n' ' ')
    check "-o unvalidated: every tensor reads right ($out)" test "$out" = " 8 ok "
    check "-o unvalidated: nothing kept in cache_dir ($(find "$C" -type f | wc -l) files)" test "$(find "$C" -type f | wc -l)" = 0
    check "-o unvalidated: info.json says the source is not validated, and what that means" "$PY" -c '
import json, sys
s = json.load(open(sys.argv[1]))["source"]
sys.exit(not (s["validated"] is False and "no ETag" in s["validation"] and "disk cache" in s["validation"]))' \
        "$M/tensors/blk.0.f32/info.json"
    check "no validator: files show the mount time, not 1970 ($(stat -c %Y "$M/tensors/blk.0.f32/raw") >= $t0)" \
        test "$(stat -c %Y "$M/tensors/blk.0.f32/raw")" -ge "$t0"
    unmount "$M"
else
    fail "mount with -o unvalidated"
fi
# an ETag but no Last-Modified: mounts as it is (the ETag validates), and
# its files show the mount time, not 1970
net_rules "$P3" '{"rules": [{"action": "drop_header", "name": "Last-Modified", "times": -1}]}'
if mount_model "$M" "$U3" -o timeout=5; then
    check "no Last-Modified: files show the mount time, not 1970 ($(stat -c %Y "$M/tensors/blk.0.f32/raw") >= $t0)" \
        test "$(stat -c %Y "$M/tensors/blk.0.f32/raw")" -ge "$t0"
    unmount "$M"
else
    fail "mount of a URL with an ETag and no Last-Modified"
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

# ---- 8. hf:// repositories at their edges (the hub emulation)
H=$TMP/hub
R=$H/org/repo
mkdir -p "$R/sub" "$H/org/other"
cp "$DATA/mainline/mainline.gguf" "$R/a.gguf"
cp "$DATA/ik/ik.gguf" "$R/sub/b.gguf"
cp "$DATA/mainline/mainline.gguf" "$H/org/other/x.gguf"
printf '# card\n' >"$R/README.md"
# refs/pr/1 has pr-only.gguf; main lists gone.gguf, which is then deleted
# (the CDN says 404); "evil" is main's listing with hostile paths added.
cp "$DATA/mainline/mainline.gguf" "$R/pr-only.gguf"
"$PY" "$NET/hf_tree.py" "$H" org/repo refs/pr/1 >/dev/null || fail "hf_tree.py refs/pr/1"
mv "$R/pr-only.gguf" "$TMP/pr-only.gguf"
cp "$DATA/mainline/mainline.gguf" "$R/gone.gguf"
"$PY" "$NET/hf_tree.py" "$H" org/repo main >/dev/null && "$PY" "$NET/hf_tree.py" "$H" org/repo evil >/dev/null &&
    "$PY" "$NET/hf_tree.py" "$H" org/other main >/dev/null || fail "hf_tree.py"
rm "$R/gone.gguf"
mv "$TMP/pr-only.gguf" "$R/pr-only.gguf"
"$PY" - "$H/.hf/org/repo/evil/tree-r1.json" <<'EOF'
import json, sys
L = json.load(open(sys.argv[1]))
L += [{"type": "file", "oid": "0" * 40, "size": 1, "path": p} for p in ("../../org/other/x.gguf", "sub/./b.gguf")]
json.dump(L, open(sys.argv[1], "w"))
EOF
net_start start-hf "$H" "$TMP/hf" || { fail "servers.sh start-hf"; finish; exit 1; }
HP=$(net_env "$TMP/hf" HTTP_PORT)
HLOG=$(net_env "$TMP/hf" ACCESS_LOG)
export HF_ENDPOINT=http://127.0.0.1:$HP
NO=(-o timeout=5,retries=1)
# hub_uris_since N: the URIs the hub got after its log's first N lines
hub_uris_since() { sleep 0.2; tail -n +$(($1 + 1)) "$HLOG" | cut -f "$ALOG_URI"; }

# a listed file that 404s: in .errors with its URL and the status, not a silent empty folder
if mount_model "$M" hf://org/repo "${NO[@]}"; then
    check "hf://org/repo: the listed models ($(ls "$M" | tr '\n' ' '))" test "$(ls "$M" | tr '\n' ' ')" = "a gone models.tsv sub "
    check "a listed file that 404s: looking into it fails (EIO), not an empty folder" \
        sh -c "! ls '$M/gone' >/dev/null 2>'$TMP/lserr' && grep -q 'Input/output error' '$TMP/lserr'"
    check "a listed file that 404s: .errors names its URL and the status ($(tail -n +2 "$M/.errors"))" \
        grep -q "^$HF_ENDPOINT/org/repo/resolve/main/gone.gguf	-	.*gone.gguf: not found (HTTP 404)" "$M/.errors"
    check "a listed file that 404s: no longer listed" test "$(ls "$M" | tr '\n' ' ')" = "a models.tsv sub "
    check "the other models still read" "$PY" tests/check_tensors.py --f32-only "$M/a" "$DATA/mainline/manifest.tsv" \
        "$DATA/mainline/mainline.gguf"
    check "remote folders show the mount time, not 1970" test "$(stat -c %Y "$M/sub/b")" -ge "$t0"
    unmount "$M"
else
    fail "mount of hf://org/repo"
fi
# a trailing slash: the same repository
if mount_model "$M" hf://org/repo/ "${NO[@]}"; then
    check "hf://org/repo/ (trailing slash) is the repository: folders by path, opened on first look ($(ls "$M" | tr '\n' ' '))" \
        test "$(ls "$M" | tr '\n' ' ')" = "a gone models.tsv sub "
    unmount "$M"
else
    fail "hf://org/repo/ (trailing slash): mounted like hf://org/repo"
fi
# revisions with slashes, as typed and %2F-encoded: sent encoded once
for rev in refs/pr/1 refs%2Fpr%2F1; do
    n0=$(wc -l <"$HLOG")
    if mount_model "$M" "hf://org/repo@$rev/pr-only.gguf" "${NO[@]}"; then
        check "@$rev: the file of that revision" "$PY" tests/check_tensors.py --f32-only "$M" \
            "$DATA/mainline/manifest.tsv" "$DATA/mainline/mainline.gguf"
        got=$(hub_uris_since "$n0" | sort -u | tr '\n' ' ')
        check "@$rev: resolved as refs%2Fpr%2F1, encoded once ($got)" test "$got" = "/org/repo/resolve/refs%2Fpr%2F1/pr-only.gguf "
        unmount "$M"
    else
        fail "mount of hf://org/repo@$rev/pr-only.gguf"
    fi
done
n0=$(wc -l <"$HLOG")
if mount_model "$M" "hf://org/repo@refs/pr/1" "${NO[@]}"; then
    check "hf://org/repo@refs/pr/1: that revision's listing ($(ls "$M" | tr '\n' ' '))" \
        test "$(ls "$M" | tr '\n' ' ')" = "a models.tsv pr-only sub "
    check "hf://org/repo@refs/pr/1: its tree asked for as refs%2Fpr%2F1" \
        grep -qx "/api/models/org/repo/tree/refs%2Fpr%2F1?recursive=true&expand=false" <(hub_uris_since "$n0")
    unmount "$M"
else
    fail "mount of hf://org/repo@refs/pr/1"
fi
# '..' segments and paths that are not .gguf; an organization, repository
# or revision of '..', a %00 that would end a name early: refused before
# any request
n0=$(wc -l <"$HLOG")
for c in "hf://org/repo/../other/x.gguf|a '.' or '..' segment" "hf://org/repo/sub/%2E%2E/a.gguf|a '.' or '..' segment" \
    "hf://org/repo/README.md|not a .gguf file" "hf://org/repo@../x/a.gguf|'..' segment in the revision" \
    "hf://org/repo@refs/../x/a.gguf|'..' segment in the revision" "hf://../repo/a.gguf|not '.' and without '..'" \
    "hf://org/../a.gguf|not '.' and without '..'" "hf://org/repo@a%00b/a.gguf|revision after '@': a control character (%00)" \
    "hf://org/repo/a%00b.gguf|the path: a control character (%00)"; do
    "$GGUFFS" "${c%%|*}" "$M" "${NO[@]}" 2>"$TMP/err"
    rc=$?
    check "${c%%|*}: refused, exit 2 ($rc): $(cat "$TMP/err")" sh -c "[ $rc = 2 ] && grep -qF \"${c#*|}\" '$TMP/err'"
    grep -qs " $M fuse" /proc/mounts && unmount "$M"
done
check "names refused: no request reached the hub ($(hub_uris_since "$n0" | tr '\n' ' '))" test -z "$(hub_uris_since "$n0")"
n0=$(wc -l <"$HLOG")
if mount_model "$M" hf://org/repo@evil "${NO[@]}" 2>"$TMP/err"; then
    check "a listing with '../../org/other/x.gguf': not mounted, and said ($(cat "$TMP/err"))" \
        grep -q 'hf://org/repo@evil: the listing names "../../org/other/x.gguf": not mounted' "$TMP/err"
    check "a listing with 'sub/./b.gguf': not mounted, and said" grep -q '"sub/./b.gguf": not mounted' "$TMP/err"
    check "a hostile listing: only its plain paths mounted ($(ls "$M" | tr '\n' ' '))" test "$(ls "$M" | tr '\n' ' ')" = "a gone models.tsv sub "
    ls -R "$M" >/dev/null 2>&1
    bad=$(hub_uris_since "$n0" | grep 'other\|/\.\./\|/\./')
    check "a hostile listing: nothing asked for outside the repository ($bad)" test -z "$bad"
    unmount "$M"
else
    fail "mount of hf://org/repo@evil: $(cat "$TMP/err")"
fi

# ---- 10. cache_dir: an hf:// repository offline; parents made; bad values
# (the hub behind a proxy, which stops: refused connections, as offline)
net_proxy HPX "$HP"
C2=$TMP/deep/er/cache # (its parents do not exist)
if HF_ENDPOINT=http://127.0.0.1:$HPX mount_model "$M" hf://org/repo "${NO[@]}" -o cache_dir="$C2"; then
    check "cache_dir with missing parents: made" test -d "$C2/objects"
    check "warm the cache: a model read" "$PY" tests/check_tensors.py --f32-only "$M/a" "$DATA/mainline/manifest.tsv" \
        "$DATA/mainline/mainline.gguf"
    unmount "$M"
else
    fail "mount of hf://org/repo with -o cache_dir=$C2 (missing parents)"
fi
net_proxy_stop "$HPX_PID"
if HF_ENDPOINT=http://127.0.0.1:$HPX mount_model "$M" hf://org/repo "${NO[@]}" -o cache_dir="$C2" 2>"$TMP/err"; then
    check "hub unreachable, warm cache_dir: hf://org/repo mounts from the cached listing (said: $(head -c 300 "$TMP/err"))" \
        grep -q 'hf://org/repo: .*the listing from the disk cache' "$TMP/err"
    check "offline: the cached listing's models ($(ls "$M" | tr '\n' ' '))" test "$(ls "$M" | tr '\n' ' ')" = "a gone models.tsv sub "
    check "offline: the model read before reads from the disk cache" "$PY" tests/check_tensors.py --f32-only "$M/a" \
        "$DATA/mainline/manifest.tsv" "$DATA/mainline/mainline.gguf"
    unmount "$M"
else
    fail "hf://org/repo offline with a warm cache_dir: $(cat "$TMP/err")"
fi
HF_ENDPOINT=http://127.0.0.1:$HPX "$GGUFFS" hf://org/repo@v2 "$M" "${NO[@]}" -o cache_dir="$C2" 2>/dev/null
check "offline: another revision is not taken from the cache" test $? != 0
grep -qs " $M fuse" /proc/mounts && unmount "$M"
: >"$TMP/afile"
mkdir -p "$TMP/cwd"
for v in "" "/proc/gguffs-none/x" "$TMP/afile"; do
    # (run from a folder of its own: an empty value meant the current one)
    (cd "$TMP/cwd" && exec "$GGUFFS" "$HTTP_URL/data.gguf" "$M" -o timeout=5,cache_dir="$v") 2>"$TMP/err"
    rc=$?
    check "-o cache_dir='$v': exit 2 ($rc), naming the option ($(cat "$TMP/err"))" \
        sh -c "[ $rc = 2 ] && grep -q -- '-o cache_dir=' '$TMP/err'"
    grep -qs " $M fuse" /proc/mounts && unmount "$M"
done
# The remote options are checked before anything is opened, also when no
# name of their scheme comes (a local model here); no credential of an
# endpoint goes into the message.
for c in "s3_endpoint=ftp://x|-o s3_endpoint=ftp://x: not an http:// or https:// URL" \
    "ollama_registry=http://x|-o ollama_registry=http://x: http:// only to this machine" \
    "s3_region=us-east-1/../x|-o s3_region=us-east-1/../x: not a region name" \
    "s3_endpoint=http://127.0.0.1:9/?x=1|-o s3_endpoint=http://127.0.0.1:9/?...: credentials, a query or a fragment" \
    "s3_endpoint=https://bob:pw-3e1d@host|-o s3_endpoint=https://host: credentials, a query or a fragment"; do
    "$GGUFFS" "$DATA/mainline/mainline.gguf" "$M" -o "${c%%|*}" 2>"$TMP/err"
    rc=$?
    check "-o ${c%%|*} with a local model: exit 2 ($rc), naming it ($(cat "$TMP/err"))" \
        sh -c "[ $rc = 2 ] && grep -qF -- \"${c#*|}\" '$TMP/err' && ! grep -q pw-3e1d '$TMP/err'"
    grep -qs " $M fuse" /proc/mounts && unmount "$M"
done
check "-o cache_dir='': no cache made in the current folder ($(ls -A "$TMP/cwd" | tr '\n' ' '))" test -z "$(ls -A "$TMP/cwd")"

# a hung hub while a model of the repository is first looked into: the look
# is bounded by -o timeout as a read is (5 retries)
net_proxy HPY "$HP"
if HF_ENDPOINT=http://127.0.0.1:$HPY mount_model "$M" hf://org/repo -o timeout=2; then
    net_freeze "$HPY_PID"
    timeout 10 ls "$M/sub/b" >/dev/null 2>"$TMP/err"
    rc=$?
    check "hung hub: the first look into a model fails within the deadline (ls exit $rc: $(cat "$TMP/err"))" test $rc = 2
    net_thaw "$HPY_PID"
    unmount "$M"
else
    fail "mount through the hub's proxy"
fi

# ---- sharp edges: a 403 from a host other than the hub; TLS errors fail at once, clearly
net_rules "$P3" '{"rules": [{"action": "status", "code": 403, "times": -1}]}'
"$GGUFFS" "$U3" "$M" -o timeout=5 2>"$TMP/err"
rc=$?
check "403 from another host than the hub: exit 3, no \$HF_TOKEN hint, -o header named ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q 'HTTP 403' '$TMP/err' && ! grep -q HF_TOKEN '$TMP/err' && grep -q -- '-o header=' '$TMP/err'"
grep -qs " $M fuse" /proc/mounts && unmount "$M"
# a certificate for another name (trusted as its own CA), served by a TLS proxy
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=example.invalid \
    -addext subjectAltName=DNS:example.invalid -keyout "$TMP/other.key" -out "$TMP/other.pem" 2>/dev/null
net_proxy TP "$HTTP_PORT" --cert "$TMP/other.pem" --key "$TMP/other.key"
for c in "https://127.0.0.1:$TP/data.gguf|-o cafile=$TMP/other.pem|TLS: .*subject name" \
    "https://127.0.0.1:$HTTP_PORT/data.gguf||TLS handshake failed: .*wrong version number"; do
    IFS='|' read -r url o want <<<"$c"
    timeout 20 "$GGUFFS" --dump "$url" -o timeout=5,retries=5 $o >/dev/null 2>"$TMP/err"
    rc=$?
    check "$url: fails at once (exit 3: $rc), says why, not retried ($(cat "$TMP/err"))" \
        sh -c "[ $rc = 3 ] && grep -q '$want' '$TMP/err' && ! grep -q 'tries' '$TMP/err'"
done

finish 74_remote_edges
