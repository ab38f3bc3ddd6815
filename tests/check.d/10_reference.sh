#!/bin/bash
# Every reference tensor through a real mount, on every SIMD path this CPU
# has; every metadata value of the reference and real vocabulary files.
. "$(dirname "$0")/../lib.sh"

M=$TMP/m
F=$DATA/forks
C=$F/stq1_0-consecutive

isas="scalar"
for isa in avx2 avx512; do
    "$GGUFFS" --version | grep -q "^simd paths:.* $isa" && isas="$isas $isa"
done
echo "SIMD paths: $isas"

for isa in $isas; do
    full=""
    [ "$isa" = scalar ] || full=--f32-only
    opt="-o simd=$isa"
    mount_model "$M" $opt "$DATA/mainline/mainline.gguf" &&
        check "mainline tensors ($isa)" $PY tests/check_tensors.py $full "$M" "$DATA/mainline/manifest.tsv" "$DATA/mainline/mainline.gguf"
    [ -z "$full" ] && check "mainline metadata" $PY tests/check_kv.py "$M" "$DATA/mainline/kv.json"
    unmount "$M"
    mount_model "$M" $opt "$DATA/ik/ik.gguf" &&
        check "ik tensors ($isa)" $PY tests/check_tensors.py $full "$M" "$DATA/ik/manifest.tsv" "$DATA/ik/ik.gguf"
    unmount "$M"
    for f in stq1_0-id43 stq1_0-id42 prism forks-rawbytes; do
        mount_model "$M" $opt "$F/$f.gguf" &&
            check "$f ($isa)" $PY tests/check_tensors.py $full --file "$f.gguf" "$M" "$F/manifest.tsv" "$F/$f.gguf"
        unmount "$M"
    done
    for f in stq1_0-id43 stq1_0-id42 forks-rawbytes; do
        mount_model "$M" $opt -o stq1_0_order=consecutive "$C/$f.gguf" &&
            check "consecutive $f ($isa)" $PY tests/check_tensors.py $full --file "$f.gguf" "$M" "$C/manifest.tsv" "$C/$f.gguf"
        unmount "$M"
    done
done

# Real vocabulary files written by llama.cpp's converters.
for v in ggml-vocab-gpt-2 ggml-vocab-llama-spm ggml-vocab-bert-bge; do
    gzip -dc "$DATA/real/$v.gguf.gz" > "$TMP/$v.gguf"
    mount_model "$M" "$TMP/$v.gguf" &&
        check "$v metadata" $PY tests/check_kv.py "$M" "$DATA/real/$v.kv.json.gz"
    unmount "$M"
done
finish 10_reference
