#!/usr/bin/python3
"""hf_forward.py - a forward pass in transformers' convention, in numpy (float64), over a
Hugging Face model folder: config.json for every dimension and option, model.safetensors
read by the format's own text (a u64 header length, JSON, then the values), weights by
their HF names, rotate-half rope on q/k in HF row order. It follows the modeling code of
transformers for each class (modeling_llama, _mistral, _mixtral, _qwen2, _qwen3,
_qwen2_moe, _qwen3_moe, _gemma, _gemma2, _gemma3, _phi3), written from their definitions, not
from llama.cpp.

  hf_forward.py FOLDER IDS OUT.f32 [--gelu-f16]
      the last token's hidden state after the final norm (what llama.cpp's embedding of
      the last token is) for the token ids IDS ("1,2,3"), as little-endian float32.
      --gelu-f16: evaluate GELU as ggml's CPU backend does (tanh GELU of the input rounded
      to float16, result rounded to float16: its lookup table), to compare with llama.cpp
      at float32 rounding; the default is transformers' own GELU.
      --break permute: use q/k rows in llama.cpp's rope order (the converter's permutation
      applied again: a view that did not undo it); --break norm: gemma's norms with 1
      added (a view that kept the converter's shift). Both must fail the comparison.
"""
import json
import struct
import sys

import numpy as np


def load_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        head = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in head.items():
        if name == "__metadata__":
            continue
        a, b = t["data_offsets"]
        raw = np.frombuffer(data[a:b], dtype={"F32": "<f4", "F16": "<f2", "BF16": "<u2"}[t["dtype"]])
        if t["dtype"] == "BF16":
            raw = (raw.astype(np.uint32) << 16).view(np.float32)
        out[name] = raw.astype(np.float64).reshape(t["shape"])
    return out


def rms(x, w, eps, gemma=False):
    y = x / np.sqrt((x * x).mean(-1, keepdims=True) + eps)
    return y * ((1.0 + w) if gemma else w)


def silu(x):
    return x / (1.0 + np.exp(-x))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def gelu_ggml(x):
    """ggml's CPU GELU: a table of float16 results indexed by the float16 input."""
    x16 = x.astype(np.float16).astype(np.float32)
    t = 0.5 * x16 * (1.0 + np.tanh(np.float32(np.sqrt(2.0 / np.pi)) * x16 * (1.0 + np.float32(0.044715) * x16 * x16)))
    y = t.astype(np.float16).astype(np.float64)
    return np.where(x <= -10.0, 0.0, np.where(x >= 10.0, x, y))


def llama3_inv_freq(inv, rs):
    """transformers' _compute_llama3_parameters: low frequencies divided by the factor,
    high ones kept, a smooth blend between."""
    factor, lo, hi = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
    L = rs["original_max_position_embeddings"]
    wavelen = 2 * np.pi / inv
    out = np.where(wavelen > L / lo, inv / factor, inv)
    smooth = (L / wavelen - lo) / (hi - lo)
    smoothed = (1 - smooth) * out / factor + smooth * out
    medium = ~(wavelen < L / hi) & ~(wavelen > L / lo)
    return np.where(medium, smoothed, out)


def longrope(c, seq_len):
    """transformers' _compute_longrope_parameters: the short factors up to the original
    context (the long ones past it), and an attention factor from the two contexts."""
    rs = c["rope_scaling"]
    orig = c["original_max_position_embeddings"]
    ext = np.array(rs["long_factor"] if seq_len > orig else rs["short_factor"], np.float64)
    scale = c["max_position_embeddings"] / orig
    attn = rs.get("attention_factor") or (1.0 if scale <= 1 else np.sqrt(1 + np.log(scale) / np.log(orig)))
    return ext, attn


def rope(x, pos, theta, dim, factor=1.0, llama3=None, long=None):
    """transformers' rotary embedding on the first `dim` features of x [T, heads, hd]:
    inv_freq = 1 / theta^(2i/dim), positions / factor (linear scaling), llama 3's
    scaling of inv_freq or longrope's (ext factors, attention factor), rotate_half."""
    inv = 1.0 / theta ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    if llama3:
        inv = llama3_inv_freq(inv, llama3)
    attn = 1.0
    if long:
        ext, attn = long
        inv = inv / ext
    ang = np.outer(pos / factor, inv)               # [T, dim/2]
    emb = np.concatenate([ang, ang], -1)            # [T, dim]
    cos, sin = np.cos(emb)[:, None, :] * attn, np.sin(emb)[:, None, :] * attn
    r, p = x[..., :dim], x[..., dim:]
    half = dim // 2
    rot = np.concatenate([-r[..., half:], r[..., :half]], -1)
    return np.concatenate([r * cos + rot * sin, p], -1)


def attention(q, k, v, scale, softcap=None):
    """causal attention; q [T, nh, hd], k/v [T, nkv, hd] (grouped heads repeated)."""
    T, nh, hd = q.shape
    rep = nh // k.shape[1]
    k, v = np.repeat(k, rep, 1), np.repeat(v, rep, 1)
    s = np.einsum("thd,shd->hts", q, k) * scale
    if softcap:
        s = np.tanh(s / softcap) * softcap
    s = s + np.triu(np.full((T, T), -np.inf), 1)
    s = np.exp(s - s.max(-1, keepdims=True))
    s /= s.sum(-1, keepdims=True)
    return np.einsum("hts,shd->thd", s, v).reshape(T, nh * hd)


def lin(W, x, name, bias=None):
    y = x @ W[name + ".weight"].T
    b = W.get(name + ".bias")
    return y + b if b is not None else y


def moe(W, x, p, c, names, norm_topk):
    """softmax router over the experts, the top k kept (renormalised when norm_topk)."""
    gate, expert = names[:2]
    logits = x @ W[p + gate + ".weight"].T
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    k = c.get("num_experts_per_tok")
    out = np.zeros_like(x)
    for t in range(x.shape[0]):
        top = np.argsort(-probs[t], kind="stable")[:k]
        w = probs[t, top]
        if norm_topk:
            w = w / w.sum()
        for e, we in zip(top, w):
            g, u, d = (p + expert % e + "." + n for n in names[2:])
            h = silu(x[t] @ W[g + ".weight"].T) * (x[t] @ W[u + ".weight"].T)
            out[t] += we * (h @ W[d + ".weight"].T)
    return out


def permute(w, heads):
    """llama.cpp's converter: reshape(heads, 2, hd/2, ...).swapaxes(1, 2)."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def forward(folder, ids, gelu=gelu_tanh, broken=None):
    c = json.load(open(folder + "/config.json"))
    W = load_safetensors(folder + "/model.safetensors")
    for k in list(W):
        if broken == "permute" and (".q_proj." in k or ".k_proj." in k):
            W[k] = permute(W[k], c["num_attention_heads" if ".q_proj." in k else "num_key_value_heads"])
        if broken == "norm" and k.endswith("norm.weight"):
            W[k] = W[k] + 1.0
    mt = c["model_type"]
    gemma = mt in ("gemma", "gemma2", "gemma3_text")
    nh, nkv, hd = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    eps = c["rms_norm_eps"]
    pos = np.arange(len(ids), dtype=np.float64)
    h = W["model.embed_tokens.weight"][ids]
    if gemma:  # the embeddings are scaled by sqrt(hidden_size), in the model's dtype
        h = h * np.float64(np.float32(c["hidden_size"] ** 0.5))
    scale = c.get("query_pre_attn_scalar", hd) ** -0.5
    rs = c.get("rope_scaling") or {}
    factor = rs.get("factor", 1.0) if rs.get("rope_type", rs.get("type")) == "linear" else 1.0
    llama3 = rs if rs.get("rope_type") == "llama3" else None
    long = longrope(c, len(ids)) if rs.get("rope_type") == "longrope" else None
    rot = int(hd * c.get("partial_rotary_factor", 1.0))
    for i in range(c["num_hidden_layers"]):
        p = "model.layers.%d." % i
        x = rms(h, W[p + "input_layernorm.weight"], eps, gemma)
        if mt == "phi3":
            qkv = lin(W, x, p + "self_attn.qkv_proj")
            q, k, v = np.split(qkv, [nh * hd, nh * hd + nkv * hd], -1)
        else:
            q, k, v = (lin(W, x, p + "self_attn.%s_proj" % n) for n in "qkv")
        q, k, v = q.reshape(-1, nh, hd), k.reshape(-1, nkv, hd), v.reshape(-1, nkv, hd)
        if mt in ("qwen3", "qwen3_moe", "gemma3_text"):  # q/k norms over each head
            q = rms(q, W[p + "self_attn.q_norm.weight"], eps, gemma)
            k = rms(k, W[p + "self_attn.k_norm.weight"], eps, gemma)
        theta, f = c["rope_theta"], factor
        if mt == "gemma3_text" and c["layer_types"][i] == "sliding_attention":
            theta, f = c["rope_local_base_freq"], 1.0  # local layers: their own base, unscaled
        q, k = rope(q, pos, theta, rot, f, llama3, long), rope(k, pos, theta, rot, f, llama3, long)
        a = lin(W, attention(q, k, v, scale, c.get("attn_logit_softcapping") if mt == "gemma2" else None),
                p + "self_attn.o_proj")
        if mt == "gemma":  # gemma (1): llama's layout, gemma's norms and GELU
            h = h + a
            x = rms(h, W[p + "post_attention_layernorm.weight"], eps, True)
            h = h + lin(W, gelu(lin(W, x, p + "mlp.gate_proj")) * lin(W, x, p + "mlp.up_proj"), p + "mlp.down_proj")
            continue
        if gemma:
            a = rms(a, W[p + "post_attention_layernorm.weight"], eps, True)
            h = h + a
            x = rms(h, W[p + "pre_feedforward_layernorm.weight"], eps, True)
            m = lin(W, gelu(lin(W, x, p + "mlp.gate_proj")) * lin(W, x, p + "mlp.up_proj"), p + "mlp.down_proj")
            h = h + rms(m, W[p + "post_feedforward_layernorm.weight"], eps, True)
            continue
        h = h + a
        x = rms(h, W[p + "post_attention_layernorm.weight"], eps)
        if mt == "mixtral":
            m = moe(W, x, p, c, ("block_sparse_moe.gate", "block_sparse_moe.experts.%d", "w1", "w3", "w2"), True)
        elif mt in ("qwen2_moe", "qwen3_moe"):
            m = moe(W, x, p, c, ("mlp.gate", "mlp.experts.%d", "gate_proj", "up_proj", "down_proj"),
                    c["norm_topk_prob"])
            if mt == "qwen2_moe":  # the shared expert, gated by a sigmoid
                s = lin(W, silu(lin(W, x, p + "mlp.shared_expert.gate_proj")) * lin(W, x, p + "mlp.shared_expert.up_proj"),
                        p + "mlp.shared_expert.down_proj")
                m = m + 1.0 / (1.0 + np.exp(-lin(W, x, p + "mlp.shared_expert_gate"))) * s
        elif mt == "phi3":
            g, u = np.split(lin(W, x, p + "mlp.gate_up_proj"), 2, -1)
            m = lin(W, silu(g) * u, p + "mlp.down_proj")
        else:
            m = lin(W, silu(lin(W, x, p + "mlp.gate_proj")) * lin(W, x, p + "mlp.up_proj"), p + "mlp.down_proj")
        h = h + m
    return rms(h, W["model.norm.weight"], eps, gemma)[-1]


def main(argv):
    gelu, broken = gelu_tanh, None
    if "--gelu-f16" in argv:
        argv.remove("--gelu-f16")
        gelu = gelu_ggml
    if "--break" in argv:
        i = argv.index("--break")
        broken = argv[i + 1]
        del argv[i:i + 2]
    folder, ids, out = argv
    v = forward(folder, [int(x) for x in ids.split(",")], gelu, broken)
    v.astype("<f4").tofile(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
