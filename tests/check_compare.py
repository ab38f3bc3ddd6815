#!/usr/bin/python3
"""check_compare.py - the comparisons of vs/<ref>/ and gguffs --compare, against
float64 numpy on ggml's own dequantization (tests/peer: the real ggml).

  check_compare.py make DIR
      models of one set of weights: orig.gguf (F32), q8_0.gguf, q4_K.gguf (quantized by
      ggml), im.gguf (an imatrix GGUF as llama-imatrix writes it); odd.gguf (q8_0 with a
      tensor missing, one of another shape, one of an undecodable type id, one extra;
      odd-values.gguf: the same values, for the oracle); moe-f32.gguf, moe-q8_0.gguf and
      moe-im.gguf (a 3-D expert tensor, an imatrix with a count per expert, one 0);
      big-f32.gguf / big-f16.gguf (one 4M-element tensor); shapes-a.gguf / shapes-b.gguf
      (every shape differs: nothing compared); empty-a.gguf / empty-b.gguf (a tensor of
      no elements in a layer of its own, beside one compared)
  check_compare.py figures TSV MODEL REF [--values VALUES] [--ref-values VALUES] [--imatrix IM]
      every row of a tensors.tsv: order, types, elements, notes, and every figure to
      1e-6 relative (0, inf and nan exactly), fields of 24 bytes
  check_compare.py summary VSDIR MODEL REF [--values VALUES] [--imatrix IM]
      summary.json and summary: the whole model's, per type, per layer, the 10 worst
  check_compare.py diffs VSDIR MODEL REF
      every tensors/<name>/diff and diff.npy: exactly this - ref in float32
  check_compare.py closer Q8_TSV Q4_TSV
      Q8_0 has a smaller rel_rmse than Q4_K on every 2-D tensor
  check_compare.py imatrix-summary MODELDIR IM
      an imatrix's summary and summary.json say what the file holds
Prints what differs; exits 1 if anything does.
"""
import json
import math
import os
import shutil
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "peer"))
import gguf_tool as g  # noqa: E402
import mkllama as L  # noqa: E402

BAD = []
UNDECODABLE = 250  # a type id nobody defines
WIDTH = 24


def bad(msg):
    BAD.append(msg)
    if len(BAD) <= 30:
        print("  " + msg)


# ---------------------------------------------------------------- making the models
def make(d):
    os.makedirs(d, exist_ok=True)
    toks = ["<unk>", "<s>", "</s>"] + ["t%d" % i for i in range(509)]
    vkv = [["tokenizer.ggml.model", L.STR, "llama"], ["tokenizer.ggml.tokens", L.ARR, (L.STR, toks)],
           ["tokenizer.ggml.scores", L.ARR, (L.F32, [0.0] * len(toks))],
           ["tokenizer.ggml.token_type", L.ARR, (L.I32, [1] * len(toks))]]
    vocab = os.path.join(d, "vocab.gguf")
    L.write_gguf(vocab, vkv, [])
    models = {}
    for t in ("f32", "q8_0", "q4_K"):
        models[t] = L.make_llama(vocab, [t], seed=1)
    L.write_gguf(os.path.join(d, "orig.gguf"), *models["f32"])
    L.write_gguf(os.path.join(d, "q8_0.gguf"), *models["q8_0"])
    L.write_gguf(os.path.join(d, "q4_K.gguf"), *models["q4_K"])
    ik, it, _ = L.make_imatrix(L.llama_shapes(n_vocab=len(toks)), seed=1)
    L.write_gguf(os.path.join(d, "im.gguf"), ik, it)

    # odd: q8_0 without blk.1.ffn_up, attn_q of blk.0 of another shape, attn_k of blk.0
    # of an unknown type id (patched in), and a tensor of its own
    kvs, ts = models["q8_0"]
    odd = []
    for x in ts:
        if x.name == "blk.1.ffn_up.weight":
            continue
        if x.name == "blk.0.attn_q.weight":
            v = np.linspace(-1, 1, 256 * 128, dtype=np.float32)
            x = L.Tensor(x.name, [256, 128], "f32", v.tobytes())
        odd.append(x)
    odd.append(L.Tensor("extra.weight", [16], "f32", np.arange(16, dtype=np.float32).tobytes()))
    vals = os.path.join(d, "odd-values.gguf")
    L.write_gguf(vals, kvs, odd)
    b = bytearray(open(vals, "rb").read())
    h = g.read(bytes(b))
    t = next(t for t in h.tensors if t["name"] == b"blk.0.attn_k.weight")
    struct.pack_into("<I", b, t["type_field_offset"], UNDECODABLE)
    open(os.path.join(d, "odd.gguf"), "wb").write(b)

    # experts: a [256, 32, 4] tensor and a [256, 64] one
    rng = np.random.default_rng(7)
    shapes = [("blk.0.ffn_up_exps.weight", [256, 32, 4]), ("blk.0.ffn_gate_inp.weight", [256, 64])]
    f32, q8 = [], []
    for nm, ne in shapes:
        v = (rng.standard_normal(int(np.prod(ne))) / 16).astype(np.float32)
        f32.append(L.Tensor(nm, ne, "f32", v.tobytes()))
        q8.append(L.Tensor(nm, ne, "q8_0", L.quantize("q8_0", v, ne)))
    mkv = [["general.architecture", L.STR, "llama"], ["general.name", L.STR, "moe"]]
    L.write_gguf(os.path.join(d, "moe-f32.gguf"), mkv, f32)
    L.write_gguf(os.path.join(d, "moe-q8_0.gguf"), mkv, q8)
    sums = np.exp(rng.standard_normal(256 * 4)).astype(np.float32) * 100
    counts = np.float32([100.4, 37.6, 0, 3])  # rounded as llama-quantize does; a 0 weighs 1
    sums2 = np.exp(rng.standard_normal(256)).astype(np.float32) * 50
    ikv = [["general.type", L.STR, "imatrix"], ["imatrix.datasets", L.ARR, (L.STR, ["a.txt", "b\tc.txt"])],
           ["imatrix.chunk_count", L.U32, 7], ["imatrix.chunk_size", L.U32, 512]]
    L.write_gguf(os.path.join(d, "moe-im.gguf"), ikv, [
        L.Tensor("blk.0.ffn_gate_inp.weight.counts", [1], "f32", np.float32([50]).tobytes()),
        L.Tensor("blk.0.ffn_gate_inp.weight.in_sum2", [256], "f32", sums2.tobytes()),
        L.Tensor("blk.0.ffn_up_exps.weight.counts", [4], "f32", counts.tobytes()),
        L.Tensor("blk.0.ffn_up_exps.weight.in_sum2", [256, 4], "f32", sums.tobytes())])

    # imatrix files that are not: sums of another type, sizes that do not divide, no counts
    ones = np.ones(64, dtype=np.float32)
    for nm, ts in (("bad-type", [L.Tensor("w.in_sum2", [64], "q8_0", L.quantize("q8_0", ones, [64])),
                                 L.Tensor("w.counts", [1], "f32", np.float32([1]).tobytes())]),
                   ("bad-size", [L.Tensor("w.in_sum2", [64], "f32", ones.tobytes()),
                                 L.Tensor("w.counts", [3], "f32", np.ones(3, np.float32).tobytes())]),
                   ("bad-pair", [L.Tensor("w.in_sum2", [64], "f32", ones.tobytes())])):
        L.write_gguf(os.path.join(d, nm + ".gguf"), ikv, ts)

    # one big tensor, so that two readers of tensors.tsv meet while it is computed
    v = (rng.standard_normal(1 << 22)).astype(np.float32)
    bkv = [["general.architecture", L.STR, "llama"]]
    L.write_gguf(os.path.join(d, "big-f32.gguf"), bkv, [L.Tensor("w", [4096, 1024], "f32", v.tobytes())])
    L.write_gguf(os.path.join(d, "big-f16.gguf"), bkv,
                 [L.Tensor("w", [4096, 1024], "f16", v.astype(np.float16).tobytes())])

    # figures over nothing: no tensor compared; a tensor of no elements
    w = lambda n, ne: L.Tensor(n, ne, "f32", np.linspace(-1, 1, int(np.prod(ne)), dtype=np.float32).tobytes())  # noqa
    L.write_gguf(os.path.join(d, "shapes-a.gguf"), bkv, [w("blk.0.w", [32, 2]), w("v", [32])])
    L.write_gguf(os.path.join(d, "shapes-b.gguf"), bkv, [w("blk.0.w", [32, 3]), w("v", [64])])
    L.write_gguf(os.path.join(d, "empty-a.gguf"), bkv, [w("blk.0.e", [0]), w("blk.1.w", [64, 2])])
    L.write_gguf(os.path.join(d, "empty-b.gguf"), bkv, [w("blk.0.e", [0]), L.Tensor(
        "blk.1.w", [64, 2], "f16", np.linspace(-1, 1, 128, dtype=np.float32).astype(np.float16).tobytes())])
    shutil.copy(os.path.join(d, "q8_0.gguf"), os.path.join(d, "q8_0-copy.gguf"))


# ---------------------------------------------------------------- the oracle
def header(path):
    """[(name, dims, type_id)] of a GGUF, from its header alone."""
    return [(t["name"].decode("utf-8", "surrogateescape"), t["dims"], t["type"]) for t in g.read(path).tensors]


def values(path):
    """{name: float64 values} by ggml's to_float."""
    return {x.name: L.to_f32(x).astype(np.float64) if x.n else np.zeros(0) for x in L.read_gguf(path)[1]}


def type_name(tid):
    if tid == UNDECODABLE:
        return "unknown"
    for k, v in L.ggml.TYPES.items():
        if v == tid:
            return k.upper()
    return "?"


def real_dims(d):
    d = list(d)
    while len(d) > 1 and d[-1] == 1:
        d.pop()
    return d


def shape_text(d):
    r = list(reversed(d))
    return "(" + ", ".join(str(x) for x in r) + ("," if len(r) == 1 else "") + ")"


def expected_rows(model, ref):
    """(name, kind, type, ref_type, elements, note prefix) in the order gguffs promises."""
    a, r = header(model), header(ref)
    used = [False] * len(r)
    comp, noted = [], []
    for name, dims, tid in a:
        j = next((k for k, (n2, _, _) in enumerate(r) if n2 == name and not used[k]), None)
        n = int(np.prod(dims))
        if j is None:
            noted.append((name, "here", type_name(tid), "", n, "only in this model"))
            continue
        used[j] = True
        rd, rt = r[j][1], r[j][2]
        if real_dims(dims) != real_dims(rd):
            noted.append((name, "shapes", type_name(tid), type_name(rt), n,
                          "different shapes: %s and %s" % (shape_text(dims), shape_text(rd))))
        elif UNDECODABLE in (tid, rt):
            noted.append((name, "undecodable", type_name(tid), type_name(rt), n,
                          "cannot be decoded in %s" % ("this model" if tid == UNDECODABLE else "the reference")))
        else:
            comp.append((name, "compared", type_name(tid), type_name(rt), n, ""))
    for k, (name, dims, tid) in enumerate(r):
        if not used[k]:
            noted.append((name, "ref", "", type_name(tid), int(np.prod(dims)), "only in the reference"))
    return comp + noted


def imatrix_weights(path):
    """{name: float32 weights [ne2, ne0]} as llama-quantize makes them: in_sum2 / counts,
    the count rounded half away from zero (lround), 1 where it is not positive."""
    ts = {x.name: x for x in L.read_gguf(path)[1]}
    out = {}
    for nm, x in ts.items():
        if not nm.endswith(".in_sum2"):
            continue
        stem = nm[:-len(".in_sum2")]
        s = np.frombuffer(x.data, "<f4")
        c = np.frombuffer(ts[stem + ".counts"].data, "<f4")
        s = s.reshape(len(c), -1)
        w = np.empty_like(s)
        for e in range(len(c)):
            cnt = np.float32(math.floor(abs(float(c[e])) + 0.5) * (1 if c[e] >= 0 else -1))
            w[e] = s[e] / cnt if cnt > 0 else np.float32(1)
        out[stem] = w
    return out


def figures_of(x, y, w=None):
    """The figures of a pair (None for every figure of a pair of no elements)."""
    d = x - y
    if d.size == 0:
        f = {k: None for k in COLS + ([] if w is None else ["w_rel_rmse"])}
        return f, (0.0, 0.0)
    d2, r2, a2, ar = (d * d).sum(), (y * y).sum(), (x * x).sum(), (x * y).sum()
    f = {"rmse": math.sqrt(d2 / d.size), "max_abs_err": float(np.abs(d).max()),
         "rel_rmse": 0.0 if d2 == 0 else math.sqrt(d2 / r2)}
    if a2 == 0 or r2 == 0:
        f["cosine"] = float("nan")
    elif d2 == 0:
        f["cosine"] = 1.0
    else:
        f["cosine"] = max(-1.0, min(1.0, ar / (math.sqrt(a2) * math.sqrt(r2))))
    f["snr_db"] = float("inf") if d2 == 0 else 10 * math.log10(r2 / d2)
    if w is not None:
        wd2, wr2 = (w * d * d).sum(), (w * y * y).sum()
        f["w_rel_rmse"] = 0.0 if wd2 == 0 else math.sqrt(wd2 / wr2)
    return f, (d2, r2)


def element_weights(w, dims):
    """Per element (ggml order), the weight of its column in its matrix."""
    ne0 = dims[0]
    ne1 = dims[1] if len(dims) > 1 else 1
    ne2 = dims[2] if len(dims) > 2 else 1
    if w.size != ne0 * ne2:
        return None
    return np.broadcast_to(w.reshape(ne2, 1, ne0).astype(np.float64), (ne2, ne1, ne0)).reshape(-1)


def rel_over(n, d2, r2):
    """A group's rel_rmse: None over no element."""
    return None if n == 0 else 0.0 if d2 == 0 else math.sqrt(d2 / r2)


def close(got, want, what):
    if got is None or want is None:
        if got is not want:
            bad("%s: %r, expected %r" % (what, got, want))
        return
    if math.isnan(want) or math.isinf(want) or want == 0:
        ok = (math.isnan(got) and math.isnan(want)) or got == want
    else:
        ok = abs(got - want) <= 1e-6 * abs(want)
    if not ok:
        bad("%s: %r, numpy says %r" % (what, got, want))


def oracle(model, ref, vals=None, im=None, ref_vals=None):
    """Per compared tensor its figures and sums, by name; and the expected rows."""
    rows = expected_rows(model, ref)
    xa, xr = values(vals or model), values(ref_vals or ref)
    dims = {n: d for n, d, _ in header(model)}
    ws = imatrix_weights(im) if im else {}
    figs = {}
    for name, kind, *_ in rows:
        if kind != "compared":
            continue
        w = element_weights(ws[name], dims[name]) if name in ws else None
        figs[name] = figures_of(xa[name], xr[name], w)
    return rows, figs


# ---------------------------------------------------------------- checks
COLS = ["rmse", "max_abs_err", "rel_rmse", "cosine", "snr_db"]


def check_figures(tsv, model, ref, vals=None, im=None, ref_vals=None):
    rows, figs = oracle(model, ref, vals, im, ref_vals)
    lines = open(tsv, encoding="utf-8").read().split("\n")
    assert lines[-1] == ""
    head = lines[0].split("\t")
    want_head = ["name", "type", "ref_type", "elements"] + COLS + (["w_rel_rmse"] if im else []) + ["note"]
    if head != want_head:
        bad("%s: header %r, expected %r" % (tsv, head, want_head))
        return
    got = [l.split("\t") for l in lines[1:-1]]
    if [r[0] for r in got] != [r[0] for r in rows]:
        bad("%s: rows %r, expected %r" % (tsv, [r[0] for r in got], [r[0] for r in rows]))
        return
    ncol = len(want_head)
    for r, (name, kind, ty, rty, n, note) in zip(got, rows):
        if len(r) != ncol:
            bad("%s: %d fields" % (name, len(r)))
            continue
        if (r[1].upper(), r[2].upper(), int(r[3])) != (ty.upper(), rty.upper(), n):
            bad("%s: type, ref_type, elements %r, expected %r" % (name, r[1:4], (ty, rty, n)))
        figcols = r[4:ncol - 1]
        if kind != "compared":
            if any(figcols) or not r[-1].startswith(note):
                bad("%s: figures %r and note %r, expected none and %r" % (name, figcols, r[-1], note))
            continue
        if r[-1]:
            bad("%s: a note %r" % (name, r[-1]))
        f = figs[name][0]
        for col, field in zip(want_head[4:ncol - 1], figcols):
            if col == "w_rel_rmse" and col not in f:
                if field:
                    bad("%s: w_rel_rmse %r without weights" % (name, field))
                continue
            if len(field) != WIDTH or field != field.strip().rjust(WIDTH):
                bad("%s %s: field %r is not right-aligned in %d bytes" % (name, col, field, WIDTH))
            close(None if field.strip() == "-" else float(field), f[col], "%s %s" % (name, col))
    print("  %s: %d rows (%d compared), %d figures checked" %
          (os.path.basename(os.path.dirname(tsv)) or tsv, len(got), len(figs), len(figs) * (len(COLS) + bool(im))))


def layer_of(name):
    p = name.split(".")
    return int(p[1]) if len(p) > 2 and p[0] == "blk" and p[1].isdigit() else None


def check_summary(vsdir, model, ref, vals=None, im=None):
    rows, figs = oracle(model, ref, vals, im)
    raw = open(os.path.join(vsdir, "summary.json")).read()
    j = json.loads(raw)
    num = lambda v: None if v is None else float(v)  # noqa: E731 ("inf" and "nan" come as strings)
    comp = [r for r in rows if r[1] == "compared"]
    d2 = sum(figs[r[0]][1][0] for r in comp)
    r2 = sum(figs[r[0]][1][1] for r in comp)
    close(num(j["rel_rmse"]), rel_over(sum(r[4] for r in comp), d2, r2), "summary.json rel_rmse")
    if im:
        # (over the tensors the imatrix weighs)
        xa, xr = values(vals or model), values(ref)
        wsm = imatrix_weights(im)
        dims = {n: d for n, d, _ in header(model)}
        wd2 = wr2 = 0.0
        wn = 0
        for name, *_ in comp:
            if name in wsm:
                w = element_weights(wsm[name], dims[name])
                if w is not None:
                    d = xa[name] - xr[name]
                    wd2 += (w * d * d).sum()
                    wr2 += (w * xr[name] * xr[name]).sum()
                    wn += d.size
        close(num(j["w_rel_rmse"]), rel_over(wn, wd2, wr2), "summary.json w_rel_rmse")
    counts = {"compared": 0, "only_in_model": 0, "only_in_reference": 0, "different_shapes": 0, "not_decodable": 0}
    key = {"compared": "compared", "here": "only_in_model", "ref": "only_in_reference",
           "shapes": "different_shapes", "undecodable": "not_decodable"}
    for r in rows:
        counts[key[r[1]]] += 1
    if j["tensors"] != counts:
        bad("summary.json tensors %r, expected %r" % (j["tensors"], counts))
    for k, path in (("file_bytes", model), ("ref_file_bytes", ref)):
        if j[k] != os.path.getsize(path):
            bad("summary.json %s %r" % (k, j[k]))
    by_type, by_layer = {}, {}
    for name, _, ty, _, n, _ in comp:
        for grp, k in ((by_type, ty.upper()), (by_layer, layer_of(name))):
            s = grp.setdefault(k, [0, 0.0, 0.0, 0])
            s[0] += 1
            s[1] += figs[name][1][0]
            s[2] += figs[name][1][1]
            s[3] += n
    rel = lambda s: rel_over(s[3], s[1], s[2])  # noqa: E731
    got_t = {t["type"].upper(): t for t in j["types"]}
    if set(got_t) != set(by_type):
        bad("summary.json types %r, expected %r" % (sorted(got_t), sorted(by_type)))
    for k, s in by_type.items():
        if k in got_t:
            if got_t[k]["tensors"] != s[0]:
                bad("summary.json type %s: %r tensors" % (k, got_t[k]["tensors"]))
            close(num(got_t[k]["rel_rmse"]), rel(s), "summary.json type %s rel_rmse" % k)
    layers = [l["layer"] for l in j["layers"]]
    want_layers = sorted(k for k in by_layer if k is not None) + ([None] if None in by_layer else [])
    if layers != want_layers:
        bad("summary.json layers %r, expected %r" % (layers, want_layers))
    for l in j["layers"]:
        s = by_layer.get(l["layer"])
        if s:
            close(num(l["rel_rmse"]), rel(s), "summary.json layer %r rel_rmse" % l["layer"])
    # the worst: by rel_rmse, largest first, ties in row order (tensors of no elements
    # have none to rank)
    comp = [r for r in comp if r[4]]
    order = sorted(range(len(comp)), key=lambda i: (-figs[comp[i][0]][0]["rel_rmse"], i))
    want = [comp[i][0] for i in order[:10]]
    if [w["name"] for w in j["worst"]] != want:
        # (figures equal to 1e-6 may swap places only if numpy's differ by less)
        gotv = [figs[w["name"]][0]["rel_rmse"] for w in j["worst"] if w["name"] in figs]
        if gotv != sorted(gotv, reverse=True) or len(gotv) != len(want):
            bad("summary.json worst %r, expected %r" % ([w["name"] for w in j["worst"]], want))
    for w in j["worst"]:
        if w["name"] in figs:
            close(num(w["rel_rmse"]), figs[w["name"]][0]["rel_rmse"], "worst %s" % w["name"])
    # the text for people says the same
    txt = open(os.path.join(vsdir, "summary")).read()
    for line in ("tensors         %d compared, " % counts["compared"], "size            %d bytes" % j["file_bytes"],
                 "reference size  %d bytes" % j["ref_file_bytes"]):
        if line not in txt:
            bad("summary lacks %r" % line)
    # (a figure over nothing: "-" for people, null in JSON)
    txtnum = lambda v: None if v == "-" else float(v)  # noqa: E731
    first = next(l for l in txt.split("\n") if l.startswith("rel_rmse"))
    close(txtnum(first.split()[1]), num(j["rel_rmse"]), "summary rel_rmse")
    for tl in txt.split("by type")[1].split("by layer")[0].split("\n")[1:-1]:
        close(txtnum(tl.split()[2]), num(got_t[tl.split()[0].upper()]["rel_rmse"]), "summary type %s" % tl.split()[0])
    for ll, l in zip(txt.split("by layer")[1].split("worst by")[0].split("\n")[1:-1], j["layers"]):
        close(txtnum(ll.split()[2]), num(l["rel_rmse"]), "summary layer %s" % ll.split()[0])
    wl = [l for l in txt.split("worst by rel_rmse\n")[1].split("\n") if l]
    if [l.split()[0] for l in wl] != [w["name"] for w in j["worst"]]:
        bad("summary worst %r" % [l.split()[0] for l in wl])
    print("  %s: summary.json and summary: %d types, %d layers, %d worst" %
          (vsdir, len(by_type), len(layers), len(j["worst"])))


def load_npy(path):
    b = open(path, "rb").read()
    if b[:6] != b"\x93NUMPY" or b[6] != 1:
        bad("%s: not a .npy 1.0" % path)
        return None, None
    hl = struct.unpack_from("<H", b, 8)[0]
    return b[10:10 + hl].decode("latin1"), b[10 + hl:]


def check_diffs(vsdir, model, ref):
    rows = expected_rows(model, ref)
    xa = {x.name: L.to_f32(x) for x in L.read_gguf(model)[1]}
    xr = {x.name: L.to_f32(x) for x in L.read_gguf(ref)[1]}
    dims = {n: d for n, d, _ in header(model)}
    comp = [r[0] for r in rows if r[1] == "compared"]
    listed = sorted(os.listdir(os.path.join(vsdir, "tensors")))
    if listed != sorted(g.esc(n) for n in comp):
        bad("%s/tensors lists %r, expected the %d compared" % (vsdir, listed, len(comp)))
    n = 0
    for name in comp:
        t = os.path.join(vsdir, "tensors", g.esc(name))
        want = (xa[name] - xr[name]).astype("<f4").tobytes()
        got = open(os.path.join(t, "diff"), "rb").read()
        if got != want:
            bad("%s: diff is not this - ref (%d bytes, expected %d)" % (name, len(got), len(want)))
        hdr, data = load_npy(os.path.join(t, "diff.npy"))
        shape = tuple(reversed(dims[name]))
        want_hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': %r, }" % (shape,)
        if hdr is not None and (hdr.strip() != want_hdr or data != want or (10 + len(hdr)) % 64):
            bad("%s: diff.npy header %r or data differ" % (name, hdr))
        arr = np.load(os.path.join(t, "diff.npy"), mmap_mode="r")
        if arr.shape != shape or not np.array_equal(np.asarray(arr).reshape(-1).view("<u4"),
                                                     np.frombuffer(want, "<u4")):
            bad("%s: numpy.load(diff.npy) %r" % (name, arr.shape))
        n += 1
    print("  %s: %d diff and diff.npy exact" % (vsdir, n))


def tsv_rows(path):
    return {l.split("\t")[0]: l.split("\t") for l in open(path).read().split("\n")[1:-1]}


def check_closer(q8, q4, model):
    a, b = tsv_rows(q8), tsv_rows(q4)
    n = 0
    for name, dims, _ in header(model):
        if len(dims) != 2:
            continue
        x, y = float(a[name][6]), float(b[name][6])
        if not x < y:
            bad("%s: Q8_0 rel_rmse %r is not below Q4_K's %r" % (name, x, y))
        n += 1
    print("  Q8_0 closer than Q4_K on %d 2-D tensors" % n)


def check_imatrix_summary(d, im):
    kvs = {k: v for k, t, v in L.read_gguf(im)[0]}
    n = sum(1 for x in L.read_gguf(im)[1] if x.name.endswith(".in_sum2"))
    txt = open(os.path.join(d, "summary")).read()
    ds = kvs["imatrix.datasets"][1]
    want = ["type            imatrix\n",
            "datasets        %s\n" % ", ".join(s.replace("\\", "\\\\").replace("\t", "\\t") for s in ds),
            "chunks          %d of %d tokens\n" % (kvs["imatrix.chunk_count"], kvs["imatrix.chunk_size"]),
            "weighs          %d tensors\n" % n]
    for w in want:
        if w not in txt:
            bad("imatrix summary lacks %r:\n%s" % (w, txt))
    j = json.load(open(os.path.join(d, "summary.json")))["imatrix"]
    wj = {"datasets": ds, "chunk_count": kvs["imatrix.chunk_count"], "chunk_size": kvs["imatrix.chunk_size"],
          "tensors": n}
    if j != wj:
        bad("summary.json imatrix %r, expected %r" % (j, wj))
    print("  %s: imatrix summary (%d datasets, %d tensors)" % (d, len(ds), n))


def main(a):
    opt = {}
    pos = []
    i = 0
    while i < len(a):
        if a[i].startswith("--"):
            opt[a[i][2:]] = a[i + 1]
            i += 2
        else:
            pos.append(a[i])
            i += 1
    mode = pos[0]
    if mode == "make":
        make(pos[1])
    elif mode == "figures":
        check_figures(pos[1], pos[2], pos[3], opt.get("values"), opt.get("imatrix"), opt.get("ref-values"))
    elif mode == "summary":
        check_summary(pos[1], pos[2], pos[3], opt.get("values"), opt.get("imatrix"))
    elif mode == "diffs":
        check_diffs(pos[1], pos[2], pos[3])
    elif mode == "closer":
        check_closer(pos[1], pos[2], pos[3])
    elif mode == "imatrix-summary":
        check_imatrix_summary(pos[1], pos[2])
    if BAD:
        print("check_compare.py %s: %d problems" % (mode, len(BAD)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
