#!/bin/bash
# Remote models over a real nginx (tests/net/servers.sh), no faults:
#  - every reference tensor's raw and f32 through an http:// and an https://
#    mount is byte-identical to the local mount, metadata.json too;
#  - TLS is verified (-o cafile, $CURL_CA_BUNDLE, refused without them);
#  - -o header (repeatable) reaches the model's host and not a host a
#    redirect points at; redirects are bounded and only to http(s);
#  - info.json, tensors.tsv and messages show the URL without credentials;
#  - requests: a mount + ls of the reference model is 1 request, a 150k-token
#    vocabulary (~7 MB header) <= 3, a 1M-token one (33 MB header) mounts;
#  - a small random read fetches only its aligned block(s); a sequential
#    reader gets several range requests in flight; connections are reused;
#  - a split model by the URL of any shard; a URL and a local file in one
#    mount; --dump, --dump --json and --verify of a URL; clear errors.
# Only the nginx and proxies started here are stopped (by PID).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/net/netlib.sh"
unset CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR HF_TOKEN HF_TOKEN_PATH HF_ENDPOINT
export HOME=$TMP/home # never the user's token file
MK=$TOP/tests/net/mkmodels.py
CMP=$TOP/tests/net/cmp_mounts.py
M=$TMP/m
L=$TMP/local
NO=(-o timeout=5,retries=1)

# --- the web root
W=$TMP/www
mkdir -p "$W/ref" "$W/syn" "$W/split" "$HOME"
cp "$DATA/mainline/mainline.gguf" "$DATA/ik/ik.gguf" "$W/ref/"
"$PY" "$MK" vocab "$W/syn/v150k.gguf" 150000 30 &&
    "$PY" "$MK" vocab "$W/syn/v1m.gguf" 1000000 17 &&
    "$PY" "$MK" data "$W/syn/data.gguf" 12 &&
    "$PY" "$MK" split "$W/split" "$W/ref/mainline.gguf" ml 3 || { fail "making the models"; finish; exit 1; }
head -c 100000 "$W/ref/mainline.gguf" >"$W/ref/truncated.gguf"
net_start start "$W" "$TMP/web" || { fail "servers.sh start"; finish; exit 1; }
. "$TMP/web/env"
U=$HTTP_URL

# alog_mark: remember where the access log ends; alog_new N: wait for N new
# lines, print every new line.
alog_mark() { MARK=$(wc -l <"$ACCESS_LOG"); }
alog_new() {
    net_wait_lines "$ACCESS_LOG" $((MARK + $1)) 5
    tail -n +$((MARK + 1)) "$ACCESS_LOG"
}
# raw_of FILE TENSORDIR: the tensor's bytes cut from the file (offset and size from info.json)
raw_of() {
    local o b
    o=$(grep -o '"offset":[[:space:]]*[0-9]*' "$2/info.json" | grep -o '[0-9]*$')
    b=$(grep -o '"bytes":[[:space:]]*[0-9]*' "$2/info.json" | grep -o '[0-9]*$')
    dd if="$1" iflag=skip_bytes,count_bytes skip="$o" count="$b" bs=1M status=none
}
# pj PORT 'expression over L, the proxy log': its value
pj() { net_plog "$1" | "$PY" -c 'import json,sys; L=json.load(sys.stdin); print('"$2"')'; }

# --- the reference models, http and https, against the manifests and the local mount
mount_model "$L" "$W/ref/mainline.gguf"
alog_mark
if mount_model "$M" "$U/ref/mainline.gguf" "${NO[@]}"; then
    ls "$M/tensors" >"$TMP/ls"
    check "http: ls tensors lists all 72" test "$(wc -l <"$TMP/ls")" = 72
    check "http: mount + ls tensors = 1 request (.stats)" test "$(stat_of "$M" http_requests)" = 1
    alog_new 1 >"$TMP/new"
    check "http: mount + ls tensors = 1 request (nginx log), the first MiB" \
        test "$(wc -l <"$TMP/new") $(cut -f "$ALOG_RANGE,$ALOG_STATUS" "$TMP/new")" = "1 206	bytes=0-1048575"
    check "http: every reference tensor" "$PY" tests/check_tensors.py "$M" "$DATA/mainline/manifest.tsv" "$W/ref/mainline.gguf"
    check "http: metadata values" "$PY" tests/check_kv.py "$M" "$DATA/mainline/kv.json"
    check "http: raw, f32 and metadata.json identical to the local mount" "$PY" "$CMP" "$L" "$M"
    check "http: still 1 request after reading everything" test "$(stat_of "$M" http_requests)" = 1
    check "info.json: file is the URL" grep -q "\"file\":[[:space:]]*\"$U/ref/mainline.gguf\"" "$M/tensors/Q4_K/info.json"
    check "info.json: source is the URL and the ETag the server sent" $PY -c '
import json, sys, urllib.request
src = json.load(open(sys.argv[1]))["source"]
etag = urllib.request.urlopen(urllib.request.Request(sys.argv[2], method="HEAD")).headers["ETag"]
sys.exit(not (src["url"] == sys.argv[2] and src["etag"] == etag))' "$M/tensors/Q4_K/info.json" "$U/ref/mainline.gguf"
    check "tensors.tsv: file is the URL" test "$(awk -F'\t' 'NR == 2 { print $8 }' "$M/tensors.tsv")" = "$U/ref/mainline.gguf"
    unmount "$M"
else
    fail "http mount"
fi
unmount "$L"

mount_model "$L" "$W/ref/ik.gguf"
if mount_model "$M" "$HTTPS_URL/ref/ik.gguf" "${NO[@]}" -o "cafile=$CAFILE"; then
    check "https (-o cafile): every reference tensor" "$PY" tests/check_tensors.py "$M" "$DATA/ik/manifest.tsv" "$W/ref/ik.gguf"
    check "https: identical to the local mount" "$PY" "$CMP" "$L" "$M"
    unmount "$M"
else
    fail "https mount with -o cafile"
fi
unmount "$L"

# --- TLS verification
mkdir -p "$M"
"$GGUFFS" "$HTTPS_URL/ref/ik.gguf" "$M" "${NO[@]}" 2>"$TMP/err"
rc=$?
check "https without our CA: refused, exit 3" test "$rc" = 3
check "https without our CA: message names the URL and -o cafile" \
    grep -q "$HTTPS_URL/ref/ik.gguf: TLS: .*-o cafile" "$TMP/err"
if CURL_CA_BUNDLE=$CAFILE mount_model "$M" "$HTTPS_URL/ref/ik.gguf" "${NO[@]}"; then
    check "https with \$CURL_CA_BUNDLE" cmp -s "$M/tensors/Q4_K/raw" <(raw_of "$W/ref/ik.gguf" "$M/tensors/Q4_K")
    unmount "$M"
else
    fail "https with \$CURL_CA_BUNDLE"
fi
# A certificate for 127.0.0.1 does not do for another name.
"$GGUFFS" --dump "https://localhost:$HTTPS_PORT/ref/ik.gguf" -o "cafile=$CAFILE" >/dev/null 2>"$TMP/err"
check "https by name localhost (in the certificate) works" test $? = 0
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=other \
    -keyout "$TMP/other.key" -out "$TMP/other.pem" >/dev/null 2>&1
"$GGUFFS" --dump "$HTTPS_URL/ref/ik.gguf" -o "cafile=$TMP/other.pem" >/dev/null 2>"$TMP/err"
check "https with the wrong CA: refused" test $? = 3

# --- -o header, redirects (through a proxy that answers 302 itself)
net_proxy P "$HTTP_PORT"
net_rules "$P" "{\"rules\": [{\"match\": \"/away/\", \"times\": -1, \"action\": \"status\", \"code\": 302,
    \"headers\": {\"Location\": \"http://localhost:$HTTP_PORT/syn/data.gguf\"}},
  {\"match\": \"/loop/\", \"times\": -1, \"action\": \"status\", \"code\": 302, \"headers\": {\"Location\": \"/loop/x.gguf\"}},
  {\"match\": \"/ftp/\", \"times\": -1, \"action\": \"status\", \"code\": 301, \"headers\": {\"Location\": \"ftp://127.0.0.1/x.gguf\"}},
  {\"match\": \"/file/\", \"times\": -1, \"action\": \"status\", \"code\": 307, \"headers\": {\"Location\": \"file:///etc/passwd\"}},
  {\"match\": \"/nowhere/\", \"times\": -1, \"action\": \"status\", \"code\": 302}]}"
alog_mark
if mount_model "$M" "http://127.0.0.1:$P/ref/mainline.gguf" "${NO[@]}" -o 'header=X-Gguffs-One: 1' \
    -o 'header=Authorization: Bearer sekrit'; then
    cat "$M/tensors/Q4_K/raw" >/dev/null
    check "-o header: both headers reach the model's host" test "$(pj "$P" '[sorted(h for h in e["headers"] if h[0] in ("X-Gguffs-One", "Authorization")) for e in L]')" = \
        "[[['Authorization', 'Bearer sekrit'], ['X-Gguffs-One', '1']]]"
    unmount "$M"
fi
net_plog_clear "$P"
mount_model "$L" "$W/syn/data.gguf"
alog_mark
if mount_model "$M" "http://127.0.0.1:$P/away/data.gguf" "${NO[@]}" -o 'header=Authorization: Bearer sekrit'; then
    check "redirect to another host: every tensor as in the local mount" "$PY" "$CMP" --skip-f32 "$L" "$M"
    check "redirect: the first host got -o header" test "$(pj "$P" 'L[0]["authorization"]')" = "Bearer sekrit"
    n=$(stat_of "$M" http_requests)
    check "redirect: only the first GET went to the first host" test "$(pj "$P" 'len(L)')" = 1
    alog_new $((n - 1)) >"$TMP/new"
    check "redirect: the other host never got -o header ($(wc -l <"$TMP/new") GETs)" \
        test "$(cut -f "$ALOG_AUTH" "$TMP/new" | sort -u)" = "-" -a "$(wc -l <"$TMP/new")" -gt 1
    check "redirect: counted in .stats" test "$(stat_of "$M" http_redirects)" = 1
    unmount "$M"
else
    fail "mount through a redirect"
fi
unmount "$L"
for c in "loop/x.gguf|too many redirects" "ftp/x.gguf|redirect to something that is not http(s)" \
    "file/x.gguf|redirect to something that is not http(s)" "nowhere/x.gguf|redirect without a Location"; do
    "$GGUFFS" "http://127.0.0.1:$P/${c%%|*}" "$M" "${NO[@]}" 2>"$TMP/err"
    rc=$?
    check "redirect ${c%%/*}: refused with '${c#*|}' (exit $rc)" grep -qF "${c#*|}" "$TMP/err"
done
check "redirect loop: bounded ($(pj "$P" 'sum(1 for e in L if "/loop/" in e["path"])') requests)" \
    test "$(pj "$P" 'sum(1 for e in L if "/loop/" in e["path"])')" -le 10

# --- credentials and query strings never shown
if mount_model "$M" "http://user:pa55word@127.0.0.1:$HTTP_PORT/ref/mainline.gguf?sig=t0psecret" "${NO[@]}"; then
    check "credentials: hidden in info.json" sh -c "grep '\"file\"' '$M/tensors/Q4_K/info.json' | grep -q '127.0.0.1:$HTTP_PORT/ref/mainline.gguf' && ! grep -qE 'pa55word|t0psecret|user@' '$M/tensors/Q4_K/info.json'"
    check "credentials: hidden in tensors.tsv" sh -c "! grep -qE 'pa55word|t0psecret' '$M/tensors.tsv'"
    unmount "$M"
else
    fail "mount of a URL with credentials and a query"
fi
"$GGUFFS" "http://user:pa55word@127.0.0.1:$HTTP_PORT/ref/missing.gguf?sig=t0psecret" "$M" "${NO[@]}" 2>"$TMP/err"
rc=$?
check "404: exit 3, message names the URL (no secrets)" sh -c "[ $rc = 3 ] && grep -q 'http://127.0.0.1:$HTTP_PORT/ref/missing.gguf?...: not found (HTTP 404)' '$TMP/err' && ! grep -qE 'pa55word|t0psecret' '$TMP/err'"
"$GGUFFS" "$U/ref/truncated.gguf" "$M" "${NO[@]}" 2>"$TMP/err"
rc=$?
check "truncated remote GGUF: exit 5, message names the URL ($(head -c 150 "$TMP/err"))" \
    sh -c "[ $rc = 5 ] && grep -q '^gguffs: $U/ref/truncated.gguf' '$TMP/err'"
"$GGUFFS" "http://127.0.0.1:1/x.gguf" "$M" -o timeout=2,retries=0 2>"$TMP/err"
rc=$?
check "connection refused: exit 3, names the URL" sh -c "[ $rc = 3 ] && grep -q 'http://127.0.0.1:1/x.gguf' '$TMP/err'"

# --- request counts of big headers
alog_mark
if mount_model "$M" "$U/syn/v150k.gguf" "${NO[@]}"; then
    ls "$M/tensors" >/dev/null
    n=$(stat_of "$M" http_requests)
    check "150k-token vocabulary (~7 MB header): mount + ls in <= 3 requests ($n)" test "$n" -le 3
    check "150k-token vocabulary: the nginx log agrees" test "$(alog_new "$n" | wc -l)" = "$n"
    check "150k tokens listed" test "$(wc -l <"$M/metadata/tokenizer.ggml.tokens")" = 150000
    unmount "$M"
else
    fail "mount of the 150k-token vocabulary"
fi
if mount_model "$M" "$U/syn/v1m.gguf" "${NO[@]}"; then
    n=$(stat_of "$M" http_requests)
    check "1M-token vocabulary (33 MB header) mounts ($n requests)" test "$(ls "$M/tensors" | wc -l)" = 2
    check "1M-token vocabulary: header in <= 6 requests (doubling ranges)" test "$n" -le 6
    check "1M tokens listed" test "$(wc -l <"$M/metadata/tokenizer.ggml.tokens")" = 1000000
    unmount "$M"
else
    fail "mount of the 1M-token vocabulary"
fi

# --- small random reads fetch their aligned blocks only; a sequential reader gets parallel GETs
mount_model "$L" "$W/syn/data.gguf"
if mount_model "$M" "$U/syn/data.gguf" "${NO[@]}" -o direct_io; then
    T=$(ls "$M/tensors" | sed -n 2p) # the second tensor: past the first MiB
    off=$(grep -o '"offset":[[:space:]]*[0-9]*' "$M/tensors/$T/info.json" | grep -o '[0-9]*$')
    MiB=1048576
    # 100 bytes in the middle of a block, then 100 bytes across a block boundary
    a=$(( (off / MiB + 1) * MiB + 5000 - off ))
    alog_mark
    r1=$(dd if="$M/tensors/$T/raw" bs=100 count=1 iflag=skip_bytes skip="$a" status=none | od -An -tx1 | tr -d ' \n')
    e1=$(dd if="$L/tensors/$T/raw" bs=100 count=1 iflag=skip_bytes skip="$a" status=none | od -An -tx1 | tr -d ' \n')
    check "small read: right bytes" test -n "$r1" -a "$r1" = "$e1"
    k=$(( (off + a) / MiB ))
    check "small read: one GET of its aligned MiB" test "$(alog_new 1 | cut -f "$ALOG_RANGE")" = "bytes=$((k * MiB))-$(((k + 1) * MiB - 1))"
    b=$(( (k + 2) * MiB - 50 - off ))
    alog_mark
    r2=$(dd if="$M/tensors/$T/raw" bs=100 count=1 iflag=skip_bytes skip="$b" status=none | od -An -tx1 | tr -d ' \n')
    e2=$(dd if="$L/tensors/$T/raw" bs=100 count=1 iflag=skip_bytes skip="$b" status=none | od -An -tx1 | tr -d ' \n')
    check "read across a block boundary: right bytes" test -n "$r2" -a "$r2" = "$e2"
    check "read across a block boundary: one GET of the two blocks" \
        test "$(alog_new 1 | cut -f "$ALOG_RANGE")" = "bytes=$(((k + 1) * MiB))-$(((k + 3) * MiB - 1))"
    check "small reads: read again from memory (no new request)" sh -c \
        "dd if='$M/tensors/$T/raw' bs=100 count=1 iflag=skip_bytes skip=$a status=none >/dev/null; [ \$(awk '\$1 == \"http_requests\" { print \$2 }' '$M/.stats') = 3 ]"
    unmount "$M"
else
    fail "mount of the data model"
fi
# Sequential reading through a proxy adding latency: GETs overlap, bytes identical.
net_rules "$P" '{"latency_ms": 30}'
net_plog_clear "$P"
alog_mark
if mount_model "$M" "http://127.0.0.1:$P/syn/data.gguf" "${NO[@]}"; then
    check "sequential: identical to the local mount" "$PY" "$CMP" --skip-f32 "$L" "$M"
    check "sequential: read-ahead counted" test "$(stat_of "$M" net_blocks_prefetched)" -gt 0
    check "sequential: several range GETs in flight at once" test "$(pj "$P" '
max(sum(1 for f in L if f["t_start"] < e["t_end"] and f["t_end"] > e["t_start"]) for e in L)')" -ge 2
    n=$(stat_of "$M" http_requests)
    check "sequential: the model was fetched once ($(stat_of "$M" http_bytes_fetched) bytes)" \
        test "$(stat_of "$M" http_bytes_fetched)" = "$(stat -c %s "$W/syn/data.gguf")"
    alog_new "$n" >"$TMP/new"
    check "connections reused ($n requests on $(cut -f "$ALOG_CONN" "$TMP/new" | sort -u | wc -l) connections)" \
        test "$(cut -f "$ALOG_CONN" "$TMP/new" | sort -u | wc -l)" -lt "$n"
    unmount "$M"
else
    fail "mount through the latency proxy"
fi
unmount "$L"
net_reset "$P"

# --- a split model by URL, a URL with a local file
for s in 1 3; do
    if mount_model "$M" "$U/split/ml-0000$s-of-00003.gguf" "${NO[@]}"; then
        check "split by URL (shard $s): every tensor of the whole model" "$PY" tests/check_tensors.py --f32-only "$M" \
            "$DATA/mainline/manifest.tsv" "$W/ref/mainline.gguf"
        check "split by URL: one request per shard" test "$(stat_of "$M" http_requests)" = 3
        unmount "$M"
    else
        fail "split by URL (shard $s)"
    fi
done
# A presigned URL: its query string goes with every shard's requests.
alog_mark
if mount_model "$M" "$U/split/ml-00002-of-00003.gguf?sig=s3cr3t" "${NO[@]}"; then
    check "split by URL with a query: the whole model" "$PY" tests/check_tensors.py --f32-only "$M" \
        "$DATA/mainline/manifest.tsv" "$W/ref/mainline.gguf"
    check "split by URL with a query: every shard asked for with it" \
        test "$(alog_new 3 | grep -o '/split/ml-0000[0-9]-of-00003.gguf?sig=s3cr3t' | sort -u | wc -l)" = 3
    check "split by URL with a query: not shown" sh -c "! grep -rq s3cr3t '$M/tensors.tsv' '$M/tensors/F32/info.json'"
    unmount "$M"
else
    fail "split by URL with a query"
fi
mv "$W/split/ml-00002-of-00003.gguf" "$W/split/away"
"$GGUFFS" "$U/split/ml-00001-of-00003.gguf" "$M" "${NO[@]}" 2>"$TMP/err"
rc=$?
check "split by URL, a shard missing: exit 3 naming it" \
    sh -c "[ $rc = 3 ] && grep -q '$U/split/ml-00002-of-00003.gguf: missing shard 2 of 3' '$TMP/err'"
mv "$W/split/away" "$W/split/ml-00002-of-00003.gguf"
if mount_model "$M" "$U/ref/mainline.gguf" "$DATA/ik/ik.gguf" "${NO[@]}"; then
    check "URL + local file: a folder each" test "$(ls "$M" | tr '\n' ' ')" = "ik mainline models.tsv "
    check "URL + local file: the URL's tensors" "$PY" tests/check_tensors.py --f32-only "$M/mainline" "$DATA/mainline/manifest.tsv" "$W/ref/mainline.gguf"
    check "URL + local file: the file's tensors" "$PY" tests/check_tensors.py --f32-only "$M/ik" "$DATA/ik/manifest.tsv" "$DATA/ik/ik.gguf"
    unmount "$M"
else
    fail "mount of a URL and a local file"
fi

# --- the tools take URLs
for mode in "--dump" "--dump --json" "--verify"; do
    # shellcheck disable=SC2086
    "$GGUFFS" $mode "$W/ref/mainline.gguf" >"$TMP/local.out" 2>&1
    rl=$?
    # shellcheck disable=SC2086
    "$GGUFFS" $mode "$U/ref/mainline.gguf" "${NO[@]}" >"$TMP/url.out" 2>&1
    ru=$?
    # (the same but for "source", a file or a URL with its ETag)
    sed -i "s|$U/ref/mainline.gguf|MODEL|g; s|$W/ref/mainline.gguf|MODEL|g; s/([0-9.]* s, /(/; /\"source\":/d" \
        "$TMP/local.out" "$TMP/url.out"
    check "$mode of a URL: same output and status as the local file ($rl, $ru)" \
        sh -c "[ $rl = $ru ] && [ -s '$TMP/url.out' ] && diff '$TMP/local.out' '$TMP/url.out' >&2"
done
"$GGUFFS" --verify --tensor 'Q4_K' "$U/split/ml-00002-of-00003.gguf" "${NO[@]}" >"$TMP/out" 2>&1
check "--verify --tensor of a split model by URL" sh -c "[ $? = 0 ] && grep -q '^Q4_K' '$TMP/out'"

finish 70_remote
