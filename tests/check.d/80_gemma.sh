#!/bin/bash
# A real trained model end to end (issue 34, check 6): Gemma 3 270M Q4_K_M from PyPI
# (tests/pyenv.sh gemma), judged by the real llama.cpp (tests/peer/llama.py: libllama
# through ctypes, one thread), transformers and numpy on ggml's dequantization, in one
# Python process (tests/check_gemma.py):
#  - summary and summary.json: parameters, context, layers, heads, KV heads, embedding,
#    vocabulary, tensor bytes and the KV cache (per 1000 tokens of the full-attention
#    layers, and the sliding-window layers' own) are what llama.cpp reports for the file;
#  - 32 tokens of greedy continuation from MOUNT/model.gguf are the file's, logits bit
#    for bit; from as/f32, bf16 and q8_0 the tokens that agree and the logits' cosine
#    are printed (figures, not thresholds);
#  - transformers on as/hf/ (float32) picks llama.cpp's next token (as/f32.gguf) at
#    every position of a 64-token text, logits close; AutoTokenizer tokenizes the texts
#    and a chat (apply_chat_template against llama_chat_apply_template) as llama.cpp;
#  - generation_config.json's eos_token_id is the set llama.cpp ends generation at
#    (llama_vocab_is_eog: <eos>, <end_of_turn>, </s>); generate() continues the chat as
#    llama.cpp's greedy generation does (this base model ends no turn within 32 tokens),
#    and with each of those tokens forced at one step stops right after it, as llama.cpp
#    would (<start_of_turn> forced: it goes on);
#  - vs/ between the model and its Q8_0 copy made by llama-quantize
#    (llama_model_quantize) is what numpy computes from ggml's dequantization of both.
# A missing peer or model fails the suite, naming it.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
G=$(tests/pyenv.sh gemma) || { fail "the real model (tests/pyenv.sh gemma): run tests/deps.sh"; finish 80_gemma; exit 1; }
LIB=tests/peer/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libllama.v0.4.0.so
[ -f "$LIB" ] || { fail "llama.cpp's $LIB (npm node-llama-cpp): run tests/deps.sh"; finish 80_gemma; exit 1; }

mkdir -p "$TMP/models"
ln -s "$G" "$TMP/models/gemma.gguf"
t0=$(date +%s)
check "llama-quantize makes a Q8_0 copy" $PY tests/check_gemma.py q8 "$G" "$TMP/q8.gguf"
mv "$TMP/q8.gguf" "$TMP/models/gemma-q8_0.gguf"
echo "  (Q8_0 copy: $(( $(date +%s) - t0 )) s)"
mount_model "$TMP/m" "$TMP/models"
check "the mount has both models" [ -d "$TMP/m/gemma/as/hf" -a -d "$TMP/m/gemma-q8_0/vs/gemma" ]
check "llama.cpp, transformers and numpy agree with the mount" \
    $PY tests/check_gemma.py all "$TMP/m" gemma gemma-q8_0 "$G" "$TMP/models/gemma-q8_0.gguf"
unmount "$TMP/m"
finish 80_gemma
