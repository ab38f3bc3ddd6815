#!/usr/bin/python3
"""cmp_mounts.py A B [--tensors N] [--skip-f32]

The same model mounted twice (A: e.g. a local file, B: its URL): every
tensor's raw and f32 file, metadata.json and the names listed must be
byte-identical. Prints one line per difference and a closing line
"cmp_mounts: N passed, N failed" (tests/run.sh sums those). --tensors N
compares only every k-th tensor so that about N are read."""
import os
import sys


def read(p):
    try:
        with open(p, "rb") as f:
            return f.read()
    except OSError as e:
        return "error %s" % os.strerror(e.errno)


def main():
    args = sys.argv[1:]
    skip_f32 = "--skip-f32" in args
    limit = int(args[args.index("--tensors") + 1]) if "--tensors" in args else 0
    a, b = [x for i, x in enumerate(args) if not x.startswith("--") and (i == 0 or args[i - 1] != "--tensors")][:2]
    bad = []
    ok = 0
    ta, tb = sorted(os.listdir(a + "/tensors")), sorted(os.listdir(b + "/tensors"))
    if ta != tb:
        bad.append("tensor names differ (%d vs %d)" % (len(ta), len(tb)))
    else:
        ok += 1
    step = max(1, len(ta) // limit) if limit else 1
    for name in ta[::step]:
        for f in ("raw",) + (() if skip_f32 else ("f32",)):
            x, y = read("%s/tensors/%s/%s" % (a, name, f)), read("%s/tensors/%s/%s" % (b, name, f))
            if isinstance(x, str) or x != y:
                bad.append("%s/%s: %s" % (name, f, x if isinstance(x, str) else
                                          y if isinstance(y, str) else "bytes differ"))
            else:
                ok += 1
    if read(a + "/metadata.json") != read(b + "/metadata.json"):
        bad.append("metadata.json differs")
    else:
        ok += 1
    for line in bad[:20]:
        print("  " + line, file=sys.stderr)
    print("cmp_mounts: %d passed, %d failed" % (ok, len(bad)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
