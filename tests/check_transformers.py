#!/usr/bin/python3
"""check_transformers.py - transformers itself (the pinned peer, tests/pyenv.sh) judges as/hf/
(tests/check.d/83_transformers.sh), against llama.cpp (tests/peer/embed.mjs) and against
transformers' own GGUF loader. Nothing here is computed by gguffs.

  check_transformers.py models DIR
      The models: the 15 variants as/hf/ supports (tests/peer/mkhf.py, real vocabularies);
      the same 15 with a vocabulary of 512 tokens (gg-ARCH.gguf: transformers' GGUF loader
      parses a 32000-token vocabulary in 2-3 s, twice per load); and llamas whose weights
      are rows of the reference sets' blocks (ref-NAME.gguf, tests/peer/mkref.py):
      ref-mainline, every type gguf-py decodes; ref-q1_0 and ref-q2_0, two it does not;
      ref-ik, the ik_llama.cpp fork's 48 own types.
  check_transformers.py judge MODELS MOUNT OUT IDS SMALL_IDS
      Everything below, in one process (torch and transformers are imported once):
      - each as/hf/: AutoConfig, AutoModelForCausalLM (float32) and AutoTokenizer load
        with no warning about missing, unexpected, mismatched or newly initialised weights
        (transformers' log and Python's warnings, and output_loading_info), and no other
        warning but those ALLOWED says;
      - its last hidden state at every position equals llama.cpp's embedding of the same
        prefix of as/f32.gguf (OUT/NAME.emb.f32) within float32 rounding (1e-5 of the
        position's largest value, or 4 times transformers' own float32 error against
        float64 on the model where that is larger: the reference rows' outliers of 20
        deviations make ill-conditioned sums), and its top tokens at every position are
        llama.cpp's (OUT/NAME.top.json); gemma's with ggml's
        GELU put in transformers' place (llama.cpp's CPU GELU reads a table of float16
        values), and with transformers' own GELU within that table's rounding;
      - the same comparison fails on broken weights (q/k rows left in llama.cpp's rope
        order, gemma's norms left shifted by 1), and the load check fails on a folder with
        a tensor missing and one too many;
      - llama 3's rope: transformers' frequencies from config.json are llama.cpp's
        rope_freqs;
      - transformers' GGUF loader, from_pretrained(MODELS, gguf_file=...): what it makes of
        each file is what GGUF_LOADER says (the same model, another computation and why,
        or a refusal and why); with as/hf/'s config.json given, every tensor it loads
        equals as/hf/'s bit for bit;
      - ref-*: as/hf/'s tensors are the reference sets' values, bit for bit.
Ends with "check_transformers.py MODE: N passed, N failed".
"""
import contextlib
import copy
import json
import logging
import os
import shutil
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peer"))
sys.path.insert(0, HERE)
import check_hf  # noqa: E402
import checks  # noqa: E402
import mkhf  # noqa: E402
import mkllama as L  # noqa: E402
import mkref  # noqa: E402
from checks import check as expect  # noqa: E402

ARCHS = mkhf.ARCHS


def models(d):
    for a in ARCHS:
        L.write_gguf(os.path.join(d, a + ".gguf"), *mkhf.make(a))
    vocab = mkref.small_vocab(os.path.join(d, "vocab-512.gguf"))
    for a in ARCHS:
        L.write_gguf(os.path.join(d, "gg-%s.gguf" % a), *mkhf.make(a, vocab=vocab))
    for r in mkref.REFS:
        kvs, tensors, _ = mkref.make(r, vocab)
        L.write_gguf(os.path.join(d, "ref-%s.gguf" % r), kvs, tensors)


# ---------------------------------------------------------------- transformers
os.environ.setdefault("TQDM_DISABLE", "1")  # the GGUF loader's progress bar
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# warnings about the weights: transformers 5's load report, and the older phrasings
WEIGHT_WORDS = ("LOAD REPORT", "MISSING", "UNEXPECTED", "MISMATCH", "newly initialized", "not initialized",
                "were not used")
# other warnings a load may give, and why they are fine
ALLOWED = {
    "Please set the `factor` field of `rope_parameters`":
        "phi-3's longrope: transformers asks for a factor key that microsoft/Phi-3's own config.json has not "
        "either; it takes max_position_embeddings / original_max_position_embeddings, as llama.cpp's converter did",
}

# What transformers' GGUF loader makes of each gg-ARCH.gguf, and why: "same" (the same
# tensors and outputs as as/hf/), "otherwise" (it loads, and computes something else), or
# "refuses"; the config.json keys where its config and as/hf/'s differ.
GGUF_LOADER = {
    "llama": ("same", (), ""),
    "llama-bias": ("otherwise", ("attention_bias",),
                   "attention_bias is not read: LlamaConfig's default false drops the GGUF's q, k, v and o biases"),
    "llama3": ("otherwise", ("rope_parameters",), "rope_freqs.weight is not read: no llama 3 rope scaling"),
    "llama3-ctx64": ("otherwise", ("rope_parameters",), "rope_freqs.weight is not read: no llama 3 rope scaling"),
    "mistral": ("same", ("model_type",),
                "a LlamaForCausalLM (it looks for the exact text 'mistral' among general.name's values), "
                "which computes the same"),
    "mixtral": ("otherwise", ("model_type", "num_local_experts", "num_experts_per_tok"),
                "read as a llama without experts: ffn_*_exps are dropped and a dense MLP is newly initialised"),
    "qwen2": ("same", (), ""),
    "qwen3": ("refuses", ("head_dim",),
              "attention.key_length is not read for qwen3: head_dim is the class default 128, not the tensors' 32"),
    "qwen2moe": ("refuses", ("moe_intermediate_size", "shared_expert_intermediate_size"),
                 "expert_feed_forward_length and expert_shared_feed_forward_length are not read: the class "
                 "defaults 1408 and 5632 do not fit the tensors"),
    "qwen3moe": ("refuses", ("moe_intermediate_size",),
                 "expert_feed_forward_length is not read: the class default 768 does not fit the tensors"),
    "gemma": ("refuses", None, "its GGUF mapping has no gemma architecture"),
    "gemma2": ("otherwise", ("query_pre_attn_scalar", "pad_token_id"),
               "query_pre_attn_scalar is not read: the class default 256, where llama.cpp scales by head_dim (16) "
               "(and the class's pad_token_id 0 where the GGUF names none, which changes nothing computed)"),
    "gemma3": ("otherwise", ("query_pre_attn_scalar", "layer_types", "rope_parameters", "pad_token_id"),
               "query_pre_attn_scalar (default 256), the sliding-window pattern (default 6) and the global "
               "layers' linear rope scaling are not read (and pad_token_id as gemma2)"),
    "phi3": ("refuses", ("pad_token_id", "partial_rotary_factor", "rope_parameters", "original_max_position_embeddings"),
             "the vocabulary names no padding token and Phi3Config's default pad_token_id 32000 is past its 512 "
             "tokens; rope.dimension_count (partial rotary 0.75) and rope.scaling.original_context_length are not "
             "read either"),
    "phi3-long": ("refuses", ("pad_token_id", "partial_rotary_factor", "rope_parameters",
                              "original_max_position_embeddings"),
                  "as phi3, and the longrope factors (rope_factors_long/short.weight) are not read"),
}
# with as/hf/'s config given, what it still refuses
GGUF_LOADER_CONFIG_REFUSES = {
    "mistral": "gguf-py has no model_type mistral for its tensor names",
    "mixtral": "gguf-py has no model_type mixtral for its tensor names",
    "gemma": "its GGUF mapping has no gemma architecture",
}
# the reference llamas: what the loader does, and the words of its refusal
REF_LOADER = {
    "mainline": ("same", ""),
    "q1_0": ("refuses", "Dequantization for Q1_0 is not yet implemented"),
    "q2_0": ("refuses", "(42) is not a valid GGMLQuantizationType"),
    "ik": ("refuses", "is not a valid GGMLQuantizationType"),
}
# config.json keys that tell nothing about the computation (names, versions, the dtype
# asked for, training-only settings, what another key already says)
CONFIG_IGNORED = {"_name_or_path", "_model_name_or_path", "transformers_version", "dtype", "torch_dtype",
                  "architectures", "unk_token_id", "bos_token_id", "eos_token_id", "cache_implementation",
                  "hidden_act", "sliding_window_pattern", "_sliding_window_pattern", "output_router_logits",
                  "router_aux_loss_coef", "router_jitter_noise", "pretraining_tp", "use_cache", "attention_dropout",
                  "mlp_bias", "sliding_window", "use_sliding_window", "max_window_layers"}

# Bounds, each relative to the largest value (hidden state, logit) at a position
HIDDEN_BOUND = 1e-5   # float32 rounding (84 float32 ulps of the largest value)
ROUNDING_TIMES = 4    # or 4 times transformers' own float32 error against float64, when larger
GELU_BOUND = 1e-3     # transformers' own GELU against ggml's float16 table: two float16 half-ulps (2^-11)
BROKEN = 1e-2         # a broken model is at least this far off


torch = transformers = None  # imported by peers(), for the judge only


def peers():
    global torch, transformers
    import torch
    import transformers
    torch.set_num_threads(1)
    transformers.utils.logging.disable_default_handler()
    transformers.utils.logging.set_verbosity_warning()
    print("transformers %s, torch %s" % (transformers.__version__, torch.__version__))


# ---------------------------------------------------------------- loading
class Heard(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.said = []

    def emit(self, record):
        self.said.append(record.getMessage())


@contextlib.contextmanager
def listening():
    """What transformers logs (warning and above) and warns while the block runs."""
    h = Heard()
    root = transformers.utils.logging.get_logger()
    root.addHandler(h)
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            yield h.said
    finally:
        root.removeHandler(h)
        h.said += [str(x.message) for x in w]


def weight_words(said, info):
    """What was said about the weights, and the loading info's non-empty lists."""
    bad = [s for s in said if any(w in s for w in WEIGHT_WORDS)]
    bad += ["%s: %s" % (k, sorted(v)[:4]) for k, v in (info or {}).items() if v]
    return bad


def load(folder):
    """(config, model, loading info, what was said) of an as/hf/ folder."""
    with listening() as said:
        cfg = transformers.AutoConfig.from_pretrained(folder)
        model, info = transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32,
                                                                        output_loading_info=True)
        transformers.AutoTokenizer.from_pretrained(folder)
    return cfg, model.eval(), info, said


def judge_load(name, folder):
    """(config, model) of as/hf/, loaded with no word about the weights and no warning but
    the ALLOWED; (None, None) when transformers cannot load it."""
    try:
        cfg, model, info, said = load(folder)
    except Exception as e:  # noqa: BLE001 - a failure to report, then the next model
        expect(False, "%s: transformers cannot load as/hf/: %s: %s" % (name, type(e).__name__, e))
        return None, None
    bad = weight_words(said, info)
    expect(not bad, "%s: transformers says of the weights: %s" % (name, "; ".join(bad)))
    for s in said:
        if not any(w in s for w in WEIGHT_WORDS):
            why = next((v for k, v in ALLOWED.items() if k in s), None)
            print("  %s: transformers warns: %s%s" % (name, s.splitlines()[0][:160],
                                                    " (allowed: %s)" % why if why else ""))
            expect(why is not None, "%s: a warning: %s" % (name, s[:200]))
    return cfg, model


def judge_broken_folder(mnt, out):
    """The load check can fail: as/hf/ of llama with a tensor missing and one too many."""
    from safetensors.torch import load_file, save_file
    broken = os.path.join(out, "broken-hf")
    shutil.rmtree(broken, ignore_errors=True)
    shutil.copytree(os.path.join(mnt, "llama", "as", "hf"), broken)
    sd = load_file(os.path.join(broken, "model.safetensors"))
    del sd["model.layers.0.mlp.up_proj.weight"]
    sd["model.layers.0.mlp.extra.weight"] = torch.zeros(3)
    save_file(sd, os.path.join(broken, "model.safetensors"), metadata={"format": "pt"})
    _, _, info, said = load(broken)
    report = "\n".join(s for s in said if "LOAD REPORT" in s)
    print("  a tensor missing, one too many: %s" % " / ".join(weight_words(said, info)))
    expect("MISSING" in report and "UNEXPECTED" in report and info["missing_keys"] and info["unexpected_keys"],
           "the broken folder loads without a word about its weights: %s" % weight_words(said, info))


# ---------------------------------------------------------------- against llama.cpp
def run(model, tokens):
    """(last hidden state [T, n_embd], logits [T, n_vocab]) in float64."""
    with torch.no_grad():
        o = model(torch.tensor([tokens]), output_hidden_states=True)
    return o.hidden_states[-1][0].double().numpy(), o.logits[0].double().numpy()


def own_rounding(model, tokens):
    """transformers' own float32 rounding on this model and text: the largest difference of
    its last hidden state from the same model's in float64, relative as against_llama's."""
    h32, _ = run(model, tokens)
    m64 = copy.deepcopy(model).double()
    if m64.config._experts_implementation not in (None, "eager"):
        m64.set_experts_implementation("eager")  # torch's grouped_mm has no float64
    h64, _ = run(m64, tokens)
    return float((np.abs(h32 - h64).max(1) / np.abs(h64).max(1)).max())


def against_llama(model, prefix, tokens, bound):
    """The largest difference of the last hidden state from llama.cpp's, over the
    positions, each relative to the position's largest value; at how many positions the top
    token is llama.cpp's, and its 8 best are in llama.cpp's order (a pair within the bound
    may swap); the largest difference of those 8 logits, each from the best one's, from
    llama.cpp's (the log of their probabilities' ratio), relative to the largest logit (at
    least 1: llama.cpp's probabilities are float32)."""
    h, lg = run(model, tokens)
    T = len(tokens)
    emb = np.fromfile(prefix + ".emb.f32", "<f4").astype(np.float64).reshape(T, -1)
    with open(prefix + ".top.json") as f:
        tops = json.load(f)
    rel = np.abs(h - emb).max(1) / np.abs(emb).max(1)
    top1 = top8 = 0
    gap = 0.0
    for t in range(T):
        k = np.array([i for i, _ in tops[t]])
        scale = max(1.0, float(np.abs(lg[t]).max()))
        tie = bound * scale
        ours = lg[t, k] - lg[t, k[0]]
        theirs = np.log([p for _, p in tops[t]]) - np.log(tops[t][0][1])
        gap = max(gap, float(np.abs(ours - theirs).max()) / scale)
        best = int(lg[t].argmax())
        top1 += best == k[0] or lg[t, best] - lg[t, k[0]] <= tie
        rest = np.delete(lg[t], k)
        top8 += bool(np.all(np.diff(lg[t, k]) <= tie) and rest.max() <= lg[t, k[-1]] + tie)
    return float(rel.max()), top1, top8, gap


def judge_forward(name, model, prefix, tokens, bound, what="= llama.cpp", strict=True):
    """Within the bound of llama.cpp, the top token everywhere; strict: the 8 best in order
    and their logits within the bound too."""
    e, top1, top8, gap = against_llama(model, prefix, tokens, bound)
    T = len(tokens)
    print("  %-16s %-24s hidden %.2g (<= %.2g)  top token %d/%d  top 8 %d/%d  their logits %.2g" % (
        name, what, e, bound, top1, T, top8, T, gap))
    expect(e <= bound, "%s %s: last hidden state %.3g from llama.cpp's, want <= %g" % (name, what, e, bound))
    expect(top1 == T, "%s %s: the top token is llama.cpp's at %d of %d positions" % (name, what, top1, T))
    if strict:
        expect(top8 == T, "%s: the 8 best tokens are llama.cpp's at %d of %d positions" % (name, top8, T))
        expect(gap <= bound, "%s: the 8 best tokens' logits %.3g from llama.cpp's" % (name, gap))


def judge_broken(name, model, prefix, tokens, what):
    e = against_llama(model, prefix, tokens, BROKEN)[0]
    print("  %-16s %-24s hidden %.2g (> %g)" % (name, what, e, BROKEN))
    expect(e > BROKEN, "%s: %s: %.3g from llama.cpp's, want > %g (the comparison cannot fail)" % (
        name, what, e, BROKEN))


def ggml_gelu(x):
    """ggml's CPU GELU (ggml_vec_gelu_f32 / geglu with GGML_GELU_FP16): the tanh GELU,
    computed in float32 on the input rounded to float16, rounded to float16 (its table); 0
    below -10, x above 10."""
    x16 = x.to(torch.float16).to(torch.float32)
    y = 0.5 * x16 * (1 + torch.tanh(np.float32(np.sqrt(2 / np.pi)) * x16 * (1 + np.float32(0.044715) * x16 * x16)))
    y = y.to(torch.float16).to(x.dtype)
    return torch.where(x <= -10, torch.zeros_like(x), torch.where(x >= 10, x, y))


def permute(w, heads):
    """llama.cpp's converter: reshape(heads, 2, hd/2, ...).swapaxes(1, 2)."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).transpose(1, 2).reshape(w.shape)


def forward_and_controls(name, cfg, model, prefix, tokens):
    """The model against llama.cpp (gemma: with transformers' GELU, then ggml's), then
    broken (llama's q/k rows in llama.cpp's order, gemma's norms shifted) and far off."""
    # float32 rounding: HIDDEN_BOUND, or for an ill-conditioned model (the reference rows'
    # outliers) ROUNDING_TIMES transformers' own float32 error on it
    own = own_rounding(model, tokens)
    bound = max(HIDDEN_BOUND, ROUNDING_TIMES * own)
    print("  %-16s %-24s %.2g: bound %.2g" % (name, "float32 against float64", own, bound))
    if cfg.model_type.startswith("gemma"):
        judge_forward(name, model, prefix, tokens, GELU_BOUND, "transformers' GELU", strict=False)
        for layer in model.model.layers:
            layer.mlp.act_fn = ggml_gelu_module()
        judge_forward(name, model, prefix, tokens, bound, "with ggml's GELU")
        with torch.no_grad():
            for n, p in model.named_parameters():
                if n.endswith("norm.weight"):
                    p += 1
        judge_broken(name, model, prefix, tokens, "norms with 1 still added")
        return
    judge_forward(name, model, prefix, tokens, bound)
    if cfg.model_type in ("llama", "mistral", "mixtral"):
        with torch.no_grad():
            for layer in model.model.layers:
                for proj, heads in ((layer.self_attn.q_proj, cfg.num_attention_heads),
                                    (layer.self_attn.k_proj, cfg.num_key_value_heads)):
                    proj.weight.copy_(permute(proj.weight, heads))
                    if proj.bias is not None:
                        proj.bias.copy_(permute(proj.bias, heads))
        judge_broken(name, model, prefix, tokens, "q/k in llama.cpp's order")


def ggml_gelu_module():
    class GgmlGelu(torch.nn.Module):
        def forward(self, x):
            return ggml_gelu(x)
    return GgmlGelu()


def judge_llama3_rope(name, cfg, model, gguf):
    """transformers' frequencies (the model's rotary_emb, from config.json's rope scaling)
    against llama.cpp's: the base frequencies divided by rope_freqs."""
    K, T = check_hf.kvmap(gguf)
    r = np.frombuffer(T["rope_freqs.weight"].data, "<f4").astype(np.float64)
    inv = model.model.rotary_emb.inv_freq.double().numpy()
    base = 1.0 / cfg.rope_parameters["rope_theta"] ** (np.arange(0, cfg.head_dim, 2) / cfg.head_dim)
    e = float(np.abs(base / inv - r).max() / r.max())
    print("  %-16s rope_freqs from transformers' frequencies: %.2g (<= 1e-6)" % (name, e))
    expect(e <= 1e-6, "%s: rope scaling %r gives factors %.3g from rope_freqs" % (name, cfg.rope_parameters, e))


# ---------------------------------------------------------------- transformers' GGUF loader
def gguf_load(models_dir, gguf, config=None):
    """(model or None, the refusal, what was said)."""
    with listening() as said:
        try:
            kw = {"config": config} if config is not None else {}
            m = transformers.AutoModelForCausalLM.from_pretrained(models_dir, gguf_file=gguf, dtype=torch.float32,
                                                                  **kw)
        except Exception as e:  # noqa: BLE001 - the refusal is the finding
            return None, "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0]), said
    return m.eval(), "", said


def unequal(A, B):
    """The names whose tensors are not equal bit for bit (or one side lacks)."""
    return sorted(k for k in set(A) | set(B) if k not in A or k not in B or A[k].shape != B[k].shape or
                  not torch.equal(A[k].contiguous().view(torch.int32), B[k].contiguous().view(torch.int32)))


def config_diff(models_dir, hf_cfg, gguf):
    """config.json keys (not CONFIG_IGNORED) where the GGUF loader's config differs from
    as/hf/'s: floats as float32, head_dim missing as hidden_size / num_attention_heads, a
    key only one class has when it says something (not false, null or 0); None when the
    loader makes no config."""
    try:
        with listening():
            A = hf_cfg.to_dict()
            B = transformers.AutoConfig.from_pretrained(models_dir, gguf_file=gguf).to_dict()
    except Exception:  # noqa: BLE001 - no config: the refusal says why
        return None

    def norm(d, k):
        v = d.get(k)
        if k == "head_dim" and v is None:
            v = d["hidden_size"] // d["num_attention_heads"]
        return float(np.float32(v)) if isinstance(v, float) else v
    return {k: (norm(A, k), norm(B, k)) for k in sorted(set(A) | set(B))
            if k not in CONFIG_IGNORED and norm(A, k) != norm(B, k) and
            (k in A and k in B or norm(A, k) or norm(B, k))}


def judge_gguf_loader(models_dir, mnt, a, tokens):
    """What transformers' GGUF loader makes of gg-ARCH.gguf (GGUF_LOADER), and with
    as/hf/'s config.json given, its tensors against as/hf/'s."""
    name = "gg-" + a
    gguf = os.path.join(models_dir, name + ".gguf")
    hf_cfg, hf = judge_load(name, os.path.join(mnt, name, "as", "hf"))
    if hf is None:
        return
    want, want_keys, why = GGUF_LOADER[a]
    h_hf, _ = run(hf, tokens)
    g, refusal, said = gguf_load(models_dir, gguf)
    diff = config_diff(models_dir, hf_cfg, gguf)
    if g is None:
        got, detail = "refuses", refusal
    else:
        names = unequal(hf.state_dict(), g.state_dict())
        h_g, _ = run(g, tokens)
        e = float(np.abs(h_g - h_hf).max() / np.abs(h_hf).max())
        got = "same" if not names and e == 0 else "otherwise"
        detail = "%s, %d tensors unequal%s, output %.2g from as/hf/'s" % (
            type(g).__name__, len(names), " (%s ...)" % names[0] if names else "", e)
        if got == "same":
            expect(not weight_words(said, None), "%s: the GGUF loader warns %s" % (a, weight_words(said, None)))
    print("  %-13s %-9s %s" % (a, got, detail))
    if why:
        print("  %13s why: %s" % ("", why))
    if diff:
        print("  %13s config: %s" % ("", "; ".join("%s %s, not %s" % (k, str(v[1])[:60], str(v[0])[:60])
                                                    for k, v in diff.items())))
    expect(got == want, "%s: transformers' GGUF loader: %s (%s), want %s" % (a, got, detail, want))
    if want_keys is not None:
        expect(diff is not None and set(diff) == set(want_keys),
               "%s: the GGUF loader's config differs in %s, want %s" % (a, diff and sorted(diff), want_keys))
    # with as/hf/'s config.json: the tensors themselves
    g, refusal, said = gguf_load(models_dir, gguf, hf_cfg)
    if a in GGUF_LOADER_CONFIG_REFUSES:
        print("  %13s with as/hf/'s config: refuses (%s): %s" % ("", GGUF_LOADER_CONFIG_REFUSES[a], refusal[:100]))
        expect(g is None, "%s: with as/hf/'s config the GGUF loader no longer refuses" % a)
        return
    expect(g is not None, "%s: with as/hf/'s config the GGUF loader refuses: %s" % (a, refusal))
    if g is not None:
        names = unequal(hf.state_dict(), g.state_dict())
        h_g, _ = run(g, tokens)
        print("  %13s with as/hf/'s config: %d tensors, %d unequal; outputs equal: %s" % (
            "", len(hf.state_dict()), len(names), np.array_equal(h_g, h_hf)))
        expect(not names, "%s: with as/hf/'s config, tensors differ: %s" % (a, names[:5]))
        expect(np.array_equal(h_g, h_hf), "%s: with as/hf/'s config, the outputs differ" % a)


def judge_ref(models_dir, mnt, out, r, tokens):
    """ref-R: as/hf/ holds the reference values, bit for bit; the GGUF loader agrees or
    refuses (REF_LOADER); as/hf/ computes llama.cpp's figures."""
    name = "ref-" + r
    cfg, hf = judge_load(name, os.path.join(mnt, name, "as", "hf"))
    if hf is None:
        return
    sd = hf.state_dict()
    kvs, tensors, values = mkref.make(r, os.path.join(models_dir, "vocab-512.gguf"))
    want = check_hf.rearranged({k: v for k, _, v in kvs}, {t.name: t for t in tensors}, values.__getitem__)
    wrong = [k for k, v in want.items() if k not in sd or not np.array_equal(sd[k].numpy().view(np.uint32),
                                                                             v.view(np.uint32))]
    n_types = len(mkref.types_of(r, mkref.rows_of(mkref.REFS[r][0])))
    print("  %-13s %d types: as/hf/ holds the reference values of %d of %d tensors" % (
        name, n_types, len(want) - len(wrong), len(want)))
    expect(not wrong, "%s: as/hf/ is not the reference values: %s" % (name, wrong[:5]))
    g, refusal, _ = gguf_load(models_dir, os.path.join(models_dir, name + ".gguf"))
    want_outcome, words = REF_LOADER[r]
    if g is None:
        print("  %13s transformers' GGUF loader refuses: %s" % ("", refusal[:120]))
        expect(want_outcome == "refuses" and words in refusal, "%s: the GGUF loader refuses: %s" % (name, refusal))
    else:
        names = unequal(sd, g.state_dict())
        print("  %13s transformers' GGUF loader: %d tensors unequal" % ("", len(names)))
        expect(want_outcome == "same" and not names, "%s: the GGUF loader's tensors differ: %s" % (name, names[:5]))
    forward_and_controls(name, cfg, hf, os.path.join(out, name), tokens)


def judge(models_dir, mnt, out, ids, small_ids):
    peers()
    ids = [int(x) for x in ids.split(",")]
    small_ids = [int(x) for x in small_ids.split(",")]
    print("as/hf/ against llama.cpp on as/f32.gguf, %d tokens, every position:" % len(ids))
    for a in ARCHS:
        cfg, model = judge_load(a, os.path.join(mnt, a, "as", "hf"))
        if model is None:
            continue
        if a.startswith("llama3"):
            judge_llama3_rope(a, cfg, model, os.path.join(models_dir, a + ".gguf"))
        forward_and_controls(a, cfg, model, os.path.join(out, a), ids)
    judge_broken_folder(mnt, out)
    print("transformers' GGUF loader, from_pretrained(gguf_file=...), against as/hf/:")
    for a in ARCHS:
        judge_gguf_loader(models_dir, mnt, a, small_ids)
    print("llamas of the reference sets' blocks (tests/peer/mkref.py):")
    for r in mkref.REFS:
        judge_ref(models_dir, mnt, out, r, small_ids)


def main(argv):
    mode = argv[0] if argv else ""
    if mode == "models" and len(argv) == 2:
        models(argv[1])
    elif mode == "judge" and len(argv) == 6:
        judge(*argv[1:])
    else:
        print(__doc__)
        return 2
    return checks.finish("check_transformers.py " + mode)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
