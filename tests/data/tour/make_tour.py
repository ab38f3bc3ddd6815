"""Make the two small models the README tour uses: one model (fixed seed)
stored as F16 and as Q8_0, with an F32 norm in both. Run from the
repository root: /usr/bin/python3 tests/data/tour/make_tour.py"""
import struct
import sys

import numpy as np

sys.path.insert(0, "tests")
import gguf_tool as g  # noqa: E402

rng = np.random.default_rng(20261202)
emb = (rng.standard_normal((16, 128)) * 0.05).astype(np.float32)    # numpy shape (rows, ne0)
attn = (rng.standard_normal((128, 128)) * 0.02).astype(np.float32)
norm = (1 + 0.01 * rng.standard_normal(128)).astype(np.float32)


def q8_0(x):
    """Q8_0 blocks of 32: fp16 scale d = max|x| / 127, int8 round(x / d)."""
    out = bytearray()
    for blk in x.reshape(-1, 32):
        amax = float(np.abs(blk).max())
        d = amax / 127 if amax else 0.0
        q = np.zeros(32, np.int8) if d == 0 else np.clip(np.round(blk / d), -127, 127).astype(np.int8)
        out += struct.pack("<e", d) + q.tobytes()
    return bytes(out)


kvs = [("general.architecture", g.STR, "llama"), ("general.name", g.STR, "tour"),
       ("llama.embedding_length", g.U32, 128), ("llama.block_count", g.U32, 1)]
for name, conv, ty in (("tiny-f16", lambda a: a.astype("<f2").tobytes(), 1), ("tiny-q8_0", q8_0, 8)):
    g.write(f"tests/data/tour/{name}.gguf", kvs=kvs + [("general.file_type", g.U32, ty == 8 and 7 or 1)],
            tensors=[("token_embd.weight", [128, 16], ty, conv(emb)),
                     ("blk.0.attn_q.weight", [128, 128], ty, conv(attn)),
                     ("output_norm.weight", [128], 0, norm.tobytes())])
