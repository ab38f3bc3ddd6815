#!/usr/bin/python3
"""mkhf.py - tiny random GGUF models of the architectures as/hf/ supports, as llama.cpp's
converter lays them out (the tensors and keys llama.cpp's loader wants, src/models/<arch>.cpp).

  mkhf.py ARCH OUT.gguf [--seed 1] [--vocab VOCAB.gguf[.gz]]
      ARCH: llama, llama-bias (q, k, v, o biases), llama3 (rope_freqs of llama 3's rope
      scaling, factor 8, low 1, high 4, original context 8192, as the converter computes
      them; a context of 131072, as llama 3.1's), llama3-ctx64 (the same with an original
      context of 64: most pairs scaled, off the usual values), mistral (a llama named
      Mistral), mixtral,
      qwen2, qwen3 (head_dim 32 != n_embd / n_head), qwen2moe, qwen3moe, gemma, gemma2, gemma3
      (sliding-window period 2, linear rope scaling on its global layers), phi3 (fused qkv
      and gate_up, partial rotary 0.75). Every weight F32, seeded random; q and k larger
      than the others so that attention is far from uniform (a wrong q/k row order then
      changes the output by much more than float32 rounding). Gemma's norms are stored
      as llama.cpp's converter stores them: 1 + w.
      The vocabulary (tokenizer.* keys) is VOCAB's, by default the real llama-spm one
      (qwen*: gpt-2, phi3: phi-3).

Tests import it too: make(arch, seed, vocab) -> (kvs, tensors).
"""
import argparse
import functools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkllama import ARR, F32, STR, U32, Tensor, read_gguf, write_gguf  # noqa: E402

REAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "real")
VOCABS = {"spm": "ggml-vocab-llama-spm.gguf.gz", "gpt2": "ggml-vocab-gpt-2.gguf.gz",
          "phi3": "ggml-vocab-phi-3.gguf.gz"}

ARCHS = ["llama", "llama-bias", "llama3", "llama3-ctx64", "mistral", "mixtral", "qwen2", "qwen3", "qwen2moe", "qwen3moe",
         "gemma", "gemma2", "gemma3", "phi3", "phi3-long"]


def default_vocab(arch):
    v = "gpt2" if arch.startswith("qwen") else "phi3" if arch.startswith("phi3") else "spm"
    return os.path.join(REAL, VOCABS[v])


@functools.lru_cache(maxsize=None)
def vocab_keys(path):
    """The tokenizer.* keys of a vocabulary file (read once per process)."""
    return [kv for kv in read_gguf(path)[0] if kv[0].startswith("tokenizer.")]


LLAMA3 = dict(factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=8192)
LLAMA3_CTX64 = dict(LLAMA3, original_max_position_embeddings=64)


def llama3_factors(base, dim, p=LLAMA3):
    """rope_freqs as llama.cpp's converter computes them (conversion/llama.py
    generate_extra_tensors: torch float32 frequencies, float32 arithmetic)."""
    f32 = np.float32
    freqs = f32(1.0) / (f32(base) ** (np.arange(0, dim, 2, dtype=np.float32) / f32(dim)))
    L, lo, hi, fac = p["original_max_position_embeddings"], p["low_freq_factor"], p["high_freq_factor"], p["factor"]
    out = []
    for freq in freqs:
        wavelen = f32(2 * np.pi) / freq
        if wavelen < L / hi:
            out.append(1.0)
        elif wavelen > L / lo:
            out.append(fac)
        else:
            smooth = (f32(L) / wavelen - f32(lo)) / f32(hi - lo)
            out.append(f32(1) / ((f32(1) - smooth) / f32(fac) + smooth))
    return np.array(out, dtype=np.float32)


def make(arch, seed=1, vocab=None):
    """(kvs, tensors) of a tiny model of arch (see ARCHS)."""
    if arch not in ARCHS:
        raise ValueError("unknown arch %s" % arch)
    tok = [list(kv) for kv in vocab_keys(vocab or default_vocab(arch))]
    n_vocab = len(next(v for k, t, v in tok if k == "tokenizer.ggml.tokens")[1])
    a = {"llama-bias": "llama", "llama3": "llama", "llama3-ctx64": "llama", "mistral": "llama",
         "mixtral": "llama", "phi3-long": "phi3"}.get(arch, arch)
    n_embd, n_head, n_head_kv, n_layer, n_ff = 64, 4, 2, 2, 96
    head_dim = 32 if arch == "qwen3" else n_embd // n_head
    n_expert, n_used, n_ff_exp, n_ff_shexp = 4, 2, 32, 48
    moe = arch in ("mixtral", "qwen2moe", "qwen3moe")
    if arch == "mixtral":
        n_ff_exp = n_ff  # llama's experts are feed_forward_length wide
    gemma = arch.startswith("gemma")
    kvs = [["general.architecture", STR, a],
           ["general.name", STR, {"mistral": "Mistral-tiny"}.get(arch, "tiny-" + arch)],
           [a + ".context_length", U32, 1024 if arch == "phi3-long" else 131072 if arch.startswith("llama3") else 256],
           [a + ".embedding_length", U32, n_embd],
           [a + ".block_count", U32, n_layer],
           [a + ".feed_forward_length", U32, n_ff],
           [a + ".attention.head_count", U32, n_head],
           [a + ".attention.head_count_kv", U32, n_head_kv],
           [a + ".attention.layer_norm_rms_epsilon", F32, 1e-6 if gemma or arch.startswith("qwen") else 1e-5],
           [a + ".rope.freq_base", F32, 1e6 if arch in ("qwen3", "qwen3moe", "gemma3") else
            500000.0 if arch.startswith("llama3") else 10000.0]]
    if arch in ("qwen3", "qwen3moe") or gemma:
        kvs += [[a + ".attention.key_length", U32, head_dim], [a + ".attention.value_length", U32, head_dim]]
    if a == "llama":
        kvs += [[a + ".rope.dimension_count", U32, head_dim], [a + ".vocab_size", U32, n_vocab]]
    if a == "phi3":
        kvs += [[a + ".rope.dimension_count", U32, 12], [a + ".rope.scaling.original_context_length", U32, 256]]
    if arch == "phi3-long":  # conversion/phi.py: sqrt(1 + ln(scale) / ln(original))
        kvs += [[a + ".rope.scaling.attn_factor", F32, float(np.sqrt(1 + np.log(1024 / 256) / np.log(256)))]]
    if moe:
        kvs += [[a + ".expert_count", U32, n_expert], [a + ".expert_used_count", U32, n_used]]
        if a != "llama":
            kvs += [[a + ".expert_feed_forward_length", U32, n_ff_exp]]
        if arch == "qwen2moe":
            kvs += [[a + ".expert_shared_feed_forward_length", U32, n_ff_shexp]]
    if arch == "gemma2":
        kvs += [[a + ".attn_logit_softcapping", F32, 50.0], [a + ".final_logit_softcapping", F32, 30.0],
                [a + ".attention.sliding_window", U32, 4096]]
    if arch == "gemma3":
        kvs += [[a + ".attention.sliding_window", U32, 512], [a + ".attention.sliding_window_pattern", U32, 2],
                [a + ".rope.scaling.type", STR, "linear"], [a + ".rope.scaling.factor", F32, 8.0]]
    kvs += tok

    rng = np.random.default_rng(seed)
    tensors = []

    def add(name, ne, scale=None, around=None):
        n = int(np.prod(ne))
        if around is not None:  # norms near `around`
            v = around + 0.1 * rng.standard_normal(n)
        else:
            v = rng.standard_normal(n) * (scale if scale is not None else 1 / np.sqrt(ne[0]))
        tensors.append(Tensor(name, ne, "f32", v.astype(np.float32).tobytes()))

    # stored norms: gemma's had 1 added by the converter (its HF weights lie near 0)
    norm = 1.0
    qk = 3 / np.sqrt(n_embd)  # strong attention
    kv_dim, q_dim = head_dim * n_head_kv, head_dim * n_head
    if arch == "phi3-long":
        for kind, lo in (("long", 1.0), ("short", 0.8)):
            f = (lo + rng.random(6) * 4).astype(np.float32)
            tensors.append(Tensor("rope_factors_%s.weight" % kind, [6], "f32", f.tobytes()))
    if arch.startswith("llama3"):
        r = llama3_factors(500000.0, head_dim, LLAMA3 if arch == "llama3" else LLAMA3_CTX64)
        tensors.append(Tensor("rope_freqs.weight", [head_dim // 2], "f32", r.tobytes()))
    add("token_embd.weight", [n_embd, n_vocab], scale=1.0)
    for i in range(n_layer):
        b = "blk.%d." % i
        add(b + "attn_norm.weight", [n_embd], around=norm)
        if a == "phi3":
            add(b + "attn_qkv.weight", [n_embd, q_dim + 2 * kv_dim], scale=qk)
        else:
            add(b + "attn_q.weight", [n_embd, q_dim], scale=qk)
            add(b + "attn_k.weight", [n_embd, kv_dim], scale=qk)
            add(b + "attn_v.weight", [n_embd, kv_dim])
            if arch in ("llama-bias", "qwen2", "qwen2moe"):
                add(b + "attn_q.bias", [q_dim], scale=0.5)
                add(b + "attn_k.bias", [kv_dim], scale=0.5)
                add(b + "attn_v.bias", [kv_dim], scale=0.5)
        add(b + "attn_output.weight", [q_dim, n_embd])
        if arch == "llama-bias":
            add(b + "attn_output.bias", [n_embd], scale=0.5)
        if arch in ("qwen3", "qwen3moe", "gemma3"):
            add(b + "attn_q_norm.weight", [head_dim], around=norm)
            add(b + "attn_k_norm.weight", [head_dim], around=norm)
        if gemma and arch != "gemma":
            add(b + "post_attention_norm.weight", [n_embd], around=norm)
        add(b + "ffn_norm.weight", [n_embd], around=norm)
        if moe:
            add(b + "ffn_gate_inp.weight", [n_embd, n_expert], scale=1.0)
            add(b + "ffn_gate_exps.weight", [n_embd, n_ff_exp, n_expert])
            add(b + "ffn_down_exps.weight", [n_ff_exp, n_embd, n_expert])
            add(b + "ffn_up_exps.weight", [n_embd, n_ff_exp, n_expert])
            if arch == "qwen2moe":
                add(b + "ffn_gate_inp_shexp.weight", [n_embd])
                add(b + "ffn_gate_shexp.weight", [n_embd, n_ff_shexp])
                add(b + "ffn_down_shexp.weight", [n_ff_shexp, n_embd])
                add(b + "ffn_up_shexp.weight", [n_embd, n_ff_shexp])
        elif a == "phi3":
            add(b + "ffn_up.weight", [n_embd, 2 * n_ff])
            add(b + "ffn_down.weight", [n_ff, n_embd])
        else:
            add(b + "ffn_gate.weight", [n_embd, n_ff])
            add(b + "ffn_up.weight", [n_embd, n_ff])
            add(b + "ffn_down.weight", [n_ff, n_embd])
        if gemma and arch != "gemma":
            add(b + "post_ffw_norm.weight", [n_embd], around=norm)
    add("output_norm.weight", [n_embd], around=norm)
    if not gemma:
        add("output.weight", [n_embd, n_vocab])
    return kvs, tensors


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("arch", choices=ARCHS)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--vocab")
    a = ap.parse_args(argv)
    write_gguf(a.out, *make(a.arch, a.seed, a.vocab))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
