#!/bin/bash
# as/hf/ judged by transformers itself (issue 34; the pinned peers of tests/pyenv.sh, the
# version in tests/check_transformers.py's first line of output), against the real
# llama.cpp (tests/peer/embed.mjs, one thread, float32 KV cache), never against gguffs:
#  - the 15 variants as/hf/ supports (tests/peer/mkhf.py): AutoConfig,
#    AutoModelForCausalLM (float32) and AutoTokenizer load with no word about missing,
#    unexpected, mismatched or newly initialised weights and no other warning but the
#    one allowed (phi-3's longrope asks for a factor key); the last hidden state at each
#    of 16 positions is llama.cpp's embedding of that prefix of as/f32.gguf within float32
#    rounding, and the top token and the 8 best at every position are llama.cpp's (gemma:
#    with ggml's float16-table GELU in transformers' place; transformers' own GELU within
#    1e-3); broken weights (q/k rows in llama.cpp's rope order, gemma's norms still shifted)
#    are far off, and a folder with a tensor missing and one too many gets transformers'
#    load report, so both comparisons can fail; llama 3's rope frequencies are
#    llama.cpp's rope_freqs;
#  - transformers' own GGUF loader (from_pretrained(gguf_file=)) on the same 15 with a
#    vocabulary of 512 tokens: what it makes of each (the same model, another computation,
#    a refusal) and why, from its config; with as/hf/'s config.json given, every tensor it
#    loads is as/hf/'s, bit for bit;
#  - llamas whose weights are the reference sets' blocks (every type gguf-py decodes; Q1_0
#    and Q2_0, which it does not; ik_llama.cpp's 48 types): as/hf/ holds ggml's and the
#    fork's own values bit for bit, loads and computes llama.cpp's figures; the GGUF loader
#    agrees bit for bit on the first and refuses the others.
# tests/hf_forward.py, our own numpy forward pass, is gone: transformers does its job,
# its negative controls included.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
CT=tests/check_transformers.py
M=$TMP/m OUT=$TMP/out
mkdir -p "$M" "$OUT"
ARCHS="llama llama-bias llama3 llama3-ctx64 mistral mixtral qwen2 qwen3 qwen2moe qwen3moe gemma gemma2 gemma3 phi3 phi3-long"
REFS="mainline q1_0 q2_0 ik"
# the text of 76_as_hf (llama-spm ids), and one within a vocabulary of 512 tokens
IDS=1,15043,3186,29871,263,1243,310,278,17251,29892,1472,13,1576,29871,29896,29906
SMALL_IDS=1,300,301,302,259,400,401,260,511,3,4,5,310,320,330,340

t0=$(date +%s)
check "the models are made" "$PY" $CT models "$M"
mount_model "$TMP/mnt" "$M"
F=$TMP/mnt
echo "  (made and mounted in $(( $(date +%s) - t0 )) s)"

t0=$(date +%s)
jobs=""
for a in $ARCHS; do jobs="$jobs steps:$F/$a/as/f32.gguf:$OUT/$a"; done
check "llama.cpp runs as/f32.gguf of every variant" \
    env EMBED_FA=0 EMBED_KV=F32 node tests/peer/embed.mjs batch "ids:$IDS" $jobs
jobs=""
for r in $REFS; do jobs="$jobs steps:$F/ref-$r/as/f32.gguf:$OUT/ref-$r"; done
check "llama.cpp runs as/f32.gguf of the reference llamas" \
    env EMBED_FA=0 EMBED_KV=F32 node tests/peer/embed.mjs batch "ids:$SMALL_IDS" $jobs
echo "  (llama.cpp: $(( $(date +%s) - t0 )) s)"

t0=$(date +%s)
check "transformers: as/hf/ loads and computes llama.cpp's figures; its GGUF loader" \
    "$PY" $CT judge "$M" "$F" "$OUT" $IDS $SMALL_IDS
echo "  (transformers: $(( $(date +%s) - t0 )) s)"
unmount "$F"

finish 83_transformers
