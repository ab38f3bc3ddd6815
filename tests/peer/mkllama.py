#!/usr/bin/python3
"""mkllama.py - tiny llama GGUF models, quantized by the real ggml, and their references.

  mkllama.py model OUT.gguf [--type Q4_K[,Q6_K,...]] [--ref-f32 REF.gguf] [--split]
             [--seed 1] [--n-embd 256] [--n-layer 2] [--n-head 4] [--n-head-kv 2]
             [--n-ff 512] [--ctx 128] [--vocab VOCAB.gguf] [--tied] [--imatrix IM.gguf]
      A llama with the tokenizer.* keys of VOCAB (default the real llama-spm vocabulary,
      32000 tokens) and seeded random weights. Every 2-D weight is quantized by
      ggml_quantize_chunk (imatrix NULL) to --type; a comma list cycles its types over
      the 2-D tensors in file order, so one model holds several types. A row that is
      not a multiple of a type's block falls back as llama-quantize does (Q4_K->Q5_0,
      Q6_K->Q8_0, IQ4_XS->IQ4_NL, ...). 1-D norms stay F32. IQ2_XXS, IQ2_XS and IQ1_S
      need --imatrix IMATRIX.gguf (a random imatrix in llama-imatrix's GGUF format is
      written there and every quantization uses it).
      --ref-f32: also write the same model with every tensor replaced by ggml's own
      to_float of the stored blocks (the decoding oracle).
      --split: write OUT-00001-of-00002.gguf and OUT-00002-of-00002.gguf instead of
      OUT.gguf (split.* keys as llama.cpp's gguf-split writes them).

  mkllama.py f32 IN.gguf OUT.gguf         every tensor to F32 by ggml's to_float
  mkllama.py convert IN.gguf OUT.gguf T   2-D+ tensors to T (f16, bf16, q8_0, ...) from
                                          their to_float values, 1-D to F32,
                                          general.file_type set, split.* dropped
                                          (what as/T.gguf should be)
  mkllama.py split IN.gguf PREFIX [N]     gguf-split style shards, first N tensors in shard 1
  mkllama.py merge SHARD1 OUT.gguf        the shards as one GGUF, split.* keys dropped

Tests import it too: read_gguf / write_gguf / make_llama.
"""
import argparse
import gzip
import mmap
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ggml  # noqa: E402

DEFAULT_VOCAB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "real",
                             "ggml-vocab-llama-spm.gguf.gz")

# GGUF value types (gguf.h)
U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)
SCALAR = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f",
          BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}
NP = {U8: "<u1", I8: "<i1", U16: "<u2", I16: "<i2", U32: "<u4", I32: "<i4", F32: "<f4",
      BOOL: "<u1", U64: "<u8", I64: "<i8", F64: "<f8"}

# llama_ftype (llama.h) for general.file_type, keyed by the main ggml type
FTYPE = {"f32": 0, "f16": 1, "q4_0": 2, "q4_1": 3, "q8_0": 7, "q5_0": 8, "q5_1": 9,
         "q2_K": 10, "q3_K": 12, "q4_K": 15, "q5_K": 17, "q6_K": 18, "iq2_xxs": 19,
         "iq2_xs": 20, "iq3_xxs": 23, "iq1_s": 24, "iq4_nl": 25, "iq3_s": 26,
         "iq2_s": 28, "iq4_xs": 30, "iq1_m": 31, "bf16": 32, "tq1_0": 36, "tq2_0": 37,
         "mxfp4": 38, "nvfp4": 39, "q1_0": 40, "q2_0": 41}

# llama-quant.cpp tensor_type_fallback: when ne[0] % block != 0
FALLBACK = {"iq1_s": "iq4_nl", "iq1_m": "iq4_nl", "iq2_xxs": "iq4_nl", "iq2_xs": "iq4_nl",
            "iq2_s": "iq4_nl", "iq3_xxs": "iq4_nl", "iq3_s": "iq4_nl", "iq4_xs": "iq4_nl",
            "q2_0": "q4_0", "q2_K": "q4_0", "q3_K": "q4_0", "tq1_0": "q4_0", "tq2_0": "q4_0",
            "q4_K": "q5_0", "q5_K": "q5_1", "q6_K": "q8_0"}


def canon(t):
    """'Q4_K' / 'q4_k' / 12 -> 'q4_K' (ggml's own spelling); an id ggml does not define
    (a fork's type, ik_llama.cpp's IQ2_K = 137) stays a number, to be written as it is."""
    tid = ggml.type_id(t)
    for k, v in ggml.TYPES.items():
        if v == tid:
            return k
    if isinstance(t, int):
        return t
    raise KeyError(t)


# ---------------------------------------------------------------- GGUF reading
class Tensor:
    def __init__(self, name, ne, type, data):
        self.name, self.ne, self.type, self.data = name, list(ne), canon(type), data

    @property
    def n(self):
        return int(np.prod(self.ne))


def _rd_str(b, p):
    n, = struct.unpack_from("<Q", b, p)
    return bytes(b[p + 8:p + 8 + n]).decode("utf-8"), p + 8 + n


def _rd_val(b, p, t):
    if t == STR:
        return _rd_str(b, p)
    if t == ARR:
        at, n = struct.unpack_from("<IQ", b, p)
        p += 12
        if at == STR:
            out = []
            for _ in range(n):
                s, p = _rd_str(b, p)
                out.append(s)
            return (at, out), p
        if at == ARR:
            raise ValueError("nested arrays are not supported here")
        a = np.frombuffer(b, dtype=NP[at], count=n, offset=p).copy()
        return (at, a), p + a.nbytes
    v, = struct.unpack_from(SCALAR[t], b, p)
    return v, p + struct.calcsize(SCALAR[t])


def read_gguf(path):
    """Returns (kvs, tensors): kvs a list of [key, type, value] in file order (arrays as
    (arr_type, list or ndarray)), tensors a list of Tensor whose data is bytes."""
    if path.endswith(".gz"):
        with gzip.open(path, "rb") as f:
            b = f.read()
    else:
        with open(path, "rb") as f:
            b = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    if b[:4] != b"GGUF":
        raise ValueError("%s: not a GGUF file" % path)
    ver, nt, nkv = struct.unpack_from("<IQQ", b, 4)
    p = 24
    kvs = []
    for _ in range(nkv):
        k, p = _rd_str(b, p)
        t, = struct.unpack_from("<I", b, p)
        v, p = _rd_val(b, p + 4, t)
        kvs.append([k, t, v])
    infos = []
    for _ in range(nt):
        name, p = _rd_str(b, p)
        nd, = struct.unpack_from("<I", b, p)
        ne = struct.unpack_from("<%dQ" % nd, b, p + 4)
        p += 4 + 8 * nd
        t, off = struct.unpack_from("<IQ", b, p)
        p += 12
        infos.append((name, ne, t, off))
    align = next((v for k, t, v in kvs if k == "general.alignment"), 32)
    base = (p + align - 1) // align * align
    g = _g()
    tensors = []
    for name, ne, t, off in infos:
        n = int(np.prod(ne))
        size = n // g.blck_size(t) * g.type_size(t)
        tensors.append(Tensor(name, ne, t, bytes(b[base + off:base + off + size])))
    return kvs, tensors


# ---------------------------------------------------------------- GGUF writing
def _w_str(s):
    s = s.encode("utf-8")
    return struct.pack("<Q", len(s)) + s


def _w_val(t, v):
    if t == STR:
        return _w_str(v)
    if t == ARR:
        at, a = v
        if at == STR:
            return struct.pack("<IQ", at, len(a)) + b"".join(_w_str(s) for s in a)
        a = np.asarray(a, dtype=NP[at])
        return struct.pack("<IQ", at, a.size) + a.tobytes()
    return struct.pack(SCALAR[t], v)


def write_gguf(path, kvs, tensors, alignment=None):
    """GGUF v3. Tensor data in list order, each at an offset padded to `alignment`
    (default: general.alignment of kvs, else 32; write general.alignment in kvs
    yourself if you give another)."""
    if alignment is None:
        alignment = next((v for k, t, v in kvs if k == "general.alignment"), 32)
    head = [b"GGUF", struct.pack("<IQQ", 3, len(tensors), len(kvs))]
    for k, t, v in kvs:
        head += [_w_str(k), struct.pack("<I", t), _w_val(t, v)]
    off = 0
    offs = []
    for x in tensors:
        offs.append(off)
        head += [_w_str(x.name), struct.pack("<I", len(x.ne)),
                 struct.pack("<%dQ" % len(x.ne), *x.ne),
                 struct.pack("<IQ", ggml.type_id(x.type), off)]
        off = (off + len(x.data) + alignment - 1) // alignment * alignment
    h = b"".join(head)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(h)
        f.write(b"\0" * ((-len(h)) % alignment))
        for x, o in zip(tensors, offs):
            f.write(x.data)
            f.write(b"\0" * ((-len(x.data)) % alignment))
    os.replace(tmp, path)


def set_kv(kvs, key, t, v):
    """Replace the value of key in place (keeping its position), or append it."""
    for kv in kvs:
        if kv[0] == key:
            kv[1], kv[2] = t, v
            return
    kvs.append([key, t, v])


# ---------------------------------------------------------------- ggml oracle
_G = None


def _g():
    global _G
    if _G is None:
        _G = ggml.Ggml()
    return _G


def to_f32(x):
    """ggml's to_float of a tensor's blocks, as a float32 array."""
    return _g().dequantize(x.type, x.data, x.n)


def quantize(t, values, ne, imatrix=None):
    """ggml_quantize_chunk of float32 values shaped ne (ne[0] is the row); imatrix None or
    ne[0] floats (llama-quantize passes in_sum2 / counts)."""
    rows = np.asarray(values, dtype=np.float32).reshape(-1, ne[0])
    return _g().quantize(t, rows, imatrix=imatrix)


def pick_type(t, ne0):
    """The type llama-quantize would store for a row of ne0 when asked for t."""
    g = _g()
    t = canon(t)
    if ne0 % g.blck_size(t) == 0:
        return t
    f = FALLBACK.get(t, t)
    return f if ne0 % g.blck_size(f) == 0 else "f16"


def f32_model(kvs, tensors):
    """Every tensor replaced by ggml's dequantization; general.file_type ALL_F32."""
    kvs = [list(kv) for kv in kvs]
    if any(k == "general.file_type" for k, _, _ in kvs):
        set_kv(kvs, "general.file_type", U32, 0)
    return kvs, [Tensor(x.name, x.ne, "f32", to_f32(x).tobytes()) for x in tensors]


def n_dims(ne):
    """ggml_n_dims: the dimensions up to the last one that is not 1 (at least 1)."""
    n = len(ne)
    while n > 1 and ne[n - 1] == 1:
        n -= 1
    return max(n, 1)


def convert_model(kvs, tensors, t):
    """What as/<t>.gguf holds: tensors of 2+ dimensions (ggml_n_dims: [64, 1] is 1-D)
    converted to t from their to_float values (a row that t's block does not divide
    becomes F16), the others to F32; split.* keys dropped."""
    t = canon(t)
    kvs = [list(kv) for kv in kvs if not kv[0].startswith("split.")]
    set_kv(kvs, "general.file_type", U32, FTYPE[t])
    out = []
    for x in tensors:
        f = to_f32(x)
        tt = t if n_dims(x.ne) >= 2 else "f32"
        if tt != "f32" and x.ne[0] % _g().blck_size(tt):
            tt = "f16"
        out.append(Tensor(x.name, x.ne, tt, quantize(tt, f, x.ne)))
    return kvs, out


# ---------------------------------------------------------------- the model
def make_llama(vocab=DEFAULT_VOCAB, types=("f32",), seed=1, n_embd=256, n_layer=2,
               n_head=4, n_head_kv=2, n_ff=512, ctx=128, tied=False, name="tiny-llama",
               imatrix=None):
    """(kvs, tensors) of a tiny llama with VOCAB's tokenizer and seeded random weights.
    The f32 values depend only on seed and shapes, not on types: the same seed with
    types=["f32"] gives the originals that the quantized models were made from.
    imatrix: None or {tensor name: ne[0] floats} used by every quantization."""
    vkv, _ = read_gguf(vocab)
    tok = [kv for kv in vkv if kv[0].startswith("tokenizer.")]
    n_vocab = len(next(v for k, t, v in tok if k == "tokenizer.ggml.tokens")[1])
    head_dim = n_embd // n_head
    types = [canon(t) for t in types]
    kvs = [
        ["general.architecture", STR, "llama"],
        ["general.name", STR, name],
        ["llama.context_length", U32, ctx],
        ["llama.embedding_length", U32, n_embd],
        ["llama.block_count", U32, n_layer],
        ["llama.feed_forward_length", U32, n_ff],
        ["llama.rope.dimension_count", U32, head_dim],
        ["llama.attention.head_count", U32, n_head],
        ["llama.attention.head_count_kv", U32, n_head_kv],
        ["llama.attention.layer_norm_rms_epsilon", F32, 1e-5],
        ["llama.vocab_size", U32, n_vocab],
        ["general.file_type", U32, FTYPE.get(types[0], 0)],
    ] + [list(kv) for kv in tok]
    rng = np.random.default_rng(seed)
    shapes = [("token_embd.weight", [n_embd, n_vocab])]
    for i in range(n_layer):
        b = "blk.%d." % i
        shapes += [(b + "attn_norm.weight", [n_embd]),
                   (b + "attn_q.weight", [n_embd, n_embd]),
                   (b + "attn_k.weight", [n_embd, head_dim * n_head_kv]),
                   (b + "attn_v.weight", [n_embd, head_dim * n_head_kv]),
                   (b + "attn_output.weight", [n_embd, n_embd]),
                   (b + "ffn_norm.weight", [n_embd]),
                   (b + "ffn_gate.weight", [n_embd, n_ff]),
                   (b + "ffn_down.weight", [n_ff, n_embd]),
                   (b + "ffn_up.weight", [n_embd, n_ff])]
    shapes.append(("output_norm.weight", [n_embd]))
    if not tied:
        shapes.append(("output.weight", [n_embd, n_vocab]))
    tensors = []
    k = 0
    for nm, ne in shapes:
        n = int(np.prod(ne))
        if len(ne) == 1:  # norms near 1
            v = (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)
            tensors.append(Tensor(nm, ne, "f32", v.tobytes()))
            continue
        v = (rng.standard_normal(n) / np.sqrt(ne[0])).astype(np.float32)
        t = pick_type(types[k % len(types)], ne[0])
        k += 1
        im = imatrix.get(nm) if imatrix else None
        tensors.append(Tensor(nm, ne, t, quantize(t, v, ne, im)))
    return kvs, tensors


# ---------------------------------------------------------------- imatrix
def make_imatrix(shapes, seed=1, chunks=10, chunk_size=128, dataset="random.txt"):
    """An imatrix GGUF as llama-imatrix writes it (tools/imatrix/imatrix.cpp): general.type
    "imatrix", imatrix.datasets (array of str), imatrix.chunk_count, imatrix.chunk_size
    (u32); per weight, sorted by name, NAME.in_sum2 F32 [ne0] (sum of squared activations;
    [ne0, n_expert] for MoE) and NAME.counts F32 [1] (tokens seen; gguf drops the trailing
    1 of ggml's 2-D [ne0,1] / [1,1]). shapes: [(name, ne)] of the 2-D weights.
    Returns (kvs, tensors, {name: in_sum2 / counts}) - the last is what llama-quantize
    hands to ggml_quantize_chunk."""
    rng = np.random.default_rng(seed + 1000)
    n_tok = float(chunks * chunk_size)
    kvs = [["general.type", STR, "imatrix"],
           ["imatrix.datasets", ARR, (STR, [dataset])],
           ["imatrix.chunk_count", U32, chunks],
           ["imatrix.chunk_size", U32, chunk_size]]
    tensors, weights = [], {}
    for nm, ne in sorted(shapes):
        mean_sq = np.exp(rng.standard_normal(ne[0])).astype(np.float32)  # positive, varied
        sums = (mean_sq * np.float32(n_tok)).astype(np.float32)
        tensors.append(Tensor(nm + ".in_sum2", [ne[0]], "f32", sums.tobytes()))
        tensors.append(Tensor(nm + ".counts", [1], "f32", np.float32([n_tok]).tobytes()))
        weights[nm] = sums / np.float32(n_tok)
    return kvs, tensors, weights


def llama_shapes(n_embd=256, n_layer=2, n_head=4, n_head_kv=2, n_ff=512, n_vocab=32000, tied=False):
    """The 2-D weights of make_llama, for make_imatrix."""
    kv = n_embd // n_head * n_head_kv
    s = [("token_embd.weight", [n_embd, n_vocab])]
    for i in range(n_layer):
        b = "blk.%d." % i
        s += [(b + "attn_q.weight", [n_embd, n_embd]), (b + "attn_k.weight", [n_embd, kv]),
              (b + "attn_v.weight", [n_embd, kv]), (b + "attn_output.weight", [n_embd, n_embd]),
              (b + "ffn_gate.weight", [n_embd, n_ff]), (b + "ffn_down.weight", [n_ff, n_embd]),
              (b + "ffn_up.weight", [n_embd, n_ff])]
    if not tied:
        s.append(("output.weight", [n_embd, n_vocab]))
    return s


# ---------------------------------------------------------------- splits
def split_names(out, count=2):
    base = out[:-5] if out.endswith(".gguf") else out
    return ["%s-%05d-of-%05d.gguf" % (base, i + 1, count) for i in range(count)]


def split_model(kvs, tensors, first=None):
    """Two shards as gguf-split writes them: shard 1 has every key then split.no (u16),
    split.count (u16), split.tensors.count (i32, all tensors); shard 2 only those three."""
    first = len(tensors) // 2 if first is None else first
    parts = [tensors[:first], tensors[first:]]
    shards = []
    for i, part in enumerate(parts):
        k = [list(kv) for kv in kvs] if i == 0 else []
        k += [["split.no", U16, i], ["split.count", U16, len(parts)],
              ["split.tensors.count", I32, len(tensors)]]
        shards.append((k, part))
    return shards


def merge_shards(first_path):
    kvs, tensors = read_gguf(first_path)
    count = next(v for k, t, v in kvs if k == "split.count")
    prefix = first_path[:-len("-00001-of-%05d.gguf" % count)]
    for p in split_names(prefix + ".gguf", count)[1:]:
        tensors += read_gguf(p)[1]
    return [kv for kv in kvs if not kv[0].startswith("split.")], tensors


# ---------------------------------------------------------------- command line
def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("model")
    m.add_argument("out")
    m.add_argument("--type", default="f32")
    m.add_argument("--ref-f32")
    m.add_argument("--split", action="store_true")
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--n-embd", type=int, default=256)
    m.add_argument("--n-layer", type=int, default=2)
    m.add_argument("--n-head", type=int, default=4)
    m.add_argument("--n-head-kv", type=int, default=2)
    m.add_argument("--n-ff", type=int, default=512)
    m.add_argument("--ctx", type=int, default=128)
    m.add_argument("--vocab", default=DEFAULT_VOCAB)
    m.add_argument("--tied", action="store_true")
    m.add_argument("--imatrix", metavar="IMATRIX.gguf",
                   help="write a random imatrix GGUF and quantize with it (allows IQ2_XXS, IQ2_XS, IQ1_S)")
    f = sub.add_parser("f32")
    f.add_argument("inp")
    f.add_argument("out")
    c = sub.add_parser("convert")
    c.add_argument("inp")
    c.add_argument("out")
    c.add_argument("type")
    s = sub.add_parser("split")
    s.add_argument("inp")
    s.add_argument("out")
    s.add_argument("first", type=int, nargs="?")
    g = sub.add_parser("merge")
    g.add_argument("inp")
    g.add_argument("out")
    a = ap.parse_args(argv)

    if a.cmd == "model":
        weights = None
        if a.imatrix:
            n_vocab = len(next(v for k, t, v in read_gguf(a.vocab)[0] if k == "tokenizer.ggml.tokens")[1])
            ik, it, weights = make_imatrix(llama_shapes(a.n_embd, a.n_layer, a.n_head, a.n_head_kv,
                                                        a.n_ff, n_vocab, a.tied), a.seed)
            write_gguf(a.imatrix, ik, it)
        else:
            for t in a.type.split(","):
                if _g().requires_imatrix(t):
                    ap.error("%s needs an imatrix (ggml would abort): add --imatrix FILE" % t)
        kvs, tensors = make_llama(a.vocab, a.type.split(","), a.seed, a.n_embd, a.n_layer,
                                  a.n_head, a.n_head_kv, a.n_ff, a.ctx, a.tied, imatrix=weights)
        if a.split:
            for p, (k, t) in zip(split_names(a.out), split_model(kvs, tensors)):
                write_gguf(p, k, t)
        else:
            write_gguf(a.out, kvs, tensors)
        if a.ref_f32:
            write_gguf(a.ref_f32, *f32_model(kvs, tensors))
        for x in tensors:
            print("%-28s %-8s %s" % (x.name, x.type, x.ne), file=sys.stderr)
    elif a.cmd == "f32":
        write_gguf(a.out, *f32_model(*read_gguf(a.inp)))
    elif a.cmd == "convert":
        write_gguf(a.out, *convert_model(*read_gguf(a.inp), a.type))
    elif a.cmd == "split":
        kvs, tensors = read_gguf(a.inp)
        for p, (k, t) in zip(split_names(a.out), split_model(kvs, tensors, a.first)):
            write_gguf(p, k, t)
    elif a.cmd == "merge":
        write_gguf(a.out, *merge_shards(a.inp))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
