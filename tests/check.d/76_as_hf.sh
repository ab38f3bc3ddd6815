#!/bin/bash
# as/hf/: every model as a Hugging Face folder (issue 21), checked against the real
# llama.cpp and Hugging Face's own tokenizer (tests/peer), never against gguffs itself:
#  - weights: a tiny random model of every supported architecture (tests/peer/mkhf.py);
#    model.safetensors: exactly the names and shapes the class loads, each tensor the
#    GGUF tensor's f32 view rearranged, f16 / bf16 the f32 values rounded (the gemma
#    norms' shift included); transformers itself loads them and computes llama.cpp's
#    figures in 83_transformers;
#  - config.json and generation_config.json against the GGUF keys; generation_config.json's
#    eos_token_id is the set of tokens llama.cpp ends generation at (llama_vocab_is_eog
#    over the vocabulary, tests/peer/llama.py) for the tiny models and for llamas of the
#    real vocabularies and of made-up ones that meet llama.cpp's other rules;
#  - tokenizers: tokenizers.js, the Rust tokenizers library (Tokenizer.from_file) and
#    transformers' AutoTokenizer on as/hf/ give llama.cpp's ids for the real vocabularies
#    (SentencePiece, byte-level BPE under many tokenizer.ggml.pre values, WordPiece) on
#    texts chosen to differ (unicode, spaces, code, emoji, digits, special token
#    look-alikes, U+2581 and other pieces' spellings, empty), also with the special tokens
#    added, and for two made-up vocabularies where llama.cpp turns <|end|> and </s> back
#    into a user-defined and a normal token; for BERT text holding U+2581, the ids of the original BERT tokenizer
#    (transformers' BertTokenizer and BertTokenizerLegacy on the GGUF's WordPiece vocab),
#    which llama.cpp does not give for 'a\u2581b' (README);
#  - what is left out: other architectures, unknown or undecodable or missing tensors,
#    rope scaling config.json cannot carry: no weights, and why says so; a vocabulary
#    file gets the tokenizer files alone.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
CH="$PY tests/check_hf.py"
PEER=tests/peer
M=$TMP/m V=$TMP/v
mkdir -p "$M" "$V" "$TMP/out"
nl2sp() { tr '\n' ' '; }

t0=$(date +%s)
check "the models and vocabularies are made" $CH models "$M"
check "the vocabularies" $CH vocabs "$V"
echo "  (made in $(( $(date +%s) - t0 )) s)"

ARCHS="llama llama-bias llama3 llama3-ctx64 mistral mixtral qwen2 qwen3 qwen2moe qwen3moe gemma gemma2 gemma3 phi3 phi3-long"
WEIGHTS="config.json generation_config.json model.safetensors special_tokens_map.json tokenizer.json tokenizer_config.json"
TOKFILES="special_tokens_map.json tokenizer.json tokenizer_config.json"

mount_model "$TMP/f32" "$M"
F=$TMP/f32
# ---- listing, stat and config.json read no tensor data
stats() { echo $(( $(stat_of "$F" bytes_decoded) + $(stat_of "$F" f32_passthrough_reads) + $(stat_of "$F" page_reads) )); }
before=$(stats)
for a in $ARCHS; do
    check "$a: as/hf/ holds the weights, config and tokenizer files" [ "$(ls "$F/$a/as/hf" | nl2sp)" = "$WEIGHTS " ]
    ls -l "$F/$a/as/hf" >/dev/null
    cat "$F/$a/as/hf/config.json" >/dev/null
done
check "ls -l of as/hf/ and config.json read no tensor data ($before -> $(stats))" [ "$before" = "$(stats)" ]
check "as/ holds hf/" [ -d "$F/llama/as/hf" ]

# ---- config.json, the safetensors names, its values the GGUF tensors' views rearranged
check "config.json, generation_config.json, model.safetensors' names" $CH configs "$F" "$M" f32 $ARCHS
EOG="$ARCHS $(cd "$M" && ls eog-*.gguf | sed 's/\.gguf$//' | nl2sp)"
check "generation_config.json's eos_token_id: the tokens llama.cpp ends generation at" $CH eog "$F" "$M" $EOG
for a in llama-quant qwen3moe-q8; do
    check "$a: as/hf/ holds the weights, config and tokenizer files" [ "$(ls "$F/$a/as/hf" | nl2sp)" = "$WEIGHTS " ]
done
check "model.safetensors is the tensors' f32 views rearranged, bit for bit (quantized ones too)" \
    $CH views "$F" "$M" $ARCHS llama-quant qwen3moe-q8

# ---- f16 and bf16: the f32 values rounded (gemma3: its norms shifted first)
for dt in f16 bf16; do
    mount_model "$TMP/$dt" -o safetensors_dtype=$dt "$M"
    check "model.safetensors in $dt is its f32 rounded" $CH dtypes "$F" "$TMP/$dt" $dt llama-bias gemma3 qwen2moe
    check "config.json says $dt" $CH configs "$TMP/$dt" "$M" $dt llama-bias gemma3 qwen2moe
    unmount "$TMP/$dt"
done

# ---- what is left out, and why
check "another architecture: the tokenizer files and why" \
    [ "$(ls "$F/starcoder2/as/hf" | nl2sp)" = "$TOKFILES why " ]
check "... why names the architecture" grep -q '^architecture "starcoder2": as/hf/ knows llama, ' "$F/starcoder2/as/hf/why"
check "unknown tensors: no weights" [ "$(ls "$F/llama-extra/as/hf" | nl2sp)" = "$TOKFILES why " ]
check "... why names each" sh -c "grep -q '^blk.0.attn_sinks.weight has no Hugging Face name in LlamaForCausalLM' '$F/llama-extra/as/hf/why' &&
    grep -q '^rope_freqs.weight: its factors are not those of llama 3' '$F/llama-extra/as/hf/why'"
check "an undecodable and a missing tensor: no weights" [ "$(ls "$F/llama-bad/as/hf" | nl2sp)" = "$TOKFILES why " ]
check "... why names both" sh -c "grep -q '^blk.0.attn_norm.weight cannot be decoded (unsupported type 250)' '$F/llama-bad/as/hf/why' &&
    grep -q '^blk.1.ffn_up.weight is missing' '$F/llama-bad/as/hf/why'"
check "... and does not call the undecodable one missing" sh -c "! grep -q '^blk.0.attn_norm.weight is missing' '$F/llama-bad/as/hf/why'"
check "yarn rope scaling: no weights" grep -q '^llama.rope.scaling.type is yarn' "$F/llama-yarn/as/hf/why"
check "more layers than llama.cpp takes: no weights, and why names the key and the bound" \
    grep -qx "llama.block_count is 513: from 1 to 512 layers (llama.cpp's bound)" "$F/llama-deep/as/hf/why"
check "more key/value heads than heads: why says so, and only that" sh -c "[ \"\$(tail -n +2 '$F/llama-kvheads/as/hf/why')\" = \
    'llama.attention.head_count_kv 4 is more than attention.head_count 3: a key/value head serves one or more query heads' ]"
check "a vocabulary of 2^22 + 1 tokens: only why" [ "$(ls "$F/vocab-huge/as/hf" | nl2sp)" = "why " ]
check "... which says so" grep -q '^tokenizer.ggml.tokens has 4194305 tokens (as/hf/ writes at most 4194304)' \
    "$F/vocab-huge/as/hf/why"
check "a supported model has no why" [ ! -e "$F/llama/as/hf/why" ]
check "reading a missing model.safetensors fails cleanly" sh -c "! cat '$F/starcoder2/as/hf/model.safetensors' 2>/dev/null"
unmount "$F"

# ---- tokenizers: tokenizers.js against llama.cpp
$PY - "$TMP/texts.json" <<'PY'
import json, sys
texts = [
    "", " ", "  ", "\n", "Hello world", " Hello", "Hello  world   ", "\ttabs\tand\nnewlines\n\n\r\n",
    "I'm you're we'll they've he'd it's DON'T Y'ALL", "naïve café résumé Ωμέγα Привет мир",
    "日本語のテキスト 中文文本 한국어 텍스트", "ثم عربي", "हिन्दी भाषा", "ไทย", "İstanbul ǅemal ß ﬁ Å Å",
    "e\u0301 a\u0300\u0301 \u200b zero\u200dwidth \u00a0nbsp \u3000ideographic", "\x07bell\x1b[0m",
    "emoji 😀🎉👨\u200d👩\u200d👧 🇫🇷 ❤️", "digits 0 7 42 1234567890 3.14159 1,000,000 " + "9" * 40,
    "def f(x):\n    return x**2  # comment\n\tif (a && b) { c = d->e; } // done",
    "<s>special</s> <unk> <s><s> </s>x <unk", "<|endoftext|> <|im_start|>user\nhi<|im_end|>",
    "<|user|>\nhello<|end|>\n<|assistant|>", "[CLS] a [SEP] b [MASK] [PAD] [UNK]x",
    "<|return|><|call|><|end|></s><|tool_response>[PAD]<|fim_repo|> x <|file_sep|>",
    "mixedCASEwords HTTPServer iPhone camelCaseX", "....!!!???  --- ___ ***", "Hello,world.Hello;world:again",
    "ａｂｃ ＡＢＣ １２３", "a" * 150, "x",
    # what a SentencePiece-, byte-level- or WordPiece-aware step may treat specially: U+2581
    # (SentencePiece's space) inside, before and after words, alone and doubled, next to
    # spaces and special tokens; byte-level BPE's space and newline stand-ins; byte-fallback
    # and continuation pieces' spellings; a BOM, U+FFFD, an end-of-word marker
    "a\u2581b", "\u2581a", "a\u2581", "\u2581", "\u2581\u2581x", " \u2581 ", "hello\u2581world again",
    "x \u2581 y\u2581\u2581z", "<s>\u2581</s>\u2581<unk>", "\u2581\u2582\u2583 \uff3f",
    "\u0120hello \u0120\u0120x \u010aline \u00c4\u0142", "<0x41><0x0A> <0xFF>", "##ing a ##b ##",
    "\ufeffbom\ufeff \ufffd a\ufffdb", "word</w> low</w>er",
]
json.dump(texts, open(sys.argv[1], "w"))
PY
mount_model "$TMP/v.m" "$V"
VM=$TMP/v.m
ll="" hf="" py=""
for g in "$V"/*.gguf; do
    n=$(basename "$g" .gguf)
    check "$n: a vocabulary file gets the tokenizer files alone" [ "$(ls "$VM/$n/as/hf" | nl2sp)" = "$TOKFILES " ]
    ll="$ll $g:$TMP/out/$n.ll.json"
    hf="$hf $VM/$n/as/hf:$TMP/out/$n.hf.json"
    py="$py $VM/$n/as/hf:$TMP/out/$n.py.json"
done
BERT=ggml-vocab-bert-bge
t0=$(date +%s)
check "llama.cpp tokenizes the texts" node $PEER/embed.mjs tokenize-all "$TMP/texts.json" $ll
check "tokenizers.js tokenizes the texts" node $PEER/hftok.mjs "$TMP/texts.json" $hf
echo "  (llama.cpp and tokenizers.js: $(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
check "the tokenizers library, AutoTokenizer and the original BERT tokenizer tokenize the texts" \
    $PY $PEER/hftok.py "$TMP/texts.json" $py "$V/$BERT.gguf:$TMP/out/$BERT.orig.json"
echo "  (tokenizers and transformers: $(( $(date +%s) - t0 )) s)"
check "tokenizers.js, tokenizers and AutoTokenizer give llama.cpp's ids (U+2581 in BERT: the original's)" \
    $CH tokens "$TMP/texts.json" "$TMP/out" "$V"/*.gguf
unmount "$VM"

finish 76_as_hf
