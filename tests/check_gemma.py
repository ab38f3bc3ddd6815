#!/usr/bin/python3
"""check_gemma.py - a real trained model end to end (tests/check.d/80_gemma.sh): Gemma 3
270M Q4_K_M from PyPI, judged by llama.cpp (tests/peer/llama.py, one thread), transformers
and numpy on ggml's own dequantization, never by gguffs.

  check_gemma.py q8 MODEL OUT     llama-quantize (llama_model_quantize) MODEL to Q8_0 in OUT
  check_gemma.py all MOUNT NAME Q8NAME MODEL Q8
        MOUNT/NAME is the mount's folder of MODEL, MOUNT/Q8NAME that of Q8 (its copy in Q8_0):
        summary    summary.json and summary against llama.cpp's own figures of MODEL
        greedy     32 tokens of greedy continuation from MODEL and MOUNT/NAME/model.gguf: the
                   same tokens and logits; from as/f32, bf16 and q8_0 the tokens that agree
                   and the logits' cosine (figures)
        hf         transformers on as/hf/ (float32) against llama.cpp on as/f32.gguf at every
                   position of a 64-token text, and at the last 32 of 576 tokens (past the
                   512-token sliding window; without it transformers is far off);
                   AutoTokenizer against llama.cpp on the texts and on a chat
                   (apply_chat_template against llama_chat_apply_template);
                   generation_config.json's eos_token_id is llama.cpp's end-of-generation
                   set, and generate() on as/hf/ continues the chat and stops as llama.cpp
        vs         MOUNT/Q8NAME/vs/NAME/ against numpy on ggml's dequantization of both files
Prints the figures, and ends with "check_gemma.py: N passed, N failed".
"""
import json
import os
import re
import sys
import time

# one BLAS thread: numpy's dot products are small, and threads waiting on a
# busy machine made them 30x slower
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peer"))
sys.path.insert(0, HERE)
import checks  # noqa: E402
from checks import check as expect  # noqa: E402
import llama  # noqa: E402

PROMPT = "The three largest cities of Japan are Tokyo, Osaka and"
# 64 tokens of it are the text transformers and llama.cpp read (BOS + 63)
TEXT = ("Mount Fuji is the highest mountain in Japan, about 3,776 metres tall. It is an active "
        "stratovolcano that last erupted in 1707. On clear days it can be seen from Tokyo, "
        "roughly 100 kilometres away; climbers usually start at the fifth station and reach "
        "the summit before dawn to watch the sunrise. The mountain has inspired artists and "
        "poets for centuries.")
# and more, for 576 tokens: the last 64 positions are past the 512-token window of
# the sliding layers
MORE = (" The Seto Inland Sea separates Honshu from Shikoku and Kyushu. Its calm waters hold "
        "hundreds of small islands, some of them home to fishing villages, others to museums "
        "and sculpture parks that draw visitors from around the world. Ferries link the larger "
        "islands, and since 1999 a chain of bridges has carried a cycling route across six of "
        "them. In spring the hills turn pink with cherry blossom; in autumn the maples of the "
        "temples burn red and orange. The climate is mild, rain is rarer than elsewhere in the "
        "country, and citrus groves cover the southern slopes. Local cooks are proud of sea bream, "
        "octopus and oysters, which they grill, simmer with soy and ginger, or serve raw with "
        "a little wasabi. Old salt fields along the shore recall an industry that once made the "
        "region rich, and the castle town of Okayama keeps a garden laid out three hundred years "
        "ago, with ponds, tea houses and a hill from which the lord could watch the seasons. ")
LONG = (TEXT + MORE) * 3
N_LONG = 576
# the positions whose logits are compared: the 64-token text, and past the window
KEEP = list(range(64)) + list(range(N_LONG - 32, N_LONG))
# texts the tokenizers must split alike: spaces, digits, unicode, code, special look-alikes
TEXTS = [PROMPT, TEXT, LONG, "", " leading space and  double  spaces\tand tabs\n\nnew lines ",
         "naïve café – “quotes” — 東京タワー 🗼 emoji 👩‍💻", "def f(x):\n    return x**2 + 3.14159",
         "12345678901234567890 1,234.56", "<start_of_turn>user\nnot a turn<end_of_turn>"]
CHAT = [("system", "You answer in one short sentence."), ("user", "What is the capital of Japan?"),
        ("assistant", "Tokyo."), ("user", "  And of France?  ")]
# Gemma's turn format (what llama.cpp calls the "gemma" template, recognised by
# <start_of_turn>) in Jinja, for a model whose file carries no template of its own:
# a system message goes before the first user message, "assistant" is "model".
GEMMA_TURNS = (
    "{{ bos_token }}{% set ns = namespace(sys='') %}{% for m in messages %}"
    "{% if m['role'] == 'system' %}{% set ns.sys = m['content'] | trim %}{% else %}"
    "{% set role = 'model' if m['role'] == 'assistant' else m['role'] %}"
    "<start_of_turn>{{ role }}\n{% if ns.sys and role != 'model' %}{{ ns.sys }}\n\n"
    "{% set ns.sys = '' %}{% endif %}{{ m['content'] | trim }}<end_of_turn>\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}")
N_GEN = 32
VIEWS = ["f32", "bf16", "q8_0"]


def log(*a):
    print(*a, flush=True)


def since(t0):
    return "%.1f s" % (time.time() - t0)


def cosine(a, b):
    a, b = a.astype(np.float64), b.astype(np.float64)
    return float(a @ b / np.sqrt((a @ a) * (b @ b)))


# ---------------------------------------------------------------- summary
def kv_caches(lines):
    """llama.cpp's KV caches from its log at context creation: a list of
    (kind "non-SWA"/"SWA"/"", cells, layer indices, MiB)."""
    out, kind, layers = [], "", []
    for s in lines:
        m = re.search(r"creating\s+(non-SWA|SWA) KV cache, size = (\d+) cells", s)
        if m:
            kind, layers = m.group(1), []
            continue
        m = re.search(r"llama_kv_cache: layer\s+(\d+): dev = ", s)
        if m:
            layers.append(int(m.group(1)))
            continue
        m = re.search(r"llama_kv_cache: size =\s+([0-9.]+) MiB \(\s*(\d+) cells,\s+(\d+) layers", s)
        if m:
            assert int(m.group(3)) == len(layers), s
            out.append((kind, int(m.group(2)), layers, float(m.group(1))))
            kind, layers = "", []
    return out


def summary(L, d, model):
    j = json.load(open(os.path.join(d, "summary.json")))
    text = open(os.path.join(d, "summary")).read()
    m = L.load(model)
    ll = dict(parameters=m.n_params(), context_length=m.n_ctx_train(), layers=m.n_layer(),
              heads=m.n_head(), kv_heads=m.n_head_kv(), embedding_length=m.n_embd(),
              vocabulary_size=m.n_vocab(), tensor_bytes=m.size())
    log("llama.cpp: %s, %s" % (m.desc(), ", ".join("%s %d" % kv for kv in ll.items())))
    for k, v in ll.items():
        expect(j[k] == v, "summary.json %s: %r, llama.cpp says %r" % (k, j[k], v))
    # llama.cpp's "file size ... (N BPW)" is the tensors' bytes over the parameters
    bpw = ll["tensor_bytes"] * 8 / ll["parameters"]
    expect(abs(j["bits_per_weight"] - bpw) <= 5e-5, "bits_per_weight %r, llama.cpp %r" % (j["bits_per_weight"], bpw))
    p = j["parameters_text"]
    for line in ["parameters      %s (%d)" % (p, ll["parameters"]), "context length  %d" % ll["context_length"],
                 "layers          %d" % ll["layers"], "heads           %d" % ll["heads"],
                 "kv heads        %d" % ll["kv_heads"], "embedding size  %d" % ll["embedding_length"],
                 "vocabulary      %d tokens" % ll["vocabulary_size"]]:
        expect(line in text, "summary lacks %r" % line)
    # The KV cache as llama.cpp allocates it with its tools' defaults (f16, the
    # sliding-window layers holding their window, not the whole context): the
    # full-attention layers grow with the context, the others do not.
    n_ctx = 8192
    with m.context(n_ctx=n_ctx, n_batch=512, kv=llama.GGML_TYPE_F16, swa_full=False):
        caches = kv_caches(L.log)
    log("llama.cpp KV caches at %d tokens of context: %s" % (n_ctx, "; ".join(
        "%s %d cells %d layers %.2f MiB" % (k, c, len(ls), mib) for k, c, ls, mib in caches)))
    full = [c for c in caches if c[0] != "SWA"]
    swa = [c for c in caches if c[0] == "SWA"]
    expect(len(full) == 1 and full[0][1] == n_ctx, "llama.cpp has one cache of the whole context: %r" % caches)
    per_1k = full[0][3] * 2 ** 20 / n_ctx * 1000
    got = j["kv_cache_bytes_per_1000_tokens_f16"]
    log("KV cache per 1000 tokens: gguffs %s, llama.cpp %.0f (%d layers)" % (got, per_1k, len(full[0][2])))
    # the log has MiB to 2 decimals
    expect(got is not None and abs(got - per_1k) <= 0.005 * 2 ** 20 / n_ctx * 1000,
           "kv_cache_bytes_per_1000_tokens_f16 %r, llama.cpp's full-attention layers take %.0f" % (got, per_1k))
    sw = j.get("sliding_window")
    if swa:
        kind, cells, layers, mib = swa[0]
        window = m.n_swa()
        want = mib * 2 ** 20 / cells * window
        log("sliding window: gguffs %s; llama.cpp %d tokens in layers %s, %.0f bytes at f16" % (
            json.dumps(sw), window, layers, want))
        expect(sw is not None and sw["tokens"] == window, "sliding_window tokens: %r, llama.cpp %d" % (sw, window))
        expect(sw is not None and sw["layers"] == layers, "sliding_window layers: %r, llama.cpp %r" % (sw, layers))
        expect(sw is not None and abs(sw["kv_cache_bytes_f16"] - want) <= 0.005 * 2 ** 20 / cells * window,
               "sliding_window kv_cache_bytes_f16: %r, llama.cpp %.0f" % (sw, want))
        expect(sorted(layers + full[0][2]) == list(range(ll["layers"])), "every layer has one cache")
    else:
        expect(sw is None, "sliding_window %r, llama.cpp has no sliding-window cache" % (sw,))
    m.free()
    return swa[0][2] if swa else []


# ---------------------------------------------------------------- greedy
def run_llama(L, path, prompt_ids, teacher=None, text_ids=None):
    """Greedy N_GEN tokens after prompt_ids; the logits of the positions of teacher
    (prompt + a continuation; its own without one) that predict its continuation;
    text_ids' logits at KEEP."""
    t0 = time.time()
    m = L.load(path)
    tl = time.time() - t0
    with m.context(n_ctx=256, n_batch=256) as c:
        toks, steps = c.greedy(prompt_ids, N_GEN)
    teacher = teacher or prompt_ids + toks
    with m.context(n_ctx=256, n_batch=256) as c:
        forced = c.decode(teacher[:-1])[len(prompt_ids) - 1:]
    text = None
    if text_ids is not None:
        with m.context(n_ctx=N_LONG, n_batch=N_LONG) as c:
            text = c.decode(text_ids, outputs=KEEP)
    m.free()
    log("  %s: load %.1f s, all %s" % (path, tl, since(t0)))
    return toks, steps, forced, text


def greedy(L, mnt, name, model, text_ids):
    d = os.path.join(mnt, name)
    mm = L.load(model, vocab_only=True)
    prompt = mm.tokenize(PROMPT)
    mm.free()
    base_toks, base_steps, base_forced, _ = run_llama(L, model, prompt)
    teacher = prompt + base_toks
    log("prompt %s -> %s" % (prompt, base_toks))
    toks, steps, forced, _ = run_llama(L, os.path.join(d, "model.gguf"), prompt, teacher)
    expect(toks == base_toks, "model.gguf continues with %s, the file with %s" % (toks, base_toks))
    expect(np.array_equal(steps, base_steps) and np.array_equal(forced, base_forced),
           "model.gguf's logits are the file's, bit for bit")
    log("model.gguf: %d of %d tokens the file's, logits identical: %s" % (
        sum(a == b for a, b in zip(toks, base_toks)), N_GEN, np.array_equal(steps, base_steps)))
    f32_text = None
    for v in VIEWS:
        toks, steps, forced, text = run_llama(L, os.path.join(d, "as", v + ".gguf"), prompt, teacher,
                                              text_ids if v == "f32" else None)
        if v == "f32":
            f32_text = text
        agree = sum(a == b for a, b in zip(toks, base_toks))
        first = next((i for i, (a, b) in enumerate(zip(toks, base_toks)) if a != b), N_GEN)
        cos = [cosine(forced[i], base_forced[i]) for i in range(N_GEN)]
        log("as/%s.gguf: %d of %d tokens agree (first difference at %d); logits' cosine to the file's "
            "(same inputs) min %.7f mean %.7f; top token agrees at %d of %d positions" % (
                v, agree, N_GEN, first, min(cos), float(np.mean(cos)),
                int((forced.argmax(1) == base_forced.argmax(1)).sum()), N_GEN))
        expect(min(cos) > 0.9, "as/%s.gguf's logits are those of the model (cosine %.4f)" % (v, min(cos)))
    return f32_text


# ---------------------------------------------------------------- transformers
def hf(L, mnt, name, model, text_ids, ll_text, sliding):
    import torch
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer
    torch.set_num_threads(1)
    transformers.utils.logging.disable_progress_bar()
    d = os.path.join(mnt, name, "as", "hf")
    log("transformers %s, torch %s" % (transformers.__version__, torch.__version__))
    t0 = time.time()
    cfg = AutoConfig.from_pretrained(d)
    hfm, info = AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32, output_loading_info=True)
    log("  as/hf loaded in %s: %s, %s" % (since(t0), type(hfm).__name__, cfg.model_type))
    expect(cfg.layer_types == ["sliding_attention" if i in sliding else "full_attention"
                               for i in range(cfg.num_hidden_layers)],
           "config.json's layer_types are llama.cpp's sliding layers: %s" % cfg.layer_types)
    for k in ("missing_keys", "unexpected_keys", "mismatched_keys", "error_msgs"):
        expect(not info.get(k), "from_pretrained(as/hf): %s %s" % (k, info.get(k)))
    ids = torch.tensor([text_ids])
    keep = torch.tensor(KEEP)
    with torch.no_grad():
        lg = hfm(ids, logits_to_keep=keep).logits[0].float().numpy()
    scale = float(np.abs(ll_text).max())
    for what, rows in (("a 64-token text, every position", slice(0, 64)),
                       ("%d tokens, its last 32 positions (past the sliding window)" % N_LONG, slice(64, None))):
        a, b = lg[rows], ll_text[rows]
        agree = int((a.argmax(1) == b.argmax(1)).sum())
        diff = np.abs(a.astype(np.float64) - b)
        log("transformers on as/hf/ against llama.cpp on as/f32.gguf, %s: next token agrees at %d of %d; "
            "logits max difference %.3g (largest logit %.3g), mean %.3g, cosine min %.8f" % (
                what, agree, len(a), float(diff.max()), scale, float(diff.mean()),
                min(cosine(a[i], b[i]) for i in range(len(a)))))
        expect(agree == len(a), "transformers picks llama.cpp's next token at every position (%d of %d)" % (
            agree, len(a)))
        expect(diff.max() < 0.01 * scale, "the logits are close: max difference %.3g" % diff.max())
    # the comparison can fail: without its sliding window transformers is far off
    window = hfm.config.sliding_window
    hfm.config.sliding_window = 4 * N_LONG
    with torch.no_grad():
        lg = hfm(ids, logits_to_keep=keep).logits[0].float().numpy()
    hfm.config.sliding_window = window
    off = float(np.abs(lg[64:].astype(np.float64) - ll_text[64:]).max())
    log("  the same without the sliding window: max difference %.3g" % off)
    expect(off >= 0.01 * scale, "without the sliding window the logits differ (%.3g)" % off)
    generation(L, d, hfm, model)
    del hfm

    # tokenization: AutoTokenizer on as/hf/ against llama.cpp's vocabulary of the file
    tok = AutoTokenizer.from_pretrained(d)
    vm = L.load(model, vocab_only=True)
    same = back = 0
    for t in TEXTS:
        a = tok(t).input_ids
        b = vm.tokenize(t, add_special=True, parse_special=True)
        same += a == b
        expect(a == b, "AutoTokenizer %r: %s, llama.cpp %s" % (t, a[:20], b[:20]))
        # and back to text: the decoders agree (special tokens written out)
        da, db = tok.decode(b), vm.detokenize(b)
        back += da == db
        expect(da == db, "tokenizer decode %r, llama.cpp %r" % (da[:60], db[:60]))
    log("AutoTokenizer and llama.cpp: %d of %d texts tokenized alike (BOS added as both add it), "
        "%d decoded alike" % (same, len(TEXTS), back))
    # the chat: the file's template where it has one, else gemma's turns; transformers
    # renders the Jinja, llama.cpp formats with its built-in template of that name
    own = vm.chat_template()
    cfgt = json.load(open(os.path.join(d, "tokenizer_config.json"))).get("chat_template")
    expect(cfgt == own, "tokenizer_config.json's chat_template is the file's: %r" % ((cfgt or "")[:60],))
    tmpl = own or GEMMA_TURNS
    msgs = [{"role": r, "content": c} for r, c in CHAT]
    text_hf = tok.apply_chat_template(msgs, chat_template=tmpl, tokenize=False, add_generation_prompt=True)
    ids_hf = tok.apply_chat_template(msgs, chat_template=tmpl, tokenize=True, add_generation_prompt=True)
    if isinstance(ids_hf, dict) or hasattr(ids_hf, "input_ids"):
        ids_hf = ids_hf["input_ids"]
    text_ll = L.chat_apply_template(tmpl, CHAT, add_ass=True)
    ids_ll = vm.tokenize(text_ll, add_special=True, parse_special=True)
    log("chat (%s template): llama.cpp %r" % ("the file's" if own else "gemma's turn", text_ll))
    expect(text_hf == tok.bos_token + text_ll, "apply_chat_template %r, llama.cpp %r" % (text_hf, text_ll))
    expect(list(ids_hf) == ids_ll, "chat ids: transformers %s, llama.cpp %s" % (list(ids_hf), ids_ll))
    log("chat: apply_chat_template and llama_chat_apply_template give the same text: %s, the same %d ids: %s" % (
        text_hf == tok.bos_token + text_ll, len(ids_ll), list(ids_hf) == ids_ll))
    vm.free()


def generation(L, d, hfm, model):
    """Where generation ends: generation_config.json's eos_token_id is the set of tokens
    llama.cpp ends at (llama_vocab_is_eog), and transformers' generate() (greedy,
    float32, the as/hf/ folder's generation config) continues a chat as llama.cpp's
    greedy generation on as/f32.gguf does. This base model does not end its turn within
    N_GEN tokens, so each end is also forced: with a token made the only choice at one
    step, generate() stops right after it exactly when llama.cpp would (every token of
    llama.cpp's set; <start_of_turn>, not in it, goes on)."""
    import torch
    from transformers import GenerationConfig, LogitsProcessorList
    t0 = time.time()
    vm = L.load(model, vocab_only=True)
    eog = vm.eog()
    names = {t: vm.detokenize([t]) for t in eog}
    turn = vm.tokenize("<start_of_turn>", add_special=False)
    ids = vm.tokenize(L.chat_apply_template(vm.chat_template() or GEMMA_TURNS, CHAT, add_ass=True))
    vm.free()
    gc = GenerationConfig.from_pretrained(d)
    got = gc.eos_token_id if isinstance(gc.eos_token_id, list) else [gc.eos_token_id]
    log("llama.cpp ends generation at %s; generation_config.json's eos_token_id: %s" % (
        ", ".join("%d %r" % kv for kv in names.items()), gc.eos_token_id))
    expect(sorted(got) == eog, "generation_config.json's eos_token_id %r, llama.cpp ends at %r" % (
        gc.eos_token_id, eog))

    m = L.load(os.path.join(os.path.dirname(d), "f32.gguf"))
    with m.context(n_ctx=256, n_batch=256) as c:
        ll, _ = c.greedy(ids, N_GEN)
    ends = [i for i, t in enumerate(ll) if t in eog]
    ll = ll[:ends[0] + 1] if ends else ll
    m.free()
    hf_ids = lambda n=N_GEN, **kw: hfm.generate(torch.tensor([ids]), max_new_tokens=n, do_sample=False,
                                              **kw)[0, len(ids):].tolist()
    with torch.no_grad():
        out = hf_ids()
    log("chat: llama.cpp's greedy continuation %s%s; transformers generate() %s" % (
        ll, " (ends at %d)" % ll[-1] if ends else " (no end within %d tokens)" % N_GEN, out))
    expect(out == ll, "generate() continues the chat with %s, llama.cpp with %s" % (out, ll))

    class Force:
        """makes token t the only choice at step k of generate()"""
        def __init__(self, k, t):
            self.at, self.t = len(ids) + k, t

        def __call__(self, input_ids, scores):
            if input_ids.shape[1] == self.at:
                scores = torch.full_like(scores, -float("inf"))
                scores[:, self.t] = 0
            return scores

    k = 3
    for t in eog + turn:
        with torch.no_grad():
            out = hf_ids(k + 3, logits_processor=LogitsProcessorList([Force(k, t)]))
        log("  %d %r forced at step %d: generate() gives %d tokens; llama.cpp %s" % (
            t, names.get(t, "<start_of_turn>"), k, len(out), "ends there" if t in eog else "goes on"))
        expect(out[k:k + 1] == [t] and (len(out) == k + 1) == (t in eog),
               "token %d forced at step %d: generate() gives %d tokens (%s), llama.cpp %s" % (
                   t, k, len(out), out[k:k + 2], "ends there" if t in eog else "goes on"))
    log("  (generation: %s)" % since(t0))


# ---------------------------------------------------------------- vs/
def tensors_of(g, path):
    """name -> (ggml type, elements, the bytes' numpy view), by ggml's own parser."""
    info = g.gguf_info(path)
    raw = np.memmap(path, np.uint8, "r")
    out = {}
    for t in info["tensors"]:
        at = info["data_offset"] + t["offset"]
        out[t["name"]] = (t["type"], int(np.prod(t["ne"])), raw[at:at + t["size"]])
    return out


def vs(mnt, name, q8name, model, q8):
    """vs/NAME of the Q8_0 copy: model the copy, ref the original, each tensor's
    figures from ggml's dequantization of both files summed in float64."""
    from ggml import Ggml
    g = Ggml()
    d = os.path.join(mnt, q8name, "vs", name)
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(d, "tensors.tsv"))]
    head, rows = rows[0], {r[0]: r for r in rows[1:]}
    col = {k: head.index(k) for k in head}
    summ = json.load(open(os.path.join(d, "summary.json")))
    A, B = tensors_of(g, q8), tensors_of(g, model)
    worst = {}
    tot_d2 = tot_r2 = 0.0
    layers = {}
    for nm, (ta, n, da) in A.items():
        tb, nb, db = B[nm]
        # in pieces of whole blocks of both types (rows of 2^16 values hold both)
        step = 1 << 16 if n % (1 << 16) == 0 else n
        d2 = r2 = m2 = ab = mx = 0.0
        ra, rb = len(da) * step // n, len(db) * step // n
        for k in range(n // step):
            a = g.dequantize(ta, da[k * ra:(k + 1) * ra], step).astype(np.float64)
            b = g.dequantize(tb, db[k * rb:(k + 1) * rb], step).astype(np.float64)
            dd = a - b
            d2, r2, m2, ab = d2 + dd @ dd, r2 + b @ b, m2 + a @ a, ab + a @ b
            mx = max(mx, float(np.abs(dd).max()))
        tot_d2 += d2
        tot_r2 += r2
        lay = nm.split(".")[1] if nm.startswith("blk.") else None
        ld = layers.setdefault(lay, [0.0, 0.0])
        ld[0] += d2
        ld[1] += r2
        want = {"rmse": np.sqrt(d2 / n), "max_abs_err": mx, "rel_rmse": np.sqrt(d2 / r2),
                "cosine": ab / np.sqrt(m2 * r2), "snr_db": 10 * np.log10(r2 / d2) if d2 else np.inf}
        r = rows.get(nm)
        if not expect(r is not None, "vs/ tensors.tsv has %s" % nm):
            continue
        for k, w in want.items():
            got = float(r[col[k]])
            err = 0.0 if got == w else abs(got - w) / max(abs(w), 1e-300)
            worst[k] = max(worst.get(k, 0.0), err)
            expect(err <= 1e-9, "vs/ %s %s: %r, numpy %r" % (nm, k, got, w))
        expect(int(r[col["elements"]]) == n, "vs/ %s elements" % nm)
    expect(len(rows) == len(A), "vs/ has %d tensors, the files %d" % (len(rows), len(A)))
    rel = np.sqrt(tot_d2 / tot_r2)
    e = abs(float(summ["rel_rmse"]) - rel) / rel
    expect(e <= 1e-9, "vs/ summary.json rel_rmse %r, numpy %r" % (summ["rel_rmse"], rel))
    for ent in summ["layers"]:
        ld = layers[None if ent["layer"] is None else str(ent["layer"])]
        w = np.sqrt(ld[0] / ld[1])
        expect(abs(float(ent["rel_rmse"]) - w) <= 1e-9 * max(w, 1e-300),
               "vs/ summary.json layer %s rel_rmse %r, numpy %r" % (ent["layer"], ent["rel_rmse"], w))
    log("vs/: %d tensors; whole-model rel_rmse %.6g (numpy %.6g); largest relative difference to numpy: %s" % (
        len(A), float(summ["rel_rmse"]), rel, ", ".join("%s %.2g" % kv for kv in worst.items())))


def main(argv):
    if len(argv) == 3 and argv[0] == "q8":
        llama.Llama().quantize(argv[1], argv[2], llama.FTYPE_Q8_0, threads=2)
        return 0
    if len(argv) != 6 or argv[0] != "all":
        print(__doc__, file=sys.stderr)
        return 2
    mnt, name, q8name, model, q8 = argv[1:]
    L = llama.Llama()
    t0 = time.time()
    sliding = summary(L, os.path.join(mnt, name), model)
    log("(summary: %s)" % since(t0))
    vm = L.load(model, vocab_only=True)
    text_ids = vm.tokenize(LONG)[:N_LONG]
    vm.free()
    t0 = time.time()
    ll_text = greedy(L, mnt, name, model, text_ids)
    log("(greedy: %s)" % since(t0))
    t0 = time.time()
    hf(L, mnt, name, model, text_ids, ll_text, sliding)
    log("(transformers: %s)" % since(t0))
    t0 = time.time()
    vs(mnt, name, q8name, model, q8)
    log("(vs: %s)" % since(t0))
    return checks.finish("check_gemma.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
