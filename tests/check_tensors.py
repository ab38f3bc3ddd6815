"""check_tensors.py MOUNT MANIFEST.tsv GGUF [--file NAME] [--f32-only]

Every tensor of a reference manifest against a mount of its GGUF file:
tensors/ listed in file order; raw bytes hash to the manifest's sha256; f32
is byte-identical to the expected file; numpy.fromfile(f32).reshape(shape
from info.json) equals the expected array; info.json and tensors.tsv agree
with the manifest; xattrs give type, shape, dims, offset, bytes."""
import hashlib
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import gguf_tool  # noqa: E402


esc = gguf_tool.esc


def main():
    args = sys.argv[1:]
    f32_only = "--f32-only" in args
    only_file = None
    if "--file" in args:
        only_file = args[args.index("--file") + 1]
    mnt, manifest, gguf = [a for i, a in enumerate(args) if not a.startswith("--")
                           and (i == 0 or args[i - 1] != "--file")][:3]
    ref_dir = os.path.dirname(manifest)
    rows = []
    with open(manifest) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(head, line.rstrip("\n").split("\t")))
            if only_file and r.get("file") != only_file:
                continue
            rows.append(r)
    h = gguf_tool.read(gguf)
    bad = []

    if not f32_only:
        listing = os.listdir(os.path.join(mnt, "tensors"))
        if listing != [esc(r["name"]) for r in rows]:
            bad.append("tensors/ is not listed in file order")
        with open(os.path.join(mnt, "tensors.tsv")) as f:
            tsv = [l.rstrip("\n").split("\t") for l in f]
        if tsv[0] != ["name", "type", "type_id", "dims", "n_elements", "offset", "bytes", "file", "tree_name"]:
            bad.append(f"tensors.tsv header {tsv[0]}")
        for r, t in zip(rows, tsv[1:]):
            want = [r["name"], None, r["type_id"], r["dims"], r["n_elements"],
                    str(h.data_offset + int(r["offset"])), r["n_bytes"], None, esc(r["name"])]
            if [x for x, w in zip(t, want) if w is not None] != [w for w in want if w is not None]:
                bad.append(f"tensors.tsv line {t} vs manifest {want}")
        if len(tsv) - 1 != len(rows):
            bad.append("tensors.tsv line count")

    for r in rows:
        d = os.path.join(mnt, "tensors", esc(r["name"]))
        exp_path = os.path.join(ref_dir, r["f32_file"])
        with open(exp_path, "rb") as f:
            exp = f.read()
        with open(os.path.join(d, "f32"), "rb") as f:
            got = f.read()
        if got != exp:
            i = next((k for k in range(0, min(len(got), len(exp)), 4) if got[k:k + 4] != exp[k:k + 4]), None)
            bad.append(f"{r['name']}: f32 differs (len {len(got)} vs {len(exp)}, first at byte {i})")
            continue
        if f32_only:
            continue
        with open(os.path.join(d, "raw"), "rb") as f:
            raw = f.read()
        if hashlib.sha256(raw).hexdigest() != r["sha256"] or len(raw) != int(r["n_bytes"]):
            bad.append(f"{r['name']}: raw sha256/length differs")
        with open(os.path.join(d, "info.json")) as f:
            info = json.load(f)
        dims = [int(x) for x in r["dims"].split(",")]
        checks = {
            "name": r["name"], "type_id": int(r["type_id"]), "dims": dims, "shape": dims[::-1],
            "n_elements": int(r["n_elements"]), "bytes": int(r["n_bytes"]),
            "offset": h.data_offset + int(r["offset"]), "data_offset": int(r["offset"]),
            "f32_bytes": int(r["n_elements"]) * 4, "f32_readable": True,
        }
        for k, v in checks.items():
            if info.get(k) != v:
                bad.append(f"{r['name']}: info.json {k} = {info.get(k)!r}, expected {v!r}")
        # Our names: ik's Q1_0_G128 is mainline's Q1_0 (same layout); STQ1_0 read
        # in the older order is STQ1_0_CONSECUTIVE.
        ours = {"q1_0_g128": "q1_0"}.get(r["type_name"].lower(), r["type_name"].lower())
        if info.get("type", "").lower() not in (ours, ours + "_consecutive"):
            bad.append(f"{r['name']}: info.json type {info.get('type')} vs {r['type_name']}")
        arr = np.fromfile(os.path.join(d, "f32"), dtype="<f4").reshape(info["shape"])
        want = np.frombuffer(exp, dtype="<f4").reshape(dims[::-1])
        if arr.shape != want.shape or arr.tobytes() != want.tobytes():
            bad.append(f"{r['name']}: numpy.fromfile reshape differs")
        xa = {k: os.getxattr(os.path.join(d, "f32"), "user.gguf." + k).decode()
              for k in ("type", "type_id", "shape", "dims", "offset", "bytes")}
        if (xa["type_id"] != r["type_id"] or xa["dims"] != r["dims"]
                or xa["shape"] != ",".join(str(x) for x in dims[::-1])
                or xa["offset"] != str(h.data_offset + int(r["offset"])) or xa["bytes"] != r["n_bytes"]
                or xa["type"] != info["type"]):
            bad.append(f"{r['name']}: xattrs {xa}")
        st = os.stat(os.path.join(d, "f32"))
        if st.st_size != int(r["n_elements"]) * 4 or (st.st_mode & 0o777) != 0o444:
            bad.append(f"{r['name']}: f32 stat size {st.st_size} mode {oct(st.st_mode)}")
        if (os.stat(d).st_mode & 0o777) != 0o555:
            bad.append(f"{r['name']}: folder mode {oct(os.stat(d).st_mode)}")
    for b in bad[:30]:
        print("  " + b, file=sys.stderr)
    print(f"check_tensors {os.path.basename(gguf)}: {len(rows)} tensors, {len(bad)} problems")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
