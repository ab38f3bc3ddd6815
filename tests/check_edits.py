#!/usr/bin/python3
"""check_edits.py - an edited model as other programs read it (tests/pyenv.sh python).

  check_edits.py keys ORIG.gguf EDITED.gguf EDITS.json
      gguf-py's GGUFReader and ggml's gguf_init_from_file (tests/peer/ggml.py) read every
      key of EDITED: they are ORIG's keys in ORIG's order, with the values EDITS.json (an
      edits file of gguffs) sets, without the keys it removes, and its new keys after
      them in its order; every tensor of EDITED (name, type, shape, bytes at ggml's
      offset) is ORIG's, byte for byte.
  check_edits.py recipe ORIG.gguf VIEW.gguf EDITS.json RECIPE
      VIEW, an as/<RECIPE>.gguf of ORIG mounted with EDITS.json, read by gguf-py's
      GGUFReader and ggml's gguf_init_from_file: its keys are those `keys` wants,
      but as llama-quantize writes the file it makes of the edited model:
      general.quantization_version (2, GGML_QNT_VERSION) and general.file_type (the
      recipe's llama_ftype, tests/peer/quantize.py) taken out where they were and set
      last, in that order (its tensors: 84_recipes compares the file with
      llama-quantize's).
  check_edits.py same A.gguf B.gguf
      A and B hold the same keys with the same types and values (in any order) and the
      same tensors, byte for byte; then how their layouts differ: key order, where the
      data starts, tensor offsets, file size.

Prints "check_edits: N passed, M failed" (tests/run.sh sums those) and exits 1 on a failure.
"""
import json
import math
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peer"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
import ggml  # noqa: E402
import gguf  # noqa: E402
from checks import check  # noqa: E402

T = gguf.GGUFValueType
NAMES = {"u8": T.UINT8, "i8": T.INT8, "u16": T.UINT16, "i16": T.INT16, "u32": T.UINT32, "i32": T.INT32,
         "f32": T.FLOAT32, "bool": T.BOOL, "str": T.STRING, "u64": T.UINT64, "i64": T.INT64, "f64": T.FLOAT64}


def same_value(a, b, ftype=None):
    """Values equal; floats compared by their bits (NaN equals NaN) at their type's width."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y, ftype) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if ftype == T.FLOAT32:
            return np.float32(a).tobytes() == np.float32(b).tobytes()
        return struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))
    return a == b


def reader_keys(path):
    """[(key, (type, element type or None), value)] in file order, as gguf-py reads them."""
    r = gguf.GGUFReader(path)
    out = []
    for f in r.fields.values():
        if f.name.startswith("GGUF."):
            continue
        t = f.types[0]
        out.append((f.name, (t, f.types[-1] if t == T.ARRAY else None), f.contents()))
    return r, out


def json_value(type_name, v):
    """An edits file's (type, value) as gguf-py's (types, contents) would give them."""
    if type_name.startswith("arr["):
        inner = type_name[4:-1]
        return (T.ARRAY, NAMES.get(inner, T.ARRAY)), [json_value(inner, x)[1] for x in v]
    t = NAMES[type_name]
    if t in (T.FLOAT32, T.FLOAT64) and isinstance(v, str):
        v = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]
    return (t, None), v


def expected(orig_keys, edits):
    """ORIG's keys with the edits applied, in the order gguffs promises."""
    sets = edits.get("set", {})
    removed = set(edits.get("removed", []))
    have = {k for k, _, _ in orig_keys}
    out = []
    for k, ty, v in orig_keys:
        if k in removed:
            continue
        if k in sets:
            ty, v = json_value(sets[k]["type"], sets[k]["value"])
        out.append((k, ty, v))
    for k, s in sets.items():
        if k not in have:
            ty, v = json_value(s["type"], s["value"])
            out.append((k, ty, v))
    return out


def tensors_same(ra, rb, what):
    check(len(ra.tensors) == len(rb.tensors), "%s: %d tensors, want %d" % (what, len(rb.tensors), len(ra.tensors)))
    for a, b in zip(ra.tensors, rb.tensors):
        ok = (a.name == b.name and a.tensor_type == b.tensor_type and list(a.shape) == list(b.shape) and
              a.data.tobytes() == b.data.tobytes())
        check(ok, "%s: tensor %s differs" % (what, a.name))


def gguf_py_keys(ekeys, want):
    """gguf-py's keys of a file (reader_keys) are want's: names, order, types, values."""
    check([k for k, _, _ in ekeys] == [k for k, _, _ in want], "gguf-py: keys %s, want %s" %
          ([k for k, _, _ in ekeys], [k for k, _, _ in want]))
    for (k, ty, v), (_, wty, wv) in zip(ekeys, want):
        ft = ty[1] if ty[0] == T.ARRAY else ty[0]
        check(ty == wty and same_value(v, wv, ft), "gguf-py: %s = %r %s, want %r %s" % (k, v, ty, wv, wty))


def ggml_keys(path, want):
    """ggml's gguf_init_from_file reads want's keys and values in path; its info, or None."""
    g = ggml.Ggml()
    try:
        info = g.gguf_info(path)
    except ggml.GgufError as e:
        check(False, str(e))
        return None
    got = [(k["key"], k.get("value")) for k in info["keys"]]
    check([k for k, _ in got] == [k for k, _, _ in want], "ggml: keys %s, want %s" %
          ([k for k, _ in got], [k for k, _, _ in want]))
    for (k, v), (_, ty, wv) in zip(got, want):
        if ty[0] == T.STRING or (ty[0] == T.ARRAY and ty[1] == T.STRING):
            # (ggml's strings come as bytes, decoded here as gguf-py decodes them)
            check(v == wv, "ggml: %s = %r, want %r" % (k, v, wv))
        else:
            check(same_value(v, wv, ty[1] if ty[0] == T.ARRAY else ty[0]), "ggml: %s = %r, want %r" % (k, v, wv))
    return info


def ggml_reads(path, want, orig):
    """ggml's gguf_init_from_file: the same keys and values, and the tensors' bytes at its
    offsets the original's."""
    info = ggml_keys(path, want)
    if info is None:
        return
    oinfo = ggml.Ggml().gguf_info(orig)
    with open(path, "rb") as f, open(orig, "rb") as o:
        for a, b in zip(info["tensors"], oinfo["tensors"]):
            f.seek(info["data_offset"] + a["offset"])
            o.seek(oinfo["data_offset"] + b["offset"])
            check(a["name"] == b["name"] and a["type"] == b["type"] and a["ne"] == b["ne"] and
                  f.read(a["size"]) == o.read(b["size"]), "ggml: tensor %s differs" % a["name"])
    check(len(info["tensors"]) == len(oinfo["tensors"]), "ggml: tensor count")


def mode_keys(orig, edited, edits_path):
    edits = json.load(open(edits_path))
    ro, okeys = reader_keys(orig)
    re_, ekeys = reader_keys(edited)
    want = expected(okeys, edits)
    gguf_py_keys(ekeys, want)
    tensors_same(ro, re_, "gguf-py")
    ggml_reads(edited, want, orig)
    print("%s: %d keys and %d tensors read by gguf-py and ggml" % (os.path.basename(edited), len(ekeys),
                                                                  len(re_.tensors)))


def mode_recipe(orig, view, edits_path, recipe):
    import quantize  # (tests/peer: llama-quantize's names and ftypes)
    _, okeys = reader_keys(orig)
    last = {"general.quantization_version": 2, "general.file_type": quantize.ftype_of(recipe)}
    want = [kv for kv in expected(okeys, json.load(open(edits_path))) if kv[0] not in last]
    want += [(k, (T.UINT32, None), v) for k, v in last.items()]
    _, vkeys = reader_keys(view)
    gguf_py_keys(vkeys, want)
    ggml_keys(view, want)
    print("%s: %d keys read by gguf-py and ggml, edited, then general.quantization_version 2 and "
          "general.file_type %d last" % (os.path.basename(view), len(vkeys), last["general.file_type"]))


def mode_same(a, b):
    ra, ka = reader_keys(a)
    rb, kb = reader_keys(b)
    da = {k: (ty, v) for k, ty, v in ka}
    db = {k: (ty, v) for k, ty, v in kb}
    check(sorted(da) == sorted(db), "keys: only in %s: %s; only in %s: %s" %
          (a, sorted(set(da) - set(db)), b, sorted(set(db) - set(da))))
    for k in sorted(set(da) & set(db)):
        (ta, va), (tb, vb) = da[k], db[k]
        ft = ta[1] if ta[0] == T.ARRAY else ta[0]
        check(ta == tb and same_value(va, vb, ft), "%s: %r %s vs %r %s" % (k, va, ta, vb, tb))
    tensors_same(ra, rb, "tensors")
    # how the two files lay the same things out
    oa, ob = [k for k, _, _ in ka], [k for k, _, _ in kb]
    moved = [k for i, k in enumerate(oa) if i >= len(ob) or ob[i] != k]
    print("layout: key order %s%s" % ("the same" if not moved else "differs from key %d on" % oa.index(moved[0]),
                                      "" if not moved else " (%s: %s ...)" % (os.path.basename(b), ", ".join(ob[oa.index(moved[0]):][:4]))))
    offs_a = [t.data_offset for t in ra.tensors]
    offs_b = [t.data_offset for t in rb.tensors]
    rel_a = [o - offs_a[0] for o in offs_a] if offs_a else []
    rel_b = [o - offs_b[0] for o in offs_b] if offs_b else []
    print("layout: data starts at %d and %d; tensor offsets within the data %s; %d and %d bytes" %
          (offs_a[0] if offs_a else 0, offs_b[0] if offs_b else 0, "the same" if rel_a == rel_b else "differ",
           os.path.getsize(a), os.path.getsize(b)))


def main(argv):
    if len(argv) == 4 and argv[0] == "keys":
        mode_keys(*argv[1:])
    elif len(argv) == 5 and argv[0] == "recipe":
        mode_recipe(*argv[1:])
    elif len(argv) == 3 and argv[0] == "same":
        mode_same(*argv[1:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return checks.finish("check_edits")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
