#!/usr/bin/python3
"""check_pypeers.py - a mount judged by PyPI's own readers (tests/pyenv.sh): gguf-py
(llama.cpp's gguf package) and safetensors; where gguf-py and ggml disagree, the real ggml
(tests/peer/ggml.py, libggml-base.so) decides. tests/check.d/79_pypeers.sh runs it.

  check_pypeers.py make DIR
      the models the suite mounts beside tests/data's reference sets: known.gguf
      (mainline.gguf's keys and the tensors of every type gguf-py's GGUFReader knows),
      random.gguf (blocks of random bytes of every type gguf.quants.dequantize decodes, and
      all 65536 F16 and BF16 patterns), iq3_ks.gguf (ik_llama.cpp's IQ3_KS reference
      tensor, a type gguf-py does not know), and tiny llama, gemma3 and qwen3moe models of
      tests/peer/mkhf.py (for as/hf/)
  check_pypeers.py gguf MOUNT DIR
      1. every reference tensor (tests/data mainline and ik) of a type that
         gguf.quants.dequantize decodes: gguf-py on its raw bytes (raw checked against the
         manifest's sha256) equals the reference f32 and the mount's f32, bit for bit;
      2. random.gguf: the mount's f32 equals ggml's to_float bit for bit, and so does
         gguf-py's except where both give NaN (named: which types, and how many NaNs
         differ in sign or quiet bit); any other difference fails;
      3. GGUFReader opens model.gguf (of the models whose types it knows) and every
         as/*.gguf: its keys (order, types, values) are metadata/ and metadata.json
         (check_kv.py's rules), general.file_type the view's (as/f16, bf16, q8_0: with
         general.quantization_version 2 and general.file_type last, as llama-quantize
         writes them); its tensors' names, dims, types, offsets and sizes are
         tensors.tsv's and info.json's (as/: the view's type, or F32, or F16 for Q8_0
         rows 32 does not divide; the recipes' tensors in llama-quantize's order: which
         type each takes, and the order, 84_recipes checks against llama.cpp); their data
         is raw (model.gguf), f32, f16, bf16, and for Q8_0 gguf-py's own Q8_0
         quantization of f32;
      4. a type gguf-py does not know (IQ3_KS): GGUFReader refuses model.gguf, naming the
         type id; gguffs' f32 is ik_llama.cpp's reference, and gguf-py reads it in
         as/f32.gguf.
  check_pypeers.py safetensors MOUNT F16MOUNT BF16MOUNT DIR
      safe_open(framework="pt") and (framework="numpy") on model.safetensors and
      as/hf/model.safetensors: the tensor names, shapes and dtypes, every tensor equal to
      its f32.npy (as/hf: rearranged as tests/check_hf.py's views say) bit for bit, the
      metadata read back; on the f16 and bf16 mounts each tensor its f16 / bf16 file
      (as/hf: the f32 one rounded).
Each ends with "check_pypeers.py MODE: N passed, N failed".
"""
import csv
import hashlib
from importlib.metadata import version
import json
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peer"))
sys.path.insert(0, HERE)
import checks  # noqa: E402
from checks import check as expect  # noqa: E402
from gguf_tool import esc  # noqa: E402

DATA = os.path.join(HERE, "data")
REFS = {"mainline": os.path.join(DATA, "mainline"), "ik": os.path.join(DATA, "ik")}
HF_ARCHS = ["llama", "gemma3", "qwen3moe"]
SEED = 0x9E1B


def manifest(d):
    with open(os.path.join(d, "manifest.tsv"), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def tsv(mnt):
    with open(os.path.join(mnt, "tensors.tsv"), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def tensor_file(mnt, name, view):
    return os.path.join(mnt, "tensors", esc(name), view)


def read(path, dtype="u1"):
    return np.fromfile(path, dtype)


def bits_equal(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype.itemsize == b.dtype.itemsize and a.tobytes() == b.tobytes()


# ---------------------------------------------------------------- make
def make(d):
    import gguf_tool as gt
    import ggml
    import gguf
    import mkhf
    from mkllama import write_gguf
    known_ids = {t.value for t in gguf.GGMLQuantizationType}
    # known.gguf: mainline's keys, its tensors of the types GGUFReader knows
    src = os.path.join(REFS["mainline"], "mainline.gguf")
    h = gt.read(src)
    raw = open(src, "rb").read()
    keep = [(r["name"], [int(x) for x in r["dims"].split(",")], int(r["type_id"]),
             raw[h.data_offset + int(r["offset"]):h.data_offset + int(r["offset"]) + int(r["n_bytes"])])
            for r in manifest(REFS["mainline"]) if int(r["type_id"]) in known_ids]
    gt.write(os.path.join(d, "known.gguf"), kvs=[(k, t, v) for k, t, v, _ in h.kvs], tensors=keep)
    # random.gguf: random bytes of every type gguf-py decodes, and every F16 / BF16 pattern
    g = ggml.Ggml()
    rng = np.random.default_rng(SEED)
    ts = []
    for t in dequantizable():
        bs, sz = g.blck_size(t.value), g.type_size(t.value)
        nb = 4096
        row = bs * (8 if bs < 256 else 2) if bs > 1 else 256
        ts.append(("r." + t.name, [row, nb * bs // row], t.value, rng.integers(0, 256, nb * sz, dtype=np.uint8).tobytes()))
    every = np.arange(65536, dtype="<u2").tobytes()
    ts += [("all.F16", [256, 256], 1, every), ("all.BF16", [256, 256], 30, every)]
    gt.write(os.path.join(d, "random.gguf"), kvs=[("general.architecture", gt.STR, "random")], tensors=ts)
    # iq3_ks.gguf: ik_llama.cpp's IQ3_KS reference tensor and an F32 one
    src = os.path.join(REFS["ik"], "ik.gguf")
    h = gt.read(src)
    raw = open(src, "rb").read()
    ik = {r["name"]: r for r in manifest(REFS["ik"])}
    pick = [(n, [int(x) for x in ik[n]["dims"].split(",")], int(ik[n]["type_id"]),
             raw[h.data_offset + int(ik[n]["offset"]):h.data_offset + int(ik[n]["offset"]) + int(ik[n]["n_bytes"])])
            for n in ("F32", "IQ3_KS")]
    gt.write(os.path.join(d, "iq3_ks.gguf"), kvs=[("general.architecture", gt.STR, "llama")], tensors=pick)
    for a in HF_ARCHS:
        write_gguf(os.path.join(d, a + ".gguf"), *mkhf.make(a))


def dequantizable():
    """The types gguf.quants.dequantize decodes, in id order."""
    import gguf
    from gguf import quants
    T = gguf.GGMLQuantizationType
    return [t for t in T if t in (T.F32, T.F16) or t in quants._type_traits]


def dequantize(raw, t, ne0):
    """gguf-py's values of raw bytes of type t, rows of ne0 values, as a flat float32 array."""
    from gguf import quants
    from gguf.constants import GGML_QUANT_SIZES
    bs, sz = GGML_QUANT_SIZES[t]
    return np.asarray(quants.dequantize(raw.reshape(-1, ne0 // bs * sz), t), dtype=np.float32).ravel()


# ---------------------------------------------------------------- gguf-py: dequantize
def references(mnt):
    """1: gguf-py on every reference tensor it decodes = the reference = the mount's f32."""
    import gguf
    by_id = {t.value: t for t in dequantizable()}
    done = {}
    for ref, d in REFS.items():
        for r in manifest(d):
            t = by_id.get(int(r["type_id"]))
            if t is None or r["type_name"].upper() != t.name:
                continue  # gguf-py does not decode it (or the id means another type there)
            m = os.path.join(mnt, ref)
            raw = read(tensor_file(m, r["name"], "raw"))
            expect(hashlib.sha256(raw.tobytes()).hexdigest() == r["sha256"], "%s %s: raw is not the file's bytes" % (
                ref, r["name"]))
            got = dequantize(raw, t, int(r["dims"].split(",")[0]))
            want = read(os.path.join(d, r["f32_file"]), "<f4")
            ours = read(tensor_file(m, r["name"], "f32"), "<f4")
            ok = expect(bits_equal(got, want), "%s %s (%s): gguf-py is not the reference (%d values differ)" % (
                ref, r["name"], t.name, np.sum(got.view("<u4") != want.view("<u4")) if got.shape == want.shape else -1))
            ok &= expect(bits_equal(ours, got), "%s %s (%s): gguffs' f32 is not gguf-py's" % (ref, r["name"], t.name))
            done.setdefault(t.name, [0, 0])[ok] += 1
    print("  gguf-py = the reference = gguffs, bit for bit: %d tensors of %d types (%s)" % (
        sum(v[1] for v in done.values()), len(done), " ".join(sorted(done, key=lambda n: gguf.GGMLQuantizationType[n]))))
    missing = [t.name for t in dequantizable() if t.name not in done]
    expect(not missing, "no reference tensor of %s" % missing)


def random_blocks(mnt, d):
    """2: random bytes: gguffs = ggml; gguf-py = ggml but for NaN bits (named)."""
    import ggml
    import gguf_tool as gt
    g = ggml.Ggml()
    h = gt.read(os.path.join(d, "random.gguf"))
    m = os.path.join(mnt, "random")
    T = {t.value: t for t in dequantizable()}
    differ, ours_bad = [], 0
    for ti in h.tensors:
        name, t = ti["name"].decode(), T[ti["type"]]
        n = int(np.prod(ti["dims"]))
        raw = read(tensor_file(m, name, "raw"))
        want = g.dequantize(t.value, raw.tobytes(), n)
        ours = read(tensor_file(m, name, "f32"), "<f4")
        ours_bad += not expect(bits_equal(ours, want), "%s: gguffs' f32 is not ggml's to_float (%d values differ)" % (
            name, np.sum(ours.view("<u4") != want.view("<u4")) if ours.shape == want.shape else -1))
        got = dequantize(raw, t, ti["dims"][0])
        bad = np.nonzero(got.view("<u4") != want.view("<u4"))[0]
        nan = np.isnan(got[bad]) & np.isnan(want[bad])
        expect(nan.all(), "%s: gguf-py differs from ggml on %d values that are not NaN in both (first at %d: %r, "
               "ggml %r)" % (name, np.sum(~nan), bad[~nan][0] if (~nan).any() else -1,
                             got[bad[~nan][0]] if (~nan).any() else 0, want[bad[~nan][0]] if (~nan).any() else 0))
        if len(bad):
            gb, wb = got.view("<u4")[bad], want.view("<u4")[bad]
            sign = int(np.sum((gb ^ wb) & 0x80000000 != 0))
            quiet = int(np.sum((gb ^ wb) & 0x00400000 != 0))
            differ.append("%s: %d of %d NaNs (sign %d, quiet bit %d)" % (name, len(bad), int(np.isnan(want).sum()),
                                                                        sign, quiet))
    print("  random bytes, %d tensors: gguffs = ggml bit for bit in %d; gguf-py = ggml but for NaN bits in %d: %s" % (
        len(h.tensors), len(h.tensors) - ours_bad, len(differ), "; ".join(differ) or "none"))


# ---------------------------------------------------------------- gguf-py: GGUFReader
VT = {0: "u8", 1: "i8", 2: "u16", 3: "i16", 4: "u32", 5: "i32", 6: "f32", 7: "bool", 8: "str", 9: "arr",
      10: "u64", 11: "i64", 12: "f64"}


def reader_kvs(r):
    """GGUFReader's keys as check_kv.py's entries (key, type, value[, arr_type, n])."""
    out = []
    for k, f in r.fields.items():
        if k.startswith("GGUF."):
            continue
        t = VT[int(f.types[0])]
        e = {"key": k, "type": t}
        if t == "arr":
            at = VT[int(f.parts[3][0])]  # (key length, key, type, item type, count, items...)
            e["arr_type"] = at
            vals = [scalar(at, f.parts[i]) for i in f.data]
            e["value"], e["n"] = vals, len(vals)
        else:
            e["value"] = scalar(t, f.parts[f.data[0]])
        out.append(e)
    return out


def scalar(t, part):
    if t == "str":
        return bytes(part).decode("utf-8", "replace")
    v = part[0]
    if t == "bool":
        return bool(v)
    if t in ("f32", "f64"):
        return float(v)
    return int(v)


FILE_TYPE = {"f32": 0, "f16": 1, "bf16": 32, "q8_0": 7}
VIEW_TYPE = {"f32": "F32", "f16": "F16", "bf16": "BF16", "q8_0": "Q8_0"}


def view_of(view, dims, tensor_type):
    """The type of a tensor of dims (ggml order) in as/VIEW.gguf, as its header says
    (GGUFReader's tensor_type): VIEW's, or F32 (1-D, and what llama-quantize never
    quantizes), or F16 for Q8_0 rows 32 does not divide; None for any other."""
    if view == "raw":
        return "raw"
    got = tensor_type.name.lower()
    ok = {"f32", view} | ({"f16"} if view == "q8_0" and dims[0] % 32 else set())
    return got if got in ok else None


def reader_checks(mnt, model, view):
    """3: GGUFReader on MOUNT/MODEL/model.gguf (view raw) or as/VIEW.gguf."""
    import check_kv
    import gguf
    m = os.path.join(mnt, model)
    path = os.path.join(m, "model.gguf" if view == "raw" else "as/%s.gguf" % view)
    what = "%s/%s" % (model, os.path.relpath(path, m))
    try:
        r = gguf.GGUFReader(path)
    except Exception as e:
        expect(False, "%s: GGUFReader refuses it: %s" % (what, e))
        return
    kvs = reader_kvs(r)
    meta = json.load(open(os.path.join(m, "metadata.json"), encoding="utf-8"))
    keys = [k for k in meta if not k.startswith("split.")]
    if view != "raw":  # the view's file type, and the model's keys (split.* dropped)
        ft = [e for e in kvs if e["key"] == "general.file_type"]
        expect(len(ft) == 1 and ft[0]["value"] == FILE_TYPE[view] and ft[0]["type"] == "u32",
               "%s: general.file_type %s, want u32 %d" % (what, ft, FILE_TYPE[view]))
        if view != "f32":  # llama-quantize's: these two last
            last = [(e["key"], e["type"], e["value"]) for e in kvs[-2:]]
            expect(last == [("general.quantization_version", "u32", 2), ("general.file_type", "u32", FILE_TYPE[view])],
                   "%s: the last keys are %s" % (what, last))
            moved = ("general.quantization_version", "general.file_type")
            kvs = kvs[:-2] + [e for e in kvs[-2:] if e["key"] in meta]
            keys = [k for k in keys if k not in moved] + [k for k in moved if k in meta]
        kvs = [e for e in kvs if e["key"] != "general.file_type" or "general.file_type" in meta]
        for e in kvs:  # (the values the view sets, checked above, are the model's in metadata/)
            if e["key"] in ("general.file_type", "general.quantization_version") and e["key"] in meta:
                e["value"] = meta[e["key"]]["value"]
    expect([e["key"] for e in kvs] == keys, "%s: GGUFReader's keys are not metadata.json's" % what)
    order = {k: i for i, k in enumerate(meta)}
    kvs.sort(key=lambda e: order.get(e["key"], len(order)))  # (metadata/ lists them in the model's order)
    bad = check_kv.compare(m, kvs)
    expect(bad == 0, "%s: %d keys as GGUFReader reads them are not the mount's metadata" % (what, bad))
    rows = tsv(m)
    if view in ("raw", "f32"):
        expect([t.name for t in r.tensors] == [x["name"] for x in rows], "%s: the tensor names" % what)
    else:  # (in llama-quantize's order)
        expect(sorted(t.name for t in r.tensors) == sorted(x["name"] for x in rows), "%s: the tensor names" % what)
        by_name = {x["name"]: x for x in rows}
        rows = [by_name.get(t.name, rows[0]) for t in r.tensors]
    for t, x in zip(r.tensors, rows):
        dims = [int(v) for v in x["dims"].split(",")]
        info = json.load(open(tensor_file(m, x["name"], "info.json")))
        v = view_of(view, dims, t.tensor_type)
        if v is None:
            expect(False, "%s: %s: type %s in as/%s.gguf" % (what, t.name, t.tensor_type.name, view))
            continue
        tid = int(x["type_id"]) if v == "raw" else gguf.GGMLQuantizationType[VIEW_TYPE[v]].value
        ok = [int(d) for d in t.shape] == dims == info["dims"] and int(t.n_elements) == int(x["n_elements"]) == \
            info["n_elements"] and t.tensor_type.value == tid
        if v == "raw":
            ok &= t.tensor_type.name == x["type"] and t.data_offset == int(x["offset"]) == info["offset"] and \
                int(t.n_bytes) == int(x["bytes"]) == info["bytes"] and info["type_id"] == tid
        expect(ok, "%s: %s: GGUFReader gives dims %s, %s (%d), %d values, at %d, %d bytes; the mount %s" % (
            what, t.name, list(t.shape), t.tensor_type.name, t.tensor_type.value, t.n_elements, t.data_offset,
            t.n_bytes, x))
        data = np.asarray(t.data).view(np.uint8).ravel()
        if v == "q8_0":
            q8_0(what, t.name, data, read(tensor_file(m, x["name"], "f32"), "<f4").reshape(-1, dims[0]))
        else:
            expect(bits_equal(data, read(tensor_file(m, x["name"], v))), "%s: %s's data is not its %s file" % (
                what, t.name, v))


Q8_0_DIFFER = []


def q8_0(what, name, data, f32):
    """as/q8_0.gguf's blocks of a tensor are gguf-py's Q8_0 of its f32; where gguf-py's
    differ, they are ggml's (ggml_quantize_chunk), and every such block holds a value
    that is not finite (gguf-py and ggml round NaN to an int8 differently)."""
    import ggml
    import gguf
    from gguf import quants
    py = quants.quantize(f32, gguf.GGMLQuantizationType.Q8_0).view(np.uint8).reshape(-1, 34)
    got = data.reshape(-1, 34)
    bad = np.nonzero((py != got).any(axis=1))[0] if py.shape == got.shape else np.arange(len(got))
    if not len(bad):
        return expect(True, "")
    want = np.frombuffer(ggml.Ggml().quantize("q8_0", f32), np.uint8).reshape(-1, 34)
    expect(bits_equal(got, want), "%s: %s is neither gguf-py's Q8_0 of its f32 nor ggml's" % (what, name))
    finite = np.isfinite(f32.reshape(-1, 32)[bad]).all(axis=1)
    expect(not finite.any(), "%s: %s: gguf-py's Q8_0 differs from ggml's on %d blocks of finite values" % (
        what, name, finite.sum()))
    Q8_0_DIFFER.append("%s %s: %d of %d blocks" % (what.split("/")[0], name, len(bad), len(got)))


def unknown_type(mnt):
    """4: IQ3_KS: gguf-py refuses it, gguffs decodes it as ik_llama.cpp does."""
    import gguf
    m = os.path.join(mnt, "iq3_ks")
    try:
        gguf.GGUFReader(os.path.join(m, "model.gguf"))
        err = None
    except ValueError as e:
        err = str(e)
    print("  iq3_ks/model.gguf: GGUFReader says %r" % err)
    expect(err is not None and "156" in err, "GGUFReader reads IQ3_KS (type 156): %r" % err)
    r = next(x for x in manifest(REFS["ik"]) if x["name"] == "IQ3_KS")
    want = read(os.path.join(REFS["ik"], r["f32_file"]), "<f4")
    expect(bits_equal(read(tensor_file(m, "IQ3_KS", "f32"), "<f4"), want), "gguffs' IQ3_KS f32 is not ik_llama.cpp's")
    t = gguf.GGUFReader(os.path.join(m, "as", "f32.gguf")).get_tensor(1)
    expect(t.name == "IQ3_KS" and bits_equal(np.asarray(t.data).ravel(), want),
           "gguf-py reads as/f32.gguf's IQ3_KS as ik_llama.cpp's values")


def gguf_mode(mnt, d):
    warnings.simplefilter("ignore")  # (gguf-py's overflow warnings on the random blocks)
    print("gguf-py %s, numpy %s" % (version("gguf"), np.__version__))
    references(mnt)
    random_blocks(mnt, d)
    # GGUFReader takes about a second to read a real vocabulary's keys: the models with
    # one (mkhf's) have model.gguf read; the others every file
    models = sorted(n for n in os.listdir(mnt) if os.path.isdir(os.path.join(mnt, n)))
    small = [m for m in models if m not in HF_ARCHS]
    whole = ["known", "random"]
    for model in whole + ["llama", "qwen3moe"]:
        reader_checks(mnt, model, "raw")
    for model in small:
        for view in FILE_TYPE:
            reader_checks(mnt, model, view)
    print("  GGUFReader: model.gguf of %s; as/{f32,f16,bf16,q8_0}.gguf of %s" % (
        ", ".join(whole + ["llama (SentencePiece vocabulary)", "qwen3moe (gpt-2's, with merges)"]), ", ".join(small)))
    print("  as/q8_0.gguf: gguf-py's Q8_0 of f32 but for blocks holding NaN or infinity, where it is ggml's: %s" % (
        "; ".join(Q8_0_DIFFER) or "none"))
    unknown_type(mnt)


# ---------------------------------------------------------------- safetensors
def safe_read(path, framework):
    from safetensors import safe_open
    with safe_open(path, framework=framework) as f:
        md = f.metadata()
        ts = {k: f.get_tensor(k) for k in f.keys()}
    if framework == "pt":
        import torch
        ts = {k: v.view(torch.int16 if v.element_size() == 2 else torch.int32).numpy().view(
            {torch.float32: "<f4", torch.float16: "<f2", torch.bfloat16: "<u2"}[v.dtype]) for k, v in ts.items()}
    return md, ts


def root_file(mnt, model, dtype, framework):
    """MODEL/model.safetensors: every decodable tensor under its GGUF name, each its
    f32.npy (or f16 / bf16 file), and __metadata__ as README says."""
    m = os.path.join(mnt, model)
    path = os.path.join(m, "model.safetensors")
    what = "%s/model.safetensors (%s, %s)" % (model, dtype, framework)
    md, ts = safe_read(path, framework)
    rows = tsv(m)
    names = [x["name"] for x in rows if json.load(open(tensor_file(m, x["name"], "info.json")))["f32_readable"]]
    expect(sorted(ts) == sorted(names), "%s: the names: extra %s, missing %s" % (
        what, sorted(set(ts) - set(names))[:4], sorted(set(names) - set(ts))[:4]))
    for n in names:
        got = ts.get(n)
        if dtype == "f32" or dtype == "f16":
            want = np.load(tensor_file(m, n, dtype + ".npy"))
        else:
            info = json.load(open(tensor_file(m, n, "info.json")))
            want = read(tensor_file(m, n, "bf16"), "<u2").reshape(info["shape"])
        expect(got is not None and bits_equal(got, want) and got.shape == want.shape,
               "%s: %s is not its %s file" % (what, n, dtype))
    meta = json.load(open(os.path.join(m, "metadata.json"), encoding="utf-8"))
    want = {k: v["value"] for k, v in meta.items() if v["type"] == "str"}
    skipped = [x["name"] for x in rows if x["name"] not in names]
    want.update({"format": "pt", "gguffs.source": rows[0]["file"]})
    if skipped:
        want["gguffs.skipped"] = ", ".join(skipped)
    expect(md == want, "%s: __metadata__: missing %s, extra %s, other values %s" % (
        what, sorted(set(want) - set(md))[:4], sorted(set(md) - set(want))[:4],
        [(k, md[k][:40], want[k][:40]) for k in md if k in want and md[k] != want[k]][:4]))


def hf_file(mnt, f32mnt, d, arch, dtype, framework):
    """as/hf/model.safetensors: check_hf.py's names and views; f16 / bf16 the f32 rounded."""
    import check_hf
    gguf = os.path.join(d, arch + ".gguf")
    path = os.path.join(mnt, arch, "as", "hf", "model.safetensors")
    what = "%s/as/hf/model.safetensors (%s, %s)" % (arch, dtype, framework)
    md, ts = safe_read(path, framework)
    want = check_hf.hf_names(gguf)
    expect(sorted(ts) == sorted(want) and all(list(ts[k].shape) == want[k] for k in ts if k in want),
           "%s: the names and shapes are not the class's" % what)
    src = tsv(os.path.join(mnt, arch))[0]["file"]
    expect(md == {"format": "pt", "gguffs.source": src}, "%s: __metadata__ %s" % (what, md))
    if dtype == "f32":
        before = checks.failed
        check_hf.views(mnt, gguf, {k: v.view("<f4") for k, v in ts.items()})
        expect(checks.failed == before, "%s: the tensors are not the GGUF's f32.npy rearranged" % what)
        return
    _, f32 = safe_read(os.path.join(f32mnt, arch, "as", "hf", "model.safetensors"), framework)
    for k, v in ts.items():
        f = f32[k].view("<f4")
        w = f.astype(np.float16).view("<u2") if dtype == "f16" else check_hf.bf16_bits(f)
        expect(bits_equal(v.view("<u2"), w), "%s: %s is not the f32 one rounded to %s" % (what, k, dtype))


def safetensors_mode(mnt, f16mnt, bf16mnt, d):
    import safetensors
    print("safetensors %s, torch %s, numpy %s" % (safetensors.__version__, version("torch"), np.__version__))
    models = sorted(n for n in os.listdir(mnt) if os.path.isdir(os.path.join(mnt, n)))
    for dtype, m in (("f32", mnt), ("f16", f16mnt), ("bf16", bf16mnt)):
        for fw in ("pt", "numpy") if dtype != "bf16" else ("pt",):
            for model in models:
                root_file(m, model, dtype, fw)
            for a in HF_ARCHS:
                hf_file(m, mnt, d, a, dtype, fw)
    # numpy has no bfloat16: safetensors says so rather than giving other values
    from safetensors import safe_open
    try:
        with safe_open(os.path.join(bf16mnt, models[0], "model.safetensors"), framework="numpy") as f:
            f.get_tensor(next(iter(f.keys())))
        err = None
    except Exception as e:
        err = e
    expect(err is not None, "framework=numpy reads a bf16 tensor")
    print("  model.safetensors of %s and as/hf/ of %s: pt and numpy (bf16: pt; numpy says %r)" % (
        ", ".join(models), ", ".join(HF_ARCHS), str(err)[:80]))


MODES = {"make": (make, 1), "gguf": (gguf_mode, 2), "safetensors": (safetensors_mode, 4)}


def main(argv):
    mode, n = (argv[0], MODES[argv[0]][1]) if argv and argv[0] in MODES else (None, -1)
    if len(argv) != n + 1:
        print(__doc__)
        return 2
    MODES[mode][0](*argv[1:])
    return checks.finish("check_pypeers.py " + mode)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
