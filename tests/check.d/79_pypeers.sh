#!/bin/bash
# A mount judged by PyPI's own readers, the pinned peers of tests/pyenv.sh (issue 34),
# the real ggml deciding where they and ggml disagree (tests/check_pypeers.py says how):
#  - gguf-py (llama.cpp's gguf 0.19.0): gguf.quants.dequantize of every reference tensor
#    of a type it decodes (mainline and ik_llama.cpp sets) is the reference and the mount's
#    f32, bit for bit; on random bytes of each such type the mount's f32 is ggml's to_float
#    and gguf-py's is too but for the bits of NaNs (named); GGUFReader opens model.gguf and
#    every as/*.gguf: keys, tensor names, dims, types, offsets and data are the mount's
#    (metadata/, metadata.json, tensors.tsv, info.json, raw, f32, f16, bf16; as/q8_0.gguf
#    gguf-py's own Q8_0 of f32); a type it does not know (IQ3_KS) fails gguf-py, not gguffs;
#  - safetensors: safe_open, framework="pt" and "numpy", on model.safetensors and
#    as/hf/model.safetensors (f32, f16, bf16): every tensor its f32.npy (as/hf: rearranged),
#    f16 or bf16 file, and the metadata.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
CP="$PY tests/check_pypeers.py"
D=$TMP/models
mkdir -p "$D"
check "the models are made" $CP make "$D"
MODELS="$DATA/mainline/mainline.gguf $DATA/ik/ik.gguf $DATA/forks/prism.gguf $DATA/forks/stq1_0-id43.gguf
    $D/known.gguf $D/random.gguf $D/iq3_ks.gguf $D/llama.gguf $D/gemma3.gguf $D/qwen3moe.gguf"
M=$TMP/m
mount_model "$M" $MODELS || fail "mount"
t0=$(date +%s%N)
check "gguf-py agrees" $CP gguf "$M" "$D"
echo "  (gguf-py: $(( ($(date +%s%N) - t0) / 1000000 )) ms)"
mount_model "$TMP/f16" $MODELS -o safetensors_dtype=f16 || fail "mount (f16)"
mount_model "$TMP/bf16" $MODELS -o safetensors_dtype=bf16 || fail "mount (bf16)"
t0=$(date +%s%N)
check "safetensors agrees" $CP safetensors "$M" "$TMP/f16" "$TMP/bf16" "$D"
echo "  (safetensors: $(( ($(date +%s%N) - t0) / 1000000 )) ms)"
for m in "$M" "$TMP/f16" "$TMP/bf16"; do unmount "$m"; done
finish 79_pypeers
