#!/usr/bin/python3
"""mkref.py - tiny llamas whose weights are rows of the reference sets' blocks
(tests/data/mainline: ggml's; tests/data/ik: the ik_llama.cpp fork's), so that what a
reader must decode them to is known from the sets' f32/ files, not from gguffs.

  mkref.py SET OUT.gguf VOCAB.gguf
      SET: a name of REFS (mainline, q1_0, q2_0, ik).

Tests import it too: small_vocab(path), make(set, vocab) -> (kvs, tensors, {name: the
float32 values, [rows, row]}).
"""
import csv
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import gguf_tool  # noqa: E402
import mkllama as L  # noqa: E402

DATA = os.path.join(HERE, "..", "data")
SMALL_VOCAB = 512

# set: (reference set, the type ids the weights take in turn; None: the fork's own, 133 up)
REFS = {
    # every weight type gguf-py 0.19.0 dequantizes (gguf.quants)
    "mainline": ("mainline", [0, 1, 30, 2, 3, 6, 7, 8, 10, 11, 12, 13, 14, 34, 35, 39, 40, 16, 17, 22, 18, 21,
                              19, 29, 20, 23]),
    "q1_0": ("mainline", [41]),  # in gguf-py's enum, without a dequantizer
    "q2_0": ("mainline", [42]),  # not in gguf-py's enum
    "ik": ("ik", None),          # every type of the ik_llama.cpp fork's own
}


def small_vocab(path):
    """The first 512 tokens of the real llama-spm vocabulary (<unk>, <s>, </s>, the 256
    byte tokens, 253 pieces), its other tokenizer keys kept, written to path."""
    kvs, _ = L.read_gguf(os.path.join(DATA, "real", "ggml-vocab-llama-spm.gguf.gz"))
    out = [[k, t, (v[0], v[1][:SMALL_VOCAB]) if t == L.ARR else v] for k, t, v in kvs if k.startswith("tokenizer.")]
    L.write_gguf(path, out, [])
    return path


def rows_of(refset):
    """{type id: (the bytes of each row, their float32 values [rows, 1024])} of a
    reference set's tensors of 1024-value rows."""
    d = os.path.join(DATA, refset)
    path = os.path.join(d, refset + ".gguf")
    base = gguf_tool.read(path).data_offset
    raw = open(path, "rb").read()
    out = {}
    with open(os.path.join(d, "manifest.tsv")) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            dims = [int(x) for x in r["dims"].split(",")]
            if len(dims) != 2 or dims[0] != 1024 or int(r["type_id"]) in out:
                continue
            data = raw[base + int(r["offset"]):base + int(r["offset"]) + int(r["n_bytes"])]
            rb = len(data) // dims[1]
            vals = np.fromfile(os.path.join(d, r["f32_file"]), "<f4").reshape(dims[1], 1024)
            out[int(r["type_id"])] = ([data[i * rb:(i + 1) * rb] for i in range(dims[1])], vals)
    return out


def types_of(name, rows):
    """The type ids of set name's weights (rows: rows_of its reference set)."""
    return REFS[name][1] or sorted(t for t in rows if t >= 133)


def make(name, vocab):
    """A llama of n_embd 1024 whose token_embd and every layer's attn_q, attn_k, attn_v,
    ffn_gate and ffn_up (all rows of 1024) take the set's types in turn, row j of a tensor
    being the reference's row j mod its rows (whole groups for the fork's row-interleaved
    types: every such tensor has a multiple of 16 rows); attn_output, ffn_down, output
    (whose rows must differ, or the logits tie) and the norms seeded random F32. Returns
    (kvs, tensors, {name: its float32 values, [rows, row]})."""
    rows = rows_of(REFS[name][0])
    types = types_of(name, rows)
    n_embd, n_head, n_kv, hd, n_ff, n_vocab = 1024, 2, 1, 32, 32, SMALL_VOCAB
    n_layer = max(1, -(-(len(types) - 1) // 5))
    kvs = [["general.architecture", L.STR, "llama"], ["general.name", L.STR, "reference blocks " + name],
           ["llama.context_length", L.U32, 128], ["llama.embedding_length", L.U32, n_embd],
           ["llama.block_count", L.U32, n_layer], ["llama.feed_forward_length", L.U32, n_ff],
           ["llama.rope.dimension_count", L.U32, hd], ["llama.attention.key_length", L.U32, hd],
           ["llama.attention.value_length", L.U32, hd], ["llama.attention.head_count", L.U32, n_head],
           ["llama.attention.head_count_kv", L.U32, n_kv], ["llama.attention.layer_norm_rms_epsilon", L.F32, 1e-5],
           ["llama.vocab_size", L.U32, n_vocab]] + L.read_gguf(vocab)[0]
    rng = np.random.default_rng(3)
    tensors, want = [], {}
    turn = iter(range(1 << 30))

    def ref(nm, n_rows):
        t = types[next(turn) % len(types)]
        data, vals = rows[t]
        tensors.append(L.Tensor(nm, [n_embd, n_rows], t, b"".join(data[j % len(data)] for j in range(n_rows))))
        want[nm] = vals[np.arange(n_rows) % len(data)]

    def rand(nm, ne, scale=None, around=None):
        n = int(np.prod(ne))
        v = around + 0.1 * rng.standard_normal(n) if around else rng.standard_normal(n) * scale
        v = v.astype(np.float32).reshape(list(reversed(ne)))
        tensors.append(L.Tensor(nm, ne, "f32", v.tobytes()))
        want[nm] = v

    # the projections back into the residual small: the reference rows (some of deviation
    # 2, with outliers of 20) give products in the thousands, and a residual stream that
    # grows so, layer after layer, leaves float32 less to agree on
    ref("token_embd.weight", n_vocab)
    for i in range(n_layer):
        b = "blk.%d." % i
        rand(b + "attn_norm.weight", [n_embd], around=1.0)
        ref(b + "attn_q.weight", n_head * hd)
        ref(b + "attn_k.weight", n_kv * hd)
        ref(b + "attn_v.weight", n_kv * hd)
        rand(b + "attn_output.weight", [n_head * hd, n_embd], 1 / (64 * n_head * hd))
        rand(b + "ffn_norm.weight", [n_embd], around=1.0)
        ref(b + "ffn_gate.weight", n_ff)
        ref(b + "ffn_up.weight", n_ff)
        rand(b + "ffn_down.weight", [n_ff, n_embd], 1 / (64 * n_ff))
    rand("output_norm.weight", [n_embd], around=1.0)
    rand("output.weight", [n_embd, n_vocab], 1 / np.sqrt(n_embd))
    return kvs, tensors, want


def main(argv):
    if len(argv) != 3 or argv[0] not in REFS:
        print(__doc__)
        return 2
    kvs, tensors, _ = make(argv[0], argv[2])
    L.write_gguf(argv[1], kvs, tensors)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
