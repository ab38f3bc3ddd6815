#!/usr/bin/python3
"""readcmp.py MOUNT GGUF [--at OFFSET --len N] [--all]

Reads through a gguffs mount of GGUF (its local copy given) and says how
each read went, comparing the bytes whenever a read succeeds:

    --at OFFSET --len N   the N bytes at OFFSET of the file, read from the raw
                          file of the tensor that holds them, in one pread()
    --all                 every tensor's raw file, whole, one pread() each

Prints one word per read: ok, WRONG (bytes differ: never allowed), or the
errno name (EIO, ESTALE, ...), then exits 0 if all were ok, 3 if any bytes
were wrong, 1 otherwise. Mount with -o direct_io so that each read reaches
the daemon (not the kernel's page cache)."""
import errno
import json
import os
import sys


def tensors(mnt):
    out = []
    for name in os.listdir(mnt + "/tensors"):
        info = json.load(open("%s/tensors/%s/info.json" % (mnt, name)))
        out.append((info["offset"], info["bytes"], name))
    return sorted(out)


def read_at(path, off, n):
    fd = os.open(path, os.O_RDONLY)
    try:
        got = b""
        while len(got) < n:
            b = os.pread(fd, n - len(got), off + len(got))
            if not b:
                break
            got += b
        return got
    finally:
        os.close(fd)


def outcome(fn, want):
    try:
        got = fn()
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    return "ok" if got == want else "WRONG"


def main():
    a = sys.argv[1:]
    mnt, gguf = a[0], a[1]
    data = open(gguf, "rb")
    words = []
    if "--at" in a:
        off, n = int(a[a.index("--at") + 1]), int(a[a.index("--len") + 1])
        for start, size, name in tensors(mnt):
            if start <= off and off + n <= start + size:
                data.seek(off)
                want = data.read(n)
                words.append(outcome(lambda: read_at("%s/tensors/%s/raw" % (mnt, name), off - start, n), want))
                break
        else:
            sys.exit("readcmp: no tensor holds bytes %d..%d" % (off, off + n))
    if "--all" in a:
        for start, size, name in tensors(mnt):
            data.seek(start)
            want = data.read(size)
            words.append(outcome(lambda: read_at("%s/tensors/%s/raw" % (mnt, name), 0, size), want))
    print(" ".join(words))
    sys.exit(3 if "WRONG" in words else 0 if all(w == "ok" for w in words) else 1)


if __name__ == "__main__":
    main()
