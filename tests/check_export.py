"""check_export.py - the export files of a gguffs mount, checked from the
format texts with readers written here (not gguffs' code, not a library's).

    check_export.py halfconv TEST_HALFCONV       f16 against numpy, bf16 against a
                                                 bit-level reference, on every pattern of
                                                 chosen exponent ranges and random ones
    check_export.py tensors MOUNT MANIFEST GGUF [--dtype f32|f16|bf16] [--torch]
                                                 every tensor of a reference set: f32.npy,
                                                 f16, f16.npy, bf16, model.safetensors
    check_export.py make-odd OUT.gguf            a model of odd names, 0-element tensors,
                                                 undecodable tensors, odd metadata
    check_export.py odd MOUNT GGUF [--dtype D]   model.safetensors of that model: keys,
                                                 __metadata__, size, data
    check_export.py make-patterns OUT.gguf       F32 tensors of bit patterns (boundaries,
                                                 NaNs, random), an F16 tensor of all 2^16
    check_export.py patterns MOUNT GGUF          their f16 and bf16 files through the mount
    check_export.py make-sparse OUT.gguf N NE0 NROWS   N Q8_0 tensors of zeros, a sparse file
    check_export.py preads MOUNT FILE...         random preads equal slices of a whole read

Each mode ends with "check_export MODE: N passed, N failed" and exits 1 on a failure.

The safetensors rules (from the format's description): 8 bytes, a little-endian
u64 N; N bytes of a UTF-8 JSON object, which may be padded at the end with
spaces; then the byte buffer. Each key but "__metadata__" is a tensor:
{"dtype", "shape", "data_offsets": [BEGIN, END]} with offsets relative to the
start of the buffer; "__metadata__" maps strings to strings only. Readers
refuse headers of 100 MB or more, duplicate keys, overlapping or holed data
(sorted by BEGIN, each tensor starts where the previous ends, and the last
ends at the end of the file), and sizes that disagree with dtype x shape.
gguffs promises more: N % 8 == 0, every tensor under its GGUF name in the
GGUF file's order, shape in numpy order."""
import ast
import json
import mmap
import os
import random
import struct
import subprocess
import sys
import tempfile
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_tool as g  # noqa: E402
import checks  # noqa: E402
from checks import check  # noqa: E402

checks.to_stderr = True


def finish(mode):
    print(f"check_export {mode}: {checks.passed} passed, {checks.failed} failed")
    sys.exit(1 if checks.failed else 0)


# ---------------------------------------------------------------- references

def f16_ref(bits):
    """numpy's float32 -> float16 (the definition the issue gives), as u16."""
    with np.errstate(all="ignore"):
        return np.asarray(bits, dtype="<u4").view("<f4").astype("<f2").view("<u2")


def bf16_ref(bits):
    """bfloat16 by bits: keep the top half; round up when the bottom half is
    above 0x8000, or exactly 0x8000 and the top half is odd (ties to even);
    a carry out of the mantissa goes into the exponent, the largest floats
    to infinity. NaN keeps sign and top payload bits and is made quiet
    (bit 6 of the result, the top mantissa bit)."""
    u = np.asarray(bits, dtype="<u4")
    hi, lo = u >> 16, u & 0xFFFF
    up = (lo > 0x8000) | ((lo == 0x8000) & ((hi & 1) == 1))
    out = hi + up.astype(np.uint32)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    out[nan] = hi[nan] | 0x40
    return out.astype("<u2")


# ---------------------------------------------------------------- .npy reader

def read_npy_header(path, want_descr, want_shape, what):
    """The .npy format 1.0 (2.0 only for headers over 64 KiB): magic
    \\x93NUMPY, major, minor, a little-endian header length (u16; u32 in 2.0),
    an ASCII dict literal ending in '\\n' padded with spaces, the whole
    preamble a multiple of 64 bytes. Returns the data offset or None."""
    with open(path, "rb") as f:
        pre = f.read(12)
        ok = check(pre[:6] == b"\x93NUMPY", f"{what}: magic {pre[:6]!r}")
        major, minor = pre[6], pre[7]
        ok &= check((major, minor) == (1, 0), f"{what}: version {major}.{minor}, want 1.0")
        hl = struct.unpack_from("<H", pre, 8)[0]
        start = 10 + hl
        ok &= check(start % 64 == 0, f"{what}: data at {start}, not a multiple of 64")
        f.seek(10)
        h = f.read(hl)
    try:
        text = h.decode("ascii")
    except UnicodeDecodeError:
        check(False, f"{what}: header not ASCII")
        return None
    ok &= check(text.endswith("\n") and text[:-1].rstrip(" ").endswith("}"),
                f"{what}: header {text[-20:]!r} must be the dict, spaces and a newline")
    try:
        d = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError) as e:
        check(False, f"{what}: header {text!r} is not a Python literal: {e}")
        return None
    ok &= check(isinstance(d, dict) and sorted(d) == ["descr", "fortran_order", "shape"],
                f"{what}: header keys {d!r}")
    ok &= check(d.get("descr") == want_descr, f"{what}: descr {d.get('descr')!r}, want {want_descr!r}")
    ok &= check(d.get("fortran_order") is False, f"{what}: fortran_order {d.get('fortran_order')!r}")
    ok &= check(d.get("shape") == tuple(want_shape), f"{what}: shape {d.get('shape')!r}, want {tuple(want_shape)}")
    return start if ok else None


# ---------------------------------------------------------------- safetensors reader

ST_SIZES = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "I16": 2, "U16": 2, "F16": 2,
            "BF16": 2, "I32": 4, "U32": 4, "F32": 4, "I64": 8, "U64": 8, "F64": 8}
ST_MAX_HEADER = 100_000_000


def _pairs_no_dup(what):
    def hook(pairs):
        keys = [k for k, _ in pairs]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        check(not dup, f"{what}: duplicate JSON keys {dup[:5]!r}")
        return dict(pairs)
    return hook


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def read_safetensors(path, what):
    """Returns (N, metadata dict, [(key, dtype, shape, begin, end)] in header
    order) after checking every rule above, or None when it cannot parse."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if not check(len(head) == 8, f"{what}: shorter than 8 bytes"):
            return None
        n = struct.unpack("<Q", head)[0]
        check(n < ST_MAX_HEADER, f"{what}: header of {n} bytes (readers take under 100 MB)")
        if not check(8 + n <= size, f"{what}: header length {n} past the file's {size} bytes"):
            return None
        hb = f.read(n)
    check(n % 8 == 0, f"{what}: header length {n} not a multiple of 8")
    check(hb[:1] == b"{", f"{what}: header starts with {hb[:1]!r}, not '{{'")
    try:
        text = hb.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, f"{what}: header not UTF-8: {e}")
        return None
    dec = json.JSONDecoder(object_pairs_hook=_pairs_no_dup(what), parse_constant=_no_constant)
    try:
        top, end = dec.raw_decode(text)
    except ValueError as e:
        check(False, f"{what}: header not JSON: {e}")
        return None
    check(set(text[end:]) <= {" "}, f"{what}: after the JSON object {text[end:end + 20]!r}, want only spaces")
    if not check(isinstance(top, dict), f"{what}: header is not an object"):
        return None
    meta = top.get("__metadata__", {})
    check(isinstance(meta, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items()),
          f"{what}: __metadata__ is not string to string")
    tensors = []
    for k, v in top.items():
        if k == "__metadata__":
            continue
        if not check(isinstance(v, dict) and sorted(v) == ["data_offsets", "dtype", "shape"],
                     f"{what}: tensor {k!r}: entry {v!r}"):
            continue
        dt, shape, offs = v["dtype"], v["shape"], v["data_offsets"]
        ok = check(dt in ST_SIZES, f"{what}: tensor {k!r}: dtype {dt!r}")
        ok &= check(isinstance(shape, list) and all(type(x) is int and x >= 0 for x in shape),
                    f"{what}: tensor {k!r}: shape {shape!r}")
        ok &= check(isinstance(offs, list) and len(offs) == 2 and all(type(x) is int for x in offs) and
                    0 <= offs[0] <= offs[1], f"{what}: tensor {k!r}: data_offsets {offs!r}")
        if not ok:
            continue
        nel = 1
        for x in shape:
            nel *= x
        check(offs[1] - offs[0] == nel * ST_SIZES[dt],
              f"{what}: tensor {k!r}: {offs[1] - offs[0]} bytes for {dt} {shape}")
        tensors.append((k, dt, shape, offs[0], offs[1]))
    # No holes, no overlaps, the buffer fully used.
    at = 0
    for k, _, _, b, e in sorted(tensors, key=lambda t: (t[3], t[4])):
        check(b == at, f"{what}: tensor {k!r} begins at {b}, the previous ends at {at}")
        at = max(at, e)
    check(at == size - 8 - n, f"{what}: data ends at {at}, the buffer has {size - 8 - n} bytes")
    # gguffs: in header order, the offsets follow each other (the GGUF file's order).
    at = 0
    for k, _, _, b, e in tensors:
        check(b == at, f"{what}: tensor {k!r} at {b} is out of the header's order (expected {at})")
        at = e
    return n, meta, tensors


NP_OF = {"F32": "<f4", "F16": "<f2", "BF16": "<u2"}
U_OF = {"F32": "<u4", "F16": "<u2", "BF16": "<u2"}


def st_array(path, n, dt, shape, b, e):
    """A tensor of model.safetensors through numpy.memmap (u16 for BF16)."""
    if b == e:
        return np.zeros(shape, dtype=NP_OF[dt])
    return np.memmap(path, dtype=NP_OF[dt], mode="r", offset=8 + n + b, shape=tuple(shape))


def st_torch(torch, mm, n, dt, shape, b, e):
    """The same through torch.frombuffer at the tensor's offset."""
    tdt = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}[dt]
    count = (e - b) // ST_SIZES[dt]
    if count == 0:
        return torch.empty(shape, dtype=tdt)
    return torch.frombuffer(mm, dtype=tdt, count=count, offset=8 + n + b).reshape(shape)


def torch_bits(torch, t):
    """Bit patterns of a torch tensor as a numpy array (u32 or u16)."""
    if t.dtype == torch.float32:
        return t.view(torch.int32).numpy().view("<u4")
    return t.view(torch.int16).numpy().view("<u2")


def import_torch():
    warnings.filterwarnings("ignore", message=".*not writable.*")
    warnings.filterwarnings("ignore", message=".*non-writable.*")
    import torch
    return torch


# ---------------------------------------------------------------- modes

def mode_halfconv(binary):
    """Exhaustive over chosen f32 exponent fields (every mantissa), then
    random patterns; on every path the CPU has."""
    paths = ["scalar"]
    if subprocess.run([binary, "--convert", "f16", "avx2"], input=b"", capture_output=True).returncode == 0:
        paths.append("avx2")

    def conv(kind, path, bits, first=None):
        """The binary's results for bits; for a range (first given), it makes
        the patterns itself."""
        args = [binary, "--convert", kind, path]
        with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout:
            if first is not None:
                args += [str(first), str(len(bits))]
            else:  # a pipe fed by communicate() would go 512 bytes a write
                bits.astype("<u4").tofile(fin)
                fin.seek(0)
            r = subprocess.run(args, stdin=fin, stdout=fout, stderr=subprocess.PIPE)
            fout.seek(0)
            out = np.fromfile(fout, dtype="<u2")
        check(r.returncode == 0, f"{' '.join(args)}: {r.stderr.decode()[:200]}")
        return out

    def compare(kind, bits, want, label, first=None):
        for p in paths:
            got = conv(kind, p, bits, first)
            bad = np.flatnonzero(got != want) if got.shape == want.shape else np.arange(1)
            check(bad.size == 0 and got.shape == want.shape,
                  f"{kind} {p} {label}: {bad.size} differ" +
                  (f", first {bits[bad[0]]:08x} -> {got[bad[0]]:04x}, want {want[bad[0]]:04x}"
                   if bad.size and got.shape == want.shape else ""))

    m = np.arange(1 << 23, dtype=np.uint32)
    # f16: the tie between 0 and the smallest subnormal (exponent 102), the
    # last subnormals (112), the first normals (113), the overflow boundary
    # (142), NaN and Inf (255, both signs). bf16: f32 subnormals, the
    # overflow boundary, NaN and Inf (test_halfconv also covers 1.0).
    for kind, exps in (("f16", [102, 112, 113, 142, 255, 256 + 255]), ("bf16", [0, 254, 255, 256 + 255])):
        for e in exps:
            bits = ((e >> 8) << 31 | (e & 0xFF) << 23) + m
            bits = bits.astype(np.uint32)
            want = f16_ref(bits) if kind == "f16" else bf16_ref(bits)
            compare(kind, bits, want, f"every pattern of exponent {e & 0xff}{' (negative)' if e > 255 else ''}",
                    int(bits[0]))
        print(f"{kind}: every pattern of {len(exps)} exponent fields on {', '.join(paths)}")
    rng = np.random.default_rng(65)
    bits = rng.integers(0, 1 << 32, size=1 << 21, dtype=np.uint64).astype(np.uint32)
    compare("f16", bits, f16_ref(bits), "2^21 random patterns")
    compare("bf16", bits, bf16_ref(bits), "2^21 random patterns")
    # the bf16 reference against hand-worked values (it is a reference too)
    for x, want in ((0x3F808000, 0x3F80), (0x3F818000, 0x3F82), (0x3F808001, 0x3F81), (0x7F7F8000, 0x7F80),
                    (0x7F7F7FFF, 0x7F7F), (0xFF7FFFFF, 0xFF80), (0x7F800001, 0x7FC0), (0xFFA00000, 0xFFE0),
                    (0x00018000, 0x0002), (0x80000000, 0x8000)):
        check(int(bf16_ref(np.array([x], dtype=np.uint32))[0]) == want, f"bf16_ref({x:08x}) != {want:04x}")
    finish("halfconv")


def manifest_rows(manifest):
    with open(manifest) as f:
        head = f.readline().rstrip("\n").split("\t")
        return [dict(zip(head, line.rstrip("\n").split("\t"))) for line in f]


def mode_tensors(mnt, manifest, gguf, dtype, use_torch):
    torch = import_torch() if use_torch else None
    rows = manifest_rows(manifest)
    ref_dir = os.path.dirname(manifest)
    st_path = os.path.join(mnt, "model.safetensors")
    st = read_safetensors(st_path, st_path)
    st_dt = {"f32": "F32", "f16": "F16", "bf16": "BF16"}[dtype]
    if st:
        n, meta, tensors = st
        by_name = {k: (dt, shape, b, e) for k, dt, shape, b, e in tensors}
        check([t[0] for t in tensors] == [r["name"] for r in rows],
              f"{st_path}: tensors not those of the manifest, in its order")
        check(meta.get("format") == "pt", f"{st_path}: __metadata__ format {meta.get('format')!r}")
        check(meta.get("gguffs.source") == gguf, f"{st_path}: gguffs.source {meta.get('gguffs.source')!r}")
        h = g.read(gguf)
        want_kv = {k.decode(): v.decode() for k, t, v, _ in h.kvs
                   if t == g.STR and k != b"format" and not k.startswith(b"gguffs.")}
        got_kv = {k: v for k, v in meta.items() if k not in ("format", "gguffs.source", "gguffs.skipped")}
        check(got_kv == want_kv, f"{st_path}: __metadata__ has {sorted(got_kv)[:5]}..., want the GGUF's "
              f"{len(want_kv)} string keys")
        check("gguffs.skipped" not in meta, f"{st_path}: gguffs.skipped {meta.get('gguffs.skipped')!r}")
        fd = os.open(st_path, os.O_RDONLY)
        mm = mmap.mmap(fd, 0, access=mmap.ACCESS_READ) if torch and os.path.getsize(st_path) else None
    for r in rows:
        name = r["name"]
        d = os.path.join(mnt, "tensors", g.esc(name))
        shape = [int(x) for x in r["dims"].split(",")][::-1]
        nel = int(r["n_elements"])
        bits = np.fromfile(os.path.join(ref_dir, r["f32_file"]), dtype="<u4")
        h16, b16 = f16_ref(bits), bf16_ref(bits)
        raw = {}
        for f in ("f32", "f16", "bf16"):
            with open(os.path.join(d, f), "rb") as fh:
                raw[f] = fh.read()
        check(raw["f32"] == bits.tobytes(), f"{name}: f32 differs from the reference")
        check(len(raw["f16"]) == 2 * nel and len(raw["bf16"]) == 2 * nel, f"{name}: f16/bf16 not 2 bytes a value")
        check(raw["f16"] == h16.tobytes(), f"{name}: f16 is not numpy's float32 -> float16 of f32")
        check(raw["bf16"] == b16.tobytes(), f"{name}: bf16 is not the round-to-nearest-even reference")
        for f, descr, want in (("f32.npy", "<f4", raw["f32"]), ("f16.npy", "<f2", raw["f16"])):
            p = os.path.join(d, f)
            start = read_npy_header(p, descr, shape, f"{name}/{f}")
            if start is None:
                continue
            check(os.path.getsize(p) == start + len(want), f"{name}/{f}: size {os.path.getsize(p)}")
            with open(p, "rb") as fh:
                fh.seek(start)
                check(fh.read() == want, f"{name}/{f}: data is not exactly the bytes of {f[:-4]}")
            a = np.load(p, mmap_mode="r") if nel else np.load(p)
            check(a.shape == tuple(shape) and a.dtype == np.dtype(descr) and a.flags.c_contiguous,
                  f"{name}/{f}: np.load gives {a.shape} {a.dtype}")
            check(a.tobytes() == want, f"{name}/{f}: np.load values differ")
            if torch and f == "f32.npy":
                t = torch.from_numpy(a)
                check(tuple(t.shape) == tuple(shape) and t.dtype == torch.float32,
                      f"{name}: torch.from_numpy(np.load(f32.npy)) is {tuple(t.shape)} {t.dtype}")
                check(torch_bits(torch, t).tobytes() == want, f"{name}: torch.from_numpy values differ")
        if torch:
            tb = torch.frombuffer(bytearray(raw["bf16"]), dtype=torch.bfloat16) if nel else None
            if nel:
                widened = tb.float().view(torch.int32).numpy().view("<u4")
                check(np.array_equal(widened, b16.astype("<u4") << 16),
                      f"{name}: torch.frombuffer(bf16, dtype=torch.bfloat16) values differ")
        if not st or name not in by_name:
            check(False, f"{name}: not in model.safetensors")
            continue
        dt, sshape, b, e = by_name[name]
        check(dt == st_dt and sshape == shape, f"{name}: safetensors has {dt} {sshape}, want {st_dt} {shape}")
        want = {"F32": bits, "F16": h16, "BF16": b16}[st_dt]
        a = st_array(st_path, n, dt, sshape, b, e)
        check(a.shape == tuple(shape) and a.view(U_OF[dt]).tobytes() == want.tobytes(),
              f"{name}: numpy.memmap of model.safetensors differs from its {dtype} file")
        if torch:
            t = st_torch(torch, mm, n, dt, sshape, b, e)
            check(tuple(t.shape) == tuple(shape) and torch_bits(torch, t).tobytes() == want.tobytes(),
                  f"{name}: torch.frombuffer of model.safetensors at its offsets differs")
    if st and torch and mm is not None:
        mm.close()
    if st:
        os.close(fd)
    print(f"{len(rows)} tensors of {manifest}; safetensors {st_dt}{', torch too' if torch else ''}")
    finish("tensors")


# ---------------------------------------------------------------- the odd model

def f32b(vals):
    return struct.pack(f"<{len(vals)}f", *vals)


ODD_TENSORS = [  # (name, dims, type, data)
    ("a", [4], 0, f32b([1, 2, 3, -4])),
    ("empty", [0, 3], 0, b""),
    ("empty.1d", [0], 0, b""),
    ("empty.q8_0", [32, 0], 8, b""),
    ("bad\ufffd", [2], 0, f32b([9, 10])),          # valid UTF-8: U+FFFD itself
    (b"bad\xff", [2], 0, f32b([5, 6])),            # invalid: "bad\ufffd" is taken
    ("bad\ufffd~2", [1], 0, f32b([7.5])),          # valid, and the first ~N candidate
    (b"bad\xfe", [2], 0, f32b([7, 8])),
    ("__metadata__", [1], 0, f32b([11])),          # reserved by the format
    ("odd", [64], 250, bytes(64)),                 # undecodable: left out
    ("q\"uo\\te\n\t\x01\x7f", [2, 1, 1, 1], 0, f32b([12, 13])),
    ("", [1], 0, f32b([14])),
    ("a/b", [3], 1, struct.pack("<3e", 1.5, -2.0, 65504.0)),
    ("nul\0x", [1], 0, f32b([15])),
    ("ünïcödé 名前", [3, 2], 0, f32b([1, 2, 3, 4, 5, 6])),
    ("odd, too", [32], 251, bytes(32)),            # undecodable, a comma in the name
    ("L" * 300, [2], 0, f32b([16, 17])),           # longer than a file name may be
    ("scalar", [], 0, f32b([3.5])),                # no dimensions: shape [], one value
    ("q8", [32, 2], 8, struct.pack("<e", 0.5) + bytes(range(32)) + struct.pack("<e", -0.25) + bytes(range(32))),
]
ODD_KVS = [
    ("general.architecture", g.STR, "llama"),
    ("format", g.STR, "gguf!"),                    # ours ("pt") wins
    ("gguffs.source", g.STR, "spoof"),             # ours wins
    ("x.count", g.U32, 3),                         # not a string: absent
    ("arr", g.ARR, (g.STR, ["x", "y"])),           # not a string: absent
    ("key\ufffd", g.STR, "valid key"),
    (b"key\xff", g.STR, b"val\xfe"),               # -> "key\ufffd~2": "val\ufffd"
    ("s.ctl", g.STR, "a\x01b\"c\\\n"),
    ("empty.str", g.STR, ""),
    ("uni", g.STR, "日本語"),
]
UNDECODABLE = {250, 251}


def mode_make_odd(out):
    g.write(out, kvs=ODD_KVS, tensors=ODD_TENSORS)


def _bytes(x):
    return x if isinstance(x, bytes) else x.encode()


def _valid(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def unique_keys(names, reserved):
    """The rule: names that are valid UTF-8 stay as they are (but the
    reserved ones); others get U+FFFD replacements and ~2, ~3, ... until
    they differ from every name before them and every valid one."""
    taken = {n.decode() for n in names if _valid(n) and n.decode() not in reserved} | set(reserved)
    out = []
    for nb in names:
        s = nb.decode("utf-8", "replace")
        if _valid(nb) and s not in reserved:
            out.append(s)
            continue
        cand, k = s, 2
        while cand in taken:
            cand, k = f"{s}~{k}", k + 1
        taken.add(cand)
        out.append(cand)
    return out


def mode_odd(mnt, gguf, dtype):
    st_path = os.path.join(mnt, "model.safetensors")
    st = read_safetensors(st_path, st_path)
    if not st:
        finish("odd")
    n, meta, tensors = st
    st_dt = {"f32": "F32", "f16": "F16", "bf16": "BF16"}[dtype]
    es = ST_SIZES[st_dt]
    h = g.read(gguf)
    kept = [t for t in h.tensors if t["type"] not in UNDECODABLE]
    keys = unique_keys([t["name"] for t in kept], ["__metadata__"])
    check([t[0] for t in tensors] == keys, f"keys {[t[0] for t in tensors]!r}\n  want {keys!r}")
    # The size: the header and the values, nothing else; 0-element tensors take no bytes.
    nel = [int(np.prod(t["dims"], dtype=np.int64)) for t in kept]
    check(os.path.getsize(st_path) == 8 + n + es * sum(nel),
          f"size {os.path.getsize(st_path)}, want 8 + {n} + {es} x {sum(nel)}")
    # The data: each tensor equals its own file in the tree (listed in file order).
    dirs = os.listdir(os.path.join(mnt.encode(), b"tensors"))
    dir_of = {t["name"]: dirs[i] for i, t in enumerate(h.tensors)}
    for t, k, (key, dt, shape, b, e) in zip(kept, keys, tensors):
        check(dt == st_dt and shape == t["dims"][::-1], f"{k!r}: {dt} {shape}, want {st_dt} {t['dims'][::-1]}")
        with open(os.path.join(mnt.encode(), b"tensors", dir_of[t["name"]], dtype.encode()), "rb") as f:
            want = f.read()
        a = st_array(st_path, n, dt, shape, b, e)
        check(a.tobytes() == want, f"{k!r}: numpy.memmap of model.safetensors differs from its {dtype} file")
    # Known values, so a wrong file cannot agree with a wrong tree.
    vals = {k: np.asarray(st_array(st_path, n, dt, shape, b, e)) for k, dt, shape, b, e in tensors}
    if st_dt == "F32":
        check(vals["a"].tolist() == [1, 2, 3, -4], f"a = {vals['a']}")
        check(vals["bad\ufffd"].tolist() == [9, 10] and vals["bad\ufffd~3"].tolist() == [5, 6] and
              vals["bad\ufffd~4"].tolist() == [7, 8] and vals["bad\ufffd~2"].tolist() == [7.5],
              "the U+FFFD names carry the wrong tensors")
        check(vals["__metadata__~2"].tolist() == [11], "the tensor named __metadata__")
        check(vals["a/b"].tolist() == [1.5, -2.0, 65504.0], f"a/b = {vals['a/b']}")
        check(vals["ünïcödé 名前"].shape == (2, 3) and vals["ünïcödé 名前"][1].tolist() == [4, 5, 6],
              "the shape is numpy's order")
        check(vals["L" * 300].tolist() == [16, 17], "the long name")
        check(vals["scalar"].shape == () and float(vals["scalar"]) == 3.5, f"scalar = {vals['scalar']!r}")
        check(vals["q8"].shape == (2, 32) and vals["q8"][0, 3] == 1.5 and vals["q8"][1, 2] == -0.5,
              f"q8 = {vals['q8'][:, :4]}")
    for k in ("empty", "empty.1d", "empty.q8_0"):
        check(vals[k].size == 0, f"{k}: {vals[k].shape}")
    check(vals["empty"].shape == (3, 0) and vals["empty.q8_0"].shape == (0, 32), "0-element shapes")
    # __metadata__: string keys as metadata.json names them, ours first.
    kv_keys = unique_keys([_bytes(k) for k, _, _ in ODD_KVS], [])
    want_meta = {"format": "pt", "gguffs.source": gguf, "gguffs.skipped": "odd, odd, too"}
    for (k, t, v), name in zip(ODD_KVS, kv_keys):
        kb = _bytes(k)
        if t == g.STR and kb != b"format" and not kb.startswith(b"gguffs."):
            want_meta[name] = _bytes(v).decode("utf-8", "replace")
    check(meta == want_meta, f"__metadata__ {meta!r}\n  want {want_meta!r}")
    # .npy of 0-element and odd tensors
    for t in h.tensors:
        if t["type"] in UNDECODABLE:
            continue
        p = os.path.join(mnt.encode(), b"tensors", dir_of[t["name"]], b"f32.npy")
        start = read_npy_header(p, "<f4", t["dims"][::-1], repr(t["name"]))
        nel1 = int(np.prod(t["dims"], dtype=np.int64))
        if start is not None:
            check(os.path.getsize(p) == start + 4 * nel1, f"{t['name']!r}: f32.npy size")
            a = np.load(p.decode("utf-8", "surrogateescape"), mmap_mode="r")
            check(a.shape == tuple(t["dims"][::-1]), f"{t['name']!r}: np.load(mmap_mode='r') shape {a.shape}")
    print(f"odd model: {len(tensors)} tensors, header {n} bytes, {dtype}")
    finish("odd")


# ---------------------------------------------------------------- bit patterns through the mount

def mode_make_patterns(out):
    """pat: 2^20 random f32 patterns, then every boundary case in a row; all16:
    an F16 tensor of all 65536 half patterns."""
    rng = np.random.default_rng(6502)
    r = rng.integers(0, 1 << 32, size=1 << 20, dtype=np.uint64).astype(np.uint32)
    m = np.arange(0, 1 << 23, 997, dtype=np.uint32)
    edges = np.concatenate([(e << 23) | m for e in (0, 102, 112, 113, 142, 143, 254, 255)])
    edges = np.concatenate([edges, edges | 0x80000000]).astype(np.uint32)
    pat = np.concatenate([r, edges])
    pat = pat[: len(pat) // 64 * 64]
    all16 = np.arange(1 << 16, dtype=np.uint32).astype("<u2")
    g.write(out, kvs=[("general.architecture", g.STR, "test")],
            tensors=[("pat", [64, len(pat) // 64], 0, pat.astype("<u4").tobytes()),
                     ("all16", [256, 256], 1, all16.tobytes())])


def mode_patterns(mnt, gguf):
    h = g.read(gguf)
    data = open(gguf, "rb").read()
    for t in h.tensors:
        nel = int(np.prod(t["dims"]))
        d = os.path.join(mnt, "tensors", t["name"].decode())
        f32 = np.fromfile(os.path.join(d, "f32"), dtype="<u4")
        at = h.data_offset + t["offset"]
        if t["type"] == 0:
            check(f32.tobytes() == data[at:at + 4 * nel], f"{t['name']}: f32 is not the stored bytes")
        f16 = np.fromfile(os.path.join(d, "f16"), dtype="<u2")
        bf16 = np.fromfile(os.path.join(d, "bf16"), dtype="<u2")
        want16, wantbf = f16_ref(f32), bf16_ref(f32)
        bad = np.flatnonzero(f16 != want16) if f16.shape == want16.shape else [0]
        check(len(bad) == 0, f"{t['name']}: f16 differs from numpy at {len(bad)} values" +
              (f", first {f32[bad[0]]:08x} -> {f16[bad[0]]:04x}, numpy {want16[bad[0]]:04x}" if len(bad) else ""))
        bad = np.flatnonzero(bf16 != wantbf) if bf16.shape == wantbf.shape else [0]
        check(len(bad) == 0, f"{t['name']}: bf16 differs from the reference at {len(bad)} values" +
              (f", first {f32[bad[0]]:08x} -> {bf16[bad[0]]:04x}, want {wantbf[bad[0]]:04x}" if len(bad) else ""))
        if t["type"] == 1:
            stored = np.frombuffer(data[at:at + 2 * nel], dtype="<u2")
            notnan = (stored & 0x7FFF) <= 0x7C00
            check(np.array_equal(f16[notnan], stored[notnan]),
                  f"{t['name']}: f16 of an F16 tensor is not its stored bytes (NaNs aside)")
        print(f"{t['name']}: {nel} values, f16 and bf16 checked")
    finish("patterns")


def mode_make_sparse(out, nt, ne0, nrows):
    """nt Q8_0 tensors of ne0 x nrows, all zeros, in a sparse file."""
    blk = ne0 // 32 * 34 * nrows
    blk_al = (blk + 31) // 32 * 32
    b = bytearray(b"GGUF" + struct.pack("<IQQ", 3, nt, 1))
    b += g.enc_string("general.architecture") + struct.pack("<I", g.STR) + g.enc_string("llama")
    for i in range(nt):
        b += g.enc_string(f"blk.{i}.w") + struct.pack("<IQQ", 2, ne0, nrows) + struct.pack("<IQ", 8, i * blk_al)
    b += bytes(-len(b) % 32)
    with open(out, "wb") as f:
        f.write(b)
        f.truncate(len(b) + nt * blk_al)


def mode_preads(files):
    rng = random.Random(4)
    for p in files:
        with open(p, "rb") as f:
            whole = f.read()
        size = os.path.getsize(p)
        check(len(whole) == size, f"{p}: read {len(whole)} bytes, size {size}")
        fd = os.open(p, os.O_RDONLY | os.O_DIRECT)  # (each pread reaches the daemon as made)
        bad = 0
        for i in range(400):
            off = rng.choice([rng.randrange(0, size + 16), rng.randrange(0, min(size, 4096) + 1),
                              size - rng.randrange(0, min(size, 300) + 1)])
            ln = rng.choice([1, 2, 3, 5, 7, 63, 64, 65, 4095, 4097, rng.randrange(1, 300000)])
            got = os.pread(fd, ln, off)
            if got != whole[off:off + ln]:
                bad += 1
                if bad < 3:
                    print(f"{p}: pread({ln}, {off}) differs", file=sys.stderr)
        os.close(fd)
        check(bad == 0, f"{p}: {bad} of 400 random preads differ from the whole read")
    finish("preads")


def main():
    a = sys.argv[1:]
    mode = a[0] if a else ""
    opt = {}
    for k in ("--dtype",):
        if k in a:
            i = a.index(k)
            opt[k] = a[i + 1]
            del a[i:i + 2]
    use_torch = "--torch" in a
    a = [x for x in a if x != "--torch"]
    if mode == "halfconv":
        mode_halfconv(a[1])
    elif mode == "tensors":
        mode_tensors(a[1], a[2], a[3], opt.get("--dtype", "f32"), use_torch)
    elif mode == "make-odd":
        mode_make_odd(a[1])
    elif mode == "odd":
        mode_odd(a[1], a[2], opt.get("--dtype", "f32"))
    elif mode == "make-patterns":
        mode_make_patterns(a[1])
    elif mode == "patterns":
        mode_patterns(a[1], a[2])
    elif mode == "make-sparse":
        mode_make_sparse(a[1], int(a[2]), int(a[3]), int(a[4]))
    elif mode == "preads":
        mode_preads(a[1:])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
