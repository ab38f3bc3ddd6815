#!/bin/sh
# The decoded-page cache, read-ahead and the FUSE read paths (behaviour, not
# speed): a tiny cache evicts and still gives the right bytes; .stats moves
# as it should; numpy.memmap of an f32 works; -o direct_io gives the same
# bytes; sequential reads are read ahead; a 4 KiB read of a big tensor
# decodes a few blocks; concurrent readers decode each page once; large
# reads decode in parallel in the daemon (so its threads started after it
# forked).
. "$(dirname "$0")/../lib.sh"

M=$TMP/m
ML=$DATA/mainline
IK=$DATA/ik

# same_file FILE EXPECTED: byte-identical
same_file() { cmp -s "$1" "$2"; }

# Every f32 of a reference set, read whole (cat) and in odd pieces (dd of
# 4 KiB and 1 MiB blocks at unaligned starts), against the expected files.
check_set() { # check_set MOUNT DIR
    local bad=0 name f
    while IFS='	' read -r name _ _ _ _ _ _ _ f _; do
        [ "$name" = name ] && continue
        [ -f "$2/$f" ] || continue
        p="$1/tensors/$(esc "$name")/f32"
        cmp -s "$p" "$2/$f" || { echo "  $name: whole read differs" >&2; bad=1; }
        size=$(stat -c %s "$2/$f")
        for off in 4 4096 $((size / 2 + 2)); do
            [ "$off" -lt "$size" ] || continue
            dd if="$p" bs=4093 skip="$off" iflag=skip_bytes count=3 2>/dev/null > "$TMP/piece"
            dd if="$2/$f" bs=4093 skip="$off" iflag=skip_bytes count=3 2>/dev/null > "$TMP/want"
            cmp -s "$TMP/piece" "$TMP/want" || { echo "  $name: piece at $off differs" >&2; bad=1; }
        done
    done < "$2/manifest.tsv"
    return $bad
}

# --- a big synthetic tensor: Q8_0, 4096 x 2048 (32 MiB of f32), random but
# valid blocks, with its expected f32 computed here (d * q in float32).
export TOP
$PY - "$TMP/big.gguf" "$TMP/big.f32" <<'EOF'
import sys, os
sys.path.insert(0, os.path.join(os.environ.get("TOP", "."), "tests"))
import numpy as np
import gguf_tool as g
rng = np.random.default_rng(5)
ne0, nrows = 4096, 2048
nb = ne0 * nrows // 32
d = (rng.uniform(1e-3, 1e-1, nb)).astype(np.float16)
q = rng.integers(-128, 128, (nb, 32), dtype=np.int8)
blocks = np.zeros((nb, 34), dtype=np.uint8)
blocks[:, 0:2] = d.view(np.uint8).reshape(nb, 2)
blocks[:, 2:] = q.view(np.uint8)
g.write(sys.argv[1], kvs=[("general.architecture", g.STR, "llama")],
        tensors=[("big", [ne0, nrows], 8, blocks.tobytes()), ("small", [32, 1], 8, blocks[:1].tobytes())])
(q.astype(np.float32) * d.astype(np.float32)[:, None]).astype("<f4").tofile(sys.argv[2])
EOF
BIG=$M/tensors/big/f32
BIGSIZE=$((4096 * 2048 * 4))

# --- defaults: small reads, sequential read-ahead, memmap, concurrency
mount_model "$M" -o threads=2 "$TMP/big.gguf" || exit 1
PID=$(pgrep -f "^$GGUFFS .*$M\$" | head -1)
check "daemon found" test -n "$PID"
d0=$(stat_of "$M" bytes_decoded)
dd if="$BIG" of="$TMP/r4k" bs=4096 count=1 skip=3001 iflag=direct 2>/dev/null
dd if="$TMP/big.f32" of="$TMP/w4k" bs=4096 count=1 skip=3001 2>/dev/null
check "4 KiB O_DIRECT read: right bytes" same_file "$TMP/r4k" "$TMP/w4k"
d1=$(stat_of "$M" bytes_decoded)
check "4 KiB O_DIRECT read decodes only its blocks ($((d1 - d0)) bytes)" test $((d1 - d0)) -le 8192
dd if="$BIG" of="$TMP/r4k" bs=4096 count=1 skip=5000 2>/dev/null
dd if="$TMP/big.f32" of="$TMP/w4k" bs=4096 count=1 skip=5000 2>/dev/null
check "4 KiB buffered read: right bytes" same_file "$TMP/r4k" "$TMP/w4k"
d2=$(stat_of "$M" bytes_decoded)
check "4 KiB buffered read decodes little of 32 MiB ($((d2 - d1)) bytes)" test $((d2 - d1)) -le 1048576
check "small reads counted" test "$(stat_of "$M" small_reads_decoded_directly)" -ge 1

q0=$(stat_of "$M" readahead_pages_queued)
check "sequential read: right bytes" same_file "$BIG" "$TMP/big.f32"
check "sequential read queued read-ahead" test "$(stat_of "$M" readahead_pages_queued)" -gt "$q0"
check "read-ahead pages decoded" test "$(stat_of "$M" readahead_pages_decoded)" -gt 0
check "read-ahead pages used" test "$(stat_of "$M" readahead_hits)" -gt 0
check "sequential read decoded the whole tensor" test "$(stat_of "$M" bytes_decoded)" -ge $BIGSIZE
check "cache holds pages" test "$(stat_of "$M" cache_resident_bytes)" -gt 0
check "resident within budget" test "$(stat_of "$M" cache_resident_bytes)" -le "$(stat_of "$M" cache_budget_bytes)"

# numpy.memmap (shared mapping) of the f32 in the default mode
check "numpy.memmap of f32" $PY -c '
import sys, numpy as np
a = np.memmap(sys.argv[1], dtype=np.float32, mode="r")
b = np.fromfile(sys.argv[2], dtype=np.float32)
assert a.shape == b.shape, (a.shape, b.shape)
assert np.array_equal(a.view(np.uint32), b.view(np.uint32))
s = a[1234567:1234567 + 1000]
assert np.array_equal(s.view(np.uint32), b[1234567:1234567 + 1000].view(np.uint32))
' "$BIG" "$TMP/big.f32"

# Large O_DIRECT reads go to the daemon every time: parallel decoding (OpenMP
# in the daemon, after it forked) and cache hits on the second pass.
unmount "$M"
mount_model "$M" -o threads=2 "$TMP/big.gguf" || exit 1
dd if="$BIG" of="$TMP/whole" bs=4M iflag=direct 2>/dev/null
check "4 MiB O_DIRECT reads: right bytes" same_file "$TMP/whole" "$TMP/big.f32"
check "large reads decoded in parallel" test "$(stat_of "$M" parallel_decodes)" -gt 0
unmount "$M"

# Pages of scattered reads stay (LRU); a stream's pages are used once and
# do not push them out, nor fill the cache.
mount_model "$M" "$TMP/big.gguf" || exit 1
scattered() { for k in 3 17 9 25; do dd if="$BIG" of=/dev/null bs=1M count=1 skip=$k iflag=direct 2>/dev/null; done; }
scattered
m0=$(stat_of "$M" cache_misses)
rf0=$(stat_of "$M" readahead_pages_decoded) rh0=$(stat_of "$M" readahead_hits)
dd if="$BIG" of=/dev/null bs=1M iflag=direct 2>/dev/null
res=$(stat_of "$M" cache_resident_bytes)
check "a 32 MiB stream keeps few of its pages ($res bytes resident)" test "$res" -lt $((24 * 1048576))
m1=$(stat_of "$M" cache_misses)
h1=$(stat_of "$M" cache_hits)
rf1=$(stat_of "$M" readahead_pages_decoded) rh1=$(stat_of "$M" readahead_hits)
scattered
check "scattered pages survive a stream: hits" test "$(stat_of "$M" cache_hits)" -gt "$h1"
check "scattered pages survive a stream: no new misses" test "$(stat_of "$M" cache_misses)" -eq "$m1"
# A read-ahead page dropped before its reader came (a loaded machine) is
# decoded twice; nothing else may be: not one of the scattered pages.
wasted=$(( (rf1 - rf0) - (rh1 - rh0) ))
check "the stream decoded what the scattered reads had not ($((m1 - m0)) pages, $wasted read ahead in vain)" \
    test $((m1 - m0 - wasted)) -eq $((128 - 16))
unmount "$M"

# Four concurrent readers of one cold tensor: every page decoded once (a
# budget big enough that none of it is evicted).
mount_model "$M" -o threads=2,readahead=0,cache_size=2G "$TMP/big.gguf" || exit 1
for i in 1 2 3 4; do
    dd if="$BIG" of="$TMP/c$i" bs=1M iflag=direct 2>/dev/null &
done
wait
ok4=1
for i in 1 2 3 4; do cmp -s "$TMP/c$i" "$TMP/big.f32" || ok4=0; done
check "4 concurrent readers: right bytes" test $ok4 = 1
pages=$(( BIGSIZE / $(stat_of "$M" page_bytes) ))
check "4 concurrent readers: each page decoded once ($(stat_of "$M" cache_misses) misses, $pages pages)" \
    test "$(stat_of "$M" cache_misses)" -eq "$pages"
check "4 concurrent readers: decoded bytes = tensor" test "$(stat_of "$M" bytes_decoded)" -eq $BIGSIZE
unmount "$M"
rm -f "$TMP"/c[1-4] "$TMP/whole"

# --- -o direct_io: same bytes, and the cache serves the second read
mount_model "$M" -o direct_io "$TMP/big.gguf" || exit 1
check "direct_io: whole f32" same_file "$BIG" "$TMP/big.f32"
dd if="$BIG" of="$TMP/r4k" bs=4096 count=1 skip=777 2>/dev/null
dd if="$TMP/big.f32" of="$TMP/w4k" bs=4096 count=1 skip=777 2>/dev/null
check "direct_io: 4 KiB read" same_file "$TMP/r4k" "$TMP/w4k"
h0=$(stat_of "$M" cache_hits)
cat "$M/tensors/small/f32" > /dev/null
cat "$M/tensors/small/f32" > /dev/null
m1=$(stat_of "$M" cache_misses)
cat "$M/tensors/small/f32" > /dev/null
check "direct_io: re-read of a small tensor is a cache hit" test "$(stat_of "$M" cache_misses)" -eq "$m1"
check "direct_io: hits counted" test "$(stat_of "$M" cache_hits)" -gt "$h0"
unmount "$M"
mount_model "$M" -o direct_io "$ML/mainline.gguf" || exit 1
check "direct_io: mainline set" check_set "$M" "$ML"
unmount "$M"

# --- a tiny cache with tiny pages: constant eviction, same bytes
for set in "$ML/mainline.gguf:$ML" "$IK/ik.gguf:$IK"; do
    model=${set%%:*} dir=${set#*:}
    mount_model "$M" -o cache_size=64K,page_size=4K,readahead=4 "$model" || exit 1
    check "tiny cache: $(basename "$model") set" check_set "$M" "$dir"
    check "tiny cache: evictions happen" test "$(stat_of "$M" cache_evictions)" -gt 0
    unmount "$M"
done
mount_model "$M" -o cache_size=64K,page_size=4K,readahead=4 "$TMP/big.gguf" || exit 1
check "tiny cache: big tensor, sequential" same_file "$BIG" "$TMP/big.f32"
dd if="$BIG" of="$TMP/whole" bs=1M iflag=direct 2>/dev/null
check "tiny cache: big tensor, 1 MiB O_DIRECT reads (256 pages each)" same_file "$TMP/whole" "$TMP/big.f32"
check "tiny cache: resident near budget ($(stat_of "$M" cache_resident_bytes))" \
    test "$(stat_of "$M" cache_resident_bytes)" -le $((64 * 1024))
check "tiny cache: evictions counted" test "$(stat_of "$M" cache_evictions)" -gt 1000
unmount "$M"

# --- no thread before the daemon forks: the process that mounts must clone
# nothing but the daemon (threads would not survive the fork). Needs strace.
if command -v strace >/dev/null 2>&1; then
    mkdir -p "$M"
    MOUNTS="$MOUNTS $M"
    strace -f -e trace=clone,clone3,fork,vfork -o "$TMP/clone.log" "$GGUFFS" -o threads=2 "$TMP/big.gguf" "$M" &
    SPID=$!
    for _ in $(seq 1 100); do
        grep -qs " $M fuse" /proc/mounts && break
        sleep 0.05
    done
    dd if="$BIG" of=/dev/null bs=4M count=4 iflag=direct 2>/dev/null # read-ahead workers, OpenMP
    cat "$BIG" > /dev/null
    unmount "$M"
    wait $SPID
    first=$(awk 'NR == 1 { print $1 }' "$TMP/clone.log")
    check "threads start after the fork (strace)" \
        sh -c "! grep -E '^$first +clone3?\\(.*CLONE_THREAD' '$TMP/clone.log'"
    check "the daemon does start threads (strace saw them)" grep -q CLONE_THREAD "$TMP/clone.log"
else
    echo "strace not installed: thread-start check skipped"
fi

# --- read-ahead off: no read-ahead counters move
mount_model "$M" -o readahead=0 "$TMP/big.gguf" || exit 1
cat "$BIG" > /dev/null
check "readahead=0 queues nothing" test "$(stat_of "$M" readahead_pages_queued)" -eq 0
unmount "$M"

finish 20_cache
