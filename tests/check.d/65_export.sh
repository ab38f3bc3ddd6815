#!/bin/bash
# Export formats: tensors/<name>/f16, bf16, f32.npy, f16.npy and
# model.safetensors, checked from the format texts by tests/check_export.py
# (its own .npy and safetensors readers), against numpy (f16), a bit-level
# reference (bf16), numpy.memmap and torch (the pinned peers, tests/pyenv.sh); the odd cases
# (names, 0-element and undecodable tensors, hostile metadata); and that
# nothing is decoded to list the files or read their headers.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
M=$TMP/m
BUILD=${BUILD:-build}
CE=tests/check_export.py

# ce MODE ARGS...: a check_export.py mode (it prints its own counts; a failure
# also fails here, once)
ce() {
    local t0=$(date +%s%N)
    "$PY" "$CE" "$@" || fail "check_export.py $1 ${2:-}"
    echo "  ($1: $(( ($(date +%s%N) - t0) / 1000000 )) ms)"
}
size() { stat -c %s "$1"; }

check "torch importable (tests/pyenv.sh)" "$PY" -c "import torch"

# --- 1. the conversions against numpy, every pattern of chosen ranges, both paths
ce halfconv "$BUILD/tests/test_halfconv"

# --- 2. every reference tensor: .npy, f16, bf16, safetensors, numpy and torch
MAIN=$TOP/tests/data/mainline/mainline.gguf
IK=$TOP/tests/data/ik/ik.gguf
mount_model "$M" "$MAIN"
ce tensors "$M" tests/data/mainline/manifest.tsv "$MAIN" --torch
t=$M/tensors/Q4_K
check "f16 and bf16 are half of f32" [ "$(size $t/f16)" = $(( $(size $t/f32) / 2 )) -a "$(size $t/bf16)" = "$(size $t/f16)" ]
check "f32.npy is a 128-byte preamble and f32" [ "$(size $t/f32.npy)" = $(( $(size $t/f32) + 128 )) ]
check "f32.npy ends with exactly f32" cmp -s <(tail -c +129 $t/f32.npy) $t/f32
check "f16.npy ends with exactly f16" cmp -s <(tail -c +129 $t/f16.npy) $t/f16
check "ls -l of a tensor folder lists the new files" \
    [ "$(ls $t | tr '\n' ' ')" = "bf16 f16 f16.npy f32 f32.npy info.json raw stats " ]
check "model.safetensors at the root" [ -f "$M/model.safetensors" ]
check "xattrs on f16 name the tensor" sh -c "getfattr -n user.gguf.type --only-values '$t/f16' | grep -qx Q4_K"
unmount "$M"
mount_model "$M" "$IK"
ce tensors "$M" tests/data/ik/manifest.tsv "$IK"
unmount "$M"
# model.safetensors in the other dtypes equals the f16 / bf16 files
mount_model "$M" "$MAIN" -o safetensors_dtype=bf16
ce tensors "$M" tests/data/mainline/manifest.tsv "$MAIN" --dtype bf16 --torch
unmount "$M"
mount_model "$M" "$MAIN" -o safetensors_dtype=f16
ce tensors "$M" tests/data/mainline/manifest.tsv "$MAIN" --dtype f16
unmount "$M"

# --- 3. reads at any offset and length (direct_io, and O_DIRECT for the files
# loaders map: each pread reaches gguffs as made)
mount_model "$M" "$MAIN" -o direct_io
ce preads "$M/model.safetensors" "$M/tensors/Q4_K/f16" "$M/tensors/Q4_K/bf16" "$M/tensors/IQ2_XXS/f32.npy" \
    "$M/tensors/rand.MXFP4/f16.npy" "$M/tensors/output_norm.weight/bf16"
unmount "$M"
# eight readers at once, three passes each, on a fresh mount with a 64 KiB
# cache of 4 KiB pages (evictions, waits on pages others decode), agree with
# one reader alone
FILES="model.safetensors tensors/Q4_K/f16 tensors/IQ4_XS/bf16 tensors/Q6_K/f16.npy"
mount_model "$M" "$MAIN" -o direct_io
(cd "$M" && md5sum $FILES) > "$TMP/md5.0"
unmount "$M"
mount_model "$M" "$MAIN" -o cache_size=64K,page_size=4K,direct_io
for i in 1 2 3 4 5 6 7 8; do (cd "$M" && for k in 1 2 3; do md5sum $FILES; done) > "$TMP/md5.$i" & done
wait
check "eight concurrent readers under a 64 KiB cache agree with one (evictions: $(stat_of "$M" cache_evictions))" \
    [ "$(sort -u "$TMP"/md5.[1-8] | tr '\n' ' ')" = "$(sort "$TMP/md5.0" | tr '\n' ' ')" ]
unmount "$M"

# --- 4. odd names, 0-element and undecodable tensors, odd metadata; every dtype
ce make-odd "$TMP/odd.gguf"
for dt in f32 f16 bf16; do
    mount_model "$M" "$TMP/odd.gguf" -o safetensors_dtype=$dt
    ce odd "$M" "$TMP/odd.gguf" --dtype $dt
    unmount "$M"
done
mount_model "$M" "$TMP/odd.gguf"
check "undecodable tensor: raw and info.json only" [ "$(ls "$M/tensors/odd" | xargs)" = "info.json raw" ]
check "undecodable tensor: no f16, bf16, f32.npy, f16.npy (ENOENT)" "$PY" -c "
import errno
for f in ('f16', 'bf16', 'f32.npy', 'f16.npy'):
    try:
        open('$M/tensors/odd/' + f, 'rb').read(); raise SystemExit(f + ' read')
    except OSError as e:
        assert e.errno == errno.ENOENT, (f, e)"
check "0-element tensor: f16 and bf16 empty, f32.npy only a preamble" \
    [ "$(size $M/tensors/empty/f16)$(size $M/tensors/empty/bf16)$(size $M/tensors/empty/f32.npy)" = 00128 ]
unmount "$M"

# --- 5. bit patterns through the mount (F32 passthrough, F16 round trip), both paths
ce make-patterns "$TMP/pat.gguf"
for simd in scalar avx2; do
    grep -qw avx2 /proc/cpuinfo || [ $simd = scalar ] || continue
    mount_model "$M" "$TMP/pat.gguf" -o simd=$simd
    ce patterns "$M" "$TMP/pat.gguf"
    unmount "$M"
done

# --- 6. lazy: 64 tensors of 64 MiB of f32 (a sparse file); ls -l and every
# header cost no decoding (O_DIRECT: the reads reach gguffs as asked, without
# the kernel's read-ahead; -o direct_io leaves the files loaders map in the
# page cache)
ce make-sparse "$TMP/big.gguf" 64 4096 4096
mount_model "$M" "$TMP/big.gguf" -o direct_io
ls -l "$M" "$M"/tensors/*/ > /dev/null
check "big: model.safetensors is 8 + header + 4 GiB" "$PY" -c "
import os, struct
p = '$M/model.safetensors'
n = struct.unpack('<Q', os.pread(os.open(p, os.O_RDONLY | os.O_DIRECT), 8, 0))[0]
assert os.path.getsize(p) == 8 + n + (64 << 26), (os.path.getsize(p), n)"
"$PY" - "$M" > "$TMP/hdr.out" <<'PY'
import json, os, struct, sys
m = sys.argv[1]
# unbuffered, O_DIRECT: a buffered file reads st_blksize (1 MiB) at once, past
# the header, and the page cache reads ahead
def direct(p):
    return open(os.open(p, os.O_RDONLY | os.O_DIRECT), "rb", buffering=0)
with direct(m + "/model.safetensors") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    h = json.loads(f.read(n))
for d in os.listdir(m + "/tensors"):
    for npy in ("f32.npy", "f16.npy"):
        with direct(f"{m}/tensors/{d}/{npy}") as f:
            pre = f.read(10)
            f.read(struct.unpack_from("<H", pre, 8)[0])
print(len(h) - 1, "tensors in the header")
PY
check "big: the header lists 64 tensors" grep -q "^64 tensors in the header" "$TMP/hdr.out"
check "big: ls -l and every header decoded nothing (bytes_decoded $(stat_of "$M" bytes_decoded))" \
    [ "$(stat_of "$M" bytes_decoded)" = 0 -a "$(stat_of "$M" page_reads)" = 0 ]
dd if="$M/tensors/blk.7.w/f16.npy" bs=4096 skip=100 count=1 status=none of=/dev/null
check "big: a data read does decode (so the check above can fail)" [ "$(stat_of "$M" bytes_decoded)" != 0 ]
unmount "$M"
# without direct_io the kernel reads ahead of the header: bounded, not the model
mount_model "$M" "$TMP/big.gguf"
ls -l "$M" "$M"/tensors/*/ > /dev/null
head -c 4096 "$M/model.safetensors" > /dev/null
dec=$(stat_of "$M" bytes_decoded)
check "big: the header through the page cache decodes $dec bytes, under 16 MiB of 4 GiB" [ "$dec" -lt $((16 << 20)) ]
unmount "$M"

# --- 7. hostile metadata: a string of 18 MiB of control bytes (108 MiB as JSON)
"$PY" -c "
import sys, struct; sys.path.insert(0, 'tests'); import gguf_tool as g
g.write('$TMP/blob.gguf', kvs=[('general.architecture', g.STR, 'llama'), ('blob', g.STR, b'\x01' * (18 << 20)),
        ('after', g.STR, 'kept')], tensors=[('a', [4], 0, struct.pack('<4f', 1, 2, 3, 4))])"
mount_model "$M" "$TMP/blob.gguf"
check "hostile metadata: model.safetensors can be listed" ls -l "$M/model.safetensors"
check "hostile metadata: the string is left out, the rest kept" "$PY" -c "
import json, struct
f = open('$M/model.safetensors', 'rb'); n = struct.unpack('<Q', f.read(8))[0]
assert n < 100_000_000, n
meta = json.loads(f.read(n))['__metadata__']
assert 'blob' not in meta and meta['after'] == 'kept' and meta['general.architecture'] == 'llama', meta"
unmount "$M"

# --- 8. several models: one model.safetensors each, naming its source
mount_model "$M" "$MAIN" "$IK"
check "several models: each folder has its model.safetensors" "$PY" -c "
import json, struct
for d, src, nt in (('mainline', '$MAIN', 72), ('ik', '$IK', 73)):
    f = open('$M/' + d + '/model.safetensors', 'rb'); n = struct.unpack('<Q', f.read(8))[0]
    h = json.loads(f.read(n))
    assert h['__metadata__']['gguffs.source'] == src and len(h) == nt + 1, (d, len(h))"
unmount "$M"

# --- 9. a model changed while mounted: the new files fail with ESTALE too
cp "$TMP/odd.gguf" "$TMP/changing.gguf"
mount_model "$M" "$TMP/changing.gguf"
touch -d '2001-01-01' "$TMP/changing.gguf"
check "changed model: f16, bf16, f32.npy and model.safetensors fail with ESTALE" "$PY" -c "
import errno
for f in ('tensors/a/f16', 'tensors/a/bf16', 'tensors/a/f32.npy', 'model.safetensors'):
    try:
        open('$M/' + f, 'rb').read(); raise SystemExit(f + ' read')
    except OSError as e:
        assert e.errno == errno.ESTALE, (f, e)"
unmount "$M"

# --- 10. the option
"$GGUFFS" -o safetensors_dtype=f64 "$MAIN" "$M" 2> "$TMP/err"
rc=$?
check "safetensors_dtype=f64: exit 2" [ $rc = 2 ]
check "safetensors_dtype=f64: the message names the values" grep -q "safetensors_dtype=f64: expected f32, f16 or bf16" "$TMP/err"
check "--help lists safetensors_dtype" sh -c "'$GGUFFS' --help | grep -q 'safetensors_dtype=.*bf16'"
check "the man page lists the new files and the option" sh -c \
    "for w in f16.npy bf16 f32.npy model.safetensors safetensors_dtype; do grep -q \"\$w\" man/gguffs.1 || exit 1; done"

finish 65_export
