#!/usr/bin/python3
"""check_recipes.py - as/<recipe>.gguf against llama-quantize itself (tests/peer/quantize.py:
llama_model_quantize of the real llama.cpp) and gguf-py's dequantize; nothing of gguffs but the
files it serves.

  check_recipes.py models DIR
        writes the test models into DIR: vocab.gguf (llama-spm's first 512 tokens: llama.cpp
        loads it, and the embeddings stay small) and five tiny llamas:
          k.gguf    Q4_K, Q6_K and Q5_K (mkllama), 8 layers (the _M recipes raise attn_v and
                    ffn_down in some), 8 heads of 2 KV heads (GQA 4)
          i.gguf    IQ4_XS and IQ3_S, tied embeddings (no output.weight), GQA 1
          ik.gguf   IQ2_KS of ik_llama.cpp (id 145: an f16 scale per row, then blocks of
                    random bytes), 1 layer
          odd.gguf  rows of 96 and 200 values: the fallbacks (K-quants to 32-blocks, rows
                    32 does not divide to F16; q1_0 has none: llama-quantize refuses);
                    12 layers (blk.10 after blk.9); names llama-quantize treats apart: a
                    5-byte name (quantized: its "ends in weight" test wraps), a router and
                    position_embd (kept), a 3-D tensor
          moe.gguf  8 experts (3-D ffn_*_exps, ffn_gate_inp): the 8-expert rules and MXFP4
  check_recipes.py oracle MODEL_DIR OUT_DIR NAME RECIPE...
        for each recipe: llama_model_quantize(MODEL_DIR/as/f32.gguf) into OUT_DIR/NAME-RECIPE.gguf
        (one thread, no imatrix), and MODEL_DIR/as/RECIPE.gguf against it: the keys with their
        types and values, in order; the tensors (name, order, shape, type, offset); each
        tensor's bytes; the whole file. Where llama.cpp refuses, the recipe must be absent
        and MODEL_DIR/as/why must say why (or, for the recipes that need an imatrix, not be
        one of ours). A line per recipe.
  check_recipes.py dequant SHELF OUT_DIR NAME...
        for OUT_DIR/NAME.gguf (files the oracle mode found equal to the views), each
        quantized tensor: gguf-py 0.19.0's dequantize (ggml's to_float for Q1_0 and Q2_0,
        which gguf-py does not decode) equals SHELF/NAME/tensors/<tensor>/f32 (a second
        gguffs mount, of OUT_DIR), bit for bit.
Prints "N passed, N failed".
"""
import collections
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "peer"))
import checks  # noqa: E402
from checks import check  # noqa: E402
import ggml  # noqa: E402
import gguf_tool as gt  # noqa: E402
import mkllama as mk  # noqa: E402
import mkref  # noqa: E402
import quantize  # noqa: E402

TYPE_NAME = {v: k for k, v in ggml.TYPES.items()}
# llama-quantize's recipes that need an importance matrix: no as/ file of ours (llama.cpp must refuse them)
NEED_IMATRIX = {"iq2_xxs", "iq2_xs", "q2_k_s", "iq3_xs", "iq3_xxs", "iq1_s", "iq2_s", "iq2_m", "iq1_m"}


# ---------------------------------------------------------------- the models
def ik_iq2_ks(ne, rng):
    """IQ2_KS (ik_llama.cpp, id 145) of shape ne: per row an f16 scale, then ne0/256 blocks
    of 70 bytes (scales, signs and 2-bit codes: any bytes are valid)."""
    rows = int(np.prod(ne[1:]))
    out = bytearray()
    for _ in range(rows):
        out += np.float16(rng.uniform(0.002, 0.006)).tobytes()
        out += rng.integers(0, 256, ne[0] // 256 * 70, dtype=np.uint8).tobytes()
    return bytes(out)


def moe_llama(vocab, n_embd=256, n_ff=64, n_expert=8, n_layer=2, seed=5):
    """A llama with n_expert experts per layer (llama.cpp's llama arch reads them)."""
    kvs, tensors = mk.make_llama(vocab=vocab, types=["q8_0"], n_embd=n_embd, n_layer=n_layer, n_head=4,
                                 n_head_kv=1, n_ff=n_ff, seed=seed, name="tiny-moe")
    mk.set_kv(kvs, "llama.expert_count", mk.U32, n_expert)
    mk.set_kv(kvs, "llama.expert_used_count", mk.U32, 2)
    rng = np.random.default_rng(seed)
    out = []
    for x in tensors:
        if not x.name.startswith("blk.") or ".ffn_" not in x.name or x.name.endswith("_norm.weight"):
            out.append(x)
            continue
        if x.name.endswith("ffn_gate.weight"):  # the router, then the experts
            b = x.name[:-len("ffn_gate.weight")]
            v = (rng.standard_normal(n_embd * n_expert) / 16).astype(np.float32)
            out.append(mk.Tensor(b + "ffn_gate_inp.weight", [n_embd, n_expert], "f32", v.tobytes()))
            for part, ne in (("gate", [n_embd, n_ff, n_expert]), ("down", [n_ff, n_embd, n_expert]),
                             ("up", [n_embd, n_ff, n_expert])):
                v = (rng.standard_normal(int(np.prod(ne))) / np.sqrt(ne[0])).astype(np.float32)
                t = "q4_K" if part != "down" else "q8_0"
                out.append(mk.Tensor(b + "ffn_%s_exps.weight" % part, ne, t, mk.quantize(t, v, ne)))
    return kvs, out


def write_raw(path, kvs, tensors):
    """(kvs of mkllama, [(name, ne, type id, bytes)]) with gguf_tool: any type id."""
    conv = []
    for k, t, v in kvs:
        if t == mk.ARR:
            v = (v[0], list(v[1]))
        conv.append((k, t, v))
    gt.write(path, kvs=conv, tensors=tensors)


def mode_models(d):
    vocab = os.path.join(d, "vocab.gguf")
    mkref.small_vocab(vocab)
    m = mk.make_llama(vocab=vocab, types=["q4_K", "q6_K", "q5_K"], n_layer=8, n_head=8, n_head_kv=2, n_ff=256,
                      seed=11, name="tiny-k")
    mk.write_gguf(os.path.join(d, "k.gguf"), *m)
    m = mk.make_llama(vocab=vocab, types=["iq4_xs", "iq3_s"], n_layer=2, n_head=4, n_head_kv=4, n_ff=256,
                      seed=12, tied=True, name="tiny-i")
    mk.write_gguf(os.path.join(d, "i.gguf"), *m)
    kvs, tensors = mk.make_llama(vocab=vocab, types=["f32"], n_layer=1, n_ff=256, seed=13, name="tiny-ik")
    rng = np.random.default_rng(13)
    raw = [(x.name, x.ne, 145, ik_iq2_ks(x.ne, rng)) if len(x.ne) >= 2 else (x.name, x.ne, 0, x.data)
           for x in tensors]
    mk.set_kv(kvs, "general.file_type", mk.U32, 0)
    write_raw(os.path.join(d, "ik.gguf"), kvs, raw)
    kvs, tensors = mk.make_llama(vocab=vocab, types=["q4_0", "q8_0", "f16"], n_embd=96, n_layer=12, n_head=4,
                                 n_head_kv=2, n_ff=200, seed=14, name="tiny-odd")
    rng = np.random.default_rng(14)
    for name, ne in (("abcde", [96, 4]), ("blk.1.ffn_gate_inp.weight", [96, 4]), ("position_embd.weight", [96, 8]),
                     ("blk.11.extra.weight", [96, 2, 3])):
        v = (rng.standard_normal(int(np.prod(ne))) / 10).astype(np.float32)
        tensors.append(mk.Tensor(name, ne, "f32", v.tobytes()))
    mk.write_gguf(os.path.join(d, "odd.gguf"), kvs, tensors)
    mk.write_gguf(os.path.join(d, "moe.gguf"), *moe_llama(vocab))


# ---------------------------------------------------------------- the oracle
def header(path):
    with open(path, "rb") as f:
        b = f.read(1 << 20)
    h = gt.read(b)
    if h.data_offset > len(b):
        with open(path, "rb") as f:
            h = gt.read(f.read(h.data_offset))
    return h


def tensor_bytes(path, h):
    """{name: bytes} of every tensor (sizes from the next offset: padding is checked whole-file)."""
    size = os.path.getsize(path)
    ts = sorted(h.tensors, key=lambda t: t["offset"])
    out = {}
    with open(path, "rb") as f:
        for i, t in enumerate(ts):
            end = ts[i + 1]["offset"] if i + 1 < len(ts) else size - h.data_offset
            f.seek(h.data_offset + t["offset"])
            out[t["name"]] = f.read(end - t["offset"])
    return out


def compare(view, ref):
    """What differs between view and ref ([] when nothing), and ref's type counts."""
    bad = []
    hv, hr = header(view), header(ref)
    kv, kr = [kv[:3] for kv in hv.kvs], [kv[:3] for kv in hr.kvs]
    if kv != kr:
        if [k for k, _, _ in kv] != [k for k, _, _ in kr]:
            bad.append("keys %s, llama.cpp's %s" % ([k.decode() for k, _, _ in kv][-4:],
                                                    [k.decode() for k, _, _ in kr][-4:]))
        for a, b in zip(kv, kr):
            if a != b:
                bad.append("key %s: %r, llama.cpp's %r" % (a[0].decode(), a[1:], b[1:]))
                break
    tv = [(t["name"], t["dims"], t["type"], t["offset"]) for t in hv.tensors]
    tr = [(t["name"], t["dims"], t["type"], t["offset"]) for t in hr.tensors]
    if tv != tr:
        diff = [(a, b) for a, b in zip(tv, tr) if a != b]
        a, b = diff[0] if diff else (len(tv), len(tr))
        bad.append("%d tensors differ, first %s, llama.cpp's %s" % (max(len(diff), 1), a, b))
    else:
        dv, dr = tensor_bytes(view, hv), tensor_bytes(ref, hr)
        differ = [n.decode() for n in dv if dv[n] != dr.get(n)]
        if differ:
            bad.append("the bytes of %d tensors differ (%s)" % (len(differ), ", ".join(differ[:3])))
    if not bad and (os.path.getsize(view) != os.path.getsize(ref) or open(view, "rb").read() != open(ref, "rb").read()):
        bad.append("the files differ (padding?)")
    types = collections.Counter(TYPE_NAME.get(t["type"], t["type"]) for t in hr.tensors)
    return bad, hr, types


def why_of(model_dir, recipe):
    try:
        for ln in open(os.path.join(model_dir, "as", "why")).read().splitlines():
            if ln.startswith(recipe + ".gguf\t"):
                return ln.split("\t", 1)[1]
    except OSError:
        pass
    return None


def mode_oracle(model_dir, out_dir, name, recipes):
    q = quantize.Quantizer()
    f32 = os.path.join(model_dir, "as", "f32.gguf")
    for r in recipes:
        out = os.path.join(out_dir, "%s-%s.gguf" % (name, r))
        view = os.path.join(model_dir, "as", r + ".gguf")
        ok, log = q.quantize(f32, out, r)
        present = os.path.exists(view)
        if not ok:
            why = why_of(model_dir, r) or ("no such recipe (it needs an imatrix)" if r in NEED_IMATRIX else None)
            check(not present and why, "%s %s: llama.cpp refuses (%s), as/%s.gguf %s" % (
                name, r, quantize.reason(log), r, "is there" if present else "is absent, as/why silent"))
            print("%s\t%s\trefused by both\tllama.cpp: %s\tas/why: %s" % (name, r, quantize.reason(log), why))
            continue
        if not check(present, "%s %s: llama.cpp makes it, as/%s.gguf is absent: %s" % (
                name, r, r, why_of(model_dir, r))):
            continue
        bad, h, types = compare(view, out)
        check(not bad, "%s %s: %s" % (name, r, "; ".join(bad)))
        print("%s\t%s\t%s\t%d keys, %d tensors (%s): %s" % (
            name, r, "equal" if not bad else "DIFFERENT", len(h.kvs), len(h.tensors),
            " ".join("%s %d" % kv for kv in sorted(types.items())), "keys, types and bytes equal, whole file"
            if not bad else "; ".join(bad)))


# ---------------------------------------------------------------- gguf-py's dequantize
def dequantize(tid, data, n):
    import gguf
    from gguf import quants
    qt = gguf.GGMLQuantizationType(tid) if tid in gguf.GGMLQuantizationType._value2member_map_ else None
    if qt is not None and (qt in quants._type_traits or tid in (0, 1)):
        return np.asarray(quants.dequantize(np.frombuffer(data, np.uint8), qt), np.float32).reshape(-1)[:n], "gguf-py"
    return mk._g().dequantize(TYPE_NAME[tid], data, n), "ggml"


def mode_dequant(shelf, out_dir, names):
    by = collections.Counter()
    for name in names:
        path = os.path.join(out_dir, name + ".gguf")
        h = header(path)
        data = tensor_bytes(path, h)
        for t in h.tensors:
            if t["type"] in (0, 30):  # F32 as stored; BF16: halfconv's, checked elsewhere
                continue
            n = int(np.prod(t["dims"]))
            g = mk._g()
            size = n // g.blck_size(t["type"]) * g.type_size(t["type"])
            want, who = dequantize(t["type"], data[t["name"]][:size], n)
            fn = os.path.join(shelf, name, "tensors", gt.esc(t["name"].decode()), "f32")
            got = np.fromfile(fn, "<f4")
            same = got.shape == want.shape and got.tobytes() == want.astype("<f4").tobytes()
            check(same, "%s: %s (%s): gguffs' f32 differs from %s's dequantize" % (
                name, t["name"].decode(), TYPE_NAME[t["type"]], who))
            by[(TYPE_NAME[t["type"]], who)] += 1
    print("dequantized: " + ", ".join("%s %d (%s)" % (t, n, who) for (t, who), n in sorted(by.items())))


def main(argv):
    if len(argv) >= 2 and argv[0] == "models":
        mode_models(argv[1])
        return 0
    elif len(argv) >= 5 and argv[0] == "oracle":
        mode_oracle(argv[1], argv[2], argv[3], argv[4:])
    elif len(argv) >= 4 and argv[0] == "dequant":
        mode_dequant(argv[1], argv[2], argv[3:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return checks.finish("check_recipes")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
