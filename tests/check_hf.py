#!/usr/bin/python3
"""check_hf.py - checks of as/hf/ (tests/check.d/76_as_hf.sh), each computing what it
expects from the GGUF file itself (tests/peer/mkllama.py's reader), never from gguffs.

  check_hf.py models DIR               the tiny models of every supported architecture
                                       (tests/peer/mkhf.py) and the unsupported ones; llamas
                                       of the real vocabularies and of made-up ones (eog-*)
  check_hf.py vocabs DIR               the real vocabularies of tests/data/real, and the
                                       gpt-2 one under other tokenizer.ggml.pre values
  check_hf.py eog MOUNT MODELS NAME... generation_config.json's eos_token_id of each is the
                                       set of tokens llama.cpp ends generation at
                                       (llama_vocab_is_eog)
  check_hf.py configs MOUNT MODELS DTYPE ARCH...   for MOUNT/ARCH/as/hf/ of MODELS/ARCH.gguf:
                                       config.json and generation_config.json against the GGUF
                                       keys, as transformers' classes name them (but eos: eog); with f32, the
                                       model.safetensors names and shapes the class loads (from
                                       mkhf's layout), nothing else
  check_hf.py views MOUNT MODELS ARCH...   model.safetensors (f32) of each is its GGUF tensors'
                                       f32.npy of the same mount, rearranged as the converter's
                                       inverse, bit for bit
  check_hf.py dtypes F32MOUNT MOUNT DTYPE ARCH...   every value of model.safetensors in DTYPE is
                                       the f32 one rounded to DTYPE
  check_hf.py tokens TEXTS OUT GGUF...  OUT/NAME.ll.json (llama.cpp) and the ids of tokenizers.js
                                       (OUT/NAME.hf.json, tests/peer/hftok.mjs), the Rust
                                       tokenizers and AutoTokenizer (OUT/NAME.py.json,
                                       tests/peer/hftok.py) agree on every text, and with the
                                       special tokens added as llama.cpp adds them for GGUF;
                                       U+2581 in BERT: the original tokenizer's (NAME.orig.json)
Each ends with "check_hf.py MODE: N passed, N failed".
"""
import functools
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peer"))
sys.path.insert(0, HERE)
import gguf_tool  # noqa: E402
import mkhf  # noqa: E402
from mkllama import ARR, BOOL, F32, I32, STR, U32, Tensor, read_gguf, set_kv, write_gguf  # noqa: E402
import checks  # noqa: E402
from checks import check as expect  # noqa: E402


# ---------------------------------------------------------------- models
def models(d):
    for a in mkhf.ARCHS:
        write_gguf(os.path.join(d, a + ".gguf"), *mkhf.make(a))
    eog_models(d)
    # quantized: a llama of several K- and i-quant types (rows of 256), and qwen3moe
    # with every 2-D and 3-D tensor in Q8_0 (each expert's slice starts on a block)
    import mkllama
    write_gguf(os.path.join(d, "llama-quant.gguf"),
               *mkllama.make_llama(types=["q4_K", "q6_K", "iq4_xs", "q5_0", "q8_0"], n_head=4, n_head_kv=2))
    write_gguf(os.path.join(d, "qwen3moe-q8.gguf"), *mkllama.convert_model(*mkhf.make("qwen3moe"), "q8_0"))
    kvs, ts = mkhf.make("llama")
    # another architecture: llama's keys and tensors under starcoder2's name
    other = [[k.replace("llama.", "starcoder2.", 1), t, v] for k, t, v in kvs]
    set_kv(other, "general.architecture", STR, "starcoder2")
    write_gguf(os.path.join(d, "starcoder2.gguf"), other, ts)
    # a tensor without a Hugging Face name, and llama3 rope factors
    extra = ts + [Tensor("blk.0.attn_sinks.weight", [4], "f32", np.zeros(4, np.float32).tobytes()),
                  Tensor("rope_freqs.weight", [8], "f32", np.arange(1, 9, dtype=np.float32)[::-1].copy().tobytes())]
    write_gguf(os.path.join(d, "llama-extra.gguf"), kvs, extra)
    # a tensor that cannot be decoded (type id 250) and a missing one
    p = os.path.join(d, "llama-bad.gguf")
    write_gguf(p, kvs, [t for t in ts if t.name != "blk.1.ffn_up.weight"])
    h = gguf_tool.read(p)
    t = next(t for t in h.tensors if t["name"] == b"blk.0.attn_norm.weight")
    with open(p, "r+b") as f:
        f.seek(t["type_field_offset"])
        f.write(struct.pack("<I", 250))
    # yarn rope scaling
    y = [list(kv) for kv in kvs]
    set_kv(y, "llama.rope.scaling.type", STR, "yarn")
    write_gguf(os.path.join(d, "llama-yarn.gguf"), y, ts)
    # more layers than llama.cpp takes (LIMITS.md)
    y = [list(kv) for kv in kvs]
    set_kv(y, "llama.block_count", U32, 513)
    write_gguf(os.path.join(d, "llama-deep.gguf"), y, ts)
    # more key/value heads than heads
    y = [list(kv) for kv in kvs]
    set_kv(y, "llama.attention.head_count", U32, 3)
    set_kv(y, "llama.attention.head_count_kv", U32, 4)
    write_gguf(os.path.join(d, "llama-kvheads.gguf"), y, ts)
    # a vocabulary of 2^22 + 1 one-byte tokens (LIMITS.md), written directly
    n = (1 << 22) + 1
    rec = np.zeros(n, dtype=[("len", "<u8"), ("c", "u1")])
    rec["len"], rec["c"] = 1, ord("a")
    key = lambda k: struct.pack("<Q", len(k)) + k
    head = (b"GGUF" + struct.pack("<IQQ", 3, 0, 3) + key(b"general.architecture") + struct.pack("<I", STR) +
            key(b"llama") + key(b"tokenizer.ggml.model") + struct.pack("<I", STR) + key(b"llama") +
            key(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, STR, n) + rec.tobytes())
    with open(os.path.join(d, "vocab-huge.gguf"), "wb") as f:
        f.write(head + b"\0" * (-len(head) % 32))


# the vocabularies whose tokens that end generation (llama_vocab_is_eog) as/hf/'s
# generation_config.json lists: the real ones, each on a llama small enough to be cheap,
# and made-up ones for llama.cpp's rules no real vocabulary here meets (EOT, EOM and
# fill-in-the-middle keys, an EOS key past the vocabulary, the tokens it drops again
# for gpt-oss, solar-open and gemma 4)
EOG_REAL = ["bert-bge", "gpt-2", "llama-spm", "phi-3"]
EOG_RULES = {
    # <|end|> dropped (<|return|> and <|call|>); EOS past the vocabulary: its default, 2;
    # EOT and EOM keys on normal tokens; the repo key wins over the repo text
    "eog-rules-harmony": (["<|return|>", "<|call|>", "<|end|>", "<|endoftext|>", "<|fim_repo|>", "x", "y", "z"],
                          {"eos_token_id": 999, "eot_token_id": "x", "eom_token_id": "y", "fim_rep_token_id": "z"}),
    # </s> dropped (<|tool_response>), <|end|> dropped (<|calls|> and <|flush|>); pad and
    # separator found by text, the pad key past the vocabulary
    "eog-rules-gemma4": (["<|tool_response>", "<|calls|>", "<|flush|>", "<|end|>", "[PAD]", "<|file_sep|>",
                          "<eos>", "<turn|>", "<end_of_turn>", "</s>"], {"fim_pad_token_id": 999}),
    # an EOS key on a normal token, a separator key; the text lists' look-alikes are not theirs
    "eog-rules-keys": (["<|im_end|>", "<|eot_id|>", "<|im_end|> ", "<EOS>", "[eot]", "q", "r"],
                       {"eos_token_id": "q", "fim_sep_token_id": "r"}),
}


def eog_vocab(path, extra, keys):
    """A small SentencePiece vocabulary: <unk> <s> <stop> (a text of no list: it ends
    generation as the default EOS only), the byte tokens, letters, then extra (normal
    tokens, llama.cpp's fixes alone make them special); keys {suffix of tokenizer.ggml.*:
    an id or a token's text}."""
    toks = ["<unk>", "<s>", "<stop>"] + ["<0x%02X>" % b for b in range(256)] + list("abcdefghijklmnop")
    toks += extra
    types = [2, 3, 3] + [6] * 256 + [1] * (len(toks) - 259)
    kvs = [["general.architecture", STR, "llama"], ["tokenizer.ggml.model", STR, "llama"],
           ["tokenizer.ggml.tokens", ARR, (STR, toks)],
           ["tokenizer.ggml.scores", ARR, (F32, np.arange(len(toks), dtype=np.float32) * -1)],
           ["tokenizer.ggml.token_type", ARR, (I32, np.array(types, np.int32))]]
    for k, v in keys.items():
        kvs.append(["tokenizer.ggml." + k, U32, toks.index(v) if isinstance(v, str) else v])
    write_gguf(path, kvs, [])


def eog_models(d):
    """The vocabularies of EOG_REAL and EOG_RULES, each on a llama of 8 dimensions."""
    import mkllama
    real = os.path.join(HERE, "data", "real")
    vocab = {n: os.path.join(real, "ggml-vocab-%s.gguf.gz" % n) for n in EOG_REAL}
    for n, (extra, keys) in EOG_RULES.items():
        vocab[n] = os.path.join(d, n + ".vocab")
        eog_vocab(vocab[n], extra, keys)
    for n, v in vocab.items():
        write_gguf(os.path.join(d, ("" if n.startswith("eog-") else "eog-") + n + ".gguf"),
                   *mkllama.make_llama(v, n_embd=8, n_layer=1, n_head=2, n_head_kv=1, n_ff=8, tied=True,
                                       name="eog-" + n))
        if v.endswith(".vocab"):
            os.remove(v)


def eog(mnt, models, names):
    """generation_config.json's eos_token_id of MOUNT/NAME/as/hf/ is the set of tokens
    llama.cpp ends generation at in MODELS/NAME.gguf (llama_vocab_is_eog over the whole
    vocabulary): one number when it is one token, a list otherwise, absent when none."""
    import llama
    L = llama.Llama()
    for n in names:
        m = L.load(os.path.join(models, n + ".gguf"), vocab_only=True)
        want = m.eog()
        texts = [m.detokenize([t]) for t in want]
        m.free()
        g = json.load(open(os.path.join(mnt, n, "as", "hf", "generation_config.json")))
        got = g.get("eos_token_id")
        shape = want[0] if len(want) == 1 else want if want else None
        expect(got == shape, "%s: generation_config.json eos_token_id %r, llama.cpp ends generation at %r" % (
            n, got, shape))
        print("  %s: llama.cpp ends at %s" % (n, ", ".join("%d %r" % x for x in zip(want, texts))))


def vocabs(d):
    real = os.path.join(HERE, "data", "real")
    for f in sorted(os.listdir(real)):
        if f.endswith(".gguf.gz"):
            write_gguf(os.path.join(d, f[:-3]), *read_gguf(os.path.join(real, f)))
    kvs, ts = read_gguf(os.path.join(real, "ggml-vocab-gpt-2.gguf.gz"))
    for pre in ["llama-bpe", "qwen2", "starcoder", "default", "gpt-4o", "deepseek-coder", "deepseek-v3",
                "poro-chat", "bailingmoe"]:
        k = [list(x) for x in kvs]
        set_kv(k, "tokenizer.ggml.pre", STR, pre)
        write_gguf(os.path.join(d, "gpt2-%s.gguf" % pre), k, ts)
    # the tokens llama.cpp makes user-defined (<|end|>) and normal (</s>) again
    for n in ("eog-rules-harmony", "eog-rules-gemma4"):
        eog_vocab(os.path.join(d, n + ".gguf"), *EOG_RULES[n])
    # SentencePiece without the leading space (gemma's converter writes it so)
    kvs, ts = read_gguf(os.path.join(real, "ggml-vocab-llama-spm.gguf.gz"))
    k = [list(x) for x in kvs]
    set_kv(k, "tokenizer.ggml.add_space_prefix", BOOL, False)
    write_gguf(os.path.join(d, "spm-noprefix.gguf"), k, ts)
    # a token holding a space: the merges must be written as pairs
    k = [list(x) for x in kvs]
    for key, extra in (("tokenizer.ggml.tokens", [" g", "in g"]), ("tokenizer.ggml.scores", [-1e9, -1e9]),
                       ("tokenizer.ggml.token_type", [1, 1])):
        kv = next(x for x in k if x[0] == key)
        at, v = kv[2]
        kv[2] = (at, list(v) + extra if at == STR else np.concatenate([v, np.array(extra, v.dtype)]))
    write_gguf(os.path.join(d, "spm-space.gguf"), k, ts)


# ---------------------------------------------------------------- config.json
@functools.lru_cache(maxsize=None)
def kvmap(path):
    """({key: value}, {tensor name: Tensor}) of a GGUF, read once (callers only read them)."""
    kvs, ts = read_gguf(path)
    return {k: v for k, t, v in kvs}, {t.name: t for t in ts}


def f32_eq(x, v):
    """x (a JSON number) reads back to the f32 value v."""
    return isinstance(x, (int, float)) and np.float32(x) == np.float32(v)


def config(hf, gguf, dtype):
    K, T = kvmap(gguf)
    a = K["general.architecture"]
    c = json.load(open(os.path.join(hf, "config.json")))
    g = json.load(open(os.path.join(hf, "generation_config.json")))
    moe = a + ".expert_count" in K
    mistral = "mistral" in K.get("general.name", "").lower()
    cls = {"llama": "MixtralForCausalLM" if moe else "MistralForCausalLM" if mistral else "LlamaForCausalLM",
           "qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM", "qwen2moe": "Qwen2MoeForCausalLM",
           "qwen3moe": "Qwen3MoeForCausalLM", "gemma": "GemmaForCausalLM", "gemma2": "Gemma2ForCausalLM",
           "gemma3": "Gemma3ForCausalLM", "phi3": "Phi3ForCausalLM"}[a]
    mt = {"LlamaForCausalLM": "llama", "MistralForCausalLM": "mistral", "MixtralForCausalLM": "mixtral",
          "Qwen2ForCausalLM": "qwen2", "Qwen3ForCausalLM": "qwen3", "Qwen2MoeForCausalLM": "qwen2_moe",
          "Qwen3MoeForCausalLM": "qwen3_moe", "GemmaForCausalLM": "gemma", "Gemma2ForCausalLM": "gemma2",
          "Gemma3ForCausalLM": "gemma3_text",
          "Phi3ForCausalLM": "phi3"}[cls]
    n_head = K[a + ".attention.head_count"]
    n_embd = K[a + ".embedding_length"]
    hd = K.get(a + ".attention.key_length", n_embd // n_head)
    want = {
        "architectures": [cls], "model_type": mt,
        "vocab_size": T["token_embd.weight"].ne[1], "hidden_size": n_embd,
        "num_hidden_layers": K[a + ".block_count"], "num_attention_heads": n_head,
        "num_key_value_heads": K.get(a + ".attention.head_count_kv", n_head), "head_dim": hd,
        "max_position_embeddings": K[a + ".context_length"],
        "tie_word_embeddings": "output.weight" not in T,
        "torch_dtype": {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}[dtype],
    }
    if "tokenizer.ggml.bos_token_id" in K:
        want["bos_token_id"] = K["tokenizer.ggml.bos_token_id"]
    if "tokenizer.ggml.eos_token_id" in K:
        want["eos_token_id"] = K["tokenizer.ggml.eos_token_id"]
    # null without a padding token, not the class's default (Phi3Config's 32000)
    want["pad_token_id"] = K.get("tokenizer.ggml.padding_token_id")
    if moe:
        e, u = K[a + ".expert_count"], K[a + ".expert_used_count"]
        if a == "llama":
            want.update(num_local_experts=e, num_experts_per_tok=u,
                        intermediate_size=T["blk.0.ffn_gate_exps.weight"].ne[1])
        else:
            want.update(num_experts=e, num_experts_per_tok=u,
                        moe_intermediate_size=K[a + ".expert_feed_forward_length"],
                        norm_topk_prob=a == "qwen3moe", decoder_sparse_step=1, mlp_only_layers=[])
        if a == "qwen2moe":
            want["shared_expert_intermediate_size"] = K[a + ".expert_shared_feed_forward_length"]
    else:
        want["intermediate_size"] = K[a + ".feed_forward_length"]
    if a in ("llama", "qwen3", "qwen3moe") and not moe and not mistral:
        want["attention_bias"] = "blk.0.attn_q.bias" in T
    gemma = a.startswith("gemma")
    want["hidden_act"] = "gelu_pytorch_tanh" if gemma else "silu"
    n_layer = K[a + ".block_count"]
    if gemma and a != "gemma":
        # llama.cpp: 1/sqrt(n_embd/n_head) for the 27B (46 / 62 layers), else 1/sqrt(head_dim)
        want["query_pre_attn_scalar"] = n_embd // n_head if n_layer == {"gemma2": 46, "gemma3": 62}[a] else hd
        period = K.get(a + ".attention.sliding_window_pattern", {"gemma2": 2, "gemma3": 6}[a])
        want["layer_types"] = ["sliding_attention" if i % period < period - 1 else "full_attention"
                               for i in range(n_layer)]
        want["sliding_window"] = K.get(a + ".attention.sliding_window", 4096 if a == "gemma2" else None)
    if a == "gemma2":
        want["attn_logit_softcapping"] = K.get(a + ".attn_logit_softcapping", 50.0)
        want["final_logit_softcapping"] = K.get(a + ".final_logit_softcapping", 30.0)
    if a == "gemma3":
        want["rope_local_base_freq"] = K.get(a + ".rope.freq_base_swa", 10000.0)
    if a == "phi3":
        want["partial_rotary_factor"] = K[a + ".rope.dimension_count"] / hd
        want["original_max_position_embeddings"] = K.get(a + ".rope.scaling.original_context_length",
                                                         K[a + ".context_length"])
    for k, v in want.items():
        expect(k in c, "%s: config.json has %s" % (gguf, k))
        if k in c:
            ok = f32_eq(c[k], v) if isinstance(v, float) else c[k] == v
            expect(ok, "%s: config.json %s = %r, want %r" % (gguf, k, c.get(k), v))
    # floats: the f32 key read back exactly
    expect(f32_eq(c["rms_norm_eps"], K[a + ".attention.layer_norm_rms_epsilon"]), "%s: rms_norm_eps" % gguf)
    expect(f32_eq(c["rope_theta"], K.get(a + ".rope.freq_base", 10000.0)), "%s: rope_theta" % gguf)
    rs = c.get("rope_scaling")
    if "rope_factors_long.weight" in T:  # phi-3's longrope: the lists, value for value
        want_rs = {"rope_type": "longrope", "type": "longrope",
                   "long_factor": np.frombuffer(T["rope_factors_long.weight"].data, "<f4").tolist(),
                   "short_factor": np.frombuffer(T["rope_factors_short.weight"].data, "<f4").tolist()}
        ok = rs is not None and all(
            rs.get(k) == v if isinstance(v, str) else len(rs.get(k, [])) == len(v) and all(f32_eq(x, y) for x, y in
                                                                                          zip(rs[k], v))
            for k, v in want_rs.items())
        expect(ok, "%s: rope_scaling %r, want %r" % (gguf, rs, want_rs))
    elif "rope_freqs.weight" in T:
        if os.path.basename(gguf) == "llama3.gguf":  # the usual values: those it was made from
            want_rs = dict(mkhf.LLAMA3, rope_type="llama3")
            expect(rs == want_rs, "%s: rope_scaling %r, want %r" % (gguf, rs, want_rs))
        # llama 3's, its original context below the model's as transformers asks (that its
        # frequencies are llama.cpp's factors: transformers itself, 83_transformers)
        expect(rs is not None and rs.get("rope_type") == "llama3" and
               isinstance(rs.get("original_max_position_embeddings"), int) and
               0 < rs["original_max_position_embeddings"] < c["max_position_embeddings"],
               "%s: rope_scaling %r (max_position_embeddings %s)" % (gguf, rs, c["max_position_embeddings"]))
    elif a + ".rope.scaling.factor" in K:
        expect(rs and rs.get("rope_type") == "linear" and f32_eq(rs["factor"], K[a + ".rope.scaling.factor"]),
               "%s: rope_scaling %r" % (gguf, rs))
    else:
        expect(rs is None, "%s: rope_scaling %r" % (gguf, rs))
    # (its eos_token_id: the tokens llama.cpp ends generation at, eog())
    if "bos_token_id" in want:
        expect(g.get("bos_token_id") == want["bos_token_id"], "%s: generation_config bos_token_id" % gguf)


# ---------------------------------------------------------------- model.safetensors
def st_header(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        h = json.loads(f.read(n))
    return n, h


def hf_sources(gguf):
    """{HF name: (shape, GGUF name, expert or None)} of the class's weights, from the
    GGUF's tensors (mkhf's layout)."""
    return hf_sources_of(*kvmap(gguf))


def hf_sources_of(K, T):
    """hf_sources of the keys K {key: value} and tensors T {name: anything with .ne}."""
    a = K["general.architecture"]
    out = {}
    for name, t in T.items():
        shape = list(reversed(t.ne))
        top = {"token_embd.weight": "model.embed_tokens.weight", "output_norm.weight": "model.norm.weight",
               "output.weight": "lm_head.weight"}
        if name in top:
            out[top[name]] = (shape, name, None)
            continue
        if name in ("rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight"):
            continue  # rope scaling: config.json
        _, i, base, suffix = name.split(".")
        p = "model.layers.%s." % i
        if base.endswith("_exps"):
            w = {"gate": "w1", "up": "w3", "down": "w2"} if a == "llama" else \
                {"gate": "gate_proj", "up": "up_proj", "down": "down_proj"}
            blk = "block_sparse_moe.experts" if a == "llama" else "mlp.experts"
            for e in range(t.ne[2]):
                out[p + "%s.%d.%s.%s" % (blk, e, w[base.split("_")[1]], suffix)] = (shape[1:], name, e)
            continue
        hf = {"attn_norm": "input_layernorm", "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj",
              "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj", "attn_qkv": "self_attn.qkv_proj",
              "attn_q_norm": "self_attn.q_norm", "attn_k_norm": "self_attn.k_norm",
              "post_attention_norm": "post_attention_layernorm", "post_ffw_norm": "post_feedforward_layernorm",
              "ffn_norm": "pre_feedforward_layernorm" if a in ("gemma2", "gemma3") else "post_attention_layernorm",
              "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.gate_up_proj" if a == "phi3" else "mlp.up_proj",
              "ffn_down": "mlp.down_proj",
              "ffn_gate_inp": "block_sparse_moe.gate" if a == "llama" else "mlp.gate",
              "ffn_gate_shexp": "mlp.shared_expert.gate_proj", "ffn_up_shexp": "mlp.shared_expert.up_proj",
              "ffn_down_shexp": "mlp.shared_expert.down_proj",
              "ffn_gate_inp_shexp": "mlp.shared_expert_gate"}[base]
        if base == "ffn_gate_inp_shexp":
            shape = [1, t.ne[0]]
        out[p + hf + "." + suffix] = (shape, name, None)
    return out


def hf_names(gguf):
    return {k: v[0] for k, v in hf_sources(gguf).items()}


def rearranged(K, T, f32_of):
    """{HF name: float32 array}: each HF tensor from its GGUF tensor's f32 values
    (f32_of(name), shaped as the GGUF's rows), rearranged as the converter's inverse:
    llama's q/k rows back from reshape(heads, 2, hd/2, ...).swapaxes(1, 2), gemma's norms
    minus 1 (in float32), each expert its slice."""
    a = K["general.architecture"]
    n_head = K[a + ".attention.head_count"]
    n_kv = K.get(a + ".attention.head_count_kv", n_head)
    out = {}
    for hf, (shape, name, e) in hf_sources_of(K, T).items():
        w = f32_of(name)
        if e is not None:
            w = w[e]
        if a == "llama" and (".q_proj." in hf or ".k_proj." in hf):
            heads = n_head if ".q_proj." in hf else n_kv
            # the converter: hf.reshape(heads, 2, hd/2, ...).swapaxes(1, 2); undone:
            w = w.reshape(heads, w.shape[0] // heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)
        if a.startswith("gemma") and hf.endswith("norm.weight"):
            w = (w - np.float32(1)).astype(np.float32)
        out[hf] = np.ascontiguousarray(w, "<f4").reshape(shape)
    return out


def views(mnt, gguf, st=None):
    """Every HF tensor of MOUNT's as/hf/model.safetensors (f32) is its GGUF tensor's f32.npy
    of the same mount, rearranged (rearranged()); bit for bit. ST: {HF name: float32
    values} as another reader read the file (check_pypeers.py: safetensors' safe_open);
    default load_st's."""
    arch = os.path.basename(gguf)[:-5]
    if st is None:
        st = {k: v.view("<f4") for k, (_, v) in load_st(os.path.join(mnt, arch, "as", "hf", "model.safetensors")).items()}
    K, T = kvmap(gguf)
    src = hf_sources_of(K, T)
    want = rearranged(K, T, lambda name: np.load(os.path.join(mnt, arch, "tensors", name, "f32.npy")))
    for hf, w in want.items():
        got = st[hf].reshape(w.shape) if hf in st else None
        expect(got is not None and np.array_equal(got.view(np.uint32), w.view(np.uint32)),
               "%s: %s is not %s rearranged" % (arch, hf, src[hf][1]))


def names(hf, gguf):
    _, h = st_header(os.path.join(hf, "model.safetensors"))
    got = {k: v["shape"] for k, v in h.items() if k != "__metadata__"}
    want = hf_names(gguf)
    expect(sorted(got) == sorted(want), "%s: the HF names: extra %s, missing %s" % (
        gguf, sorted(set(got) - set(want))[:5], sorted(set(want) - set(got))[:5]))
    for k in want:
        if k in got:
            expect(got[k] == want[k], "%s: %s has shape %s, want %s" % (gguf, k, got[k], want[k]))
    expect(h["__metadata__"].get("format") == "pt", "%s: __metadata__ format pt" % gguf)


def load_st(path):
    n, h = st_header(path)
    data = np.fromfile(path, np.uint8, offset=8 + n)
    out = {}
    for k, v in h.items():
        if k == "__metadata__":
            continue
        a, b = v["data_offsets"]
        out[k] = (v["dtype"], data[a:b])
    return out


def bf16_bits(f32):
    """float32 -> bfloat16 bits, round to nearest even (NaN kept quiet)."""
    u = f32.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(f32)
    return np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), r)


def dtypes(f32_path, other_path, dtype):
    A, B = load_st(f32_path), load_st(other_path)
    expect(sorted(A) == sorted(B), "%s: the same tensors" % other_path)
    for k in A:
        if k not in B:
            continue
        f = A[k][1].view("<f4")
        want = f.astype(np.float16).view(np.uint16) if dtype == "f16" else bf16_bits(f)
        expect(B[k][0] == dtype.upper(), "%s: %s dtype %s" % (other_path, k, B[k][0]))
        expect(np.array_equal(B[k][1].view("<u2"), want), "%s: %s is f32's rounded to %s" % (other_path, k, dtype))


# ---------------------------------------------------------------- tokens
LLAMA3_PRE = ("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
              "jina-v5-nano", "tekken", "chameleon")


def tokens(texts_path, out, gguf):
    """OUT/NAME.ll.json (llama.cpp's ids) against every Hugging Face tokenizer's ids on
    as/hf/: tokenizers.js (OUT/NAME.hf.json) and the Rust tokenizers library and
    AutoTokenizer (OUT/NAME.py.json), without and with the special tokens. A BERT text
    holding U+2581 wants the original BERT tokenizer's ids (OUT/NAME.orig.json) instead:
    llama.cpp reads U+2581 as a word start (its converter stored each word start so), the
    original keeps it as a character of the word, and the view follows the original."""
    texts = json.load(open(texts_path))
    name = os.path.basename(gguf)[:-5]
    load = lambda ext: json.load(open(os.path.join(out, name + ext)))
    ll, js, py = load(".ll.json"), load(".hf.json"), load(".py.json")
    peers = {"tokenizers.js": js, "tokenizers": py["tokenizers"], "AutoTokenizer": py["AutoTokenizer"]}
    K, _ = kvmap(gguf)
    model = K["tokenizer.ggml.model"]
    want = list(ll)
    if model == "bert":
        orig = load(".orig.json")
        fast, slow = orig["BertTokenizer"]["plain"], orig["BertTokenizerLegacy"]["plain"]
        spaced = [i for i, t in enumerate(texts) if "\u2581" in t]
        for i in spaced:
            expect(fast[i] == slow[i], "%s: %r: the original BertTokenizer %s, BertTokenizerLegacy %s" % (
                name, texts[i][:40], fast[i][:16], slow[i][:16]))
            want[i] = fast[i]
        # README: where llama.cpp differs (a U+2581 inside a word, before a word of the vocab)
        differ = [texts[i] for i in spaced if ll[i] != fast[i]]
        expect("a\u2581b" in differ, "%s: llama.cpp reads 'a\u2581b' as the original does (%s): README says "
               "it differs" % (name, ll[texts.index("a\u2581b")] if "a\u2581b" in texts else "no such text"))
        print("  %s: U+2581 in %d texts, llama.cpp differs from the original BERT tokenizer on %d: %s" % (
            name, len(spaced), len(differ), ", ".join(repr(t) for t in differ)))
        other = [t[:24] for i, t in enumerate(texts) if i not in spaced and ll[i] != fast[i]]
        print("  %s: where the files follow llama.cpp (README: marks, Hangul, words past 100 characters), the "
              "original differs on %d other texts: %s" % (name, len(other), ", ".join(repr(t) for t in other)))
    for peer, r in peers.items():
        for i, t in enumerate(texts):
            expect(r["plain"][i] == want[i], "%s: %r: %s %s, want %s (%s)" % (
                name, t[:40], peer, r["plain"][i][:16], want[i][:16],
                "the original BERT tokenizer's" if want[i] is not ll[i] else "llama.cpp's"))
    # the special tokens llama.cpp adds with add_special (llama-vocab.cpp tokenize)
    dflt_bos = {"llama": 1, "bert": 101}.get(model, 11)
    bos = K.get("tokenizer.ggml.bos_token_id", dflt_bos)
    eos = K.get("tokenizer.ggml.eos_token_id", {"llama": 2}.get(model, 11))
    add_bos = K.get("tokenizer.ggml.add_bos_token",
                    model in ("llama", "bert") or K.get("tokenizer.ggml.pre") in LLAMA3_PRE)
    add_eos = K.get("tokenizer.ggml.add_eos_token", False)
    for i, t in enumerate(texts):
        w = ([bos] if add_bos or model == "bert" else []) + want[i]
        if model == "bert":
            w.append(K.get("tokenizer.ggml.seperator_token_id", 102))
        elif add_eos:
            w.append(eos)
        for peer, r in peers.items():
            expect(r["special"][i] == w, "%s: %r with special tokens: %s %s, want %s" % (
                name, t[:40], peer, r["special"][i][:8], w[:8]))


def main(argv):
    mode = argv[0]
    if mode == "models":
        models(argv[1])
    elif mode == "vocabs":
        vocabs(argv[1])
    elif mode == "eog":  # MOUNT MODELS NAME...
        eog(argv[1], argv[2], argv[3:])
    elif mode == "configs":  # MOUNT MODELS DTYPE ARCH...: config.json and the names of each
        mnt, md, dt = argv[1:4]
        for a in argv[4:]:
            config(os.path.join(mnt, a, "as", "hf"), os.path.join(md, a + ".gguf"), dt)
            if dt == "f32":
                names(os.path.join(mnt, a, "as", "hf"), os.path.join(md, a + ".gguf"))
    elif mode == "views":  # MOUNT MODELS ARCH...
        for a in argv[3:]:
            views(argv[1], os.path.join(argv[2], a + ".gguf"))
    elif mode == "dtypes":  # F32MOUNT MOUNT DTYPE ARCH...
        for a in argv[4:]:
            dtypes(*(os.path.join(m, a, "as", "hf", "model.safetensors") for m in argv[1:3]), argv[3])
    elif mode == "tokens":  # TEXTS OUT GGUF...
        for g in argv[3:]:
            tokens(argv[1], argv[2], g)
    else:
        print(__doc__)
        return 2
    return checks.finish("check_hf.py " + mode)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
