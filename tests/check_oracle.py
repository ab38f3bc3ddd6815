#!/usr/bin/python3
"""check_oracle.py - the second decoding oracle: the real ggml (tests/peer/ggml.py).

  check_oracle.py GGUFFS TEST_QUANTIZE WORKDIR ISA...

1. Decoding. One GGUF holds, for every type ggml_quantize_chunk accepts (ggml.QUANTIZABLE):
   - q.<type>: rows of random values quantized by ggml_quantize_chunk, thousands of blocks
     (normal values, heavy tails, tiny and huge scales, constant, sparse and zero rows;
     IQ2_XXS, IQ2_XS and IQ1_S with a random importance matrix, which they need);
   - r.<type>: blocks of random bytes (every scale bit pattern: NaN, infinities,
     subnormals, and every grid or table index the bits can hold);
   and all.f16, all.bf16: every one of the 65536 patterns. gguffs decodes every tensor
   (`gguffs --cat -o simd=ISA FILE as/f32.gguf`: the f32 view of each, in one file that
   ggml's gguf_init_from_file parses for the offsets) on every path given; each value must
   equal ggml's to_float of the same bytes, bit for bit (NaN payloads too).
2. Quantizing. test_quantize --q8_0 ISA on random rows with NaN, infinities, huge,
   subnormal and tie values (half of them without NaN) equals ggml_quantize_chunk(Q8_0)
   block for block.

Prints "N passed, N failed" (one check per tensor and path, one per path for Q8_0).
"""
import multiprocessing
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peer"))
import ggml  # noqa: E402
import mkllama as mk  # noqa: E402
import checks  # noqa: E402
from checks import check  # noqa: E402

SEED = 0x0A4C1E


def rows_for(t, rng):
    """(values as 2-D rows, imatrix or None) for q.<type>: a few thousand blocks."""
    g = ggml.Ggml()
    bs = g.blck_size(t)
    row = bs * (16 if bs < 64 else 4 if bs < 256 else 2)
    nblocks = 8192 if bs < 64 else 2048
    x = rng.standard_normal(nblocks * bs).astype(np.float32).reshape(-1, row)
    n = len(x)
    # rows of other shapes of data: heavy tails, tiny, huge, constant, sparse, zero, one outlier
    x[0::9] = rng.standard_cauchy(x[0::9].shape).astype(np.float32)
    x[1::9] *= np.float32(1e-6)
    x[2::9] *= np.float32(3e4)
    x[3::9] = np.float32(0.75)
    x[4::9] *= rng.random(x[4::9].shape) < 0.05
    x[5::9] = 0
    x[6::9, 3] = np.float32(100)
    x[7::9] = np.abs(x[7::9])
    x = np.clip(x, -6e4, 6e4)  # (F16 and the f16 scales: no infinities from the quantizer)
    im = None
    if t in ggml.NEEDS_IMATRIX:
        im = np.exp(rng.standard_normal(row)).astype(np.float32)
    assert n > 0
    return x, im


def quantize_types(types):
    """Worker: [(type, data bytes, ne)] of ggml-quantized rows (its own ggml: the IQ types'
    grids take seconds to set up, so the slow ones go to another process)."""
    g = ggml.Ggml()
    out = []
    for t in types:
        rng = np.random.default_rng([SEED, ggml.type_id(t)])
        x, im = rows_for(t, rng)
        out.append((t, g.quantize(t, x, imatrix=im), [x.shape[1], x.shape[0]]))
    return out


def build(path):
    g = ggml.Ggml()
    slow = ["iq1_s", "iq1_m"]  # one grid set-up, ~15 s here
    rest = [t for t in ggml.QUANTIZABLE if t not in slow]
    t0 = time.time()
    with multiprocessing.get_context("fork").Pool(2) as pool:
        parts = pool.map(quantize_types, [slow, rest])
    quantized = {t: (d, ne) for part in parts for t, d, ne in part}
    print("ggml quantized %d types in %.1f s" % (len(quantized), time.time() - t0))
    tensors = []
    rng = np.random.default_rng(SEED)
    for t in ggml.QUANTIZABLE:
        d, ne = quantized[t]
        tensors.append(mk.Tensor("q." + t, ne, t, d))
        bs, sz = g.blck_size(t), g.type_size(t)
        nb = 4096 if bs < 64 else 1024
        row = bs * (8 if bs < 256 else 2)
        raw = rng.integers(0, 256, nb * sz, dtype=np.uint8).tobytes()
        tensors.append(mk.Tensor("r." + t, [row, nb * bs // row], t, raw))
    every = np.arange(65536, dtype="<u2").tobytes()
    tensors.append(mk.Tensor("all.f16", [256, 256], "f16", every))
    tensors.append(mk.Tensor("all.bf16", [256, 256], "bf16", every))
    mk.write_gguf(path, [["general.architecture", mk.STR, "oracle"]], tensors)
    return tensors


def decode_checks(gguffs, work, tensors, isas):
    g = ggml.Ggml()
    want = {x.name: g.dequantize(x.type, x.data, x.n).view("<u4") for x in tensors}
    for isa in isas:
        out = os.path.join(work, "f32-%s.gguf" % isa)
        with open(out, "wb") as f:
            r = subprocess.run([gguffs, "--cat", "-o", "simd=" + isa, os.path.join(work, "oracle.gguf"),
                                "as/f32.gguf"], stdout=f, stderr=subprocess.PIPE)
        check(r.returncode == 0, "%s: gguffs --cat as/f32.gguf: %s" % (isa, r.stderr.decode().strip()))
        if r.returncode:
            continue
        info = g.gguf_info(out)
        b = np.memmap(out, np.uint8, "r")
        for x, ti in zip(tensors, info["tensors"]):
            at = info["data_offset"] + ti["offset"]
            got = b[at:at + 4 * x.n].view("<u4")
            w = want[x.name]
            bad = np.nonzero(got != w)[0]
            ok = ti["name"] == x.name and ti["type_name"] == "f32" and len(bad) == 0
            what = "%s on %s: %d of %d values differ from ggml's to_float" % (x.name, isa, len(bad), x.n)
            if len(bad):
                i = bad[0]
                bs = g.blck_size(x.type)
                what += "; first at %d (block %d): 0x%08x, ggml 0x%08x" % (i, i // bs, got[i], w[i])
            check(ok, what)
        del b


def q8_0_checks(test_quantize, isas):
    g = ggml.Ggml()
    rng = np.random.default_rng(SEED + 8)
    n = 32 * 20000
    x = rng.standard_normal(n).astype(np.float32)
    kind = rng.integers(0, 24, n)
    with np.errstate(over="ignore"):
        x[kind == 0] = np.nan
        x[kind == 1] = np.where(rng.random((kind == 1).sum()) < 0.5, np.inf, -np.inf)
        x[kind == 2] *= np.float32(1e38)
        x[kind == 3] *= np.float32(1e-39)  # subnormal
        x[kind == 4] = 0
        x[kind == 5] *= np.float32(3e9)
        x[kind == 6] = np.round(x[kind == 6] * 100) + np.float32(0.5)
        x[kind == 7] *= np.float32(1e-36)
    blocks = x.reshape(-1, 32)
    blocks[::3] = rng.standard_normal(blocks[::3].shape).astype(np.float32)  # clean ones too
    # and a second half without NaN: whole groups of blocks of infinities, huge and
    # subnormal values (the SIMD path quantizes 8 NaN-free blocks at once)
    half = x[n // 2:]
    half[np.isnan(half)] = np.float32(1e30)
    want = np.frombuffer(g.quantize("q8_0", x.reshape(-1, 128)), np.uint8).reshape(-1, 34)
    for isa in isas:
        r = subprocess.run([test_quantize, "--q8_0", isa], input=x.tobytes(), capture_output=True)
        got = np.frombuffer(r.stdout, np.uint8)
        ok = r.returncode == 0 and got.size == want.size
        bad = np.nonzero((got.reshape(-1, 34) != want).any(1))[0] if ok else []
        check(ok and len(bad) == 0, "Q8_0 quantizer on %s: %s blocks of %d differ from ggml_quantize_chunk%s" % (
            isa, len(bad) if ok else "all", len(want), " (first %d)" % bad[0] if len(bad) else ""))


def main(argv):
    gguffs, test_quantize, work = argv[:3]
    isas = argv[3:]
    g = ggml.Ggml()
    print("ggml", *g.version(), "paths", *isas)
    t0 = time.time()
    tensors = build(os.path.join(work, "oracle.gguf"))
    blocks = sum(x.n // g.blck_size(x.type) for x in tensors)
    print("%d tensors, %d blocks (%.1f s)" % (len(tensors), blocks, time.time() - t0))
    decode_checks(gguffs, work, tensors, isas)
    q8_0_checks(test_quantize, isas)
    print("check_oracle.py: %d passed, %d failed (%.1f s)" % (checks.passed, checks.failed, time.time() - t0))
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
