"""make_seeds.py OUTDIR - seed corpora for the fuzz targets, from tests/data.

OUTDIR/model/: small GGUF files: every reference tensor of tests/data (one
tensor per file, with all the metadata of its file, so each type appears in
every dialect context), each file's metadata alone, the real vocabulary
files with their arrays cut to 300 elements, a split model (shards joined by
the fuzz_model marker), a v1 file and a few odd shapes, and tiny models of
the architectures as/hf/ knows (every tensor their class needs, a cut
SentencePiece vocabulary, llama 3 and longrope factors).
OUTDIR/decode/: for every reference tensor, a fuzz_decode input naming its
type with the first bytes of its real data."""
import gzip
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests"))
import gguf_tool as g  # noqa: E402

MARK = b"\n~SHARD~\n"


def type_table():
    """Type names in the order of src/gguf/types.c's table (fuzz_decode indexes it)."""
    path = os.path.join(TOP, "src", "gguf", "types.c")
    names = []
    for line in open(path):
        m = re.match(r"\s*\{T\(([A-Za-z0-9_]+)\), \.id = (\d+),", line)
        if m:
            names.append((m.group(1), int(m.group(2))))
    if not names:  # the rows' spelling changed: say so rather than make no decoder seeds
        sys.exit("make_seeds.py: no type rows found in %s" % path)
    return names


def main():
    out = sys.argv[1]
    md, dd = os.path.join(out, "model"), os.path.join(out, "decode")
    os.makedirs(md, exist_ok=True)
    os.makedirs(dd, exist_ok=True)
    table = type_table()
    index_of = {}
    for i, (name, tid) in enumerate(table):
        index_of.setdefault((name.upper(), tid), i)
        index_of.setdefault((name.upper(), None), i)

    def put(d, name, data):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)

    refs = [("mainline", os.path.join(TOP, "tests/data/mainline/mainline.gguf")),
            ("ik", os.path.join(TOP, "tests/data/ik/ik.gguf"))]
    for f in ("stq1_0-id43", "stq1_0-id42", "prism", "forks-rawbytes"):
        refs.append((f, os.path.join(TOP, "tests/data/forks", f + ".gguf")))
    for tag, path in refs:
        b = open(path, "rb").read()
        h = g.read(b)
        kvs = [(k, t, v) for k, t, v, _ in h.kvs]
        put(md, f"{tag}-kv-only.gguf", g.build(kvs=kvs))
        offs = sorted(t["offset"] for t in h.tensors)
        for t in h.tensors:
            start = h.data_offset + t["offset"]
            later = [o for o in offs if o > t["offset"]]
            end = h.data_offset + later[0] if later else len(b)
            data = b[start:end]
            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", t["name"].decode("utf-8", "replace"))
            if len(data) <= 48 << 10:
                put(md, f"{tag}-{safe}.gguf",
                    g.build(kvs=kvs, tensors=[(t["name"], t["dims"], t["type"], data)]))
            # Decoder seed: the type as our table knows it.
            base = t["name"].decode("utf-8", "replace").split(".")[0].upper()
            idx = index_of.get((base, t["type"]))
            if idx is None:
                idx = next((i for i, (n, tid) in enumerate(table) if tid == t["type"]), None)
            if idx is not None:
                hdr = struct.pack("<HBBB", idx, 3, 1, idx % 3)
                hdr += struct.pack("<8H", 0, 5000, 17, 300, 255, 257, 1000, 1100)
                put(dd, f"{tag}-{safe}", hdr + data[:6144])

    for v in ("ggml-vocab-gpt-2", "ggml-vocab-llama-spm", "ggml-vocab-bert-bge"):
        b = gzip.open(os.path.join(TOP, "tests/data/real", v + ".gguf.gz")).read()
        h = g.read(b)
        kvs = []
        for k, t, val, _ in h.kvs:
            if t == g.ARR:
                val = (val[0], val[1][:300])
            kvs.append((k, t, val))
        put(md, v + ".gguf", g.build(kvs=kvs))

    # Tiny models of the architectures as/hf/ knows, so that fuzzing reaches
    # its plan (names, q/k rows, experts, gemma's norms, rope factors).
    b = gzip.open(os.path.join(TOP, "tests/data/real/ggml-vocab-llama-spm.gguf.gz")).read()
    vocab = [(k, t, (v[0], v[1][:300]) if t == g.ARR else v) for k, t, v, _ in g.read(b).kvs
             if k.startswith(b"tokenizer.")]
    vocab = [(k.decode(), t, v) for k, t, v in vocab]

    def f32(n, x=0.5):
        return struct.pack("<%df" % n, *[x + 0.01 * i for i in range(n)])

    for arch, extra in (("llama", ["rope_freqs"]), ("qwen2moe", []), ("gemma3", []), ("phi3", ["longrope"])):
        E, H, KV, D, FF, X = 8, 2, 1, 4, 8, 2
        kvs = [("general.architecture", g.STR, arch), (arch + ".block_count", g.U32, 1),
               (arch + ".embedding_length", g.U32, E), (arch + ".attention.head_count", g.U32, H),
               (arch + ".attention.head_count_kv", g.U32, KV), (arch + ".feed_forward_length", g.U32, FF),
               (arch + ".context_length", g.U32, 64), (arch + ".attention.layer_norm_rms_epsilon", g.F32, 1e-5)]
        if arch == "qwen2moe":
            kvs += [(arch + ".expert_count", g.U32, X), (arch + ".expert_used_count", g.U32, 1),
                    (arch + ".expert_shared_feed_forward_length", g.U32, FF)]
        if arch == "phi3":
            kvs += [(arch + ".rope.scaling.original_context_length", g.U32, 16),
                    (arch + ".rope.scaling.attn_factor", g.F32, (1 + 0.5) ** 0.5)]
        ts = [("token_embd.weight", [E, 300]), ("output_norm.weight", [E])]
        p = "blk.0."
        ts += [(p + "attn_norm.weight", [E]), (p + "attn_output.weight", [H * D, E]),
               (p + "ffn_norm.weight", [E])]
        if arch == "phi3":
            ts += [(p + "attn_qkv.weight", [E, (H + 2 * KV) * D]), (p + "ffn_up.weight", [E, 2 * FF]),
                   (p + "ffn_down.weight", [FF, E]), ("rope_factors_long.weight", [D // 2]),
                   ("rope_factors_short.weight", [D // 2])]
        else:
            ts += [(p + "attn_q.weight", [E, H * D]), (p + "attn_k.weight", [E, KV * D]),
                   (p + "attn_v.weight", [E, KV * D])]
        if arch == "llama":
            ts += [(p + "ffn_gate.weight", [E, FF]), (p + "ffn_up.weight", [E, FF]), (p + "ffn_down.weight", [FF, E]),
                   ("rope_freqs.weight", [D // 2])]
        if arch == "qwen2moe":
            ts += [(p + n + ".bias", [d]) for n, d in (("attn_q", H * D), ("attn_k", KV * D), ("attn_v", KV * D))]
            ts += [(p + "ffn_gate_inp.weight", [E, X]), (p + "ffn_gate_exps.weight", [E, FF, X]),
                   (p + "ffn_up_exps.weight", [E, FF, X]), (p + "ffn_down_exps.weight", [FF, E, X]),
                   (p + "ffn_gate_inp_shexp.weight", [E]), (p + "ffn_gate_shexp.weight", [E, FF]),
                   (p + "ffn_up_shexp.weight", [E, FF]), (p + "ffn_down_shexp.weight", [FF, E])]
        if arch == "gemma3":
            ts += [(p + "attn_q_norm.weight", [D]), (p + "attn_k_norm.weight", [D]),
                   (p + "post_attention_norm.weight", [E]), (p + "post_ffw_norm.weight", [E]),
                   (p + "ffn_gate.weight", [E, FF]), (p + "ffn_up.weight", [E, FF]), (p + "ffn_down.weight", [FF, E])]
        tensors = []
        for name, dims in ts:
            n = 1
            for d in dims:
                n *= d
            tensors.append((name.encode(), dims, 0, f32(n, 1.0 if "rope" in name else 0.5)))
        put(md, "hf-%s.gguf" % arch, g.build(kvs=kvs + vocab, tensors=tensors))

    # A split model in two shards, joined by the marker fuzz_model splits at.
    q = bytes(range(256)) * 2
    s1 = g.build(kvs=[("general.architecture", g.STR, "llama"), ("split.no", g.U16, 0),
                      ("split.count", g.U16, 2), ("split.tensors.count", g.I32, 2)],
                 tensors=[("a.weight", [32, 4], 8, q[:136])])
    s2 = g.build(kvs=[("split.no", g.U16, 1), ("split.count", g.U16, 2),
                      ("split.tensors.count", g.I32, 2)],
                 tensors=[("b.weight", [64, 2], 1, q)])
    put(md, "split-2.gguf", s1 + MARK + s2)

    # Every value type, a nested array, a v1 file, odd shapes and names.
    kvs = [("u8", g.U8, 255), ("i8", g.I8, -128), ("u16", g.U16, 65535), ("i16", g.I16, -1),
           ("u32", g.U32, 7), ("i32", g.I32, -7), ("f32", g.F32, 0.1), ("bool", g.BOOL, True),
           ("str", g.STR, "line\nbreak\\ \xff"), ("u64", g.U64, 2**64 - 1), ("i64", g.I64, -2**63),
           ("f64", g.F64, -0.0), ("arr.str", g.ARR, (g.STR, [b"a\nb", b"\xff\xfe", b""])),
           ("arr.nest", g.ARR, (g.ARR, [(g.I32, [1, 2]), (g.F32, [float("nan"), float("inf")])])),
           ("arr.bool", g.ARR, (g.BOOL, [True, False])), ("general.alignment", g.U32, 64)]
    f16 = struct.pack("<4e", 1.0, -2.0, 0.5, 65504.0) * 8
    put(md, "all-types.gguf", g.build(kvs=kvs, alignment=64, tensors=[
        ("", [16, 2], 1, f16), (".", [0], 0, b""), ("..", [32, 1, 1, 1], 24, bytes(32)),
        ("a/b%c\0", [3], 0, struct.pack("<3f", 1, 2, 3)), ("x" * 300, [2, 2], 0, bytes(16))]))
    put(md, "v1.gguf", g.build(version=1, kvs=[("general.name", g.STR, "v1")],
                               tensors=[("t", [32], 8, q[:34])]))
    put(md, "interleaved.gguf", g.build(tensors=[("r8", [32, 8], 202, q[:144]),
                                                 ("i2s", [128, 2], 36, q[:64] + bytes(32)),
                                                 ("bn", [64, 2], 134, q[:30])]))


if __name__ == "__main__":
    main()
