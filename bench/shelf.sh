#!/bin/bash
# shelf.sh - a folder of many models mounted as a shelf (issue 11): mount
# time, ls -R time, and the daemon's memory (VmRSS) after mounting, after
# ls -R, after reading every summary.
#
#   bench/shelf.sh                 1000 small models (N=1000), RUNS=5 mounts
#   N=5000 RUNS=3 bench/shelf.sh
#
# The models are made by tests/make_stores.py (a two-layer llama shape, 21
# tensors, a 32-token vocabulary: 42 KiB each, 10 per sub-folder) under a
# temporary folder deleted at the end. A second, smaller folder has K=100
# models whose tokenizer has 32 000 tokens (a header of ~0.4 MiB; real
# models' are 0.5 to 10 MiB), for the memory an opened model costs. The daemon runs with -f in
# the background (its own PID, for /proc/PID/status). "mounted" is the time
# from the start of gguffs until the mount is in /proc/mounts, "listed"
# until ls of the mount's root has answered. No thresholds: figures only.
set -u
cd "$(dirname "$0")/.."
GGUFFS=${GGUFFS:-$PWD/gguffs}
PY=${PYTHON:-$(tests/pyenv.sh python)} || exit 1
N=${N:-1000}
RUNS=${RUNS:-5}
[ -x "$GGUFFS" ] || { echo "shelf.sh: build gguffs first (make)" >&2; exit 2; }
. bench/lib.sh
bench_need_fuse shelf.sh
bench_setup shelf
PID=""
bench_cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
rss() { awk '/^VmRSS/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$PID/status"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# start DIR: the daemon in the background; sets T_MOUNTED and T_LISTED (ms)
start() {
    local t0
    t0=$(now_ms)
    "$GGUFFS" -f "$1" "$M" 2>> "$D/daemon.log" &
    PID=$!
    while ! grep -qs " $M fuse" /proc/mounts; do
        kill -0 "$PID" 2>/dev/null || { echo "shelf.sh: the mount failed" >&2; exit 1; }
        sleep 0.001
    done
    T_MOUNTED=$(( $(now_ms) - t0 ))
    ls "$M" > /dev/null
    T_LISTED=$(( $(now_ms) - t0 ))
}
stop() {
    fusermount3 -u "$M"
    wait "$PID"
    PID=""
}

echo "making $N models ..."
$PY tests/make_stores.py many "$D/many" "$N" || exit 1
echo "  $(du -sh --apparent-size "$D/many" | cut -f1) in $(find "$D/many" -type d | wc -l) folders"

# the page cache holds the files: these are the daemon's figures, not the disk's
cat "$D"/many/*/*.gguf > /dev/null
mounted=""
listed=""
for r in $(seq 1 "$RUNS"); do
    start "$D/many"
    mounted="$mounted $T_MOUNTED"
    listed="$listed $T_LISTED"
    [ "$r" -lt "$RUNS" ] && stop
done
echo
echo "== $N models (median of $RUNS mounts; all: mounted$mounted / listed$listed ms)"
printf '  %-34s %6s ms\n' "mount: in /proc/mounts" "$(echo $mounted | tr ' ' '\n' | median)"
printf '  %-34s %6s ms\n' "mount: root listed" "$(echo $listed | tr ' ' '\n' | median)"
printf '  %-34s %s\n' "RSS after mounting" "$(rss)"
# the background check opens every header once; wait until it is done
# (models.tsv opens whatever it has not opened yet)
t0=$(now_ms)
lines=$(tail -n +2 "$M/models.tsv" | wc -l)
printf '  %-34s %6s ms (%s lines)\n' "models.tsv" "$(( $(now_ms) - t0 ))" "$lines"
printf '  %-34s %s\n' "RSS after the check and models.tsv" "$(rss)"
# every vs/ pruned: the N(N-1) comparisons would make the walk take hours (-o novs)
for pass in first second; do
    t0=$(now_ms)
    n=$(find "$M" -name vs -prune -o -print | wc -l)
    printf '  %-34s %6s ms (%s names)\n' "find, vs/ pruned, $pass" "$(( $(now_ms) - t0 ))" "$n"
done
first=$(ls "$M" | head -n 1)
first=$first/$(ls "$M/$first" | head -n 1)
t0=$(now_ms)
n=$(ls -R "$M/$first/vs" | wc -l)
printf '  %-34s %6s ms (%s lines)\n' "ls -R of one model's vs/" "$(( $(now_ms) - t0 ))" "$n"
printf '  %-34s %s\n' "RSS after the walks" "$(rss)"
t0=$(now_ms)
cat "$M"/*/*/summary > /dev/null
printf '  %-34s %6s ms\n' "every summary read" "$(( $(now_ms) - t0 ))"
printf '  %-34s %s\n' "RSS after every summary" "$(rss)"
stop

# what an opened model with a real-sized header costs
K=${K:-100}
$PY - "$D/big" "$K" <<'PY' || exit 1
import os, sys
sys.path.insert(0, "tests")
import gguf_tool as g
import make_stores as ms
d, k = sys.argv[1], int(sys.argv[2])
os.makedirs(d)
for i in range(k):
    kvs, ts = ms.llama(2000 + i, "big %d" % i, layers=2, vocab=32, ff=64, tokens=32000)
    g.write("%s/b%03d.gguf" % (d, i), kvs=kvs, tensors=ts)
PY
cat "$D"/big/*.gguf > /dev/null
start "$D/big"
echo
echo "== $K models with a 32 000-token tokenizer ($(du -sh --apparent-size "$D/big" | cut -f1))"
printf '  %-34s %6s ms\n' "mount: root listed" "$T_LISTED"
tail -n +2 "$M/models.tsv" > /dev/null
before=$(awk '/^VmRSS/ { print $2 }' "/proc/$PID/status")
printf '  %-34s %s\n' "RSS after models.tsv" "$(rss)"
cat "$M"/*/summary > /dev/null
after=$(awk '/^VmRSS/ { print $2 }' "/proc/$PID/status")
printf '  %-34s %s (%s KiB per opened model)\n' "RSS after every summary" "$(rss)" "$(( (after - before) / K ))"
stop
