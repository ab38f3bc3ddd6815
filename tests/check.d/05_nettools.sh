#!/bin/bash
# Self-test of the network test tools in tests/net/ (curl against them):
#  - servers.sh start: nginx over HTTP and HTTPS (our own CA), Range, ETag,
#    Last-Modified, If-Match (412), If-Range, Range past EOF, keepalive, and
#    the access log's columns;
#  - faultproxy.py: pass-through, keepalive, every action and its effect,
#    skip/times, concurrency while one connection hangs, the request log,
#    the control interface, 502 on a dead upstream, TLS, SIGTERM;
#  - servers.sh start-hf: the hub's resolve redirect (X-Linked-Etag,
#    X-Linked-Size, X-Repo-Commit) to the CDN instance, Authorization on
#    cross-host redirects, tree pagination over two pages, error codes, a
#    private repo, --cdn-url through a proxy;
#  - stop: the pids are gone.
# Every nginx and proxy is stopped by PID at exit (tests/net/netlib.sh).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/net/netlib.sh"
unset CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR

C() { curl -sS --noproxy '*' -m 10 "$@"; }
rc_of() { "$@" >/dev/null 2>&1; echo $?; }
not() { ! "$@"; }
now() { date +%s.%N; }
elapsed_ge() { awk -v a="$1" -v b="$2" -v m="$3" 'BEGIN { exit !(b - a >= m) }'; }
elapsed_lt() { awk -v a="$1" -v b="$2" -v m="$3" 'BEGIN { exit !(b - a < m) }'; }
# pj PORT 'python expression over L (the proxy log)': prints its value
pj() { net_plog "$1" | "$PY" -c 'import json,sys; L=json.load(sys.stdin); print('"$2"')'; }
alog_last() { tail -n 1 "$1" | awk -F'\t' -v c="$2" '{ print $c }'; }

if ! [ -x /usr/sbin/nginx ] && ! command -v nginx >/dev/null 2>&1; then
    fail "nginx is not installed (tests/deps.sh installs it)"
    finish
    exit 1
fi

# ------------------------------------------------------------------ nginx
W=$TMP/www
mkdir -p "$W"
head -c 1048576 /dev/urandom >"$W/data.bin"
printf 'hello\n' >"$W/small.txt"
SIZE=1048576
net_start start "$W" "$TMP/s1" || { fail "servers.sh start"; finish; exit 1; }
. "$TMP/s1/env"
U=$HTTP_URL
check "env has every variable" test -n "$HTTP_PORT" -a -n "$HTTPS_PORT" -a -f "$CAFILE" -a -n "$NGINX_PID" -a -n "$ACCESS_LOG"
check "nginx pid alive" net_alive "$NGINX_PID"
check "listens on 127.0.0.1 only" test "$(grep -cE '^ *listen ' "$TMP/s1/nginx.conf") $(grep -cE '^ *listen 127\.0\.0\.1:[0-9]+( ssl)?;$' "$TMP/s1/nginx.conf")" = "2 2"

C -o "$TMP/full" "$U/data.bin"
check "http GET whole file" cmp -s "$TMP/full" "$W/data.bin"
C --cacert "$CAFILE" -o "$TMP/full2" "$HTTPS_URL/data.bin"
check "https GET with --cacert" cmp -s "$TMP/full2" "$W/data.bin"
check "https by name localhost (SAN DNS)" test "$(C --cacert "$CAFILE" --resolve "localhost:$HTTPS_PORT:127.0.0.1" "https://localhost:$HTTPS_PORT/small.txt")" = hello
check "https without our CA fails verification (60)" test "$(rc_of C "$HTTPS_URL/small.txt")" = 60

C -D "$TMP/h" -r 100-199 -o "$TMP/part" "$U/data.bin"
dd if="$W/data.bin" of="$TMP/want" bs=1 skip=100 count=100 status=none
check "Range 100-199: 206" grep -q '^HTTP/1.1 206' "$TMP/h"
check "Range 100-199: Content-Range" test "$(net_hdr "$TMP/h" Content-Range)" = "bytes 100-199/$SIZE"
check "Range 100-199: bytes" cmp -s "$TMP/part" "$TMP/want"
C -I -o /dev/null -D "$TMP/h" "$U/data.bin"
ETAG=$(net_hdr "$TMP/h" ETag)
check "ETag (strong, \"mtime-size\" in hex)" test "$ETAG" = "\"$(printf '%x-%x' "$(stat -c %Y "$W/data.bin")" "$SIZE")\""
check "Last-Modified" test -n "$(net_hdr "$TMP/h" Last-Modified)"
check "Accept-Ranges: bytes" test "$(net_hdr "$TMP/h" Accept-Ranges)" = bytes
check "If-Match right ETag + Range: 206" test "$(C -o /dev/null -w '%{http_code}' -r 0-9 -H "If-Match: $ETAG" "$U/data.bin")" = 206
check "If-Match wrong ETag: 412" test "$(C -o /dev/null -w '%{http_code}' -r 0-9 -H 'If-Match: "nope"' "$U/data.bin")" = 412
check "If-Match weak form of the ETag: 412" test "$(C -o /dev/null -w '%{http_code}' -r 0-9 -H "If-Match: W/$ETAG" "$U/data.bin")" = 412
check "If-Range right ETag: 206" test "$(C -o /dev/null -w '%{http_code}' -r 0-9 -H "If-Range: $ETAG" "$U/data.bin")" = 206
check "If-Range wrong ETag: 200 whole" test "$(C -o /dev/null -w '%{http_code} %{size_download}' -r 0-9 -H 'If-Range: "nope"' "$U/data.bin")" = "200 $SIZE"
C -D "$TMP/h" -o /dev/null -r "$SIZE-" "$U/data.bin"
check "Range past EOF: 416, Content-Range */size" test "$(head -c 12 "$TMP/h") $(net_hdr "$TMP/h" Content-Range)" = "HTTP/1.1 416 bytes */$SIZE"
C -D "$TMP/h" -o /dev/null -r "$((SIZE - 10))-$((SIZE + 100))" "$U/data.bin"
check "Range ending past EOF: 206 cut at EOF" test "$(net_hdr "$TMP/h" Content-Range)" = "bytes $((SIZE - 10))-$((SIZE - 1))/$SIZE"

# keepalive: two requests in one curl share a connection; the log shows it
# (curl itself closes the connection after a 4xx, so these succeed)
n0=$(wc -l <"$ACCESS_LOG")
C -o /dev/null -o /dev/null -H 'Authorization: Bearer tok1' -H "If-Match: $ETAG" -r 5-6 "$U/data.bin" "$U/data.bin"
net_wait_lines "$ACCESS_LOG" $((n0 + 2))
l1=$(sed -n "$((n0 + 1))p" "$ACCESS_LOG")
l2=$(sed -n "$((n0 + 2))p" "$ACCESS_LOG")
check "keepalive: same connection, requests 1 and 2" test "$(echo "$l1" | cut -f11,12) $(echo "$l2" | cut -f11,12)" = "$(echo "$l1" | cut -f11)	1 $(echo "$l1" | cut -f11)	2"
check "access log: method uri status bytes range" test "$(echo "$l2" | cut -f1-5)" = "GET	/data.bin	206	2	bytes=5-6"
check "access log: If-Match, If-Range(-), Authorization, Content-Range" test "$(echo "$l2" | cut -f6-9)" = "$ETAG	-	Bearer tok1	bytes 5-6/$SIZE"
C -o /dev/null -r 1-2 -H 'If-Range: "x"' "$U/small.txt"
net_wait_lines "$ACCESS_LOG" $((n0 + 3))
check "access log: If-Range, no Authorization (-), status 200" test "$(alog_last "$ACCESS_LOG" "$ALOG_STATUS")|$(alog_last "$ACCESS_LOG" "$ALOG_IF_RANGE")|$(alog_last "$ACCESS_LOG" "$ALOG_AUTH")" = '200|"x"|-'

# ------------------------------------------------------------------ proxy
net_proxy P "$HTTP_PORT" || { fail "faultproxy start"; finish; exit 1; }
PU=http://127.0.0.1:$P
C -D "$TMP/h" -r 100-199 -o "$TMP/part" "$PU/data.bin"
check "proxy: pass-through Range" cmp -s "$TMP/part" "$TMP/want"
check "proxy: pass-through ETag" test "$(net_hdr "$TMP/h" ETag)" = "$ETAG"
C -o /dev/null -o /dev/null -H 'Authorization: Bearer secret' "$PU/small.txt" "$PU/small.txt"
check "proxy log: authorization, range, status, bytes" test "$(pj "$P" 'L[1]["authorization"], L[0]["range"], L[1]["status"], L[1]["bytes"], L[1]["action"]')" = "Bearer secret bytes=100-199 200 6 None"
check "proxy: client keepalive (same conn)" test "$(pj "$P" 'L[1]["conn"] == L[2]["conn"]')" = True
n0=$(wc -l <"$ACCESS_LOG")
C -o /dev/null -o /dev/null -o /dev/null "$PU/small.txt" "$PU/small.txt" "$PU/small.txt"
net_wait_lines "$ACCESS_LOG" $((n0 + 3))
check "proxy: upstream keepalive (one nginx connection)" test "$(tail -n 3 "$ACCESS_LOG" | cut -f11 | sort -u | wc -l)" = 1

net_rules "$P" '{"latency_ms": 300}'
t0=$(now); C -o /dev/null "$PU/small.txt"; t1=$(now)
check "global latency_ms 300 delays >= 0.3 s" elapsed_ge "$t0" "$t1" 0.3
net_rules "$P" '{"rules": [{"match": "small", "action": "latency", "ms": 400}]}'
t0=$(now); C -o /dev/null "$PU/small.txt"; t1=$(now)
check "latency rule 400 ms" elapsed_ge "$t0" "$t1" 0.4
C -o /dev/null "$PU/small.txt"
check "latency rule used up (times 1)" test "$(pj "$P" 'L[-2]["action"], L[-1]["action"]')" = "latency None"

net_rules "$P" '{"rules": [{"match": "small", "action": "reset"}]}'
r=$(rc_of C "$PU/small.txt")
check "reset: curl exit 56 or 52 (got $r)" test "$r" = 56 -o "$r" = 52
check "reset: logged, no status" test "$(pj "$P" 'L[-1]["action"], L[-1]["status"]')" = "reset None"

net_rules "$P" '{"rules": [{"action": "status", "code": 429, "headers": {"Retry-After": "1"}, "body": "slow down"}]}'
C -D "$TMP/h" -o "$TMP/b" "$PU/data.bin"
check "status 429 with Retry-After and body" test "$(head -c 12 "$TMP/h")|$(net_hdr "$TMP/h" Retry-After)|$(cat "$TMP/b")" = "HTTP/1.1 429|1|slow down"
net_rules "$P" '{"rules": [{"match": "small", "method": "GET", "action": "status", "code": 503, "skip": 1, "times": 2}]}'
codes=$(for i in 1 2 3 4; do C -o /dev/null -w '%{http_code} ' "$PU/small.txt"; done; C -I -o /dev/null -w '%{http_code}' "$PU/small.txt")
check "skip 1, times 2, method GET: 200 503 503 200, HEAD 200 (got $codes)" test "$codes" = "200 503 503 200 200"
check "rules report seen/applied" test "$(curl -sS --noproxy '*' "$PU/__proxy/rules" | "$PY" -c 'import json,sys; r=json.load(sys.stdin)["rules"][0]; print(r["seen"], r["applied"])')" = "4 2"

net_rules "$P" '{"rules": [{"match": "data", "action": "short", "bytes": 1000}]}'
r=$(rc_of C -o "$TMP/b" "$PU/data.bin")
check "short: curl exit 18" test "$r" = 18
check "short: 1000 bytes received and logged" test "$(wc -c <"$TMP/b") $(pj "$P" 'L[-1]["bytes"]')" = "1000 1000"

net_rules "$P" '{"rules": [{"action": "full200"}]}'
n0=$(wc -l <"$ACCESS_LOG")
check "full200: Range answered 200 whole" test "$(C -o /dev/null -w '%{http_code} %{size_download}' -r 0-9 "$PU/data.bin")" = "200 $SIZE"
net_wait_lines "$ACCESS_LOG" $((n0 + 1))
check "full200: upstream saw no Range" test "$(alog_last "$ACCESS_LOG" "$ALOG_RANGE")" = -

net_rules "$P" '{"rules": [{"action": "wrong_range", "shift": 10}]}'
C -D "$TMP/h" -r 100-199 -o "$TMP/part" "$PU/data.bin"
check "wrong_range: Content-Range shifted by 10" test "$(net_hdr "$TMP/h" Content-Range)" = "bytes 110-209/$SIZE"
check "wrong_range: body unchanged" cmp -s "$TMP/part" "$TMP/want"

net_rules "$P" '{"rules": [{"action": "cap_range", "bytes": 40}]}'
C -D "$TMP/h" -r 100-199 -o "$TMP/part" "$PU/data.bin"
check "cap_range: an honest 206 of 40 bytes for 100" test "$(net_hdr "$TMP/h" Content-Range) $(wc -c <"$TMP/part")" = "bytes 100-139/$SIZE 40"
check "cap_range: those bytes" cmp -s "$TMP/part" <(head -c 40 "$TMP/want")
net_rules "$P" '{"rules": [{"action": "wrong_total", "shift": 1, "times": 2}]}'
C -D "$TMP/h" -r 100-199 -o "$TMP/part" "$PU/data.bin"
check "wrong_total: the total one more" test "$(net_hdr "$TMP/h" Content-Range)" = "bytes 100-199/$((SIZE + 1))"
C -D "$TMP/h" -r "$SIZE-" -o /dev/null "$PU/data.bin"
check "wrong_total: also of a 416's bytes */L" test "$(net_hdr "$TMP/h" Content-Range)" = "bytes */$((SIZE + 1))"
net_rules "$P" '{"rules": [{"action": "trickle", "bytes": 25, "ms": 100}]}'
t0=$(now)
C -r 100-199 -o "$TMP/part" "$PU/data.bin"
t1=$(now)
check "trickle: the bytes, 25 every 100 ms (0.4 s for 100)" sh -c "cmp -s '$TMP/part' '$TMP/want'" && check "trickle: ... slowly" elapsed_ge "$t0" "$t1" 0.35
net_rules "$P" '{"rules": [{"action": "status", "code": 200, "headers": {"X-N": "n{n}"}, "body": "request {n}", "times": -1}]}'
net_plog_clear "$P"
check "status: {n} is the request's number" test "$(C "$PU/x"; C -D "$TMP/h" "$PU/x"; net_hdr "$TMP/h" X-N)" = "request 1request 2n2"

net_rules "$P" '{"rules": [{"regex": "^/data\\.bin$", "action": "drop_header", "name": "ETag", "times": -1}]}'
C -I -D "$TMP/h" -o /dev/null "$PU/data.bin"
check "drop_header ETag" test -z "$(net_hdr "$TMP/h" ETag)"
net_rules "$P" '{"rules": [{"action": "set_header", "name": "ETag", "value": "\"changed\""}]}'
C -I -D "$TMP/h" -o /dev/null "$PU/data.bin"
check "set_header ETag" test "$(net_hdr "$TMP/h" ETag)" = '"changed"'
net_rules "$P" '{"rules": [{"range": "^bytes=(?!0-)", "action": "status", "code": 503, "times": -1}]}'
check "range rule: fits ranges its pattern takes, not others nor none" test "$(C -o /dev/null -w '%{http_code}' -r 5-9 "$PU/data.bin") $(C -o /dev/null -w '%{http_code}' -r 0-9 "$PU/data.bin") $(C -o /dev/null -w '%{http_code}' "$PU/small.txt")" = "503 206 200"
net_plog_clear "$P"
C -o /dev/null -H 'X-Extra: 42' "$PU/small.txt"
check "log: every request header" test "$(pj "$P" '[h for h in L[0]["headers"] if h[0] == "X-Extra"]')" = "[['X-Extra', '42']]"

# hang: curl times out, and other connections go on meanwhile
net_rules "$P" '{"rules": [{"match": "hang-me", "action": "hang"}]}'
t0=$(now)
(r=$(rc_of C -m 2 "$PU/small.txt?hang-me"); echo "$r" >"$TMP/hang.rc") &
hang_job=$!
for _ in $(seq 1 100); do [ "$(pj "$P" 'len([e for e in L if e["action"] == "hang"])')" = 1 ] && break; sleep 0.02; done
t1=$(now)
check "during a hang other requests are served" test "$(C -o /dev/null -w '%{http_code}' "$PU/small.txt")" = 200
t2=$(now)
check "... quickly" elapsed_lt "$t1" "$t2" 1
wait "$hang_job"
t3=$(now)
check "hang: curl -m 2 exits 28" test "$(cat "$TMP/hang.rc")" = 28
check "hang: after >= 2 s" elapsed_ge "$t0" "$t3" 1.9
check "hang: closed entry, no status" test "$(pj "$P" '[(e["status"], e["t_end"] is not None) for e in L if e["action"] == "hang"][0]')" = "(None, True)"

net_rules "$P" '{"rules": [{"action": "stall", "bytes": 10}]}'
out=$(C -m 1 -o /dev/null -w '%{size_download}' "$PU/data.bin" 2>/dev/null)
r=$?
check "stall: curl -m 1 exits 28 with 10 bytes (got $r, $out)" test "$r $out" = "28 10"

# several requests in flight at once
net_rules "$P" '{"latency_ms": 600}'
net_plog_clear "$P"
t0=$(now)
jobs_=""
for i in 1 2 3 4; do
    C -o /dev/null -r "$((i * 10))-$((i * 10 + 9))" "$PU/data.bin" &
    jobs_="$jobs_ $!"
done
for j in $jobs_; do wait "$j"; done
t1=$(now)
check "4 concurrent requests with 600 ms latency take < 1.5 s" elapsed_lt "$t0" "$t1" 1.5
check "... and were all in flight at once" test "$(pj "$P" 'len(L), max(e["t_start"] for e in L) < min(e["t_end"] for e in L)')" = "4 True"

# a client leaving mid-body does not hurt the proxy
net_rules "$P" '{"latency_ms": 0}'
C "$PU/data.bin" 2>/dev/null | head -c 10 >/dev/null
check "client gone mid-body: proxy still serves" test "$(C "$PU/small.txt")" = hello
check "bad rules rejected (400)" test "$(C -o /dev/null -w '%{http_code}' -X POST --data '{"rules":[{"action":"explode"}]}' "$PU/__proxy/rules")" = 400
net_reset "$P"
check "reset clears rules and log" test "$(curl -sS --noproxy '*' "$PU/__proxy/rules" | tr -d ' \n')|$(pj "$P" 'len(L)')" = '{"latency_ms":0,"rules":[]}|0'
C -o /dev/null "$PU/small.txt"
net_plog_clear "$P"
check "log/clear" test "$(pj "$P" 'len(L)')" = 0
check "control requests are never forwarded" not grep -q __proxy "$ACCESS_LOG"
check "proxy --log file has JSON lines" "$PY" -c "import json,sys; [json.loads(l) for l in open('$TMP/proxy-P.log')]"

# 502 when the upstream is down
DEAD=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
net_proxy D "$DEAD"
check "dead upstream: 502" test "$(C -o /dev/null -w '%{http_code}' "http://127.0.0.1:$D/x")" = 502

# TLS towards the client
net_proxy T "$HTTP_PORT" --cert "$SERVER_CERT" --key "$SERVER_KEY"
check "TLS proxy: GET with --cacert" test "$(C --cacert "$CAFILE" "https://127.0.0.1:$T/small.txt")" = hello
NET_CAFILE=$CAFILE net_rules "https://127.0.0.1:$T" '{"rules": [{"action": "reset"}]}'
r=$(rc_of C --cacert "$CAFILE" "https://127.0.0.1:$T/small.txt")
check "TLS proxy: reset gives 56/35/52 (got $r)" test "$r" = 56 -o "$r" = 35 -o "$r" = 52

# SIGTERM: clean exit 0, bounded
kill -TERM "$D_PID"
for _ in $(seq 1 60); do net_alive "$D_PID" || break; sleep 0.05; done
wait "$D_PID"
check "SIGTERM: proxy exits 0" test $? = 0
NET_PIDS=$(printf '%s\n' $NET_PIDS | grep -vx "$D_PID" | tr '\n' ' ')

# ------------------------------------------------------------------ HF hub
H=$TMP/hub
mkdir -p "$H/org/repo/sub" "$H/org/private"
head -c 262144 /dev/urandom >"$H/org/repo/model.gguf"
head -c 5000 /dev/urandom >"$H/org/repo/sub/part-00001-of-00002.gguf"
printf '# card\n' >"$H/org/repo/README.md"
printf '{}\n' >"$H/org/repo/sub/config.json"
printf 'x' >"$H/org/private/p.gguf"
COMMIT=$("$PY" "$NET/hf_tree.py" "$H" org/repo main | sed -n 's/.*commit=\([0-9a-f]*\).*/\1/p')
"$PY" "$NET/hf_tree.py" "$H" org/private main --token tok >/dev/null
net_start start-hf "$H" "$TMP/hf" || { fail "servers.sh start-hf"; finish; exit 1; }
HP=$(net_env "$TMP/hf" HTTP_PORT)
HS=$(net_env "$TMP/hf" HTTPS_PORT)
HLOG=$(net_env "$TMP/hf" ACCESS_LOG)
CP=$(net_env "$TMP/hf" CDN_PORT)
CLOG=$(net_env "$TMP/hf" CDN_ACCESS_LOG)
HCA=$(net_env "$TMP/hf" CAFILE)
HU=http://127.0.0.1:$HP
SHA=$(sha256sum "$H/org/repo/model.gguf" | cut -d' ' -f1)
C -I -D "$TMP/h" -o /dev/null "$HU/org/repo/resolve/main/model.gguf"
check "resolve: 302" grep -q '^HTTP/1.1 302' "$TMP/h"
check "resolve: Location is the CDN" test "$(net_hdr "$TMP/h" Location)" = "http://127.0.0.1:$CP/org/repo/model.gguf"
check "resolve: X-Linked-Etag is the quoted sha256" test "$(net_hdr "$TMP/h" X-Linked-Etag)" = "\"$SHA\""
check "resolve: X-Linked-Size" test "$(net_hdr "$TMP/h" X-Linked-Size)" = 262144
check "resolve: X-Repo-Commit" test "$(net_hdr "$TMP/h" X-Repo-Commit)" = "$COMMIT" -a ${#COMMIT} = 40
check "resolve by commit id" test "$(C -o /dev/null -w '%{http_code}' "$HU/org/repo/resolve/$COMMIT/model.gguf")" = 302
check "resolve a small file: 200 from the hub itself" test "$(C "$HU/org/repo/resolve/main/README.md")" = "# card"
nh=$(wc -l <"$HLOG")
C -H 'Authorization: Bearer hftok' -L -r 0-99 -o "$TMP/part" "$HU/org/repo/resolve/main/model.gguf"
check "curl -L Range through the redirect" cmp -s "$TMP/part" <(head -c 100 "$H/org/repo/model.gguf")
net_wait_lines "$HLOG" $((nh + 1))
net_wait_lines "$CLOG" 1
check "hub log has the token" test "$(alog_last "$HLOG" "$ALOG_AUTH")" = "Bearer hftok"
check "CDN log: GET with Range, token dropped by curl on the cross-host redirect" test "$(alog_last "$CLOG" "$ALOG_METHOD")|$(alog_last "$CLOG" "$ALOG_URI")|$(alog_last "$CLOG" "$ALOG_STATUS")|$(alog_last "$CLOG" "$ALOG_RANGE")|$(alog_last "$CLOG" "$ALOG_AUTH")" = "GET|/org/repo/model.gguf|206|bytes=0-99|-"
C -H 'Authorization: Bearer hftok' --location-trusted -r 0-99 -o /dev/null "$HU/org/repo/resolve/main/model.gguf"
net_wait_lines "$CLOG" 2
check "CDN log: --location-trusted sends the token" test "$(alog_last "$CLOG" "$ALOG_AUTH")" = "Bearer hftok"
C --cacert "$HCA" -D "$TMP/h" -L -r 0-99 -o "$TMP/part" "https://127.0.0.1:$HS/org/repo/resolve/main/model.gguf"
check "https hub redirects to the https CDN" test "$(net_hdr "$TMP/h" Content-Range)" = "bytes 0-99/262144" -a "$(grep -ci '^location: https://127.0.0.1:' "$TMP/h")" = 1

# tree API, two pages
C -D "$TMP/h" -o "$TMP/p1" "$HU/api/models/org/repo/tree/main?recursive=True&expand=False"
NEXT=$(net_hdr "$TMP/h" Link | sed -n 's/^<\(.*\)>; rel="next"$/\1/p')
check "tree page 1: Link rel=next on the same host:port" test "$NEXT" = "$HU/api/models/org/repo/tree/main?recursive=True&expand=False&cursor=p2"
C -D "$TMP/h" -o "$TMP/p2" "$NEXT"
check "tree page 2: no Link" test -z "$(net_hdr "$TMP/h" Link)"
check "tree: both pages hold every entry, with lfs for the ggufs" "$PY" - "$TMP/p1" "$TMP/p2" "$SHA" <<'PY'
import json, sys
e = json.load(open(sys.argv[1])) + json.load(open(sys.argv[2]))
assert json.load(open(sys.argv[1])) and json.load(open(sys.argv[2]))
paths = sorted(x["path"] for x in e)
assert paths == ["README.md", "model.gguf", "sub", "sub/config.json", "sub/part-00001-of-00002.gguf"], paths
m = [x for x in e if x["path"] == "model.gguf"][0]
assert m["type"] == "file" and m["size"] == 262144 and len(m["oid"]) == 40, m
assert m["lfs"] == {"oid": sys.argv[3], "size": 262144, "pointerSize": m["lfs"]["pointerSize"]}, m
assert [x for x in e if x["path"] == "sub"][0]["type"] == "directory"
assert "lfs" not in [x for x in e if x["path"] == "README.md"][0]
PY
check "tree recursive=1 works too" test "$(C -o /dev/null -w '%{http_code}' "$HU/api/models/org/repo/tree/main?recursive=1")" = 200
check "tree without recursive: top level only" test "$(cat <(C "$HU/api/models/org/repo/tree/main") <(C "$HU/api/models/org/repo/tree/main?cursor=p2") | grep -o '"path":"[^"]*"' | tr '\n' ' ')" = '"path":"README.md" "path":"model.gguf" "path":"sub" '
C -D "$TMP/h" -o /dev/null "$HU/api/models/org/repo/tree/nope"
check "tree, unknown revision: 404 RevisionNotFound" test "$(head -c 12 "$TMP/h") $(net_hdr "$TMP/h" X-Error-Code)" = "HTTP/1.1 404 RevisionNotFound"
C -D "$TMP/h" -o /dev/null "$HU/org/repo/resolve/main/missing.gguf"
check "resolve, unknown file: 404 EntryNotFound" test "$(head -c 12 "$TMP/h") $(net_hdr "$TMP/h" X-Error-Code)" = "HTTP/1.1 404 EntryNotFound"
C -D "$TMP/h" -o /dev/null "$HU/nobody/none/resolve/main/x.gguf"
check "resolve, unknown repo: 401 RepoNotFound" test "$(head -c 12 "$TMP/h") $(net_hdr "$TMP/h" X-Error-Code)" = "HTTP/1.1 401 RepoNotFound"
check "model info: sha is the commit" test "$(C "$HU/api/models/org/repo/revision/main" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["sha"])')" = "$COMMIT"
check "private repo without token: 401" test "$(C -o /dev/null -w '%{http_code}' "$HU/org/private/resolve/main/p.gguf")" = 401
check "private repo, wrong token: 401" test "$(C -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer bad' "$HU/api/models/org/private/tree/main")" = 401
check "private repo with token: 302 / 200" test "$(C -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer tok' "$HU/org/private/resolve/main/p.gguf") $(C -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer tok' "$HU/api/models/org/private/tree/main")" = "302 200"

# proxy in front of the hub: Link follows the Host the client used
net_proxy HPX "$HP"
C -D "$TMP/h" -o /dev/null "http://127.0.0.1:$HPX/api/models/org/repo/tree/main?recursive=true"
check "tree through a proxy: Link points at the proxy" test "$(net_hdr "$TMP/h" Link | cut -d/ -f1-3)" = "<http://127.0.0.1:$HPX"

# --cdn-url: the hub redirects through a proxy in front of the CDN
net_proxy CPX "$CP"
net_start start-hf "$H" "$TMP/hf2" --cdn-url "http://127.0.0.1:$CPX" || fail "start-hf --cdn-url"
HU2=$(net_env "$TMP/hf2" HTTP_URL)
net_rules "$CPX" '{"rules": [{"action": "set_header", "name": "X-Via", "value": "cdnproxy"}]}'
C -L -D "$TMP/h" -r 0-99 -o "$TMP/part" "$HU2/org/repo/resolve/main/model.gguf"
check "--cdn-url: bytes come through the CDN proxy" test "$(net_hdr "$TMP/h" X-Via)" = cdnproxy
check "--cdn-url: no second CDN started" test -z "$(net_env "$TMP/hf2" CDN_PID)"

# ------------------------------------------------------------------ stop
HPID=$(net_env "$TMP/hf" NGINX_PID)
CPID=$(net_env "$TMP/hf" CDN_PID)
net_stop "$TMP/hf"
check "stop (hf): hub gone" not net_alive "$HPID"
check "stop (hf): CDN gone" not net_alive "$CPID"
net_stop "$TMP/s1"
check "stop: nginx gone" not net_alive "$NGINX_PID"
check "stop: port closed" test "$(rc_of C "$U/small.txt")" = 7
check "stop twice is fine" net_stop "$TMP/s1"

finish
