#!/usr/bin/python3
"""check_views.py - model.gguf and as/*.gguf checked with the real ggml (tests/peer/ggml.py)
and this file's own reading of the source model (tests/gguf_tool.py), nothing of gguffs.

  check_views.py parse SOURCE.gguf VIEW.gguf KIND
        ggml's gguf_init_from_file parses VIEW; its keys are SOURCE's (its first shard's),
        in order, split.* dropped, general.file_type that of KIND (raw: kept); its tensors
        SOURCE's (every shard's), in order, shapes kept, each aligned, typed as KIND says:
        f32 all F32, raw the stored types.
  check_views.py blocks VIEW.gguf F32.gguf NAME:TYPE...
        ggml parses VIEW (an as/<recipe>.gguf), each tensor NAME is of TYPE and its bytes
        are ggml_quantize_chunk's of the tensor's values in F32 (its as/f32.gguf), every
        row (4-D too).
  check_views.py refs VIEW.gguf MANIFEST.tsv [FILE]
        VIEW (an as/f32.gguf) parses with ggml and each tensor of the manifest (rows of FILE
        only, for a manifest of several files) holds the reference f32 bytes.
  check_views.py cos NAME REF.f32 GOT.f32 [MIN]
        prints the cosine similarity of two float32 vectors (llama.cpp outputs) and the
        largest difference; fails below MIN.
Prints "N passed, N failed".
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "peer"))
import ggml  # noqa: E402
import gguf_tool as gt  # noqa: E402
import checks  # noqa: E402
from checks import check  # noqa: E402

FILE_TYPE = {"f32": 0}


def header(path):
    with open(path, "rb") as f:
        return gt.read(f.read(64 << 20))


def shards(path):
    """The header of path and of its other shards, if it is a split set's first one."""
    h = header(path)
    count = next((v for k, t, v, _ in h.kvs if k == b"split.count"), 0)
    if count <= 1:
        return [h]
    base = path[:-len("-00001-of-%05d.gguf" % count)]
    return [header("%s-%05d-of-%05d.gguf" % (base, i + 1, count)) for i in range(count)]


def want_type(kind, tid, ne):
    return tid if kind == "raw" else ggml.TYPES["f32"]


def info_of(view):
    """ggml's reading of view's header, or None (a failed check)."""
    try:
        return ggml.Ggml().gguf_info(view)
    except ggml.GgufError as e:
        check(False, "%s: %s" % (view, e))
        return None


def mode_parse(src, view, kind):
    info = info_of(view)
    if info is None:
        return
    check(True, "parsed")
    hs = shards(src)
    keys = [k for k, t, v, _ in hs[0].kvs if not k.startswith(b"split.")]
    if kind != "raw" and b"general.file_type" not in keys:
        keys.append(b"general.file_type")
    got = [k["key"].encode() for k in info["keys"]]
    check(got == keys, "%s: keys %s, expected %s" % (view, got[:8], keys[:8]))
    ft = [k for k in info["keys"] if k["key"] == "general.file_type"]
    if kind != "raw":
        # (gguf_info gives no scalar values: read it ourselves)
        v = [v for k, t, v, _ in header(view).kvs if k == b"general.file_type"]
        check(len(ft) == 1 and ft[0]["type"] == gt.U32 and v == [FILE_TYPE[kind]],
              "%s: general.file_type %s, expected u32 %d" % (view, v, FILE_TYPE[kind]))
    ts = [t for h in hs for t in h.tensors]
    check(len(info["tensors"]) == len(ts), "%s: %d tensors, expected %d" % (view, len(info["tensors"]), len(ts)))
    bad = 0
    end = 0
    for vt, st in zip(info["tensors"], ts):
        name, ne, tid = st["name"], list(st["dims"]), st["type"]
        w = want_type(kind, tid, ne)
        shape = ne[:]
        while len(shape) > 1 and shape[-1] == 1:
            shape.pop()
        ok = (vt["name"].encode() == name and vt["type"] == w and vt["ne"] == shape and
              vt["offset"] % info["alignment"] == 0 and vt["offset"] >= end)
        if not ok and bad < 3:
            print("%s: tensor %s: type %d ne %s offset %d, expected type %d ne %s" % (
                view, name, vt["type"], vt["ne"], vt["offset"], w, shape))
        bad += not ok
        end = vt["offset"] + vt["size"]
    check(bad == 0, "%s: %d tensors not as expected" % (view, bad))
    size = os.path.getsize(view)
    pad = -(info["data_offset"] + end) % info["alignment"]
    check(size == info["data_offset"] + end + pad,
          "%s: %d bytes, the last tensor ends at %d" % (view, size, info["data_offset"] + end))


def mode_blocks(view, f32, *want):
    info, ref = info_of(view), info_of(f32)
    if info is None or ref is None:
        return
    g = ggml.Ggml()
    by_name = {t["name"]: t for t in ref["tensors"]}
    vb, fb = np.memmap(view, np.uint8, "r"), np.memmap(f32, np.uint8, "r")
    types = dict(w.split(":") for w in want)
    check(sorted(types) == sorted(t["name"] for t in info["tensors"]), "%s: tensors %s" % (
        view, [t["name"] for t in info["tensors"]]))
    for t in info["tensors"]:
        r = by_name[t["name"]]
        at = ref["data_offset"] + r["offset"]
        x = np.frombuffer(bytes(fb[at:at + r["size"]]), "<f4").reshape(-1, r["ne"][0])
        at = info["data_offset"] + t["offset"]
        got = bytes(vb[at:at + t["size"]])
        ok = t["type_name"] == types.get(t["name"]) and got == g.quantize(t["type_name"], x)
        check(ok, "%s: %s is %s, not %s of the f32 values" % (view, t["name"], t["type_name"], types.get(t["name"])))
    print("%s: %s: ggml's blocks of the f32 values" % (os.path.basename(view), " ".join(want)))


def mode_refs(view, manifest, file=None):
    info = info_of(view)
    if info is None:
        return
    by_name = {t["name"]: t for t in info["tensors"]}
    base = os.path.dirname(manifest)
    b = np.memmap(view, np.uint8, "r")
    with open(manifest) as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(head, ln.rstrip("\n").split("\t"))) for ln in f if ln.strip()]
    n = 0
    for r in rows:
        if file and r.get("file") != file:
            continue
        t = by_name.get(r["name"])
        if t is None or not r.get("f32_file"):
            check(False, "%s: no tensor %s" % (view, r["name"]))
            continue
        want = open(os.path.join(base, r["f32_file"]), "rb").read()
        at = info["data_offset"] + t["offset"]
        got = bytes(b[at:at + len(want)])
        check(t["type_name"] == "f32" and t["size"] == len(want) and got == want,
              "%s: %s (%s) is not the reference f32" % (view, r["name"], r["type_name"]))
        n += 1
    check(n > 0, "%s: no tensor of the manifest" % view)
    print("%s: %d tensors against the reference f32 files" % (os.path.basename(view), n))


def mode_cos(name, ref, got, lo=None):
    a = np.fromfile(ref, "<f4").astype(np.float64)
    b = np.fromfile(got, "<f4").astype(np.float64)
    ok = a.size == b.size and a.size > 0 and np.isfinite(b).all()
    cos = float(a @ b / np.linalg.norm(a) / np.linalg.norm(b)) if ok else float("nan")
    print("%s: cosine %.7f, max |difference| %.3g over %d values" % (
        name, cos, float(np.abs(a - b).max()) if ok else float("nan"), a.size))
    check(ok and (lo is None or cos >= float(lo)), "%s: cosine %.7f (at least %s expected)" % (name, cos, lo))


def main(argv):
    mode = argv[0]
    if mode == "parse":
        mode_parse(*argv[1:4])
    elif mode == "refs":
        mode_refs(*argv[1:4])
    elif mode == "blocks":
        mode_blocks(*argv[1:])
    elif mode == "cos":
        mode_cos(*argv[1:5])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print("check_views.py %s: %d passed, %d failed" % (mode, checks.passed, checks.failed))
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
