"""check.py MOUNT FILE.gguf CHECKS - what a mounted malformed file must serve.

Reads the whole tree (every file to its end: every file listed reads whole,
and a tensor folder lists f32, the views made from it (f16, bf16, f32.npy,
f16.npy) and stats exactly when info.json says f32 is readable; raw and
info.json always), parses every JSON file, then runs CHECKS (the checks column of tests/malformed/expected.tsv;
see gen.py). Exit status 0 when all hold."""
import codecs
import errno
import json
import os
import sys

import numpy as np


VIEWS = (b"f16", b"bf16", b"f32.npy", b"f16.npy")  # made from f32: there when it is
DECODED = {b"f32", b"stats"} | set(VIEWS)


def b(s):
    """Table text (with \\xNN escapes) to the bytes of a name."""
    return codecs.escape_decode(s.encode())[0]


def read(path):
    with open(path, "rb") as f:
        out = bytearray()
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return bytes(out)
            out += chunk


def err_of(path):
    try:
        read(path)
        return None
    except OSError as e:
        return e.errno


def decode(raw, info):
    t = info["type"]
    if t == "F32":
        return raw
    if t == "F16":
        return np.frombuffer(raw, "<f2").astype("<f4").tobytes()
    if t == "BF16":
        return (np.frombuffer(raw, "<u2").astype("<u4") << 16).tobytes()
    if t == "Q8_0":
        blk = np.frombuffer(raw, dtype=[("d", "<f2"), ("q", "i1", 32)])
        return (blk["d"].astype("<f4")[:, None] * blk["q"].astype("<f4")).astype("<f4").tobytes()
    return None


def main():
    mnt, gguf, checks = sys.argv[1], sys.argv[2], sys.argv[3]
    m = os.fsencode(mnt)
    data = open(gguf, "rb").read()
    bad = []

    # The whole tree.
    infos = {}
    too_large = [os.path.join(m, b(c.split(":", 1)[1])) for c in checks.split(";") if c.startswith("toolarge:")]
    for d, dirs, files in os.walk(m):
        for fn in files:
            p = os.path.join(d, fn)
            if p in too_large:
                bad.append(f"{p!r}: listed, though its text is too large to make")
                continue
            try:
                content = read(p)
            except OSError as e:
                bad.append(f"{p!r}: {e}")
                continue
            if fn in (b"metadata.json", b"info.json"):
                try:
                    j = json.loads(content)
                except ValueError as e:
                    bad.append(f"{p!r}: not JSON: {e}")
                    continue
                if fn == b"info.json":
                    infos[os.path.basename(d)] = j
            if fn != b".stats" and fn != b"stats" and len(content) != os.stat(p).st_size:
                bad.append(f"{p!r}: read {len(content)} bytes, size {os.stat(p).st_size}")
    for name, info in infos.items():
        td = os.path.join(m, b"tensors", name)
        listed = set(os.listdir(td))
        want = {b"raw", b"info.json"} | (DECODED if info["f32_readable"] else set())
        if listed != want:
            bad.append(f"{name!r}: lists {sorted(listed)}, f32_readable {info['f32_readable']}")
        if info["f32_readable"] and os.stat(os.path.join(td, b"f32")).st_size != info["f32_bytes"]:
            bad.append(f"{name!r}: f32 size differs from info.json")
        for v in DECODED - listed:
            if err_of(os.path.join(td, v)) != errno.ENOENT:
                bad.append(f"{name!r}: {v.decode()} is not listed but opens")

    # The case's own checks.
    for c in [c for c in checks.split(";") if c and c != "-"]:
        if c.startswith("tensors=") or c.startswith("keys="):
            d = b"tensors" if c.startswith("tensors=") else b"metadata"
            want = [b(x) for x in c.split("=", 1)[1].split(",") if x]
            got = os.listdir(os.path.join(m, d))
            if got != want:
                bad.append(f"{c}: listing is {got}")
            continue
        kind, rest = c.split(":", 1)
        if kind == "toolarge":
            e = err_of(os.path.join(m, b(rest)))
            if e != errno.ENOENT:
                bad.append(f"{c}: read gives {e}, expected ENOENT (not listed)")
            continue
        name, arg = rest.split("~" if "~" in rest else "=", 1)
        nb = b(name)
        td = os.path.join(m, b"tensors", nb)
        try:
            if kind == "raw":
                raw = read(os.path.join(td, b"raw"))
                info = json.loads(read(os.path.join(td, b"info.json")))
                off = info["offset"]
                if len(raw) != int(arg) or raw != data[off:off + len(raw)]:
                    bad.append(f"{c}: raw is {len(raw)} bytes, equal to the file: {raw == data[off:off + len(raw)]}")
            elif kind in ("f32", "stats"):
                e = err_of(os.path.join(td, kind.encode()))
                if arg == "absent":
                    if e != errno.ENOENT:
                        bad.append(f"{c}: read gives {e}, not ENOENT")
                elif e is not None:
                    bad.append(f"{c}: read fails ({os.strerror(e)})")
                elif kind == "f32":
                    info = json.loads(read(os.path.join(td, b"info.json")))
                    got = read(os.path.join(td, b"f32"))
                    want = decode(read(os.path.join(td, b"raw")), info)
                    if want is not None and got != want:
                        bad.append(f"{c}: f32 differs from the decoded raw bytes")
                    if len(got) != info["n_elements"] * 4:
                        bad.append(f"{c}: f32 is {len(got)} bytes")
            elif kind == "info":
                info = json.loads(read(os.path.join(td, b"info.json")))
                text = (info.get("error") or "") + " | " + (info.get("resolution") or "")
                if arg not in text:
                    bad.append(f"{c}: info.json says {text!r}")
            elif kind == "type":
                info = json.loads(read(os.path.join(td, b"info.json")))
                want = None if arg == "null" else arg
                if info.get("type") != want:
                    bad.append(f"{c}: type is {info.get('type')}")
            elif kind == "meta":
                text = read(os.path.join(m, b"metadata", nb))
                if b(arg) not in text:
                    bad.append(f"{c}: metadata file holds {text[:200]!r}")
            elif kind == "lines":
                text = read(os.path.join(m, b"metadata", nb))
                n = text.count(b"\n")
                if n != int(arg):
                    bad.append(f"{c}: {n} lines")
            else:
                bad.append(f"{c}: unknown check")
        except OSError as e:
            bad.append(f"{c}: {e}")
    for x in bad[:20]:
        print("  " + x, file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
