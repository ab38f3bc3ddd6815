"""stress_read.py [--threads N] [--reads N] [--seed S] [--timeout SECONDS] [--raw]
                 [--only-folders A,B] MOUNT

Many threads reading random ranges of every tensor of the reference sets
(tests/data/{mainline,ik,forks}) through one mount of all their files
(gguffs mainline.gguf ik.gguf stq1_0-id43.gguf stq1_0-id42.gguf prism.gguf
forks-rawbytes.gguf MOUNT: one folder per file), each read compared byte for
byte with the expected float32 (tests/data/*/f32/) or, with --raw, also the
raw bytes with the GGUF file. Ranges mix tiny, page-sized and big reads at
any offset; some threads share open files (their read-ahead state), others
open their own. Afterwards every f32 file is read whole once more.

Exit status 0 if every read matched; 1 on a mismatch or an I/O error; 2 if
the threads did not finish in time (a deadlock)."""
import argparse
import os
import random
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(TOP, "tests", "data")
sys.path.insert(0, os.path.join(TOP, "tests"))
import gguf_tool  # noqa: E402

SETS = [("mainline", "mainline/manifest.tsv", "mainline/mainline.gguf", None),
        ("ik", "ik/manifest.tsv", "ik/ik.gguf", None)]
for f in ("stq1_0-id43", "stq1_0-id42", "prism", "forks-rawbytes"):
    SETS.append((f, "forks/manifest.tsv", "forks/%s.gguf" % f, f + ".gguf"))


esc = gguf_tool.esc


def load(mnt, folders):
    """[(mount path of f32, expected f32 bytes, mount path of raw, raw bytes)]"""
    out = []
    for folder, manifest, gguf, only in SETS:
        if folders and folder not in folders:
            continue
        mpath = os.path.join(DATA, manifest)
        base = os.path.dirname(mpath)
        gb = open(os.path.join(DATA, gguf), "rb").read()
        h = gguf_tool.read(gb)
        with open(mpath) as f:
            head = f.readline().rstrip("\n").split("\t")
            for line in f:
                r = dict(zip(head, line.rstrip("\n").split("\t")))
                if only and r.get("file") != only:
                    continue
                d = os.path.join(mnt, folder, "tensors", esc(r["name"]))
                exp = open(os.path.join(base, r["f32_file"]), "rb").read()
                off = h.data_offset + int(r["offset"])
                out.append((os.path.join(d, "f32"), exp, os.path.join(d, "raw"), gb[off:off + int(r["n_bytes"])]))
    return out


def main():
    ap = argparse.ArgumentParser()
    for o, v in (("--threads", 16), ("--reads", 300), ("--seed", 1), ("--timeout", 240)):
        ap.add_argument(o, type=int, default=v)
    ap.add_argument("--raw", action="store_true")
    ap.add_argument("--only-folders", default="")
    ap.add_argument("mount")
    a = ap.parse_args()
    opt = {"--threads": a.threads, "--reads": a.reads, "--seed": a.seed, "--timeout": a.timeout}
    raw, mnt = a.raw, a.mount
    tensors = load(mnt, [f for f in a.only_folders.split(",") if f])
    shared = {}
    lock = threading.Lock()
    problems = []
    done = [0]

    def fd_of(path, own):
        if own is not None:
            if path not in own:
                own[path] = os.open(path, os.O_RDONLY)
            return own[path]
        with lock:
            if path not in shared:
                shared[path] = os.open(path, os.O_RDONLY)
            return shared[path]

    def worker(k):
        rnd = random.Random(opt["--seed"] * 1000 + k)
        own = {} if k % 2 else None
        try:
            for _ in range(opt["--reads"]):
                f32, exp, rawp, rawb = rnd.choice(tensors)
                use_raw = raw and rnd.random() < 0.25
                path, want = (rawp, rawb) if use_raw else (f32, exp)
                size = len(want)
                kind = rnd.random()
                n = rnd.randint(1, 64) if kind < 0.4 else rnd.randint(1, 8192) if kind < 0.8 else \
                    rnd.randint(8192, 1 << 20)
                off = rnd.randrange(0, size + 16)
                got = os.pread(fd_of(path, own), n, off)
                if got != want[off:off + n]:
                    problems.append("%s: %d bytes at %d differ (got %d bytes)" % (path, n, off, len(got)))
                    return
                with lock:
                    done[0] += 1
        except OSError as e:
            problems.append("%s" % e)
        finally:
            for fd in (own or {}).values():
                os.close(fd)

    threads = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(opt["--threads"])]
    t0 = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, opt["--timeout"] - (time.time() - t0)))
    if any(t.is_alive() for t in threads):
        print("stress_read: threads still reading after %d s: deadlock?" % opt["--timeout"], file=sys.stderr)
        os._exit(2)
    for fd in shared.values():
        os.close(fd)
    # Everything once more, whole.
    for f32, exp, rawp, rawb in tensors:
        with open(f32, "rb") as f:
            if f.read() != exp:
                problems.append("%s: whole file differs" % f32)
    for p in problems[:20]:
        print("  " + p, file=sys.stderr)
    print("stress_read: %d threads, %d reads matched, %d tensors, %d problems"
          % (opt["--threads"], done[0], len(tensors), len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
