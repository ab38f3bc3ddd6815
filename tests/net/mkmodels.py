#!/usr/bin/python3
"""mkmodels.py - synthetic GGUF files for the remote-model suites (stdlib only).

    mkmodels.py vocab OUT N_TOKENS [TOKEN_CHARS]   a llama-like vocabulary of N
        tokens (tokens, scores, token_type arrays) and two small tensors: the
        header is about N * (TOKEN_CHARS + 16) bytes
    mkmodels.py data OUT MIB [SEED]       F32 / F16 / Q8_0 tensors of pseudo-random
        bytes, about MIB MiB in all: many blocks of the remote block cache
    mkmodels.py split DIR SRC NAME K      SRC cut into K shards DIR/NAME-0000i-of-0000K.gguf
        (gguf-split layout: metadata in the first, split.* keys in each)

Pseudo-random bytes come from a seeded generator (the same file every run).
Float data is made finite (no NaN/Inf bit patterns) so f32 reads compare
byte for byte between mounts."""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gguf_tool as g  # noqa: E402

F32_T, F16_T, Q8_0_T = 0, 1, 8

_enc_value = g.enc_value


def fast_enc_value(t, v, v1=False):
    """gguf_tool.enc_value, quicker for long arrays (a 1M-token vocabulary)."""
    if t == g.ARR and not v1 and v[0] == g.STR:
        items = [x.encode() if isinstance(x, str) else x for x in v[1]]
        return struct.pack("<IQ", g.STR, len(items)) + b"".join(struct.pack("<Q", len(x)) + x for x in items)
    if t == g.ARR and not v1 and v[0] in (g.F32, g.I32):
        fmt = "<%d%s" % (len(v[1]), "f" if v[0] == g.F32 else "i")
        return struct.pack("<IQ", v[0], len(v[1])) + struct.pack(fmt, *v[1])
    return _enc_value(t, v, v1)


g.enc_value = fast_enc_value


def finite_f32(rng, n):
    """n float32 values in [-2, 2), as bytes."""
    a = [rng.uniform(-2.0, 2.0) for _ in range(min(n, 4096))]
    one = struct.pack("<%df" % len(a), *a)
    reps = n // len(a) + 1
    # Vary the repeats so that no two MiB blocks are alike.
    out = bytearray()
    for i in range(reps):
        out += struct.pack("<f", float(i)) + one[4:]
    return bytes(out[:4 * n])


def finite_f16(rng, n):
    vals = [rng.randrange(0, 0x7800) | (rng.randrange(2) << 15) for _ in range(min(n, 4096))]
    one = struct.pack("<%dH" % len(vals), *vals)
    out = bytearray()
    for i in range(n // len(vals) + 1):
        out += struct.pack("<H", i & 0x3fff) + one[2:]
    return bytes(out[:2 * n])


def q8_0(rng, nblocks):
    """Q8_0 blocks: an f16 scale (finite, small) then 32 int8."""
    blk = bytearray()
    for _ in range(256):
        blk += struct.pack("<H", rng.randrange(0x1000, 0x3000)) + bytes(rng.randrange(256) for _ in range(32))
    out = bytearray()
    per = len(blk) // 34
    for i in range(nblocks // per + 1):
        b = bytearray(blk)
        b[2] = i & 0xff
        out += b
    return bytes(out[:34 * nblocks])


def vocab(out, n, chars=24):
    rng = random.Random(n)
    pad = "_" * max(0, chars - 15)
    toks = ["%08x%07d%s" % ((i * 2654435761) & 0xffffffff, i, pad) for i in range(n)]
    kvs = [("general.architecture", g.STR, "llama"), ("general.name", g.STR, "vocab%d" % n),
           ("tokenizer.ggml.model", g.STR, "llama"),
           ("tokenizer.ggml.tokens", g.ARR, (g.STR, toks)),
           ("tokenizer.ggml.scores", g.ARR, (g.F32, [float(-i) for i in range(n)])),
           ("tokenizer.ggml.token_type", g.ARR, (g.I32, [1] * n))]
    ts = [("token_embd.weight", [64, 4], F32_T, finite_f32(rng, 256)),
          ("output_norm.weight", [64], F32_T, finite_f32(rng, 64))]
    g.write(out, kvs=kvs, tensors=ts)


def data(out, mib, seed=1):
    rng = random.Random(seed)
    total = mib << 20
    ts = []
    kinds = [("f32", F32_T), ("f16", F16_T), ("q8", Q8_0_T)]
    left, i = total, 0
    while left > 65536:
        name, ty = kinds[i % 3]
        nbytes = min(left, (3 << 20) + 4096 * i)
        if ty == F32_T:
            n = nbytes // 4 // 256 * 256
            ts.append(("blk.%d.%s" % (i, name), [256, n // 256], ty, finite_f32(rng, n)))
        elif ty == F16_T:
            n = nbytes // 2 // 256 * 256
            ts.append(("blk.%d.%s" % (i, name), [256, n // 256], ty, finite_f16(rng, n)))
        else:
            rows = max(1, nbytes // (34 * 8))
            ts.append(("blk.%d.%s" % (i, name), [256, rows], ty, q8_0(rng, 8 * rows)))
        left -= len(ts[-1][3])
        i += 1
    kvs = [("general.architecture", g.STR, "llama"), ("general.name", g.STR, "data%d" % mib)]
    g.write(out, kvs=kvs, tensors=ts)


def split(d, src, name, k):
    b = open(src, "rb").read()
    h = g.read(b)
    ends = sorted(set(t["offset"] for t in h.tensors)) + [len(b) - h.data_offset]
    ts = []
    for t in h.tensors:
        nxt = min(e for e in ends if e > t["offset"])
        ts.append((t["name"], t["dims"], t["type"], b[h.data_offset + t["offset"]:h.data_offset + nxt]))
    kvs = [(kk, t, v) for kk, t, v, _ in h.kvs]
    per = (len(ts) + k - 1) // k
    for i in range(k):
        part = ts[i * per:(i + 1) * per]
        sp = [("split.no", g.U16, i), ("split.count", g.U16, k), ("split.tensors.count", g.I32, len(ts))]
        g.write("%s/%s-%05d-of-%05d.gguf" % (d, name, i + 1, k), kvs=(kvs + sp) if i == 0 else sp,
                tensors=part)


def main():
    a = sys.argv[1:]
    if a[:1] == ["vocab"]:
        vocab(a[1], int(a[2]), int(a[3]) if len(a) > 3 else 24)
    elif a[:1] == ["data"]:
        data(a[1], int(a[2]), int(a[3]) if len(a) > 3 else 1)
    elif a[:1] == ["split"]:
        split(a[1], a[2], a[3], int(a[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
