# tests/net/netlib.sh - shell helpers for suites that use the network test
# tools (source it after tests/lib.sh). See README.md beside this file.
#
# It replaces lib.sh's EXIT trap with 'net_cleanup; cleanup', so every
# nginx and faultproxy started through these helpers is stopped by PID, also
# when the suite fails. A suite that sets its own EXIT trap must call
# net_cleanup in it too.
NET=$TOP/tests/net
NET_STATES=""
NET_PIDS=""
NET_FROZEN=""
# Loopback never goes through a proxy from the environment.
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"
export no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

# net_alive PID: true while PID exists and is not a zombie.
net_alive() {
    local st
    st=$(cut -d')' -f2 "/proc/$1/stat" 2>/dev/null) || return 1
    case "$st" in " Z"* | "") return 1 ;; esac
    return 0
}

# net_gone PID [SECONDS]: wait (10 s at most) until PID has exited (or is a zombie).
net_gone() {
    for _ in $(seq 1 $((${2:-10} * 20))); do
        net_alive "$1" || return 0
        sleep 0.05
    done
    return 1
}

# net_wait_port FILE PID STEP WHAT OUT: wait (200 times STEP seconds at most,
# while PID lives) for the port number PID writes to FILE; when it never does,
# say "WHAT did not start:" and what it wrote to OUT.
net_wait_port() {
    local pf=$1 pid=$2 step=$3
    for _ in $(seq 1 200); do
        [ -s "$pf" ] && return 0
        net_alive "$pid" || break
        sleep "$step"
    done
    [ -s "$pf" ] && return 0
    echo "$4 did not start:" >&2
    cat "$5" >&2
    return 1
}

# net_kill PID: SIGTERM, wait up to 3 s, then SIGKILL; reaps our children.
net_kill() {
    local p=$1
    kill -TERM "$p" 2>/dev/null
    for _ in $(seq 1 60); do net_alive "$p" || break; sleep 0.05; done
    if net_alive "$p"; then
        kill -KILL "$p" 2>/dev/null
        for _ in $(seq 1 40); do net_alive "$p" || break; sleep 0.05; done
    fi
    wait "$p" 2>/dev/null
    return 0
}

net_cleanup() {
    local p s
    for p in $NET_FROZEN; do kill -CONT "$p" 2>/dev/null; done
    NET_FROZEN=""
    for p in $NET_PIDS; do net_kill "$p"; done
    NET_PIDS=""
    for s in $NET_STATES; do "$NET/servers.sh" stop "$s" >/dev/null 2>&1; done
    NET_STATES=""
}
trap 'net_cleanup; cleanup' EXIT

# net_suite: what the suites of remote models set up alike: none of the
# caller's CA bundle, hub token or endpoint; a HOME of their own (made);
# $RC (readcmp.py), $M (the mount point), $MiB; and $PIDS, the readers and
# foreground daemons they start, stopped by the EXIT trap too.
net_suite() {
    unset CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR HF_TOKEN HF_TOKEN_PATH HF_ENDPOINT
    export HOME=$TMP/home
    mkdir -p "$HOME"
    RC=$TOP/tests/net/readcmp.py
    M=$TMP/m
    MiB=1048576
    PIDS=""
    trap 'for p in $PIDS; do net_kill "$p"; done; net_cleanup; cleanup' EXIT
}

# net_start_fg MODEL... [-- OPTIONS]: gguffs -f MODEL... $M -o OPTIONS in the background
# (its PID in $DPID and $PIDS, its output in $TMP/fg.log); waits (10 s at most) until $M
# is mounted, failing at once when the daemon ends first.
net_start_fg() {
    mkdir -p "$M"
    MOUNTS="$MOUNTS $M"
    local a=() o=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do a+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift && o=(-o "$@")
    "$GGUFFS" -f "${a[@]}" "$M" "${o[@]}" > "$TMP/fg.log" 2>&1 &
    DPID=$!
    PIDS="$PIDS $DPID"
    for _ in $(seq 1 200); do
        grep -qs " $M fuse" /proc/mounts && return 0
        net_alive "$DPID" || return 1
        sleep 0.05
    done
    return 1
}

# net_start start|start-hf|start-ollama ROOTDIR STATEDIR [--cdn-url URL]: starts nginx
# (see servers.sh), registered for stop at exit. Read STATEDIR/env after it.
net_start() {
    NET_STATES="$NET_STATES $3"
    "$NET/servers.sh" "$@"
}

# net_stop STATEDIR: stop it now (and not again at exit).
net_stop() {
    "$NET/servers.sh" stop "$1" || return
    NET_STATES=$(printf '%s\n' $NET_STATES | grep -vxF "$1" | tr '\n' ' ')
}

# net_proxy VAR UPSTREAM_PORT [faultproxy options...]: starts a faultproxy in
# front of 127.0.0.1:UPSTREAM_PORT; sets $VAR to its port and ${VAR}_PID to
# its pid. Its JSON-lines log is $TMP/proxy-VAR.log, its stderr
# $TMP/proxy-VAR.out.
net_proxy() {
    local var=$1 up=$2 pf pid
    shift 2
    pf=$TMP/proxy-$var.port
    rm -f "$pf"
    "$PY" "$NET/faultproxy.py" --upstream "127.0.0.1:$up" --port-file "$pf" \
        --log "$TMP/proxy-$var.log" "$@" </dev/null >>"$TMP/proxy-$var.out" 2>&1 &
    pid=$!
    NET_PIDS="$NET_PIDS $pid"
    net_wait_port "$pf" "$pid" 0.025 "faultproxy $var" "$TMP/proxy-$var.out" || return 1
    eval "$var=\$(cat \"\$pf\")"
    eval "${var}_PID=$pid"
}

# net_proxy_stop PID: stop one faultproxy now.
net_proxy_stop() {
    net_kill "$1"
    NET_PIDS=$(printf '%s\n' $NET_PIDS | grep -vx "$1" | tr '\n' ' ')
}

# net_freeze PID / net_thaw PID: SIGSTOP / SIGCONT a server started here (a
# faultproxy's ${VAR}_PID, an nginx's): a hung server, whose kernel still
# accepts connections and takes requests, and which never answers. Frozen
# servers are thawed by net_cleanup (a stopped process does not see TERM).
net_freeze() { kill -STOP "$1" && NET_FROZEN="$NET_FROZEN $1"; }
net_thaw() {
    kill -CONT "$1"
    NET_FROZEN=$(printf '%s\n' $NET_FROZEN | grep -vx "$1" | tr '\n' ' ')
}

# Control interface: net_rules P JSON / net_reset P / net_plog P /
# net_plog_clear P, where P is a proxy's port (plain HTTP) or its base URL
# (https://127.0.0.1:PORT for a TLS proxy, with NET_CAFILE set to the CA).
# net_rules fails, and prints the proxy's reason, on a rejected configuration.
_net_url() { case $1 in *://*) printf '%s' "$1" ;; *) printf 'http://127.0.0.1:%s' "$1" ;; esac; }
_net_curl() { curl -sS --noproxy '*' -m 5 ${NET_CAFILE:+--cacert "$NET_CAFILE"} "$@"; }
net_rules() { _net_curl --fail-with-body -X POST --data-binary "$2" "$(_net_url "$1")/__proxy/rules" >/dev/null; }
net_reset() { _net_curl -f -X POST "$(_net_url "$1")/__proxy/reset" >/dev/null; }
net_plog() { _net_curl -f "$(_net_url "$1")/__proxy/log"; }
net_plog_clear() { _net_curl -f -X POST "$(_net_url "$1")/__proxy/log/clear" >/dev/null; }
# net_hanging PROXYPORT: wait (10 s at most) until the proxy holds a request unanswered
net_hanging() {
    for _ in $(seq 1 200); do
        [ "$(net_plog "$1" | "$PY" -c 'import json, sys; print(sum(e["t_end"] is None for e in json.load(sys.stdin)))')" -ge 1 ] &&
            return 0
        sleep 0.05
    done
    return 1
}

# net_wait_lines FILE N [SECONDS]: wait (bounded, default 5 s) until FILE
# has at least N lines. nginx writes an access-log line when it finalizes
# the request, which can be a moment after the client has the response.
net_wait_lines() {
    local i n=$(( ${3:-5} * 20 ))
    for i in $(seq 1 "$n"); do
        [ "$(wc -l <"$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
        sleep 0.05
    done
    return 1
}

# Access-log columns (tab-separated), for awk -F'\t' '{print $N}':
ALOG_METHOD=1 ALOG_URI=2 ALOG_STATUS=3 ALOG_BYTES=4 ALOG_RANGE=5
ALOG_IF_MATCH=6 ALOG_IF_RANGE=7 ALOG_AUTH=8 ALOG_CONTENT_RANGE=9 ALOG_TIME=10
ALOG_CONN=11 ALOG_CONN_REQ=12 ALOG_SCHEME=13 ALOG_PORT=14

# net_env STATEDIR VAR: one variable from STATEDIR/env (without sourcing it
# into the suite, where two instances' variables would collide).
net_env() {
    (. "$1/env" && eval "printf '%s\\n' \"\${$2-}\"")
}

# net_hdr DUMPFILE NAME: a header's value from a curl -D dump (last response).
net_hdr() {
    tr -d '\r' <"$1" | awk -v n="$(printf '%s' "$2" | tr 'A-Z' 'a-z')" '
        /^HTTP\// { v = "" }
        { i = index($0, ":"); if (i && tolower(substr($0, 1, i - 1)) == n) { v = substr($0, i + 1); sub(/^[ \t]+/, "", v) } }
        END { print v }'
}

# net_moto_python: the Python with moto and boto3 (the pinned peers of
# tests/pyenv.sh; $MOTO_PYTHON first), printed; or a message and failure.
net_moto_python() {
    local p=${MOTO_PYTHON:-$PY}
    [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import moto, boto3, botocore' && { echo "$p"; return 0; }
    echo "no Python with moto and boto3 ($p; tests/deps.sh installs the pinned one, tests/pyenv.sh)" >&2
    return 1
}

# net_moto VAR [COUNT]: starts moto_server (an S3 in memory) on a free port
# of 127.0.0.1; sets $VAR (port) and ${VAR}_PID. Without COUNT its own
# signature checks are off (tests/net/s3gate.py says why); with COUNT it
# runs with INITIAL_NO_AUTH_ACTION_COUNT=COUNT: the first COUNT actions go
# unchecked, and every later one must be signed by a key of one of its IAM
# users (or sessions) and allowed by their policies (s3store.py checked).
# Its request log is $TMP/moto-VAR.out. Needs $MOTO_PY (net_moto_python).
net_moto() {
    local var=$1 count=${2:-inf} port pid
    for _ in 1 2 3; do
        port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        INITIAL_NO_AUTH_ACTION_COUNT=$count "$MOTO_PY" -m moto.server -H 127.0.0.1 -p "$port" </dev/null \
            >>"$TMP/moto-$var.out" 2>&1 &
        pid=$!
        NET_PIDS="$NET_PIDS $pid"
        for _ in $(seq 1 300); do
            curl -s --noproxy '*' -m 1 -o /dev/null "http://127.0.0.1:$port/moto-api/" && break
            net_alive "$pid" || break
            sleep 0.1
        done
        if net_alive "$pid" && curl -s --noproxy '*' -m 1 -o /dev/null "http://127.0.0.1:$port/moto-api/"; then
            eval "$var=$port; ${var}_PID=$pid"
            return 0
        fi
        net_proxy_stop "$pid"
    done
    echo "moto_server did not start:" >&2
    cat "$TMP/moto-$var.out" >&2
    return 1
}

# net_s3gate VAR UPSTREAM_PORT CREDS: starts tests/net/s3gate.py (checks every
# request's SigV4 signature, then forwards to the S3 server); sets $VAR (port)
# and ${VAR}_PID; its JSON-lines log is $TMP/s3gate-VAR.log.
net_s3gate() {
    local var=$1 pf=$TMP/s3gate-$1.port pid
    rm -f "$pf"
    "$MOTO_PY" "$NET/s3gate.py" --upstream "127.0.0.1:$2" --creds "$3" --port-file "$pf" \
        --log "$TMP/s3gate-$var.log" </dev/null >>"$TMP/s3gate-$var.out" 2>&1 &
    pid=$!
    NET_PIDS="$NET_PIDS $pid"
    net_wait_port "$pf" "$pid" 0.05 s3gate "$TMP/s3gate-$var.out" || return 1
    eval "$var=\$(cat \"\$pf\"); ${var}_PID=$pid"
}
