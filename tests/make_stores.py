"""make_stores - fake model folders and stores for the shelf tests, and the
figures a model's summary must show, computed here from the file alone.

    python3 tests/make_stores.py build ROOT      the stores below (prints nothing)
    python3 tests/make_stores.py many DIR N      N small models in DIR (the bench)
    python3 tests/make_stores.py summary [--manifest M] DIR FILE...
                                                 check DIR/summary.json, DIR/summary,
                                                 DIR/types.tsv and DIR/blocks against
                                                 the file(s)
    python3 tests/make_stores.py model PATH KIND SEED   one model (KIND: llama, moe,
                                                  perlayer, noarch, rounding)
    python3 tests/make_stores.py split PREFIX N SEED    a llama model in N shards
    python3 tests/make_stores.py race DIR       40 models of thousands of tensors

ROOT gets:
    plain/     a folder: models in sub-folders, a split set, a malformed file,
               files that are not GGUF, odd names
    ollama/    manifests/ (library and another namespace, a projector layer,
               another registry), manifests-v2/, blobs/sha256-HEX
    hf/        models--ORG--NAME with refs/main and two revisions (snapshots
               are symbolic links into blobs/), models--NAME without an org
    lmstudio/  PUBLISHER/MODEL/FILE.gguf
The models are built with tests/gguf_tool.py, independent of gguffs; so
are the figures (nothing of gguffs is used to compute what it must show).
"""
import hashlib
import json
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_tool as g  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

# ggml type id -> (name, elements per block, bytes per block)
TYPES = {0: ("F32", 1, 4), 1: ("F16", 1, 2), 2: ("Q4_0", 32, 18), 8: ("Q8_0", 32, 34),
         12: ("Q4_K", 256, 144), 14: ("Q6_K", 256, 210), 24: ("I8", 1, 1), 30: ("BF16", 1, 2)}
F32, F16, Q4_0, Q8_0, Q4_K, Q6_K, I8, BF16 = 0, 1, 2, 8, 12, 14, 24, 30


def nbytes(dims, ty):
    _, bs, bb = TYPES[ty]
    n = 1
    for d in dims:
        n *= d
    assert dims[0] % bs == 0
    return n // bs * bb


def tensor(rng, name, dims, ty):
    return (name, dims, ty, rng.randbytes(nbytes(dims, ty)))


def tokenizer_kvs(vocab, model="llama", chat=True):
    kvs = [("tokenizer.ggml.model", g.STR, model),
           ("tokenizer.ggml.tokens", g.ARR, (g.STR, ["t%d" % i for i in range(vocab)]))]
    if chat:
        kvs.append(("tokenizer.chat_template", g.STR, "{% for m in messages %}{{ m.content }}{% endfor %}"))
    return kvs


def llama(seed=1, name="Tiny Llama", layers=4, emb=64, heads=4, kv=2, ctx=4096, vocab=96, ff=128,
          extra_kvs=(), arch="llama", tokens=None):
    """kvs, tensors of a small llama-shaped model (blk.N tensors, mixed types);
    tokens: the tokenizer's size when not vocab (a big header, small tensors)."""
    rng = random.Random(seed)
    hd = emb // heads
    kvs = [("general.architecture", g.STR, arch), ("general.name", g.STR, name),
           (arch + ".context_length", g.U32, ctx), (arch + ".block_count", g.U32, layers),
           (arch + ".embedding_length", g.U32, emb), (arch + ".feed_forward_length", g.U32, ff),
           (arch + ".attention.head_count", g.U32, heads), (arch + ".attention.head_count_kv", g.U32, kv)]
    kvs += tokenizer_kvs(tokens or vocab) + list(extra_kvs)
    ts = [tensor(rng, "token_embd.weight", [emb, vocab], Q8_0)]
    for i in range(layers):
        p = "blk.%d." % i
        ts += [tensor(rng, p + "attn_norm.weight", [emb], F32),
               tensor(rng, p + "attn_q.weight", [emb, emb], Q4_0),
               tensor(rng, p + "attn_k.weight", [emb, kv * hd], Q4_0),
               tensor(rng, p + "attn_v.weight", [emb, kv * hd], Q8_0),
               tensor(rng, p + "attn_output.weight", [emb, emb], Q4_0),
               tensor(rng, p + "ffn_norm.weight", [emb], F32),
               tensor(rng, p + "ffn_gate.weight", [emb, ff], Q4_0),
               tensor(rng, p + "ffn_up.weight", [emb, ff], Q4_0),
               tensor(rng, p + "ffn_down.weight", [ff, emb], Q8_0)]
    ts += [tensor(rng, "output_norm.weight", [emb], F32), tensor(rng, "output.weight", [emb, vocab], F16)]
    return kvs, ts


def moe(seed=2):
    """A mixture of experts: expert keys, 3-D expert tensors, explicit head lengths."""
    rng = random.Random(seed)
    a, emb, layers, ff, n_exp = "qwen3moe", 64, 2, 64, 8
    kvs = [("general.architecture", g.STR, a), ("general.name", g.STR, "Tiny MoE"),
           (a + ".context_length", g.U32, 32768), (a + ".block_count", g.U32, layers),
           (a + ".embedding_length", g.U32, emb), (a + ".attention.head_count", g.U32, 4),
           (a + ".attention.head_count_kv", g.U32, 2), (a + ".attention.key_length", g.U32, 32),
           (a + ".attention.value_length", g.U32, 32), (a + ".expert_count", g.U32, n_exp),
           (a + ".expert_used_count", g.U32, 2), (a + ".expert_feed_forward_length", g.U32, ff)]
    kvs += tokenizer_kvs(64, "gpt2", chat=False)
    ts = [tensor(rng, "token_embd.weight", [emb, 64], F16)]
    for i in range(layers):
        p = "blk.%d." % i
        ts += [tensor(rng, p + "attn_norm.weight", [emb], F32),
               tensor(rng, p + "attn_q.weight", [emb, 4 * 32], Q8_0),
               tensor(rng, p + "attn_k.weight", [emb, 2 * 32], Q8_0),
               tensor(rng, p + "attn_v.weight", [emb, 2 * 32], Q8_0),
               tensor(rng, p + "attn_output.weight", [4 * 32, emb], Q8_0),
               tensor(rng, p + "ffn_gate_inp.weight", [emb, n_exp], F32),
               tensor(rng, p + "ffn_gate_exps.weight", [256, ff, n_exp], Q4_K),
               tensor(rng, p + "ffn_up_exps.weight", [256, ff, n_exp], Q4_K),
               tensor(rng, p + "ffn_down_exps.weight", [256, emb, n_exp], Q6_K)]
    ts += [tensor(rng, "output_norm.weight", [emb], F32), tensor(rng, "output.weight", [emb, 64], BF16)]
    return kvs, ts


def perlayer(seed=3):
    """Heads per layer as arrays (OpenELM style), no key_length: llama.cpp
    takes the head length from layer 0 (n_embd / n_head(0)) for every layer."""
    a = "openelm"
    kvs, ts = llama(seed, "Per-layer heads", layers=3, arch=a)
    kvs = [kv for kv in kvs if not kv[0].startswith(a + ".attention.head_count")]
    kvs += [(a + ".attention.head_count", g.ARR, (g.U32, [4, 4, 8])),
            (a + ".attention.head_count_kv", g.ARR, (g.U32, [1, 2, 4]))]
    return kvs, ts


def noarch(seed=4):
    rng = random.Random(seed)
    return [("general.name", g.STR, "no arch")], [tensor(rng, "w", [64, 3], F16), tensor(rng, "b", [64], F32)]


def rounding(seed=5):
    """999 999 parameters: 999.999 K shown rounded must say 1.00 M."""
    rng = random.Random(seed)
    return ([("general.architecture", g.STR, "llama")],
            [("w", [999999], I8, rng.randbytes(999999))])


KINDS = {"llama": llama, "moe": moe, "perlayer": perlayer, "noarch": noarch, "rounding": rounding}


def model_bytes(kind, seed):
    kvs, ts = KINDS[kind](seed)
    return g.build(kvs=kvs, tensors=ts)


def write_model(path, kind="llama", seed=1, **kw):
    kvs, ts = KINDS[kind](seed, **kw) if kw else KINDS[kind](seed)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    g.write(path, kvs=kvs, tensors=ts)
    return path


def write_split(prefix, seed=6, n=3):
    """PREFIX-0000K-of-0000N.gguf: a llama model cut in n shards."""
    kvs, ts = llama(seed, "Split Llama", layers=3)
    cut = [len(ts) * k // n for k in range(n + 1)]
    os.makedirs(os.path.dirname(prefix), exist_ok=True)
    paths = []
    for i in range(n):
        split = [("split.no", g.U16, i), ("split.count", g.U16, n), ("split.tensors.count", g.I32, len(ts))]
        p = "%s-%05d-of-%05d.gguf" % (prefix, i + 1, n)
        g.write(p, kvs=(kvs + split) if i == 0 else split, tensors=ts[cut[i]:cut[i + 1]])
        paths.append(p)
    return paths


def blob(store, data):
    h = hashlib.sha256(data).hexdigest()
    with open(os.path.join(store, "blobs", "sha256-" + h), "wb") as f:
        f.write(data)
    return "sha256:" + h


def ollama_manifest(store, rel, layers):
    """manifests path rel (HOST/NS/MODEL/TAG, under manifests or manifests-v2)."""
    p = os.path.join(store, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    cfg = blob(store, b'{"model_format":"gguf"}')
    m = {"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
         "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": cfg, "size": 23},
         "layers": [{"mediaType": mt, "digest": d,
                     "size": os.path.getsize(os.path.join(store, "blobs", d.replace(":", "-")))}
                    for mt, d in layers]}
    with open(p, "w") as f:
        json.dump(m, f)


MODEL_MT = "application/vnd.ollama.image.model"
PROJ_MT = "application/vnd.ollama.image.projector"


def build_ollama(store):
    os.makedirs(os.path.join(store, "blobs"))
    gb = model_bytes
    tmpl = blob(store, b"{{ .Prompt }}")
    lic = blob(store, b"a license")
    llama3 = blob(store, gb("llama", 11))
    ollama_manifest(store, "manifests/registry.ollama.ai/library/llama3/8b",
                    [(MODEL_MT, llama3), ("application/vnd.ollama.image.template", tmpl),
                     ("application/vnd.ollama.image.license", lic)])
    # the same blob under a second tag
    ollama_manifest(store, "manifests/registry.ollama.ai/library/llama3/latest", [(MODEL_MT, llama3)])
    ollama_manifest(store, "manifests/registry.ollama.ai/huihui_ai/qwen3-abliterated/30b",
                    [(MODEL_MT, blob(store, gb("moe", 12)))])
    ollama_manifest(store, "manifests/registry.ollama.ai/library/llava/7b",
                    [(MODEL_MT, blob(store, gb("llama", 13))), (PROJ_MT, blob(store, gb("noarch", 14)))])
    ollama_manifest(store, "manifests/hf.co/bartowski/Tiny-GGUF/Q4_0",
                    [(MODEL_MT, blob(store, gb("llama", 15)))])
    ollama_manifest(store, "manifests-v2/registry.ollama.ai/library/gemma3/1b",
                    [(MODEL_MT, blob(store, gb("perlayer", 16)))])
    # a manifest without a model layer, a broken one, a half-downloaded blob
    ollama_manifest(store, "manifests/registry.ollama.ai/library/nomodel/latest", [("application/vnd.ollama.image.template", tmpl)])
    os.makedirs(os.path.join(store, "manifests/registry.ollama.ai/library/broken"))
    with open(os.path.join(store, "manifests/registry.ollama.ai/library/broken/latest"), "w") as f:
        f.write("{not json")
    with open(os.path.join(store, "blobs", "sha256-" + "0" * 64 + "-partial"), "wb") as f:
        f.write(b"GGUF")


def build_hf(store):
    def repo(rid, files_by_rev, main):
        d = os.path.join(store, "models--" + rid.replace("/", "--"))
        os.makedirs(os.path.join(d, "blobs"))
        os.makedirs(os.path.join(d, "refs"))
        with open(os.path.join(d, "refs", "main"), "w") as f:
            f.write(main)
        for rev, files in files_by_rev.items():
            for path, data in files:
                h = hashlib.sha256(data).hexdigest()
                bp = os.path.join(d, "blobs", h)
                with open(bp, "wb") as f:
                    f.write(data)
                sp = os.path.join(d, "snapshots", rev, path)
                os.makedirs(os.path.dirname(sp), exist_ok=True)
                os.symlink(os.path.relpath(bp, os.path.dirname(sp)), sp)
        return d

    mk = model_bytes
    main, old = "a" * 40, "b" * 40
    d = repo("TinyOrg/Tiny-GGUF", {
        main: [("tiny-Q4_0.gguf", mk("llama", 21)), ("sub/tiny-moe.gguf", mk("moe", 22)),
               ("README.md", b"# tiny"), ("config.json", b"{}")],
        old: [("tiny-Q4_0.gguf", mk("llama", 23))]}, main)
    # a plain file in a snapshot (no symbolic link), and a download in progress
    with open(os.path.join(d, "snapshots", main, "plain.gguf"), "wb") as f:
        f.write(mk("noarch", 24))
    with open(os.path.join(d, "blobs", "c" * 64 + ".incomplete"), "wb") as f:
        f.write(b"GGUF\3\0\0\0")
    os.makedirs(os.path.join(store, ".locks", "models--TinyOrg--Tiny-GGUF"))
    repo("gpt2", {"c" * 40: [("gpt2.gguf", mk("llama", 25))]}, "c" * 40)
    # a repository whose refs/main names a revision not downloaded
    repo("Org2/Other", {"d" * 40: [("other.gguf", mk("noarch", 26))]}, "e" * 40)


def build_plain(root):
    write_model(os.path.join(root, "llama.gguf"), "llama", 31)
    write_model(os.path.join(root, "deep", "er", "moe.gguf"), "moe", 32)
    write_model(os.path.join(root, "deep", "perlayer.gguf"), "perlayer", 33)
    write_model(os.path.join(root, "noarch.gguf"), "noarch", 34)
    write_model(os.path.join(root, "rounding.gguf"), "rounding", 35)
    os.makedirs(os.path.join(root, "ref"))
    shutil.copy(os.path.join(DATA, "mainline", "mainline.gguf"), os.path.join(root, "ref"))
    write_split(os.path.join(root, "split", "big"))
    # odd names: a percent sign, a tab, a name the root's files use, spaces
    write_model(os.path.join(root, "100%.gguf"), "noarch", 36)
    write_model(os.path.join(root, "tab\there.gguf"), "noarch", 37)
    write_model(os.path.join(root, "models.tsv.gguf"), "noarch", 38)
    write_model(os.path.join(root, "with space", "m 1.gguf"), "noarch", 39)
    # symbolic links: to a folder elsewhere (followed), and loops (not)
    os.symlink("../lmstudio/bartowski", os.path.join(root, "linked"))
    os.symlink(".", os.path.join(root, "loop"))
    os.symlink("..", os.path.join(root, "deep", "up"))
    # not models: other files, a hidden folder, a folder named like a model
    for p, data in [("README.md", b"hello"), ("model.bin", b"GGUF\3\0\0\0"), ("notes.gguf.txt", b"x"),
                    (".cache/hidden.gguf", model_bytes("noarch", 40)),
                    ("empty.gguf.d/x.txt", b"")]:
        p = os.path.join(root, p)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
    # malformed: not GGUF at all, and a header that lies about its counts
    os.makedirs(os.path.join(root, "bad"))
    with open(os.path.join(root, "bad", "junk.gguf"), "wb") as f:
        f.write(b"this is not a model\n")
    with open(os.path.join(root, "bad", "cut.gguf"), "wb") as f:
        f.write(model_bytes("llama", 41)[:300])


def build_lmstudio(root):
    # key_length without value_length: values keep n_embd / n_head long
    write_model(os.path.join(root, "lmstudio-community", "Tiny-GGUF", "Tiny-Q4_0.gguf"), "llama", 51,
                extra_kvs=[("llama.attention.key_length", g.U32, 24)])
    write_model(os.path.join(root, "lmstudio-community", "Tiny-GGUF", "mmproj-Tiny-F16.gguf"), "noarch", 52)
    write_model(os.path.join(root, "bartowski", "Moe-GGUF", "Moe-Q4_K.gguf"), "moe", 53)


def build(root):
    build_plain(os.path.join(root, "plain"))
    build_ollama(os.path.join(root, "ollama"))
    build_hf(os.path.join(root, "hf"))
    build_lmstudio(os.path.join(root, "lmstudio"))


def many(d, n):
    """n small models (two layers each, ~14 KiB), 10 per sub-folder."""
    for i in range(n):
        kvs, ts = llama(1000 + i, "bench %d" % i, layers=2, vocab=32, ff=64)
        p = os.path.join(d, "f%03d" % (i // 10), "m%04d.gguf" % i)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        g.write(p, kvs=kvs, tensors=ts)


def race(d, n=40):
    """n models of 1 000 to 5 000 tensors listed out of data order, each a
    different shape, of a type id nothing knows (its bytes are the space up
    to the next tensor: 32 each, if the tensors were sorted by offset right).
    Opened concurrently, the sort of one model's tensors by offset must not
    read another's."""
    os.makedirs(d, exist_ok=True)
    for i in range(n):
        ts = [("t%d" % k, [8], 250, b"\0" * 32) for k in range(1000 + 101 * i)]
        random.Random(i).shuffle(ts)
        g.write(os.path.join(d, "r%02d.gguf" % i), kvs=[("general.architecture", g.STR, "llama")], tensors=ts)


# ---- the figures a summary must show, from the file(s) alone ----

def kv_of(h):
    return {k.decode(): (t, v) for k, t, v, _ in h.kvs}


def figures(files, manifest=None):
    """Summary figures of a model (a file or the shards of a split set). The
    bytes of each tensor come from TYPES, or from a reference manifest.tsv
    of tests/data (types this file does not know)."""
    sizes = {}
    if manifest:
        rows = [l.rstrip("\n").split("\t") for l in open(manifest)]
        c = rows[0]
        sizes = {r[c.index("name")].encode(): (r[c.index("type_name")].upper(), int(r[c.index("n_bytes")]))
                 for r in rows[1:]}
    hs = [g.read(f) for f in files]
    kv = kv_of(hs[0])
    tensors = [t for h in hs for t in h.tensors]

    def num(key):
        if key not in kv:
            return None
        t, v = kv[key]
        return v[1] if t == g.ARR else v

    def first(key):
        v = num(key)
        return v[0] if isinstance(v, list) else v

    arch = kv.get("general.architecture", (0, None))[1]
    arch = arch.decode() if arch else None
    params = 0
    mix = {}
    for t in tensors:
        n = 1
        for d in t["dims"]:
            n *= d
        params += n
        name, size = sizes[t["name"]] if sizes else (TYPES[t["type"]][0], nbytes(t["dims"], t["type"]))
        c, b = mix.get(name, (0, 0))
        mix[name] = (c + 1, b + size)
    tbytes = sum(b for _, b in mix.values())
    f = dict(name=kv["general.name"][1].decode() if "general.name" in kv else None, architecture=arch,
             parameters=params, file_bytes=sum(os.path.getsize(p) for p in files), tensor_bytes=tbytes,
             mix=mix)
    f["bits_per_weight"] = tbytes * 8 / params if params else None  # none without parameters
    f["main_type"] = sorted(mix.items(), key=lambda x: (-x[1][1], x[0]))[0][0] if mix else None
    a = (arch + ".") if arch else "\0"
    f["context_length"] = first(a + "context_length")
    f["layers"] = first(a + "block_count")
    f["embedding_length"] = first(a + "embedding_length")
    f["heads"] = first(a + "attention.head_count")
    f["kv_heads"] = first(a + "attention.head_count_kv")
    f["experts"] = first(a + "expert_count")
    f["experts_used"] = first(a + "expert_used_count") if f["experts"] else None
    tok = kv.get("tokenizer.ggml.tokens")
    f["vocabulary_size"] = len(tok[1][1]) if tok else None
    tm = kv.get("tokenizer.ggml.model")
    f["tokenizer_model"] = tm[1].decode() if tm else None
    f["chat_template"] = "tokenizer.chat_template" in kv
    # KV cache as llama.cpp sizes it: per layer n_head_kv(l) * (k + v) at
    # f16, k and v from key_length / value_length, else n_embd / n_head(0).
    # An encoder (attention not causal: the key says so, or BERT's kin) keeps none.
    kvb = None
    causal = num(a + "attention.causal")
    encoders = ("bert", "modern-bert", "nomic-bert", "nomic-bert-moe", "neo-bert", "jina-bert-v2", "jina-bert-v3",
                "eurobert")
    if arch and (not causal if causal is not None else arch in encoders):
        kvb = 0
    elif f["layers"] and num(a + "attention.head_count") is not None:
        heads = num(a + "attention.head_count")
        heads = heads if isinstance(heads, list) else [heads] * f["layers"]
        kvh = num(a + "attention.head_count_kv")
        kvh = heads if kvh is None else kvh if isinstance(kvh, list) else [kvh] * f["layers"]
        hd = f["embedding_length"] // heads[0]
        kl = num(a + "attention.key_length") or hd
        vl = num(a + "attention.value_length") or hd
        per = [2 * kvh[i] * (kl + vl) for i in range(f["layers"])]
        window, slides = sliding(arch, f["layers"], num(a + "attention.sliding_window"),
                                 num(a + "attention.sliding_window_pattern"))
        kvb = 1000 * sum(p for p, s in zip(per, slides) if not s)
        if window and any(slides):
            f["sliding_window"] = {"tokens": window, "layers": [i for i, s in enumerate(slides) if s],
                                   "kv_cache_bytes_f16": window * sum(p for p, s in zip(per, slides) if s)}
    f["kv_cache_bytes_per_1000_tokens_f16"] = kvb
    f.setdefault("sliding_window", None)
    blocks = {}
    for t in tensors:
        nm = t["name"].decode()
        n, _, rest = nm[4:].partition(".")
        if nm.startswith("blk.") and n.isdigit() and rest and (n == "0" or n[0] != "0"):
            blocks.setdefault(n, []).append(rest)
    f["blocks"] = blocks
    return f


# llama.cpp's sliding-window layers (src/models/<arch>.cpp): architecture ->
# (period without the pattern key, the full layer first, window without its key)
SLIDING = {"gemma2": (2, False, 4096), "gemma3": (6, False, 0), "cohere2": (4, False, 0), "olmo2": (4, False, 0),
           "gpt-oss": (2, False, 0), "afmoe": (4, False, 0), "exaone-moe": (4, False, 128),
           "laguna": (4, True, 0), "mellum": (4, False, 0)}


def sliding(arch, n_layer, window, pattern):
    """(window, a flag per layer) as llama.cpp reads attention.sliding_window(_pattern)."""
    if arch not in SLIDING:
        return 0, [False] * n_layer
    period, dense_first, dflt = SLIDING[arch]
    window = dflt if window is None else window
    if not window:
        return 0, [False] * n_layer
    if isinstance(pattern, list):
        return window, [bool(pattern[i]) if i < len(pattern) else False for i in range(n_layer)]
    n = period if pattern is None else pattern
    return window, [n == 0 or (i % n != 0 if dense_first else i % n < n - 1) for i in range(n_layer)]


def params_text(n):
    """As people write it: by magnitude, two decimals, and a figure that
    rounds to 1000.00 goes to the next unit (999 999 is 1.00 M)."""
    if n < 1000:
        return str(n)
    units = [(1e3, "K"), (1e6, "M"), (1e9, "B"), (1e12, "T")]
    k = max(i for i, (div, _) in enumerate(units) if n >= div)
    t = "%.2f" % (n / units[k][0])
    if t == "1000.00" and k + 1 < len(units):
        k += 1
        t = "%.2f" % (n / units[k][0])
    return "%s %s" % (t, units[k][1])


def bpw_text(b):
    """Bits per weight as summary and models.tsv write it: "-" without parameters."""
    return "-" if b is None else "%.2f" % b


def check_summary(d, files, manifest=None):
    """Compare a model folder's summary.json, summary, types.tsv and blocks/
    with figures(files). Prints what differs; returns the number of problems."""
    f = figures(files, manifest)
    bad = []
    j = json.load(open(os.path.join(d, "summary.json")))
    for k in ("name", "architecture", "parameters", "file_bytes", "tensor_bytes", "main_type", "context_length",
              "layers", "embedding_length", "heads", "kv_heads", "experts", "experts_used", "vocabulary_size",
              "tokenizer_model", "chat_template", "kv_cache_bytes_per_1000_tokens_f16", "sliding_window"):
        if j.get(k, "(missing)") != f[k]:
            bad.append("summary.json %s: %r, expected %r" % (k, j.get(k, "(missing)"), f[k]))
    if (j["bits_per_weight"] is None) != (f["bits_per_weight"] is None) or (
            f["bits_per_weight"] is not None and abs(j["bits_per_weight"] - f["bits_per_weight"]) > 5e-5):
        bad.append("summary.json bits_per_weight: %r, expected %r" % (j["bits_per_weight"], f["bits_per_weight"]))
    ptxt = params_text(f["parameters"])
    if j["parameters_text"] != ptxt:
        bad.append("summary.json parameters_text: %r, expected %r" % (j["parameters_text"], ptxt))
    mix = {m["type"]: (m["tensors"], m["bytes"]) for m in j["types"]}
    if mix != f["mix"]:
        bad.append("summary.json types: %r, expected %r" % (mix, f["mix"]))
    for m in j["types"]:
        if abs(m["share"] - m["bytes"] / f["tensor_bytes"]) > 1e-6:
            bad.append("summary.json share of %s: %r" % (m["type"], m["share"]))
    order = [m["bytes"] for m in j["types"]]
    if order != sorted(order, reverse=True):
        bad.append("summary.json types not by bytes, most first")
    # types.tsv: the same mix
    rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(d, "types.tsv"))][1:]
    tmix = {r[0]: (int(r[3]), int(r[4])) for r in rows}
    if tmix != mix:
        bad.append("types.tsv %r != summary.json types %r" % (tmix, mix))
    # tensors.tsv: parameters are the sum of n_elements
    rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(d, "tensors.tsv"))]
    ne = rows[0].index("n_elements")
    if sum(int(r[ne]) for r in rows[1:]) != j["parameters"]:
        bad.append("tensors.tsv n_elements do not add up to parameters")
    # the text for people
    t = open(os.path.join(d, "summary")).read()
    want = ["parameters      %s (%d)" % (ptxt, f["parameters"]),
            "bits per weight %s" % bpw_text(f["bits_per_weight"]), "main type       %s" % (f["main_type"] or "-"),
            "architecture    %s" % (f["architecture"] or "-"), "name            %s" % (f["name"] or "-"),
            "chat template   %s" % ("yes" if f["chat_template"] else "no"),
            "(%d bytes)" % f["file_bytes"]]
    for label, k in (("context length", "context_length"), ("layers", "layers"),
                     ("embedding size", "embedding_length"), ("heads", "heads"), ("kv heads", "kv_heads")):
        if f[k]:
            want.append("%-15s %d\n" % (label, f[k]))
    if f["experts"]:
        want.append("experts         %d used of %d" % (f["experts_used"], f["experts"]))
    if f["vocabulary_size"]:
        want.append("vocabulary      %d tokens (%s)" % (f["vocabulary_size"], f["tokenizer_model"] or "-"))
    for ty, (c, b) in f["mix"].items():
        want.append("  %-10s %6d %-7s " % (ty, c, "tensor" if c == 1 else "tensors"))
    for w in want:
        if w not in t:
            bad.append("summary lacks %r" % w)
    if (f["kv_cache_bytes_per_1000_tokens_f16"] is None) == ("kv cache" in t):
        bad.append("summary: kv cache line present: %s" % ("kv cache" in t))
    if (f["kv_cache_bytes_per_1000_tokens_f16"] == 0) != ("kv cache        none" in t):
        bad.append("summary: kv cache none: %s" % ("kv cache        none" in t))
    sw = f["sliding_window"]
    line = "sliding window  %d tokens in %d of %d layers" % (sw["tokens"], len(sw["layers"]), f["layers"]) if sw else None
    if not (line in t.splitlines() if sw else "sliding window" not in t):
        bad.append("summary: sliding window line %r" % (line,))
    if not f["experts"] and "experts" in t:
        bad.append("summary: experts line for a model without experts")
    # blocks/<N>/: one folder per layer, links to its tensors
    bd = os.path.join(d, "blocks")
    got = {n: sorted(os.listdir(os.path.join(bd, n))) for n in os.listdir(bd)}
    want_b = {n: sorted(g.esc(r) for r in v) for n, v in f["blocks"].items()}
    if got != want_b:
        bad.append("blocks/: %r, expected %r" % (got, want_b))
    for n, names in f["blocks"].items():
        for r in names[:3]:
            link = os.path.join(bd, n, g.esc(r))
            if os.readlink(link) != "../../tensors/" + g.esc("blk.%s.%s" % (n, r)) or not os.path.isdir(link):
                bad.append("blocks/%s/%s -> %s" % (n, r, os.readlink(link)))
    for b in bad:
        print("%s: %s" % (d, b))
    return len(bad)


def main():
    cmd = sys.argv[1]
    if cmd == "build":
        build(sys.argv[2])
    elif cmd == "many":
        many(sys.argv[2], int(sys.argv[3]))
    elif cmd == "race":
        race(sys.argv[2])
    elif cmd == "split":
        write_split(sys.argv[2], int(sys.argv[4]), int(sys.argv[3]))
    elif cmd == "model":
        write_model(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == "summary":
        a = sys.argv[2:]
        man = None
        if a[0] == "--manifest":
            man, a = a[1], a[2:]
        sys.exit(1 if check_summary(a[0], a[1:], man) else 0)
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
