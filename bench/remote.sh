#!/bin/bash
# remote.sh - remote models (http:// through nginx and the fault proxy of
# tests/net, with 20 ms and with 0 ms added to every request), each figure
# against its baseline measured in the same run (medians of RUNS):
#
#  - mount: from `gguffs URL MOUNT` to `ls MOUNT/tensors` done, requests and
#    time, for the reference model and a 150k-token vocabulary (7 MB
#    header), against one curl GET of the same header bytes (= 1 round trip
#    plus the transfer); aim <= 3 requests, <= 4 round trips + transfer;
#  - stream: dd bs=1M of the f32 file (1 GiB) of a Q4_K tensor of a remote
#    model against curl fetching its raw bytes (151 MB) through the same
#    proxy; aim <= 1.1x curl's time;
#  - warm disk cache: the same stream from a second mount (-o cache_dir)
#    against a mount of the local file; aim >= 0.8x its speed;
#  - streams (issue 23), through the proxy at +20 ms: dd of the raw file of
#    the Q4_K tensor (151 MB) against curl of the same bytes (aim <= 1.15x),
#    its f32 against a local mount's (<= 1.25x), the f32 from a warm
#    cache_dir against the local mount (>= 0.9x its speed). With
#    GGUFFS_BASE=BINARY (an older gguffs) the same streams are measured with
#    it too, interleaved in the same runs: before and after.
#
#   bench/remote.sh            (needs FUSE, nginx: run as root; RUNS=3)
# Noisy on a shared 2-vCPU VM: compare figures within one run.
set -u
cd "$(dirname "$0")/.."
TOP=$PWD
BUILD=${BUILD:-build}
GGUFFS=${GGUFFS:-$PWD/gguffs}
FSB=$BUILD/bench/fsbench
PY=${PYTHON:-$(tests/pyenv.sh python)} || exit 1
RUNS=${RUNS:-3}
[ -x "$GGUFFS" ] && [ -x "$FSB" ] || { echo "remote.sh: build gguffs and $FSB first (make bench)" >&2; exit 2; }
if ! [ -e /dev/fuse ] || ! command -v fusermount3 >/dev/null || ! { command -v nginx || [ -x /usr/sbin/nginx ]; } >/dev/null; then
    echo "remote.sh: needs FUSE and nginx (tests/deps.sh); skipped" >&2
    exit 0
fi
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

. bench/lib.sh
bench_setup remote
mkdir -p "$D/www"
PROXY_PID=""
bench_cleanup() {
    if [ -n "$PROXY_PID" ]; then
        kill "$PROXY_PID" 2>/dev/null
        wait "$PROXY_PID" 2>/dev/null
    fi
    tests/net/servers.sh stop "$D/web" >/dev/null 2>&1
}

# CPU time used by every process on the machine so far (ms): the proxy,
# nginx and the reader share the CPUs with the daemon.
busy() { awk '/^cpu / { print ($2 + $3 + $4 + $7 + $8) * 10 }' /proc/stat; }
ms() { echo $(( ($2 - $1) / 1000000 )); }
# put_ms KEY COMMAND...: the milliseconds COMMAND takes, one more value of
# KEY, and the CPU time of all processes meanwhile, of cpu_KEY
put_ms() {
    local key=$1 t0 t1 c0
    shift
    c0=$(busy)
    t0=$(now)
    "$@"
    t1=$(now)
    put "$key" "$(ms "$t0" "$t1")"
    put "cpu_$key" $(($(busy) - c0))
}
read_q4k() { dd if="$M/tensors/q4k/$1" of=/dev/null bs=1M 2>/dev/null; } # read_q4k raw|f32
mount_ls() { "$GGUFFS" "$1" "$M" && ls "$M/tensors" >/dev/null; }        # mount_ls MODEL

echo "== remote models (bench/remote.sh) in $D"
"$FSB" gen "$D/www/q4k.gguf" q4k:q4_k:4096:65536 >/dev/null || exit 1
cp tests/data/mainline/mainline.gguf "$D/www/ref.gguf"
"$PY" tests/net/mkmodels.py vocab "$D/www/v150k.gguf" 150000 30 || exit 1
tests/net/servers.sh start "$D/www" "$D/web" >/dev/null || exit 1
. "$D/web/env"
"$PY" tests/net/faultproxy.py --upstream "127.0.0.1:$HTTP_PORT" --port-file "$D/proxy.port" \
    </dev/null >"$D/proxy.out" 2>&1 &
PROXY_PID=$!
for _ in $(seq 1 200); do [ -s "$D/proxy.port" ] && break; sleep 0.025; done
P=$(cat "$D/proxy.port")
PU=http://127.0.0.1:$P
latency() { curl -sS --noproxy '*' -m 5 -X POST --data-binary "{\"latency_ms\": $1}" "$PU/__proxy/rules" >/dev/null; }

# Where the Q4_K tensor's bytes are, and the headers' ends.
read -r QOFF QLEN < <("$PY" -c 'import sys; sys.path.insert(0, "tests"); import gguf_tool as g
h = g.read(open(sys.argv[1], "rb").read(1 << 20)); t = h.tensors[0]
print(h.data_offset + t["offset"], 4096 * 65536 // 256 * 144)' "$D/www/q4k.gguf")
hdr_end() { "$PY" -c 'import sys; sys.path.insert(0, "tests"); import gguf_tool as g; print(g.read(open(sys.argv[1], "rb").read()).data_offset)' "$1"; }
HREF=$(hdr_end "$D/www/ref.gguf")
HVOC=$(hdr_end "$D/www/v150k.gguf")
cat "$D/www/q4k.gguf" >/dev/null
# Local baseline: f32 of the local file (page-cached), once unmeasured.
"$GGUFFS" "$D/www/q4k.gguf" "$M" && dd if="$M/tensors/q4k/f32" of=/dev/null bs=1M 2>/dev/null
umnt

curl_ms() { # curl_ms RANGE: one GET through the proxy
    local t0 t1
    t0=$(now)
    curl -sS --noproxy '*' -r "$1" -o /dev/null "$PU/$2"
    t1=$(now)
    ms "$t0" "$t1"
}
for run in $(seq "$RUNS"); do
    printf "\rrun %d/%d " "$run" "$RUNS" >&2
    for m in ref v150k; do
        put_ms "mount_local_$m" mount_ls "$D/www/$m.gguf"
        umnt
    done
    for lat in 20 0; do
        latency "$lat"
        # mount + ls
        for m in ref v150k; do
            put_ms "mount_${m}_$lat" mount_ls "$PU/$m.gguf"
            put "mount_req_${m}_$lat" "$(stat_of http_requests)"
            umnt
            h=$HREF
            [ $m = v150k ] && h=$HVOC
            put "curl_hdr_${m}_$lat" "$(curl_ms "0-$((h - 1))" "$m.gguf")"
        done
        # stream f32 vs curl of the raw bytes
        "$GGUFFS" "$PU/q4k.gguf" "$M"
        put_ms "f32_$lat" read_q4k f32
        put "f32_req_$lat" "$(stat_of http_requests)"
        put "f32_prefetched_$lat" "$(stat_of net_blocks_prefetched)"
        umnt
        put "curl_raw_$lat" "$(curl_ms "$QOFF-$((QOFF + QLEN - 1))" q4k.gguf)"
    done
    # streams at +20 ms, this gguffs and (GGUFFS_BASE) an older one, interleaved
    latency 20
    for tag in new ${GGUFFS_BASE:+base}; do
        bin=$GGUFFS
        [ $tag = base ] && bin=$GGUFFS_BASE
        "$bin" "$PU/q4k.gguf" "$M"
        put_ms "s_raw_$tag" read_q4k raw
        umnt
        "$bin" "$PU/q4k.gguf" "$M"
        put_ms "s_f32_$tag" read_q4k f32
        umnt
        rm -rf "$D/cache"
        "$bin" "$PU/q4k.gguf" "$M" -o cache_dir="$D/cache" && dd if="$M/tensors/q4k/raw" of=/dev/null bs=1M 2>/dev/null
        umnt
        "$bin" "$PU/q4k.gguf" "$M" -o cache_dir="$D/cache"
        put_ms "s_warm_$tag" read_q4k f32
        umnt
    done
    c0=$(busy)
    put s_curl "$(curl_ms "$QOFF-$((QOFF + QLEN - 1))" q4k.gguf)"
    put cpu_curl $(($(busy) - c0))
    "$GGUFFS" "$D/www/q4k.gguf" "$M"
    put_ms s_local read_q4k f32
    umnt
    # warm disk cache (20 ms) against the local file
    latency 20
    rm -rf "$D/cache"
    "$GGUFFS" "$PU/q4k.gguf" "$M" -o cache_dir="$D/cache" && dd if="$M/tensors/q4k/raw" of=/dev/null bs=1M 2>/dev/null
    umnt
    "$GGUFFS" "$PU/q4k.gguf" "$M" -o cache_dir="$D/cache"
    put_ms f32_warmdisk read_q4k f32
    put warmdisk_hits "$(stat_of net_disk_cache_hits)"
    put warmdisk_req "$(stat_of http_requests)"
    umnt
    "$GGUFFS" "$D/www/q4k.gguf" "$M"
    put_ms f32_local read_q4k f32
    umnt
done
echo >&2

sub() { echo $(( $(medv "$1") - $(medv "$2") )); }
printf "\n%-50s %10s %10s %8s   %s\n" "figure (median of $RUNS)" "gguffs" "baseline" "ratio" "aim"
for m in ref v150k; do
    printf "%-50s %8s ms\n" "mount + ls, $m, local file" "$(medv "mount_local_$m")"
done
for lat in 20 0; do
    for m in ref v150k; do
        net=$(sub "mount_${m}_$lat" "mount_local_$m")
        aim=$(( $(medv "curl_hdr_${m}_$lat") + 3 * lat ))
        printf "%-50s %8s ms %8s ms %8s   %s\n" "mount + ls, $m, +${lat} ms: remote time / curl 1 GET" \
            "$(medv "mount_${m}_$lat")" "$(medv "curl_hdr_${m}_$lat")" "$(ratio "mount_${m}_$lat" "curl_hdr_${m}_$lat")" ""
        printf "%-50s %8s ms %8s ms %8s   %s\n" "   remote - local / (curl 1 GET + 3 RT)" "$net" "$aim" \
            "$(awk -v a="$net" -v b="$aim" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" "<= 1 (4 RT + transfer)"
        printf "%-50s %10s %10s %8s   %s\n" "   requests" "$(medv "mount_req_${m}_$lat")" 1 "" "<= 3"
    done
    printf "%-50s %8s ms %8s ms %8s   %s\n" "f32 stream 1 GiB, +${lat} ms: time / curl raw" \
        "$(medv "f32_$lat")" "$(medv "curl_raw_$lat")" "$(ratio "f32_$lat" "curl_raw_$lat")" "<= 1.10"
    printf "%-50s %8s ms %8s ms %8s   %s\n" "   time / local mount's f32 stream" \
        "$(medv "f32_$lat")" "$(medv f32_local)" "$(ratio "f32_$lat" f32_local)" "(the floor: decoding)"
    printf "%-50s %10s %10s\n" "   requests, blocks read ahead" "$(medv "f32_req_$lat")" "$(medv "f32_prefetched_$lat")"
done
printf "%-50s %8s ms %8s ms %8s   %s\n" "f32 stream, warm disk cache: local / it" "$(medv f32_warmdisk)" "$(medv f32_local)" \
    "$(ratio f32_local f32_warmdisk)" ">= 0.80 (speed)"
printf "%-50s %10s %10s\n" "   disk hits, requests" "$(medv warmdisk_hits)" "$(medv warmdisk_req)"

# The streams of issue 23, at +20 ms: each binary's against the same baselines.
rat() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
printf "\n%-44s %8s %8s %8s %8s   %s\n" "stream at +20 ms (median of $RUNS)" "ms" "base ms" "ratio" "base" "aim"
b=${GGUFFS_BASE:+base}
row() { # row NAME KEY BASELINE_KEY AIM [inverse]
    local v bv base
    v=$(medv "s_$2_new")
    bv=$([ -n "$b" ] && medv "s_$2_base")
    base=$(medv "$3")
    if [ -n "${5:-}" ]; then
        printf "%-44s %8s %8s %8s %8s   %s\n" "$1" "$v" "${bv:--}" "$(rat "$base" "$v")" \
            "$([ -n "$b" ] && rat "$base" "$bv" || echo -)" "$4"
    else
        printf "%-44s %8s %8s %8s %8s   %s\n" "$1" "$v" "${bv:--}" "$(rat "$v" "$base")" \
            "$([ -n "$b" ] && rat "$bv" "$base" || echo -)" "$4"
    fi
}
row "raw 151 MB: time / curl of the bytes ($(medv s_curl) ms)" raw s_curl "<= 1.15"
row "f32 1 GiB: time / local mount's ($(medv s_local) ms)" f32 s_local "<= 1.25"
row "f32, warm cache_dir: local mount's speed / it" warm s_local ">= 0.90" inverse
# What the CPUs did meanwhile (all processes: on a small machine the proxy
# and nginx compete with the daemon; busy / CPUs bounds a stream's time).
printf "%-44s %8s %8s   (%s CPUs: a stream takes at least busy / %s)\n" "CPU busy, all processes (ms)" \
    "" "" "$(nproc)" "$(nproc)"
printf "%-44s %8s\n" "   curl of the raw bytes" "$(medv cpu_curl)" "   raw stream" "$(medv cpu_s_raw_new)" \
    "   f32 stream, local mount" "$(medv cpu_s_local)" "   f32 stream, +20 ms" "$(medv cpu_s_f32_new)"
