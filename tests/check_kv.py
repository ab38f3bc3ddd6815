"""check_kv.py MOUNT KV.json[.gz] - every metadata file and metadata.json of a
mount against the key/values a reference reader (ggml or gguf-py) produced
(check_pypeers.py calls compare() with gguf-py's GGUFReader's).

Text rules checked: integers parse to the exact value; f32/f64 text parses
back to the same bits; bools are true/false; strings are their exact bytes
plus a newline; arrays have one element per line (wc -l counts them) with
string elements escaping backslash, newline and CR."""
import gzip
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gguf_tool import esc  # noqa: E402


def unescape_line(b):
    out, i = bytearray(), 0
    while i < len(b):
        if b[i] == 0x5C and i + 1 < len(b):
            out += {ord("\\"): b"\\", ord("n"): b"\n", ord("r"): b"\r"}[b[i + 1]]
            i += 2
        else:
            out.append(b[i])
            i += 1
    return bytes(out)


def f32_bits(x):
    return struct.pack("<f", x)


def f64_bits(x):
    return struct.pack("<d", x)


def same_scalar(t, text, want):
    """text: one rendered value (bytes, no newline); want: kv.json value."""
    s = text.decode()
    if t in ("u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64"):
        return s == str(int(want))
    if t == "bool":
        return s == ("true" if want else "false")
    if t == "f32":
        return f32_bits(float(s)) == f32_bits(float(want))
    if t == "f64":
        return f64_bits(float(s)) == f64_bits(float(want))
    raise ValueError(t)


def json_same(t, got, want):
    if t == "f32":
        g = float(got) if not isinstance(got, str) else float(got)
        return f32_bits(g) == f32_bits(float(want))
    if t == "f64":
        return f64_bits(float(got)) == f64_bits(float(want))
    if t in ("u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64"):
        return int(got) == int(want)
    return got == want


def compare(mnt, kv):
    """The number of keys of KV (kv.json's "kv" list) that MNT's metadata/ and
    metadata.json do not give alike (each said on stderr)."""
    with open(os.path.join(mnt, "metadata.json"), encoding="utf-8") as f:
        meta = json.load(f)
    bad = 0
    names = os.listdir(os.path.join(mnt, "metadata"))
    if names != [esc(e["key"]) for e in kv]:
        print(f"metadata/ listing differs from the file's key order", file=sys.stderr)
        bad += 1
    for e in kv:
        key, t = e["key"], e["type"]
        with open(os.path.join(mnt, "metadata", esc(key)), "rb") as f:
            text = f.read()
        ok = True
        if t == "str":
            ok = text == e["value"].encode("utf-8", "surrogatepass") + b"\n"
        elif t == "arr":
            at, vals = e["arr_type"], e["value"]
            lines = text.split(b"\n")
            if len(vals) == 0:
                ok = text == b""
            elif lines[-1] != b"" or len(lines) - 1 != len(vals):
                ok = False
            else:
                for line, v in zip(lines, vals):
                    if at == "str":
                        ok = unescape_line(line) == v.encode("utf-8", "surrogatepass")
                    elif at == "arr":
                        ok = json.loads(line) == v
                    else:
                        ok = same_scalar(at, line, v)
                    if not ok:
                        break
        else:
            ok = text.endswith(b"\n") and same_scalar(t, text[:-1], e["value"])
        m = meta.get(key)
        if m is None or m["type"] != t:
            ok = False
        elif t == "arr":
            if m["arr_type"] != e["arr_type"] or m["n"] != len(e["value"]) or len(m["value"]) != len(e["value"]):
                ok = False
            else:
                ok = ok and all(json_same(e["arr_type"], g, w) for g, w in zip(m["value"], e["value"]))
        else:
            ok = ok and json_same(t, m["value"], e["value"])
        if not ok:
            print(f"metadata {key!r} ({t}): mount gives {text[:200]!r}", file=sys.stderr)
            bad += 1
    return bad


def main():
    mnt, ref = sys.argv[1], sys.argv[2]
    opener = gzip.open if ref.endswith(".gz") else open
    with opener(ref, "rt", encoding="utf-8") as f:
        kv = json.load(f)["kv"]
    bad = compare(mnt, kv)
    print(f"check_kv {os.path.basename(ref)}: {len(kv)} keys, {bad} wrong")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
