#!/bin/bash
# Concurrent readers: 16 and more threads reading random ranges of every
# tensor of the reference sets through one mount with a 1 MiB decoded-page
# cache (forcing evictions), every read compared with the expected bytes
# (tests/concurrency/stress_read.py; a deadlock shows as threads still
# reading after the deadline). Then the daemon itself in the foreground
# under AddressSanitizer + LeakSanitizer (build-san/gguffs) and under
# valgrind memcheck with leak checking, on a shorter run: both must exit 0
# with no report once unmounted.
. "$(dirname "$0")/../lib.sh"
M=$TMP/m
FILES="$DATA/mainline/mainline.gguf $DATA/ik/ik.gguf"
for f in stq1_0-id43 stq1_0-id42 prism forks-rawbytes; do FILES="$FILES $DATA/forks/$f.gguf"; done
STRESS="$TOP/tests/concurrency/stress_read.py"
PIDS=""
trap 'cleanup; for p in $PIDS; do kill "$p" 2>/dev/null; done' EXIT

stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$M/.stats"; }

# --- the daemon as installed: every read through to it (direct_io), then
# with the kernel page cache and read-ahead in the way.
if mount_model "$M" -o cache_size=1M,direct_io $FILES; then
    check "16 threads, random f32 and raw ranges, 1 MiB cache, direct_io" \
        timeout 300 $PY "$STRESS" --threads 16 --reads 1500 --raw "$M"
    check "the cache evicted ($(stat_of cache_evictions) evictions)" [ "$(stat_of cache_evictions)" -gt 0 ]
    check "no I/O errors" [ "$(stat_of io_errors)" = 0 ]
    unmount "$M"
else
    fail "mount with cache_size=1M,direct_io"
fi
if mount_model "$M" -o cache_size=1M,readahead=4 $FILES; then
    check "32 threads, page cache and read-ahead on" timeout 300 $PY "$STRESS" --threads 32 --reads 400 --seed 2 "$M"
    unmount "$M"
else
    fail "mount with cache_size=1M"
fi

# start_fg LOG COMMAND...: a daemon started with -f, in the background;
# waits for its mount. Sets PID.
start_fg() {
    local log=$1
    shift
    mkdir -p "$M"
    MOUNTS="$MOUNTS $M"
    "$@" >"$log" 2>&1 &
    PID=$!
    PIDS="$PIDS $PID"
    for _ in $(seq 1 1200); do
        grep -qs " $M fuse" /proc/mounts && return 0
        kill -0 "$PID" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# stop_fg: unmount, wait (up to 3 minutes) for the daemon to exit; its status.
stop_fg() {
    unmount "$M"
    for _ in $(seq 1 1800); do
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$PID" 2>/dev/null; then
        kill "$PID"
        echo "daemon $PID did not exit after the unmount" >&2
    fi
    wait "$PID"
}

# Every generated file read once (texts, JSON, stats of a few tensors).
read_texts() {
    find "$1" -type f ! -name f32 ! -name raw ! -name stats -exec cat {} + >/dev/null &&
        cat "$1"/mainline/tensors/Q4_K/stats "$1"/ik/tensors/IQ2_K/stats >/dev/null
}

# --- AddressSanitizer + LeakSanitizer + UBSan daemon
if make -C "$TOP" -s --no-print-directory sanitize-build; then
    if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        start_fg "$TMP/asan.log" "$TOP/build-san/gguffs" -f -o cache_size=1M $FILES "$M"; then
        check "ASan daemon: 16 threads" timeout 300 $PY "$STRESS" --threads 16 --reads 300 --raw --seed 3 "$M"
        check "ASan daemon: every text file" read_texts "$M"
        stop_fg
        rc=$?
        check "ASan daemon exits 0 after unmount (status $rc)" [ "$rc" = 0 ]
        check "ASan/LSan/UBSan: no report" bash -c "! grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error' '$TMP/asan.log'"
        grep -E -A 20 'ERROR: (Address|Leak)Sanitizer|runtime error' "$TMP/asan.log" | head -40 >&2
    else
        fail "ASan daemon did not mount: $(head -c 500 "$TMP/asan.log")"
    fi
else
    fail "sanitizer build of the daemon"
fi

# --- valgrind memcheck (AVX-512 is hidden from programs under valgrind,
# which then decode with AVX2).
if command -v valgrind >/dev/null; then
    if start_fg "$TMP/vg.out" valgrind --log-file="$TMP/vg.log" --leak-check=full \
        --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
        "$GGUFFS" -f -o cache_size=1M,threads=2 "$DATA/mainline/mainline.gguf" "$DATA/ik/ik.gguf" "$M"; then
        check "valgrind daemon: 8 threads" timeout 600 $PY "$STRESS" --threads 8 --reads 40 --seed 4 --timeout 500 \
            "$M" --only-folders mainline,ik
        check "valgrind daemon: every text file" read_texts "$M"
        stop_fg
        rc=$?
        check "valgrind: daemon exits 0, no errors, no leaks (status $rc)" [ "$rc" = 0 ]
        check "valgrind: ERROR SUMMARY 0" grep -q "ERROR SUMMARY: 0 errors" "$TMP/vg.log"
        [ "$rc" = 0 ] || head -60 "$TMP/vg.log" >&2
    else
        fail "valgrind daemon did not mount: $(head -c 500 "$TMP/vg.out")"
    fi
else
    echo "valgrind not installed: memcheck run skipped" >&2
fi
finish 40_concurrency
