"""gguf_py.py - the timed parts of bench/gguf_py.sh, each in one process; prints "key value" lines.

  gguf_py.py dequant MODEL        gguf-py (GGUFReader, gguf.quants.dequantize) on every tensor:
                                  values, seconds
  gguf_py.py read MOUNT           read every tensors/<name>/f32 file of MOUNT (1 MiB reads, in
                                  tensors.tsv order): values, seconds
  gguf_py.py verify MOUNT         GGUFReader on MOUNT/model.gguf: each tensor's f32 file equals
                                  gguf-py's values of it, bit for bit
"""
import csv
import os
import sys
import time

import numpy as np


def tree_names(mnt):
    with open(os.path.join(mnt, "tensors.tsv"), newline="") as f:
        return [r["tree_name"] for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)]


def dequant(model):
    import gguf
    from gguf import quants
    r = gguf.GGUFReader(model)
    t0 = time.perf_counter()
    n = sum(quants.dequantize(t.data, t.tensor_type).size for t in r.tensors)
    print("values", n)
    print("seconds", time.perf_counter() - t0)


def read(mnt):
    buf = bytearray(1 << 20)
    n = 0
    t0 = time.perf_counter()
    for name in tree_names(mnt):
        with open(os.path.join(mnt, "tensors", name, "f32"), "rb", buffering=0) as f:
            while True:
                k = f.readinto(buf)
                if not k:
                    break
                n += k
    print("values", n // 4)
    print("seconds", time.perf_counter() - t0)


def verify(mnt):
    import gguf
    from gguf import quants
    r = gguf.GGUFReader(os.path.join(mnt, "model.gguf"))
    bad = [t.name for t, name in zip(r.tensors, tree_names(mnt))
           if np.fromfile(os.path.join(mnt, "tensors", name, "f32"), "<u4").tobytes() !=
           np.ascontiguousarray(quants.dequantize(t.data, t.tensor_type), "<f4").tobytes()]
    print("tensors", len(r.tensors))
    print("differ", len(bad), *bad[:5])


if __name__ == "__main__":
    {"dequant": dequant, "read": read, "verify": verify}[sys.argv[1]](*sys.argv[2:])
